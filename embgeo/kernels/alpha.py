"""Fused elementwise step of natural alpha embeddings (Volpi & Malagò 2020, eq. 1 and 3).

One block of logits ``S = U_b Vᵀ`` is turned, in place and row-parallel, into the alpha log-map
coefficients l^α of eq. 3: a stable log-sum-exp gives ``log p_w`` (eq. 1), then, with
``x = log p_w − log p0`` and ``β = (1 − α)/2``,

    α = 1:  l(χ) = p0(χ) x(χ)
    α ≠ 1:  l(χ) = 2/(1−α) p0(χ) ((p_w/p0)^β − 1) = p0(χ) (exp(β x) − 1) / β.

The kernel writes ``p0 · (exp(β x − m) − exp(−m))``, or ``p0 · expm1(β x)`` when no shift is
needed (``m = 0``), and stores ``m`` per row; the caller multiplies each row of the following GEMM
by ``exp(m) / β``. The shift keeps strongly negative α finite, and ``expm1`` keeps α → 1
continuous. Row reductions (max, Σ exp) accumulate in float64.

Two loops, chosen by the block's dtype:

* float64: libm ``exp``/``expm1``, accurate to the last bit;
* float32: a branch-free Cephes-style ``expf`` (relative error ≈ 1e-7) that LLVM vectorises
  (no SVML on this platform: libm's scalar ``exp`` cost more than both GEMMs together).
"""
from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

__all__ = ["alpha_log_map_", "SHIFT_THRESHOLD"]

#: Rows whose largest β·x exceeds this are rescaled by exp(−m) (exp(30) ≈ 1e13 is safe in float32).
SHIFT_THRESHOLD = 30.0

# Full fast-math lets LLVM vectorise the max/min reductions; inputs are finite (checked upstream)
# and the reductions start from finite sentinels.
_JIT: dict[str, Any] = dict(fastmath=True, cache=True, error_model="numpy", boundscheck=False)


def alpha_log_map_(S, logp0, p0, beta, log_scale):
    """Overwrite logits ``S`` (b, n), C-contiguous float32 or float64, with scaled l^α.

    Parameters
    ----------
    S : ndarray (b, n)
        Logits ``u_wᵀ v_χ`` of a block of words; overwritten.
    logp0, p0 : ndarray (n,), float64
        The reference measure and its logarithm (p0 > 0).
    beta : float
        ``(1 − α)/2``; ``0`` is α = 1.
    log_scale : ndarray (b,), float64
        Receives the shift ``m`` of each row.
    """
    if S.dtype == np.float32:
        _rows_f32(S, logp0.astype(np.float32), p0.astype(np.float32), np.float32(beta), log_scale,
                  numba.get_num_threads())
    else:
        _rows_f64(S, logp0, p0, float(beta), log_scale)


@numba.njit(**_JIT)
def _expf_(x, out, bits):
    """out = exp(x) for float32 arrays; vectorisable (Cephes expf, 2^k built in the exponent bits)."""
    n = x.shape[0]
    for j in range(n):
        v = x[j]
        v = v if v > np.float32(-87.0) else np.float32(-87.0)
        v = v if v < np.float32(88.0) else np.float32(88.0)
        # v*log2(e) + 127.5 > 0, so truncation is floor(v*log2(e) + 0.5) + 127: the biased exponent
        k = np.int32(v * np.float32(1.4426950408889634) + np.float32(127.5))
        fx = np.float32(k) - np.float32(127.0)
        r = v - fx * np.float32(0.693359375) + fx * np.float32(2.12194440e-4)
        y = (((((np.float32(1.9875691500e-4) * r + np.float32(1.3981999507e-3)) * r
                + np.float32(8.3334519073e-3)) * r + np.float32(4.1665795894e-2)) * r
              + np.float32(1.6666665459e-1)) * r + np.float32(5.0000001201e-1)) * r * r + r + np.float32(1.0)
        out[j] = y
        bits[j] = k * np.int32(8388608)  # k << 23
    scale = bits.view(np.float32)
    for j in range(n):
        out[j] = out[j] * scale[j] if x[j] > np.float32(-87.0) else np.float32(0.0)


@numba.njit(**_JIT)
def _ordered_(b):
    """float32 bit pattern → int32 with the same order (so max/min reductions vectorise as integers)."""
    return b ^ ((b >> np.int32(31)) & np.int32(0x7FFFFFFF))


@numba.njit(**_JIT)
def _from_ordered_(k):
    one = np.empty(1, np.int32)
    one[0] = k ^ ((k >> np.int32(31)) & np.int32(0x7FFFFFFF))  # the map is its own inverse
    return one.view(np.float32)[0]


@numba.njit(parallel=True, **_JIT)
def _rows_f32(S, logp0, p0, beta, log_scale, nt):
    b, n = S.shape
    # one scratch pair per thread, not per row: a fresh 200 KB buffer per row costs an mmap and
    # page faults each time
    for t in numba.prange(nt):
        tmp = np.empty(n, np.float32)
        bits = np.empty(n, np.int32)
        for i in range(t, b, nt):
            _row_f32(S[i], logp0, p0, beta, log_scale, i, tmp, bits)


@numba.njit(**_JIT)
def _row_f32(row, logp0, p0, beta, log_scale, i, tmp, bits):
    # Every loop runs over range(n) on whole 1-D rows: offset indices (c0 + j) or sliced views
    # make Numba emit wrap-around checks or strided access, and LLVM then stops vectorising.
    n = row.shape[0]
    for j in range(n):
        tmp[j] = row[j] - logp0[j]
    # LLVM does not vectorise float max/min reductions here; their integer twins it does
    rb = row.view(np.int32)
    tb = tmp.view(np.int32)
    # int64, the type _ordered_ returns (Numba widens int32 arithmetic): started as int32, the running
    # values would be typed twice and _from_ordered_ compiled for both
    kmax = np.int64(-2147483648)
    kxmax = np.int64(-2147483648)
    kxmin = np.int64(2147483647)
    for j in range(n):
        kmax = max(kmax, _ordered_(rb[j]))
        kt = _ordered_(tb[j])
        kxmax = max(kxmax, kt)
        kxmin = min(kxmin, kt)
    smax = _from_ordered_(kmax)
    xmax = np.float64(_from_ordered_(kxmax))
    xmin = np.float64(_from_ordered_(kxmin))
    for j in range(n):
        tmp[j] = row[j] - smax
    _expf_(tmp, tmp, bits)
    acc = 0.0
    for j in range(n):
        acc += np.float64(tmp[j])
    lse = np.float64(smax) + math.log(acc)
    if beta == 0:
        lse32 = np.float32(lse)
        for j in range(n):
            row[j] = p0[j] * (row[j] - logp0[j] - lse32)
        log_scale[i] = 0.0
        return
    top = beta * (xmax - lse) if beta > 0 else beta * (xmin - lse)
    m = top if top > SHIFT_THRESHOLD else 0.0
    off = np.float32(beta * lse + m)
    em = np.float32(math.exp(-m))
    for j in range(n):
        row[j] = beta * (row[j] - logp0[j]) - off
    _expf_(row, tmp, bits)
    if m > 0.0:
        for j in range(n):
            row[j] = p0[j] * (tmp[j] - em)
    else:
        for j in range(n):
            y = row[j]
            # expm1: Taylor series where exp(y) − 1 would cancel (keeps α → 1 continuous)
            poly = y * (np.float32(1.0) + y * (np.float32(0.5) + y * (np.float32(1.0 / 6) + y * (
                np.float32(1.0 / 24) + y * (np.float32(1.0 / 120) + y * (
                    np.float32(1.0 / 720) + y * np.float32(1.0 / 5040)))))))
            e = poly if abs(y) < np.float32(0.3) else tmp[j] - np.float32(1.0)
            row[j] = p0[j] * e
    log_scale[i] = m


@numba.njit(parallel=True, **_JIT)
def _rows_f64(S, logp0, p0, beta, log_scale):
    b, n = S.shape
    for i in numba.prange(b):
        row = S[i]
        smax = -1e300
        xmax = -1e300
        xmin = 1e300
        for j in range(n):
            s = row[j]
            smax = max(smax, s)
            t = s - logp0[j]
            xmax = max(xmax, t)
            xmin = min(xmin, t)
        acc = 0.0
        for j in range(n):
            acc += math.exp(row[j] - smax)
        lse = smax + math.log(acc)
        if beta == 0.0:
            for j in range(n):
                row[j] = p0[j] * (row[j] - lse - logp0[j])
            log_scale[i] = 0.0
            continue
        top = beta * (xmax - lse) if beta > 0.0 else beta * (xmin - lse)
        if top > SHIFT_THRESHOLD:
            m = top
            em = math.exp(-m)
            for j in range(n):
                row[j] = p0[j] * (math.exp(beta * (row[j] - lse - logp0[j]) - m) - em)
        else:
            m = 0.0
            for j in range(n):
                row[j] = p0[j] * math.expm1(beta * (row[j] - lse - logp0[j]))
        log_scale[i] = m
