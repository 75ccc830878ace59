"""Inverted nearest neighbour retrieval (Dinu, Lazaridou & Baroni 2015), blocked over the targets.

Dinu, Lazaridou & Baroni (2015, "Improving zero-shot learning by mitigating the hubness problem",
ICLR workshop, Section 3) rank the candidates y of a query x not by cos(x, y) but by the rank of x
among the source words as seen from y: y's *inverted rank* of x is

    rank_y(x) = #{x' ∈ S : cos(y, x') > cos(y, x)}        (0: x is y's nearest source word)

and x translates to argmin_y rank_y(x), ties broken by the higher cosine (VecMap's
``eval_translation.py --retrieval invnn``, whose ties between equal ranks go to the higher
similarity, then to the lower target row; its ranks among exactly equal cosines are those of an
unstable argsort, here they count only strictly larger cosines, i.e. ties favour the query).

rank_y(x) < K exactly when cos(y, x) reaches y's K-th largest cosine over S, so the ranks that
decide a query only need each target's top-K source scores: :func:`embgeo.neighbors.topk` of the
targets over the source, one block of targets at a time (never a targets × sources matrix).
:func:`invnn_topk` starts with a small K and grows it for the queries that are still nobody's
near neighbour; :func:`invnn_gold_ranks` first computes the gold targets' ranks of each query and
then asks every target for its top-(R + 1) scores, R the largest of those ranks.

Query cosines are computed in float64 and rounded once to the working dtype, as the top-k engine's
canonical scores are; a query's own cosine is raised by a few units in the last place before it is
compared with a target's top-K scores, so that the same pair computed twice never ranks a query
below itself.
"""
from __future__ import annotations

import numpy as np

from .. import backend as xb
from ..blocking import block_rows
from ..neighbors import topk
from ..progress import progress_bar

#: units in the last place that a query's cosine is raised by before its rank is counted
_ULPS = 4
#: the first K of :func:`invnn_topk` (at least 2 k), multiplied by _GROWTH for unresolved queries
_FIRST_K, _GROWTH = 16, 8
#: above this K a block's source scores are sorted whole: the top-k engine's selection is made for
#: small k (for 1000 targets over 20k sources: 0.4 s at K = 16, 28 s at K = 20000, where np.sort of
#: the scores takes 1.4 s whatever K)
_SORT_ABOVE = 256


def _cosines(A, B):
    """A Bᵀ as NumPy: float64 products rounded once to A's dtype (float32 by default)."""
    xp = xb.get_namespace(A)
    S = xp.astype(A, xp.float64) @ xp.matrix_transpose(xp.astype(B, xp.float64))
    return xb.to_numpy(S).astype(xb.to_numpy(A[:1, ...]).dtype)


def _raised(s):
    """``s`` plus ``_ULPS`` units in the last place: a query's cosine as compared with the top-K scores."""
    return s + _ULPS * np.spacing(np.abs(s))


def _count_above(vals, rows, s, chunk=1 << 22):
    """For each pair p: #{j : vals[rows[p], j] > s[p]} (chunked so rows × K stays bounded)."""
    out = np.empty(len(rows), dtype=np.int64)
    step = max(1, chunk // max(1, vals.shape[1]))
    for a in range(0, len(rows), step):
        b = min(a + step, len(rows))
        out[a:b] = np.sum(vals[rows[a:b]] > s[a:b, None], axis=1)
    return out


def _target_blocks(T, S, Q, K, memory_budget, progress, desc):
    """(start, top-K source scores (b, K) best first, query cosines (b, q)) per block of targets.

    Small K: :func:`embgeo.neighbors.topk`; K above ``_SORT_ABOVE``: the block's scores over all
    sources, sorted (VecMap sorts them for every K).
    """
    n_t = T.shape[0]
    whole = K > _SORT_ABOVE
    step = block_rows(max(3 * S.shape[0] if whole else K, Q.shape[0], 1) * 3, 4, memory_budget)
    starts = range(0, n_t, step)
    for s in progress_bar(starts, total=len(starts), desc=desc, progress=progress, unit="block"):
        Tb = T[s:min(s + step, n_t), ...]
        if whole:
            vals = np.sort(_cosines(Tb, S), axis=1)[:, :-K - 1:-1]
        else:
            vals = xb.to_numpy(topk(Tb, S, K, metric="dot", memory_budget=memory_budget, progress=False)[0])
        yield s, vals, _cosines(Tb, Q)


def invnn_topk(Q, T, S, k, *, memory_budget=None, progress=None):
    """Top-``k`` targets of each query by inverted nearest neighbour (unit rows given).

    Parameters
    ----------
    Q, T, S : arrays (q, d), (n_t, d), (n_s, d)
        Unit-length queries, targets and the source vocabulary the ranks run over (one array library).
    k : int

    Returns
    -------
    scores : float array (q, k)
        Minus the inverted rank (0 for a target whose nearest source word is the query); equal
        ranks are ordered by cosine, then by target row.
    indices : int64 array (q, k)
    """
    n_t, n_s, nq = T.shape[0], S.shape[0], Q.shape[0]
    if not 1 <= k <= n_t:
        raise ValueError(f"k must be between 1 and the {n_t} targets, got {k}")
    best_rank = np.full((nq, k), np.iinfo(np.int64).max, dtype=np.int64)
    best_sim = np.full((nq, k), -np.inf)
    best_idx = np.full((nq, k), n_t, dtype=np.int64)
    pending = np.arange(nq)
    K = min(n_s, max(_FIRST_K, 2 * k))
    while pending.size:
        Qp = xb.take_rows(Q, pending) if pending.size < nq else Q
        rank, sim, idx, qi = [np.zeros(0, dtype=t) for t in (np.int64, np.float64, np.int64, np.int64)]
        for s, vals, cos in _target_blocks(T, S, Qp, K, memory_budget, progress, "invnn"):
            raised = _raised(cos)
            # rank < K exactly when the (raised) cosine reaches the K-th best score of the target
            known = np.ones(cos.shape, dtype=bool) if K >= n_s else raised >= vals[:, K - 1:K]
            r, j = np.nonzero(known)
            rank = np.concatenate([rank, _count_above(vals, r, raised[r, j])])
            sim = np.concatenate([sim, cos[r, j].astype(np.float64)])
            idx = np.concatenate([idx, r + s])
            qi = np.concatenate([qi, j])
            # keep the k best (rank, -cosine, row) of every query so far
            order = np.lexsort((idx, -sim, rank, qi))
            rank, sim, idx, qi = rank[order], sim[order], idx[order], qi[order]
            first = np.r_[0, np.flatnonzero(np.diff(qi)) + 1]
            pos = np.arange(len(qi)) - np.repeat(first, np.diff(np.r_[first, len(qi)]))
            keep = pos < k
            rank, sim, idx, qi, pos = rank[keep], sim[keep], idx[keep], qi[keep], pos[keep]
        found = np.bincount(qi, minlength=pending.size)
        done = (found >= k) | (K >= n_s)
        sel = done[qi]
        rows = pending[qi[sel]]
        best_rank[rows, pos[sel]] = rank[sel]
        best_sim[rows, pos[sel]] = sim[sel]
        best_idx[rows, pos[sel]] = idx[sel]
        pending = pending[~done]
        K = min(n_s, K * _GROWTH)
    xp = xb.get_namespace(T)
    scores = xp.astype(xb.asarray(-best_rank.astype(np.float64), like=T, dtype="float64"), T.dtype)
    # through float64, exact for any row number
    return scores, xp.astype(xb.asarray(best_idx.astype(np.float64), like=T, dtype="float64"), xp.int64)


def invnn_gold_ranks(Q, T, S, gold, *, memory_budget=None, progress=None):
    """Rank (1 = best) of the best gold target of every query in its inverted-nearest-neighbour order.

    The order of :func:`invnn_topk` (inverted rank, then cosine, then target row), so rank ≤ k
    exactly when a gold target is in its top k. Two passes: the gold targets' inverted ranks of
    their query (a blocked count over the source scores of the gold rows), then the top-(R + 1)
    source scores of every target, R the largest rank of a best gold, to count the targets that
    come before it.

    Parameters
    ----------
    gold : list of int arrays
        Gold target rows of each query.

    Returns
    -------
    ranks : int64 NumPy array (q,)
    """
    n_s = S.shape[0]
    qi = np.concatenate([np.full(len(g), i, dtype=np.int64) for i, g in enumerate(gold)])
    gi = np.concatenate([np.asarray(g, dtype=np.int64) for g in gold])
    # pass 1: rank_g(x) for every gold pair, counted over all source scores of the gold row
    g_rank = np.empty(len(gi), dtype=np.int64)
    g_sim = np.empty(len(gi))
    step = block_rows(n_s, 8, memory_budget)
    for a in range(0, len(gi), step):
        b = min(a + step, len(gi))
        G = xb.take_rows(T, gi[a:b])
        # the pair's own cosine, rounded as _cosines rounds it
        xp = xb.get_namespace(G)
        own = xb.to_numpy(xp.sum(xp.astype(G, xp.float64) * xp.astype(xb.take_rows(Q, qi[a:b]), xp.float64), axis=1))
        scores = _cosines(G, S)
        own = own.astype(scores.dtype)
        g_sim[a:b] = own
        g_rank[a:b] = np.sum(scores > _raised(own)[:, None], axis=1)
    # the best gold of each query: smallest (rank, -cosine, row)
    order = np.lexsort((gi, -g_sim, g_rank, qi))
    first = order[np.r_[0, np.flatnonzero(np.diff(qi[order])) + 1]]
    R, s_g, g = g_rank[first], g_sim[first], gi[first]
    # pass 2: targets before the best gold, from every target's top-(R + 1) source scores
    K = int(min(n_s, R.max() + 1))
    before = np.zeros(len(gold), dtype=np.int64)
    for s, vals, cos in _target_blocks(T, S, Q, K, memory_budget, progress, "invnn ranks"):
        pad = np.concatenate([np.full((vals.shape[0], 1), np.inf, vals.dtype), vals,
                              np.full((vals.shape[0], 1), -np.inf, vals.dtype)], axis=1)
        raised = _raised(cos)
        hi = pad[:, np.minimum(R, K)]              # the R-th best score (+inf for R = 0)
        lo = pad[:, np.minimum(R + 1, K + 1)]      # the (R + 1)-th best (-inf past the source)
        lower = hi <= raised                       # inverted rank < R
        equal = (lo <= raised) & ~lower            # inverted rank == R
        rows = np.arange(s, s + vals.shape[0])[:, None]
        ahead = (cos > s_g[None, :]) | ((cos == s_g[None, :]) & (rows < g[None, :]))
        before += np.sum(lower | (equal & ahead & (rows != g[None, :])), axis=0)
    return before + 1
