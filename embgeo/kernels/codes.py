"""Numba top-k over packed bits by Hamming distance (the int8 codes' search is a float GEMM, exact there).

The exact Hamming search of :mod:`embgeo.neighbors._codes` (``neighbors.topk`` on ``uint8``
databases). No score matrix is ever made: each query keeps its ``k`` best (score, row) pairs in a
binary min-heap whose root is the worst kept pair, fed row by row; a candidate costs one integer
distance and one comparison with the root. Distances enter as their negatives, so that the order
is the float engine's: a pair is better if its score is higher, or the scores are equal and its
row is lower. Ties therefore go to the lower database row, whatever the tiling.

Queries are taken in chunks of ``_QCHUNK`` rows (one chunk per thread) and the database in tiles
of ``tile`` rows, so that a tile stays in cache while the chunk's queries scan it.

Packed bits are read as ``uint64`` words (the caller pads a row to whole words with zero bytes, which
add nothing to a distance); a word's popcount is the SWAR sequence, which LLVM compiles to one
``popcnt`` instruction.

Excluded rows are given per query in CSR form (``ex_ptr``, ``ex_idx``, sorted within a query) and are
looked up (binary search) only for a candidate that would enter the heap.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["hamming_topk", "sort_heaps", "init_heaps"]

_QCHUNK = 8
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S4 = np.uint64(4)
_S56 = np.uint64(56)


@njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return np.int32((x * _H01) >> _S56)


@njit(cache=True, inline="always")
def _worse(v1, i1, v2, i2):
    """True when pair 1 ranks below pair 2 (lower score, or equal score and higher row)."""
    return v1 < v2 or (v1 == v2 and i1 > i2)


@njit(cache=True, inline="always")
def _replace_root(hv, hi, v, c):
    # the new pair replaces the worst kept one, then sinks to its place in the min-heap
    k = hv.shape[0]
    hv[0] = v
    hi[0] = c
    pos = 0
    while True:
        child = 2 * pos + 1
        if child >= k:
            break
        right = child + 1
        if right < k and _worse(hv[right], hi[right], hv[child], hi[child]):
            child = right
        if _worse(hv[child], hi[child], hv[pos], hi[pos]):
            tv = hv[pos]
            ti = hi[pos]
            hv[pos] = hv[child]
            hi[pos] = hi[child]
            hv[child] = tv
            hi[child] = ti
            pos = child
        else:
            break


@njit(cache=True, inline="always")
def _excluded(ex_ptr, ex_idx, r, c):
    a = ex_ptr[r]
    b = ex_ptr[r + 1]
    if a == b:
        return False
    p = a + np.searchsorted(ex_idx[a:b], c)
    return p < b and ex_idx[p] == c


@njit(cache=True, parallel=True)
def hamming_topk(Q, X, col0, hv, hi, ex_ptr, ex_idx, tile):
    """Merge rows ``X`` (database rows ``col0 …``) into the heaps of queries ``Q`` by Hamming distance.

    ``Q`` (q, w) and ``X`` (m, w) are ``uint64`` words of packed bits; ``hv`` (q, k) ``int32`` holds
    negated distances, ``hi`` (q, k) ``int64`` rows. ``ex_ptr`` has length q + 1 (all zero: nothing excluded).
    """
    nq, w = Q.shape
    m = X.shape[0]
    for ch in prange((nq + _QCHUNK - 1) // _QCHUNK):
        q0 = ch * _QCHUNK
        q1 = min(nq, q0 + _QCHUNK)
        for t0 in range(0, m, tile):
            t1 = min(m, t0 + tile)
            for r in range(q0, q1):
                hvr = hv[r]
                hir = hi[r]
                for j in range(t0, t1):
                    d = np.int32(0)
                    for b in range(w):
                        d += _popcount(Q[r, b] ^ X[j, b])
                    c = col0 + j
                    if _worse(hvr[0], hir[0], -d, c) and not _excluded(ex_ptr, ex_idx, r, c):
                        _replace_root(hvr, hir, -d, c)


def init_heaps(n_rows: int, k: int, n_database: int):
    """Heaps (int32 scores, int64 rows) filled with a pair worse than any real one (the sentinel row
    ``n_database`` loses every tie)."""
    return (np.full((n_rows, k), np.iinfo(np.int32).min, dtype=np.int32),
            np.full((n_rows, k), n_database, dtype=np.int64))


@njit(cache=True, parallel=True)
def sort_heaps(hv, hi):
    """Sort every heap best first, in place (heapsort: the worst pair goes last)."""
    for r in prange(hv.shape[0]):
        hvr = hv[r]
        hir = hi[r]
        for end in range(hv.shape[1] - 1, 0, -1):
            tv = hvr[0]
            ti = hir[0]
            hvr[0] = hvr[end]
            hir[0] = hir[end]
            hvr[end] = tv
            hir[end] = ti
            _replace_root(hvr[:end], hir[:end], hvr[0], hir[0])
