"""Full synonym table (every word's k = 10 nearest words by cosine), timed for embgeo against
FAISS IndexFlatIP doing the same, in one run.

embgeo's ``synonym_table`` runs :func:`embgeo.neighbors.self_topk`, whose symmetric path scores
each pair of words once for both (half the GEMM, every score merged twice) and whose plain path
is ``topk(X, X, exclude=self)`` (the default, canonical scores). Both paths are timed (forced), and the
table itself. Wall and CPU seconds (all threads) are printed, with ratios to the plain path.

    python benchmarks/compare_negatives.py [--words 400000] [--k 10] [--random-dim 300]

``--random-dim D`` replaces GloVe by ``--words`` random D-dimensional vectors (the GEMM's share
grows with D, and with it what the symmetric route saves).
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
    args = ap.parse_args(argv)

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


if __name__ == "__main__":
    main()
