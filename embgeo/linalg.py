"""Small dense linear algebra shared by the methods: blocked Gram matrices and SPD matrix powers.

Vocabulary-wide methods (post-processing, meta-embeddings, mapping) depend on the data only
through d×d products such as XᵀX or XᵀZ. :func:`gram` accumulates them over blocks of rows in
float64, so the extra memory is O(block·d + d²) whatever the vocabulary size.
"""
from __future__ import annotations

from . import backend

__all__ = ["gram", "sym_power", "DEFAULT_BLOCK_ROWS"]

DEFAULT_BLOCK_ROWS = 65536


def gram(X, Z=None, *, block_rows: int = DEFAULT_BLOCK_ROWS, dtype="float64"):
    """``XᵀZ`` (or ``XᵀX``), accumulated blockwise over rows in float64.

    Parameters
    ----------
    X : array, shape (n, d1)
    Z : array, shape (n, d2), optional
        Defaults to ``X``.
    block_rows : int
        Rows per block; each block is cast to float64 before its product.

    Returns
    -------
    G : array, shape (d1, d2), float64 (same array library as ``X``)
    """
    xp = backend.get_namespace(X, Z)
    if X.ndim != 2 or (Z is not None and Z.ndim != 2):
        raise ValueError("gram expects 2-D matrices")
    if Z is not None and Z.shape[0] != X.shape[0]:
        raise ValueError(f"X and Z must have the same number of rows ({X.shape[0]} vs {Z.shape[0]})")
    dt = backend.resolve_dtype(dtype, xp)
    n = X.shape[0]
    d2 = X.shape[1] if Z is None else Z.shape[1]
    G = xp.zeros((X.shape[1], d2), dtype=dt)
    for s in range(0, n, int(block_rows)):
        e = min(s + int(block_rows), n)
        Xb = xp.astype(X[s:e, ...], dt)
        Zb = Xb if Z is None else xp.astype(Z[s:e, ...], dt)
        G = G + xp.matrix_transpose(Xb) @ Zb
    return G


def sym_power(S, power: float, *, eps: float | None = None):
    """``S**power`` for a symmetric positive semi-definite matrix via its eigendecomposition.

    Eigenvalues below ``eps`` (default: ``max_eig * d * machine epsilon``) are treated as zero:
    they stay zero for positive powers and raise ``ValueError`` for negative ones, whose result
    would otherwise be silently huge.
    """
    xp = backend.get_namespace(S)
    S = xp.asarray(S)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise ValueError(f"sym_power expects a square matrix, got shape {tuple(S.shape)}")
    S = (S + xp.matrix_transpose(S)) / 2
    w, Q = xp.linalg.eigh(S)
    finfo = xp.finfo(S.dtype)
    tol = eps if eps is not None else float(xp.max(xp.abs(w))) * S.shape[0] * float(finfo.eps)
    small = w <= tol
    if power < 0 and bool(xp.any(small)):
        raise ValueError(
            f"matrix is singular (an eigenvalue <= {tol:.3g}); a negative power of it is undefined"
        )
    wp = xp.where(small, xp.zeros_like(w), xp.where(small, xp.ones_like(w), w) ** power)
    return (Q * xp.reshape(wp, (1, -1))) @ xp.matrix_transpose(Q)
