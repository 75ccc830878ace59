"""Cost of canonical scores: embgeo's exact top-k (canonical rescoring) vs the GEMM-score kernel it replaced.

GloVe 6B 50d (400,000 × 50), one thread, queries = vocabulary rows 1000…; for k in (10, 1000) and
1, 64 and 1,024 queries, cosine and dot, best of ``--repeat`` wall times of

* ``exact.prepared_topk`` — what ``topk`` runs: float32 GEMM tiles select, every pair that can enter
  a heap is rescored by the fixed-order float64 kernel (``embgeo.kernels.screen``);
* ``exact._tiled_numba`` — the GEMM-score kernel (``embgeo.kernels.topk.block_topk``), which CSLS
  still uses (a private function: this script measures the change, it is not an API).

Run::

    /work/venv/bin/python benchmarks/compare_canonical.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    import embgeo
    from embgeo.linalg import inverse_norms
    from embgeo.neighbors import _exact as exact  # the engine's internals: the kernel being compared

    embgeo.set_progress(False)
    X = np.ascontiguousarray(np.asarray(embgeo.load("glove-6b-50d").vectors, dtype=np.float32))
    inv = inverse_norms(X)
    exact.topk(X[:3], X[:9000], 5, n_jobs=1)  # compile both kernels and both metrics
    exact.topk(X[:3], X[:9000], 5, n_jobs=1, metric="dot")
    exact._tiled_numba(X[:3], X[:9000], 5, None, None, False, "", 1)

    def best(fn):
        t = np.inf
        for _ in range(args.repeat):
            c = time.perf_counter()
            out = fn()
            t = min(t, time.perf_counter() - c)
        return t, out

    print(f"GloVe 400k x 50, one thread; load average {os.getloadavg()[0]:.1f} at start")
    print(f"| {'queries':>7s} | {'k':>5s} | metric | canonical s | GEMM-score s | ratio | same ids |")
    print("|--------:|------:|--------|------------:|-------------:|------:|---------:|")
    for nq in (1, 64, 1024):
        Q = X[1000:1000 + nq]
        for k in (10, 1000):
            for metric in ("cosine", "dot"):
                qi = inverse_norms(Q) if metric == "cosine" else None
                di = inv if metric == "cosine" else None
                t1, (_, i1) = best(lambda: exact.prepared_topk(np, Q, X, k, None, qi, di, n_jobs=1))
                t2, (_, i2) = best(lambda: exact._tiled_numba(Q, X, k, None, None, False, "", 1, q_inv=qi,
                                                              d_inv=di))
                print(f"| {nq:7d} | {k:5d} | {metric:6s} | {t1:11.4f} | {t2:12.4f} | {t1 / t2:5.2f} | "
                      f"{np.mean(i1 == i2):8.4f} |")
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
