"""The Gram matrix ``XᵀZ`` of a matrix held on the cluster as row shards (:func:`gram`)."""
from __future__ import annotations

import numpy as np

from .. import backend as xb
from .. import linalg
from ._cluster import get_client, shard

__all__ = ["gram"]


def _shard_gram(X, Z=None):
    return linalg.gram(np.asarray(X), None if Z is None else np.asarray(Z))


def _add(a, b):
    return a + b


def gram(X, Z=None, *, client=None):
    """:func:`embgeo.linalg.gram` on a Dask cluster: ``XᵀZ`` (or ``XᵀX``) in float64.

    Each worker accumulates the product over its shard of rows (blockwise, in float64, as the
    local function does); the d1 × d2 partial sums add up in a tree. ``Z`` (NumPy) is split
    along the same rows and sent to the workers holding ``X``'s shards. Only the order of the
    float64 additions differs from the local result.

    Parameters
    ----------
    X : array (n, d1), dask array, memory-mapped array, path, or ShardedDatabase
        The rows, sharded on the workers as :func:`shard` does (shards made before are reused).
    Z : array, shape (n, d2), optional
        Rows aligned with ``X`` (copied to NumPy and split like ``X``); None: ``X``.
    client : distributed.Client, optional
        Default: the current client.

    Returns
    -------
    ndarray of float64, shape (d1, d2)
        ``XᵀZ``, as NumPy.

    Raises
    ------
    ValueError
        ``Z`` not 2-D or with a different number of rows, or what :func:`shard` refuses.
    RuntimeError
        No client is running, or the cluster has no workers.

    See Also
    --------
    embgeo.linalg.gram : the local product.
    """
    client = get_client(client)
    sd = shard(X, client)
    if Z is None:
        parts = [client.submit(_shard_gram, f, workers=[w], pure=False) for f, w in zip(sd.shards, sd.workers)]
    else:
        Zn = xb.to_numpy(Z)
        if Zn.ndim != 2 or Zn.shape[0] != sd.shape[0]:
            raise ValueError(f"Z must be 2-D with {sd.shape[0]} rows like X, got shape {Zn.shape}")
        zs = [client.scatter(np.ascontiguousarray(Zn[s:e]), workers=[w], hash=False)
              for (s, e), w in zip(sd.bounds, sd.workers)]
        parts = [client.submit(_shard_gram, f, z, workers=[w], pure=False)
                 for f, z, w in zip(sd.shards, zs, sd.workers)]
    while len(parts) > 1:
        nxt = [client.submit(_add, parts[j], parts[j + 1], pure=False) for j in range(0, len(parts) - 1, 2)]
        parts = nxt + ([parts[-1]] if len(parts) % 2 else [])
    return np.asarray(client.gather(parts[0]))
