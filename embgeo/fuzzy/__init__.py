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
every form is offered by its meaning: :func:`kl_divergence` (the two-term Bernoulli KL
above), :func:`categorical_kl_divergence` (``Σ s ln(s/t)``, the KL the paper *prints*
in Sec. 4.4), :func:`cross_entropy` (the Bernoulli cross-entropy),
:func:`categorical_cross_entropy`, and the symmetric sums the Table 8 and Table 11 programs rank by.
docs/fuzzy.md says which table uses which, with the measured numbers.
"""
from __future__ import annotations

# Layout: the representation (:func:`fuzzify`, :data:`CONSTRUCTIONS`) in ``_fuzzify``; the elementwise
# definitions, the set algebra and :class:`FuzzySet` in ``_sets``; :class:`FuzzyEmbeddings` and its
# certified vocabulary search in ``_embeddings``; each study of the paper in its own module. They import
# each other in that order only (``_fuzzify`` and ``_sets`` <- ``_embeddings`` <- the studies), and this
# __init__ only re-exports them.
from ._embeddings import FuzzyEmbeddings
from ._function_words import FunctionWordReport, function_words
from ._fuzzify import CONSTRUCTIONS, fuzzify
from ._hyponymy import HyponymyReport, hyponymy
from ._polysemy import polysemy
from ._sets import (FUZZY_MEASURES, LOG_TINY, FuzzyMeasure, FuzzySet, cardinality,
                    categorical_cross_entropy, categorical_kl_divergence, complement, cross_entropy,
                    difference, disjoint_union, entropy, graded_inclusion, intersection, intersection_ratio, is_subset,
                    jaccard, kl_divergence, symmetric_cross_entropy, symmetric_kl_divergence, union)

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
    "categorical_kl_divergence",
    "categorical_cross_entropy",
    "symmetric_kl_divergence",
    "symmetric_cross_entropy",
    "CONSTRUCTIONS",
    "function_words",
    "FunctionWordReport",
    "polysemy",
    "hyponymy",
    "HyponymyReport",
    "FUZZY_MEASURES",
    "FuzzyMeasure",
    "LOG_TINY",
]

