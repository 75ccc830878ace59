"""Lines of the text files embgeo reads words from: one rule, one implementation.

Every reader of words in text form (the evaluation data of :mod:`embgeo.data`, an embgeo cache's
``vocab.txt``, GloVe's ``vocab_count`` file) splits its file here, so that they all agree:

* a byte-order mark before the first line is dropped (editors on Windows write one into "UTF-8"
  files; kept, it would join the first word, which would then silently be out of vocabulary);
* a line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r`` (Python's universal newlines), so a CR is
  never part of a word;
* bytes that are not text in the encoding raise :class:`~embgeo.errors.FormatError` naming the file
  and the line, as does a CSV row the ``csv`` module cannot read.

The word-vector text formats (:func:`embgeo.io.load`) follow the same rule for the BOM and for CR
before a newline in their compiled parser.
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Iterator

from .errors import FormatError

__all__ = ["BOM", "split_lines", "decode_lines", "read_lines", "data_lines", "csv_rows"]

#: U+FEFF, which editors on Windows put before the first line of "UTF-8" files.
BOM = "\ufeff"


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` without their ends, a leading byte-order mark dropped.

    A final line end does not open another (empty) line.

    Parameters
    ----------
    text : str
        Decoded text; lines end at ``\\n``, ``\\r\\n`` or a lone ``\\r``.

    Returns
    -------
    list of str
        The lines, in order, without their line ends.

    See Also
    --------
    decode_lines : The same from bytes, with decoding errors named by line.

    Examples
    --------
    >>> split_lines("\\ufeffcat\\r\\ndog\\rfish\\n")
    ['cat', 'dog', 'fish']
    >>> split_lines("a\\n\\nb"), split_lines("")
    (['a', '', 'b'], [])
    """
    text = text.removeprefix(BOM)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def decode_lines(raw: bytes, path, encoding: str = "utf-8", errors: str = "strict") -> list[str]:
    """:func:`split_lines` of ``raw`` decoded; bytes that do not decode are a FormatError naming the line.

    Parameters
    ----------
    raw : bytes
        The file's content.
    path : str or path-like
        The file ``raw`` came from, for the error message only.
    encoding : str, default "utf-8"
        The text encoding.
    errors : str, default "strict"
        How undecodable bytes are handled, as for :meth:`bytes.decode`; with ``"strict"`` they raise.

    Returns
    -------
    list of str
        The lines without their ends (:func:`split_lines`).

    Raises
    ------
    FormatError
        ``raw`` is not text in ``encoding``: the message names ``path``, the line and the bytes.
    """
    try:
        text = raw.decode(encoding, errors)
    except UnicodeDecodeError as exc:
        before = raw[:exc.start].decode(encoding, "replace").removeprefix(BOM)
        line = before.replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1
        raise FormatError(path, f"not {exc.encoding.upper()} text: bytes {raw[exc.start:exc.end][:8]!r} "
                                f"({exc.reason})",
                          line=line) from None
    return split_lines(text)


def read_lines(path, encoding: str = "utf-8", errors: str = "strict") -> Iterator[tuple[int, str]]:
    """``(line number from 1, line without its end)`` for each line of the file ``path``.

    Parameters
    ----------
    path : str or path-like
        The text file.
    encoding : str, default "utf-8"
        Its encoding.
    errors : str, default "strict"
        How undecodable bytes are handled, as for :meth:`bytes.decode`.

    Yields
    ------
    tuple of (int, str)
        The line number (from 1) and the line without its end.

    Raises
    ------
    FormatError
        The file is not text in ``encoding`` (naming the line).

    See Also
    --------
    data_lines : The same without blank and comment lines.
    """
    yield from enumerate(decode_lines(Path(path).read_bytes(), path, encoding, errors), start=1)


def data_lines(path, encoding: str = "utf-8", comment: str | None = "#") -> Iterator[tuple[int, str]]:
    """:func:`read_lines` without blank lines and comment lines.

    Each line keeps its inner and outer white space; line numbers are those of the file.

    Parameters
    ----------
    path : str or path-like
        The text file.
    encoding : str, default "utf-8"
        Its encoding.
    comment : str or None, default "#"
        A line whose first non-blank character(s) are ``comment`` is skipped; None keeps every
        non-blank line.

    Yields
    ------
    tuple of (int, str)
        The line number (from 1) and the line without its end.

    Raises
    ------
    FormatError
        The file is not text in ``encoding`` (naming the line).
    """
    for no, line in read_lines(path, encoding):
        s = line.strip()
        if s and (comment is None or not s.startswith(comment)):
            yield no, line


def csv_rows(path, encoding: str = "utf-8", **fmtparams) -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of each non-blank row of a CSV file.

    Parameters
    ----------
    path : str or path-like
        The CSV file.
    encoding : str, default "utf-8"
        Its encoding.
    **fmtparams
        Dialect options passed to :func:`csv.reader` (``delimiter``, ``quotechar``, ``strict``...).

    Yields
    ------
    tuple of (int, list of str)
        The line number where the row ends (from 1) and its fields.

    Raises
    ------
    FormatError
        The file is not text in ``encoding``, or a row is not CSV (a field over the ``csv`` module's
        size limit, an unterminated quote in strict mode...), naming the line.
    """
    reader = csv.reader(decode_lines(Path(path).read_bytes(), path, encoding), **fmtparams)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise FormatError(path, f"not a CSV row ({exc})", line=reader.line_num) from None
        if any(f.strip() for f in row):
            yield reader.line_num, row

