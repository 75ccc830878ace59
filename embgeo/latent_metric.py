"""Orthogonal maps and a shared Mahalanobis metric, learned on Riemannian manifolds (pymanopt).

The model of Jawanpuria, Balgovind, Kunchukuttan & Mishra (2019), "Learning Multilingual Word
Embeddings in Latent Metric Space: A Geometric Approach", TACL 7, pp. 107-120 (GeoMM), which
Jawanpuria, Dev, Kunchukuttan & Mishra (2020, "Learning Geometric Word Meta-Embeddings",
RepL4NLP) reuse for meta-embeddings: k spaces ``X_i`` (words in columns, d_i × n_i) are brought
into one latent space of ``d`` dimensions by maps ``M_i`` (d × d_i, orthogonal or Stiefel) and
compared there under one symmetric positive-definite metric ``B`` (d × d)::

    min_{M_1..M_k, B ≻ 0}  Σ_{i<j} ‖X_iᵀ M_iᵀ B M_j X_j − Y_ij‖²_F + C‖B‖²_F.

Every term depends on the data only through the d × d Gram blocks ``C_ii = X_iX_iᵀ``,
``C_jj = X_jX_jᵀ`` and ``C_ij = X_i Y_ij X_jᵀ`` and the constant ``‖Y_ij‖²_F`` (with
``A = M_iᵀBM_j``: ``tr(AᵀC_iiAC_jj) − 2⟨A, C_ij⟩ + ‖Y_ij‖²``). Meta-embeddings
(:mod:`embgeo.meta`) have ``Y_ij = I_n`` over a common vocabulary; GeoMM
(:mod:`embgeo.crosslingual.geomm`) has the binary dictionary matrix. This module holds what the
two share: the objective on Gram blocks (:class:`LatentMetricObjective`, cost, Euclidean
gradient and Hessian, all O(d³)), its pymanopt problem on St × … × St × SPD
(:func:`latent_metric_problem`) and the solver run (:func:`fit_latent_metric`: initial point,
Riemannian conjugate gradients or trust regions, cost history, progress).

A map of a space with d_i ≤ d dimensions has orthonormal columns (a point of St(d, d_i)); with
d_i > d it has orthonormal rows (``M_iᵀ ∈ St(d_i, d)``), which is how the released GeoMM code
maps a target space wider than the source (``Stiefel(d_t, d_s)``).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from . import backend as xb
from .progress import progress_bar

__all__ = ["LatentMetricFit", "LatentMetricObjective", "fit_latent_metric", "latent_metric_problem"]

logger = logging.getLogger(__name__)

#: The optimisers of :func:`fit_latent_metric` and the initial points it knows.
SOLVERS = ("cg", "trust-regions")
INITS = ("procrustes", "random")


class LatentMetricObjective:
    """``Σ_{i<j} ‖X_iᵀM_iᵀBM_jX_j − Y_ij‖²_F + C‖B‖²_F`` on precomputed Gram blocks.

    Parameters
    ----------
    G : list of lists of (d_i, d_j) float64 arrays
        ``G[i][i] = X_iX_iᵀ`` and, for i ≠ j, ``G[i][j] = X_iY_ijX_jᵀ`` (``G[j][i]`` its transpose).
    n : float or dict
        ``‖Y_ij‖²_F``: one number for every pair (``n`` words when ``Y = I_n``), or a dict
        ``{(i, j): value}``. It shifts the cost only.
    C : float
        Weight of ``‖B‖²_F``.

    See Also
    --------
    fit_latent_metric : minimises it.

    Notes
    -----
    All methods cost O(d³) whatever the number of words.

    References
    ----------
    Jawanpuria, Balgovind, Kunchukuttan & Mishra (2019), "Learning Multilingual Word Embeddings in
    Latent Metric Space: A Geometric Approach", TACL 7, pp. 107-120. Jawanpuria, Dev, Kunchukuttan
    & Mishra (2020), "Learning Geometric Word Meta-Embeddings", RepL4NLP, eq. 1.
    """

    def __init__(self, G, n, C):
        self.G = G
        self.C = float(C)
        self.k = len(G)
        self.pairs = [(i, j) for i in range(self.k) for j in range(i + 1, self.k)]
        self.constants = {p: float(n[p] if isinstance(n, dict) else n) for p in self.pairs}

    def pair(self, M, B, i, j):
        """``(A, C_iiAC_jj, C_ij)`` with ``A = M_iᵀBM_j``: the parts of pair (i, j)'s term.

        Parameters
        ----------
        M : list of arrays, shapes (d, d_i)
            The maps.
        B : array, shape (d, d)
            The metric.
        i, j : int
            The pair of spaces.

        Returns
        -------
        A : array, shape (d_i, d_j)
            ``M_iᵀBM_j``.
        Q : array, shape (d_i, d_j)
            ``C_ii A C_jj``.
        C_ij : array, shape (d_i, d_j)
            The cross Gram block.
        """
        Cii, Cjj, Cij = self.G[i][i], self.G[j][j], self.G[i][j]
        A = (M[i].T @ B) @ M[j]
        Q = (Cii @ A) @ Cjj
        return A, Q, Cij

    def cost(self, M, B):
        """The objective ``Σ_{i<j} tr(AᵀC_iiAC_jj) − 2⟨A, C_ij⟩ + ‖Y_ij‖²_F + C‖B‖²_F``.

        Parameters
        ----------
        M : list of arrays, shapes (d, d_i)
            The maps.
        B : array, shape (d, d)
            The metric.

        Returns
        -------
        float
            The value.
        """
        f = self.C * float(np.sum(B * B))
        for i, j in self.pairs:
            A, Q, Cij = self.pair(M, B, i, j)
            f += float(np.sum(A * Q)) - 2.0 * float(np.sum(A * Cij)) + self.constants[i, j]
        return f

    def grad(self, M, B):
        """The cost and its Euclidean gradient.

        With ``G = 2(C_iiAC_jj − C_ij)``: ``∂/∂M_i = BM_jGᵀ``, ``∂/∂M_j = BM_iG``,
        ``∂/∂B = sym(M_iGM_jᵀ) + 2CB``, summed over the pairs.

        Parameters
        ----------
        M : list of arrays, shapes (d, d_i)
            The maps.
        B : array, shape (d, d)
            The metric.

        Returns
        -------
        f : float
            The cost.
        gM : list of arrays, shapes (d, d_i)
            ``∂f/∂M_i``.
        gB : array, shape (d, d)
            ``∂f/∂B`` (symmetric).
        """
        f = self.C * float(np.sum(B * B))
        gM = [np.zeros_like(m) for m in M]
        gB = np.zeros_like(B)
        for i, j in self.pairs:
            A, Q, Cij = self.pair(M, B, i, j)
            f += float(np.sum(A * Q)) - 2.0 * float(np.sum(A * Cij)) + self.constants[i, j]
            GA = 2.0 * (Q - Cij)
            gM[i] += B @ (M[j] @ GA.T)
            gM[j] += B @ (M[i] @ GA)
            gB += (M[i] @ GA) @ M[j].T
        gB = (gB + gB.T) / 2 + 2.0 * self.C * B
        return f, gM, gB

    def hess(self, M, B, dM, dB):
        """Directional derivative of :meth:`grad` along (dM, dB): the Euclidean Hessian.

        Parameters
        ----------
        M : list of arrays, shapes (d, d_i)
            The maps.
        B : array, shape (d, d)
            The metric.
        dM : list of arrays, shapes (d, d_i)
            The direction in the maps.
        dB : array, shape (d, d)
            The direction in the metric.

        Returns
        -------
        hM : list of arrays, shapes (d, d_i)
            The derivative of each ``∂f/∂M_i``.
        hB : array, shape (d, d)
            The derivative of ``∂f/∂B`` (symmetric).
        """
        hM = [np.zeros_like(m) for m in M]
        hB = np.zeros_like(B)
        for i, j in self.pairs:
            Cii, Cjj, Cij = self.G[i][i], self.G[j][j], self.G[i][j]
            A = (M[i].T @ B) @ M[j]
            GA = 2.0 * ((Cii @ A) @ Cjj - Cij)
            dA = (dM[i].T @ B) @ M[j] + (M[i].T @ dB) @ M[j] + (M[i].T @ B) @ dM[j]
            dGA = 2.0 * ((Cii @ dA) @ Cjj)
            hM[i] += dB @ (M[j] @ GA.T) + B @ (dM[j] @ GA.T) + B @ (M[j] @ dGA.T)
            hM[j] += dB @ (M[i] @ GA) + B @ (dM[i] @ GA) + B @ (M[i] @ dGA)
            hB += (dM[i] @ GA) @ M[j].T + (M[i] @ dGA) @ M[j].T + (M[i] @ GA) @ dM[j].T
        hB = (hB + hB.T) / 2 + 2.0 * self.C * dB
        return hM, hB


def latent_metric_problem(obj, dims, d, *, on_gradient=None, hessian=True, retraction="qr"):
    """The pymanopt Problem for ``obj`` on St × … × St × SPD(d).

    Space i with d_i ≤ d has ``M_i = W_i ∈ St(d, d_i)``; with d_i > d, ``M_i = W_iᵀ`` and
    ``W_i ∈ St(d_i, d)``. With d_i = d the Stiefel manifold is the whole orthogonal group,
    reflections included.

    Parameters
    ----------
    obj : LatentMetricObjective
        The objective.
    dims : list of int
        The dimension d_i of each space.
    d : int
        The latent dimension.
    on_gradient : callable, optional
        Called with the cost at every gradient evaluation (progress and history).
    hessian : bool, default True
        Give pymanopt the analytic Euclidean Hessian (trust regions need it).
    retraction : str, default "qr"
        The Stiefel factors' retraction (pymanopt's name).

    Returns
    -------
    problem : pymanopt.Problem
        The problem on St × … × St × SPD(d).
    tall : list of bool
        ``tall[i] = d_i <= d``: whether the point's factor i is ``M_i`` itself (else ``M_iᵀ``).
    """
    import pymanopt
    from pymanopt.manifolds import Product, Stiefel, SymmetricPositiveDefinite

    k = len(dims)
    tall = [di <= d for di in dims]
    factors = [Stiefel(d, di, retraction=retraction) if t else Stiefel(di, d, retraction=retraction)
               for di, t in zip(dims, tall)]
    manifold = Product([*factors, SymmetricPositiveDefinite(d)])

    def to_M(Ws):
        return [w if t else w.T for w, t in zip(Ws, tall)]

    @pymanopt.function.numpy(manifold)
    def cost(*point):
        return obj.cost(to_M(point[:k]), point[k])

    @pymanopt.function.numpy(manifold)
    def euclidean_gradient(*point):
        f, gM, gB = obj.grad(to_M(point[:k]), point[k])
        if on_gradient is not None:
            on_gradient(f)
        return [g if t else g.T for g, t in zip(gM, tall)] + [gB]

    @pymanopt.function.numpy(manifold)
    def euclidean_hessian(*args):
        point, direction = args[:k + 1], args[k + 1:]
        hM, hB = obj.hess(to_M(point[:k]), point[k], to_M(direction[:k]), direction[k])
        return [h if t else h.T for h, t in zip(hM, tall)] + [hB]

    problem = pymanopt.Problem(manifold, cost, euclidean_gradient=euclidean_gradient,
                               euclidean_hessian=euclidean_hessian if hessian else None)
    return problem, tall


@dataclass
class LatentMetricFit:
    """What :func:`fit_latent_metric` learned.

    Parameters
    ----------
    maps : list of (d, d_i) arrays
        ``M_i``: a vector x of space i goes to ``M_i x`` (rows: ``E_i M_iᵀ``).
    B : (d, d) array
        The symmetric positive-definite ``B``.
    cost : float
        The final cost.
    cost_history : list of float
        The cost at every iterate (one per gradient evaluation of CG, per accepted step of TR).
    n_iter : int, default 0
        Iterations run.
    stopping_criterion : str, default ""
        pymanopt's reason for stopping.
    """

    maps: list
    B: np.ndarray
    cost: float
    cost_history: list = field(default_factory=list)
    n_iter: int = 0
    stopping_criterion: str = ""


def _initial_point(obj, dims, d, tall, init, random_state):
    rng = np.random.default_rng(random_state)

    def orthonormal(shape):
        q, r = np.linalg.qr(rng.standard_normal(shape))
        return q * np.sign(np.where(np.diag(r) == 0, 1.0, np.diag(r)))

    def polar(S):
        u, _, vt = np.linalg.svd(S, full_matrices=False)
        return u @ vt

    M = [orthonormal((d, di)) if t else orthonormal((di, d)).T for di, t in zip(dims, tall)]
    if init == "procrustes":
        # Each other space starts at the orthogonal Procrustes solution of its cross-Gram with
        # space 0 (the map maximising ⟨M_0ᵀM_j, C_0j⟩). This also picks the connected component
        # of O(d) (the sign of the determinant), which the Riemannian iterations cannot change.
        for j in range(1, len(dims)):
            M[j] = polar(M[0] @ obj.G[0][j])
    Ws = [m if t else m.T for m, t in zip(M, tall)]
    # B = s·I with the best s for these maps: f(s) = s²(T1 + C·d) − 2s·T2 + const.
    eye = np.eye(d)
    parts = [obj.pair(M, eye, i, j) for i, j in obj.pairs]
    T1 = sum(float(np.sum(A * Q)) for A, Q, _ in parts)
    T2 = sum(float(np.sum(A * Cij)) for A, _, Cij in parts)
    denom = T1 + obj.C * d
    s = abs(T2) / denom if denom > 0 and T2 != 0 else 1.0
    return [*Ws, max(s, 1e-12) * eye]


def fit_latent_metric(obj, dims, d, *, solver="cg", max_iter=300, tol=1e-6, init="procrustes",
                      random_state=0, progress=None, desc="latent metric",
                      log=None) -> LatentMetricFit:
    """Minimise ``obj`` over the maps and the metric with pymanopt.

    Parameters
    ----------
    obj : LatentMetricObjective
        The objective on Gram blocks.
    dims : list of int
        The dimension d_i of each space.
    d : int
        The latent dimension.
    solver : {"cg", "trust-regions"}
        Riemannian conjugate gradients (the released code's ``ConjugateGradient``) or trust
        regions (with the analytic Hessian).
    max_iter : int
        The most iterations.
    tol : float
        Stop when the Riemannian gradient norm falls below it.
    init : {"procrustes", "random"}
        Random orthonormal maps, the other spaces' maps then replaced ("procrustes") by the
        orthogonal Procrustes solution against space 0's; ``B = s·I`` with the best scale ``s``.
    random_state : int, Generator or None
        Seeds the random orthonormal maps.
    progress : bool or None
        A progress bar over iterations (:func:`embgeo.progress.progress_bar`).
    desc : str
        The progress bar's label.
    log : logging.Logger, optional
        Where one DEBUG line per iterate goes (default: this module's logger).

    Returns
    -------
    LatentMetricFit
        The maps, the metric and the cost history.

    Raises
    ------
    ValueError
        An unknown ``solver`` or ``init``.
    """
    import pymanopt

    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    if init not in INITS:
        raise ValueError(f"init must be one of {INITS}, got {init!r}")
    log = logger if log is None else log
    history = []
    bar = progress_bar(total=int(max_iter), desc=f"{desc}: Riemannian CG" if solver == "cg"
                       else f"{desc}: trust regions", progress=progress)

    def on_gradient(f):
        # CG evaluates the gradient once per iterate (TR once per accepted step): log there.
        history.append(f)
        bar.update(1)
        bar.set_postfix(cost=f"{f:.6g}")
        log.debug("iterate %d: cost %.10g", len(history) - 1, f)

    problem, tall = latent_metric_problem(obj, dims, d, on_gradient=on_gradient, hessian=solver == "trust-regions")
    k = len(dims)
    opts = dict(max_iterations=int(max_iter), min_gradient_norm=float(tol), verbosity=0,
                max_time=np.inf, max_cost_evaluations=max(5000, 20 * int(max_iter)))
    if solver == "cg":
        optimizer = pymanopt.optimizers.ConjugateGradient(**opts)
    else:
        optimizer = pymanopt.optimizers.TrustRegions(**opts)
    try:
        with xb.single_blas_thread():
            x0 = _initial_point(obj, dims, d, tall, init, random_state)
            result = optimizer.run(problem, initial_point=x0)
    finally:
        bar.close()
    Ws = list(result.point[:k])
    B = np.asarray(result.point[k])
    return LatentMetricFit(maps=[np.ascontiguousarray(w if t else w.T) for w, t in zip(Ws, tall)],
                           B=(B + B.T) / 2, cost=float(result.cost), cost_history=history,
                           n_iter=int(result.iterations), stopping_criterion=str(result.stopping_criterion))
