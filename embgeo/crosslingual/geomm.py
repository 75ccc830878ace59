"""GeoMM: a bilingual map factored into two rotations and a Mahalanobis metric.

Jawanpuria, Balgovind, Kunchukuttan & Mishra (2019), "Learning Multilingual Word Embeddings in
Latent Metric Space: A Geometric Approach", TACL 7, pp. 107-120, doi:10.1162/tacl_a_00257,
arXiv:1808.08773 (Section 3, the supervised bilingual model). The paper's text was not available
while this was written: the objective, its scaling and the defaults are read from the released
code (github.com/anoopkunchukuttan/geomm, ``geomm.py`` and ``geomm_optimized.py``), and no
equation number is cited.

The source-to-target similarity of GeoMM is ``x U B Vᵀ zᵀ`` (rows: word vectors), with ``U``
(d_s × d) and ``V`` (d_t × d) orthonormal-column maps into a d-dimensional latent space and ``B``
(d × d) symmetric positive definite. Over the dictionary, with ``X_D`` the *distinct* source words
of the training pairs, ``Z_D`` the distinct target words and ``A`` the binary matrix with
``A[i, j] = 1`` when (source i, target j) is a training pair, the released ``geomm.py`` minimises ::

    f(U, V, B) = ‖X_D U B Vᵀ Z_Dᵀ − A‖²_F + ½·l2_reg·‖B‖²_F

(its Theano cost: ``TT.sum((x[uniq_src] U1 B U2ᵀ z[uniq_trg]ᵀ − A)**2) + 0.5*Lambda*TT.sum(B**2)``)
with pymanopt's Riemannian conjugate gradients on ``Stiefel(d_s, d_s) × Stiefel(d_t, d_s) ×
PositiveDefinite(d_s)`` for at most ``--max_opt_iter 150`` iterations. Here ``C = l2_reg / 2``
(the weight of ``‖B‖²_F``, as in :mod:`embgeo.meta`); the released default ``--l2_reg 1e2`` is
``C = 50``, and its scripts (``geomm_results.sh``) use ``1e3`` (``C = 500``) for the VecMap data
sets (en-it, en-de, en-fi, en-es) and 1e2 or 1e3 per MUSE pair. Expanding the square,
``f = tr(Wᵀ X_DᵀX_D W Z_DᵀZ_D) − 2⟨W, X_DᵀAZ_D⟩ + ‖A‖²_F + C‖B‖²_F`` with ``W = UBVᵀ``
(``geomm_optimized.py`` computes this form, without the constant ``‖A‖²_F``): the data enter
through three Gram matrices of the dictionary rows, accumulated blockwise in float64 by
:func:`embgeo.linalg.gram`; each iteration then costs O(d³). This is the latent-metric problem
of :mod:`embgeo.latent_metric` with two spaces and ``Y = A``, solved by the same code as the
geometric meta-embeddings of :mod:`embgeo.meta`.

Words are mapped into the latent space as ``x ↦ x U B^½`` and ``z ↦ z V B^½`` (``geomm.py``'s
``xw = x.dot(U1).dot(sqrtm(B))``), and translations are retrieved there by CSLS (k = 10) between
the unit-length mapped vectors (``--normalize_eval``); the inner product of the two mapped
vectors is the model's similarity ``x U B Vᵀ zᵀ``.

A remark that the tests use: ``‖B‖_F = ‖UBVᵀ‖_F`` when U and V are orthogonal, and every
full-rank d_s × d_t matrix is some ``UBVᵀ`` (an SVD), so the minimum of ``f`` over the manifold is
the minimum of the ridge problem ``‖X_D W Z_Dᵀ − A‖²_F + C‖W‖²_F`` over all W, which has a closed
form (eigendecompositions of the two Gram matrices). The Riemannian iterations approach it;
150 iterations of CG (the released default) stop short of it on real data.

Differences from the released code
----------------------------------
* The initial point: pymanopt 0.2's random point there; here random maps with V replaced by the
  orthogonal Procrustes solution against U, and ``B = s·I`` with the best scale (``init=``,
  shared with :mod:`embgeo.meta`), which starts much closer to the optimum.
* Different dimensions: the released manifold needs d_t ≥ d_s (``Stiefel(d_t, d_s)``). Here the
  latent dimension ``dim`` defaults to d_s as there, and a space narrower than ``dim`` is
  embedded isometrically (orthonormal columns), so d_t < d_s works too (e.g. 384 → 300).
* The solver is pymanopt 2's ``ConjugateGradient`` with analytic gradients (the released code
  differentiates a Theano graph with pymanopt 0.2); its line search and defaults differ in detail.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from .. import backend as xb
from ..display import Display
from ..latent_metric import LatentMetricObjective, fit_latent_metric
from ..linalg import gram, sym_power

__all__ = ["GeoMMResult", "geomm", "geomm_objective"]

logger = logging.getLogger(__name__)


@dataclass(repr=False)
class GeoMMResult(Display):
    """A fitted GeoMM model, made by :func:`geomm`.

    Parameters
    ----------
    U : (d_s, d) array
        The source map (``geomm.py``'s ``U1``, saved as ``U_src.csv``).
    V : (d_t, d) array
        The target map (``U2``, ``U_tgt.csv``).
    B : (d, d) array
        The symmetric positive-definite metric (``B.csv``).
    C : float
        The weight of ``‖B‖²_F`` it was fitted with.
    cost : float
        The objective at the returned point (``‖A‖²_F`` included).
    cost_history : list of float
        The cost at every iterate.
    n_iter : int, default 0
        Iterations run.
    stopping_criterion : str, default ""
        pymanopt's reason for stopping.

    See Also
    --------
    geomm_objective : the cost at any point.
    """

    _call = "geomm(…, C={C:g})"

    U: np.ndarray
    V: np.ndarray
    B: np.ndarray
    C: float
    cost: float
    cost_history: list = field(default_factory=list)
    n_iter: int = 0
    stopping_criterion: str = ""

    def transforms(self):
        """``(U B^½, V B^½)``: source rows ``x`` map to ``x U B^½``, target rows to ``z V B^½``.

        Returns
        -------
        source_map : ndarray, shape (d_s, d), float64
            ``U B^½``.
        target_map : ndarray, shape (d_t, d), float64
            ``V B^½``; the inner product of the mapped rows is the model's similarity.
        """
        with xb.single_blas_thread():
            Bh = sym_power(self.B, 0.5)
        return self.U @ Bh, self.V @ Bh


def _dictionary(X, Z, src_idx, tgt_idx):
    """Distinct source rows, distinct target rows and distinct pairs of the dictionary."""
    si = np.asarray(xb.to_numpy(src_idx)).astype(np.int64).ravel()
    ti = np.asarray(xb.to_numpy(tgt_idx)).astype(np.int64).ravel()
    if si.shape != ti.shape:
        raise ValueError(f"src_idx and tgt_idx differ in length ({si.size} and {ti.size} pairs)")
    if si.size == 0:
        raise ValueError("the dictionary is empty: GeoMM needs training pairs")
    for name, idx, M in (("src_idx", si, X), ("tgt_idx", ti, Z)):
        bad = (idx < 0) | (idx >= M.shape[0])
        if bad.any():
            raise ValueError(f"{name} has row {int(idx[bad][0])} outside the {M.shape[0]} rows of its matrix")
    pairs = np.unique(np.stack([si, ti], axis=1), axis=0)
    return np.unique(si), np.unique(ti), pairs


def _grams(X, Z, src_idx, tgt_idx):
    """``[[X_DᵀX_D, X_DᵀAZ_D], [·ᵀ, Z_DᵀZ_D]]`` (float64 NumPy) and ``‖A‖²_F``."""
    su, tu, pairs = _dictionary(X, Z, src_idx, tgt_idx)

    def g(A, B=None):
        return np.asarray(xb.to_numpy(gram(A, B)), dtype=np.float64)

    Xd, Zd = xb.take_rows(X, su), xb.take_rows(Z, tu)
    # only the dictionary rows enter the model: check those, not the whole vocabulary
    for name, M, rows in (("X", Xd, su), ("Z", Zd, tu)):
        finite = np.asarray(xb.to_numpy(xb.get_namespace(M).all(xb.get_namespace(M).isfinite(M), axis=1)))
        if not finite.all():
            raise ValueError(f"{name} holds NaN or inf in a dictionary row (row {int(rows[~finite][0])})")
    cross = g(xb.take_rows(X, pairs[:, 0]), xb.take_rows(Z, pairs[:, 1]))  # Σ over pairs x_i z_jᵀ = X_DᵀAZ_D
    return [[g(Xd), cross], [cross.T, g(Zd)]], float(pairs.shape[0])


def _check(X, Z):
    X = xb.check_matrix(X, "X", check_finite=False)
    Z = xb.check_matrix(Z, "Z", check_finite=False)
    xb.get_namespace(X, Z)
    return X, Z


def geomm(X, Z, src_idx, tgt_idx, *, C: float = 50.0, dim: int | None = None, max_iter: int = 150,
          solver: str = "cg", tol: float = 1e-6, init: str = "procrustes", random_state=0,
          progress=None) -> GeoMMResult:
    """Fit GeoMM on a dictionary: rotations ``U``, ``V`` and the metric ``B``.

    Parameters
    ----------
    X, Z : arrays (n_s, d_s), (n_t, d_t)
        Source and target vectors, already normalised (the released scripts use
        ``--normalize unit center``). NumPy, CuPy or any array-API array; only the dictionary
        rows are read.
    src_idx, tgt_idx : int arrays (m,)
        Row pairs of the training dictionary; repeated pairs count once (A is binary).
    C : float
        Weight of ``‖B‖²_F`` (``l2_reg / 2`` of the released code; its default 1e2 is C = 50).
    dim : int, optional
        Latent dimension, default d_s (the released code's).
    max_iter : int
        Iterations of the solver (``--max_opt_iter``, default 150).
    solver : {"cg", "trust-regions"}
        Riemannian conjugate gradients (the released code's) or trust regions.
    tol : float
        Stop when the Riemannian gradient norm falls below it.
    init : {"procrustes", "random"}
        Starting maps (see :func:`embgeo.latent_metric.fit_latent_metric`).
    random_state : int, Generator or None
        Seeds the random initial maps.
    progress : bool or None
        Progress bar over the iterations; None: automatic.

    Returns
    -------
    GeoMMResult
        The maps, the metric and the cost history.

    Raises
    ------
    ValueError
        NaN/inf in a dictionary row (the row is named), an empty dictionary, indices out of range,
        mismatched pair lists, C < 0, dim < 1.

    See Also
    --------
    geomm_objective : the cost at any point.

    References
    ----------
    Jawanpuria, Balgovind, Kunchukuttan & Mishra (2019), "Learning Multilingual Word Embeddings in
    Latent Metric Space: A Geometric Approach", TACL 7, pp. 107-120, Section 3.
    doi:10.1162/tacl_a_00257
    """
    X, Z = _check(X, Z)
    if not C >= 0:
        raise ValueError(f"C must be >= 0, got {C}")
    ds, dt = int(X.shape[1]), int(Z.shape[1])
    d = ds if dim is None else int(dim)
    if d < 1:
        raise ValueError(f"dim must be at least 1, got {dim}")
    G, n_pairs = _grams(X, Z, src_idx, tgt_idx)
    fit = fit_latent_metric(LatentMetricObjective(G, n_pairs, C), [ds, dt], d, solver=solver,
                            max_iter=max_iter, tol=tol, init=init, random_state=random_state,
                            progress=progress, desc="GeoMM", log=logger)
    logger.info("GeoMM: cost %.10g after %d iterations (%s)", fit.cost, fit.n_iter, fit.stopping_criterion)
    M0, M1 = fit.maps
    return GeoMMResult(U=np.ascontiguousarray(M0.T), V=np.ascontiguousarray(M1.T), B=fit.B, C=float(C),
                       cost=fit.cost, cost_history=fit.cost_history, n_iter=fit.n_iter,
                       stopping_criterion=fit.stopping_criterion)


def geomm_objective(X, Z, src_idx, tgt_idx, U, V, B, C: float = 50.0) -> float:
    """The released ``geomm.py`` cost ``‖X_D U B Vᵀ Z_Dᵀ − A‖²_F + C‖B‖²_F`` at (U, V, B).

    Computed from the Gram matrices of the dictionary rows (the |D_s| × |D_t| residual is never
    formed).

    Parameters
    ----------
    X, Z : arrays (n_s, d_s), (n_t, d_t)
        Source and target vectors; only the dictionary rows are read.
    src_idx, tgt_idx : int arrays (m,)
        Row pairs of the dictionary; repeated pairs count once.
    U : array, shape (d_s, d)
        The source map, as :func:`geomm` returns it.
    V : array, shape (d_t, d)
        The target map.
    B : array, shape (d, d)
        The metric.
    C : float, default 50.0
        Weight of ``‖B‖²_F``.

    Returns
    -------
    float
        The cost, ``‖A‖²_F`` included.

    Raises
    ------
    ValueError
        Shapes of U, V, B that do not fit the spaces, or what :func:`geomm` refuses of the
        dictionary.
    """
    X, Z = _check(X, Z)
    U, V, B = (np.asarray(xb.to_numpy(a), dtype=np.float64) for a in (U, V, B))
    d = B.shape[0]
    if B.shape != (d, d) or U.shape != (X.shape[1], d) or V.shape != (Z.shape[1], d):
        raise ValueError(f"U, V, B must be ({X.shape[1]}, d), ({Z.shape[1]}, d), (d, d); "
                         f"got {U.shape}, {V.shape}, {B.shape}")
    G, n_pairs = _grams(X, Z, src_idx, tgt_idx)
    return LatentMetricObjective(G, n_pairs, C).cost([U.T, V.T], B)
