"""Natural alpha embeddings: information-geometric embeddings of a skip-gram / GloVe model.

Volpi & Malagò, "Natural Alpha Embeddings" (arXiv:1912.02280, 2019; Information Geometry 2021) and
"Evaluating Natural Alpha Embeddings on Intrinsic and Extrinsic Tasks" (RepL4NLP 2020,
doi:10.18653/v1/2020.repl4nlp-1.9). Equation and table numbers below are those of the RepL4NLP
paper (``shared/papers/volpi2020-natural-alpha-embeddings.txt``), read for this module.

A model with input vectors ``U`` (n × d) and output vectors ``V`` (n × d) defines, for every word
``w``, a distribution over the context words χ of the vocabulary

    p_w(χ) = exp(u_wᵀ v_χ) / Z_w                                          (eq. 1)

(the ``"U+V"`` variant uses ``u_w + v_w`` in place of ``u_w``, eq. 7). The paper trains GloVe
(Sec. 3, App. A), whose log-bilinear model ``u_wᵀ v_χ + b_w + b̃_χ`` carries two biases: conditioned
on w, ``b_w`` cancels in Z_w and the context bias ``b̃_χ`` stays as a base measure,
``p_w(χ) ∝ exp(b̃_χ) exp(u_wᵀ v_χ)`` (``context_bias=``, :meth:`AlphaEmbeddings.from_glove`).
These distributions lie in an exponential family with sufficient statistics ``v_χ``; at a reference
measure ``p0`` the centred statistics ``ΔV_χ = v_χ − E_p0[v]`` span its tangent space and

    I(p0) = E_p0[ΔV ΔVᵀ] = Σ_χ p0(χ) ΔV_χ ΔV_χᵀ          (d × d Fisher matrix, eq. 4)

The alpha embedding of ``w`` projects the α-logarithmic map of ``p_w`` at ``p0`` onto that space:

    W^α(w) = I(p0)⁻¹ Σ_χ l^α_w(χ) ΔV_χ                                    (eq. 2)
    l^α_w(χ) = p0(χ) (ln p_w(χ) − ln p0(χ))                      α = 1
             = 2/(1−α) p0(χ) ((p_w(χ)/p0(χ))^((1−α)/2) − 1)      α ≠ 1    (eq. 3)

Similarities (eq. 5) and analogies (eq. 6) are measured in a *geometry*: ``"fisher"``
(⟨x, y⟩ = xᵀ I(p0) y, the paper's "F") or ``"euclidean"`` (the identity, the paper's "I"). The
paper normalises and takes products in one geometry, except in Table 11, where vectors are
normalised in the Fisher metric and products taken in the Euclidean one ("nF-pI"):
``geometry="euclidean", normalize="fisher"``. As α → −∞ the sum in eq. 2 is dominated by the
context χ* maximising p_w/p0, which gives the limit embeddings I(p0)⁻¹ ΔV_χ* (eq. 8–9).

The α = 1 identity
------------------
With α = 1, ``l(χ) = p0(χ)(u_wᵀv_χ − ln Z_w − ln p0(χ))``. The ``ln Z_w`` term is constant in χ and
vanishes against the centred ΔV (Σ_χ p0 ΔV_χ = 0), and Σ_χ p0(χ) v_χ ΔV_χᵀ = I(p0), so

    W^1(w) = u_w − I(p0)⁻¹ E_p0[(ln p0 − b̃) ΔV].

The correction is the same vector for every word (a translation of the whole embedding, "up to
centering"), and without biases it is exactly zero for the uniform p0 (``"0"``): W^1 = U exactly,
as the paper states below eq. 6.

Computation
-----------
All n² probabilities are touched, but never held: words are processed in blocks of rows; per block
``S = U_b Vᵀ`` (GEMM), a fused Numba kernel (:mod:`embgeo.kernels.alpha`) computes the stable
log-sum-exp and l^α in place, then ``l^α ΔV`` (second GEMM) gives the block's rows of eq. 2 up to
the d × d solve with I(p0). Extra memory is bounded by ``memory_budget`` (the b × n logits blocks)
plus O(n · d) for ΔV. Blocks, ΔV and the GEMMs use the compute ``dtype`` (float32 by default, as
gensim and FAISS do; pass ``dtype="float64"`` for the exact arithmetic used in the tests and for
large |α|); means, the Fisher matrix and the solves are float64.

Layout
------
:class:`AlphaEmbeddings` and its helpers (the method, eq. 1–9) are defined in the private module
``embgeo/alpha/_model.py``; choosing α by cross-validation (:func:`alpha_sweep`,
:func:`analogy_sweep` and their results) in :mod:`embgeo.alpha.sweeps`, as scikit-learn keeps
``model_selection`` apart from its estimators. Every public name of both is importable from
``embgeo.alpha``.
"""
from __future__ import annotations

# Import order, and why there is no cycle: `sweeps` imports the method from `_model`, never from
# this package's namespace, and `_model` imports nothing of `sweeps`. This __init__ only re-exports
# both (parent -> child edges), so the graph is _model <- sweeps <- __init__, and the two modules
# share their private helpers (`_geometry`, `_normalization`) inside the package, as
# tests/test_architecture.py allows, without making them public API.
from ._model import GEOMETRIES, P0_CHOICES, VARIANTS, AlphaEmbeddings, GloveModel, fisher_cosine, read_glove
from .sweeps import (ANALOGY_GROUPS, AnalogySweepResult, CrossValidation, SweepResult, alpha_sweep,
                     analogy_sweep)

# GloveModel and read_glove stay importable here; embgeo.io exports them
__all__ = ["AlphaEmbeddings", "fisher_cosine", "P0_CHOICES", "VARIANTS", "GEOMETRIES",
           # choosing α: embgeo.alpha.sweeps
           "alpha_sweep", "analogy_sweep", "SweepResult", "AnalogySweepResult", "CrossValidation",
           "ANALOGY_GROUPS"]

