"""Search criteria as data: which ``metric=`` and ``retrieval=`` names each engine accepts.

Like scikit-learn's ``VALID_METRICS`` (``sklearn.neighbors``): one table, read by every search
that checks its arguments, so that no function re-states its own tuple and a new criterion is one
entry here plus its code.

Two vocabularies name the same scores:

* ``metric=`` (neighbour search, :func:`embgeo.neighbors.search` and the array functions):
  ``"cosine"``, ``"dot"``, and the two hubness corrections ``"csls"`` (Conneau et al. 2018,
  eq. 3) and ``"isf"`` (inverted softmax, Smith et al. 2017, eq. 4), which subtract a per-candidate
  term computed over a source space;
* ``retrieval=`` (cross-lingual retrieval, BLI, dictionary induction, :class:`~embgeo.crosslingual.Mapper`):
  ``"nn"`` (plain nearest neighbour by cosine), ``"csls"``, ``"isf"``, ``"dot"`` (nearest neighbour
  by the raw dot product, no length normalisation: VecMap's ``eval_translation.py --dot``) and
  ``"invnn"`` (inverted nearest neighbour, Dinu, Lazaridou & Baroni 2015: the target for which the
  query ranks best among the source words), and the hubness reductions of
  :data:`REDUCTION_METRICS` (``"mp"``, ``"mp-gauss"``, ``"ls"``, ``"cdm"``, ``"dsl"``), which are
  both ``metric=`` and ``retrieval=`` names. :data:`RETRIEVAL_METRICS` gives the ``metric=`` that
  ranks as each retrieval criterion does (None for ``"invnn"``: no score of one query and one
  candidate ranks like it, so :func:`embgeo.neighbors.search` has no such metric).
"""
from __future__ import annotations

#: Metrics that are one score per (query, candidate) pair: what :func:`~embgeo.neighbors.topk`,
#: :func:`~embgeo.neighbors.knn_mean_similarity`, the screening index and FAISS accept.
PAIRWISE_METRICS = ("cosine", "dot")

#: Metrics of :func:`~embgeo.neighbors.topk` on quantised codes (:func:`embgeo.quantize`), engines "exact" and
#: "cuda": "hamming" over ``uint8`` packed bits, "dot" over ``int8`` codes (integer scores).
CODE_METRICS = ("hamming", "dot")

#: The hubness reductions (:mod:`embgeo.neighbors._reduction`): mutual proximity, empirical and
#: Gaussian (Schnitzer et al. 2012), local scaling (Zelnik-Manor & Perona 2005), the non-iterative
#: contextual dissimilarity measure (Jégou et al. 2007) and DisSimLocal (Hara et al. 2016). Each is
#: its own ``metric=`` and ``retrieval=`` name.
REDUCTION_METRICS = ("mp", "mp-gauss", "ls", "cdm", "dsl")

#: ``metric=`` names that :func:`embgeo.neighbors.search` accepts with each ``backend=`` engine.
VALID_METRICS = {
    "exact": PAIRWISE_METRICS + ("csls", "isf") + REDUCTION_METRICS,
    "dask": PAIRWISE_METRICS + ("csls",),
    "faiss": PAIRWISE_METRICS,
    "cuda": PAIRWISE_METRICS + ("csls",),
}

#: Engines of the array functions (:func:`~embgeo.neighbors.topk`, :func:`~embgeo.neighbors.csls_topk`,
#: :func:`~embgeo.neighbors.knn_mean_similarity`; "cuda" is the GPU engine); FAISS indexes arrays through
#: :mod:`embgeo.neighbors.faiss_index` instead.
ARRAY_BACKENDS = ("exact", "dask", "cuda")

#: ``retrieval=`` criteria and the ``metric=`` of :func:`embgeo.neighbors.search` that ranks alike.
RETRIEVAL_METRICS = {"nn": "cosine", "csls": "csls", "isf": "isf", "dot": "dot", "invnn": None,
                     **{name: name for name in REDUCTION_METRICS}}

#: ``retrieval=`` names each cross-lingual engine accepts: "exact" is the blocked search of
#: :func:`embgeo.crosslingual.retrieve` and :func:`embgeo.evaluate.bli`; "induction" is the fused
#: argmax kernel of :func:`embgeo.crosslingual.induce_dictionary` (so also
#: :func:`~embgeo.crosslingual.unsupervised_dictionary` and :class:`~embgeo.crosslingual.Mapper`'s
#: self-learning): "nn" and "csls" run the fused dropout argmax, the hubness reductions
#: :func:`~embgeo.neighbors.reduction_topk` without dropout ("dot" and "invnn" are evaluation criteria only:
#: VecMap's induction compares length-normalised vectors, and an inverted rank is not a score).
VALID_RETRIEVALS = {
    "exact": tuple(RETRIEVAL_METRICS),
    "induction": ("nn", "csls") + REDUCTION_METRICS,
}


def choices(names) -> str:
    """``'a', 'b' or 'c'``: the accepted names, as the error messages list them."""
    names = [repr(n) for n in names]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _check_backend(backend: str, backends=tuple(VALID_METRICS)) -> str:
    """``backend`` if it is one of ``backends``; a ValueError naming the choices otherwise.

    Parameters
    ----------
    backend : str
        The engine asked for.
    backends : tuple of str, default the engines of :data:`VALID_METRICS`
        The engines the caller offers (e.g. :data:`ARRAY_BACKENDS`).

    Returns
    -------
    str
        ``backend``.

    Raises
    ------
    ValueError
        ``backend`` is not one of ``backends`` (they are listed).
    """
    if backend not in backends:
        raise ValueError(f"backend must be {choices(backends)}, got {backend!r}")
    return backend


def check_metric(metric: str, backend: str = "exact", *, metrics=None) -> str:
    """``metric`` if engine ``backend`` accepts it (:data:`VALID_METRICS`, or the tuple ``metrics``).

    Parameters
    ----------
    metric : str
        The ``metric=`` asked for.
    backend : str, default "exact"
        The engine, a key of :data:`VALID_METRICS`.
    metrics : tuple of str, optional
        The metrics the caller accepts, instead of the engine's row of :data:`VALID_METRICS`.

    Returns
    -------
    str
        ``metric``.

    Raises
    ------
    ValueError
        Unknown metric (the accepted names are listed), or a metric that exists but not with
        this engine (the engines that have it are named).
    """
    allowed = VALID_METRICS[_check_backend(backend)] if metrics is None else metrics
    if metric in allowed:
        return metric
    elsewhere = [b for b, ms in VALID_METRICS.items() if metric in ms]
    hint = f" ({metric!r} needs backend {choices(elsewhere)})" if elsewhere and metrics is None else ""
    if not elsewhere and metric in RETRIEVAL_METRICS and RETRIEVAL_METRICS[metric] != metric:
        # a retrieval criterion's name: say which metric ranks alike, or that none does
        alike = RETRIEVAL_METRICS[metric]
        hint = (f" ({metric!r} is a retrieval= criterion; metric={alike!r} ranks alike)" if alike else
                f" ({metric!r} is a retrieval= criterion with no metric: embgeo.crosslingual.retrieve and "
                "embgeo.evaluate.bli rank by it)")
    where = f" with backend={backend!r}" if metrics is None else ""
    raise ValueError(f"metric must be {choices(allowed)}{where}, got {metric!r}{hint}")


def check_retrieval(retrieval: str, engine: str = "exact") -> str:
    """``retrieval`` if the cross-lingual ``engine`` accepts it (:data:`VALID_RETRIEVALS`).

    Parameters
    ----------
    retrieval : str
        The ``retrieval=`` criterion asked for.
    engine : {"exact", "induction"}, default "exact"
        The cross-lingual engine, a key of :data:`VALID_RETRIEVALS`.

    Returns
    -------
    str
        ``retrieval``.

    Raises
    ------
    ValueError
        An unknown criterion, or one this engine does not implement; both list the accepted names.
    """
    allowed = VALID_RETRIEVALS[engine]
    if retrieval not in allowed:
        if retrieval in RETRIEVAL_METRICS:
            where = [e for e, rs in VALID_RETRIEVALS.items() if retrieval in rs]
            known = f" ({retrieval!r} is a criterion of the {choices(where)} engine: retrieve and bli)"
        else:
            known = " (plain nearest neighbour is 'nn')"
        raise ValueError(f"retrieval must be {choices(allowed)}, got {retrieval!r}{known}")
    return retrieval
