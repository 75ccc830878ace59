"""Seed dictionaries: word pairs resolved to row indices, identical strings, Latin numerals."""
from __future__ import annotations

import os
import re

import numpy as np

from .. import backend as xb
from ..data import read_dictionary
from ..embeddings import Embeddings
from ..errors import UnknownWordError

_NUMERAL = re.compile(r"[0-9]+\Z")


def _matrix(e, name):
    if isinstance(e, Embeddings):
        e.check_finite()
        return e.vectors
    if hasattr(e, "tocsr") or hasattr(e, "todense"):  # scipy.sparse: word vectors are dense
        raise TypeError(f"{name}: sparse input is not supported; pass a dense matrix or an Embeddings")
    return xb.check_matrix(e, name)


def dictionary_indices(src, tgt, pairs, *, oov: str = "skip"):
    """Resolve a dictionary of word pairs to row indices of ``src`` and ``tgt``.

    Parameters
    ----------
    src, tgt : Embeddings
    pairs : iterable of (source_word, target_word), or an int array of shape (m, 2) of row pairs
    oov : {"skip", "raise"}
        Pairs with a word outside a vocabulary are dropped (VecMap's and MUSE's convention),
        or raise :class:`~embgeo.errors.UnknownWordError` naming the first one.

    Returns
    -------
    src_idx, tgt_idx : int64 NumPy arrays of equal length (≥ 1)

    Raises
    ------
    ValueError
        The dictionary is empty, or no pair has both words in the vocabularies.
    """
    if oov not in ("skip", "raise"):
        raise ValueError(f"oov must be 'skip' or 'raise', got {oov!r}")
    if isinstance(pairs, np.ndarray) and np.issubdtype(pairs.dtype, np.integer):
        return _check_index_pairs(pairs, _n_rows(src), _n_rows(tgt))
    pairs = list(pairs)
    if not pairs:
        raise ValueError("the dictionary is empty")
    if all(isinstance(p, (tuple, list)) and len(p) == 2 and all(isinstance(v, (int, np.integer)) for v in p)
           for p in pairs):
        return _check_index_pairs(np.asarray(pairs, dtype=np.int64), _n_rows(src), _n_rows(tgt))
    if not (isinstance(src, Embeddings) and isinstance(tgt, Embeddings)):
        raise TypeError("word-pair dictionaries need Embeddings for src and tgt; with arrays pass "
                        "an int array of (source_row, target_row) pairs")
    for n, p in enumerate(pairs):
        if not (isinstance(p, (tuple, list)) and len(p) == 2):
            raise ValueError(f"dictionary entry {n} is not a (source, target) pair: {p!r}")
    si = src.indices([p[0] for p in pairs], oov="mark")
    ti = tgt.indices([p[1] for p in pairs], oov="mark")
    ok = (si >= 0) & (ti >= 0)
    if oov == "raise" and not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        word, side = (pairs[bad][0], "source") if si[bad] < 0 else (pairs[bad][1], "target")
        raise UnknownWordError(word, context=f"{side} side of dictionary entry {bad}",
                               n_missing=int((~ok).sum()))
    if not ok.any():
        ex = pairs[0]
        raise ValueError(
            f"none of the {len(pairs)} dictionary pairs has both words in the vocabularies "
            f"(e.g. {ex[0]!r} in source: {ex[0] in src}, {ex[1]!r} in target: {ex[1] in tgt}); "
            "check the language direction and letter case"
        )
    return si[ok], ti[ok]


def _n_rows(e):
    return len(e) if isinstance(e, Embeddings) else int(e.shape[0])


def _check_index_pairs(P, ns, nt):
    P = np.asarray(P, dtype=np.int64)
    if P.ndim != 2 or P.shape[1] != 2:
        raise ValueError(f"index pairs must have shape (m, 2), got {P.shape}")
    if P.shape[0] == 0:
        raise ValueError("the dictionary is empty")
    if P[:, 0].min() < 0 or P[:, 0].max() >= ns or P[:, 1].min() < 0 or P[:, 1].max() >= nt:
        raise ValueError(f"index pairs out of range for {ns} source and {nt} target rows")
    return P[:, 0].copy(), P[:, 1].copy()


def identical_dictionary(src: Embeddings, tgt: Embeddings):
    """Pairs of identical strings in both vocabularies (VecMap's ``--init_identical``).

    Parameters
    ----------
    src, tgt : Embeddings
        The source and target vocabularies.

    Returns
    -------
    list of (str, str)
        ``(w, w)`` for every word of ``src`` also in ``tgt``, in ``src``'s order.

    Raises
    ------
    ValueError
        The vocabularies share no string.

    See Also
    --------
    numeral_dictionary : the numerals only.
    dictionary_indices : resolves the pairs to rows.
    """
    pairs = [(w, w) for w in src.words if w in tgt]
    if not pairs:
        raise ValueError("the two vocabularies share no identical string")
    return pairs


def numeral_dictionary(src: Embeddings, tgt: Embeddings):
    """Pairs of identical Latin numerals ``[0-9]+`` (VecMap's ``--init_numerals``, ACL 2017).

    Parameters
    ----------
    src, tgt : Embeddings
        The source and target vocabularies.

    Returns
    -------
    list of (str, str)
        ``(w, w)`` for every numeral of ``src`` also in ``tgt``, in ``src``'s order.

    Raises
    ------
    ValueError
        No numeral occurs in both vocabularies.

    See Also
    --------
    identical_dictionary : every shared string.

    References
    ----------
    M. Artetxe, G. Labaka, E. Agirre (2017). Learning bilingual word embeddings with (almost) no
    bilingual data. ACL.
    """
    pairs = [(w, w) for w in src.words if _NUMERAL.match(w) and w in tgt]
    if not pairs:
        raise ValueError("no numeral ([0-9]+) occurs in both vocabularies")
    return pairs


def _maybe_read(d):
    if isinstance(d, (str, os.PathLike)):
        return read_dictionary(d)
    return d
