"""Word embeddings as tuples of feature probabilities: words as fuzzy sets.

Bhat, Debnath, Banerjee & Shrivastava (2020), "Word Embeddings as Tuples of Feature Probabilities",
Proceedings of the 5th Workshop on Representation Learning for NLP (RepL4NLP), pp. 24-33,
doi:10.18653/v1/2020.repl4nlp-1.4.

Each dimension ``i`` of an embedding is read as a feature, and each word ``w`` receives the
probability ``µ_w[i]`` of possessing it (the paper's construction)::

    µ_w[i] = exp(v_w[i]) / Σ_{w'} exp(v_{w'}[i])          (normalised over the vocabulary)

A word is then a fuzzy set over the d features (equivalently, d independent Bernoulli variables
X_i with P(X_i = 1) = µ[i]), which gives set operations and asymmetric similarities::

    A ∩ B = A·B                 A ∪ B = A + B − A·B          A ⊔ B = clip(A + B, 0, 1)
    ¬A = 1 − A                  A \\ B = A − min(A, B)        |A| = Σ_i µ_A[i]
    H(A) = Σ_i −a_i ln a_i − (1 − a_i) ln(1 − a_i)          (fuzzy entropy, 0·ln 0 = 0)
    J(A, B) = |A ∩ B| / |A ∪ B|                              (fuzzy Jaccard)
    D(S‖T) = Σ_i D(X_i^S ‖ X_i^T)                           (KL of the Bernoulli features)
    H(S, T) = Σ_i H(X_i^S) + D(X_i^S ‖ X_i^T)               (cross-entropy, the paper's definition)

Direction convention
--------------------
Every asymmetric measure ``m(S, T)`` takes its *first* argument as ``S`` (the distribution the
expectation is taken under) and its second as ``T``: ``cross_entropy(S, T) = H(S, T)``,
``kl_divergence(S, T) = D(S‖T)``, ``intersection_ratio(S, T) = |S ∩ T| / |S|``,
``graded_inclusion(S, T)`` = share of features with ``µ_S ≤ µ_T`` (how far S ⊆ T).
``FuzzyEmbeddings.similarity_pairs(words1, words2, measure)`` uses ``S = words1[j], T = words2[j]``
and ``reverse=True`` swaps them; vocabulary-wide search (:meth:`FuzzyEmbeddings.neighbors`) uses
``S = query, T = candidate`` and ``reverse=True`` ranks by ``m(candidate, query)``. Divergences are
returned negated (``−H``, ``−D``) wherever a *similarity* is expected.

Where memberships are clipped
-----------------------------
Only in two places, both required by the mathematics: the disjoint union's ``clip(A + B, 0, 1)``
(its definition), and the logarithm of a membership that is exactly 0 (``ln µ``) or exactly 1
(``ln(1 − µ)``), where ``ln 0`` is replaced by ``ln(tiny) = −708.4`` (``tiny`` the smallest normal
float64). Terms whose coefficient is 0 are 0 (``0·ln 0 = 0``), so this clip only turns a
divergence that is mathematically +inf into a large finite one (ranked last, never NaN).
Exact 0 or 1 memberships arise after set operations (a difference ``A \\ B`` with ``A ⊆ B``) or by
underflow, never from the normalisation of ordinary embeddings.

The released code
-----------------
The authors' released code differs from the paper in two ways that this module lets you
reproduce: it uses base 2 instead of e and normalises each word over its *features* (row-wise
softmax) rather than each feature over the vocabulary -- ``axis="features", base=2`` here -- and
its function called "KL divergence" computes the cross-entropy and vice versa. embgeo follows
the definitions above (tested: ``H(S, T) = H(S) + D(S‖T)``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import backend
from .embeddings import Embeddings
from .neighbors import block_rows, select_topk
from .neighbors import topk as _dot_topk
from .progress import progress_bar

__all__ = [
    "FuzzyEmbeddings",
    "FuzzySet",
    "fuzzify",
    "intersection",
    "union",
    "disjoint_union",
    "complement",
    "difference",
    "is_subset",
    "graded_inclusion",
    "cardinality",
    "entropy",
    "jaccard",
    "intersection_ratio",
    "kl_divergence",
    "cross_entropy",
    "function_words",
    "FunctionWordReport",
    "polysemy",
    "hyponymy",
    "HyponymyReport",
    "evaluate_analogies",
    "AnalogyReport",
    "MEASURES",
    "LOG_TINY",
]

#: ``ln`` of the smallest normal float64: the value used for ``ln 0`` (see "Where memberships are clipped").
LOG_TINY = math.log(np.finfo(np.float64).tiny)

#: Measures understood by ``similarity_pairs`` and ``neighbors`` (``inclusion``: pairs only).
MEASURES = ("cross_entropy", "kl", "jaccard", "intersection_ratio", "inclusion")
_ALIASES = {"ce": "cross_entropy", "cross-entropy": "cross_entropy", "crossentropy": "cross_entropy",
            "kl_divergence": "kl", "graded_inclusion": "inclusion"}
_AXES = ("vocabulary", "features")


# ====================================================================== representation
def fuzzify(X, axis: str = "vocabulary", base: float = math.e, *, dtype=None,
            memory_budget: int | None = None, progress: bool | None = None):
    """Feature probabilities of word vectors: exponentiate and normalise (Bhat et al. 2020).

    ``axis="vocabulary"`` (the paper): ``µ[w, i] = base**X[w, i] / Σ_{w'} base**X[w', i]``, each
    column sums to 1 over the vocabulary. ``axis="features"`` (the released code, with
    ``base=2``): ``µ[w, i] = base**X[w, i] / Σ_j base**X[w, j]``, each row sums to 1.

    The column (or row) maximum is subtracted before exponentiating, so nothing overflows;
    exponentials and sums are float64 and the result is stored in ``dtype`` (float32 default).
    On NumPy a parallel Numba kernel makes two passes over the rows (column max and rescaled
    sum of exponentials in one online pass, then the write), with O(d) extra memory beyond the
    output. Other arrays (CuPy, array-API) take the same two passes in blocks of rows.

    Parameters
    ----------
    X : array, shape (n_words, dim)
        Word vectors; finite.
    axis : {"vocabulary", "features"}
    base : float, default e
        Must be greater than 1.
    dtype : {"float32", "float64"}, optional
        Storage dtype of the memberships (default: embgeo's default, float32).
    memory_budget : int, optional
        Bytes for one block of float64 rows on the array-API path.
    progress : bool, optional
        Progress bar over blocks (array-API path).

    Returns
    -------
    M : array, shape (n_words, dim), same library as ``X``
        Memberships in [0, 1].

    Raises
    ------
    ValueError
        Unknown axis, ``base <= 1``, a non-2-D, empty or non-finite ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> M = fuzzify(np.log(np.array([[1., 2.], [3., 2.]])), dtype="float64")
    >>> M.tolist()
    [[0.25, 0.5], [0.75, 0.5]]
    """
    if axis not in _AXES:
        raise ValueError(f"axis must be 'vocabulary' or 'features', got {axis!r}")
    base = float(base)
    if not math.isfinite(base) or base <= 1.0:
        raise ValueError(f"base must be a finite number greater than 1, got {base!r}")
    X = backend.check_matrix(X, "X")
    xp = backend.get_namespace(X)
    dt = backend.resolve_dtype(dtype, xp)
    scale = math.log(base)
    if backend.is_numpy(X):
        from .kernels import fuzzy as kern

        X = np.ascontiguousarray(X, dtype=X.dtype if X.dtype in (np.float32, np.float64) else np.float64)
        out = np.empty(X.shape, dtype=dt)
        if axis == "vocabulary":
            m, s = kern.column_logsumexp(X, scale)
            kern.write_column_softmax(X, scale, m, s, out)
        else:
            kern.row_softmax(X, scale, out)
        return out
    return _fuzzify_xp(xp, X, axis, scale, dt, memory_budget, progress)


def _fuzzify_xp(xp, X, axis, scale, dt, memory_budget, progress):
    n, d = X.shape
    step = block_rows(d, 8, memory_budget)
    starts = range(0, n, step)

    def scaled(s):
        return xp.astype(X[s:min(s + step, n), ...], xp.float64) * scale

    if axis == "features":
        parts = []
        for s in progress_bar(starts, total=len(starts), desc="fuzzify", progress=progress, unit="block"):
            A = scaled(s)
            E = xp.exp(A - xp.max(A, axis=1, keepdims=True))
            parts.append(xp.astype(E / xp.sum(E, axis=1, keepdims=True), dt))
        return xp.concat(parts, axis=0)
    # pass 1, blockwise log-sum-exp: the running sum is rescaled whenever the column maximum grows
    m, tot = None, None
    for s in starts:
        A = scaled(s)
        bm = xp.max(A, axis=0, keepdims=True)
        if m is None:
            m, tot = bm, xp.sum(xp.exp(A - bm), axis=0, keepdims=True)
            continue
        new = xp.maximum(m, bm)
        tot = tot * xp.exp(m - new) + xp.sum(xp.exp(A - new), axis=0, keepdims=True)
        m = new
    # pass 2: write
    parts = [xp.astype(xp.exp(scaled(s) - m) / tot, dt)
             for s in progress_bar(starts, total=len(starts), desc="fuzzify", progress=progress, unit="block")]
    return xp.concat(parts, axis=0)


# ============================================================ elementwise definitions
def _safe_log(xp, x):
    """ln x, with ln 0 := LOG_TINY (the one clip the maths needs; see the module docstring)."""
    pos = x > 0
    return xp.where(pos, xp.log(xp.where(pos, x, xp.ones_like(x))), xp.full_like(x, LOG_TINY))


def _safe_log1m(xp, x):
    """ln(1 − x), with ln 0 := LOG_TINY."""
    lt = x < 1
    return xp.where(lt, xp.log1p(-xp.where(lt, x, xp.zeros_like(x))), xp.full_like(x, LOG_TINY))


def _f64(xp, A):
    return xp.astype(A, xp.float64)


def _entropy_terms(xp, a):
    """Per-feature Bernoulli entropy −a ln a − (1 − a) ln(1 − a), 0·ln 0 = 0."""
    zero = xp.zeros_like(a)
    return -(xp.where(a > 0, a * _safe_log(xp, a), zero) + xp.where(a < 1, (1 - a) * _safe_log1m(xp, a), zero))


def _ce_terms(xp, s, t):
    """Per-feature cross-entropy −s ln t − (1 − s) ln(1 − t)."""
    zero = xp.zeros_like(s)
    return -(xp.where(s > 0, s * _safe_log(xp, t), zero) + xp.where(s < 1, (1 - s) * _safe_log1m(xp, t), zero))


def _kl_terms(xp, s, t):
    """Per-feature s ln(s/t) + (1 − s) ln((1 − s)/(1 − t)), computed from the ratios directly."""
    zero = xp.zeros_like(s)
    return (xp.where(s > 0, s * (_safe_log(xp, s) - _safe_log(xp, t)), zero)
            + xp.where(s < 1, (1 - s) * (_safe_log1m(xp, s) - _safe_log1m(xp, t)), zero))


def _ratio(xp, num, den):
    # 0/0 arises only for empty sets: J(∅, ∅) = 1 and Kosko's subsethood |∅ ∩ B| / |∅| = 1
    ok = den > 0
    return xp.where(ok, num / xp.where(ok, den, xp.ones_like(den)), xp.ones_like(num))


def _op_intersection(xp, A, B):
    return A * B


def _op_union(xp, A, B):
    return A + B - A * B


def _op_disjoint_union(xp, A, B):
    return xp.clip(A + B, 0, 1)


def _op_difference(xp, A, B):
    return A - xp.minimum(A, B)


def _m_cardinality(xp, A):
    return xp.sum(_f64(xp, A), axis=-1)


def _m_entropy(xp, A):
    return xp.sum(_entropy_terms(xp, _f64(xp, A)), axis=-1)


def _m_inclusion(xp, S, T):
    return xp.mean(xp.astype(S <= T, xp.float64), axis=-1)


def _m_jaccard(xp, S, T):
    S, T = _f64(xp, S), _f64(xp, T)
    inter = xp.sum(S * T, axis=-1)
    return _ratio(xp, inter, xp.sum(S, axis=-1) + xp.sum(T, axis=-1) - inter)


def _m_intersection_ratio(xp, S, T):
    S, T = _f64(xp, S), _f64(xp, T)
    return _ratio(xp, xp.sum(S * T, axis=-1), xp.sum(S, axis=-1))


def _m_cross_entropy(xp, S, T):
    return xp.sum(_ce_terms(xp, _f64(xp, S), _f64(xp, T)), axis=-1)


def _m_kl(xp, S, T):
    return xp.sum(_kl_terms(xp, _f64(xp, S), _f64(xp, T)), axis=-1)


_MEASURE_FUNCS = {"cross_entropy": _m_cross_entropy, "kl": _m_kl, "jaccard": _m_jaccard,
                  "intersection_ratio": _m_intersection_ratio, "inclusion": _m_inclusion}
_DIVERGENCES = ("cross_entropy", "kl")


def _resolve_measure(measure):
    if measure is None:
        return "cross_entropy"
    m = _ALIASES.get(measure, measure)
    if m not in MEASURES:
        raise ValueError(f"unknown fuzzy measure {measure!r}; choose from {', '.join(MEASURES)}")
    return m


def _check_memberships(M, name="memberships"):
    """Validate memberships: floating, finite, in [0, 1], non-empty last axis."""
    xp = backend.get_namespace(M)
    M = xp.asarray(M)
    if not xp.isdtype(M.dtype, "real floating"):
        M = xp.astype(M, backend.resolve_dtype(None, xp))
    if M.ndim == 0 or M.shape[-1] == 0 or any(s == 0 for s in M.shape):
        raise ValueError(f"{name} is empty (shape {tuple(M.shape)})")
    if not bool(xp.all(xp.isfinite(M))):
        raise ValueError(f"{name} hold NaN or inf")
    if not bool(xp.all((M >= 0) & (M <= 1))):
        raise ValueError(f"{name} must lie in [0, 1] (min {float(xp.min(M)):.4g}, max {float(xp.max(M)):.4g})")
    return M


def _pair_arrays(A, B):
    A, B = _check_memberships(A, "A"), _check_memberships(B, "B")
    if A.shape[-1] != B.shape[-1]:
        raise ValueError(f"fuzzy sets over different numbers of features ({A.shape[-1]} vs {B.shape[-1]})")
    return backend.get_namespace(A, B), A, B


def _public_op(name, fn, doc):
    def f(A, B):
        xp, A, B = _pair_arrays(A, B)
        return fn(xp, A, B)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


intersection = _public_op("intersection", _op_intersection, """
    Fuzzy intersection ``A ∩ B = A·B`` (algebraic product; Bhat et al. 2020).

    ``A`` and ``B`` are membership arrays of shape (..., d) that broadcast against each other.""")
union = _public_op("union", _op_union, """
    Fuzzy union ``A ∪ B = A + B − A·B`` (probabilistic sum; Bhat et al. 2020).""")
disjoint_union = _public_op("disjoint_union", _op_disjoint_union, """
    Disjoint union ``A ⊔ B = clip(A + B, 0, 1)`` (bounded sum; Bhat et al. 2020).""")
difference = _public_op("difference", _op_difference, """
    Fuzzy difference ``A \\ B = A − min(A, B)`` (Bhat et al. 2020).""")
graded_inclusion = _public_op("graded_inclusion", _m_inclusion, """
    Share of features with ``µ_S ≤ µ_T``: the degree to which ``S ⊆ T`` (float64, in [0, 1]).""")
jaccard = _public_op("jaccard", _m_jaccard, """
    Fuzzy Jaccard similarity ``|S ∩ T| / |S ∪ T|`` with the product intersection (float64).

    Note that ``J(A, A) = Σa² / Σ(2a − a²) < 1`` unless A is crisp: the product t-norm is not idempotent.""")
intersection_ratio = _public_op("intersection_ratio", _m_intersection_ratio, """
    ``|S ∩ T| / |S|`` (Kosko's subsethood of S in T with the product t-norm; float64).

    An empty ``S`` gives 1 (the empty set is included in everything).""")
cross_entropy = _public_op("cross_entropy", _m_cross_entropy, """
    Cross-entropy ``H(S, T) = Σ_i H(X_i^S) + D(X_i^S ‖ X_i^T)`` of the per-feature Bernoulli variables
    (Bhat et al. 2020), in nats, float64: ``−Σ s ln t + (1 − s) ln(1 − t)``.

    ``S`` is the first argument. ``ln 0`` is clipped to :data:`LOG_TINY` (see the module docstring).""")
kl_divergence = _public_op("kl_divergence", _m_kl, """
    KL divergence ``D(S ‖ T) = Σ_i s ln(s/t) + (1 − s) ln((1 − s)/(1 − t))`` of the per-feature
    Bernoulli variables (Bhat et al. 2020), in nats, float64. ``S`` is the first argument.""")


def complement(A):
    """Fuzzy complement ``¬A = 1 − A`` (Bhat et al. 2020)."""
    A = _check_memberships(A, "A")
    return 1 - A


def is_subset(S, T):
    """Crisp inclusion test ``S ⊆ T``: every feature has ``µ_S ≤ µ_T`` (bool, or bool array for batches)."""
    xp, S, T = _pair_arrays(S, T)
    return xp.all(S <= T, axis=-1)


def cardinality(A):
    """Fuzzy cardinality ``|A| = Σ_i µ_A[i]`` (float64), over the last axis."""
    A = _check_memberships(A, "A")
    return _m_cardinality(backend.get_namespace(A), A)


def entropy(A):
    """Fuzzy entropy ``H(A) = Σ_i −a_i ln a_i − (1 − a_i) ln(1 − a_i)`` with ``0·ln 0 = 0``
    (Bhat et al. 2020), in nats, float64."""
    A = _check_memberships(A, "A")
    return _m_entropy(backend.get_namespace(A), A)


# ================================================================== FuzzySet
class FuzzySet:
    """One fuzzy set over d features, or a batch of them, with set algebra by operators.

    ``A & B`` intersection, ``A | B`` union, ``A + B`` disjoint union, ``~A`` complement,
    ``A - B`` difference, ``A <= B`` crisp inclusion; the named methods do the same and add the
    measures. Operands broadcast: a single set combines with every row of a batch.

    A set remembers the vocabulary words it was built from (:attr:`sources`), so that a
    vocabulary search excludes them, as gensim's ``most_similar`` excludes its input words.

    Parameters
    ----------
    memberships : array, shape (d,) or (m, d)
        Values in [0, 1]; NumPy, CuPy or array-API.
    sources : tuple of str (single set) or list of tuples (batch), optional
    label : str, optional
        A readable expression, e.g. ``"(north & korea)"``.
    """

    __slots__ = ("_mu", "_single", "_sources", "label")
    __array_ufunc__ = None  # ``ndarray & FuzzySet`` defers to FuzzySet's reflected operators

    def __init__(self, memberships, *, sources=None, label=None, check: bool = True):
        mu = _check_memberships(memberships) if check else memberships
        if mu.ndim not in (1, 2):
            raise ValueError(f"a FuzzySet holds a vector (d,) or a batch (m, d), got shape {tuple(mu.shape)}")
        xp = backend.get_namespace(mu)
        self._single = mu.ndim == 1
        self._mu = xp.reshape(mu, (1, -1)) if self._single else mu
        m = self._mu.shape[0]
        if sources is None:
            sources = [()] * m
        elif self._single:
            sources = [tuple(sources)]
        else:
            sources = [tuple(s) for s in sources]
        if len(sources) != m:
            raise ValueError(f"{len(sources)} source tuples for {m} sets")
        self._sources = sources
        self.label = label

    # ---------------------------------------------------------------- views
    @property
    def memberships(self):
        """Shape (d,) for a single set, (m, d) for a batch."""
        return self._mu[0, ...] if self._single else self._mu

    @property
    def dim(self) -> int:
        return int(self._mu.shape[1])

    @property
    def is_batch(self) -> bool:
        return not self._single

    @property
    def n_sets(self) -> int:
        return int(self._mu.shape[0])

    @property
    def sources(self):
        """Vocabulary words this set was built from (a tuple; a list of tuples for a batch)."""
        return self._sources[0] if self._single else list(self._sources)

    def __repr__(self) -> str:
        what = self.label if self.label else (f"batch of {self.n_sets}" if self.is_batch else "unnamed")
        return f"FuzzySet({what}, dim={self.dim}, {self._mu.dtype})"

    # -------------------------------------------------------------- algebra
    def _coerce(self, other) -> "FuzzySet":
        if isinstance(other, FuzzySet):
            o = other
        else:
            try:
                o = FuzzySet(backend.asarray(other, like=self._mu))
            except (TypeError, ValueError) as exc:
                raise TypeError(f"cannot combine a FuzzySet with {type(other).__name__}: {exc}") from None
        if o.dim != self.dim:
            raise ValueError(f"fuzzy sets over different numbers of features ({self.dim} vs {o.dim})")
        if self.n_sets != o.n_sets and 1 not in (self.n_sets, o.n_sets):
            raise ValueError(f"cannot broadcast a batch of {self.n_sets} sets against a batch of {o.n_sets}")
        return o

    def _sources_with(self, o):
        a, b = self._sources, o._sources
        if len(a) == 1:
            a = a * len(b)
        if len(b) == 1:
            b = b * len(a)
        return [tuple(dict.fromkeys(x + y)) for x, y in zip(a, b)]

    def _binary(self, other, fn, symbol):
        o = self._coerce(other)
        xp = backend.get_namespace(self._mu, o._mu)
        mu = fn(xp, self._mu, o._mu)
        out = FuzzySet(mu, sources=self._sources_with(o), check=False)
        out._single = self._single and o._single
        if self.label and o.label:
            out.label = f"({self.label} {symbol} {o.label})"
        return out

    def intersection(self, other) -> "FuzzySet":
        """``self ∩ other = µ_self · µ_other`` (also ``self & other``)."""
        return self._binary(other, _op_intersection, "&")

    def union(self, other) -> "FuzzySet":
        """``self ∪ other = µ_self + µ_other − µ_self µ_other`` (also ``self | other``)."""
        return self._binary(other, _op_union, "|")

    def disjoint_union(self, other) -> "FuzzySet":
        """``self ⊔ other = clip(µ_self + µ_other, 0, 1)`` (also ``self + other``)."""
        return self._binary(other, _op_disjoint_union, "+")

    def difference(self, other) -> "FuzzySet":
        """``self \\ other = µ_self − min(µ_self, µ_other)`` (also ``self - other``)."""
        return self._binary(other, _op_difference, "-")

    def complement(self) -> "FuzzySet":
        """``¬self = 1 − µ_self`` (also ``~self``). Keeps the sources, so searches still exclude them."""
        out = FuzzySet(1 - self._mu, sources=self._sources, check=False)
        out._single = self._single
        out.label = f"~{self.label}" if self.label else None
        return out

    __and__ = intersection
    __or__ = union
    __add__ = disjoint_union
    __sub__ = difference
    __invert__ = complement
    __rand__ = lambda self, other: self._coerce(other)._binary(self, _op_intersection, "&")  # noqa: E731
    __ror__ = lambda self, other: self._coerce(other)._binary(self, _op_union, "|")  # noqa: E731
    __radd__ = lambda self, other: self._coerce(other)._binary(self, _op_disjoint_union, "+")  # noqa: E731
    __rsub__ = lambda self, other: self._coerce(other)._binary(self, _op_difference, "-")  # noqa: E731

    # -------------------------------------------------------------- measures
    def _unary_value(self, fn):
        xp = backend.get_namespace(self._mu)
        v = fn(xp, self._mu)
        return float(v[0]) if self._single else v

    def _pair_value(self, other, fn):
        o = self._coerce(other)
        xp = backend.get_namespace(self._mu, o._mu)
        v = fn(xp, self._mu, o._mu)
        return float(v[0]) if (self._single and o._single) else v

    def cardinality(self):
        """``|A| = Σ µ`` (float; a float64 array for a batch)."""
        return self._unary_value(_m_cardinality)

    def entropy(self):
        """Fuzzy entropy ``Σ −a ln a − (1 − a) ln(1 − a)``, 0·ln 0 = 0 (nats)."""
        return self._unary_value(_m_entropy)

    def issubset(self, other):
        """Crisp inclusion ``self ⊆ other`` (also ``self <= other``)."""
        o = self._coerce(other)
        xp = backend.get_namespace(self._mu, o._mu)
        v = xp.all(self._mu <= o._mu, axis=-1)
        return bool(v[0]) if (self._single and o._single) else v

    __le__ = issubset

    def inclusion(self, other):
        """Graded inclusion of ``self`` in ``other``: share of features with ``µ_self ≤ µ_other``."""
        return self._pair_value(other, _m_inclusion)

    def jaccard(self, other):
        """Fuzzy Jaccard ``|self ∩ other| / |self ∪ other|``."""
        return self._pair_value(other, _m_jaccard)

    def intersection_ratio(self, other):
        """``|self ∩ other| / |self|``."""
        return self._pair_value(other, _m_intersection_ratio)

    def cross_entropy(self, other):
        """``H(self, other)``: self plays S, other plays T."""
        return self._pair_value(other, _m_cross_entropy)

    def kl(self, other):
        """``D(self ‖ other)``."""
        return self._pair_value(other, _m_kl)


# ============================================================ FuzzyEmbeddings
class FuzzyEmbeddings:
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
    axis, base : optional
        How the memberships were made (recorded for ``repr`` and reproducibility).
    check : bool, default True
        Validate finiteness and the [0, 1] range.

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
                 check: bool = True):
        if check:
            _check_memberships(memberships)
        self._vocab = Embeddings(words, memberships, counts, check_finite=False)
        self.axis = axis
        self.base = base
        self._cache = {}

    @classmethod
    def from_embeddings(cls, e, axis: str = "vocabulary", base: float = math.e, *, dtype=None,
                        memory_budget: int | None = None, progress: bool | None = None) -> "FuzzyEmbeddings":
        """Fuzzy sets of the words of ``e`` (an :class:`~embgeo.Embeddings`) via :func:`fuzzify`.

        ``axis="vocabulary"`` normalises each feature over *all* words of ``e`` (the paper);
        pass ``e.top(n)`` to normalise over the n most frequent words instead.
        ``axis="features", base=2`` reproduces the authors' released code.
        """
        if not isinstance(e, Embeddings):
            raise TypeError(f"from_embeddings expects an embgeo.Embeddings, got {type(e).__name__}")
        M = fuzzify(e.vectors, axis=axis, base=base, dtype=dtype, memory_budget=memory_budget, progress=progress)
        return cls(e.words, M, e.counts, axis=axis, base=base, check=False)

    # ------------------------------------------------------------- basics
    @property
    def words(self) -> list:
        return self._vocab.words

    @property
    def memberships(self):
        """The (n_words, dim) membership matrix."""
        return self._vocab.vectors

    @property
    def counts(self):
        return self._vocab.counts

    @property
    def dim(self) -> int:
        return self._vocab.dim

    def __len__(self) -> int:
        return len(self._vocab)

    def __contains__(self, word) -> bool:
        return word in self._vocab

    def __iter__(self):
        return iter(self._vocab)

    def __repr__(self) -> str:
        how = f", axis={self.axis!r}, base={self.base:g}" if self.axis else ""
        return f"FuzzyEmbeddings({len(self)} words, dim={self.dim}, {self.memberships.dtype}{how})"

    def index(self, word: str) -> int:
        return self._vocab.index(word)

    def indices(self, words, missing: str = "raise"):
        return self._vocab.indices(words, missing=missing)

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
    def _stats(self, reverse: bool = False):
        """Per-word quantities for vocabulary-wide search, computed once in float64 blocks.

        ``fwd`` = [ln µ − ln(1 − µ), −c] with c = −Σ ln(1 − µ), so that for a query S
        ``[s, 1] · fwd_T = −H(S, T)`` (the expansion −P·ln Qᵀ − (1 − P)·ln(1 − Q)ᵀ with its two
        products merged into one); ``rev`` = [µ, H(µ)] serves the reversed direction.
        """
        c = self._cache
        if "fwd" not in c:
            P = self.memberships
            xp = backend.get_namespace(P)
            n, d = P.shape
            if backend.is_numpy(P):
                from .kernels import fuzzy as kern

                c["fwd"] = np.empty((n, d + 1), dtype=P.dtype)
                c["entropy"], c["cardinality"] = np.empty(n), np.empty(n)
                kern.logit_stats(np.ascontiguousarray(P), LOG_TINY, c["fwd"], c["entropy"], c["cardinality"])
                return self._stats(reverse) if reverse else c
            step = block_rows(d, 8 * 4)
            fwd, ent, card = [], [], []
            for s in range(0, n, step):
                T = _f64(xp, P[s:min(s + step, n), ...])
                L1 = _safe_log1m(xp, T)
                fwd.append(xp.astype(xp.concat([_safe_log(xp, T) - L1, xp.sum(L1, axis=1, keepdims=True)], axis=1),
                                     P.dtype))
                ent.append(xp.sum(_entropy_terms(xp, T), axis=1))
                card.append(xp.sum(T, axis=1))
            c["fwd"] = xp.concat(fwd, axis=0)
            c["entropy"] = xp.concat(ent, axis=0)
            c["cardinality"] = xp.concat(card, axis=0)
        if reverse and "rev" not in c:
            P = self.memberships
            xp = backend.get_namespace(P)
            c["rev"] = xp.concat([P, xp.reshape(xp.astype(c["entropy"], P.dtype), (-1, 1))], axis=1)
        return c

    def _per_word(self, key, words):
        v = self._stats()[key]
        if words is None:
            return v
        xp = backend.get_namespace(v)
        idx = self.indices(list(words))
        return xp.take(v, idx if backend.is_numpy(v) else xp.asarray(idx), axis=0)

    def entropy(self, words=None):
        """Fuzzy entropy of every word (or of ``words``), float64 (same library as the memberships)."""
        return self._per_word("entropy", words)

    def cardinality(self, words=None):
        """Fuzzy cardinality ``Σ µ`` of every word (or of ``words``), float64."""
        return self._per_word("cardinality", words)

    # ------------------------------------------------------------ pairs
    def similarity(self, w1: str, w2: str, measure: str = "cross_entropy", reverse: bool = False) -> float:
        """Similarity of two words (a divergence negated); see :meth:`similarity_pairs`."""
        return float(self.similarity_pairs([w1], [w2], measure=measure, reverse=reverse)[0])

    def similarity_pairs(self, words1, words2, measure: str | None = "cross_entropy", reverse: bool = False):
        """Similarities of aligned word pairs, as a NumPy float64 array (higher = more similar).

        For pair j, ``S = words1[j]`` and ``T = words2[j]`` (swapped by ``reverse=True``):

        ``"cross_entropy"``  −H(S, T) (Bhat et al. 2020)
        ``"kl"``             −D(S ‖ T)
        ``"jaccard"``        |S ∩ T| / |S ∪ T| (symmetric)
        ``"intersection_ratio"``  |S ∩ T| / |S|
        ``"inclusion"``      share of features with µ_S ≤ µ_T (graded inclusion of S in T)

        This is the evaluation protocol of :mod:`embgeo.evaluate`. Unknown words raise
        :class:`~embgeo.errors.UnknownWordError`.
        """
        measure = _resolve_measure(measure)
        words1, words2 = list(words1), list(words2)
        if len(words1) != len(words2):
            raise ValueError(f"words1 and words2 differ in length ({len(words1)} vs {len(words2)})")
        if reverse:
            words1, words2 = words2, words1
        P = self.memberships
        xp = backend.get_namespace(P)
        i, j = self.indices(words1), self.indices(words2)
        if not backend.is_numpy(P):
            i, j = xp.asarray(i), xp.asarray(j)
        v = _MEASURE_FUNCS[measure](xp, xp.take(P, i, axis=0), xp.take(P, j, axis=0))
        if measure in _DIVERGENCES:
            v = -v
        return backend.to_numpy(v).astype(np.float64)

    # ------------------------------------------------------- vocabulary-wide
    def _as_query(self, queries) -> FuzzySet:
        if isinstance(queries, FuzzySet):
            q = queries
        elif isinstance(queries, str):
            q = self[queries]
        elif isinstance(queries, (list, tuple)) and queries and all(isinstance(w, str) for w in queries):
            q = self[list(queries)]
        else:
            q = FuzzySet(backend.asarray(queries, like=self.memberships))
        if q.dim != self.dim:
            raise ValueError(f"queries have {q.dim} features but the vocabulary has {self.dim}")
        return q

    def neighbors(self, queries, k: int = 10, *, measure: str = "cross_entropy", reverse: bool = False,
                  exclude_self: bool = True, exclude=None, restrict_vocab: int | None = None,
                  memory_budget: int | None = None, progress: bool | None = None):
        """The ``k`` most similar words to each query under a fuzzy measure, vocabulary-wide.

        Scores are similarities (divergences negated), best first, ties to the lower row, with the
        direction convention ``S = query, T = candidate``; ``reverse=True`` ranks by
        ``m(candidate, query)``. Measures: ``"cross_entropy"``, ``"kl"``, ``"jaccard"``,
        ``"intersection_ratio"``. Ranking by ``−D(S‖T)`` and by ``−H(S, T)`` over candidates T
        is the same (they differ by H(S)); the reversed directions differ.

        Cross-entropy and KL need one GEMM per block of queries: with ``logit(t) = ln t − ln(1 − t)``
        and ``c(t) = −Σ ln(1 − t)`` precomputed once for the vocabulary,
        ``H(S, T) = −S·logit(T)ᵀ + c(T)`` (the expansion −P·ln Qᵀ − (1 − P)·ln(1 − Q)ᵀ with
        its two products merged), run through :func:`embgeo.neighbors.topk` as a dot product
        of augmented vectors. Reversed: ``H(T, S) = −T·logit(S)ᵀ + c(S)`` and
        ``D(T‖S) = H(T, S) − H(T)``. Jaccard uses ``|S ∩ T| = S·Tᵀ`` and
        ``|S ∪ T| = |S| + |T| − S·Tᵀ``. Candidates are selected with products in the storage
        dtype (float32), then the k returned scores are recomputed exactly in float64.

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
            Bytes for one block of scores.
        progress : bool, optional

        Returns
        -------
        scores : array of float64, shape (m, k)
        indices : array of int64, shape (m, k)
        """
        measure = _resolve_measure(measure)
        if measure == "inclusion":
            raise ValueError("graded inclusion is a pair measure; vocabulary-wide search supports "
                             "'cross_entropy', 'kl', 'jaccard' and 'intersection_ratio'")
        q = self._as_query(queries)
        P = self.memberships
        xp = backend.get_namespace(P)
        n = len(self) if restrict_vocab is None else min(int(restrict_vocab), len(self))
        if n < 1:
            raise ValueError(f"restrict_vocab must be positive, got {restrict_vocab}")
        extra = self.indices(list(exclude)) if exclude is not None else np.zeros(0, dtype=np.int64)
        ex = []
        for src in q._sources:
            r = self.indices(list(src), missing="skip") if (exclude_self and src) else np.zeros(0, np.int64)
            r = np.unique(np.concatenate([r, extra]))
            ex.append(r[r < n])
        k = int(k)
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        n_ex = max((len(r) for r in ex), default=0)
        if k > n - n_ex:
            raise ValueError(f"k={k} exceeds the {n - n_ex} candidate words")
        Q = xp.astype(backend.asarray(q._mu, like=P), P.dtype)
        if measure == "jaccard" or (measure == "intersection_ratio" and reverse):
            _, idx = self._blocked_topk(Q, k, measure, ex, n, memory_budget, progress)
        else:
            Qa, D = self._augmented(Q, measure, reverse)
            _, idx = _dot_topk(Qa, D[:n, ...], k, metric="dot", exclude=ex, memory_budget=memory_budget,
                               progress=progress)
        return self._rescore(Q, idx, measure, reverse)

    def _augmented(self, Q, measure, reverse):
        """Query and database matrices whose dot products rank candidates for ``measure``."""
        st = self._stats(reverse=reverse or measure == "intersection_ratio")
        xp = backend.get_namespace(Q)
        m = Q.shape[0]
        if measure == "intersection_ratio":  # forward: S·Tᵀ / |S|, |S| fixed per query
            return xp.concat([Q, xp.zeros((m, 1), dtype=Q.dtype)], axis=1), st["rev"]
        if not reverse:  # −H(S, T) = [S, 1]·[logit T, −c(T)]; −D(S‖T) adds the constant H(S)
            return xp.concat([Q, xp.ones((m, 1), dtype=Q.dtype)], axis=1), st["fwd"]
        # −H(T, S) = T·logit(S) − c(S); −D(T‖S) = T·logit(S) + H(T) − c(S); c(S) is fixed per query
        Qf = _f64(xp, Q)
        logit = xp.astype(_safe_log(xp, Qf) - _safe_log1m(xp, Qf), Q.dtype)
        last = xp.ones((m, 1), dtype=Q.dtype) if measure == "kl" else xp.zeros((m, 1), dtype=Q.dtype)
        return xp.concat([logit, last], axis=1), st["rev"]

    def _blocked_topk(self, Q, k, measure, ex, n, memory_budget, progress):
        """Top-k by Jaccard or reversed intersection ratio: one GEMM S·Tᵀ per block of queries."""
        P = self.memberships[:n, ...]
        xp = backend.get_namespace(P)
        is_np = backend.is_numpy(P)
        card = self._stats()["cardinality"][:n]
        a = _m_cardinality(xp, Q)
        PT = P.T if is_np else xp.matrix_transpose(P)
        step = block_rows(n, P.dtype.itemsize if is_np else 8, memory_budget)
        starts = range(0, Q.shape[0], step)
        # with every cardinality positive, |S ∪ T| ≥ max(|S|, |T|) > 0 and one fused pass suffices
        fused = is_np and bool(np.all(card > 0)) and bool(np.all(a > 0))
        if fused:
            from .kernels import fuzzy as kern

            a_, b_ = a.astype(P.dtype), card.astype(P.dtype)
        out = []
        for s in progress_bar(starts, total=len(starts), desc="fuzzy top-k", progress=progress, unit="block"):
            e_ = min(s + step, Q.shape[0])
            G = Q[s:e_, ...] @ PT  # storage dtype: these scores only select; _rescore makes them exact
            if fused and measure == "jaccard":
                kern.jaccard_inplace(G, a_[s:e_], b_)
                S = G
            elif fused:
                S = np.divide(G, b_.reshape(1, -1), out=G)
            else:
                cb = xp.reshape(xp.astype(card, G.dtype), (1, -1))
                den = xp.reshape(xp.astype(a[s:e_], G.dtype), (-1, 1)) + cb - G if measure == "jaccard" else cb
                S = _ratio(xp, G, xp.broadcast_to(den, G.shape))
            out.append(select_topk(S, k, exclude=ex[s:e_])[1])
        return None, xp.concat(out, axis=0)

    def _rescore(self, Q, idx, measure, reverse):
        """Exact float64 scores of the selected candidates, re-sorted (best first, ties to the lower row)."""
        P = self.memberships
        xp = backend.get_namespace(P)
        m, k = idx.shape
        T = xp.reshape(xp.take(P, xp.reshape(idx, (-1,)), axis=0), (m, k, self.dim))
        S = xp.reshape(Q, (m, 1, self.dim))
        if reverse:
            S, T = T, S
        v = _MEASURE_FUNCS[measure](xp, S, T)
        if measure in _DIVERGENCES:
            v = -v
        if backend.is_numpy(v):
            order = np.lexsort((idx, -v), axis=1)
            return np.take_along_axis(v, order, axis=1), np.take_along_axis(idx, order, axis=1).astype(np.int64)
        order = xp.argsort(-v, axis=1, stable=True)
        return xp.take_along_axis(v, order, axis=1), xp.astype(xp.take_along_axis(idx, order, axis=1), xp.int64)

    def most_similar(self, query, topn: int = 10, *, measure: str = "cross_entropy", reverse: bool = False,
                     exclude=None, restrict_vocab: int | None = None) -> list:
        """``[(word, similarity), ...]`` for one query (a word or a single :class:`FuzzySet`),
        best first, excluding the words the query was built from; see :meth:`neighbors`.

        Examples: ``F.most_similar(F["north"] & F["korea"])``,
        ``F.most_similar("cat", measure="kl", reverse=True)``.
        """
        q = self._as_query(query)
        if q.is_batch:
            raise ValueError("most_similar takes one query; use neighbors() for a batch")
        s, i = self.neighbors(q, topn, measure=measure, reverse=reverse, exclude=exclude,
                              restrict_vocab=restrict_vocab, progress=False)
        s, i = backend.to_numpy(s)[0], backend.to_numpy(i)[0]
        return [(self.words[j], float(v)) for v, j in zip(s, i)]

    def analogy(self, a, b, x, topn: int = 1, *, measure: str = "cross_entropy", reverse: bool = False,
                restrict_vocab: int | None = None, progress: bool | None = None):
        """Set-theoretic analogy a : b :: x : y with ``y = (b ⊔ x) \\ a`` (Bhat et al. 2020).

        The nearest words to the composed set by ``measure`` (cross-entropy by default, query as S),
        excluding a, b and x. Strings give ``[(word, score), ...]``; equal-length lists of words give
        ``(scores, indices)`` of shape (m, topn).
        """
        if isinstance(a, str):
            return self.most_similar((self[b] + self[x]) - self[a], topn, measure=measure, reverse=reverse,
                                     restrict_vocab=restrict_vocab)
        q = (self[list(b)] + self[list(x)]) - self[list(a)]
        return self.neighbors(q, topn, measure=measure, reverse=reverse, restrict_vocab=restrict_vocab,
                              progress=progress)


# ================================================================== analyses
@dataclass
class FunctionWordReport:
    """Function-word detection by fuzzy entropy vs by frequency (Bhat et al. 2020, Table 10).

    Attributes
    ----------
    by_entropy, by_frequency : list of str
        The top ``max(cutoffs)`` candidate words under each ranking.
    hits : dict int -> (int, int)
        For each cutoff K, how many of the top K are function words (entropy, frequency).
    n_candidates : int
        Words that passed the frequency threshold.
    frequency_source : str
        ``"counts"``, ``"user"`` or ``"rank"`` (row order as the frequency proxy).
    """

    by_entropy: list
    by_frequency: list
    hits: dict
    n_candidates: int
    frequency_source: str
    highest: bool = True

    def table(self) -> str:
        rows = ["top K | entropy hits | frequency hits", "----- | ------------ | --------------"]
        rows += [f"{k:5d} | {h[0]:12d} | {h[1]:14d}" for k, h in self.hits.items()]
        return "\n".join(rows)


def function_words(F: FuzzyEmbeddings, *, min_count=None, top_n: int | None = None, frequencies=None,
                   stopwords=None, cutoffs=(15, 30, 50), highest: bool = True) -> FunctionWordReport:
    """Rank words by fuzzy entropy and count function words at the top (Bhat et al. 2020, Table 10).

    Among the words whose frequency passes the threshold, words are ranked by entropy
    ``H(A) = Σ −a ln a − (1 − a) ln(1 − a)`` (highest first unless ``highest=False``) and, as the
    baseline, by frequency; for each cutoff K the report counts how many of the top K are in
    the function-word list.

    Frequencies come from ``frequencies`` (a dict word → count, or an array aligned with
    ``F.words``), else ``F.counts``, else the row order: GloVe ships no counts but lists its words
    by decreasing corpus frequency, so the rank stands in for frequency and the threshold is
    ``top_n`` (the ``top_n`` most frequent words).

    Parameters
    ----------
    min_count : float, optional
        Keep words with frequency ≥ min_count (needs counts).
    top_n : int, optional
        Keep only the ``top_n`` most frequent words (works with any frequency source).
    stopwords : iterable of str, optional
        The function-word list; default scikit-learn's ``ENGLISH_STOP_WORDS`` (318 words).
    cutoffs : tuple of int
    highest : bool
        Rank by decreasing entropy (True) or increasing.

    Raises
    ------
    ValueError
        ``min_count`` without any counts, or no word passing the threshold.
    """
    n = len(F)
    if frequencies is not None:
        if isinstance(frequencies, dict):
            freq = np.array([float(frequencies.get(w, 0)) for w in F.words])
        else:
            freq = np.asarray(backend.to_numpy(frequencies), dtype=np.float64)
            if freq.shape != (n,):
                raise ValueError(f"frequencies must have shape ({n},), got {freq.shape}")
        source = "user"
    elif F.counts is not None:
        freq, source = np.asarray(F.counts, dtype=np.float64), "counts"
    else:
        freq, source = None, "rank"
    if freq is None:
        if min_count is not None:
            raise ValueError("min_count needs word counts: pass frequencies= or use top_n= (rank as frequency)")
        order = np.arange(n)
    else:
        order = np.argsort(-freq, kind="stable")
        if min_count is not None:
            order = order[freq[order] >= float(min_count)]
    if top_n is not None:
        order = order[:int(top_n)]
    if order.size == 0:
        raise ValueError("no word passes the frequency threshold")
    if stopwords is None:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as stopwords
    stop = set(stopwords)
    H = backend.to_numpy(F.entropy())[order]
    by_h = order[np.argsort(-H if highest else H, kind="stable")]
    kmax = max(cutoffs)
    ent_words = [F.words[i] for i in by_h[:kmax]]
    frq_words = [F.words[i] for i in order[:kmax]]
    hits = {int(c): (sum(w in stop for w in ent_words[:c]), sum(w in stop for w in frq_words[:c])) for c in cutoffs}
    return FunctionWordReport(ent_words, frq_words, hits, int(order.size), source, highest)


def polysemy(F: FuzzyEmbeddings, word: str, contexts, topn: int = 10, *, measure: str = "cross_entropy",
             reverse: bool = False, restrict_vocab: int | None = None) -> dict:
    """Senses of ``word`` seen through context words (Bhat et al. 2020, Table 6).

    For each context c, the nearest words to ``F[word] & F[c]`` (excluding word and c).
    Returns ``{context: [(word, score), ...]}``.
    """
    contexts = [contexts] if isinstance(contexts, str) else list(contexts)
    if not contexts:
        raise ValueError("polysemy needs at least one context word")
    q = F[word] & F[contexts]
    s, i = F.neighbors(q, topn, measure=measure, reverse=reverse, restrict_vocab=restrict_vocab, progress=False)
    s, i = backend.to_numpy(s), backend.to_numpy(i)
    return {c: [(F.words[j], float(v)) for v, j in zip(s[r], i[r])] for r, c in enumerate(contexts)}


@dataclass
class HyponymyReport:
    """Graded inclusion of hyponyms in hypernyms.

    Attributes
    ----------
    pairs : list of (hyponym, hypernym)
        The pairs scored (both words known).
    scores, reverse_scores : ndarray of float64
        ``inclusion(hypo ⊆ hyper)`` and ``inclusion(hyper ⊆ hypo)``.
    direction_accuracy : float
        Share of pairs with ``scores > reverse_scores`` (the direction of the relation recovered).
    mean_score : float
    n_skipped : int
        Pairs with an unknown word.
    """

    pairs: list
    scores: np.ndarray
    reverse_scores: np.ndarray
    direction_accuracy: float
    mean_score: float
    n_skipped: int = 0
    ties: int = field(default=0)


def hyponymy(F: FuzzyEmbeddings, pairs, *, missing: str = "skip") -> HyponymyReport:
    """Score (hyponym, hypernym) pairs by graded inclusion (Bhat et al. 2020).

    A hyponym's features should be (mostly) included in its hypernym's: the score is the share
    of features with ``µ_hypo ≤ µ_hyper``, and ``direction_accuracy`` is how often it beats the
    reverse inclusion. ``missing="skip"`` drops pairs with unknown words, ``"raise"`` raises.
    """
    if missing not in ("skip", "raise"):
        raise ValueError(f"missing must be 'skip' or 'raise', got {missing!r}")
    pairs = [tuple(p) for p in pairs]
    if not pairs:
        raise ValueError("no pairs given")
    kept = [p for p in pairs if p[0] in F and p[1] in F]
    if missing == "raise" and len(kept) < len(pairs):
        bad = next(p for p in pairs if p not in kept)
        F.indices(list(bad))  # raises UnknownWordError naming the word
    if not kept:
        raise ValueError("none of the pairs has both words in the vocabulary")
    hypo, hyper = [p[0] for p in kept], [p[1] for p in kept]
    s = F.similarity_pairs(hypo, hyper, measure="inclusion")
    r = F.similarity_pairs(hyper, hypo, measure="inclusion")
    return HyponymyReport(kept, s, r, float(np.mean(s > r)), float(np.mean(s)), len(pairs) - len(kept),
                          int(np.sum(s == r)))


@dataclass
class AnalogyReport:
    """Accuracy of set-theoretic analogies ``y = (b ⊔ x) \\ a`` on an analogy file.

    ``sections`` maps a section name to ``(correct, total)``; ``skipped`` counts questions with a
    word outside the restricted vocabulary (gensim's convention).
    """

    accuracy: float
    correct: int
    total: int
    skipped: int
    sections: dict
    measure: str
    reverse: bool
    restrict_vocab: int


def evaluate_analogies(F: FuzzyEmbeddings, dataset="google-analogy", *, restrict_vocab: int = 30000,
                       measure: str = "cross_entropy", reverse: bool = False, lowercase: bool = True,
                       progress: bool | None = None) -> AnalogyReport:
    """Analogy accuracy with ``y = (b ⊔ x) \\ a`` (Bhat et al. 2020) on a question file.

    ``dataset`` is a name or path understood by :func:`embgeo.datasets.load_dataset` (default:
    gensim's ``questions-words.txt``). As gensim's ``evaluate_word_analogies`` does, only the first
    ``restrict_vocab`` words are candidates and questions using other words are skipped; the
    question words are excluded from the answers. The memberships are those of the full vocabulary.
    """
    from .datasets import AnalogyQuestions, load_dataset

    qs = dataset if isinstance(dataset, AnalogyQuestions) else load_dataset(dataset)
    if lowercase:
        qs = qs.lower()
    n = min(int(restrict_vocab), len(F))
    Qw, sec = qs.questions, qs.section_ids
    if len(Qw) == 0:
        raise ValueError("the analogy dataset has no questions")
    idx = F.indices(Qw.reshape(-1).tolist(), missing="mark").reshape(-1, 4)
    ok = np.all((idx >= 0) & (idx < n), axis=1)
    names = qs.section_names
    sections = {nm: (0, 0) for nm in names}
    correct = 0
    if ok.any():
        a, b, x = (Qw[ok, j].tolist() for j in range(3))
        _, top = F.analogy(a, b, x, 1, measure=measure, reverse=reverse, restrict_vocab=n, progress=progress)
        hit = backend.to_numpy(top)[:, 0] == idx[ok, 3]
        correct = int(hit.sum())
        for s_id in np.unique(sec[ok]):
            m = sec[ok] == s_id
            sections[names[s_id]] = (int(hit[m].sum()), int(m.sum()))
    total = int(ok.sum())
    return AnalogyReport(correct / total if total else float("nan"), correct, total, int((~ok).sum()), sections,
                         _resolve_measure(measure), reverse, n)
