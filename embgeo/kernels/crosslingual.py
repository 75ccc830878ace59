"""Stochastic dictionary induction kernels (VecMap's CSLS terms and dropout argmax over score tiles).

:func:`dropout_argmax` scans one score block row by row. :func:`tile_topk` and
:func:`tile_dropout_argmax` serve the fused induction of both directions from one score matrix
S = X Zᵀ (and its transpose, read by columns): pass 1 gathers each row's and each column's top-k
scores (the CSLS r terms of both directions), pass 2 takes the dropout argmax along the rows
(forward) and down the columns (backward), so a bidirectional iteration costs two GEMMs, not four.
"""
import numpy as np
from numba import njit, prange

#: columns per parallel chunk of the column-wise (backward) scans: its state stays in L1
COLUMN_CHUNK = 512


@njit(cache=True, inline="always")
def _dropped(key, seed, thr):  # pragma: no cover - compiled
    """Whether the score with hash key ``key`` is dropped: top 8 bits of splitmix64 ≥ thr."""
    z = key ^ seed
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(56)) >= np.uint64(thr)


@njit(cache=True, parallel=True, fastmath=False)
def dropout_argmax(S, r_half, thr, seed, row0, best, maxsim):  # pragma: no cover - compiled
    """For each row i of the score block S: ``best[i]`` = argmax_j of dropout(S[i, j] − r_half[j])
    and ``maxsim[i]`` = max_j S[i, j].

    A score is kept when the top 8 bits of splitmix64(seed, (row0 + i)·m + j) are below ``thr``
    (keep probability thr/256) and set to 0 otherwise, so the mask is the same whatever the
    blocking and the number of threads.
    """
    n, m = S.shape
    for i in prange(n):
        bv = -np.inf
        bi = 0
        mx = -np.inf
        base = np.uint64(row0 + i) * np.uint64(m)
        for j in range(m):
            v = S[i, j]
            if v > mx:
                mx = v
            v = v - r_half[j]
            # a dropped score becomes 0: only hash when the outcome can change the best
            if thr < 256 and (v > bv or bv < 0.0):
                if _dropped(base + np.uint64(j), seed, thr):
                    v = 0.0
            if v > bv:
                bv = v
                bi = j
        best[i] = bi
        maxsim[i] = mx


#: scores per screened run: a run is read by one vectorised max (or any) and skipped unless it
#: can change a result, which after the first few rows of a scan it almost never can
RUN = 16
@njit(cache=True, inline="always")
def _push(vals, v):  # pragma: no cover - compiled
    """Replace the smallest of the k kept values by v (> it); return the new smallest."""
    k = vals.shape[0]
    p = 0
    mn = vals[0]
    for t in range(1, k):
        if vals[t] < mn:
            mn = vals[t]
            p = t
    vals[p] = v
    mn = vals[0]
    for t in range(1, k):
        if vals[t] < mn:
            mn = vals[t]
    return mn


@njit(cache=True, inline="always")
def _run_any_over(x, t, j0, j1):  # pragma: no cover - compiled
    """Whether x[j] > t for some j in [j0, j1) (an integer count: LLVM vectorises it, not a max)."""
    c = 0
    for j in range(j0, j1):
        c += x[j] > t
    return c > 0


@njit(cache=True, inline="always")
def _run_any_above(x, y, j0, j1):  # pragma: no cover - compiled
    """Whether x[j] > y[j] for some j in [j0, j1) (an integer sum, so it vectorises)."""
    c = 0
    for j in range(j0, j1):
        c += x[j] > y[j]
    return c > 0


@njit(cache=True, inline="always")
def _run_any_diff_above(x, r, t, j0, j1):  # pragma: no cover - compiled
    """Whether x[j] − r[j] > t for some j in [j0, j1)."""
    c = 0
    for j in range(j0, j1):
        c += x[j] - r[j] > t
    return c > 0


@njit(cache=True, inline="always")
def _run_any_column_update(x, shift, bv, mx, j0, j1):  # pragma: no cover - compiled
    """Whether x[j] − shift > bv[j], bv[j] < 0 or x[j] > mx[j] for some j in [j0, j1)."""
    c = 0
    for j in range(j0, j1):
        c += (x[j] - shift > bv[j]) | (bv[j] < 0.0) | (x[j] > mx[j])
    return c > 0


@njit(cache=True, parallel=True)
def tile_topk(S, row_vals, col_vals, col_min, do_rows, do_cols):  # pragma: no cover - compiled
    """Merge a score tile into the k largest values of each of its rows and of every column.

    ``S`` (b × m) holds rows ``row_vals`` (b × k, filled by this call from −inf) and all m
    columns; ``col_vals`` (m × k) and ``col_min`` (m,, their smallest) carry the columns' top-k
    over the tiles seen so far (start at −inf). Only the multiset of the k largest values is
    kept (their mean is CSLS's r term), so ties need no rule and the result does not depend on
    the tiling or the number of threads. Runs of :data:`RUN` scores that cannot enter a heap
    are skipped after one vectorised test.
    """
    b, m = S.shape
    if do_rows:
        for i in prange(b):
            vals = row_vals[i]
            vals[:] = -np.inf
            mn = -np.inf
            x = S[i]
            for j0 in range(0, m, RUN):
                j1 = min(m, j0 + RUN)
                if _run_any_over(x, mn, j0, j1):
                    for j in range(j0, j1):
                        if x[j] > mn:
                            mn = _push(vals, x[j])
    if do_cols:
        nch = (m + COLUMN_CHUNK - 1) // COLUMN_CHUNK
        for c in prange(nch):
            c0 = c * COLUMN_CHUNK
            c1 = min(m, c0 + COLUMN_CHUNK)
            for i in range(b):
                x = S[i]
                for j0 in range(c0, c1, RUN):
                    j1 = min(c1, j0 + RUN)
                    if _run_any_above(x, col_min, j0, j1):
                        for j in range(j0, j1):
                            if x[j] > col_min[j]:
                                col_min[j] = _push(col_vals[j], x[j])


@njit(cache=True, parallel=True)
def tile_dropout_argmax(S, row0, ns, r_col_half, r_row_half, thr, seed_f, seed_b,
                        best_f, max_f, col_bv, col_bi, col_max, do_f, do_b):  # pragma: no cover
    """Both directions' dropout argmax from one score tile S = X[row0:row0+b] Zᵀ (b × m).

    Forward (``do_f``), per row i: ``best_f[i]`` = argmax_j dropout(S[i, j] − r_col_half[j]),
    ``max_f[i]`` = max_j S[i, j]; the mask is :func:`dropout_argmax`'s with ``seed_f`` and key
    (row0 + i)·m + j. Backward (``do_b``), per column j, merged over the tiles in row order:
    ``col_bi[j]`` = argmax_i dropout(S[i, j] − r_row_half[row0 + i]) with running best
    ``col_bv[j]`` (start −inf) and ``col_max[j]`` = max_i S[i, j]; the mask uses ``seed_b`` and
    key j·ns + (row0 + i), i.e. :func:`dropout_argmax` run on Sᵀ = Z Xᵀ. Ties go to the lower
    index in both directions, as NumPy's argmax. A run of :data:`RUN` scores is only visited
    one by one when one of them can change a best (a dropped score counts as 0).
    """
    b, m = S.shape
    if do_f:
        for i in prange(b):
            bv = -np.inf
            bi = 0
            mx = -np.inf
            x = S[i]
            base = np.uint64(row0 + i) * np.uint64(m)
            for j0 in range(0, m, RUN):
                j1 = min(m, j0 + RUN)
                # with bv ≥ 0 a dropped score (0) cannot win either: only v > bv matters
                if ((bv >= 0.0 or thr >= 256) and not _run_any_over(x, mx, j0, j1)
                        and not _run_any_diff_above(x, r_col_half, bv, j0, j1)):
                    continue
                for j in range(j0, j1):
                    if x[j] > mx:
                        mx = x[j]
                    v = x[j] - r_col_half[j]
                    if thr < 256 and (v > bv or bv < 0.0):
                        if _dropped(base + np.uint64(j), seed_f, thr):
                            v = 0.0
                    if v > bv:
                        bv = v
                        bi = j
            best_f[i] = bi
            max_f[i] = mx
    if do_b:
        nch = (m + COLUMN_CHUNK - 1) // COLUMN_CHUNK
        for c in prange(nch):
            c0 = c * COLUMN_CHUNK
            c1 = min(m, c0 + COLUMN_CHUNK)
            for i in range(b):
                gi = row0 + i
                rh = r_row_half[gi]
                x = S[i]
                for j0 in range(c0, c1, RUN):
                    j1 = min(c1, j0 + RUN)
                    if not _run_any_column_update(x, rh, col_bv, col_max, j0, j1):
                        continue
                    for j in range(j0, j1):
                        if x[j] > col_max[j]:
                            col_max[j] = x[j]
                        v = x[j] - rh
                        bv = col_bv[j]
                        if thr < 256 and (v > bv or bv < 0.0):
                            if _dropped(np.uint64(j) * np.uint64(ns) + np.uint64(gi), seed_b, thr):
                                v = 0.0
                        if v > bv:
                            col_bv[j] = v
                            col_bi[j] = gi
