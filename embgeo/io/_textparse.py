"""The text parser behind :func:`embgeo.io.load`: bytes in, words and a float matrix out.

A file's bytes (memory-mapped, or inflated from gzip) go to the Numba kernels of
:mod:`embgeo.kernels.parse` in parts cut at line boundaries, one thread per core; each number is
converted exactly (decimal -> correctly rounded float64 -> output dtype, the same result as
NumPy), and the few tokens the kernel's fast path declines are converted by Python's ``float``.
A gzipped file with a header is inflated (python-isal when installed) by a background thread,
into a buffer sized by the gzip trailer, while the lines already inflated are parsed. Every
malformed line raises :class:`~embgeo.errors.FormatError` naming the file and the line.

:mod:`embgeo.io` owns format detection, the binary and cached formats, and the
:class:`~embgeo.embeddings.Embeddings` built from what this module returns.
"""
from __future__ import annotations

import gzip
import os
import re
import threading
import warnings
import zlib
from pathlib import Path
from typing import cast

import numpy as np

from ..blocking import n_jobs as default_n_jobs
from ..errors import FormatError
from ..kernels import readonly
from ..progress import progress_bar

__all__ = ["parse_text", "parse_header", "read_header", "read_bytes", "first_line", "decode_words",
           "check_unique", "gzip_module"]


def parse_header(line: bytes) -> tuple[int, int] | None:
    """``(n_words, dim)`` of a word2vec header line ``b"N D"``, or None for any other line.

    Examples
    --------
    >>> parse_header(b"400000 50"), parse_header(b"the 0.1 0.2")
    ((400000, 50), None)
    """
    toks = line.split()
    if len(toks) == 2 and all(t.isdigit() for t in toks):
        return int(toks[0]), int(toks[1])
    return None


def read_header(path: Path, first: bytes, expected: str, hint: str = "", *, ended: bool = True) -> tuple[int, int]:
    """``(n_words, dim)`` of the header line ``first`` that a word2vec file must open with.

    The one check of that header for text and binary files: a :class:`FormatError` naming line 1
    when ``first`` is not ``N D`` (or is not followed by a newline, ``ended=False``), or when
    either number is 0. ``expected`` names the formats in the message, ``hint`` ends it.
    """
    header = parse_header(first) if ended else None
    if header is None:
        raise FormatError(path, f"expected a {expected} header 'N D' (words, dimensions), got {first[:60]!r}{hint}",
                          line=1)
    n_header, dim = header
    if n_header == 0 or dim == 0:
        raise FormatError(path, f"the header 'N D' says {n_header} words of {dim} dimensions; both must "
                                "be positive", line=1)
    return header


def gzip_module():
    """python-isal's ``igzip`` (ISA-L, about 3x faster inflation) when installed, else ``gzip``."""
    try:
        from isal import igzip
        return igzip
    except ImportError:
        return gzip


def _gzip_errors() -> tuple[type[BaseException], ...]:
    """What inflating a corrupt stream raises: ``zlib.error``, gzip's ``BadGzipFile`` (an OSError),
    and python-isal's ``IsalError`` (a bare Exception) when installed."""
    try:
        from isal import isal_zlib
        return (OSError, zlib.error, cast("type[BaseException]", isal_zlib.error))
    except ImportError:
        return (OSError, zlib.error)


#: a gzip stream that stops before its end, or is followed by bytes that are not another gzip member
_GZIP_CUT = ("the gzip data are truncated or followed by bytes that are not gzip (the file ends before the end "
             "of the compressed stream, or has garbage after it; an interrupted download or copy?)")


def read_bytes(path: Path, limit: int | None) -> np.ndarray:
    """The (decompressed) bytes of ``path`` as uint8, reading a gzip stream only as far as
    ``limit`` lines need; plain files are memory-mapped. Read-only in every case."""
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        gz = gzip_module()
        try:
            if limit is None:
                data = gz.decompress(path.read_bytes())
            else:
                chunks, lines = [], 0
                with gz.open(path, "rb") as f:
                    while lines <= limit + 1:  # header + limit rows + the line after
                        chunk = f.read(1 << 23)
                        if not chunk:
                            break
                        chunks.append(chunk)
                        lines += chunk.count(b"\n")
                data = b"".join(chunks)
        except EOFError:
            raise FormatError(path, _GZIP_CUT) from None
        except _gzip_errors() as exc:
            raise FormatError(path, f"not a valid gzip file ({exc})") from None
        return np.frombuffer(data, dtype=np.uint8)
    if path.stat().st_size == 0:
        return np.frombuffer(b"", dtype=np.uint8)  # read-only, as the other two
    return np.memmap(path, dtype=np.uint8, mode="r").view(np.ndarray)


#: bytes of inflated text handed to a parsing thread at a time
_STREAM_PART = 1 << 23


#: deflate's largest expansion (a 258-byte match in about 2 bits)
_MAX_DEFLATE_RATIO = 1032


class _Overflow(Exception):
    """The inflated data outgrow the size in the gzip trailer."""


class _Inflater:
    """Inflate a gzip file in a background thread into a buffer sized by the gzip trailer.

    ``wait(end)`` blocks until ``end`` bytes are there or the stream has finished; a truncated
    or corrupt stream raises :class:`FormatError` from :meth:`raise_error`.
    """

    def __init__(self, path: Path, size: int):
        self.path = path
        self.buf = np.empty(size, dtype=np.uint8)
        # what the parsers read: read-only, as read_bytes' arrays (the kernels compile once for both)
        self.data = readonly(self.buf)
        self.avail = 0
        self.finished = False
        self.error: BaseException | None = None
        self._stop = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="embgeo-inflate", daemon=True)
        self._thread.start()

    @classmethod
    def start(cls, path: Path):
        """An inflater for a gzip ``path`` whose trailer gives a plausible size, else None."""
        with open(path, "rb") as f:
            if f.read(2) != b"\x1f\x8b":
                return None
            f.seek(0, os.SEEK_END)
            csize = f.tell()
            if csize < 20:
                return None
            f.seek(-4, os.SEEK_END)
            size = int.from_bytes(f.read(4), "little")
        # text always inflates, and deflate cannot inflate more than 1032:1: a trailer outside those
        # bounds is not the data's size (several members, > 4 GiB, or a lie) and must not size the buffer
        if not csize <= size <= _MAX_DEFLATE_RATIO * csize:
            return None
        return cls(path, size)

    def _run(self):
        try:
            from isal import isal_zlib as zl
        except ImportError:
            zl = zlib
        try:
            d = zl.decompressobj(wbits=31)
            with open(self.path, "rb") as f:
                while not self._stop:
                    raw = f.read(1 << 22)
                    if not raw:
                        break
                    while raw and not self._stop:
                        if d.eof:  # another gzip member follows
                            d = zl.decompressobj(wbits=31)
                        self._put(d.decompress(raw))
                        raw = d.unused_data if d.eof else b""
            if not d.eof and not self._stop:
                raise EOFError("truncated")
        except BaseException as exc:
            self.error = exc
        finally:
            with self._cond:
                self.finished = True
                self._cond.notify_all()

    def _put(self, data: bytes) -> None:
        n = len(data)
        if self.avail + n > self.buf.shape[0]:
            raise _Overflow
        self.buf[self.avail: self.avail + n] = np.frombuffer(data, dtype=np.uint8)
        with self._cond:
            self.avail += n
            self._cond.notify_all()

    def wait(self, end: int) -> int:
        """Bytes inflated, once there are at least ``end`` or the stream has finished."""
        with self._cond:
            while self.avail < end and not self.finished:
                self._cond.wait()
            avail = self.avail
        if self.finished:
            self.raise_error()
        return avail

    def raise_error(self) -> None:
        exc = self.error
        if exc is None:
            return
        if isinstance(exc, _Overflow):
            raise _Overflow
        if isinstance(exc, EOFError):
            raise FormatError(self.path, _GZIP_CUT) from None
        if isinstance(exc, _gzip_errors()):
            raise FormatError(self.path, f"not a valid gzip file ({exc})") from None
        raise exc

    def close(self) -> None:
        self._stop = True
        self._thread.join()


def _count_lines(buf: np.ndarray, pos: int) -> int:
    """Lines from ``pos`` on (a last line without newline counts); blocked to bound the temporary."""
    step = 1 << 24
    n = sum(int(np.count_nonzero(buf[i: i + step] == 10)) for i in range(pos, buf.shape[0], step))
    return n + int(buf.shape[0] > pos and buf[-1] != 10)


def first_line(buf: np.ndarray, pos: int) -> bytes:
    """The bytes of ``buf`` from ``pos`` to the next newline (excluded), or to the end."""
    size = 1 << 16
    while True:
        chunk = buf[pos: pos + size].tobytes()
        i = chunk.find(b"\n")
        if i >= 0 or pos + size >= buf.shape[0]:
            return chunk if i < 0 else chunk[:i]
        size *= 4


def parse_text(path: Path, fmt: str, limit, dtype, progress,
               stream_gzip: bool = True) -> tuple[list[str], np.ndarray]:
    """Words and vectors of a text file (``fmt``: "word2vec", "fasttext" or "glove"), maybe gzipped.

    Parameters
    ----------
    path : Path
    fmt : {"word2vec", "fasttext", "glove"}
        The first two need the ``N D`` header line, GloVe has none.
    limit : int or None
        Read at most this many vectors.
    dtype : NumPy dtype
        Of the returned matrix (numbers are rounded once, from their exact decimal value).
    progress : bool or None
        Progress bar over the words.
    stream_gzip : bool
        Parse a gzipped word2vec file while a thread inflates it (default).

    Returns
    -------
    words : list of str
        Unique, in file order.
    vectors : ndarray, shape (len(words), dim)

    Raises
    ------
    FormatError
        A malformed file: the message names the line (and what the header announced).
    """
    from ..kernels import parse as k

    # a gzipped word2vec file is inflated by a thread while the lines already inflated are parsed
    stream = _Inflater.start(path) if stream_gzip and fmt != "glove" and limit is None else None
    if stream is not None:
        try:
            return _parse_text_from(path, fmt, limit, dtype, progress, stream.data, stream)
        except _Overflow:  # the gzip trailer's size was not the data's (several members, > 4 GiB)
            return parse_text(path, fmt, limit, dtype, progress, stream_gzip=False)
        finally:
            stream.close()
    return _parse_text_from(path, fmt, limit, dtype, progress, read_bytes(path, limit), None)


def _parse_text_from(path: Path, fmt: str, limit, dtype, progress, buf, stream) -> tuple[list[str], np.ndarray]:
    full = buf
    buf, pos, first = _first_line(path, full, stream)
    n_header: int | None
    if fmt == "glove":
        if parse_header(first) is not None:
            raise FormatError(path, f"looks like a word2vec header {first.decode().strip()!r}, not a "
                                    "GloVe vector; load it with format='word2vec'", line=1)
        n_header, dim, first_line_no, n_rows = None, _glove_dim(path, buf, pos, first), 1, _count_lines(buf, pos)
    else:
        n_header, dim = read_header(path, first, "word2vec/fastText",
                                    "; for GloVe files without header use format='glove'")
        pos += len(first) + 1
        buf, n_rows = _rows_after_header(path, full, buf, pos, n_header, dim, stream)
        first_line_no = 2
    if limit is not None:
        n_rows = min(n_rows, limit)

    out = np.empty((n_rows, dim), dtype=dtype)
    wstart = np.empty(n_rows, dtype=np.int64)
    wend = np.empty(n_rows, dtype=np.int64)
    bar = progress_bar(total=n_header if stream is not None else n_rows, desc=f"reading {path.name}",
                       progress=progress, unit="word")
    ctx = (out, wstart, wend, path, first_line_no, n_header, bar)
    try:
        if stream is not None:
            parts, results = _parse_stream(stream, ctx, pos, n_rows)
            buf = full[:stream.wait(full.shape[0])]
        else:
            parts, results = _parse_parts(buf, ctx, pos, n_rows, dim)
    finally:
        bar.close()
    done, pos = _rows_parsed(path, parts, results, first_line_no)
    if n_header is not None:
        _check_header_count(path, buf, pos, done, n_header, n_rows, limit, first_line_no)
    if done < n_rows:  # GloVe: trailing blank lines were counted as rows
        out = out[:done].copy() if done < 0.9 * n_rows else out[:done]

    words = decode_words(buf, wstart[:done], wend[:done], path, first_line_no)
    del buf
    finite = np.isfinite(out).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise FormatError(path, f"NaN or inf in the vector of {words[row]!r}", line=first_line_no + row)
    check_unique(words, path, first_line_no)
    return words, out


def _first_line(path: Path, full, stream):
    """The bytes available so far, the first line's start (after a BOM) and the first line; a FormatError
    for an empty file or first line."""
    from ..kernels import parse as k

    buf = full
    if stream is not None:  # the header and the first lines: the first MiB, or all if blank
        buf = full[:stream.wait(1 << 20)]
        if k.rest_is_blank(buf, 0):
            buf = full[:stream.wait(full.shape[0])]
    pos = 3 if buf[:3].tobytes() == b"\xef\xbb\xbf" else 0
    if k.rest_is_blank(buf, pos):
        raise FormatError(path, "the file is empty")
    first = first_line(buf, pos)
    if not first.strip():
        raise FormatError(path, "empty first line", line=1)
    return buf, pos, first


def _glove_dim(path: Path, buf, pos: int, first: bytes) -> int:
    """The dimension of a GloVe file: the count of numbers on its first line (a FormatError if none)."""
    halves = first.split(b" ", 1)
    dim = len(halves[1].split()) if len(halves) == 2 else 0
    if dim == 0:
        raise FormatError(path, f"a word without numbers: {first[:60]!r}"
                                + _count_hint(buf, pos, 0, 1), line=1)
    return dim


def _rows_after_header(path: Path, full, buf, pos: int, n_header: int, dim: int, stream):
    """The bytes available so far and the rows to allocate after a word2vec header that ends at ``pos``."""
    from ..kernels import parse as k

    if stream is not None and k.rest_is_blank(buf, pos):
        buf = full[:stream.wait(full.shape[0])]
    if k.rest_is_blank(buf, pos):
        raise FormatError(path, f"the header says {n_header} words of {dim} dimensions but no vectors "
                                "follow it", line=2)
    if 2 * dim > full.shape[0] - pos:  # never allocate what the data cannot hold
        raise FormatError(path, f"the header says {n_header} words of {dim} dimensions but only "
                                f"{full.shape[0] - pos} bytes follow it", line=1)
    # never trust the header for the allocation: a wrong N must give an error, not a MemoryError
    # (a streamed file's line count is not known yet: a line of D numbers takes >= 2·D bytes)
    return buf, min(n_header, _count_lines(buf, pos) if stream is None else (full.shape[0] - pos) // (2 * dim) + 1)


def _parse_parts(buf, ctx, pos: int, n_rows: int, dim: int):
    """The parts of a file in memory and each part's (rows, end) result, parsed by one thread per part."""
    parts = _split_rows(buf, pos, n_rows, dim)
    if len(parts) == 1:
        return parts, [_parse_part(buf, ctx, *parts[0])]
    from concurrent.futures import ThreadPoolExecutor

    # the kernel releases the GIL: each thread parses its own lines into its own rows
    with ThreadPoolExecutor(len(parts)) as pool:
        futures = [pool.submit(_parse_part, buf, ctx, *part) for part in parts]
    return parts, [f.result() for f in futures]  # the first error (the lowest line) wins


def _rows_parsed(path: Path, parts, results, first_line_no: int) -> tuple[int, int]:
    """Rows parsed and the byte after the last, the parts joined; a FormatError for blank lines between
    parts or no vector at all."""
    done, pos = results[0]
    for (row0, start, want), (got, end) in zip(parts[1:], results[1:]):
        if got and done < row0:  # the previous part ended in blank lines, and data follow
            raise FormatError(path, "empty line (blank lines are allowed only at the end)",
                              line=first_line_no + done)
        if got:
            done, pos = row0 + got, end
    if done == 0:
        raise FormatError(path, "no vectors after the header", line=first_line_no)
    return done, pos


def _check_header_count(path: Path, buf, pos: int, done: int, n_header: int, n_rows: int, limit,
                        first_line_no: int) -> None:
    """A FormatError where the header's word count is not the file's (fewer vectors, or more lines after them)."""
    from ..kernels import parse as k

    if done < min(n_header, limit or n_header):
        raise FormatError(path, f"the header says {n_header} words but the file ends after {done} "
                                f"vectors", line=first_line_no + done)
    if n_rows == n_header and not k.rest_is_blank(buf, pos):
        end = buf.shape[0]
        while buf[end - 1] in b" \t\r\n":  # ends in non-blank data: terminates
            end -= 1
        total = done + _count_lines(buf[:end], pos)
        raise FormatError(path, f"the header says {n_header} words but the file has {total} lines of "
                                "vectors", line=first_line_no + done)


#: text smaller than this is parsed by one thread
_PARALLEL_MIN_BYTES = 1 << 22


def _split_rows(buf, pos: int, n_rows: int, dim: int) -> list[tuple[int, int, int]]:
    """Cut rows ``[0, n_rows)`` starting at byte ``pos`` into (first row, byte start, rows) parts at
    line boundaries, one per core (a single part for small inputs)."""
    workers = min(default_n_jobs(), 8)
    size = buf.shape[0] - pos
    if workers < 2 or size < _PARALLEL_MIN_BYTES:
        return [(0, pos, n_rows)]
    parts, row, start = [], 0, pos
    for i in range(1, workers):
        cut = pos + size * i // workers
        nl = _find_newline(buf, cut)
        if nl < 0:
            break
        rows = row + _count_lines(buf[:nl + 1], start)
        if rows >= n_rows:
            break
        parts.append((row, start, rows - row))
        row, start = rows, nl + 1
    parts.append((row, start, n_rows - row))
    return parts


def _last_newline(buf, start: int, end: int) -> int:
    """Index of the last newline in ``buf[start:end]``, or -1."""
    step = 1 << 16
    while end > start:
        lo = max(start, end - step)
        hits = np.flatnonzero(buf[lo:end] == 10)
        if hits.shape[0]:
            return lo + int(hits[-1])
        end = lo
    return -1


def _find_newline(buf, at: int) -> int:
    step = 1 << 16
    while at < buf.shape[0]:
        hits = np.flatnonzero(buf[at: at + step] == 10)
        if hits.shape[0]:
            return at + int(hits[0])
        at += step
    return -1


def _parse_stream(stream, ctx, pos: int, n_rows: int):
    """Parse the lines of a gzip stream as they are inflated, in parts of about 8 MiB on all cores.

    Returns the parts (first row, byte start, rows) and their :func:`_parse_part` results.
    """
    from concurrent.futures import ThreadPoolExecutor

    buf = stream.data
    parts, futures = [], []
    row, start = 0, pos
    with ThreadPoolExecutor(min(default_n_jobs(), 8)) as pool:
        try:
            want = start + _STREAM_PART
            while row < n_rows:
                avail = stream.wait(want)
                cut = min(avail, start + _STREAM_PART)  # parts of about _STREAM_PART bytes
                nl = _last_newline(buf, start, cut)
                if nl < 0:
                    nl = _find_newline(buf[:avail], cut)
                if nl >= 0:
                    end = nl + 1
                elif stream.finished and avail == stream.avail:
                    end = avail  # the last line, without a newline
                else:  # no complete line yet
                    want = avail + _STREAM_PART
                    continue
                if end <= start:
                    break
                rows = min(_count_lines(buf[:end], start), n_rows - row)
                futures.append(pool.submit(_parse_part, buf[:end], ctx, row, start, rows))
                parts.append((row, start, rows))
                row, start = row + rows, end
                want = start + _STREAM_PART
                if stream.finished and start >= stream.avail:
                    break
        finally:
            results: list = []
            for f in futures:
                try:
                    results.append(f.result())
                except BaseException as exc:
                    results.append(exc)
    stream.wait(buf.shape[0])
    stream.raise_error()
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return parts, results


def _parse_part(buf, ctx, row0: int, pos: int, n_rows: int) -> tuple[int, int]:
    """Parse ``n_rows`` lines from byte ``pos`` into rows ``row0...``; (rows parsed, end byte).

    Fewer rows than asked means blank lines to the end of the data.
    """
    from ..kernels import parse as k

    out, wstart, wend, path, first_line_no, n_header, bar = ctx
    dim = out.shape[1]
    cap = max(1 << 14, 2 * dim)
    fb = [np.empty(cap, dtype=np.int64) for _ in range(4)]
    chunk = max(1, (1 << 21) // dim)
    done = 0
    while done < n_rows:
        want = min(chunk, n_rows - done)
        r = row0 + done
        status, got, pos, nfb, detail = k.parse_rows(buf, pos, want, out, r, wstart[r:], wend[r:], *fb)
        _resolve_fallbacks(buf, out, fb, nfb, path, first_line_no)
        done += got
        bar.update(got)
        if status == k.FALLBACK_FULL:
            continue
        line = first_line_no + row0 + done
        if status in (k.TOO_FEW, k.TOO_MANY):
            if n_header is not None:
                msg = f"the header says {dim} dimensions but this line has {detail} numbers"
            else:
                msg = f"{detail} numbers after the word, but line {first_line_no} has {dim}"
            raise FormatError(path, msg + _count_hint(buf, pos, detail, dim), line=line)
        if status == k.BLANK:
            raise FormatError(path, "empty line (blank lines are allowed only at the end)", line=line)
        if status == k.EMPTY_WORD:
            raise FormatError(path, "the line starts with a space (an empty word)", line=line)
        if got < want:
            break
    return done, pos


def _count_hint(buf, pos, got: int, dim: int) -> str:
    """Why a line may have the wrong count: tab-separated values, or a word with a space."""
    line = first_line(buf, pos)
    word = line.split(b" ", 1)[0]
    if got == 0 and b"\t" in word:
        return " (the word ends at the first space: tab-separated values are not supported)"
    if got > dim:
        return " (a word containing a space?)"
    return ""


_NUMBER = re.compile(rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|nan|inf|infinity)", re.IGNORECASE)


def _is_number(tok: bytes) -> bool:
    """A decimal number or nan/inf in the spellings every reader accepts (no '_', no hex, no blanks)."""
    return _NUMBER.fullmatch(tok) is not None


_EXPECTED = ("; expected word vectors: a word and its numbers on each line (word2vec, GloVe or fastText text, "
             "gzipped or not, an optional 'N DIM' first line), word2vec or fastText binary, or an embgeo cache")


def _resolve_fallbacks(buf, out, fb, nfb, path, first_line_no):
    """Parse the tokens the kernel's exact fast path declined, with Python's float (also exact)."""
    rows, cols, starts, ends = fb
    for i in range(nfb):
        tok = buf[starts[i]:ends[i]].tobytes()
        try:
            if not _is_number(tok):  # Python's float also takes 1_000, blanks, non-ASCII digits
                raise ValueError
            value = float(tok)
        except ValueError:
            line = first_line_no + int(rows[i])
            # on the first lines the file is likely no embeddings at all: say what was expected
            hint = _EXPECTED if line <= 2 else ""
            raise FormatError(path, f"value {int(cols[i]) + 1} is not a number: {tok[:40]!r}{hint}",
                              line=line) from None
        with np.errstate(over="ignore"):  # beyond float32's range: inf, reported with the line below
            out[rows[i], cols[i]] = value


def decode_words(buf, wstart, wend, path, first_line_no) -> list[str]:
    """The words at byte ranges ``[wstart[i], wend[i])`` of ``buf``, decoded as UTF-8.

    Invalid bytes become U+FFFD with one :class:`UnicodeWarning` naming the first bad word's line
    (``first_line_no`` + row), or its record when ``first_line_no`` is None (binary files).
    """
    from ..kernels import parse as k

    blob = k.gather_words(buf, wstart, wend).tobytes()
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError:
        text = blob.decode("utf-8", errors="replace")
        bad = []
        for i, (s, e) in enumerate(zip(wstart, wend)):
            try:
                buf[s:e].tobytes().decode("utf-8")
            except UnicodeDecodeError:
                bad.append(i)
        where = f"record {bad[0] + 1}" if first_line_no is None else f"line {first_line_no + bad[0]}"
        warnings.warn(
            f"{path}: {len(bad)} word(s) are not valid UTF-8 (first on {where}); "
            "the invalid bytes were replaced by U+FFFD",
            UnicodeWarning, stacklevel=4,
        )
    return text.split("\n")


def check_unique(words, path, first_line_no) -> None:
    """Raise :class:`~embgeo.errors.FormatError` at the second line of the first repeated word."""
    if len(set(words)) == len(words):
        return
    seen: dict[str, int] = {}
    for i, w in enumerate(words):
        j = seen.setdefault(w, i)
        if j != i:
            raise FormatError(path, f"duplicate word {w!r} (also on line {first_line_no + j})",
                              line=first_line_no + i)
