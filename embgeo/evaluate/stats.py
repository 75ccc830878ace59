"""Confidence intervals and paired tests on evaluation results, from their per-item scores.

Every evaluation result keeps ``per_item`` (equal-length 1-d arrays, one row per item that entered
the score), a method ``statistic(per_item) -> float`` recomputing the headline score, and a class
attribute ``score_name``. :class:`Resampled` (a mixin) builds on exactly that:

* ``result.ci(level=0.95, ci_method="bca")``: a bootstrap interval over items (Efron & Tibshirani 1993,
  *An Introduction to the Bootstrap*, ch. 13 percentile, §14.3 BCa), the model never re-run;
* :func:`compare_results` (and :func:`embgeo.evaluate.compare`, which also takes two models): the paired test that fits the score (Steiger 1980 for correlations, exact McNemar for
  accuracies and hits, a paired permutation test for means such as MRR, a paired bootstrap otherwise).

Speed: a resample is a row of item counts (how often each item was drawn), so a batch of resamples is a
count matrix ``W`` (resamples × items) and a mean over every resample is one matrix product ``W @ v``.
Spearman's ρ of a resample needs the ranks of the resampled values; with the items sorted once, the
average rank of an item in a resample is the count of smaller drawn values plus half its tie group's
count (a cumulative sum over the sorted counts), so no resample is ever sorted. A result whose score has
no such vectorised form is resampled by calling its ``statistic`` once per resample (correct, slower).

The resample indices are those of :func:`scipy.stats.bootstrap` (``paired=True``) for the same seed and
batch: ``numpy.random.default_rng(random_state).integers(0, n, (batch, n))`` per batch.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Callable, ClassVar

import numpy as np

from ..display import Display, Interval, View, number

__all__ = ["Resampled", "Comparison", "bootstrap_interval", "steiger_test", "mcnemar_test",
           "paired_permutation_test", "compare_results", "CI_METHODS", "MIN_ITEMS", "TESTS", "DRAWS", "weighted_mean",
           "weighted_spearman", "weighted_purity", "mean_score"]

#: Interval methods of :meth:`Resampled.ci`.
CI_METHODS = ("bca", "percentile")
#: Fewest items an interval or a paired test is computed on.
MIN_ITEMS = 3
#: Resamples × items from which the compiled loops use every core (below, threads cost more than they save).
_PARALLEL_CELLS = 1 << 22
#: Bytes of one batch of resample indices and counts (a few batches make 10,000 resamples).
_BATCH_BYTES = 32 << 20


# ------------------------------------------------------------------ statistics of weighted items
def weighted_mean(values, W):
    """Mean of ``values`` under each row of item weights ``W`` (resamples × items): ``W @ v / W.sum(1)``.

    Parameters
    ----------
    values : array-like of float, shape (n_items,)
        One value per item.
    W : array-like of float, shape (n_resamples, n_items)
        Item weights, one row per resample (bootstrap counts: how often each item was drawn).

    Returns
    -------
    numpy.ndarray of float64, shape (n_resamples,)
        The weighted mean of each row.
    """
    W = np.asarray(W, dtype=np.float64)
    return (W @ np.asarray(values, dtype=np.float64)) / W.sum(axis=1)


def _tie_groups(x):
    """``(order, group, n_groups)``: the sort order of x and each item's tie group, numbered in that order."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    new = np.r_[True, xs[1:] != xs[:-1]]
    group = np.empty(len(x), dtype=np.int64)
    group[order] = np.cumsum(new) - 1
    return order.astype(np.int64), group, int(new.sum())


def weighted_spearman(x, y, W):
    """Spearman's ρ of ``(x, y)`` pairs under each row of item weights ``W`` (resamples × items): Pearson's r
    of the average ranks of the weighted sample (an item drawn k times counts k times), equal to
    :func:`scipy.stats.spearmanr` of the expanded sample; NaN where a resample has constant x or y.

    Compiled (:func:`embgeo.kernels.resample.spearman_counts`): no resample is sorted.

    Parameters
    ----------
    x, y : array-like of float, shape (n_items,)
        The paired values (gold and predicted scores).
    W : array-like of float, shape (n_resamples, n_items)
        Item weights, one row per resample.

    Returns
    -------
    numpy.ndarray of float64, shape (n_resamples,)
        ρ of each resample.
    """
    from ..kernels.resample import spearman_counts, spearman_counts_serial

    W = np.ascontiguousarray(W, dtype=np.float64)
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    out = np.empty(len(W))
    kernel = spearman_counts if W.size >= _PARALLEL_CELLS else spearman_counts_serial
    kernel(W, *_tie_groups(x), *_tie_groups(y), out)
    return out


def weighted_purity(category, cluster, W):
    """Cluster purity (1/N) Σ_clusters max_category |cluster ∩ category| under each row of item weights.

    Parameters
    ----------
    category : array-like, shape (n_items,)
        Each item's gold category (any labels).
    cluster : array-like, shape (n_items,)
        Each item's cluster (any labels).
    W : array-like of float, shape (n_resamples, n_items)
        Item weights, one row per resample; N is a row's sum.

    Returns
    -------
    numpy.ndarray of float64, shape (n_resamples,)
        The purity of each resample.

    See Also
    --------
    embgeo.evaluate.categorization.purity : The unweighted score.
    """
    from scipy import sparse

    W = np.asarray(W, dtype=np.float64)
    _, cat = np.unique(np.asarray(category), return_inverse=True)
    _, clu = np.unique(np.asarray(cluster), return_inverse=True)
    n_cat, n_clu = int(cat.max()) + 1, int(clu.max()) + 1
    onehot = sparse.csr_matrix((np.ones(len(cat)), (np.arange(len(cat)), clu * n_cat + cat)),
                               shape=(len(cat), n_clu * n_cat))
    table = np.asarray((onehot.T @ W.T).T).reshape(len(W), n_clu, n_cat)
    return table.max(axis=2).sum(axis=1) / W.sum(axis=1)


# ------------------------------------------------------------------ resampling
def _rng(random_state):
    return random_state if isinstance(random_state, np.random.Generator) else np.random.default_rng(random_state)


def _batch_size(n_items: int, batch: int | None) -> int:
    if batch is not None:
        return max(1, int(batch))
    return max(1, _BATCH_BYTES // (16 * max(1, n_items)))   # int64 indices + float64 counts per cell


def _counts(idx, n):
    """Row-wise counts (float64, resamples × n) of the resample indices ``idx``."""
    from ..kernels.resample import index_counts, index_counts_serial

    out = np.empty((len(idx), n))
    (index_counts if idx.size >= _PARALLEL_CELLS else index_counts_serial)(np.ascontiguousarray(idx), out)
    return out


def _check_items(n: int, what: str = "an interval") -> None:
    if n < MIN_ITEMS:
        raise ValueError(f"{what} needs at least {MIN_ITEMS} items, got {n}")


def _per_item_length(per_item: dict) -> int:
    if not per_item:
        raise ValueError("the result has no per-item data (per_item is empty)")
    lengths = {k: len(v) for k, v in per_item.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"per_item arrays differ in length: {lengths}")
    return next(iter(lengths.values()))


def _take(per_item: dict, idx) -> dict:
    return {k: np.asarray(v)[idx] for k, v in per_item.items()}


#: Draw the distinct rows' counts (a multinomial) instead of indices when the items take at most this
#: share of distinct rows: accuracies and hit rates have two, so 10,000 resamples of 19,544 questions
#: cost 10,000 binomial draws instead of 195 million indices.
_COLLAPSE_SHARE = 0.25
DRAWS = ("auto", "indices", "counts")


class _Score:
    """One score of a result: its scalar function of per_item and, where there is one, its weighted form
    ``weighted(per_item, W) -> (resamples,)`` over rows of item weights (checked against the scalar form
    on the sample itself before use; a mismatch falls back to calling the scalar form per resample).

    Items are held as distinct rows (``rows``, every per_item array but ``item``) with multiplicities
    ``mult`` when ``draw`` collapses them, else one row per item (``mult`` all ones).
    """

    def __init__(self, name, per_item, scalar, weighted=None, draw="auto"):
        if draw not in DRAWS:
            raise ValueError(f"draw must be one of {', '.join(DRAWS)}, got {draw!r}")
        self.name, self.scalar = name, scalar
        self.n = _per_item_length(per_item)
        self.value = float(scalar(per_item))
        self.rows, self.mult = per_item, np.ones(self.n)
        if draw != "indices" and self.n:
            keys = [k for k in per_item if k != "item"]
            table = np.column_stack([np.asarray(per_item[k], dtype=np.float64) for k in keys])
            uniq, counts = np.unique(table, axis=0, return_counts=True)
            if draw == "counts" or len(uniq) <= _COLLAPSE_SHARE * self.n:
                self.rows = {k: uniq[:, j].astype(np.asarray(per_item[k]).dtype) for j, k in enumerate(keys)}
                self.mult = counts.astype(np.float64)
        self.collapsed = len(self.mult) < self.n or draw == "counts"
        self.weighted = None
        if weighted is not None:
            check = float(weighted(self.rows, self.mult[None, :])[0])
            if (check == self.value or math.isclose(check, self.value, rel_tol=1e-9, abs_tol=1e-12)
                    or (math.isnan(check) and math.isnan(self.value))):
                self.weighted = weighted

    def on_counts(self, W, idx=None):
        """The score of each resample (rows of counts ``W`` of :attr:`rows`; ``idx`` the drawn indices)."""
        if self.weighted is not None:
            return np.asarray(self.weighted(self.rows, W), dtype=np.float64)
        if idx is None:
            idx = [np.repeat(np.arange(len(self.mult)), w.astype(np.int64)) for w in W]
        return np.array([self.scalar(_take(self.rows, i)) for i in idx], dtype=np.float64)

    def distribution(self, n_resamples, random_state, batch=None):
        """Scores of ``n_resamples`` bootstrap resamples: with indices, scipy's for the same seed and batch;
        collapsed, the multinomial counts of the distinct rows (the same law, other random numbers)."""
        rng = _rng(random_state)
        step = _batch_size(self.n, batch)
        out = []
        for s in range(0, n_resamples, step):
            b = min(step, n_resamples - s)
            if self.collapsed:
                out.append(self.on_counts(rng.multinomial(self.n, self.mult / self.n, size=b).astype(np.float64)))
            else:
                idx = rng.integers(0, self.n, (b, self.n))
                out.append(self.on_counts(_counts(idx, self.n), idx if self.weighted is None else None))
        return np.concatenate(out)

    def jackknife(self):
        """Leave-one-out scores (n,): one per distinct row, repeated by its multiplicity."""
        U = len(self.mult)
        if self.weighted is None:
            vals = np.array([self.scalar(_take(self.rows, np.repeat(np.arange(U), w.astype(np.int64))))
                             for w in (self.mult - np.eye(1, U, u)[0] for u in range(U))])
        else:
            step = _batch_size(U, None)
            vals = np.concatenate([self.on_counts(self.mult[None, :] - _indicator_rows(U, s, min(s + step, U)))
                                   for s in range(0, U, step)])
        return np.repeat(vals.reshape(-1), self.mult.astype(np.int64))


def _indicator_rows(n, start, stop):
    E = np.zeros((stop - start, n))
    E[np.arange(stop - start), np.arange(start, stop)] = 1.0
    return E


def bootstrap_interval(theta_hat, theta_b, level=0.95, ci_method="bca", jackknife=None):
    """Percentile or BCa interval from a bootstrap distribution.

    BCa follows Efron & Tibshirani (1993) §14.3 (eqs. 14.10, 14.14, 14.15), as :func:`scipy.stats.bootstrap`
    does: bias correction ẑ₀ = Φ⁻¹(share of θ*_b below θ̂, ties counted half), acceleration
    â = Σ(θ̄₍.₎ − θ₍ᵢ₎)³ / (6 [Σ(θ̄₍.₎ − θ₍ᵢ₎)²]^{3/2}) from the jackknife values, and the percentiles
    α₁,₂ = Φ(ẑ₀ + (ẑ₀ + z_α)/(1 − â(ẑ₀ + z_α))) of θ*_b (linear interpolation, NumPy's default).
    A statistic of several independent samples (resampled each within itself) gives ``jackknife`` as a
    list of arrays, the leave-one-out values of each sample; â is then eq. 15.36's
    Σ_j Σ_i U³_ji/n_j³ / (6 [Σ_j Σ_i U²_ji/n_j²]^{3/2}), U_ji = (n_j − 1)(θ̄_j − θ_ji), as scipy computes it.

    Parameters
    ----------
    theta_hat : float
        The score on the sample itself (θ̂).
    theta_b : array-like of float, shape (n_resamples,)
        The scores of the bootstrap resamples (θ*_b); NaN entries are dropped.
    level : float, default 0.95
        Confidence level, in (0, 1).
    ci_method : {"bca", "percentile"}, default "bca"
        BCa (§14.3) or the plain percentile interval (ch. 13).
    jackknife : array-like of float, or list of them, optional
        The leave-one-out scores (one sample, or one array per independent sample); needed for BCa.

    Returns
    -------
    (low, high) : tuple of float
        A degenerate distribution (every θ*_b equal) gives ``(θ*, θ*)``; NaN when no resample is
        finite, or (BCa) when every resample lies on one side of θ̂.

    Raises
    ------
    ValueError
        An unknown ``ci_method``, or ``level`` outside (0, 1).

    References
    ----------
    B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall, 1993,
    ch. 13 and §14.3 (eqs. 14.10, 14.14, 14.15), §15.3 (eq. 15.36).
    """
    from scipy.special import ndtr, ndtri

    if ci_method not in CI_METHODS:
        raise ValueError(f"ci_method must be one of {', '.join(CI_METHODS)}, got {ci_method!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    theta_b = np.asarray(theta_b, dtype=np.float64)
    theta_b = theta_b[~np.isnan(theta_b)]
    if theta_b.size == 0:
        return float("nan"), float("nan")
    if np.all(theta_b == theta_b[0]):
        return float(theta_b[0]), float(theta_b[0])
    alpha = (1 - level) / 2
    if ci_method == "percentile":
        lo, hi = alpha, 1 - alpha
    else:
        B = theta_b.size
        z0 = ndtri((np.count_nonzero(theta_b < theta_hat) + np.count_nonzero(theta_b <= theta_hat)) / (2 * B))
        if isinstance(jackknife, (list, tuple)) and jackknife and np.ndim(jackknife[0]) == 1:
            samples = [np.asarray(j, dtype=np.float64) for j in jackknife]
        else:
            samples = [np.asarray(jackknife, dtype=np.float64)]
        num = den = 0.0
        for j in samples:
            u = (j.size - 1) * (np.mean(j) - j)
            num += np.sum(u ** 3) / j.size ** 3
            den += np.sum(u ** 2) / j.size ** 2
        a = num / (6.0 * den ** 1.5) if den > 0 else 0.0
        if not np.isfinite(z0):   # every resample on one side of θ̂: no bias correction exists (scipy gives NaN)
            return float("nan"), float("nan")
        za = ndtri(alpha)
        lo = ndtr(z0 + (z0 + za) / (1 - a * (z0 + za)))
        hi = ndtr(z0 + (z0 - za) / (1 - a * (z0 - za)))
    low, high = np.quantile(theta_b, [lo, hi])
    return float(low), float(high)


class Resampled(Display):
    """Mixin giving an evaluation result bootstrap intervals over its items.

    A result class defines ``per_item`` (dict of equal-length 1-d arrays), ``statistic(per_item)`` and
    ``score_name``; it may offer other scores through :meth:`score_function` (BLI: ``"p@5"``, ``"mrr"``).
    The vectorised forms are picked from the contract's keys: ``"spearman"`` with ``gold``/``predicted``,
    a mean of ``correct``, ``"purity"`` with ``category``/``cluster``; anything else is resampled through
    ``statistic``.
    """

    score_name: ClassVar[str] = ""

    def statistic(self, per_item: dict) -> float:
        """The headline score recomputed from per-item data (each result class defines it).

        Parameters
        ----------
        per_item : dict of str to array
            Equal-length 1-d arrays, one row per item (the result's own ``per_item``, or a resample of it).

        Returns
        -------
        float
            The score.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define statistic(per_item)")

    def score_function(self, score: str | None = None) -> tuple[Callable, Callable | None]:
        """``(scalar, weighted)`` functions of per_item for ``score``.

        Parameters
        ----------
        score : str, optional
            The score's name; None means :attr:`score_name` (the only one, unless a class offers more).

        Returns
        -------
        scalar : callable
            ``scalar(per_item) -> float``.
        weighted : callable or None
            ``weighted(per_item, W) -> array`` of the score under each row of item weights ``W``, or
            None when the score has no vectorised form (it is then resampled through ``scalar``).

        Raises
        ------
        ValueError
            The result has no score of that name.
        """
        if score is not None and score != self.score_name:
            raise ValueError(f"{type(self).__name__} has one score, {self.score_name!r}; got {score!r}")
        return self.statistic, _default_weighted(self.score_name, getattr(self, "per_item", None) or {})

    def item_values(self, score: str | None = None, per_item: dict | None = None):
        """Per-item values whose mean is ``score`` (``correct`` for an accuracy).

        Parameters
        ----------
        score : str, optional
            The score's name; None means :attr:`score_name`.
        per_item : dict of str to array, optional
            Per-item data; None means the result's own.

        Returns
        -------
        numpy.ndarray of shape (n_items,), or None
            None when the score is not a mean over items (a correlation, a purity).
        """
        per_item = (getattr(self, "per_item", None) or {}) if per_item is None else per_item
        if (score is None or score == self.score_name) and "correct" in per_item:
            return np.asarray(per_item["correct"])
        return None

    def _score(self, score=None, draw="auto") -> _Score:
        per_item = getattr(self, "per_item", None)
        if not per_item:
            raise ValueError(f"this {type(self).__name__} has no per-item data to resample")
        scalar, weighted = self.score_function(score)
        return _Score(score or self.score_name, per_item, scalar, weighted, draw)

    def bootstrap_distribution(self, n_resamples: int = 9999, random_state=None, *, score: str | None = None,
                               batch: int | None = None, draw: str = "auto") -> np.ndarray:
        """The score of ``n_resamples`` bootstrap resamples of the items (see :meth:`ci`).

        Parameters
        ----------
        n_resamples : int, default 9999
            How many resamples.
        random_state : int or numpy.random.Generator, optional
            Seed or generator of the draws.
        score : str, optional
            Another score of the result; default :attr:`score_name`.
        batch : int, optional
            Resamples drawn at a time (default: as many as fit 32 MiB of indices).
        draw : {"auto", "indices", "counts"}, default "auto"
            How resamples are drawn (see :meth:`ci`).

        Returns
        -------
        numpy.ndarray of float64, shape (n_resamples,)
            The score of each resample.

        Raises
        ------
        ValueError
            Fewer than :data:`MIN_ITEMS` items, or no per-item data.
        """
        s = self._score(score, draw)
        _check_items(s.n)
        return s.distribution(int(n_resamples), random_state, batch)

    def ci(self, level: float = 0.95, ci_method: str = "bca", n_resamples: int = 9999, random_state=None, *,
           score: str | None = None, batch: int | None = None, draw: str = "auto") -> tuple[float, float]:
        """Bootstrap confidence interval of the score over items: ``(low, high)``.

        Parameters
        ----------
        level : float, default 0.95
            Confidence level, in (0, 1).
        ci_method : {"bca", "percentile"}, default "bca"
            Bias-corrected and accelerated (Efron & Tibshirani 1993, §14.3; the default of
            :func:`scipy.stats.bootstrap`) or plain percentile (ch. 13).
        n_resamples : int, default 9999
            Bootstrap resamples.
        random_state : int or numpy.random.Generator, optional
            With ``draw="indices"``, the same random_state and ``batch`` draw the same resamples as
            ``scipy.stats.bootstrap(..., paired=True, rng=numpy.random.default_rng(random_state), batch=batch)``.
        score : str, optional
            Another score of the result (BLI: ``"p@5"``, ``"mrr"``); default :attr:`score_name`.
        batch : int, optional
            Resamples drawn at a time (default: as many as fit 32 MiB of indices).
        draw : {"auto", "indices", "counts"}
            How resamples are drawn: n item indices each (``"indices"``), or the counts of the distinct
            per-item rows from their multinomial law (``"counts"``: the same bootstrap distribution,
            other random numbers; an accuracy has two distinct rows, so this is n-fold cheaper).
            ``"auto"`` collapses when the items hold at most n/4 distinct rows.

        Returns
        -------
        (low, high) : tuple of float
            The interval; it is also kept for the result's display.

        Raises
        ------
        ValueError
            Fewer than 3 items, unknown ``ci_method`` or level outside (0, 1).
        """
        if ci_method not in CI_METHODS:
            raise ValueError(f"ci_method must be one of {', '.join(CI_METHODS)}, got {ci_method!r}")
        if not 0 < level < 1:
            raise ValueError(f"level must be between 0 and 1, got {level}")
        if int(n_resamples) < 1:
            raise ValueError(f"n_resamples must be positive, got {n_resamples}")
        s = self._score(score, draw)
        _check_items(s.n)
        theta_b = s.distribution(int(n_resamples), random_state, batch)
        jack = s.jackknife() if ci_method == "bca" else None
        low, high = bootstrap_interval(s.value, theta_b, level, ci_method, jack)
        # kept for the result's display (the frozen dataclass's fields stay as they are)
        shown = self.__dict__.setdefault("_computed_intervals", {})
        shown[s.name] = Interval(s.value, low, high, f"{level * 100:g}% {'BCa' if ci_method == 'bca' else ci_method}")
        return low, high

    def _intervals(self) -> dict:
        return dict(self.__dict__.get("_computed_intervals", {}))


def _default_weighted(score_name: str, per_item: dict):
    """The vectorised form of a contract score, from its name and per_item keys (None if unknown)."""
    if score_name == "spearman" and {"gold", "predicted"} <= set(per_item):
        return lambda p, W: weighted_spearman(p["gold"], p["predicted"], W)
    if score_name == "purity" and {"category", "cluster"} <= set(per_item):
        return lambda p, W: weighted_purity(p["category"], p["cluster"], W)
    if "correct" in per_item:
        return lambda p, W: weighted_mean(p["correct"], W)
    return None


def mean_score(key: str):
    """``(scalar, weighted)`` for a score that is the mean of ``per_item[key]``.

    What a result's :meth:`Resampled.score_function` returns for a mean score (BLI's ``"mrr"``).

    Parameters
    ----------
    key : str
        The per-item array averaged.

    Returns
    -------
    scalar : callable
        ``scalar(per_item) -> float``, the mean.
    weighted : callable
        ``weighted(per_item, W) -> array``, the mean under each row of item weights.
    """
    return (lambda p: float(np.mean(p[key])), lambda p, W: weighted_mean(p[key], W))


# ------------------------------------------------------------------ paired tests
def steiger_test(r_a: float, r_b: float, r_ab: float, n: int) -> tuple[float, float]:
    """Steiger's (1980) Z for two dependent correlations sharing one variable, and its two-sided p-value.

    ``r_a = r(gold, a)``, ``r_b = r(gold, b)`` and ``r_ab = r(a, b)`` on the same ``n`` items. Steiger
    (1980, "Tests for comparing elements of a correlation matrix", Psychol. Bull. 87, p. 247, eq. 14):
    Z = (z_a − z_b) √(n − 3) / √(2 − 2 c̄), z the Fisher transform, with the covariance term of eq. 10
    evaluated at the pooled r̄ = (r_a + r_b)/2 (his eqs. 12–15, the "Z2*" statistic):
    c̄ = [r_ab (1 − 2 r̄²) − ½ r̄² (1 − 2 r̄² − r_ab²)] / (1 − r̄²)².
    This is cocor's ``steiger1980``; Meng, Rosenthal & Rubin (1992) is a close variant not used here.

    Parameters
    ----------
    r_a, r_b : float
        The two correlations with the shared variable (gold).
    r_ab : float
        The correlation of the two models' predictions.
    n : int
        Items (more than 3).

    Returns
    -------
    z : float
        Steiger's Z (0 when the predictions are identical).
    p : float
        Its two-sided p-value.

    Raises
    ------
    ValueError
        ``n`` is 3 or fewer.

    References
    ----------
    J. H. Steiger, "Tests for comparing elements of a correlation matrix", Psychological
    Bulletin 87(2), 245-251, 1980, eqs. 10-15.
    """
    from scipy.special import ndtr

    if n <= 3:
        raise ValueError(f"Steiger's test needs more than 3 items, got {n}")
    rbar = (r_a + r_b) / 2.0
    psi = r_ab * (1 - 2 * rbar ** 2) - 0.5 * rbar ** 2 * (1 - 2 * rbar ** 2 - r_ab ** 2)
    c = psi / (1 - rbar ** 2) ** 2
    if c >= 1:                   # identical predictions: no difference to test
        return 0.0, 1.0
    z = (np.arctanh(r_a) - np.arctanh(r_b)) * math.sqrt(n - 3) / math.sqrt(2 - 2 * c)
    return float(z), float(2 * ndtr(-abs(z)))


def mcnemar_test(correct_a, correct_b) -> tuple[int, int, float]:
    """Exact McNemar test: ``(b, c, p)`` with b items right for a only, c for b only, and the two-sided
    binomial p-value of b among b + c discordant items at 1/2 (McNemar 1947; the exact form, as
    ``scipy.stats.binomtest(b, b + c).pvalue``); p = 1 without discordant items.

    Parameters
    ----------
    correct_a, correct_b : array-like of bool, shape (n_items,)
        Whether each model got each item right, aligned.

    Returns
    -------
    b : int
        Items right for model a only.
    c : int
        Items right for model b only.
    p : float
        The exact two-sided p-value.

    References
    ----------
    Q. McNemar, "Note on the sampling error of the difference between correlated proportions
    or percentages", Psychometrika 12(2), 153-157, 1947.
    """
    from scipy.stats import binom

    a, b_ = np.asarray(correct_a, dtype=bool), np.asarray(correct_b, dtype=bool)
    b, c = int(np.sum(a & ~b_)), int(np.sum(~a & b_))
    if b + c == 0:
        return b, c, 1.0
    return b, c, float(min(1.0, 2 * binom.cdf(min(b, c), b + c, 0.5)))


def paired_permutation_test(values_a, values_b, n_resamples: int = 9999, random_state=None,
                            batch: int | None = None) -> tuple[float, float]:
    """Paired permutation test of mean(a) − mean(b): ``(difference, p)``, two-sided.

    Each item's two values are swapped or not at random (a sign flip of its difference), as
    ``scipy.stats.permutation_test(..., permutation_type="samples")``; when 2ⁿ ≤ ``n_resamples`` every
    sign pattern is enumerated (the exact test, p = share of patterns at least as extreme, no +1), otherwise
    p = 2 min(#{≤ obs} + 1, #{≥ obs} + 1) / (n_resamples + 1), capped at 1 (scipy's rule).

    Parameters
    ----------
    values_a, values_b : array-like of float, shape (n_items,)
        The two models' per-item values (reciprocal ranks, ...), aligned.
    n_resamples : int, default 9999
        Random sign patterns (when the exact test is not cheaper).
    random_state : int or numpy.random.Generator, optional
        Seed or generator of the sign patterns.
    batch : int, optional
        Sign patterns drawn at a time.

    Returns
    -------
    difference : float
        mean(a) − mean(b).
    p : float
        The two-sided p-value.
    """
    d = np.asarray(values_a, dtype=np.float64) - np.asarray(values_b, dtype=np.float64)
    n = d.size
    observed = float(d.mean())
    exact = n < 63 and 2 ** n <= n_resamples
    if exact:
        patterns = ((np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1).astype(np.float64)
        null = ((1 - 2 * patterns) @ d) / n
        total, adjust = 2 ** n, 0
    else:
        rng = _rng(random_state)
        step = _batch_size(n, batch)
        null = np.concatenate([
            ((1 - 2 * rng.integers(0, 2, (min(step, n_resamples - s), n))).astype(np.float64) @ d) / n
            for s in range(0, n_resamples, step)])
        total, adjust = n_resamples, 1
    gamma = abs(observed) * np.finfo(np.float64).eps * 100
    less = (np.count_nonzero(null <= observed + gamma) + adjust) / (total + adjust)
    greater = (np.count_nonzero(null >= observed - gamma) + adjust) / (total + adjust)
    return observed, float(min(1.0, 2 * min(less, greater)))


@dataclass(frozen=True, repr=False)
class Comparison(Display):
    """Outcome of :func:`compare`: two models on the items both cover.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    score_name : str
        The score compared (``"spearman"``, ``"accuracy"``, ``"p@1"``...).
    test : str
        ``"steiger"``, ``"mcnemar"``, ``"permutation"`` or ``"bootstrap"``.
    score_a, score_b : float
        The two scores on the common items.
    difference : float
        ``score_a − score_b``.
    p_value : float
        Two-sided.
    statistic : float
        Steiger's Z; McNemar's b (items right for a only); the mean difference (permutation and bootstrap).
    effect_size : float
        Cohen's q = z_a − z_b (Fisher z of the correlations) for Steiger; the odds ratio b / c of the
        discordant items for McNemar; the difference over its bootstrap / permutation standard deviation
        (a standardised mean difference) otherwise.
    effect_name : str
        What ``effect_size`` is (``"cohen_q"``, ``"odds_ratio"``...).
    n : int
        Items common to both (the test's sample).
    n_a, n_b : int
        Items each model scored.
    coverage_a, coverage_b : float
        Share of the dataset's items each model covered.
    label_a, label_b : str, default "a" and "b"
        The models' names in displays.
    details : dict
        Test-specific numbers (``r_ab``, ``b``/``c``, ``n_resamples``).
    """

    dataset: str
    score_name: str
    test: str
    score_a: float
    score_b: float
    difference: float
    p_value: float
    statistic: float
    effect_size: float
    effect_name: str
    n: int
    n_a: int
    n_b: int
    coverage_a: float
    coverage_b: float
    label_a: str = "a"
    label_b: str = "b"
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The fields as a plain dict (for JSON).

        Returns
        -------
        dict
            Every field by name, ``details`` as a nested dict.
        """
        return asdict(self)

    def _view(self) -> View:
        rows = [[self.score_name, self.score_a, self.score_b], ["coverage", self.coverage_a, self.coverage_b],
                ["items scored", self.n_a, self.n_b]]
        return View(f"Comparison: {self.dataset}", rows, columns=["", self.label_a, self.label_b],
                    notes=[f"difference {number(self.difference)}, {self.test} p = {number(self.p_value)}, "
                           f"{self.effect_name} {number(self.effect_size)}, on n = {self.n} common items",
                           f"from compare(…, {self.dataset!r}, test={self.test!r})"])

    def __str__(self) -> str:
        return (f"{self.dataset} {self.score_name}: {self.label_a} {self.score_a:.4f} vs {self.label_b} "
                f"{self.score_b:.4f} (difference {self.difference:+.4f}, {self.test} p = {self.p_value:.4g}, "
                f"{self.effect_name} {self.effect_size:.3g}, n = {self.n})")


TESTS = ("auto", "steiger", "mcnemar", "permutation", "bootstrap")


def _align(ra, rb):
    """Indices of the common items of two results, by ``per_item["item"]`` (else position)."""
    pa, pb = ra.per_item, rb.per_item
    na, nb = _per_item_length(pa), _per_item_length(pb)
    if "item" in pa and "item" in pb:
        _, ia, ib = np.intersect1d(pa["item"], pb["item"], assume_unique=True, return_indices=True)
        return ia, ib, na, nb
    if na != nb:
        raise ValueError(f"the results have {na} and {nb} items and no per_item['item'] to align them")
    return np.arange(na), np.arange(nb), na, nb


def _coverage(r, n):
    c = getattr(r, "coverage", None)
    return float(c) if c is not None else float("nan")


def compare_results(a, b, *, test: str = "auto", score: str | None = None, n_resamples: int = 9999,
                    random_state=None, labels=("a", "b")) -> Comparison:
    """Paired test of two evaluation results of one dataset, on the items both cover
    (:func:`embgeo.evaluate.compare` also takes two models and a dataset).

    Parameters
    ----------
    a, b : evaluation results
        Of one dataset and score, with ``per_item`` data; items are matched by ``per_item["item"]``.
    test : {"auto", "steiger", "mcnemar", "permutation", "bootstrap"}
        ``"auto"`` picks by score: Steiger's (1980) test for a Spearman correlation (the two models'
        ρ share the gold ratings), exact McNemar for an accuracy or a hit rate (items right or wrong),
        a paired permutation test for another mean per item (MRR), and a paired bootstrap otherwise
        (purity): the same resamples for both, p = 2 · min(share of differences ≤ 0, share ≥ 0).
    score : str, optional
        Another score of the results (BLI: ``"mrr"``, ``"p@5"``).
    n_resamples, random_state
        For the permutation and bootstrap tests.
    labels : (str, str)
        Names of the two models in the result.

    Returns
    -------
    Comparison
        The test, the two scores on the common items, the p-value and the effect size.

    Raises
    ------
    ValueError
        The two results are of different datasets or scores; no item (or fewer than 3) is covered by both
        models (the message names each model's coverage); a test that does not fit the score.
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {', '.join(TESTS)}, got {test!r}")
    if type(a) is not type(b):
        raise ValueError(f"cannot compare a {type(a).__name__} with a {type(b).__name__}")
    name_a, name_b = getattr(a, "dataset", ""), getattr(b, "dataset", "")
    if name_a != name_b:
        raise ValueError(f"the results are of different datasets: {name_a!r} and {name_b!r}")
    score = score or a.score_name
    ia, ib, na, nb = _align(a, b)
    cov_a, cov_b = _coverage(a, na), _coverage(b, nb)
    if len(ia) < MIN_ITEMS:
        raise ValueError(
            f"{labels[0]} and {labels[1]} have {len(ia)} item(s) of {name_a or 'the dataset'} in common "
            f"(need {MIN_ITEMS}): {labels[0]} covers {na} items ({cov_a:.1%}), {labels[1]} {nb} ({cov_b:.1%})")
    pa, pb = _take(a.per_item, ia), _take(b.per_item, ib)
    scalar_a, weighted_a = a.score_function(score)
    scalar_b, weighted_b = b.score_function(score)
    sa, sb = float(scalar_a(pa)), float(scalar_b(pb))
    values_a, values_b = a.item_values(score, pa), b.item_values(score, pb)
    if test == "auto":
        if score == "spearman" and {"gold", "predicted"} <= set(pa):
            test = "steiger"
        elif values_a is not None and np.isin(values_a, (0, 1)).all() and np.isin(values_b, (0, 1)).all():
            test = "mcnemar"
        elif values_a is not None:
            test = "permutation"
        else:
            test = "bootstrap"
    common = dict(dataset=name_a, score_name=score, score_a=sa, score_b=sb, difference=sa - sb, n=len(ia),
                  n_a=na, n_b=nb, coverage_a=cov_a, coverage_b=cov_b, label_a=labels[0], label_b=labels[1])
    if test == "steiger":
        if not {"gold", "predicted"} <= set(pa):
            raise ValueError("Steiger's test needs per-item gold and predicted scores (a similarity result)")
        if not np.array_equal(pa["gold"], pb["gold"]):
            raise ValueError("Steiger's test needs the same gold scores for both models on the common items")
        from scipy.stats import spearmanr

        r_a = float(spearmanr(pa["gold"], pa["predicted"])[0])
        r_b = float(spearmanr(pb["gold"], pb["predicted"])[0])
        r_ab = float(spearmanr(pa["predicted"], pb["predicted"])[0])
        z, p = steiger_test(r_a, r_b, r_ab, len(ia))
        return Comparison(test=test, p_value=p, statistic=z,
                          effect_size=float(np.arctanh(r_a) - np.arctanh(r_b)), effect_name="cohen_q",
                          details={"r_ab": r_ab, "r_a": r_a, "r_b": r_b}, **common)
    if test == "mcnemar":
        if values_a is None or not (np.isin(values_a, (0, 1)).all() and np.isin(values_b, (0, 1)).all()):
            raise ValueError(f"McNemar's test needs items right or wrong; {score!r} is not")
        b_, c_, p = mcnemar_test(values_a, values_b)
        return Comparison(test=test, p_value=p, statistic=float(b_),
                          effect_size=b_ / c_ if c_ else float("inf") if b_ else float("nan"),
                          effect_name="odds_ratio", details={"b": b_, "c": c_}, **common)
    if test == "permutation":
        if values_a is None:
            raise ValueError(f"the permutation test needs a score that is a mean over items; {score!r} is not")
        diff, p = paired_permutation_test(values_a, values_b, n_resamples, random_state)
        d = np.asarray(values_a, float) - np.asarray(values_b, float)
        sd = float(np.sqrt(np.mean(d ** 2) / len(d)))         # the permutation null's standard deviation
        return Comparison(test=test, p_value=p, statistic=diff, effect_size=diff / sd if sd else float("nan"),
                          effect_name="standardized_difference", details={"n_resamples": int(n_resamples)},
                          **common)
    # paired bootstrap: the same item counts for both models
    sA = _Score(score, pa, scalar_a, weighted_a, draw="indices")
    sB = _Score(score, pb, scalar_b, weighted_b, draw="indices")
    rng = _rng(random_state)
    step = _batch_size(len(ia), None)
    chunks = []
    for s in range(0, int(n_resamples), step):
        idx = rng.integers(0, len(ia), (min(step, int(n_resamples) - s), len(ia)))
        W = _counts(idx, len(ia))
        chunks.append(sA.on_counts(W, idx) - sB.on_counts(W, idx))
    diffs = np.concatenate(chunks)
    diffs = diffs[~np.isnan(diffs)]
    p = float(min(1.0, 2 * min(np.mean(diffs <= 0), np.mean(diffs >= 0)))) if diffs.size else float("nan")
    sd = float(np.std(diffs, ddof=1)) if diffs.size > 1 else float("nan")
    return Comparison(test="bootstrap", p_value=p, statistic=sa - sb,
                      effect_size=(sa - sb) / sd if sd else float("nan"), effect_name="standardized_difference",
                      details={"n_resamples": int(n_resamples)}, **common)
