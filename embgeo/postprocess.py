"""Linear post-processing of word embeddings: similarity order, whitening, PPA, PPA-PCA-PPA.

Every transform here is *pure* (it returns new vectors and never edits its input), takes an
:class:`~embgeo.Embeddings` or a 2-D array and returns the same kind, and depends on the data
only through d×d statistics: the Gram matrix ``XᵀX`` (accumulated over row blocks in float64 by
:func:`embgeo.linalg.gram`) and the mean vector. The cost is one O(n·d²) pass to accumulate
them, an O(d³) eigendecomposition, and one O(n·d²) GEMM that writes the result; the extra memory
is O(d²) beyond the output itself. With ``return_transform=True`` each function also returns what
it applied, so held-out vectors are transformed exactly as the fitted ones:

>>> import numpy as np
>>> X = np.random.default_rng(0).standard_normal((100, 8)).astype(np.float32)
>>> Y, T = similarity_order(X, 0.5, return_transform=True)
>>> bool(np.allclose(X[:10] @ T, Y[:10], atol=1e-5))
True

Methods
-------
:func:`similarity_order`
    Artetxe, Labaka, Lopez-Gazpio & Agirre (2018), "Uncovering divergent linguistic information
    in word embeddings with lessons for intrinsic and extrinsic evaluation", CoNLL, Section 3.
:func:`all_but_the_top`
    Mu & Viswanath (2018), "All-but-the-Top: simple and effective postprocessing for word
    representations", ICLR, Algorithm 1 ("PPA").
:func:`ppa_pca_ppa`
    Raunak, Gupta & Metze (2019), "Effective dimensionality reduction for word embeddings",
    RepL4NLP, Algorithm 2.
:func:`whiten`, :func:`dewhiten`, :func:`reweight`, :func:`cross_covariance_svd`
    The steps of VecMap's multi-step framework (Artetxe, Labaka & Agirre 2018, AAAI,
    "Generalizing and improving bilingual word embedding mappings with a multi-step framework of
    linear transformations", Section 3), defined once here for :mod:`embgeo.crosslingual`.
:func:`normalize` and ``unit``/``center``/``unitdim``/``centeremb``
    VecMap's normalisations from :mod:`embgeo.normalize`, re-exported to compose with the rest.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import backend as xb, linalg
from .embeddings import unwrap as _unwrap
# the shared d×d plumbing lives in embgeo.linalg (also used by embgeo.pca); short local names
from .linalg import apply_matrix as _apply
from .linalg import centred_scatter as _centred_scatter
from .linalg import checked_gram as _statistics
from .linalg import eigh_desc as _eigh_desc
from .normalize import STEPS  # noqa: F401  (importable here; exported by embgeo.normalize)
from .normalize import normalize as _normalize

__all__ = [
    "similarity_order",
    "similarity_order_transform",
    "whiten",
    "whitening_transform",
    "dewhiten",
    "dewhitening_transform",
    "cross_covariance_svd",
    "reweight",
    "all_but_the_top",
    "ppa_pca_ppa",
    "AffineTransform",
    "apply_transform",
    "unit",
    "center",
    "unitdim",
    "centeremb",
]


# ---------------------------------------------------------------------------- plumbing
def _tolerance(w, d):
    # The rule of linalg.sym_power: relative to the largest eigenvalue, d·eps of float64.
    xp = xb.get_namespace(w)
    return float(xp.max(xp.abs(w))) * d * float(xp.finfo(xp.float64).eps)


def _like(A, X):
    """``A`` in the array library of ``X`` (fitted transforms may come from another backend)."""
    A = xb.asarray(A)
    if xb.get_namespace(A) is xb.get_namespace(X):
        return A
    return xb.asarray(xb.to_numpy(A), like=X, dtype="float64")


def _as_matrix(T, X, name):
    T = _like(T, X)
    if T.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix, got shape {tuple(T.shape)}")
    return T


def apply_transform(e, T, offset=None):
    """Apply a fitted linear (or affine) transform to new vectors: ``X @ T - offset``.

    Parameters
    ----------
    e : Embeddings or array, shape (n, d)
        The vectors to map (NumPy, CuPy, array-API or dask).
    T : array, shape (d, k)
        E.g. the matrix returned by ``similarity_order(..., return_transform=True)``; moved to the
        array library of ``e`` if it comes from another.
    offset : array, shape (k,), optional
        Subtracted from every mapped row (``mean @ matrix`` of an :class:`AffineTransform`).

    Returns
    -------
    Embeddings or array (the kind of ``e``), shape (n, k)
        The mapped vectors, in ``e``'s dtype.

    Raises
    ------
    ValueError
        ``T`` not 2-D, ``T``'s rows not matching the dimension of ``e``, or ``offset`` not of
        shape (k,).

    See Also
    --------
    AffineTransform : a fitted transform that applies itself.
    """
    X, wrap = _unwrap(e)
    T = _as_matrix(T, X, "T")
    if T.shape[0] != X.shape[1]:
        raise ValueError(f"the transform expects dimension {T.shape[0]} but the vectors have {X.shape[1]}")
    if offset is not None:
        offset = _like(offset, X)
        if tuple(offset.shape) != (T.shape[1],):
            raise ValueError(f"offset must have shape ({T.shape[1]},), got {tuple(offset.shape)}")
    return wrap(_apply(X, T, offset))


@dataclass(frozen=True)
class AffineTransform:
    """A fitted affine map ``x ↦ (x - mean) @ matrix``, applicable to held-out vectors.

    Returned by :func:`all_but_the_top` and :func:`ppa_pca_ppa` with ``return_transform=True``;
    calling it is :meth:`apply`.

    Parameters
    ----------
    matrix : array, shape (d_in, d_out), float64
        The linear part.
    mean : array, shape (d_in,), float64
        The vector subtracted first (the fitted vocabulary's mean).

    See Also
    --------
    apply_transform : the same map from a matrix and an offset.
    """

    matrix: Any
    mean: Any

    @property
    def offset(self):
        """``mean @ matrix``: the transform is ``x @ matrix - offset``."""
        xp = xb.get_namespace(self.matrix)
        return xp.reshape(xp.reshape(self.mean, (1, -1)) @ self.matrix, (-1,))

    def apply(self, e):
        """Transform an Embeddings or a (n, d_in) array, returning the same kind.

        Parameters
        ----------
        e : Embeddings or array, shape (n, d_in)
            Vectors in the space the transform was fitted on (held-out words too).

        Returns
        -------
        Embeddings or array (the kind of ``e``), shape (n, d_out)
            ``(x − mean) @ matrix`` for every row, in ``e``'s dtype.

        Raises
        ------
        ValueError
            Vectors whose dimension is not d_in.
        """
        return apply_transform(e, self.matrix, self.offset)

    __call__ = apply


# ---------------------------------------------------------------------- similarity order
def similarity_order_transform(X, alpha: float, *, tol: float | None = None):
    """The d×d matrix ``T = Q·Δ^α`` of :func:`similarity_order` (``XᵀX = QΔQᵀ``).

    Parameters
    ----------
    X : array or Embeddings, shape (n, d)
        The vectors whose Gram matrix ``XᵀX`` is decomposed.
    alpha : float
        The power of the eigenvalues (``α = (n−1)/2`` for n-th order similarity).
    tol : float, optional
        Eigenvalues ``<= tol`` count as zero (default ``max eigenvalue · d · eps(float64)``).

    Returns
    -------
    T : array, shape (d, d), float64
        Columns ordered by decreasing eigenvalue.

    Raises
    ------
    TypeError
        ``alpha`` is not a real number.
    ValueError
        ``alpha`` not finite, NaN/inf in ``X`` (the row is named), or ``alpha < 0`` with a
        singular ``XᵀX``.

    See Also
    --------
    similarity_order : applies this matrix.

    References
    ----------
    M. Artetxe, G. Labaka, I. Lopez-Gazpio, E. Agirre (2018). Uncovering divergent linguistic
    information in word embeddings with lessons for intrinsic and extrinsic evaluation. CoNLL,
    Section 3. doi:10.18653/v1/K18-1028
    """
    X, _ = _unwrap(X, "X")
    alpha = _check_alpha(alpha)
    G, _ = _statistics(X)
    return _order_matrix(G, alpha, tol)


def _check_alpha(alpha):
    try:
        alpha = float(alpha)
    except (TypeError, ValueError):
        raise TypeError(f"alpha must be a real number, got {alpha!r}") from None
    if not np.isfinite(alpha):
        raise ValueError(f"alpha must be finite, got {alpha}")
    return alpha


def _order_matrix(G, alpha, tol):
    xp = xb.get_namespace(G)
    w, Q = _eigh_desc(G)
    if alpha == 0:
        return Q  # exactly a rotation, whatever the rank
    tol = _tolerance(w, G.shape[0]) if tol is None else float(tol)
    small = w <= tol
    n_small = int(xp.sum(xp.astype(small, xp.int32)))
    if alpha < 0 and n_small:
        raise ValueError(
            f"XᵀX has {n_small} eigenvalue(s) <= {tol:.3g} (X has rank {G.shape[0] - n_small} < "
            f"dim {G.shape[0]}): a negative alpha would blow up those directions; project them "
            f"out first (e.g. embgeo.pca.principal_space(e, slice(0, {G.shape[0] - n_small})))"
        )
    safe = xp.where(small, xp.ones_like(w), w)
    scale = xp.where(small, xp.zeros_like(w), safe ** alpha)
    return Q * xp.reshape(scale, (1, -1))


def similarity_order(e, alpha: float, *, tol: float | None = None, return_transform: bool = False):
    """Adjust the similarity order of embeddings (Artetxe et al. 2018, CoNLL, Section 3).

    With the eigendecomposition ``XᵀX = QΔQᵀ``, return ``X_α = X·Q·Δ^α``. Then
    ``X_α X_αᵀ = X Q Δ^{2α} Qᵀ Xᵀ``; for ``X = USVᵀ`` this is ``U S^{2+4α} Uᵀ = (XXᵀ)^n`` with
    ``n = 1 + 2α``, so the *n*-th order similarity corresponds to ``α = (n−1)/2``: α = 0 keeps
    first-order similarity (a rotation), α = 0.5 gives second order, α = −0.25 "order ½".

    Parameters
    ----------
    e : Embeddings or array, shape (n, d)
        Used as given (no centring or normalisation; apply :func:`normalize` first if wanted).
    alpha : float
        Continuous; negative values lower the order.
    tol : float, optional
        Eigenvalues ``<= tol`` are treated as zero. Default ``λ_max · d · eps(float64)``.
    return_transform : bool, default False
        Also return ``T = Q·Δ^α`` (d×d, float64) so that new rows map as ``X_new @ T``.

    Returns
    -------
    result : Embeddings or array (same kind as ``e``), shape (n, d), ``e``'s dtype
        Columns in order of decreasing eigenvalue.
    T : array, shape (d, d), float64
        Only with ``return_transform=True``.

    Raises
    ------
    TypeError
        ``alpha`` is not a real number.
    ValueError
        NaN/inf in ``e`` (the row is named); ``alpha`` not finite; ``alpha < 0`` when ``XᵀX`` is
        singular.

    See Also
    --------
    similarity_order_transform : the matrix alone.
    apply_transform : apply the returned matrix to held-out vectors.

    Notes
    -----
    Zero-eigenvalue rule: eigenvalues ``<= tol`` (zero, or negative by rounding) are treated as
    exactly 0. For ``α > 0`` those directions get weight ``0^α = 0``; for ``α = 0`` the
    transform is exactly the orthogonal ``Q`` (every direction kept, a pure rotation); for
    ``α < 0`` ``0^α`` is infinite and a ``ValueError`` is raised rather than returning huge values.

    Cost: one blocked float64 pass for ``XᵀX`` (O(n·d²)), an O(d³) ``eigh``, one GEMM.

    References
    ----------
    M. Artetxe, G. Labaka, I. Lopez-Gazpio, E. Agirre (2018). Uncovering divergent linguistic
    information in word embeddings with lessons for intrinsic and extrinsic evaluation. CoNLL,
    pp. 282–291. doi:10.18653/v1/K18-1028

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(1).standard_normal((30, 5))
    >>> Y = similarity_order(X, 0.5)
    >>> bool(np.allclose(Y @ Y.T, (X @ X.T) @ (X @ X.T)))
    True
    """
    X, wrap = _unwrap(e)
    alpha = _check_alpha(alpha)
    G, _ = _statistics(X, "vectors")
    T = _order_matrix(G, alpha, tol)
    out = wrap(_apply(X, T))
    return (out, T) if return_transform else out


# ------------------------------------------------------------------------- whitening
def whitening_transform(X):
    """``W = (XᵀX)^(-1/2)``, the symmetric (ZCA-style, uncentred) whitening of VecMap's STEP 1.

    VecMap computes it from the SVD ``X = USVᵀ`` as ``V S⁻¹ Vᵀ``; that is the same matrix, here
    obtained from the blocked float64 Gram matrix by :func:`embgeo.linalg.sym_power`. VecMap
    whitens with the rows of the training dictionary only: pass those rows (``X[src_indices]``).

    Parameters
    ----------
    X : array or Embeddings, shape (n, d)
        The rows the statistics are estimated on.

    Returns
    -------
    W : array, shape (d, d), float64
        Symmetric; ``(X W)ᵀ (X W) = I``.

    Raises
    ------
    ValueError
        If ``XᵀX`` is singular (fewer independent rows than dimensions, or a null direction), or
        ``X`` holds NaN or inf (the row is named).

    See Also
    --------
    whiten : whitens vectors with their own matrix.
    dewhitening_transform : the inverse step's matrix.

    References
    ----------
    M. Artetxe, G. Labaka, E. Agirre (2018). Generalizing and improving bilingual word embedding
    mappings with a multi-step framework of linear transformations. AAAI, Section 3 (step 1).
    """
    X, _ = _unwrap(X, "X")
    G, _ = _statistics(X)
    return linalg.sym_power(G, -0.5)


def dewhitening_transform(X, rotation=None):
    """VecMap's STEP 4 matrix ``Rᵀ (XᵀX)^(1/2) R`` (``R = I`` without ``rotation``).

    ``(XᵀX)^(1/2)`` is the inverse of :func:`whitening_transform` (VecMap writes ``inv(wx1)``);
    conjugating it with the orthogonal ``R`` applied after whitening (VecMap's ``wx2``) restores
    the original variances in the mapped basis.

    Parameters
    ----------
    X : array or Embeddings, shape (n, d)
        The un-whitened rows whose whitening is undone.
    rotation : array, shape (d, d), optional
        The orthogonal map applied after whitening; None: the identity.

    Returns
    -------
    array, shape (d, d), float64
        ``Rᵀ (XᵀX)^(1/2) R``.

    Raises
    ------
    ValueError
        ``X`` holds NaN or inf (the row is named), or ``rotation`` is not d×d.

    See Also
    --------
    dewhiten : applies this matrix.
    whitening_transform : the step it undoes.

    References
    ----------
    M. Artetxe, G. Labaka, E. Agirre (2018). Generalizing and improving bilingual word embedding
    mappings with a multi-step framework of linear transformations. AAAI, Section 3 (step 4).
    """
    X, _ = _unwrap(X, "X")
    G, _ = _statistics(X)
    S = linalg.sym_power(G, 0.5)
    if rotation is None:
        return S
    xp = xb.get_namespace(S)
    R = xp.astype(_as_matrix(rotation, S, "rotation"), xp.float64)
    if R.shape != S.shape:
        raise ValueError(f"rotation must be {tuple(S.shape)}, got {tuple(R.shape)}")
    return xp.matrix_transpose(R) @ S @ R


def whiten(e, *, return_transform: bool = False):
    """Whiten: ``X·(XᵀX)^(-1/2)``, so that the result has ``YᵀY = I`` (VecMap STEP 1).

    Parameters
    ----------
    e : Embeddings or array, shape (n, d), with ``XᵀX`` non-singular
        The vectors to whiten.
    return_transform : bool
        Also return ``W`` (d×d, float64); held-out rows map as ``X_new @ W``.

    Returns
    -------
    result : Embeddings or array (the kind of ``e``), shape (n, d)
        The whitened vectors, in ``e``'s dtype.
    W : array, shape (d, d), float64
        Only with ``return_transform=True``.

    Raises
    ------
    ValueError
        ``XᵀX`` is singular, or ``e`` holds NaN or inf (the row is named).

    See Also
    --------
    whitening_transform : the matrix alone, e.g. estimated on dictionary rows only.
    dewhiten : the inverse step.
    """
    X, wrap = _unwrap(e)
    G, _ = _statistics(X, "vectors")
    W = linalg.sym_power(G, -0.5)
    out = wrap(_apply(X, W))
    return (out, W) if return_transform else out


def dewhiten(e, reference, *, rotation=None, return_transform: bool = False):
    """Undo whitening: ``X·Rᵀ(AᵀA)^(1/2)R`` with ``A`` the un-whitened ``reference`` (VecMap STEP 4).

    Parameters
    ----------
    e : Embeddings or array, shape (n, d)
        Whitened (and possibly rotated by ``R``) vectors.
    reference : Embeddings or array, shape (m, d)
        The vectors whose whitening is undone (VecMap: the source or target dictionary rows
        before whitening, per ``src_dewhiten``/``trg_dewhiten``).
    rotation : array, shape (d, d), optional
        The orthogonal map applied after whitening (VecMap's ``wx2`` or ``wz2``).
    return_transform : bool, default False
        Also return the d×d matrix applied; held-out rows map as ``X_new @ M``.

    Returns
    -------
    result : Embeddings or array (the kind of ``e``), shape (n, d)
        The de-whitened vectors, in ``e``'s dtype.
    M : array, shape (d, d), float64
        Only with ``return_transform=True``.

    Raises
    ------
    ValueError
        ``reference`` and ``e`` of different dimensions, a ``rotation`` that is not d×d, or NaN or
        inf in ``reference``.

    See Also
    --------
    dewhitening_transform : the matrix alone.
    whiten : the step this undoes.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(2).standard_normal((50, 4))
    >>> bool(np.allclose(dewhiten(whiten(X), X), X))
    True
    """
    X, wrap = _unwrap(e)
    A, _ = _unwrap(reference, "reference")
    if A.shape[1] != X.shape[1]:
        raise ValueError(f"reference has dimension {A.shape[1]} but e has {X.shape[1]}")
    M = _like(dewhitening_transform(A, rotation), X)
    out = wrap(_apply(X, M))
    return (out, M) if return_transform else out


def cross_covariance_svd(X, Z):
    """SVD ``XᵀZ = U·diag(s)·Vᵀ`` of the cross-covariance of aligned rows (VecMap STEP 2).

    ``XᵀZ`` is accumulated in float64 by :func:`embgeo.linalg.gram`. VecMap maps the source with
    ``U`` (its ``wx2``) and the target with ``V`` (``wz2``); ``s`` feeds :func:`reweight`.

    Parameters
    ----------
    X : array or Embeddings, shape (n, d1)
        Source rows (VecMap: the dictionary's source words, whitened).
    Z : array or Embeddings, shape (n, d2)
        Target rows aligned with ``X``.

    Returns
    -------
    U : array, shape (d1, k), float64
        Left singular vectors, k = min(d1, d2).
    s : array, shape (k,), float64
        Singular values, descending.
    Vt : array, shape (k, d2), float64
        Right singular vectors, transposed.

    Raises
    ------
    ValueError
        ``X`` and ``Z`` with different numbers of rows, or NaN or inf in either (the row is named).

    See Also
    --------
    reweight : the step that uses ``s``.

    References
    ----------
    M. Artetxe, G. Labaka, E. Agirre (2018). Generalizing and improving bilingual word embedding
    mappings with a multi-step framework of linear transformations. AAAI, Section 3 (step 2).
    """
    X, _ = _unwrap(X, "X")
    Z, _ = _unwrap(Z, "Z")
    if X.shape[0] != Z.shape[0]:
        raise ValueError(f"X and Z must hold aligned rows ({X.shape[0]} vs {Z.shape[0]})")
    xp = xb.get_namespace(X, Z)
    C = linalg.gram(X, Z)
    if not bool(xp.all(xp.isfinite(C))):
        xb.check_matrix(X, "X")
        xb.check_matrix(Z, "Z")
    return xp.linalg.svd(C, full_matrices=False)


def reweight(e, s, alpha: float):
    """Scale dimension ``j`` by ``s[j]**alpha`` (VecMap STEP 3, ``xw *= s**src_reweight``).

    In VecMap ``s`` are the singular values of the whitened cross-covariance
    (:func:`cross_covariance_svd`) and ``e`` has already been rotated into its singular basis
    (``X @ U``), so re-weighting by ``α = 0.5`` on each side splits ``diag(s)`` between the two
    languages. As a matrix it is ``diag(s^α)``; composed with the rotation, ``U·diag(s^α)``.

    Parameters
    ----------
    e : Embeddings or array, shape (n, d)
        The vectors, already in the singular basis.
    s : array, shape (d,), non-negative
        The weights (VecMap: singular values of the cross-covariance).
    alpha : float
        A zero entry of ``s`` gives 0 for ``α > 0`` and 1 for ``α = 0``; ``α < 0`` refuses it.

    Returns
    -------
    Embeddings or array (the kind of ``e``), shape (n, d)
        ``X · diag(s^α)``, in ``e``'s dtype.

    Raises
    ------
    TypeError
        ``alpha`` is not a real number.
    ValueError
        ``s`` of the wrong shape, negative or not finite; ``alpha`` not finite; ``alpha < 0``
        with a zero in ``s``.

    See Also
    --------
    cross_covariance_svd : where ``s`` comes from.

    References
    ----------
    M. Artetxe, G. Labaka, E. Agirre (2018). Generalizing and improving bilingual word embedding
    mappings with a multi-step framework of linear transformations. AAAI, Section 3 (step 3).
    """
    X, wrap = _unwrap(e)
    alpha = _check_alpha(alpha)
    s = np.asarray(xb.to_numpy(s), dtype=np.float64)
    if s.shape != (X.shape[1],):
        raise ValueError(f"s must have shape ({X.shape[1]},), got {s.shape}")
    if not np.all(np.isfinite(s)) or np.any(s < 0):
        raise ValueError("s must be finite and non-negative (singular values)")
    if alpha < 0 and np.any(s == 0):
        raise ValueError("s holds zeros: a negative reweighting power is undefined")
    scale = np.ones_like(s) if alpha == 0 else np.where(s == 0, 0.0, np.where(s == 0, 1.0, s) ** alpha)
    scale = xb.asarray(scale.reshape(1, -1), like=X, dtype=X.dtype)
    return wrap(X * scale)


# -------------------------------------------------------------------- PPA / ABTT
def _check_D(D, dim, what="dim"):
    if isinstance(D, bool) or not isinstance(D, (int, np.integer)):
        raise TypeError(f"D must be an integer, got {D!r}")
    D = int(D)
    if D < 0 or D >= dim:
        raise ValueError(f"D must satisfy 0 <= D < {what} ({dim}), got {D}")
    return D


def _remove_top(C, M, D):
    """Right-multiply ``M`` by ``I - UUᵀ``, ``U`` the top-D eigenvectors of ``MᵀCM`` (one PPA)."""
    xp = xb.get_namespace(C)
    if D == 0:
        return M
    _, V = _eigh_desc(xp.matrix_transpose(M) @ C @ M)
    U = V[:, :D]
    return M - (M @ U) @ xp.matrix_transpose(U)


_MEANS = ("vector", "scalar")


def _subtracted_mean(mu, mean):
    """What PPA subtracts: the mean vector, or (``"scalar"``) the grand mean in every coordinate."""
    if mean not in _MEANS:
        raise ValueError(f"mean must be one of {_MEANS}, got {mean!r}")
    if mean == "vector":
        return mu
    xp = xb.get_namespace(mu)
    return mu * 0 + xp.mean(mu)


def all_but_the_top(e, D: int, *, mean: str = "vector", return_transform: bool = False):
    """Post-processing "all-but-the-top" / PPA (Mu & Viswanath 2018, Algorithm 1).

    ``ṽ = v − μ``, then ``v' = ṽ − Σ_{i≤D} (u_iᵀṽ) u_i`` with ``u_1 … u_D`` the top principal
    directions of the centred vectors: ``X' = (X − 1μᵀ)(I − UUᵀ)``.

    Parameters
    ----------
    e : Embeddings or array, shape (n, d)
        The vectors (at least 2 rows).
    D : int, 0 <= D < d
        Number of dominating directions removed; the paper suggests about ``d/100``
        (D = 0 only centres).
    mean : {"vector", "scalar"}, default "vector"
        What is subtracted first. ``"vector"``: the mean vector μ, as Mu & Viswanath's Algorithm 1
        and Raunak et al. (2020)'s Algorithm 1 write it. ``"scalar"``: the grand mean
        ``np.mean(X)`` (one number) in every coordinate, as the scripts released with Raunak et
        al. (2019, 2020) (github.com/vyraun/dlp, ``X_train - np.mean(X_train)``) compute it; the
        directions ``u_i`` are the same (a scalar shift leaves the covariance unchanged), the
        output is then not centred: ``(X − m·1)(I − UUᵀ)``.
    return_transform : bool
        Also return the fitted :class:`AffineTransform` (apply it to held-out vectors).

    Returns
    -------
    result : Embeddings or array, shape (n, d)
        The post-processed vectors (the kind and dtype of ``e``).
    transform : AffineTransform
        Only with ``return_transform=True``.

    Raises
    ------
    TypeError
        ``D`` is not an integer.
    ValueError
        ``D`` outside [0, d), an unknown ``mean``, fewer than 2 rows, or NaN or inf in ``e``
        (the row is named).

    See Also
    --------
    ppa_pca_ppa : PPA around a PCA reduction.
    embgeo.pca.variance_profile : the variance of the directions removed.

    References
    ----------
    J. Mu, P. Viswanath (2018). All-but-the-Top: simple and effective postprocessing for word
    representations. ICLR. arXiv:1702.01417

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(3).standard_normal((200, 6)) * [5, 3, 1, 1, 1, 1]
    >>> Y = all_but_the_top(X, 2)
    >>> bool(np.allclose(Y.mean(axis=0), 0))
    True
    """
    X, wrap = _unwrap(e)
    D = _check_D(D, X.shape[1])
    C, mu = _centred_scatter(X, "vectors")
    xp = xb.get_namespace(C)
    M = _remove_top(C, xp.eye(X.shape[1], dtype=xp.float64), D)
    t = AffineTransform(M, _subtracted_mean(mu, mean))
    out = wrap(_apply(X, M, t.offset))
    return (out, t) if return_transform else out


def ppa_pca_ppa(e, dim: int, D: int, *, return_transform: bool = False):
    """PPA → PCA to ``dim`` → PPA (Raunak, Gupta & Metze 2019, Algorithm 2).

    1. :func:`all_but_the_top` with ``D`` on the d-dimensional vectors;
    2. PCA (centred) to ``dim`` dimensions;
    3. :func:`all_but_the_top` with ``D`` again on the reduced vectors.

    All three steps are affine, so the whole chain is one map ``x ↦ (x − μ)·M`` with ``M`` of
    shape (d, dim). It is computed from the d×d covariance alone: the covariance after each step is
    ``MᵀCM`` (and the mean is 0 after the first step), so the data are read once for ``XᵀX``
    and once more for the output.

    Parameters
    ----------
    e : Embeddings or array, shape (n, d)
        The vectors (at least 2 rows).
    dim : int, 1 <= dim <= d
        Output dimension (the paper halves it: 300 → 150).
    D : int, 0 <= D < dim
        Directions removed by each PPA step (the paper uses 7 for 300-d vectors).
    return_transform : bool
        Also return the fitted :class:`AffineTransform` (d → dim).

    Returns
    -------
    result : Embeddings or array (the kind of ``e``), shape (n, dim)
        The reduced vectors, in ``e``'s dtype.
    transform : AffineTransform
        Only with ``return_transform=True``.

    Raises
    ------
    TypeError
        ``D`` is not an integer.
    ValueError
        ``dim`` not an integer in [1, d], ``D`` outside [0, dim), fewer than 2 rows, or NaN or inf
        in ``e`` (the row is named).

    See Also
    --------
    all_but_the_top : one PPA step.

    Notes
    -----
    After step 2 the coordinates are principal components, whose covariance is diagonal; so
    step 3 removes (sets to ≈0) the ``D`` leading output columns, leaving ``dim − D`` informative
    columns, exactly as the algorithm states. The authors' released script (``algo.py`` in
    github.com/vyraun/dlp) subtracts the scalar grand mean ``np.mean(X)`` where the paper
    subtracts the mean vector, but for this chain the two agree: its step 2 is scikit-learn's
    ``PCA.fit_transform``, which centres by the mean vector, and the data entering step 3 are then
    centred (``tests/test_ppa.py`` checks the released recipe step by step). Only a standalone
    PPA differs; see ``mean=`` of :func:`all_but_the_top`.

    References
    ----------
    V. Raunak, V. Gupta, F. Metze (2019). Effective dimensionality reduction for word embeddings.
    Proceedings of the 4th Workshop on Representation Learning for NLP (RepL4NLP), pp. 235–243.
    doi:10.18653/v1/W19-4328
    """
    X, wrap = _unwrap(e)
    d = X.shape[1]
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or not 1 <= int(dim) <= d:
        raise ValueError(f"dim must be an integer with 1 <= dim <= {d}, got {dim!r}")
    dim = int(dim)
    D = _check_D(D, dim, "dim")
    C, mu = _centred_scatter(X, "vectors")
    xp = xb.get_namespace(C)
    M = _remove_top(C, xp.eye(d, dtype=xp.float64), D)
    _, V = _eigh_desc(xp.matrix_transpose(M) @ C @ M)
    M = M @ V[:, :dim]
    M = _remove_top(C, M, D)
    t = AffineTransform(M, mu)
    out = wrap(_apply(X, M, t.offset))
    return (out, t) if return_transform else out


# ------------------------------------------------------------------ normalisations
# :func:`embgeo.normalize.normalize` (Embeddings or arrays) is the one definition; these name its steps
def unit(e):
    """Rows to unit length (VecMap ``unit``): ``embgeo.normalize.normalize(e, "unit")``.

    Parameters
    ----------
    e : Embeddings or array, shape (n, d)
        The vectors; a zero row stays zero.

    Returns
    -------
    Embeddings or array (the kind of ``e``), shape (n, d)
        A new object; ``e`` is unchanged.

    Raises
    ------
    ValueError
        An array that is not 2-D.

    See Also
    --------
    embgeo.normalize.normalize : the one definition of the steps, chainable.
    """
    return _normalize(e, "unit")


def center(e):
    """Subtract the mean vector (VecMap ``center``): ``embgeo.normalize.normalize(e, "center")``.

    Parameters
    ----------
    e : Embeddings or array, shape (n, d)
        The vectors; the mean is taken over all their rows.

    Returns
    -------
    Embeddings or array (the kind of ``e``), shape (n, d)
        A new object; ``e`` is unchanged.

    Raises
    ------
    ValueError
        An array that is not 2-D.

    See Also
    --------
    embgeo.normalize.Normalizer : the mean fitted once and reused on held-out rows.
    """
    return _normalize(e, "center")


def unitdim(e):
    """Columns to unit length (VecMap ``unitdim``): ``embgeo.normalize.normalize(e, "unitdim")``.

    Parameters
    ----------
    e : Embeddings or array, shape (n, d)
        The vectors; a zero column stays zero.

    Returns
    -------
    Embeddings or array (the kind of ``e``), shape (n, d)
        A new object; ``e`` is unchanged.

    Raises
    ------
    ValueError
        An array that is not 2-D.

    See Also
    --------
    embgeo.normalize.normalize : the one definition of the steps, chainable.
    """
    return _normalize(e, "unitdim")


def centeremb(e):
    """Subtract each vector's own mean over its dimensions (VecMap ``centeremb``).

    The same as ``embgeo.normalize.normalize(e, "centeremb")``.

    Parameters
    ----------
    e : Embeddings or array, shape (n, d)
        The vectors.

    Returns
    -------
    Embeddings or array (the kind of ``e``), shape (n, d)
        A new object whose rows each sum to 0; ``e`` is unchanged.

    Raises
    ------
    ValueError
        An array that is not 2-D.

    See Also
    --------
    embgeo.normalize.normalize : the one definition of the steps, chainable.
    """
    return _normalize(e, "centeremb")
