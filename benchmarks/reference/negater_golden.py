"""Regenerate tests/data/negater_golden.json with the released NegatER code (the reference of
``embgeo.negatives.candidate_negatives`` and ``PhraseIndex(metric="l2")``).

    git --git-dir=<mirror of tsafavi/NegatER> archive HEAD src | tar -x -C /tmp/negater
    /work/refvenv-neg/bin/python benchmarks/reference/negater_golden.py /tmp/negater/src

Run it with a Python that has NumPy and ``faiss-cpu`` (``python3 -m venv``; ``pip install numpy
faiss-cpu``), never embgeo's environment. The first argument is the ``src`` folder of a checkout of
tsafavi/NegatER (commit a5994eb8989af698dc2a6fcae8e7dd2e887140b0, with NumPy 2.4.6 and faiss-cpu
1.15.1 on Python 3.11, made the stored file); its
modules are imported from there and run unchanged:

* ``job.nearest_neighbors._top_k_self_similarity_search`` (FAISS ``IndexFlatL2``, k + 1 searched,
  the first hit dropped) gives each fixture phrase's neighbours, saved as the released job saves
  them (``{phrase: [neighbour, ...]}``, the ``top_k_index.json`` file);
* ``job.generate_negatives.NegativeGenerationJob._generate_corruptions`` reads that file and
  returns the candidate negatives. The job object is made without its ``__init__`` (which loads a
  YAML configuration, a dataset folder and a language model): its ``options``, ``dataset`` (the
  fixture triples), ``indexer.filename`` and log file are set instead, and the method runs as
  released.

The function needs neither PyTorch, transformers, pandas, PyYAML nor tqdm, which the modules
import at the top: they are stubbed (:func:`load_released`), as the brief of issue 44 allows.
``benchmarks/compare_negatives.py`` imports :func:`load_released` and :func:`released_corruptions`
to time the released pipeline.
"""
from __future__ import annotations

import importlib
import json
import sys
import tempfile
import types
from pathlib import Path
from types import SimpleNamespace

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "negater_golden.json"
COMMIT = "a5994eb8989af698dc2a6fcae8e7dd2e887140b0"
#: imported at the top of the released modules, unused by the two functions run here
STUBBED = ("torch", "torch.utils", "torch.utils.data", "transformers", "pandas", "yaml", "tqdm")


class _Stub:
    """Any class or decorator factory a stubbed module is asked for (``torch.no_grad()``,
    ``BertPreTrainedModel`` as a base class, ...)."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, f=None, *args, **kwargs):
        return f


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (_Stub,), {})


def load_released(src):
    """``(job.generate_negatives, job.nearest_neighbors)`` imported from the released ``src`` folder,
    with the heavy imports stubbed for the import only (``sys.modules`` is restored after it)."""
    src = str(Path(src).resolve())
    if not (Path(src) / "job" / "generate_negatives.py").is_file():
        raise SystemExit(f"{src} is not the src folder of tsafavi/NegatER (no job/generate_negatives.py)")
    saved = {name: sys.modules.get(name) for name in STUBBED}
    for name in STUBBED:
        sys.modules[name] = _StubModule(name)
    sys.path.insert(0, src)
    try:
        gen = importlib.import_module("job.generate_negatives")
        nn = importlib.import_module("job.nearest_neighbors")
    finally:
        sys.path.remove(src)
        for name, mod in saved.items():
            if mod is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = mod
    return gen, nn


def released_corruptions(gen, triples, neighbours_file, seed=0):
    """``_generate_corruptions`` of the released job on ``triples`` with the neighbour lists saved
    in ``neighbours_file``; an (m, 3) array of strings (shuffled with ``seed``, as released)."""
    job = object.__new__(gen.NegativeGenerationJob)
    job.options = {"negater": {"index": {"build": False}}}
    job.dataset = [tuple(t) for t in triples]
    job.indexer = SimpleNamespace(filename=str(neighbours_file))
    job.logfile = str(Path(tempfile.gettempdir()) / "negater_golden.log")
    job.dt_format = "%d/%m/%Y %H:%M:%S"
    np.random.seed(seed)
    return gen.NegativeGenerationJob._generate_corruptions(job)


def fixture(rng):
    """Phrases, their vectors (rounded to 3 decimals, exact in float32 text) and a knowledge base
    whose slots overlap the phrases' neighbourhoods; relation "OnlyOne" has a single tail filler."""
    phrases = [f"phrase {i:02d}" for i in range(40)]
    X = np.round(rng.standard_normal((40, 6)), 3).astype(np.float32)
    rels = ["AtLocation", "UsedFor", "Desires", "IsA"]
    triples = set()
    while len(triples) < 120:
        r = rels[rng.integers(len(rels))]
        lo = 10 * rels.index(r)  # each relation draws heads mostly from its own block of phrases
        h = phrases[(lo + rng.integers(15)) % 40]
        t = phrases[rng.integers(40)]
        if h != t:
            triples.add((h, r, t))
    triples |= {(phrases[i], "OnlyOne", phrases[39]) for i in (0, 1, 2)}
    return phrases, X, sorted(triples)


def main(argv=None):
    import argparse

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("src", help="the src folder of a checkout of tsafavi/NegatER")
    args = p.parse_args(argv)
    gen, nn = load_released(args.src)
    phrases, X, triples = fixture(np.random.default_rng(44))
    out = {"source": f"tsafavi/NegatER@{COMMIT}: job.nearest_neighbors._top_k_self_similarity_search, "
                     "job.generate_negatives.NegativeGenerationJob._generate_corruptions",
           "generated_by": "benchmarks/reference/negater_golden.py",
           "phrases": phrases, "vectors": X.tolist(), "triples": triples, "runs": []}
    entities = np.asarray(phrases)
    with tempfile.TemporaryDirectory() as tmp:
        for k in (3, 6):
            top = nn._top_k_self_similarity_search(X, k)
            # as NearestNeighborsSearchJob.run saves them
            neighbours = {s: list(entities[ids]) for s, ids in zip(entities, top)}
            neighbours = {s: [str(x) for x in v] for s, v in neighbours.items()}
            path = Path(tmp) / f"top_{k}_index.json"
            path.write_text(json.dumps(neighbours))
            corr = released_corruptions(gen, triples, path)
            out["runs"].append({"k": k, "nearest_neighbors": neighbours,
                                "corruptions": sorted(map(list, corr.tolist()))})
            print(f"k={k}: {len(corr)} corruptions")
    OUT.write_text(json.dumps(out, indent=None, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
