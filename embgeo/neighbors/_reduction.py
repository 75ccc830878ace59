"""Hubness reduction as search criteria: mutual proximity, local scaling, NICDM and DisSimLocal.

Each criterion rescales the distance d(x, y) = ‖x̂ − ŷ‖ of unit vectors (d² = 2 − 2 cos) by
statistics of the neighbourhoods of x and y, so that a hub (a point close to everything) loses its
advantage (Feldbauer & Flexer 2019 compare them):

* ``"mp"``, empirical mutual proximity (Schnitzer, Flexer, Schedl & Widmer 2012, JMLR 13, eq. 6):
  MP(x, y) = |{j : d(x, j) > d(x, y) and d(y, j) > d(x, y)}| / n, the share of points farther from
  both than they are from each other;
* ``"mp-gauss"``, mutual proximity with independent Gaussians (ibid., eq. 8):
  MP(x, y) = SF(d; μ_x, σ_x) · SF(d; μ_y, σ_y), SF the normal survival function and μ, σ the mean
  and (population) standard deviation of a point's distances to all others;
* ``"ls"``, local scaling (Zelnik-Manor & Perona 2005; Schnitzer et al. 2012, eq. 4):
  LS(x, y) = 1 − exp(−d² / (σ_x σ_y)), σ the distance to the K-th nearest neighbour;
* ``"cdm"``, the non-iterative contextual dissimilarity measure (Jégou, Harzallah & Schmid 2007;
  Schnitzer et al. 2012, eq. 5): d / √(μ_x μ_y), μ the mean distance to the K nearest neighbours;
* ``"dsl"``, DisSimLocal (Hara, Suzuki, Kobayashi, Fukumizu & Radovanović 2016, AAAI, eq. 6):
  d² − ‖x − c_x‖² − ‖y − c_y‖², c the centroid of the K nearest neighbours.

The returned scores are similarities, best first: the MP values themselves (in [0, 1]);
−d² / σ_y for LS, −d / √μ_y for CDM and −(d² − ‖y − c_y‖²) for DSL, which rank every query's
candidates exactly as the formulas above (the query's own σ_x, μ_x or ‖x − c_x‖² is one
monotone transform of a whole row, so it is left out, as CSLS leaves out r_T(x)).

**Which neighbourhoods.** Every statistic runs over one space, ``source``: the database itself
for neighbours within a vocabulary (each word leaving itself out), the mapped source space for
cross-lingual retrieval, as CSLS's r_S does (Conneau et al. 2018). So for translation, target y's
σ_y, μ_y, c_y, moments and neighbour list are those of y among the source words; query x's
moments and list (MP needs them) are those of x among the source words too, which makes the
"j" of MP one common set. K is ``knn`` (``csls_knn`` in the retrieval functions).

**Differences from scikit-hubness** (v0.30.0a1, commit c36a058, ``skhubness/reduction``; the
golden file ``tests/data/skhubness_reduction_golden.npz`` was made by running it):

* Its empirical MP is computed on a K-nearest-neighbour graph only, the "approximate" MP that
  embgeo follows: a query's candidates are its top K targets by cosine, re-ranked by MP;
  j runs over the union of the K-NN lists of x and y, a point missing from a list counts as
  farther than the pair, and a pair farther apart than y's K-th neighbour gets MP = 0. Targets
  outside the candidates rank after them, by cosine (BLI's ranks). The exact MP of the paper
  (j over all n points) costs O(n) per pair and is not offered. embgeo leaves x and y
  themselves out of the j.
* Its Gaussian MP takes the moments over the K-NN graph's row (including the point itself at
  distance 0 when the graph does); embgeo takes them over all other points, as the paper does,
  computed in blocks of full rows (no n × n matrix). They agree on a complete graph without self.
* Its LS returns 1 + d² / (σ_x σ_y) (the exponential dropped); the ranking is the same.
* Its DSL takes a query's centroid as the mean of its neighbours' centroids and shifts all values
  to be non-negative; both are constant along a query's row, so rankings agree with the paper's.
* It works with any (by default Euclidean) distance of the raw vectors; embgeo's criteria
  compare directions (unit vectors), as every embgeo criterion does.
"""
from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from .. import backend as xb
from ..blocking import block_rows, row_blocks
from ..normalize import normalize
from ..progress import progress_bar
from ..validation import exclusion_csr
from ._criteria import REDUCTION_METRICS, choices
from ._exact import select_topk, topk

__all__ = ["reduction_topk", "reduction_ranks", "reduction_stats"]

# bytes per score of a full-row block: the float64 cosines, d² and score, one temporary
_ITEM = 4 * 8


def _check(metric, knn):
    if metric not in REDUCTION_METRICS:
        raise ValueError(f"hubness reduction metric must be {choices(REDUCTION_METRICS)}, got {metric!r}")
    if isinstance(knn, bool) or not isinstance(knn, (int, np.integer)) or knn < 1:
        raise ValueError(f"knn (the neighbourhood size K) must be a positive integer, got {knn!r}")
    return int(knn)


def _unit(X, name, like=None):
    X = xb.to_numpy(xb.check_matrix(X, name))  # NaN/inf rows are named here
    if like is not None:
        if X.shape[1] != like.shape[1]:
            raise ValueError(f"{name} has dimension {X.shape[1]} but the database has {like.shape[1]}")
        X = X.astype(like.dtype, copy=False)
    elif X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float32)
    return np.ascontiguousarray(normalize(X, "unit"))


def _d2(C):
    """Squared distances 2 − 2 cos of unit vectors, in float64 (rounding never makes them negative)."""
    return np.maximum(2.0 - 2.0 * C.astype(np.float64), 0.0)


def reduction_stats(database, metric: str, knn: int = 10, *, source=None, memory_budget: int | None = None,
                    progress=None) -> dict:
    """The neighbourhood statistics of every database row for :func:`reduction_topk` (its ``stats=``).

    Over ``source`` (default: the database itself, each row leaving itself out); computed once,
    they serve any number of queries (:func:`embgeo.neighbors.search` keeps them with its
    Embeddings).

    Returns
    -------
    dict of NumPy arrays, one entry per database row
    """
    T = _unit(database, "database")
    S = T if source is None else _unit(source, "source", like=T)
    return _stats(T, S, metric, knn, leave_self_out=source is None, memory_budget=memory_budget,
                  progress=progress)


def _stats(X, source, metric, knn, *, leave_self_out=False, memory_budget=None, progress=None):
    """The neighbourhood statistics of every row of ``X`` among the rows of ``source``.

    One top-``knn`` pass (``"mp"``: the lists; ``"ls"``: σ, the K-th distance; ``"cdm"``: μ, the
    mean of the K distances; ``"dsl"``: ‖x − c_x‖²), or, for ``"mp-gauss"``, one blocked pass over
    full rows for the mean and standard deviation of all distances. Both inputs are unit rows of
    one dtype.

    Parameters
    ----------
    leave_self_out : bool
        ``X`` is ``source`` (one vocabulary): each row leaves itself out.

    Returns
    -------
    dict of NumPy arrays, one entry per row of ``X``
    """
    knn = _check(metric, knn)
    n, m = X.shape[0], source.shape[0]
    avail = m - 1 if leave_self_out else m
    if avail < (2 if metric == "mp-gauss" else knn):
        need = 3 if metric == "mp-gauss" else knn + 1
        raise ValueError(f"the neighbourhood statistics of {metric!r} need at least {need} words "
                         f"(K={knn} neighbours besides the word itself), the space has {m}")
    self_rows = np.arange(n, dtype=np.int64) if leave_self_out else None
    if metric == "mp-gauss":
        return _moments(X, source, self_rows, memory_budget, progress)
    cos, idx = topk(X, source, knn, metric="dot", exclude=self_rows, memory_budget=memory_budget,
                    progress=progress, check_finite=False)
    d = np.sqrt(_d2(cos))
    if metric == "mp":
        return {"idx": idx, "d": d}
    if metric == "ls":
        return {"r": d[:, -1]}
    if metric == "cdm":
        return {"r": d.mean(axis=1)}
    # DSL: ‖x − c_x‖², c_x the centroid of x's K nearest source rows, a block of rows at a time
    e = np.empty(n, dtype=np.float64)
    for s, t in row_blocks(n, block_rows(knn * source.shape[1], 8, memory_budget)):
        c = source[idx[s:t]].astype(np.float64).mean(axis=1)
        e[s:t] = ((X[s:t] - c) ** 2).sum(axis=1)
    return {"e": e}


def _moments(X, S, self_rows, memory_budget, progress):
    """Mean and population standard deviation of every row's distances to the rows of ``S``."""
    n, m = X.shape[0], S.shape[0]
    mu, sd = np.empty(n), np.empty(n)
    S64 = S.astype(np.float64).T
    starts = row_blocks(n, block_rows(m, _ITEM, memory_budget))
    for s, t in progress_bar(starts, total=len(starts), desc="MP moments", progress=progress, unit="block"):
        d = np.sqrt(_d2(X[s:t].astype(np.float64) @ S64))
        if self_rows is not None:
            d[np.arange(t - s), self_rows[s:t]] = np.nan  # the word itself is not among the others
            mu[s:t] = np.nanmean(d, axis=1)
            sd[s:t] = np.nanstd(d, axis=1)
        else:
            mu[s:t] = d.mean(axis=1)
            sd[s:t] = d.std(axis=1)
    return {"mu": mu, "sd": sd}


def _positive(r):
    # a zero scale (duplicate vectors) would divide by zero: the smallest positive float ranks alike
    return np.maximum(r, np.finfo(np.float64).tiny)


def _scores(metric, C, qs, ts, m):
    """Score block of one block of queries (cosines ``C``) against all targets; higher is better.

    For ``"mp"`` the MP values of the candidates are shifted by 2, above every cosine, and the
    other targets keep their cosine: candidates first, the rest after them by cosine.
    """
    if metric == "mp":
        return C  # see _mp_scores
    d2 = _d2(C)
    if metric == "ls":
        return -d2 / _positive(ts["r"])
    if metric == "cdm":
        return -np.sqrt(d2) / np.sqrt(_positive(ts["r"]))
    if metric == "dsl":
        d2 -= ts["e"]
        return np.negative(d2, out=d2)
    d = np.sqrt(d2, out=d2)
    px = ndtr((qs["mu"][:, None] - d) / _positive(qs["sd"])[:, None])
    d -= ts["mu"]
    d /= -_positive(ts["sd"])
    return px * ndtr(d, out=d)


def _mp_scores(C, Qb, T, qs, ts, kc, m, exclude, own_rows):
    """Empirical MP of each query's top-``kc`` cosine candidates (skhubness's k-NN graph formula).

    Returns the score block (candidates 2 + MP, the others their cosine) and the candidates.
    """
    # the candidates by topk's canonical cosines, which are symmetric (cos(x, y) is cos(y, x) to the
    # bit) and equal to those of the neighbour lists: "farther than the pair" must compare alike
    cc, cand = topk(Qb, T, kc, metric="dot", exclude=exclude, check_finite=False)
    q = C.shape[0]
    rows = np.arange(q)
    dc = np.sqrt(_d2(cc))
    xi, xd = qs["idx"], qs["d"]  # the query's K source neighbours and distances
    me = np.full(q, -1, dtype=np.int64) if own_rows is None else own_rows
    mp = np.empty(cand.shape)
    for p in range(kc):
        y, d = cand[:, p], dc[:, p:p + 1]
        yi, yd = ts["idx"][y], ts["d"][y]
        same = xi[:, :, None] == yi[:, None, :]
        d_y_of_xj = np.where(same, yd[:, None, :], np.inf).min(axis=2)  # inf: j not in y's list
        from_x = (xd > d) & (d_y_of_xj > d) & (xi != y[:, None]) & (xi != me[:, None])
        from_y = ~same.any(axis=1) & (yd > d) & (yi != y[:, None]) & (yi != me[:, None])
        count = from_x.sum(axis=1) + from_y.sum(axis=1)
        # beyond y's K-th neighbour (or x's) nothing is known to be farther from both
        count[(d[:, 0] >= yd[:, -1]) | (d[:, 0] > xd[:, -1])] = 0
        mp[:, p] = count / m
    S = C.astype(np.float64)
    S[rows[:, None], cand] = 2.0 + mp
    return S


def _blocks(metric, Q, T, S, knn, k_cand, exclude, query_rows, stats, memory_budget, progress):
    """(start, stop, score block) of every block of queries: the one blocked pass of both entry points."""
    m = S.shape[0]
    ts = stats
    ex = exclusion_csr(exclude, Q.shape[0], T.shape[0])
    qs_all = None
    if metric in ("mp", "mp-gauss"):
        if query_rows is not None:
            qs_all = {name: v[query_rows] for name, v in ts.items()}
        else:
            qs_all = _stats(Q, S, metric, knn, memory_budget=memory_budget)
    starts = row_blocks(Q.shape[0], block_rows(T.shape[0], _ITEM, memory_budget))
    # cosines in float64: d = √(2 − 2 cos) of near pairs needs the digits, and the scores then do not
    # depend (beyond float64 rounding) on how the blocks cut the queries
    T64 = T.astype(np.float64).T
    for s, t in progress_bar(starts, total=len(starts), desc=f"{metric} top-k", progress=progress, unit="block"):
        C = Q[s:t].astype(np.float64) @ T64
        qs = None if qs_all is None else {name: v[s:t] for name, v in qs_all.items()}
        bex = None if ex is None else [ex[1][ex[0][i]:ex[0][i + 1]] for i in range(s, t)]
        if metric == "mp":
            own = None if query_rows is None else np.asarray(query_rows[s:t])
            yield s, t, _mp_scores(C, Q[s:t], T, qs, ts, k_cand, m, bex, own), bex
        else:
            yield s, t, _scores(metric, C, qs, ts, m), bex


def _prepare(queries, database, metric, knn, source, stats, memory_budget, progress):
    knn = _check(metric, knn)
    T = _unit(database, "database")
    Q = xb.to_numpy(queries)
    if Q.ndim == 1:
        Q = Q.reshape(1, -1)
    Q = _unit(Q, "queries", like=T) if Q.shape[0] else Q.astype(T.dtype)
    if Q.shape[1] != T.shape[1]:
        raise ValueError(f"queries have dimension {Q.shape[1]} but the database has {T.shape[1]}")
    own = source is None
    S = T if own else _unit(source, "source", like=T)
    if stats is None:
        stats = _stats(T, S, metric, knn, leave_self_out=own, memory_budget=memory_budget, progress=progress)
    return knn, Q, T, S, stats


def reduction_topk(queries, database, k: int = 10, *, metric: str = "mp", source=None, knn: int = 10,
                   exclude=None, query_rows=None, stats=None, memory_budget: int | None = None, progress=None):
    """Top-``k`` database rows of each query by a hubness-reduced criterion (see the module notes).

    Parameters
    ----------
    queries : array (q, d)
    database : array (n, d)
        The candidates; NaN/inf rows are refused (the row is named).
    k : int
    metric : {"mp", "mp-gauss", "ls", "cdm", "dsl"}
    source : array (m, d), optional
        The space the neighbourhood statistics run over: the mapped source space for
        cross-lingual retrieval. Default: the database itself, each row leaving itself out.
    knn : int
        K, the neighbourhood size (for ``"mp"`` also the number of candidates re-ranked).
    exclude : optional
        Database rows never returned, per query, in any form :func:`embgeo.neighbors.topk` takes.
    query_rows : int array (q,), optional
        With ``source=None``: the queries are these database rows (words searched in their own
        vocabulary), so their statistics are the database's, each leaving itself out.
    stats : dict, optional
        :func:`reduction_stats` of the database over the source, computed earlier.
    memory_budget, progress
        As in :func:`embgeo.neighbors.topk`: the score blocks are full rows of the database.

    Returns
    -------
    scores : float64 array (q, k)
        The similarity of the criterion, best first (see the module notes). ``"mp"`` re-ranks each
        query's K nearest targets (so K must exceed k to change the list); targets beyond them
        follow by cosine, scored cos − 2 (below every MP value).
    indices : int64 array (q, k)
        Ties go to the lower database row.

    Raises
    ------
    ValueError
        An unknown metric (the names are listed), fewer than K + 1 words in the source space,
        k larger than the candidates, NaN/inf rows, dimensions that disagree.
    """
    knn, Q, T, S, stats = _prepare(queries, database, metric, knn, source, stats, memory_budget, progress)
    if query_rows is not None and source is not None:
        raise ValueError("query_rows= names rows of the database, whose statistics are the queries' only "
                         "when the database is its own source (source=None)")
    # MP re-ranks each query's K nearest targets (fewer when exclusions leave fewer), whatever k
    k_cand = min(knn, T.shape[0] - (0 if exclude is None else 1))
    out_s, out_i = np.empty((Q.shape[0], k)), np.empty((Q.shape[0], k), dtype=np.int64)
    for s, t, B, bex in _blocks(metric, Q, T, S, knn, k_cand, exclude, query_rows, stats, memory_budget,
                                progress):
        out_s[s:t], out_i[s:t] = select_topk(B, k, bex)
    if metric == "mp":
        out_s -= 2.0
    return out_s, out_i


def reduction_ranks(queries, database, gold, *, metric: str, source, knn: int = 10, stats=None,
                    memory_budget: int | None = None, progress=None):
    """Rank (1 = best) of the best gold database row of each query, in :func:`reduction_topk`'s order.

    Ties go to the lower row, so rank ≤ k exactly when a gold row is in the top k (BLI's P@k and
    MRR, :func:`embgeo.evaluate.bli`). For ``"mp"`` a gold row outside the query's top-K cosine
    candidates ranks after them by its cosine.

    Returns
    -------
    ranks : int64 NumPy array (q,)
    """
    knn, Q, T, S, stats = _prepare(queries, database, metric, knn, source, stats, memory_budget, progress)
    if len(gold) != Q.shape[0]:
        raise ValueError(f"{len(gold)} gold lists for {Q.shape[0]} queries")
    ranks = np.empty(Q.shape[0], dtype=np.int64)
    cols = np.arange(T.shape[0])
    for s, t, B, _ in _blocks(metric, Q, T, S, knn, knn, None, None, stats, memory_budget, progress):
        for i in range(s, t):
            row, g = B[i - s], np.asarray(gold[i], dtype=np.int64)
            best = g[np.lexsort((g, -row[g]))[0]]  # the best gold row: highest score, then lowest row
            v = row[best]
            ranks[i] = 1 + np.count_nonzero(row > v) + np.count_nonzero((row == v) & (cols < best))
    return ranks
