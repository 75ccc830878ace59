"""Where ``neighbors.topk`` spends its time for a very large k: the heap merge or the final sort.

    /work/venv/bin/python benchmarks/profile_topk_large_k.py [--rows 400000] [--dim 50] [--k 1000 10000 100000]

One query against ``rows`` random float32 rows (dot product): the whole ``topk`` call (best of
3), then its two phases run by hand once each with the same kernels (``block_topk``: GEMM tiles merged into the
heap; ``finalize``: the heap sorted best first), and NumPy's ``argpartition`` + ``lexsort`` on the
full score row as the peer.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from embgeo.kernels import topk as K
from embgeo.neighbors import topk


def best_of(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=400_000)
    ap.add_argument("--dim", type=int, default=50)
    ap.add_argument("--k", type=int, nargs="+", default=[1000, 10_000, 100_000])
    args = ap.parse_args()
    D = np.random.default_rng(0).standard_normal((args.rows, args.dim)).astype(np.float32)
    Q = D[:1].copy()
    none, empty = np.zeros(0, np.int64), np.zeros(0, D.dtype)
    topk(Q, D, 10, metric="dot", progress=False)  # compile
    for k in args.k:
        total = best_of(lambda: topk(Q, D, k, metric="dot", progress=False, check_finite=False))
        heaps = K.init_heaps(1, k, D.dtype)
        merge = best_of(lambda: K.block_topk(Q, D, 65536, *K.init_heaps(1, k, D.dtype), 0, none, none, 1.0,
                                             empty, empty), 1)
        K.block_topk(Q, D, 65536, *heaps, 0, none, none, 1.0, empty, empty)
        sort = best_of(lambda: K.finalize(heaps[0].copy(), heaps[1].copy()), 1)
        S = (Q @ D.T)[0]

        def numpy_select():
            idx = np.argpartition(-S, k - 1)[:k]
            return idx[np.lexsort((idx, -S[idx]))]

        peer = best_of(numpy_select)
        print(f"k={k}: topk {total:.3f} s; by hand (one run each): merge {merge:.3f} s, finalize {sort:.3f} s; "
              f"numpy argpartition+lexsort of the score row (GEMV not timed) {peer:.3f} s")


if __name__ == "__main__":
    main()
