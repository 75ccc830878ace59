"""The word ↔ row protocol that every vocabulary container shares.

:class:`~embgeo.Embeddings`, :class:`~embgeo.fuzzy.FuzzyEmbeddings` and
:class:`~embgeo.alpha.AlphaEmbeddings` hold a vocabulary in row order. :class:`Vocabulary` gives
each of them the same ``len``, ``in``, iteration, :attr:`~Vocabulary.words`,
:meth:`~Vocabulary.index` and :meth:`~Vocabulary.indices`, implemented once here.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from . import backend as xb
from .errors import UnknownWordError

__all__ = ["Vocabulary", "word_index"]


def word_index(words: Sequence[str]) -> dict[str, int]:
    """``{word: row}`` of a vocabulary in row order; a duplicate word is a ValueError naming both rows.

    Parameters
    ----------
    words : sequence of str
        The vocabulary, row 0 first.

    Returns
    -------
    dict of str to int
        Each word's row.

    Raises
    ------
    ValueError
        A word occurs twice (the message names it and both rows).

    Examples
    --------
    >>> word_index(["a", "b"])
    {'a': 0, 'b': 1}
    """
    index: dict[str, int] = {}
    for i, w in enumerate(words):
        if index.setdefault(w, i) != i:
            raise ValueError(f"duplicate word {w!r} at rows {index[w]} and {i}")
    return index


class Vocabulary:
    """Mixin: the word ↔ row lookups of a container whose rows are words.

    A subclass sets ``_words`` (the words in row order, a list) and ``_index`` (``{word: row}``,
    e.g. from :func:`word_index`); a container that wraps another one may share that one's two
    attributes. It has no instance attributes of its own (``__slots__ = ()``), so a subclass with
    ``__slots__`` keeps them.

    Examples
    --------
    >>> class Letters(Vocabulary):
    ...     def __init__(self, words):
    ...         self._words, self._index = list(words), word_index(words)
    >>> v = Letters("abc")
    >>> len(v), "b" in v, v.index("c"), v.indices(["c", "x"], oov="mark").tolist()
    (3, True, 2, [2, -1])
    """

    __slots__ = ()

    _words: list
    _index: dict

    @property
    def words(self) -> list[str]:
        """The vocabulary in row order (a list; do not modify it in place)."""
        return self._words

    def __len__(self) -> int:
        return len(self._words)

    def __contains__(self, word) -> bool:
        return word in self._index

    def __iter__(self):
        return iter(self._words)

    def index(self, word: str) -> int:
        """Row of ``word``.

        Parameters
        ----------
        word : str
            A word of the vocabulary.

        Returns
        -------
        int
            Its row.

        Raises
        ------
        UnknownWordError
            ``word`` is not in the vocabulary (a KeyError; the message names it).

        See Also
        --------
        indices : The rows of many words, with a choice for unknown ones.
        words_at : The inverse, rows to words.
        """
        try:
            return self._index[word]
        except KeyError:
            raise UnknownWordError(word) from None

    def indices(self, words: Iterable[str], oov: str = "raise") -> np.ndarray:
        """Rows of ``words`` as an int64 NumPy array.

        Parameters
        ----------
        words : iterable of str
            The words to look up (not a single string: use :meth:`index` for one word).
        oov : {"raise", "skip", "mark"}, default "raise"
            Unknown words raise :class:`~embgeo.errors.UnknownWordError` naming the first one
            (and how many are missing), are dropped, or are marked with -1.

        Returns
        -------
        numpy.ndarray of int64, shape (n,)
            The rows, in the order of ``words`` (``n`` is fewer than the words with ``oov="skip"``).

        Raises
        ------
        UnknownWordError
            With ``oov="raise"``, a word is not in the vocabulary.
        TypeError
            ``words`` is a single string.
        ValueError
            ``oov`` is none of the three choices.

        Examples
        --------
        >>> import numpy as np
        >>> from embgeo import Embeddings
        >>> e = Embeddings(["a", "b", "c"], np.eye(3))
        >>> e.indices(["c", "x", "a"], oov="mark").tolist()
        [2, -1, 0]
        >>> e.indices(["c", "x", "a"], oov="skip").tolist()
        [2, 0]
        """
        if oov not in ("raise", "skip", "mark"):
            raise ValueError(f"oov must be 'raise', 'skip' or 'mark', got {oov!r}")
        if isinstance(words, str):
            raise TypeError("indices() takes a sequence of words; use index() for one word")
        words = list(words)  # a generator would be spent before the error message needs it
        get = self._index.get
        idx = np.fromiter((get(w, -1) for w in words), dtype=np.int64)
        if oov == "mark":
            return idx
        bad = idx < 0
        if bad.any():
            if oov == "raise":
                first = words[int(np.flatnonzero(bad)[0])]
                raise UnknownWordError(first, n_missing=int(bad.sum()))
            idx = idx[~bad]
        return idx


    def words_at(self, ids):
        """The words at row ids ``ids``, in the same shape: the inverse of :meth:`indices`.

        Turns the ``ids`` of ``scores, ids = e.neighbors(...)`` (or of a FAISS search) into words.

        Parameters
        ----------
        ids : int or array-like of int, any shape
            Row ids (NumPy, CuPy or nested lists). FAISS's padding id -1 gives ``None``.

        Returns
        -------
        str, None, or nested lists of str
            One word for a scalar id, else lists shaped like ``ids`` (as ``ids.tolist()`` with words).

        Raises
        ------
        IndexError
            An id beyond the vocabulary.
        TypeError
            Ids that are not integers.

        Examples
        --------
        >>> import numpy as np
        >>> from embgeo import Embeddings
        >>> e = Embeddings(["a", "b", "c"], np.eye(3))
        >>> e.words_at(np.array([[2, 0], [1, -1]]))
        [['c', 'a'], ['b', None]]
        >>> e.words_at(1)
        'b'
        """
        flat = xb.to_numpy(ids)
        if flat.dtype.kind not in "iu":
            raise TypeError(f"ids must be integers, got dtype {flat.dtype}")
        n = len(self._words)
        bad = (flat >= n) | (flat < -1)
        if bad.any():
            raise IndexError(f"row id {int(flat[bad].flat[0])} is out of range for {n} words")
        words = [self._words[i] if i >= 0 else None for i in flat.ravel().tolist()]
        if flat.ndim == 0:
            return words[0]
        return np.array(words, dtype=object).reshape(flat.shape).tolist()
