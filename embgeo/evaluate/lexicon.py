"""Bilingual lexicon induction (BLI): P@k / MRR of mapped embeddings and the POSTPROC grid.

The dictionary readers (:func:`read_dictionary`, :func:`split_dictionary`,
:func:`group_dictionary`) live in :mod:`embgeo.data` and are re-exported here.

Protocol (MUSE, Conneau et al. 2018; VecMap's ``eval_translation.py``, Artetxe et al. 2018;
Glavaš et al. 2019, "How to (properly) evaluate cross-lingual word embeddings"):

- each test *source word* is one query, ranked against the **whole** target vocabulary by NN,
  CSLS or inverted softmax (:func:`embgeo.crosslingual.retrieval_factors`);
- a query is a hit at k when *any* of its gold translations is among the top k (multiple gold
  translations); MRR uses the rank of the best-ranked gold translation;
- OOV policy is explicit: ``oov="skip"`` scores covered queries only and reports coverage
  (MUSE/VecMap), ``oov="zero"`` counts uncovered queries as failures (Glavaš et al. 2019 report
  scores over the whole test set), ``oov="raise"`` refuses any uncovered pair.

The command line, ``python -m embgeo bli``, is :mod:`embgeo.evaluate.bli_cli`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import ClassVar

import numpy as np
from sklearn.base import clone

from .. import backend as xb
from ..display import Display, View, pyplot
from ..crosslingual import Mapper, invnn_ranks, retrieval_factors
from ..data import group_dictionary, read_dictionary, split_dictionary
from ..neighbors import REDUCTION_METRICS, reduction_ranks
from ..blocking import block_rows
from ..progress import progress_bar
from .similarity import _check_oov
from .stats import Resampled, mean_score

# read_dictionary, split_dictionary and group_dictionary stay importable here; embgeo.data exports them
__all__ = ["bli", "BLIResult", "gold_ranks", "postproc_grid_search", "POSTPROC_GRID", "GridResult"]


@dataclass(frozen=True, repr=False)
class BLIResult(Resampled):
    """Scores of one BLI evaluation (:func:`bli`).

    Parameters
    ----------
    retrieval : str
        "nn", "csls", "isf", "dot" or "invnn".
    precision : dict of int to float
        P@k (a fraction) for every requested k; also ``result.p_at(k)``.
    mrr : float
        Mean reciprocal rank of the best-ranked gold translation.
    coverage : float
        Fraction of the distinct test source words that were scored.
    n : int
        Queries scored (covered test source words).
    n_test : int
        Distinct test source words.
    n_pairs : int
        Pairs of the test dictionary.
    oov : str
        The OOV policy the scores were computed under ("skip": over the ``n`` covered queries;
        "zero": over all ``n_test``).
    per_item : dict of ndarray
        One row per scored query: ``rank`` (float, 1 = best; ``inf`` for an uncovered query under
        ``oov="zero"``) and ``item`` (the source word's position among the distinct test source
        words). ``hit`` at k is ``rank <= k``; for :meth:`ci` (``score="p@5"``, ``"mrr"``) and
        :func:`~embgeo.evaluate.compare`.
    """

    _call = "bli(…, retrieval={retrieval!r}, oov={oov!r})"

    score_name: ClassVar[str] = "p@1"

    retrieval: str
    precision: dict = field(default_factory=dict)
    mrr: float = float("nan")
    coverage: float = float("nan")
    n: int = 0
    n_test: int = 0
    n_pairs: int = 0
    oov: str = "skip"
    per_item: dict = field(default_factory=dict, repr=False, compare=False)

    def statistic(self, per_item: dict) -> float:
        """P@1 from the per-query ranks.

        Parameters
        ----------
        per_item : dict of str to ndarray
            The result's ``per_item``, or a resample of it (as :meth:`ci` draws).

        Returns
        -------
        float
            The score.
        """
        return float(np.mean(per_item["rank"] <= 1))

    def _values(self, score, per_item):
        name = (score or self.score_name).lower()
        rank = np.asarray(per_item["rank"], dtype=np.float64)
        if name == "mrr":
            return 1.0 / rank
        if name.startswith("p@") and name[2:].isdigit():
            return (rank <= int(name[2:])).astype(np.float64)
        raise ValueError(f"unknown BLI score {score!r}: use 'p@K' (e.g. 'p@1', 'p@5') or 'mrr'")

    def item_values(self, score=None, per_item=None):
        """Per query: 1/rank for ``"mrr"``, whether the rank is at most k for ``"p@k"``.

        Parameters
        ----------
        score : str, optional
            ``"p@k"`` (any k) or ``"mrr"``; None means the headline score.
        per_item : dict of str to ndarray, optional
            Per-item data; None means the result's own.

        Returns
        -------
        numpy.ndarray of float, shape (n_items,)
            One value per query; their mean is the score.

        Raises
        ------
        ValueError
            An unknown score.
        """
        return self._values(score, self.per_item if per_item is None else per_item)

    def score_function(self, score=None):
        """``"p@k"`` (any k) or ``"mrr"``, as means of :meth:`item_values`.

        Parameters
        ----------
        score : str, optional
            ``"p@k"`` (any k) or ``"mrr"``; None means the headline score.

        Returns
        -------
        scalar : callable
            ``scalar(per_item) -> float``.
        weighted : callable
            ``weighted(per_item, W) -> array``, the score under each row of item weights ``W``.

        Raises
        ------
        ValueError
            An unknown score.
        """
        self._values(score, {"rank": np.ones(1)})          # an unknown score fails here
        key = "value"
        scalar, weighted = mean_score(key)
        return ((lambda p: scalar({key: self._values(score, p)})),
                (lambda p, W: weighted({key: self._values(score, p)}, W)))

    def p_at(self, k: int) -> float:
        """P@k, the share of queries with a gold translation among the k best.

        Parameters
        ----------
        k : int
            One of the ``ks`` the evaluation computed.

        Returns
        -------
        float
            P@k.

        Raises
        ------
        KeyError
            ``k`` was not computed.
        """
        return self.precision[int(k)]

    def to_dict(self) -> dict:
        """Flat dict with the column names of the reports: ``P@1`` …, ``MRR``, ``coverage``, ``n_queries``.

        Returns
        -------
        dict
            ``retrieval``, ``P@k`` for each k, ``MRR``, ``coverage``, ``n_queries``, ``n_test``,
            ``n_pairs``, ``oov``.
        """
        out: dict = {"retrieval": self.retrieval}
        out.update({f"P@{k}": v for k, v in self.precision.items()})
        out.update({"MRR": self.mrr, "coverage": self.coverage, "n_queries": self.n,
                    "n_test": self.n_test, "n_pairs": self.n_pairs, "oov": self.oov})
        return out

# ----------------------------------------------------------------------------------- ranking
def gold_ranks(query_factors, target_factors, gold, *, memory_budget: int | None = None,
               progress=None):
    """Rank (1 = best) of the best-ranked gold target of every query, blocked over queries.

    Scores are ``query_factors @ target_factorsᵀ`` (see
    :func:`embgeo.crosslingual.retrieval_factors`); ties go to the lower target row, as in
    :func:`embgeo.neighbors.topk`, so rank ≤ k exactly when a gold row is in ``topk``'s top k.

    Parameters
    ----------
    query_factors : array, shape (q, d)
        The queries' factors (NumPy or CuPy).
    target_factors : array, shape (n_t, d)
        The targets' factors.
    gold : list of int arrays
        Gold target rows of each query (at least one each).
    memory_budget : int, optional
        Bytes of working memory (default :data:`embgeo.blocking.DEFAULT_MEMORY_BUDGET`).
    progress : bool, optional
        Progress bar over blocks of queries.

    Returns
    -------
    ranks : numpy.ndarray of int64, shape (q,)
        1 + the number of targets that score above the best gold target (or tie it from a lower row).

    Raises
    ------
    ValueError
        ``gold`` does not have one list per query.
    """
    xp = xb.get_namespace(target_factors)
    nq, n = query_factors.shape[0], target_factors.shape[0]
    if len(gold) != nq:
        raise ValueError(f"{len(gold)} gold lists for {nq} queries")
    width = max(len(g) for g in gold)
    pad = np.full((nq, width), -1, dtype=np.int64)
    for i, g in enumerate(gold):
        pad[i, :len(g)] = g
    step = block_rows(n, 4, memory_budget)
    TT = xp.matrix_transpose(target_factors)
    cols = xp.reshape(xp.arange(n, dtype=xp.int64), (1, -1))
    out = []
    starts = range(0, nq, step)
    for s in progress_bar(starts, total=len(starts), desc="BLI ranks", progress=progress, unit="block"):
        e = min(s + step, nq)
        S = query_factors[s:e, ...] @ TT
        g = xb.asarray(pad[s:e], like=S, dtype=None) if not xb.is_numpy(S) else pad[s:e]
        g = xp.astype(xp.asarray(g), xp.int64)
        valid = g >= 0
        gi = xp.where(valid, g, xp.zeros_like(g))
        gs = xp.take_along_axis(S, gi, axis=1)
        gs = xp.where(valid, gs, xp.full_like(gs, -math.inf))
        best = xp.max(gs, axis=1, keepdims=True)
        best_col = xp.min(xp.where(gs == best, gi, xp.full_like(gi, n)), axis=1, keepdims=True)
        above = xp.sum(xp.astype(S > best, xp.int64), axis=1)
        tied = xp.sum(xp.astype((S == best) & (cols < best_col), xp.int64), axis=1)
        out.append(xb.to_numpy(above + tied + 1))
    return np.concatenate(out).astype(np.int64) if out else np.zeros(0, dtype=np.int64)


# -------------------------------------------------------------------------------- evaluation
def bli(src, tgt, test_dictionary, retrieval: str = "nn", *, ks=(1, 5, 10), csls_knn: int = 10,
        isf_beta: float = 30.0, oov: str = "skip", source_size: int | None = None,
        lowercase: bool = False, memory_budget: int | None = None, progress=None) -> BLIResult:
    """Bilingual lexicon induction scores of mapped embeddings.

    Parameters
    ----------
    src, tgt : Embeddings
        Source and target vectors **in the shared space** (e.g. ``Mapper.transform(src, tgt)``).
    test_dictionary : list of (source, target) pairs, or a path (:func:`read_dictionary`)
        The gold translations; the queries are its distinct source words.
    retrieval : {"nn", "csls", "isf", "dot", "invnn", "mp", "mp-gauss", "ls", "cdm", "dsl"}
        Nearest neighbour (cosine), CSLS with ``csls_knn`` neighbours (Conneau et al. 2018, eq. 3),
        inverted softmax with inverse temperature ``isf_beta`` (Smith et al. 2017, eq. 4), the raw
        dot product (VecMap's ``eval_translation.py --dot``) or inverted nearest neighbour (Dinu,
        Lazaridou & Baroni 2015; VecMap's ``--retrieval invnn``; ranks from
        :func:`embgeo.crosslingual.invnn_ranks`), or a hubness reduction with neighbourhoods of
        ``csls_knn`` words (:func:`embgeo.neighbors.reduction_ranks`):
        :data:`embgeo.neighbors.VALID_RETRIEVALS` ``["exact"]``.
    ks : tuple of int
        The P@k reported.
    csls_knn : int, default 10
        K of CSLS's neighbourhood terms r_S (``retrieval="csls"``).
    isf_beta : float, default 30.0
        The inverted softmax's inverse temperature β (``retrieval="isf"``).
    oov : {"skip", "zero", "raise"}
        Queries whose source word, or all of whose gold translations, are out of vocabulary:
        excluded (coverage < 1 reported), counted as failures (scores over the whole test set,
        as Glavaš et al. 2019), or :class:`~embgeo.errors.UnknownWordError`.
    source_size : int, optional
        CSLS's r_S, the inverted-softmax denominators and the inverted ranks of ``"invnn"`` run
        over the first ``source_size`` source rows (all by default; MUSE uses 200k).
    lowercase : bool
        Lower-case the dictionary when reading it from a path.
    memory_budget : int, optional
        Bytes of working memory for the blocked ranking (default
        :data:`embgeo.blocking.DEFAULT_MEMORY_BUDGET`).
    progress : bool, optional
        Progress bar over blocks of queries.

    Returns
    -------
    BLIResult
        P@k (fractions), MRR, coverage and counts; ``to_dict()`` gives the flat table row.

    Raises
    ------
    ValueError
        Empty dictionary, no covered query, mismatched dimensions, unknown options.

    See Also
    --------
    embgeo.crosslingual.Mapper : Maps the two spaces into one.
    embgeo.crosslingual.retrieval_factors : The retrieval scores as factors.
    bli_grid : BLI over language pairs, methods and POSTPROC settings.

    References
    ----------
    A. Conneau, G. Lample, M. Ranzato, L. Denoyer and H. Jégou (2018). Word translation without
    parallel data. ICLR (CSLS).

    S. L. Smith, D. H. P. Turban, S. Hamblin and N. Y. Hammerla (2017). Offline bilingual word
    vectors, orthogonal transformations and the inverted softmax. ICLR, eq. 4 (inverted softmax).

    G. Dinu, A. Lazaridou and M. Baroni (2015). Improving zero-shot learning by mitigating the hubness
    problem. ICLR workshop track (inverted nearest neighbour).

    G. Glavaš, R. Litschko, S. Ruder and I. Vulić (2019). How to (properly) evaluate cross-lingual word
    embeddings: on strong baselines, comparative analyses, and some misconceptions. ACL (MRR).
    """
    _check_oov(oov)
    if isinstance(test_dictionary, (str, Path)):
        test_dictionary = read_dictionary(test_dictionary, lowercase=lowercase)
    pairs = list(test_dictionary)
    if not pairs:
        raise ValueError("the test dictionary is empty")
    if src.dim != tgt.dim:
        raise ValueError(f"source ({src.dim}d) and target ({tgt.dim}d) are not in one space: map them first "
                         "(embgeo.crosslingual.Mapper)")
    groups = group_dictionary(pairs)
    queries, gold = [], []
    uncovered = []
    covered_items = []
    for i, (s, ts) in enumerate(groups.items()):
        g = [tgt.index(t) for t in ts if t in tgt]
        if s in src and g:
            queries.append(src.index(s))
            gold.append(np.asarray(g, dtype=np.int64))
            covered_items.append(i)
        else:
            uncovered.append(s)
    n_test = len(groups)
    if uncovered and oov == "raise":
        from ..errors import UnknownWordError

        s = uncovered[0]
        side = "source word" if s not in src else "all gold translations of the source word"
        raise UnknownWordError(s, context=f"{side} of the test dictionary; use oov='skip' or 'zero'",
                               n_missing=len(uncovered))
    if not queries:
        s, ts = next(iter(groups.items()))
        raise ValueError(
            f"none of the {n_test} test source words has itself and a gold translation in the "
            f"vocabularies (e.g. {s!r} in source: {s in src}, {ts[0]!r} in target: {ts[0] in tgt}); "
            "check the language direction and letter case (lowercase=True)")
    src.check_finite()  # both spaces are read whole (the retrieval's database and source terms)
    tgt.check_finite()
    V = src.vectors
    Q = xb.take_rows(V, np.asarray(queries, dtype=np.int64))
    source = V if source_size is None else V[:int(source_size), ...]
    if retrieval == "invnn":
        ranks = invnn_ranks(Q, tgt.vectors, gold, source=source, memory_budget=memory_budget, progress=progress)
    elif retrieval in REDUCTION_METRICS:
        ranks = reduction_ranks(Q, tgt.vectors, gold, metric=retrieval, source=source, csls_knn=int(csls_knn),
                                memory_budget=memory_budget, progress=progress)
    else:
        Qa, Ta = retrieval_factors(Q, tgt.vectors, retrieval, source=source, csls_knn=csls_knn,
                                   isf_beta=isf_beta, memory_budget=memory_budget, progress=progress)
        ranks = gold_ranks(Qa, Ta, gold, memory_budget=memory_budget, progress=progress)
    ranks = ranks.astype(np.float64)
    denom = len(queries) if oov == "skip" else n_test
    if oov == "skip":
        per_item = {"rank": ranks, "item": np.asarray(covered_items, dtype=np.int64)}
    else:
        all_ranks = np.full(n_test, np.inf)
        all_ranks[covered_items] = ranks
        per_item = {"rank": all_ranks, "item": np.arange(n_test)}
    return BLIResult(retrieval=retrieval, precision={int(k): float(np.sum(ranks <= k) / denom) for k in ks},
                     mrr=float(np.sum(1.0 / ranks) / denom), coverage=len(queries) / n_test,
                     n=len(queries), n_test=n_test, n_pairs=len(pairs), oov=oov, per_item=per_item)


# -------------------------------------------------------------------------------- POSTPROC grid
#: The POSTPROC grid of Vulić, Korhonen & Glavaš (2020, Section 3), for αs and αt alike.
POSTPROC_GRID = (-0.5, -0.25, -0.15, 0.0, 0.15, 0.25, 0.5)


def _postproc_cell(src, tgt, train, validation, params, retrieval, source_size, alpha_src, alpha_tgt):
    """One grid cell: fit with POSTPROC (αs, αt), score ``validation``; a Dask task when on a cluster."""
    m = clone(Mapper(**params)).set_params(preprocessing__postproc=(alpha_src, alpha_tgt), progress=False)
    m.fit(src, tgt, train)
    xs, zt = m.transform(src, tgt)
    res = bli(xs, zt, validation, retrieval=retrieval, source_size=source_size, progress=False)
    return {"alpha_src": alpha_src, "alpha_tgt": alpha_tgt, **res.to_dict()}


def postproc_grid_search(src, tgt, train, validation, *, alphas_src=POSTPROC_GRID,
                         alphas_tgt=POSTPROC_GRID, retrieval: str = "csls",
                         criterion: str = "MRR", mapper: "Mapper | None" = None, source_size=None,
                         progress=None, client=None):
    """Grid search of POSTPROC's (αs, αt) scored by BLI on a validation dictionary.

    Vulić, Korhonen & Glavaš (2020, Section 3) grid-search both α over
    [−0.5, −0.25, −0.15, 0, 0.15, 0.25, 0.5] (:data:`POSTPROC_GRID`, 49 cells) on held-out pairs
    and report MRR, their main metric; this fits ``mapper`` (default: the supervised recipe) on
    ``train`` for every (αs, αt) and scores ``validation`` with :func:`embgeo.evaluate.lexicon.bli`.
    Keep the test dictionary out of both.

    The cells are independent: when a ``dask.distributed`` client exists (or ``client`` is given)
    each cell is one Dask task (:func:`embgeo.distributed.map_grid`), with the same table in the
    same order as the local run; without one they run here, one after the other.

    Parameters
    ----------
    src, tgt : Embeddings
        The source and target spaces, before POSTPROC and mapping.
    train : list of (str, str) or path
        The seed dictionary the mapper is fitted on.
    validation : list of (str, str) or path
        The held-out pairs that score each cell.
    alphas_src, alphas_tgt : sequence of float, default :data:`POSTPROC_GRID`
        The values of αs (source space) and αt (target space) tried.
    retrieval : str, default "csls"
        BLI retrieval of the validation (:func:`bli`).
    criterion : {"MRR", "P@1", "P@5", "P@10"}, default "MRR"
        The score the best cell maximises (MRR, as the paper).
    mapper : Mapper, optional
        The mapping fitted in each cell (its ``postproc`` set to the cell's (αs, αt)); default: the
        ``"supervised"`` recipe.
    source_size : int, optional
        As :func:`bli`.
    progress : bool, optional
        Progress bar over the cells.
    client : distributed.Client, optional
        Run the cells on this client. Default: the current client if there is one, else locally.

    Returns
    -------
    GridResult
        ``best`` (αs, αt) with the highest ``criterion`` (ties: the first in grid order) and
        ``table`` (one dict per cell: ``alpha_src``, ``alpha_tgt`` and the BLI scores);
        unpacks as ``best, table = ...``; ``plot()`` draws the heat map.

    Raises
    ------
    ValueError
        An unknown ``criterion``.

    See Also
    --------
    embgeo.postprocess.similarity_order : The POSTPROC transform of one space.
    bli : The score of each cell.

    References
    ----------
    I. Vulić, A. Korhonen and G. Glavaš (2020). Improving bilingual lexicon induction with unsupervised
    post-processing of monolingual word vector spaces. RepL4NLP workshop, Sec. 2 (X′ = X R_αs,
    Z′ = Z R_αt with R_α = Q Δ^α) and Sec. 3 (the grid of αs and αt).
    """
    from .. import distributed as dd  # lazily: embgeo.distributed must not import the evaluators

    if criterion not in ("MRR", "P@1", "P@5", "P@10"):
        raise ValueError(f"criterion must be MRR, P@1, P@5 or P@10, got {criterion!r}")
    base = mapper if mapper is not None else Mapper()
    cell = partial(_postproc_cell, src, tgt, train, validation, base.get_params(deep=False), retrieval, source_size)
    grid = [{"alpha_src": a, "alpha_tgt": b} for a in alphas_src for b in alphas_tgt]
    client = client if client is not None else dd.current_client()
    if client is not None:
        table = dd.map_grid(cell, grid, client=client)
    else:
        table = [cell(**p) for p in progress_bar(grid, total=len(grid), desc="POSTPROC grid", progress=progress)]
    best = max(table, key=lambda r: r[criterion])
    return GridResult((best["alpha_src"], best["alpha_tgt"]), table, criterion)


@dataclass(frozen=True, repr=False)
class GridResult(Display):
    """Result of :func:`postproc_grid_search`.

    Parameters
    ----------
    best : (float, float)
        The selected (αs, αt).
    table : list of dict
        One row per cell: ``alpha_src``, ``alpha_tgt``, ``P@k``, ``MRR``, ``coverage``, ...
    criterion : str
        The score that selected ``best``.
    """

    best: tuple
    table: list
    criterion: str = "MRR"

    def __iter__(self):
        # ``best, table = postproc_grid_search(...)``, the return value of earlier releases
        return iter((self.best, self.table))

    def _view(self) -> View:
        columns = list(dict.fromkeys(k for r in self.table for k in r))
        return View(f"GridResult: best (αs, αt) = ({self.best[0]:g}, {self.best[1]:g}) by {self.criterion}",
                    [[r.get(c) for c in columns] for r in self.table], columns=columns,
                    notes=["from postproc_grid_search(…)"])

    def grid(self, score: str | None = None):
        """(alphas_src, alphas_tgt, S) with ``S[i, j]`` the ``score`` of cell (i, j).

        Parameters
        ----------
        score : str, optional
            A column of :attr:`table` (``"MRR"``, ``"P@1"``...); None means :attr:`criterion`.

        Returns
        -------
        alphas_src, alphas_tgt : list of float
            The grid's values of αs and αt, sorted.
        S : numpy.ndarray of float64, shape (len(alphas_src), len(alphas_tgt))
            The score of each cell (NaN where the grid has no cell).
        """
        score = score or self.criterion
        a_s = sorted({r["alpha_src"] for r in self.table})
        a_t = sorted({r["alpha_tgt"] for r in self.table})
        S = np.full((len(a_s), len(a_t)), np.nan)
        for r in self.table:
            S[a_s.index(r["alpha_src"]), a_t.index(r["alpha_tgt"])] = r[score]
        return a_s, a_t, S

    def plot(self, score: str | None = None, ax=None):
        """Heat map of ``score`` over the (αs, αt) grid, the best cell outlined.

        Needs matplotlib (``pip install embgeo[plot]``).

        Parameters
        ----------
        score : str, optional
            A column of :attr:`table`; None means :attr:`criterion`.
        ax : matplotlib.axes.Axes, optional
            Where to draw; None makes a new figure.

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        plt = pyplot("GridResult.plot")
        from matplotlib.patches import Rectangle
        a_s, a_t, S = self.grid(score)
        if ax is None:
            _, ax = plt.subplots(figsize=(1 + 0.8 * len(a_t), 1 + 0.6 * len(a_s)))
        im = ax.imshow(S, cmap="viridis", aspect="auto", origin="lower")
        ax.set_xticks(range(len(a_t)), [f"{a:g}" for a in a_t])
        ax.set_yticks(range(len(a_s)), [f"{a:g}" for a in a_s])
        ax.set_xlabel("αt (target)")
        ax.set_ylabel("αs (source)")
        for i in range(S.shape[0]):
            for j in range(S.shape[1]):
                ax.text(j, i, f"{100 * S[i, j]:.1f}", ha="center", va="center", color="w", fontsize=8)
        i, j = a_s.index(self.best[0]), a_t.index(self.best[1])
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2))
        ax.set_title(f"POSTPROC grid: {score or self.criterion}")
        ax.figure.colorbar(im, ax=ax)
        return ax
