"""Real-data numbers for docs/negatives.md: NegatER's candidate step on the full ConceptNet benchmark.

Run from the repository root::

    /work/venv/bin/python benchmarks/report_negater.py [--data ../shared/data/negater/conceptnet-full] [--k 10]

The seven files of NegatER's ``data/conceptnet/full`` (registered in ``embgeo.data`` as
``negater-conceptnet-full-*``) are fetched from the cache or found by checksum in ``--data``. Phrase
vectors are the mean GloVe 6B 50d vectors of their words (``PhraseIndex.embed``; the embedding-side
stand-in for NegatER's fine-tuned LM); phrases with no GloVe word are left out of the index, and the
training triples that name one are not corrupted (their count is printed). The index is
``metric="l2"`` (the released ``IndexFlatL2``); the knowledge base (slot fillers, known positives) is
train + valid + test, as the released job loads it. Prints, as Markdown: candidates per relation and
per slot for the 100,000 training triples, and how many of the benchmark's own valid / test
negatives are among them (default settings, and with each departure: ``corrupt="tail"``,
``slot_filter=False``).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DATA = Path(os.environ.get("EMBGEO_SHARED_DATA", REPO.parent / "shared" / "data")) / "negater" / "conceptnet-full"
SPLITS = ("train", "valid", "test", "valid-negatives", "test-negatives")


def _ids(path):
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        i, _, name = line.partition("\t")
        if not name:
            raise ValueError(f"{path}:{n}: expected id<TAB>name, got {line!r}")
        out[int(i)] = name
    return out


def load_conceptnet(data_dir=DATA):
    """``(phrases, relations, {split: [(head, relation, tail), ...]})`` of NegatER's full ConceptNet,
    the files fetched through the registry (verified by sha256)."""
    from embgeo import data

    def path(name):
        return data.fetch(f"negater-conceptnet-full-{name}", search_dirs=[data_dir], progress=False)

    ent, rel = _ids(path("entities")), _ids(path("relations"))
    splits = {}
    for split in SPLITS:
        rows = np.loadtxt(path(split), dtype=np.int64, delimiter="\t", ndmin=2)
        splits[split] = [(ent[h], rel[r], ent[t]) for h, r, t in rows.tolist()]
    return [ent[i] for i in range(len(ent))], [rel[i] for i in range(len(rel))], splits


def phrase_vectors(e, phrases):
    """Mean word vectors of the phrases with at least one word of ``e`` (and those phrases)."""
    from embgeo.negatives import PhraseIndex

    known = [p for p in phrases if e.indices(p.replace("_", " ").split(), oov="skip").size]
    return known, PhraseIndex.embed(e, known)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="folder holding NegatER's conceptnet/full files")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args(argv)

    import embgeo
    from embgeo.negatives import PhraseIndex, candidate_negatives

    embgeo.set_progress(False)
    phrases, relations, splits = load_conceptnet(args.data)
    e = embgeo.load("glove-6b-50d")
    indexed, X = phrase_vectors(e, phrases)
    index = PhraseIndex.build(None, indexed, vectors=X, metric="l2")
    kb = splits["train"] + splits["valid"] + splits["test"]
    train = [t for t in splits["train"] if t[0] in index and t[2] in index]
    print(f"{len(phrases)} phrases, {len(indexed)} with a GloVe word (indexed); {len(relations)} relations; "
          f"{len(train)} of {len(splits['train'])} training triples corrupted; k = {args.k}; "
          f"load average {os.getloadavg()[0]:.1f}\n")

    runs = {}
    for label, kw in (("released (both slots, slot filter)", {}), ("corrupt='tail'", {"corrupt": "tail"}),
                      ("slot_filter=False", {"slot_filter": False})):
        t0 = time.perf_counter()
        runs[label] = candidate_negatives(train, index, k=args.k, known=kb, **kw)
        print(f"{label}: {len(runs[label])} candidates in {time.perf_counter() - t0:.1f} s")

    c = runs["released (both slots, slot filter)"].counts()
    print("\n| relation | head candidates | tail candidates | training triples |\n|---|---:|---:|---:|")
    per_rel = {r: 0 for r in relations}
    for _, r, _ in train:
        per_rel[r] += 1
    for r in sorted(relations, key=lambda r: -(c.get((r, "head"), 0) + c.get((r, "tail"), 0))):
        print(f"| {r} | {c.get((r, 'head'), 0)} | {c.get((r, 'tail'), 0)} | {per_rel[r]} |")
    heads = sum(v for (r, s), v in c.items() if s == "head")
    tails = sum(v for (r, s), v in c.items() if s == "tail")
    print(f"| **all** | {heads} | {tails} | {len(train)} |")

    print("\n| candidates | distinct | valid negatives found (of 1,200) | test negatives found (of 1,200) |"
          "\n|---|---:|---:|---:|")
    for label, cands in runs.items():
        found = set(cands)
        hits = [sum(t in found for t in splits[s]) for s in ("valid-negatives", "test-negatives")]
        print(f"| {label} | {len(found)} | {hits[0]} | {hits[1]} |")
    # how many benchmark negatives could a one-slot corruption of a training positive give at all
    pos = set(splits["train"])
    heads_of = {(r, t) for h, r, t in pos}
    tails_of = {(h, r) for h, r, t in pos}
    for s in ("valid-negatives", "test-negatives"):
        reach = sum((r, t) in heads_of or (h, r) in tails_of for h, r, t in splits[s])
        print(f"{s}: {reach} of {len(splits[s])} share (relation, tail) or (head, relation) with a training "
              "positive (reachable by one replacement)")
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
