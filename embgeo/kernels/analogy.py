"""Numba analogy scan: each question's best candidates and its gold answer's rank, from the cosines
of a few query rows against the candidates.

Every solver of :func:`embgeo.evaluate.analogy` scores candidate ``j`` of question ``q`` from at most
three rows of ``C`` (the GEMM of the batch's query vectors with the unit candidates) and two per-question
constants; :func:`analogy_scan` scans those rows once, keeps the ``topn`` best non-excluded columns and
counts the columns ranked before the best accepted answer, so no question × vocabulary score matrix
exists. The score of each mode (``ra``, ``rb``, ``rc`` are question ``q``'s rows of ``C``):

``SINGLE`` (3CosAvg)
    ``C[ra, j]``: the cosine to one query vector.
``ADD`` (3CosAdd; Mikolov et al. 2013)
    ``C[rb, j] − C[ra, j] + C[rc, j]``: cos(x̂_j, b̂ − â + ĉ) times the query's norm, which no ranking
    depends on, in the data's float type as NumPy's matrix form computes it.
``COSMUL`` (3CosMul; Levy & Goldberg 2014 eq. 4, cosines already shifted to [0, 1])
    ``C[rb, j]·C[rc, j] / (C[ra, j] + ε)``, the float32 operations of NumPy's matrix form in its order.
``PAIRDIRECTION`` (Levy & Goldberg 2014, Drozd et al. 2016's PairDistance)
    ``cos(x̂_j − b̂, d)`` for unit ``d``: ``(C[rb, j] − c0) / sqrt(2 − 2·C[ra, j])`` with ``C[ra] = x̂·b̂``,
    ``C[rb] = x̂·d``, ``c0 = b̂·d``; 0 where ``x̂_j = b̂`` (vecto gives those a near-zero score).
``LRCOS`` (Drozd, Gladkova & Matsuoka 2016)
    ``C[ra, j] · σ(C[rb, j] + c0)``: cosine to b times the logistic regression's probability that
    ``x̂_j`` belongs to the target class (``C[rb] = w·x̂``, ``c0`` the intercept).

Ties go to the lower column, as ``argmax`` does; a NaN score never ranks.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange

SINGLE, COSMUL, PAIRDIRECTION, LRCOS, ADD = 0, 1, 2, 3, 4
#: columns per chunk of the scan (a chunk's maximum decides whether its columns are looked at)
_CHUNK = 32


@njit(inline="always")
def _score(C, ra, rb, rc, c0, eps, mode, j):
    if mode == SINGLE:
        return np.float64(C[ra, j])
    if mode == COSMUL:
        return np.float64((C[rb, j] * C[rc, j]) / (C[ra, j] + eps))
    if mode == ADD:
        return np.float64((C[rb, j] - C[ra, j]) + C[rc, j])
    if mode == PAIRDIRECTION:
        d2 = 2.0 - 2.0 * np.float64(C[ra, j])
        if d2 <= 0.0:
            return 0.0
        return (np.float64(C[rb, j]) - c0) / np.sqrt(d2)
    return np.float64(C[ra, j]) / (1.0 + np.exp(-(np.float64(C[rb, j]) + c0)))


@njit(inline="always")
def _excluded(ex_idx, e0, e1, j):
    for t in range(e0, e1):
        if ex_idx[t] == j:
            return True
    return False


@njit(inline="always")
def _enter(s, j, best, arg, ex_idx, e0, e1):
    """Put column ``j`` (score ``s``) in the best-first list unless excluded; ties stay with the lower
    column (already in the list)."""
    if _excluded(ex_idx, e0, e1, j):
        return
    i = best.shape[0] - 1
    while i > 0 and (s > best[i - 1] or arg[i - 1] < 0):
        best[i] = best[i - 1]
        arg[i] = arg[i - 1]
        i -= 1
    best[i] = s
    arg[i] = j


@njit(inline="always")
def _gold(C, ra, rb, rc, c0, eps, mode, ex_idx, e0, e1, ans_idx, a0, a1):
    """The best score of the accepted answers ``ans_idx[a0:a1]`` that are not excluded, and its column (the
    lower one on a tie): (-inf, -1) when none can be ranked."""
    gbest = -np.inf
    garg = -1
    for t in range(a0, a1):
        j = ans_idx[t]
        if _excluded(ex_idx, e0, e1, j):
            continue
        s = _score(C, ra, rb, rc, c0, eps, mode, j)
        if s > gbest or (s == gbest and (garg < 0 or j < garg)):
            gbest = s
            garg = j
    return gbest, garg


@njit(cache=True, parallel=True)
def analogy_scan(C, pos, consts, mode, eps, ex_ptr, ex_idx, ans_ptr, ans_idx, top, rank):
    """Fill ``top[q]`` (the ``top.shape[1]`` best columns, best first, -1 past the last) and ``rank[q]``.

    ``pos[q]`` holds question ``q``'s rows ``ra, rb, rc`` of ``C``; ``consts[q]`` its ``c0``. The columns
    ``ex_idx[ex_ptr[q]:ex_ptr[q + 1]]`` (distinct) are never answers; ``ans_idx[ans_ptr[q]:ans_ptr[q + 1]]``
    are the accepted answers. ``rank[q]`` counts the non-excluded columns ranked before the best accepted
    answer (0: solved), -1 when no accepted answer can be ranked (excluded, or a NaN score).
    """
    n = C.shape[1]
    k = top.shape[1]
    for q in prange(pos.shape[0]):
        ra, rb, rc = pos[q, 0], pos[q, 1], pos[q, 2]
        c0 = consts[q]
        e0, e1 = ex_ptr[q], ex_ptr[q + 1]
        gbest, garg = _gold(C, ra, rb, rc, c0, eps, mode, ex_idx, e0, e1, ans_idx, ans_ptr[q], ans_ptr[q + 1])
        # the row's scores first, one tight loop per mode; then separate tight passes over them, each
        # vectorised alone (fused into one loop, or factored into an inlined function, they ran 1.5-3x
        # slower): the count of columns ranked ahead of the gold answer, its ties among the lower
        # columns, and the list, in chunks whose maximum decides whether their columns are looked at
        # (the chunk-maximum scan of kernels.topk); excluded columns are taken off the count after
        buf = np.empty(n)
        xa, xb_, xc = C[ra], C[rb], C[rc]
        if mode == SINGLE:
            for j in range(n):
                buf[j] = xa[j]
        elif mode == COSMUL:
            for j in range(n):
                buf[j] = (xb_[j] * xc[j]) / (xa[j] + eps)
        elif mode == ADD:
            for j in range(n):
                buf[j] = (xb_[j] - xa[j]) + xc[j]
        else:
            for j in range(n):
                buf[j] = _score(C, ra, rb, rc, c0, eps, mode, j)
        best = np.full(k, -np.inf)
        arg = np.full(k, -1, dtype=np.int64)
        before = 0
        for j in range(n):
            before += buf[j] > gbest
        for j in range(max(garg, 0)):  # ties ahead of the gold answer: the lower columns
            before += buf[j] == gbest
        worst = -np.inf
        for j0 in range(0, n, _CHUNK):
            j1 = min(j0 + _CHUNK, n)
            mx = -np.inf
            for j in range(j0, j1):
                v = buf[j]
                mx = v if v > mx else mx  # NaN never wins
            if mx > worst:
                for j in range(j0, j1):
                    if buf[j] > worst:
                        _enter(buf[j], j, best, arg, ex_idx, e0, e1)
                        worst = best[k - 1]
        if arg[k - 1] < 0:  # fewer than k finite scores: -inf ones fill the list, lowest columns first
            for j in range(n):
                if buf[j] == -np.inf:
                    _enter(buf[j], j, best, arg, ex_idx, e0, e1)
        for t in range(e0, e1):
            j = ex_idx[t]
            if buf[j] > gbest or (buf[j] == gbest and j < garg):
                before -= 1
        for i in range(k):
            top[q, i] = arg[i]
        rank[q] = before if garg >= 0 else -1
