"""Hubness reduction as search criteria: mutual proximity, local scaling, NICDM and DisSimLocal.

Each criterion rescales the distance d(x, y) = ‖x̂ − ŷ‖ of unit vectors (d² = 2 − 2 cos) by
statistics of the neighbourhoods of x and y, so that a hub (a point close to everything) loses its
advantage (Feldbauer & Flexer 2019 compare them):

* ``"mp"``, empirical mutual proximity (Schnitzer, Flexer, Schedl & Widmer 2012, JMLR 13, eq. 6):
  MP(x, y) = |{j : d(x, j) > d(x, y) and d(y, j) > d(x, y)}| / n, the share of points farther from
  both than they are from each other;
* ``"mp-gauss"``, mutual proximity with independent Gaussians (ibid., eq. 8):
  MP(x, y) = SF(d; μ_x, σ_x) · SF(d; μ_y, σ_y), SF the normal survival function and μ, σ the mean
  and (population) standard deviation of a point's distances to its K nearest neighbours
  (scikit-hubness's moments over the K-NN graph; with K = n − 1 those of all other points, as in
  the paper);
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
"j" of MP one common set. K is ``csls_knn``, the name of every neighbourhood size in embgeo.

**Differences from scikit-hubness** (v0.30.0a1, commit c36a058, ``skhubness/reduction``; the
golden file ``tests/data/skhubness_reduction_golden.npz`` was made by running it):

* Its empirical MP is computed on a K-nearest-neighbour graph only, the "approximate" MP that
  embgeo follows: a query's candidates are its top K targets by cosine, re-ranked by MP (equal
  MP values, which are counts, by cosine, as scikit-hubness's sort leaves them; then the lower row);
  j runs over the union of the K-NN lists of x and y, a point missing from a list counts as
  farther than the pair, and a pair farther apart than y's K-th neighbour gets MP = 0. Targets
  outside the candidates rank after them, by cosine (BLI's ranks). The exact MP of the paper
  (j over all n points) costs O(n) per pair and is not offered. embgeo leaves x and y
  themselves out of the j.
* Its Gaussian MP takes each point's moments over its row of the K-NN graph, and re-ranks the
  same candidates as its empirical MP; embgeo does both, leaving the point itself out of its row
  (scikit-hubness's graph holds it, at distance 0, when it was built with ``include_self``). The
  paper's moments run over all other points (eq. 8): the same formula with K = n − 1, which costs
  a full pass over the vocabulary per query and hardly reduces hubness on word spaces (GloVe 20k:
  N_10 skewness 1.54 → 1.00, against 0.11 with K = 50; docs/diagnostics.md).
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
from ..blocking import block_rows, n_jobs, row_blocks
from ..kernels import readonly
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


def reduction_stats(database, metric: str, csls_knn: int = 10, *, source=None, memory_budget: int | None = None,
                    progress=None) -> dict:
    """The neighbourhood statistics of every database row for :func:`reduction_topk` (its ``stats=``).

    Over ``source`` (default: the database itself, each row leaving itself out); computed once,
    they serve any number of queries (:func:`embgeo.neighbors.search` keeps them with its
    Embeddings).

    Parameters
    ----------
    database : array (n, d)
        The rows whose statistics are computed (unit-normalised here); NaN/inf rows are refused
        (the row is named).
    metric : {"mp", "mp-gauss", "ls", "cdm", "dsl"}
        The criterion the statistics serve.
    csls_knn : int, default 10
        K, the neighbourhood size.
    source : array (m, d), optional
        The space the neighbourhoods run over (the mapped source space for cross-lingual
        retrieval). Default: the database itself, each row leaving itself out.
    memory_budget : int, optional
        Bytes of the blocks held at once, as in :func:`embgeo.neighbors.topk`.
    progress : bool, optional
        Show a progress bar over blocks (default: the global setting).

    Returns
    -------
    dict of NumPy arrays, one entry per database row
        ``"mp"``: ``idx`` (int64, (n, K)), ``d`` (float64, (n, K)) and ``cos`` (the database's
        dtype, (n, K)), the K nearest source rows, their distances and cosines; ``"mp-gauss"``:
        those and ``mu`` and ``sd`` (float64, (n,)), the mean and population standard deviation
        of the K distances;
        ``"ls"``: ``r`` (float64, (n,)), the K-th distance; ``"cdm"``: ``r``, the mean of the K
        distances; ``"dsl"``: ``e`` (float64, (n,)), ‖x − c_x‖².

    Raises
    ------
    ValueError
        An unknown metric (the names are listed), a K that is not a positive integer, fewer than
        K + 1 words in the source space, NaN/inf rows, a source of another dimension.
    """
    T = _unit(database, "database")
    S = T if source is None else _unit(source, "source", like=T)
    return _stats(T, S, metric, csls_knn, leave_self_out=source is None, memory_budget=memory_budget,
                  progress=progress)


def _stats(X, source, metric, knn, *, leave_self_out=False, memory_budget=None, progress=None):
    """The neighbourhood statistics of every row of ``X`` among the rows of ``source``.

    One top-``knn`` pass (``"mp"``: the lists; ``"mp-gauss"``: the lists and the mean and standard
    deviation of their distances; ``"ls"``: σ, the K-th distance; ``"cdm"``: μ, the mean of the K
    distances; ``"dsl"``: ‖x − c_x‖²). Both inputs are unit rows of one dtype.

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
    if avail < knn:
        raise ValueError(f"the neighbourhood statistics of {metric!r} need at least {knn + 1} words "
                         f"(K={knn} neighbours besides the word itself), the space has {m}")
    self_rows = np.arange(n, dtype=np.int64) if leave_self_out else None
    cos, idx = topk(X, source, knn, metric="dot", exclude=self_rows, memory_budget=memory_budget,
                    progress=progress, check_finite=False)
    d = np.sqrt(_d2(cos))
    if metric == "mp":
        return {"idx": idx, "d": d, "cos": cos}
    if metric == "mp-gauss":
        return {"idx": idx, "d": d, "cos": cos, "mu": d.mean(axis=1), "sd": d.std(axis=1)}
    if metric == "ls":
        return {"r": d[:, -1]}
    if metric == "cdm":
        return {"r": d.mean(axis=1)}
    # DSL: ‖x − c_x‖², c_x the centroid of x's K nearest source rows
    from ..kernels.reduction import centroid_distances

    e = np.empty(n, dtype=np.float64)
    centroid_distances(readonly(X), readonly(source), readonly(idx), e)
    return {"e": e}


def _positive(r):
    # a zero scale (duplicate vectors) would divide by zero: the smallest positive float ranks alike
    return np.maximum(r, np.finfo(np.float64).tiny)


def _rerank(metric, Qb, T, qs, ts, kc, m, exclude, own_rows, own):
    """MP of each query's top-``kc`` cosine candidates (scikit-hubness's k-NN graph formulas), best first.

    ``own``: the database is its own source, so a candidate y is also a source row (j ≠ y).
    Returns the candidates (q, kc), their MP values and their cosines, in the criterion's order:
    MP, then the higher cosine (equal empirical MP values are counts, which scikit-hubness's sort
    leaves in the graph's order; equal Gaussian ones underflow to 0 far in the tails), then the
    lower row.
    """
    # the candidates by topk's canonical cosines, which are symmetric (cos(x, y) is cos(y, x) to the
    # bit) and equal to those of the neighbour lists: "farther than the pair" must compare alike
    if own and own_rows is not None and kc == qs["idx"].shape[1] and exclude is not None and all(
            len(e) == 1 and e[0] == r for e, r in zip(exclude, own_rows)):
        # words among their own vocabulary, leaving only themselves out: the candidates are their
        # lists, which the statistics' pass found by the same search
        cc, cand = qs["cos"], qs["idx"]
    else:
        cc, cand = topk(Qb, T, kc, metric="dot", exclude=exclude, check_finite=False)
    dc = np.sqrt(_d2(cc))
    if metric == "mp-gauss":
        mp = (ndtr((qs["mu"][:, None] - dc) / _positive(qs["sd"])[:, None])
              * ndtr((ts["mu"][cand] - dc) / _positive(ts["sd"][cand])))
    else:
        from ..kernels.reduction import mp_counts

        me = np.full(Qb.shape[0], -1, dtype=np.int64) if own_rows is None else np.asarray(own_rows, dtype=np.int64)
        counts = np.empty(cand.shape, dtype=np.int64)
        mp_counts(readonly(np.ascontiguousarray(qs["idx"])), readonly(np.ascontiguousarray(qs["d"])), readonly(me),
                  readonly(np.ascontiguousarray(cand)), readonly(dc), readonly(ts["idx"]), readonly(ts["d"]), m,
                  bool(own), max(1, min(Qb.shape[0], 2 * n_jobs())), counts)
        mp = counts / m
    order = np.lexsort((cand, -cc, -mp), axis=1)
    return (np.take_along_axis(cand, order, axis=1), np.take_along_axis(mp, order, axis=1),
            np.take_along_axis(cc, order, axis=1))


def _candidate_scores(metric, C, Qb, T, qs, ts, kc, m, exclude, own_rows, own):
    """The full-row score block of MP: the p-th best candidate 3 − p / kc, above every cosine; the
    others their cosine. Returns the block and :func:`_rerank`'s candidates and values."""
    cand, mp, cc = _rerank(metric, Qb, T, qs, ts, kc, m, exclude, own_rows, own)
    S = C.astype(np.float64)
    S[np.arange(C.shape[0])[:, None], cand] = 3.0 - np.arange(cand.shape[1]) / cand.shape[1]
    return S, cand, mp


def _factors(metric, Q, T, ts):
    """[x̂, 1] and [w_y ŷ, b_y], whose dot products rank as LS, CDM or DSL (float32 factors).

    −d²/σ_y = (2 cos − 2)/σ_y; CDM's −d/√μ_y ranks as −d²/μ_y; DSL's −(d² − e_y) = 2 cos + e_y − 2.
    So these three are one GEMM-and-heap search of the fused engine, as CSLS is.
    """
    if metric == "dsl":
        w, b = np.full(T.shape[0], 2.0), ts["e"] - 2.0
    else:
        r = _positive(ts["r"])
        w, b = 2.0 / r, -2.0 / r
    Qa = np.concatenate([Q, np.ones((Q.shape[0], 1), dtype=Q.dtype)], axis=1)
    Ta = np.concatenate([T * w[:, None].astype(T.dtype), b[:, None].astype(T.dtype)], axis=1)
    return Qa, Ta


def _pair_scores(metric, Q, T, rows, cols, ts):
    """Float64 LS, CDM or DSL scores of the pairs (rows[i], cols[i]), from float64 cosines."""
    d2 = _d2(np.einsum("ij,ij->i", Q[rows].astype(np.float64), T[cols].astype(np.float64)))
    if metric == "ls":
        return -d2 / _positive(ts["r"][cols])
    if metric == "cdm":
        return -np.sqrt(d2) / np.sqrt(_positive(ts["r"][cols]))
    return ts["e"][cols] - d2


def _query_blocks(metric, Q, T, S, knn, exclude, query_rows, stats, memory_budget, progress, width=None):
    """(start, stop, exclusions, query statistics) of every block of queries.

    Blocks hold ``width`` scores per query (default: full rows of the database or of the source).
    """
    ex = exclusion_csr(exclude, Q.shape[0], T.shape[0])
    qs_all = None
    if metric in ("mp", "mp-gauss"):
        if query_rows is not None:
            qs_all = {name: v[query_rows] for name, v in stats.items()}
        else:
            qs_all = _stats(Q, S, metric, knn, memory_budget=memory_budget)
    # full rows of the database (the score blocks) or of the source (MP's table of the query's list)
    width = max(T.shape[0], S.shape[0]) if width is None else width
    starts = row_blocks(Q.shape[0], block_rows(width, _ITEM, memory_budget))
    for s, t in progress_bar(starts, total=len(starts), desc=metric, progress=progress, unit="block"):
        qs = None if qs_all is None else {name: v[s:t] for name, v in qs_all.items()}
        bex = None if ex is None else [ex[1][ex[0][i]:ex[0][i + 1]] for i in range(s, t)]
        yield s, t, bex, qs


def _blocks(metric, Q, T, S, knn, stats, memory_budget, progress):
    """(start, stop, full-row score block) of every block of queries, ranked as :func:`reduction_topk`."""
    if metric in ("ls", "cdm", "dsl"):
        Qa, Ta = _factors(metric, Q, T, stats)
        TaT = Ta.T
    else:
        # cosines in float64: d = √(2 − 2 cos) of near pairs needs the digits
        T64 = T.astype(np.float64).T
    for s, t, _, qs in _query_blocks(metric, Q, T, S, knn, None, None, stats, memory_budget, progress):
        if metric in ("ls", "cdm", "dsl"):
            yield s, t, Qa[s:t] @ TaT
            continue
        C = Q[s:t].astype(np.float64) @ T64
        yield s, t, _candidate_scores(metric, C, Q[s:t], T, qs, stats, min(knn, T.shape[0]), S.shape[0], None, None,
                                      S is T)[0]


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


def reduction_topk(queries, database, k: int = 10, *, metric: str = "mp", source=None, csls_knn: int = 10,
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
    csls_knn : int
        K, the neighbourhood size (for ``"mp"`` and ``"mp-gauss"`` also the number of candidates
        re-ranked).
    exclude : optional
        Database rows never returned, per query, in any form :func:`embgeo.neighbors.topk` takes.
    query_rows : int array (q,), optional
        With ``source=None``: the queries are these database rows (words searched in their own
        vocabulary), so their statistics are the database's, each leaving itself out.
    stats : dict, optional
        :func:`reduction_stats` of the database over the source, computed earlier.
    memory_budget, progress
        As in :func:`embgeo.neighbors.topk`. LS, CDM and DSL are one :func:`~embgeo.neighbors.topk`
        search; ``"mp"`` and ``"mp-gauss"`` hold K values per query, and rows of all targets'
        scores only when k exceeds K.

    Returns
    -------
    scores : float64 array (q, k)
        The similarity of the criterion, best first (see the module notes). ``"mp"`` and
        ``"mp-gauss"`` re-rank each query's K nearest targets (so K must exceed k to change the
        list); targets beyond them follow by cosine, scored cos − 2 (below every MP value).
    indices : int64 array (q, k)
        Ties go to the lower database row (for ``"mp"`` and ``"mp-gauss"``, equal MP values go to
        the higher cosine first).

    Raises
    ------
    ValueError
        An unknown metric (the names are listed), fewer than K + 1 words in the source space,
        k larger than the candidates, NaN/inf rows, dimensions that disagree.
    """
    knn, Q, T, S, stats = _prepare(queries, database, metric, csls_knn, source, stats, memory_budget, progress)
    if query_rows is not None and source is not None:
        raise ValueError("query_rows= names rows of the database, whose statistics are the queries' only "
                         "when the database is its own source (source=None)")
    # MP re-ranks each query's K nearest targets (fewer when exclusions leave fewer), whatever k
    k_cand = min(knn, T.shape[0] - (0 if exclude is None else 1))
    if metric in ("ls", "cdm", "dsl"):
        # one search of the fused engine on factors that rank alike; the scores of the pairs it
        # returns are then recomputed exactly
        Qa, Ta = _factors(metric, Q, T, stats)
        _, idx = topk(Qa, Ta, k, metric="dot", exclude=exclude, memory_budget=memory_budget, progress=progress,
                      check_finite=False)
        rows = np.repeat(np.arange(Q.shape[0]), idx.shape[1])
        return _pair_scores(metric, Q, T, rows, idx.ravel(), stats).reshape(idx.shape), idx
    out_s, out_i = np.empty((Q.shape[0], k)), np.empty((Q.shape[0], k), dtype=np.int64)
    # re-ranking holds a few arrays of K values per query; more than K candidates need full rows
    width = 16 * k_cand if k <= k_cand else None
    for s, t, bex, qs in _query_blocks(metric, Q, T, S, knn, exclude, query_rows, stats, memory_budget, progress,
                                       width):
        own = None if query_rows is None else np.asarray(query_rows[s:t])
        if k <= k_cand:  # the k best of the K candidates
            cand, mp, _ = _rerank(metric, Q[s:t], T, qs, stats, k_cand, S.shape[0], bex, own, S is T)
            out_s[s:t], out_i[s:t] = mp[:, :k], cand[:, :k]
            continue
        C = Q[s:t].astype(np.float64) @ T.astype(np.float64).T
        B, _, mp = _candidate_scores(metric, C, Q[s:t], T, qs, stats, k_cand, S.shape[0], bex, own, S is T)
        out_s[s:t], out_i[s:t] = select_topk(B, k, bex)
        # the candidates' MP values by their place; the others cos − 2 (below every MP value)
        pos = np.rint((3.0 - out_s[s:t]) * k_cand).astype(np.int64)
        at = out_s[s:t] > 2.0
        out_s[s:t] = np.where(at, np.take_along_axis(mp, np.minimum(pos, k_cand - 1), axis=1), out_s[s:t] - 2.0)
    return out_s, out_i


def reduction_ranks(queries, database, gold, *, metric: str, source, csls_knn: int = 10, stats=None,
                    memory_budget: int | None = None, progress=None):
    """Rank (1 = best) of the best gold database row of each query, in :func:`reduction_topk`'s order.

    Ties go to the lower row, so rank ≤ k exactly when a gold row is in the top k (BLI's P@k and
    MRR, :func:`embgeo.evaluate.bli`). For ``"mp"`` and ``"mp-gauss"`` a gold row outside the
    query's top-K cosine candidates ranks after them by its cosine.

    Parameters
    ----------
    queries : array (q, d)
        The query vectors (unit-normalised here); NaN/inf rows are refused (the row is named).
    database : array (n, d)
        The candidates; NaN/inf rows are refused (the row is named).
    gold : sequence of q int arrays
        For each query, the database rows that count as correct (at least one each).
    metric : {"mp", "mp-gauss", "ls", "cdm", "dsl"}
        The criterion, as in :func:`reduction_topk`.
    source : array (m, d) or None
        The space the neighbourhood statistics run over (the mapped source space for
        cross-lingual retrieval); None: the database itself, each row leaving itself out. It has
        no default: pass None explicitly for a single vocabulary.
    csls_knn : int, default 10
        K, the neighbourhood size (for ``"mp"`` and ``"mp-gauss"`` also the number of candidates
        re-ranked).
    stats : dict, optional
        :func:`reduction_stats` of the database over the source, computed earlier.
    memory_budget : int, optional
        Bytes of the blocks held at once, as in :func:`embgeo.neighbors.topk`; each block holds
        full rows of scores.
    progress : bool, optional
        Show a progress bar over blocks (default: the global setting).

    Returns
    -------
    ranks : int64 NumPy array (q,)
        The rank of each query's best gold row among all database rows, 1 = first.

    Raises
    ------
    ValueError
        An unknown metric (the names are listed), fewer than K + 1 words in the source space,
        a number of gold lists other than q, a query without gold rows or with one outside the
        database (the query is named), NaN/inf rows, dimensions that disagree.
    """
    knn, Q, T, S, stats = _prepare(queries, database, metric, csls_knn, source, stats, memory_budget, progress)
    if len(gold) != Q.shape[0]:
        raise ValueError(f"{len(gold)} gold lists for {Q.shape[0]} queries")
    n_t = T.shape[0]
    for i, g in enumerate(gold):
        g = np.asarray(g)
        if g.size == 0:
            raise ValueError(f"query {i} has no gold row: each query needs at least one")
        if g.min() < 0 or g.max() >= n_t:
            raise ValueError(f"query {i} has a gold row outside the database's {n_t} rows: {g.tolist()}")
    ranks = np.empty(Q.shape[0], dtype=np.int64)
    cols = np.arange(T.shape[0])
    for s, t, B in _blocks(metric, Q, T, S, knn, stats, memory_budget, progress):
        for i in range(s, t):
            row, g = B[i - s], np.asarray(gold[i], dtype=np.int64)
            best = g[np.lexsort((g, -row[g]))[0]]  # the best gold row: highest score, then lowest row
            v = row[best]
            ranks[i] = 1 + np.count_nonzero(row > v) + np.count_nonzero((row == v) & (cols < best))
    return ranks
