"""Exact and approximate k-nearest-neighbour search over a vocabulary (cosine, dot, CSLS): the public entry points.

Every search returns the FAISS pair ``(scores, indices)``, both shaped (n_queries, k), best
first, ties broken towards the lower database row, whatever ran it.

This package is embgeo's one search engine; its ``__init__`` is the façade. :func:`topk`,
:func:`csls_topk` and :func:`knn_mean_similarity` search arrays and dispatch on ``backend=``;
:func:`search` and :func:`most_similar` search the words of an
:class:`~embgeo.embeddings.Embeddings`; :func:`merge_topk` merges lists over row shards,
:func:`select_topk` selects from a block of scores a method computed itself (the one tie order),
and :func:`self_topk` gives every row's neighbours among the others (synonym tables). Behind it:

* ``_exact``: the local blocked engine (GEMM tiles merged into heaps by a Numba kernel, under
  a memory budget);
* ``_screening``: canonical scores (the same bits whatever the tiling or sharding) and the
  certified screened search;
* ``_ranking``: the merge of ranked lists;
* ``_reduction``: the hubness reductions (mutual proximity, local scaling, NICDM, DisSimLocal),
  :func:`reduction_topk` and its statistics;
* ``_dask``: the engine over row shards on a Dask cluster (``backend="dask"``), which stands on
  :mod:`embgeo.distributed` (the client and the shards);
* :mod:`embgeo.neighbors.faiss_index` (public): FAISS indexes, exact and approximate.

Block sizes, tiles and threads come from :mod:`embgeo.blocking`, which stays a public top-level
module rather than a private part of this package: every vocabulary-wide method (fuzzy sets,
alpha embeddings, cross-lingual retrieval, ...) sizes its blocks by the same ``memory_budget``.
Likewise the inverse row norms (:mod:`embgeo.linalg`) and the checks of ``k`` and ``exclude``
(:mod:`embgeo.validation`).
"""
from __future__ import annotations

import numpy as np

from .. import backend as xb
from .. import linalg
from . import _dask, _exact, _gensim
from ._criteria import (ARRAY_BACKENDS, PAIRWISE_METRICS, REDUCTION_METRICS, RETRIEVAL_METRICS, VALID_METRICS,
                        VALID_RETRIEVALS, check_backend, check_metric, check_retrieval, choices)
from ._exact import check_csls_knn, prepared_topk, select_topk
from ._isf import isf_log_partition, isf_topk
from ._ranking import merge_topk
from ._reduction import reduction_ranks, reduction_stats, reduction_topk
from ._screening import cached_screen_index
from .faiss_index import cached_faiss_index

__all__ = ["topk", "csls_topk", "isf_topk", "isf_log_partition", "knn_mean_similarity", "search", "most_similar",
           "merge_topk", "select_topk", "self_topk", "reduction_topk", "reduction_ranks", "reduction_stats",
           "VALID_METRICS", "PAIRWISE_METRICS", "ARRAY_BACKENDS", "REDUCTION_METRICS", "RETRIEVAL_METRICS", "VALID_RETRIEVALS", "check_backend", "check_metric", "check_retrieval"]

def _dask_engine(backend, client, query_block):
    """The Dask engine for ``backend="dask"``, None for "exact" and "cuda"; refuses the Dask options
    without Dask and any other backend."""
    if backend == "dask":
        return _dask
    if backend not in ARRAY_BACKENDS:
        hint = (" (FAISS: embgeo.neighbors.faiss_index.faiss_search for arrays, "
                "neighbors.search(..., backend='faiss') for words)") if backend == "faiss" else ""
        raise ValueError(f"backend must be {choices(ARRAY_BACKENDS)}, got {backend!r}{hint}")
    for name, value in (("client", client), ("query_block", query_block)):
        if value is not None:
            raise TypeError(f"{name}= needs backend='dask'")
    return None


def _engine(backend):
    return "cuda" if backend == "cuda" else None


def topk(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None,
         memory_budget: int | None = None, progress: bool | None = None, selector: str = "auto",
         n_jobs: int | None = None, check_finite: bool = True, offset: int | None = None,
         screen=None, backend: str = "exact", client=None, query_block: int | None = None):
    """Exact top-``k`` neighbours of each query row among the database rows.

    Parameters
    ----------
    queries : array, shape (q, d) or (d,)
    database : array, shape (n, d)
        Same array library as ``queries`` (NumPy, CuPy or array-API), finite. With
        ``backend="dask"`` also a dask array, a memory-mapped ``.npy`` or its path, or a
        :class:`~embgeo.distributed.ShardedDatabase` (see :func:`embgeo.distributed.shard`), and
        ``queries`` may be that same object (a self-join: the query blocks are the shards).
    k : int
        Number of neighbours, 1 ≤ k ≤ n − (most rows excluded for one query).
    metric : {"cosine", "dot"}
        Cosine scales both sides to unit length first (zero vectors score 0).
    exclude : array or sequence, optional
        Per query, database rows never to return: an int array of shape (q,) (one row each,
        e.g. the query word itself), an int array (q, m) padded with -1, or a sequence of q ints
        or int sequences. Negative entries are ignored.
    memory_budget : int, optional
        Bytes the score blocks may take at once (default
        :data:`~embgeo.blocking.DEFAULT_MEMORY_BUDGET`, 256 MiB). Results do not depend on it.
        Cosine never copies the database to unit length: it keeps its n inverse row norms and
        scales each score tile, so the extra memory is the tiles, the heaps, n numbers and the
        (scaled) queries of one block, whatever the size of a (memory-mapped) database. Peak
        memory (NumPy, measured over 400k rows in ``tests/test_memory_budgets.py``): the inputs,
        the outputs (q × k scores and indices), O(n) row statistics (the n inverse norms in the
        database's dtype, one float64 bound per score tile of at least 16 columns: at most
        n/2 bytes), ``memory_budget`` and a fixed overhead under 256 KiB.
    progress : bool, optional
        Show a progress bar over blocks of queries (default: the global setting).
    selector : {"auto", "numba", "argpartition"}
        NumPy only: "auto"/"numba" fuses the GEMM with the Numba heap kernel (the fastest);
        "argpartition" selects from full-row blocks with ``np.argpartition``. Other array
        libraries always select with a stable ``argsort``.
    n_jobs : int, optional
        Threads (default: the CPUs this process may use, :func:`embgeo.blocking.n_jobs`). BLAS
        runs one thread per job meanwhile.
    check_finite : bool
        Refuse NaN/inf in queries and database (default). Turning it off spares a pass over the
        database when it is known to be finite (an :class:`~embgeo.embeddings.Embeddings`);
        NaN scores would then give undefined rankings.
    offset : int, optional
        ``database`` is rows ``offset …`` of a larger matrix (a shard): returned indices are
        rows of the larger matrix, and ``exclude`` is given in them too (rows outside the shard
        are ignored, not refused). Shards' results combine with :func:`merge_topk`; ``k`` must
        still fit the shard.
    screen : bool, optional
        True screens the search with a rotation index of ``database`` built for this call (a
        width-(r+1) GEMM of rigorous upper bounds prunes the pairs that cannot enter a top-k
        list; :func:`search` keeps the index of an Embeddings instead). Same rows and scores as
        without it. An index built earlier is accepted too.
    backend : {"exact", "dask", "cuda"}
        "exact" (default) runs the blocked search here; "dask" shards the database by rows over
        the workers of a Dask client and merges the per-shard lists, with the same results
        (each worker runs with the local options' defaults; ``offset`` and ``screen`` are
        refused); "cuda" runs the GPU engine (CuPy tiles, :mod:`embgeo.kernels.cuda` selection)
        with the same results: NumPy inputs are copied to the device a block at a time and the
        results come back as NumPy. CuPy inputs take the GPU engine with "exact" too (their
        results are CuPy); ``memory_budget`` then counts device memory.
    client : distributed.Client, optional
        ``backend="dask"`` only: the client (default: the current one).
    query_block : int, optional
        ``backend="dask"`` only: query rows per task (default 4096).

    Returns
    -------
    scores : array, shape (q, k)
        Similarities, best first (database dtype).
    indices : array of int64, shape (q, k)
        Database rows; equal scores are ordered by the lower row, deterministically.

    Notes
    -----
    On NumPy (C-ordered, float32/float64, ``selector`` "auto"/"numba") every returned score is
    *canonical*: one fixed-order float64 dot product of the (unit) query with the database row,
    times the row's inverse norm, rounded once to the database dtype. So scores and order do not
    depend on the tiling, the threads, the screening or a split of the database into shards
    (``offset=`` + :func:`merge_topk`, or ``backend="dask"``, gives bit-identical results).

    Raises
    ------
    ValueError
        k < 1 or larger than the candidates, dimension mismatch, NaN/inf in queries or
        database (the row is named), unknown metric, selector or backend, bad ``exclude``.

    Examples
    --------
    >>> import numpy as np
    >>> D = np.array([[1, 0], [0, 1], [1, 1], [1, 0]], dtype=np.float32)
    >>> s, i = topk(D[:1], D, 2, exclude=[0])
    >>> i.tolist()
    [[3, 2]]
    """
    dd = _dask_engine(backend, client, query_block)
    if dd is None:
        return _exact.topk(queries, database, k, metric=metric, exclude=exclude, memory_budget=memory_budget,
                          progress=progress, selector=selector, n_jobs=n_jobs, check_finite=check_finite,
                          offset=offset, screen=screen, engine=_engine(backend))
    if screen is not None and screen is not False:
        raise TypeError("screen= is an index of the local engine; backend='dask' does not take it")
    if offset is not None:
        raise TypeError("offset= is for one shard searched by the local engine; backend='dask' shards "
                        "the database itself")
    return dd.topk(queries, database, k, metric=metric, exclude=exclude, client=client, query_block=query_block)


def self_topk(X, k: int = 10, *, metric: str = "cosine", memory_budget: int | None = None,
              progress: bool | None = None, n_jobs: int | None = None, check_finite: bool = True,
              symmetric: bool | None = None, backend: str = "exact", client=None, query_block: int | None = None):
    """Every row's top-``k`` among the *other* rows of ``X``: ``topk(X, X, k, exclude=self)``.

    The local engines' function is :func:`embgeo.neighbors._exact.self_topk` (its docstring has the
    symmetric path and the scores); ``backend="dask"`` shards the rows once and joins each shard,
    already on its worker, with all of them (same lists and scores as the local default route).

    Parameters
    ----------
    X : array (n, d); with ``backend="dask"`` anything :func:`embgeo.distributed.shard` takes
    k, metric, memory_budget, progress, n_jobs, check_finite, symmetric
        As in the local function; ``symmetric=True`` is a path of the local engine only.
    backend, client, query_block
        As in :func:`topk`.

    Returns
    -------
    scores, indices : arrays, shape (n, k)
        Best first, ties to the lower row, never the row itself.

    Examples
    --------
    >>> import numpy as np
    >>> scores, ids = self_topk(np.array([[1, 0], [2, 1], [0, 1]], dtype=np.float32), 1, metric="dot")
    >>> ids.ravel().tolist(), scores.ravel().tolist()
    ([1, 0, 1], [2.0, 2.0, 1.0])
    """
    dd = _dask_engine(backend, client, query_block)
    if dd is None:
        return _exact.self_topk(X, k, metric=metric, memory_budget=memory_budget, progress=progress, n_jobs=n_jobs,
                                check_finite=check_finite, symmetric=symmetric, backend=backend)
    if symmetric:
        raise ValueError("symmetric=True is a path of the local engine; backend='dask' joins shards")
    return dd.self_topk(X, k, metric=metric, client=client, query_block=query_block)


def knn_mean_similarity(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None,
                        memory_budget: int | None = None, progress: bool | None = None,
                        selector: str = "auto", n_jobs: int | None = None, backend: str = "exact",
                        client=None, query_block: int | None = None):
    """Mean similarity of each query row to its ``k`` nearest database rows (CSLS's r terms).

    Conneau et al. (2018), "Word translation without parallel data", ICLR, eq. 3 (the text
    after it): r_T(Wx_s) = (1/K) Σ_{y_t ∈ N_T(Wx_s)} cos(Wx_s, y_t). Called with the mapped
    source as ``queries`` and the target vocabulary as ``database`` it gives r_T; with the roles
    swapped, r_S. The mean of :func:`topk`'s scores, in float64.

    Parameters
    ----------
    queries, database, k, metric, exclude
        As in :func:`topk`.
    memory_budget, progress, selector, n_jobs
        As in :func:`topk`.
    backend, client, query_block
        As in :func:`topk`: ``backend="dask"`` runs on a Dask cluster, ``"cuda"`` on the GPU.

    Returns
    -------
    r : array of float64, shape (q,)
    """
    dd = _dask_engine(backend, client, query_block)
    if dd is None:
        return _exact.knn_mean_similarity(queries, database, k, metric=metric, exclude=exclude,
                                         memory_budget=memory_budget, progress=progress, selector=selector,
                                         n_jobs=n_jobs, engine=_engine(backend))
    return dd.knn_mean_similarity(queries, database, k, metric=metric, exclude=exclude, client=client,
                                  query_block=query_block)


def csls_topk(queries, database, k: int = 10, *, csls_knn: int = 10, r_database=None, r_queries=None,
              source=None, exclude=None, memory_budget: int | None = None, progress: bool | None = None,
              selector: str = "auto", n_jobs: int | None = None,
              database_inv=None, source_inv=None, backend: str = "exact", client=None,
              query_block: int | None = None):
    """Top-``k`` database rows of each query by CSLS (cross-domain similarity local scaling).

    Conneau et al. (2018), "Word translation without parallel data", ICLR, eq. 3 (MUSE):
    CSLS(Wx_s, y_t) = 2 cos(Wx_s, y_t) − r_T(Wx_s) − r_S(y_t), with r_S over the whole mapped
    source vocabulary (``source``, or a precomputed ``r_database``; without either, the
    queries), where, with K = ``csls_knn``:

    * r_T(Wx_s) (``r_queries``) is the mean cosine of the mapped source vector Wx_s (a query)
      to its K nearest *target* vectors, over the whole target vocabulary (the ``database``);
    * r_S(y_t) (``r_database``) is the mean cosine of the target vector y_t (a database row) to
      its K nearest *mapped source* vectors, over the whole mapped source vocabulary.

    r_S must therefore be computed against the full mapped source space, not against the few
    words being translated: pass ``source`` (the whole mapped source matrix WX) or a
    precomputed ``r_database = knn_mean_similarity(database, source, csls_knn)``. Without
    either, r_S falls back to the given ``queries`` as the source space, which is MUSE's
    definition only when the queries are the whole source vocabulary. r_T(x) does not change
    one query's ranking; it is subtracted only to make the returned scores true CSLS values.
    No side is copied to unit length: cosines are scaled per tile from inverse row norms.

    Parameters
    ----------
    queries : array (q, d)
        Mapped source vectors Wx_s.
    database : array (n, d)
        Target vectors y_t (with ``backend="dask"``, anything :func:`topk` takes).
    k : int
        Neighbours to return per query.
    csls_knn : int
        K of the r terms (MUSE uses 10), capped at the size of the space it averages over.
    r_database, r_queries : arrays (n,) and (q,), optional
        Precomputed r_S and r_T.
    source : array (m, d), optional
        The whole mapped source vocabulary, used for r_S when ``r_database`` is not given.
    exclude, memory_budget, progress, selector, n_jobs
        As in :func:`topk`.
    database_inv, source_inv : arrays (n,) and (m,), optional
        Precomputed :func:`~embgeo.linalg.inverse_norms` of ``database`` and ``source``: each
        spares a pass over its side (an :class:`~embgeo.embeddings.Embeddings` caches its own,
        :func:`~embgeo.linalg.cached_inverse_norms`). With ``backend="dask"`` the workers
        compute those of their own rows.
    backend, client, query_block
        As in :func:`topk`: ``backend="dask"`` runs on a Dask cluster, r_S of each row on the
        worker holding it.

    Returns
    -------
    scores, indices : arrays, shape (q, k)
        CSLS values best first, and database rows (ties to the lower row).
    """
    csls_knn = check_csls_knn(csls_knn)
    dd = _dask_engine(backend, client, query_block)
    if dd is None:
        return _exact.csls_topk(queries, database, k, csls_knn=csls_knn, r_database=r_database, r_queries=r_queries,
                               source=source, exclude=exclude, memory_budget=memory_budget, progress=progress,
                               selector=selector, n_jobs=n_jobs, database_inv=database_inv, source_inv=source_inv,
                               engine=_engine(backend))
    return dd.csls_topk(queries, database, k, csls_knn=csls_knn, r_database=r_database, r_queries=r_queries,
                        source=source, exclude=exclude, client=client, query_block=query_block)


def _query_matrix(e, queries):
    """Resolve words / vectors to a raw query matrix and the self-exclusion rows."""
    if isinstance(queries, str):
        queries = [queries]
    if isinstance(queries, (list, tuple)) and not queries:
        # no query words: an empty (0, d) block gives empty (0, k) results
        return e.vectors[:0, ...], np.zeros(0, dtype=np.int64)
    if isinstance(queries, (list, tuple)) and all(isinstance(q, str) for q in queries):
        idx = e.indices(queries)
        return xb.take_rows(e.vectors, idx), idx
    return queries, None


def search(e, queries, k: int = 10, metric: str = "cosine", backend: str = "exact",
           exclude_self: bool = True, csls_knn: int = 10, **kwargs):
    """Neighbours of words (or vectors) in an :class:`~embgeo.embeddings.Embeddings`.

    Parameters
    ----------
    e : Embeddings
    queries : str, list of str, or array (q, d)
    k : int
    metric : {"cosine", "dot", "csls", "isf", "mp", "mp-gauss", "ls", "cdm", "dsl"}
        :data:`VALID_METRICS` lists those of each ``backend``. "csls" and "isf" treat the queries
        as the source space and ``e`` as the target (pass ``source=`` for the whole source
        space, or its precomputed term, ``r_database=`` for CSLS, ``log_partition=`` for isf;
        see :func:`csls_topk` and :func:`isf_topk`). For word queries (monolingual,
        hubness-corrected neighbours within ``e``) the source space defaults to the whole of
        ``e``: the term then costs one pass over all n² pairs, made once and kept with ``e``
        (per ``csls_knn``, or per ``isf_beta``). "isf" is the inverted softmax of BLI
        (``retrieval="isf"``, Smith et al. 2017, eq. 4), scores log P(y | x); it searches unit
        copies of the vectors (:func:`isf_topk`) and runs on the exact engine only. The hubness
        reductions of :data:`REDUCTION_METRICS` (mutual proximity, local scaling, NICDM,
        DisSimLocal: :func:`reduction_topk`) run on the exact engine too, with neighbourhoods of
        ``csls_knn`` words over the whole of ``e`` (kept with ``e``), or over ``source=``.
    backend : {"exact", "faiss", "dask", "cuda"}
        "cuda" runs the exact search on the GPU engine (see :func:`topk`; CuPy vectors, e.g.
        ``e.to("cuda")``, take it with "exact" too). "dask" runs the exact search on the current Dask client (or ``client=``), the vectors
        sharded by rows across its workers (``e`` may hold a dask array), with the same results.
        "faiss" searches a :class:`~embgeo.neighbors.faiss_index.FaissIndex` (cosine and dot
        only): pass ``kind="hnsw"`` or ``"ivf"`` and its parameters for approximate search. The
        index is built on the first call and kept with ``e`` (one per kind, parameters and
        metric; see :func:`embgeo.neighbors.faiss_index.cached_faiss_index`), or pass a prebuilt one
        as ``index=``.
    exclude_self : bool
        Drop each query word from its own list (ignored for vector queries).
    csls_knn : int
        K of the CSLS r terms, and of the hubness reductions' neighbourhoods.
    **kwargs
        Passed on to :func:`topk`, :func:`csls_topk` or :func:`isf_topk` (``memory_budget``,
        ``progress``, ``exclude``, ``isf_beta``, ...). ``screen=True`` screens with the rotation index of ``e``, built on the
        first such call and kept with ``e`` (one per metric).

    Returns
    -------
    scores, indices : arrays, shape (q, k)
    """
    check_metric(metric, check_backend(backend))
    csls_knn = check_csls_knn(csls_knn)
    e.check_finite()  # the whole vocabulary is searched: once per e, a NaN row names its word
    Q, idx = _query_matrix(e, queries)
    exclude = kwargs.pop("exclude", None)
    if exclude_self and idx is not None:
        exclude = idx if exclude is None else [np.append(np.atleast_1d(x), i) for x, i in zip(exclude, idx)]
    if backend == "faiss":
        return _faiss_search(e, Q, k, metric, exclude, kwargs)
    if "index" in kwargs:
        raise TypeError("index= needs backend='faiss'")
    if metric == "isf":
        return _isf_search(e, Q, k, idx is not None, exclude, kwargs)
    if metric in REDUCTION_METRICS:
        return _reduction_search(e, Q, k, metric, idx, exclude, csls_knn, kwargs)
    local = backend in ("exact", "cuda")
    inv = linalg.cached_inverse_norms(e, kwargs.get("memory_budget")) if local and metric != "dot" else None
    if metric == "csls":
        if idx is not None and kwargs.get("source") is None and kwargs.get("r_database") is None:
            # monolingual CSLS: the source space is the whole vocabulary; its r_S does not depend
            # on the queries, so the local engine keeps it with e (a whole-vocabulary search)
            if local:
                kwargs["r_database"] = _cached_r_database(e, csls_knn, kwargs)
            else:
                kwargs["source"], kwargs["source_inv"] = e.vectors, inv
        return csls_topk(Q, e.vectors, k, csls_knn=csls_knn, exclude=exclude, database_inv=inv, backend=backend,
                         **kwargs)
    if not local:
        return topk(Q, e.vectors, k, metric=metric, exclude=exclude, backend=backend, **kwargs)
    if kwargs.get("screen") is True and xb.is_numpy(e.vectors):
        kwargs["screen"] = cached_screen_index(e, metric, inv)
    # e passed check_finite above: only the queries need the finiteness check
    Q = _query_rows(Q, e.vectors)
    xp = xb.get_namespace(e.vectors)
    q_inv = linalg.inverse_norms(Q, "queries", memory_budget=kwargs.get("memory_budget")) if metric == "cosine" \
        else None
    return prepared_topk(xp, Q, e.vectors, k, exclude, q_inv, inv, engine=_engine(backend), **kwargs)


def _isf_search(e, Q, k, words, exclude, kwargs):
    """:func:`search` with ``metric="isf"``: the inverted softmax of :func:`isf_topk`."""
    beta = float(kwargs.pop("isf_beta", 30.0))
    if words and kwargs.get("source") is None and kwargs.get("log_partition") is None:
        # monolingual: the denominators sum over the whole vocabulary; they do not depend on
        # the queries, so they are computed once per β and kept with e
        V = e.vectors
        kwargs["log_partition"] = linalg.derived(e, ("isf_log_partition", beta), lambda: isf_log_partition(
            V, V, beta, memory_budget=kwargs.get("memory_budget"), progress=kwargs.get("progress")))
    return isf_topk(Q, e.vectors, k, isf_beta=beta, exclude=exclude, **kwargs)


def _reduction_search(e, Q, k, metric, idx, exclude, knn, kwargs):
    """:func:`search` with a hubness reduction (:func:`reduction_topk`), K = ``csls_knn``."""
    if kwargs.get("source") is None:
        # monolingual: the statistics run over the whole vocabulary and do not depend on the
        # queries, so they are computed once per (metric, K) and kept with e
        kwargs["stats"] = linalg.derived(e, ("reduction_stats", metric, knn), lambda: reduction_stats(
            e.vectors, metric, knn, memory_budget=kwargs.get("memory_budget"), progress=kwargs.get("progress")))
        kwargs["query_rows"] = idx
    return reduction_topk(Q, e.vectors, k, metric=metric, knn=knn, exclude=exclude, **kwargs)


def _faiss_search(e, Q, k, metric, exclude, kwargs):
    """:func:`search` with ``backend="faiss"``: the cached (or given) index of ``e``."""
    progress = kwargs.pop("progress", None)  # for the build of the index
    for name in ("memory_budget", "selector", "n_jobs"):  # exact-search options
        kwargs.pop(name, None)
    index = kwargs.pop("index", None)
    if index is None:
        index = cached_faiss_index(e, metric=metric, progress=progress, **kwargs)
    elif kwargs:
        raise TypeError(f"index= is prebuilt: {', '.join(sorted(kwargs))} cannot apply to it")
    else:
        index.check_matches(e, metric)
    s, i = index.search(Q, k, exclude=exclude)
    if not xb.is_numpy(e.vectors):
        xp = xb.get_namespace(e.vectors)
        s, i = xp.asarray(s), xp.asarray(i)
    return s, i


def _cached_r_database(e, csls_knn: int, opts: dict):
    """CSLS's r_S of every word of ``e`` against its own vocabulary, computed once per ``csls_knn``.

    It does not depend on the queries, but is a search of the whole vocabulary against itself
    (~3 minutes for GloVe's 400k words on 2 cores): kept beside ``e`` and dropped with it, n
    numbers per ``csls_knn``. Canonical scores make it independent of the search options.
    """
    V = e.vectors
    return linalg.derived(e, ("csls_r_database", csls_knn), lambda: _exact.knn_mean_similarity(
        V, V, min(csls_knn, V.shape[0]), memory_budget=opts.get("memory_budget"),
        progress=opts.get("progress"), n_jobs=opts.get("n_jobs")))


def _query_rows(Q, like):
    """Queries as a checked 2-D matrix of ``like``'s library and dtype."""
    Q = xb.asarray(Q, like=like)
    xp = xb.get_namespace(like)
    if Q.ndim == 1:
        Q = xp.reshape(Q, (1, -1))
    Q = xp.astype(xb.check_matrix(Q, "queries", allow_empty=True), like.dtype)
    if Q.shape[1] != like.shape[1]:
        raise ValueError(f"queries have dimension {Q.shape[1]} but the database has {like.shape[1]}")
    return Q


def most_similar(e, positive=None, negative=None, topn: int | None = 10, clip_start: int = 0,
                 clip_end: int | None = None, restrict_vocab: int | None = None, indexer=None):
    """gensim 4's ``KeyedVectors.most_similar`` over the words of an :class:`~embgeo.embeddings.Embeddings`.

    The one implementation behind :meth:`embgeo.Embeddings.most_similar` and
    :meth:`embgeo.KeyedVectors.most_similar`, with gensim's semantics: the query is the weighted
    mean Σ wᵢ vᵢ / Σ |wᵢ| of the entries, scaled to unit length, where a word (or integer row)
    enters as its unit vector and a raw vector as given (not normalised); ``positive`` entries
    weigh +1 and ``negative`` ones −1, and a ``(key, weight)`` tuple's weight *replaces* that
    sign in either list (``negative=[("man", 1.0)]`` adds man, as in gensim). Words are ranked by
    cosine over rows ``clip_start:clip_end`` (``restrict_vocab=n`` overrides both with ``0:n``),
    the key entries excluded. No unit-length copy of the vocabulary is made.

    Parameters
    ----------
    e : Embeddings
    positive, negative : str, int, vector, (key, weight) tuple, or a list of them; optional
    topn : int or None, default 10
        With None, the cosines to every row of the clipped range (input words included) as a
        NumPy array. ``topn < 1`` gives ``[]``.
    clip_start, clip_end, restrict_vocab : int, optional
    indexer : object with ``most_similar(vector, topn)``, optional
        An approximate index (e.g. gensim's ``AnnoyIndexer``), used as gensim does.

    Returns
    -------
    list of (word, float), or a NumPy array when ``topn`` is None
        Best first; ties go to the lower row.

    Raises
    ------
    UnknownWordError
        A word is not in the vocabulary (a KeyError, as in gensim).
    ValueError
        No positive or negative entry, or a vector of the wrong dimension.
    """
    return _gensim.most_similar(e, positive, negative, topn=topn, clip_start=clip_start, clip_end=clip_end,
                                restrict_vocab=restrict_vocab, indexer=indexer)
