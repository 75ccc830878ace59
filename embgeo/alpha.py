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
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Sequence

import numpy as np

from . import backend as xb
from .blocking import DEFAULT_MEMORY_BUDGET, block_rows
from .embeddings import Embeddings
from .io import GloveModel, read_glove
from .neighbors import select_topk
from .progress import progress_bar
from .validation import renamed_parameter

__all__ = ["AlphaEmbeddings", "alpha_sweep", "analogy_sweep", "SweepResult", "AnalogySweepResult",
           "GloveModel", "read_glove", "fisher_cosine", "P0_CHOICES", "VARIANTS", "GEOMETRIES"]

P0_CHOICES = ("0", "u", "ud")
VARIANTS = ("U", "U+V")
GEOMETRIES = ("fisher", "euclidean")
#: Deprecated spellings of :data:`GEOMETRIES` (the paper's letters "F" and "I").
_OLD_GEOMETRY = {"F": "fisher", "I": "euclidean"}

_NO_V = (
    "natural alpha embeddings need the model's output (context) vectors V, the sufficient statistics "
    "of p_w(χ) ∝ exp(u_wᵀ v_χ). A gensim Word2Vec/FastText model trained with negative sampling "
    "(negative > 0; skip-gram, sg=1) carries them as `syn1neg`, and "
    "Embeddings.from_gensim keeps them as `output_vectors`; hierarchical-softmax-only models "
    "(hs=1, negative=0) and bare KeyedVectors do not. For GloVe use AlphaEmbeddings.from_glove on "
    "the output of `glove -model 0` (or -binary 1), which keeps the context vectors and biases."
)


def _beta(alpha: float) -> float:
    return (1.0 - float(alpha)) / 2.0


def _geometry(geometry, *, what: str = "geometry", allow_bool: bool = False):
    """The geometry name, accepting the deprecated "F"/"I" spellings."""
    if allow_bool and isinstance(geometry, (bool, np.bool_)):
        return bool(geometry)
    if geometry in _OLD_GEOMETRY:
        warnings.warn(f"{what}={geometry!r} is deprecated; use {_OLD_GEOMETRY[geometry]!r}",
                      DeprecationWarning, stacklevel=3)
        geometry = _OLD_GEOMETRY[geometry]
    if geometry not in GEOMETRIES:
        raise ValueError(f"{what} must be 'fisher' or 'euclidean' (the paper's F and I), got {geometry!r}")
    return geometry


def fisher_cosine(X, Y, fisher=None):
    """Cosine of aligned rows of ``X`` and ``Y`` in the metric ``fisher`` (eq. 5 of Volpi & Malagò 2020).

    sim(a, b) = ⟨x, y⟩_I / (‖x‖_I ‖y‖_I) with ⟨x, y⟩_I = xᵀ I y. ``fisher=None`` is the identity
    (the Euclidean geometry). Returns a float64 NumPy array (one value per row); zero vectors give 0.

    Examples
    --------
    >>> G = np.diag([4.0, 1.0])
    >>> fisher_cosine([[1.0, 0.0]], [[1.0, 2.0]], G).round(6).tolist()   # 4 / (2 · √8)
    [0.707107]
    """
    X = np.atleast_2d(np.asarray(xb.to_numpy(X), dtype=np.float64))
    Y = np.atleast_2d(np.asarray(xb.to_numpy(Y), dtype=np.float64))
    G = None if fisher is None else np.asarray(xb.to_numpy(fisher), dtype=np.float64)
    GY = Y if G is None else Y @ G
    GX = X if G is None else X @ G
    num = np.sum(X * GY, axis=1)
    den = np.sqrt(np.sum(X * GX, axis=1) * np.sum(Y * GY, axis=1))
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def metric_cosine(X, Y, G=None):
    """Deprecated name of :func:`fisher_cosine`."""
    warnings.warn("metric_cosine is deprecated; use fisher_cosine", DeprecationWarning, stacklevel=2)
    return fisher_cosine(X, Y, G)


class AlphaEmbeddings:
    """Natural alpha embeddings of a skip-gram or GloVe model (Volpi & Malagò 2020, eq. 1–9).

    Parameters
    ----------
    model_or_U : gensim Word2Vec, Embeddings, or array (n, d)
        A gensim model trained with negative sampling (U = ``wv.vectors``, V = ``syn1neg``,
        counts from the vocabulary), an :class:`~embgeo.Embeddings` with ``output_vectors``
        (``Embeddings.from_gensim`` keeps them), or the input-vector matrix U. GloVe models:
        :meth:`from_glove`.
    V : array (n, d), optional
        Output (context) vectors, when ``model_or_U`` is an array (or to override the model's).
    counts : array (n,), optional
        Word frequencies, needed for ``p0="u"`` and ``p0="ud"``.
    words : sequence of str, optional
        Vocabulary for raw arrays (default ``"0", "1", ...``).
    p0 : {"0", "u", "ud"}
        Reference measure (Sec. 3): uniform; the model's unigram ``Σ_w π(w) p_w(χ)`` with π the
        corpus unigram (marginal of the joint the model learned); or the corpus unigram itself.
    variant : {"U", "U+V"}
        ``p_w`` from ``u_w`` (eq. 1) or from ``u_w + v_w`` (eq. 7).
    context_bias : array (n,), optional
        GloVe's context biases b̃_χ: ``p_w(χ) ∝ exp(u_wᵀ v_χ + b̃_χ)`` (the word bias b_w cancels
        in Z_w). None for word2vec, which has no biases.
    dtype : {"float32", "float64"}
        Compute dtype of the blocked GEMMs and kernel (float64 accumulations regardless).
    memory_budget : int, optional
        Bytes of the logits blocks of one pass (default
        :data:`embgeo.neighbors.DEFAULT_MEMORY_BUDGET`): vocabulary-wide work never holds more.

    Attributes
    ----------
    p0 : array (n,)
        The reference measure, float64 (computed on first use for ``"u"``).
    fisher : array (d, d)
        I(p0), float64, symmetric positive definite (eq. 4).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> U, V = rng.standard_normal((50, 4)), rng.standard_normal((50, 4))
    >>> ae = AlphaEmbeddings(U, V, p0="0", dtype="float64")
    >>> W1 = ae.alpha_vectors(1.0, geometry="euclidean")     # α = 1, uniform p0: W = U (below eq. 6)
    >>> bool(np.allclose(W1, U, atol=1e-12))
    True
    >>> e = ae.embed(-1.0)      # an Embeddings whose cosine is the Fisher cosine (eq. 5)
    >>> round(e.similarity("0", "1"), 6) == round(ae.similarity("0", "1", alpha=-1.0), 6)
    True
    """

    def __init__(self, model_or_U, V=None, counts=None, words=None, p0: str = "0", variant: str = "U", *,
                 context_bias=None, dtype="float32", memory_budget: int | None = None,
                 check_finite: bool = True):
        if p0 not in P0_CHOICES:
            raise ValueError(f"p0 must be one of {P0_CHOICES}, got {p0!r}")
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        U, V, counts, words = _unpack(model_or_U, V, counts, words)
        U = xb.check_matrix(U, "U", check_finite=check_finite)
        V = xb.check_matrix(xb.asarray(V, like=U), "V", check_finite=check_finite)
        if U.shape != V.shape:
            raise ValueError(
                f"U and V must have the same shape (one input and one output vector per word), "
                f"got {tuple(U.shape)} and {tuple(V.shape)}"
            )
        n, d = U.shape
        if n <= d:
            raise ValueError(f"need more words than dimensions for a non-singular Fisher matrix (n={n}, d={d})")
        if words is None:
            words = [str(i) for i in range(n)]
        words = list(words)
        if len(words) != n:
            raise ValueError(f"{len(words)} words for {n} vector rows")
        if counts is not None:
            counts = np.asarray(xb.to_numpy(counts), dtype=np.float64)
            if counts.shape != (n,):
                raise ValueError(f"counts must have shape ({n},), got {counts.shape}")
            if not np.all(np.isfinite(counts)) or np.any(counts < 0) or counts.sum() <= 0:
                raise ValueError("counts must be finite, non-negative and not all zero")
        if p0 in ("u", "ud") and counts is None:
            raise ValueError(f"p0={p0!r} needs word counts (pass counts=, or a model that has them); "
                             "p0='0' (uniform) does not")
        if p0 == "ud" and np.any(counts == 0):
            bad = int(np.flatnonzero(counts == 0)[0])
            raise ValueError(f"p0='ud' needs positive counts; word {words[bad]!r} (row {bad}) has count 0")
        self.words = words
        self.p0_kind = p0
        self.variant = variant
        self.counts = counts
        self.memory_budget = DEFAULT_MEMORY_BUDGET if memory_budget is None else int(memory_budget)
        xp = xb.get_namespace(U)
        self._xp = xp
        self._dt = xb.resolve_dtype(dtype, xp)
        self._U = xp.astype(U, self._dt)
        self._V = xp.astype(V, self._dt)
        self._bias = None
        if context_bias is not None:
            b = np.asarray(xb.to_numpy(context_bias), dtype=np.float64)
            if b.shape != (n,):
                raise ValueError(f"context_bias must have shape ({n},) (one per context word), got {b.shape}")
            if check_finite and not np.all(np.isfinite(b)):
                bad = int(np.flatnonzero(~np.isfinite(b))[0])
                raise ValueError(f"context_bias is not finite at row {bad} (word {words[bad]!r})")
            self._bias = xp.reshape(xb.asarray(b, like=self._U, dtype=self._dt), (1, -1))
        self._index = {w: i for i, w in enumerate(words)}
        if len(self._index) != n:
            raise ValueError("duplicate words in the vocabulary")
        self._p0 = None
        self._dV = None
        self._fisher = None
        self._chol = None
        self._Ueff = None

    @classmethod
    def from_glove(cls, path, vocab=None, p0: str = "0", variant: str = "U", **kwargs) -> "AlphaEmbeddings":
        """Alpha embeddings of a GloVe model, the paper's training setup (Sec. 3, App. A).

        U are GloVe's word vectors, V its context vectors, and the context biases enter p_w
        (``context_bias``); counts come from ``vocab`` (``vocab_count``'s ``word count`` file).

        Parameters
        ----------
        path : str or Path
            ``glove -save-file X -model 0`` output: ``X.txt`` (text: word, w, b, c, b̃ per line) or
            ``X.bin`` (``-binary 1``/``2``: the raw float64 parameters; needs ``vocab``).
        vocab : str or Path, optional
            The vocabulary file given to ``glove -vocab-file``.
        p0, variant, **kwargs
            As :class:`AlphaEmbeddings`.
        """
        g = read_glove(path, vocab)
        return cls(g.word_vectors, g.context_vectors, counts=g.counts, words=g.words, p0=p0, variant=variant,
                   context_bias=g.context_bias, **kwargs)

    # ------------------------------------------------------------------ basics
    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word) -> bool:
        return word in self._index

    def __repr__(self) -> str:
        n, d = self._U.shape
        bias = ", context biases" if self._bias is not None else ""
        return (f"AlphaEmbeddings({n} words, dim={d}, p0={self.p0_kind!r}, variant={self.variant!r}, "
                f"{self._dt}{bias})")

    @property
    def dim(self) -> int:
        return int(self._U.shape[1])

    def index(self, word: str) -> int:
        from .errors import UnknownWordError

        try:
            return self._index[word]
        except KeyError:
            raise UnknownWordError(word) from None

    @property
    def _is_np(self) -> bool:
        return xb.is_numpy(self._U)

    @property
    def input_vectors(self):
        """Rows u_w that define p_w: U, or U + V for the ``"U+V"`` variant (eq. 7)."""
        if self._Ueff is None:
            self._Ueff = self._U if self.variant == "U" else self._U + self._V
        return self._Ueff

    def _logits(self, idx):
        """``u_wᵀ v_χ (+ b̃_χ)`` for the rows ``idx``, float64 (array-API path)."""
        xp = self._xp
        S = xb.take_rows(self.input_vectors, idx) @ xp.matrix_transpose(self._V)
        if self._bias is not None:
            S = S + self._bias
        return xp.astype(S, xp.float64)

    # --------------------------------------------------------- reference p0
    @property
    def p0(self):
        """The reference measure p0 of eq. 2–4 (Sec. 3's "0", "u", "ud"; length n, float64, U's array library)."""
        if self._p0 is None:
            xp = self._xp
            n = len(self)
            if self.p0_kind == "0":
                p = xp.full((n,), 1.0 / n, dtype=xp.float64)
            elif self.p0_kind == "ud":
                p = xb.asarray(self.counts / self.counts.sum(), like=self._U, dtype="float64")
            else:
                p = self._model_unigram()
            self._p0 = p
        return self._p0

    def _blocks(self, rows, desc, progress, temporaries: int = 1):
        """Blocks of ``rows`` whose ``temporaries`` (b × n) arrays fit the memory budget."""
        n = len(self)
        itemsize = 4 if self._dt == self._xp.float32 else 8
        b = block_rows(n, itemsize * temporaries, self.memory_budget)
        starts = list(range(0, len(rows), b))
        for s in progress_bar(starts, total=len(starts), desc=desc, progress=progress, unit="block"):
            yield rows[s:s + b]

    def _model_unigram(self, progress=None):
        """p_u(χ) = Σ_w π(w) p_w(χ), π the corpus unigram: the marginal of the model's joint."""
        xp = self._xp
        pi = self.counts / self.counts.sum()
        acc = xp.zeros((len(self),), dtype=xp.float64)
        for idx in self._blocks(np.arange(len(self)), "alpha: model unigram", progress, temporaries=6):
            S = self._logits(idx)
            S = S - xp.max(S, axis=1, keepdims=True)
            P = xp.exp(S)
            P = P / xp.sum(P, axis=1, keepdims=True)
            acc = acc + xp.reshape(xb.asarray(pi[idx], like=P, dtype="float64"), (1, -1)) @ P
        acc = xp.reshape(acc, (-1,))
        return acc / xp.sum(acc)

    # --------------------------------------------------------- geometry
    @property
    def mean(self):
        """E_p0[V], the p0-mean of the output vectors that centres ΔV in eq. 2 (float64, length d)."""
        xp = self._xp
        p = self.p0
        return xp.reshape(xp.reshape(p, (1, -1)) @ xp.astype(self._V, xp.float64), (-1,))

    @property
    def delta_v(self):
        """ΔV = V − E_p0[V], the centred sufficient statistics of eq. 2 (n × d, compute dtype)."""
        if self._dV is None:
            xp = self._xp
            mu = xp.reshape(self.mean, (1, -1))
            self._dV = xp.astype(xp.astype(self._V, xp.float64) - mu, self._dt)
        return self._dV

    @property
    def fisher(self):
        """I(p0) = Σ_χ p0(χ) ΔV_χ ΔV_χᵀ (eq. 4): d × d, float64, symmetric positive definite."""
        if self._fisher is None:
            xp = self._xp
            p = self.p0
            mu = xp.reshape(self.mean, (1, -1))
            d = self.dim
            G = xp.zeros((d, d), dtype=xp.float64)
            n = len(self)
            # float64 chunks of ΔV: bounded by the memory budget, not a full float64 copy of V
            step = max(1, min(n, self.memory_budget // (8 * max(d, 1))))
            for s in range(0, n, step):
                D = xp.astype(self._V[s:s + step, ...], xp.float64) - mu
                G = G + xp.matrix_transpose(D * xp.reshape(p[s:s + step], (-1, 1))) @ D
            self._fisher = (G + xp.matrix_transpose(G)) / 2
        return self._fisher

    @property
    def fisher_cholesky(self):
        """Lower-triangular L with I(p0) = L Lᵀ (eq. 4): rows W L carry the Fisher products of eq. 5–6."""
        if self._chol is None:
            try:
                self._chol = self._xp.linalg.cholesky(self.fisher)
            except Exception as exc:  # numpy LinAlgError, or other libraries' errors
                raise ValueError(
                    "the Fisher matrix I(p0) is not positive definite: the output vectors V are "
                    "(numerically) rank-deficient under p0"
                ) from exc
            if not self._is_np and not bool(self._xp.all(self._xp.isfinite(self._chol))):
                raise ValueError("the Fisher matrix I(p0) is not positive definite")
        return self._chol

    # --------------------------------------------------------- core
    def _rows(self, words):
        if words is None:
            return np.arange(len(self))
        if isinstance(words, str):
            raise TypeError("words must be a sequence of words, not one string")
        return np.array([self.index(w) for w in words], dtype=np.int64)

    def _gradients(self, alphas, rows, progress=None, shared=None):
        """Σ_χ l^α(χ) ΔV_χ for each α, as (G float64 (m, d), log_scale (m,), sign) per α.

        The true sum is ``G * exp(log_scale)[:, None] / β`` (β = (1−α)/2; no division at α = 1).
        One logits GEMM per block serves every α. ``shared`` sizes the blocks for the copy of
        the logits that several α need (default: when there are several); a sweep fixes it for
        its whole grid, so that each α's rows do not depend on how the grid is split.
        """
        xp = self._xp
        p0 = self.p0
        dV = self.delta_v
        Ue, V = self.input_vectors, self._V
        m = len(rows)
        out = [(np.empty((m, self.dim)), np.empty(m)) for _ in alphas] if self._is_np else [
            ([], []) for _ in alphas]
        if self._is_np:
            from .kernels.alpha import alpha_log_map_

            p0n = np.ascontiguousarray(p0, dtype=np.float64)
            lp0 = np.log(p0n)
            Vt = V.T
            S0 = S1 = None
            pos = 0
            shared = len(alphas) > 1 if shared is None else shared
            for idx in self._blocks(rows, "alpha embeddings", progress, temporaries=2 if shared else 1):
                b = len(idx)
                if S0 is None or S0.shape[0] < b:
                    S0 = np.empty((b, len(self)), dtype=self._dt)
                    S1 = np.empty_like(S0) if len(alphas) > 1 else S0
                S = S0[:b]
                np.matmul(Ue[idx], Vt, out=S)
                if self._bias is not None:
                    S += self._bias
                for k, a in enumerate(alphas):
                    T = S
                    if len(alphas) > 1:  # the kernel works in place; the alphas share the logits
                        T = S1[:b]
                        np.copyto(T, S)
                    ls = out[k][1][pos:pos + b]
                    alpha_log_map_(T, lp0, p0n, _beta(a), ls)
                    out[k][0][pos:pos + b] = T @ dV
                pos += b
            return out
        lp0 = xp.reshape(xp.log(p0), (1, -1))
        p0r = xp.reshape(p0, (1, -1))
        for idx in self._blocks(rows, "alpha embeddings", progress, temporaries=12):
            S = self._logits(idx)
            smax = xp.max(S, axis=1, keepdims=True)
            lse = smax + xp.log(xp.sum(xp.exp(S - smax), axis=1, keepdims=True))
            X = S - lse - lp0
            for k, a in enumerate(alphas):
                L, ls = _log_map_xp(xp, X, p0r, _beta(a))
                out[k][0].append(xp.astype(L, self._dt) @ dV)
                out[k][1].append(ls)
        return [(xp.astype(xp.concat(G, axis=0), xp.float64), xp.concat(s, axis=0)) for G, s in out]

    def _finish(self, G, log_scale, alpha, geometry, normalize):
        """Scale the sums of eq. 2 back, solve with I(p0), express in ``geometry``'s frame.

        ``normalize`` is False or the geometry whose norm the rows are divided by.
        """
        xp = self._xp
        beta = _beta(alpha)
        if normalize:
            # the per-row factor exp(m)/β only scales a row: keep its sign, drop its size
            if beta < 0:
                G = -G
        else:
            ls = log_scale if self._is_np else xb.to_numpy(log_scale)
            big = float(np.max(ls)) if len(ls) else 0.0
            if big > 700.0:
                raise OverflowError(
                    f"W^α overflows for α={alpha}: a row's scale is exp({big:.0f}); use normalize=True "
                    "(unit vectors in the chosen geometry, as the paper evaluates them) or limit()"
                )
            f = xp.exp(xb.asarray(ls, like=G, dtype="float64")) / (beta if beta != 0 else 1.0)
            G = G * xp.reshape(f, (-1, 1))
        Lc = self.fisher_cholesky
        frames = {
            # W L with I = L Lᵀ: W = G I⁻¹ gives W L = G L⁻ᵀ = (L⁻¹ Gᵀ)ᵀ
            "fisher": lambda: xp.matrix_transpose(_solve_lower(xp, Lc, xp.matrix_transpose(G), self._is_np)),
            "euclidean": lambda: xp.matrix_transpose(_cho_solve(xp, Lc, xp.matrix_transpose(G), self._is_np)),
        }
        return _present(xp, frames, geometry, normalize)

    # --------------------------------------------------------- public API
    def alpha_vectors(self, alpha: float, words=None, *, geometry: str = "fisher", normalize=False,
                      progress=None, metric=None):
        """W^α of eq. 2 (with eq. 1, 3, 4) for ``words`` (default: the whole vocabulary), float64.

        Parameters
        ----------
        alpha : float
            The deformation parameter α of eq. 3.
        words : sequence of str, optional
            Compute only these rows (each still sums over all n contexts).
        geometry : {"fisher", "euclidean"}
            The frame of the rows. ``"euclidean"``: the natural coordinates W^α of eq. 2.
            ``"fisher"``: ``W^α L`` with I(p0) = L Lᵀ, so that Euclidean inner products of rows are
            the Fisher inner products ⟨W^α(a), W^α(b)⟩_I(p0) of eq. 5–6.
        normalize : bool or {"fisher", "euclidean"}
            ``True`` divides each row by its norm in ``geometry``; a geometry name divides by the
            norm in that geometry instead (``geometry="euclidean", normalize="fisher"`` is the
            paper's "nF-pI" of Table 11). Normalised rows are always finite, even where W^α overflows.
        progress : bool, optional
        metric : deprecated alias of ``geometry`` ("F"/"I").

        Raises
        ------
        ValueError
            α is NaN or +∞, or α = −∞ without ``normalize`` (W^α has no limit then, only its
            direction has: α = −∞ with ``normalize`` gives ``limit(top=1)``, eq. 9, as the sweeps do).
        """
        geometry = _geometry(renamed_parameter(geometry, metric, old="metric", new="geometry", where="AlphaEmbeddings.alpha_vectors"))
        normalize = _normalization(normalize, geometry)
        a = _check_alpha(alpha, normalize)
        rows = self._rows(words)
        if a == -np.inf:
            return self._limit_rows(1, False, geometry, True, normalize, rows, progress)
        (G, ls), = self._gradients([a], rows, progress)
        return self._finish(G, ls, a, geometry, normalize)

    def embed(self, alpha: float, geometry: str = "fisher", *, words=None, normalize=False,
              dtype_out="float32", progress=None, metric=None) -> Embeddings:
        """Alpha embeddings (eq. 2) as an :class:`~embgeo.Embeddings` in the frame of ``geometry``.

        For ``geometry="fisher"`` the rows are ``W^α L`` with I(p0) = L Lᵀ (Cholesky): their dot
        products are ⟨W^α(w), W^α(w')⟩_I(p0), so ``cosine``, ``similarity``, ``most_similar`` and
        ``embgeo.evaluate`` compute the paper's Fisher similarity (eq. 5) and, on unit rows, its
        analogy measure (eq. 6). For ``"euclidean"`` the rows are W^α itself.

        Parameters
        ----------
        alpha : float
        geometry : {"fisher", "euclidean"}
        words : sequence of str, optional
            Compute only these rows (each still sums over the whole vocabulary of contexts).
        normalize : bool or {"fisher", "euclidean"}
            As :meth:`alpha_vectors`. Note that ``Embeddings.most_similar`` and
            ``embgeo.evaluate.analogy`` re-normalise rows in their own (Euclidean) frame; the
            paper's nF-pI analogy (eq. 6 with mixed geometries) is :func:`analogy_sweep`.
        dtype_out : {"float32", "float64"}
        progress : bool, optional
        metric : deprecated alias of ``geometry``.
        """
        geometry = _geometry(renamed_parameter(geometry, metric, old="metric", new="geometry", where="AlphaEmbeddings.embed"))
        rows = self._rows(words)
        Y = self.alpha_vectors(alpha, words, geometry=geometry, normalize=normalize, progress=progress)
        return self._to_embeddings(Y, rows, dtype_out)

    def _to_embeddings(self, Y, rows, dtype_out):
        xp = self._xp
        Y = xp.astype(Y, xb.resolve_dtype(dtype_out, xp))
        if not bool(xp.all(xp.isfinite(Y))):
            raise OverflowError(f"alpha embeddings overflow {dtype_out}; use normalize=True or dtype_out='float64'")
        counts = None if self.counts is None else self.counts[rows]
        return Embeddings([self.words[i] for i in rows], Y, counts, check_finite=False)

    def limit(self, top: int = 1, weighted: bool = False, geometry: str = "fisher", *, words=None,
              natural: bool = True, normalize=True, dtype_out="float32", progress=None,
              metric=None) -> Embeddings:
        """Limit embeddings for α → −∞ (eq. 8–9) and their top-k generalisations (Sec. 3.2).

        As α → −∞, (p_w/p0)^((1−α)/2) is dominated by χ* = argmax_χ p_w(χ)/p0(χ) (eq. 8), and the
        normalised eq. 2 tends to the direction of ``I(p0)⁻¹ ΔV_χ*`` (eq. 9). ``top=k`` sums the k
        rows with the largest ratio (the paper's -t1/-t3/-t5), weighted by p_w/p0 when ``weighted``
        (-w). Ties go to the lower row.

        Parameters
        ----------
        top : int
            Number of contexts.
        weighted : bool
            Weight the rows by p_w(χ)/p0(χ) instead of 1.
        geometry : {"fisher", "euclidean"}
            As in :meth:`embed`.
        natural : bool
            ``True`` (default) returns ``I(p0)⁻¹ Σ ΔV_χ``, eq. 9 as printed and the direction W^α
            tends to. ``False`` drops the I(p0)⁻¹ (``Σ ΔV_χ``, the bare rows of the clustering).
        normalize : bool or {"fisher", "euclidean"}
            As in :meth:`alpha_vectors` (default True: only the direction has a limit).
        metric : deprecated alias of ``geometry``.
        """
        geometry = _geometry(renamed_parameter(geometry, metric, old="metric", new="geometry", where="AlphaEmbeddings.limit"))
        normalize = _normalization(normalize, geometry)
        top = int(top)
        if top < 1 or top > len(self):
            raise ValueError(f"top must be between 1 and the vocabulary size {len(self)}, got {top}")
        rows = self._rows(words)
        Y = self._limit_rows(top, weighted, geometry, natural, normalize, rows, progress)
        return self._to_embeddings(Y, rows, dtype_out)

    def _limit_rows(self, top, weighted, geometry, natural, normalize, rows, progress):
        """The rows of :meth:`limit` (float64, the model's array library)."""
        xp = self._xp
        lp0 = xp.reshape(xp.log(self.p0), (1, -1))
        dV = xp.astype(self.delta_v, xp.float64)
        parts = []
        for idx in self._blocks(rows, "alpha limit", progress, temporaries=8):
            S = self._logits(idx)
            R = S - lp0  # log(p_w/p0) + log Z_w: the same order as p_w/p0
            part = select_topk(R, top)[1]  # the top rows of p_w/p0, ties to the lower row
            if weighted:
                smax = xp.max(S, axis=1, keepdims=True)
                lse = smax + xp.log(xp.sum(xp.exp(S - smax), axis=1, keepdims=True))
                w = xp.exp(xp.take_along_axis(R, part, axis=1) - lse)
            else:
                w = xp.ones(part.shape, dtype=xp.float64)
            B = xp.zeros((part.shape[0], self.dim), dtype=xp.float64)
            for j in range(top):
                B = B + xp.reshape(w[:, j], (-1, 1)) * xp.take(dV, part[:, j], axis=0)
            parts.append(B)
        G = xp.concat(parts, axis=0)
        if natural:
            Y = self._finish(G, xp.zeros((G.shape[0],), dtype=xp.float64), 1.0, geometry, normalize)
        else:
            Lc = self.fisher_cholesky
            Y = _present(xp, {"fisher": lambda: G @ Lc, "euclidean": lambda: G}, geometry, normalize)
        return Y

    def similarity(self, w1: str, w2: str, alpha: float, geometry: str = "fisher", *, metric=None) -> float:
        """Cosine of W^α(w1) and W^α(w2) in ``geometry`` (eq. 5); computes only the two rows."""
        geometry = _geometry(renamed_parameter(geometry, metric, old="metric", new="geometry", where="AlphaEmbeddings.similarity"))
        Y = self.alpha_vectors(alpha, [w1, w2], geometry=geometry, normalize=True, progress=False)
        Y = xb.to_numpy(Y)
        return float(np.dot(Y[0], Y[1]))


# ------------------------------------------------------------------ helpers
def _check_alpha(alpha, normalize) -> float:
    """α as a float: finite, or −∞ (the limit embedding, a direction only: needs ``normalize``)."""
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a number, got {alpha!r}") from None
    if np.isnan(a) or a == np.inf:
        raise ValueError(f"alpha must be finite or -inf (the limit embedding, eq. 9), got {a}")
    if a == -np.inf and not normalize:
        raise ValueError("alpha=-inf: W^α diverges as α → −∞ and only its direction has a limit (eq. 9); "
                         "pass normalize=True or use limit()")
    return a


def _unpack(model, V, counts, words):
    """(U, V, counts, words) from a gensim model, an Embeddings, or raw arrays."""
    if isinstance(model, Embeddings):
        U = model.vectors
        V = model.output_vectors if V is None else V
        counts = model.counts if counts is None else counts
        words = model.words if words is None else words
        if V is None:
            raise ValueError(f"this Embeddings has no output_vectors: {_NO_V}")
        return U, V, counts, words
    if hasattr(model, "wv") and hasattr(model.wv, "index_to_key"):
        if V is None:
            out = getattr(model, "syn1neg", None) if getattr(model, "negative", 0) else None
            if out is None or getattr(out, "shape", (0,))[0] != len(model.wv.index_to_key):
                raise ValueError(f"{type(model).__name__} without negative-sampling output vectors: {_NO_V}")
        if getattr(model, "sg", 1) == 0:
            warnings.warn("this is a CBOW model; natural alpha embeddings read p_w(χ) ∝ exp(u_wᵀv_χ) as a "
                          "skip-gram conditional (sg=1), which CBOW's averaged inputs do not define",
                          UserWarning, stacklevel=3)
        e = Embeddings.from_gensim(model)
        return (e.vectors, e.output_vectors if V is None else V, e.counts if counts is None else counts,
                e.words if words is None else words)
    if hasattr(model, "index_to_key") and hasattr(model, "vectors"):
        if V is None:
            raise ValueError(f"a KeyedVectors holds only the input vectors: {_NO_V}")
        e = Embeddings.from_gensim(model)
        return e.vectors, V, e.counts if counts is None else counts, e.words if words is None else words
    if V is None:
        raise ValueError(f"V is required with a raw U matrix: {_NO_V}")
    return model, V, counts, words


def _log_map_xp(xp, X, p0r, beta):
    """l^α of eq. 3 from ``X = ln p_w − ln p0`` (any array library), scaled as in the kernel."""
    if beta == 0.0:
        return p0r * X, xp.zeros((X.shape[0],), dtype=xp.float64)
    from .kernels.alpha import SHIFT_THRESHOLD

    BX = beta * X
    top = xp.max(BX, axis=1)
    m = xp.where(top > SHIFT_THRESHOLD, top, xp.zeros_like(top))
    mc = xp.reshape(m, (-1, 1))
    shifted = xp.exp(BX - mc) - xp.exp(-mc)
    plain = xp.expm1(xp.minimum(BX, xp.full_like(BX, SHIFT_THRESHOLD)))
    return p0r * xp.where(mc > 0, shifted, plain), m


def _solve_lower(xp, L, B, is_np):
    if is_np:
        from scipy.linalg import solve_triangular

        return solve_triangular(L, B, lower=True, check_finite=False)
    return xp.linalg.solve(L, B)


def _cho_solve(xp, L, B, is_np):
    if is_np:
        from scipy.linalg import cho_solve

        return cho_solve((L, True), B, check_finite=False)
    return xp.linalg.solve(L @ xp.matrix_transpose(L), B)


def _normalization(normalize, geometry):
    """False, or the geometry whose norm rows are divided by (True means ``geometry``'s own)."""
    if normalize is None or normalize is False:
        return False
    if normalize is True:
        return geometry
    return _geometry(normalize, what="normalize")


def _present(xp, frames: dict, geometry: str, normalize):
    """Rows in ``geometry``'s frame, divided by their norm in ``normalize``'s (frames are lazy)."""
    Y = frames[geometry]()
    if not normalize:
        return Y
    N = Y if normalize == geometry else frames[normalize]()
    norms = xp.sqrt(xp.sum(N * N, axis=1))
    norms = xp.where(norms > 0, norms, xp.ones_like(norms))
    return Y / xp.reshape(norms, (-1, 1))


# ------------------------------------------------------------------ choosing α (Tables 2–3, 11)
def _cross_validate(score: Callable[[int, np.ndarray], float], n_alphas: int, n_items: int, folds: int,
                    top: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """k-fold choice of α: per fold, the ``top`` best α on the other folds, scored on the fold.

    Returns the chosen α indices and their test scores, both (folds, top), best first.
    """
    fold_of = rng.permutation(n_items) % folds
    chosen = np.empty((folds, top), dtype=np.int64)
    test = np.empty((folds, top))
    for f in range(folds):
        held = fold_of == f
        val = np.array([score(k, ~held) for k in range(n_alphas)])
        val = np.where(np.isfinite(val), val, -np.inf)
        order = np.argsort(-val, kind="stable")[:top]  # ties: the earlier α of the grid
        chosen[f] = order
        test[f] = [score(int(k), held) for k in order]
    return chosen, test


def _check_grid(alphas, folds, top):
    alphas = np.asarray(list(alphas), dtype=np.float64)
    if alphas.size == 0 or np.any(np.isnan(alphas)) or np.any(alphas == np.inf):
        raise ValueError("alphas must be a non-empty sequence of finite numbers (or -inf: the limit embedding)")
    if int(folds) < 2:
        raise ValueError(f"folds must be at least 2, got {folds}")
    if not 1 <= int(top) <= alphas.size:
        raise ValueError(f"top must be between 1 and the number of alphas ({alphas.size}), got {top}")
    return alphas, int(folds), int(top)


def _alpha_rows(model: AlphaEmbeddings, grid, rows, geometry, normalize, progress, shared: bool | None = None):
    """Yield (α, rows of W^α as float64 NumPy) for the grid; α = −∞ gives the limit embedding (eq. 9).

    The finite α are computed in chunks whose outputs fit the memory budget; each chunk shares
    one logits GEMM per block. ``shared``: as :meth:`AlphaEmbeddings._gradients` (default: the
    grid has several finite α).
    """
    per_chunk = max(1, model.memory_budget // (8 * max(len(rows), 1) * max(model.dim, 1)))
    finite = [float(a) for a in grid if np.isfinite(a)]
    shared = len(finite) > 1 if shared is None else shared
    for s in range(0, len(finite), per_chunk):
        chunk = finite[s:s + per_chunk]
        for a, (G, ls) in zip(chunk, model._gradients(chunk, rows, progress, shared)):
            yield a, np.asarray(xb.to_numpy(model._finish(G, ls, a, geometry, normalize)), dtype=np.float64)
    if np.any(np.isneginf(grid)):
        lim = model.limit(1, geometry=geometry, normalize=normalize, words=[model.words[i] for i in rows],
                          dtype_out="float64", progress=progress)
        yield -np.inf, np.asarray(xb.to_numpy(lim.vectors), dtype=np.float64)


def _alpha_group(model: AlphaEmbeddings, alphas, rows, geometry, normalize, evaluate, progress=False,
                 shared=None) -> dict:
    """``evaluate(W^α rows)`` for each α of one group, the group sharing its logits GEMMs."""
    return {a: evaluate(Y)
            for a, Y in _alpha_rows(model, np.asarray(alphas), rows, geometry, normalize, progress, shared)}


def _per_alpha(model: AlphaEmbeddings, grid, rows, geometry, normalize, evaluate, progress, client, local) -> list:
    """``evaluate(W^α rows)`` for every α of the grid, in grid order.

    Here, or, when a Dask client exists (or is given) and ``local`` is false, as Dask tasks: the
    distinct α are split in contiguous groups, one per worker, and each task computes its group
    with one logits GEMM per block for the whole group, as the local sweep does for its chunks.
    The model (its reference measure and Fisher matrix computed here first, once) goes to every
    worker with the task.
    """
    if not local and client is None:
        from .distributed import current_client

        client = current_client()
    distinct = list(dict.fromkeys(float(a) for a in grid))
    if local or client is None:
        values = _alpha_group(model, distinct, rows, geometry, normalize, evaluate, progress)
    else:
        from .distributed import map_grid

        model.fisher_cholesky  # p0, I(p0) and its Cholesky factor once, not once per worker
        n_groups = max(1, min(len(distinct), len(client.scheduler_info()["workers"])))
        groups = [[float(a) for a in g] for g in np.array_split(np.asarray(distinct), n_groups)]
        # blocks sized for the whole grid, so that every α's rows are the local ones bit for bit
        shared = sum(np.isfinite(a) for a in distinct) > 1
        task = partial(_alpha_group, model, rows=rows, geometry=geometry, normalize=normalize, evaluate=evaluate,
                       shared=shared)
        values = {}
        for part in map_grid(task, [{"alphas": g} for g in groups], client=client):
            values.update(part)
    return [values[float(a)] for a in grid]


def _pair_products(i1, i2, Y):
    return np.sum(Y[i1] * Y[i2], axis=1)


def _analogy_correct(q, memory_budget, Y):
    return _analogy_answers(Y, q, memory_budget) == q[:, 3]


def _as_model(model, p0, variant, kwargs) -> AlphaEmbeddings:
    if isinstance(model, AlphaEmbeddings):
        return model
    opts = dict(kwargs)
    if p0 is not None:
        opts["p0"] = p0
    if variant is not None:
        opts["variant"] = variant
    return AlphaEmbeddings(model, **opts)


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plotting an α sweep needs matplotlib: pip install 'embgeo[plot]'") from None
    return plt


@dataclass
class CrossValidation:
    """α chosen by k-fold cross-validation, summarised as in Volpi & Malagò (2020), Tables 2–3.

    In each fold the ``top`` best α on the other folds (validation) are scored on the held-out fold.

    Attributes
    ----------
    alpha, alpha_std : float
        Mean and standard deviation over the ``top`` ranks of the fold-averaged chosen α
        (Table 3's "1.8 ± 0.1").
    score, score_std : float
        The same for the held-out score (Table 2's "84.5 ± 0.4": "averaging the performances on
        test of the top three alpha selected based on best performances on validation").
    fold_std : float
        Standard deviation over folds of each fold's mean held-out score.
    chosen_alphas, test_scores : ndarray (folds, top)
        The chosen α of each fold (best first) and their held-out scores.
    """

    alpha: float
    alpha_std: float
    score: float
    score_std: float
    fold_std: float
    chosen_alphas: np.ndarray
    test_scores: np.ndarray

    @classmethod
    def from_folds(cls, alphas, chosen, test) -> "CrossValidation":
        ca = alphas[chosen]
        with np.errstate(invalid="ignore"):  # a chosen −∞ (the limit embedding): mean −∞, spread nan
            by_rank_a, by_rank_s = ca.mean(axis=0), test.mean(axis=0)
            a_std = float(by_rank_a.std()) if np.all(np.isfinite(by_rank_a)) else float("nan")
        return cls(alpha=float(by_rank_a.mean()), alpha_std=a_std,
                   score=float(by_rank_s.mean()), score_std=float(by_rank_s.std()),
                   fold_std=float(test.mean(axis=1).std()), chosen_alphas=ca, test_scores=test)

    def __str__(self) -> str:
        return f"α={self.alpha:.2f}±{self.alpha_std:.2f}, score={self.score:.4f}±{self.score_std:.4f}"


@dataclass
class SweepResult:
    """α sweep on a word-similarity benchmark (:func:`alpha_sweep`).

    Attributes
    ----------
    alphas : ndarray
        The grid.
    scores : ndarray
        Spearman's ρ of each α on all covered pairs.
    best_alpha, best_score : float
        The grid's best α on all pairs (an optimistic, in-sample number).
    cv : CrossValidation
        α chosen on k − 1 folds of the pairs, ρ on the held-out fold: the honest number.
    baseline : float
        ρ of the cosine of the plain input vectors (U, or U + V for the U+V variant), same pairs.
    n_pairs, n_total : int
        Covered pairs used, and pairs in the benchmark.
    """

    alphas: np.ndarray
    scores: np.ndarray
    best_alpha: float
    best_score: float
    cv: CrossValidation
    baseline: float
    n_pairs: int
    n_total: int
    name: str = ""
    settings: dict = field(default_factory=dict)

    @property
    def cv_score(self) -> float:
        """Mean held-out ρ of the cross-validated α (``cv.score``)."""
        return self.cv.score

    @property
    def cv_std(self) -> float:
        """Standard deviation over folds of the held-out ρ (``cv.fold_std``; the earlier field)."""
        return self.cv.fold_std

    @property
    def cv_alphas(self) -> np.ndarray:
        """The best validation α of each fold (``cv.chosen_alphas[:, 0]``; the earlier field)."""
        return self.cv.chosen_alphas[:, 0]

    @property
    def cv_scores(self) -> np.ndarray:
        """Held-out ρ of each fold's best α (``cv.test_scores[:, 0]``; the earlier field)."""
        return self.cv.test_scores[:, 0]

    def __repr__(self) -> str:
        return (f"SweepResult({self.name!r} {self.settings}, {self.n_pairs}/{self.n_total} pairs: "
                f"best α={self.best_alpha:g} ρ={self.best_score:.3f}; CV {self.cv}; "
                f"baseline ρ={self.baseline:.3f})")

    def plot(self, ax=None):
        """ρ against α, with the baseline and the cross-validated α; returns the matplotlib Axes."""
        plt = _pyplot()
        ax = plt.subplots()[1] if ax is None else ax
        label = " ".join(f"{k}={v}" for k, v in self.settings.items())
        line, = ax.plot(self.alphas, self.scores, marker=".", label=f"{self.name} {label}")
        ax.axhline(self.baseline, color=line.get_color(), linestyle=":", label=f"{self.name} baseline")
        ax.axvline(self.cv.alpha, color=line.get_color(), linestyle="--", alpha=0.5)
        ax.set_xlabel("α")
        ax.set_ylabel("Spearman ρ")
        ax.legend(fontsize="small")
        return ax


def _pairs(benchmark, lowercase):
    if isinstance(benchmark, tuple) and len(benchmark) == 3:
        w1, w2, s = benchmark
        return list(w1), list(w2), np.asarray(s, dtype=np.float64), "pairs"
    if hasattr(benchmark, "words1"):
        ds = benchmark
    else:
        from .data import load_dataset

        ds = load_dataset(benchmark, lowercase=bool(lowercase))
    return list(ds.words1), list(ds.words2), np.asarray(ds.scores, dtype=np.float64), getattr(ds, "name", "")


def _looker(model, lowercase):
    """As embgeo.evaluate: the word as written, else its lower-case form (unless told)."""
    return lambda w: w.lower() if lowercase or (lowercase is None and w not in model) else w


def alpha_sweep(model, alphas: Sequence[float], benchmark, folds: int = 5, *, top: int = 1,
                geometry: str = "fisher", normalize=True, p0: str | None = None, variant: str | None = None,
                random_state=0, lowercase: bool | None = None, progress=None, metric=None, seed=None,
                client=None, local: bool = False, **kwargs) -> SweepResult:
    """Sweep α over a grid on a word-similarity benchmark, choosing α by k-fold cross-validation.

    For each α, the similarity of eq. 5 (cosine in ``geometry``) of alpha embeddings (eq. 2) is
    correlated (Spearman's ρ) with the human scores over the covered pairs; the pairs are split in
    ``folds`` random folds, and in each fold the ``top`` best α on the other folds are scored on it
    (:class:`CrossValidation`).

    This is *not* the paper's protocol: Volpi & Malagò (2020) report similarities for the limit
    embeddings (Table 1, Fig. 1) and cross-validate α only on analogies, with 3 folds and the top
    3 α (Tables 2–3, 11): that is :func:`analogy_sweep`. This sweep applies the same selection to
    similarity benchmarks (``folds=3, top=3`` gives the paper's summary).

    Only the benchmark's words are embedded (each still sums over all n contexts), and one logits
    GEMM per block serves every α of the grid. When a Dask client exists (or ``client`` is given),
    the grid runs as Dask tasks, one group of α per worker, each group sharing its GEMMs; the
    result is the local one.

    Parameters
    ----------
    model : AlphaEmbeddings, or anything :class:`AlphaEmbeddings` accepts
    alphas : sequence of float
        The grid; ``-np.inf`` stands for the limit embedding (eq. 9, ``limit(top=1)``).
    benchmark : str, path, :class:`embgeo.data.WordPairs`, or (words1, words2, scores)
        Names resolve through :func:`embgeo.data.load_dataset` (``"wordsim353"``,
        ``"simlex999"``, or a file path).
    folds : int
        Number of cross-validation folds (≥ 2).
    top : int
        How many of the best validation α are scored per fold (the paper: 3).
    geometry : {"fisher", "euclidean"}
        Products of eq. 5.
    normalize : True or {"fisher", "euclidean"}
        Normalisation before the products (True: in ``geometry``, i.e. the cosine of eq. 5).
    p0, variant : str, optional
        Passed to :class:`AlphaEmbeddings` when ``model`` is not one already.
    random_state : int, Generator or None
        Fold assignment.
    lowercase : bool or None
        As :func:`embgeo.evaluate.word_similarity`: None looks words up as written, then lower-cased.
    metric, seed : deprecated aliases of ``geometry`` and ``random_state``.
    client : distributed.Client, optional
        Run the α groups on this client. Default: the current client if there is one
        (:func:`embgeo.distributed.current_client`), else here.
    local : bool
        True runs here whatever client exists.
    **kwargs
        Further :class:`AlphaEmbeddings` arguments (``dtype``, ``memory_budget``, ...).
    """
    from scipy.stats import spearmanr

    geometry = _geometry(renamed_parameter(geometry, metric, old="metric", new="geometry", where="alpha_sweep"))
    normalize = _normalization(normalize, geometry)
    grid, folds, top = _check_grid(alphas, folds, top)
    rng = np.random.default_rng(renamed_parameter(random_state, seed, old="seed", new="random_state",
                                                  where="alpha_sweep"))
    model = _as_model(model, p0, variant, kwargs)
    w1, w2, scores, name = _pairs(benchmark, lowercase)
    look = _looker(model, lowercase)
    w1, w2 = [look(w) for w in w1], [look(w) for w in w2]
    keep = np.array([a in model and b in model for a, b in zip(w1, w2)], dtype=bool)
    n_total = len(w1)
    if keep.sum() < 2 * folds:
        raise ValueError(f"only {int(keep.sum())} of {n_total} pairs are in the vocabulary: too few for "
                         f"{folds}-fold cross-validation")
    w1 = [w for w, k in zip(w1, keep) if k]
    w2 = [w for w, k in zip(w2, keep) if k]
    scores = scores[keep]
    vocab = sorted(set(w1) | set(w2), key=model.index)
    pos = {w: i for i, w in enumerate(vocab)}
    i1 = np.array([pos[w] for w in w1])
    i2 = np.array([pos[w] for w in w2])
    rows = model._rows(vocab)
    sims = np.array(_per_alpha(model, grid, rows, geometry, normalize, partial(_pair_products, i1, i2), progress,
                               client, local))
    Ub = np.asarray(xb.to_numpy(xb.take_rows(model.input_vectors, rows)), dtype=np.float64)
    base = fisher_cosine(Ub[i1], Ub[i2])

    def rho(s, sel):
        r = spearmanr(s[sel], scores[sel]).statistic
        return float(r) if np.isfinite(r) else float("nan")

    everything = np.ones(len(w1), dtype=bool)
    full = np.array([rho(s, everything) for s in sims])
    chosen, test = _cross_validate(lambda k, sel: rho(sims[k], sel), len(grid), len(w1), folds, top, rng)
    kbest = int(np.nanargmax(full))
    return SweepResult(
        alphas=grid, scores=full, best_alpha=float(grid[kbest]), best_score=float(full[kbest]),
        cv=CrossValidation.from_folds(grid, chosen, test), baseline=rho(base, everything),
        n_pairs=len(w1), n_total=n_total, name=name,
        settings={"p0": model.p0_kind, "variant": model.variant, "geometry": geometry,
                  "normalize": normalize, "folds": folds, "top": top},
    )


# ------------------------------------------------------------------ analogies (eq. 6, Tables 2, 3, 11)
ANALOGY_GROUPS = ("semantic", "syntactic", "total")


@dataclass
class AnalogySweepResult:
    """α sweep on analogies with the paper's cross-validation (:func:`analogy_sweep`).

    Attributes
    ----------
    alphas : ndarray
    accuracy : dict
        Per group (``"semantic"``, ``"syntactic"``, ``"total"``): accuracy of each α on all the
        group's covered questions (in-sample).
    cv : dict
        Per group, a :class:`CrossValidation` (the paper's numbers: Table 2 accuracy, Table 3 α).
    baseline : dict
        Per group, the accuracy of the plain input vectors (U, or U + V), unit rows, same questions
        and candidates (3CosAdd): the paper's "U" / "U+V" rows.
    correct : ndarray of bool (n_alphas, n_evaluated)
        Per α and covered question, whether eq. 6 found the answer.
    n_evaluated, n_total : int
    restrict_vocab : int
    """

    alphas: np.ndarray
    accuracy: dict
    cv: dict
    baseline: dict
    correct: np.ndarray = field(repr=False)
    n_evaluated: int = 0
    n_total: int = 0
    restrict_vocab: int = 0
    name: str = ""
    settings: dict = field(default_factory=dict)

    def table(self) -> list[dict]:
        """Rows shaped like the paper's Table 11: per group, cross-validated α and accuracy (%)."""
        return [{"group": g, "alpha": self.cv[g].alpha, "alpha_std": self.cv[g].alpha_std,
                 "accuracy": 100 * self.cv[g].score, "accuracy_std": 100 * self.cv[g].score_std,
                 "baseline": 100 * self.baseline[g]} for g in ANALOGY_GROUPS if g in self.cv]

    def plot(self, ax=None):
        """Accuracy against α per group, baselines dotted; returns the matplotlib Axes."""
        plt = _pyplot()
        ax = plt.subplots()[1] if ax is None else ax
        for g in ANALOGY_GROUPS:
            if g not in self.accuracy:
                continue
            line, = ax.plot(self.alphas, self.accuracy[g], marker=".", label=g)
            ax.axhline(self.baseline[g], color=line.get_color(), linestyle=":")
        ax.set_xlabel("α")
        ax.set_ylabel("analogy accuracy")
        ax.set_title(" ".join(f"{k}={v}" for k, v in self.settings.items()), fontsize="small")
        ax.legend(fontsize="small")
        return ax


def _analogy_answers(Y, q, memory_budget):
    """Eq. 6: per question (a, b, c), argmin_d ‖Y_b − Y_a − Y_d + Y_c‖ over the rows, d ∉ {a, b, c}.

    ‖t − y‖² = ‖t‖² − 2 tᵀy + ‖y‖², so the argmin is the argmax of 2 tᵀy − ‖y‖²: one GEMM per
    batch of questions. Ties go to the lower row.
    """
    n = Y.shape[0]
    sq = np.einsum("ij,ij->i", Y, Y)
    out = np.empty(len(q), dtype=np.int64)
    b = block_rows(n, 8, memory_budget)
    for s in range(0, len(q), b):
        Q = q[s:s + b]
        T = Y[Q[:, 1]] - Y[Q[:, 0]] + Y[Q[:, 2]]
        S = 2.0 * (T @ Y.T) - sq
        r = np.arange(len(Q))
        for j in range(3):
            S[r, Q[:, j]] = -np.inf
        out[s:s + b] = np.argmax(S, axis=1)
    return out


def _accuracy_of(C: np.ndarray) -> Callable[[int, np.ndarray], float]:
    return lambda k, sel: float(C[k, sel].mean())


def analogy_sweep(model, alphas: Sequence[float], questions="google-analogy", folds: int = 3, *, top: int = 3,
                  geometry: str = "fisher", normalize=True, restrict_vocab: int | None = 30000,
                  p0: str | None = None, variant: str | None = None, random_state=0,
                  lowercase: bool | None = None, progress=None, client=None, local: bool = False,
                  **kwargs) -> AnalogySweepResult:
    """The paper's α selection: analogies, 3-fold cross-validation, top-3 α (Tables 2, 3 and 11).

    Each question a : b = c : d is answered by minimising the analogy measure of eq. 6,
    ‖W^α(b) − W^α(a) − W^α(d) + W^α(c)‖ over the candidate words d ∉ {a, b, c}, with the vectors
    normalised in ``normalize``'s geometry and the norm taken in ``geometry``'s. The paper's
    "E-U+V-0-nF-pI" is ``variant="U+V", p0="0", geometry="euclidean", normalize="fisher"`` and
    its "nI-pI" ``geometry="euclidean", normalize=True``; with unit rows in the norm's own
    geometry eq. 6 is 3CosAdd. The semantic (non-``gram``) and syntactic (``gram*``) sections
    and the total are cross-validated separately, as in Table 11: the questions are split in
    ``folds`` folds, and in each fold the ``top`` best α on the other folds are scored on it;
    their mean ± standard deviation over the ``top`` ranks is what Tables 2–3 print.

    Parameters
    ----------
    model : AlphaEmbeddings, or anything :class:`AlphaEmbeddings` accepts
    alphas : sequence of float
        The grid (the paper: α between −10 and 10). ``-np.inf`` stands for the limit embedding
        (eq. 9, ``limit(top=1)``), which Table 3 lets the selection choose.
    questions : AnalogyQuestions, or str / Path
        ``"google-analogy"`` (Mikolov et al. 2013a, gensim's ``questions-words.txt``), or a file.
    folds, top : int
        3 and 3 in the paper.
    geometry : {"fisher", "euclidean"}
        The norm of eq. 6 (the paper's "p").
    normalize : bool or {"fisher", "euclidean"}
        The normalisation of the vectors (the paper's "n"; True: in ``geometry``).
    restrict_vocab : int or None
        Candidates (and question words) are the first ``restrict_vocab`` rows, as gensim's
        ``evaluate_word_analogies``; each candidate is embedded for every α (its eq. 2 still sums
        over all n contexts). None: the whole vocabulary.
    p0, variant : str, optional
        Passed to :class:`AlphaEmbeddings` when ``model`` is not one already.
    random_state : int, Generator or None
        Fold assignment.
    lowercase : bool or None
        None: a word as written, else lower-cased; True: always lower-cased.
    client, local
        As in :func:`alpha_sweep`: the grid runs as Dask tasks (one group of α per worker) when a
        client exists, unless ``local=True``.
    **kwargs
        Further :class:`AlphaEmbeddings` arguments.

    Returns
    -------
    AnalogySweepResult
        ``.table()`` gives the rows of Table 11; ``.plot()`` the curves of Fig. 1 (bottom).

    Notes
    -----
    Memory: the candidate rows for a chunk of α (n_r × d float64 each, chunked to fit
    ``memory_budget``) plus the blocked logits of :class:`AlphaEmbeddings`; the question batches
    of eq. 6 are bounded by ``memory_budget`` too. Questions with a word outside the candidates are
    left out (``oov="skip"``), as in gensim; the coverage is reported.
    """
    from .data import as_dataset

    geometry = _geometry(geometry)
    normalize = _normalization(normalize, geometry)
    grid, folds, top = _check_grid(alphas, folds, top)
    rng = np.random.default_rng(random_state)
    model = _as_model(model, p0, variant, kwargs)
    qs = as_dataset(questions, "analogy")
    n_r = len(model) if restrict_vocab is None else min(int(restrict_vocab), len(model))
    if n_r < 4:
        raise ValueError(f"restrict_vocab={restrict_vocab} leaves {n_r} candidate words; need at least 4")
    cand = {w: i for i, w in enumerate(model.words[:n_r])}
    look = (lambda w: w.lower() if lowercase or (lowercase is None and w not in cand) else w)
    Qw = qs.questions
    ids = np.array([cand.get(look(w), -1) for w in Qw.ravel().tolist()], dtype=np.int64).reshape(-1, 4)
    covered = np.all(ids >= 0, axis=1)
    q = ids[covered]
    if len(q) < 2 * folds:
        raise ValueError(f"only {len(q)} of {len(Qw)} questions have all four words among the "
                         f"{n_r} candidates: too few for {folds}-fold cross-validation")
    syntactic = np.array([name.startswith("gram") for name in qs.section_names])[qs.section_ids][covered]
    rows = np.arange(n_r)
    correct = np.array(_per_alpha(model, grid, rows, geometry, normalize,
                                  partial(_analogy_correct, q, model.memory_budget), progress, client, local),
                       dtype=bool).reshape(len(grid), len(q))
    U0 = np.asarray(xb.to_numpy(model.input_vectors[:n_r, ...]), dtype=np.float64)
    U0 = U0 / np.where((nrm := np.linalg.norm(U0, axis=1, keepdims=True)) > 0, nrm, 1.0)
    base_ok = _analogy_answers(U0, q, model.memory_budget) == q[:, 3]
    groups = {"semantic": ~syntactic, "syntactic": syntactic, "total": np.ones(len(q), dtype=bool)}
    accuracy, cv, baseline = {}, {}, {}
    for g, m in groups.items():
        if m.sum() < 2 * folds:
            continue
        C = correct[:, m]
        accuracy[g] = C.mean(axis=1)
        baseline[g] = float(base_ok[m].mean())
        chosen, test = _cross_validate(_accuracy_of(C), len(grid), C.shape[1], folds, top, rng)
        cv[g] = CrossValidation.from_folds(grid, chosen, test)
    return AnalogySweepResult(
        alphas=grid, accuracy=accuracy, cv=cv, baseline=baseline, correct=correct,
        n_evaluated=int(covered.sum()), n_total=len(Qw), restrict_vocab=n_r, name=qs.name,
        settings={"p0": model.p0_kind, "variant": model.variant, "geometry": geometry,
                  "normalize": normalize, "folds": folds, "top": top},
    )
