"""Exact and approximate k-nearest-neighbour search over a vocabulary (cosine, dot, CSLS): the public entry points.

Every search returns the FAISS pair ``(scores, indices)``, both shaped (n_queries, k), best
first, ties broken towards the lower database row, whatever ran it.

This package is embgeo's one search engine; its ``__init__`` is the façade. :func:`topk`,
:func:`csls_topk` and :func:`knn_mean_similarity` search arrays and dispatch on ``backend=``, a
name or an engine object that carries the options only that engine understands (:class:`Exact`,
:class:`Dask`, :class:`Cuda`, and :class:`Faiss` for :func:`search`: ``_engines``);
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
from . import _codes, _dask, _exact, _gensim
from ._criteria import (ARRAY_BACKENDS, PAIRWISE_METRICS, REDUCTION_METRICS, RETRIEVAL_METRICS, VALID_METRICS,
                        VALID_RETRIEVALS,
                        check_metric, check_retrieval)
from ._engines import Cuda, Dask, Exact, as_engine
from ._exact import check_csls_knn, prepared_topk, select_topk
from ._isf import isf_log_partition, isf_topk
from ._ranking import merge_topk
from ._reduction import reduction_ranks, reduction_stats, reduction_topk
from ._screening import cached_screen_index
from .faiss_index import Faiss, cached_faiss_index

__all__ = ["Exact", "Dask", "Cuda", "Faiss", "topk", "csls_topk", "isf_topk", "isf_log_partition",
           "knn_mean_similarity", "search", "most_similar", "merge_topk", "select_topk", "self_topk",
           "reduction_topk", "reduction_ranks", "reduction_stats", "VALID_METRICS", "PAIRWISE_METRICS",
           "ARRAY_BACKENDS", "REDUCTION_METRICS", "RETRIEVAL_METRICS", "VALID_RETRIEVALS", "as_engine",
           "check_metric", "check_retrieval"]

def _local(engine, *, screen: bool = True) -> dict:
    """The local engine's keyword arguments for an :class:`Exact` or :class:`Cuda` engine."""
    if isinstance(engine, Cuda):
        return dict(engine="cuda")
    opts = dict(selector=engine.selector, n_jobs=engine.n_jobs)
    if screen:
        opts["screen"] = engine.screen
    elif engine.screen:
        raise ValueError("CSLS does not screen (its scores are biased per candidate): pass an Exact engine "
                         "without screen=")
    return opts


def topk(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None,
         memory_budget: int | None = None, progress: bool | None = None, check_finite: bool = True,
         backend="exact"):
    """Exact top-``k`` neighbours of each query row among the database rows.

    Parameters
    ----------
    queries : array, shape (q, d) or (d,)
        The query rows.
    database : array, shape (n, d)
        Same array library as ``queries`` (NumPy, CuPy or array-API). With the Dask engine also a
        dask array, a memory-mapped ``.npy`` or its path, or a
        :class:`~embgeo.distributed.ShardedDatabase` (see :func:`embgeo.distributed.shard`), and
        ``queries`` may be that same object (a self-join: the query blocks are the shards).
    k : int, default 10
        Number of neighbours, 1 ≤ k ≤ n − (most rows excluded for one query).
    metric : {"cosine", "dot", "hamming"}, default "cosine"
        Cosine scales both sides to unit length first (zero vectors score 0). On codes
        (:func:`embgeo.quantize`): "hamming" over ``uint8`` packed bits (integer distances,
        smallest first) and "dot" over ``int8`` codes (integer scores), both exact, on the
        Exact and Cuda engines; queries are codes of the same kind.
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
        n/2 bytes), ``memory_budget`` and a fixed overhead under 256 KiB. With the GPU engine it
        counts device memory; the Dask engine's workers run with the default.
    progress : bool, optional
        Show a progress bar over blocks of queries (default: the global setting).
    check_finite : bool, default True
        Refuse NaN/inf in queries and database. Turning it off spares the local engines a pass
        over the database when it is known to be finite (an :class:`~embgeo.embeddings.Embeddings`
        checks its own once); NaN scores would then give undefined rankings. The Dask engine
        checks the rows on its workers whatever this says.
    backend : {"exact", "dask", "cuda"} or Exact or Dask or Cuda, default "exact"
        The engine, by name (with its default options) or as an engine object that carries its
        options: :class:`Exact` runs the blocked search here (``selector``, ``n_jobs``,
        ``screen``); :class:`Dask` shards the database by rows over the workers of a Dask client
        and merges the per-shard lists (``client``, ``query_block``); :class:`Cuda` runs the GPU
        engine, NumPy inputs copied to the device a block at a time and the results returned as
        NumPy. All three give the same scores and indices. CuPy inputs take the GPU engine with
        "exact" too (their results are CuPy).

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
        database (the row is named), unknown metric or backend, bad ``exclude``.
    TypeError
        ``backend`` is neither an engine name nor an engine object.

    See Also
    --------
    search : the neighbours of words of an :class:`~embgeo.embeddings.Embeddings`.
    csls_topk : the same search ranked by CSLS.
    self_topk : every row's neighbours among the other rows.
    merge_topk : merge the lists of searches over row shards.
    Exact, Dask, Cuda : the engines and their options.
    embgeo.neighbors.faiss_index.faiss_search : the same call answered by FAISS.

    Notes
    -----
    On NumPy (C-ordered or not, float32/float64, the Exact engine's ``selector`` "auto" or
    "numba") every returned score is *canonical*: one fixed-order float64 dot product of the
    (unit) query with the database row, times the row's inverse norm, rounded once to the
    database dtype. So scores and order do not depend on the tiling, the threads, the screening
    or a split of the database into shards: searching row blocks ``D[a:b]``, adding ``a`` to their
    indices and merging them with :func:`merge_topk`, or the Dask engine, gives bit-identical
    results.

    Examples
    --------
    >>> import numpy as np
    >>> D = np.array([[1, 0], [0, 1], [1, 1], [1, 0]], dtype=np.float32)
    >>> s, i = topk(D[:1], D, 2, exclude=[0])
    >>> i.tolist()
    [[3, 2]]
    >>> topk(D[:1], D, 2, exclude=[0], backend=Exact(n_jobs=1))[1].tolist()
    [[3, 2]]
    """
    engine = as_engine(backend)
    if _codes.is_code_search(database, metric):
        return _codes.topk(queries, database, k, metric=metric, exclude=exclude, memory_budget=memory_budget,
                           engine=engine)
    if isinstance(engine, Dask):
        return _dask.topk(queries, database, k, metric=metric, exclude=exclude, client=engine.client,
                          query_block=engine.query_block)
    return _exact.topk(queries, database, k, metric=metric, exclude=exclude, memory_budget=memory_budget,
                       progress=progress, check_finite=check_finite, **_local(engine))


def self_topk(X, k: int = 10, *, metric: str = "cosine", memory_budget: int | None = None,
              progress: bool | None = None, check_finite: bool = True, symmetric: bool | None = None,
              backend="exact"):
    """Every row's top-``k`` among the *other* rows of ``X``: ``topk(X, X, k, exclude=self)``.

    The local engines' search is the canonical one of :func:`topk` (its scores the same bits
    whatever the tiling or sharding), or, with ``symmetric=True``, each pair (i, j) scored once by
    one GEMM tile and merged into the heaps of both i and j. The symmetric path halves the GEMM but
    merges every score twice, so it pays only when the GEMM dominates: measured
    (``benchmarks/compare_negatives.py``, CPU seconds) 1.24× faster than the plain route at
    d = 300, a wash at d = 50. Its scores are the GEMM's float32 ones. The Dask engine shards the
    rows once and joins each shard, already on its worker, with all of them (the table of the
    canonical route, exactly).

    Parameters
    ----------
    X : array, shape (n, d)
        The rows; with the Dask engine anything :func:`embgeo.distributed.shard` takes.
    k : int, default 10
        Neighbours per row, 1 ≤ k ≤ n − 1.
    metric : {"cosine", "dot"}, default "cosine"
        As in :func:`topk`.
    memory_budget : int, optional
        As in :func:`topk`.
    progress : bool, optional
        As in :func:`topk`.
    check_finite : bool, default True
        As in :func:`topk`.
    symmetric : bool, optional
        True: the symmetric path of the :class:`Exact` engine on C-ordered NumPy rows (faster for
        d ≳ 128, float32 GEMM scores); None or False (default): the canonical route.
    backend : {"exact", "dask", "cuda"} or Exact or Dask or Cuda, default "exact"
        As in :func:`topk`.

    Returns
    -------
    scores : array, shape (n, k)
        Similarities, best first. With ``symmetric=True`` they can differ from :func:`topk`'s in
        the last float32 bit (the unit scaling is applied to both sides before the GEMM), so
        near-ties may order differently.
    indices : array of int64, shape (n, k)
        Rows, ties to the lower row, never the row itself.

    Raises
    ------
    ValueError
        As :func:`topk`; ``symmetric=True`` with the Dask engine.

    See Also
    --------
    topk : the search of other queries.
    embgeo.negatives.synonym_table : a neighbour table of words built on it.

    Examples
    --------
    >>> import numpy as np
    >>> scores, ids = self_topk(np.array([[1, 0], [2, 1], [0, 1]], dtype=np.float32), 1, metric="dot")
    >>> ids.ravel().tolist(), scores.ravel().tolist()
    ([1, 0, 1], [2.0, 2.0, 1.0])
    """
    engine = as_engine(backend)
    if isinstance(engine, Dask):
        if symmetric:
            raise ValueError("symmetric=True is a path of the local engine; the Dask engine joins shards")
        return _dask.self_topk(X, k, metric=metric, client=engine.client, query_block=engine.query_block)
    return _exact.self_topk(X, k, metric=metric, memory_budget=memory_budget, progress=progress,
                            check_finite=check_finite, symmetric=symmetric, **_local(engine))


def knn_mean_similarity(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None,
                        memory_budget: int | None = None, progress: bool | None = None, backend="exact"):
    """Mean similarity of each query row to its ``k`` nearest database rows (CSLS's r terms).

    Conneau et al. (2018), "Word translation without parallel data", ICLR, eq. 3 (the text
    after it): r_T(Wx_s) = (1/K) Σ_{y_t ∈ N_T(Wx_s)} cos(Wx_s, y_t). Called with the mapped
    source as ``queries`` and the target vocabulary as ``database`` it gives r_T; with the roles
    swapped, r_S. The mean of :func:`topk`'s scores, in float64, computed a block of queries at a
    time (the lists of a whole vocabulary never exist at once).

    Parameters
    ----------
    queries : array, shape (q, d)
        The rows whose neighbourhoods are averaged.
    database : array, shape (n, d)
        The space searched (with the Dask engine, anything :func:`topk` takes).
    k : int, default 10
        K, the neighbours averaged (MUSE uses 10).
    metric : {"cosine", "dot"}, default "cosine"
        As in :func:`topk`.
    exclude : array or sequence, optional
        As in :func:`topk`.
    memory_budget : int, optional
        As in :func:`topk`.
    progress : bool, optional
        As in :func:`topk`.
    backend : {"exact", "dask", "cuda"} or Exact or Dask or Cuda, default "exact"
        As in :func:`topk`.

    Returns
    -------
    r : array of float64, shape (q,)
        The mean of each query's top-``k`` similarities.

    Raises
    ------
    ValueError
        As :func:`topk`.

    See Also
    --------
    csls_topk : the search these terms correct.

    Examples
    --------
    >>> import numpy as np
    >>> D = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.float32)
    >>> knn_mean_similarity(D[:1], D, 2, metric="dot").tolist()
    [1.0]
    """
    engine = as_engine(backend)
    if isinstance(engine, Dask):
        return _dask.knn_mean_similarity(queries, database, k, metric=metric, exclude=exclude,
                                         client=engine.client, query_block=engine.query_block)
    return _exact.knn_mean_similarity(queries, database, k, metric=metric, exclude=exclude,
                                      memory_budget=memory_budget, progress=progress, **_local(engine))


def csls_topk(queries, database, k: int = 10, *, csls_knn: int = 10, r_database=None, r_queries=None,
              source=None, exclude=None, memory_budget: int | None = None, progress: bool | None = None,
              backend="exact"):
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
    queries : array, shape (q, d)
        Mapped source vectors Wx_s.
    database : array, shape (n, d)
        Target vectors y_t (with the Dask engine, anything :func:`topk` takes).
    k : int, default 10
        Neighbours to return per query.
    csls_knn : int, default 10
        K of the r terms (MUSE uses 10), capped at the size of the space it averages over.
    r_database : array, shape (n,), optional
        Precomputed r_S of the database rows.
    r_queries : array, shape (q,), optional
        Precomputed r_T of the queries.
    source : array, shape (m, d), optional
        The whole mapped source vocabulary, used for r_S when ``r_database`` is not given.
    exclude : array or sequence, optional
        As in :func:`topk`.
    memory_budget : int, optional
        As in :func:`topk`.
    progress : bool, optional
        As in :func:`topk`.
    backend : {"exact", "dask", "cuda"} or Exact or Dask or Cuda, default "exact"
        As in :func:`topk` (an Exact engine without ``screen``: CSLS is not screened). The Dask
        engine computes r_S of each database row on the worker holding it.

    Returns
    -------
    scores : array, shape (q, k)
        CSLS values, best first.
    indices : array of int64, shape (q, k)
        Database rows, ties to the lower row.

    Raises
    ------
    ValueError
        As :func:`topk`; a ``csls_knn`` that is not a positive integer, an empty source space,
        ``r_database`` or ``r_queries`` of the wrong shape, an Exact engine with ``screen``.

    See Also
    --------
    knn_mean_similarity : the r terms.
    search : ``metric="csls"`` over the words of an :class:`~embgeo.embeddings.Embeddings`.
    embgeo.crosslingual.retrieve : CSLS retrieval for translation.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.float32)
    >>> csls_topk(X[:1], X, 2, csls_knn=1, source=X)[1].tolist()
    [[0, 2]]
    """
    csls_knn = check_csls_knn(csls_knn)
    engine = as_engine(backend)
    if isinstance(engine, Dask):
        return _dask.csls_topk(queries, database, k, csls_knn=csls_knn, r_database=r_database, r_queries=r_queries,
                               source=source, exclude=exclude, client=engine.client, query_block=engine.query_block)
    return _exact.csls_topk(queries, database, k, csls_knn=csls_knn, r_database=r_database, r_queries=r_queries,
                            source=source, exclude=exclude, memory_budget=memory_budget, progress=progress,
                            **_local(engine, screen=False))


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


def search(e, queries, k: int = 10, metric: str = "cosine", backend="exact", exclude_self: bool = True,
           csls_knn: int = 10, **kwargs):
    """Neighbours of words (or vectors) in an :class:`~embgeo.embeddings.Embeddings`.

    The one implementation behind :meth:`embgeo.Embeddings.neighbors`. The whole vocabulary is
    searched; ``e`` is checked for NaN/inf once (a bad row names its word), and what a search of
    ``e`` would recompute each time is kept with ``e``: its inverse row norms, CSLS's and the
    inverted softmax's per-candidate terms, screening and FAISS indexes.

    Parameters
    ----------
    e : Embeddings
        The vocabulary searched.
    queries : str, list of str, or array, shape (q, d)
        Words of ``e`` or query vectors.
    k : int, default 10
        Neighbours per query.
    metric : {"cosine", "dot", "csls", "isf", "mp", "mp-gauss", "ls", "cdm", "dsl"}, default "cosine"
        :data:`VALID_METRICS` lists those of each engine. "csls" and "isf" treat the queries as
        the source space and ``e`` as the target (pass ``source=`` for the whole source space,
        or its precomputed term, ``r_database=`` for CSLS, ``log_partition=`` for isf; see
        :func:`csls_topk` and :func:`isf_topk`). For word queries (monolingual,
        hubness-corrected neighbours within ``e``) the source space defaults to the whole of
        ``e``: the term then costs one pass over all n² pairs, made once and kept with ``e``
        (per ``csls_knn``, or per ``isf_beta``). "isf" is the inverted softmax of BLI
        (``retrieval="isf"``, Smith et al. 2017, eq. 4), scores log P(y | x); it searches unit
        copies of the vectors (:func:`isf_topk`) and runs on the exact engine only. The hubness
        reductions of :data:`REDUCTION_METRICS` (mutual proximity, local scaling, NICDM,
        DisSimLocal: :func:`reduction_topk`) run on the exact engine too, with neighbourhoods of
        ``csls_knn`` words over the whole of ``e`` (kept with ``e``), or over ``source=``.
    backend : {"exact", "faiss", "dask", "cuda"} or Exact or Faiss or Dask or Cuda, default "exact"
        The engine, as in :func:`topk`, or FAISS. ``Exact(screen=True)`` screens with the
        rotation index of ``e``, built on the first such call and kept with ``e`` (one per
        metric). :class:`Faiss` searches a :class:`~embgeo.neighbors.faiss_index.FaissIndex`
        (cosine and dot only): ``Faiss("hnsw")`` or ``Faiss("ivf")``, with the kind's
        parameters, for approximate search. The index is built on the first call and kept with
        ``e`` (one per kind, parameters and metric; see
        :func:`embgeo.neighbors.faiss_index.cached_faiss_index`), or ``Faiss(index=...)`` searches
        a prebuilt one.
    exclude_self : bool, default True
        Drop each query word from its own list (ignored for vector queries).
    csls_knn : int, default 10
        K of the CSLS r terms, and of the hubness reductions' neighbourhoods.
    **kwargs
        ``memory_budget``, ``progress`` and ``exclude`` as in :func:`topk`; with
        ``metric="csls"`` also ``source``, ``r_database``, ``r_queries`` (:func:`csls_topk`);
        with ``metric="isf"`` also ``source``, ``isf_beta``, ``log_partition`` (:func:`isf_topk`).

    Returns
    -------
    scores : array, shape (q, k)
        Best first, in the array library of ``e``.
    indices : array of int64, shape (q, k)
        Rows of ``e`` (``e.words[i]``), ties to the lower row.

    Raises
    ------
    UnknownWordError
        A query word is not in ``e``.
    ValueError
        A metric the engine does not run, NaN/inf in ``e`` (the word is named), and as
        :func:`topk`.
    TypeError
        A keyword argument the metric does not take.

    See Also
    --------
    topk, csls_topk, isf_topk : the searches of arrays behind it.
    most_similar : gensim's query arithmetic over the same words.

    Examples
    --------
    >>> import numpy as np
    >>> from embgeo import Embeddings
    >>> e = Embeddings(["a", "b", "c"], np.array([[1, 0], [0, 1], [1, 1]], dtype=np.float32))
    >>> scores, ids = search(e, ["a"], 1)
    >>> e.words[int(ids[0, 0])]
    'c'
    """
    engine = as_engine(backend, tuple(VALID_METRICS))
    check_metric(metric, engine.name)
    csls_knn = check_csls_knn(csls_knn)
    e.check_finite()  # the whole vocabulary is searched: once per e, a NaN row names its word
    Q, idx = _query_matrix(e, queries)
    exclude = kwargs.pop("exclude", None)
    if exclude_self and idx is not None:
        exclude = idx if exclude is None else [np.append(np.atleast_1d(x), i) for x, i in zip(exclude, idx)]
    if isinstance(engine, Faiss):
        return _faiss_search(e, Q, k, metric, exclude, engine, kwargs)
    if metric == "isf":
        return _isf_search(e, Q, k, idx is not None, exclude, engine, kwargs)
    if metric in REDUCTION_METRICS:
        return _reduction_search(e, Q, k, metric, idx, exclude, csls_knn, kwargs)
    local = not isinstance(engine, Dask)
    inv = linalg.cached_inverse_norms(e, kwargs.get("memory_budget")) if local and metric != "dot" else None
    if metric == "csls":
        if idx is not None and kwargs.get("source") is None and kwargs.get("r_database") is None:
            # monolingual CSLS: the source space is the whole vocabulary; its r_S does not depend
            # on the queries, so the local engine keeps it with e (a whole-vocabulary search)
            if local:
                kwargs["r_database"] = _cached_r_database(e, csls_knn, kwargs, getattr(engine, "n_jobs", None))
            else:
                kwargs["source"] = e.vectors
        if not local:
            return csls_topk(Q, e.vectors, k, csls_knn=csls_knn, exclude=exclude, backend=engine, **kwargs)
        return _exact.csls_topk(Q, e.vectors, k, csls_knn=csls_knn, exclude=exclude, database_inv=inv,
                                **_local(engine, screen=False), **kwargs)
    opts = {name: kwargs.pop(name) for name in ("memory_budget", "progress") if name in kwargs}
    _refuse_options(kwargs, metric)
    if not local:
        return topk(Q, e.vectors, k, metric=metric, exclude=exclude, backend=engine, **opts)
    local_opts = _local(engine)
    if local_opts.get("screen") is True and xb.is_numpy(e.vectors):
        local_opts["screen"] = cached_screen_index(e, metric, inv)
    # e passed check_finite above: only the queries need the finiteness check
    Q = _query_rows(Q, e.vectors)
    xp = xb.get_namespace(e.vectors)
    q_inv = linalg.inverse_norms(Q, "queries", memory_budget=opts.get("memory_budget")) if metric == "cosine" \
        else None
    return prepared_topk(xp, Q, e.vectors, k, exclude, q_inv, inv, **local_opts, **opts)


def _isf_search(e, Q, k, words, exclude, engine, kwargs):
    """:func:`search` with ``metric="isf"``: the inverted softmax of :func:`isf_topk`."""
    beta = float(kwargs.pop("isf_beta", 30.0))
    if words and kwargs.get("source") is None and kwargs.get("log_partition") is None:
        # monolingual: the denominators sum over the whole vocabulary; they do not depend on
        # the queries, so they are computed once per β and kept with e
        V = e.vectors
        kwargs["log_partition"] = linalg.derived(e, ("isf_log_partition", beta), lambda: isf_log_partition(
            V, V, beta, memory_budget=kwargs.get("memory_budget"), progress=kwargs.get("progress")))
    return isf_topk(Q, e.vectors, k, isf_beta=beta, exclude=exclude, backend=engine, **kwargs)


def _refuse_options(unknown, metric):
    """A TypeError naming the keyword arguments of :func:`search` that ``metric`` does not take."""
    if unknown:
        raise TypeError(f"search() with metric={metric!r} got unexpected keyword argument(s) "
                        f"{', '.join(sorted(unknown))}")


def _reduction_search(e, Q, k, metric, idx, exclude, knn, kwargs):
    """:func:`search` with a hubness reduction (:func:`reduction_topk`), K = ``csls_knn``."""
    _refuse_options(set(kwargs) - {"source", "memory_budget", "progress"}, metric)
    if kwargs.get("source") is None:
        # monolingual: the statistics run over the whole vocabulary and do not depend on the
        # queries, so they are computed once per (metric, K) and kept with e
        kwargs["stats"] = linalg.derived(e, ("reduction_stats", metric, knn), lambda: reduction_stats(
            e.vectors, metric, knn, memory_budget=kwargs.get("memory_budget"), progress=kwargs.get("progress")))
        kwargs["query_rows"] = idx
    return reduction_topk(Q, e.vectors, k, metric=metric, csls_knn=knn, exclude=exclude, **kwargs)


def _faiss_search(e, Q, k, metric, exclude, engine, kwargs):
    """:func:`search` with the FAISS engine: the cached (or given) index of ``e``."""
    progress = kwargs.pop("progress", None)  # for the build of the index
    kwargs.pop("memory_budget", None)  # FAISS holds its own index: no blocked pass to budget
    if kwargs:
        raise TypeError(f"search() with the FAISS engine got unexpected keyword argument(s) "
                        f"{', '.join(sorted(kwargs))} (the index's options go on Faiss(...))")
    index = engine.index
    if index is None:
        index = cached_faiss_index(e, kind=engine.kind, metric=metric, progress=progress, **engine.params)
    else:
        index.check_matches(e, metric)
    s, i = index.search(Q, k, exclude=exclude)
    if not xb.is_numpy(e.vectors):
        xp = xb.get_namespace(e.vectors)
        s, i = xp.asarray(s), xp.asarray(i)
    return s, i


def _cached_r_database(e, csls_knn: int, opts: dict, n_jobs: int | None):
    """CSLS's r_S of every word of ``e`` against its own vocabulary, computed once per ``csls_knn``.

    It does not depend on the queries, but is a search of the whole vocabulary against itself
    (~3 minutes for GloVe's 400k words on 2 cores): kept beside ``e`` and dropped with it, n
    numbers per ``csls_knn``. Canonical scores make it independent of the search options.
    """
    V = e.vectors
    return linalg.derived(e, ("csls_r_database", csls_knn), lambda: _exact.knn_mean_similarity(
        V, V, min(csls_knn, V.shape[0]), memory_budget=opts.get("memory_budget"),
        progress=opts.get("progress"), n_jobs=n_jobs))


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
        The vocabulary searched.
    positive : str, int, vector, (key, weight) tuple, or a list of them, optional
        Entries that weigh +1 (unless a tuple gives the weight).
    negative : str, int, vector, (key, weight) tuple, or a list of them, optional
        Entries that weigh −1 (unless a tuple gives the weight).
    topn : int or None, default 10
        With None, the cosines to every row of the clipped range (input words included) as a
        NumPy array. ``topn < 1`` gives ``[]``.
    clip_start : int, default 0
        First row ranked.
    clip_end : int, optional
        Row after the last one ranked (default: the end of the vocabulary).
    restrict_vocab : int, optional
        Rank rows ``0:restrict_vocab`` only (gensim's spelling; overrides the clip).
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

    See Also
    --------
    search : the neighbours of many words or vectors at once, by any metric and engine.

    Examples
    --------
    >>> import numpy as np
    >>> from embgeo import Embeddings
    >>> e = Embeddings(["a", "b", "c"], np.array([[1, 0], [0, 1], [1, 1]], dtype=np.float32))
    >>> [w for w, _ in most_similar(e, positive=["a"], topn=2)]
    ['c', 'b']
    """
    return _gensim.most_similar(e, positive, negative, topn=topn, clip_start=clip_start, clip_end=clip_end,
                                restrict_vocab=restrict_vocab, indexer=indexer)
