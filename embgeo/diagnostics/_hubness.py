"""Hubness of a space: the k-occurrence distribution and the measures read off it.

Radovanović, Nanopoulos & Ivanović (2010), "Hubs in space: popular nearest neighbors in
high-dimensional data", JMLR 11, 2487–2531: N_k(x), the number of k-NN lists x appears in
(their Sec. 3), and its skewness S_{N_k} = E[(N_k − μ)³] / σ³ (Sec. 3.1, eq. 1). Feldbauer,
Leodolter, Plant & Flexer (2018), "Fast approximate hubness reduction for large high-dimensional
data", IEEE ICBK: hub occupancy, antihub rate and the Robin Hood index, as scikit-hubness
(``skhubness.analysis.Hubness``, the authors' package) computes them.

The lists come from embgeo's one search engine (:mod:`embgeo.neighbors`); the measures are a
``bincount`` on them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import backend as xb
from .. import blocking, neighbors
from ..display import Display, pyplot
from ..embeddings import Embeddings

__all__ = ["HubnessResult", "hubness"]


@dataclass(frozen=True, repr=False)
class HubnessResult(Display):
    """The k-occurrence distribution of a space and its hubness measures (:func:`hubness`).

    Parameters
    ----------
    k : int
        The length of every query's neighbour list.
    retrieval : str
        The criterion that built the lists ("nn", "csls", "isf", a hubness reduction of
        :data:`embgeo.neighbors.REDUCTION_METRICS`, or ``"fuzzy:<measure>"``).
    k_occurrence : ndarray of int64, shape (n_database,)
        N_k of every database row: in how many of the queries' k-NN lists it appears.
    skewness : float
        S_{N_k}, the (biased) third standardised moment of N_k (Radovanović et al. 2010,
        eq. 1; ``scipy.stats.skew``): 0 for a symmetric distribution, large and positive when a
        few hubs take many lists. NaN when every N_k is equal.
    hub_occupancy : float
        The share of all k·n_queries list slots taken by hubs, rows with N_k ≥ ``hub_size``·k.
    antihub_rate : float
        The share of database rows in no list (N_k = 0).
    robinhood : float
        The Robin Hood (Hoover) index ½ Σ|N_k − mean N_k| / Σ N_k: the share of list slots that
        would have to move for every row to be equally often a neighbour (0 = no hubness).
    hub_size : float
        The threshold of a hub, in multiples of k.
    n_queries : int
        The number of neighbour lists counted.
    words : list of str or None
        The database's words, when it has them (for :meth:`top_hubs`).

    See Also
    --------
    hubness_measures : the measures from a k-occurrence array.

    References
    ----------
    M. Radovanović, A. Nanopoulos, M. Ivanović (2010). Hubs in space: popular nearest neighbors in
    high-dimensional data. JMLR 11, pp. 2487-2531, eq. 1.
    """

    _call = "hubness(…, k={k}, retrieval={retrieval!r}, hub_size={hub_size:g})"

    k: int
    retrieval: str
    k_occurrence: np.ndarray
    skewness: float
    hub_occupancy: float
    antihub_rate: float
    robinhood: float
    hub_size: float
    n_queries: int
    words: Any = field(default=None, repr=False)

    @property
    def hubs(self) -> np.ndarray:
        """Database rows with N_k ≥ ``hub_size``·k, most frequent first."""
        rows = np.flatnonzero(self.k_occurrence >= self.hub_size * self.k)
        return rows[np.argsort(-self.k_occurrence[rows], kind="stable")]

    @property
    def antihubs(self) -> np.ndarray:
        """Database rows that are in no list."""
        return np.flatnonzero(self.k_occurrence == 0)

    def top_hubs(self, n: int = 10) -> list:
        """The ``n`` rows with the largest N_k as ``(word, N_k)`` pairs (row numbers without words).

        Parameters
        ----------
        n : int, default 10
            How many rows.

        Returns
        -------
        list of (str or int, int)
            Word (or row) and N_k, largest N_k first, ties to the lower row.
        """
        rows = np.argsort(-self.k_occurrence, kind="stable")[:n]
        names = rows.tolist() if self.words is None else [self.words[i] for i in rows]
        return [(w, int(self.k_occurrence[i])) for w, i in zip(names, rows)]

    def plot(self, ax=None):
        """The N_k distribution on log-log axes (how many rows occur N_k times).

        Needs matplotlib (``pip install embgeo[plot]``). Rows with N_k = 0 (the antihubs) cannot
        sit on a log axis: their share is given in the title.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; None: a new figure.

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        plt = pyplot("HubnessResult.plot")
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        counts = np.bincount(self.k_occurrence)
        x = np.flatnonzero(counts)
        x = x[x > 0]
        ax.loglog(x, counts[x], marker="o", ms=3, ls="none", color="C0")
        ax.set_xlabel(f"N_{self.k} (k-occurrence)")
        ax.set_ylabel("rows")
        ax.set_title(f"{self.retrieval}, k={self.k}: S={self.skewness:.2f}, antihubs {self.antihub_rate:.1%}",
                     fontsize="medium")
        return ax


def hubness_measures(k_occurrence, k: int, n_queries: int, hub_size: float = 2.0) -> dict:
    """Skewness, hub occupancy, antihub rate and Robin Hood index of a k-occurrence array.

    As scikit-hubness 0.21 (``Hubness.score``): ``stats.skew``, hubs at N_k ≥ hub_size·k, the
    Robin Hood index ½ Σ|N_k − mean| / Σ N_k. Hub occupancy divides by the k·n_queries slots of
    the lists, as scikit-hubness 0.21.2 does (``_calc_hub_occurrence(..., n_test)`` with ``n_test``
    the rows of the query matrix). Its development head (0.30.0a1, commit c36a058, which made
    ``tests/data/skhubness_golden.npz``) divides by k times the number of *indexed* rows instead:
    its ``score`` unpacks ``n_samples_indexed, n_samples_query = X.shape`` from a graph of shape
    (n_query, n_indexed), so the ``n_test`` it passes is the indexed count. The two agree when a
    space is measured against itself; for queries against another space, multiply by
    n_queries / n_indexed to get that commit's number.
    """
    N = np.asarray(k_occurrence)
    # one n-sized float64 temporary (the deviations), whatever the vocabulary: moments by dot products
    dev = N - N.mean(dtype=np.float64)
    m2 = float(dev @ dev) / N.size
    skew = float(np.einsum("i,i,i->", dev, dev, dev) / N.size / m2 ** 1.5) if m2 > 0 else float("nan")
    total = float(N.sum(dtype=np.float64))
    return {"skewness": skew,
            "hub_occupancy": float(N[N >= hub_size * k].sum(dtype=np.float64) / (k * n_queries)),
            "antihub_rate": float(np.count_nonzero(N == 0) / N.size),
            "robinhood": float(0.5 * np.abs(dev, out=dev).sum() / total) if total > 0 else float("nan")}


def _space(model, name):
    """(matrix, words or None) of an Embeddings or a 2-D array."""
    if isinstance(model, Embeddings):
        model.check_finite()
        return model.vectors, model.words
    X = model if xb.is_dask(model) else xb.asarray(model)
    if X.ndim != 2:
        raise ValueError(f"{name} must be an Embeddings or a 2-D array (n_words, dim), got ndim={X.ndim}")
    return X, None


def _query_rows(queries, model, words, n):
    """Row numbers of the queries in ``model`` (None: all of them)."""
    if queries is None:
        return None
    if isinstance(queries, str):
        queries = [queries]
    if len(queries) == 0:
        raise ValueError("queries is empty: hubness needs at least one query word (or None for the whole vocabulary)")
    if all(isinstance(q, str) for q in queries):
        if words is None:
            raise TypeError("word queries need an Embeddings (or FuzzyEmbeddings) model; with an array pass row numbers")
        return np.asarray(model.indices(list(queries)), dtype=np.int64)
    rows = np.asarray(queries)
    if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer):
        raise TypeError("queries must be words or row numbers (a 1-D integer array)")
    if rows.min() < 0 or rows.max() >= n:
        raise ValueError(f"query rows must lie in 0 … {n - 1}, got {int(rows.min())} … {int(rows.max())}")
    return rows.astype(np.int64)


def _rows(X, start, stop, rows):
    block = X[start:stop] if rows is None else X[rows[start:stop]]
    return np.asarray(block) if xb.is_dask(block) else block


def _check_k(k, n_candidates, what):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer, got {type(k).__name__}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if k > n_candidates:
        raise ValueError(f"k={k} is too large: {what}")
    return int(k)


def hubness(model, k: int = 10, retrieval: str = "nn", queries=None, target=None, *, hub_size: float = 2.0,
            csls_knn: int = 10, isf_beta: float = 30.0, measure: str = "cross_entropy",
            memory_budget: int | None = None, backend="exact",
            progress: bool | None = None) -> HubnessResult:
    """Hubness of ``model`` (against itself, or mapped into ``target``): N_k and its measures.

    Every query's k-NN list is computed by the exact engine (:mod:`embgeo.neighbors`) and N_k
    is one ``bincount`` over the lists (Radovanović et al. 2010, Sec. 3). Against itself each
    word is left out of its own list (the self-join of :func:`embgeo.neighbors.self_topk`);
    with ``target`` the (mapped) source words are the queries and the target words the
    candidates, as in bilingual lexicon induction.

    Parameters
    ----------
    model : Embeddings, FuzzyEmbeddings or array (n, d)
        The space, or the mapped source space when ``target`` is given. A
        :class:`~embgeo.fuzzy.FuzzyEmbeddings` is searched by its fuzzy ``measure``
        (:meth:`~embgeo.fuzzy.FuzzyEmbeddings.neighbors`, the certified search).
    k : int
        List length, 1 ≤ k < the number of candidates (k = 10 is the usual choice).
    retrieval : {"nn", "csls", "isf", "mp", "mp-gauss", "ls", "cdm", "dsl"}
        The criterion (:data:`embgeo.neighbors.VALID_RETRIEVALS`): plain cosine, CSLS (Conneau
        et al. 2018, eq. 3, with r_S over the whole source space) or the inverted softmax (Smith
        et al. 2017, eq. 4); hubness is what the last two correct, so compare them with "nn".
        The hubness reductions "mp", "mp-gauss", "ls", "cdm" and "dsl"
        (:func:`embgeo.neighbors.reduction_topk`, neighbourhoods of ``csls_knn`` words over the
        source space) run on the exact engine. A FuzzyEmbeddings takes "nn" only (its measure is
        the criterion).
    queries : list of str or int array, optional
        The words (or rows) whose lists are counted; default all of ``model``. N_k is still
        counted over every candidate.
    target : Embeddings or array (m, d), optional
        The candidate space (a cross-lingual target); default ``model`` itself.
    hub_size : float
        Hubs are rows with N_k ≥ hub_size·k (scikit-hubness's default 2).
    csls_knn, isf_beta : int, float
        K of CSLS's r terms (and of the hubness reductions' neighbourhoods) and β of the inverted softmax.
    measure : str
        The fuzzy measure of a FuzzyEmbeddings model.
    memory_budget : int, optional
        Bytes of working memory of the search (default 256 MiB); the result does not depend on it.
        Peak memory: the inputs, the output N_k (n int64), O(n) row statistics (the search's n
        inverse norms; one float64 per word for the summary measures), ``memory_budget`` and a
        fixed overhead under 256 KiB (:func:`embgeo.neighbors.topk`).
    backend : {"exact", "dask", "cuda"} or Exact or Dask or Cuda, default "exact"
        The engine, a name or an engine object with its options, as in
        :func:`embgeo.neighbors.topk` (``Dask(client)`` searches on that client, "dask" on the
        current one); "isf" runs on the exact engine only.
    progress : bool, optional

    Returns
    -------
    HubnessResult

    Raises
    ------
    ValueError
        k ≥ the vocabulary (or the target's) size, empty queries, a retrieval the engine does
        not have, spaces of different dimensions.
    TypeError
        ``backend`` is neither an engine name nor an engine object.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((500, 20)).astype(np.float32)
    >>> h = hubness(X, k=5)
    >>> int(h.k_occurrence.sum()) == 500 * 5
    True
    >>> h.top_hubs(1)[0][1] == int(h.k_occurrence.max())
    True
    """
    from ..fuzzy import FuzzyEmbeddings

    neighbors.check_retrieval(retrieval)
    engine = neighbors.as_engine(backend, neighbors.ARRAY_BACKENDS)
    if (retrieval == "isf" or retrieval in neighbors.REDUCTION_METRICS) and not isinstance(engine, neighbors.Exact):
        raise ValueError(f"retrieval={retrieval!r} runs on backend='exact' only, got backend={backend!r}")
    if isinstance(model, FuzzyEmbeddings):
        return _fuzzy_hubness(model, k, retrieval, queries, target, hub_size, measure, memory_budget, engine,
                              progress)
    S, s_words = _space(model, "model")
    own = target is None
    D, words = (S, s_words) if own else _space(target, "target")
    if S.shape[1] != D.shape[1]:
        raise ValueError(f"model has dimension {S.shape[1]} but target has {D.shape[1]}: map the source "
                         "into the target space first")
    n = D.shape[0]
    rows = _query_rows(queries, model, s_words, S.shape[0])
    nq = S.shape[0] if rows is None else rows.size
    if own:
        k = _check_k(k, n - 1, f"the vocabulary has {n} words and each word's list leaves itself out, "
                               f"so k must be below {n}")
    else:
        k = _check_k(k, n, f"the target has only {n} words")
    opts = dict(memory_budget=memory_budget, progress=progress)
    dask = isinstance(engine, neighbors.Dask)
    X = S  # the query rows, read block by block
    if dask:
        # shard once: the blocks of queries below all search the same shards
        from .. import distributed

        D = distributed.shard(D, engine.client)
        S = D if own else distributed.shard(S, engine.client)
    if own and rows is None and retrieval == "nn":
        # the whole space against itself: one self-join of the exact engine
        _, idx = neighbors.self_topk(D if dask else S, k, backend=engine, memory_budget=memory_budget,
                                     progress=progress)
        return _result(xb.to_numpy(idx), k, retrieval, n, nq, hub_size, words)
    search = _searcher(retrieval, S, D, csls_knn, isf_beta, engine, opts)
    counts = np.zeros(n, dtype=np.int64)
    step = blocking.block_rows(S.shape[1] + 3 * k, 8, memory_budget, maximum=blocking.PASS_ROWS)
    for start, stop in blocking.row_blocks(nq, step):
        Q = _rows(X, start, stop, rows)
        exclude = (np.arange(start, stop) if rows is None else rows[start:stop]) if own else None
        idx = xb.to_numpy(search(Q, k, exclude))
        np.add.at(counts, idx.ravel(), 1)  # a bincount would add a second n-sized array per block
    return _from_counts(counts, k, retrieval, nq, hub_size, words)


def _searcher(retrieval, S, D, csls_knn, isf_beta, backend, opts):
    """search(Q, k, exclude) -> indices by ``retrieval``, its per-candidate term computed once."""
    if retrieval == "nn":
        return lambda Q, k, exclude: neighbors.topk(Q, D, k, exclude=exclude, backend=backend, **opts)[1]
    if retrieval == "csls":
        # r_S of every candidate over the whole source space, once; r_T(x) does not change a
        # query's ranking, so zeros spare its search
        knn = min(int(csls_knn), S.shape[0])
        r = neighbors.knn_mean_similarity(D, S, knn, backend=backend, **opts)
        return lambda Q, k, exclude: neighbors.csls_topk(
            Q, D, k, csls_knn=knn, r_database=r, r_queries=np.zeros(Q.shape[0]), exclude=exclude,
            backend=backend, **opts)[1]
    if retrieval in neighbors.REDUCTION_METRICS:
        # the statistics of every candidate over the source space, once (against itself: each
        # word leaves itself out, and the queries' statistics are their rows')
        own = S is D
        source = None if own else S
        stats = neighbors.reduction_stats(D, retrieval, csls_knn, source=source, **opts)
        return lambda Q, k, exclude: neighbors.reduction_topk(
            Q, D, k, metric=retrieval, source=source, csls_knn=csls_knn, stats=stats, exclude=exclude,
            query_rows=exclude if own else None, **opts)[1]
    lp = neighbors.isf_log_partition(D, S, isf_beta, **opts)
    return lambda Q, k, exclude: neighbors.isf_topk(Q, D, k, isf_beta=isf_beta, log_partition=lp, exclude=exclude,
                                                    backend=backend, **opts)[1]


def _fuzzy_hubness(F, k, retrieval, queries, target, hub_size, measure, memory_budget, backend, progress):
    if retrieval != "nn":
        raise ValueError(f"a FuzzyEmbeddings is searched by its fuzzy measure (measure={measure!r}); "
                         f"retrieval={retrieval!r} applies to vectors")
    if target is not None:
        raise ValueError("target= needs vector spaces: fuzzy sets are compared within one vocabulary")
    n = len(F)
    k = _check_k(k, n - 1, f"the vocabulary has {n} words and each word's list leaves itself out, "
                           f"so k must be below {n}")
    rows = _query_rows(queries, F, F.words, n)
    rows = np.arange(n) if rows is None else rows
    words = F.words
    counts = np.zeros(n, dtype=np.int64)
    step = blocking.block_rows(F.dim + 3 * k, 8, memory_budget, maximum=blocking.PASS_ROWS)
    for start, stop in blocking.row_blocks(rows.size, step):
        _, idx = F.neighbors([words[i] for i in rows[start:stop]], k, measure=measure, exclude_self=True,
                             memory_budget=memory_budget, progress=progress, backend=backend)
        counts += np.bincount(xb.to_numpy(idx).ravel(), minlength=n)
    return _from_counts(counts, k, f"fuzzy:{measure}", rows.size, hub_size, words)


def _result(idx, k, retrieval, n, nq, hub_size, words):
    return _from_counts(np.bincount(np.asarray(idx).ravel(), minlength=n), k, retrieval, nq, hub_size, words)


def _from_counts(counts, k, retrieval, nq, hub_size, words):
    counts = np.asarray(counts, dtype=np.int64)
    return HubnessResult(k=k, retrieval=retrieval, k_occurrence=counts, hub_size=float(hub_size), n_queries=int(nq),
                         words=words, **hubness_measures(counts, k, nq, hub_size))
