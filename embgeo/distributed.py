"""Exact neighbour search and experiment grids on a Dask cluster (``backend="dask"``).

embgeo does not schedule work itself beyond one machine: on a cluster it runs on
`dask.distributed <https://distributed.dask.org>`_, using the current client
(``distributed.get_client()``) unless one is passed::

    from distributed import Client
    client = Client("tcp://scheduler:8786")            # or LocalCluster(), dask-jobqueue, ...
    from embgeo import distributed as dd
    db = dd.shard(e.vectors)                           # row shards, each kept on one worker
    scores, ids = dd.topk(queries, db, k=10)           # as embgeo.neighbors.topk(queries, e.vectors, 10)
    scores, ids = neighbors.topk(queries, e.vectors, 10, backend="dask")   # the same, through the façade
    table = negatives.synonym_table(e, k=10, backend="dask")   # the local table, on the cluster
    results = dd.map_grid(run_one, {"alpha": [0.5, 1.0], "pair": ["en-de", "en-fi"]})

How it runs
-----------
The database is split by rows into shards, one or more per worker, and each shard stays on its
worker across calls when the :class:`ShardedDatabase` that :func:`shard` returns is passed in its
place. Sharding again reuses the shards only of data that cannot change under them: a Dask array
and a read-only array (a memory map opened with ``mmap=True``). A writeable NumPy array is
sharded anew by each call, so an in-place edit is always seen. A
NumPy array is scattered once; a Dask array's row chunks are computed where they are; a
memory-mapped ``.npy`` (an embgeo cache loaded with ``mmap=True``) or a path to one is opened by
each worker itself, so the matrix never travels through the scheduler. Each task runs the local
engine (:func:`embgeo.exact.topk` with ``offset=`` the shard's first row, Numba tiles) on one
block of queries against one shard, with the inverse row norms the local search would use (each
worker computes and keeps those of its rows); the per-shard top-k lists, with global row ids,
merge pairwise in a tree (:func:`merge_topk`), and only the final (q, k) lists come back. This
module sits above :mod:`embgeo.exact` and below :mod:`embgeo.neighbors`, whose public functions
dispatch here with ``backend="dask"``.

The arithmetic is the local search's (raw rows scaled by the same inverse norms), and the local
engine's scores are canonical (each kept pair rescored by one fixed-order dot product, whatever
tile or shard its row was in), so the answer is the local one bit for bit: same scores, same
order, ties (exact duplicates too) to the lower row.
"""
from __future__ import annotations

import itertools
import os
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Iterable

import numpy as np

from . import backend as xb
from .ranking import merge_topk
from .validation import renamed_parameter

__all__ = ["ShardedDatabase", "shard", "topk", "knn_mean_similarity", "csls_topk", "search",
           "gram", "merge_topk", "map_grid", "get_client", "current_client"]

_INSTALL = "pip install 'embgeo[distributed]'"
#: Query rows per task unless told otherwise.
DEFAULT_QUERY_BLOCK = 4096


def get_client(client=None):
    """``client``, else the current ``dask.distributed`` client; a clear error when there is none."""
    try:
        import distributed
    except ImportError:
        raise ImportError(f"backend='dask' needs dask.distributed: {_INSTALL}") from None
    if client is not None:
        return client
    try:
        return distributed.get_client()
    except ValueError:
        raise RuntimeError("backend='dask' needs a running dask.distributed client: "
                           "start one with `from distributed import Client; Client(...)`") from None


def current_client():
    """The current ``dask.distributed`` client, or None when dask is missing or no client runs.

    Unlike :func:`get_client` this never raises: it is how embgeo decides whether a grid
    (:func:`map_grid`, :func:`embgeo.evaluate.lexicon.postproc_grid_search`, the α sweeps of
    :mod:`embgeo.alpha`) goes to a cluster. Inside a Dask task it is None too: a grid run by a
    task (e.g. an α sweep per language pair of a :func:`map_grid`) runs within that task, since a
    task that waits on tasks of its own cluster can hold the thread they need (pass ``client=``
    to nest on purpose).

    Examples
    --------
    >>> c = current_client()
    >>> c is None or hasattr(c, "submit")
    True
    """
    try:
        import distributed
    except ImportError:
        return None
    try:
        distributed.get_worker()
        return None
    except ValueError:  # not in a task
        pass
    try:
        return distributed.get_client()
    except ValueError:
        return None


# ------------------------------------------------------------------ shards
@dataclass(eq=False)
class ShardedDatabase:
    """A (n, d) matrix split by rows, each shard held by one Dask worker.

    Attributes
    ----------
    shards : list of Future
        The raw rows of each shard, in order.
    bounds : list of (int, int)
        Row range ``[start, stop)`` of each shard.
    shape : (int, int)
    dtype : numpy dtype
    workers : list of str
        The worker holding each shard.
    """

    client: Any
    shards: list
    bounds: list
    shape: tuple
    dtype: Any
    workers: list
    _inv: list | None = field(default=None, repr=False)

    def inverse_norms(self) -> list:
        """Futures of each shard's inverse row norms (:func:`embgeo.exact.inverse_norms`), computed
        on (and kept by) its worker: what cosine search scales the raw rows by, as locally."""
        if self._inv is None:
            self._inv = [self.client.submit(_inverse_norms, f, workers=[w], pure=False)
                         for f, w in zip(self.shards, self.workers)]
        return self._inv

    def release(self) -> None:
        """Drop the shards from the workers' memory."""
        for f in self.shards + (self._inv or []):
            f.release()
        self.shards, self._inv = [], None


_CACHE: dict[int, tuple] = {}


def shard(database, client=None, n_shards: int | None = None) -> ShardedDatabase:
    """Put ``database`` on the workers as row shards (or return the shards made before).

    Keep the returned :class:`ShardedDatabase` and pass it to the search functions to search the
    same shards again. Passing the array itself reuses earlier shards only for a Dask array or a
    read-only NumPy array (e.g. ``embgeo.load(..., mmap=True)``); a writeable array is sharded
    again each time, so edits made to it in place are searched.

    Parameters
    ----------
    database : array (n, d), dask array, memory-mapped ``.npy`` array, path, or ShardedDatabase
        A NumPy array is scattered; a dask array's row chunks are computed on the workers; a
        ``numpy.memmap`` backed by a file (``embgeo.load(..., mmap=True)``) or a path to a ``.npy``
        file or embgeo cache directory is opened by every worker for its own rows.
    client : distributed.Client, optional
        Default: the current client.
    n_shards : int, optional
        Default: one per worker (a dask array keeps its row chunks).

    Returns
    -------
    ShardedDatabase
    """
    if isinstance(database, ShardedDatabase):
        return database
    client = get_client(client)
    # shards are reused only for data that cannot change under them: a writeable array edited in
    # place would otherwise be searched as it was (keep the ShardedDatabase to reuse its shards)
    reuse = _is_dask(database) or _read_only(database)
    key = id(database)
    hit = _CACHE.get(key) if reuse else None
    if hit is not None and hit[0]() is database and hit[1] is client and hit[2] == n_shards and hit[3].shards:
        return hit[3]
    workers = sorted(client.scheduler_info()["workers"])
    if not workers:
        raise RuntimeError("the Dask cluster has no workers")
    n_parts = len(workers) if n_shards is None else max(1, int(n_shards))
    located = _locate_npy(database)
    if located is not None:
        path, offset, shape, dtype = located
        sd = _shard_file(client, path, offset, shape, dtype, n_parts, workers)
    elif _is_dask(database):
        sd = _shard_dask(client, database, workers)
    else:
        X = xb.check_matrix(xb.to_numpy(database), "database")
        bounds = _split(X.shape[0], n_parts)
        shards = [client.scatter(np.ascontiguousarray(X[s:e]), workers=[workers[i % len(workers)]], hash=False)
                  for i, (s, e) in enumerate(bounds)]
        sd = ShardedDatabase(client, shards, bounds, X.shape, X.dtype,
                             [workers[i % len(workers)] for i in range(len(bounds))])
    if not reuse:
        return sd
    try:
        _CACHE[key] = (weakref.ref(database), client, n_shards, sd)
        # when the array goes, the cache lets go of its shards (the workers drop them once no
        # ShardedDatabase the user kept refers to them)
        weakref.finalize(database, _forget, key, weakref.ref(sd))
    except TypeError:  # not weak-referenceable: no reuse
        pass
    return sd


def _read_only(x) -> bool:
    """A NumPy array that no one can write through: it and every array it views are read-only
    (a memory map opened with mode ``"r"``, as ``embgeo.load(..., mmap=True)`` gives)."""
    if not isinstance(x, np.ndarray):
        return False
    while isinstance(x, np.ndarray):
        if x.flags.writeable:
            return False
        x = x.base
    return True


def _forget(key, sd_ref) -> None:
    hit = _CACHE.get(key)
    if hit is not None and hit[3] is sd_ref():
        del _CACHE[key]


def _split(n: int, parts: int) -> list:
    parts = max(1, min(parts, n))
    edges = np.linspace(0, n, parts + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]


def _is_dask(x) -> bool:
    return type(x).__module__.startswith("dask.")


def _locate_npy(database):
    """(file, byte offset of row 0, shape, dtype) of a C-ordered array stored in a file, or None."""
    if isinstance(database, (str, os.PathLike)):
        p = os.fspath(database)
        if os.path.isdir(p):
            p = os.path.join(p, "vectors.npy")
        if not os.path.isfile(p):
            raise FileNotFoundError(f"no .npy file or embgeo cache at {database}")
        database = np.load(p, mmap_mode="r")
    if not isinstance(database, np.ndarray) or database.ndim != 2 or not database.flags.c_contiguous:
        return None
    m = database  # np.asarray(memmap) is a plain view: find the memmap it views
    while m is not None and not isinstance(m, np.memmap):
        m = m.base if isinstance(m.base, np.ndarray) else None
    mm = getattr(m, "_mmap", None)
    if m is None or mm is None or not m.filename:
        return None
    import mmap

    # where this array's first byte sits in the file: the map starts at the memmap's offset rounded
    # down to the allocation granularity (a slice keeps its parent's offset attribute)
    start = m.offset - m.offset % mmap.ALLOCATIONGRANULARITY
    base = np.frombuffer(mm, dtype=np.uint8).ctypes.data
    return m.filename, start + (database.ctypes.data - base), tuple(database.shape), database.dtype


def _shard_file(client, path, offset, shape, dtype, n_parts, workers) -> ShardedDatabase:
    bounds = _split(shape[0], n_parts)
    ws = [workers[i % len(workers)] for i in range(len(bounds))]
    shards = [client.submit(_open_rows, path, offset, shape[1], np.dtype(dtype).str, s, e, workers=[w],
                            allow_other_workers=False, pure=False)
              for (s, e), w in zip(bounds, ws)]
    return ShardedDatabase(client, shards, bounds, tuple(shape), np.dtype(dtype), ws)


def _shard_dask(client, X, workers) -> ShardedDatabase:
    if X.ndim != 2:
        raise ValueError(f"database must be 2-D, got shape {X.shape}")
    X = X.rechunk({1: -1})
    blocks = X.to_delayed().ravel().tolist()
    edges = np.concatenate([[0], np.cumsum(X.chunks[0])]).astype(int)
    bounds = [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]
    ws = [workers[i % len(workers)] for i in range(len(bounds))]
    shards = [client.compute(b, workers=[w]) for b, w in zip(blocks, ws)]
    shards = [client.submit(_as_float_matrix, f, workers=[w], pure=False) for f, w in zip(shards, ws)]
    dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.dtype(np.float32)
    return ShardedDatabase(client, shards, bounds, tuple(X.shape), dtype, ws)


# ------------------------------------------------------------------ worker tasks
def _open_rows(path, offset, d, dtype, start, stop):
    itemsize = np.dtype(dtype).itemsize
    return np.memmap(path, dtype=dtype, mode="r", offset=offset + start * d * itemsize, shape=(stop - start, d))


def _as_float_matrix(X):
    return xb.check_matrix(xb.asarray(np.asarray(X)), "database")


def _inverse_norms(X):
    from . import exact

    return exact.inverse_norms(np.asarray(X), "database", check_finite=False)


def _block_exclude(ptr, idx, q0, q1):
    """Exclusions of query rows [q0, q1), global database rows, as a (rows, m) array padded with -1
    (or None): what :func:`embgeo.exact.topk` takes with ``offset=`` on every shard."""
    if ptr is None or int(ptr[q1]) == int(ptr[q0]):
        return None
    counts = np.diff(ptr[q0:q1 + 1])
    rows = np.repeat(np.arange(q1 - q0), counts)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    out = np.full((q1 - q0, int(counts.max())), -1, dtype=np.int64)
    out[rows, np.arange(rows.size) - first[rows]] = idx[int(ptr[q0]):int(ptr[q1])]
    return out


def _shard_topk(Q, q_inv, D, d_inv, k, start, exclude, csls_bias=None):
    """Top-k of query block ``Q`` in shard ``D`` (rows ``start`` …), with global row ids.

    The local engine runs it (``offset=start`` maps the ids and the global ``exclude``), with the
    inverse row norms the local search would use (``None``: dot products). ``csls_bias`` (r_S of
    the shard's rows) ranks by 2 cos − r_S as :func:`embgeo.exact.csls_topk` does. A shard with
    fewer than ``k`` candidates for some query (fewer rows than k plus that query's exclusions:
    only toy shards) gives all its rows, the excluded ones as (-inf, -1) slots that
    :func:`merge_topk` sorts last.
    """
    from . import exact
    from .validation import exclusion_csr, max_excluded

    Q, D = np.asarray(Q), np.asarray(D)
    nq, n = Q.shape[0], D.shape[0]
    ex = exclusion_csr(exclude, nq, n, offset=start)
    small = n - max_excluded(ex) < k
    kk, exclude = (n, None) if small else (k, exclude)
    if csls_bias is None:
        s, i = exact.prepared_topk(xb.get_namespace(D), Q, D, kk, exclude, q_inv, d_inv, offset=start,
                                   progress=False)
    else:
        s, i = exact.csls_topk(Q, D, kk, r_database=csls_bias, r_queries=np.zeros(nq), exclude=exclude,
                               database_inv=d_inv, offset=start, progress=False)
    if small and ex is not None:
        ptr, idx = ex
        bad = np.zeros((nq, n), dtype=bool)
        bad[np.repeat(np.arange(nq), np.diff(ptr)), idx] = True
        dropped = np.take_along_axis(bad, i - start, axis=1)
        order = np.argsort(dropped, axis=1, kind="stable")  # kept entries first, in their order
        dropped = np.take_along_axis(dropped, order, axis=1)
        s = np.where(dropped, -np.inf, np.take_along_axis(s, order, axis=1))
        i = np.where(dropped, -1, np.take_along_axis(i, order, axis=1))
    return s, i


def _knn_mean_rows(D, d_inv, S, s_inv, knn):
    """r_S of each row of shard ``D`` over the source space ``S`` (CSLS), as the local search
    computes it: the mean of the top ``knn`` cosines, in float64."""
    from . import exact

    scores, _ = exact.prepared_topk(xb.get_namespace(S), np.asarray(D), np.asarray(S), knn, None, d_inv, s_inv,
                                    progress=False)
    return np.mean(scores.astype(np.float64), axis=1)


def _merge2(a, b, k):
    # toy shards give fewer than k columns; the final merge has k (the caller checked k)
    return merge_topk([a, b], min(k, a[0].shape[1] + b[0].shape[1]))


def _tree_merge(client, futures: list, k: int):
    """Merge a list of per-shard results pairwise, log2(shards) levels deep, on the workers."""
    while len(futures) > 1:
        nxt = [client.submit(_merge2, futures[j], futures[j + 1], k, pure=False)
               for j in range(0, len(futures) - 1, 2)]
        if len(futures) % 2:
            nxt.append(futures[-1])
        futures = nxt
    return futures[0]


# ------------------------------------------------------------------ public search
def _check_k(k, n_candidates):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer, got {type(k).__name__}")
    if not 1 <= int(k) <= n_candidates:
        raise ValueError(f"k must be between 1 and the {n_candidates} candidates in the database, got {k}")
    return int(k)


def _queries(queries, sd: ShardedDatabase):
    """Queries as a checked C-ordered NumPy matrix of the database's dtype (raw rows: cosine
    scales them by their inverse norms, as the local search does)."""
    Q = xb.to_numpy(queries)
    if Q.ndim == 1:
        Q = Q.reshape(1, -1)
    Q = xb.check_matrix(Q, "queries", allow_empty=True)
    if Q.shape[1] != sd.shape[1]:
        raise ValueError(f"queries have dimension {Q.shape[1]} but the database has {sd.shape[1]}")
    return np.ascontiguousarray(Q, dtype=sd.dtype)


def _inverse_query_norms(Q):
    from . import exact

    return exact.inverse_norms(Q, "queries")


def _exclusion(exclude, nq, n):
    from .validation import exclusion_csr

    ex = exclusion_csr(exclude, nq, n)
    if ex is None:
        return None, None, 0
    ptr, idx = ex
    return ptr, idx, int(np.diff(ptr).max()) if nq else 0


def _run_blocks(client, q_blocks, sd, k, ptr, idx, d_inv=None, biases=None):
    """Submit (query block × shard) tasks and tree merges; gather the blocks' results in order.

    ``q_blocks``: ((q0, q1), query rows, their inverse norms or None) per block; ``d_inv``: the
    shards' inverse norms (cosine) or None; ``biases``: the shards' r_S (CSLS) or None.
    """
    merged = []
    for (q0, q1), qf, qinv in q_blocks:
        ex = _block_exclude(ptr, idx, q0, q1)
        parts = []
        for j, ((c0, _), df, w) in enumerate(zip(sd.bounds, sd.shards, sd.workers)):
            dinv = None if d_inv is None else d_inv[j]
            bias = None if biases is None else biases[j]
            parts.append(client.submit(_shard_topk, qf, qinv, df, dinv, k, c0, ex, bias, workers=[w], pure=False))
        merged.append(_tree_merge(client, parts, k))
    results = client.gather(merged)
    if not results:
        return np.zeros((0, k), sd.dtype), np.zeros((0, k), np.int64)
    return (np.concatenate([r[0] for r in results], axis=0).astype(sd.dtype, copy=False),
            np.concatenate([r[1] for r in results], axis=0))


def _query_blocks(client, Q, q_inv, query_block):
    """The query rows (and their inverse norms, or None) in blocks, each sent to every worker."""
    step = max(1, int(query_block or DEFAULT_QUERY_BLOCK))
    bounds = [(s, min(s + step, Q.shape[0])) for s in range(0, Q.shape[0], step)]
    if not bounds:
        return []
    # hash=False: the same queries scattered again would get the key of the previous call's
    # futures, whose release reaches the scheduler later and cancels the new tasks
    blocks = client.scatter([np.ascontiguousarray(Q[s:e]) for s, e in bounds], broadcast=True, hash=False)
    invs = [None] * len(bounds) if q_inv is None else \
        client.scatter([q_inv[s:e] for s, e in bounds], broadcast=True, hash=False)
    return list(zip(bounds, blocks, invs))


def topk(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None, client=None,
         query_block: int | None = None, **kwargs):
    """:func:`embgeo.neighbors.topk` on a Dask cluster: the same (scores, indices).

    Parameters
    ----------
    queries : array (q, d) or (d,), or the same object as ``database`` (a self-join: every
        database row is a query, and the query blocks are the shards already on the workers)
    database : array (n, d), dask array, memory-mapped array, path, or ShardedDatabase
        See :func:`shard`.
    k, metric, exclude
        As in :func:`embgeo.neighbors.topk` (``metric`` "cosine" or "dot").
    client : distributed.Client, optional
        Default: the current client.
    query_block : int, optional
        Query rows per task (default 4096).
    **kwargs
        Options of the local search (``memory_budget``, ``progress``, ``selector``, ``n_jobs``,
        ``check_finite``) are accepted and ignored: each worker runs with its defaults.

    Returns
    -------
    scores : ndarray (q, k), database dtype
    indices : ndarray of int64 (q, k)
    """
    if metric not in ("cosine", "dot"):
        raise ValueError(f"metric must be 'cosine' or 'dot', got {metric!r}")
    client = get_client(client)
    sd = shard(database, client)
    cosine = metric == "cosine"
    if queries is database:
        return _sharded_topk(client, sd, None, None, k, cosine, exclude, query_block)
    Q = _queries(queries, sd)
    return _sharded_topk(client, sd, Q, _inverse_query_norms(Q) if cosine else None, k, cosine, exclude,
                         query_block)


def _sharded_topk(client, sd: ShardedDatabase, Q, q_inv, k, cosine: bool, exclude, query_block):
    """Top-k of ``Q`` (checked, with its inverse norms for cosine; None: the database's own rows,
    whose blocks are the shards already on the workers)."""
    d_inv = sd.inverse_norms() if cosine else None
    nq = sd.shape[0] if Q is None else Q.shape[0]
    ptr, idx, max_ex = _exclusion(exclude, nq, sd.shape[0])
    k = _check_k(k, sd.shape[0] - max_ex)
    if Q is None:
        q_blocks = list(zip(sd.bounds, sd.shards, d_inv if d_inv is not None else [None] * len(sd.shards)))
    else:
        q_blocks = _query_blocks(client, Q, q_inv, query_block)
    return _run_blocks(client, q_blocks, sd, k, ptr, idx, d_inv)


def knn_mean_similarity(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None, client=None,
                        query_block: int | None = None, **kwargs):
    """:func:`embgeo.neighbors.knn_mean_similarity` on a Dask cluster (float64, shape (q,))."""
    scores, _ = topk(queries, database, k, metric=metric, exclude=exclude, client=client, query_block=query_block)
    return np.mean(scores.astype(np.float64), axis=1)


def csls_topk(queries, database, k: int = 10, *, csls_knn: int = 10, r_database=None, r_queries=None,
              source=None, exclude=None, client=None, query_block: int | None = None, knn: int | None = None,
              **kwargs):
    """:func:`embgeo.neighbors.csls_topk` (Conneau et al. 2018, eq. 3) on a Dask cluster.

    CSLS(Wx, y) = 2 cos(Wx, y) − r_T(Wx) − r_S(y). r_S of each database row (over ``source``, or
    the queries when no ``source`` is given) is computed on the worker holding that row's shard
    and stays there; r_T is a distributed :func:`knn_mean_similarity` over the database. Ranking
    uses 2 cos − r_S, as the local function does, and r_T is subtracted at the end, so scores and
    order equal the local ones. ``knn`` is the deprecated name of ``csls_knn``.

    Returns
    -------
    scores, indices : ndarrays (q, k)
    """
    csls_knn = int(renamed_parameter(csls_knn, knn, old="knn", new="csls_knn", where="csls_topk"))
    if csls_knn < 1:
        raise ValueError(f"csls_knn must be at least 1, got {csls_knn}")
    client = get_client(client)
    sd = shard(database, client)
    Q = _queries(queries, sd)
    q_inv = _inverse_query_norms(Q)
    ptr, idx, max_ex = _exclusion(exclude, Q.shape[0], sd.shape[0])
    k = _check_k(k, sd.shape[0] - max_ex)
    d_inv = sd.inverse_norms()
    if r_database is None:
        S, s_inv = (Q, q_inv) if source is None else (_queries(source, sd), None)
        if S.shape[0] == 0:
            raise ValueError("r_S needs a non-empty source space: pass source= or r_database=")
        if s_inv is None:
            s_inv = _inverse_query_norms(S)
        S_f, s_inv_f = client.scatter([S, s_inv], broadcast=True, hash=False)
        knn_s = min(csls_knn, S.shape[0])
        biases = [client.submit(_knn_mean_rows, f, inv, S_f, s_inv_f, knn_s, workers=[w], pure=False)
                  for f, inv, w in zip(sd.shards, d_inv, sd.workers)]
    else:
        rD = np.asarray(xb.to_numpy(r_database), dtype=np.float64)
        if rD.shape != (sd.shape[0],):
            raise ValueError(f"r_database must have shape ({sd.shape[0]},), got {rD.shape}")
        biases = [rD[s:e] for s, e in sd.bounds]
    if r_queries is None:
        # r_T: mean cosine of each (unit) query to its nearest unit database rows
        scores, _ = _sharded_topk(client, sd, Q, q_inv, min(csls_knn, sd.shape[0]), True, None, query_block)
        rQ = np.mean(scores.astype(np.float64), axis=1)
    else:
        rQ = np.asarray(xb.to_numpy(r_queries), dtype=np.float64)
        if rQ.shape != (Q.shape[0],):
            raise ValueError(f"r_queries must have shape ({Q.shape[0]},), got {rQ.shape}")
    s, i = _run_blocks(client, _query_blocks(client, Q, None, query_block), sd, k, ptr, idx, d_inv, biases)
    return s - rQ.astype(sd.dtype)[:, None], i


def search(e, queries, k: int = 10, metric: str = "cosine", exclude_self: bool = True, csls_knn: int = 10,
           client=None, **kwargs):
    """:func:`embgeo.neighbors.search` with ``backend="dask"``: neighbours of words or vectors in
    ``e`` (whose vectors may be a NumPy, memory-mapped or dask array), computed on the cluster."""
    if metric not in ("cosine", "dot", "csls"):
        raise ValueError(f"metric must be 'cosine', 'dot' or 'csls', got {metric!r}")
    if "knn" in kwargs:
        csls_knn = kwargs.pop("knn")
    ids = None
    if isinstance(queries, str):
        queries = [queries]
    if isinstance(queries, (list, tuple)) and all(isinstance(q, str) for q in queries):
        ids = e.indices(queries) if queries else np.zeros(0, np.int64)
        Q = xb.to_numpy(xb.take_rows(e.vectors, ids)) if len(ids) else np.zeros((0, e.dim), np.dtype(e.dtype))
    else:
        Q = queries
    exclude = kwargs.pop("exclude", None)
    if exclude_self and ids is not None:
        exclude = ids if exclude is None else [np.append(np.atleast_1d(x), i) for x, i in zip(exclude, ids)]
    if metric == "csls":
        if ids is not None and kwargs.get("source") is None and kwargs.get("r_database") is None:
            kwargs["source"] = e.vectors
        if kwargs.get("source") is not None:
            kwargs["source"] = xb.to_numpy(kwargs["source"])
        return csls_topk(Q, e.vectors, k, csls_knn=csls_knn, exclude=exclude, client=client, **kwargs)
    return topk(Q, e.vectors, k, metric=metric, exclude=exclude, client=client, **kwargs)


# ------------------------------------------------------------------ Gram matrices
def _shard_gram(X, Z=None):
    from .linalg import gram as local_gram

    return local_gram(np.asarray(X), None if Z is None else np.asarray(Z))


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
