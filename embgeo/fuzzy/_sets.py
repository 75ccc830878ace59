"""Fuzzy sets (Bhat et al. 2020, Sec. 3): the elementwise definitions of the set operations and measures,
the public functions over membership arrays, and :class:`FuzzySet`."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import backend as xb

#: ``ln`` of the smallest normal float64: the value used for ``ln 0`` (see "Where memberships are clipped").
LOG_TINY = math.log(np.finfo(np.float64).tiny)



@dataclass(frozen=True)
class FuzzyMeasure:
    """One measure of :data:`FUZZY_MEASURES`: its spellings and what kind of score it is.

    Attributes
    ----------
    name : str
        The name ``measure=`` of :meth:`FuzzyEmbeddings.similarity_pairs` and :meth:`FuzzyEmbeddings.neighbors`
        returns to (e.g. ``"cross_entropy"``).
    short : str or None
        The short spelling, also accepted by ``measure=``; :mod:`embgeo.evaluate` names the measure
        ``"fuzzy-<short>"`` (and ``"fuzzy-<short>-rev"`` for the other direction of an asymmetric one).
        None: not offered by :mod:`embgeo.evaluate`.
    aliases : tuple of str
        Further spellings ``measure=`` accepts.
    divergence : bool
        A divergence (lower = more similar), negated wherever a similarity is expected.
    symmetric : bool
        ``m(S, T) = m(T, S)``: ``reverse=True`` changes nothing.
    searchable : bool
        Vocabulary-wide search (:meth:`FuzzyEmbeddings.neighbors`) supports it.
    """

    name: str
    short: str | None
    aliases: tuple = ()
    divergence: bool = False
    symmetric: bool = False
    searchable: bool = True


#: The fuzzy measures, by name, in one table: every spelling ``measure=`` accepts here, and the
#: ``"fuzzy-*"`` names of :mod:`embgeo.evaluate`, which derives its names from this table.
#: ``cross_entropy`` and ``kl`` are the Bernoulli (two-term) forms, ``categorical_*`` the one-term
#: forms the paper prints for KL (Sec. 4.4); ``symmetric_*`` add both directions (the released code's
#: Table 8 and Table 11 programs); ``inclusion`` (graded inclusion) is a pair measure only.
FUZZY_MEASURES: dict[str, FuzzyMeasure] = {m.name: m for m in (
    FuzzyMeasure("cross_entropy", "ce", ("cross-entropy", "crossentropy", "bernoulli_cross_entropy"), divergence=True),
    FuzzyMeasure("kl", "kl", ("bernoulli_kl", "kl_divergence"), divergence=True),
    FuzzyMeasure("categorical_cross_entropy", "categorical-ce", ("categorical_ce",), divergence=True),
    FuzzyMeasure("categorical_kl", "categorical-kl", divergence=True),
    FuzzyMeasure("symmetric_cross_entropy", "symmetric-ce", ("symmetric_ce",), divergence=True, symmetric=True),
    FuzzyMeasure("symmetric_kl", "symmetric-kl", divergence=True, symmetric=True),
    FuzzyMeasure("jaccard", "jaccard", symmetric=True),
    FuzzyMeasure("intersection_ratio", None),
    FuzzyMeasure("inclusion", None, ("graded_inclusion",), searchable=False),
)}
_SPELLINGS = {sp: m.name for m in FUZZY_MEASURES.values() for sp in (m.name, m.short, *m.aliases) if sp is not None}

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


def _cat_ce_terms(xp, s, t):
    """Per-feature −s ln t: one term of the cross-entropy of two distributions over the features."""
    return -xp.where(s > 0, s * _safe_log(xp, t), xp.zeros_like(s))


def _cat_kl_terms(xp, s, t):
    """Per-feature s ln(s/t): one term of the KL divergence as the paper prints it (Sec. 4.4)."""
    return xp.where(s > 0, s * (_safe_log(xp, s) - _safe_log(xp, t)), xp.zeros_like(s))


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


def _m_categorical_cross_entropy(xp, S, T):
    return xp.sum(_cat_ce_terms(xp, _f64(xp, S), _f64(xp, T)), axis=-1)


def _m_categorical_kl(xp, S, T):
    return xp.sum(_cat_kl_terms(xp, _f64(xp, S), _f64(xp, T)), axis=-1)


def _m_symmetric_cross_entropy(xp, S, T):
    return _m_cross_entropy(xp, S, T) + _m_cross_entropy(xp, T, S)


def _m_symmetric_kl(xp, S, T):
    return _m_kl(xp, S, T) + _m_kl(xp, T, S)


_MEASURE_FUNCS = {"cross_entropy": _m_cross_entropy, "kl": _m_kl,
                  "categorical_cross_entropy": _m_categorical_cross_entropy, "categorical_kl": _m_categorical_kl,
                  "symmetric_cross_entropy": _m_symmetric_cross_entropy, "symmetric_kl": _m_symmetric_kl,
                  "jaccard": _m_jaccard, "intersection_ratio": _m_intersection_ratio, "inclusion": _m_inclusion}
_DIVERGENCES = tuple(m.name for m in FUZZY_MEASURES.values() if m.divergence)


def _resolve_measure(measure):
    """The name of a spelling of :data:`FUZZY_MEASURES` (None: cross-entropy)."""
    if measure is None:
        return "cross_entropy"
    try:
        return _SPELLINGS[measure]
    except (KeyError, TypeError):
        raise ValueError(f"unknown fuzzy measure {measure!r}; choose from {', '.join(FUZZY_MEASURES)}") from None


def _check_memberships(M, name="memberships"):
    """Validate memberships: floating, finite, in [0, 1], non-empty last axis."""
    xp = xb.get_namespace(M)
    M = xp.asarray(M)
    if not xp.isdtype(M.dtype, "real floating"):
        M = xp.astype(M, xb.resolve_dtype(None, xp))
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
    return xb.get_namespace(A, B), A, B


def _public_op(name, fn, doc):
    def f(A, B):
        xp, A, B = _pair_arrays(A, B)
        return fn(xp, A, B)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


intersection = _public_op("intersection", _op_intersection, """
    Fuzzy intersection ``A ∩ B = A·B`` (algebraic product; Bhat et al. 2020, Sec. 3).

    ``A`` and ``B`` are membership arrays of shape (..., d) that broadcast against each other.""")
union = _public_op("union", _op_union, """
    Fuzzy union ``A ∪ B = A + B − A·B`` (probabilistic sum; Bhat et al. 2020, Sec. 3).""")
disjoint_union = _public_op("disjoint_union", _op_disjoint_union, """
    Disjoint union ``A ⊔ B = min(1, max(0, A + B))`` (bounded sum; Bhat et al. 2020, Sec. 3 and 4.5).

    The paper prints ``max(1, min(0, A + B))``, which is always 1: a typo. The bounded sum is what
    Sec. 4.5 describes ("clipped at (0, 1]") and what the released ``cli.cpp`` computes.""")
difference = _public_op("difference", _op_difference, """
    Fuzzy difference ``A \\ B = A − min(A, B)`` (Bhat et al. 2020, Sec. 3).""")
graded_inclusion = _public_op("graded_inclusion", _m_inclusion, """
    Share of features with ``µ_S ≤ µ_T``: the degree to which ``S ⊆ T`` (float64, in [0, 1]).

    A graded form of the paper's inclusion test (Bhat et al. 2020, Sec. 3 and 4.2 "Feature Inclusion");
    the grading is embgeo's, not the paper's.""")
jaccard = _public_op("jaccard", _m_jaccard, """
    Fuzzy Jaccard similarity ``|S ∩ T| / |S ∪ T|`` with the paper's product intersection and union
    (Bhat et al. 2020, Sec. 3); the measure itself is embgeo's addition, not in the paper (float64).

    Note that ``J(A, A) = Σa² / Σ(2a − a²) < 1`` unless A is crisp: the product t-norm is not idempotent.""")
intersection_ratio = _public_op("intersection_ratio", _m_intersection_ratio, """
    ``|S ∩ T| / |S|`` (Kosko's subsethood of S in T with the paper's product intersection, Sec. 3;
    embgeo's addition, not in the paper; float64).

    An empty ``S`` gives 1 (the empty set is included in everything).""")
bernoulli_cross_entropy = _public_op("bernoulli_cross_entropy", _m_cross_entropy, """
    Cross-entropy of the per-feature Bernoulli variables, ``H(S, T) = Σ_i H(X_i^S) + D(X_i^S ‖ X_i^T)``
    (Bhat et al. 2020, Sec. 4.4, the generalised cross-entropy of Li 2015), in nats, float64:
    ``−Σ s ln t + (1 − s) ln(1 − t)``. Also available as :func:`cross_entropy`.

    The released code computes this in its function named ``kl`` (``cli.cpp``; Table 5's "KL"
    values are this quantity). ``S`` is the first argument. ``ln 0`` is clipped to :data:`LOG_TINY`.""")
bernoulli_kl_divergence = _public_op("bernoulli_kl_divergence", _m_kl, """
    KL divergence of the per-feature Bernoulli variables, ``D(S ‖ T) = Σ_i s ln(s/t) + (1 − s) ln((1 − s)/(1 − t))``
    (Bhat et al. 2020, Sec. 3-4.4: the Bernoulli reading of ``D(X_i^S ‖ X_i^T)``), in nats, float64.
    Also available as :func:`kl_divergence`. The released code computes this in its functions named
    ``crossentropy`` / ``fuzzycrossentropy``. ``S`` is the first argument.""")
categorical_cross_entropy = _public_op("categorical_cross_entropy", _m_categorical_cross_entropy, """
    ``−Σ_i s ln t`` (float64, nats): the cross-entropy of S and T read as distributions over the features
    (one term per feature, no ``1 − s`` term). A true cross-entropy when the rows sum to 1
    (``axis="features"``). ``0·ln 0 = 0``; ``ln 0`` is clipped to :data:`LOG_TINY`.""")
categorical_kl_divergence = _public_op("categorical_kl_divergence", _m_categorical_kl, """
    ``D(S ‖ T) = Σ_i s ln(s/t)`` (float64, nats): the KL divergence **as the paper prints it**
    (Bhat et al. 2020, Sec. 4.4, ``D(S‖T) = Σ_i p_i^S log(p_i^S / p_i^T)``), one term per feature.
    A true KL divergence (≥ 0) when the rows sum to 1 (``axis="features"``); with the vocabulary axis
    it can be negative. ``0·ln 0 = 0``; ``ln 0`` is clipped to :data:`LOG_TINY`.""")
symmetric_cross_entropy = _public_op("symmetric_cross_entropy", _m_symmetric_cross_entropy, """
    ``H(S, T) + H(T, S)`` with the Bernoulli cross-entropy (float64, nats): what the released code's
    Table 8 program (``dump-accuracy-simlex.c``, option ``kl``) ranks by, i.e. the paper's Table 8
    column headed "K-L Divergence".""")
symmetric_kl_divergence = _public_op("symmetric_kl_divergence", _m_symmetric_kl, """
    ``D(S ‖ T) + D(T ‖ S)`` with the Bernoulli KL (float64, nats): what the released code's Table 11
    program (``compute-composition.cpp``, option ``xhsym``, "symmetric cross entropy") computes.""")
cross_entropy = bernoulli_cross_entropy
kl_divergence = bernoulli_kl_divergence


def complement(A):
    """Fuzzy complement ``¬A = 1 − A`` (Bhat et al. 2020, Sec. 3)."""
    A = _check_memberships(A, "A")
    return 1 - A


def is_subset(S, T):
    """Crisp inclusion test ``S ⊆ T``: every feature has ``µ_S ≤ µ_T`` (Bhat et al. 2020, Sec. 3; bool,
    or bool array for batches)."""
    xp, S, T = _pair_arrays(S, T)
    return xp.all(S <= T, axis=-1)


def cardinality(A):
    """Fuzzy cardinality ``|A| = Σ_i µ_A[i]`` (Bhat et al. 2020, Sec. 3; float64), over the last axis."""
    A = _check_memberships(A, "A")
    return _m_cardinality(xb.get_namespace(A), A)


def entropy(A):
    """Fuzzy entropy ``H(A) = Σ_i −a_i ln a_i − (1 − a_i) ln(1 − a_i)`` with ``0·ln 0 = 0``
    (Bhat et al. 2020, Sec. 3 and 4.3), in nats, float64."""
    A = _check_memberships(A, "A")
    return _m_entropy(xb.get_namespace(A), A)


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
        xp = xb.get_namespace(mu)
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
                o = FuzzySet(xb.asarray(other, like=self._mu))
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
        xp = xb.get_namespace(self._mu, o._mu)
        mu = fn(xp, self._mu, o._mu)
        out = FuzzySet(mu, sources=self._sources_with(o), check=False)
        out._single = self._single and o._single
        if self.label and o.label:
            out.label = f"({self.label} {symbol} {o.label})"
        return out

    def intersection(self, other) -> "FuzzySet":
        """``self ∩ other = µ_self · µ_other`` (also ``self & other``; Bhat et al. 2020, Sec. 3)."""
        return self._binary(other, _op_intersection, "&")

    def union(self, other) -> "FuzzySet":
        """``self ∪ other = µ_self + µ_other − µ_self µ_other`` (also ``self | other``; Sec. 3)."""
        return self._binary(other, _op_union, "|")

    def disjoint_union(self, other) -> "FuzzySet":
        """``self ⊔ other = min(1, max(0, µ_self + µ_other))`` (also ``self + other``; Sec. 3, corrected: see
        :func:`disjoint_union`)."""
        return self._binary(other, _op_disjoint_union, "+")

    def difference(self, other) -> "FuzzySet":
        """``self \\ other = µ_self − min(µ_self, µ_other)`` (also ``self - other``; Sec. 3)."""
        return self._binary(other, _op_difference, "-")

    def complement(self) -> "FuzzySet":
        """``¬self = 1 − µ_self`` (also ``~self``; Sec. 3). Keeps the sources, so searches still exclude them."""
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
        xp = xb.get_namespace(self._mu)
        v = fn(xp, self._mu)
        return float(v[0]) if self._single else v

    def _pair_value(self, other, fn):
        o = self._coerce(other)
        xp = xb.get_namespace(self._mu, o._mu)
        v = fn(xp, self._mu, o._mu)
        return float(v[0]) if (self._single and o._single) else v

    def cardinality(self):
        """``|A| = Σ µ`` (Sec. 3; float, a float64 array for a batch)."""
        return self._unary_value(_m_cardinality)

    def entropy(self):
        """Fuzzy entropy ``Σ −a ln a − (1 − a) ln(1 − a)``, 0·ln 0 = 0 (nats; Sec. 3 and 4.3)."""
        return self._unary_value(_m_entropy)

    def issubset(self, other):
        """Crisp inclusion ``self ⊆ other`` (also ``self <= other``; Sec. 3)."""
        o = self._coerce(other)
        xp = xb.get_namespace(self._mu, o._mu)
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
        """Bernoulli cross-entropy ``H(self, other)`` (Sec. 4.4; :func:`bernoulli_cross_entropy`): self plays S."""
        return self._pair_value(other, _m_cross_entropy)

    def kl(self, other):
        """Bernoulli KL ``D(self ‖ other)`` (Sec. 3-4.4; :func:`bernoulli_kl_divergence`)."""
        return self._pair_value(other, _m_kl)
