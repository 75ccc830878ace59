"""Recall@k of an approximate FAISS index against the exact engine's lists (:func:`recall`)."""
from __future__ import annotations

import numpy as np

from ..embeddings import Embeddings
from ..neighbors.faiss_index import FaissIndex, RecallResult, cached_faiss_index
from ..quantization import CodeSearch, QuantizedEmbeddings

__all__ = ["recall"]


def recall(index, model, k: int = 10, queries=1000, *, random_state=0, memory_budget: int | None = None,
           progress: bool | None = None, **params) -> RecallResult:
    """Recall@k of a FAISS HNSW or IVF index over ``model`` against the certified exact lists.

    The measurement is :meth:`embgeo.neighbors.faiss_index.FaissIndex.recall` (it lives with
    the index, below this package, so that the index can report on itself); this function adds
    words and building by name.

    Parameters
    ----------
    index : FaissIndex, QuantizedEmbeddings or {"hnsw", "ivf", "flat"}
        A built index over the rows of ``model`` (its build time is the time its ``add`` calls
        took), or a kind: the index is then built here over ``model`` with ``**params``
        (``M``, ``ef_construction``, ``ef_search``; ``nlist``, ``nprobe``), timed, and kept with
        an Embeddings as ``e.neighbors(..., backend="faiss")`` keeps it. A
        :class:`~embgeo.quantization.QuantizedEmbeddings` of ``model``: the exact search on its codes
        (``rescore=r`` in ``params`` rescores the top r·k, :meth:`~embgeo.quantization.QuantizedEmbeddings.search`),
        with the float ``model``'s rows as queries, against the exact lists of ``model``.
    model : Embeddings or array (n, d)
        The indexed vectors (words name the queries).
    k : int
        The length of the lists compared.
    queries : int, list of str, int array or array (q, d)
        An int: that many words drawn at random (``random_state``; default 1000); words or rows
        of ``model``: those, each left out of its own lists; a matrix: outside queries.
    random_state, memory_budget, progress
        As in :meth:`~embgeo.neighbors.faiss_index.FaissIndex.recall`.
    **params
        The index's parameters when ``index`` is a kind (``M``, ``ef_construction``,
        ``ef_search``; ``nlist``, ``nprobe``).

    Returns
    -------
    RecallResult
        ``.recall``, ``.per_query``, ``.build_seconds``, ``.query_seconds``, ``.exact_seconds``.

    Raises
    ------
    ValueError
        Empty queries, k ≥ the vocabulary, an index over other rows.
    UnknownWordError
        A query word not in ``model``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((2000, 16)).astype(np.float32)
    >>> r = recall("hnsw", X, k=10, queries=200)
    >>> r.recall > 0.9, r.n_queries
    (True, 200)
    """
    if isinstance(queries, str):
        queries = [queries]
    if isinstance(queries, (list, tuple)):
        if not queries:
            raise ValueError("queries is empty: recall needs at least one query word")
        if all(isinstance(q, str) for q in queries):
            if not isinstance(model, Embeddings):
                raise TypeError("word queries need an Embeddings model; with an array pass row numbers")
            queries = np.asarray(model.indices(list(queries)), dtype=np.int64)
    if isinstance(index, QuantizedEmbeddings):
        # the exact search on its codes (rescore=r: rescored) against the float model's exact lists
        index = index.searcher(params.pop("rescore", None), params.pop("metric", "cosine"))
    if isinstance(index, str):
        metric = params.pop("metric", "cosine")
        if isinstance(model, Embeddings):
            index = cached_faiss_index(model, kind=index, metric=metric, progress=progress, **params)
        else:
            X = np.asarray(model)
            index = FaissIndex(X.shape[1], metric=metric, kind=index, **params)
            index.add(X)
    elif params:
        raise TypeError(f"index is prebuilt: {', '.join(sorted(params))} cannot apply to it")
    if not isinstance(index, (FaissIndex, CodeSearch)):
        raise TypeError(f"index must be a FaissIndex or a kind ('hnsw', 'ivf', 'flat'), got {type(index).__name__}")
    if isinstance(model, Embeddings) and isinstance(index, FaissIndex):
        index.check_matches(model)
    return index.recall(model, k, queries, random_state=random_state, memory_budget=memory_budget,
                        progress=progress)
