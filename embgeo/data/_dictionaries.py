"""Bilingual dictionaries: the readers of MUSE, VecMap and tab-separated files, and the held-out split.

Used by :mod:`embgeo.crosslingual` (seed dictionaries) and :mod:`embgeo.evaluate.lexicon` (BLI).
"""
from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np

from ..errors import FormatError
from ..textfile import data_lines

__all__ = ["read_dictionary", "split_dictionary", "group_dictionary"]

_DICTIONARY_FORMATS = ("auto", "muse", "vecmap", "tsv")


def read_dictionary(path, *, format: str = "auto", lowercase: bool = False, encoding: str = "utf-8"):
    """Read a bilingual dictionary into a list of (source, target) pairs.

    Parameters
    ----------
    path : str or Path
        The dictionary file.
    format : {"auto", "muse", "vecmap", "tsv"}
        ``"muse"`` and ``"vecmap"``: two whitespace-separated words a line (MUSE's files use a
        space or a tab, VecMap splits on any whitespace); ``"tsv"``: exactly two tab-separated
        fields (words may then contain spaces). ``"auto"`` uses the tab when a line has one,
        otherwise whitespace.
    lowercase : bool
        Lower-case both words (for lower-cased vectors such as GloVe; some dictionaries capitalise
        entries). Pairs that become identical are kept once.
    encoding : str
        Its encoding.

    Returns
    -------
    list of (str, str)
        In file order, duplicates removed. A source word may have several translations.

    Raises
    ------
    FormatError
        Empty file, or a malformed line (a ValueError whose message starts ``path, line N:``).
    FileNotFoundError
        No such file; the message says how to fetch a registered dictionary.
    """
    if format not in _DICTIONARY_FORMATS:
        raise ValueError(f"format must be one of {', '.join(_DICTIONARY_FORMATS)}, got {format!r}")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such dictionary file: {str(path)!r} (a text file of source-target word pairs; "
                                f"a registered dictionary is fetched by name: embgeo.data.fetch('xling-de-fi-train-5k'), "
                                f"see embgeo.data.registry())")
    pairs, seen = [], set()
    for n, line in data_lines(path, encoding, comment=None):
        if format == "tsv" or (format == "auto" and "\t" in line):
            fields = [x.strip() for x in line.split("\t")]
        else:
            fields = line.split()
        if len(fields) != 2 or not all(fields):
            raise FormatError(path, f"malformed dictionary line {line!r}: expected 2 fields (source and target "
                                    f"word), found {len([x for x in fields if x])}", line=n)
        s, t = (fields[0].lower(), fields[1].lower()) if lowercase else (fields[0], fields[1])
        if (s, t) not in seen:
            seen.add((s, t))
            pairs.append((s, t))
    if not pairs:
        raise FormatError(path, "the dictionary is empty")
    return pairs


def group_dictionary(pairs):
    """{source word: [gold translations]} in first-seen order.

    Parameters
    ----------
    pairs : iterable of (str, str)
        ``(source, target)`` translation pairs, as :func:`read_dictionary` gives them.

    Returns
    -------
    dict of str to list of str
        Each source word's translations, without repeats; a word counts as translated correctly
        when any of them is found (the BLI protocol).
    """
    out = {}
    for s, t in pairs:
        lst = out.setdefault(s, [])
        if t not in lst:
            lst.append(t)
    return out


def split_dictionary(pairs, test_size: float = 0.2, *, random_state: int = 0):
    """Deterministic held-out split **by source word** (all translations of a word go together).

    A word goes to the test part when ``crc32(f"{random_state}:{word}") / 2³² < test_size``: the
    split does not depend on the order or size of the dictionary, so a word held out of the 5k
    dictionary is also held out of its 1k and 500 subsets.

    Parameters
    ----------
    pairs : list of (source, target)
        The dictionary's translation pairs.
    test_size : float in (0, 1), default 0.2
        The expected share of source words held out.
    random_state : int, default 0
        Salt of the hash (an int: the split is a hash, not a random draw).

    Returns
    -------
    train, test : lists of (source, target) pairs
        The pairs of the kept and of the held-out source words, each in the input order.

    Raises
    ------
    ValueError
        ``test_size`` outside (0, 1), or a split that leaves one part empty.
    TypeError
        ``random_state`` is not an int.
    """
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)):
        raise TypeError(f"random_state must be an int (the hash salt), got {random_state!r}")
    if not 0 < test_size < 1:
        raise ValueError(f"test_size must be in (0, 1), got {test_size}")
    train: list = []
    test: list = []
    for s, t in pairs:
        h = zlib.crc32(f"{random_state}:{s}".encode("utf-8")) / 2**32
        (test if h < test_size else train).append((s, t))
    if not train or not test:
        raise ValueError(f"split of {len(pairs)} pairs left an empty part; use a larger dictionary")
    return train, test
