"""Full synonym table (every word's k = 10 nearest words by cosine) for GloVe 6B 50d, timed
for embgeo's blocked exact search against FAISS IndexFlatIP doing the same, in one run.

    python benchmarks/compare_negatives.py [--words 400000] [--k 10]
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=400000)
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args(argv)

    import faiss

    import embgeo
    from embgeo.negatives import synonym_table

    embgeo.set_progress(False)
    e = embgeo.load("glove-6b-50d").top(args.words)
    print(f"GloVe 6B 50d, {len(e)} words, k = {args.k}; faiss threads = {faiss.omp_get_max_threads()}")

    t0 = time.perf_counter()
    table = synonym_table(e, k=args.k)
    t_embgeo = time.perf_counter() - t0

    U = np.ascontiguousarray(e.unit_vectors)
    t0 = time.perf_counter()
    index = faiss.IndexFlatIP(U.shape[1])
    index.add(U)
    _, ids = index.search(U, args.k + 1)  # +1: each word finds itself first
    t_faiss = time.perf_counter() - t0

    ours = table.indices.reshape(len(e), args.k)
    theirs = np.array([row[row != i][: args.k] for i, row in enumerate(ids)])
    agree = float(np.mean(ours == theirs))
    print(f"{'method':<28}{'seconds':>10}{'ratio':>8}")
    print(f"{'embgeo synonym_table':<28}{t_embgeo:>10.2f}{1.0:>8.2f}")
    print(f"{'FAISS IndexFlatIP':<28}{t_faiss:>10.2f}{t_faiss / t_embgeo:>8.2f}")
    print(f"identical neighbour ids: {agree:.4%} (differences are near-ties)")


if __name__ == "__main__":
    main()
