"""Numba kernels for :mod:`embgeo.fuzzy`: exponentiate-and-normalise, over columns or rows.

Only the compiled loops live here; the maths (Bhat et al. 2020, Sec. 3) is in ``embgeo/fuzzy.py``.
Inputs are float32 or float64, every exponential and sum is computed in float64, and the output
array (float32 or float64) is written in place. ``scale`` is ``ln(base)``, so that
``base**v = exp(scale * v)``.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = ["column_logsumexp", "write_column_softmax", "row_softmax", "inverse_row_norms", "logit_stats",
           "conditioned_logit", "conditioned_logit_row", "jaccard_inplace"]


@nb.njit(cache=True, parallel=True)
def inverse_row_norms(X, out):
    """``out[r] = 1 / ||X[r]||₂`` in float64 (0 where the row is zero; the caller rejects those)."""
    n, d = X.shape
    for r in nb.prange(n):
        t = 0.0
        for j in range(d):
            v = np.float64(X[r, j])
            t += v * v
        out[r] = 1.0 / np.sqrt(t) if t > 0.0 else 0.0


@nb.njit(cache=True, parallel=True)
def _column_partials(X, rs, scale, n_blocks):
    n, d = X.shape
    step = (n + n_blocks - 1) // n_blocks
    M = np.full((n_blocks, d), -np.inf)
    S = np.zeros((n_blocks, d))
    for b in nb.prange(n_blocks):
        lo = b * step
        hi = min(n, lo + step)
        for r in range(lo, hi):
            for j in range(d):
                v = scale * rs[r] * np.float64(X[r, j])
                m = M[b, j]
                # online log-sum-exp: rescale the running sum when a new maximum appears, so that
                # no exp() ever sees a positive argument (no overflow) and the data is read once
                if v > m:
                    S[b, j] = S[b, j] * np.exp(m - v) + 1.0
                    M[b, j] = v
                else:
                    S[b, j] += np.exp(v - m)
    return M, S


@nb.njit(cache=True)
def _combine(M, S):
    n_blocks, d = M.shape
    m = np.full(d, -np.inf)
    for b in range(n_blocks):
        for j in range(d):
            if M[b, j] > m[j]:
                m[j] = M[b, j]
    s = np.zeros(d)
    for b in range(n_blocks):
        for j in range(d):
            if S[b, j] > 0.0:
                s[j] += S[b, j] * np.exp(M[b, j] - m[j])
    return m, s


def column_logsumexp(X, rs, scale, n_blocks=None):
    """Pass 1: per column, the maximum ``m_j`` of ``scale*rs*X[:, j]`` and ``s_j = Σ_r exp(scale*rs[r]*X[r, j] - m_j)``.

    ``rs`` holds one factor per row (the inverse L2 norms when the vectors are unit-normalised first,
    else ones), so that normalising never needs a copy of ``X``.

    Rows are split into ``n_blocks`` blocks processed in parallel (each keeps a running max and
    rescaled sum, O(d) memory), then the block partials are merged.
    """
    if n_blocks is None:
        n_blocks = max(1, min(X.shape[0], 4 * nb.get_num_threads()))
    M, S = _column_partials(X, rs, float(scale), int(n_blocks))
    return _combine(M, S)


@nb.njit(cache=True, parallel=True)
def write_column_softmax(X, rs, scale, m, s, out):
    """Pass 2: ``out[r, j] = exp(scale*rs[r]*X[r, j] - m_j) / s_j``, rows in parallel."""
    n, d = X.shape
    inv = 1.0 / s
    for r in nb.prange(n):
        f = scale * rs[r]
        for j in range(d):
            out[r, j] = np.exp(f * np.float64(X[r, j]) - m[j]) * inv[j]


@nb.njit(cache=True, parallel=True)
def row_softmax(X, rs, scale, out):
    """``out[r] = base**(rs[r]*X[r]) / Σ_j base**(rs[r]*X[r, j])`` (the released code's per-word normalisation)."""
    n, d = X.shape
    for r in nb.prange(n):
        f = scale * rs[r]
        m = -np.inf
        for j in range(d):
            v = f * np.float64(X[r, j])
            if v > m:
                m = v
        t = 0.0
        for j in range(d):
            t += np.exp(f * np.float64(X[r, j]) - m)
        inv = 1.0 / t
        for j in range(d):
            out[r, j] = np.exp(f * np.float64(X[r, j]) - m) * inv


@nb.njit(cache=True, parallel=True)
def logit_stats(P, log_tiny, fwd, ent, card):
    """Per word: ``fwd[r, :d] = ln µ − ln(1 − µ)``, ``fwd[r, d] = Σ ln(1 − µ)``, entropy and cardinality.

    ``ln 0`` is replaced by ``log_tiny``; entropy terms with a zero coefficient are 0 (0·ln 0 = 0).
    """
    n, d = P.shape
    for r in nb.prange(n):
        c = 0.0
        h = 0.0
        a = 0.0
        for j in range(d):
            t = np.float64(P[r, j])
            lt = np.log(t) if t > 0.0 else log_tiny
            l1 = np.log1p(-t) if t < 1.0 else log_tiny
            fwd[r, j] = lt - l1
            c += l1
            if t > 0.0:
                h -= t * lt
            if t < 1.0:
                h -= (1.0 - t) * l1
            a += t
        fwd[r, d] = c
        ent[r] = h
        card[r] = a


def _conditioned_logit_row(P, r, log_tiny, centre, inv_scale, out):
    # plain scalar Python (math, float): compiled here for the CPU and by embgeo.kernels.cuda as a
    # CUDA device function, so that both engines compute the candidate side with the same code
    d = P.shape[1]
    prod = 1.0
    n_ones = 0
    for j in range(d):
        t = float(P[r, j])
        if t <= 0.0:
            v = log_tiny
        elif t >= 1.0:
            v = -log_tiny
            n_ones += 1
        else:
            v = math.log(t / (1.0 - t))
            prod *= 1.0 - t
        out[r, j] = (v - centre[j]) * inv_scale[j]
    if prod > 1e-280:
        c = math.log(prod)
    else:  # the product would underflow: one log1p per membership
        c = 0.0
        for j in range(d):
            t = float(P[r, j])
            if 0.0 < t < 1.0:
                c += math.log1p(-t)
    out[r, d] = (c + n_ones * log_tiny - centre[d]) * inv_scale[d]


#: one row of :func:`conditioned_logit`, compiled for the CPU; ``.py_func`` is the source the CUDA
#: kernel compiles (:func:`embgeo.kernels.cuda.conditioned_logit_rows`)
conditioned_logit_row = nb.njit(cache=True)(_conditioned_logit_row)


@nb.njit(cache=True, parallel=True)
def conditioned_logit(P, log_tiny, centre, inv_scale, out):
    """``out[r, j] = (logit µ_rj − centre[j]) · inv_scale[j]`` and ``out[r, d] = (Σ_j ln(1 − µ_rj) − centre[d]) ·
    inv_scale[d]``, in float64, rounded once to ``out``'s dtype: the candidate side of the
    cross-entropy search, conditioned.

    One logarithm per membership: ``logit µ = ln(µ / (1 − µ))``, and the row's ``Σ ln(1 − µ)`` is
    the logarithm of the product of the ``1 − µ`` (the sum of ``log1p`` where the product would
    underflow). Each differs from the two-logarithm form by a few float64 roundings (|error| ≤
    3(d + 1)·2⁻⁵³ per value, absolute, plus one rounding of the value): far below the float32 margin
    the caller certifies with. ``ln 0`` is ``log_tiny``, as in :func:`logit_stats`.
    """
    for r in nb.prange(P.shape[0]):
        # int64 as in the serial typing pass (the parallel loop's index is uint64): one compiled row function
        conditioned_logit_row(P, np.int64(r), log_tiny, centre, inv_scale, out)


@nb.njit(cache=True, parallel=True)
def jaccard_inplace(G, a, b):
    """``G[r, c] ← G[r, c] / (a[r] + b[c] − G[r, c])``: fuzzy Jaccard from the intersection sizes, one pass.

    The caller guarantees positive cardinalities, so the union ``a + b − G ≥ max(a, b)`` is positive.
    """
    n, m = G.shape
    for r in nb.prange(n):
        ar = a[r]
        for c in range(m):
            g = G[r, c]
            G[r, c] = g / (ar + b[c] - g)
