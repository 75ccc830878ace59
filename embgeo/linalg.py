"""Small dense linear algebra shared by the methods: blocked Gram matrices and SPD matrix powers.

Vocabulary-wide methods (post-processing, PCA, meta-embeddings, mapping) depend on the data only
through d×d products such as XᵀX or XᵀZ. :func:`gram` accumulates them over blocks of rows in
float64, so the extra memory is O(block·d + d²) whatever the vocabulary size. Given a dask array
(e.g. an :class:`~embgeo.embeddings.Embeddings` holding one), the products are summed chunk by
chunk by dask — on the workers of the current ``dask.distributed`` client when there is one — and
only the d×d result comes back.
"""
from __future__ import annotations

import weakref

import numpy as np

from . import backend as xb
from . import blocking

__all__ = ["gram", "sym_power", "checked_gram", "centred_scatter", "eigh_desc", "apply_matrix", "unit_rows",
           "inverse_norms", "cached_inverse_norms", "derived"]


def gram(X, Z=None, *, block_rows: int | None = None, dtype="float64", memory_budget: int | None = None):
    """``XᵀZ`` (or ``XᵀX``), accumulated blockwise over rows in float64.

    Parameters
    ----------
    X : array, shape (n, d1)
    Z : array, shape (n, d2), optional
        Defaults to ``X``.
    block_rows : int, optional
        Rows per block; each block is cast to float64 before its product. By default the float64
        blocks of ``X`` and ``Z`` together fit ``memory_budget``, at most
        :data:`~embgeo.blocking.PASS_ROWS` rows.
    dtype : str or dtype, default "float64"
        The accumulation (and result) dtype.
    memory_budget : int, optional
        Bytes for the float64 blocks (default :data:`~embgeo.blocking.DEFAULT_MEMORY_BUDGET`).

    Returns
    -------
    G : array, shape (d1, d2), float64 (same array library as ``X``)
        The product; NumPy for dask input (computed, on the current client if there is one).

    Raises
    ------
    ValueError
        ``X`` or ``Z`` not 2-D, or different numbers of rows.

    See Also
    --------
    checked_gram : ``XᵀX`` with a finiteness check that names the bad row.
    """
    xp = xb.get_namespace(X, Z)
    if X.ndim != 2 or (Z is not None and Z.ndim != 2):
        raise ValueError("gram expects 2-D matrices")
    if Z is not None and Z.shape[0] != X.shape[0]:
        raise ValueError(f"X and Z must have the same number of rows ({X.shape[0]} vs {Z.shape[0]})")
    dt = xb.resolve_dtype(dtype, xp)
    if xb.is_dask(X) or xb.is_dask(Z):
        # d1 × d2 is small: dask sums the per-chunk products in a tree (on the current
        # dask.distributed client, if any) and the result comes back as NumPy, so the
        # eigendecompositions that follow run here
        import dask.array as da

        Xd = da.asarray(X).astype(dt)
        return np.asarray((Xd.T @ (Xd if Z is None else da.asarray(Z).astype(dt))).compute())
    n = X.shape[0]
    d2 = X.shape[1] if Z is None else Z.shape[1]
    if block_rows is None:
        width = X.shape[1] + (0 if Z is None else d2)
        block_rows = blocking.block_rows(width, 8, memory_budget, maximum=blocking.PASS_ROWS)
    G = xp.zeros((X.shape[1], d2), dtype=dt, device=xb.device(X))
    for s in range(0, n, int(block_rows)):
        e = min(s + int(block_rows), n)
        Xb = xp.astype(X[s:e, ...], dt)
        Zb = Xb if Z is None else xp.astype(Z[s:e, ...], dt)
        G = G + xp.matrix_transpose(Xb) @ Zb
        del Xb, Zb  # else the next block is allocated while this one is still held: twice the budget
    return G


def sym_power(S, power: float, *, eps: float | None = None):
    """``S**power`` for a symmetric positive semi-definite matrix via its eigendecomposition.

    Eigenvalues below ``eps`` (default: ``max_eig * d * machine epsilon``) are treated as zero:
    they stay zero for positive powers and raise ``ValueError`` for negative ones, whose result
    would otherwise be silently huge.

    Parameters
    ----------
    S : array, shape (d, d)
        Symmetric positive semi-definite (symmetrised as ``(S + Sᵀ)/2`` first).
    power : float
        The exponent, e.g. −0.5 for whitening.
    eps : float, optional
        Eigenvalues ``<= eps`` count as zero.

    Returns
    -------
    array, shape (d, d)
        ``Q · diag(w^power) · Qᵀ``, in ``S``'s library and dtype.

    Raises
    ------
    ValueError
        ``S`` is not square, or ``power < 0`` with a (numerically) zero eigenvalue.

    See Also
    --------
    eigh_desc : the eigendecomposition, eigenvalues descending.
    """
    xp = xb.get_namespace(S)
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


# ----------------------------------------------------------- shared plumbing of the d×d methods
def checked_gram(X, name: str = "X", *, mean: bool = False):
    """Float64 ``XᵀX`` (and the mean row if ``mean``), validated for NaN/inf on the d×d result.

    Checking finiteness on the Gram matrix costs O(d²) instead of an n×d mask; only when it fails
    is the bad row located, so that the message can name it.

    Parameters
    ----------
    X : array, shape (n, d)
        The vectors (NumPy, CuPy, array-API or dask).
    name : str, default "X"
        What the error message calls ``X``.
    mean : bool, default False
        Also return the mean row.

    Returns
    -------
    G : (d, d) float64
        ``XᵀX``.
    mu : (d,) float64 or None
        The mean row, or None without ``mean``.

    Raises
    ------
    ValueError
        ``X`` holds NaN or inf (the first bad row is named), or its Gram matrix overflows float64.

    See Also
    --------
    gram : the unchecked product.
    centred_scatter : the centred form.
    """
    G = gram(X)
    xp = xb.get_namespace(G)
    mu = None
    if mean:
        mu = xb.get_namespace(X).sum(X, axis=0, dtype=xp.float64) / X.shape[0]
        mu = np.asarray(mu.compute()) if xb.is_dask(mu) else mu
    if not bool(xp.all(xp.isfinite(G))) or (mean and not bool(xp.all(xp.isfinite(mu)))):
        xb.check_matrix(X, name)  # raises, naming the first bad row
        raise ValueError(f"{name} is too large: its Gram matrix overflows float64")
    return G, mu


def centred_scatter(X, name: str = "X"):
    """``Σ(x−μ)(x−μ)ᵀ = XᵀX − n μμᵀ`` in float64, and μ; no centred copy of X is made.

    Parameters
    ----------
    X : array, shape (n, d)
        The vectors, at least 2 rows.
    name : str, default "X"
        What the error messages call ``X``.

    Returns
    -------
    C : array, shape (d, d), float64
        The scatter matrix (n times the biased covariance).
    mu : array, shape (d,), float64
        The mean row.

    Raises
    ------
    ValueError
        ``X`` has fewer than 2 rows: one vector centred is zero, so its scatter holds no direction
        (PCA, PPA and all-but-the-top would return zeros); or NaN or inf in ``X`` (the row is
        named).

    See Also
    --------
    checked_gram : the uncentred product.
    """
    if X.shape[0] < 2:
        raise ValueError(f"{name} has {X.shape[0]} row(s): principal directions need at least 2 vectors "
                         "(a single vector minus its mean is zero)")
    G, mu = checked_gram(X, name, mean=True)
    xp = xb.get_namespace(G)
    m = xp.reshape(mu, (-1, 1))
    return G - X.shape[0] * (m @ xp.matrix_transpose(m)), mu


def eigh_desc(S):
    """Eigenvalues (descending) and eigenvectors of a symmetric matrix (symmetrised first).

    Parameters
    ----------
    S : array, shape (d, d)
        A symmetric matrix; ``(S + Sᵀ)/2`` is decomposed.

    Returns
    -------
    w : array, shape (d,)
        Eigenvalues, largest first.
    Q : array, shape (d, d)
        The matching eigenvectors, as columns.

    See Also
    --------
    sym_power : a matrix power from the same decomposition.

    Examples
    --------
    >>> import numpy as np
    >>> w, Q = eigh_desc(np.diag([1.0, 3.0, 2.0]))
    >>> w.tolist()
    [3.0, 2.0, 1.0]
    """
    xp = xb.get_namespace(S)
    w, Q = xp.linalg.eigh((S + xp.matrix_transpose(S)) / 2)
    return xp.flip(w), xp.flip(Q, axis=1)


def apply_matrix(X, M, offset=None):
    """``X @ M − offset`` in X's dtype: one GEMM, no float64 copy of X.

    The result is the only n-sized allocation.

    Parameters
    ----------
    X : array, shape (n, d)
        The vectors (NumPy, CuPy, array-API, or dask: then mapped lazily over the chunks).
    M : array, shape (d, k)
        The matrix (cast to ``X``'s dtype).
    offset : array, shape (k,), optional
        Subtracted from every row of the product.

    Returns
    -------
    array, shape (n, k)
        In ``X``'s library and dtype.
    """
    if xb.is_dask(X):
        # fitted d×d statistics come back as NumPy (see gram); dask maps them over the chunks lazily
        Y = X @ np.asarray(xb.to_numpy(M), dtype=X.dtype)
        if offset is not None:
            Y = Y - np.asarray(xb.to_numpy(offset), dtype=X.dtype).reshape(1, -1)
        return Y
    xp = xb.get_namespace(X)
    Y = X @ xp.astype(M, X.dtype)
    if offset is not None:
        off = xp.astype(xp.reshape(offset, (1, -1)), X.dtype)
        if xb.is_numpy(Y):
            Y -= off  # Y is ours: save an n×k temporary
        else:
            Y = Y - off
    return Y


def unit_rows(B):
    """``B`` with every row (last axis) divided by its Euclidean norm; a zero row stays zero.

    The one row normalisation of embgeo, for a block already in memory (in ``B``'s array library
    and dtype: pass float64 for float64 accuracy). :func:`embgeo.normalize.normalize` applies it
    block by block for ``"unit"``; a zero norm divides by one, VecMap's rule.

    Parameters
    ----------
    B : array, shape (..., d)
        The rows.

    Returns
    -------
    array, shape (..., d)
        A new array in ``B``'s library and dtype.

    See Also
    --------
    inverse_norms : the inverse norms alone, without a copy of the matrix.

    Examples
    --------
    >>> import numpy as np
    >>> unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    xp = xb.get_namespace(B)
    norms = xp.sqrt(xp.sum(B * B, axis=-1, keepdims=True))
    return B / xp.where(norms == 0, xp.ones_like(norms), norms)


def inverse_norms(X, name: str = "database", *, check_finite: bool = True, memory_budget: int | None = None):
    """1/‖x‖ of every row of ``X`` (0 for a zero row), read block by block.

    What cosine search keeps instead of a unit-length copy of the matrix: n numbers, so a large
    or memory-mapped ``X`` is never copied. Squares are summed in float64 over blocks of rows
    (NumPy: without a float64 copy of the block; other libraries: a float64 copy of one block).
    A pass this cheap gains nothing from big blocks: they take a sixteenth of ``memory_budget``
    (16 MiB by default), at most :data:`~embgeo.blocking.PASS_ROWS` rows.

    Peak memory (NumPy): the output (n numbers of ``X``'s dtype) and about 20 bytes per row of
    one block, computed in place.

    Parameters
    ----------
    X : array (n, d)
        NumPy (memory-mapped too), CuPy or array-API.
    name : str
        Used in the error message.
    check_finite : bool
        Refuse rows with NaN or inf (the pass is needed anyway, so the check is free).
    memory_budget : int, optional
        Bytes (default :data:`~embgeo.blocking.DEFAULT_MEMORY_BUDGET`); results do not depend on it.

    Returns
    -------
    array (n,), ``X``'s library and dtype

    Raises
    ------
    ValueError
        A row holds NaN or inf (the first such row is named).

    Examples
    --------
    >>> import numpy as np
    >>> inverse_norms(np.array([[3., 4.], [0., 0.]], dtype=np.float32)).tolist()
    [0.20000000298023224, 0.0]
    """
    xp = xb.get_namespace(X)
    n, d = X.shape
    is_np = xb.is_numpy(X)
    # NumPy sums squares in float64 through einsum's small cast buffer; other libraries
    # convert a block to float64, which the block size bounds
    step = blocking.block_rows(d, 1 if is_np else 16, blocking.share(memory_budget, 16),
                               maximum=blocking.PASS_ROWS)
    if is_np:
        # written block by block into the output: no list of parts and no concatenated copy
        out = np.empty(n, dtype=X.dtype)
        for s, e in blocking.row_blocks(n, step):
            B = X[s:e]
            sq = np.einsum("ij,ij->i", B, B, dtype=np.float64)
            if not np.all(np.isfinite(sq)):
                bad = np.flatnonzero(~np.isfinite(sq))
                if check_finite:
                    for r in bad:  # a float64 row may overflow its sum of squares without holding inf
                        if not np.all(np.isfinite(B[int(r)])):
                            raise ValueError(f"{name} holds NaN or inf (first at row {s + int(r)})")
                sq[bad] = np.inf
            norm = np.sqrt(sq, out=sq)
            norm[norm == 0] = np.inf  # a zero row gets 1/inf = 0
            out[s:e] = np.divide(1.0, norm, out=norm)
        return out
    parts = []
    for s, e in blocking.row_blocks(n, step):
        B = xp.astype(X[s:e, ...], xp.float64)
        sq = xp.sum(B * B, axis=1)
        if check_finite and not bool(xp.all(xp.isfinite(sq))):
            bad = np.flatnonzero(~np.isfinite(xb.to_numpy(sq)))
            for r in bad:  # a float64 row may overflow its sum of squares without holding inf
                if not bool(xp.all(xp.isfinite(B[int(r), ...]))):
                    raise ValueError(f"{name} holds NaN or inf (first at row {s + int(r)})")
            sq = xp.where(xp.isfinite(sq), sq, xp.asarray(xp.inf, dtype=xp.float64, device=xb.device(X)))
        norm = xp.sqrt(sq)
        inv = xp.where(norm > 0, 1.0 / xp.where(norm > 0, norm, 1.0), xp.asarray(0.0, dtype=xp.float64, device=xb.device(X)))
        parts.append(xp.astype(inv, X.dtype))
    if not parts:
        return xp.zeros((0,), dtype=X.dtype, device=xb.device(X))
    return parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)


_DERIVED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def derived(e, key, compute):
    """``compute()``, computed once per ``(e, key)`` and kept beside ``e`` (dropped with it).

    How embgeo keeps what it derives from an :class:`~embgeo.embeddings.Embeddings`' vectors
    (inverse norms, screening and FAISS indexes) without a reference that would keep ``e`` alive.

    Parameters
    ----------
    e : object
        The owner (weakly referenced), usually an :class:`~embgeo.embeddings.Embeddings`.
    key : hashable
        Names the thing and its parameters.
    compute : callable
        Called without arguments, on the first request for ``(e, key)`` only.

    Returns
    -------
    object
        What ``compute()`` returned, the first time or now.
    """
    per = _DERIVED.setdefault(e, {})
    if key not in per:
        per[key] = compute()
    return per[key]


def cached_inverse_norms(e, memory_budget: int | None = None):
    """:func:`inverse_norms` of an :class:`~embgeo.embeddings.Embeddings`' vectors, computed once.

    Kept beside the Embeddings (and dropped with it): n numbers, where a unit-length copy
    (``e.unit_vectors``) would cost the whole matrix again.

    Parameters
    ----------
    e : Embeddings
        The vectors.
    memory_budget : int, optional
        Bytes for the pass that computes them (the first call's); the numbers do not depend on it.

    Returns
    -------
    array, shape (n,)
        1/‖x‖ of every row (0 for a zero row), in the library and dtype of ``e.vectors``.

    Raises
    ------
    ValueError
        ``e`` holds NaN or inf (the word is named).
    """
    # the pass below would not say which word is non-finite: Embeddings.check_finite does (once per object)
    e.check_finite()
    return derived(e, "inverse_norms", lambda: inverse_norms(e.vectors, "vectors", check_finite=False,
                                                             memory_budget=memory_budget))
