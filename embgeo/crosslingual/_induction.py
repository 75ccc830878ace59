"""Dictionary induction: NN / CSLS nearest neighbours, VecMap's fused kernel, the unsupervised seed."""
from __future__ import annotations

import numpy as np

from .. import backend as xb
from ..blocking import CACHE_TILE_COLS, TILE_ROWS, block_rows
from ..blocking import n_jobs as default_n_jobs
from ..neighbors import REDUCTION_METRICS, check_retrieval, knn_mean_similarity, reduction_topk, topk
from ..normalize import normalize as _normalize_rows


def _nn_induction(A, B, r_B, keep_prob, rng, memory_budget):
    """For each row of A: argmax_j of dropout(a·b_j − r_B[j]/2), and max_j a·b_j (blocked).

    Dropout is VecMap's stochastic dictionary induction (Artetxe et al. 2018, Section 3.3):
    every score is set to 0 with probability 1 − p, *after* the CSLS correction, as VecMap does.
    The mask is drawn with 8 bits of resolution (p is rounded to a multiple of 1/256).
    """
    xp = xb.get_namespace(A)
    n = A.shape[0]
    step = block_rows(B.shape[0], 4, memory_budget)
    BT = xp.matrix_transpose(B)
    thr = _dropout_threshold(keep_prob)
    if xb.is_numpy(A):
        from ..kernels.crosslingual import dropout_argmax as kernel
        seed = np.uint64(rng.integers(0, 2**63))
        r_half = np.zeros(B.shape[0], dtype=np.float32) if r_B is None else (np.asarray(r_B) / 2).astype(np.float32)
        best = np.empty(n, dtype=np.int64)
        sims = np.empty(n, dtype=np.float64)
        for s in range(0, n, step):
            e = min(s + step, n)
            S = np.ascontiguousarray(A[s:e] @ BT, dtype=np.float32)
            kernel(S, r_half, thr, seed, s, best[s:e], sims[s:e])
        return best, sims
    best, sims = [], []
    for s in range(0, n, step):
        S = A[s:min(s + step, n), ...] @ BT
        sims.append(xp.max(S, axis=1))
        if r_B is not None:
            # subtracting r_S/2 ranks like CSLS (the row term is constant), as in VecMap
            S = S - xp.reshape(xp.astype(r_B, S.dtype), (1, -1)) / 2
        if thr < 256:
            keep = xp.asarray(rng.random(tuple(S.shape)) < thr / 256)  # boolean, in S's library
            S = xp.where(keep, S, xp.zeros_like(S))
        best.append(xp.argmax(S, axis=1))
    return (xb.to_numpy(xp.concat(best, axis=0)).astype(np.int64),
            xb.to_numpy(xp.concat(sims, axis=0)).astype(np.float64))


#: a fused induction tile is at most this many rows × columns (embgeo.blocking's cache-sized tile);
#: module names so that tests can shrink them to check the merge of tiles
_TILE_ROWS, _TILE_COLS = TILE_ROWS, CACHE_TILE_COLS
#: threads of the fused induction (None: one per available core), each with at least
#: _JOB_COLUMNS columns; tests change both to check the merge of the ranges
_FUSED_JOBS: int | None = None
_JOB_COLUMNS = 256


def _dropout_threshold(keep_prob):
    # at least 1/256: a zero threshold would drop every score and send every row to column 0
    return 256 if keep_prob >= 1.0 else max(1, int(round(keep_prob * 256)))


def _n_jobs() -> int:
    return default_n_jobs(_FUSED_JOBS)


# A second CSLS path, on purpose: the r terms of the NumPy induction are not computed by
# embgeo.neighbors.knn_mean_similarity (the path of retrieval, MUSE refinement and the other array
# libraries) but gathered by the Numba kernel from the same score tiles as the argmaxes, rows and
# columns in one sweep: self-learning computes S = X Zᵀ twice per iteration instead of four times.
# The tests check it against the dense formula and _nn_induction with knn_mean_similarity's terms.
def _fused_induction(X, Z, do_f, do_b, csls_knn, keep_prob, rng, memory_budget):
    """Forward and backward dropout-argmax induction from one score matrix S = X Zᵀ (NumPy).

    Equal to :func:`_nn_induction` run on (X, Z) and on (Z, X) with the CSLS terms of
    :func:`~embgeo.neighbors.knn_mean_similarity` (same masks, seeds drawn in the same order),
    but S is computed tile by tile only twice: pass 1 gathers the top-``csls_knn`` scores of
    every row and column (both r terms; skipped for NN), pass 2 takes the argmax along rows and
    down columns (:mod:`embgeo.kernels.crosslingual`). VecMap computes four products per
    iteration (two for the r terms, two for the argmaxes). Each thread owns a range of
    columns (targets) with single-threaded BLAS; the row results of the ranges are merged.

    Returns
    -------
    tgt_of_src, max_f, src_of_tgt, max_b : NumPy arrays (int64, float64, int64, float64); the
    entries of a direction not asked for are empty.
    """
    from concurrent.futures import ThreadPoolExecutor

    from ..kernels import crosslingual as K
    from ..kernels import readonly

    # read-only whatever the callers' flags: one compiled specialization of the sweeps
    X = readonly(np.ascontiguousarray(X, dtype=np.float32))
    Z = readonly(np.ascontiguousarray(Z, dtype=np.float32))
    ns, nt = X.shape[0], Z.shape[0]
    thr = _dropout_threshold(keep_prob)
    seed_f = np.uint64(rng.integers(0, 2**63)) if do_f else np.uint64(0)
    seed_b = np.uint64(rng.integers(0, 2**63)) if do_b else np.uint64(0)
    jobs = max(1, min(_n_jobs(), nt // _JOB_COLUMNS))
    bounds = np.linspace(0, nt, jobs + 1).astype(np.int64)
    cols = max(1, min(_TILE_COLS, -(-nt // jobs)))
    rows = max(1, min(_TILE_ROWS, block_rows(cols * jobs, 4, memory_budget)))
    bufs = [np.empty((rows, cols), dtype=np.float32) for _ in range(jobs)]

    def run(task):
        with xb.single_blas_thread():
            if jobs == 1:
                task(0)
            else:
                with ThreadPoolExecutor(jobs) as pool:
                    list(pool.map(task, range(jobs)))

    r_col_half = np.zeros(nt, dtype=np.float32)   # r of each target over the sources (forward)
    r_row_half = np.zeros(ns, dtype=np.float32)   # r of each source over the targets (backward)
    if csls_knn > 0:
        kc, kr = min(csls_knn, ns), min(csls_knn, nt)
        col_vals = np.full((nt, kc), -np.inf, dtype=np.float32)
        col_min = np.full(nt, -np.inf, dtype=np.float32)
        row_vals = np.full((jobs, ns if do_b else 0, kr), -np.inf, dtype=np.float32)
        row_min = np.full((jobs, ns if do_b else 0), -np.inf, dtype=np.float32)

        def topk_pass(w):
            K.topk_sweep(X, Z, int(bounds[w]), int(bounds[w + 1]), rows, bufs[w], row_vals[w], row_min[w],
                         col_vals, col_min, do_b, do_f)

        run(topk_pass)
        if do_f:
            r_col_half = (col_vals.astype(np.float64).mean(axis=1) / 2).astype(np.float32)
        if do_b:
            # the k largest of each row among its ranges' k largest
            merged = np.concatenate(list(row_vals), axis=1)
            top = -np.partition(-merged, kr - 1, axis=1)[:, :kr] if merged.shape[1] > kr else merged
            r_row_half = (top.astype(np.float64).mean(axis=1) / 2).astype(np.float32)
    nf = ns if do_f else 0
    row_bv = np.full((jobs, nf), -np.inf, dtype=np.float32)
    row_bi = np.zeros((jobs, nf), dtype=np.int64)
    row_max = np.full((jobs, nf), -np.inf, dtype=np.float32)
    col_bv = np.full(nt, -np.inf, dtype=np.float32)
    col_bi = np.zeros(nt, dtype=np.int64)
    col_max = np.full(nt, -np.inf, dtype=np.float32)

    def argmax_pass(w):
        K.argmax_sweep(X, Z, int(bounds[w]), int(bounds[w + 1]), rows, bufs[w], r_col_half, r_row_half, thr,
                       seed_f, seed_b, row_bv[w], row_bi[w], row_max[w], col_bv, col_bi, col_max, do_f, do_b)

    run(argmax_pass)
    # forward: the first range holding the row's best value wins (its columns come first)
    win = np.argmax(row_bv, axis=0)
    best_f = row_bi[win, np.arange(nf)]
    max_f = row_max.max(axis=0) if nf else np.zeros(0, dtype=np.float32)
    return (best_f, max_f.astype(np.float64), col_bi if do_b else col_bi[:0],
            col_max.astype(np.float64) if do_b else np.zeros(0))


def _cuda_induction(X, Z, do_f, do_b, csls_knn, keep_prob, rng, memory_budget):
    """:func:`_fused_induction`'s results on the GPU (CuPy arrays; NumPy under Numba's CUDA simulator).

    Each direction scores full rows, a block at a time (S = A_b Bᵀ by cuBLAS), and takes the dropout
    argmax with :func:`embgeo.kernels.cuda.dropout_argmax`: the CPU kernels' masks (same seeds, drawn
    in the same order, same keys), so the same choices from the same scores. The CSLS r terms come from
    the GPU engine (:func:`~embgeo.neighbors.knn_mean_similarity`, canonical scores), where the fused
    CPU path averages float32 tile scores: r may differ in the last float32 bit, and the GPU's float32
    GEMM from the CPU's, so a near-tie can be broken differently (as VecMap's ``--cuda`` does).

    Returns
    -------
    tgt_of_src, max_f, src_of_tgt, max_b : NumPy arrays, as :func:`_fused_induction`.
    """
    from ..kernels import cuda as KC

    lib, _ = xb.cuda_library()
    X = lib.ascontiguousarray(lib.asarray(X).astype(np.float32, copy=False))
    Z = lib.ascontiguousarray(lib.asarray(Z).astype(np.float32, copy=False))
    thr = _dropout_threshold(keep_prob)
    seeds = [np.uint64(rng.integers(0, 2**63)) if do else np.uint64(0) for do in (do_f, do_b)]
    out = []
    for do, A, B, seed in ((do_f, X, Z, seeds[0]), (do_b, Z, X, seeds[1])):
        if not do:
            out += [np.zeros(0, dtype=np.int64), np.zeros(0)]
            continue
        n, m = A.shape[0], B.shape[0]
        r_half = lib.zeros(1, dtype=np.float32)
        if csls_knn > 0:
            r = knn_mean_similarity(B, A, min(csls_knn, n), metric="dot", memory_budget=memory_budget,
                                    progress=False, backend="cuda")
            r_half = lib.ascontiguousarray((lib.asarray(r) / 2).astype(np.float32))
        best = lib.empty(n, dtype=np.int64)
        sims = lib.empty(n, dtype=np.float64)
        step = block_rows(m, 4, memory_budget)
        buf = lib.empty(min(step, n) * m, dtype=np.float32)
        for s in range(0, n, step):
            e = min(s + step, n)
            S = buf[:(e - s) * m].reshape((e - s, m))
            lib.matmul(A[s:e], B.T, out=S)
            KC.dropout_argmax[e - s, KC.THREADS](S, r_half, csls_knn > 0, thr, seed, s, best[s:e], sims[s:e])
        out += [xb.to_numpy(best), xb.to_numpy(sims)]
    return tuple(out)


def _reduction_induction(X, Z, do_f, do_b, retrieval, csls_knn, memory_budget):
    """Each direction's best row by a hubness reduction, statistics over the searching side (as
    CSLS's r_S: the mapped source for source → target), and each row's best cosine."""
    X, Z = xb.to_numpy(X), xb.to_numpy(Z)
    out = []
    for on, A, B in ((do_f, X, Z), (do_b, Z, X)):
        if not on:
            out += [None, None]
            continue
        best = reduction_topk(A, B, 1, metric=retrieval, source=A, csls_knn=min(csls_knn, A.shape[0]),
                              memory_budget=memory_budget, progress=False)[1][:, 0]
        sim = topk(A, B, 1, metric="dot", memory_budget=memory_budget, progress=False, check_finite=False)[0][:, 0]
        out += [best, sim]
    return tuple(out)


def induce_dictionary(X, Z, *, direction: str = "union", retrieval: str = "nn", csls_knn: int = 10,
                      keep_prob: float = 1.0, random_state=None, memory_budget: int | None = None,
                      return_objective: bool = False):
    """Induce a dictionary from mapped spaces by nearest neighbours (dot product).

    Parameters
    ----------
    X, Z : arrays (n_s, d), (n_t, d)
        Mapped source and target vectors (already cut to the vocabulary to search; VecMap uses
        length-normalised vectors, so dot products are cosines).
    direction : {"forward", "backward", "union", "mutual"}
        Source→target, target→source, their union (VecMap's default), or only mutual nearest
        neighbours (pairs found in both directions; MUSE's "S2T&T2S").
    retrieval : {"nn", "csls", "mp", "mp-gauss", "ls", "cdm", "dsl"}
        Plain nearest neighbours, CSLS, which subtracts r/2 of the candidate side (Conneau et
        al. 2018, eq. 3), or a hubness reduction (:func:`embgeo.neighbors.reduction_topk`, its
        statistics over the searching side, as CSLS's r); :data:`embgeo.neighbors.VALID_RETRIEVALS`
        ``["induction"]``.
    csls_knn : int
        K of CSLS's r terms and of the reductions' neighbourhoods, at least 1.
    keep_prob : float
        Stochastic dictionary induction: each similarity is zeroed with probability 1 − p
        (Artetxe et al. 2018, Section 3.3); 1 makes it deterministic. p is resolved in steps of
        1/256 (at least 1/256). Ignored for ``direction="mutual"``; must be 1 with a hubness
        reduction, whose scores are not one similarity per pair that dropout could zero.
    random_state : int, Generator or None
        Seeds the dropout of stochastic induction (``keep_prob < 1``).
    memory_budget : int, optional
        Bytes of working memory for the score tiles (default 256 MiB).
    return_objective : bool, default False
        Also return VecMap's objective.

    Returns
    -------
    pairs : int64 array (m, 2)
        (source_row, target_row) pairs; forward pairs first, then backward ones (union keeps
        duplicates, as VecMap does, which weights pairs found twice).
    objective : float, if ``return_objective``
        Mean best similarity (averaged over the directions used), VecMap's objective; with a
        hubness reduction the mean best cosine, as VecMap takes the best similarity before CSLS.

    Raises
    ------
    ValueError
        An unknown ``direction`` or ``retrieval``, ``csls_knn < 1`` with CSLS, ``keep_prob``
        outside (0, 1] (or below 1 with a hubness reduction), or spaces of different dimensions.

    See Also
    --------
    unsupervised_dictionary : the seed-free initial dictionary.

    Notes
    -----
    NumPy inputs are scored in float32 (VecMap's default ``--precision fp32``; float64 inputs
    are cast) and both directions come from one score matrix S = X Zᵀ computed twice, tile by
    tile: once for the CSLS terms of rows and columns, once for the argmaxes along rows and down
    columns (VecMap computes it four times). CuPy inputs run both directions on the GPU (full-row
    score blocks, the dropout argmax as a CUDA kernel with the same masks); other array libraries run
    each direction by itself.

    References
    ----------
    M. Artetxe, G. Labaka, E. Agirre (2018). A robust self-learning method for fully unsupervised
    cross-lingual mappings of word embeddings. ACL, Section 3.3. A. Conneau, G. Lample,
    M. Ranzato, L. Denoyer, H. Jégou (2018). Word translation without parallel data. ICLR, eq. 3.
    """
    if direction not in ("forward", "backward", "union", "mutual"):
        raise ValueError(f"direction must be forward, backward, union or mutual, got {direction!r}")
    check_retrieval(retrieval, "induction")
    if retrieval == "csls" and int(csls_knn) < 1:
        raise ValueError(f"csls_knn must be at least 1 for retrieval='csls', got {csls_knn}")
    if not 0 < keep_prob <= 1:
        raise ValueError(f"keep_prob must be in (0, 1], got {keep_prob}")
    X = xb.check_matrix(X, "X")
    Z = xb.check_matrix(xb.asarray(Z, like=X), "Z")
    if X.shape[1] != Z.shape[1]:
        raise ValueError(f"X and Z must share their dimension ({X.shape[1]} vs {Z.shape[1]})")
    reduction = retrieval in REDUCTION_METRICS
    if reduction and keep_prob < 1 and direction != "mutual":
        raise ValueError(f"stochastic induction (keep_prob={keep_prob}) zeroes similarities at random; "
                         f"retrieval={retrieval!r} re-ranks by neighbourhood statistics, not one similarity per "
                         "pair: pass keep_prob=1 (Induction(stochastic_initial=1.0) in a Mapper)")
    rng = np.random.default_rng(random_state)
    if direction == "mutual":
        # dropout draws the two directions' choices independently, so almost no pair would be
        # mutual: mutual induction is deterministic
        keep_prob = 1.0
    csls = retrieval == "csls"
    do_f = direction in ("forward", "union", "mutual")
    do_b = direction in ("backward", "union", "mutual")
    parts, objs = [], []
    if reduction:
        t, sim_f, s, sim_b = _reduction_induction(X, Z, do_f, do_b, retrieval, int(csls_knn), memory_budget)
    elif xb.is_numpy(X):
        # both directions from one score matrix, two GEMM passes (seeds drawn in the order below)
        t, sim_f, s, sim_b = _fused_induction(X, Z, do_f, do_b, csls_knn if csls else 0, keep_prob, rng,
                                              memory_budget)
    elif xb.is_cupy(X):
        # the same two passes on the GPU: cuBLAS score blocks, the dropout argmax as a CUDA kernel
        t, sim_f, s, sim_b = _cuda_induction(X, Z, do_f, do_b, csls_knn if csls else 0, keep_prob, rng,
                                             memory_budget)
    else:
        if do_f:
            r = knn_mean_similarity(Z, X, min(csls_knn, X.shape[0]), metric="dot",
                                    memory_budget=memory_budget, progress=False) if csls else None
            t, sim_f = _nn_induction(X, Z, r, keep_prob, rng, memory_budget)
        if do_b:
            r = knn_mean_similarity(X, Z, min(csls_knn, Z.shape[0]), metric="dot",
                                    memory_budget=memory_budget, progress=False) if csls else None
            s, sim_b = _nn_induction(Z, X, r, keep_prob, rng, memory_budget)
    if do_f:
        parts.append(np.stack([np.arange(X.shape[0]), t], axis=1))
        objs.append(sim_f.mean())
    if do_b:
        parts.append(np.stack([s, np.arange(Z.shape[0])], axis=1))
        objs.append(sim_b.mean())
    if direction == "mutual":
        fwd, bwd = parts
        mutual = bwd[fwd[bwd[:, 0], 1] == bwd[:, 1]]
        pairs = mutual[np.argsort(mutual[:, 0], kind="stable")]
    else:
        pairs = np.concatenate(parts, axis=0)
    pairs = pairs.astype(np.int64)
    return (pairs, float(np.mean(objs))) if return_objective else pairs


def unsupervised_dictionary(X, Z, *, vocabulary: int | None = 4000, normalize=("unit", "center", "unit"),
                            direction: str = "union", retrieval: str = "csls", csls_knn: int = 10,
                            memory_budget: int | None = None):
    """Initial dictionary without any seed: similarity-distribution signatures (ACL 2018).

    Artetxe, Labaka & Agirre (2018, "A robust self-learning method for fully unsupervised
    cross-lingual mappings of word embeddings", Section 3.2): for the first n = ``vocabulary``
    words of each (normalised) space, ``M = (XXᵀ)^(1/2) = U S Uᵀ`` (X = USVᵀ); each row of M is
    sorted, so that it no longer depends on the word order of the language, and the sorted
    rows are normalised like the embeddings (VecMap's ``--normalize`` steps). Words are then paired
    with their nearest neighbour across languages in that signature space, by ``retrieval``
    ("csls" with ``csls_knn``, as VecMap; or "nn"), in ``direction`` (as
    :func:`induce_dictionary`), as VecMap's ``--init_unsupervised`` does.

    Parameters
    ----------
    X, Z : arrays (n_s, d_s), (n_t, d_t)
        Normalised source and target vectors, rows in frequency order.
    vocabulary : int or None
        n; ``None`` uses min(n_s, n_t). Memory and time are O(n²) and O(n² d): n is capped at 20000.
    normalize : str or sequence of str, default ("unit", "center", "unit")
        The :mod:`embgeo.normalize` steps applied to the sorted signature rows.
    direction : {"forward", "backward", "union", "mutual"}, default "union"
        As :func:`induce_dictionary`.
    retrieval : {"nn", "csls"}, default "csls"
        As :func:`induce_dictionary`.
    csls_knn : int, default 10
        K of CSLS's r terms.
    memory_budget : int, optional
        Bytes of working memory for the induction's score tiles (default 256 MiB).

    Returns
    -------
    pairs : int64 array (m, 2) of (source_row, target_row)
        The induced dictionary, rows among the first n of each space.

    Raises
    ------
    ValueError
        n above 20000, NaN or inf in a space (the row is named), or what
        :func:`induce_dictionary` refuses.

    See Also
    --------
    induce_dictionary : the nearest-neighbour step it ends with.

    References
    ----------
    M. Artetxe, G. Labaka, E. Agirre (2018). A robust self-learning method for fully unsupervised
    cross-lingual mappings of word embeddings. ACL, Section 3.2.
    """
    X = xb.check_matrix(X, "X")
    Z = xb.check_matrix(xb.asarray(Z, like=X), "Z")
    n = min(X.shape[0], Z.shape[0]) if not vocabulary else min(X.shape[0], Z.shape[0], int(vocabulary))
    if n > 20000:
        raise ValueError(f"the unsupervised initialisation compares n×n similarity matrices; n = {n} is "
                         "too large: pass vocabulary (VecMap uses 4000)")
    xp = xb.get_namespace(X, Z)
    steps = (normalize,) if isinstance(normalize, str) else tuple(normalize or ())

    def signature(M):
        U, s, _ = xp.linalg.svd(M[:n, ...], full_matrices=False)
        S = (U * xp.reshape(s, (1, -1))) @ xp.matrix_transpose(U)
        return _normalize_rows(xp.sort(S, axis=1), steps)

    return induce_dictionary(signature(X), signature(Z), direction=direction, retrieval=retrieval,
                             csls_knn=csls_knn, memory_budget=memory_budget)
