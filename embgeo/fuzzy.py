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
    D(S‖T) = Σ_i D(X_i^S ‖ X_i^T)                           (KL of the Bernoulli features, Sec. 3)
    H(S, T) = Σ_i H(X_i^S) + D(X_i^S ‖ X_i^T)               (cross-entropy, the paper's definition, Sec. 4.4)
    D_cat(S‖T) = Σ_i s_i ln(s_i / t_i)                       (the KL as printed in Sec. 4.4)

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
The authors' programs (``AlokDebnath/fuzzy_embeddings``, ``word2fuzzy/``) differ from the paper, and
from each other: they use base 2, normalise each word over its *features* (rows) in ``cli.cpp`` and the
Table 8 program, L2-normalise the vectors first in the Table 8 and Table 11 programs, and their
functions named "KL divergence" compute the Bernoulli cross-entropy and vice versa.
:data:`CONSTRUCTIONS` names each program's construction (``from_embeddings(e, construction=...)``), and
every form is offered by its meaning: :func:`bernoulli_kl_divergence` (the two-term KL above, also
:func:`kl_divergence`), :func:`categorical_kl_divergence` (``Σ s ln(s/t)``, the KL the paper *prints*
in Sec. 4.4), :func:`bernoulli_cross_entropy` (also :func:`cross_entropy`),
:func:`categorical_cross_entropy`, and the symmetric sums the Table 8 and Table 11 programs rank by.
docs/fuzzy.md says which table uses which, with the measured numbers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import backend as xb  # where a method's `backend=` parameter shadows the module
from .data import read_compounds  # moved to embgeo.data; still exported here
from .embeddings import Embeddings
from .blocking import block_rows, budget_bytes
from .neighbors import merge_topk, select_topk
from .neighbors import topk as _dot_topk
from .progress import progress_bar
from .validation import renamed_parameter

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
    "bernoulli_kl_divergence",
    "bernoulli_cross_entropy",
    "categorical_kl_divergence",
    "categorical_cross_entropy",
    "symmetric_kl_divergence",
    "symmetric_cross_entropy",
    "CONSTRUCTIONS",
    "read_compounds",
    "function_words",
    "FunctionWordReport",
    "polysemy",
    "hyponymy",
    "HyponymyReport",
    "MEASURES",
    "LOG_TINY",
]

#: ``ln`` of the smallest normal float64: the value used for ``ln 0`` (see "Where memberships are clipped").
LOG_TINY = math.log(np.finfo(np.float64).tiny)

#: Measures understood by ``similarity_pairs`` and ``neighbors`` (``inclusion``: pairs only).
#: ``cross_entropy`` and ``kl`` are the Bernoulli (two-term) forms, ``categorical_*`` the one-term
#: forms the paper prints for KL (Sec. 4.4); ``symmetric_*`` add both directions (the released code's
#: Table 8 and Table 11 programs).
MEASURES = ("cross_entropy", "kl", "categorical_cross_entropy", "categorical_kl", "symmetric_cross_entropy",
            "symmetric_kl", "jaccard", "intersection_ratio", "inclusion")
_ALIASES = {"ce": "cross_entropy", "cross-entropy": "cross_entropy", "crossentropy": "cross_entropy",
            "bernoulli_cross_entropy": "cross_entropy", "bernoulli_kl": "kl", "kl_divergence": "kl",
            "categorical_ce": "categorical_cross_entropy", "symmetric_ce": "symmetric_cross_entropy",
            "graded_inclusion": "inclusion"}
_AXES = ("vocabulary", "features")

#: The settings of :func:`fuzzify` behind each of the paper's tables (``from_embeddings(e, construction=...)``).
#: ``"paper"``: Sec. 4.1 as printed. The others are what the authors' released programs do
#: (AlokDebnath/fuzzy_embeddings, ``word2fuzzy/``): ``"released-cli"`` is ``cli.cpp`` (Tables 1-7, the
#: entropies of Sec. 4.3-4.4 such as H(the) = 6.29, Table 10's entropy ranking), ``"released-simlex"`` is
#: ``dump-accuracy-simlex.c`` (Table 8), ``"released-composition"`` is ``compute-composition.cpp``
#: (Table 11). Table 9's ``compute-accuracy-topn.c`` exponentiates without normalising (memberships up
#: to e, not fuzzy sets; see docs/fuzzy.md), so it has no entry.
CONSTRUCTIONS: dict[str, dict[str, Any]] = {
    "paper": {"axis": "vocabulary", "base": math.e, "l2_normalize": False},
    "released-cli": {"axis": "features", "base": 2.0, "l2_normalize": False},
    "released-simlex": {"axis": "features", "base": 2.0, "l2_normalize": True},
    "released-composition": {"axis": "vocabulary", "base": 2.0, "l2_normalize": True},
}


# ====================================================================== representation
def fuzzify(X, axis: str = "vocabulary", base: float = math.e, *, l2_normalize: bool = False, dtype=None,
            memory_budget: int | None = None, progress: bool | None = None):
    """Feature probabilities of word vectors: exponentiate and normalise (Bhat et al. 2020, Sec. 4.1).

    ``axis="vocabulary"`` (the paper, Sec. 4.1: ``v̂[i] = exp v[i] / Σ_{w ∈ VOCAB} exp w[i]``):
    ``µ[w, i] = base**X[w, i] / Σ_{w'} base**X[w', i]``, each column sums to 1 over the vocabulary.
    ``axis="features"`` (the released code's ``cli.cpp`` and ``dump-accuracy-simlex.c``, with
    ``base=2``): ``µ[w, i] = base**X[w, i] / Σ_j base**X[w, j]``, each row sums to 1.
    ``l2_normalize=True`` divides every vector by its L2 norm first, as the released code's
    Table 8 (``dump-accuracy-simlex.c``) and Table 11 (``compute-composition.cpp``) programs do;
    the scaling is folded into the kernels, so it makes no copy of ``X``. See
    :data:`CONSTRUCTIONS` for the settings of each paper table.

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
    l2_normalize : bool, default False
        Unit-normalise every row before exponentiating.
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
        Unknown axis, ``base <= 1``, a non-2-D, empty or non-finite ``X``, or (with
        ``l2_normalize``) a zero row.

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
    X = xb.check_matrix(X, "X")
    xp = xb.get_namespace(X)
    dt = xb.resolve_dtype(dtype, xp)
    scale = math.log(base)
    if xb.is_numpy(X):
        from .kernels import fuzzy as kern

        X = np.ascontiguousarray(X, dtype=X.dtype if X.dtype in (np.float32, np.float64) else np.float64)
        rs = np.ones(X.shape[0])
        if l2_normalize:
            kern.inverse_row_norms(X, rs)
            _check_nonzero_rows(rs == 0)
        out = np.empty(X.shape, dtype=dt)
        if axis == "vocabulary":
            m, s = kern.column_logsumexp(X, rs, scale)
            kern.write_column_softmax(X, rs, scale, m, s, out)
        else:
            kern.row_softmax(X, rs, scale, out)
        return out
    return _fuzzify_xp(xp, X, axis, scale, l2_normalize, dt, memory_budget, progress)


def _check_nonzero_rows(zero):
    if np.any(zero):
        raise ValueError(f"row {int(np.flatnonzero(zero)[0])} is a zero vector: it has no L2 normalisation")


def _fuzzify_xp(xp, X, axis, scale, l2_normalize, dt, memory_budget, progress):
    n, d = X.shape
    step = block_rows(d, 8, memory_budget)
    starts = range(0, n, step)

    def scaled(s):
        A = xp.astype(X[s:min(s + step, n), ...], xp.float64)
        if l2_normalize:
            norms = xp.sqrt(xp.sum(A * A, axis=1, keepdims=True))
            zero = xb.to_numpy(norms == 0).reshape(-1)
            if zero.any():
                _check_nonzero_rows(np.concatenate([np.zeros(s, dtype=bool), zero]))
            A = A / norms
        return A * scale

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
_DIVERGENCES = ("cross_entropy", "kl", "categorical_cross_entropy", "categorical_kl", "symmetric_cross_entropy",
                "symmetric_kl")


def _resolve_measure(measure):
    if measure is None:
        return "cross_entropy"
    m = _ALIASES.get(measure, measure)
    if m not in MEASURES:
        raise ValueError(f"unknown fuzzy measure {measure!r}; choose from {', '.join(MEASURES)}")
    return m


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
                 l2_normalize: bool = False, check: bool = True):
        if check:
            _check_memberships(memberships)
        self._vocab = Embeddings(words, memberships, counts, check_finite=False)
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
        how += ", l2_normalize=True" if self.l2_normalize else ""
        return f"FuzzyEmbeddings({len(self)} words, dim={self.dim}, {self.memberships.dtype}{how})"

    def index(self, word: str) -> int:
        return self._vocab.index(word)

    def indices(self, words, oov: str = "raise", *, missing: str | None = None) -> np.ndarray:
        """Row indices of ``words``; ``oov`` as in :meth:`embgeo.Embeddings.indices`
        (``"raise"``, ``"skip"`` or ``"mark"``; ``missing=`` is its deprecated alias)."""
        oov = renamed_parameter(oov, missing, old="missing", new="oov", where="FuzzyEmbeddings.indices")
        return self._vocab.indices(words, oov)

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
    def _stats(self):
        """Per-word entropy and cardinality (float64, O(n_words)), computed once in blocks of rows."""
        c = self._cache
        if "entropy" not in c:
            P = self.memberships
            xp = xb.get_namespace(P)
            n, d = P.shape
            step = min(n, block_rows(d + 1, 8, budget_bytes(None) // 64))
            if xb.is_numpy(P):
                from .kernels import fuzzy as kern

                ent, card = np.empty(n), np.empty(n)
                buf = np.empty((step, d + 1), dtype=P.dtype)  # the kernel's logit output, discarded here
                for s in range(0, n, step):
                    e_ = min(s + step, n)
                    kern.logit_stats(np.ascontiguousarray(P[s:e_]), LOG_TINY, buf[:e_ - s], ent[s:e_], card[s:e_])
            else:
                ent = xp.concat([_m_entropy(xp, P[s:min(s + step, n), ...]) for s in range(0, n, step)], axis=0)
                card = xp.concat([_m_cardinality(xp, P[s:min(s + step, n), ...]) for s in range(0, n, step)], axis=0)
            c["entropy"], c["cardinality"] = ent, card
        return c

    def _per_word(self, key, words):
        v = self._stats()[key]
        if words is None:
            return v
        xp = xb.get_namespace(v)
        idx = self.indices(list(words))
        return xp.take(v, idx if xb.is_numpy(v) else xp.asarray(idx), axis=0)

    def entropy(self, words=None):
        """Fuzzy entropy of every word (or of ``words``; Sec. 3 and 4.3), float64 (same library as the memberships)."""
        return self._per_word("entropy", words)

    def cardinality(self, words=None):
        """Fuzzy cardinality ``Σ µ`` of every word (or of ``words``; Sec. 3), float64."""
        return self._per_word("cardinality", words)

    # ------------------------------------------------------------ pairs
    def similarity(self, w1: str, w2: str, measure: str = "cross_entropy", reverse: bool = False) -> float:
        """Similarity of two words (a divergence negated; Bhat et al. 2020, Sec. 4.4); see :meth:`similarity_pairs`."""
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
                  memory_budget: int | None = None, precompute: bool = False, progress: bool | None = None,
                  backend: str = "exact"):
        """The ``k`` most similar words to each query under a fuzzy measure, vocabulary-wide.

        Scores are similarities (divergences negated), best first, ties to the lower row, with the
        direction convention ``S = query, T = candidate``; ``reverse=True`` ranks by
        ``m(candidate, query)``. Every measure of :data:`MEASURES` but ``"inclusion"``. Ranking by
        ``−D(S‖T)`` and by ``−H(S, T)`` over candidates T is the same (they differ by H(S)); the
        reversed directions differ.

        Each measure is one GEMM per block: with ``logit(t) = ln t − ln(1 − t)`` and
        ``c(T) = −Σ ln(1 − t)``, the Bernoulli cross-entropy (Bhat et al. 2020, Sec. 4.4) is
        ``H(S, T) = −S·logit(T)ᵀ + c(T)`` (the expansion −S·ln Tᵀ − (1 − S)·ln(1 − T)ᵀ with its two
        products merged); reversed, ``H(T, S) = −T·logit(S)ᵀ + c(S)`` and ``D(T‖S) = H(T, S) − H(T)``;
        the categorical forms use ``ln T`` (or ``ln S``) alone; Jaccard uses ``|S ∩ T| = S·Tᵀ`` and
        ``|S ∪ T| = |S| + |T| − S·Tᵀ``. The candidate-side transforms are computed block by block,
        so that extra memory stays within ``memory_budget`` (one block of transformed candidates in
        the storage dtype, the search's tiles, the float64 rescoring); a transformed copy of the
        vocabulary is kept only with ``precompute=True`` (cached on this object; faster for many
        separate calls).

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
        precompute : bool, default False
            Keep the transformed vocabulary (n_words × (dim + 1) values) for later calls.
        progress : bool, optional
        backend : {"exact", "dask"}
            ``"dask"`` selects the candidates on the current ``dask.distributed`` client
            (:func:`embgeo.neighbors.topk` with ``backend="dask"``, of the conditioned queries
            against the conditioned vocabulary, built row chunk by row chunk on the workers, never
            whole in one process) and certifies them here in float64, as locally: the same lists.
            NumPy memberships and the measures that are one product (all but ``"jaccard"`` and
            reversed ``"intersection_ratio"``).

        Returns
        -------
        scores : array of float64, shape (m, k)
        indices : array of int64, shape (m, k)
        """
        if backend not in ("exact", "dask"):
            raise ValueError(f"backend must be 'exact' or 'dask', got {backend!r}")
        measure = _resolve_measure(measure)
        if measure == "inclusion":
            raise ValueError("graded inclusion is a pair measure; vocabulary-wide search supports "
                             + ", ".join(repr(m) for m in MEASURES if m != "inclusion"))
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
        if backend == "dask":
            idx = self._search_dask(Q, k, measure, reverse, ex, n, memory_budget)
        else:
            idx = self._search(Q, k, measure, reverse, ex, n, memory_budget, progress, precompute)
        return self._rescore(Q, idx, measure, reverse, memory_budget)

    def analogy_query(self, a, b, x) -> FuzzySet:
        """The set ``y = (b ⊔ x) \\ a`` answering a : b :: x : y (Bhat et al. 2020, Sec. 4.5).

        ``a``, ``b``, ``x``: words, or equal-length lists of words (a batch). The paper's order of
        operations: bounded sum first, then the difference. The released programs compute
        ``clip((b + x) − min(b + x, a), 0, 1)``, which differs only on features where ``b + x > 1``.
        """
        if isinstance(a, str):
            return (self[b] + self[x]) - self[a]
        return (self[list(b)] + self[list(x)]) - self[list(a)]

    def analogy(self, a, b, x, topn: int = 1, *, measure: str = "cross_entropy", reverse: bool = False,
                restrict_vocab: int | None = None, memory_budget: int | None = None, progress: bool | None = None):
        """Set-theoretic analogy a : b :: x : y (Bhat et al. 2020, Sec. 4.5, Table 7): the ``topn``
        nearest words to :meth:`analogy_query` by ``measure`` (query as S), excluding a, b and x.

        ``a``, ``b``, ``x`` are words or equal-length lists of words. Always returns
        ``(scores, indices)`` of shape (m, topn), as :meth:`neighbors` does (m = 1 for single words);
        ``F.words[i]`` names an index. To score a question file, pass :meth:`analogy_scorer` to
        :func:`embgeo.evaluate.analogy`.
        """
        q = self.analogy_query(a, b, x)
        return self.neighbors(q, topn, measure=measure, reverse=reverse, restrict_vocab=restrict_vocab,
                              memory_budget=memory_budget, progress=progress)

    def analogy_scorer(self, measure: str = "cross_entropy", reverse: bool = False, *,
                       memory_budget: int | None = None, precompute: bool = False, progress: bool | None = None):
        """A ``scorer`` for :func:`embgeo.evaluate.analogy`: answers ``y = (b ⊔ x) \\ a`` by ``measure``.

        The released code's Table 9 protocol (``compute-accuracy-topn.c``) is
        ``evaluate.analogy(F, questions, scorer=F.analogy_scorer(), topn=5, restrict_vocab=None)``:
        Bernoulli cross-entropy ``H(y, w)`` with the query first, solved when the answer is in the top 5.

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

    # Vocabulary-wide search. For every measure, a query side Q' and a candidate side D' (computed per
    # block of candidates, never for the whole vocabulary unless precompute=True) such that Q'·D'ᵀ ranks
    # the candidates like the measure does (up to a per-query constant), optionally followed by a
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

    def _conditioned_rows(self, key, c0, c1, precompute):
        """Candidate side of rows [c0, c1), conditioned (:meth:`_conditioning`), in the storage dtype:
        computed in float64 and rounded once; the whole vocabulary cached if asked."""
        P = self.memberships
        xp = xb.get_namespace(P)
        if precompute:
            ck = ("database",) + key
            if ck not in self._cache:
                n = P.shape[0]
                step = min(n, block_rows(48 * (P.shape[1] + 3), 1, budget_bytes(None) // 4))
                self._cache[ck] = xp.concat([self._conditioned_rows(key, s, min(s + step, n), False)
                                             for s in range(0, n, step)], axis=0)
            return self._cache[ck][c0:c1, ...]
        centre, beta = self._conditioning(key)
        return self._candidate_columns(key, c0, c1, centre, beta, P.dtype)

    def _candidate_columns(self, key, c0, c1, centre, scale, dtype):
        """``(D − centre) / scale`` for the candidate side D of rows [c0, c1), computed in float64 and
        rounded once to ``dtype``."""
        P = self.memberships
        xp = xb.get_namespace(P)
        names = self._LINEAR[key][1]
        if xb.is_numpy(P) and names == ("logit", "sum_log1m"):
            from .kernels import fuzzy as kern

            out = np.empty((c1 - c0, P.shape[1] + 1), dtype=dtype)
            kern.conditioned_logit(np.ascontiguousarray(P[c0:c1]), LOG_TINY, centre, 1.0 / scale, out)
            return out
        # entropies and cardinalities are the cached per-word statistics: no logarithm per call for them
        stats = {"entropy": "entropy", "card": "cardinality"}
        cols = [xp.reshape(xp.astype(self._stats()[stats[nm]][c0:c1, ...], xp.float64), (-1, 1)) if nm in stats
                else self._parts(xp, P[c0:c1, ...], (nm,)) for nm in names]
        D = cols[0] if len(cols) == 1 else xp.concat(cols, axis=1)
        D = (D - xb.asarray(centre, like=D)) / xb.asarray(scale, like=D)
        return D if dtype == xp.float64 else xp.astype(D, dtype)

    def _search(self, Q, k, measure, reverse, ex, n, memory_budget, progress, precompute):
        """Indices of the top-k candidates among the first ``n`` rows."""
        key = (measure, bool(reverse) and measure not in ("jaccard", "symmetric_cross_entropy", "symmetric_kl"))
        if measure == "jaccard" or (measure == "intersection_ratio" and reverse):
            return self._ratio_search(Q, k, measure, ex, n, memory_budget, progress)
        return self._linear_search(Q, k, key, ex, n, memory_budget, progress, precompute)

    def _linear_search(self, Q, k, key, ex, n, memory_budget, progress, precompute):
        """Top-k of a linear measure: a float32 search for ``2k`` candidates, certified in float64.

        The candidates' scores are recomputed in float64 from the memberships. A query's list is
        certified when its k-th float64 score beats, by more than the rounding bound of the float32
        scores (:meth:`_rounding_bound`), the best float32 score left out; then it is the list of a
        float64 brute force (ties to the lower row). The few queries that are not certified (near-ties
        across the cut) are searched again in float64.
        """
        P = self.memberships
        xp = xb.get_namespace(P)
        q_names, c_names = self._LINEAR[key]
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
        per_row = P.dtype.itemsize * w if (xb.is_numpy(P) and c_names == ("logit", "sum_log1m")) else 48 * w
        left_out = np.full(m, -np.inf)  # per query: the best float32 score not kept
        d_max = np.zeros(w)
        best = None
        blocks = _row_blocks(n, block_rows(per_row, 1, 3 * budget // 8), kk + int(n_ex.max(initial=0)))
        for c0, c1 in progress_bar(blocks, total=len(blocks), desc="fuzzy top-k", progress=progress, unit="block"):
            D = self._conditioned_rows(key, c0, c1, precompute)
            d_max = np.maximum(d_max, np.maximum(xb.to_numpy(xp.max(D, axis=0)), -xb.to_numpy(xp.min(D, axis=0))))
            exb = [e[(e >= c0) & (e < c1)] for e in ex]
            s_, i_ = _dot_topk(Qs, D, kk, metric="dot", exclude=exb, offset=c0, memory_budget=budget // 4,
                               progress=False, check_finite=False)
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
        for r0 in range(0, m, step):
            r1 = min(r0 + step, m)
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
        for c0, c1 in _row_blocks(n, block_rows(96 * Qa.shape[1], 1, budget // 2),
                                  k + max((len(e) for e in ex), default=0)):
            D = self._candidate_columns(key, c0, c1, centre, np.ones_like(centre), xp.float64)
            exb = [e[(e >= c0) & (e < c1)] for e in ex]
            part = _dot_topk(Qa, D, k, metric="dot", exclude=exb, offset=c0, memory_budget=budget // 2,
                             progress=False, check_finite=False)
            best = part if best is None else merge_topk([best, part], k)
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
        blocks = _row_blocks(n, c_step, k + max((len(e) for e in ex), default=0))
        card = self._stats()["cardinality"]
        a = _m_cardinality(xp, Q)
        # with every cardinality positive no ratio is 0/0 and a Numba pass (or a division) suffices
        fused = is_np and bool(np.all(card[:n] > 0)) and bool(np.all(a > 0))
        if fused:
            from .kernels import fuzzy as kern
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

    def _search_dask(self, Q, k, measure, reverse, ex, n, memory_budget):
        """:meth:`_search` on a Dask cluster: one sharded top-k of transformed rows (linear measures)."""
        import dask.array as da

        P = self.memberships
        key = (measure, bool(reverse) and measure not in ("jaccard", "symmetric_cross_entropy", "symmetric_kl"))
        if measure == "jaccard" or (measure == "intersection_ratio" and reverse):
            raise ValueError(f"backend='dask' supports the measures that are one product; {measure!r}"
                             + (" reversed" if reverse else "") + " divides by a per-pair term: use backend='exact'")
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
        best = _dot_topk((Qa * beta).astype(P.dtype), D, kk, metric="dot", exclude=ex, backend="dask")
        d_max = da.max(da.abs(D.astype(np.float64)), axis=0).compute()
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
        for r0 in range(0, m, step):
            r1 = min(r0 + step, m)
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
                     exclude=None, restrict_vocab: int | None = None, backend: str = "exact") -> list:
        """``[(word, similarity), ...]`` for one query (a word or a single :class:`FuzzySet`),
        best first, excluding the words the query was built from; see :meth:`neighbors` (the nearest-word
        lists of Bhat et al. 2020, Tables 1-3 and 6).

        Examples: ``F.most_similar(F["north"] & F["korea"])``,
        ``F.most_similar("cat", measure="kl", reverse=True)``; ``backend="dask"`` searches on
        the current Dask client (:meth:`neighbors`).
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


def _row_blocks(n, rows, least):
    """[c0, c1) bounds of about ``rows`` rows each over n rows, every block at least ``least`` rows long
    (so that each keeps a query's whole list); n < least gives one block."""
    n_blocks = max(1, min(-(-n // max(1, rows)), n // max(1, least)))
    bounds = [n * i // n_blocks for i in range(n_blocks + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


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
            freq = np.asarray(xb.to_numpy(frequencies), dtype=np.float64)
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
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        stopwords = ENGLISH_STOP_WORDS
    stop = set(stopwords)
    H = xb.to_numpy(F.entropy())[order]
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
    s, i = xb.to_numpy(s), xb.to_numpy(i)
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


def hyponymy(F: FuzzyEmbeddings, pairs, *, oov: str = "skip", missing: str | None = None) -> HyponymyReport:
    """Score (hyponym, hypernym) pairs by graded inclusion (Bhat et al. 2020, Sec. 4.2 "Feature Inclusion").

    A hyponym's features should be (mostly) included in its hypernym's: the score is the share
    of features with ``µ_hypo ≤ µ_hyper``, and ``direction_accuracy`` is how often it beats the
    reverse inclusion. ``oov="skip"`` drops pairs with unknown words, ``"raise"`` raises
    :class:`~embgeo.errors.UnknownWordError` (``missing=`` is the deprecated name of ``oov``).
    """
    oov = renamed_parameter(oov, missing, old="missing", new="oov", where="hyponymy")
    if oov not in ("skip", "raise"):
        raise ValueError(f"oov must be 'skip' or 'raise', got {oov!r}")
    pairs = [tuple(p) for p in pairs]
    if not pairs:
        raise ValueError("no pairs given")
    kept = [p for p in pairs if p[0] in F and p[1] in F]
    if oov == "raise" and len(kept) < len(pairs):
        bad = next(p for p in pairs if p not in kept)
        F.indices(list(bad))  # raises UnknownWordError naming the word
    if not kept:
        raise ValueError("none of the pairs has both words in the vocabulary")
    hypo, hyper = [p[0] for p in kept], [p[1] for p in kept]
    s = F.similarity_pairs(hypo, hyper, measure="inclusion")
    r = F.similarity_pairs(hyper, hypo, measure="inclusion")
    return HyponymyReport(kept, s, r, float(np.mean(s > r)), float(np.mean(s)), len(pairs) - len(kept),
                          int(np.sum(s == r)))
