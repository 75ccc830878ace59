"""Merging ranked lists: the one place where per-shard top-k lists become one.

Exact search over row shards (threads, the Dask workers of ``backend="dask"``, or an approximate
index returning padded lists) merges its partial top-k lists here, in the order every embgeo search
uses: score descending, equal scores by the lower id, padding last.
"""
from __future__ import annotations

import numpy as np

from .. import backend as xb

__all__ = ["merge_topk"]


def merge_topk(parts, k: int | None = None):
    """Merge top-k lists of the same queries over disjoint database shards into one.

    For sharded search (e.g. ``backend="dask"``): each shard is searched with
    :func:`topk` (``offset=`` its first row, so ids are global) and the lists are merged here.
    The order is :func:`topk`'s: score descending, equal scores by the lower id, so the merge
    equals a search over the whole database whatever the sharding. Padding slots (score
    ``-inf`` with id ``-1``, as an approximate index returns) sort last.

    Parameters
    ----------
    parts : sequence of (scores, ids)
        Arrays of shape (q, k_i) each, same q; NumPy or any array library (results come back in
        the library of the first part).
    k : int, optional
        Length of the merged lists (default: the longest part's k), at most Σ k_i.

    Returns
    -------
    scores, ids : arrays, shape (q, k)

    Examples
    --------
    >>> import numpy as np
    >>> a = (np.array([[0.9, 0.5]]), np.array([[3, 1]]))
    >>> b = (np.array([[0.9, 0.7]]), np.array([[2, 8]]))
    >>> s, i = merge_topk([a, b], k=3)
    >>> i.tolist(), s.tolist()
    ([[2, 3, 8]], [[0.9, 0.9, 0.7]])
    """
    parts = list(parts)
    if not parts:
        raise ValueError("merge_topk needs at least one (scores, ids) pair")
    like = parts[0][0]
    S = [np.asarray(xb.to_numpy(p[0])) for p in parts]
    I = [np.asarray(xb.to_numpy(p[1])).astype(np.int64, copy=False) for p in parts]
    for j, (s, i) in enumerate(zip(S, I)):
        if s.ndim != 2 or s.shape != i.shape or s.shape[0] != S[0].shape[0]:
            raise ValueError(f"part {j}: scores {s.shape} and ids {i.shape} must be (q, k_i) with the same q "
                             f"as part 0 ({S[0].shape[0]} queries)")
    scores, ids = np.concatenate(S, axis=1), np.concatenate(I, axis=1)
    k = max(s.shape[1] for s in S) if k is None else int(k)
    if not 1 <= k <= scores.shape[1]:
        raise ValueError(f"k must lie in 1..{scores.shape[1]} (the merged candidates), got {k}")
    # padding (-1) after every real id among equal scores
    key = np.where(ids < 0, np.iinfo(np.int64).max, ids)
    order = np.lexsort((key, -scores), axis=1)[:, :k]
    scores, ids = np.take_along_axis(scores, order, axis=1), np.take_along_axis(ids, order, axis=1)
    if not xb.is_numpy(like):
        xp = xb.get_namespace(like)
        return xp.asarray(scores), xp.asarray(ids)
    return scores, ids
