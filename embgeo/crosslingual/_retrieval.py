"""Translation retrieval: NN, CSLS (Conneau et al. 2018), inverted softmax (Smith et al. 2017), raw dot
product and inverted nearest neighbour (Dinu et al. 2015)."""
from __future__ import annotations

from .. import backend as xb
from ..neighbors import (REDUCTION_METRICS, check_retrieval, csls_topk, isf_log_partition, isf_topk,
                         knn_mean_similarity, reduction_topk, topk)
from ..normalize import normalize
from ._invnn import invnn_gold_ranks, invnn_topk


def retrieval_factors(queries, target, retrieval: str = "nn", *, source=None, csls_knn: int = 10,
                      isf_beta: float = 30.0, memory_budget: int | None = None, progress=None):
    """Query and target factors whose dot product ranks targets like ``retrieval`` does.

    Every supported score is s(x, y) = a·cos(x, y) − c(y) + const(x), so it is the inner product
    of [a·x̂, 1] with [ŷ, −c(y)]:

    - ``"nn"``: a = 1, c = 0;
    - ``"dot"``: the raw dot product x·y, without length normalisation (VecMap's
      ``eval_translation.py --dot``): the factors are [x, 1] and [y, 0];
    - ``"csls"``: a = 2, c(y) = r_S(y), the mean cosine of y to its ``csls_knn`` nearest mapped
      source words (Conneau et al. 2018, eq. 3; the query term r_T(x) does not change the ranking);
    - ``"isf"``: inverted softmax P(y|x) = exp(β cos(x, y)) / Σ_{x'} exp(β cos(x', y)) (Smith et al.
      2017, eq. 4), ranked by its logarithm: a = β, c(y) = log Σ_{x'} exp(β cos(x', y)).

    ``source`` is the mapped source vocabulary that r_S and the softmax denominators run over
    (the whole, or top-n, mapped source space, as MUSE and VecMap use); it is required for
    ``"csls"`` and ``"isf"``: the queries alone are no substitute (a single query would make
    every inverted-softmax score 0). Work is blocked over target rows, so memory stays bounded.
    ``"invnn"`` ranks by an inverted rank, not by a score of the pair: it has no factors
    (:func:`retrieve` and :func:`embgeo.evaluate.bli` rank by it).

    Parameters
    ----------
    queries : array, shape (q, d) or (d,)
        Mapped query vectors.
    target : array, shape (n_t, d)
        The target space.
    retrieval : {"nn", "dot", "csls", "isf"}, default "nn"
        The score.
    source : array, shape (n_s, d), optional
        The mapped source vocabulary; required for ``"csls"`` and ``"isf"``.
    csls_knn : int, default 10
        The neighbourhood size of CSLS's r_S.
    isf_beta : float, default 30.0
        The inverse temperature β of the inverted softmax.
    memory_budget : int, optional
        Bytes of working memory for the blocked passes over the target rows (default 256 MiB).
    progress : bool, optional
        Progress bar over the blocks; None: automatic.

    Returns
    -------
    Qa : array (q, d + 1)
        The query factors.
    Ta : array (n_t, d + 1)
        The target factors; ``Qa @ Ta.T`` ranks the targets of each query.

    Raises
    ------
    ValueError
        Unknown ``retrieval`` or ``"invnn"``; ``source`` missing for ``"csls"``/``"isf"``;
        ``csls_knn < 1``; dimensions that disagree.

    See Also
    --------
    retrieve : the top-k targets by the same scores.

    References
    ----------
    A. Conneau, G. Lample, M. Ranzato, L. Denoyer, H. Jégou (2018). Word translation without
    parallel data. ICLR, eq. 3 (CSLS). S. L. Smith, D. H. P. Turban, S. Hamblin, N. Y. Hammerla
    (2017). Offline bilingual word vectors, orthogonal transformations and the inverted softmax.
    ICLR, eq. 4.
    """
    if retrieval == "invnn" or retrieval in REDUCTION_METRICS:
        what = "inverted ranks" if retrieval == "invnn" else "a hubness-reduced score"
        raise ValueError(f"retrieval={retrieval!r} ranks by {what}, not by a score with factors: use "
                         "embgeo.crosslingual.retrieve or embgeo.evaluate.bli")
    xp, Q, T, S = _unit_spaces(queries, target, retrieval, source, csls_knn)
    if retrieval in ("nn", "dot"):
        a, c = 1.0, xp.zeros((T.shape[0],), dtype=xp.float64)
    elif retrieval == "csls":
        a, c = 2.0, _r_source(T, S, csls_knn, memory_budget, progress)
    else:
        # embgeo.neighbors' inverted softmax (the one implementation; its unit rows are these)
        a = float(isf_beta)
        c = isf_log_partition(T, S, a, memory_budget=memory_budget, progress=progress, unit_rows=True)
    ones = xp.ones((Q.shape[0], 1), dtype=T.dtype)
    Qa = xp.concat([Q * a, ones], axis=1)
    Ta = xp.concat([T, xp.reshape(xp.astype(-c, T.dtype), (-1, 1))], axis=1)
    return Qa, Ta


def _check(retrieval, source, csls_knn):
    check_retrieval(retrieval, "exact")
    if retrieval not in ("nn", "dot") and source is None:
        raise ValueError(f"retrieval={retrieval!r} needs source=, the mapped source vocabulary its "
                         "hubness correction runs over (e.g. the whole mapped source space)")
    if (retrieval == "csls" or retrieval in REDUCTION_METRICS) and int(csls_knn) < 1:
        raise ValueError(f"csls_knn must be at least 1, got {csls_knn}")


def _unit_spaces(queries, target, retrieval, source, csls_knn):
    """Check the arguments; the array namespace and unit-length queries, targets and source rows.

    ``"dot"`` keeps the vectors as they are (only the dtype of the target is applied)."""
    _check(retrieval, source, csls_knn)
    unit = (lambda A: A) if retrieval == "dot" else (lambda A: normalize(A, "unit"))
    T = unit(xb.check_matrix(target, "target"))
    xp = xb.get_namespace(T)
    Q = xb.asarray(queries, like=T)
    if Q.ndim == 1:
        Q = xp.reshape(Q, (1, -1))
    if Q.shape[1] != T.shape[1]:
        raise ValueError(f"queries have dimension {Q.shape[1]} but the target space has {T.shape[1]}")
    Q = unit(xp.astype(Q, T.dtype))
    S = Q
    if source is not None:
        S = xb.check_matrix(xb.asarray(source, like=T), "source")
        if S.shape[1] != T.shape[1]:
            raise ValueError(f"source has dimension {S.shape[1]} but the target space has {T.shape[1]}")
        S = unit(xp.astype(S, T.dtype))
    return xp, Q, T, S


def _r_source(T, S, csls_knn, memory_budget, progress):
    """CSLS's r_S(y) of every target row: the mean cosine to its ``csls_knn`` nearest source rows.

    The one definition of r_S for retrieval and BLI evaluation: :func:`embgeo.neighbors.knn_mean_similarity`
    on the unit rows (MUSE's ``get_nn_avg_dist``).
    """
    return knn_mean_similarity(T, S, min(int(csls_knn), S.shape[0]), metric="dot",
                               memory_budget=memory_budget, progress=progress)


def retrieve(queries, target, k: int = 10, retrieval: str = "nn", *, source=None, csls_knn: int = 10,
             isf_beta: float = 30.0, memory_budget: int | None = None, progress=None):
    """Top-``k`` target rows of each (mapped) query by NN, CSLS, inverted softmax, dot or inverted NN.

    See :func:`retrieval_factors` for the scores; ``"csls"``, ``"isf"`` and ``"invnn"`` need
    ``source``, the mapped source vocabulary (not just the queries). ``"invnn"`` (Dinu, Lazaridou &
    Baroni 2015; VecMap's ``eval_translation.py --retrieval invnn``) ranks target y by the rank of
    the query among the ``source`` rows as seen from y (0 = y's nearest source word), equal ranks by
    cosine, then by target row; it is computed from each target's top-K source scores,
    :func:`embgeo.neighbors.topk` over blocks of targets with K grown only for the queries it does
    not yet decide (see :mod:`embgeo.crosslingual._invnn`). The search is exact and blocked
    (:func:`embgeo.neighbors.csls_topk` for ``"csls"``, with r_S from
    :func:`embgeo.neighbors.knn_mean_similarity`; :func:`embgeo.neighbors.isf_topk` for ``"isf"``,
    as ``embgeo.neighbors.search(..., metric="isf")``; :func:`embgeo.neighbors.topk` of the
    factors for ``"nn"``); ties go to the lower target row. The accepted criteria are
    :data:`embgeo.neighbors.VALID_RETRIEVALS` ``["exact"]``. The hubness reductions
    (``"mp"``, ``"mp-gauss"``, ``"ls"``, ``"cdm"``, ``"dsl"``: :func:`embgeo.neighbors.reduction_topk`)
    take their neighbourhoods of ``csls_knn`` words over ``source``, for targets as CSLS's r_S does.

    Parameters
    ----------
    queries : array, shape (q, d) or (d,)
        Mapped query vectors.
    target : array, shape (n_t, d)
        The target space.
    k : int, default 10
        Targets returned per query.
    retrieval : {"nn", "dot", "csls", "isf", "invnn"}, default "nn"
        The ranking criterion.
    source : array, shape (n_s, d), optional
        The mapped source vocabulary; required for ``"csls"``, ``"isf"`` and ``"invnn"``.
    csls_knn : int, default 10
        The neighbourhood size of CSLS's r_S.
    isf_beta : float, default 30.0
        The inverse temperature β of the inverted softmax.
    memory_budget : int, optional
        Bytes of working memory for the blocked search (default 256 MiB).
    progress : bool, optional
        Progress bar over the blocks; None: automatic.

    Returns
    -------
    scores, indices : arrays (q, k)
        Scores are the ranking scores up to a per-query constant (cosine for ``"nn"``,
        2 cos − r_S for ``"csls"``: the CSLS value plus r_T(x); log P(y | x) for ``"isf"``; x·y
        for ``"dot"``; minus the inverted rank for ``"invnn"``; the reduced similarity of a hubness
        reduction, see :func:`embgeo.neighbors.reduction_topk`).

    Raises
    ------
    ValueError
        An unknown ``retrieval``, ``source`` missing where it is needed, ``csls_knn < 1``,
        dimensions that disagree, or ``k`` larger than the target rows.

    See Also
    --------
    retrieval_factors : the scores as two factor matrices.
    invnn_ranks : the exact rank of gold targets under ``"invnn"``.

    References
    ----------
    G. Dinu, A. Lazaridou, M. Baroni (2015). Improving zero-shot learning by mitigating the hubness
    problem. ICLR workshop (``"invnn"``). For ``"csls"`` and ``"isf"`` see :func:`retrieval_factors`.
    """
    if retrieval == "csls":
        # one CSLS path: embgeo.neighbors.csls_topk ranks by 2 cos − r_S with the r_S of
        # retrieval_factors (so retrieve and BLI evaluation rank alike); r_T(x), constant along a
        # query's row, is left out (r_queries = 0), so the scores are 2 cos − r_S as for the factors
        xp, Q, T, S = _unit_spaces(queries, target, retrieval, source, csls_knn)
        return csls_topk(Q, T, k, csls_knn=int(csls_knn), r_database=_r_source(T, S, csls_knn, memory_budget, progress),
                         r_queries=xp.zeros((Q.shape[0],), dtype=T.dtype), memory_budget=memory_budget,
                         progress=progress)
    if retrieval == "isf":
        _check(retrieval, source, csls_knn)
        return isf_topk(queries, target, k, source=source, isf_beta=isf_beta, memory_budget=memory_budget,
                        progress=progress)
    if retrieval == "invnn":
        _, Q, T, S = _unit_spaces(queries, target, retrieval, source, csls_knn)
        return invnn_topk(Q, T, S, int(k), memory_budget=memory_budget, progress=progress)
    if retrieval in REDUCTION_METRICS:
        _check(retrieval, source, csls_knn)
        return reduction_topk(queries, target, k, metric=retrieval, source=source, csls_knn=int(csls_knn),
                              memory_budget=memory_budget, progress=progress)
    Qa, Ta = retrieval_factors(queries, target, retrieval, source=source, csls_knn=csls_knn,
                               memory_budget=memory_budget, progress=progress)
    return topk(Qa, Ta, k, metric="dot", memory_budget=memory_budget, progress=progress)


def invnn_ranks(queries, target, gold, *, source, memory_budget: int | None = None, progress=None):
    """Rank (1 = best) of the best gold target of each query in :func:`retrieve`'s ``"invnn"`` order.

    The exact rank, for BLI's P@k and MRR (:func:`embgeo.evaluate.bli` with ``retrieval="invnn"``):
    rank ≤ k exactly when a gold row is in ``retrieve(..., k, "invnn")``'s top k. Blocked: the gold
    targets' inverted ranks first, then each target's top-(R + 1) source scores, R the largest of
    those ranks (a query whose gold ranks it deep makes this pass as costly as VecMap's full sort).

    Parameters
    ----------
    queries, target : arrays (q, d), (n_t, d)
        Mapped query and target vectors (cosines: rows are length-normalised here).
    gold : list of int arrays
        Gold target rows of each query (at least one each).
    source : array (n_s, d)
        The mapped source vocabulary the inverted ranks are taken in (length-normalised here).
    memory_budget : int, optional
        Bytes of working memory for the blocked passes (default 256 MiB).
    progress : bool, optional
        Progress bar over the blocks; None: automatic.

    Returns
    -------
    ranks : int64 NumPy array (q,)
        The rank of each query's best gold target, 1 = first.

    Raises
    ------
    ValueError
        A number of gold lists that differs from the queries, or dimensions that disagree.

    See Also
    --------
    retrieve : the ``"invnn"`` top k itself.
    """
    _, Q, T, S = _unit_spaces(queries, target, "invnn", source, 1)
    if len(gold) != Q.shape[0]:
        raise ValueError(f"{len(gold)} gold lists for {Q.shape[0]} queries")
    return invnn_gold_ranks(Q, T, S, gold, memory_budget=memory_budget, progress=progress)
