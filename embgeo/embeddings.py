"""The :class:`Embeddings` container: a vocabulary and its vectors, on CPU or GPU."""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from . import backend
from .errors import UnknownWordError

__all__ = ["Embeddings"]


class Embeddings:
    """Word vectors with their vocabulary.

    An immutable-ish value: methods that change vectors return a new object, so a normalisation
    chain never edits the embeddings you loaded. The spellings follow gensim's ``KeyedVectors``
    (``e["word"]``, ``"word" in e``, ``e.most_similar(positive=..., negative=..., topn=...)``).

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
        Refuse NaN and inf (the error names the word).

    Raises
    ------
    ValueError
        Empty vocabulary, duplicate word (named), shape mismatch, NaN/inf (row and word named).
    """

    __slots__ = ("_words", "_vectors", "_counts", "_output_vectors", "_index", "_unit", "__weakref__")

    def __init__(self, words: Sequence[str], vectors, counts=None, *, output_vectors=None,
                 check_finite: bool = True):
        words = [w if isinstance(w, str) else str(w) for w in words]
        if len(words) == 0:
            raise ValueError("empty vocabulary: an Embeddings needs at least one word")
        vectors = backend.asarray(vectors)
        if vectors.ndim != 2:
            raise ValueError(f"vectors must be 2-D (n_words, dim), got shape {tuple(vectors.shape)}")
        if vectors.shape[0] != len(words):
            raise ValueError(
                f"{len(words)} words but {vectors.shape[0]} vector rows: each word needs exactly one row"
            )
        if vectors.shape[1] == 0:
            raise ValueError("vectors have zero dimensions")
        index = {}
        for i, w in enumerate(words):
            if index.setdefault(w, i) != i:
                raise ValueError(f"duplicate word {w!r} at rows {index[w]} and {i}")
        if check_finite:
            _check_rows_finite(vectors, words, "vectors")
        if counts is not None:
            counts = np.asarray(backend.to_numpy(counts))
            # int64 or float64: unsigned counts would wrap under negation (top() sorts by -counts)
            counts = counts.astype(np.int64 if counts.dtype.kind in "iub" else np.float64)
            if counts.shape != (len(words),):
                raise ValueError(f"counts must have shape ({len(words)},), got {counts.shape}")
            if not np.all(np.isfinite(counts)) or np.any(counts < 0):
                raise ValueError("counts must be finite and non-negative")
        if output_vectors is not None:
            output_vectors = backend.asarray(output_vectors, like=vectors)
            if output_vectors.ndim != 2 or output_vectors.shape[0] != len(words):
                raise ValueError(
                    f"output_vectors must have shape ({len(words)}, d), got {tuple(output_vectors.shape)}"
                )
            if check_finite:
                _check_rows_finite(output_vectors, words, "output_vectors")
        self._words = words
        self._vectors = vectors
        self._counts = counts
        self._output_vectors = output_vectors
        self._index = index
        self._unit = None

    # ------------------------------------------------------------------ basics
    @property
    def words(self) -> list[str]:
        """The vocabulary in row order (a list; do not modify it in place)."""
        return self._words

    @property
    def vectors(self):
        """The (n_words, dim) matrix, NumPy or CuPy."""
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
        return int(self._vectors.shape[1])

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self._words), self.dim)

    @property
    def dtype(self):
        return self._vectors.dtype

    @property
    def device(self) -> str:
        return "cuda" if backend.is_cupy(self._vectors) else "cpu"

    def __len__(self) -> int:
        return len(self._words)

    def __contains__(self, word) -> bool:
        return word in self._index

    def __iter__(self):
        return iter(self._words)

    def __repr__(self) -> str:
        extra = ", counts" if self._counts is not None else ""
        extra += ", output_vectors" if self._output_vectors is not None else ""
        return f"Embeddings({len(self)} words, dim={self.dim}, {self.dtype}, {self.device}{extra})"

    def __getitem__(self, word):
        """Vector of one word, or the (k, dim) matrix of a list of words."""
        if isinstance(word, str):
            return self._vectors[self.index(word), ...]
        return backend.take_rows(self._vectors, self.indices(word))

    def index(self, word: str) -> int:
        """Row of ``word``; :class:`~embgeo.errors.UnknownWordError` (a KeyError) names it if absent."""
        try:
            return self._index[word]
        except KeyError:
            raise UnknownWordError(word) from None

    def indices(self, words: Iterable[str], missing: str = "raise") -> np.ndarray:
        """Rows of ``words`` as an int64 NumPy array.

        Parameters
        ----------
        missing : {"raise", "skip", "mark"}
            Unknown words raise :class:`~embgeo.errors.UnknownWordError` naming the first one
            (and how many are missing), are dropped, or are marked with -1.
        """
        if missing not in ("raise", "skip", "mark"):
            raise ValueError(f"missing must be 'raise', 'skip' or 'mark', got {missing!r}")
        if isinstance(words, str):
            raise TypeError("indices() takes a sequence of words; use index() for one word")
        words = list(words)  # a generator would be spent before the error message needs it
        get = self._index.get
        idx = np.fromiter((get(w, -1) for w in words), dtype=np.int64)
        if missing == "mark":
            return idx
        bad = idx < 0
        if bad.any():
            if missing == "raise":
                first = words[int(np.flatnonzero(bad)[0])]
                raise UnknownWordError(first, n_missing=int(bad.sum()))
            idx = idx[~bad]
        return idx

    # ------------------------------------------------------------ derivations
    def _take_rows(self, idx: np.ndarray) -> "Embeddings":
        vec = backend.take_rows(self._vectors, idx)
        out = None if self._output_vectors is None else backend.take_rows(self._output_vectors, idx)
        counts = None if self._counts is None else self._counts[idx]
        return Embeddings([self._words[i] for i in idx], vec, counts, output_vectors=out, check_finite=False)

    def subset(self, words: Iterable[str], missing: str = "raise") -> "Embeddings":
        """A new Embeddings holding ``words`` in the given order."""
        idx = self.indices(list(words), missing=missing)
        if idx.size == 0:
            raise ValueError("subset is empty: none of the given words is in the vocabulary")
        return self._take_rows(idx)

    def top(self, n: int) -> "Embeddings":
        """The ``n`` most frequent words: by ``counts`` when present, else by row order."""
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
        """Restrict both to their common vocabulary, aligned row by row (in ``self``'s order)."""
        common = [w for w in self._words if w in other._index]
        if not common:
            raise ValueError("the two vocabularies share no word")
        return self.subset(common), other.subset(common)

    def with_vectors(self, vectors, *, check_finite: bool = True) -> "Embeddings":
        """The same vocabulary (and counts) with new vectors, e.g. after a transform.

        The word index is shared, not rebuilt, so this costs only the checks on ``vectors``.
        Output vectors are dropped: they belong to the original input space.
        """
        vectors = backend.asarray(vectors)
        if vectors.ndim != 2 or vectors.shape[0] != len(self._words) or vectors.shape[1] == 0:
            raise ValueError(
                f"new vectors must have shape ({len(self._words)}, d), got {tuple(vectors.shape)}"
            )
        if check_finite:
            _check_rows_finite(vectors, self._words, "vectors")
        new = object.__new__(Embeddings)
        new._words, new._index, new._counts = self._words, self._index, self._counts
        new._vectors, new._output_vectors, new._unit = vectors, None, None
        return new

    def to(self, device: str) -> "Embeddings":
        """Copy to ``"cpu"`` (NumPy) or ``"cuda"`` (CuPy)."""
        vec = backend.to_device(self._vectors, device)
        out = None if self._output_vectors is None else backend.to_device(self._output_vectors, device)
        return Embeddings(self._words, vec, self._counts, output_vectors=out, check_finite=False)

    def astype(self, dtype) -> "Embeddings":
        xp = backend.get_namespace(self._vectors)
        dt = backend.resolve_dtype(dtype, xp)
        out = None if self._output_vectors is None else xp.astype(self._output_vectors, dt)
        return Embeddings(self._words, xp.astype(self._vectors, dt), self._counts, output_vectors=out,
                          check_finite=False)

    def normalize(self, *steps: str) -> "Embeddings":
        """Apply VecMap normalisation steps in order (``"unit"``, ``"center"``, ``"unitdim"``,
        ``"centeremb"``, ``"none"``) and return a new Embeddings; see :mod:`embgeo.normalize`."""
        from .normalize import normalize

        return self.with_vectors(normalize(self._vectors, *steps), check_finite=False)

    @property
    def unit_vectors(self):
        """Rows scaled to unit length (cached; zero rows stay zero)."""
        if self._unit is None:
            from .normalize import normalize

            self._unit = normalize(self._vectors, "unit")
        return self._unit

    # --------------------------------------------------------- similarities
    def similarity(self, w1: str, w2: str) -> float:
        """Cosine similarity of two words."""
        U = self.unit_vectors
        xp = backend.get_namespace(U)
        return float(xp.sum(U[self.index(w1), ...] * U[self.index(w2), ...]))

    def similarity_pairs(self, words1: Sequence[str], words2: Sequence[str], measure: str | None = None):
        """Similarities of aligned word pairs as a NumPy float64 array (the evaluation protocol).

        ``measure`` is None or ``"cosine"`` (the default) or ``"dot"``. Other geometries
        (fuzzy sets, alpha embeddings) implement the same method with their own measures.
        """
        measure = measure or "cosine"
        if measure not in ("cosine", "dot"):
            raise ValueError(f"measure must be 'cosine' or 'dot' for Embeddings, got {measure!r}")
        M = self.unit_vectors if measure == "cosine" else self._vectors
        xp = backend.get_namespace(M)
        i, j = self.indices(words1), self.indices(words2)
        if len(i) != len(j):
            raise ValueError(f"word lists differ in length ({len(i)} vs {len(j)}): pairs must be aligned")
        if not backend.is_numpy(M):
            i, j = xp.asarray(i), xp.asarray(j)
        s = xp.sum(xp.take(M, i, axis=0) * xp.take(M, j, axis=0), axis=1)
        return backend.to_numpy(s).astype(np.float64)

    def neighbors(self, queries, k: int = 10, metric: str = "cosine", backend: str = "exact",
                  exclude_self: bool = True, **kwargs):
        """k nearest words of each query word (or query vector), as (scores, indices).

        ``queries`` is a word, a list of words, or a (q, dim) matrix. Query words are excluded from
        their own lists unless ``exclude_self=False``. See :func:`embgeo.neighbors.search`.
        """
        from .neighbors import search

        return search(self, queries, k=k, metric=metric, backend=backend, exclude_self=exclude_self, **kwargs)

    def most_similar(self, positive=(), negative=(), topn: int | None = 10, restrict_vocab: int | None = None):
        """gensim's ``most_similar``: cosine neighbours of the mean of unit vectors
        (positives added, negatives subtracted), input words excluded; list of (word, score)."""
        from .neighbors import most_similar

        return most_similar(self, positive=positive, negative=negative, topn=topn, restrict_vocab=restrict_vocab)

    # ----------------------------------------------------------- interop
    @classmethod
    def from_gensim(cls, model) -> "Embeddings":
        """From a gensim ``KeyedVectors``, ``Word2Vec`` or ``FastText`` model.

        A ``Word2Vec`` trained with negative sampling keeps its output vectors (``syn1neg``) as
        ``output_vectors``; counts come from the vocabulary's ``"count"`` attribute when present.
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
        """A gensim ``KeyedVectors`` with the same words, vectors (on CPU) and counts."""
        from gensim.models import KeyedVectors

        vec = backend.to_numpy(self._vectors)
        kv = KeyedVectors(vector_size=vec.shape[1], count=0, dtype=vec.dtype)
        kv.add_vectors(self._words, vec)
        if self._counts is not None:
            kv.allocate_vecattrs(attrs=["count"], types=[np.int64])
            kv.expandos["count"][:] = np.asarray(self._counts, dtype=np.int64)
        return kv


def _check_rows_finite(M, words, name):
    xp = backend.get_namespace(M)
    ok = xp.all(xp.isfinite(M), axis=1)
    if not bool(xp.all(ok)):
        row = int(np.flatnonzero(~backend.to_numpy(ok))[0])
        raise ValueError(f"{name} hold NaN or inf: first at row {row} (word {words[row]!r})")
