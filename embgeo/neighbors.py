"""Exact, blocked k-nearest-neighbour search over a vocabulary (cosine, dot, CSLS).

Every search returns the FAISS pair ``(scores, indices)``, both shaped (n_queries, k), best first,
whatever ran it. Work is split into blocks of queries so that one block's score matrix fits a
memory budget: the full n_queries × n_words matrix is never held in memory.
"""
from __future__ import annotations

import numpy as np

from . import backend
from .progress import progress_bar

__all__ = ["topk", "knn_mean_similarity", "csls_topk", "search", "most_similar", "block_rows"]

#: Bytes one block's score matrix may take (per block of queries), unless told otherwise.
DEFAULT_MEMORY_BUDGET = 256 * 2**20


def block_rows(n_columns: int, itemsize: int = 4, memory_budget: int | None = None, minimum: int = 1) -> int:
    """How many query rows fit the budget when each row has ``n_columns`` scores."""
    budget = DEFAULT_MEMORY_BUDGET if memory_budget is None else int(memory_budget)
    return max(minimum, budget // max(1, n_columns * itemsize))


def _prepare(queries, database, metric):
    if metric not in ("cosine", "dot"):
        raise ValueError(f"metric must be 'cosine' or 'dot', got {metric!r}")
    database = backend.check_matrix(database, "database")
    xp = backend.get_namespace(database)
    queries = backend.asarray(queries, like=database)
    if queries.ndim == 1:
        queries = xp.reshape(queries, (1, -1))
    queries = backend.check_matrix(queries, "queries", allow_empty=True)
    if queries.shape[1] != database.shape[1]:
        raise ValueError(
            f"queries have dimension {queries.shape[1]} but the database has {database.shape[1]}"
        )
    if queries.dtype != database.dtype:
        queries = xp.astype(queries, database.dtype)
    if metric == "cosine":
        from .normalize import normalize

        queries, database = normalize(queries, "unit"), normalize(database, "unit")
    return xp, queries, database


def _exclusion_mask_rows(exclude, n_queries):
    """Normalise ``exclude`` (one int, or one array of ints, per query) to a list of int arrays."""
    if exclude is None:
        return None
    if not isinstance(exclude, (list, tuple)):
        exclude = backend.to_numpy(exclude)
    rows = []
    for r in exclude:
        r = np.atleast_1d(np.asarray(backend.to_numpy(r), dtype=np.int64))
        rows.append(r[r >= 0])
    if len(rows) != n_queries:
        raise ValueError(f"exclude has {len(rows)} rows for {n_queries} queries")
    return rows


def _select_numpy(S, k):
    """Top-k of each row of a NumPy score block, best first; ties go to the lower index."""
    n = S.shape[1]
    if k < n:
        part = np.argpartition(-S, k - 1, axis=1)[:, :k]
    else:
        part = np.broadcast_to(np.arange(n), (S.shape[0], n)).copy()
    vals = np.take_along_axis(S, part, axis=1)
    # sort by (-score, index): lexsort's last key is primary
    order = np.lexsort((part, -vals), axis=1)
    return np.take_along_axis(vals, order, axis=1), np.take_along_axis(part, order, axis=1)


def _select_xp(xp, S, k):
    order = xp.argsort(-S, axis=1, stable=True)[:, :k]
    return xp.take_along_axis(S, order, axis=1), order


def topk(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None,
         memory_budget: int | None = None, progress: bool | None = None):
    """Exact top-``k`` neighbours of each query row among the database rows.

    Parameters
    ----------
    queries : array, shape (q, d) or (d,)
    database : array, shape (n, d)
        Same array library as ``queries`` (NumPy, CuPy or array-API).
    k : int
        Number of neighbours; must not exceed the number of candidates.
    metric : {"cosine", "dot"}
        Cosine normalises both sides to unit length first.
    exclude : sequence, optional
        Per query, the database rows never to return (an int, or an array of ints; -1 is
        ignored). Used to drop a query word from its own neighbour list.
    memory_budget : int, optional
        Bytes for one block of scores (default 256 MiB).
    progress : bool, optional
        Show a progress bar over blocks (default: the global setting).

    Returns
    -------
    scores : array, shape (q, k)
        Similarities, best first.
    indices : array of int64, shape (q, k)
        Database rows; ties are broken by the lower row.
    """
    xp, Q, D = _prepare(queries, database, metric)
    n = D.shape[0]
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    ex = _exclusion_mask_rows(exclude, Q.shape[0])
    max_ex = max((len(r) for r in ex), default=0) if ex is not None else 0
    if k > n - max_ex:
        raise ValueError(f"k={k} exceeds the {n - max_ex} candidates in the database")
    nq = Q.shape[0]
    step = block_rows(n, 4, memory_budget)
    out_s, out_i = [], []
    is_np = backend.is_numpy(D)
    DT = xp.matrix_transpose(D) if not is_np else D.T
    starts = range(0, nq, step)
    for s in progress_bar(starts, total=len(starts), desc="top-k", progress=progress, unit="block"):
        S = Q[s:min(s + step, nq), ...] @ DT
        if ex is not None:
            S = _apply_exclusion(xp, S, ex[s:min(s + step, nq)], is_np)
        if is_np:
            vs, ix = _select_numpy(S, k)
        else:
            vs, ix = _select_xp(xp, S, k)
        out_s.append(vs)
        out_i.append(ix)
    if not out_s:
        return xp.zeros((0, k), dtype=D.dtype), xp.zeros((0, k), dtype=xp.int64)
    return xp.concat(out_s, axis=0), xp.astype(xp.concat(out_i, axis=0), xp.int64)


def _apply_exclusion(xp, S, rows, is_np):
    if is_np:
        S = np.array(S, copy=True) if not S.flags.writeable else S
        for r, cols in enumerate(rows):
            if cols.size:
                S[r, cols] = -np.inf
        return S
    mask = np.zeros(tuple(S.shape), dtype=bool)
    for r, cols in enumerate(rows):
        mask[r, cols] = True
    return xp.where(xp.asarray(mask), xp.asarray(-xp.inf, dtype=S.dtype), S)


def knn_mean_similarity(queries, database, k: int = 10, *, metric: str = "cosine",
                        memory_budget: int | None = None, progress: bool | None = None):
    """Mean similarity of each query to its ``k`` nearest database rows (CSLS's r_T / r_S).

    Conneau et al. (2018), "Word translation without parallel data", eq. 3:
    r_T(Wx_s) = (1/K) Σ_{y_t ∈ N_T(Wx_s)} cos(Wx_s, y_t).
    """
    scores, _ = topk(queries, database, k, metric=metric, memory_budget=memory_budget, progress=progress)
    xp = backend.get_namespace(scores)
    return xp.mean(xp.astype(scores, xp.float64), axis=1)


def csls_topk(queries, database, k: int = 10, *, knn: int = 10, r_database=None, r_queries=None,
              exclude=None, memory_budget: int | None = None, progress: bool | None = None):
    """Top-``k`` database rows of each query by CSLS (cross-domain similarity local scaling).

    CSLS(x, y) = 2 cos(x, y) − r_T(x) − r_S(y) (Conneau et al. 2018, eq. 3), where r_S(y) is the
    mean cosine of database row y to its ``knn`` nearest queries... over the *whole* query space.
    Pass ``r_database`` computed against the full source vocabulary (as MUSE does); by default it is
    computed against the given ``queries``. The query term r_T(x) does not change a query's
    ranking, so it is included in the returned scores only to make them true CSLS values.

    Returns
    -------
    scores, indices : arrays, shape (q, k)
    """
    xp, Q, D = _prepare(queries, database, "cosine")
    if r_database is None:
        r_database = knn_mean_similarity(D, Q, min(knn, Q.shape[0]), memory_budget=memory_budget, progress=progress)
    if r_queries is None:
        r_queries = knn_mean_similarity(Q, D, min(knn, D.shape[0]), memory_budget=memory_budget, progress=progress)
    rD = xp.astype(backend.asarray(r_database, like=D), D.dtype)
    rQ = xp.astype(backend.asarray(r_queries, like=D), D.dtype)
    n = D.shape[0]
    ex = _exclusion_mask_rows(exclude, Q.shape[0])
    is_np = backend.is_numpy(D)
    nq = Q.shape[0]
    step = block_rows(n, 4, memory_budget)
    out_s, out_i = [], []
    DT = D.T if is_np else xp.matrix_transpose(D)
    starts = range(0, Q.shape[0], step)
    for s in progress_bar(starts, total=len(starts), desc="CSLS", progress=progress, unit="block"):
        e_ = min(s + step, nq)
        S = 2 * (Q[s:e_, ...] @ DT) - xp.reshape(rD, (1, -1)) - xp.reshape(rQ[s:e_], (-1, 1))
        if ex is not None:
            S = _apply_exclusion(xp, S, ex[s:min(s + step, nq)], is_np)
        vs, ix = _select_numpy(S, k) if is_np else _select_xp(xp, S, k)
        out_s.append(vs)
        out_i.append(ix)
    return xp.concat(out_s, axis=0), xp.astype(xp.concat(out_i, axis=0), xp.int64)


def _query_matrix(e, queries):
    """Resolve words / vectors to a query matrix and the self-exclusion rows."""
    if isinstance(queries, str):
        queries = [queries]
    if isinstance(queries, (list, tuple)) and queries and all(isinstance(q, str) for q in queries):
        idx = e.indices(queries)
        return e[list(queries)], idx
    return queries, None


def search(e, queries, k: int = 10, metric: str = "cosine", backend: str = "exact",
           exclude_self: bool = True, knn: int = 10, **kwargs):
    """Neighbours of words (or vectors) in an :class:`~embgeo.embeddings.Embeddings`.

    Parameters
    ----------
    e : Embeddings
    queries : str, list of str, or array (q, d)
    metric : {"cosine", "dot", "csls"}
    backend : {"exact", "faiss"}
    exclude_self : bool
        Drop each query word from its own list (ignored for vector queries).

    Returns
    -------
    scores, indices : arrays, shape (q, k)
    """
    Q, idx = _query_matrix(e, queries)
    exclude = idx if (exclude_self and idx is not None) else None
    if backend == "faiss":
        from .faiss_index import faiss_search

        return faiss_search(Q, e.vectors, k, metric=metric, exclude=exclude, **kwargs)
    if backend != "exact":
        raise ValueError(f"backend must be 'exact' or 'faiss', got {backend!r}")
    if metric == "csls":
        return csls_topk(Q, e.vectors, k, knn=knn, r_database=kwargs.pop("r_database", None),
                         exclude=exclude, **kwargs)
    return topk(Q, e.vectors, k, metric=metric, exclude=exclude, **kwargs)


def most_similar(e, positive=(), negative=(), topn: int = 10, restrict_vocab: int | None = None):
    """gensim-compatible ``most_similar``: list of (word, cosine) for the mean of the unit vectors
    of ``positive`` minus those of ``negative``, excluding the input words."""
    if isinstance(positive, str):
        positive = [positive]
    if isinstance(negative, str):
        negative = [negative]
    positive, negative = list(positive), list(negative)
    if not positive and not negative:
        raise ValueError("most_similar needs at least one positive or negative word")
    U = e.unit_vectors
    xp = backend.get_namespace(U)
    words = positive + negative
    idx = e.indices(words)
    weights = np.array([1.0] * len(positive) + [-1.0] * len(negative), dtype=np.float64)
    rows = U[idx, ...] if backend.is_numpy(U) else xp.take(U, xp.asarray(idx), axis=0)
    w = backend.asarray(weights, like=U, dtype=U.dtype)
    query = xp.sum(rows * xp.reshape(w, (-1, 1)), axis=0) / len(words)
    D = U if restrict_vocab is None else U[:int(restrict_vocab), ...]
    excl = idx[idx < D.shape[0]]
    k = min(int(topn), D.shape[0] - len(set(excl.tolist())))
    s, i = topk(xp.reshape(query, (1, -1)), D, k, metric="cosine", exclude=[excl], progress=False)
    s, i = backend.to_numpy(s)[0], backend.to_numpy(i)[0]
    return [(e.words[j], float(v)) for v, j in zip(s, i)]
