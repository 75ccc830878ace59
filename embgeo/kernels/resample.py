"""Numba Spearman's ρ of weighted samples: one bootstrap resample per row of item counts.

A resample draws item j ``W[b, j]`` times. With the items sorted once by x (and by y), the average rank
of item j's value in resample b is the number of drawn values below it plus half (its tie group's drawn
count + 1): one pass over the sorted groups per row, no sort per resample. ρ is then Pearson's r of the
two rank vectors, each item weighted by its count (``scipy.stats.spearmanr`` of the expanded sample).
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, inline="always")
def _group_midranks(w, order, group, n_groups, mid):
    """``mid[g]`` = average rank of group g's value under weights ``w``; returns the total weight."""
    for g in range(n_groups):
        mid[g] = 0.0
    for k in range(order.shape[0]):
        mid[group[order[k]]] += w[order[k]]
    cum = 0.0
    for g in range(n_groups):
        t = mid[g]
        mid[g] = cum + (t + 1.0) / 2.0
        cum += t
    return cum


@njit(cache=True, inline="always")
def _spearman_row(w, ox, gx, ngx, oy, gy, ngy):
    mx = np.empty(ngx)
    my = np.empty(ngy)
    N = _group_midranks(w, ox, gx, ngx, mx)
    _group_midranks(w, oy, gy, ngy, my)
    mean = (N + 1.0) / 2.0
    sxy = 0.0
    sxx = 0.0
    syy = 0.0
    for j in range(w.shape[0]):
        wj = w[j]
        if wj != 0.0:
            dx = mx[gx[j]] - mean
            dy = my[gy[j]] - mean
            sxy += wj * dx * dy
            sxx += wj * dx * dx
            syy += wj * dy * dy
    den = np.sqrt(sxx * syy)
    return sxy / den if den > 0.0 else np.nan


@njit(cache=True, parallel=True)
def spearman_counts(W, ox, gx, ngx, oy, gy, ngy, out):
    """``out[b]`` = Spearman's ρ of the sample weighting item j by ``W[b, j]``; NaN for a constant side.

    ``ox`` sorts x; ``gx[j]`` is the tie group (0 … ngx − 1, in sorted order) of item j; same for y."""
    for b in prange(W.shape[0]):
        out[b] = _spearman_row(W[b], ox, gx, ngx, oy, gy, ngy)


@njit(cache=True)
def spearman_counts_serial(W, ox, gx, ngx, oy, gy, ngy, out):
    """:func:`spearman_counts` on one thread: small batches, where starting threads costs more."""
    for b in range(W.shape[0]):
        out[b] = _spearman_row(W[b], ox, gx, ngx, oy, gy, ngy)


@njit(cache=True, parallel=True)
def index_counts(idx, out):
    """``out[b, j]`` = how often item j occurs in row b of the resample indices ``idx`` (out zeroed here)."""
    for b in prange(idx.shape[0]):
        row = out[b]
        for j in range(row.shape[0]):
            row[j] = 0.0
        for k in range(idx.shape[1]):
            row[idx[b, k]] += 1.0


@njit(cache=True)
def index_counts_serial(idx, out):
    """:func:`index_counts` on one thread."""
    for b in range(idx.shape[0]):
        for j in range(out.shape[1]):
            out[b, j] = 0.0
        for k in range(idx.shape[1]):
            out[b, idx[b, k]] += 1.0
