"""Stochastic dictionary induction kernels (VecMap's CSLS terms and dropout argmax over score tiles).

:func:`dropout_argmax` scans one score block row by row (threaded). :func:`topk_sweep` and
:func:`argmax_sweep` (GEMM tile by tile, then :func:`tile_topk` / :func:`tile_dropout_argmax`)
serve the fused induction of both directions from one score matrix
S = X Zᵀ, read along rows (forward) and down columns (backward, as Sᵀ = Z Xᵀ): pass 1 gathers
each row's and each column's top-k scores (the CSLS r terms of both directions), pass 2 takes
the dropout argmax both ways, so a bidirectional iteration costs two GEMMs, not four. They are
serial and release the GIL: the caller runs one thread per range of columns, each with a
single-threaded BLAS, so the only synchronisation is the end of a pass.
"""
import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def _dropped(key, seed, thr):  # pragma: no cover - compiled
    """Whether the score with hash key ``key`` is dropped: top 8 bits of splitmix64 ≥ thr."""
    z = key ^ seed
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(56)) >= np.uint64(thr)


@njit(cache=True, inline="always")
def _offer(x, shift, mx, bv, bi, j, key, seed, thr):  # pragma: no cover - compiled
    """One score ``x`` (index ``j``, hash key ``key``) offered to a running max ``mx`` and a running
    dropout argmax (``bv``, ``bi``) of x − shift; returns the new (mx, bv, bi).

    A dropped score counts as 0; the hash is computed only when the outcome can change the best
    (v > bv, or bv < 0 where a 0 would win). Ties keep the earlier index.
    """
    if x > mx:
        mx = x
    v = x - shift
    if thr < 256 and (v > bv or bv < 0.0):
        if _dropped(key, seed, thr):
            v = 0.0
    if v > bv:
        bv = v
        bi = j
    return mx, bv, bi


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
            mx, bv, bi = _offer(S[i, j], r_half[j], mx, bv, bi, j, base + np.uint64(j), seed, thr)
        best[i] = bi
        maxsim[i] = mx


#: scores per screened run: a run is read by one vectorised test and skipped unless it can
#: change a result, which after the first few rows or columns of a scan it seldom can
RUN = 64
#: a run that may change a result is screened again in sub-runs of SUB before scalar work
SUB = 8


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


@njit(cache=True, inline="always")
def _run_any_row_or_column(x, mn, cm, j0, j1):  # pragma: no cover - compiled
    """Whether x[j] > mn or x[j] > cm[j] for some j in [j0, j1)."""
    c = 0
    for j in range(j0, j1):
        c += (x[j] > mn) | (x[j] > cm[j])
    return c > 0


@njit(cache=True, nogil=True)
def _tile_topk_both(S, c0, row_vals, row_min, col_vals, col_min):  # pragma: no cover - compiled
    """:func:`tile_topk` of rows and columns with one screen per run (the tile is read once)."""
    b, w = S.shape
    cm = col_min[c0:c0 + w]
    for i in range(b):
        x = S[i]
        vals = row_vals[i]
        mn = row_min[i]
        for J0 in range(0, w, RUN):
            J1 = min(w, J0 + RUN)
            if not _run_any_row_or_column(x, mn, cm, J0, J1):
                continue
            for j0 in range(J0, J1, SUB):
                j1 = min(J1, j0 + SUB)
                if not _run_any_row_or_column(x, mn, cm, j0, j1):
                    continue
                for j in range(j0, j1):
                    if x[j] > mn:
                        mn = _push(vals, x[j])
                    if x[j] > cm[j]:
                        cm[j] = _push(col_vals[c0 + j], x[j])
        row_min[i] = mn


@njit(cache=True, nogil=True)
def tile_topk(S, c0, row_vals, row_min, col_vals, col_min, do_rows, do_cols):  # pragma: no cover
    """Merge a score tile into the k largest values of each of its rows and of its columns.

    ``S`` (b × w) holds the scores of b rows and of the columns c0 … c0 + w − 1. ``row_vals``
    (b × k_r) and ``row_min`` (b,) carry those rows' largest values over the columns seen so
    far, ``col_vals`` (all columns × k_c) and ``col_min`` their columns'; all start at −inf and
    ``*_min`` is the smallest kept value. Only the multiset of the k largest values is kept
    (their mean is CSLS's r term), so ties need no rule and the result does not depend on the
    tiling. Runs of :data:`RUN` scores that cannot enter a heap are skipped after one
    vectorised test. Serial and GIL-free: callers run disjoint column ranges in threads.
    """
    b, w = S.shape
    if do_rows and do_cols:
        _tile_topk_both(S, c0, row_vals, row_min, col_vals, col_min)
        return
    for i in range(b):
        x = S[i]
        if do_rows:
            vals = row_vals[i]
            mn = row_min[i]
            for J0 in range(0, w, RUN):
                J1 = min(w, J0 + RUN)
                if not _run_any_over(x, mn, J0, J1):
                    continue
                for j0 in range(J0, J1, SUB):
                    j1 = min(J1, j0 + SUB)
                    if _run_any_over(x, mn, j0, j1):
                        for j in range(j0, j1):
                            if x[j] > mn:
                                mn = _push(vals, x[j])
            row_min[i] = mn
        if do_cols:
            cm = col_min[c0:c0 + w]
            for J0 in range(0, w, RUN):
                J1 = min(w, J0 + RUN)
                if not _run_any_above(x, cm, J0, J1):
                    continue
                for j0 in range(J0, J1, SUB):
                    j1 = min(J1, j0 + SUB)
                    if _run_any_above(x, cm, j0, j1):
                        for j in range(j0, j1):
                            if x[j] > cm[j]:
                                cm[j] = _push(col_vals[c0 + j], x[j])


@njit(cache=True, inline="always")
def _run_any_update(x, mx, rc, bv, rh, cbv, cmx, j0, j1):  # pragma: no cover - compiled
    """Whether some j in [j0, j1) can change the row's max or best (bv ≥ 0) or a column's."""
    c = 0
    for j in range(j0, j1):
        c += (x[j] > mx) | (x[j] - rc[j] > bv) | (x[j] - rh > cbv[j]) | (cbv[j] < 0.0) | (x[j] > cmx[j])
    return c > 0


@njit(cache=True, nogil=True)
def _tile_argmax_both(S, row0, c0, ns, nt, r_col_half, r_row_half, thr, seed_f, seed_b,
                      row_bv, row_bi, row_max, col_bv, col_bi, col_max):  # pragma: no cover - compiled
    """:func:`tile_dropout_argmax` of both directions with one screen per run."""
    b, w = S.shape
    rc = r_col_half[c0:c0 + w]
    cbv = col_bv[c0:c0 + w]
    cbi = col_bi[c0:c0 + w]
    cmx = col_max[c0:c0 + w]
    for i in range(b):
        x = S[i]
        gi = row0 + i
        rh = r_row_half[gi]
        bv = row_bv[i]
        bi = row_bi[i]
        mx = row_max[i]
        base = np.uint64(gi) * np.uint64(nt) + np.uint64(c0)
        for J0 in range(0, w, RUN):
            J1 = min(w, J0 + RUN)
            # with bv ≥ 0 a dropped score (0) cannot win either: only v > bv matters
            if (bv >= 0.0 or thr >= 256) and not _run_any_update(x, mx, rc, bv, rh, cbv, cmx, J0, J1):
                continue
            for j0 in range(J0, J1, SUB):
                j1 = min(J1, j0 + SUB)
                if (bv >= 0.0 or thr >= 256) and not _run_any_update(x, mx, rc, bv, rh, cbv, cmx, j0, j1):
                    continue
                for j in range(j0, j1):
                    mx, bv, bi = _offer(x[j], rc[j], mx, bv, bi, c0 + j, base + np.uint64(j), seed_f, thr)
                    cmx[j], cbv[j], cbi[j] = _offer(x[j], rh, cmx[j], cbv[j], cbi[j], gi,
                                                    np.uint64(c0 + j) * np.uint64(ns) + np.uint64(gi), seed_b, thr)
        row_bv[i] = bv
        row_bi[i] = bi
        row_max[i] = mx


@njit(cache=True, nogil=True)
def tile_dropout_argmax(S, row0, c0, ns, nt, r_col_half, r_row_half, thr, seed_f, seed_b,
                        row_bv, row_bi, row_max, col_bv, col_bi, col_max, do_f, do_b):  # pragma: no cover
    """Both directions' dropout argmax from one score tile, S = X[row0:row0+b] Z[c0:c0+w]ᵀ.

    Forward (``do_f``), per row i, merged over the tiles in column order: ``row_bi[i]`` =
    argmax_j dropout(S[i, j] − r_col_half[j]) with running best ``row_bv[i]`` (start −inf) and
    ``row_max[i]`` = max_j S[i, j]; the mask is :func:`dropout_argmax`'s with ``seed_f`` and key
    (row0 + i)·nt + j. Backward (``do_b``), per column j, merged over the tiles in row order:
    ``col_bi[j]`` = argmax_i dropout(S[i, j] − r_row_half[row0 + i]) with running best
    ``col_bv[j]`` and ``col_max[j]`` = max_i S[i, j]; the mask uses ``seed_b`` and key
    j·ns + (row0 + i), i.e. :func:`dropout_argmax` run on Sᵀ = Z Xᵀ. Indices are global, ties go
    to the lower one, as NumPy's argmax. A run of :data:`RUN` scores is visited one by one only
    when one of them can change a result (a dropped score counts as 0).
    """
    b, w = S.shape
    if do_f and do_b:
        _tile_argmax_both(S, row0, c0, ns, nt, r_col_half, r_row_half, thr, seed_f, seed_b,
                          row_bv, row_bi, row_max, col_bv, col_bi, col_max)
        return
    rc = r_col_half[c0:c0 + w]
    cbv = col_bv[c0:c0 + w]
    cbi = col_bi[c0:c0 + w]
    cmx = col_max[c0:c0 + w]
    for i in range(b):
        x = S[i]
        gi = row0 + i
        if do_f:
            bv = row_bv[i]
            bi = row_bi[i]
            mx = row_max[i]
            base = np.uint64(gi) * np.uint64(nt) + np.uint64(c0)
            for J0 in range(0, w, RUN):
                J1 = min(w, J0 + RUN)
                # with bv ≥ 0 a dropped score (0) cannot win either: only v > bv matters
                if ((bv >= 0.0 or thr >= 256) and not _run_any_over(x, mx, J0, J1)
                        and not _run_any_diff_above(x, rc, bv, J0, J1)):
                    continue
                for j0 in range(J0, J1, SUB):
                    j1 = min(J1, j0 + SUB)
                    if ((bv >= 0.0 or thr >= 256) and not _run_any_over(x, mx, j0, j1)
                            and not _run_any_diff_above(x, rc, bv, j0, j1)):
                        continue
                    for j in range(j0, j1):
                        mx, bv, bi = _offer(x[j], rc[j], mx, bv, bi, c0 + j, base + np.uint64(j), seed_f, thr)
            row_bv[i] = bv
            row_bi[i] = bi
            row_max[i] = mx
        if do_b:
            rh = r_row_half[gi]
            for J0 in range(0, w, RUN):
                J1 = min(w, J0 + RUN)
                if not _run_any_column_update(x, rh, cbv, cmx, J0, J1):
                    continue
                for j0 in range(J0, J1, SUB):
                    j1 = min(J1, j0 + SUB)
                    if not _run_any_column_update(x, rh, cbv, cmx, j0, j1):
                        continue
                    for j in range(j0, j1):
                        cmx[j], cbv[j], cbi[j] = _offer(x[j], rh, cmx[j], cbv[j], cbi[j], gi,
                                                        np.uint64(c0 + j) * np.uint64(ns) + np.uint64(gi), seed_b,
                                                        thr)


@njit(cache=True, nogil=True, inline="always")
def _tile(X, Z, s, e, c, ce, buf):  # pragma: no cover - compiled
    """S[s:e, c:ce] = X[s:e] Z[c:ce]ᵀ by one GEMM: into ``buf`` when the tile is full-sized, else fresh."""
    if e - s == buf.shape[0] and ce - c == buf.shape[1]:
        np.dot(X[s:e], Z[c:ce].T, buf)
        return buf
    return np.dot(X[s:e], Z[c:ce].T)


@njit(cache=True, nogil=True)
def topk_sweep(X, Z, c_lo, c_hi, rows, buf, row_vals, row_min, col_vals, col_min,
               do_rows, do_cols):  # pragma: no cover - compiled
    """:func:`tile_topk` over every tile of S = X Zᵀ in columns [c_lo, c_hi), rows in order.

    Each tile (``rows`` × ``buf.shape[1]`` at most) is one GEMM (``np.dot``, BLAS through SciPy)
    into the reused ``buf``; the loop stays in compiled code without the GIL.
    """
    ns = X.shape[0]
    cols = buf.shape[1]
    for s in range(0, ns, rows):
        e = min(s + rows, ns)
        for c in range(c_lo, c_hi, cols):
            ce = min(c + cols, c_hi)
            S = _tile(X, Z, s, e, c, ce, buf)
            tile_topk(S, c, row_vals[s:e], row_min[s:e], col_vals, col_min, do_rows, do_cols)


@njit(cache=True, nogil=True)
def argmax_sweep(X, Z, c_lo, c_hi, rows, buf, r_col_half, r_row_half, thr, seed_f, seed_b,
                 row_bv, row_bi, row_max, col_bv, col_bi, col_max, do_f, do_b):  # pragma: no cover
    """:func:`tile_dropout_argmax` over every tile of S = X Zᵀ in columns [c_lo, c_hi)."""
    ns, nt = X.shape[0], Z.shape[0]
    cols = buf.shape[1]
    for s in range(0, ns, rows):
        e = min(s + rows, ns)
        for c in range(c_lo, c_hi, cols):
            ce = min(c + cols, c_hi)
            S = _tile(X, Z, s, e, c, ce, buf)
            # do_f (a bool), not the literals True / False: one compiled tile_dropout_argmax
            if do_f:
                tile_dropout_argmax(S, s, c, ns, nt, r_col_half, r_row_half, thr, seed_f, seed_b,
                                    row_bv[s:e], row_bi[s:e], row_max[s:e], col_bv, col_bi, col_max,
                                    do_f, do_b)
            else:
                tile_dropout_argmax(S, s, c, ns, nt, r_col_half, r_row_half, thr, seed_f, seed_b,
                                    row_bv, row_bi, row_max, col_bv, col_bi, col_max, do_f, do_b)
