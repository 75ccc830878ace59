"""Exact neighbour search over row shards on a Dask cluster: the engine behind ``backend="dask"``.

The database is a :class:`~embgeo.distributed.ShardedDatabase` (:func:`embgeo.distributed.shard`): row
shards, each kept by one worker. Each task runs the local engine (``_exact.prepared_topk``
with ``offset=`` the shard's first row, Numba tiles) on one block of queries against one shard,
with the inverse row norms the local search would use (each worker computes and keeps those of
its rows); the per-shard top-k lists, with global row ids, merge pairwise in a tree
(``_ranking.merge_topk``), and only the final (q, k) lists come back. The façade
(:mod:`embgeo.neighbors`) dispatches here with ``backend="dask"``, its arguments already checked
and resolved.

The arithmetic is the local search's (raw rows scaled by the same inverse norms), and the local
engine's scores are canonical (each kept pair rescored by one fixed-order dot product, whatever
tile or shard its row was in), so the answer is the local one bit for bit: same scores, same
order, ties (exact duplicates too) to the lower row.
"""
from __future__ import annotations

import functools
import time

import numpy as np

from .. import backend as xb
from ..distributed import ShardedDatabase, get_client, shard
from ..linalg import inverse_norms
from ..validation import check_k, exclusion_csr, max_excluded
from ._criteria import PAIRWISE_METRICS, check_metric
from ._exact import csls_topk as local_csls_topk
from ._exact import prepared_topk
from ._ranking import merge_topk

#: Query rows per task unless told otherwise.
DEFAULT_QUERY_BLOCK = 4096


def _block_exclude(ptr, idx, q0, q1):
    """Exclusions of query rows [q0, q1), global database rows, as a (rows, m) array padded with -1
    (or None): what the local engine takes with ``offset=`` on every shard."""
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
    the shard's rows) ranks by 2 cos − r_S as the local CSLS does. A shard with
    fewer than ``k`` candidates for some query (fewer rows than k plus that query's exclusions:
    only toy shards) gives all its rows, the excluded ones as (-inf, -1) slots that
    :func:`merge_topk` sorts last.
    """
    Q, D = np.asarray(Q), np.asarray(D)
    nq, n = Q.shape[0], D.shape[0]
    ex = exclusion_csr(exclude, nq, n, offset=start)
    small = n - max_excluded(ex) < k
    kk, exclude = (n, None) if small else (k, exclude)
    if csls_bias is None:
        s, i = prepared_topk(xb.get_namespace(D), Q, D, kk, exclude, q_inv, d_inv, offset=start, progress=False)
    else:
        s, i = local_csls_topk(Q, D, kk, r_database=csls_bias, r_queries=np.zeros(nq), exclude=exclude,
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
    scores, _ = prepared_topk(xb.get_namespace(S), np.asarray(D), np.asarray(S), knn, None, d_inv, s_inv,
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


# ------------------------------------------------------------------ a lost worker
#: What Dask raises when a worker holding a shard dies mid-search (its results are then forgotten).
_LOST = ("CancelledError", "FutureCancelledError", "KilledWorker", "CommClosedError")


#: Seconds to wait for the scheduler to drop a lost worker before searching again.
_NOTICE_S = 10.0


def _workers(client) -> set:
    # scheduler_info() is briefly empty while the client reconnects
    return set(client.scheduler_info().get("workers", {}))


class _ShardsLost(Exception):
    """The worker holding some shards left the cluster while tasks on them were still waiting."""


def _lost_worker(exc: BaseException) -> bool:
    return isinstance(exc, _ShardsLost) or any(c.__name__ in _LOST for c in type(exc).__mro__)


def _gather(client, futures: list, sd: ShardedDatabase) -> list:
    """``client.gather(futures)``, which fails instead of waiting forever when a shard's worker is gone.

    Tasks pinned to a worker that died (and was perhaps restarted by its nanny under a new address)
    can wait for it forever when Dask does not cancel them (a shard it can recompute, but only there):
    every half second the worker set is checked, and the tasks are cancelled once a shard's worker
    has left it.
    """
    import distributed

    while True:
        try:
            with client.as_current():  # wait() asks for the current client: the one given may not be it
                distributed.wait(futures, timeout=0.5)
            break
        except TimeoutError:
            now = _workers(client)
            gone = sorted(set(sd.workers) - now) if now else []
            if gone:
                client.cancel(futures)
                raise _ShardsLost(f"worker {', '.join(gone)} left the cluster, with its shards") from None
    return client.gather(futures)


def _surviving_lost_workers(search):
    """Run ``search`` again, on new shards, when a worker is lost in the middle of it.

    A worker that dies takes its shards with it, and Dask cancels every task that needed them.
    The shards are made again on the workers left (:func:`embgeo.distributed.shard` does not reuse
    shards of a worker that is gone), so one more try gives the complete answer. A database given
    as a :class:`~embgeo.distributed.ShardedDatabase` cannot be sharded again, nor can a second loss be
    survived: the error then names the lost workers and says that the call can be repeated.
    """
    @functools.wraps(search)
    def run(queries, database, *args, **kwargs):
        client = get_client(kwargs.get("client"))
        for attempt in (1, 2):
            before = _workers(client)
            try:
                return search(queries, database, *args, **kwargs)
            except Exception as exc:
                if not _lost_worker(exc):
                    raise
                # the scheduler notices a dead worker a moment after its tasks fail
                deadline = time.monotonic() + _NOTICE_S
                while time.monotonic() < deadline and (not _workers(client) or _workers(client) >= before):
                    time.sleep(0.05)
                lost = sorted(before - _workers(client)) or ["(unknown)"]
                if attempt == 2 or isinstance(database, ShardedDatabase):
                    raise RuntimeError(
                        f"Dask worker {', '.join(lost)} was lost during the search, with its shards of the "
                        f"database ({type(exc).__name__}: {exc}); the call can be repeated: new shards are "
                        "made on the workers left") from exc
    return run


# ------------------------------------------------------------------ the searches
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


def _exclusion(exclude, nq, n):
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
    results = _gather(client, merged, sd)
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
    # futures, whose release reaches the scheduler later and cancels the new tasks. No broadcast:
    # the workers fetch a block when a task needs it, while Dask's replication of a broadcast loops
    # forever on a worker that dies in the middle of it
    blocks = client.scatter([np.ascontiguousarray(Q[s:e]) for s, e in bounds], hash=False)
    invs = [None] * len(bounds) if q_inv is None else client.scatter([q_inv[s:e] for s, e in bounds], hash=False)
    return list(zip(bounds, blocks, invs))


@_surviving_lost_workers
def topk(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None, client=None,
         query_block: int | None = None):
    """:func:`embgeo.neighbors.topk` with ``backend="dask"``: the same (scores, indices) as the local search.

    Parameters
    ----------
    queries : array (q, d) or (d,), or the same object as ``database`` (a self-join: every
        database row is a query, and the query blocks are the shards already on the workers)
    database : array (n, d), dask array, memory-mapped array, path, or ShardedDatabase
        See :func:`embgeo.distributed.shard`.
    k, metric, exclude
        As in :func:`embgeo.neighbors.topk` (``metric`` "cosine" or "dot").
    client : distributed.Client, optional
        Default: the current client.
    query_block : int, optional
        Query rows per task (default 4096).

    Returns
    -------
    scores : ndarray (q, k), database dtype
    indices : ndarray of int64 (q, k)
    """
    check_metric(metric, metrics=PAIRWISE_METRICS)
    client = get_client(client)
    sd = shard(database, client)
    cosine = metric == "cosine"
    if queries is database:
        return _sharded_topk(client, sd, None, None, k, cosine, exclude, query_block)
    Q = _queries(queries, sd)
    return _sharded_topk(client, sd, Q, inverse_norms(Q, "queries") if cosine else None, k, cosine, exclude,
                         query_block)


def self_topk(database, k: int = 10, *, metric: str = "cosine", client=None, query_block: int | None = None):
    """:func:`embgeo.neighbors.self_topk` with ``backend="dask"``: every row's top-k among the others.

    The rows are sharded once and each shard, already on its worker, is a block of queries against
    all shards (the self-join of :func:`topk`); each row's own index is excluded. Scores are the
    canonical ones of the local default route, so the table equals the local one exactly.
    """
    check_metric(metric, metrics=PAIRWISE_METRICS)
    client = get_client(client)
    sd = shard(database, client)
    return _sharded_topk(client, sd, None, None, k, metric == "cosine", np.arange(sd.shape[0]), query_block)


def _sharded_topk(client, sd: ShardedDatabase, Q, q_inv, k, cosine: bool, exclude, query_block):
    """Top-k of ``Q`` (checked, with its inverse norms for cosine; None: the database's own rows,
    whose blocks are the shards already on the workers)."""
    d_inv = sd.inverse_norms() if cosine else None
    nq = sd.shape[0] if Q is None else Q.shape[0]
    ptr, idx, max_ex = _exclusion(exclude, nq, sd.shape[0])
    k = check_k(k, sd.shape[0] - max_ex)
    if Q is None:
        q_blocks = list(zip(sd.bounds, sd.shards, d_inv if d_inv is not None else [None] * len(sd.shards)))
    else:
        q_blocks = _query_blocks(client, Q, q_inv, query_block)
    return _run_blocks(client, q_blocks, sd, k, ptr, idx, d_inv)


def knn_mean_similarity(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None, client=None,
                        query_block: int | None = None):
    """:func:`embgeo.neighbors.knn_mean_similarity` with ``backend="dask"`` (float64, shape (q,))."""
    scores, _ = topk(queries, database, k, metric=metric, exclude=exclude, client=client, query_block=query_block)
    return np.mean(scores.astype(np.float64), axis=1)


@_surviving_lost_workers
def csls_topk(queries, database, k: int = 10, *, csls_knn: int = 10, r_database=None, r_queries=None,
              source=None, exclude=None, client=None, query_block: int | None = None):
    """:func:`embgeo.neighbors.csls_topk` (Conneau et al. 2018, eq. 3) with ``backend="dask"``.

    CSLS(Wx, y) = 2 cos(Wx, y) − r_T(Wx) − r_S(y). r_S of each database row (over ``source``, or
    the queries when no ``source`` is given) is computed on the worker holding that row's shard
    and stays there; r_T is a distributed :func:`knn_mean_similarity` over the database. Ranking
    uses 2 cos − r_S, as the local function does, and r_T is subtracted at the end, so scores and
    order equal the local ones. ``csls_knn`` comes checked from the façade.

    Returns
    -------
    scores, indices : ndarrays (q, k)
    """
    client = get_client(client)
    sd = shard(database, client)
    Q = _queries(queries, sd)
    q_inv = inverse_norms(Q, "queries")
    ptr, idx, max_ex = _exclusion(exclude, Q.shape[0], sd.shape[0])
    k = check_k(k, sd.shape[0] - max_ex)
    d_inv = sd.inverse_norms()
    if r_database is None:
        S, s_inv = (Q, q_inv) if source is None else (_queries(source, sd), None)
        if S.shape[0] == 0:
            raise ValueError("r_S needs a non-empty source space: pass source= or r_database=")
        if s_inv is None:
            s_inv = inverse_norms(S, "source")
        S_f, s_inv_f = client.scatter([S, s_inv], hash=False)  # no broadcast: see _query_blocks
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

