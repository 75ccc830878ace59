"""Exact k-nearest-neighbour search over a vocabulary (cosine, dot, CSLS): the public entry points.

Every search returns the FAISS pair ``(scores, indices)``, both shaped (n_queries, k), best
first, ties broken towards the lower database row, whatever ran it.

This module is the façade: the local blocked engine (GEMM tiles merged into heaps by a Numba
kernel, under a memory budget) lives in :mod:`embgeo.exact`, approximate search in
:mod:`embgeo.faiss_index`, and the engine over Dask shards in :mod:`embgeo.distributed`.
:func:`topk`, :func:`csls_topk` and :func:`knn_mean_similarity` dispatch on ``backend=``; the
engine's other public names (:func:`select_topk`, :func:`block_rows`, :func:`self_topk`, ...)
are importable from here as before; word-level search over an
:class:`~embgeo.embeddings.Embeddings` (:func:`search`, :func:`most_similar`) is defined here.
"""
from __future__ import annotations

import weakref

import numpy as np

from . import backend as xb
from . import exact
from .blocking import DEFAULT_MEMORY_BUDGET, block_rows
from .exact import check_csls_knn, prepared_topk, select_topk, self_topk
from .linalg import cached_inverse_norms, inverse_norms
from .ranking import merge_topk
from .validation import exclusion_csr, mask_excluded

__all__ = ["topk", "knn_mean_similarity", "csls_topk", "search", "most_similar", "block_rows",
           "exclusion_csr", "select_topk", "mask_excluded", "merge_topk", "self_topk", "inverse_norms",
           "cached_inverse_norms", "DEFAULT_MEMORY_BUDGET"]

_BACKENDS = ("exact", "dask")


def _dask_engine(backend, client, query_block):
    """:mod:`embgeo.distributed` for ``backend="dask"``, None for "exact"; refuses the Dask options
    without Dask and any other backend."""
    if backend == "dask":
        from . import distributed

        return distributed
    if backend not in _BACKENDS:
        hint = (" (FAISS: embgeo.faiss_index.faiss_search for arrays, neighbors.search(..., backend='faiss') "
                "for words)") if backend == "faiss" else ""
        raise ValueError(f"backend must be 'exact' or 'dask', got {backend!r}{hint}")
    for name, value in (("client", client), ("query_block", query_block)):
        if value is not None:
            raise TypeError(f"{name}= needs backend='dask'")
    return None


def topk(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None,
         memory_budget: int | None = None, progress: bool | None = None, selector: str = "auto",
         n_jobs: int | None = None, check_finite: bool = True, offset: int | None = None,
         screen=None, backend: str = "exact", client=None, query_block: int | None = None):
    """Exact top-``k`` neighbours of each query row among the database rows.

    Parameters
    ----------
    queries : array, shape (q, d) or (d,)
    database : array, shape (n, d)
        Same array library as ``queries``. With ``backend="dask"`` also a dask array, a
        memory-mapped ``.npy`` or its path, or a :class:`~embgeo.distributed.ShardedDatabase`
        (see :func:`embgeo.distributed.shard`).
    k : int
        Number of neighbours, 1 ≤ k ≤ n − (most rows excluded for one query).
    metric : {"cosine", "dot"}
        Cosine scales both sides to unit length first (zero vectors score 0).
    exclude : array or sequence, optional
        Per query, database rows never to return: an int array of shape (q,) (one row each,
        e.g. the query word itself), an int array (q, m) padded with -1, or a sequence of q ints
        or int sequences. Negative entries are ignored.
    memory_budget, progress, selector, n_jobs, check_finite, offset
        Options of the local engine, see :func:`embgeo.exact.topk` (``memory_budget`` bounds
        the score tiles, default 256 MiB; results never depend on it). With ``backend="dask"``
        each worker runs with its defaults, and ``offset`` is refused.
    screen : bool or ScreenIndex, optional
        The certified screened search of the local engine (:mod:`embgeo.screening`): a prebuilt
        index of ``database`` (e.g. :func:`embgeo.screening.cached_index` of an Embeddings), or
        True to build one for this call. Same rows and scores as without it.
    backend : {"exact", "dask"}
        "exact" (default) runs the blocked search here (:func:`embgeo.exact.topk`); "dask"
        shards the database by rows over the workers of a Dask client and merges the
        per-shard lists (:func:`embgeo.distributed.topk`), with the same results.
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
        return exact.topk(queries, database, k, metric=metric, exclude=exclude, memory_budget=memory_budget,
                          progress=progress, selector=selector, n_jobs=n_jobs, check_finite=check_finite,
                          offset=offset, screen=screen)
    if screen is not None and screen is not False:
        raise TypeError("screen= is an index of the local engine; backend='dask' does not take it")
    if offset is not None:
        raise TypeError("offset= is for one shard searched by the local engine; backend='dask' shards "
                        "the database itself")
    return dd.topk(queries, database, k, metric=metric, exclude=exclude, client=client, query_block=query_block)


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
        Options of the local engine (:func:`embgeo.exact.knn_mean_similarity`).
    backend, client, query_block
        As in :func:`topk`: ``backend="dask"`` runs on a Dask cluster
        (:func:`embgeo.distributed.knn_mean_similarity`).

    Returns
    -------
    r : array of float64, shape (q,)
    """
    dd = _dask_engine(backend, client, query_block)
    if dd is None:
        return exact.knn_mean_similarity(queries, database, k, metric=metric, exclude=exclude,
                                         memory_budget=memory_budget, progress=progress, selector=selector,
                                         n_jobs=n_jobs)
    return dd.knn_mean_similarity(queries, database, k, metric=metric, exclude=exclude, client=client,
                                  query_block=query_block)


def csls_topk(queries, database, k: int = 10, *, csls_knn: int = 10, r_database=None, r_queries=None,
              source=None, exclude=None, memory_budget: int | None = None, progress: bool | None = None,
              selector: str = "auto", n_jobs: int | None = None, knn: int | None = None,
              database_inv=None, source_inv=None, backend: str = "exact", client=None,
              query_block: int | None = None):
    """Top-``k`` database rows of each query by CSLS (cross-domain similarity local scaling).

    Conneau et al. (2018), "Word translation without parallel data", ICLR, eq. 3 (MUSE):
    CSLS(Wx_s, y_t) = 2 cos(Wx_s, y_t) − r_T(Wx_s) − r_S(y_t), with r_S over the whole mapped
    source vocabulary (``source``, or a precomputed ``r_database``; without either, the
    queries). See :func:`embgeo.exact.csls_topk` for the definitions and the local engine.

    Parameters
    ----------
    queries : array (q, d)
        Mapped source vectors Wx_s.
    database : array (n, d)
        Target vectors y_t (with ``backend="dask"``, anything :func:`topk` takes).
    k : int
        Neighbours to return per query.
    csls_knn : int
        K of the r terms (MUSE uses 10); ``knn`` is its deprecated spelling.
    r_database, r_queries, source, exclude
        As in :func:`embgeo.exact.csls_topk`.
    memory_budget, progress, selector, n_jobs, database_inv, source_inv
        Options of the local engine (:func:`embgeo.exact.csls_topk`); with ``backend="dask"``
        the workers compute the inverse norms of their own rows.
    backend, client, query_block
        As in :func:`topk`: ``backend="dask"`` runs on a Dask cluster
        (:func:`embgeo.distributed.csls_topk`), r_S of each row on the worker holding it.

    Returns
    -------
    scores, indices : arrays, shape (q, k)
        CSLS values best first, and database rows (ties to the lower row).
    """
    csls_knn = check_csls_knn(csls_knn, knn)
    dd = _dask_engine(backend, client, query_block)
    if dd is None:
        return exact.csls_topk(queries, database, k, csls_knn=csls_knn, r_database=r_database, r_queries=r_queries,
                               source=source, exclude=exclude, memory_budget=memory_budget, progress=progress,
                               selector=selector, n_jobs=n_jobs, database_inv=database_inv, source_inv=source_inv)
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
    metric : {"cosine", "dot", "csls"}
        "csls" treats the queries as the source space and ``e`` as the target (pass
        ``source=`` or ``r_database=`` for MUSE's r_S; see :func:`csls_topk`). For word queries
        (monolingual CSLS, hubness-corrected neighbours within ``e``) the source space defaults to
        the whole of ``e``: r_S then costs one pass over all n² pairs, so compute it once with
        ``knn_mean_similarity(e.vectors, e.vectors, csls_knn)`` and pass it as ``r_database=``
        when querying repeatedly.
    backend : {"exact", "faiss", "dask"}
        "dask" runs the exact search on the current Dask client (or ``client=``), the vectors
        sharded by rows across its workers (:func:`embgeo.distributed.search`; ``e`` may hold a
        dask array). "faiss" searches a :class:`~embgeo.faiss_index.FaissIndex` (cosine and dot only): pass
        ``kind="hnsw"`` or ``"ivf"`` and its parameters for approximate search. The index is
        built on the first call and kept with ``e`` (one per kind, parameters and metric; see
        :func:`embgeo.faiss_index.cached_index`), or pass a prebuilt one as ``index=``.
    exclude_self : bool
        Drop each query word from its own list (ignored for vector queries).
    csls_knn : int
        K of the CSLS r terms (``knn=`` is a deprecated alias).
    **kwargs
        Passed on (``memory_budget``, ``progress``, ``exclude``, ...).

    Returns
    -------
    scores, indices : arrays, shape (q, k)
    """
    if metric not in ("cosine", "dot", "csls"):
        raise ValueError(f"metric must be 'cosine', 'dot' or 'csls', got {metric!r}")
    if backend not in ("exact", "faiss", "dask"):
        raise ValueError(f"backend must be 'exact', 'faiss' or 'dask', got {backend!r}")
    csls_knn = check_csls_knn(csls_knn, kwargs.pop("knn", None))
    if backend == "dask":
        from . import distributed

        return distributed.search(e, queries, k, metric=metric, exclude_self=exclude_self, csls_knn=csls_knn,
                                  **kwargs)
    Q, idx = _query_matrix(e, queries)
    exclude = kwargs.pop("exclude", None)
    if exclude_self and idx is not None:
        exclude = idx if exclude is None else [np.append(np.atleast_1d(x), i) for x, i in zip(exclude, idx)]
    if backend == "faiss":
        if metric == "csls":
            raise ValueError("metric='csls' needs backend='exact'")
        from .faiss_index import cached_index

        for name in ("memory_budget", "progress", "selector", "n_jobs"):  # exact-search options
            kwargs.pop(name, None)
        index = kwargs.pop("index", None)
        if index is None:
            index = cached_index(e, metric=metric, **kwargs)
        elif kwargs:
            raise TypeError(f"index= is prebuilt: {', '.join(sorted(kwargs))} cannot apply to it")
        else:
            index.check_matches(e, metric)
        s, i = index.search(Q, k, exclude=exclude)
        if not xb.is_numpy(e.vectors):
            xp = xb.get_namespace(e.vectors)
            s, i = xp.asarray(s), xp.asarray(i)
        return s, i
    if "index" in kwargs:
        raise TypeError("index= needs backend='faiss'")
    inv = cached_inverse_norms(e) if metric != "dot" else None
    if metric == "csls":
        if idx is not None and kwargs.get("source") is None and kwargs.get("r_database") is None:
            # word queries: r_S over the whole vocabulary, which the queries are part of
            kwargs["r_database"] = _cached_r_database(e, csls_knn, kwargs)
        return csls_topk(Q, e.vectors, k, csls_knn=csls_knn, exclude=exclude, database_inv=inv, **kwargs)
    # Embeddings are finite by construction: only the queries need the finiteness check
    Q = _query_rows(Q, e.vectors)
    xp = xb.get_namespace(e.vectors)
    q_inv = inverse_norms(Q, "queries") if metric == "cosine" else None
    return prepared_topk(xp, Q, e.vectors, k, exclude, q_inv, inv, **kwargs)


_R_DATABASE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _cached_r_database(e, csls_knn: int, opts: dict):
    """CSLS's r_S of every word of ``e`` against its own vocabulary, computed once per ``csls_knn``.

    It does not depend on the queries, but is a search of the whole vocabulary against itself
    (~3 minutes for GloVe's 400k words on 2 cores): kept beside ``e`` and dropped with it, n
    numbers per ``csls_knn``. Canonical scores make it independent of the search options.
    """
    per_k = _R_DATABASE.setdefault(e, {})
    r = per_k.get(csls_knn)
    if r is None:
        V = e.vectors
        r = per_k[csls_knn] = exact.knn_mean_similarity(
            V, V, min(csls_knn, V.shape[0]), memory_budget=opts.get("memory_budget"),
            progress=opts.get("progress"), n_jobs=opts.get("n_jobs"))
    return r


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


def most_similar(e, positive=(), negative=(), topn: int | None = 10, restrict_vocab: int | None = None):
    """gensim-compatible ``most_similar``.

    The query is the mean of the unit vectors of ``positive`` (weight +1) and ``negative``
    (weight −1), scaled to unit length; words are ranked by cosine to it over the first
    ``restrict_vocab`` rows (all by default), the input words excluded. Entries may be words,
    ``(word, weight)`` pairs or vectors, as in gensim 4 ``KeyedVectors.most_similar``.
    No unit-length copy of the vocabulary is made (cosines are scaled per tile).

    Returns
    -------
    list of (word, float)
        At most ``topn`` pairs, best first (ties to the lower row). With ``topn=None``, as in
        gensim, the cosines to all ``restrict_vocab`` words instead (a float NumPy array, input
        words included).
    """
    if isinstance(positive, str):
        positive = [positive]
    if isinstance(negative, str):
        negative = [negative]
    items = [(x, 1.0) for x in (positive if positive is not None else ())]
    items += [(x, -1.0) for x in (negative if negative is not None else ())]
    if not items:
        raise ValueError("most_similar needs at least one positive or negative word")
    V = e.vectors
    inv = cached_inverse_norms(e)
    xp = xb.get_namespace(V)
    rows, weights, excl = [], [], []
    for key, sign in items:
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], (int, float, np.number)):
            key, w = key[0], sign * float(key[1])
        else:
            w = sign
        if isinstance(key, str):
            i = e.index(key)
            excl.append(i)
            rows.append(V[i, ...] * inv[i, ...])
        else:
            v = xb.asarray(key, like=V, dtype=V.dtype)
            if v.shape != (e.dim,):
                raise ValueError(f"a query vector must have shape ({e.dim},), got {tuple(v.shape)}")
            v = _query_rows(v, V)
            rows.append((v * xp.reshape(inverse_norms(v, "queries"), (-1, 1)))[0, ...])
        weights.append(w)
    w = xb.asarray(np.asarray(weights), like=V, dtype=V.dtype)
    query = xp.sum(xp.stack(rows, axis=0) * xp.reshape(w, (-1, 1)), axis=0) / len(rows)
    query = _query_rows(query, V)
    query = query * xp.reshape(inverse_norms(query, "queries"), (-1, 1))
    n = len(e) if restrict_vocab is None else min(int(restrict_vocab), len(e))
    if n < 1:
        raise ValueError(f"restrict_vocab must be positive, got {restrict_vocab}")
    D = V if n == len(e) else V[:n, ...]
    d_inv = inv if n == len(e) else inv[:n, ...]
    if topn is None:
        return xb.to_numpy(_all_cosines(xp, query, D, d_inv))
    ex_rows = np.unique(np.asarray(excl, dtype=np.int64))
    ex_rows = ex_rows[ex_rows < n]
    k = min(int(topn), n - ex_rows.size)
    if k < 1:
        return []
    s, i = prepared_topk(xp, query, D, k, [ex_rows], None, d_inv, progress=False)
    s, i = xb.to_numpy(s)[0], xb.to_numpy(i)[0]
    return [(e.words[j], float(v)) for v, j in zip(s, i)]


def _all_cosines(xp, query, D, d_inv, block=1 << 16):
    """Cosines of one unit query to every row of ``D``, a block of rows at a time."""
    n = D.shape[0]
    parts = [(D[s:min(s + block, n), ...] @ query[0, ...]) * d_inv[s:min(s + block, n), ...]
             for s in range(0, n, block)]
    return parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)
