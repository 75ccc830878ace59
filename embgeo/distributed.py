"""embgeo on a Dask cluster: the client, row shards, Gram matrices and experiment grids (``backend="dask"``).

embgeo does not schedule work itself beyond one machine: on a cluster it runs on
`dask.distributed <https://distributed.dask.org>`_, using the current client
(``distributed.get_client()``) unless one is passed::

    from distributed import Client
    client = Client("tcp://scheduler:8786")            # or LocalCluster(), dask-jobqueue, ...
    from embgeo import distributed as dd
    from embgeo import neighbors
    db = dd.shard(e.vectors)                           # row shards, each kept on one worker
    scores, ids = neighbors.topk(queries, db, 10, backend="dask")   # as neighbors.topk(queries, e.vectors, 10)
    scores, ids = e.neighbors(["king"], k=10, backend="dask")       # word queries, the same way
    table = negatives.synonym_table(e, k=10, backend="dask")        # the local table, on the cluster
    G = dd.gram(e.vectors)                                          # = linalg.gram(e.vectors)
    results = dd.map_grid(run_one, {"alpha": [0.5, 1.0], "pair": ["en-de", "en-fi"]})

The client and the shards (:func:`get_client`, :func:`current_client`, :func:`shard`,
:class:`ShardedDatabase`) are defined in :mod:`embgeo.cluster`, the layer below the sharded
search, and importable from here. Neighbour search on the cluster is
:mod:`embgeo.neighbors` with ``backend="dask"`` (the engine is the private
``embgeo.neighbors._dask``).
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping
from functools import partial
from typing import Callable, Iterable

import numpy as np

from . import backend as xb
from . import linalg
from .cluster import ShardedDatabase, current_client, get_client, shard

__all__ = ["ShardedDatabase", "shard", "gram", "map_grid", "get_client", "current_client"]


# ------------------------------------------------------------------ Gram matrices
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

    Returns
    -------
    ndarray of float64, shape (d1, d2)
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


# ------------------------------------------------------------------ experiment grids
def _call(fn, kwargs):
    return fn(**kwargs)


def _grid(params) -> list[dict]:
    if isinstance(params, Mapping):
        keys = list(params)
        return [dict(zip(keys, values)) for values in itertools.product(*(list(params[k]) for k in keys))]
    calls = list(params)
    if not all(isinstance(p, Mapping) for p in calls):
        raise TypeError("params must be a mapping of name -> values (a grid) or an iterable of keyword dicts")
    return [dict(p) for p in calls]


def map_grid(fn: Callable, params: Mapping | Iterable[Mapping], *, client=None, local: bool | None = None) -> list:
    """Call ``fn(**p)`` for every point ``p`` of a parameter grid, as Dask tasks when a client exists.

    Parameters
    ----------
    fn : callable
        Must be importable (or cloudpickle-able) on the workers.
    params : mapping of name -> values, or iterable of dicts
        A mapping is expanded to the Cartesian product in key order (as scikit-learn's
        ``ParameterGrid`` does for one dict); an iterable gives the calls as they are.
    client : distributed.Client, optional
        Default: the current client if there is one.
    local : bool, optional
        True runs in this process whatever exists; None (default) uses Dask only when a client
        is found.

    Returns
    -------
    list
        ``fn``'s results in grid order.

    Examples
    --------
    >>> map_grid(lambda a, b: a * b, {"a": [1, 2], "b": [10, 20]}, local=True)
    [10, 20, 20, 40]
    """
    calls = _grid(params)
    if not local:
        if client is None:
            client = current_client()
        if client is not None:
            return client.gather(client.map(partial(_call, fn), calls, pure=False))
    return [fn(**p) for p in calls]
