"""Orthogonal (and semi-orthogonal) Procrustes maps and the shared space they define."""
from __future__ import annotations

import numpy as np

from .. import backend as xb
from ..linalg import gram
from ..normalize import normalize
from ._dictionaries import _matrix, dictionary_indices


def procrustes(X, Z, pairs=None, *, check_finite: bool = True):
    """Orthogonal Procrustes map W = UVᵀ with UΣVᵀ = SVD(X_Dᵀ Z_D).

    With d_s = d_t, W is the orthogonal matrix minimising ‖X_D W − Z_D‖_F (Schönemann 1966;
    Xing et al. 2015; Smith et al. 2017, eq. 3; Conneau et al. 2018, eq. 2). With d_s < d_t it
    minimises it over maps with orthonormal rows (W Wᵀ = I keeps ‖X_D W‖ = ‖X_D‖ constant). With
    d_s > d_t it maximises tr(Wᵀ X_Dᵀ Z_D) over maps with orthonormal columns, which is *not* the
    distance minimiser (‖X_D W‖ then depends on W; that "projection Procrustes" problem has no
    closed form): VecMap, MUSE and this function use UVᵀ, the alignment (sum of dot products)
    optimum.

    Parameters
    ----------
    X : array (n_s, d_s) or Embeddings
        Source vectors.
    Z : array (n_t, d_t) or Embeddings
        Target vectors.
    pairs : optional
        The dictionary D: word pairs (with Embeddings; OOV pairs are skipped) or an int array of
        (source_row, target_row) pairs. ``None`` means the rows of X and Z are aligned.
    check_finite : bool
        Refuse NaN/inf.

    Returns
    -------
    W : array (d_s, d_t), dtype of X
        ``X @ W`` lies in the target space.

    Notes
    -----
    With d_s = d_t W is orthogonal and SciPy's :func:`scipy.linalg.orthogonal_procrustes` computes
    it (NumPy inputs). With d_s ≠ d_t the thin SVD gives a *semi-orthogonal* W (r = min(d_s, d_t)):
    for d_s < d_t, W Wᵀ = I, so x ↦ xW is an isometry of the source into an r-dimensional subspace
    of the target space (the target keeps its d_t - r other directions); for d_s > d_t, WᵀW = I and
    W projects the source onto r directions that maximise the summed dot products with the target
    (see above: not the least-squares fit). XᵀZ is accumulated in
    float64 (:func:`embgeo.linalg.gram`), so memory is O(d_s d_t) beyond the dictionary rows.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 5))
    >>> Q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    >>> np.allclose(procrustes(X, X @ Q), Q)
    True
    """
    Xd, Zd = _dictionary_rows(X, Z, pairs, check_finite)
    xp = xb.get_namespace(Xd, Zd)
    dt = Xd.dtype
    if xb.is_numpy(Xd) and xb.is_numpy(Zd) and Xd.shape[1] == Zd.shape[1]:
        from scipy.linalg import orthogonal_procrustes

        W, _ = orthogonal_procrustes(Xd.astype(np.float64), Zd.astype(np.float64), check_finite=False)
        return W.astype(dt)
    M = gram(Xd, Zd)
    U, _, Vt = xp.linalg.svd(M, full_matrices=False)
    return xp.astype(U @ Vt, dt)


def _dictionary_rows(X, Z, pairs, check_finite=True):
    """The aligned dictionary matrices X_D, Z_D."""
    if pairs is None:
        Xm, Zm = _matrix(X, "X"), _matrix(Z, "Z")
        if Xm.shape[0] != Zm.shape[0]:
            raise ValueError(f"without pairs, X and Z must have the same number of rows "
                             f"({Xm.shape[0]} vs {Zm.shape[0]})")
        Xd, Zd = Xm, Zm
    else:
        si, ti = dictionary_indices(X, Z, pairs)
        Xd, Zd = xb.take_rows(_matrix(X, "X"), si), xb.take_rows(_matrix(Z, "Z"), ti)
    if check_finite:
        Xd, Zd = xb.check_matrix(Xd, "X_D"), xb.check_matrix(Zd, "Z_D")
    return Xd, Zd


def _shared_space(X, Z, W):
    """Rows of X and Z compared in the shared space of a (semi-)orthogonal W.

    With equal dimensions this is VecMap's (XW, Z). With d_s < d_t the target is projected onto the
    source's subspace instead, (xW)·z = x·(zWᵀ), so a 50d source against a 300d target costs a 50d
    GEMM; as the projection (or, for d_s > d_t, the map) drops part of a vector, the projected rows
    are re-normalised so that dot products remain cosines.
    """
    xp = xb.get_namespace(X)
    if W.shape[0] < W.shape[1]:
        return X, normalize(Z @ xp.matrix_transpose(W), "unit")
    if W.shape[0] > W.shape[1]:
        return normalize(X @ W, "unit"), Z
    return X @ W, Z
