"""The method: :class:`AlphaEmbeddings` (Volpi & Malagò 2020, eq. 1–9) and its geometry helpers.

The equations, the α = 1 identity and the blocked computation are described in the package
docstring (:mod:`embgeo.alpha`); choosing α (eq. 5–6 with cross-validation, Tables 2–3, 11) is
:mod:`embgeo.alpha.sweeps`. This module does not import the sweeps.
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import backend as xb
from ..blocking import DEFAULT_MEMORY_BUDGET, block_rows
from ..embeddings import Embeddings
from ..io import GloveModel, read_glove
from ..neighbors import select_topk
from ..progress import progress_bar
from ..vocabulary import Vocabulary, word_index

__all__ = ["AlphaEmbeddings", "GloveModel", "read_glove", "fisher_cosine", "P0_CHOICES", "VARIANTS", "GEOMETRIES"]

P0_CHOICES = ("0", "u", "ud")
VARIANTS = ("U", "U+V")
GEOMETRIES = ("fisher", "euclidean")

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
    """The geometry name, checked against :data:`GEOMETRIES`."""
    if allow_bool and isinstance(geometry, (bool, np.bool_)):
        return bool(geometry)
    if geometry not in GEOMETRIES:
        raise ValueError(f"{what} must be 'fisher' or 'euclidean' (the paper's F and I), got {geometry!r}")
    return geometry


def fisher_cosine(X, Y, fisher=None):
    """Cosine of aligned rows of ``X`` and ``Y`` in the metric ``fisher`` (eq. 5 of Volpi & Malagò 2020).

    sim(a, b) = ⟨x, y⟩_I / (‖x‖_I ‖y‖_I) with ⟨x, y⟩_I = xᵀ I y. ``fisher=None`` is the identity
    (the Euclidean geometry).

    Parameters
    ----------
    X, Y : array_like, shape (m, d) or (d,)
        Aligned rows (any array library; copied to NumPy float64). A single vector is one row.
    fisher : array_like, shape (d, d), optional
        The metric I (e.g. :attr:`AlphaEmbeddings.fisher`, symmetric positive definite); None: the
        identity.

    Returns
    -------
    numpy.ndarray of float64, shape (m,)
        One cosine per row pair; a pair with a zero vector gives 0.

    See Also
    --------
    AlphaEmbeddings.similarity : eq. 5 for two words of a model.

    References
    ----------
    Volpi & Malagò (2020), "Natural Alpha Embeddings", RepL4NLP, eq. 5. arXiv:1912.02280

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


class AlphaEmbeddings(Vocabulary):
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
    check_finite : bool, default True
        Refuse U, V or ``context_bias`` holding NaN or inf (a pass over the matrices).

    Attributes
    ----------
    p0 : array (n,)
        The reference measure, float64 (computed on first use for ``"u"``).
    fisher : array (d, d)
        I(p0), float64, symmetric positive definite (eq. 4).

    Raises
    ------
    ValueError
        An unknown ``p0`` or ``variant``; U and V of different shapes, not 2-d, or not finite; no
        more words than dimensions (the Fisher matrix would be singular); words, counts or
        ``context_bias`` whose length is not n; counts that are negative, not finite or all zero;
        ``p0="u"`` or ``"ud"`` without counts; ``p0="ud"`` with a zero count (the word is named).
        A gensim model or :class:`~embgeo.Embeddings` without output vectors is refused with the
        way to get them.

    See Also
    --------
    embgeo.alpha.sweeps.alpha_sweep : choose α on a similarity benchmark (Tables 2-3).
    embgeo.alpha.sweeps.analogy_sweep : choose α on analogies (Table 11).

    References
    ----------
    Volpi & Malagò (2020), "Natural Alpha Embeddings", RepL4NLP, eq. 1-9. arXiv:1912.02280

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
        self._words = words
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
        self._index = word_index(words)
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
        p0 : {"0", "u", "ud"}, default "0"
            Reference measure, as :class:`AlphaEmbeddings`.
        variant : {"U", "U+V"}, default "U"
            As :class:`AlphaEmbeddings`.
        **kwargs
            Further keywords of :class:`AlphaEmbeddings` (``dtype``, ``memory_budget``, ...).

        Returns
        -------
        AlphaEmbeddings
            The model, with GloVe's context biases in p_w.

        Raises
        ------
        ValueError
            A malformed line (named by number), a size that does not fit the vocabulary, a binary
            file without ``vocab`` (see :func:`read_glove`), or what :class:`AlphaEmbeddings` refuses.

        See Also
        --------
        read_glove : the reader alone.
        """
        g = read_glove(path, vocab)
        return cls(g.word_vectors, g.context_vectors, counts=g.counts, words=g.words, p0=p0, variant=variant,
                   context_bias=g.context_bias, **kwargs)

    # ------------------------------------------------------------------ basics
    def __repr__(self) -> str:
        n, d = self._U.shape
        bias = ", context biases" if self._bias is not None else ""
        return (f"AlphaEmbeddings({n} words, dim={d}, p0={self.p0_kind!r}, variant={self.variant!r}, "
                f"{self._dt}{bias})")

    @property
    def dim(self) -> int:
        """The embedding dimension d."""
        return int(self._U.shape[1])

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
        return self.indices(words)

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
            from ..kernels.alpha import alpha_log_map_

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
                      progress=None):
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
            Progress bar over the blocks of rows; None: automatic.

        Returns
        -------
        array of float64, shape (len(words), d) or (n, d)
            The rows, in the model's array library.

        Raises
        ------
        ValueError
            α is NaN or +∞, or α = −∞ without ``normalize`` (W^α has no limit then, only its
            direction has: α = −∞ with ``normalize`` gives ``limit(top=1)``, eq. 9, as the sweeps do);
            an unknown geometry.
        UnknownWordError
            A word of ``words`` is not in the vocabulary.

        See Also
        --------
        embed : the same rows as an :class:`~embgeo.Embeddings`.
        limit : the α → −∞ limit (eq. 9).
        """
        geometry = _geometry(geometry)
        normalize = _normalization(normalize, geometry)
        a = _check_alpha(alpha, normalize)
        rows = self._rows(words)
        if a == -np.inf:
            return self._limit_rows(1, False, geometry, True, normalize, rows, progress)
        (G, ls), = self._gradients([a], rows, progress)
        return self._finish(G, ls, a, geometry, normalize)

    def embed(self, alpha: float, geometry: str = "fisher", *, words=None, normalize=False,
              dtype_out="float32", progress=None) -> Embeddings:
        """Alpha embeddings (eq. 2) as an :class:`~embgeo.Embeddings` in the frame of ``geometry``.

        For ``geometry="fisher"`` the rows are ``W^α L`` with I(p0) = L Lᵀ (Cholesky): their dot
        products are ⟨W^α(w), W^α(w')⟩_I(p0), so ``cosine``, ``similarity``, ``most_similar`` and
        ``embgeo.evaluate`` compute the paper's Fisher similarity (eq. 5) and, on unit rows, its
        analogy measure (eq. 6). For ``"euclidean"`` the rows are W^α itself.

        Parameters
        ----------
        alpha : float
            The deformation parameter α of eq. 3 (−∞ with ``normalize``: the limit of eq. 9).
        geometry : {"fisher", "euclidean"}, default "fisher"
            The frame of the rows (see :meth:`alpha_vectors`).
        words : sequence of str, optional
            Compute only these rows (each still sums over the whole vocabulary of contexts).
        normalize : bool or {"fisher", "euclidean"}
            As :meth:`alpha_vectors`. Note that ``Embeddings.most_similar`` and
            ``embgeo.evaluate.analogy`` re-normalise rows in their own (Euclidean) frame; the
            paper's nF-pI analogy (eq. 6 with mixed geometries) is
            :func:`embgeo.alpha.sweeps.analogy_sweep`.
        dtype_out : {"float32", "float64"}, default "float32"
            Storage dtype of the result.
        progress : bool, optional
            Progress bar over the blocks of rows; None: automatic.

        Returns
        -------
        Embeddings
            One row per word (all words, or ``words`` in that order), with the model's counts.

        Raises
        ------
        ValueError
            As :meth:`alpha_vectors`.
        OverflowError
            Rows that do not fit ``dtype_out`` (unnormalised W^α for large ``|α|``): pass
            ``normalize=True`` or ``dtype_out="float64"``.
        UnknownWordError
            A word of ``words`` is not in the vocabulary.

        See Also
        --------
        alpha_vectors : the rows as an array.
        """
        geometry = _geometry(geometry)
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
              natural: bool = True, normalize=True, dtype_out="float32", progress=None) -> Embeddings:
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
        words : sequence of str, optional
            Compute only these rows (default: the whole vocabulary).
        natural : bool
            ``True`` (default) returns ``I(p0)⁻¹ Σ ΔV_χ``, eq. 9 as printed and the direction W^α
            tends to. ``False`` drops the I(p0)⁻¹ (``Σ ΔV_χ``, the bare rows of the clustering).
        normalize : bool or {"fisher", "euclidean"}
            As in :meth:`alpha_vectors` (default True: only the direction has a limit).
        dtype_out : {"float32", "float64"}, default "float32"
            Storage dtype of the result.
        progress : bool, optional
            Progress bar over the blocks of rows; None: automatic.

        Returns
        -------
        Embeddings
            One row per word, with the model's counts.

        Raises
        ------
        ValueError
            ``top`` outside [1, n], or an unknown geometry.
        UnknownWordError
            A word of ``words`` is not in the vocabulary.

        See Also
        --------
        embed : finite α.

        References
        ----------
        Volpi & Malagò (2020), "Natural Alpha Embeddings", RepL4NLP, eq. 8-9 and Sec. 3.2.
        arXiv:1912.02280
        """
        geometry = _geometry(geometry)
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

    def similarity(self, w1: str, w2: str, alpha: float, geometry: str = "fisher") -> float:
        """Cosine of W^α(w1) and W^α(w2) in ``geometry`` (eq. 5); computes only the two rows.

        Parameters
        ----------
        w1, w2 : str
            The two words.
        alpha : float
            The deformation parameter α of eq. 3 (−∞: the limit directions of eq. 9).
        geometry : {"fisher", "euclidean"}, default "fisher"
            The inner product: the Fisher metric I(p0) (eq. 5) or the identity.

        Returns
        -------
        float
            The cosine, in [−1, 1].

        Raises
        ------
        UnknownWordError
            A word is not in the vocabulary.
        ValueError
            α is NaN or +∞, or an unknown geometry.

        See Also
        --------
        fisher_cosine : the same cosine of given vectors.
        """
        geometry = _geometry(geometry)
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
        model.check_finite()
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
    from ..kernels.alpha import SHIFT_THRESHOLD

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
