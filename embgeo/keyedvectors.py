"""``embgeo.KeyedVectors``: gensim's ``KeyedVectors``, with embgeo's loader and error types.

How it relates to :class:`~embgeo.embeddings.Embeddings` (see ``docs/gensim.md``):

* :class:`KeyedVectors` *is* a gensim ``KeyedVectors`` (a subclass): the mutable storage
  (``index_to_key``, ``key_to_index``, ``vectors``, ``expandos``), the preallocate-then-fill protocol
  that gensim's own loaders use, ``save``/``load`` pickles and every query method keep gensim's
  exact semantics and defaults (e.g. ``restrict_vocab=300000`` in ``evaluate_word_pairs``), so code
  and files move between the two unchanged. gensim's own test file passes against it.
* embgeo changes three things: ``load_word2vec_format`` parses with embgeo's compiled text
  parser when gensim's options allow it (bit-identical vectors, several times faster), an
  unknown key raises :class:`~embgeo.errors.UnknownWordError` (a KeyError, so gensim's
  ``except KeyError`` still works), and ``load`` returns this class for files gensim saved.
* :class:`~embgeo.embeddings.Embeddings` is the immutable value that embgeo's algorithms take.
  ``kv.to_embeddings()`` shares the vectors (no copy); ``KeyedVectors.from_embeddings(e)`` (or
  ``e.to_gensim()``) copies them, because a KeyedVectors may be edited in place.
"""
from __future__ import annotations

import os

import numpy as np
from gensim.models.keyedvectors import KeyedVectors as GensimKeyedVectors

from .errors import UnknownWordError

__all__ = ["KeyedVectors"]


class KeyedVectors(GensimKeyedVectors):
    """gensim's ``KeyedVectors``, importable as ``from embgeo import KeyedVectors``.

    Parameters
    ----------
    vector_size : int
        Dimension of the vectors.
    count : int, default 0
        Rows to preallocate (gensim's loaders fill them with ``add_vector``).
    dtype : NumPy dtype, default float32
    mapfile_path : str, optional
        Unused, as in gensim.

    Notes
    -----
    Every gensim method is available with gensim's behaviour: ``most_similar`` (with
    ``clip_start``/``clip_end``/``indexer``), ``most_similar_cosmul``, ``similar_by_word``,
    ``similar_by_vector``, ``similarity``, ``n_similarity``, ``distance``, ``distances``, ``rank``,
    ``closer_than``, ``doesnt_match``, ``relative_cosine_similarity``, ``most_similar_to_given``,
    ``get_mean_vector``, ``get_vector``, ``get_index``, ``has_index_for``, ``vectors_for_all``,
    ``evaluate_word_pairs``, ``evaluate_word_analogies``, ``add_vectors``, ``__setitem__``,
    ``save_word2vec_format``, ``save`` and ``load``. After writing into ``kv.vectors`` directly,
    call ``kv.fill_norms(force=True)`` before similarity queries, as in gensim.

    Examples
    --------
    >>> import numpy as np
    >>> from embgeo import KeyedVectors
    >>> kv = KeyedVectors(3)
    >>> kv.add_vectors(["cat", "dog", "car"], np.array([[1, 0, 0], [0.9, 0.1, 0], [0, 0, 1]]))
    >>> kv.most_similar("cat", topn=1)[0][0]
    'dog'
    >>> kv["cow"] = np.array([0.8, 0.2, 0.0])
    >>> kv.index_to_key
    ['cat', 'dog', 'car', 'cow']
    >>> e = kv.to_embeddings()
    >>> e.most_similar("cat", topn=2) == kv.most_similar("cat", topn=2)
    True
    """

    def __init__(self, vector_size, count=0, dtype=np.float32, mapfile_path=None):
        super().__init__(vector_size, count=count, dtype=dtype, mapfile_path=mapfile_path)

    def get_index(self, key, default=None):
        """Row of ``key`` (an int below ``len(self)`` that is not a key is its own row).

        Raises
        ------
        UnknownWordError
            ``key`` is absent and no ``default`` is given (a KeyError, as gensim raises).
        """
        val = self.key_to_index.get(key, -1)
        if val >= 0:
            return val
        if isinstance(key, (int, np.integer)) and 0 <= key < len(self.index_to_key):
            return key
        if default is not None:
            return default
        raise UnknownWordError(key)

    # ----------------------------------------------------------------- mutation
    def add_vector(self, key, vector):
        """gensim's ``add_vector``; cached norms are dropped (gensim keeps them, stale)."""
        self.norms = None
        return super().add_vector(key, vector)

    def add_vectors(self, keys, weights, extras=None, replace=False):
        """gensim's ``add_vectors`` (and so ``kv[keys] = weights``); cached norms are dropped.

        gensim keeps its cached norms here, so a query after ``kv["word"] = v`` divides by the old
        norms (or fails on the new length); embgeo recomputes them on the next query.
        """
        self.norms = None
        super().add_vectors(keys, weights, extras=extras, replace=replace)

    # ------------------------------------------------------------------ loading
    @classmethod
    def load_word2vec_format(cls, fname, fvocab=None, binary=False, encoding="utf8", unicode_errors="strict",
                             limit=None, datatype=np.float32, no_header=False):
        """Load a word2vec text or binary file, as gensim's ``load_word2vec_format``.

        With gensim's default options (no ``fvocab``, UTF-8, ``unicode_errors="strict"``, a
        header line, float32 or float64) embgeo's compiled parser reads the file; the vectors are
        bit-identical to gensim's and, as gensim does without a vocabulary file, each word gets
        the made-up ``count`` ``len(kv) - row``. Every other combination, and any file embgeo's
        parser refuses (e.g. a duplicate word, which gensim skips with a warning), goes through
        gensim's own loader, so the result and the errors are gensim's.

        Parameters
        ----------
        fname : str or path
        fvocab : str, optional
            A ``word count`` file: counts become the ``"count"`` attribute.
        binary : bool, default False
        encoding : str, default "utf8"
        unicode_errors : {"strict", "replace", "ignore"}, default "strict"
        limit : int, optional
            Read at most this many vectors.
        datatype : NumPy dtype, default float32
        no_header : bool, default False
            The text file has no ``n_words dim`` first line (text only).

        Returns
        -------
        KeyedVectors
        """
        fast = (fvocab is None and not no_header and unicode_errors == "strict"
                and str(encoding).lower().replace("-", "").replace("_", "") == "utf8"
                and np.dtype(datatype) in (np.dtype(np.float32), np.dtype(np.float64))
                and (limit is None or int(limit) > 0)
                and os.path.isfile(fname) and not str(fname).endswith((".bz2", ".xz", ".zst")))
        if fast:
            from .io import FormatError, load

            try:
                e = load(fname, limit=limit, dtype=np.dtype(datatype).name,
                         format="word2vec_binary" if binary else "word2vec", progress=False)
            except FormatError:
                pass  # gensim accepts some files embgeo refuses; let gensim decide
            else:
                kv = cls._adopt(list(e.words), _owned_writable(e.vectors))
                n = len(kv.index_to_key)
                kv.expandos["count"] = np.arange(n, 0, -1, dtype=np.int64)
                kv.add_lifecycle_event(
                    "load_word2vec_format",
                    msg=f"loaded {kv.vectors.shape} matrix of type {kv.vectors.dtype} from {fname}",
                    binary=binary, encoding=encoding,
                )
                return kv
        return super().load_word2vec_format(
            fname, fvocab=fvocab, binary=binary, encoding=encoding, unicode_errors=unicode_errors,
            limit=limit, datatype=datatype, no_header=no_header,
        )

    @classmethod
    def load(cls, fname, mmap=None):
        """Load a KeyedVectors pickled by ``save`` (embgeo's or gensim's, old versions included).

        A plain gensim ``KeyedVectors`` comes back as this class; other gensim objects (a whole
        ``Word2Vec`` model, ``FastTextKeyedVectors``) come back as they are.
        """
        obj = super().load(fname, mmap=mmap)
        if type(obj) is GensimKeyedVectors:
            new = cls.__new__(cls)
            new.__dict__.update(obj.__dict__)
            obj = new
        return obj

    # ------------------------------------------------------------- Embeddings
    @classmethod
    def _adopt(cls, words, vectors):
        kv = cls(vectors.shape[1], 0, dtype=vectors.dtype)
        kv.index_to_key = words
        kv.key_to_index = {w: i for i, w in enumerate(words)}
        kv.vectors = vectors
        kv.next_index = len(words)
        return kv

    @classmethod
    def from_embeddings(cls, e) -> "KeyedVectors":
        """A KeyedVectors holding a copy of ``e``'s words, vectors (on CPU) and counts.

        Examples
        --------
        >>> import numpy as np
        >>> from embgeo import Embeddings, KeyedVectors
        >>> kv = KeyedVectors.from_embeddings(Embeddings(["a", "b"], np.eye(2), counts=[7, 3]))
        >>> int(kv.get_vecattr("b", "count")), kv.vectors.flags.writeable
        (3, True)
        """
        from . import backend as xb

        kv = cls._adopt(list(e.words), np.array(xb.to_numpy(e.vectors), copy=True))
        if e.counts is not None:
            kv.expandos["count"] = np.asarray(e.counts, dtype=np.int64).copy()
        return kv

    def to_embeddings(self, copy: bool = False):
        """An :class:`~embgeo.embeddings.Embeddings` of the current words, vectors and counts.

        Parameters
        ----------
        copy : bool, default False
            Without a copy the Embeddings shares this object's vector memory (read-only on its
            side): it assumes the rows do not change, so do not edit this KeyedVectors in place
            while you use it, or pass ``copy=True``. Adding keys replaces ``kv.vectors`` with a new
            array and leaves an earlier Embeddings untouched.

        Raises
        ------
        ValueError
            Preallocated rows not yet filled, or what :class:`Embeddings` refuses (NaN, ...).

        Examples
        --------
        >>> import numpy as np
        >>> kv = KeyedVectors(2)
        >>> kv.add_vectors(["a", "b"], np.eye(2))
        >>> e = kv.to_embeddings()
        >>> e.words, np.shares_memory(e.vectors, kv.vectors), e.vectors.flags.writeable
        (['a', 'b'], True, False)
        """
        from .embeddings import Embeddings

        n = len(self.index_to_key)
        if self.next_index < n and any(k is None for k in self.index_to_key[self.next_index:]):
            raise ValueError(f"only {self.next_index} of the {n} preallocated rows hold a key")
        vectors = self.vectors[:n]
        counts = None
        c = self.expandos.get("count")
        if c is not None and len(c) == n and c.dtype.kind in "iuf":
            counts = c.copy()
        return Embeddings(self.index_to_key, np.array(vectors, copy=True) if copy else vectors, counts)


def _owned_writable(a: np.ndarray) -> np.ndarray:
    """The writable array behind a read-only view that we alone hold (no copy), else a copy."""
    base = a.base
    if (type(base) is np.ndarray and base.flags.writeable and base.flags.owndata
            and base.shape == a.shape and base.dtype == a.dtype and base.ctypes.data == a.ctypes.data):
        return base
    return np.array(a, copy=True)
