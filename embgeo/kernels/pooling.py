"""Numba mean pooling of token rows, text by text, with NumPy's arithmetic (for :mod:`embgeo.static`).

The invariant kept: every mean equals, bit for bit, ``table[ids].mean(axis=0)`` as NumPy computes it
for one text's ids (the tokens added in text order, the first row being the start value, in the
table's dtype; the sum divided by the count in that dtype), and a value rounded "to float16" equals
NumPy's ``astype(np.float16)`` of it (round to nearest, ties to even, subnormals, overflow to inf).
A float16 table is passed as its ``uint16`` bit patterns with a lookup table of their float32
values (Numba has no float16): the exact conversion, with no float32 copy of the table.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

#: float32 value of each float16 bit pattern (index: ``table.view(np.uint16)``)
FLOAT16_VALUES = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32)
FLOAT16_VALUES.flags.writeable = False


def _value(table, lut, r, j):
    """``table[r, j]`` as a number: through ``lut`` when the table holds float16 bit patterns."""


@overload(_value, inline="always")
def _value_impl(table, lut, r, j):
    if isinstance(table.dtype, types.Integer):
        return lambda table, lut, r, j: lut[table[r, j]]
    return lambda table, lut, r, j: table[r, j]


def _quotient(total, n):
    """``total / n`` rounded to ``total``'s dtype (float32 or float64)."""


@overload(_quotient, inline="always")
def _quotient_impl(total, n):
    # a float64 quotient rounded to float32 is the float32 quotient (53 >= 2 * 24 + 2 bits)
    if isinstance(total, types.Float) and total.bitwidth == 32:
        return lambda total, n: np.float32(total / n)
    return lambda total, n: total / n


@njit(cache=True, inline="always")
def _float16_bits(u):
    """The float32 bits of the float16 value nearest the float32 whose bits are ``u`` (NumPy's rounding)."""
    a = u & np.uint32(0x7FFFFFFF)
    if a >= np.uint32(0x7F800000):  # inf, NaN
        return u
    sign = u & np.uint32(0x80000000)
    if a >= np.uint32(0x38800000):  # float16's normal range (2**-14 and up): keep 10 of the 23 fraction bits
        a = (a + np.uint32(0x0FFF) + ((a >> np.uint32(13)) & np.uint32(1))) & np.uint32(0xFFFFE000)
        if a > np.uint32(0x477FE000):  # above float16's largest value, 65504
            a = np.uint32(0x7F800000)
        return sign | a
    # float16's subnormals are the multiples q of 2**-24 (q < 1024): q = a / 2**-24 rounded, ties to even
    field = a >> np.uint32(23)
    mantissa = (a & np.uint32(0x7FFFFF)) | (np.uint32(0x800000) if field > 0 else np.uint32(0))
    shift = np.uint32(126) - (field if field > 0 else np.uint32(1))  # a = mantissa * 2**-24 / 2**shift
    if shift > np.uint32(25):
        return sign
    q = mantissa >> shift
    rest = mantissa & ((np.uint32(1) << shift) - np.uint32(1))
    half = np.uint32(1) << (shift - np.uint32(1))
    if rest > half or (rest == half and (q & np.uint32(1)) == np.uint32(1)):
        q += np.uint32(1)
    if q == np.uint32(0):
        return sign
    top = np.uint32(0)  # q's highest set bit: q * 2**-24 = 1.f * 2**(top - 24)
    while (q >> (top + np.uint32(1))) != np.uint32(0):
        top += np.uint32(1)
    return sign | ((top + np.uint32(103)) << np.uint32(23)) | ((q << (np.uint32(23) - top)) & np.uint32(0x7FFFFF))


@njit(cache=True, parallel=True)
def mean_rows(table, lut, flat, starts, lengths, out):
    """``out[t]`` = mean of the rows ``flat[starts[t]:starts[t] + lengths[t]]`` of ``table`` (see the module),
    in ``out``'s dtype (the table's, or float32 for float16 bit patterns); zeros for a text without tokens.

    ``table`` is float32 or float64 (the dtype the sum is taken in), or ``uint16`` float16 bit
    patterns read through ``lut`` (:data:`FLOAT16_VALUES`, summed in float32)."""
    dim = out.shape[1]
    for t in prange(lengths.shape[0]):
        n = lengths[t]
        s = starts[t]
        for j in range(dim):
            if n == 0:
                out[t, j] = 0.0
                continue
            total = _value(table, lut, flat[s], j)
            for k in range(s + 1, s + n):
                total += _value(table, lut, flat[k], j)
            out[t, j] = _quotient(total, n)


@njit(cache=True, parallel=True)
def round_to_float16(bits):
    """Each float32 of a matrix, given as its bits (``a.view(np.uint32)``), replaced in place by the
    float16 value nearest it, as NumPy's ``a.astype(np.float16).astype(np.float32)`` gives it."""
    for i in prange(bits.shape[0]):
        for j in range(bits.shape[1]):
            bits[i, j] = _float16_bits(bits[i, j])
