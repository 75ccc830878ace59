"""Quantised embeddings: float16, int8, binary and vocabulary k-means codes that every evaluator reads.

:func:`quantize` compresses an :class:`~embgeo.embeddings.Embeddings` the ways static models are
shipped today and returns a :class:`QuantizedEmbeddings`, which *is* an Embeddings (a subclass):
the evaluators, diagnostics and searches take it as they take any other. It stores only the
codes and their decoding parameters (:attr:`~QuantizedEmbeddings.nbytes`); float32 rows are
decoded when they are read:

* row-wise readers (word similarity pairs, ``e["word"]``, :meth:`~QuantizedEmbeddings.subset`,
  analogy questions' rows) decode only their rows;
* vocabulary-wide readers (neighbour search, hubness, isotropy, ...) read ``e.vectors``, which is
  decoded block by block into a float32 matrix *for that call* and not kept: at rest the object
  holds the codes alone. :meth:`~QuantizedEmbeddings.dequantize` gives a float32 Embeddings to keep.

The schemes and their references:

* ``"float16"``: a cast (model2vec's ``quantize_embeddings(..., DType.Float16)``).
* ``"int8"``: sentence-transformers' ``quantize_embeddings(x, "int8", calibration_embeddings=C)``
  (``sentence_transformers/util/quantization.py``, release 6.2): per dimension j, start_j = min C_j,
  step_j = (max C_j − min C_j)/255 (1 where that is 0), code = clip(⌊(x_j − start_j)/step_j⌋, 0, 255)
  − 128, in float32. Values outside the calibration range are clipped, as there, with a warning
  naming the clipped share. Decoded as start_j + (code + 128)·step_j (its ``_dequantize_embeddings``).
* ``"binary"``: the sign bits ``x > 0`` packed with ``np.packbits`` along each row
  (sentence-transformers' ``"ubinary"``; FAISS ``IndexBinaryFlat`` reads the same bytes). A
  dimension that is not a multiple of 8 is padded with zero bits, which add nothing to a Hamming
  distance. Decoded as ±1 per dimension, so the cosine of two decoded rows is 1 − 2·h/d (h their
  Hamming distance).
* ``("kmeans", n_clusters)``: model2vec's vocabulary quantisation
  (``model2vec/vocabulary_quantization.py``): rows scaled to unit length (norm + 1e-32 kept as the
  token's weight), scikit-learn ``KMeans(n_clusters, random_state=42, init="random")`` on float32,
  every token mapped to its predicted cluster; a token decodes as weight × its cluster's centre.

Search on the codes is exact and compiled: :meth:`QuantizedEmbeddings.search` (Hamming top-k of
binary codes, integer dot products of int8 codes, optionally rescored) and
``embgeo.neighbors.topk(Q, X, metric="hamming" | "dot")`` on raw codes.
"""
from __future__ import annotations

import warnings

import numpy as np

from . import backend as xb
from .blocking import block_rows
from .embeddings import Embeddings
from .neighbors.faiss_index import FaissIndex

__all__ = ["quantize", "QuantizedEmbeddings", "CodeSearch", "SCHEMES", "int8_ranges"]

#: The schemes :func:`quantize` accepts (``("kmeans", n_clusters)`` for the last).
SCHEMES = ("float16", "int8", "binary", "kmeans")
_F16_MAX = float(np.finfo(np.float16).max)
#: int8 without calibration: a dimension's robust range runs between these percentiles of its values
_ROBUST_PERCENTILES = (0.01, 99.99)
#: ... and a full range (min to max) wider than this many robust ranges is warned about. Measured
#: (``docs/quantize.md``): at most 1.9 on GloVe 6B 50d, MiniLM-static 384d, floret fi 300d and the
#: minilm-l6-m2v-256 token table, 1.4 on Gaussian data; 6.4 with 5 values at 40 sigma in 3.2M.
_OUTLIER_STRETCH = 4.0
#: rows the robust ranges are estimated from (a seeded sample of larger vocabularies; the full ranges
#: are always the data's own)
_ROBUST_SAMPLE = 1 << 14


def _as_scheme(scheme):
    """``(name, n_clusters)`` from ``"int8"`` or ``("kmeans", 256)``."""
    if isinstance(scheme, tuple) and len(scheme) == 2 and scheme[0] == "kmeans":
        n = scheme[1]
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"('kmeans', n_clusters) needs a positive integer n_clusters, got {n!r}")
        return "kmeans", int(n)
    if scheme == "kmeans":
        raise ValueError("vocabulary k-means needs its size: pass ('kmeans', n_clusters)")
    if isinstance(scheme, str) and scheme in SCHEMES:
        return scheme, None
    raise ValueError(f"scheme must be 'float16', 'int8', 'binary' or ('kmeans', n_clusters), got {scheme!r}")


def int8_ranges(calibration, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """(starts, steps) of sentence-transformers' int8 quantisation from a calibration matrix, float32.

    Parameters
    ----------
    calibration : Embeddings or array (m, dim)
        Float rows whose per-dimension minimum and maximum give the ranges (NumPy or CuPy; read
        on the CPU).
    dim : int
        The dimension the calibration must have (that of the embeddings being quantised).

    Returns
    -------
    starts : float32 NumPy array (dim,)
        start_j = min C_j, the value code −128 decodes to.
    steps : float32 NumPy array (dim,)
        step_j = (max C_j − min C_j) / 255; 0 for a dimension of zero range (the encoder then
        uses 1, as sentence-transformers does).

    Raises
    ------
    ValueError
        A calibration that is not (m, dim), is empty, is not floating, or holds NaN or inf (the
        row is named).
    """
    C = np.asarray(xb.to_numpy(calibration.vectors if isinstance(calibration, Embeddings) else calibration))
    if C.ndim != 2 or C.shape[1] != dim or C.shape[0] == 0:
        raise ValueError(f"calibration must be a non-empty (rows, {dim}) matrix, got shape {C.shape}")
    if not np.issubdtype(C.dtype, np.floating):
        raise ValueError(f"calibration must be float embeddings, got {C.dtype}")
    bad = ~np.isfinite(C).all(axis=1)
    if bad.any():
        raise ValueError(f"row {int(np.flatnonzero(bad)[0])} of the calibration has a non-finite value: "
                         "the int8 ranges would be NaN")
    C = C.astype(np.float32, copy=False)
    starts = C.min(axis=0)
    steps = (C.max(axis=0) - starts) / np.float32(255)
    return starts, steps


def quantize(e: Embeddings, scheme="int8", calibration=None, *, memory_budget: int | None = None
             ) -> "QuantizedEmbeddings":
    """Compress ``e`` to float16, int8, binary or vocabulary k-means codes (see the module docstring).

    Parameters
    ----------
    e : Embeddings
        Finite vectors (on CPU).
    scheme : {"float16", "int8", "binary"} or ("kmeans", n_clusters)
    calibration : Embeddings or array (m, dim), optional
        int8 only: the rows whose per-dimension minimum and maximum give the ranges
        (sentence-transformers' ``calibration_embeddings``); default ``e`` itself.
    memory_budget : int, optional
        Bytes of the float blocks used while encoding.

    Returns
    -------
    QuantizedEmbeddings

    Raises
    ------
    ValueError
        Unknown scheme, calibration of another dimension or with NaN/inf, ``n_clusters`` larger
        than the vocabulary, float16 overflow (the word is named).

    Warns
    -----
    UserWarning
        int8 values outside the calibration range (clipped; the share is given), a calibration
        dimension of zero range (its codes are all −128); int8 without ``calibration`` where a few
        outlying values make some dimensions' ranges more than 4 times their 0.01st-99.99th
        percentile range (the dimensions counted, the share those percentiles would clip given,
        with the ``calibration=`` that uses them; ``docs/quantize.md``).

    Examples
    --------
    >>> import numpy as np
    >>> e = Embeddings(["a", "b", "c"], np.array([[1.0, -2.0], [0.5, 1.0], [-1.0, 0.0]]))
    >>> q = quantize(e, "binary")
    >>> q.codes.ravel().tolist(), q.nbytes
    ([128, 192, 0], 3)
    """
    if not isinstance(e, Embeddings):
        raise TypeError(f"quantize takes an Embeddings, got {type(e).__name__}")
    name, n_clusters = _as_scheme(scheme)
    if calibration is not None and name != "int8":
        raise ValueError(f"calibration= sets int8 ranges; scheme {name!r} does not use it")
    e.check_finite()
    X = e.vectors
    if not xb.is_numpy(X):
        raise ValueError(f"quantize runs on CPU vectors; e is on {e.device}: e.to('cpu') first")
    n, d = X.shape
    step = block_rows(d, 8, memory_budget)
    params = {}
    if name == "float16":
        codes = np.empty((n, d), dtype=np.float16)
        for s in range(0, n, step):
            B = X[s:s + step]
            big = np.abs(B).max(axis=1) > _F16_MAX
            if big.any():
                r = s + int(np.flatnonzero(big)[0])
                raise ValueError(f"row {r} ({e.words[r]!r}) holds values beyond float16's range (±{_F16_MAX:g}): "
                                 "they would become inf; scale the vectors first")
            codes[s:s + step] = B
    elif name == "int8":
        starts, steps = int8_ranges(e if calibration is None else calibration, d)
        if calibration is None:
            _warn_outlying_ranges(X, starts, steps, step)
        codes = _int8_encode(X, starts, steps, step)
        params = {"starts": starts, "steps": steps}
    elif name == "binary":
        codes = np.empty((n, -(-d // 8)), dtype=np.uint8)
        for s in range(0, n, step):
            codes[s:s + step] = np.packbits(X[s:s + step] > 0, axis=1)
    else:
        codes, params = _kmeans(X, n_clusters)
    return QuantizedEmbeddings(e.words, codes, name, d, counts=e.counts, **params)


def _range_stretch(X, steps):
    """Each dimension's full range (``255 * steps``) over its robust range, and the robust range's ends
    (the :data:`_ROBUST_PERCENTILES` of a seeded sample of :data:`_ROBUST_SAMPLE` rows)."""
    n = X.shape[0]
    rows = X if n <= _ROBUST_SAMPLE else X[np.sort(np.random.default_rng(0).choice(n, _ROBUST_SAMPLE, replace=False))]
    # one contiguous row per dimension: selecting the percentiles along it is about twice as fast
    lo, hi = np.percentile(np.ascontiguousarray(np.asarray(rows, dtype=np.float32).T), _ROBUST_PERCENTILES,
                           axis=1).astype(np.float32)
    full, robust = steps * np.float32(255), hi - lo
    # a constant bulk with a few other values (robust range 0) is stretched without bound
    return np.divide(full, robust, out=np.where(full > 0, np.inf, 0.0), where=robust > 0), lo, hi


def _warn_outlying_ranges(X, starts, steps, step):
    """Warn when a few values stretch some dimensions' ranges (int8 without calibration).

    A dimension's int8 step is its full range / 255 (sentence-transformers' arithmetic, kept); when
    a few outlying values make that range more than 4 times the range between the 0.01st and
    99.99th percentiles of its values, all the other values share that many times fewer
    levels. The warning names those dimensions' count and the share of all values that ranges from
    the percentiles would clip (counted exactly), and how to pass them as ``calibration=``.
    """
    n, d = X.shape
    stretch, lo, hi = _range_stretch(X, steps)
    wide = np.flatnonzero(stretch > _OUTLIER_STRETCH)
    if not wide.size:
        return
    clipped = 0
    for s in range(0, n, step):
        B = np.asarray(X[s:s + step, wide])
        clipped += int(np.count_nonzero((B < lo[wide]) | (B > hi[wide])))
    worst = int(wide[np.argmax(stretch[wide])])
    p_lo, p_hi = _ROBUST_PERCENTILES
    warnings.warn(
        f"int8 without calibration: in {wide.size} of {d} dimension(s) a few outlying values make the range "
        f"more than {_OUTLIER_STRETCH:g} times the {p_lo:g}-{p_hi:g} percentile range (up to "
        f"{stretch[worst]:.1f} times, dimension {worst}), so the int8 step there is that much coarser for every "
        f"other value. Ranges from those percentiles would clip {clipped / (n * d):.4%} of the values ({clipped}): "
        f"pass them as quantize(e, 'int8', calibration=np.percentile(e.vectors, [{p_lo:g}, {p_hi:g}], axis=0))",
        stacklevel=3)


def _int8_encode(X, starts, steps, step):
    """sentence-transformers' int8 codes, a block of rows at a time; out-of-range values clipped (warned)."""
    n, d = X.shape
    flat = steps == 0
    if flat.any():
        warnings.warn(f"{int(flat.sum())} dimension(s) have zero range in the calibration (first: "
                      f"{int(np.argmax(flat))}): their int8 codes are all -128", stacklevel=3)
    steps = np.where(flat, np.float32(1), steps)
    codes = np.empty((n, d), dtype=np.int8)
    clipped = 0
    for s in range(0, n, step):
        T = np.floor((np.asarray(X[s:s + step], dtype=np.float32) - starts) / steps)
        clipped += int(np.count_nonzero((T < 0) | (T > 255)))
        codes[s:s + step] = np.clip(T, 0, 255) - 128
    if clipped:
        warnings.warn(f"{clipped / (n * d):.3%} of the values ({clipped}) lie outside the calibration ranges and "
                      "were clipped to the int8 range: calibrate on data that covers them", stacklevel=3)
    return codes


def _kmeans(X, n_clusters):
    """model2vec's vocabulary quantisation: codes (cluster per row) and the centres and weights."""
    n = X.shape[0]
    if n_clusters > n:
        raise ValueError(f"n_clusters={n_clusters} exceeds the {n} words of the vocabulary")
    from sklearn.cluster import KMeans

    X = np.asarray(X, dtype=np.float64 if X.dtype == np.float64 else np.float32)
    weights = np.linalg.norm(X, axis=1) + 1e-32
    unit = (X / weights[:, None]).astype(np.float32)
    km = KMeans(n_clusters=n_clusters, random_state=42, init="random")
    km.fit(unit)
    mapping = km.predict(unit)
    dt = np.uint8 if n_clusters <= 256 else np.uint16 if n_clusters <= 65536 else np.int32
    return mapping.astype(dt), {"centers": km.cluster_centers_.astype(np.float32),
                                "weights": weights.astype(np.float32)}


class QuantizedEmbeddings(Embeddings):
    """An :class:`~embgeo.embeddings.Embeddings` stored as codes (made by :func:`quantize`).

    Its words, counts and lookups are the Embeddings'; its rows are decoded to float32 when read
    (only the rows asked for by row-wise readers; ``vectors`` is decoded block by block for each
    vocabulary-wide call and not kept). Immutable, like any Embeddings.

    Attributes
    ----------
    codes : ndarray
        float16 (n, d), int8 (n, d), uint8 packed bits (n, ⌈d/8⌉), or the cluster of each word
        (n,) for k-means.
    scheme : str
        "float16", "int8", "binary" or "kmeans".
    params : dict
        int8: ``starts``, ``steps`` (d,); k-means: ``centers`` (c, d), ``weights`` (n,).

    Parameters
    ----------
    words : sequence of str
        The vocabulary, unique, in row order.
    codes : ndarray
        The codes, one row (or one cluster id, for k-means) per word, in the layout of
        :attr:`codes`. Not copied: the array is made read-only in place.
    scheme : {"float16", "int8", "binary", "kmeans"}
        How ``codes`` decode.
    dim : int
        d, the dimension of the decoded rows (binary codes hold ⌈d/8⌉ bytes per row).
    counts : array of int, shape (n_words,), optional
        Corpus frequencies, as in :class:`~embgeo.embeddings.Embeddings`.
    **params : ndarray
        The decoding parameters of the scheme: ``starts`` and ``steps`` (int8; see
        :func:`int8_ranges`), ``centers`` and ``weights`` (k-means); none for float16 and binary.

    Raises
    ------
    ValueError
        Empty vocabulary, duplicate word (named), counts of another length or negative (the checks of
        :class:`~embgeo.embeddings.Embeddings`).
    """

    __slots__ = ("_codes", "_scheme", "_params", "_dim")

    def __init__(self, words, codes, scheme: str, dim: int, counts=None, **params):
        # the base constructor would take float vectors: the vocabulary and counts checks are its own
        Embeddings.__init__(self, words, np.zeros((len(words), 1), dtype=np.float32), counts, check_finite=False)
        self._codes = codes
        self._codes.flags.writeable = False
        self._scheme = scheme
        self._params = params
        self._dim = int(dim)
        self._first_nonfinite = -1  # codes decode to finite rows (float16 refused overflow)

    # ------------------------------------------------------------- storage
    @property
    def codes(self):
        """The codes (read-only NumPy array): float16 or int8 (n, d), packed bits (n, ⌈d/8⌉), or clusters (n,)."""
        return self._codes

    @property
    def scheme(self) -> str:
        """The quantisation scheme: ``"float16"``, ``"int8"``, ``"binary"`` or ``"kmeans"``."""
        return self._scheme

    @property
    def params(self) -> dict:
        """A copy of the dict of decoding parameters (int8: starts, steps; k-means: centers, weights)."""
        return dict(self._params)

    @property
    def nbytes(self) -> int:
        """Bytes of the codes and their decoding parameters (not of the words)."""
        return int(self._codes.nbytes + sum(p.nbytes for p in self._params.values()))

    @property
    def dim(self) -> int:
        """Number of dimensions of the decoded rows (not of the codes)."""
        return self._dim

    @property
    def dtype(self):
        """float32, the dtype of the decoded rows (the codes' own is ``codes.dtype``)."""
        return np.dtype(np.float32)

    @property
    def device(self) -> str:
        """Always ``"cpu"``: the codes are NumPy arrays."""
        return "cpu"

    def __repr__(self) -> str:
        return (f"QuantizedEmbeddings({len(self)} words, dim={self.dim}, {self._scheme}, "
                f"{self.nbytes} bytes)")

    # ------------------------------------------------------------- decoding
    def decode(self, rows) -> np.ndarray:
        """float32 rows ``rows``, decoded from their codes only.

        Parameters
        ----------
        rows : int array or slice
            Rows of the vocabulary (NumPy indexing of :attr:`codes`).

        Returns
        -------
        float32 NumPy array (len(rows), dim)
            float16: the cast back; int8: start + (code + 128)·step; binary: ±1 per dimension;
            k-means: the word's weight × its cluster's centre.
        """
        C = self._codes[rows]
        p = self._params
        if self._scheme == "float16":
            return C.astype(np.float32)
        if self._scheme == "int8":
            return p["starts"] + (C.astype(np.float32) + np.float32(128)) * p["steps"]
        if self._scheme == "binary":
            bits = np.unpackbits(C, axis=-1, count=self._dim)
            return bits.astype(np.float32) * np.float32(2) - np.float32(1)
        return p["centers"][C] * p["weights"][rows, None]

    @property
    def _vectors(self):
        # the base class reads its matrix here: decoded a block of rows at a time, for this call only
        n = len(self)
        out = np.empty((n, self._dim), dtype=np.float32)
        step = block_rows(self._dim, 8)
        for s in range(0, n, step):
            out[s:s + step] = self.decode(slice(s, s + step))
        out.flags.writeable = False
        return out

    @_vectors.setter
    def _vectors(self, value):
        # the base constructor's placeholder: the codes are the storage
        pass

    def dequantize(self) -> Embeddings:
        """A float32 :class:`~embgeo.embeddings.Embeddings` of the decoded rows (a full copy, to keep).

        Returns
        -------
        Embeddings
            The same words and counts, with the (n, dim) float32 matrix of the decoded rows.
        """
        return self._pass_finite(Embeddings(self.words, self._vectors, self.counts, check_finite=False))

    def __getitem__(self, word):
        if isinstance(word, str):
            return self.decode(np.array([self.index(word)]))[0]
        return self.subset(word).vectors if isinstance(word, (list, tuple)) else super().__getitem__(word)

    def _take_rows(self, idx):
        p = dict(self._params)
        if self._scheme == "kmeans":
            p["weights"] = p["weights"][idx]
        counts = None if self.counts is None else self.counts[idx]
        return QuantizedEmbeddings([self.words[i] for i in idx], self._codes[idx], self._scheme, self._dim,
                                   counts=counts, **p)

    def similarity_pairs(self, words1, words2, measure=None):
        """As :meth:`Embeddings.similarity_pairs`, from the decoded rows of the pairs' words only.

        Parameters
        ----------
        words1, words2 : sequence of str
            The pairs' first and second words, aligned (same length).
        measure : {"cosine", "dot"}, optional
            The similarity; None means ``"cosine"``.

        Returns
        -------
        numpy.ndarray of float64, shape (n_pairs,)
            The similarity of the decoded rows of ``words1[i]`` and ``words2[i]``.

        Raises
        ------
        UnknownWordError
            A word is not in the vocabulary.
        ValueError
            An unknown ``measure``, or word lists of different lengths.
        """
        few = sorted(set(words1) | set(words2), key=self.index)
        return self.subset(few).dequantize().similarity_pairs(words1, words2, measure)

    def similarity(self, w1: str, w2: str) -> float:
        """Cosine similarity of two words, in float64 from their two decoded rows (0 if either is zero).

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
        """
        return float(self.similarity_pairs([w1], [w2])[0])

    # ------------------------------------------------------------- search
    def search(self, queries, k: int = 10, *, rescore: int | None = None, exclude_self: bool = True,
               memory_budget: int | None = None, backend: str = "exact"):
        """Exact top-``k`` on the codes, optionally rescored (sentence-transformers' rescoring).

        Binary codes are searched by Hamming distance (queries binarised by sign), int8 codes by
        the integer dot product (queries quantised with the same ranges), with the compiled
        kernels of :func:`embgeo.neighbors.topk`. With ``rescore=r`` the top ``r·k`` rows by codes
        are rescored with the float query and the best ``k`` kept, as
        ``sentence_transformers.quantization.semantic_search_faiss(..., rescore_multiplier=r)``:
        the score is the float query's dot product with the candidate's bits as 0/1 (binary) or its
        decoded row start + (code + 128)·step (int8, sentence-transformers' ``_dequantize_embeddings``).
        float16 and k-means codes are searched exactly by cosine on the decoded rows.

        Parameters
        ----------
        queries : str, list of str, or array (q, d)
            Words (their decoded rows; each left out of its own list with ``exclude_self``) or
            float query vectors.
        k : int
        rescore : int, optional
            The oversampling factor r ≥ 1.
        exclude_self : bool
        memory_budget : int, optional
        backend : {"exact", "cuda"}

        Returns
        -------
        scores, indices : arrays (q, k)
            Hamming distances (int32, smallest first) or int8 dot products (int32), or float32
            rescored scores; for float16 and k-means, cosines. Ties go to the lower row.
        """
        words = isinstance(queries, str) or (isinstance(queries, (list, tuple)) and queries
                                             and all(isinstance(w, str) for w in queries))
        if words:
            idx = self.indices([queries] if isinstance(queries, str) else list(queries))
            Q, exclude = self.decode(idx), (idx if exclude_self else None)
        else:
            Q, exclude = np.asarray(xb.to_numpy(queries), dtype=np.float32), None
            if Q.ndim == 1:
                Q = Q[None, :]
            if Q.ndim != 2 or Q.shape[1] != self._dim:
                raise ValueError(f"queries must be (q, {self._dim}) float vectors, got shape {Q.shape}")
            if not np.isfinite(Q).all():
                raise ValueError("queries hold NaN or inf")
        return _code_topk(self, Q, k, rescore, exclude, memory_budget, backend)

    def searcher(self, rescore: int | None = None, metric: str = "cosine") -> "CodeSearch":
        """This object's code search as an index for :func:`embgeo.diagnostics.recall`.

        Parameters
        ----------
        rescore : int, optional
            The oversampling factor r ≥ 1 of :meth:`search` (binary and int8 codes only).
        metric : {"cosine", "dot"}, default "cosine"
            The exact float search the recall is measured against (and the search of float16 and
            k-means rows).

        Returns
        -------
        CodeSearch
            An index over these codes; nothing is computed until it is searched.
        """
        return CodeSearch(self, rescore, metric)


def _code_topk(q, Q, k, rescore, exclude, memory_budget=None, backend="exact", metric="cosine"):
    """:meth:`QuantizedEmbeddings.search` on float queries ``Q`` (q, d)."""
    from . import neighbors

    if q.scheme in ("float16", "kmeans"):
        if rescore is not None:
            raise ValueError(f"rescore= applies to binary and int8 codes; {q.scheme} rows are searched "
                             "exactly on the decoded rows")
        return neighbors.topk(Q, q.vectors, k, metric=metric, exclude=exclude, memory_budget=memory_budget,
                              backend=backend)
    if rescore is not None and (isinstance(rescore, bool) or not isinstance(rescore, (int, np.integer))
                                or rescore < 1):
        raise ValueError(f"rescore must be a positive integer (the oversampling factor), got {rescore!r}")
    binary = q.scheme == "binary"
    kk = k if rescore is None else min(int(rescore) * int(k), len(q) - (exclude is not None))
    codes = np.packbits(Q > 0, axis=1) if binary else _int8_encode_quiet(Q, q.params)
    s, i = neighbors.topk(codes, q.codes, kk, metric="hamming" if binary else "dot", exclude=exclude,
                          memory_budget=memory_budget, backend=backend)
    if rescore is None:
        return s, i
    return _rescore(q, Q, i, k)


def _int8_encode_quiet(Q, params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a query beyond the ranges is clipped as the database was
        return _int8_encode(Q, params["starts"], params["steps"], max(1, Q.shape[0]))


def _rescore(q, Q, ids, k):
    """sentence-transformers' rescoring: float query · the candidates' bits (0/1) or decoded int8 rows, best
    ``k`` (ties to the lower row)."""
    if q.scheme == "binary":
        R = np.unpackbits(q.codes[ids], axis=-1, count=q.dim).astype(np.float32)
    else:
        R = q.decode(ids.ravel()).reshape(ids.shape + (q.dim,))
    scores = np.einsum("qd,qkd->qk", Q, R)
    # candidates arrive ordered by row among equal code scores; a stable sort on (−score, row) keeps ties low
    order = np.lexsort((ids, -scores), axis=-1)[:, :k]
    return np.take_along_axis(scores, order, 1), np.take_along_axis(ids, order, 1)


class CodeSearch:
    """The code search of a :class:`QuantizedEmbeddings` with FAISS's index interface
    (``search(Q, k, exclude)``, ``ntotal``, ``dim``, ``metric``), for :func:`embgeo.diagnostics.recall`.

    ``metric`` names the exact float search its recall is measured against.

    Parameters
    ----------
    q : QuantizedEmbeddings
        The codes searched.
    rescore : int or None
        The oversampling factor r ≥ 1 of :meth:`QuantizedEmbeddings.search`, or None for no
        rescoring (binary and int8 codes only).
    metric : {"cosine", "dot"}
        The exact float search the recall is measured against (and the search of float16 and
        k-means rows).
    """

    kind = "codes"
    build_seconds = float("nan")

    def __init__(self, q: QuantizedEmbeddings, rescore, metric):
        self.q, self.rescore, self.metric = q, rescore, metric
        self.ntotal, self.dim = len(q), q.dim
        self.params = {"scheme": q.scheme, "rescore": rescore}

    def search(self, Q, k, exclude=None):
        """The ``k`` best rows for each float query, as :meth:`QuantizedEmbeddings.search` finds them.

        Parameters
        ----------
        Q : float array (q, dim)
            The query vectors (binarised by sign or quantised with the int8 ranges).
        k : int
            Rows per query.
        exclude : optional
            Rows never to return, per query (same forms as :func:`embgeo.neighbors.topk`).

        Returns
        -------
        scores : array (q, k)
            Hamming distances (binary, smallest first), int8 dot products, float32 rescored scores,
            or cosines (float16 and k-means, or dot products with ``metric="dot"``).
        indices : int64 array (q, k)
            Best first; ties go to the lower row.

        Raises
        ------
        ValueError
            A ``rescore`` that is not a positive integer, or one given for float16 or k-means codes.
        """
        return _code_topk(self.q, np.asarray(Q, dtype=np.float32), k, self.rescore, exclude, metric=self.metric)

    # the recall measurement of a FAISS index reads only this interface (search, ntotal, dim, metric,
    # kind, params, build_seconds): one definition of recall for both
    recall = FaissIndex.recall
