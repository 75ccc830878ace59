"""The :class:`Embeddings` container: a vocabulary and its vectors, on CPU or GPU."""
from __future__ import annotations

from numbers import Integral
from typing import Iterable, Sequence

import numpy as np

from . import backend as xb
from .display import View
from .errors import UnknownWordError
from .kernels import readonly  # imports no Numba
from .vocabulary import Vocabulary, word_index

__all__ = ["Embeddings", "unwrap"]


class Embeddings(Vocabulary):
    """Word vectors with their vocabulary.

    An immutable value: methods that change vectors return a new object, so a normalisation
    chain never edits the embeddings you loaded, and ``e.vectors`` is a read-only view (NumPy), so
    cached unit vectors cannot go stale. The constructor does not copy ``vectors``: do not edit
    the array you passed in afterwards. The spellings follow gensim's ``KeyedVectors``
    (``e["word"]``, ``"word" in e``, ``e.most_similar(positive=..., negative=..., topn=...)``);
    :class:`embgeo.KeyedVectors` is the mutable, gensim-compatible class
    (``KeyedVectors.from_embeddings(e)``; ``e.to_gensim()`` gives gensim's own class).

    Parameters
    ----------
    words : sequence of str
        The vocabulary, unique, in row order (conventionally most frequent first).
    vectors : array, shape (n_words, dim)
        NumPy or CuPy (or any array-API) matrix; floating, finite. Integer input becomes float32.
    counts : array of int, shape (n_words,), optional
        Corpus frequencies, used by ``top`` and by methods that need a unigram distribution.
    output_vectors : array, shape (n_words, dim_out), optional
        A model's output (context) vectors, e.g. gensim's ``syn1neg`` or GloVe's context matrix;
        the alpha module needs them. Carried along by ``subset``/``top``/``to``.
    check_finite : bool, default True
        Refuse NaN and inf (the error names the word). With False (and after
        ``embgeo.load(..., mmap=True)``) the check is deferred, not dropped: every evaluation,
        search, diagnostic and fit calls :meth:`check_finite` before it reads the vectors.

    Raises
    ------
    ValueError
        Empty vocabulary, duplicate word (named), shape mismatch, NaN/inf (row and word named).

    Examples
    --------
    >>> import numpy as np
    >>> e = Embeddings(["cat", "dog", "car"], np.array([[1, 0], [0.9, 0.1], [0, 1]]))
    >>> e
    Embeddings(3 words, dim=2, float64, cpu)
    >>> e.index("dog"), "cow" in e
    (1, False)
    >>> [w for w, _ in e.most_similar("cat", topn=2)]
    ['dog', 'car']
    >>> e.vectors.flags.writeable
    False
    """

    # _first_nonfinite: -1 when the vectors are known finite, the first non-finite row once found,
    # None while unchecked (check_finite=False, a memory-mapped load)
    __slots__ = ("_words", "_vectors", "_counts", "_output_vectors", "_index", "_unit", "_first_nonfinite",
                 "__weakref__")

    def __init__(self, words: Sequence[str], vectors, counts=None, *, output_vectors=None,
                 check_finite: bool = True):
        words = [w if isinstance(w, str) else str(w) for w in words]
        if len(words) == 0:
            raise ValueError("empty vocabulary: an Embeddings needs at least one word")
        vectors = xb.asarray(vectors)
        if vectors.ndim != 2:
            raise ValueError(f"vectors must be 2-D (n_words, dim), got shape {tuple(vectors.shape)}")
        if vectors.shape[0] != len(words):
            raise ValueError(
                f"{len(words)} words but {vectors.shape[0]} vector rows: each word needs exactly one row"
            )
        if vectors.shape[1] == 0:
            raise ValueError("vectors have zero dimensions")
        index = word_index(words)
        if check_finite:
            _check_rows_finite(vectors, words, "vectors")
        if counts is not None:
            counts = np.asarray(xb.to_numpy(counts))
            # int64 or float64: unsigned counts would wrap under negation (top() sorts by -counts)
            counts = counts.astype(np.int64 if counts.dtype.kind in "iub" else np.float64)
            if counts.shape != (len(words),):
                raise ValueError(f"counts must have shape ({len(words)},), got {counts.shape}")
            if not np.all(np.isfinite(counts)) or np.any(counts < 0):
                raise ValueError("counts must be finite and non-negative")
        if output_vectors is not None:
            output_vectors = xb.asarray(output_vectors, like=vectors)
            if output_vectors.ndim != 2 or output_vectors.shape[0] != len(words):
                raise ValueError(
                    f"output_vectors must have shape ({len(words)}, d), got {tuple(output_vectors.shape)}"
                )
            if check_finite:
                _check_rows_finite(output_vectors, words, "output_vectors")
        self._words = words
        self._vectors = readonly(vectors)
        self._counts = counts
        self._output_vectors = None if output_vectors is None else readonly(output_vectors)
        self._index = index
        self._unit = None
        self._first_nonfinite = -1 if check_finite else None

    # ------------------------------------------------------------------ basics
    @property
    def vectors(self):
        """The (n_words, dim) matrix, NumPy or CuPy; a read-only view for NumPy.

        Derive new embeddings with :meth:`with_vectors`, or edit a mutable copy in
        :class:`embgeo.KeyedVectors`.
        """
        return self._vectors

    @property
    def counts(self):
        """Word counts (NumPy), or None."""
        return self._counts

    @property
    def output_vectors(self):
        """The model's output/context vectors, or None."""
        return self._output_vectors

    @property
    def dim(self) -> int:
        """Number of dimensions of the vectors (columns)."""
        return int(self._vectors.shape[1])

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_words, dim)``, the shape of :attr:`vectors`."""
        return (len(self._words), self.dim)

    @property
    def dtype(self):
        """The vectors' dtype (float32 unless the input was float64)."""
        return self._vectors.dtype

    @property
    def device(self) -> str:
        """``"cuda"`` when the vectors are a CuPy array, else ``"cpu"``."""
        return "cuda" if xb.is_cupy(self._vectors) else "cpu"

    def __repr__(self) -> str:
        extra = ", counts" if self._counts is not None else ""
        extra += ", output_vectors" if self._output_vectors is not None else ""
        return f"Embeddings({len(self)} words, dim={self.dim}, {self.dtype}, {self.device}{extra})"

    def _repr_html_(self) -> str:
        """The same facts as ``repr`` as a notebook table, with the first words."""
        rows = [["words", len(self)], ["dim", self.dim], ["dtype", str(self.dtype)], ["device", self.device],
                ["counts", self._counts is not None], ["output_vectors", self._output_vectors is not None],
                ["first words", ", ".join(self._words[:8]) + (", …" if len(self) > 8 else "")]]
        return View("Embeddings", rows).html()

    def __getitem__(self, word):
        """Vector of one word, or the (k, dim) matrix of a list of words.

        Rows are looked up by word only: ``e[3]`` is a TypeError (use ``e.vectors[3]``).
        """
        if isinstance(word, str):
            return self._vectors[self.index(word), ...]
        if isinstance(word, (Integral, slice)) or not isinstance(word, Iterable):
            raise TypeError(
                f"Embeddings are indexed by a word (str) or a list of words, not {type(word).__name__} "
                f"{word!r}; for rows by position use e.vectors[...] and e.words[...]"
            )
        return xb.take_rows(self._vectors, self.indices(word))

    # ------------------------------------------------------------ derivations
    def _take_rows(self, idx: np.ndarray) -> "Embeddings":
        vec = xb.take_rows(self._vectors, idx)
        out = None if self._output_vectors is None else xb.take_rows(self._output_vectors, idx)
        counts = None if self._counts is None else self._counts[idx]
        new = Embeddings([self._words[i] for i in idx], vec, counts, output_vectors=out, check_finite=False)
        return self._pass_finite(new)

    def _pass_finite(self, new: "Embeddings") -> "Embeddings":
        """``new``, marked finite when ``self`` is known to be (its rows are some of ours, or ours cast)."""
        if self._first_nonfinite == -1:
            new._first_nonfinite = -1
        return new

    def subset(self, words: Iterable[str], oov: str = "raise") -> "Embeddings":
        """A new Embeddings holding ``words`` in the given order.

        Counts and output vectors are carried along with their rows.

        Parameters
        ----------
        words : iterable of str
            The words to keep, in the order wanted.
        oov : {"raise", "skip"}, default "raise"
            A word not in the vocabulary raises :class:`~embgeo.errors.UnknownWordError`, or is
            dropped.

        Returns
        -------
        Embeddings
            The rows of ``words``.

        Raises
        ------
        UnknownWordError
            With ``oov="raise"``, a word is not in the vocabulary.
        ValueError
            ``oov="mark"``, or no word is left.

        See Also
        --------
        top : The most frequent words.
        intersect : Two embeddings restricted to their common words.
        """
        if oov == "mark":
            raise ValueError("subset() takes oov='raise' or 'skip'; 'mark' is for index lookups")
        idx = self.indices(list(words), oov=oov)
        if idx.size == 0:
            raise ValueError("subset is empty: none of the given words is in the vocabulary")
        return self._take_rows(idx)

    def top(self, n: int) -> "Embeddings":
        """The ``n`` most frequent words: by ``counts`` when present, else by row order.

        Parameters
        ----------
        n : int
            How many words to keep (all of them when ``n`` exceeds the vocabulary).

        Returns
        -------
        Embeddings
            The ``n`` words, most frequent first (equal counts in row order).

        Raises
        ------
        ValueError
            ``n`` is not positive.
        """
        n = int(n)
        if n <= 0:
            raise ValueError(f"n must be positive, got {n}")
        if self._counts is None:
            idx = np.arange(min(n, len(self)))
        else:
            # stable sort keeps row order among equal counts
            idx = np.argsort(-self._counts, kind="stable")[:n]
        return self._take_rows(idx)

    def intersect(self, other: "Embeddings") -> tuple["Embeddings", "Embeddings"]:
        """Restrict both to their common vocabulary, aligned row by row (in ``self``'s order).

        Parameters
        ----------
        other : Embeddings
            The other space (its dimension may differ).

        Returns
        -------
        tuple of (Embeddings, Embeddings)
            ``self`` and ``other`` restricted to the words they share, row ``i`` of both holding the
            same word.

        Raises
        ------
        ValueError
            The vocabularies share no word.
        """
        common = [w for w in self._words if w in other._index]
        if not common:
            raise ValueError("the two vocabularies share no word")
        return self.subset(common), other.subset(common)

    def with_vectors(self, vectors, *, check_finite: bool = True) -> "Embeddings":
        """The same vocabulary (and counts) with new vectors, e.g. after a transform.

        The word index is shared, not rebuilt, so this costs only the checks on ``vectors``.
        Output vectors are dropped: they belong to the original input space.

        Parameters
        ----------
        vectors : array, shape (n_words, d)
            NumPy or CuPy matrix, one row per word in the same order; ``d`` may differ from
            :attr:`dim`. Not copied.
        check_finite : bool, default True
            Refuse NaN and inf now; with False the check is deferred (see :meth:`check_finite`).

        Returns
        -------
        Embeddings
            The same words and counts with ``vectors``.

        Raises
        ------
        ValueError
            ``vectors`` is not 2-D with one row per word, or (with ``check_finite``) holds NaN or inf.
        """
        vectors = xb.asarray(vectors)
        if vectors.ndim != 2 or vectors.shape[0] != len(self._words) or vectors.shape[1] == 0:
            raise ValueError(
                f"new vectors must have shape ({len(self._words)}, d), got {tuple(vectors.shape)}"
            )
        if check_finite:
            _check_rows_finite(vectors, self._words, "vectors")
        new = object.__new__(Embeddings)
        new._words, new._index, new._counts = self._words, self._index, self._counts
        new._vectors, new._output_vectors, new._unit = readonly(vectors), None, None
        new._first_nonfinite = -1 if check_finite else None
        return new

    def to(self, device: str) -> "Embeddings":
        """Copy to ``"cpu"`` (NumPy) or ``"cuda"`` (CuPy).

        Parameters
        ----------
        device : {"cpu", "cuda"}
            Where the vectors (and output vectors) go.

        Returns
        -------
        Embeddings
            The same words with vectors on ``device``.

        See Also
        --------
        embgeo.to_device : The same for an array.
        """
        vec = xb.to_device(self._vectors, device)
        out = None if self._output_vectors is None else xb.to_device(self._output_vectors, device)
        return self._pass_finite(Embeddings(self._words, vec, self._counts, output_vectors=out, check_finite=False))

    def astype(self, dtype) -> "Embeddings":
        """The same words with vectors cast to ``dtype`` (``"float32"`` or ``"float64"``).

        Parameters
        ----------
        dtype : str or dtype
            ``"float32"`` or ``"float64"`` (or the NumPy/CuPy dtype).

        Returns
        -------
        Embeddings
            The same words, counts and output vectors, cast.

        Raises
        ------
        ValueError
            A finite value beyond the range of ``dtype`` (float32: about ±3.4e38) would become inf;
            the first such word is named.
        """
        xp = xb.get_namespace(self._vectors)
        dt = xb.resolve_dtype(dtype, xp)
        cast = []
        for name, M in (("vectors", self._vectors), ("output_vectors", self._output_vectors)):
            if M is not None:
                with np.errstate(over="ignore"):
                    C = xp.astype(M, dt)
                _check_cast(M, C, self._words, name)
            cast.append(None if M is None else C)
        # _check_cast refused any finite value made infinite, so a finite matrix stays finite
        return self._pass_finite(
            Embeddings(self._words, cast[0], self._counts, output_vectors=cast[1], check_finite=False))

    def check_finite(self, rows=None) -> None:
        """Raise ValueError if a row of the vectors holds NaN or inf, naming its word and row.

        What stands between a non-finite row and a score: embgeo's evaluations, neighbour
        searches, diagnostics and fits call it before they read the vectors. Embeddings built with
        ``check_finite=True`` (the default) pass at once. The others (``check_finite=False``,
        ``embgeo.load(..., mmap=True)``) are scanned once, block by block (the memory of one block,
        never a copy of the matrix), and the answer is kept on this immutable object, so later
        calls cost nothing.

        Parameters
        ----------
        rows : int array, optional
            Check only these rows (negative entries, the "missing word" mark of :meth:`indices`,
            are ignored): what an evaluation reading a few hundred rows of a memory-mapped
            matrix calls, so that the file is not read whole. Not kept.

        Raises
        ------
        ValueError
            ``row 1234 ('tiger') of the embeddings has a non-finite value (nan)``, the first such row.

        Examples
        --------
        >>> import numpy as np
        >>> e = Embeddings(["cat", "dog"], np.array([[1.0, 0.0], [np.nan, 1.0]]), check_finite=False)
        >>> e.check_finite(rows=np.array([0]))
        >>> e.check_finite()
        Traceback (most recent call last):
        ...
        ValueError: row 1 ('dog') of the embeddings has a non-finite value (nan): no score is computed from it; drop the word (Embeddings.subset) or repair its vector (Embeddings.with_vectors)
        """
        bad = self._first_nonfinite
        if bad == -1:
            return
        if rows is None:
            if bad is None:
                bad = self._first_nonfinite = _first_nonfinite_row(self._vectors)
            if bad >= 0:
                _raise_nonfinite(self._vectors, self._words, bad)
            return
        rows = np.asarray(xb.to_numpy(rows), dtype=np.int64).ravel()
        rows = rows[rows >= 0]
        if bad is not None:  # the first bad row is known: only it, or a later one, can be among rows
            rows = rows[rows >= bad]
        if rows.size == 0:
            return
        sub = _first_nonfinite_row(xb.take_rows(self._vectors, rows))
        if sub >= 0:
            _raise_nonfinite(self._vectors, self._words, int(rows[sub]))

    def normalize(self, *steps: str) -> "Embeddings":
        """Apply VecMap normalisation steps in order and return a new Embeddings.

        Parameters
        ----------
        *steps : str
            ``"unit"`` (rows to unit length), ``"center"`` (subtract the mean word vector),
            ``"unitdim"`` (columns to unit length), ``"centeremb"`` (subtract each row's own mean) or
            ``"none"``, applied left to right (VecMap's ``--normalize``; Artetxe et al. 2018).

        Returns
        -------
        Embeddings
            The same words with normalised vectors (output vectors dropped).

        See Also
        --------
        embgeo.normalize.normalize : The same on an array.
        """
        from .normalize import normalize

        return self.with_vectors(normalize(self._vectors, *steps), check_finite=False)

    @property
    def unit_vectors(self):
        """Rows scaled to unit length (zero rows stay zero): a full copy, made on first access and cached.

        embgeo's own cosine code never asks for it (:meth:`similarity`, :meth:`most_similar`,
        neighbour search and the analogy evaluation keep n inverse row norms instead).
        """
        if self._unit is None:
            from .normalize import normalize

            self._unit = normalize(self._vectors, "unit")
        return self._unit

    # --------------------------------------------------------- similarities
    def similarity(self, w1: str, w2: str) -> float:
        """Cosine similarity of two words, in float64 from their two rows (0 if either is zero).

        Reads the two rows only: no unit-length copy of the vectors is made or kept.

        Parameters
        ----------
        w1, w2 : str
            Two words of the vocabulary.

        Returns
        -------
        float
            Their cosine similarity, in [-1, 1].

        Raises
        ------
        UnknownWordError
            A word is not in the vocabulary.

        See Also
        --------
        similarity_pairs : Many pairs at once.
        """
        i, j = np.array([self.index(w1)]), np.array([self.index(w2)])
        self.check_finite(np.concatenate([i, j]))
        return float(_row_products(self._vectors, i, j, cosine=True)[0])

    def similarity_pairs(self, words1: Sequence[str], words2: Sequence[str], measure: str | None = None):
        """Similarities of aligned word pairs as a NumPy float64 array (the evaluation protocol).

        ``measure`` is None or ``"cosine"`` (the default) or ``"dot"``. Other geometries
        (fuzzy sets, alpha embeddings) implement the same method with their own measures.
        Computed in float64 from the rows of the pairs, a block of pairs at a time (a zero row
        has cosine 0): the cost and memory follow the number of pairs, not the vocabulary.

        Parameters
        ----------
        words1, words2 : sequence of str
            The pairs' first and second words, aligned (same length).
        measure : {"cosine", "dot"}, optional
            The similarity; None means ``"cosine"``.

        Returns
        -------
        numpy.ndarray of float64, shape (n_pairs,)
            The similarity of ``words1[i]`` and ``words2[i]``.

        Raises
        ------
        UnknownWordError
            A word is not in the vocabulary.
        ValueError
            An unknown ``measure``, or word lists of different lengths.
        """
        measure = measure or "cosine"
        if measure not in ("cosine", "dot"):
            raise ValueError(f"measure must be 'cosine' or 'dot' for Embeddings, got {measure!r}")
        i, j = self.indices(words1), self.indices(words2)
        if len(i) != len(j):
            raise ValueError(f"word lists differ in length ({len(i)} vs {len(j)}): pairs must be aligned")
        self.check_finite(np.concatenate([i, j]))
        return _row_products(self._vectors, i, j, cosine=measure == "cosine")

    def neighbors(self, queries, k: int = 10, metric: str = "cosine", backend="exact",
                  exclude_self: bool = True, **kwargs):
        """k nearest words of each query word (or query vector), as (scores, indices).

        ``queries`` is a word, a list of words, or a (q, dim) matrix. Query words are excluded from
        their own lists unless ``exclude_self=False``. See :func:`embgeo.neighbors.search`;
        ``backend`` names the engine or gives an engine object with its options
        (:class:`~embgeo.neighbors.Exact`, :class:`~embgeo.neighbors.Faiss`,
        :class:`~embgeo.neighbors.Dask`, :class:`~embgeo.neighbors.Cuda`): ``backend="dask"`` runs the
        search on the current Dask client, the vectors sharded by rows across its workers (same results).

        Parameters
        ----------
        queries : str, list of str, or array of shape (q, dim)
            Query words or vectors.
        k : int, default 10
            Neighbours per query.
        metric : {"cosine", "dot", "csls", "isf"}, default "cosine"
            The score (see :func:`embgeo.neighbors.search`).
        backend : {"exact", "faiss", "dask", "cuda"} or engine object, default "exact"
            The engine that searches, with its options on an engine object.
        exclude_self : bool, default True
            Drop each query word from its own list (ignored for vector queries).
        **kwargs
            Passed on to :func:`embgeo.neighbors.search` (``memory_budget``, ``progress``, ...).

        Returns
        -------
        scores : array, shape (q, k)
            Best first (NumPy, or CuPy on the GPU).
        indices : array of int, shape (q, k)
            The neighbours' rows; :meth:`words_at` turns them into words.
        """
        from .neighbors import search

        return search(self, queries, k=k, metric=metric, backend=backend, exclude_self=exclude_self, **kwargs)

    def most_similar(self, positive=None, negative=None, topn: int | None = 10, clip_start: int = 0,
                     clip_end: int | None = None, restrict_vocab: int | None = None, indexer=None):
        """gensim's ``KeyedVectors.most_similar``, with gensim's semantics: :func:`embgeo.neighbors.most_similar`.

        The query is the weighted mean of the entries of ``positive`` (weight +1) and ``negative``
        (weight −1), divided by the sum of the absolute weights and scaled to unit length. Words
        (and integer rows) enter as unit vectors, raw vectors as given (not normalised). A
        ``(key, weight)`` tuple's weight replaces the list's sign, in either list, as in gensim:
        ``("man", 1.0)`` in ``negative`` *adds* man, ``("man", -1.0)`` subtracts it. Words are
        ranked by cosine over rows ``clip_start:clip_end`` (``restrict_vocab=n`` overrides both
        with ``0:n``), the input words excluded.

        Parameters
        ----------
        positive, negative : str, int, vector, (key, weight) tuple, or a list of them, optional
            The entries added to and subtracted from the query.
        topn : int or None, default 10
            How many words; None gives the cosines to every row of the clipped range as an array.
        clip_start : int, default 0
            First row searched.
        clip_end : int, optional
            End (exclusive) of the rows searched; None means the whole vocabulary.
        restrict_vocab : int, optional
            Search rows ``0:restrict_vocab`` only (overrides ``clip_start`` and ``clip_end``).
        indexer : object with ``most_similar(vector, topn)``, optional
            An approximate index (e.g. gensim's ``AnnoyIndexer``), used as gensim does.

        Returns
        -------
        list of (str, float), or numpy.ndarray when ``topn`` is None
            Words and cosines, best first (ties to the lower row).

        Raises
        ------
        UnknownWordError
            A word is not in the vocabulary.
        ValueError
            No positive or negative entry, or a vector of the wrong dimension.

        See Also
        --------
        embgeo.neighbors.most_similar : The implementation.
        neighbors : The k nearest neighbours of many queries.

        Examples
        --------
        >>> import numpy as np
        >>> e = Embeddings(["king", "queen", "man", "woman", "car"],
        ...                np.array([[1, 1, 0], [1, 0, 1], [0, 1, 0], [0, 0, 1], [-1, 0, 0]]))
        >>> [(w, round(s, 4)) for w, s in e.most_similar(positive=["king", "woman"], negative=["man"], topn=2)]
        [('queen', 0.9586), ('car', -0.5615)]
        """
        from .neighbors import most_similar

        return most_similar(self, positive, negative, topn=topn, clip_start=clip_start, clip_end=clip_end,
                            restrict_vocab=restrict_vocab, indexer=indexer)

    # ----------------------------------------------------------- interop
    @classmethod
    def from_gensim(cls, model) -> "Embeddings":
        """From a gensim ``KeyedVectors``, ``Word2Vec`` or ``FastText`` model.

        A ``Word2Vec`` trained with negative sampling keeps its output vectors (``syn1neg``) as
        ``output_vectors``; counts come from the vocabulary's ``"count"`` attribute when present.

        Parameters
        ----------
        model : gensim.models.KeyedVectors, Word2Vec or FastText
            The model (its ``wv`` when it has one).

        Returns
        -------
        Embeddings
            A copy of the words, vectors, counts and output vectors.

        See Also
        --------
        to_gensim : The way back.
        """
        kv = getattr(model, "wv", model)
        words = list(kv.index_to_key)
        counts = None
        try:
            c = np.array([kv.get_vecattr(w, "count") for w in words], dtype=np.int64)
            if c.any():
                counts = c
        except (KeyError, AttributeError):
            counts = None
        out = getattr(model, "syn1neg", None)
        if out is not None and getattr(out, "shape", (0,))[0] != len(words):
            out = None
        return cls(words, np.asarray(kv.vectors), counts, output_vectors=out)

    def to_gensim(self):
        """gensim's own ``KeyedVectors`` with a copy of the words, vectors (on CPU) and counts.

        The genuine gensim class, so that results can be compared with gensim's
        implementation; :meth:`embgeo.KeyedVectors.from_embeddings` gives embgeo's subclass.

        Returns
        -------
        gensim.models.KeyedVectors
            A new gensim object (gensim must be installed).

        See Also
        --------
        from_gensim : The way back.
        """
        from gensim.models import KeyedVectors

        kv = KeyedVectors(self.dim, count=0, dtype=np.dtype(self.dtype))
        kv.index_to_key = list(self.words)
        kv.key_to_index = {w: i for i, w in enumerate(kv.index_to_key)}
        kv.vectors = np.array(xb.to_numpy(self.vectors), copy=True)
        kv.next_index = len(self)
        if self.counts is not None:
            kv.expandos["count"] = np.asarray(self.counts, dtype=np.int64).copy()
        return kv


def _row_products(M, i, j, *, cosine: bool, block: int = 8192) -> np.ndarray:
    """float64 dot products (or cosines, 0 where a row is zero) of rows ``i[k]`` and ``j[k]`` of ``M``.

    Blocks of ``block`` pairs: the temporaries are a few float64 blocks of rows, whatever ``M``'s size.
    """
    xp = xb.get_namespace(M)
    out = np.empty(len(i), dtype=np.float64)
    for s in range(0, len(i), block):
        a, b = i[s:s + block], j[s:s + block]
        A = xp.astype(xb.take_rows(M, a), xp.float64)
        B = xp.astype(xb.take_rows(M, b), xp.float64)
        p = xp.sum(A * B, axis=1)
        if cosine:
            nn = xp.sqrt(xp.sum(A * A, axis=1)) * xp.sqrt(xp.sum(B * B, axis=1))
            p = xp.where(nn > 0, p / xp.where(nn > 0, nn, 1.0), xp.zeros_like(p))
        out[s:s + len(a)] = xb.to_numpy(p)
    return out


def _check_cast(M, C, words, name):
    """Refuse a cast ``C`` of ``M`` that made a finite value infinite (float64 beyond float32's range)."""
    xp = xb.get_namespace(C)
    if M.dtype == C.dtype or bool(xp.all(xp.isfinite(C))):
        return
    overflow = xp.any(xp.isfinite(M) & ~xp.isfinite(C), axis=1)
    if bool(xp.any(overflow)):
        row = int(np.flatnonzero(xb.to_numpy(overflow))[0])
        big = float(xp.max(xp.abs(xp.where(xp.isfinite(M[row]), M[row], 0))))
        dt = xb.to_numpy(C[:0]).dtype
        raise ValueError(f"{name} of {words[row]!r} (row {row}) hold {big:.3g}, beyond the range of {dt} "
                         f"(largest {float(np.finfo(dt).max):.3g}): the cast would give inf; scale the vectors first")


def _first_nonfinite_row(M, block_bytes: int = 1 << 20) -> int:
    """Index of ``M``'s first row holding NaN or inf, or -1; read a block of rows at a time.

    A row's float64 sum of squares is finite exactly when its values are, unless they pass
    about 1e154 (the sum overflows): only then is the block's row read again value by value.
    NumPy sums through einsum's small buffer, so the temporaries are a row statistic per block.
    """
    n, d = M.shape
    xp = xb.get_namespace(M)
    if xb.is_dask(M):  # one graph over the chunks (a compute per block would cost a round trip each)
        bad = np.flatnonzero(~np.asarray(xp.all(xp.isfinite(M), axis=1)))
        return int(bad[0]) if bad.size else -1
    step = max(1, block_bytes // max(1, d * getattr(M.dtype, "itemsize", 8)))  # array-API dtypes have none
    is_np = xb.is_numpy(M)
    for s in range(0, n, step):
        B = M[s:min(s + step, n), ...]
        if is_np:
            sq = np.einsum("ij,ij->i", B, B, dtype=np.float64)
        else:
            B64 = xp.astype(B, xp.float64)
            sq = xp.sum(B64 * B64, axis=1)
        if bool(xp.all(xp.isfinite(sq))):
            continue
        for r in np.flatnonzero(~np.isfinite(xb.to_numpy(sq))):
            if not bool(xp.all(xp.isfinite(B[int(r), ...]))):
                return s + int(r)
    return -1


def _raise_nonfinite(M, words, row: int, name: str = "vectors"):
    values = np.asarray(xb.to_numpy(M[row, ...]), dtype=np.float64)
    value = "nan" if np.isnan(values).any() else "inf" if (values == np.inf).any() else "-inf"
    what = "embeddings" if name == "vectors" else name
    raise ValueError(f"row {row} ({words[row]!r}) of the {what} has a non-finite value ({value}): "
                     "no score is computed from it; drop the word (Embeddings.subset) or repair its vector "
                     "(Embeddings.with_vectors)")


def _check_rows_finite(M, words, name):
    row = _first_nonfinite_row(M)
    if row >= 0:
        _raise_nonfinite(M, words, row, name)


def unwrap(e, name: str = "e"):
    """``(matrix, wrap)`` where ``wrap(Y)`` gives back the caller's kind (Embeddings or array).

    What a function that accepts either an :class:`Embeddings` or a matrix calls at its door.

    Parameters
    ----------
    e : Embeddings or array, shape (n, d)
        The caller's input.
    name : str, default "e"
        The argument's name, for error messages.

    Returns
    -------
    matrix : array, shape (n, d)
        The vectors (NumPy, CuPy or another array-API array).
    wrap : callable
        ``wrap(Y)`` returns ``e.with_vectors(Y)`` for an Embeddings, ``Y`` itself for an array.

    Raises
    ------
    ValueError
        ``e`` is not 2-D, or has no rows or no columns; an Embeddings has a non-finite row
        (:meth:`Embeddings.check_finite`).
    """
    if isinstance(e, Embeddings):
        e.check_finite()
        return e.vectors, lambda Y: e.with_vectors(Y, check_finite=False)
    X = xb.asarray(e)
    if X.ndim != 2:
        raise ValueError(f"{name} must be an Embeddings or a 2-D array (n_words, dim); "
                         f"expected ndim to be 2, but observed {X.ndim}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {tuple(X.shape)})")
    return X, lambda Y: Y
