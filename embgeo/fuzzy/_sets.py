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
    """One measure of :data:`FUZZY_MEASURES`: its one spelling and what kind of score it is.

    Parameters
    ----------
    name : str
        The one spelling ``measure=`` of :meth:`FuzzyEmbeddings.similarity_pairs` and
        :meth:`FuzzyEmbeddings.neighbors` accepts (e.g. ``"cross_entropy"``). :mod:`embgeo.evaluate`
        writes it :attr:`evaluate_name`.
    word_similarity : bool, default True
        :func:`embgeo.evaluate.word_similarity` offers it (the pair measures ``inclusion`` and
        ``intersection_ratio`` are for entailment only).
    divergence : bool, default False
        A divergence (lower = more similar), negated wherever a similarity is expected.
    symmetric : bool, default False
        ``m(S, T) = m(T, S)``: ``reverse=True`` changes nothing.
    searchable : bool, default True
        Vocabulary-wide search (:meth:`FuzzyEmbeddings.neighbors`) supports it.

    See Also
    --------
    FUZZY_MEASURES : the table of all measures, by name.
    """

    name: str
    word_similarity: bool = True
    divergence: bool = False
    symmetric: bool = False
    searchable: bool = True

    @property
    def evaluate_name(self) -> str:
        """The name :mod:`embgeo.evaluate` gives the measure: ``"fuzzy-"`` and :attr:`name` with hyphens
        (``"fuzzy-cross-entropy"``; ``"-rev"`` appended scores the other direction of an asymmetric one)."""
        return "fuzzy-" + self.name.replace("_", "-")


#: The fuzzy measures, by name, in one table: the one spelling ``measure=`` accepts for each, from
#: which :mod:`embgeo.evaluate` derives its ``"fuzzy-*"`` names (:attr:`FuzzyMeasure.evaluate_name`).
#: ``cross_entropy`` and ``kl`` are the Bernoulli (two-term) forms, ``categorical_*`` the one-term
#: forms the paper prints for KL (Sec. 4.4); ``symmetric_*`` add both directions (the released code's
#: Table 8 and Table 11 programs); ``inclusion`` (graded inclusion) is a pair measure only.
FUZZY_MEASURES: dict[str, FuzzyMeasure] = {m.name: m for m in (
    FuzzyMeasure("cross_entropy", divergence=True),
    FuzzyMeasure("kl", divergence=True),
    FuzzyMeasure("categorical_cross_entropy", divergence=True),
    FuzzyMeasure("categorical_kl", divergence=True),
    FuzzyMeasure("symmetric_cross_entropy", divergence=True, symmetric=True),
    FuzzyMeasure("symmetric_kl", divergence=True, symmetric=True),
    FuzzyMeasure("jaccard", symmetric=True),
    FuzzyMeasure("intersection_ratio", word_similarity=False),
    FuzzyMeasure("inclusion", word_similarity=False, searchable=False),
)}

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
    """``measure`` checked against the names of :data:`FUZZY_MEASURES` (None: cross-entropy)."""
    if measure is None:
        return "cross_entropy"
    if isinstance(measure, str) and measure in FUZZY_MEASURES:
        return measure
    raise ValueError(f"unknown fuzzy measure {measure!r}; choose from {', '.join(FUZZY_MEASURES)}")


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


_OPERANDS = """A, B : array_like, shape (..., d)
        Memberships in [0, 1] (NumPy, CuPy or array-API arrays; lists are read as NumPy) over the
        same d features; leading axes broadcast, so one set combines with every row of a batch."""
_SET_RESULT = """out : array, shape (..., d)
        Memberships in [0, 1], in the array library (and dtype) of the operands."""
_RAISES = """ValueError
        An operand that is empty, holds NaN or inf, or has a value outside [0, 1], or operands over
        different numbers of features."""


def _public_op(name, fn, summary, returns, examples):
    """A public function of two membership arrays: ``fn(xp, A, B)`` after validation, with a full docstring."""
    def f(A, B):
        xp, A, B = _pair_arrays(A, B)
        return fn(xp, A, B)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"{summary.strip()}\n\n    Parameters\n    ----------\n    {_OPERANDS}\n\n"
                 f"    Returns\n    -------\n    {returns.strip()}\n\n    Raises\n    ------\n    {_RAISES}\n\n"
                 f"    Examples\n    --------\n    {examples.strip()}\n    ")
    return f


def _measure_result(what):
    return f"""m : float64 array, shape (...)
        {what}, one per pair of sets (a 0-d array for two single sets)."""


intersection = _public_op("intersection", _op_intersection, """
    Fuzzy intersection ``A ∩ B = A·B`` (algebraic product; Bhat et al. 2020, Sec. 3).

    A product never exceeds its factors, so ``A ∩ B ⊆ A`` and ``A ∩ B ⊆ B``; unlike the minimum,
    the product is not idempotent (``A ∩ A = A² ⊆ A``, equal only where A is crisp).""", _SET_RESULT, """
    >>> A, B = [0.5, 1.0, 0.25], [0.5, 0.5, 1.0]
    >>> intersection(A, B).tolist()
    [0.25, 0.5, 0.25]
    >>> bool(is_subset(intersection(A, B), A)), bool(is_subset(intersection(A, B), B))
    (True, True)
    >>> intersection(A, A).tolist()   # not A: the product t-norm is not idempotent
    [0.25, 1.0, 0.0625]""")
union = _public_op("union", _op_union, """
    Fuzzy union ``A ∪ B = A + B − A·B`` (probabilistic sum; Bhat et al. 2020, Sec. 3).

    The dual of :func:`intersection` under :func:`complement` (De Morgan: ``¬(A ∪ B) = ¬A ∩ ¬B``,
    since ``1 − (a + b − ab) = (1 − a)(1 − b)``), and it contains both operands.""", _SET_RESULT, """
    >>> A, B = [0.5, 1.0, 0.25], [0.5, 0.5, 0.0]
    >>> union(A, B).tolist()
    [0.75, 1.0, 0.25]
    >>> complement(union(A, B)).tolist() == intersection(complement(A), complement(B)).tolist()
    True
    >>> bool(is_subset(A, union(A, B))), bool(is_subset(B, union(A, B)))
    (True, True)""")
disjoint_union = _public_op("disjoint_union", _op_disjoint_union, """
    Disjoint union ``A ⊔ B = min(1, max(0, A + B))`` (bounded sum; Bhat et al. 2020, Sec. 3 and 4.5).

    The paper prints ``max(1, min(0, A + B))``, which is always 1: a typo. The bounded sum is what
    Sec. 4.5 describes ("clipped at (0, 1]") and what the released ``cli.cpp`` computes. It keeps
    the features two sets share at their sum (where :func:`union` would give less), clipped at 1;
    the analogy query of Sec. 4.5 is ``(b ⊔ x) \\ a``.""", _SET_RESULT, """
    >>> A, B = [0.25, 0.75, 0.0], [0.5, 0.5, 0.0]
    >>> disjoint_union(A, B).tolist()   # the sum, clipped at 1 (the printed formula would give all 1s)
    [0.75, 1.0, 0.0]
    >>> bool(is_subset(union(A, B), disjoint_union(A, B)))   # a + b − ab ≤ min(1, a + b)
    True""")
difference = _public_op("difference", _op_difference, """
    Fuzzy difference ``A \\ B = A − min(A, B)`` (Bhat et al. 2020, Sec. 3), i.e. ``max(A − B, 0)``.

    What A has beyond B, feature by feature: ``A \\ B ⊆ A``, and ``A \\ B`` is empty (all 0)
    exactly when ``A ⊆ B``.""", _SET_RESULT, """
    >>> A, B = [0.75, 0.25, 0.5], [0.5, 0.5, 0.5]
    >>> difference(A, B).tolist()
    [0.25, 0.0, 0.0]
    >>> bool(is_subset(difference(A, B), A))
    True
    >>> difference(B, union(A, B)).tolist()   # B ⊆ A ∪ B: nothing left
    [0.0, 0.0, 0.0]""")
graded_inclusion = _public_op("graded_inclusion", _m_inclusion, """
    Share of features with ``µ_A ≤ µ_B``: the degree to which ``A ⊆ B`` (float64, in [0, 1]).

    A graded form of the paper's inclusion test (Bhat et al. 2020, Sec. 3 and 4.2 "Feature Inclusion");
    the grading is embgeo's, not the paper's. It is 1 exactly when :func:`is_subset` holds, and
    ``graded_inclusion(A, B) + graded_inclusion(B, A) ≥ 1`` (every feature counts for at least one
    direction; ties for both). :meth:`FuzzyEmbeddings.similarity_pairs` calls it ``"inclusion"``.""",
    _measure_result("The share of the d features on which A's membership is at most B's"), """
    >>> A, B = [0.25, 0.5, 0.75, 0.5], [0.5, 0.5, 0.5, 1.0]
    >>> float(graded_inclusion(A, B)), float(graded_inclusion(B, A))   # the tie counts both ways
    (0.75, 0.5)
    >>> float(graded_inclusion(intersection(A, B), A)), bool(is_subset(intersection(A, B), A))
    (1.0, True)""")
jaccard = _public_op("jaccard", _m_jaccard, """
    Fuzzy Jaccard similarity ``J(A, B) = |A ∩ B| / |A ∪ B|`` with the paper's product intersection and
    probabilistic union (Bhat et al. 2020, Sec. 3); the measure itself is embgeo's addition, not in the
    paper (float64, symmetric, in [0, 1]; ``J(∅, ∅) = 1``).

    ``J(A, A) = Σa² / Σ(2a − a²) < 1`` unless A is crisp (all 0 or 1): the product t-norm is not
    idempotent, so a set is not maximally similar to itself under this measure.""",
    _measure_result("J(A, B)"), """
    >>> A = [0.5, 0.5]
    >>> float(jaccard(A, A))   # Σa² / Σ(2a − a²) = 0.5 / 1.5: less than 1
    0.3333333333333333
    >>> float(jaccard([1.0, 0.0], [1.0, 0.0]))   # a crisp set: 1
    1.0
    >>> float(jaccard(A, [0.25, 1.0])) == float(jaccard([0.25, 1.0], A))
    True""")
intersection_ratio = _public_op("intersection_ratio", _m_intersection_ratio, """
    ``|A ∩ B| / |A|``: Kosko's subsethood of A in B with the paper's product intersection (Sec. 3);
    embgeo's addition, not in the paper (float64, in [0, 1]; asymmetric: A plays S).

    An empty ``A`` gives 1 (the empty set is included in everything); a crisp A included in a crisp
    B gives 1.""", _measure_result("|A ∩ B| / |A|"), """
    >>> A, B = [0.5, 0.5, 0.0], [1.0, 0.5, 0.5]
    >>> float(intersection_ratio(A, B)), float(intersection_ratio(B, A))   # (0.5 + 0.25) / 1, 0.75 / 2
    (0.75, 0.375)
    >>> float(intersection_ratio([0.0, 0.0, 0.0], B))   # the empty set
    1.0""")
cross_entropy = _public_op("cross_entropy", _m_cross_entropy, """
    Cross-entropy of the per-feature Bernoulli variables, ``H(A, B) = Σ_i H(X_i^A) + D(X_i^A ‖ X_i^B)``
    (Bhat et al. 2020, Sec. 4.4, the generalised cross-entropy of Li 2015), in nats, float64:
    ``−Σ a ln b + (1 − a) ln(1 − b)``. A plays S. Also available as :func:`cross_entropy`.

    So ``H(A, B) = H(A) + D(A ‖ B)`` (:func:`entropy`, :func:`kl_divergence`) and
    ``H(A, A) = H(A)``. The released code computes this in its function named ``kl`` (``cli.cpp``;
    Table 5's "KL" values are this quantity). ``ln 0`` is clipped to :data:`LOG_TINY`.""",
    _measure_result("H(A, B) in nats"), """
    >>> import math
    >>> A, B = [0.5, 0.25], [0.25, 0.5]
    >>> math.isclose(float(cross_entropy(A, B)), float(entropy(A) + kl_divergence(A, B)))
    True
    >>> math.isclose(float(cross_entropy(A, A)), float(entropy(A)))
    True
    >>> round(float(cross_entropy(A, B)), 6)   # −(.5 ln .25 + .5 ln .75) − (.25 ln .5 + .75 ln .5)
    1.530135""")
kl_divergence = _public_op("kl_divergence", _m_kl, """
    KL divergence of the per-feature Bernoulli variables,
    ``D(A ‖ B) = Σ_i a ln(a/b) + (1 − a) ln((1 − a)/(1 − b))`` (Bhat et al. 2020, Sec. 3-4.4: the
    Bernoulli reading of ``D(X_i^A ‖ X_i^B)``), in nats, float64. A plays S. Also available as
    :func:`kl_divergence`.

    A sum of Bernoulli KL divergences: ``D(A ‖ B) ≥ 0``, 0 exactly when ``A = B``, and asymmetric.
    The released code computes this in its functions named ``crossentropy`` / ``fuzzycrossentropy``.""",
    _measure_result("D(A ‖ B) in nats"), """
    >>> A, B = [0.5, 0.25], [0.25, 0.5]
    >>> float(kl_divergence(A, A))
    0.0
    >>> round(float(kl_divergence(A, B)), 6), round(float(kl_divergence(B, A)), 6)
    (0.274653, 0.274653)
    >>> S, T = [0.5], [0.125]   # asymmetric: .5 ln 4 + .5 ln(.5/.875) against .125 ln .25 + .875 ln 1.75
    >>> round(float(kl_divergence(S, T)), 6), round(float(kl_divergence(T, S)), 6)
    (0.413339, 0.316377)""")
categorical_cross_entropy = _public_op("categorical_cross_entropy", _m_categorical_cross_entropy, """
    ``−Σ_i a ln b`` (float64, nats): the cross-entropy of A and B read as distributions over the features
    (one term per feature, no ``1 − a`` term). A plays S. A true cross-entropy when the rows sum to 1
    (``axis="features"``); then it is the Shannon entropy ``−Σ a ln a`` plus
    :func:`categorical_kl_divergence`. ``0·ln 0 = 0``; ``ln 0`` is clipped to :data:`LOG_TINY`.""",
    _measure_result("−Σ a ln b in nats"), """
    >>> import math
    >>> A, B = [0.5, 0.5], [0.25, 0.75]   # two distributions over 2 features
    >>> shannon = -sum(a * math.log(a) for a in A)
    >>> math.isclose(float(categorical_cross_entropy(A, B)), shannon + float(categorical_kl_divergence(A, B)))
    True
    >>> float(categorical_cross_entropy([0.0, 1.0], [0.0, 1.0]))   # 0·ln 0 = 0
    0.0""")
categorical_kl_divergence = _public_op("categorical_kl_divergence", _m_categorical_kl, """
    ``D(A ‖ B) = Σ_i a ln(a/b)`` (float64, nats): the KL divergence **as the paper prints it**
    (Bhat et al. 2020, Sec. 4.4, ``D(S‖T) = Σ_i p_i^S log(p_i^S / p_i^T)``), one term per feature.
    A plays S. A true KL divergence (≥ 0, 0 when ``A = B``) when the rows sum to 1
    (``axis="features"``); with the vocabulary axis it can be negative. ``0·ln 0 = 0``; ``ln 0`` is
    clipped to :data:`LOG_TINY`.""", _measure_result("Σ a ln(a/b) in nats"), """
    >>> round(float(categorical_kl_divergence([0.5, 0.5], [0.25, 0.75])), 6)   # distributions: ≥ 0
    0.143841
    >>> float(categorical_kl_divergence([0.5, 0.5], [0.5, 0.5]))
    0.0
    >>> float(categorical_kl_divergence([0.125, 0.125], [0.5, 0.5])) < 0   # rows that do not sum to 1
    True""")
symmetric_cross_entropy = _public_op("symmetric_cross_entropy", _m_symmetric_cross_entropy, """
    ``H(A, B) + H(B, A)`` with the Bernoulli cross-entropy (float64, nats): what the released code's
    Table 8 program (``dump-accuracy-simlex.c``, option ``kl``) ranks by, i.e. the paper's Table 8
    column headed "K-L Divergence". Symmetric, and ``≥ H(A) + H(B)``.""",
    _measure_result("H(A, B) + H(B, A) in nats"), """
    >>> A, B = [0.5, 0.125], [0.25, 0.5]
    >>> H = cross_entropy
    >>> float(symmetric_cross_entropy(A, B)) == float(H(A, B) + H(B, A))
    True
    >>> float(symmetric_cross_entropy(A, B)) == float(symmetric_cross_entropy(B, A))
    True""")
symmetric_kl_divergence = _public_op("symmetric_kl_divergence", _m_symmetric_kl, """
    ``D(A ‖ B) + D(B ‖ A)`` with the Bernoulli KL (float64, nats): what the released code's Table 11
    program (``compute-composition.cpp``, option ``xhsym``, "symmetric cross entropy") computes.
    Symmetric, ``≥ 0``, and 0 exactly when ``A = B``.""", _measure_result("D(A ‖ B) + D(B ‖ A) in nats"), """
    >>> A, B = [0.5, 0.125], [0.25, 0.5]
    >>> float(symmetric_kl_divergence(A, B)) == float(symmetric_kl_divergence(B, A)) > 0
    True
    >>> float(symmetric_kl_divergence(A, A))
    0.0""")


def complement(A):
    """Fuzzy complement ``¬A = 1 − A`` (Bhat et al. 2020, Sec. 3).

    Parameters
    ----------
    A : array_like, shape (..., d)
        Memberships in [0, 1] (NumPy, CuPy or array-API arrays; lists are read as NumPy).

    Returns
    -------
    out : array, shape (..., d)
        ``1 − A``, in the array library (and dtype) of ``A``.

    Raises
    ------
    ValueError
        ``A`` is empty, holds NaN or inf, or has a value outside [0, 1].

    See Also
    --------
    union : dual of intersection under the complement (De Morgan).
    difference : ``A \\ B``, which is not ``A ∩ ¬B`` under the product t-norm.

    References
    ----------
    Bhat, Debnath, Banerjee & Shrivastava (2020), "Word Embeddings as Tuples of Feature
    Probabilities", RepL4NLP, pp. 24-33, Sec. 3 (fuzzy set operations). doi:10.18653/v1/2020.repl4nlp-1.4
    """
    A = _check_memberships(A, "A")
    return 1 - A


def is_subset(S, T):
    """Crisp inclusion test ``S ⊆ T``: every feature has ``µ_S ≤ µ_T`` (Bhat et al. 2020, Sec. 3).

    Parameters
    ----------
    S, T : array_like, shape (..., d)
        Memberships in [0, 1] over the same d features; leading axes broadcast.

    Returns
    -------
    bool or bool array, shape (...)
        True where every feature of S is at most the same feature of T (a 0-d array for two
        single sets).

    Raises
    ------
    ValueError
        An operand that is empty, holds NaN or inf, or has a value outside [0, 1], or operands over
        different numbers of features.

    See Also
    --------
    graded_inclusion : the share of features with ``µ_S ≤ µ_T`` (1 exactly when this holds).
    FuzzySet.issubset : the same test on :class:`FuzzySet` objects.
    """
    xp, S, T = _pair_arrays(S, T)
    return xp.all(S <= T, axis=-1)


def cardinality(A):
    """Fuzzy cardinality ``|A| = Σ_i µ_A[i]`` (Bhat et al. 2020, Sec. 3; float64), over the last axis.

    Parameters
    ----------
    A : array_like, shape (..., d)
        Memberships in [0, 1] (NumPy, CuPy or array-API arrays; lists are read as NumPy).

    Returns
    -------
    float64 array, shape (...)
        The sum of the memberships of each set (a 0-d array for a single set).

    Raises
    ------
    ValueError
        ``A`` is empty, holds NaN or inf, or has a value outside [0, 1].

    See Also
    --------
    entropy : the other single-set measure.
    """
    A = _check_memberships(A, "A")
    return _m_cardinality(xb.get_namespace(A), A)


def entropy(A):
    """Fuzzy entropy ``H(A) = Σ_i −a_i ln a_i − (1 − a_i) ln(1 − a_i)`` with ``0·ln 0 = 0``.

    The entropy of the per-feature Bernoulli variables (Bhat et al. 2020, Sec. 3 and 4.3), in nats,
    float64; it is 0 for a crisp set and largest (``d ln 2``) when every membership is 0.5.

    Parameters
    ----------
    A : array_like, shape (..., d)
        Memberships in [0, 1] (NumPy, CuPy or array-API arrays; lists are read as NumPy).

    Returns
    -------
    float64 array, shape (...)
        ``H(A)`` in nats, one per set (a 0-d array for a single set).

    Raises
    ------
    ValueError
        ``A`` is empty, holds NaN or inf, or has a value outside [0, 1].

    See Also
    --------
    cross_entropy : ``H(A, B) = H(A) + D(A ‖ B)``.
    cardinality : the other single-set measure.
    """
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
        The vocabulary words the set was built from (one tuple per set of a batch); None: none.
    label : str, optional
        A readable expression, e.g. ``"(north & korea)"``.
    check : bool, default True
        Validate ``memberships`` (floating, finite, in [0, 1], non-empty). False skips the pass, for
        memberships an operation on valid sets has just produced.

    Raises
    ------
    ValueError
        Memberships that are empty, hold NaN or inf, lie outside [0, 1] or are not 1-d or 2-d; or a
        number of source tuples that differs from the number of sets.

    See Also
    --------
    FuzzyEmbeddings : the vocabulary whose rows are fuzzy sets.
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
        """The number of features d."""
        return int(self._mu.shape[1])

    @property
    def is_batch(self) -> bool:
        """Whether this is a batch of sets (memberships of shape (m, d)) rather than a single set."""
        return not self._single

    @property
    def n_sets(self) -> int:
        """The number of sets m (1 for a single set)."""
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
        """``self ∩ other = µ_self · µ_other`` (also ``self & other``; Bhat et al. 2020, Sec. 3).

        Parameters
        ----------
        other : FuzzySet or array_like, shape (d,) or (m, d)
            The other operand, over the same d features; a single set broadcasts against a batch.

        Returns
        -------
        FuzzySet
            The intersection, with the sources of both operands (a batch if either is one).

        Raises
        ------
        ValueError
            Operands over different numbers of features, or batches of different sizes.
        TypeError
            ``other`` cannot be read as memberships.

        See Also
        --------
        intersection : the function over membership arrays.
        """
        return self._binary(other, _op_intersection, "&")

    def union(self, other) -> "FuzzySet":
        """``self ∪ other = µ_self + µ_other − µ_self µ_other`` (also ``self | other``; Sec. 3).

        Parameters
        ----------
        other : FuzzySet or array_like, shape (d,) or (m, d)
            The other operand, over the same d features; a single set broadcasts against a batch.

        Returns
        -------
        FuzzySet
            The union, with the sources of both operands (a batch if either is one).

        Raises
        ------
        ValueError
            Operands over different numbers of features, or batches of different sizes.
        TypeError
            ``other`` cannot be read as memberships.

        See Also
        --------
        union : the function over membership arrays.
        """
        return self._binary(other, _op_union, "|")

    def disjoint_union(self, other) -> "FuzzySet":
        """``self ⊔ other = min(1, max(0, µ_self + µ_other))`` (also ``self + other``).

        Bhat et al. 2020, Sec. 3, with the printed formula's typo corrected: see :func:`disjoint_union`.

        Parameters
        ----------
        other : FuzzySet or array_like, shape (d,) or (m, d)
            The other operand, over the same d features; a single set broadcasts against a batch.

        Returns
        -------
        FuzzySet
            The bounded sum, with the sources of both operands (a batch if either is one).

        Raises
        ------
        ValueError
            Operands over different numbers of features, or batches of different sizes.
        TypeError
            ``other`` cannot be read as memberships.

        See Also
        --------
        disjoint_union : the function over membership arrays.
        """
        return self._binary(other, _op_disjoint_union, "+")

    def difference(self, other) -> "FuzzySet":
        """``self \\ other = µ_self − min(µ_self, µ_other)`` (also ``self - other``; Sec. 3).

        Parameters
        ----------
        other : FuzzySet or array_like, shape (d,) or (m, d)
            The set to take away, over the same d features; a single set broadcasts against a batch.

        Returns
        -------
        FuzzySet
            What ``self`` has beyond ``other``, with the sources of both operands.

        Raises
        ------
        ValueError
            Operands over different numbers of features, or batches of different sizes.
        TypeError
            ``other`` cannot be read as memberships.

        See Also
        --------
        difference : the function over membership arrays.
        """
        return self._binary(other, _op_difference, "-")

    def complement(self) -> "FuzzySet":
        """``¬self = 1 − µ_self`` (also ``~self``; Sec. 3).

        Returns
        -------
        FuzzySet
            The complement. It keeps the sources, so searches still exclude them.

        See Also
        --------
        complement : the function over membership arrays.
        """
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
        """``|A| = Σ µ`` (Bhat et al. 2020, Sec. 3).

        Returns
        -------
        float or float64 array, shape (m,)
            The cardinality: a float for a single set, one value per set for a batch.

        See Also
        --------
        cardinality : the function over membership arrays.
        """
        return self._unary_value(_m_cardinality)

    def entropy(self):
        """Fuzzy entropy ``Σ −a ln a − (1 − a) ln(1 − a)``, 0·ln 0 = 0 (nats; Sec. 3 and 4.3).

        Returns
        -------
        float or float64 array, shape (m,)
            The entropy in nats: a float for a single set, one value per set for a batch.

        See Also
        --------
        entropy : the function over membership arrays.
        """
        return self._unary_value(_m_entropy)

    def issubset(self, other):
        """Crisp inclusion ``self ⊆ other`` (also ``self <= other``; Sec. 3).

        Parameters
        ----------
        other : FuzzySet or array_like, shape (d,) or (m, d)
            The candidate superset, over the same d features.

        Returns
        -------
        bool or bool array, shape (m,)
            A bool when both are single sets, one per pair otherwise.

        Raises
        ------
        ValueError
            Operands over different numbers of features, or batches of different sizes.

        See Also
        --------
        inclusion : the graded form.
        is_subset : the function over membership arrays.
        """
        o = self._coerce(other)
        xp = xb.get_namespace(self._mu, o._mu)
        v = xp.all(self._mu <= o._mu, axis=-1)
        return bool(v[0]) if (self._single and o._single) else v

    __le__ = issubset

    def inclusion(self, other):
        """Graded inclusion of ``self`` in ``other``: share of features with ``µ_self ≤ µ_other``.

        Parameters
        ----------
        other : FuzzySet or array_like, shape (d,) or (m, d)
            The candidate superset, over the same d features.

        Returns
        -------
        float or float64 array, shape (m,)
            In [0, 1]: a float when both are single sets, one per pair otherwise.

        See Also
        --------
        graded_inclusion : the function over membership arrays.
        """
        return self._pair_value(other, _m_inclusion)

    def jaccard(self, other):
        """Fuzzy Jaccard ``|self ∩ other| / |self ∪ other|`` (symmetric, in [0, 1]).

        Parameters
        ----------
        other : FuzzySet or array_like, shape (d,) or (m, d)
            The other set, over the same d features.

        Returns
        -------
        float or float64 array, shape (m,)
            A float when both are single sets, one per pair otherwise.

        See Also
        --------
        jaccard : the function over membership arrays.
        """
        return self._pair_value(other, _m_jaccard)

    def intersection_ratio(self, other):
        """``|self ∩ other| / |self|``: Kosko's subsethood of ``self`` in ``other``.

        Parameters
        ----------
        other : FuzzySet or array_like, shape (d,) or (m, d)
            The other set, over the same d features.

        Returns
        -------
        float or float64 array, shape (m,)
            In [0, 1]: a float when both are single sets, one per pair otherwise.

        See Also
        --------
        intersection_ratio : the function over membership arrays.
        """
        return self._pair_value(other, _m_intersection_ratio)

    def cross_entropy(self, other):
        """Bernoulli cross-entropy ``H(self, other)`` (Sec. 4.4): self plays S.

        Parameters
        ----------
        other : FuzzySet or array_like, shape (d,) or (m, d)
            The set playing T, over the same d features.

        Returns
        -------
        float or float64 array, shape (m,)
            In nats: a float when both are single sets, one per pair otherwise.

        See Also
        --------
        cross_entropy : the function over membership arrays.
        """
        return self._pair_value(other, _m_cross_entropy)

    def kl(self, other):
        """Bernoulli KL ``D(self ‖ other)`` (Sec. 3-4.4).

        Parameters
        ----------
        other : FuzzySet or array_like, shape (d,) or (m, d)
            The set playing T, over the same d features.

        Returns
        -------
        float or float64 array, shape (m,)
            In nats, ≥ 0: a float when both are single sets, one per pair otherwise.

        See Also
        --------
        kl_divergence : the function over membership arrays.
        """
        return self._pair_value(other, _m_kl)
