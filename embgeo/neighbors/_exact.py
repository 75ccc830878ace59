"""The local exact search engine: blocked k-nearest neighbours over one machine's arrays (cosine, dot, CSLS).

The array-level engine behind :mod:`embgeo.neighbors` (the public façade, which also dispatches
to FAISS and Dask) and behind the package's Dask engine (``_dask``, which runs it on each shard,
hence ``offset=``). Every search returns the FAISS pair ``(scores, indices)``, both shaped
(n_queries, k), best first, ties broken towards the lower database row.

How the exact search runs on NumPy arrays: scores are computed by a float32 GEMM one *tile*
(a block of query rows × a block of database rows) at a time, and each tile is merged into
running per-query heaps by a Numba kernel (:mod:`embgeo.kernels.topk`; for cosine and dot
:mod:`embgeo.kernels.screen`, which rescores every pair that can enter a heap by one fixed-order
dot product, so that scores do not depend on the tiling or sharding, and which can screen with a
rotation index: ``_screening``). A tile stays in cache
between the GEMM that writes it and the kernel that reads it, so neither the n_queries × n_words
matrix nor even one full block row of it is ever written to memory. Blocks of queries run on
``n_jobs`` Python threads, each with a single-threaded BLAS (the GEMM and the kernel both
release the GIL): one level of parallelism, no BLAS and Numba thread pools fighting for the
same cores. ``selector="argpartition"`` keeps the plain NumPy path (full-row blocks +
``np.argpartition``), and any other array library (CuPy, array-API) takes a namespace path
(full-row blocks + stable ``argsort``); all three give the same answer.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import backend as xb
from ..blocking import TILE_ROWS, block_rows, budget_bytes, row_blocks, run_blocks, share, tile_shape
from ..blocking import n_jobs as default_n_jobs
from ..progress import progress_bar
from ..linalg import inverse_norms
from ..validation import check_k, exclusion_csr, mask_excluded, max_excluded
from ._criteria import PAIRWISE_METRICS, check_metric
from ._ranking import merge_topk
from ._screening import resolve_index, screened_topk

__all__ = ["topk", "knn_mean_similarity", "csls_topk", "self_topk", "select_topk", "prepared_topk",
           "check_csls_knn"]

# ---------------------------------------------------------------------------- validation
def _prepare(queries, database, metric, check_finite=True, database_inv=None, memory_budget=None):
    """Validate and align (queries, database); cosine gives the inverse row norms of both.

    Neither matrix is copied (beyond a dtype conversion of the queries): cosine scaling is
    applied per tile, so a large or memory-mapped database stays where it is. Inverse norms
    given for the database are used as they are, without a pass over it.
    """
    check_metric(metric, metrics=PAIRWISE_METRICS)
    xb.check_same_device(queries=queries, database=database)
    database = xb.check_matrix(database, "database", check_finite=False)
    xp = xb.get_namespace(database)
    queries = xb.asarray(queries, like=database)
    if queries.ndim == 1:
        queries = xp.reshape(queries, (1, -1))
    queries = xb.check_matrix(queries, "queries", allow_empty=True, check_finite=False)
    if queries.shape[1] != database.shape[1]:
        raise ValueError(
            f"queries have dimension {queries.shape[1]} but the database has {database.shape[1]}"
        )
    if queries.dtype != database.dtype:
        queries = xp.astype(queries, database.dtype)
    if metric == "cosine":
        q_inv = inverse_norms(queries, "queries", check_finite=check_finite, memory_budget=memory_budget)
        d_inv = database_inv if database_inv is not None else \
            inverse_norms(database, "database", check_finite=check_finite, memory_budget=memory_budget)
        return xp, queries, database, q_inv, d_inv
    if check_finite:
        # the same blocked pass as cosine's, for its finiteness check alone
        inverse_norms(queries, "queries", memory_budget=memory_budget)
        inverse_norms(database, "database", memory_budget=memory_budget)
    return xp, queries, database, None, None


def _slice_csr(ex, s, e) -> tuple[np.ndarray, np.ndarray]:
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

    Parameters
    ----------
    S : array, shape (rows, n)
        The block of scores, larger is better.
    k : int
        Columns kept per row, at most n less the most excluded in one row.
    exclude : None, int array or sequence of int sequences, optional
        Columns never selected, per row (any form :func:`exclusion_csr` takes).

    Returns
    -------
    scores, columns : arrays, shape (rows, k)
        Best first; columns are int64.

    Raises
    ------
    TypeError
        ``k`` is not an integer.
    ValueError
        ``k`` < 1 or larger than the candidates left, or ``exclude`` with the wrong number of rows
        or a column outside the block.

    See Also
    --------
    topk : the same selection on the scores of a GEMM it computes.
    """
    n_rows, n_cols = S.shape
    ex = exclusion_csr(exclude, n_rows, n_cols)
    k = check_k(k, n_cols - max_excluded(ex))
    if xb.is_numpy(S):
        from ..kernels.topk import topk_rows

        return topk_rows(S, k, *(ex if ex is not None else (None, None)))
    xp = xb.get_namespace(S)
    if ex is not None:
        S = mask_excluded(S, *_slice_csr(ex, 0, n_rows))
    return _select_xp(xp, S, k)


def _scaled_rows(xp, B, inv):
    """Rows of ``B`` times ``inv`` (their inverse norms): a unit-length copy of one block only."""
    if inv is None:
        return B
    return B * xp.reshape(inv, (-1, 1))


def _blocked_full_rows(xp, Q, D, k, ex, memory_budget, progress, desc, col_bias=None, scale=None,
                       q_inv=None, d_inv=None):
    """Full-row blocks: one GEMM per block of queries, then argpartition / argsort selection."""
    n, nq = D.shape[0], Q.shape[0]
    is_np = xb.is_numpy(D)
    step = block_rows(n, 4, memory_budget)
    DT = D.T if is_np else xp.matrix_transpose(D)
    out_s, out_i = [], []
    blocks = row_blocks(nq, step)
    for s, e in progress_bar(blocks, total=len(blocks), desc=desc, progress=progress, unit="block"):
        S = _scaled_rows(xp, Q[s:e, ...], None if q_inv is None else q_inv[s:e, ...]) @ DT
        if d_inv is not None:
            S = S * xp.reshape(d_inv, (1, -1))
        if scale is not None:
            S = scale * S
        if col_bias is not None:
            S = S - xp.reshape(col_bias, (1, -1))
        if ex is not None:
            rows, cols = _slice_csr(ex, s, e)
            S = mask_excluded(S, rows, cols, in_place=is_np)
        vs, ix = _select_numpy(S, k) if is_np else _select_xp(xp, S, k)
        out_s.append(vs)
        out_i.append(ix)
    if not out_s:
        return xp.zeros((0, k), dtype=D.dtype, device=xb.device(D)), xp.zeros((0, k), dtype=xp.int64, device=xb.device(D))
    return xp.concat(out_s, axis=0), xp.astype(xp.concat(out_i, axis=0), xp.int64)


def _tiled_numba(Q, D, k, ex, memory_budget, progress, desc, n_jobs, col_bias=None, scale=None,
                 q_inv=None, d_inv=None):
    """GEMM per (query block × database block) tile, merged into heaps by the Numba kernel.

    Neither ``Q`` nor ``D`` is copied: a query block is scaled to unit rows when it is used
    (``q_inv``), and database columns are scaled inside the tile (``d_inv``). A memory-mapped
    ``D`` is thus read tile by tile, and extra memory stays within the tiles and the heaps.
    """
    from ..kernels import topk as K

    n, nq = D.shape[0], Q.shape[0]
    Q, D = np.asarray(Q), np.asarray(D)  # a np.memmap becomes a plain view (Numba types it)
    hv, hi = K.init_heaps(nq, k, D.dtype)
    if nq == 0:
        return hv, hi
    n_jobs = default_n_jobs(n_jobs)
    rows, cols = tile_shape(n, nq, n_jobs, D.dtype.itemsize, memory_budget)
    ptr, idx = ex if ex is not None else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    empty = np.zeros(0, D.dtype)
    bias = empty if col_bias is None else np.ascontiguousarray(col_bias, dtype=D.dtype)
    cscale = empty if d_inv is None else np.ascontiguousarray(d_inv, dtype=D.dtype)
    # the compiled block loop needs a C-ordered database; any other layout (e.g. F-ordered
    # vectors) runs GEMM tiles from Python instead of being copied whole
    compiled = D.flags.c_contiguous

    def run_block(s):
        e = min(s + rows, nq)
        Qb = Q[s:e]
        if q_inv is not None:
            Qb = Qb * q_inv[s:e, None]
        Qb = np.ascontiguousarray(Qb, dtype=D.dtype)
        if compiled:
            K.block_topk(Qb, D, cols, hv, hi, s, ptr, idx, 1.0 if scale is None else float(scale), bias,
                         cscale)
            return
        # a row slice of a C- or F-ordered matrix is a valid BLAS operand without a copy
        for c in range(0, n, cols):
            ce = min(c + cols, n)
            S = Qb @ D[c:ce].T
            if d_inv is not None:
                S *= cscale[c:ce]
            if scale is not None:
                S *= scale
            if col_bias is not None:
                S -= bias[c:ce]
            K.merge_tile_serial(np.ascontiguousarray(S), c, hv, hi, s, ptr, idx)

    run_blocks(run_block, range(0, nq, rows), n_jobs=n_jobs, desc=desc, progress=progress,
               flops=nq * n * D.shape[1])
    K.finalize(hv, hi)
    return hv, hi


def _run(xp, Q, D, k, ex, memory_budget, progress, desc, selector, n_jobs, col_bias=None, scale=None,
         q_inv=None, d_inv=None, screen=None, engine=None):
    if engine == "cuda" or xb.is_cupy(D):
        # the GPU engine: the same canonical scores and lists as the CPU engine below
        from . import _cuda

        return _cuda.screened_topk(Q, D, k, ex, q_inv, d_inv, memory_budget=memory_budget, progress=progress,
                                   desc=desc, scale=scale, col_bias=col_bias)
    canonical = (xb.is_numpy(D) and selector in ("auto", "numba") and (col_bias is None) == (scale is None)
                 and (col_bias is None or d_inv is not None) and D.dtype in (np.float32, np.float64))
    if canonical and not D.flags.c_contiguous:
        # the same canonical scores for every layout (a memory-mapped GloVe is Fortran-ordered, a
        # view may be strided): C-ordered copies of bounded blocks of rows, searched as shards
        return _canonical_in_blocks(Q, D, k, ex, memory_budget, progress, desc, n_jobs, col_bias, scale,
                                    q_inv, d_inv)
    if canonical:
        # canonical scores (_screening): the same scores whatever the tiling or sharding,
        # screened by a rotation index when one is given (screen=)
        index = resolve_index(screen, D, "dot" if d_inv is None else "cosine", d_inv, Q.shape[0], k, memory_budget)
        n_jobs = default_n_jobs(n_jobs)
        if col_bias is not None:  # CSLS: canonical scores, unscreened
            return screened_topk(Q, D, k, ex, q_inv, d_inv, None, memory_budget=memory_budget, progress=progress,
                                 n_jobs=n_jobs, desc=desc, scale=scale, col_bias=np.asarray(col_bias))
        return screened_topk(Q, D, k, ex, q_inv, d_inv, index, memory_budget=memory_budget, progress=progress,
                             n_jobs=n_jobs, desc=desc, scale=scale)
    if xb.is_numpy(D) and selector in ("auto", "numba"):
        return _tiled_numba(Q, D, k, ex, memory_budget, progress, desc, n_jobs, col_bias, scale, q_inv, d_inv)
    return _blocked_full_rows(xp, Q, D, k, ex, memory_budget, progress, desc, col_bias, scale, q_inv, d_inv)


def _column_csr(ex, c0, c1):
    """The exclusions of columns c0..c1−1, renumbered from 0 (None when none falls there)."""
    if ex is None:
        return None
    ptr, idx = ex
    keep = (idx >= c0) & (idx < c1)
    if not keep.any():
        return None
    rows = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))[keep]
    counts = np.bincount(rows, minlength=len(ptr) - 1)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), (idx[keep] - c0).astype(np.int64)


def _canonical_in_blocks(Q, D, k, ex, memory_budget, progress, desc, n_jobs, col_bias, scale, q_inv, d_inv):
    """:func:`screened_topk` over a database that is not C-ordered: each block of rows (a quarter of
    the budget) is copied C-ordered and searched as a shard, and the shards' lists are merged; the
    scores are canonical, so the result has the bits of a search over a C-ordered copy."""
    n = D.shape[0]
    step = max(k, block_rows(D.shape[1], D.dtype.itemsize, share(memory_budget, 4)))
    parts = []
    for c0, c1 in row_blocks(n, step, least=k):
        s, i = screened_topk(Q, np.ascontiguousarray(D[c0:c1]), min(k, c1 - c0), _column_csr(ex, c0, c1), q_inv,
                             None if d_inv is None else d_inv[c0:c1], None, memory_budget=memory_budget,
                             progress=progress, n_jobs=default_n_jobs(n_jobs), desc=desc, scale=scale,
                             col_bias=None if col_bias is None else np.asarray(col_bias)[c0:c1])
        parts.append((s, i + c0))
    return parts[0] if len(parts) == 1 else merge_topk(parts, k)


def self_topk(X, k: int = 10, *, metric: str = "cosine", memory_budget: int | None = None,
              progress: bool | None = None, check_finite: bool = True, symmetric: bool | None = None,
              selector: str = "auto", n_jobs: int | None = None, screen=None, engine: str | None = None):
    """Every row's top-``k`` among the *other* rows of ``X``: ``topk(X, X, k, exclude=self)`` at half the GEMM.

    A vocabulary-wide neighbour table (e.g. the synonym table of
    :func:`embgeo.negatives.synonym_table`) scores each pair twice when run as a plain
    ``topk``; here each pair (i, j) is scored once, by one GEMM tile, and merged into the heaps
    of both i and j (:func:`embgeo.kernels.topk.self_block_topk`). Rows are scaled to unit
    length one block at a time (no copy of ``X``). Each thread keeps heaps for all rows (12
    bytes per row and neighbour, like the result), merged at the end. NumPy C-ordered input
    takes this path; anything else runs :func:`topk` with self-exclusion.

    The symmetric path halves the GEMM but merges every score twice (once per word of the
    pair), so it pays only when the GEMM dominates, i.e. in higher dimensions: measured
    (``benchmarks/compare_negatives.py``, CPU seconds) 1.24× faster than the plain route at
    d = 300, a wash at d = 50 (0.91× and 1.03× in two runs). It is opt-in (``symmetric=True``):
    its scores are the GEMM's float32 ones, while the default route returns :func:`topk`'s
    canonical scores — the same bits whatever the tiling or the Dask sharding, so a
    ``backend="dask"`` table equals the local one exactly.

    Parameters
    ----------
    X : array (n, d)
    k : int
        1 ≤ k ≤ n − 1.
    metric : {"cosine", "dot"}
    memory_budget, progress, check_finite
        As in :func:`topk`.
    symmetric : bool, optional
        True: the symmetric path (faster for d ≳ 128, float32 GEMM scores); None or False
        (default): ``topk(X, X, exclude=self)`` with canonical scores.
    selector, n_jobs, screen, engine
        As in :func:`topk`: ``engine="cuda"`` runs ``topk(X, X, exclude=self)`` on the GPU engine
        (as does a CuPy ``X``), with the default route's results.

    Returns
    -------
    scores, indices : arrays, shape (n, k)
        Best first, ties to the lower row, never the row itself. With ``symmetric=True`` scores
        can differ from :func:`topk`'s in the last float32 bit (the unit scaling is applied to
        both sides before the GEMM), so near-ties may order differently.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 1]], dtype=np.float32)
    >>> self_topk(X, 1)[1].ravel().tolist()
    [1, 0, 1]
    """
    xp, _, X, _, inv = _prepare(X[:0, ...], X, metric, check_finite, memory_budget=memory_budget)
    n = X.shape[0]
    k = check_k(k, n - 1)
    if not (symmetric and engine is None and xb.is_numpy(X) and X.flags.c_contiguous):
        return prepared_topk(xp, X, X, k, np.arange(n), inv, inv, memory_budget=memory_budget, progress=progress,
                             selector=selector, n_jobs=n_jobs, screen=screen, engine=engine)
    import threading

    from ..kernels import topk as K

    X = np.asarray(X)
    inv = np.ones(n, X.dtype) if inv is None else np.ascontiguousarray(inv, dtype=X.dtype)
    n_jobs = default_n_jobs(n_jobs)
    rows, cols = tile_shape(n, n, n_jobs, X.dtype.itemsize, memory_budget)
    starts = list(range(0, n, rows))
    lock = threading.Lock()
    todo = iter(starts)  # the largest blocks (most pairs) first
    with progress_bar(total=len(starts), desc="self top-k", progress=progress, unit="block") as bar:

        def worker():
            hv, hi = K.init_heaps(n, k, X.dtype)
            while True:
                with lock:
                    s = next(todo, None)
                if s is None:
                    return hv, hi
                K.self_block_topk(X, inv, s, min(s + rows, n), cols, hv, hi)
                with lock:
                    bar.update()

        n_threads = min(n_jobs, len(starts))
        with xb.single_blas_thread():
            if n_threads == 1:
                heaps = [worker()]
            else:
                with ThreadPoolExecutor(n_threads) as pool:
                    heaps = list(pool.map(lambda _: worker(), range(n_threads)))
    hv, hi = heaps[0]
    for ov, oi in heaps[1:]:
        K.merge_heaps(hv, hi, ov, oi)
    K.finalize(hv, hi)
    return hv, hi


# ---------------------------------------------------------------------------- entry points (the façade's)
def topk(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None,
         memory_budget: int | None = None, progress: bool | None = None,
         selector: str = "auto", n_jobs: int | None = None, check_finite: bool = True,
         offset: int | None = None, screen=None, engine: str | None = None):
    """Exact top-``k`` neighbours of each query row among the database rows: the local engine.

    :func:`embgeo.neighbors.topk` with the Exact engine (the parameters, results and errors are
    documented there; ``selector``, ``n_jobs`` and ``screen`` are the options of
    :class:`embgeo.neighbors.Exact`). On NumPy (float32/float64, ``selector`` "auto"/"numba") the
    scores are canonical (``_screening``): shards searched with ``offset=`` (``database`` is rows
    ``offset …`` of a larger matrix: returned indices and ``exclude`` are rows of the larger
    matrix, rows outside the shard ignored; what the Dask engine runs on each shard) and merged by
    :func:`~embgeo.neighbors.merge_topk` give the bits of one search. ``engine="cuda"`` runs the
    GPU engine (``_cuda``; CuPy arrays select it whatever ``engine``), with the same results.
    """
    xp, Q, D, q_inv, d_inv = _prepare(queries, database, metric, check_finite, memory_budget=memory_budget)
    return prepared_topk(xp, Q, D, k, exclude, q_inv, d_inv, offset=offset, memory_budget=memory_budget,
                         progress=progress, selector=selector, n_jobs=n_jobs, screen=screen, engine=engine)


def prepared_topk(xp, Q, D, k, exclude, q_inv, d_inv, offset=None, desc="top-k", *,
                  memory_budget=None, progress=None, selector="auto", n_jobs=None, screen=None, engine=None):
    """:func:`topk` on arrays already validated and aligned, cosine given as inverse row norms.

    For callers that hold what :func:`topk` would recompute (an
    :class:`~embgeo.embeddings.Embeddings`' cached :func:`inverse_norms`, checked queries).

    Parameters
    ----------
    xp : namespace
        The array library of ``Q`` and ``D`` (:func:`embgeo.backend.get_namespace`).
    Q, D : arrays (q, d) and (n, d)
        Same library and dtype, finite.
    k, exclude, offset
        As in :func:`topk`.
    q_inv, d_inv : arrays (q,) and (n,), or None
        Inverse row norms to scale by (cosine), or None (dot products).
    desc : str
        Label of the progress bar.
    memory_budget, progress, selector, n_jobs, screen, engine
        As in :func:`topk`.
    """
    offset = _check_offset(offset)
    ex = exclusion_csr(exclude, Q.shape[0], D.shape[0], offset)
    k = check_k(k, D.shape[0] - max_excluded(ex))
    s, i = _run(xp, Q, D, k, ex, memory_budget, progress, desc, selector, n_jobs, q_inv=q_inv, d_inv=d_inv,
                screen=screen, engine=engine)
    _check_ranked(xp, s, Q, D)
    return (s, i + offset) if offset else (s, i)


def _check_ranked(xp, s, Q, D):
    """Refuse results that hold a slot no row could fill: a NaN score ranks nowhere, so with NaN or
    inf in the vectors (``check_finite=False``) fewer than ``k`` rows can be ranked, and the empty
    slots would carry an index that is no row."""
    if s.size == 0 or bool(xp.all(xp.isfinite(s))):
        return
    q = int(np.flatnonzero(~np.isfinite(xb.to_numpy(s)).all(axis=1))[0])
    where = ""
    for name, X in (("query", Q[q:q + 1]), ("database", D)):
        try:
            inverse_norms(X, name)
        except ValueError as exc:
            where = f": the {exc}"
            break
    raise ValueError(f"query {q} has fewer than k={s.shape[1]} rows with a finite score{where} "
                     "(vectors loaded with check_finite=False?); ask for fewer neighbours or remove those rows")


def _check_offset(offset):
    if offset is not None:
        if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)) or offset < 0:
            raise ValueError(f"offset must be a non-negative integer, got {offset!r}")
        offset = int(offset)
    return offset


def _mean_topk(xp, Q, D, k, q_inv, d_inv, desc, opts):
    """Mean of each query row's top-``k`` scores (CSLS's r terms), a chunk of queries at a time.

    Chunks keep the heaps (12 bytes per query and neighbour) within the memory budget when the
    queries are a whole vocabulary (r_S).
    """
    nq = Q.shape[0]
    chunk = max(TILE_ROWS * default_n_jobs(), budget_bytes(opts.get("memory_budget")) // (24 * k))
    parts = []
    for s, e in row_blocks(nq, chunk):
        sc, _ = prepared_topk(xp, Q[s:e, ...], D, k, None, None if q_inv is None else q_inv[s:e, ...], d_inv,
                              desc=desc, **opts)
        parts.append(_row_means(sc))
    if not parts:
        return xp.zeros((0,), dtype=xp.float64, device=xb.device(D))
    return parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)


def knn_mean_similarity(queries, database, k: int = 10, *, metric: str = "cosine", exclude=None,
                        memory_budget: int | None = None, progress: bool | None = None,
                        selector: str = "auto", n_jobs: int | None = None, screen=None, engine: str | None = None):
    """Mean similarity of each query row to its ``k`` nearest database rows (CSLS's r terms).

    Conneau et al. (2018), "Word translation without parallel data", ICLR, eq. 3 (the text
    after it): r_T(Wx_s) = (1/K) Σ_{y_t ∈ N_T(Wx_s)} cos(Wx_s, y_t). Called with the mapped
    source as ``queries`` and the target vocabulary as ``database`` it gives r_T; with the roles
    swapped, r_S. Computed blockwise by :func:`topk` (no unit-length copy of either side), in
    float64.

    Returns
    -------
    r : array of float64, shape (q,)
    """
    if exclude is not None:
        scores, _ = topk(queries, database, k, metric=metric, exclude=exclude, memory_budget=memory_budget,
                         progress=progress, selector=selector, n_jobs=n_jobs, screen=screen, engine=engine)
        return _row_means(scores)
    # no exclusions: chunks of queries, so that the lists of a whole vocabulary never exist at once
    xp, Q, D, q_inv, d_inv = _prepare(queries, database, metric, memory_budget=memory_budget)
    k = check_k(k, D.shape[0])
    return _mean_topk(xp, Q, D, k, q_inv, d_inv, "k-NN mean",
                      dict(memory_budget=memory_budget, progress=progress, selector=selector, n_jobs=n_jobs,
                           screen=screen, engine=engine))


def _row_means(scores):
    xp = xb.get_namespace(scores)
    return xp.mean(xp.astype(scores, xp.float64), axis=1)


def check_csls_knn(csls_knn):
    """The CSLS neighbourhood size, checked.

    Raises
    ------
    ValueError
        ``csls_knn`` is not a positive integer.
    """
    if isinstance(csls_knn, bool) or not isinstance(csls_knn, (int, np.integer)) or csls_knn < 1:
        raise ValueError(f"csls_knn must be a positive integer, got {csls_knn!r}")
    return int(csls_knn)


def csls_topk(queries, database, k: int = 10, *, csls_knn: int = 10, r_database=None, r_queries=None,
              source=None, exclude=None, memory_budget: int | None = None, progress: bool | None = None,
              selector: str = "auto", n_jobs: int | None = None,
              database_inv=None, offset: int | None = None, engine: str | None = None):
    """Top-``k`` database rows of each query by CSLS: the local engine.

    :func:`embgeo.neighbors.csls_topk` with ``backend="exact"`` (Conneau et al. 2018, eq. 3: the
    definitions and parameters are documented there), plus ``offset`` as in :func:`topk`:
    ``database`` is a shard starting at this row (give ``r_database`` for its rows: r_S over a
    shard alone would be wrong). Ranking uses 2 cos − r_S per tile (r_T is constant per query)
    and r_T is subtracted at the end; no side is copied to unit length.
    """
    csls_knn = check_csls_knn(csls_knn)
    offset = _check_offset(offset)
    xp, Q, D, q_inv, d_inv = _prepare(queries, database, "cosine", database_inv=database_inv,
                                      memory_budget=memory_budget)
    ex = exclusion_csr(exclude, Q.shape[0], D.shape[0], offset)
    k = check_k(k, D.shape[0] - max_excluded(ex))
    opts = dict(memory_budget=memory_budget, progress=progress, selector=selector, n_jobs=n_jobs, engine=engine)
    if r_database is None:
        if source is not None:
            _, S_, _, s_inv, _ = _prepare(source, D, "cosine", database_inv=d_inv, memory_budget=memory_budget)
        else:
            S_, s_inv = Q, q_inv
        if S_.shape[0] == 0:
            raise ValueError("r_S needs a non-empty source space: pass source= or r_database=")
        r_database = _mean_topk(xp, D, S_, min(csls_knn, S_.shape[0]), d_inv, s_inv, "CSLS r_S", opts)
    if r_queries is None:
        r_queries = _mean_topk(xp, Q, D, min(csls_knn, D.shape[0]), q_inv, d_inv, "CSLS r_T", opts)
    rD = xp.astype(xb.asarray(r_database, like=D), D.dtype)
    rQ = xp.astype(xb.asarray(r_queries, like=D), D.dtype)
    if rD.shape != (D.shape[0],) or rQ.shape != (Q.shape[0],):
        raise ValueError(f"r_database must have shape ({D.shape[0]},) and r_queries ({Q.shape[0]},), "
                         f"got {tuple(rD.shape)} and {tuple(rQ.shape)}")
    # rank by 2cos − r_S (r_T is constant per query), then subtract r_T
    s, i = _run(xp, Q, D, k, ex, memory_budget, progress, "CSLS", selector, n_jobs, col_bias=rD, scale=2,
                q_inv=q_inv, d_inv=d_inv, engine=engine)
    return s - xp.reshape(rQ, (-1, 1)), (i + offset if offset else i)
