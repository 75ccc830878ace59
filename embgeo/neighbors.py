"""Exact, blocked k-nearest-neighbour search over a vocabulary (cosine, dot, CSLS).

Every search returns the FAISS pair ``(scores, indices)``, both shaped (n_queries, k), best
first, ties broken towards the lower database row, whatever ran it.

How the exact search runs on NumPy arrays: scores are computed by a float32 GEMM one *tile*
(a block of query rows × a block of database rows) at a time, and each tile is merged into
running per-query heaps by a Numba kernel (:mod:`embgeo.kernels.topk`). A tile stays in cache
between the GEMM that writes it and the kernel that reads it, so neither the n_queries × n_words
matrix nor even one full block row of it is ever written to memory. Blocks of queries run on
``n_jobs`` Python threads, each with a single-threaded BLAS (the GEMM and the kernel both
release the GIL): one level of parallelism, no BLAS and Numba thread pools fighting for the
same cores. ``selector="argpartition"`` keeps the plain NumPy path (full-row blocks +
``np.argpartition``), and any other array library (CuPy, array-API) takes a namespace path
(full-row blocks + stable ``argsort``); all three give the same answer.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import backend
from .progress import progress_bar

__all__ = ["topk", "knn_mean_similarity", "csls_topk", "search", "most_similar", "block_rows",
           "exclusion_csr", "select_topk", "DEFAULT_MEMORY_BUDGET"]

#: Bytes that the score blocks of one call may take, unless told otherwise.
DEFAULT_MEMORY_BUDGET = 256 * 2**20

# Tile shape for the Numba path: 256 × 4096 float32 = 4 MiB per thread, sized on GloVe 400k×50
# (benchmarks/compare_neighbors.py); wider tiles leave the cache, narrower ones pay call overhead.
_TILE_ROWS = 256
_TILE_COLS = 4096

_METRICS = ("cosine", "dot")
_SELECTORS = ("auto", "numba", "argpartition")


def block_rows(n_columns: int, itemsize: int = 4, memory_budget: int | None = None, minimum: int = 1) -> int:
    """How many rows of ``n_columns`` scores of ``itemsize`` bytes fit the memory budget.

    Parameters
    ----------
    n_columns : int
        Scores per row (e.g. the vocabulary size).
    itemsize : int
        Bytes per score (4 for float32).
    memory_budget : int, optional
        Bytes available (default :data:`DEFAULT_MEMORY_BUDGET`, 256 MiB).
    minimum : int
        Never return fewer rows than this (one row always fits by fiat).
    """
    budget = DEFAULT_MEMORY_BUDGET if memory_budget is None else int(memory_budget)
    return max(int(minimum), budget // max(1, int(n_columns) * int(itemsize)))


def _default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


# ---------------------------------------------------------------------------- validation
def _check_k(k, n_candidates):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer, got {type(k).__name__}")
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if k > n_candidates:
        raise ValueError(f"k={k} exceeds the {n_candidates} candidates in the database")
    return k


def _prepare(queries, database, metric, check_finite=True):
    """Validate and align (queries, database); cosine scales both to unit length."""
    if metric not in _METRICS:
        raise ValueError(f"metric must be 'cosine' or 'dot', got {metric!r}")
    database = backend.check_matrix(database, "database", check_finite=check_finite)
    xp = backend.get_namespace(database)
    queries = backend.asarray(queries, like=database)
    if queries.ndim == 1:
        queries = xp.reshape(queries, (1, -1))
    queries = backend.check_matrix(queries, "queries", allow_empty=True, check_finite=check_finite)
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


def exclusion_csr(exclude, n_queries: int, n_database: int):
    """Normalise ``exclude`` to CSR arrays ``(ptr, idx)``: sorted, unique columns per query.

    Parameters
    ----------
    exclude : None, int array (q,), int array (q, m), or a sequence of q ints / int sequences
        Database rows never to return, per query; negative entries (e.g. -1 padding or the
        "missing word" mark of :meth:`Embeddings.indices`) are ignored.
    n_queries, n_database : int

    Returns
    -------
    (ptr, idx) : int64 arrays of length q + 1 and nnz, or None when nothing is excluded.

    Raises
    ------
    ValueError
        Wrong number of rows, or a column outside the database.
    """
    if exclude is None:
        return None
    if isinstance(exclude, (list, tuple)):
        if len(exclude) != n_queries:
            raise ValueError(f"exclude has {len(exclude)} rows for {n_queries} queries")
        if all(isinstance(r, (int, np.integer)) for r in exclude):
            arr = np.asarray(exclude, dtype=np.int64).reshape(-1, 1)
        else:
            parts = [np.atleast_1d(np.asarray(backend.to_numpy(r), dtype=np.int64)).ravel() for r in exclude]
            lens = np.fromiter((p.size for p in parts), dtype=np.int64, count=len(parts))
            rows = np.repeat(np.arange(n_queries, dtype=np.int64), lens)
            cols = np.concatenate(parts) if parts else np.zeros(0, np.int64)
            return _csr_from_pairs(rows, cols, n_queries, n_database)
    else:
        arr = np.asarray(backend.to_numpy(exclude))
        if arr.dtype.kind not in "iu":
            raise TypeError(f"exclude must hold integer row indices, got dtype {arr.dtype}")
        arr = arr.astype(np.int64, copy=False)
        if arr.ndim == 1:
            arr = arr.reshape(-1, 1)
        if arr.ndim != 2:
            raise ValueError(f"exclude must be 1-D or 2-D, got ndim={arr.ndim}")
    if arr.shape[0] != n_queries:
        raise ValueError(f"exclude has {arr.shape[0]} rows for {n_queries} queries")
    rows = np.repeat(np.arange(n_queries, dtype=np.int64), arr.shape[1])
    return _csr_from_pairs(rows, arr.ravel(), n_queries, n_database)


def _csr_from_pairs(rows, cols, n_queries, n_database):
    keep = cols >= 0
    rows, cols = rows[keep], cols[keep]
    if cols.size and int(cols.max()) >= n_database:
        raise ValueError(f"exclude holds row {int(cols.max())} but the database has {n_database} rows")
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    if cols.size > 1:
        dup = np.zeros(cols.size, dtype=bool)
        dup[1:] = (rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1])
        rows, cols = rows[~dup], cols[~dup]
    ptr = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_queries), out=ptr[1:])
    return ptr, np.ascontiguousarray(cols)


def _max_excluded(ex):
    return 0 if ex is None or ex[0].size < 2 else int(np.diff(ex[0]).max())


def _slice_csr(ex, s, e):
    """CSR rows s..e-1 as (rows, cols) pairs relative to the block."""
    ptr, idx = ex
    a, b = int(ptr[s]), int(ptr[e])
    rows = np.repeat(np.arange(e - s), np.diff(ptr[s:e + 1]))
    return rows, idx[a:b]


# ---------------------------------------------------------------------------- selection
def _select_numpy(S, k):
    """Top-k of each row of a NumPy score block, best first; ties go to the lower index."""
    n = S.shape[1]
    if k < n:
        part = np.argpartition(-S, k - 1, axis=1)[:, :k]
    else:
        part = np.broadcast_to(np.arange(n), (S.shape[0], n)).copy()
    vals = np.take_along_axis(S, part, axis=1)
    order = np.lexsort((part, -vals), axis=1)  # last key is primary: score desc, then index asc
    vals, part = np.take_along_axis(vals, order, axis=1), np.take_along_axis(part, order, axis=1)
    if k < n:
        # argpartition picks arbitrarily among scores tied with the k-th: redo those rows exactly
        kth = vals[:, -1:]
        tied = np.flatnonzero(np.count_nonzero(S >= kth, axis=1) > k)
        for r in tied:  # rare: only rows with a tie across the k-th position
            cand = np.flatnonzero(S[r] >= kth[r, 0])
            o = np.lexsort((cand, -S[r, cand]))[:k]
            part[r], vals[r] = cand[o], S[r, cand[o]]
    return vals, part


def _select_xp(xp, S, k):
    order = xp.argsort(-S, axis=1, stable=True)[:, :k]
    return xp.take_along_axis(S, order, axis=1), order


def select_topk(S, k: int, exclude=None):
    """Top-``k`` of each row of one score block that a method computed itself.

    For methods whose scores are not a plain GEMM (fuzzy Jaccard, alpha limit embeddings): the
    same selection as :func:`topk` — best first, ties to the lower column, ``exclude`` in any form
    :func:`exclusion_csr` takes — on NumPy (the Numba heap kernel) or any array-API array.
    A NumPy ``S`` is overwritten at the excluded entries (only there).

    Returns
    -------
    scores, columns : arrays, shape (rows, k)
    """
    n_rows, n_cols = S.shape
    ex = exclusion_csr(exclude, n_rows, n_cols)
    k = _check_k(k, n_cols - _max_excluded(ex))
    if backend.is_numpy(S):
        from .kernels.topk import topk_rows

        return topk_rows(S, k, *(ex if ex is not None else (None, None)))
    xp = backend.get_namespace(S)
    if ex is not None:
        S = _apply_exclusion(xp, S, *_slice_csr(ex, 0, n_rows), False)
    return _select_xp(xp, S, k)


def _apply_exclusion(xp, S, rows, cols, is_np):
    if cols.size == 0:
        return S
    if is_np:
        S[rows, cols] = -np.inf
        return S
    mask = np.zeros(tuple(S.shape), dtype=bool)
    mask[rows, cols] = True
    return xp.where(xp.asarray(mask), xp.asarray(-xp.inf, dtype=S.dtype), S)


def _blocked_full_rows(xp, Q, D, k, ex, memory_budget, progress, desc, col_bias=None, scale=None):
    """Full-row blocks: one GEMM per block of queries, then argpartition / argsort selection."""
    n, nq = D.shape[0], Q.shape[0]
    is_np = backend.is_numpy(D)
    step = block_rows(n, 4, memory_budget)
    DT = D.T if is_np else xp.matrix_transpose(D)
    out_s, out_i = [], []
    starts = range(0, nq, step)
    for s in progress_bar(starts, total=len(starts), desc=desc, progress=progress, unit="block"):
        e = min(s + step, nq)
        S = Q[s:e, ...] @ DT
        if scale is not None:
            S = scale * S
        if col_bias is not None:
            S = S - xp.reshape(col_bias, (1, -1))
        if ex is not None:
            rows, cols = _slice_csr(ex, s, e)
            S = _apply_exclusion(xp, S, rows, cols, is_np)
        vs, ix = _select_numpy(S, k) if is_np else _select_xp(xp, S, k)
        out_s.append(vs)
        out_i.append(ix)
    if not out_s:
        return xp.zeros((0, k), dtype=D.dtype), xp.zeros((0, k), dtype=xp.int64)
    return xp.concat(out_s, axis=0), xp.astype(xp.concat(out_i, axis=0), xp.int64)


def _tile_shape(n, nq, n_jobs, itemsize, memory_budget):
    cols = min(n, _TILE_COLS)
    budget = DEFAULT_MEMORY_BUDGET if memory_budget is None else int(memory_budget)
    rows = min(_TILE_ROWS, block_rows(cols, itemsize, budget // max(1, n_jobs)))
    if rows == 1 and cols * itemsize * n_jobs > budget:
        # a tiny budget shrinks the tile width too, down to one chunk of the kernel
        cols = max(16, budget // (itemsize * max(1, n_jobs)))
    # enough blocks to keep every thread busy
    rows = max(1, min(rows, -(-nq // n_jobs)))
    if rows < _TILE_ROWS:
        # few queries: the GEMM is a matrix-vector product, bound by reading the database, so
        # wider tiles only save per-tile overhead (within the budget)
        wide = min(_TILE_ROWS * _TILE_COLS // rows, budget // (itemsize * rows * max(1, n_jobs)))
        cols = max(cols, wide)
    return rows, min(cols, n)


def _tiled_numba(Q, D, k, ex, memory_budget, progress, desc, n_jobs, col_bias=None, scale=None):
    """GEMM per (query block × database block) tile, merged into heaps by the Numba kernel."""
    from contextlib import nullcontext

    from .kernels import topk as K

    n, nq = D.shape[0], Q.shape[0]
    Q = np.ascontiguousarray(Q)
    big = nq * n * D.shape[1] >= 2**24
    if nq >= 32 or (D.strides[0] != D.itemsize and D.strides[1] != D.itemsize):
        # the compiled block loop needs C order; copying costs about one query's pass over D,
        # so only a batch of queries amortises it
        D = np.ascontiguousarray(D)
    hv, hi = K.init_heaps(nq, k, D.dtype)
    if nq == 0:
        return hv, hi
    n_jobs = _default_jobs() if n_jobs is None else max(1, int(n_jobs))
    rows, cols = _tile_shape(n, nq, n_jobs, D.dtype.itemsize, memory_budget)
    ptr, idx = ex if ex is not None else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    bias = np.zeros(0, D.dtype) if col_bias is None else np.ascontiguousarray(col_bias, dtype=D.dtype)
    compiled = D.flags.c_contiguous

    def run_block(s):
        e = min(s + rows, nq)
        Qb = Q[s:e]
        if compiled:
            K.block_topk(Qb, D, cols, hv, hi, s, ptr, idx, 1.0 if scale is None else float(scale), bias)
            return
        # any other layout (e.g. the F-ordered vectors of a small query): GEMM tiles from Python,
        # a row slice of a C- or F-ordered matrix being a valid BLAS operand without a copy
        for c in range(0, n, cols):
            ce = min(c + cols, n)
            S = Qb @ D[c:ce].T
            if scale is not None:
                S *= scale
            if col_bias is not None:
                S -= bias[c:ce]
            K.merge_tile_serial(S, c, hv, hi, s, ptr, idx)

    starts = range(0, nq, rows)
    bar = progress_bar(total=len(starts), desc=desc, progress=progress, unit="block")
    # one BLAS thread per worker: the workers are the parallelism (small jobs skip the switch)
    with (backend.single_blas_thread() if big else nullcontext()):
        if n_jobs == 1 or len(starts) == 1:
            for s in starts:
                run_block(s)
                bar.update()
        else:
            with ThreadPoolExecutor(min(n_jobs, len(starts))) as pool:
                for _ in pool.map(run_block, starts):
                    bar.update()
    bar.close()
    K.finalize(hv, hi)
    return hv, hi


def _run(xp, Q, D, k, ex, memory_budget, progress, desc, selector, n_jobs, col_bias=None, scale=None):
    if selector not in _SELECTORS:
        raise ValueError(f"selector must be one of {', '.join(map(repr, _SELECTORS))}, got {selector!r}")
    if backend.is_numpy(D) and selector in ("auto", "numba"):
        return _tiled_numba(Q, D, k, ex, memory_budget, progress, desc, n_jobs, col_bias, scale)
    return _blocked_full_rows(xp, Q, D, k, ex, memory_budget, progress, desc, col_bias, scale)


# ---------------------------------------------------------------------------- public API
def topk(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None,
         memory_budget: int | None = None, progress: bool | None = None,
         selector: str = "auto", n_jobs: int | None = None, check_finite: bool = True):
    """Exact top-``k`` neighbours of each query row among the database rows.

    Parameters
    ----------
    queries : array, shape (q, d) or (d,)
    database : array, shape (n, d)
        Same array library as ``queries`` (NumPy, CuPy or array-API). Finite.
    k : int
        Number of neighbours, 1 ≤ k ≤ n − (most rows excluded for one query).
    metric : {"cosine", "dot"}
        Cosine scales both sides to unit length first (zero vectors score 0).
    exclude : array or sequence, optional
        Per query, database rows never to return: an int array of shape (q,) (one row each,
        e.g. the query word itself), an int array (q, m) padded with -1, or a sequence of q ints
        or int sequences. Negative entries are ignored.
    memory_budget : int, optional
        Bytes the score blocks may take at once (default 256 MiB). Results do not depend on it.
    progress : bool, optional
        Show a progress bar over blocks of queries (default: the global setting).
    selector : {"auto", "numba", "argpartition"}
        NumPy only: "auto"/"numba" fuses the GEMM with the Numba heap kernel (the fastest);
        "argpartition" selects from full-row blocks with ``np.argpartition``. Other array
        libraries always select with a stable ``argsort``.
    n_jobs : int, optional
        Threads for the Numba path (default: the CPUs this process may use). BLAS runs one
        thread per job meanwhile.
    check_finite : bool
        Refuse NaN/inf in queries and database (default). Turning it off spares a pass over the
        database when it is known to be finite (an :class:`~embgeo.embeddings.Embeddings`);
        NaN scores would then give undefined rankings.

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
        database (the row is named), unknown metric or selector, bad ``exclude``.

    Examples
    --------
    >>> import numpy as np
    >>> D = np.array([[1, 0], [0, 1], [1, 1], [1, 0]], dtype=np.float32)
    >>> s, i = topk(D[:1], D, 2, exclude=[0])
    >>> i.tolist()
    [[3, 2]]
    """
    xp, Q, D = _prepare(queries, database, metric, check_finite)
    ex = exclusion_csr(exclude, Q.shape[0], D.shape[0])
    k = _check_k(k, D.shape[0] - _max_excluded(ex))
    return _run(xp, Q, D, k, ex, memory_budget, progress, "top-k", selector, n_jobs)


def knn_mean_similarity(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None,
                        memory_budget: int | None = None, progress: bool | None = None,
                        selector: str = "auto", n_jobs: int | None = None):
    """Mean similarity of each query row to its ``k`` nearest database rows (CSLS's r terms).

    Conneau et al. (2018), "Word translation without parallel data", ICLR, eq. 3 (the text
    after it): r_T(Wx_s) = (1/K) Σ_{y_t ∈ N_T(Wx_s)} cos(Wx_s, y_t). Called with the mapped
    source as ``queries`` and the target vocabulary as ``database`` it gives r_T; with the roles
    swapped, r_S. Computed blockwise by :func:`topk`, in float64.

    Returns
    -------
    r : array of float64, shape (q,)
    """
    scores, _ = topk(queries, database, k, metric=metric, exclude=exclude, memory_budget=memory_budget,
                     progress=progress, selector=selector, n_jobs=n_jobs)
    xp = backend.get_namespace(scores)
    return xp.mean(xp.astype(scores, xp.float64), axis=1)


def csls_topk(queries, database, k: int = 10, *, knn: int = 10, r_database=None, r_queries=None,
              source=None, exclude=None, memory_budget: int | None = None, progress: bool | None = None,
              selector: str = "auto", n_jobs: int | None = None):
    """Top-``k`` database rows of each query by CSLS (cross-domain similarity local scaling).

    Conneau et al. (2018), "Word translation without parallel data", ICLR, eq. 3 (MUSE):

        CSLS(Wx_s, y_t) = 2 cos(Wx_s, y_t) − r_T(Wx_s) − r_S(y_t),

    where, with K = ``knn``,

    * r_T(Wx_s) (``r_queries``) is the mean cosine of the mapped source vector Wx_s (a query)
      to its K nearest *target* vectors, over the whole target vocabulary (the ``database``);
    * r_S(y_t) (``r_database``) is the mean cosine of the target vector y_t (a database row) to
      its K nearest *mapped source* vectors, over the whole mapped source vocabulary.

    r_S must therefore be computed against the full mapped source space, not against the few
    words being translated: pass ``source`` (the whole mapped source matrix WX) or a
    precomputed ``r_database = knn_mean_similarity(database, source, knn)``. Without either, r_S
    falls back to the given ``queries`` as the source space, which is MUSE's definition only
    when the queries are the whole source vocabulary. r_T(x) does not change one query's
    ranking; it is subtracted only to make the returned scores true CSLS values.

    Parameters
    ----------
    queries : array (q, d)
        Mapped source vectors Wx_s (any length; cosine is used).
    database : array (n, d)
        Target vectors y_t.
    k : int
        Neighbours to return per query.
    knn : int
        K of the r terms (MUSE uses 10); capped at the size of the space it averages over.
    r_database, r_queries : arrays (n,) and (q,), optional
        Precomputed r_S and r_T.
    source : array (m, d), optional
        The whole mapped source vocabulary, used for r_S when ``r_database`` is not given.
    exclude, memory_budget, progress, selector, n_jobs
        As in :func:`topk`.

    Returns
    -------
    scores, indices : arrays, shape (q, k)
        CSLS values best first, and database rows (ties to the lower row).
    """
    xp, Q, D = _prepare(queries, database, "cosine")
    knn = int(knn)
    if knn < 1:
        raise ValueError(f"knn must be at least 1, got {knn}")
    ex = exclusion_csr(exclude, Q.shape[0], D.shape[0])
    k = _check_k(k, D.shape[0] - _max_excluded(ex))
    opts = dict(memory_budget=memory_budget, progress=progress, selector=selector, n_jobs=n_jobs)
    if r_database is None:
        if source is not None:
            _, S_, _ = _prepare(source, D, "cosine")
        else:
            S_ = Q
        if S_.shape[0] == 0:
            raise ValueError("r_S needs a non-empty source space: pass source= or r_database=")
        r_database = knn_mean_similarity(D, S_, min(knn, S_.shape[0]), metric="dot", **opts)
    if r_queries is None:
        r_queries = knn_mean_similarity(Q, D, min(knn, D.shape[0]), metric="dot", **opts)
    rD = xp.astype(backend.asarray(r_database, like=D), D.dtype)
    rQ = xp.astype(backend.asarray(r_queries, like=D), D.dtype)
    if rD.shape != (D.shape[0],) or rQ.shape != (Q.shape[0],):
        raise ValueError(f"r_database must have shape ({D.shape[0]},) and r_queries ({Q.shape[0]},), "
                         f"got {tuple(rD.shape)} and {tuple(rQ.shape)}")
    # rank by 2cos − r_S (r_T is constant per query), then subtract r_T
    s, i = _run(xp, Q, D, k, ex, memory_budget, progress, "CSLS", selector, n_jobs, col_bias=rD, scale=2)
    return s - xp.reshape(rQ, (-1, 1)), i


def _query_matrix(e, queries, unit):
    """Resolve words / vectors to a query matrix and the self-exclusion rows."""
    if isinstance(queries, str):
        queries = [queries]
    if isinstance(queries, (list, tuple)) and not queries:
        # no query words: an empty (0, d) block gives empty (0, k) results
        return e.vectors[:0, ...], np.zeros(0, dtype=np.int64)
    if isinstance(queries, (list, tuple)) and all(isinstance(q, str) for q in queries):
        idx = e.indices(queries)
        M = e.unit_vectors if unit else e.vectors
        xp = backend.get_namespace(M)
        return (M[idx, ...] if backend.is_numpy(M) else xp.take(M, xp.asarray(idx), axis=0)), idx
    return queries, None


def search(e, queries, k: int = 10, metric: str = "cosine", backend: str = "exact",
           exclude_self: bool = True, knn: int = 10, **kwargs):
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
        ``knn_mean_similarity(e.vectors, e.vectors, knn)`` and pass it as ``r_database=`` when
        querying repeatedly.
    backend : {"exact", "faiss"}
        "faiss" runs :func:`embgeo.faiss_index.faiss_search` (cosine and dot only); pass
        ``kind="hnsw"`` or ``"ivf"`` and its parameters for approximate search.
    exclude_self : bool
        Drop each query word from its own list (ignored for vector queries).
    knn : int
        K of the CSLS r terms.
    **kwargs
        Passed on (``memory_budget``, ``progress``, ``exclude``, ...).

    Returns
    -------
    scores, indices : arrays, shape (q, k)
    """
    if metric not in ("cosine", "dot", "csls"):
        raise ValueError(f"metric must be 'cosine', 'dot' or 'csls', got {metric!r}")
    if backend not in ("exact", "faiss"):
        raise ValueError(f"backend must be 'exact' or 'faiss', got {backend!r}")
    Q, idx = _query_matrix(e, queries, unit=metric != "dot")
    exclude = kwargs.pop("exclude", None)
    if exclude_self and idx is not None:
        exclude = idx if exclude is None else [np.append(np.atleast_1d(x), i) for x, i in zip(exclude, idx)]
    if backend == "faiss":
        if metric == "csls":
            raise ValueError("metric='csls' needs backend='exact'")
        from .faiss_index import faiss_search

        for name in ("memory_budget", "progress", "selector", "n_jobs"):  # exact-search options
            kwargs.pop(name, None)
        return faiss_search(Q, e.vectors, k, metric=metric, exclude=exclude, **kwargs)
    if metric == "csls":
        if idx is not None and kwargs.get("source") is None and kwargs.get("r_database") is None:
            kwargs["source"] = e.vectors
        return csls_topk(Q, e.vectors, k, knn=knn, exclude=exclude, **kwargs)
    if metric == "cosine":
        # the cached unit vectors spare normalising the vocabulary on every call; Embeddings
        # are finite by construction, so only the queries need the finiteness check
        return topk(_unit_rows(Q, e.unit_vectors), e.unit_vectors, k, metric="dot", exclude=exclude,
                    check_finite=False, **kwargs)
    Q = _unit_rows(Q, e.vectors, scale=False)
    return topk(Q, e.vectors, k, metric="dot", exclude=exclude, check_finite=False, **kwargs)


def _unit_rows(Q, like, scale=True):
    """Queries as a checked 2-D matrix of ``like``'s library and dtype, unit rows if ``scale``."""
    from .normalize import normalize

    Q = backend.asarray(Q, like=like)
    xp = backend.get_namespace(like)
    if Q.ndim == 1:
        Q = xp.reshape(Q, (1, -1))
    Q = xp.astype(backend.check_matrix(Q, "queries", allow_empty=True), like.dtype)
    return normalize(Q, "unit") if scale else Q


def most_similar(e, positive=(), negative=(), topn: int = 10, restrict_vocab: int | None = None):
    """gensim-compatible ``most_similar``.

    The query is the mean of the unit vectors of ``positive`` (weight +1) and ``negative``
    (weight −1), scaled to unit length; words are ranked by cosine to it over the first
    ``restrict_vocab`` rows (all by default), the input words excluded. Entries may be words,
    ``(word, weight)`` pairs or vectors, as in gensim 4 ``KeyedVectors.most_similar``.

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
    U = e.unit_vectors
    xp = backend.get_namespace(U)
    rows, weights, excl = [], [], []
    for key, sign in items:
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], (int, float, np.number)):
            key, w = key[0], sign * float(key[1])
        else:
            w = sign
        if isinstance(key, str):
            i = e.index(key)
            excl.append(i)
            rows.append(U[i, ...])
        else:
            v = backend.asarray(key, like=U, dtype=U.dtype)
            if v.shape != (e.dim,):
                raise ValueError(f"a query vector must have shape ({e.dim},), got {tuple(v.shape)}")
            rows.append(_unit_rows(v, U)[0, ...])
        weights.append(w)
    w = backend.asarray(np.asarray(weights), like=U, dtype=U.dtype)
    query = xp.sum(xp.stack(rows, axis=0) * xp.reshape(w, (-1, 1)), axis=0) / len(rows)
    n = len(e) if restrict_vocab is None else min(int(restrict_vocab), len(e))
    if n < 1:
        raise ValueError(f"restrict_vocab must be positive, got {restrict_vocab}")
    D = U if n == len(e) else U[:n, ...]
    if topn is None:
        return backend.to_numpy(D @ _unit_rows(query, U)[0, ...])
    excl = np.unique(np.asarray(excl, dtype=np.int64))
    excl = excl[excl < n]
    k = min(int(topn), n - excl.size)
    if k < 1:
        return []
    s, i = topk(_unit_rows(query, U), D, k, metric="dot", exclude=[excl], progress=False, check_finite=False)
    s, i = backend.to_numpy(s)[0], backend.to_numpy(i)[0]
    return [(e.words[j], float(v)) for v, j in zip(s, i)]
