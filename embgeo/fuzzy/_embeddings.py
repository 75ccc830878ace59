"""A vocabulary of fuzzy sets (Bhat et al. 2020) and its certified vocabulary-wide search."""
from __future__ import annotations

import math

import numpy as np

from .. import backend as xb  # where a method's `backend=` parameter shadows the module
from ..blocking import block_rows, budget_bytes, row_blocks, share
from ..embeddings import Embeddings
from ..neighbors import ARRAY_BACKENDS, Cuda, Dask, as_engine, merge_topk, select_topk
from ..neighbors import topk as _dot_topk
from ..progress import progress_bar
from ..vocabulary import Vocabulary
from ._fuzzify import CONSTRUCTIONS, fuzzify
from ._sets import (FUZZY_MEASURES, LOG_TINY, FuzzySet, _check_memberships, _DIVERGENCES, _f64, _m_cardinality,
                    _m_entropy, _MEASURE_FUNCS, _op_difference, _op_disjoint_union, _ratio, _resolve_measure,
                    _safe_log, _safe_log1m)

# ============================================================ FuzzyEmbeddings
def _is_linear(measure, reverse):
    """Whether a measure's vocabulary-wide scores are one product (all but the pair-by-pair ratios)."""
    return not (measure == "jaccard" or (measure == "intersection_ratio" and reverse))


class FuzzyEmbeddings(Vocabulary):
    """A vocabulary of fuzzy sets: the feature-probability view of word embeddings.

    Build it with :meth:`from_embeddings` (Bhat et al. 2020). ``F["word"]`` is a
    :class:`FuzzySet`, ``F[["a", "b"]]`` a batch; sets compose by operators
    (``F["north"] & F["korea"]``) and are searched against the whole vocabulary with
    :meth:`neighbors` / :meth:`most_similar`.

    Parameters
    ----------
    words : sequence of str
    memberships : array, shape (n_words, dim)
        Values in [0, 1] (float32 storage by default).
    counts : array, optional
        Word frequencies (used by :func:`function_words`).
    axis : {"vocabulary", "features"}, optional
        The axis the memberships were normalised over (recorded for ``repr`` and reproducibility).
    base : float, optional
        The base the vectors were exponentiated in (recorded, as ``axis``).
    l2_normalize : bool, default False
        Whether the vectors were unit-normalised before exponentiating (recorded, as ``axis``).
    check : bool, default True
        Validate finiteness and the [0, 1] range.

    Raises
    ------
    ValueError
        With ``check``: memberships that are empty, hold NaN or inf, or lie outside [0, 1]; and
        whatever :class:`~embgeo.Embeddings` refuses (duplicate words, a shape that does not match
        the words).

    See Also
    --------
    FuzzySet : one word's set, or a batch.
    fuzzify : the construction of the memberships from word vectors.

    Examples
    --------
    >>> import numpy as np, embgeo
    >>> e = embgeo.Embeddings(["a", "b", "c"], np.log([[1., 2.], [3., 2.], [4., 4.]]))
    >>> F = FuzzyEmbeddings.from_embeddings(e)
    >>> [round(float(x), 3) for x in F["a"].memberships]
    [0.125, 0.25]
    >>> round(F.similarity("a", "c", measure="jaccard"), 4)
    0.1579
    """

    def __init__(self, words, memberships, counts=None, *, axis: str | None = None, base: float | None = None,
                 l2_normalize: bool = False, check: bool = True):
        if check:
            _check_memberships(memberships)
        self._vocab = Embeddings(words, memberships, counts, check_finite=False)
        self._words, self._index = self._vocab._words, self._vocab._index  # the Vocabulary protocol, shared
        self.axis = axis
        self.base = base
        self.l2_normalize = l2_normalize
        self._cache: dict = {}

    @classmethod
    def from_embeddings(cls, e, axis: str | None = None, base: float | None = None, *,
                        construction: str | None = None, l2_normalize: bool | None = None, dtype=None,
                        memory_budget: int | None = None, progress: bool | None = None) -> "FuzzyEmbeddings":
        """Fuzzy sets of the words of ``e`` (an :class:`~embgeo.Embeddings`) via :func:`fuzzify`.

        By default the paper's construction (Bhat et al. 2020, Sec. 4.1): ``axis="vocabulary"``,
        ``base=e``, each feature normalised over *all* words of ``e`` (pass ``e.top(n)`` to normalise
        over the n most frequent words instead). ``construction`` names the settings of one of the
        released programs instead (:data:`CONSTRUCTIONS`), e.g. ``"released-simlex"`` for Table 8;
        it cannot be combined with ``axis``, ``base`` or ``l2_normalize``.

        Parameters
        ----------
        e : Embeddings
            The word vectors; words and counts carry over.
        axis : {"vocabulary", "features"}, optional
            Normalise each feature over the words (``"vocabulary"``, the paper's, the default) or
            each word over its features (``"features"``, the released ``cli.cpp``).
        base : float, optional
            Base of the exponential, greater than 1 (default e, the paper's; the released programs
            use 2).
        construction : str, optional
            A key of :data:`CONSTRUCTIONS` (``"paper"``, ``"released-cli"``, ``"released-simlex"``,
            ``"released-composition"``) that sets ``axis``, ``base`` and ``l2_normalize`` together.
        l2_normalize : bool, optional
            Unit-normalise every vector before exponentiating (default False).
        dtype : {"float32", "float64"}, optional
            Storage dtype of the memberships (default: embgeo's default, float32).
        memory_budget : int, optional
            Bytes for one block of float64 rows on the array-API path (default 256 MiB).
        progress : bool, optional
            Progress bar over blocks (array-API path); None: automatic.

        Returns
        -------
        FuzzyEmbeddings
            One fuzzy set per word of ``e``, in ``e``'s order.

        Raises
        ------
        TypeError
            ``e`` is not an :class:`~embgeo.Embeddings`.
        ValueError
            An unknown ``construction``, ``construction`` combined with ``axis``, ``base`` or
            ``l2_normalize``, or what :func:`fuzzify` refuses (unknown axis, ``base <= 1``, non-finite
            vectors, a zero vector with ``l2_normalize``).

        See Also
        --------
        fuzzify : the same construction on a plain matrix.

        References
        ----------
        Bhat, Debnath, Banerjee & Shrivastava (2020), "Word Embeddings as Tuples of Feature
        Probabilities", RepL4NLP, pp. 24-33, Sec. 4.1. doi:10.18653/v1/2020.repl4nlp-1.4
        """
        if not isinstance(e, Embeddings):
            raise TypeError(f"from_embeddings expects an embgeo.Embeddings, got {type(e).__name__}")
        if construction is not None:
            if construction not in CONSTRUCTIONS:
                raise ValueError(f"unknown construction {construction!r}; choose from {', '.join(CONSTRUCTIONS)}")
            if axis is not None or base is not None or l2_normalize is not None:
                raise ValueError("pass either construction= or axis/base/l2_normalize, not both")
            opts = dict(CONSTRUCTIONS[construction])
        else:
            opts = {"axis": "vocabulary" if axis is None else axis, "base": math.e if base is None else base,
                    "l2_normalize": bool(l2_normalize)}
        M = fuzzify(e.vectors, **opts, dtype=dtype, memory_budget=memory_budget, progress=progress)
        return cls(e.words, M, e.counts, **opts, check=False)

    # ------------------------------------------------------------- basics
    @property
    def memberships(self):
        """The (n_words, dim) membership matrix."""
        return self._vocab.vectors

    @property
    def counts(self):
        """Word frequencies, shape (n_words,), or None when none were given."""
        return self._vocab.counts

    @property
    def dim(self) -> int:
        """The number of features d (the dimension of the source vectors)."""
        return self._vocab.dim

    def __repr__(self) -> str:
        how = f", axis={self.axis!r}, base={self.base:g}" if self.axis else ""
        how += ", l2_normalize=True" if self.l2_normalize else ""
        return f"FuzzyEmbeddings({len(self)} words, dim={self.dim}, {self.memberships.dtype}{how})"

    def __getitem__(self, word) -> FuzzySet:
        """The fuzzy set of a word, or a batch for a list of words (unknown words raise
        :class:`~embgeo.errors.UnknownWordError`)."""
        if isinstance(word, str):
            return FuzzySet(self._vocab[word], sources=(word,), label=word, check=False)
        words = list(word)
        if not words:
            raise ValueError("empty list of words")
        return FuzzySet(self._vocab[words], sources=[(w,) for w in words], check=False)

    # -------------------------------------------------------- precomputation
    def _stats(self, memory_budget=None):
        """Per-word entropy and cardinality (float64, O(n_words)), computed once in blocks of rows.

        A block (the kernel's output, or on the array-API path the float64 temporaries of the
        logarithms, about 4 copies) takes a sixteenth of ``memory_budget``: 10k rows of GloVe 50d
        by default, small enough to stay in cache."""
        c = self._cache
        if "entropy" not in c:
            P = self.memberships
            xp = xb.get_namespace(P)
            n, d = P.shape
            step = min(n, block_rows(4 * (d + 1), 8, budget_bytes(memory_budget) // 16))
            if xb.is_numpy(P):
                from ..kernels import fuzzy as kern
                from ..kernels import readonly

                ent, card = np.empty(n), np.empty(n)
                buf = np.empty((step, d + 1), dtype=P.dtype)  # the kernel's logit output, discarded here
                for s, e_ in row_blocks(n, step):
                    # read-only rows whatever the memberships' flag: one compiled specialization per dtype
                    kern.logit_stats(readonly(np.ascontiguousarray(P[s:e_])), LOG_TINY, buf[:e_ - s], ent[s:e_],
                                     card[s:e_])
            else:
                blocks = row_blocks(n, step)
                ent = xp.concat([_m_entropy(xp, P[s:e_, ...]) for s, e_ in blocks], axis=0)
                card = xp.concat([_m_cardinality(xp, P[s:e_, ...]) for s, e_ in blocks], axis=0)
            c["entropy"], c["cardinality"] = ent, card
        return c

    def _per_word(self, key, words, memory_budget=None):
        v = self._stats(memory_budget)[key]
        if words is None:
            return v
        xp = xb.get_namespace(v)
        idx = self.indices(list(words))
        return xp.take(v, idx if xb.is_numpy(v) else xp.asarray(idx), axis=0)

    def entropy(self, words=None, *, memory_budget: int | None = None):
        """Fuzzy entropy of every word, or of ``words`` (Bhat et al. 2020, Sec. 3 and 4.3).

        Computed once for the whole vocabulary, in blocks of rows within ``memory_budget`` bytes,
        and kept with this object (with :meth:`cardinality`).

        Parameters
        ----------
        words : sequence of str, optional
            The words to report, in this order; None: every word, in vocabulary order.
        memory_budget : int, optional
            Bytes of working memory for the one blocked pass (default 256 MiB).

        Returns
        -------
        array of float64, shape (n_words,) or (len(words),)
            The entropy in nats, in the array library of the memberships.

        Raises
        ------
        UnknownWordError
            A word of ``words`` is not in the vocabulary.

        See Also
        --------
        cardinality : the other per-word measure, computed in the same pass.
        function_words : ranks words by this entropy (Sec. 4.3).
        """
        return self._per_word("entropy", words, memory_budget)

    def cardinality(self, words=None, *, memory_budget: int | None = None):
        """Fuzzy cardinality ``Σ µ`` of every word, or of ``words`` (Bhat et al. 2020, Sec. 3).

        Computed and kept as :meth:`entropy` is.

        Parameters
        ----------
        words : sequence of str, optional
            The words to report, in this order; None: every word, in vocabulary order.
        memory_budget : int, optional
            Bytes of working memory for the one blocked pass (default 256 MiB).

        Returns
        -------
        array of float64, shape (n_words,) or (len(words),)
            The cardinalities, in the array library of the memberships.

        Raises
        ------
        UnknownWordError
            A word of ``words`` is not in the vocabulary.

        See Also
        --------
        entropy : the other per-word measure, computed in the same pass.
        """
        return self._per_word("cardinality", words, memory_budget)

    # ------------------------------------------------------------ pairs
    def similarity(self, w1: str, w2: str, measure: str = "cross_entropy", reverse: bool = False) -> float:
        """Similarity of two words (a divergence negated; Bhat et al. 2020, Sec. 4.4).

        Parameters
        ----------
        w1, w2 : str
            The two words; ``w1`` plays S and ``w2`` plays T.
        measure : str, default "cross_entropy"
            A name of :data:`FUZZY_MEASURES` (the table is in :meth:`similarity_pairs`).
        reverse : bool, default False
            Score ``m(w2, w1)`` instead (no effect on the symmetric measures).

        Returns
        -------
        float
            The similarity (higher = more similar; divergences are negated).

        Raises
        ------
        UnknownWordError
            A word is not in the vocabulary.
        ValueError
            An unknown ``measure``.

        See Also
        --------
        similarity_pairs : many pairs at once.
        """
        return float(self.similarity_pairs([w1], [w2], measure=measure, reverse=reverse)[0])

    def similarity_pairs(self, words1, words2, measure: str | None = "cross_entropy", reverse: bool = False):
        """Similarities of aligned word pairs, as a NumPy float64 array (higher = more similar).

        For pair j, ``S = words1[j]`` and ``T = words2[j]`` (swapped by ``reverse=True``):

        ``"cross_entropy"``  −H(S, T), Bernoulli (Bhat et al. 2020, Sec. 4.4; Tables 5, 9)
        ``"categorical_cross_entropy"``  −(−Σ s ln t)
        ``"categorical_kl"`` −Σ s ln(s/t), the KL as printed in Sec. 4.4
        ``"symmetric_cross_entropy"``  −H(S, T) − H(T, S) (Table 8's "K-L Divergence" column)
        ``"symmetric_kl"``   −D(S ‖ T) − D(T ‖ S) (Table 11's program)
        ``"kl"``             −D(S ‖ T), Bernoulli (Sec. 3; Table 8's "Cross-Entropy" column)
        ``"jaccard"``        |S ∩ T| / |S ∪ T| (symmetric)
        ``"intersection_ratio"``  |S ∩ T| / |S|
        ``"inclusion"``      share of features with µ_S ≤ µ_T (graded inclusion of S in T)

        This is the evaluation protocol of :mod:`embgeo.evaluate`.

        Parameters
        ----------
        words1, words2 : sequence of str
            Aligned words, of equal length: pair j is ``(words1[j], words2[j])``.
        measure : str, default "cross_entropy"
            A name of :data:`FUZZY_MEASURES` (the table above); None: ``"cross_entropy"``.
        reverse : bool, default False
            Swap S and T in every pair.

        Returns
        -------
        numpy.ndarray of float64, shape (len(words1),)
            One similarity per pair.

        Raises
        ------
        UnknownWordError
            A word is not in the vocabulary.
        ValueError
            An unknown ``measure``, or word lists of different lengths.

        See Also
        --------
        similarity : one pair.
        embgeo.evaluate.word_similarity : the benchmark protocol that calls this.

        References
        ----------
        Bhat, Debnath, Banerjee & Shrivastava (2020), "Word Embeddings as Tuples of Feature
        Probabilities", RepL4NLP, pp. 24-33, Sec. 3 and 4.4, Tables 5, 8, 9 and 11.
        doi:10.18653/v1/2020.repl4nlp-1.4
        """
        measure = _resolve_measure(measure)
        words1, words2 = list(words1), list(words2)
        if len(words1) != len(words2):
            raise ValueError(f"words1 and words2 differ in length ({len(words1)} vs {len(words2)})")
        if reverse:
            words1, words2 = words2, words1
        P = self.memberships
        xp = xb.get_namespace(P)
        i, j = self.indices(words1), self.indices(words2)
        if not xb.is_numpy(P):
            i, j = xp.asarray(i), xp.asarray(j)
        v = _MEASURE_FUNCS[measure](xp, xp.take(P, i, axis=0), xp.take(P, j, axis=0))
        if measure in _DIVERGENCES:
            v = -v
        return xb.to_numpy(v).astype(np.float64)

    # ------------------------------------------------------- vocabulary-wide
    def _as_query(self, queries) -> FuzzySet:
        if isinstance(queries, FuzzySet):
            q = queries
        elif isinstance(queries, str):
            q = self[queries]
        elif isinstance(queries, (list, tuple)) and queries and all(isinstance(w, str) for w in queries):
            q = self[list(queries)]
        else:
            q = FuzzySet(xb.asarray(queries, like=self.memberships))
        if q.dim != self.dim:
            raise ValueError(f"queries have {q.dim} features but the vocabulary has {self.dim}")
        return q

    def neighbors(self, queries, k: int = 10, *, measure: str = "cross_entropy", reverse: bool = False,
                  exclude_self: bool = True, exclude=None, restrict_vocab: int | None = None,
                  memory_budget: int | None = None, precompute: bool | None = None, progress: bool | None = None,
                  backend="exact"):
        """The ``k`` most similar words to each query under a fuzzy measure, vocabulary-wide.

        Scores are similarities (divergences negated), best first, ties to the lower row, with the
        direction convention ``S = query, T = candidate``; ``reverse=True`` ranks by
        ``m(candidate, query)``. Every measure of :data:`FUZZY_MEASURES` but ``"inclusion"``. Ranking by
        ``−D(S‖T)`` and by ``−H(S, T)`` over candidates T is the same (they differ by H(S)); the
        reversed directions differ.

        Each measure is one GEMM per block: with ``logit(t) = ln t − ln(1 − t)`` and
        ``c(T) = −Σ ln(1 − t)``, the Bernoulli cross-entropy (Bhat et al. 2020, Sec. 4.4) is
        ``H(S, T) = −S·logit(T)ᵀ + c(T)`` (the expansion −S·ln Tᵀ − (1 − S)·ln(1 − T)ᵀ with its two
        products merged); reversed, ``H(T, S) = −T·logit(S)ᵀ + c(S)`` and ``D(T‖S) = H(T, S) − H(T)``;
        the categorical forms use ``ln T`` (or ``ln S``) alone; Jaccard uses ``|S ∩ T| = S·Tᵀ`` and
        ``|S ∪ T| = |S| + |T| − S·Tᵀ``. The candidate side of the linear measures (``logit(T)`` and
        ``c(T)``, conditioned as below) is kept with this object, like the cached inverse norms of
        :class:`~embgeo.Embeddings`, when it fits ``memory_budget`` (``precompute``): n_words × (dim + 1)
        values in the storage dtype (2·dim + 2 for the symmetric forms; 78 MiB for GloVe 400k × 50),
        one measure's at a time, built block by block. A call then costs one search of the queries
        against it, so a single query costs about what a cosine search does. Otherwise the candidate
        side is computed block by block inside every call, so that extra memory stays within
        ``memory_budget`` (one block of transformed candidates in the storage dtype, the search's
        tiles, the float64 rescoring).

        The linear measures are searched in the storage dtype (float32) for 2k candidates by
        :func:`embgeo.neighbors.topk`, on a conditioned form of the product (candidate columns
        centred, both sides scaled column by column: the same ranking, a far smaller rounding
        bound), and the candidates are rescored in float64. A query's list is kept when its k-th
        float64 score beats the best float32 score left out by more than a rigorous bound of the
        float32 rounding; the rare queries that fail are searched again in float64. The lists are
        therefore those of a float64 brute force (ties to the lower row). Jaccard and the reversed
        intersection ratio divide pair by pair: they select in the storage dtype and rescore in
        float64, so their lists may differ from a float64 brute force at float32 near-ties.

        Parameters
        ----------
        queries : str, list of str, FuzzySet (single or batch), or array (d,) / (m, d)
        k : int
        measure : str
        reverse : bool
        exclude_self : bool
            Never return the words a query was built from (its :attr:`FuzzySet.sources`).
        exclude : sequence of str, optional
            Further words never returned (for every query).
        restrict_vocab : int, optional
            Search only the first ``restrict_vocab`` rows (the most frequent words, by convention).
        memory_budget : int, optional
            Bytes of extra working memory (default 256 MiB): blocks of transformed candidates and scores.
        precompute : bool, optional
            Keep the transformed vocabulary (n_words × (dim + 1) values, the symmetric forms twice that)
            with this object for later calls: by default when it fits ``memory_budget``; ``True``
            always, ``False`` never (every call transforms the candidates block by block). One
            measure's transformed vocabulary is kept at a time.
        progress : bool, optional
        backend : {"exact", "cuda", "dask"} or Exact or Cuda or Dask, default "exact"
            The engine of the float32 search (:func:`embgeo.neighbors.topk`), a name or an engine
            object with its options (:class:`~embgeo.neighbors.Exact`'s apply to the measures
            that are one product; ``screen=True`` screens each block of conditioned rows, an index
            built before cannot). ``"cuda"`` runs the float32 search on the GPU engine (the CPU
            engine's lists) and makes the candidate side there by a CUDA kernel, a block at a
            time (NumPy memberships are copied block by block; CuPy memberships take the device
            path with the default backend too); the measures that are one product. ``"dask"``
            (``Dask(client)``: on that client) selects the candidates on the current
            ``dask.distributed`` client (:func:`embgeo.neighbors.topk` with the Dask engine, of the
            conditioned queries against the conditioned vocabulary, built row chunk by row chunk
            on the workers, never whole in one process) and certifies them here in float64, as
            locally: the same lists. NumPy memberships and the measures that are one product (all
            but ``"jaccard"`` and reversed ``"intersection_ratio"``).

        Returns
        -------
        scores : array of float64, shape (m, k)
        indices : array of int64, shape (m, k)

        Raises
        ------
        ValueError
            An unknown or pair measure, an unknown ``backend``, an engine other than the exact one
            for a measure that divides pair by pair, a screening index built before, ``k`` out of
            range.
        TypeError
            ``backend`` is neither an engine name nor an engine object.
        """
        engine = as_engine(backend, ARRAY_BACKENDS)
        if not isinstance(getattr(engine, "screen", None), (bool, type(None))):
            raise ValueError("FuzzyEmbeddings.neighbors searches conditioned rows it makes itself: an index built "
                             "before cannot screen them (Exact(screen=True) builds one for each block)")
        measure = _resolve_measure(measure)
        if not FUZZY_MEASURES[measure].searchable:
            raise ValueError(f"{measure!r} is a pair measure; vocabulary-wide search supports "
                             + ", ".join(repr(m.name) for m in FUZZY_MEASURES.values() if m.searchable))
        if engine.name != "exact" and not _is_linear(measure, reverse):
            raise ValueError(f"backend={backend!r} searches the measures that are one product; {measure!r}"
                             f"{' reversed' if reverse else ''} divides pair by pair: use backend='exact' "
                             "(on CuPy memberships it runs on the device)")
        q = self._as_query(queries)
        P = self.memberships
        xp = xb.get_namespace(P)
        n = len(self) if restrict_vocab is None else min(int(restrict_vocab), len(self))
        if n < 1:
            raise ValueError(f"restrict_vocab must be positive, got {restrict_vocab}")
        extra = self.indices(list(exclude)) if exclude is not None else np.zeros(0, dtype=np.int64)
        ex = []
        for src in q._sources:
            r = self.indices(list(src), oov="skip") if (exclude_self and src) else np.zeros(0, np.int64)
            r = np.unique(np.concatenate([r, extra]))
            ex.append(r[r < n])
        k = int(k)
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        n_ex = max((len(r) for r in ex), default=0)
        if k > n - n_ex:
            raise ValueError(f"k={k} exceeds the {n - n_ex} candidate words")
        Q = xp.astype(xb.asarray(q._mu, like=P), P.dtype)
        if isinstance(engine, Dask):
            idx = self._search_dask(Q, k, measure, reverse, ex, n, memory_budget, engine)
        else:
            idx = self._search(Q, k, measure, reverse, ex, n, memory_budget, progress, precompute, engine)
        return self._rescore(Q, idx, measure, reverse, memory_budget)

    def analogy_query(self, a, b, x) -> FuzzySet:
        """The set ``y = (b ⊔ x) \\ a`` answering a : b :: x : y (Bhat et al. 2020, Sec. 4.5).

        The paper's order of operations: bounded sum first, then the difference. The released
        programs compute ``clip((b + x) − min(b + x, a), 0, 1)``, which differs only on features
        where ``b + x > 1``.

        Parameters
        ----------
        a, b, x : str or list of str
            The three words of the question, or equal-length lists of words (a batch).

        Returns
        -------
        FuzzySet
            The query set (a batch for lists), whose sources are a, b and x.

        Raises
        ------
        UnknownWordError
            A word is not in the vocabulary.

        See Also
        --------
        analogy : the nearest words to this set.
        """
        if isinstance(a, str):
            return (self[b] + self[x]) - self[a]
        return (self[list(b)] + self[list(x)]) - self[list(a)]

    def analogy(self, a, b, x, topn: int = 1, *, measure: str = "cross_entropy", reverse: bool = False,
                restrict_vocab: int | None = None, memory_budget: int | None = None, progress: bool | None = None):
        """Set-theoretic analogy a : b :: x : y (Bhat et al. 2020, Sec. 4.5, Table 7): the ``topn``
        nearest words to :meth:`analogy_query` by ``measure`` (query as S), excluding a, b and x.

        ``F.words[i]`` names an index. To score a question file, pass :meth:`analogy_scorer` to
        :func:`embgeo.evaluate.analogy`.

        Parameters
        ----------
        a, b, x : str or list of str
            The three words of the question, or equal-length lists of words (a batch of m).
        topn : int, default 1
            The number of answers per question.
        measure : str, default "cross_entropy"
            A searchable measure of :data:`FUZZY_MEASURES`.
        reverse : bool, default False
            Rank by ``m(candidate, query)`` instead.
        restrict_vocab : int, optional
            Search only the first ``restrict_vocab`` rows (the most frequent words, by convention).
        memory_budget : int, optional
            Bytes of extra working memory (default 256 MiB).
        progress : bool, optional
            Progress bar over blocks; None: automatic.

        Returns
        -------
        scores : array of float64, shape (m, topn)
            Similarities, best first (m = 1 for single words).
        indices : array of int64, shape (m, topn)
            Rows of the answers.

        Raises
        ------
        UnknownWordError
            A word is not in the vocabulary.
        ValueError
            A measure that is not searchable, or ``topn`` larger than the candidates.

        See Also
        --------
        analogy_query : the query set.
        neighbors : the search.
        analogy_scorer : the same answers for a whole question file.
        """
        q = self.analogy_query(a, b, x)
        return self.neighbors(q, topn, measure=measure, reverse=reverse, restrict_vocab=restrict_vocab,
                              memory_budget=memory_budget, progress=progress)

    def analogy_scorer(self, measure: str = "cross_entropy", reverse: bool = False, *,
                       memory_budget: int | None = None, precompute: bool | None = None,
                       progress: bool | None = None):
        """A ``scorer`` for :func:`embgeo.evaluate.analogy`: answers ``y = (b ⊔ x) \\ a`` by ``measure``.

        The released code's Table 9 protocol (``compute-accuracy-topn.c``) is
        ``evaluate.analogy(F, questions, scorer=F.analogy_scorer(), topn=5, restrict_vocab=None)``:
        Bernoulli cross-entropy ``H(y, w)`` with the query first, solved when the answer is in the top 5.

        Parameters
        ----------
        measure : str, default "cross_entropy"
            A searchable measure of :data:`FUZZY_MEASURES`.
        reverse : bool, default False
            Rank by ``m(candidate, query)`` instead.
        memory_budget : int, optional
            Bytes of extra working memory per batch of questions (default 256 MiB).
        precompute : bool, optional
            Keep the transformed vocabulary with this object (see :meth:`neighbors`).
        progress : bool, optional
            Progress bar over blocks; None: automatic.

        Returns
        -------
        callable
            ``scorer(ia, ib, ic, exclude, k, n)`` returning the top-k rows of each question, with
            a ``label`` attribute (``"fuzzy-<measure>"``, ``"-rev"`` appended when reversed).

        Raises
        ------
        ValueError
            An unknown ``measure``.

        See Also
        --------
        analogy : one question, or a batch, directly.

        Examples
        --------
        >>> import numpy as np, embgeo
        >>> from embgeo.data import AnalogyQuestions
        >>> from embgeo.evaluate import analogy
        >>> F = FuzzyEmbeddings.from_embeddings(embgeo.Embeddings(list("abcdefgh"), np.eye(8) * 3))
        >>> qs = AnalogyQuestions({"s": np.array([["a", "b", "c", "d"]])})
        >>> r = analogy(F, qs, scorer=F.analogy_scorer(), topn=5)
        >>> r.method, r.topn, r.n_evaluated
        ('fuzzy-cross_entropy', 5, 1)
        """
        return _AnalogyScorer(self, _resolve_measure(measure), bool(reverse), memory_budget, precompute, progress)

    # Vocabulary-wide search. For every measure, a query side Q' and a candidate side D' (kept whole
    # with the object when it fits the budget, see _cached_candidates; else computed per block) such
    # that Q'·D'ᵀ ranks the candidates like the measure does (up to a per-query constant), optionally followed by a
    # division (Jaccard, reversed intersection ratio). S = query, T = candidate; with
    # logit t = ln t − ln(1 − t) and c(T) = −Σ ln(1 − t):
    #   −H(S, T) = S·logit(T) − c(T)            −H(T, S) = T·logit(S) − c(S)
    #   −D(S‖T) = −H(S, T) + H(S)               −D(T‖S) = −H(T, S) + H(T)
    #   −CE_cat(S, T) = S·ln T                  −D_cat(T‖S) = T·ln S − Σ t ln t
    # A query-side ln S or logit S (all near ln(1/n) on vocabulary-axis memberships) is centred on its
    # mean a: x·T = (x − a)·T + a·|T|, with |T| = Σ t the candidate's cardinality ("_c", "_mean",
    # "card"), so that no column of the form dwarfs the others (see _conditioning).
    _LINEAR = {  # (measure, reverse) -> (query parts, candidate parts)
        ("cross_entropy", False): (("S", "1"), ("logit", "sum_log1m")),
        ("kl", False): (("S", "1"), ("logit", "sum_log1m")),
        ("cross_entropy", True): (("logit_c", "logit_mean"), ("T", "card")),
        ("kl", True): (("logit_c", "logit_mean", "1"), ("T", "card", "entropy")),
        ("categorical_cross_entropy", False): (("S",), ("log",)),
        ("categorical_kl", False): (("S",), ("log",)),
        ("categorical_cross_entropy", True): (("log_c", "log_mean"), ("T", "card")),
        ("categorical_kl", True): (("log_c", "log_mean", "1"), ("T", "card", "neg_sum_tlogt")),
        ("symmetric_cross_entropy", False): (("S", "1", "logit_c", "logit_mean"), ("logit", "sum_log1m", "T", "card")),
        ("symmetric_kl", False): (("S", "1", "logit_c", "logit_mean"),
                                  ("logit", "sum_log1m_plus_entropy", "T", "card")),
        ("intersection_ratio", False): (("S",), ("T",)),
        ("intersection_ratio", True): (("S",), ("T",)),
        ("jaccard", False): (("S",), ("T",)),
    }

    @staticmethod
    def _parts(xp, A, names, start=0):
        """Concatenate the named per-row transforms of memberships ``A`` (float64)."""
        A = _f64(xp, A)
        cols = []
        for nm in names:
            if nm in ("S", "T"):
                cols.append(A)
            elif nm == "1":
                cols.append(xp.ones((A.shape[0], 1), dtype=A.dtype))
            elif nm == "logit":
                cols.append(_safe_log(xp, A) - _safe_log1m(xp, A))
            elif nm == "log":
                cols.append(_safe_log(xp, A))
            elif nm in ("logit_c", "logit_mean", "log_c", "log_mean"):
                L = _safe_log(xp, A) - _safe_log1m(xp, A) if nm.startswith("logit") else _safe_log(xp, A)
                a = xp.mean(L, axis=1, keepdims=True)
                cols.append(L - a if nm.endswith("_c") else a)
            elif nm == "card":
                cols.append(xp.sum(A, axis=1, keepdims=True))
            elif nm == "sum_log1m":
                cols.append(xp.sum(_safe_log1m(xp, A), axis=1, keepdims=True))
            elif nm == "entropy":
                cols.append(xp.reshape(_m_entropy(xp, A), (-1, 1)))
            elif nm == "sum_log1m_plus_entropy":
                cols.append(xp.sum(_safe_log1m(xp, A), axis=1, keepdims=True)
                            + xp.reshape(_m_entropy(xp, A), (-1, 1)))
            else:  # neg_sum_tlogt: −Σ t ln t with 0·ln 0 = 0
                cols.append(-xp.sum(xp.where(A > 0, A * _safe_log(xp, A), xp.zeros_like(A)), axis=1, keepdims=True))
        return cols[0] if len(cols) == 1 else xp.concat(cols, axis=1)

    def _conditioning(self, key):
        """Centre ``c`` and scale ``β`` of the linear form's columns, cached per measure.

        Any values rank alike: centring the candidate side (``D − c``) lowers every score of a query
        by the same ``Qa·c``, and scaling the columns (``Qa·β``, ``(D − c)/β``) leaves the products
        as they are. What they change is the rounding of a float32 search, whose error bound is
        ``Σ|q||d|``: for the vocabulary-axis memberships of GloVe 400k the logits are all near
        ln(1/400k) ≈ −13 and the ``1 · Σ ln(1 − t)`` column is 10⁵ times larger than the rest, so
        that the raw form's bound exceeds the gaps between neighbours and nothing can be certified
        cheaply. ``c`` is the median of each candidate column and ``β`` balances the two sides'
        ranges, both on a sample of about 4,096 evenly spaced rows.
        """
        ck = ("conditioning",) + key
        if ck not in self._cache:
            P = self.memberships
            xp = xb.get_namespace(P)
            q_names, c_names = self._LINEAR[key]
            rows = P[::max(1, P.shape[0] // 4096), ...]
            D = xb.to_numpy(self._parts(xp, rows, c_names))
            centre = np.median(D, axis=0)
            d_range = np.max(np.abs(D - centre), axis=0)
            q_range = np.max(np.abs(xb.to_numpy(self._parts(xp, rows, q_names))), axis=0)
            ok = (d_range > 0) & (q_range > 0)
            beta = np.where(ok, np.sqrt(np.where(ok, d_range, 1.0) / np.where(ok, q_range, 1.0)), 1.0)
            self._cache[ck] = (centre, beta)
        return self._cache[ck]

    def _cached_candidates(self, key, precompute, memory_budget):
        """The conditioned candidate side of the whole vocabulary and the largest |value| of each of its
        columns, ``(D, d_max)``, kept with this object; None where it is not kept.

        ``precompute=None`` keeps it when it fits ``memory_budget`` (n_words × w values in the storage
        dtype, w = dim + 1 for the cross-entropy and KL forms, up to 2·dim + 2 for the symmetric ones:
        78 MiB for GloVe 400k × 50 under the default 256 MiB); ``True`` always, ``False`` never. One
        form is kept at a time (the last one searched; the forward cross-entropy and KL share theirs),
        so the cache never holds more than one such copy. It is written block by block into its final
        array (the blocks sized by :meth:`_linear_search`'s rule), never assembled from a second copy.
        """
        if precompute is False:
            return None
        P = self.memberships
        xp = xb.get_namespace(P)
        form = self._LINEAR[key]
        n, w = P.shape[0], self._width(form[1])
        hit = self._cache.get("candidates")
        if hit is not None and hit[0] == form:
            return hit[1:]
        if precompute is None and n * w * (xp.finfo(P.dtype).bits // 8) > budget_bytes(memory_budget):
            return None
        self._cache.pop("candidates", None)  # the previous form's copy goes before the new one is built
        centre, beta = self._conditioning(key)
        D = xp.empty((n, w), dtype=P.dtype)
        d_max = np.zeros(w)
        step = block_rows(self._per_candidate_row(form), 1, 3 * budget_bytes(memory_budget) // 8)
        for c0, c1 in row_blocks(n, step):
            B = self._candidate_columns(key, c0, c1, centre, beta, P.dtype, memory_budget,
                                        out=D[c0:c1, ...] if xb.is_numpy(P) else None)
            if not xb.is_numpy(P):
                D[c0:c1, ...] = B
            d_max = np.maximum(d_max, np.maximum(xb.to_numpy(xp.max(B, axis=0)), -xb.to_numpy(xp.min(B, axis=0))))
            del B
        self._cache["candidates"] = (form, D, d_max)
        return D, d_max

    def _width(self, names):
        """Columns of the named candidate-side parts: dim for a transform of the memberships, 1 for a sum."""
        return sum(self.dim if nm in ("S", "T", "logit", "log") else 1 for nm in names)

    def _per_candidate_row(self, form):
        """Bytes of working memory per candidate row while its conditioned columns are computed: the
        output only for the Numba kernel, else the float64 temporaries of the logarithms (~6 copies)."""
        P = self.memberships
        w = self._width(form[1])
        return P.dtype.itemsize * w if (xb.is_numpy(P) and form[1] == ("logit", "sum_log1m")) else 48 * w

    def _candidate_columns(self, key, c0, c1, centre, scale, dtype, memory_budget, out=None, device=False):
        """``(D − centre) / scale`` for the candidate side D of rows [c0, c1), computed in float64 and
        rounded once to ``dtype`` (written into ``out``, NumPy, if given). ``device``: made by the
        CUDA kernel where the measure is the cross-entropy form (the rows are copied there if needed)."""
        P = self.memberships
        xp = xb.get_namespace(P)
        names = self._LINEAR[key][1]
        if (device or xb.is_cupy(P)) and names == ("logit", "sum_log1m"):
            from ..kernels import cuda as KC

            lib = xb.cuda_library()[0]
            B = lib.ascontiguousarray(lib.asarray(P[c0:c1, ...]))
            if lib is np and not B.flags.writeable:  # the simulator writes every argument back
                B = B.copy()
            out = lib.empty((c1 - c0, P.shape[1] + 1), dtype=dtype)
            KC.launch_threads(KC.conditioned_logit_rows, c1 - c0, B, LOG_TINY, lib.asarray(centre),
                              lib.asarray(1.0 / scale), out)
            return out
        if xb.is_numpy(P) and names == ("logit", "sum_log1m"):
            from ..kernels import fuzzy as kern
            from ..kernels import readonly

            out = np.empty((c1 - c0, P.shape[1] + 1), dtype=dtype) if out is None else out
            # read-only rows whatever the memberships' flag: one compiled specialization per dtype pair
            kern.conditioned_logit(readonly(np.ascontiguousarray(P[c0:c1])), LOG_TINY, centre, 1.0 / scale, out)
            return out
        # entropies and cardinalities are the cached per-word statistics: no logarithm per call for them
        stats = {"entropy": "entropy", "card": "cardinality"}
        st = self._stats(memory_budget) if any(nm in stats for nm in names) else None
        cols = [xp.reshape(xp.astype(st[stats[nm]][c0:c1, ...], xp.float64), (-1, 1)) if nm in stats
                else self._parts(xp, P[c0:c1, ...], (nm,)) for nm in names]
        D = cols[0] if len(cols) == 1 else xp.concat(cols, axis=1)
        D = (D - xb.asarray(centre, like=D)) / xb.asarray(scale, like=D)
        D = D if dtype == xp.float64 else xp.astype(D, dtype)
        if out is not None:
            out[...] = D
            return out
        return D

    def _search(self, Q, k, measure, reverse, ex, n, memory_budget, progress, precompute, backend="exact"):
        """Indices of the top-k candidates among the first ``n`` rows."""
        key = (measure, bool(reverse) and not FUZZY_MEASURES[measure].symmetric)
        if not _is_linear(measure, reverse):
            return self._ratio_search(Q, k, measure, ex, n, memory_budget, progress)
        return self._linear_search(Q, k, key, ex, n, memory_budget, progress, precompute, backend)

    def _linear_search(self, Q, k, key, ex, n, memory_budget, progress, precompute, backend="exact"):
        """Top-k of a linear measure: a float32 search for ``2k`` candidates, certified in float64.

        The candidates' scores are recomputed in float64 from the memberships. A query's list is
        certified when its k-th float64 score beats, by more than the rounding bound of the float32
        scores (:meth:`_rounding_bound`), the best float32 score left out; then it is the list of a
        float64 brute force (ties to the lower row). The few queries that are not certified (near-ties
        across the cut) are searched again in float64. With ``backend="cuda"`` the float32 search
        and the candidate side (:func:`embgeo.kernels.cuda.conditioned_logit_rows`) run on the
        device; the certificate and the float64 rescoring run here, as for the CPU engine.
        """
        P = self.memberships
        xp = xb.get_namespace(P)
        q_names = self._LINEAR[key][0]
        centre, beta = self._conditioning(key)
        Qa = self._parts(xp, Q, q_names)  # float64: the exact query side
        Qs = xp.astype(Qa * xb.asarray(beta, like=Qa), P.dtype)
        m, w = Qa.shape
        n_ex = np.array([len(e) for e in ex], dtype=np.int64)
        kk = min(2 * k, n - int(n_ex.max(initial=0)))
        budget = budget_bytes(memory_budget)
        # a block of candidates (with the float64 temporaries of its logarithms, about 6 copies; the
        # kernel writes only its output) in 3/8 of the budget, the search's tiles in a quarter, the
        # rest for the queries, the lists and their merges; every block keeps at least kk
        # candidates for every query
        left_out = np.full(m, -np.inf)  # per query: the best float32 score not kept
        cached = self._cached_candidates(key, precompute, memory_budget)
        if cached is not None:
            # the kept candidate side: one search over its first n rows (the column maxima of all its
            # rows bound those of the first n, so the certificate stays rigorous)
            D, d_max = cached
            best = _dot_topk(Qs, D[:n, ...], kk, metric="dot", exclude=ex, memory_budget=share(budget, 4),
                             progress=progress, check_finite=False, backend=backend)
        else:
            d_max = np.zeros(w)
            best = None
            device = isinstance(backend, Cuda)
            if device:  # the candidate blocks are made on the device: the queries go there once
                Qs = xb.cuda_library()[0].asarray(Qs)
            blocks = row_blocks(n, block_rows(self._per_candidate_row(self._LINEAR[key]), 1, 3 * budget // 8),
                                kk + int(n_ex.max(initial=0)))
            for c0, c1 in progress_bar(blocks, total=len(blocks), desc="fuzzy top-k", progress=progress,
                                       unit="block"):
                D = self._candidate_columns(key, c0, c1, centre, beta, P.dtype, budget, device=device)
                xd = xb.get_namespace(D)
                d_max = np.maximum(d_max, np.maximum(xb.to_numpy(xd.max(D, axis=0)),
                                                     -xb.to_numpy(xd.min(D, axis=0))))
                exb = [e[(e >= c0) & (e < c1)] - c0 for e in ex]  # the block's own rows
                s_, i_ = _dot_topk(Qs, D, kk, metric="dot", exclude=exb, memory_budget=share(budget, 4),
                                   progress=False, check_finite=False, backend=backend)
                i_ = i_ + c0
                avail = (c1 - c0) - np.array([len(e) for e in exb], dtype=np.int64)
                left_out = np.maximum(left_out, np.where(avail > kk, xb.to_numpy(s_)[:, kk - 1], -np.inf))
                best = (s_, i_) if best is None else merge_topk([best, (s_, i_)], kk)
                del D  # the block's memory goes back before the next one (and before the rescoring)
        idx = self._certified(Qa, key, best, left_out, d_max, k, ex, n, budget)
        return idx if xb.is_numpy(P) else xp.asarray(idx)

    def _certified(self, Qa, key, best, left_out, d_max, k, ex, n, budget):
        """The top-k indices of a float32 candidate list ``best`` (m, kk), certified in float64.

        ``left_out``: per query, the best float32 score of a row not in the list (−inf if none);
        ``d_max``: the largest |value| of each conditioned candidate column. Queries that fail the
        certificate are searched again in float64."""
        P = self.memberships
        xp = xb.get_namespace(P)
        centre, beta = self._conditioning(key)
        s_, idx = (xb.to_numpy(a) for a in best)
        kk = idx.shape[1]
        n_ex = np.array([len(e) for e in ex], dtype=np.int64)
        left_out = np.maximum(left_out, np.where(n - n_ex > kk, s_[:, kk - 1], -np.inf))
        r = self._linear_scores(Qa, idx, key, centre, budget)
        order = np.lexsort((idx, -r), axis=1)
        r, idx = np.take_along_axis(r, order, axis=1), np.take_along_axis(idx, order, axis=1)[:, :k]
        bound = self._rounding_bound(Qa, beta, centre, d_max, float(xp.finfo(P.dtype).eps))
        redo = np.flatnonzero(~(r[:, k - 1] > left_out + bound))
        if redo.size:
            rows = redo if xb.is_numpy(Qa) else xp.asarray(redo)
            idx[redo] = self._float64_search(xp.take(Qa, rows, axis=0), k, key, [ex[i] for i in redo], n, budget)
        return idx

    @staticmethod
    def _rounding_bound(Qa, beta, centre, d_max, eps):
        """Per query, a bound of |float32 score − float64 score| for every candidate (twice the sum below).

        The float32 search multiplies ``q' = fl(Qa·β)`` by ``d' = fl((D − c)/β)`` (each one rounding,
        ≤ u) with error ≤ γ_w Σ|q'||d'| (Higham, *Accuracy and Stability of Numerical Algorithms*,
        Lemma 3.1; also a bound of the canonical scores of :func:`embgeo.neighbors.topk`); ``D``
        itself differs from the float64 transform by ≤ 3(d + 2)·2⁻⁵³·(1 + |D|) per value
        (:func:`embgeo.kernels.fuzzy.conditioned_logit`). With ``d_max`` the largest |d'| of each
        column: ``Σ_l |q'_l|·((w + 3)·u·d_max_l + 3(d + 2)·2⁻⁵³·(1 + |c_l| + β_l d_max_l)/β_l)``.
        """
        u = eps / 2
        w = d_max.shape[0]
        q = np.abs(xb.to_numpy(Qa)) * beta
        per_col = (w + 3) * u * d_max + 3 * (w + 2) * 2.0 ** -53 * (1 + np.abs(centre) + beta * d_max) / beta
        return 2 * (q @ per_col) + 1e-300

    def _linear_scores(self, Qa, idx, key, centre, budget):
        """``Qa·(D − c)`` in float64 for the candidates ``idx`` (m, kk) of each query, from the memberships."""
        P = self.memberships
        xp = xb.get_namespace(P)
        names = self._LINEAR[key][1]
        m, kk = idx.shape
        # the gathered rows in float64 with the temporaries of their logarithms: about 12 copies
        step = min(m, block_rows(96 * kk * Qa.shape[1], 1, budget // 2))
        out = np.empty((m, kk))
        for r0, r1 in row_blocks(m, step):
            rows = idx[r0:r1].reshape(-1)
            D = self._parts(xp, xp.take(P, rows if xb.is_numpy(P) else xp.asarray(rows), axis=0), names)
            D = xb.to_numpy(D).reshape(r1 - r0, kk, -1) - centre
            out[r0:r1] = np.einsum("qkw,qw->qk", D, xb.to_numpy(Qa[r0:r1, ...]))
        return out

    def _float64_search(self, Qa, k, key, ex, n, budget):
        """The top-k of ``Qa·(D − c)`` computed in float64 over the first ``n`` rows (the brute force
        that certifies the float32 search; run for the queries it could not certify)."""
        P = self.memberships
        xp = xb.get_namespace(P)
        centre, _ = self._conditioning(key)
        best = None
        for c0, c1 in row_blocks(n, block_rows(96 * Qa.shape[1], 1, budget // 2),
                                  k + max((len(e) for e in ex), default=0)):
            D = self._candidate_columns(key, c0, c1, centre, np.ones_like(centre), xp.float64, budget)
            exb = [e[(e >= c0) & (e < c1)] - c0 for e in ex]  # the block's own rows
            s_, i_ = _dot_topk(Qa, D, k, metric="dot", exclude=exb, memory_budget=share(budget, 2),
                               progress=False, check_finite=False)
            best = (s_, i_ + c0) if best is None else merge_topk([best, (s_, i_ + c0)], k)
        return xb.to_numpy(best[1])

    def _ratio_search(self, Q, k, measure, ex, n, memory_budget, progress):
        """Top-k of a ratio measure (Jaccard, reversed intersection ratio): blocks of G = Q·Tᵀ, divided
        pair by pair, selected in the storage dtype (the k are rescored in float64 afterwards)."""
        P = self.memberships
        xp = xb.get_namespace(P)
        is_np = xb.is_numpy(P)
        m = Q.shape[0]
        budget = budget_bytes(memory_budget)
        # half the budget for one block of candidates, half for one block of scores (about 3 copies
        # with the ratios)
        c_step = min(n, block_rows(6 * (Q.shape[1] + 1), 8, budget // 2))
        q_step = min(m, block_rows(3 * c_step, 8, budget // 2))
        # every block keeps k candidates for every query, its exclusions aside
        blocks = row_blocks(n, c_step, k + max((len(e) for e in ex), default=0))
        card = self._stats(budget)["cardinality"]
        a = _m_cardinality(xp, Q)
        # with every cardinality positive no ratio is 0/0 and a Numba pass (or a division) suffices
        fused = is_np and bool(np.all(card[:n] > 0)) and bool(np.all(a > 0))
        if fused:
            from ..kernels import fuzzy as kern
        best = None
        for c0, c1 in progress_bar(blocks, total=len(blocks), desc="fuzzy top-k", progress=progress, unit="block"):
            D = P[c0:c1, ...]
            DT = D.T if is_np else xp.matrix_transpose(D)
            blk_s, blk_i = [], []
            for q0 in range(0, m, q_step):
                q1 = min(q0 + q_step, m)
                G = Q[q0:q1, ...] @ DT
                if fused:  # one in-place pass instead of the temporaries of _ratio
                    if measure == "jaccard":
                        kern.jaccard_inplace(G, a[q0:q1].astype(G.dtype), card[c0:c1].astype(G.dtype))
                    else:
                        np.divide(G, card[c0:c1].astype(G.dtype).reshape(1, -1), out=G)
                else:
                    cb = xp.reshape(xp.astype(card[c0:c1], G.dtype), (1, -1))
                    den = (xp.reshape(xp.astype(a[q0:q1], G.dtype), (-1, 1)) + cb - G if measure == "jaccard"
                           else xp.broadcast_to(cb, G.shape))
                    G = _ratio(xp, G, den)
                s_, i_ = select_topk(G, k, exclude=[e[(e >= c0) & (e < c1)] - c0 for e in ex[q0:q1]])
                blk_s.append(s_)
                blk_i.append(xp.astype(i_, xp.int64) + c0)
            part = (xp.concat(blk_s, axis=0), xp.concat(blk_i, axis=0))
            best = part if best is None else merge_topk([best, part], k)
        return best[1]

    def _search_dask(self, Q, k, measure, reverse, ex, n, memory_budget, engine):
        """:meth:`_search` on a Dask cluster: one sharded top-k of transformed rows (linear measures)."""
        import dask.array as da

        from ..distributed import get_client

        P = self.memberships
        key = (measure, bool(reverse) and not FUZZY_MEASURES[measure].symmetric)
        if not xb.is_numpy(P):
            raise ValueError("backend='dask' needs NumPy memberships")
        q_names, c_names = self._LINEAR[key]
        centre, beta = self._conditioning(key)
        Qa = self._parts(np, Q, q_names)
        budget = budget_bytes(memory_budget)
        n_ex = np.array([len(e) for e in ex], dtype=np.int64)
        kk = min(2 * k, n - int(n_ex.max(initial=0)))
        # row chunks of the vocabulary; each is transformed where it is (float64 temporaries: ~6 copies)
        step = min(n, block_rows(48 * Qa.shape[1], 1, budget // 2))
        A = da.from_array(P[:n], chunks=(step, P.shape[1]))
        D = A.map_blocks(_conditioned_chunk, c_names, centre, beta, dtype=P.dtype,
                         chunks=(A.chunks[0], (Qa.shape[1],)))
        best = _dot_topk((Qa * beta).astype(P.dtype), D, kk, metric="dot", exclude=ex, backend=engine)
        # on the engine's client, which need not be the current one (dask's compute() would run here then)
        d_max = get_client(engine.client).compute(da.max(da.abs(D.astype(np.float64)), axis=0)).result()
        # a sharded search merges to one list: what it left out scored at most its last score
        return self._certified(Qa, key, best, np.full(Q.shape[0], -np.inf), d_max, k, ex, n, budget)

    def _rescore(self, Q, idx, measure, reverse, memory_budget=None):
        """Exact float64 scores of the selected candidates, re-sorted (best first, ties to the lower row).

        Blocks of queries keep the float64 temporaries (about 8 copies of k × dim per query) in budget."""
        P = self.memberships
        xp = xb.get_namespace(P)
        m, k = idx.shape
        budget = budget_bytes(memory_budget)
        step = min(m, block_rows(8 * k * self.dim, 8, budget // 2))
        parts = []
        for r0, r1 in row_blocks(m, step):
            T = xp.reshape(xp.take(P, xp.reshape(idx[r0:r1, ...], (-1,)), axis=0), (r1 - r0, k, self.dim))
            S = xp.reshape(Q[r0:r1, ...], (r1 - r0, 1, self.dim))
            if reverse:
                S, T = T, S
            parts.append(_MEASURE_FUNCS[measure](xp, S, T))
        v = parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)
        if measure in _DIVERGENCES:
            v = -v
        if xb.is_numpy(v):
            order = np.lexsort((idx, -v), axis=1)
            return np.take_along_axis(v, order, axis=1), np.take_along_axis(idx, order, axis=1).astype(np.int64)
        order = xp.argsort(-v, axis=1, stable=True)
        return xp.take_along_axis(v, order, axis=1), xp.astype(xp.take_along_axis(idx, order, axis=1), xp.int64)

    def most_similar(self, query, topn: int = 10, *, measure: str = "cross_entropy", reverse: bool = False,
                     exclude=None, restrict_vocab: int | None = None, backend="exact") -> list:
        """``[(word, similarity), ...]`` for one query (a word or a single :class:`FuzzySet`),
        best first, excluding the words the query was built from; see :meth:`neighbors` (the nearest-word
        lists of Bhat et al. 2020, Tables 1-3 and 6).

        Examples: ``F.most_similar(F["north"] & F["korea"])``,
        ``F.most_similar("cat", measure="kl", reverse=True)``; ``backend="dask"`` searches on
        the current Dask client (:meth:`neighbors`).

        Parameters
        ----------
        query : str or FuzzySet
            A word, or a single set (e.g. ``F["north"] & F["korea"]``).
        topn : int, default 10
            The number of words returned.
        measure : str, default "cross_entropy"
            A searchable measure of :data:`FUZZY_MEASURES`.
        reverse : bool, default False
            Rank by ``m(candidate, query)`` instead.
        exclude : sequence of str, optional
            Further words never returned.
        restrict_vocab : int, optional
            Search only the first ``restrict_vocab`` rows.
        backend : {"exact", "cuda", "dask"} or Exact or Cuda or Dask, default "exact"
            The engine of the search, a name or an engine object (see :meth:`neighbors`).

        Returns
        -------
        list of (str, float)
            The nearest words and their similarities, best first.

        Raises
        ------
        ValueError
            A batch query, a measure that is not searchable, or ``topn`` larger than the candidates.
        UnknownWordError
            An unknown query or excluded word.

        See Also
        --------
        neighbors : batches of queries, as arrays.
        """
        q = self._as_query(query)
        if q.is_batch:
            raise ValueError("most_similar takes one query; use neighbors() for a batch")
        s, i = self.neighbors(q, topn, measure=measure, reverse=reverse, exclude=exclude,
                              restrict_vocab=restrict_vocab, progress=False, backend=backend)
        s, i = xb.to_numpy(s)[0], xb.to_numpy(i)[0]
        return [(self.words[j], float(v)) for v, j in zip(s, i)]


def _conditioned_chunk(block, names, centre, beta):
    """Conditioned candidate side of one row chunk in its storage dtype (a Dask task of ``backend="dask"``)."""
    return ((FuzzyEmbeddings._parts(np, block, names) - centre) / beta).astype(block.dtype)


class _AnalogyScorer:
    """Callable for :func:`embgeo.evaluate.analogy`: fuzzy analogies of a batch of questions."""

    def __init__(self, F, measure, reverse, memory_budget, precompute, progress):
        self.F, self.measure, self.reverse = F, measure, reverse
        self.memory_budget, self.precompute, self.progress = memory_budget, precompute, progress
        self.label = f"fuzzy-{measure}" + ("-rev" if reverse else "")

    def __call__(self, ia, ib, ic, exclude, k, n):
        F = self.F
        P = F.memberships
        xp = xb.get_namespace(P)

        def rows(i):
            i = np.asarray(i, dtype=np.int64)
            return xp.take(P, i if xb.is_numpy(P) else xp.asarray(i), axis=0)

        Q = _op_difference(xp, _op_disjoint_union(xp, rows(ib), rows(ic)), rows(ia))
        ex = [np.asarray(e, dtype=np.int64)[np.asarray(e) < n] for e in exclude]
        idx = F._search(Q, k, self.measure, self.reverse, ex, n, self.memory_budget, self.progress,
                        self.precompute)
        return F._rescore(Q, idx, self.measure, self.reverse, self.memory_budget)[1]
