"""Natural alpha embeddings: information-geometric embeddings of a skip-gram model.

Volpi & Malagò, "Natural Alpha Embeddings" (arXiv:1912.02280, 2019; Information Geometry 2021) and
"Evaluating Natural Alpha Embeddings on Intrinsic and Extrinsic Tasks" (RepL4NLP 2020,
doi:10.18653/v1/2020.repl4nlp-1.9). Equation numbers below are those of the RepL4NLP paper.

A skip-gram model with input vectors ``U`` (n × d) and output vectors ``V`` (n × d) defines, for
every word ``w``, a distribution over the context words χ of the vocabulary

    p_w(χ) = exp(u_wᵀ v_χ) / Z_w                                          (eq. 1)

(the ``"U+V"`` variant uses ``u_w + v_w`` in place of ``u_w``, eq. 7). These distributions lie in
an exponential family with sufficient statistics ``v_χ``; at a reference measure ``p0`` the
centred statistics ``ΔV_χ = v_χ − E_p0[v]`` span its tangent space and

    I(p0) = E_p0[ΔV ΔVᵀ] = Σ_χ p0(χ) ΔV_χ ΔV_χᵀ          (d × d Fisher matrix, eq. 4)

The alpha embedding of ``w`` projects the α-logarithmic map of ``p_w`` at ``p0`` onto that space:

    W^α(w) = I(p0)⁻¹ Σ_χ l^α_w(χ) ΔV_χ                                    (eq. 2)
    l^α_w(χ) = p0(χ) (ln p_w(χ) − ln p0(χ))                      α = 1
             = 2/(1−α) p0(χ) ((p_w(χ)/p0(χ))^((1−α)/2) − 1)      α ≠ 1    (eq. 3)

Similarities and analogies are then measured either in the Fisher metric (``"F"``,
⟨x, y⟩ = xᵀ I(p0) y, eq. 5–6) or in the Euclidean one (``"I"``). As α → −∞ the sum in eq. 2 is
dominated by the context χ* maximising p_w/p0, which gives the limit embeddings (eq. 8–9).

The α = 1 identity
------------------
With α = 1, ``l(χ) = p0(χ)(u_wᵀv_χ − ln Z_w − ln p0(χ))``. The ``ln Z_w`` term is constant in χ and
vanishes against the centred ΔV (Σ_χ p0 ΔV_χ = 0), and Σ_χ p0(χ) v_χ ΔV_χᵀ = I(p0), so

    W^1(w) = u_w − I(p0)⁻¹ E_p0[ln p0 · ΔV].

The correction is the same vector for every word (a translation of the whole embedding, "up to
centering"), and it is exactly zero for the uniform p0 (``"0"``), where ln p0 is constant:
W^1 = U exactly. The tests check both statements.

Computation
-----------
All n² probabilities are touched, but never held: words are processed in blocks of rows; per block
``S = U_b Vᵀ`` (GEMM), a fused Numba kernel (:mod:`embgeo.kernels.alpha`) computes the stable
log-sum-exp and l^α in place, then ``l^α ΔV`` (second GEMM) gives the block's rows of eq. 2 up to
the d × d solve with I(p0). Memory is O(block · n + n · d). Blocks, ΔV and the GEMMs use the
compute ``dtype`` (float32 by default, as gensim and FAISS do; pass ``dtype="float64"`` for the
exact arithmetic used in the tests and for large |α|); means, the Fisher matrix and the solves
are float64.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from . import backend
from .embeddings import Embeddings
from .neighbors import DEFAULT_MEMORY_BUDGET, block_rows, select_topk
from .normalize import normalize as normalize_rows
from .progress import progress_bar

__all__ = ["AlphaEmbeddings", "alpha_sweep", "SweepResult", "metric_cosine", "P0_CHOICES", "VARIANTS", "METRICS"]

P0_CHOICES = ("0", "u", "ud")
VARIANTS = ("U", "U+V")
METRICS = ("F", "I")

_NO_V = (
    "natural alpha embeddings need the model's output (context) vectors V, the sufficient statistics "
    "of p_w(χ) ∝ exp(u_wᵀ v_χ). A gensim Word2Vec/FastText model trained with negative sampling "
    "(negative > 0; the paper uses skip-gram, sg=1) carries them as `syn1neg`, and "
    "Embeddings.from_gensim keeps them as `output_vectors`; hierarchical-softmax-only models "
    "(hs=1, negative=0) and bare KeyedVectors do not. For GloVe pass the context matrix as V=."
)


def _beta(alpha: float) -> float:
    return (1.0 - float(alpha)) / 2.0


def metric_cosine(X, Y, G=None):
    """Cosine of aligned rows of ``X`` and ``Y`` in the metric ``G`` (eq. 5): xᵀGy / (‖x‖_G ‖y‖_G).

    ``G=None`` is the identity (the ``"I"`` metric). Returns a float64 NumPy array (one value per
    row); zero vectors give 0. This is the direct formula; :meth:`AlphaEmbeddings.embed` returns
    vectors whose Euclidean cosine equals it.
    """
    X = np.atleast_2d(np.asarray(backend.to_numpy(X), dtype=np.float64))
    Y = np.atleast_2d(np.asarray(backend.to_numpy(Y), dtype=np.float64))
    GY = Y if G is None else Y @ np.asarray(backend.to_numpy(G), dtype=np.float64)
    GX = X if G is None else X @ np.asarray(backend.to_numpy(G), dtype=np.float64)
    num = np.sum(X * GY, axis=1)
    den = np.sqrt(np.sum(X * GX, axis=1) * np.sum(Y * GY, axis=1))
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


class AlphaEmbeddings:
    """Natural alpha embeddings of a skip-gram model (Volpi & Malagò 2020).

    Parameters
    ----------
    model_or_U : gensim Word2Vec, Embeddings, or array (n, d)
        A gensim model trained with negative sampling (U = ``wv.vectors``, V = ``syn1neg``,
        counts from the vocabulary), an :class:`~embgeo.Embeddings` with ``output_vectors``
        (``Embeddings.from_gensim`` keeps them), or the input-vector matrix U.
    V : array (n, d), optional
        Output (context) vectors, when ``model_or_U`` is an array (or to override the model's).
    counts : array (n,), optional
        Word frequencies, needed for ``p0="u"`` and ``p0="ud"``.
    words : sequence of str, optional
        Vocabulary for raw arrays (default ``"0", "1", ...``).
    p0 : {"0", "u", "ud"}
        Reference measure: uniform; the model's unigram ``Σ_w π(w) p_w(χ)`` with π the corpus
        unigram (marginal of the joint the model learned); or the corpus unigram itself.
    variant : {"U", "U+V"}
        ``p_w`` from ``u_w`` (eq. 1) or from ``u_w + v_w`` (eq. 7).
    dtype : {"float32", "float64"}
        Compute dtype of the blocked GEMMs and kernel (float64 accumulations regardless).
    memory_budget : int, optional
        Bytes of one block of logits (default :data:`embgeo.neighbors.DEFAULT_MEMORY_BUDGET`).

    Attributes
    ----------
    p0 : ndarray (n,)
        The reference measure, float64 (computed on first use for ``"u"``).
    fisher : array (d, d)
        I(p0), float64, symmetric positive definite (eq. 4).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> U, V = rng.standard_normal((50, 4)), rng.standard_normal((50, 4))
    >>> ae = AlphaEmbeddings(U, V, p0="0", dtype="float64")
    >>> bool(np.allclose(ae.alpha_vectors(1.0), U, atol=1e-12))   # α = 1, uniform p0: W = U
    True
    >>> e = ae.embed(-1.0, metric="F")      # an Embeddings: cosine there = Fisher cosine (eq. 5)
    >>> round(e.similarity("0", "1"), 6) == round(ae.similarity("0", "1", alpha=-1.0), 6)
    True
    """

    def __init__(self, model_or_U, V=None, counts=None, words=None, p0: str = "0", variant: str = "U", *,
                 dtype="float32", memory_budget: int | None = None, check_finite: bool = True):
        if p0 not in P0_CHOICES:
            raise ValueError(f"p0 must be one of {P0_CHOICES}, got {p0!r}")
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        U, V, counts, words = _unpack(model_or_U, V, counts, words)
        U = backend.check_matrix(U, "U", check_finite=check_finite)
        V = backend.check_matrix(backend.asarray(V, like=U), "V", check_finite=check_finite)
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
            counts = np.asarray(backend.to_numpy(counts), dtype=np.float64)
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
        xp = backend.get_namespace(U)
        self._xp = xp
        self._dt = backend.resolve_dtype(dtype, xp)
        self._U = xp.astype(U, self._dt)
        self._V = xp.astype(V, self._dt)
        self._index = {w: i for i, w in enumerate(words)}
        if len(self._index) != n:
            raise ValueError("duplicate words in the vocabulary")
        self._p0 = None
        self._dV = None
        self._fisher = None
        self._chol = None
        self._Ueff = None

    # ------------------------------------------------------------------ basics
    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word) -> bool:
        return word in self._index

    def __repr__(self) -> str:
        n, d = self._U.shape
        return (f"AlphaEmbeddings({n} words, dim={d}, p0={self.p0_kind!r}, variant={self.variant!r}, "
                f"{self._dt})")

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
        return backend.is_numpy(self._U)

    @property
    def input_vectors(self):
        """Rows u_w that define p_w: U, or U + V for the ``"U+V"`` variant (eq. 7)."""
        if self._Ueff is None:
            self._Ueff = self._U if self.variant == "U" else self._U + self._V
        return self._Ueff

    # --------------------------------------------------------- reference p0
    @property
    def p0(self):
        """The reference measure p0 (length n, float64, same array library as U)."""
        if self._p0 is None:
            xp = self._xp
            n = len(self)
            if self.p0_kind == "0":
                p = xp.full((n,), 1.0 / n, dtype=xp.float64)
            elif self.p0_kind == "ud":
                p = backend.asarray(self.counts / self.counts.sum(), like=self._U, dtype="float64")
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
        Ue, V = self.input_vectors, self._V
        for idx in self._blocks(np.arange(len(self)), "alpha: model unigram", progress, temporaries=6):
            S = xp.astype(backend.take_rows(Ue, idx) @ xp.matrix_transpose(V), xp.float64)
            S = S - xp.max(S, axis=1, keepdims=True)
            P = xp.exp(S)
            P = P / xp.sum(P, axis=1, keepdims=True)
            acc = acc + xp.reshape(backend.asarray(pi[idx], like=P, dtype="float64"), (1, -1)) @ P
        acc = xp.reshape(acc, (-1,))
        return acc / xp.sum(acc)

    # --------------------------------------------------------- geometry
    @property
    def mean(self):
        """E_p0[v], the p0-mean of the output vectors (float64, length d)."""
        xp = self._xp
        p = self.p0
        return xp.reshape(xp.reshape(p, (1, -1)) @ xp.astype(self._V, xp.float64), (-1,))

    @property
    def delta_v(self):
        """ΔV = V − E_p0[V], the centred sufficient statistics (n × d, compute dtype)."""
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
            step = max(1, min(n, 65536))
            for s in range(0, n, step):
                D = xp.astype(self._V[s:s + step, ...], xp.float64) - mu
                G = G + xp.matrix_transpose(D * xp.reshape(p[s:s + step], (-1, 1))) @ D
            self._fisher = (G + xp.matrix_transpose(G)) / 2
        return self._fisher

    @property
    def fisher_cholesky(self):
        """Lower-triangular L with I(p0) = L Lᵀ."""
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

    def _gradients(self, alphas, rows, progress=None):
        """Σ_χ l^α(χ) ΔV_χ for each α, as (G float64 (m, d), log_scale (m,), sign) per α.

        The true sum is ``G * exp(log_scale)[:, None] / β`` (β = (1−α)/2; no division at α = 1).
        One logits GEMM per block serves every α.
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
            for idx in self._blocks(rows, "alpha embeddings", progress, temporaries=min(len(alphas), 2)):
                b = len(idx)
                if S0 is None or S0.shape[0] < b:
                    S0 = np.empty((b, len(self)), dtype=self._dt)
                    S1 = np.empty_like(S0) if len(alphas) > 1 else S0
                S = S0[:b]
                np.matmul(Ue[idx], Vt, out=S)
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
            S = xp.astype(backend.take_rows(Ue, idx) @ xp.matrix_transpose(V), xp.float64)
            smax = xp.max(S, axis=1, keepdims=True)
            lse = smax + xp.log(xp.sum(xp.exp(S - smax), axis=1, keepdims=True))
            X = S - lse - lp0
            for k, a in enumerate(alphas):
                L, ls = _log_map_xp(xp, X, p0r, _beta(a))
                out[k][0].append(xp.astype(L, self._dt) @ dV)
                out[k][1].append(ls)
        return [(xp.astype(xp.concat(G, axis=0), xp.float64), xp.concat(s, axis=0)) for G, s in out]

    def _finish(self, G, log_scale, alpha, metric, normalize):
        """Scale the sums of eq. 2 back, solve with I(p0), and express in the metric's frame."""
        if metric not in METRICS:
            raise ValueError(f"metric must be 'F' (Fisher) or 'I' (identity), got {metric!r}")
        xp = self._xp
        beta = _beta(alpha)
        if normalize:
            # the per-row factor exp(m)/β only scales a row: keep its sign, drop its size
            if beta < 0:
                G = -G
        else:
            ls = log_scale if self._is_np else backend.to_numpy(log_scale)
            big = float(np.max(ls)) if len(ls) else 0.0
            if big > 700.0:
                raise OverflowError(
                    f"W^α overflows for α={alpha}: a row's scale is exp({big:.0f}); use normalize=True "
                    "(unit vectors in the chosen metric, as the paper evaluates them) or limit()"
                )
            f = xp.exp(backend.asarray(ls, like=G, dtype="float64")) / (beta if beta != 0 else 1.0)
            G = G * xp.reshape(f, (-1, 1))
        Lc = self.fisher_cholesky
        if metric == "F":
            # W L with I = L Lᵀ: W = G I⁻¹ gives W L = G L⁻ᵀ = (L⁻¹ Gᵀ)ᵀ
            Y = xp.matrix_transpose(_solve_lower(xp, Lc, xp.matrix_transpose(G), self._is_np))
        else:
            Y = xp.matrix_transpose(_cho_solve(xp, Lc, xp.matrix_transpose(G), self._is_np))
        return normalize_rows(Y, "unit") if normalize else Y

    # --------------------------------------------------------- public API
    def alpha_vectors(self, alpha: float, words=None, *, metric: str = "I", normalize: bool = False,
                      progress=None):
        """W^α (eq. 2) for ``words`` (default: the whole vocabulary), float64.

        With ``metric="I"`` (default) these are the natural coordinates W^α of eq. 2; with
        ``metric="F"`` they are ``W^α L`` where I(p0) = L Lᵀ, so Euclidean inner products of the
        rows are Fisher inner products of W^α (eq. 5). ``normalize=True`` scales rows to unit
        norm in that metric (always finite, even where W^α itself overflows).
        """
        rows = self._rows(words)
        (G, ls), = self._gradients([float(alpha)], rows, progress)
        return self._finish(G, ls, float(alpha), metric, normalize)

    def embed(self, alpha: float, metric: str = "F", *, words=None, normalize: bool = False,
              dtype_out="float32", progress=None) -> Embeddings:
        """Alpha embeddings as an :class:`~embgeo.Embeddings` whose Euclidean geometry is ``metric``.

        For ``metric="F"`` the rows are ``W^α L`` with I(p0) = L Lᵀ (Cholesky): their dot products
        are ⟨W^α(w), W^α(w')⟩_I(p0), so ``cosine``, ``similarity``, ``most_similar`` and
        ``embgeo.evaluate`` compute the paper's Fisher-metric similarity (eq. 5) and analogy (eq. 6).
        For ``metric="I"`` the rows are W^α itself.

        Parameters
        ----------
        alpha : float
        metric : {"F", "I"}
        words : sequence of str, optional
            Compute only these rows (each still sums over the whole vocabulary of contexts).
        normalize : bool
            Unit rows in the chosen metric.
        dtype_out : {"float32", "float64"}
        progress : bool, optional
        """
        rows = self._rows(words)
        Y = self.alpha_vectors(alpha, words, metric=metric, normalize=normalize, progress=progress)
        return self._to_embeddings(Y, rows, dtype_out)

    def _to_embeddings(self, Y, rows, dtype_out):
        xp = self._xp
        Y = xp.astype(Y, backend.resolve_dtype(dtype_out, xp))
        if not bool(xp.all(xp.isfinite(Y))):
            raise OverflowError(f"alpha embeddings overflow {dtype_out}; use normalize=True or dtype_out='float64'")
        counts = None if self.counts is None else self.counts[rows]
        return Embeddings([self.words[i] for i in rows], Y, counts, check_finite=False)

    def limit(self, top: int = 1, weighted: bool = False, metric: str = "F", *, words=None,
              natural: bool = True, normalize: bool = True, dtype_out="float32", progress=None) -> Embeddings:
        """Limit embeddings for α → −∞ (eq. 8–9) and their top-k generalisations.

        As α → −∞, (p_w/p0)^((1−α)/2) is dominated by χ* = argmax_χ p_w(χ)/p0(χ), so eq. 2
        becomes proportional to ``I(p0)⁻¹ ΔV_χ*``. ``top=k`` sums the k rows with the largest
        ratio (the paper's -t1/-t3/-t5), weighted by p_w/p0 when ``weighted`` (-w).

        Parameters
        ----------
        top : int
            Number of contexts.
        weighted : bool
            Weight the rows by p_w(χ)/p0(χ) instead of 1.
        metric : {"F", "I"}
            As in :meth:`embed`.
        natural : bool
            ``True`` (default) returns ``I⁻¹ Σ ΔV_χ``, the direction W^α tends to (eq. 2 in the
            limit), so ``limit(top=1)`` equals the normalised W^α for very negative α. ``False``
            returns ``Σ ΔV_χ`` itself (the ΔV rows as written in eq. 9).
        normalize : bool
            Unit rows in the chosen metric (default True: only the direction has a limit).
        """
        top = int(top)
        if top < 1 or top > len(self):
            raise ValueError(f"top must be between 1 and the vocabulary size {len(self)}, got {top}")
        if metric not in METRICS:
            raise ValueError(f"metric must be 'F' (Fisher) or 'I' (identity), got {metric!r}")
        xp = self._xp
        rows = self._rows(words)
        lp0 = xp.reshape(xp.log(self.p0), (1, -1))
        dV = xp.astype(self.delta_v, xp.float64)
        Ue, V = self.input_vectors, self._V
        parts = []
        for idx in self._blocks(rows, "alpha limit", progress, temporaries=8):
            S = xp.astype(backend.take_rows(Ue, idx) @ xp.matrix_transpose(V), xp.float64)
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
            Y = self._finish(G, xp.zeros((G.shape[0],), dtype=xp.float64), 1.0, metric, normalize)
        else:
            Y = G if metric == "I" else G @ self.fisher_cholesky
            if normalize:
                Y = normalize_rows(Y, "unit")
        return self._to_embeddings(Y, rows, dtype_out)

    def similarity(self, w1: str, w2: str, alpha: float, metric: str = "F") -> float:
        """Cosine of W^α(w1) and W^α(w2) in the metric (eq. 5); computes only the two rows."""
        Y = self.alpha_vectors(alpha, [w1, w2], metric=metric, normalize=True, progress=False)
        Y = backend.to_numpy(Y)
        return float(np.dot(Y[0], Y[1]))


# ------------------------------------------------------------------ helpers
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


# ------------------------------------------------------------------ alpha sweep
@dataclass
class SweepResult:
    """α sweep on a word-similarity benchmark with k-fold cross-validation (paper Tables 2–3).

    Attributes
    ----------
    alphas : ndarray
        The grid.
    scores : ndarray
        Spearman's ρ of each α on all covered pairs.
    best_alpha, best_score : float
        The grid's best α on all pairs (an optimistic, in-sample number).
    cv_score, cv_std : float
        Mean and standard deviation over folds of the test-fold ρ of the α chosen on the other
        folds: the honest number.
    cv_alphas, cv_scores : ndarray
        The α chosen for each fold and its test-fold ρ.
    baseline : float
        ρ of the plain input vectors U (cosine), on the same pairs.
    n_pairs, n_total : int
        Covered pairs used, and pairs in the benchmark.
    """

    alphas: np.ndarray
    scores: np.ndarray
    best_alpha: float
    best_score: float
    cv_score: float
    cv_std: float
    cv_alphas: np.ndarray
    cv_scores: np.ndarray
    baseline: float
    n_pairs: int
    n_total: int
    name: str = ""
    settings: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return (f"SweepResult({self.name!r} {self.settings}, {self.n_pairs}/{self.n_total} pairs: "
                f"best α={self.best_alpha:g} ρ={self.best_score:.3f}; {len(self.cv_scores)}-fold CV "
                f"ρ={self.cv_score:.3f}±{self.cv_std:.3f}; U baseline ρ={self.baseline:.3f})")


def _pairs(benchmark, lowercase):
    if isinstance(benchmark, tuple) and len(benchmark) == 3:
        w1, w2, s = benchmark
        return list(w1), list(w2), np.asarray(s, dtype=np.float64), "pairs"
    if hasattr(benchmark, "words1"):
        ds = benchmark
    else:
        from .datasets import load_dataset

        ds = load_dataset(benchmark, lowercase=bool(lowercase))
    return list(ds.words1), list(ds.words2), np.asarray(ds.scores, dtype=np.float64), getattr(ds, "name", "")


def alpha_sweep(model, alphas: Sequence[float], benchmark, folds: int = 5, *, p0: str | None = None,
                variant: str | None = None, metric: str = "F", seed: int = 0, lowercase: bool | None = None,
                progress=None, **kwargs) -> SweepResult:
    """Sweep α over a grid on a word-similarity benchmark, choosing α by k-fold cross-validation.

    The protocol of Volpi & Malagò (2020), Tables 2–3: for each α the cosine of alpha embeddings
    in the chosen metric (eq. 5) is correlated (Spearman's ρ) with the human scores over the
    covered pairs; for each of ``folds`` random folds of the pairs, α is chosen on the other folds
    and ρ is measured on the held-out fold.

    Only the benchmark's words are embedded (each still sums over all n contexts), and one logits
    GEMM per block serves every α of the grid.

    Parameters
    ----------
    model : AlphaEmbeddings, or anything :class:`AlphaEmbeddings` accepts
    alphas : sequence of float
    benchmark : str, path, :class:`embgeo.datasets.WordPairs`, or (words1, words2, scores)
        Names resolve through :func:`embgeo.datasets.load_dataset` (``"wordsim353"``,
        ``"simlex999"``, or a file path).
    folds : int
        Number of cross-validation folds (≥ 2).
    p0, variant : str, optional
        Passed to :class:`AlphaEmbeddings` when ``model`` is not one already.
    metric : {"F", "I"}
    seed : int
        Fold assignment.
    lowercase : bool or None
        As :func:`embgeo.evaluate.word_similarity`: None looks words up as written, then lower-cased.
    **kwargs
        Further :class:`AlphaEmbeddings` arguments (``dtype``, ``memory_budget``, ...).
    """
    from scipy.stats import spearmanr

    if metric not in METRICS:
        raise ValueError(f"metric must be 'F' (Fisher) or 'I' (identity), got {metric!r}")
    if int(folds) < 2:
        raise ValueError(f"folds must be at least 2, got {folds}")
    alphas = np.asarray(list(alphas), dtype=np.float64)
    if alphas.size == 0 or not np.all(np.isfinite(alphas)):
        raise ValueError("alphas must be a non-empty sequence of finite numbers")
    if not isinstance(model, AlphaEmbeddings):
        opts = dict(kwargs)
        if p0 is not None:
            opts["p0"] = p0
        if variant is not None:
            opts["variant"] = variant
        model = AlphaEmbeddings(model, **opts)
    w1, w2, scores, name = _pairs(benchmark, lowercase)
    # as embgeo.evaluate: the word as written, else its lower-case form (unless told)
    look = (lambda w: w.lower() if lowercase or (lowercase is None and w not in model) else w)
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
    grads = model._gradients([float(a) for a in alphas], rows, progress)
    sims = np.empty((len(alphas), len(w1)))
    for k, (a, (G, ls)) in enumerate(zip(alphas, grads)):
        Y = backend.to_numpy(model._finish(G, ls, float(a), metric, normalize=True))
        sims[k] = np.sum(Y[i1] * Y[i2], axis=1)
    Ub = np.asarray(backend.to_numpy(model._U), dtype=np.float64)[rows]
    base = metric_cosine(Ub[i1], Ub[i2])

    def rho(s, sel):
        r = spearmanr(s[sel], scores[sel]).statistic
        return float(r) if np.isfinite(r) else float("nan")

    everything = np.ones(len(w1), dtype=bool)
    full = np.array([rho(s, everything) for s in sims])
    fold_of = np.random.default_rng(seed).permutation(len(w1)) % int(folds)
    cv_alphas, cv_scores = [], []
    for f in range(int(folds)):
        test = fold_of == f
        train_scores = np.array([rho(s, ~test) for s in sims])
        k = int(np.nanargmax(train_scores))
        cv_alphas.append(alphas[k])
        cv_scores.append(rho(sims[k], test))
    kbest = int(np.nanargmax(full))
    return SweepResult(
        alphas=alphas, scores=full, best_alpha=float(alphas[kbest]), best_score=float(full[kbest]),
        cv_score=float(np.mean(cv_scores)), cv_std=float(np.std(cv_scores)),
        cv_alphas=np.array(cv_alphas), cv_scores=np.array(cv_scores), baseline=rho(base, everything),
        n_pairs=len(w1), n_total=n_total, name=name,
        settings={"p0": model.p0_kind, "variant": model.variant, "metric": metric, "folds": int(folds)},
    )
