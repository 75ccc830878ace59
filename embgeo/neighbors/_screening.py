"""Certified screened exact search: fewer flops than a float32 GEMM, the same top-k.

Two ideas, one kernel (:func:`embgeo.kernels.screen.screened_block`):

**Canonical scores.** Every score the exact search returns is computed by one fixed-order float64
dot product of the (unit, for cosine) float32 query with the raw database row, times the row's
inverse norm, rounded once to the database dtype (:func:`embgeo.kernels.screen.canonical_dot`).
A score thus never depends on the tile, the thread or the shard its row was in: a search over row
shards (``topk(..., offset=)`` per shard, merged by :func:`~embgeo.neighbors.merge_topk`) returns
bit-identical scores and order to a search over the whole database.

**Screening.** Rotate the database rows y (unit rows for cosine) onto the eigenvectors V of YᵀY
(uncentred, by descending eigenvalue). For the first r rotated coordinates and the norm of the
rest, Cauchy–Schwarz on the rest gives, for a query u with rotated p = Vᵀu and a row with z = Vᵀy,

    u·y = p·z ≤ p_{<r}·z_{<r} + ‖p_{≥r}‖ ‖z_{≥r}‖,

one GEMM of width r + 1 (the residual norm is an extra column on both sides). On GloVe 6B 50d,
r = 24–32 leaves ~2–0.1 % of the pairs whose bound reaches a query's k-th score. The search runs
that bound GEMM tile by tile, computes the canonical score of just those *survivors*, and merges
them into the running heaps. The first rows (``seed`` rows, frequent words in a frequency-sorted
vocabulary) are searched without screening, which sets the thresholds early.

**Guarantee.** The bound is computed in floating point, so a survivor is any pair whose computed
bound reaches ``threshold − margin``, where the margin covers every rounding of the bound and of
the canonical score (:func:`screen_margin`, derived in its docstring with γ_m = m·u/(1 − m·u),
Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., eq. 3.4 and Lemma 3.1). So
the result is exactly the top-k by canonical score, ties to the lower row: the same rows and
scores as :func:`embgeo.neighbors.topk` without screening, whatever r, the tiling or the threads.
The plain (unscreened) path is the same kernel with the plain float32 scores as the "bound"
(:func:`plain_margin`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import backend as xb
from ..blocking import block_rows, n_jobs as default_n_jobs, row_blocks, run_blocks, share, tile_shape
from ..linalg import derived, inverse_norms, unit_rows
from ._criteria import PAIRWISE_METRICS, check_metric

__all__ = ["ScreenIndex", "build_index", "cached_screen_index", "screened_topk", "screen_margin", "plain_margin",
           "gamma", "resolve_index", "MAX_K", "SEED_ROWS"]

#: Rows searched unscreened first: they set every query's threshold before the bound prunes.
SEED_ROWS = 8192
#: Candidate ranks tried when an index chooses r (and d itself: no screening).
_RANKS = (8, 12, 16, 20, 24, 28, 32, 36, 40, 48, 64, 96, 128, 192, 256)
# The cost model of _choose_rank, measured on GloVe 400k × 50 (one thread, CPU seconds, 1,024
# queries): a bound GEMM of width w plus its scan costs about (w + 12) units, one survivor's
# canonical rescoring 32·d units (~50 ns), and the running threshold passes ~8× the pairs that
# the final one would (e.g. 0.78 % instead of 0.10 % at r = 32).
_GEMM_OVERHEAD = 12.0
_SURVIVOR_COST = 32.0
_LAG = 8.0
_RATE_ROWS = 40_000
#: Beyond this k the bound prunes little: the plain canonical path runs.
MAX_K = 256


def gamma(m: int, u: float) -> float:
    """γ_m = m·u / (1 − m·u): the relative error bound of an m-term floating-point dot product.

    Higham (2002), Lemma 3.1 and eq. 3.4: |fl(a·b) − a·b| ≤ γ_m Σ|a_i b_i| ≤ γ_m ‖a‖‖b‖, for any
    order of summation (with or without FMA).
    """
    mu = m * u
    if mu >= 1:
        raise ValueError(f"a {m}-term dot product has no error bound at unit roundoff {u}")
    return mu / (1 - mu)


_U64 = 2.0 ** -53


def _canonical_error(d: int, u_out: float) -> float:
    """|canonical score − exact (u·x)·s| / (‖u‖‖y‖): float64 sum of d terms, one scaling, one rounding."""
    return u_out * (1 + 2 * gamma(d + 1, _U64)) + gamma(d + 1, _U64)


def plain_margin(d: int, dtype) -> float:
    """Relative margin of the plain scores: |fl(fl(u·x)·s) − c| ≤ margin · ‖u‖‖s x‖.

    The plain score is a float GEMM entry fl(u·x) (error ≤ γ_d ‖u‖‖x‖, Higham Lemma 3.1),
    times the column's inverse norm s (one more rounding, ≤ u |value|); the canonical score c
    differs from the exact (u·x)·s by :func:`_canonical_error`. All relative to ‖u‖‖y‖, y = s·x.
    """
    u = float(np.finfo(dtype).eps) / 2
    return (gamma(d, u) + u) * (1 + 4 * u) + _canonical_error(d, u) + 1e-300


def screen_margin(r: int, d: int, dtype, eta: float) -> float:
    """Relative margin of the screening bound: canonical score ≤ bound + margin · ‖u‖‖y‖.

    With p̂, ẑ the float64 rotations of u and y (|p̂ − Vᵀu| ≤ δ‖u‖, δ = 2d·γ_d(2⁻⁵³)), the stored
    coordinates P = fl(p̂_{<r}), Z = fl(ẑ_{<r}) (relative error u each) and residual norms
    ρ_u ≥ ‖(Vᵀu)_{≥r}‖, ρ_y ≥ ‖(Vᵀy)_{≥r}‖ (rounded up, δ added):

    * rotation: |u·y − (Vᵀu)·(Vᵀy)| ≤ η‖u‖‖y‖ with η ≥ ‖VᵀV − I‖₂ (V is only nearly orthogonal);
    * Cauchy–Schwarz: (Vᵀu)·(Vᵀy) ≤ (Vᵀu)_{<r}·(Vᵀy)_{<r} + ρ_u ρ_y;
    * float64 rotation: |(Vᵀu)_{<r}·(Vᵀy)_{<r} − p̂_{<r}·ẑ_{<r}| ≤ (2δ + δ²)(1 + η)‖u‖‖y‖;
    * storing in the working dtype: |p̂_{<r}·ẑ_{<r} − P·Z| ≤ (2u + u²)‖p̂‖‖ẑ‖;
    * the bound GEMM of width r + 1: ≤ γ_{r+1} ‖(P, ρ_u)‖ ‖(Z, ρ_y)‖ (each ≤ (1 + 2u + 2δ + η)‖·‖);
    * the canonical score: ≤ :func:`_canonical_error` from the exact u·y.

    * for cosine, the index's rows y' = s'·x may use inverse norms s' one ulp off the search's s
      (they are computed alike, but nothing forces it): |u·y − u·y'| ≤ 2u‖u‖‖y‖.

    The sum, with the norms' inflation folded in as a factor (1 + 4u + 4δ + 2η), is returned;
    the caller multiplies by ‖u‖ and by an upper bound of the database's ‖y‖.
    """
    u = float(np.finfo(dtype).eps) / 2
    delta = 2 * d * gamma(d, _U64)
    infl = (1 + 2 * u + 2 * delta + eta) ** 2
    return (eta + (2 * delta + delta * delta) * (1 + eta) + (2 * u + u * u) * infl
            + gamma(r + 1, u) * infl + _canonical_error(d, u) + 2 * u * infl + 1e-300)


@dataclass(frozen=True)
class ScreenIndex:
    """The screening index of a database: rotation, r rotated coordinates and a residual norm per row.

    Attributes
    ----------
    rotation : float64 array (d, d)
        V, eigenvectors of YᵀY by descending eigenvalue (Y: the rows, unit length for cosine).
    rank : int
        r, the coordinates kept (chosen from the data, see :func:`build_index`).
    coords : array (n, r + 1), the database dtype
        Per row: the first r rotated coordinates, then an upper bound of the rest's norm.
    metric : str
        "cosine" (unit rows indexed) or "dot".
    max_norm : float
        An upper bound of every indexed row's norm (1 + 4u for cosine).
    eta : float
        An upper bound of ‖VᵀV − I‖₂.
    survivor_rate : float
        Fraction of (query, row) pairs the bound kept on the sample that chose r (k = 10).
    """

    rotation: np.ndarray
    rank: int
    coords: np.ndarray
    metric: str
    max_norm: float
    eta: float
    survivor_rate: float

    @property
    def nbytes(self) -> int:
        return int(self.coords.nbytes + self.rotation.nbytes)


def _row_blocks(n: int, width: int, memory_budget: int | None):
    # a float64 block and about three temporaries of its size: 32 bytes a value, in a quarter of the
    # budget (64 MiB by default): screen=True builds the index inside a search's own budget
    return row_blocks(n, block_rows(width, 32, share(memory_budget, 4), minimum=256))


def _unit_block(X, inv, s, e):
    """Rows s..e−1 as float64 (times their inverse norms for cosine): exact products of floats."""
    B = np.asarray(X[s:e], dtype=np.float64)
    return B if inv is None else B * np.asarray(inv[s:e], dtype=np.float64)[:, None]


def _round_up(x, dtype):
    """The smallest values of ``dtype`` ≥ the float64 ``x`` (elementwise)."""
    y = np.asarray(x, dtype=np.float64).astype(dtype)
    return np.where(y.astype(np.float64) < x, np.nextafter(y, np.asarray(np.inf, dtype=dtype)), y)


def _rotate(B, V, r, dtype, d):
    """Index coordinates (r rotated coordinates, residual-norm bound) of float64 rows ``B``."""
    Z = B @ V
    delta = 2 * d * gamma(d, _U64)
    res = np.sqrt(np.einsum("ij,ij->i", Z[:, r:], Z[:, r:])) * (1 + 4 * _U64)
    res = res + delta * np.sqrt(np.einsum("ij,ij->i", B, B)) * (1 + 4 * _U64)
    out = np.empty((B.shape[0], r + 1), dtype=dtype)
    out[:, :r] = Z[:, :r]
    out[:, r] = _round_up(res, dtype)
    return out


def _orthogonality_defect(V) -> float:
    d = V.shape[0]
    E = V.T @ V - np.eye(d)
    return float(np.linalg.norm(E) * (1 + 1e-10) + 2 * d * gamma(d, _U64))


def build_index(X, metric: str = "cosine", inv=None, *, rank: int | None = None, memory_budget: int | None = None,
                random_state=0, sample: int = 48, k: int = 10) -> ScreenIndex:
    """Build the screening index of ``X`` block by block (a memory-mapped ``X`` is read in blocks).

    Parameters
    ----------
    X : NumPy array (n, d)
    metric : {"cosine", "dot"}
    inv : array (n,), optional
        Inverse row norms of ``X`` (cosine; computed if not given).
    rank : int, optional
        r; by default the r of least modelled cost ``(r + 1) + β·d·f(r)``, where f(r) is the
        survivor rate of the bound on ``sample`` random rows used as queries (their exact k-th
        score over all of ``X`` as threshold; β = the measured cost of one rescoring). If no r
        beats ``d`` (no screening), the index has r = d and searches ignore it.
    memory_budget : int, optional
        A quarter of it bounds the float64 blocks (default
        :data:`~embgeo.blocking.DEFAULT_MEMORY_BUDGET`, so 64 MiB).
    random_state : int, Generator or None
        Picks the sample rows.

    Returns
    -------
    ScreenIndex
    """
    check_metric(metric, metrics=PAIRWISE_METRICS)
    X = np.asarray(X)
    n, d = X.shape
    dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.dtype(np.float32)
    with xb.single_blas_thread():  # small GEMMs: BLAS threads cost more than they bring
        return _build(X, metric, inv, rank, memory_budget, random_state, sample, k, dtype)


def _build(X, metric, inv, rank, memory_budget, random_state, sample, k, dtype):
    n, d = X.shape
    blocks = _row_blocks(n, d, memory_budget)
    if metric == "cosine" and inv is None:
        # in the working dtype, as the search computes them (an integer or float16 X is converted)
        inv = inverse_norms(X if X.dtype == dtype else X.astype(dtype), "X", check_finite=False,
                            memory_budget=memory_budget)
    inv = None if metric == "dot" else np.asarray(inv)
    G = np.zeros((d, d))
    max_sq = 0.0
    for s, e in blocks:
        B = _unit_block(X, inv, s, e)
        G += B.T @ B  # any V is correct (its defect η enters the margin); YᵀY makes it prune
        if metric == "dot" and e > s:
            max_sq = max(max_sq, float(np.einsum("ij,ij->i", B, B).max()))
    w, V = np.linalg.eigh(G)
    V = np.ascontiguousarray(V[:, ::-1])
    eta = _orthogonality_defect(V)
    u = float(np.finfo(dtype).eps) / 2
    max_norm = 1 + 4 * u if metric == "cosine" else math.sqrt(max_sq) * (1 + 4 * _U64) + 1e-300
    rate = float("nan")
    if rank is None:
        rank, rate = _choose_rank(X, inv, V, blocks, k, sample, random_state)
    rank = int(min(max(1, rank), d))
    coords = np.empty((n, rank + 1), dtype=dtype)
    for s, e in blocks:
        coords[s:e] = _rotate(_unit_block(X, inv, s, e), V, rank, dtype, d)
    return ScreenIndex(V, rank, coords, metric, float(max_norm), eta, rate)


def _choose_rank(X, inv, V, blocks, k, sample, random_state):
    """r of least modelled cost, from the survivor rates of a sample of rows used as queries.

    The cost of a search, in units of one bound-GEMM column per pair, is modelled as
    ``(w + _GEMM_OVERHEAD) + _SURVIVOR_COST · d · _LAG · f(r)`` with w = r + 1 (and w = d, f = 0
    for the plain path): f(r) is the fraction of pairs whose bound reaches the final k-th score,
    measured on ``sample`` rows against a random subset of rows; the running threshold of a
    one-pass search lets about ``_LAG`` times more pairs through than the final one.
    """
    n, d = X.shape
    rng = np.random.default_rng(random_state)
    qi = np.sort(rng.choice(n, size=min(sample, n), replace=False))
    P = np.vstack([_unit_block(X, inv, int(i), int(i) + 1) for i in qi])
    P = unit_rows(P)
    ranks = [r for r in _RANKS if r < d]
    # every sample query's exact k-th score over all rows
    kk = min(k, n)
    top = np.full((len(qi), kk), -np.inf)
    for s, e in blocks:
        S = P @ _unit_block(X, inv, s, e).T
        top = -np.partition(-np.hstack([top, S]), kk - 1, axis=1)[:, :kk]
    tau = top.min(axis=1, keepdims=True)
    # survivors of each r's bound over a random subset of rows
    rows = np.sort(rng.choice(n, size=min(n, _RATE_ROWS), replace=False))
    Z = np.vstack([_unit_block(X, inv, int(a), int(a) + 1) for a in rows]) if n > _RATE_ROWS \
        else _unit_block(X, inv, 0, n)
    Z = Z @ V
    Pz = P @ V
    plain = d + _GEMM_OVERHEAD
    best, best_cost, best_rate = d, 0.9 * plain, 0.0
    for r in ranks:
        pres = np.sqrt(np.einsum("ij,ij->i", Pz[:, r:], Pz[:, r:]))[:, None]
        zres = np.sqrt(np.einsum("ij,ij->i", Z[:, r:], Z[:, r:]))
        rate = float(np.count_nonzero(Pz[:, :r] @ Z[:, :r].T + pres * zres[None, :] >= tau)) / (len(qi) * len(Z))
        cost = (r + 1 + _GEMM_OVERHEAD) + _SURVIVOR_COST * d * _LAG * rate
        if cost < best_cost:
            best, best_cost, best_rate = r, cost, rate
    return best, best_rate


def resolve_index(screen, D, metric: str, inv, n_queries: int, k: int, memory_budget=None) -> ScreenIndex | None:
    """The index a search should screen with, or None (the plain canonical path).

    ``screen`` is None or False (no screening), True (build an index for this call) or a
    :class:`ScreenIndex` of ``D``. An index is used only where it prunes (its r < d, chosen from
    the data by :func:`build_index`) and k ≤ :data:`MAX_K`: the result is the same either way.
    None does not build one: on GloVe 400k × 50 the build (about 1 CPU second) costs about as
    much as screening saves on 10,000 queries (docs/neighbors.md).
    """
    n, d = D.shape
    if screen is None or screen is False:
        return None
    if screen is True:
        index = build_index(D, metric, inv, memory_budget=memory_budget)
    elif isinstance(screen, ScreenIndex):
        index = screen
        if index.metric != metric:
            raise ValueError(f"the screening index was built for metric={index.metric!r}, not {metric!r}")
    else:
        raise TypeError(f"screen must be None, a bool or a ScreenIndex, got {type(screen).__name__}")
    return index if index.rank < d and k <= MAX_K else None


def cached_screen_index(e, metric: str = "cosine", inv=None) -> ScreenIndex:
    """The screening index of an :class:`~embgeo.embeddings.Embeddings`, built once per metric and kept with it.

    What :func:`embgeo.neighbors.search` screens with when given ``backend=Exact(screen=True)``; it
    can also be given as ``Exact(screen=...)`` to :func:`embgeo.neighbors.topk` over ``e.vectors``.
    """
    return derived(e, ("screening index", metric), lambda: build_index(np.asarray(e.vectors), metric, inv))


def screened_topk(Q, D, k, ex=None, q_inv=None, d_inv=None, index: ScreenIndex | None = None, *,
                  memory_budget=None, progress=None, n_jobs=None, desc="top-k", stats=None, scale=None,
                  col_bias=None):
    """Exact top-k by canonical score, screened by ``index`` (or plain GEMM scores without one).

    Parameters
    ----------
    Q : NumPy array (q, d)
        Raw queries (scaled to unit length here for cosine, by ``q_inv``).
    D : NumPy array (n, d), C-contiguous
        Raw database rows.
    k : int
    ex : (ptr, idx), optional
        CSR exclusions (:func:`embgeo.validation.exclusion_csr`).
    q_inv, d_inv : arrays, optional
        Inverse row norms (cosine), or None (dot).
    index : ScreenIndex, optional
        Built for ``D`` and the same metric.
    memory_budget, progress, n_jobs
        As in :func:`embgeo.neighbors.topk`.
    stats : dict, optional
        Filled with ``survivors`` (pairs rescored) and ``pairs``.
    scale, col_bias : float and array (n,), optional
        Rank by ``scale · cos − col_bias`` (CSLS's 2 cos − r_S; cosine only): the canonical value
        is then ``fl(scale · c64 − bias)``, c64 the float64 canonical cosine before rounding.

    Returns
    -------
    scores, indices : arrays (q, k), best first, ties to the lower row
    """
    from ..kernels import readonly
    from ..kernels import screen as KS
    from ..kernels import topk as K

    # read-only inputs (whatever the caller's flags) and every argument passed: one specialization per dtype
    Q, D = np.asarray(Q), readonly(np.asarray(D))
    n, d = D.shape
    nq = Q.shape[0]
    dtype = D.dtype
    hv, hi = K.init_heaps(nq, k, dtype)
    if nq == 0:
        return hv, hi
    if index is not None and (index.coords.shape[0] != n or index.rotation.shape[0] != d):
        raise ValueError(f"the screening index is for {index.coords.shape[0]} × {index.rotation.shape[0]} rows, "
                         f"not the database's {n} × {d}")
    n_jobs = default_n_jobs(n_jobs)
    # dot: the kernel reads each tile again for its row norms, so a tile should still be in
    # cache (~2 MiB of rows) when it does
    max_cols = None if d_inv is not None else max(1, 2**21 // max(1, d * dtype.itemsize))
    rows, cols = tile_shape(n, nq, n_jobs, dtype.itemsize, memory_budget, max_cols)
    ptr, idx = ex if ex is not None else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    empty = readonly(np.zeros(0, dtype))
    bscale = empty if d_inv is None else readonly(np.ascontiguousarray(d_inv, dtype=dtype))
    cscale = bscale  # the kernel widens each factor to float64 (no n-sized float64 copy)
    u = float(np.finfo(dtype).eps) / 2
    if index is not None:
        ymax = index.max_norm
        seed_rows = min(n, SEED_ROWS)
        s_margin = screen_margin(index.rank, d, dtype, index.eta)
        V = index.rotation
        coords = readonly(index.coords)
    else:
        seed_rows = n
    # cosine rows have norm ≤ 1 + 4u; dot rows' norms are bounded per tile by the kernel
    ymax_plain = 1 + 4 * u if d_inv is not None else 0.0
    tile_norms = np.full(-(-n // cols), -1.0)
    p_margin = plain_margin(d, dtype)
    counts = np.zeros(nq, dtype=np.int64)
    f = 1.0 if scale is None else float(scale)
    bias = empty if col_bias is None else readonly(np.ascontiguousarray(col_bias, dtype=dtype))
    extra = 0.0
    if col_bias is not None:
        if d_inv is None or index is not None:
            raise ValueError("a column bias (CSLS) needs cosine and no screening index")
        # the biased bound f·v − b and the biased canonical value are each rounded once in the
        # working dtype: u·(f·‖u‖‖y‖ + max|b|) each; ‖u‖ ≤ 1 + 4u for unit queries
        bmax = float(np.max(np.abs(bias))) if bias.size else 0.0
        extra = 3 * u * (abs(f) * (1 + 8 * u) + bmax) + 1e-300

    def run_block(s):
        e = min(s + rows, nq)
        Qb = Q[s:e]
        if q_inv is not None:
            Qb = Qb * np.asarray(q_inv[s:e], dtype=dtype)[:, None]
        Qb = readonly(np.ascontiguousarray(Qb, dtype=dtype))
        U = Qb.astype(np.float64)
        unorm = np.sqrt(np.einsum("ij,ij->i", U, U)) * (1 + 4 * _U64)
        seed = np.full(e - s, -np.inf)
        cnt = np.zeros(e - s, dtype=np.int64)
        KS.screened_block(Qb, D, U, D, cols, hv, hi, s, ptr, idx, bscale, cscale, seed,
                          abs(f) * p_margin * unorm, ymax_plain, tile_norms, 2.0 ** -50, cnt, 0, seed_rows,
                          f, bias, extra)
        if seed_rows < n:
            Qs = readonly(_rotate(U, V, index.rank, dtype, d))  # the type of Qb above
            KS.screened_block(Qs, coords, U, D, cols, hv, hi, s, ptr, idx, empty, cscale, seed,
                              s_margin * unorm, ymax, tile_norms, 2.0 ** -50, cnt, seed_rows, n, 1.0, empty, 0.0)
        counts[s:e] = cnt

    run_blocks(run_block, range(0, nq, rows), n_jobs=n_jobs, desc=desc, progress=progress, flops=nq * n * d)
    K.finalize(hv, hi)
    if stats is not None:
        stats["survivors"] = int(counts.sum())
        stats["pairs"] = int(nq) * int(n)
    return hv, hi
