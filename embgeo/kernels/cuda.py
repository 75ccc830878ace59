"""CUDA kernels (``numba.cuda``) of the GPU engine: top-k selection with certified rescoring, normalisations.

The GPU twin of :mod:`embgeo.kernels.topk` + :mod:`embgeo.kernels.screen` (the search) and of
:mod:`embgeo.normalize` (VecMap's normalisations). Kernels take device arrays through
``__cuda_array_interface__`` (CuPy arrays); under Numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``) they run on NumPy arrays on the CPU, which is how CI tests them.
This module imports ``numba.cuda``: import it lazily, only where a GPU path runs (``import embgeo``
never does).

**Selection** (:func:`screen_tile`): the caller computes a float32 score tile with a GEMM (cuBLAS
through CuPy, or NumPy under the simulator) of unit queries against raw database rows. One thread
block per query row scans its tile row, ``THREADS`` columns at a time; a score whose bound reaches
the row's *cut* (the worst kept canonical score minus a margin covering every rounding of the
bound, :func:`embgeo.neighbors._screening.plain_margin`) is rescored by the thread that found it
with :func:`canonical_dot` (the CPU engine's fixed-order float64 dot product, bit for bit), and
the survivors of a round enter the row's heap (in device memory, kept across tiles: the merge of
tiles happens on the device), one thread merging. The heap order is the CPU engine's: higher
score first, ties to the lower column, so any arrival order gives the same lists. Excluded
columns (CSR lists, as on the CPU) are marked NaN in the tile first; NaN never passes a cut.
:func:`finalize` sorts each heap best first (heapsort, one thread per row).

Why float64 products are rounded explicitly (``dmul_rn``): NVVM contracts a multiply and an add
into a fused multiply-add by default, which would change the canonical sum's bits for float64
data (float32 products are exact in float64, so there it changes nothing).

**Normalisations** (:func:`unit_rows`, :func:`center_rows`, :func:`unitdim_rows`,
:func:`centeremb_rows` and the column statistics :func:`column_sums`): float64 accumulation,
one row per group of ``THREADS`` threads (row statistics and their use in one pass), the result
rounded once to the storage dtype, as :mod:`embgeo.normalize` does.
"""
from __future__ import annotations

import math

from numba import config, cuda, float32, float64, int32, int64

from .fuzzy import conditioned_logit_row

__all__ = ["SIMULATED", "THREADS", "screen_tile", "finalize", "canonical_dot", "unit_rows", "centeremb_rows",
           "column_sums", "center_rows", "unitdim_rows", "launch_rows", "column_stats", "dropout_argmax",
           "conditioned_logit_rows", "launch_threads"]

#: True under Numba's CUDA simulator (kernels run as Python threads on NumPy arrays).
SIMULATED = bool(getattr(config, "ENABLE_CUDASIM", 0))
#: Threads per block; a handful under the simulator, where every thread is a Python thread.
THREADS = 4 if SIMULATED else 128
#: Tile columns one thread scores per round of :func:`screen_tile` (the round's survivor buffer
#: holds THREADS × ITEMS entries).
ITEMS = 2 if SIMULATED else 8
_BUF = THREADS * ITEMS

_M64 = (1 << 64) - 1

if SIMULATED:
    @cuda.jit(device=True)
    def _mul(a, b):
        return a * b

    @cuda.jit(device=True)
    def _dropped(row, m, j, seed, thr):
        # the device version below in Python integers (NumPy's uint64 scalars warn on wrap-around)
        z = ((int(row) * int(m) + int(j)) ^ int(seed)) & _M64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        z = z ^ (z >> 31)
        return (z >> 56) >= int(thr)
else:  # pragma: no cover - needs a GPU
    from numba import uint64
    from numba.cuda import libdevice

    @cuda.jit(device=True)
    def _mul(a, b):
        # a product NVVM may not fuse with the next addition (see the module docstring)
        return libdevice.dmul_rn(a, b)

    @cuda.jit(device=True)
    def _dropped(row, m, j, seed, thr):
        # embgeo.kernels.crosslingual._dropped of the key row·m + j: top 8 bits of splitmix64 ≥ thr
        z = (uint64(row) * uint64(m) + uint64(j)) ^ uint64(seed)
        z = (z ^ (z >> uint64(30))) * uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> uint64(27))) * uint64(0x94D049BB133111EB)
        z = z ^ (z >> uint64(31))
        return (z >> uint64(56)) >= uint64(thr)


@cuda.jit(device=True)
def canonical_dot(u, x):
    """Σ u_j x_j in float64, in :func:`embgeo.kernels.screen.canonical_dot`'s order (four interleaved
    partial sums, then pairwise): the same bits as the CPU engine's canonical score."""
    d = x.shape[0]
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    a3 = 0.0
    d4 = d - d % 4
    for j in range(0, d4, 4):
        a0 += _mul(u[j], float64(x[j]))
        a1 += _mul(u[j + 1], float64(x[j + 1]))
        a2 += _mul(u[j + 2], float64(x[j + 2]))
        a3 += _mul(u[j + 3], float64(x[j + 3]))
    for j in range(d4, d):
        a0 += _mul(u[j], float64(x[j]))
    return (a0 + a1) + (a2 + a3)


@cuda.jit(device=True)
def _worse(v1, i1, v2, i2):
    """True when pair 1 ranks below pair 2 (lower score, or equal score and higher column)."""
    return v1 < v2 or (v1 == v2 and i1 > i2)


@cuda.jit(device=True)
def _sift_down(hv, hi, k, pos):
    # restore the min-heap (root = worst kept pair) below ``pos``, heap size k
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


@cuda.jit(device=True)
def _cut_below(thr, margin, one_ulp):
    # as embgeo.kernels.screen._cut_below: thr − margin in float64, lowered by a relative one_ulp
    if thr == -math.inf:
        return -math.inf
    c = thr - margin
    return c - abs(c) * one_ulp - 1e-300


@cuda.jit
def screen_tile(S, col0, Dt, U, cscale, has_scale, bias, has_bias, scale, hv, hi, row0, ex_ptr, ex_idx,
                has_ex, margin, one_ulp, is32, counts):
    """Merge one score tile into the running heaps of its rows, rescoring survivors canonically.

    Launch with one block of ``THREADS`` threads per tile row: ``screen_tile[b, THREADS](...)``.

    Parameters
    ----------
    S : float array (b, m), **modified** (excluded entries become NaN)
        Plain scores (unit queries · raw rows) of query rows ``row0 …`` against database rows
        ``col0 … col0+m−1``.
    col0 : int
    Dt : array (m, d)
        The database rows of the tile (for the canonical rescoring).
    U : float64 array (b, d)
        The (unit) queries as the canonical score sees them.
    cscale : array (n,)
        Column factors (cosine: inverse norms of the database rows), used with ``has_scale``.
    bias : array (n,), with ``has_bias``; scale : float
        Rank by ``scale · score − bias[col]`` (CSLS's 2 cos − r_S).
    hv, hi : arrays (q, k)
        Running heaps (root = worst kept pair), updated for rows ``row0 … row0+b−1``.
    ex_ptr, ex_idx : int64 arrays, with ``has_ex``
        CSR exclusions by heap row (sorted within a row).
    margin : float64 array (b,)
        Per tile row: an absolute bound of |canonical score − bound value| over the tile.
    one_ulp : float
        Relative slack of the cut's float64 arithmetic.
    is32 : int
        The heaps are float32 (canonical values are rounded to it).
    counts : int64 array (b,)
        Incremented by the survivors (pairs rescored) of each row.
    """
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    row = row0 + r
    m = S.shape[1]
    k = hv.shape[1]
    sv = cuda.shared.array(_BUF, float64)
    si = cuda.shared.array(_BUF, int64)
    sf = cuda.shared.array(2, float64)   # the cut, the root's score (a stale root only lets more through)
    sn = cuda.shared.array(3, int64)     # survivors in the buffer, the root's column, survivors rescored
    if has_ex:
        a = ex_ptr[row]
        e = ex_ptr[row + 1]
        for p in range(a + t, e, THREADS):
            c = ex_idx[p]
            if c >= col0 and c < col0 + m:
                S[r, c - col0] = math.nan
    if t == 0:
        sn[0] = 0
        sn[2] = 0
        sf[1] = float64(hv[row, 0])
        sn[1] = hi[row, 0]
        sf[0] = _cut_below(sf[1], margin[r], one_ulp)
    cuda.syncthreads()
    u = U[r]
    for base in range(0, m, _BUF):
        for it in range(ITEMS):
            j = base + it * THREADS + t
            if j < m:
                col = col0 + j
                v = S[r, j]
                if has_scale:
                    v = v * cscale[col]
                bnd = float64(v)
                if has_bias:
                    bnd = scale * bnd - float64(bias[col])
                if bnd >= sf[0]:  # NaN (excluded) never passes
                    c64 = canonical_dot(u, Dt[j])
                    if has_scale:
                        c64 = _mul(c64, float64(cscale[col]))
                    if has_bias:
                        c64 = scale * c64 - float64(bias[col])
                    sc = float64(float32(c64)) if is32 else c64
                    cuda.atomic.add(sn, 2, 1)
                    if _worse(sf[1], sn[1], sc, col):
                        p = cuda.atomic.add(sn, 0, 1)
                        sv[p] = sc
                        si[p] = col
        cuda.syncthreads()
        if t == 0:
            hvr = hv[row]
            hir = hi[row]
            for p in range(sn[0]):
                if _worse(hvr[0], hir[0], sv[p], si[p]):
                    hvr[0] = sv[p]
                    hir[0] = si[p]
                    _sift_down(hvr, hir, k, 0)
            sn[0] = 0
            sf[1] = float64(hvr[0])
            sn[1] = hir[0]
            sf[0] = _cut_below(sf[1], margin[r], one_ulp)
        cuda.syncthreads()
    if t == 0:
        counts[r] += sn[2]


@cuda.jit
def finalize(hv, hi):
    """Sort every heap best first, in place (heapsort: the worst pair goes last); one thread per row."""
    r = cuda.grid(1)
    if r >= hv.shape[0]:
        return
    hvr = hv[r]
    hir = hi[r]
    for end in range(hv.shape[1] - 1, 0, -1):
        tv = hvr[0]
        ti = hir[0]
        hvr[0] = hvr[end]
        hir[0] = hir[end]
        hvr[end] = tv
        hir[end] = ti
        _sift_down(hvr, hir, end, 0)


# ---------------------------------------------------------------------------- dictionary induction
@cuda.jit
def dropout_argmax(S, r_half, has_r, thr, seed, row0, best, maxsim):
    """:func:`embgeo.kernels.crosslingual.dropout_argmax` on the device: one block per row of ``S``.

    ``best[i]`` = argmax_j of dropout(S[i, j] − r_half[j]) (ties to the lower j) and ``maxsim[i]`` =
    max_j S[i, j], for full rows of scores (``S`` is rows ``row0 …`` of the whole score matrix, m
    columns wide). A score is set to 0 when the top 8 bits of splitmix64(seed, (row0 + i)·m + j) are
    ≥ ``thr`` (keep probability thr/256; ``thr`` = 256 keeps all): the CPU kernel's mask, so both give
    the same choices from the same scores. Each thread takes every THREADS-th column (its own first
    maximum), and one thread merges them, ties to the lower column.
    """
    i = cuda.blockIdx.x
    t = cuda.threadIdx.x
    m = S.shape[1]
    sv = cuda.shared.array(THREADS, float64)
    si = cuda.shared.array(THREADS, int64)
    sm = cuda.shared.array(THREADS, float64)
    bv = -math.inf
    bi = m
    mx = -math.inf
    for j in range(t, m, THREADS):
        x = float64(S[i, j])
        if x > mx:
            mx = x
        v = float64(S[i, j] - r_half[j]) if has_r else x
        # a dropped score becomes 0: it can change this thread's best only when v > bv or bv < 0
        if thr < 256 and (v > bv or bv < 0.0):
            if _dropped(row0 + i, m, j, seed, thr):
                v = 0.0
        if v > bv:
            bv = v
            bi = j
    sv[t] = bv
    si[t] = bi
    sm[t] = mx
    cuda.syncthreads()
    if t == 0:
        for p in range(1, THREADS):
            if sv[p] > bv or (sv[p] == bv and si[p] < bi):
                bv = sv[p]
                bi = si[p]
            if sm[p] > mx:
                mx = sm[p]
        best[i] = bi
        maxsim[i] = mx


# ---------------------------------------------------------------------------- normalisations
@cuda.jit(device=True)
def _row_reduce(X, r, t, square, part):
    """Σ X[r, j] (or its squares) in float64 over the THREADS threads ``t`` of a row group."""
    s = 0.0
    for j in range(t, X.shape[1], THREADS):
        x = float64(X[r, j])
        s += x * x if square else x
    part[t] = s
    cuda.syncthreads()
    if t == 0:
        tot = 0.0
        for i in range(THREADS):
            tot += part[i]
        part[0] = tot
    cuda.syncthreads()
    return part[0]


@cuda.jit
def unit_rows(X, out):
    """``out`` = rows of ``X`` scaled to unit length (zero rows stay zero); one block per row."""
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    part = cuda.shared.array(THREADS, float64)
    nrm = math.sqrt(_row_reduce(X, r, t, True, part))
    if nrm == 0.0:
        nrm = 1.0
    for j in range(t, X.shape[1], THREADS):
        out[r, j] = float64(X[r, j]) / nrm


@cuda.jit
def centeremb_rows(X, out):
    """``out`` = rows of ``X`` minus their own mean over the dimensions; one block per row."""
    r = cuda.blockIdx.x
    t = cuda.threadIdx.x
    part = cuda.shared.array(THREADS, float64)
    mean = _row_reduce(X, r, t, False, part) / X.shape[1]
    for j in range(t, X.shape[1], THREADS):
        out[r, j] = float64(X[r, j]) - mean


@cuda.jit
def column_sums(X, square, rows_per_block, out):
    """``out[j]`` += Σ_i X[i, j] (or its squares) in float64; block b takes rows b·rows_per_block …,
    each thread a column (coalesced reads), then one atomic add per column and block."""
    j = cuda.blockIdx.y * THREADS + cuda.threadIdx.x
    if j >= X.shape[1]:
        return
    s = 0.0
    i0 = cuda.blockIdx.x * rows_per_block
    for i in range(i0, min(i0 + rows_per_block, X.shape[0])):
        x = float64(X[i, j])
        s += x * x if square else x
    cuda.atomic.add(out, j, s)


@cuda.jit
def center_rows(X, mean, out):
    """``out`` = ``X`` minus the float64 column means ``mean``; one block per row."""
    r = cuda.blockIdx.x
    for j in range(cuda.threadIdx.x, X.shape[1], THREADS):
        out[r, j] = float64(X[r, j]) - mean[j]


@cuda.jit
def unitdim_rows(X, norms, out):
    """``out`` = ``X`` divided by the float64 column norms ``norms`` (zeros already replaced by 1)."""
    r = cuda.blockIdx.x
    for j in range(cuda.threadIdx.x, X.shape[1], THREADS):
        out[r, j] = float64(X[r, j]) / norms[j]


def launch_rows(kernel, n_rows, *args):
    """Launch a one-block-per-row kernel over ``n_rows`` rows (grid limits respected)."""
    if n_rows:
        kernel[n_rows, THREADS](*args)


def column_stats(X, square, out, rows_per_block=256):
    """Launch :func:`column_sums` over all of ``X`` into the float64 ``out`` (zeroed by the caller)."""
    n, d = X.shape
    if n and d:
        grid = (-(-n // rows_per_block), -(-d // THREADS))
        column_sums[grid, THREADS](X, square, rows_per_block, out)


# ---------------------------------------------------------------------------- fuzzy sets
#: the CPU kernel's row (plain scalar code), compiled as a device function: the same arithmetic
_conditioned_logit_row = cuda.jit(device=True)(conditioned_logit_row.py_func)


@cuda.jit
def conditioned_logit_rows(P, log_tiny, centre, inv_scale, out):
    """:func:`embgeo.kernels.fuzzy.conditioned_logit` on the device, one thread per row: the
    conditioned candidate side ``(logit µ − centre)·inv_scale`` and ``(Σ ln(1 − µ) − centre)·inv_scale``
    of the certified fuzzy cross-entropy search, float64 inside, rounded once to ``out``'s dtype."""
    r = cuda.grid(1)
    if r < P.shape[0]:
        _conditioned_logit_row(P, r, log_tiny, centre, inv_scale, out)


def launch_threads(kernel, n_rows, *args):
    """Launch a one-thread-per-row kernel over ``n_rows`` rows."""
    if n_rows:
        kernel[-(-n_rows // THREADS), THREADS](*args)


# ---------------------------------------------------------------------------- search on quantised codes
__all__ += ["hamming_rows", "int8_dot_rows"]


@cuda.jit
def hamming_rows(Q, X, col0, hv, hi, ex_ptr, ex_idx, has_ex):
    """The GPU twin of :func:`embgeo.kernels.topk.hamming_topk`: one thread per query row merges
    database rows ``X`` (rows ``col0 …``) into its heap by Hamming distance (stored negated, int32).

    ``Q`` and ``X`` hold packed bits as unsigned words (any width: ``cuda.popc`` counts them); the
    order is the CPU kernel's (higher score, then the lower row), so the lists are the same.
    """
    r = cuda.grid(1)
    if r >= Q.shape[0]:
        return
    for j in range(X.shape[0]):
        d = 0
        for b in range(Q.shape[1]):
            d += cuda.popc(Q[r, b] ^ X[j, b])
        _offer(hv[r], hi[r], -d, col0 + j, ex_ptr, ex_idx, has_ex, r)


@cuda.jit
def int8_dot_rows(Q, X, col0, hv, hi, ex_ptr, ex_idx, has_ex):
    """The GPU search of int8 codes: one thread per query row, the integer dot product summed exactly
    in int32, the CPU engine's order (higher score, then the lower row), so the same lists."""
    r = cuda.grid(1)
    if r >= Q.shape[0]:
        return
    for j in range(X.shape[0]):
        s = 0
        for b in range(Q.shape[1]):
            s += int32(Q[r, b]) * int32(X[j, b])
        _offer(hv[r], hi[r], s, col0 + j, ex_ptr, ex_idx, has_ex, r)


@cuda.jit(device=True)
def _offer(hvr, hir, s, c, ex_ptr, ex_idx, has_ex, r):
    # (s, c) replaces the heap's worst pair if it ranks above it and is not excluded for query r
    if _worse(hvr[0], hir[0], s, c) and not (has_ex and _excluded(ex_ptr, ex_idx, r, c)):
        hvr[0] = s
        hir[0] = c
        _sift_down(hvr, hir, hvr.shape[0], 0)


@cuda.jit(device=True)
def _excluded(ex_ptr, ex_idx, r, c):
    # binary search of column c among query r's sorted exclusions
    lo = ex_ptr[r]
    hi = ex_ptr[r + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if ex_idx[mid] < c:
            lo = mid + 1
        else:
            hi = mid
    return lo < ex_ptr[r + 1] and ex_idx[lo] == c
