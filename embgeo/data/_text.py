"""Numbered lines of a text file, for every reader of :mod:`embgeo.data`."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..errors import FormatError

#: U+FEFF, which editors on Windows put before the first line of "UTF-8" files.
BOM = "\ufeff"


def read_lines(path: Path, encoding: str = "utf-8") -> Iterator[tuple[int, str]]:
    """``(line number from 1, line without its end)`` for each line of ``path``.

    A byte-order mark before the first line is dropped: kept, it would become part of the first
    word, which would then silently count as out of vocabulary.

    Raises
    ------
    FormatError
        The file is not text in ``encoding``.
    """
    try:
        with open(path, encoding=encoding) as fh:
            for no, line in enumerate(fh, start=1):
                if no == 1:
                    line = line.removeprefix(BOM)
                yield no, line.rstrip("\r\n")
    except UnicodeDecodeError as exc:
        raise FormatError(path, f"not {exc.encoding.upper()} text ({exc.reason})") from None


def data_lines(path: Path, encoding: str = "utf-8", comment: str | None = "#") -> Iterator[tuple[int, str]]:
    """:func:`read_lines` without blank lines and, unless ``comment`` is None, without lines whose
    first non-blank character is ``comment``; each line keeps its inner and outer white space."""
    for no, line in read_lines(path, encoding):
        s = line.strip()
        if s and (comment is None or not s.startswith(comment)):
            yield no, line
