"""Hubness-reduction loops of :mod:`embgeo.neighbors._reduction`: empirical mutual proximity over
K-nearest-neighbour lists, and DisSimLocal's centroid distances.

For a query x with K source neighbours and one of its candidates y (with its own K source
neighbours), MP counts the points j of the two lists that lie farther from both than y lies from
x. A dense row of d(x, ·) per query makes "is j in x's list, and how far" one lookup, so a pair
costs O(K) and a query O(K · candidates); NumPy's fancy indexing of the same counts cost a
second per ten thousand queries, more than the search that found the lists.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def mp_counts(xi, xd, me, cand, dc, yi_all, yd_all, m, own, n_chunks, out):  # pragma: no cover - compiled
    """``out[r, p]`` = the MP count of query r and its candidate ``cand[r, p]``.

    ``xi``/``xd`` (q, K): the query's source neighbours and distances, nearest first; ``me`` (q,):
    the query's own source row (−1 if none); ``dc`` (q, kc): the candidates' distances;
    ``yi_all``/``yd_all`` (n, K): every candidate row's source neighbours and distances; ``m``: the
    number of source rows; ``own``: candidates are source rows too, so a list's j = y is left out.
    A j in neither list is unknown and not counted; a pair beyond y's K-th neighbour or x's counts 0.
    """
    q, K = xi.shape
    kc = cand.shape[1]
    Ky = yi_all.shape[1]
    step = (q + n_chunks - 1) // n_chunks
    for c in prange(n_chunks):
        table = np.full(m, np.inf)  # d(x, j) for j on x's list, +inf elsewhere
        for r in range(c * step, min(q, (c + 1) * step)):
            for a in range(K):
                table[xi[r, a]] = xd[r, a]
            for p in range(kc):
                y = cand[r, p]
                d = dc[r, p]
                if d >= yd_all[y, Ky - 1] or d > xd[r, K - 1]:
                    out[r, p] = 0
                    continue
                count = 0
                # j on x's list and farther from x than y is (y itself and x left out)
                for a in range(K):
                    j = xi[r, a]
                    if xd[r, a] > d and j != me[r] and not (own and j == y):
                        count += 1
                # j on y's list: those also on x's list were counted above if farther from x, and
                # count only if farther from y as well; those off x's list are farther from x
                for a in range(Ky):
                    j = yi_all[y, a]
                    dx = table[j]
                    if dx < np.inf and dx > d:
                        count -= 1
                    if dx > d and yd_all[y, a] > d and j != me[r] and not (own and j == y):
                        count += 1
                out[r, p] = count
            for a in range(K):
                table[xi[r, a]] = np.inf


@njit(cache=True, parallel=True)
def centroid_distances(X, source, idx, out):  # pragma: no cover - compiled
    """``out[i]`` = ‖X[i] − c_i‖², c_i the mean of the rows ``source[idx[i]]`` (DisSimLocal's term),
    summed in float64: one pass over the K neighbours of each row, no (rows, K, d) gather."""
    n, K = idx.shape
    d = X.shape[1]
    for i in prange(n):
        c = np.zeros(d)
        for a in range(K):
            row = idx[i, a]
            for t in range(d):
                c[t] += source[row, t]
        total = 0.0
        for t in range(d):
            diff = X[i, t] - c[t] / K
            total += diff * diff
        out[i] = total
