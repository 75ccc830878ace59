"""Argument checks shared across embgeo.

A lower layer than :mod:`embgeo.neighbors` and the methods that select their own top-k, so all
can use the same checks: ``k`` against the candidates left, per-query exclusion lists normalised
to CSR form.
"""
from __future__ import annotations

import numpy as np

from . import backend as xb

__all__ = ["check_k", "exclusion_csr", "max_excluded", "mask_excluded", "collection_input_tags"]


def check_k(k, n_candidates: int) -> int:
    """``k`` as an int, checked to lie in 1 … ``n_candidates``.

    Parameters
    ----------
    k : int
        The requested number of neighbours (a Python or NumPy integer).
    n_candidates : int
        The rows a query may still return (database rows less its exclusions).

    Returns
    -------
    int
        ``k``.

    Raises
    ------
    TypeError
        ``k`` is not an integer (bools are refused).
    ValueError
        ``k`` < 1, or more than the candidates.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer, got {type(k).__name__}")
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if k > n_candidates:
        raise ValueError(f"k={k} exceeds the {n_candidates} candidates in the database")
    return k


def exclusion_csr(exclude, n_queries: int, n_database: int, offset: int | None = None):
    """Normalise ``exclude`` to CSR arrays ``(ptr, idx)``: sorted, unique columns per query.

    Parameters
    ----------
    exclude : None, int array (q,), int array (q, m), or a sequence of q ints / int sequences
        Database rows never to return, per query; negative entries (e.g. -1 padding or the
        "missing word" mark of :meth:`Embeddings.indices`) are ignored.
    n_queries, n_database : int
    offset : int, optional
        The database is rows ``offset … offset + n_database − 1`` of a larger one (a shard) and
        ``exclude`` holds rows of the larger one: they are shifted to the shard, and rows outside
        it are ignored instead of refused.

    Returns
    -------
    (ptr, idx) : int64 arrays of length q + 1 and nnz, or None when nothing is excluded.

    Raises
    ------
    ValueError
        Wrong number of rows, or (without ``offset``) a column outside the database.

    Examples
    --------
    >>> ptr, idx = exclusion_csr([[2, 0, 2], 1], 2, 5)
    >>> ptr.tolist(), idx.tolist()
    ([0, 2, 3], [0, 2, 1])
    """
    if exclude is None:
        return None
    if isinstance(exclude, (list, tuple)):
        if len(exclude) != n_queries:
            raise ValueError(f"exclude has {len(exclude)} rows for {n_queries} queries")
        if all(isinstance(r, (int, np.integer)) for r in exclude):
            arr = np.asarray(exclude, dtype=np.int64).reshape(-1, 1)
        else:
            parts = [np.atleast_1d(np.asarray(xb.to_numpy(r), dtype=np.int64)).ravel() for r in exclude]
            lens = np.fromiter((p.size for p in parts), dtype=np.int64, count=len(parts))
            rows = np.repeat(np.arange(n_queries, dtype=np.int64), lens)
            cols = np.concatenate(parts) if parts else np.zeros(0, np.int64)
            return _csr_from_pairs(rows, cols, n_queries, n_database, offset)
    else:
        arr = np.asarray(xb.to_numpy(exclude))
        if arr.dtype.kind not in "iu":
            raise TypeError(f"exclude must hold integer row indices, got dtype {arr.dtype}")
        arr = arr.astype(np.int64, copy=False)
        if arr.ndim == 1:
            arr = arr.reshape(-1, 1)
        if arr.ndim != 2:
            raise ValueError(f"exclude must be 1-D or 2-D, got ndim={arr.ndim}")
    if arr.shape[0] != n_queries:
        raise ValueError(f"exclude has {arr.shape[0]} rows for {n_queries} queries")
    rows = np.repeat(np.arange(n_queries, dtype=np.int64), arr.shape[1])
    return _csr_from_pairs(rows, arr.ravel(), n_queries, n_database, offset)


def _csr_from_pairs(rows, cols, n_queries, n_database, offset=None):
    keep = cols >= 0
    rows, cols = rows[keep], cols[keep]
    if offset is not None:
        cols = cols - int(offset)
        keep = (cols >= 0) & (cols < n_database)
        rows, cols = rows[keep], cols[keep]
    if cols.size and int(cols.max()) >= n_database:
        raise ValueError(f"exclude holds row {int(cols.max())} but the database has {n_database} rows")
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    if cols.size > 1:
        dup = np.zeros(cols.size, dtype=bool)
        dup[1:] = (rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1])
        rows, cols = rows[~dup], cols[~dup]
    ptr = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_queries), out=ptr[1:])
    return ptr, np.ascontiguousarray(cols)


def max_excluded(ex) -> int:
    """Most columns excluded for one query in CSR exclusions ``ex`` (0 for None).

    Parameters
    ----------
    ex : (ptr, idx) or None
        Exclusions as :func:`exclusion_csr` returns them.

    Returns
    -------
    int
        The largest number of excluded rows of any query: the k of a search must leave room for them.
    """
    return 0 if ex is None or ex[0].size < 2 else int(np.diff(ex[0]).max())


def mask_excluded(S, rows, cols, *, in_place: bool = False):
    """``S`` with the entries ``(rows[j], cols[j])`` set to −inf, so that no selection picks them.

    Parameters
    ----------
    S : array, shape (q, n)
        A block of scores, of any array library.
    rows, cols : NumPy int arrays of equal length
        Positions within the block.
    in_place : bool
        Write into ``S`` (NumPy only; the caller owns the block) instead of returning a new array.

    Returns
    -------
    array, shape (q, n)
        ``S`` itself (``in_place``, or nothing to mask) or a new array in its library.

    See Also
    --------
    exclusion_csr : per-query exclusions, whose pairs this masks block by block.

    Examples
    --------
    >>> import numpy as np
    >>> mask_excluded(np.zeros((2, 3)), np.array([0, 1]), np.array([2, 0])).tolist()
    [[0.0, 0.0, -inf], [-inf, 0.0, 0.0]]
    """
    if cols.size == 0:
        return S
    if in_place:
        S[rows, cols] = -np.inf
        return S
    xp = xb.get_namespace(S)
    mask = np.zeros(tuple(S.shape), dtype=bool)
    mask[rows, cols] = True
    dev = xb.device(S)
    return xp.where(xp.asarray(mask, device=dev), xp.asarray(-xp.inf, dtype=S.dtype, device=dev), S)


def collection_input_tags(tags):
    """scikit-learn tags of a transformer fitted on a *collection* of spaces, not on one 2-D ``X``.

    :class:`~embgeo.meta.GeometricMetaEmbedding` (a list of aligned sources) and
    :class:`~embgeo.crosslingual.MultilingualMapper` (a dict of spaces) are such transformers: no
    2-D array input, so scikit-learn's array checks cannot apply; no NaN; no target; the output
    keeps float32 or float64.

    Parameters
    ----------
    tags : sklearn.utils.Tags
        The estimator's ``super().__sklearn_tags__()``; it is changed in place.

    Returns
    -------
    sklearn.utils.Tags
        ``tags``, changed.
    """
    tags.input_tags.two_d_array = False
    tags.input_tags.allow_nan = False
    tags.target_tags.required = False
    tags.transformer_tags.preserves_dtype = ["float32", "float64"]
    return tags
