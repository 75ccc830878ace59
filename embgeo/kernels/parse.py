"""Numba kernels for word-vector text files: a bulk number parser and a shortest-repr writer.

Only the byte loops live here; the text parser of :mod:`embgeo.io` owns the file handling and the error messages.

Parsing follows the contract "decimal -> correctly rounded float64 -> cast to the output dtype",
which is what ``np.array(tokens, dtype=np.float64).astype(np.float32)`` does. The kernel takes
Clinger's exact fast path (W. D. Clinger, "How to read floating point numbers accurately",
PLDI 1990): a decimal ``m * 10**k`` with ``m < 2**53`` and ``|k| <= 22`` is one correctly
rounded IEEE multiplication or division of two exactly representable doubles. Every other
token (more than 19 significant digits, huge exponents, ``nan``/``inf``, malformed text) is
handed back to Python's ``float`` with its position, so nothing is parsed approximately.
"""
from __future__ import annotations

import numpy as np
from numba import njit

# exact powers of ten representable in float64 (10**22 < 2**53 * 2**22)
_POW10 = np.array([10.0 ** i for i in range(23)], dtype=np.float64)
_TWO53 = 9007199254740992

# kernel status codes (see parse_rows)
OK = 0
FALLBACK_FULL = 1
TOO_FEW = 2
TOO_MANY = 3
BLANK = 4
EMPTY_WORD = 5

# binary_records status codes
B_OK = 0
B_EOF = 1          # only newlines left before the next record
B_EOF_WORD = 2     # the data end inside a word (no space after it)
B_EOF_VECTOR = 3   # the data end inside a vector
B_EMPTY_WORD = 4   # a space where a word should start
B_NEWLINE_WORD = 5  # a newline inside a word


@njit(cache=True, nogil=True, inline="always")
def _is_sep(b):
    return b == 32 or b == 9 or b == 13


@njit(cache=True, nogil=True, inline="always")
def _token_end(buf, i, n):
    while i < n and not _is_sep(buf[i]) and buf[i] != 10:
        i += 1
    return i


@njit(cache=True, nogil=True, inline="always")
def _scan_float(buf, s, n, pow10):
    """Parse the token starting at ``buf[s]`` in one pass: (ok, value, end).

    ``end`` is the index after the token; ``ok=False`` means "not exact on the fast path (or not
    a number): ask Python".
    """
    i = s
    neg = False
    if buf[i] == 45:  # '-'
        neg = True
        i += 1
    elif buf[i] == 43:  # '+'
        i += 1
    m = 0
    nd = 0
    exp10 = 0
    digits = 0
    point = False
    while i < n:
        b = buf[i]
        if 48 <= b <= 57:
            digits += 1
            if m != 0 or b != 48:  # leading zeros are not significant
                if nd >= 18:  # 18 digits cannot overflow int64
                    return False, 0.0, _token_end(buf, i, n)
                m = m * 10 + (b - 48)
                nd += 1
            if point:
                exp10 -= 1
        elif b == 46 and not point:  # '.'
            point = True
        else:
            break
        i += 1
    if digits == 0:
        return False, 0.0, _token_end(buf, i, n)
    if i < n and (buf[i] == 101 or buf[i] == 69):  # 'e' / 'E'
        exact, x, i = _scan_exponent(buf, i + 1, n)
        if not exact:
            return False, 0.0, _token_end(buf, i, n)
        exp10 += x
    if i < n and not _is_sep(buf[i]) and buf[i] != 10:
        return False, 0.0, _token_end(buf, i, n)
    if m == 0:
        return True, -0.0 if neg else 0.0, i
    exact, v = _exact_value(m, exp10, pow10)
    if not exact:
        return False, 0.0, i
    return True, -v if neg else v, i


@njit(cache=True, nogil=True, inline="always")
def _scan_exponent(buf, i, n):
    """The signed exponent after an 'e' from ``buf[i]``: (ok, exponent, end); ``ok=False`` without digits.
    Its magnitude stops growing past 10**5 (any such power is off the fast path anyway)."""
    eneg = False
    if i < n and (buf[i] == 45 or buf[i] == 43):
        eneg = buf[i] == 45
        i += 1
    if i >= n or not (48 <= buf[i] <= 57):
        return False, 0, i
    x = 0
    while i < n and 48 <= buf[i] <= 57:
        if x < 100000:
            x = x * 10 + (buf[i] - 48)
        i += 1
    return True, -x if eneg else x, i


@njit(cache=True, nogil=True, inline="always")
def _exact_value(m, exp10, pow10):
    """``m * 10**exp10`` by Clinger's fast path, (exact, value): one correctly rounded multiplication or
    division of exact doubles; ``exact=False`` where the operands would not be exact."""
    if m > _TWO53:
        return False, 0.0
    if 0 <= exp10 <= 22:
        return True, float(m) * pow10[exp10]
    if -22 <= exp10 < 0:
        return True, float(m) / pow10[-exp10]
    if 22 < exp10 <= 22 + 15:
        # move the excess power into the integer while it stays exact
        for _ in range(exp10 - 22):
            m *= 10
            if m > _TWO53:
                return False, 0.0
        return True, float(m) * pow10[22]
    return False, 0.0


@njit(cache=True, nogil=True)
def rest_is_blank(buf, pos):
    """True when only whitespace remains from ``pos``."""
    for i in range(pos, buf.shape[0]):
        b = buf[i]
        if not (b == 32 or b == 9 or b == 13 or b == 10):
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _only_blanks(buf, start, end):
    """True when ``buf[start:end]`` holds only spaces, tabs and carriage returns."""
    for j in range(start, end):
        if not _is_sep(buf[j]):
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _wordless_line(buf, ws, we, n, line_start):
    """The status of a line whose word ``buf[ws:we]`` (ending at a space or newline) is blank or empty, and
    where parsing stops: (OK, n) when only blanks follow, (BLANK, line_start) for a blank line before
    more data, (EMPTY_WORD, line_start) for a line that starts with a space; (-1, we) for a line with a word."""
    pos = we
    # a word made only of '\r' / tabs means a blank line
    if _only_blanks(buf, ws, we) and (pos >= n or buf[pos] == 10):
        if rest_is_blank(buf, line_start):
            return OK, n
        return BLANK, line_start
    if we == ws:  # the line starts with a space: an empty word (or a line of blanks)
        e = pos
        while e < n and buf[e] != 10:
            e += 1
        only_blanks = _only_blanks(buf, pos, e)
        if only_blanks and rest_is_blank(buf, line_start):
            return OK, n
        return (BLANK if only_blanks else EMPTY_WORD), line_start
    return -1, we


@njit(cache=True, nogil=True)
def parse_rows(buf, pos, n_rows, out, row0, wstart, wend, fb_row, fb_col, fb_start, fb_end):
    """Parse up to ``n_rows`` lines ``word v1 ... vD`` from ``buf[pos:]`` into ``out[row0:]``.

    The word is everything before the first space (word2vec/GloVe convention); numbers are
    separated by runs of spaces or tabs; ``\\r`` and trailing blanks are ignored. Word byte
    ranges go to ``wstart``/``wend``. Tokens the fast path cannot parse exactly are recorded in
    the ``fb_*`` arrays for Python to resolve.

    Returns
    -------
    status, rows_done, pos, n_fallback, detail
        ``status`` is OK (``rows_done < n_rows`` means end of data), FALLBACK_FULL (stopped
        before row ``rows_done``; resolve the fallbacks and call again), TOO_FEW / TOO_MANY
        (row ``rows_done`` has ``detail`` numbers) or BLANK (row ``rows_done`` is an empty line
        followed by more data). The row in error is not counted in ``rows_done``.
    """
    n = buf.shape[0]
    dim = out.shape[1]
    cap = fb_row.shape[0]
    nfb = 0
    pow10 = _POW10
    r = 0
    while r < n_rows:
        if pos >= n:
            return OK, r, pos, nfb, 0
        line_start = pos
        nfb_row_start = nfb
        ws = pos
        while pos < n and buf[pos] != 32 and buf[pos] != 10:
            pos += 1
        we = pos
        status, at = _wordless_line(buf, ws, we, n, line_start)
        if status >= 0:
            return status, r, at, nfb, 0
        wstart[r] = ws
        wend[r] = we
        c = 0
        while True:
            while pos < n and _is_sep(buf[pos]):
                pos += 1
            if pos >= n or buf[pos] == 10:
                break
            s = pos
            if c >= dim:
                pos = _token_end(buf, pos, n)
            else:
                ok, v, pos = _scan_float(buf, s, n, pow10)
                if ok:
                    out[row0 + r, c] = v
                else:
                    if nfb >= cap:
                        return FALLBACK_FULL, r, line_start, nfb_row_start, 0
                    fb_row[nfb] = row0 + r
                    fb_col[nfb] = c
                    fb_start[nfb] = s
                    fb_end[nfb] = pos
                    nfb += 1
            c += 1
        if c != dim:
            return (TOO_FEW if c < dim else TOO_MANY), r, line_start, nfb_row_start, c
        if pos < n:
            pos += 1  # the newline
        r += 1
    return OK, r, pos, nfb, 0


@njit(cache=True, nogil=True)
def binary_records(buf, pos, n_rows, out, wstart, wend):
    """Read up to ``n_rows`` word2vec binary records ``[\\n...]word<space><4·dim bytes>`` from ``buf[pos:]``.

    The vector bytes are copied into row r of ``out`` (uint8, ``(n, 4·dim)``); newlines before a
    word are skipped (word2vec's C tool writes one after each vector, gensim none), as gensim does.

    Returns
    -------
    status, rows_done, pos
        ``B_OK`` after ``n_rows`` records, ``pos`` just after the last vector; otherwise the
        status says why record ``rows_done`` (0-based) could not be read and ``pos`` is where.
    """
    n = buf.shape[0]
    nb = out.shape[1]
    for r in range(n_rows):
        while pos < n and buf[pos] == 10:
            pos += 1
        if pos >= n:
            return B_EOF, r, pos
        ws = pos
        while pos < n and buf[pos] != 32:
            if buf[pos] == 10:
                return B_NEWLINE_WORD, r, ws
            pos += 1
        if pos >= n:
            return B_EOF_WORD, r, ws
        if pos == ws:
            return B_EMPTY_WORD, r, ws
        wstart[r] = ws
        wend[r] = pos
        pos += 1
        if pos + nb > n:
            return B_EOF_VECTOR, r, ws
        for j in range(nb):
            out[r, j] = buf[pos + j]
        pos += nb
    return B_OK, n_rows, pos


@njit(cache=True, nogil=True)
def gather_words(buf, wstart, wend):
    """The word byte ranges joined by newlines (one bulk UTF-8 decode instead of n small ones)."""
    k = wstart.shape[0]
    total = 0
    for i in range(k):
        total += wend[i] - wstart[i] + 1
    res = np.empty(max(total - 1, 0), dtype=np.uint8)
    p = 0
    for i in range(k):
        for j in range(wstart[i], wend[i]):
            res[p] = buf[j]
            p += 1
        if i + 1 < k:
            res[p] = 10
            p += 1
    return res


# ---------------------------------------------------------------- writing


@njit(cache=True, nogil=True, inline="always")
def _scale(a, s, pow10):
    """a * 10**s, exact-as-possible (one correctly rounded operation when |s| <= 22)."""
    if 0 <= s <= 22:
        return a * pow10[s]
    if -22 <= s < 0:
        return a / pow10[-s]
    return a * 10.0 ** s


@njit(cache=True, nogil=True)
def _write_digits(out, o, D, p):
    for i in range(p - 1, -1, -1):
        out[o + i] = 48 + D % 10
        D //= 10


@njit(cache=True, nogil=True)
def _write_decimal(out, o, neg, D, E, p):
    """Write ``[-]d.ddd x 10**E`` (the p digits of D) like Python's repr: positional for
    -4 <= E < 16, else ``d.ddde-05``; no trailing zeros, no trailing point."""
    while p > 1 and D % 10 == 0:
        D //= 10
        p -= 1
    if neg:
        out[o] = 45
        o += 1
    if -4 <= E < 0:
        out[o] = 48
        out[o + 1] = 46
        o += 2
        for _ in range(-E - 1):
            out[o] = 48
            o += 1
        _write_digits(out, o, D, p)
        return o + p
    if 0 <= E < 16:
        _write_digits(out, o, D, p)
        if p <= E + 1:
            for i in range(p, E + 1):
                out[o + i] = 48
            return o + E + 1
        for i in range(p, E + 1, -1):  # open a slot for the point
            out[o + i] = out[o + i - 1]
        out[o + E + 1] = 46
        return o + p + 1
    _write_digits(out, o + 1, D, p)
    out[o] = out[o + 1]
    if p > 1:
        out[o + 1] = 46
        o += p + 1
    else:
        o += 1
    out[o] = 101
    o += 1
    ee = E
    if ee < 0:
        out[o] = 45
        ee = -ee
    else:
        out[o] = 43
    o += 1
    if ee < 10:
        out[o] = 48
        o += 1
    if ee >= 10:
        out[o] = 48 + ee // 10
        o += 1
    out[o] = 48 + ee % 10
    return o + 1


@njit(cache=True, nogil=True)
def format_float32(x32, out, o):
    """Append the shortest decimal that reads back (float64 then float32) to exactly ``x32``.

    Lengths 1..9 are tried in order and each candidate is verified with the same exact
    arithmetic the parser uses. Outside ~1e-13..1e22, where the check would not be exact,
    9 significant digits are written: enough for any float32 (a 9-digit decimal is within
    5e-9 relative of the value, well inside float32's half-spacing of >= 2**-25), though not
    always the shortest.
    """
    pow10 = _POW10
    x = float(x32)
    neg = x < 0.0 or (x == 0.0 and np.signbit(x))
    a = -x if neg else x
    if a == 0.0:
        if neg:
            out[o] = 45
            o += 1
        out[o] = 48
        return o + 1
    xa = np.float32(a)
    E = int(np.floor(np.log10(a)))
    t9 = _scale(a, 8 - E, pow10)
    if t9 >= 999999999.5:  # log10 rounded up across a power of ten
        E += 1
        t9 = _scale(a, 8 - E, pow10)
    elif t9 < 99999999.5:
        E -= 1
        t9 = _scale(a, 8 - E, pow10)
    for p in range(1, 9):
        D = np.rint(t9 / pow10[9 - p])
        k = E - p + 1
        if D >= pow10[p]:  # rounding carried into a new digit: 10**p * 10**k
            Dp, kp = 1, E + 1
        else:
            Dp, kp = int(D), k
        if kp > 22:
            continue  # more digits lower the exponent into the exact range
        if kp < -22:
            break  # no exact check possible: write 9 digits
        y = float(Dp) * pow10[kp] if kp >= 0 else float(Dp) / pow10[-kp]
        if np.float32(y) == xa:
            # constants as int64, not literals: one compiled _write_decimal for every call
            if Dp == 1 and kp == E + 1:
                return _write_decimal(out, o, neg, np.int64(1), E + 1, np.int64(1))
            return _write_decimal(out, o, neg, Dp, E, p)
    D9 = int(np.rint(t9))
    if D9 >= 1000000000:
        return _write_decimal(out, o, neg, D9 // 10, E + 1, np.int64(9))
    return _write_decimal(out, o, neg, D9, E, np.int64(9))


@njit(cache=True, nogil=True)
def format_rows(X, words_blob, word_offsets, out):
    """Write ``word v1 ... vD\\n`` for each row of float32 ``X`` into ``out``; return bytes used.

    ``out`` must hold ``len(words_blob) + n * (dim * 16 + 2)`` bytes (a float32 takes at most 15).
    """
    o = 0
    n, d = X.shape
    for i in range(n):
        for j in range(word_offsets[i], word_offsets[i + 1]):
            out[o] = words_blob[j]
            o += 1
        for j in range(d):
            out[o] = 32
            o += 1
            o = format_float32(X[i, j], out, o)
        out[o] = 10
        o += 1
    return o
