"""Full synonym table (every word's k = 10 nearest words by cosine), timed for embgeo against
FAISS IndexFlatIP doing the same, in one run.

embgeo's ``synonym_table`` runs :func:`embgeo.neighbors.self_topk`, whose symmetric path scores
each pair of words once for both (half the GEMM, every score merged twice) and whose plain path
is ``topk(X, X, exclude=self)`` (the default, canonical scores). Both paths are timed (forced), and the
table itself. Wall and CPU seconds (all threads) are printed, with ratios to the plain path.

    python benchmarks/compare_negatives.py [--words 400000] [--k 10] [--random-dim 300]

``--random-dim D`` replaces GloVe by ``--words`` random D-dimensional vectors (the GEMM's share
grows with D, and with it what the symmetric route saves).

``--negater SRC`` times NegatER's candidate step instead, against the released pipeline (``SRC`` is
the ``src`` folder of a checkout of tsafavi/NegatER, imported unchanged through
``benchmarks/reference/negater_golden.py``)::

    python benchmarks/compare_negatives.py --negater /tmp/negater/src [--k 10]

On the full ConceptNet benchmark (78,334 phrases; the mean GloVe 6B 50d vectors of the 76,572 with
a GloVe word, the same matrix for both): the self k-NN of every phrase (FAISS ``IndexFlatL2``,
k + 1 searched, first hit dropped: ``_top_k_self_similarity_search``; embgeo ``PhraseIndex.search``,
metric "l2", self excluded), the candidates of the training triples from the same neighbour
lists (the released ``_generate_corruptions``, its JSON file and Python loops; embgeo
``candidate_negatives`` given those lists), and the two end to end (released: search, lists saved
as JSON, loops; embgeo: ``candidate_negatives`` with the index). The knowledge base is the
training triples whose phrases are indexed, for both. The candidate multisets must be equal.
"""
from __future__ import annotations

import argparse
import os

import numpy as np
from common import timed  # benchmarks/common.py: the script's folder is on sys.path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=400000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--random-dim", type=int, default=0)
    ap.add_argument("--negater", metavar="SRC", help="time NegatER's candidate step against the released src")
    args = ap.parse_args(argv)
    if args.negater:
        return negater(args.negater, args.k)

    import faiss

    import embgeo
    from embgeo.negatives import synonym_table
    from embgeo.neighbors import self_topk
    from embgeo.normalize import normalize

    embgeo.set_progress(False)
    if args.random_dim:
        X = np.random.default_rng(0).standard_normal((args.words, args.random_dim)).astype(np.float32)
        e = embgeo.Embeddings([f"w{i}" for i in range(args.words)], X, check_finite=False)
        name = f"random {args.random_dim}-d"
    else:
        e = embgeo.load("glove-6b-50d").top(args.words)
        name = "GloVe 6B 50d"
    n, k = len(e), args.k
    print(f"{name}, {n} words, k = {k}; faiss threads = {faiss.omp_get_max_threads()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    synonym_table(e.top(1000), k=k)  # compile outside the timing

    table, t_e, c_e = timed(lambda: synonym_table(e, k=k))
    (_, ids_plain), t_p, c_p = timed(lambda: self_topk(e.vectors, k, symmetric=False))
    (_, ids_sym), t_s, c_s = timed(lambda: self_topk(e.vectors, k, symmetric=True))

    U = np.ascontiguousarray(normalize(e.vectors, "unit"))

    def run_faiss():
        index = faiss.IndexFlatIP(U.shape[1])
        index.add(U)
        return index.search(U, k + 1)  # +1: each word finds itself first

    (_, ids), t_f, c_f = timed(run_faiss)

    ours = table.indices.reshape(n, k)
    theirs = np.array([row[row != i][:k] for i, row in enumerate(ids)])
    print(f"{'method':<40}{'wall s':>9}{'ratio':>7}{'CPU s':>9}{'ratio':>7}")
    for label, t, c in (("self_topk plain (topk, exclude=self)", t_p, c_p),
                        ("self_topk symmetric", t_s, c_s),
                        ("synonym_table (picks by dimension)", t_e, c_e), ("FAISS IndexFlatIP", t_f, c_f)):
        print(f"{label:<40}{t:>9.2f}{t / t_p:>7.2f}{c:>9.2f}{c / c_p:>7.2f}")
    print(f"identical neighbour ids vs the table: FAISS {np.mean(ours == theirs):.4%}, plain "
          f"{np.mean(ours == ids_plain):.4%}, symmetric {np.mean(ours == ids_sym):.4%} (differences are "
          f"near-ties); load average {os.getloadavg()[0]:.1f} at end")


def negater(src, k):
    import json
    import sys
    import tempfile
    from pathlib import Path

    import faiss

    import embgeo
    from embgeo.negatives import PhraseIndex, candidate_negatives

    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here / "reference"))
    from negater_golden import load_released, released_corruptions
    from report_negater import load_conceptnet, phrase_vectors

    embgeo.set_progress(False)
    gen, nn = load_released(src)
    all_phrases, _, splits = load_conceptnet()
    phrases, X = phrase_vectors(embgeo.load("glove-6b-50d"), all_phrases)
    pos = set(phrases)
    train = [t for t in splits["train"] if t[0] in pos and t[2] in pos]
    n = len(phrases)
    print(f"NegatER full ConceptNet: {n} phrases (d = {X.shape[1]}), {len(train)} training triples, k = {k}; "
          f"faiss threads = {faiss.omp_get_max_threads()}, load average {os.getloadavg()[0]:.1f}")
    index = PhraseIndex.build(None, phrases, vectors=X)
    index.search(X[:100], k, np.arange(100))  # compile outside the timing
    entities = np.asarray(phrases)

    (_, ours_ids), t_es, c_es = timed(lambda: index.search(X, k, np.arange(n)))
    faiss_ids, t_fs, c_fs = timed(lambda: nn._top_k_self_similarity_search(X, k))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"top_{k}_index.json"

        def save_lists():  # as NearestNeighborsSearchJob.run keeps and saves them
            lists = {s: list(entities[ids]) for s, ids in zip(entities, faiss_ids)}
            with open(path, "w") as f:
                json.dump(lists, f)
            return lists

        lists, t_fj, c_fj = timed(save_lists)
        theirs, t_fc, c_fc = timed(lambda: released_corruptions(gen, train, path))
        lists = {p: [str(x) for x in v] for p, v in lists.items()}
    mine, t_ec, c_ec = timed(lambda: candidate_negatives(train, lists, k=k))
    end, t_ee, c_ee = timed(lambda: candidate_negatives(train, index, k=k))
    same = sorted(map(tuple, theirs.tolist())) == sorted(mine)
    agree = np.mean([len(set(a) & set(b)) / k for a, b in zip(ours_ids.tolist(), faiss_ids.tolist())])
    print(f"{'step':<58}{'wall s':>8}{'CPU s':>8}{'ratio':>7}")
    rows = (("self k-NN, FAISS IndexFlatL2 (released)", t_fs, c_fs, None),
            ("self k-NN, embgeo PhraseIndex l2", t_es, c_es, t_fs / t_es),
            ("lists kept and saved as JSON (released)", t_fj, c_fj, None),
            ("candidates from the lists, _generate_corruptions (released)", t_fc, c_fc, None),
            ("candidates from the lists, embgeo candidate_negatives", t_ec, c_ec, t_fc / t_ec),
            ("end to end, released (k-NN + JSON + loops)", t_fs + t_fj + t_fc, c_fs + c_fj + c_fc, None),
            ("end to end, embgeo candidate_negatives(index)", t_ee, c_ee, (t_fs + t_fj + t_fc) / t_ee))
    for label, t, c, ratio in rows:
        print(f"{label:<58}{t:>8.2f}{c:>8.2f}{'' if ratio is None else f'{ratio:>6.1f}x':>7}")
    print(f"candidates: released {len(theirs)}, embgeo from the same lists {len(mine)}, equal multisets: {same}; "
          f"embgeo end to end {len(end)}; neighbour lists agree on {agree:.4%} of the entries; "
          f"load average {os.getloadavg()[0]:.1f} at end (ratio = released time / embgeo time, wall)")


if __name__ == "__main__":
    main()
