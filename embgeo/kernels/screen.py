"""Numba kernels of the certified screened search: bound tiles, survivors, canonical scores.

The exact search (``embgeo.neighbors._screening``) ranks database rows by a *canonical* score
(:func:`canonical_dot`: the float64 dot product of a query row with a database row, summed in one
fixed order, times the row's scale, rounded once to the database dtype), so that a score never
depends on where its row fell in a tile or a shard. Computing that score for every pair would cost
far more than a float32 GEMM; :func:`screened_block` therefore runs a GEMM of cheap *upper bounds*
per tile (the screening index, or the plain float32 scores) and computes the canonical score only
for the pairs whose bound reaches the query's current threshold minus a margin that covers every
rounding error of the bound. Those *survivors* enter the running heaps of :mod:`embgeo.kernels.topk`
(same heaps, same order: score descending, ties to the lower row).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .topk import _CHUNK, _mark_excluded, _sift_down, _worse

__all__ = ["canonical_dot", "canonical_scores", "screened_block"]


@njit(cache=True, nogil=True, inline="always")
def canonical_dot(u, x):
    """Σ u_j x_j in float64, in one fixed order (four interleaved partial sums, then pairwise).

    ``u`` is float64, ``x`` any float row; every product of float32 values is exact in float64.
    The order depends on the dimension alone, so a pair's value is the same wherever it is
    computed. Four independent sums keep the floating-point pipeline busy (one running sum would
    wait on its own latency at every term).
    """
    d = x.shape[0]
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    a3 = 0.0
    d4 = d - d % 4
    for j in range(0, d4, 4):
        a0 += u[j] * x[j]
        a1 += u[j + 1] * x[j + 1]
        a2 += u[j + 2] * x[j + 2]
        a3 += u[j + 3] * x[j + 3]
    for j in range(d4, d):
        a0 += u[j] * x[j]
    return (a0 + a1) + (a2 + a3)


@njit(cache=True, nogil=True)
def canonical_scores(U, D, rows, cscale, out):
    """``out[i, t]`` = canonical score of query ``U[i]`` and database row ``rows[i, t]`` (for tests and seeds)."""
    scaled = cscale.shape[0] > 0
    for i in range(rows.shape[0]):
        for t in range(rows.shape[1]):
            j = rows[i, t]
            v = canonical_dot(U[i], D[j])
            if scaled:
                v = v * np.float64(cscale[j])
            out[i, t] = v


@njit(cache=True, nogil=True)
def _max_row_norm(D, c, ce):
    """An upper bound of the largest row norm among rows c..ce−1 (float64 sums of squares)."""
    d = D.shape[1]
    d4 = d - d % 4
    m = 0.0
    for j in range(c, ce):
        # four partial sums: one running sum would wait on its own latency at every term
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        for t in range(0, d4, 4):
            v0 = np.float64(D[j, t])
            v1 = np.float64(D[j, t + 1])
            v2 = np.float64(D[j, t + 2])
            v3 = np.float64(D[j, t + 3])
            s0 += v0 * v0
            s1 += v1 * v1
            s2 += v2 * v2
            s3 += v3 * v3
        for t in range(d4, d):
            v0 = np.float64(D[j, t])
            s0 += v0 * v0
        s = (s0 + s1) + (s2 + s3)
        m = s if s > m else m
    # the float64 sum of d squares errs by at most γ_d of itself; the square root by one ulp
    return np.sqrt(m * (1.0 + 2.0 * d * 2.0 ** -53)) * (1.0 + 2.0 ** -51) + 1e-300


@njit(cache=True, inline="always")
def _cut_below(thr, margin, one_ulp):
    # thr − margin in float64 (bound values compare exactly against it), lowered by a relative
    # ``one_ulp`` that covers the rounding of this subtraction itself
    if thr == -np.inf:
        return -np.inf
    c = thr - margin
    return c - abs(c) * one_ulp - 1e-300


@njit(cache=True, nogil=True)
def screened_block(Qs, Ds, U, D, cols, heap_vals, heap_idx, row0, ex_ptr, ex_idx, bscale, cscale,
                   seed, margin, ynorm, tile_norms, one_ulp, counts, start, stop, scale=1.0, bias=None, extra=0.0):
    """One block of queries against the whole database: bound GEMM per tile, survivors rescored.

    Parameters
    ----------
    Qs : array (b, w), C-contiguous
        The queries' bound coordinates (screening index coordinates, or the plain queries).
    Ds : array (n, w), C-contiguous, same dtype
        The database's bound coordinates, read one tile of ``cols`` rows at a time.
    U : float64 array (b, d)
        The queries as the canonical score sees them (the unit float32 query for cosine).
    D : array (n, d)
        The database rows (raw).
    cols : int
        Database rows per tile.
    heap_vals, heap_idx : arrays (q, k)
        Running heaps (:func:`embgeo.kernels.topk.init_heaps`) of canonical scores.
    row0 : int
        Heap row (and exclusion row) of ``Qs[0]``.
    ex_ptr, ex_idx : int64 arrays
        CSR exclusions by heap row, as in :func:`embgeo.kernels.topk.merge_tile`.
    bscale : array (n,) or empty
        Column factor of the bound tile (plain cosine: the rows' inverse norms).
    cscale : array (n,) or empty
        Column factor of the canonical score (cosine: the rows' inverse norms), widened to
        float64 before it multiplies the float64 dot product.
    seed : float64 array (b,)
        A lower bound of each query's final k-th canonical score (−inf when unknown).
    margin : float64 array (b,)
        Per query: an upper bound of (canonical score − bound value) / ‖y‖ over all rows.
    ynorm : float
        An upper bound of the database rows' norms ‖y‖; 0 to compute one per tile instead
        (into ``tile_norms``, shared by all blocks: each tile's entry is written once, by
        whichever block reaches it first, and every block would write the same value).
    tile_norms : float64 array (number of tiles,)
        Per-tile norm bounds, negative until computed (with ``ynorm`` = 0).
    one_ulp : float
        Relative slack for the float64 arithmetic of the cut (2**-50 is ample).
    counts : int64 array (b,)
        Incremented by the number of survivors of each query (pairs rescored).
    start, stop : int
        The database rows searched (``Ds``, ``D`` and the scales are indexed by database row).
    scale, bias : float and array (n,), optional
        CSLS's ranking score ``scale · score − bias[row]`` (2 cos − r_S) instead of the score,
        for the bound (in the working dtype) and the canonical value (in float64, rounded once).
    extra : float
        An absolute margin added to ``margin[r] · ynorm`` (the rounding of the biased bound and
        of the biased canonical value).
    """
    b = Qs.shape[0]
    k = heap_vals.shape[1]
    has_bias = bias is not None and bias.shape[0] > 0
    has_b = bscale.shape[0] > 0 and not has_bias  # a bias pass applies the column scale itself
    has_c = cscale.shape[0] > 0
    # one tile buffer for every tile, the last (narrower) one included: the memory budget counts one
    buf = np.empty(b * cols, dtype=Ds.dtype)
    cast = np.empty(1, dtype=heap_vals.dtype)  # rounds a float64 score to the heap's dtype
    for c in range(start, stop, cols):
        ce = min(c + cols, stop)
        m = ce - c
        S = buf[:b * m].reshape((b, m))
        np.dot(Qs, Ds[c:ce].T, S)
        full = m - m % _CHUNK
        ymax = ynorm
        if ymax <= 0.0:
            tid = (c - start) // cols
            if tile_norms[tid] < 0.0:
                tile_norms[tid] = _max_row_norm(D, c, ce)
            ymax = tile_norms[tid]
        for r in range(b):
            s = S[r]
            if has_bias:
                sc_b = bscale.shape[0] > 0
                for t in range(m):
                    v = s[t] * bscale[c + t] if sc_b else s[t]
                    s[t] = scale * v - bias[c + t]
            if ex_ptr.shape[0] > 0:
                _mark_excluded(s, c, ex_ptr, ex_idx, row0 + r)
            hv = heap_vals[row0 + r]
            hi = heap_idx[row0 + r]
            u = U[r]
            thr = max(hv[0], seed[r])
            mr = margin[r] * ymax + extra
            cut = _cut_below(thr, mr, one_ulp)
            nsurv = 0
            j = 0
            while j < m:
                # a chunk's maximum first (vectorised); only chunks that reach the cut are walked
                if j < full:
                    mx = -np.inf  # the chunk scan of topk._merge_row, written out (see there why)
                    if has_b:
                        for t in range(_CHUNK):
                            v = s[j + t] * bscale[c + j + t]
                            s[j + t] = v
                            mx = v if v > mx else mx
                    else:
                        for t in range(_CHUNK):
                            v = s[j + t]
                            mx = v if v > mx else mx
                    jend = j + _CHUNK
                    if not mx >= cut:
                        j = jend
                        continue
                else:
                    jend = m
                    if has_b:
                        for t in range(j, m):
                            s[t] = s[t] * bscale[c + t]
                for t in range(j, jend):
                    if s[t] >= cut:  # NaN (excluded) never passes
                        col = c + t
                        v = canonical_dot(u, D[col])
                        if has_c:
                            v = v * np.float64(cscale[col])
                        if has_bias:
                            v = scale * v - np.float64(bias[col])
                        cast[0] = v
                        sc = cast[0]
                        nsurv += 1
                        if _worse(hv[0], hi[0], sc, col):
                            hv[0] = sc
                            hi[0] = col
                            _sift_down(hv, hi, k)
                            if hv[0] > thr:
                                thr = hv[0]
                                cut = _cut_below(thr, mr, one_ulp)
                j = jend
            counts[r] += nsurv
