"""Inverted softmax (Smith et al. 2017, eq. 4): its log partition and its top-k search.

P(y | x) = exp(β cos(x, y)) / Σ_{x' ∈ S} exp(β cos(x', y)), the sum over a source space S; a
query's candidates are ranked by log P(y | x) = β cos(x, y) − log Z(y), so the search is the
dot-product top-k of the augmented rows [β x̂, 1] and [ŷ, −log Z(y)]. The one implementation
behind ``metric="isf"`` of :func:`embgeo.neighbors.search` and ``retrieval="isf"`` of
:func:`embgeo.crosslingual.retrieve` and :func:`embgeo.evaluate.bli`.
"""
from __future__ import annotations

from .. import backend as xb
from ..blocking import block_rows
from ..normalize import normalize
from ..progress import progress_bar
from ._engines import as_engine
from ._exact import topk
from ._screening import ScreenIndex


def isf_log_partition(database, source, isf_beta: float = 30.0, *, memory_budget: int | None = None,
                      progress=None, unit_rows: bool = False):
    """log Z(y) = log Σ_{x ∈ source} exp(β cos(x, y)) of every database row y (Smith et al. 2017, eq. 4).

    Blocked over database rows under ``memory_budget``; each block is stabilised by its row
    maximum, so every exponential is in (0, 1]. The exponentials are taken in the storage dtype
    (float32 ``exp`` is several times cheaper) and summed in float64.

    Parameters
    ----------
    database : array (n, d)
        The candidates y (scaled to unit length here).
    source : array (m, d)
        The source space S of the denominators (the whole mapped source vocabulary in BLI).
    isf_beta : float
        The inverse temperature β (Smith et al. use 30 for BLI).
    memory_budget : int, optional
        Bytes of working memory for one block of scores (default 256 MiB).
    progress : bool, optional
        Progress bar over the blocks; None: automatic.
    unit_rows : bool
        Both sides are unit-length rows of one array library and dtype already (as
        :func:`embgeo.crosslingual.retrieval_factors` holds them): spares their unit copies.

    Returns
    -------
    array of float64, shape (n,)
        log Z(y) of every database row, in the database's array library.

    Raises
    ------
    ValueError
        NaN or inf in either matrix (the row is named), or a source of another dimension.

    References
    ----------
    S. L. Smith, D. H. P. Turban, S. Hamblin, N. Y. Hammerla (2017). Offline bilingual word
    vectors, orthogonal transformations and the inverted softmax. ICLR, eq. 4.
    """
    if unit_rows:
        return _log_partition(database, source, float(isf_beta), memory_budget, progress)
    T = _unit(database, "database")
    S = _unit(xb.asarray(source, like=T), "source", like=T)
    return _log_partition(T, S, float(isf_beta), memory_budget, progress)


def _unit(X, name, like=None):
    X = xb.check_matrix(X, name)
    if like is not None:
        if X.shape[1] != like.shape[1]:
            raise ValueError(f"{name} has dimension {X.shape[1]} but the database has {like.shape[1]}")
        X = xb.get_namespace(like).astype(X, like.dtype)
    return normalize(X, "unit")


def _log_partition(T, S, beta, memory_budget, progress):
    """log Σ_x exp(β t·x) for every unit target row t, blocked over targets."""
    xp = xb.get_namespace(T)
    n = T.shape[0]
    step = block_rows(S.shape[0], 4, memory_budget)
    out = []
    starts = range(0, n, step)
    ST = xp.matrix_transpose(S)
    for s in progress_bar(starts, total=len(starts), desc="inverted softmax", progress=progress, unit="block"):
        B = (T[s:min(s + step, n), ...] @ ST) * beta
        m = xp.max(B, axis=1, keepdims=True)
        lse = xp.log(xp.sum(xp.exp(B - m), axis=1, dtype=xp.float64))
        out.append(xp.astype(xp.reshape(m, (-1,)), xp.float64) + lse)
    return xp.concat(out, axis=0)


def isf_factors(queries, database, isf_beta: float = 30.0, *, source=None, log_partition=None,
                memory_budget: int | None = None, progress=None):
    """Augmented rows [β x̂, 1] and [ŷ, −log Z(y)] whose dot products are log P(y | x) + const.

    ``log_partition`` (from :func:`isf_log_partition`) spares its pass over ``source``. Unit
    copies of the queries and the database are made (the augmented database is a new matrix).
    """
    T = _unit(database, "database")
    xp = xb.get_namespace(T)
    Q = xb.asarray(queries, like=T)
    if Q.ndim == 1:
        Q = xp.reshape(Q, (1, -1))
    Q = _unit(Q, "queries", like=T) if Q.shape[0] else xp.astype(Q, T.dtype)
    if Q.shape[1] != T.shape[1]:
        raise ValueError(f"queries have dimension {Q.shape[1]} but the database has {T.shape[1]}")
    if log_partition is None:
        if source is None:
            raise ValueError("the inverted softmax needs source=, the space its denominators sum over "
                             "(e.g. the whole mapped source vocabulary), or log_partition=")
        log_partition = _log_partition(T, _unit(xb.asarray(source, like=T), "source", like=T), float(isf_beta),
                                       memory_budget, progress)
    c = xb.asarray(log_partition, like=T)
    if tuple(c.shape) != (T.shape[0],):
        raise ValueError(f"log_partition must have shape ({T.shape[0]},), got {tuple(c.shape)}")
    Qa = xp.concat([Q * float(isf_beta), xp.ones((Q.shape[0], 1), dtype=T.dtype)], axis=1)
    Ta = xp.concat([T, xp.reshape(xp.astype(-c, T.dtype), (-1, 1))], axis=1)
    return Qa, Ta


def isf_topk(queries, database, k: int = 10, *, source=None, isf_beta: float = 30.0, log_partition=None,
             exclude=None, memory_budget: int | None = None, progress=None, backend="exact"):
    """Top-``k`` database rows of each query by inverted softmax (Smith et al. 2017, eq. 4).

    Ranks by log P(y | x) = β cos(x, y) − log Σ_{x' ∈ source} exp(β cos(x', y)), the score
    returned. ``source`` is the space of the denominators (the whole mapped source vocabulary
    for translation; for neighbours within one vocabulary, that vocabulary): the queries alone
    are no substitute, as one query would give every candidate the score 0.

    Parameters
    ----------
    queries : array (q, d)
    database : array (n, d)
    k : int
    source : array (m, d), optional
        Needed unless ``log_partition`` is given.
    isf_beta : float
        Inverse temperature β (default 30, as Smith et al. for BLI).
    log_partition : array (n,), optional
        Precomputed :func:`isf_log_partition` of ``database`` over ``source`` with this β.
    exclude, memory_budget, progress
        As in :func:`embgeo.neighbors.topk` (which searches the augmented rows by dot product).
    backend : "exact" or Exact, default "exact"
        The exact engine and its options (:class:`~embgeo.neighbors.Exact`); ``screen=True``
        screens the augmented rows with an index built for the call.

    Returns
    -------
    scores, indices : arrays, shape (q, k)
        log P(y | x), best first, and database rows (ties to the lower row).
    """
    engine = as_engine(backend, ("exact",))
    if isinstance(engine.screen, ScreenIndex):
        raise ValueError("isf_topk searches augmented rows it makes itself: an index built before cannot screen "
                         "them (screen=True builds one for the call)")
    Qa, Ta = isf_factors(queries, database, isf_beta, source=source, log_partition=log_partition,
                         memory_budget=memory_budget, progress=progress)
    return topk(Qa, Ta, k, metric="dot", exclude=exclude, memory_budget=memory_budget, progress=progress,
                selector=engine.selector, n_jobs=engine.n_jobs, screen=engine.screen)
