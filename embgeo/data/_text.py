"""Numbered lines of a text file, for every reader of :mod:`embgeo.data`."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..errors import FormatError


def read_lines(path: Path, encoding: str = "utf-8") -> Iterator[tuple[int, str]]:
    """``(line number from 1, line without its end)`` for each line of ``path``.

    Raises
    ------
    FormatError
        The file is not text in ``encoding``.
    """
    try:
        with open(path, encoding=encoding) as fh:
            for no, line in enumerate(fh, start=1):
                yield no, line.rstrip("\r\n")
    except UnicodeDecodeError as exc:
        raise FormatError(path, f"not {exc.encoding.upper()} text ({exc.reason})") from None
