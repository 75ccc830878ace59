"""Choosing α for natural alpha embeddings: sweeps of a grid with k-fold cross-validation.

Volpi & Malagò (2020) pick α by cross-validation on analogies (eq. 6): 3 folds, and in each the
top 3 α on the other folds scored on the held-out one, summarised as mean ± standard deviation
over the 3 ranks (Tables 2–3; Table 11 per semantic / syntactic / total section). That protocol is
:func:`analogy_sweep`; :func:`alpha_sweep` applies the same selection to a word-similarity
benchmark (eq. 5, Spearman's ρ), which the paper does not do. Both embed only the rows they need,
share one logits GEMM per block across the α of a chunk, and run the grid as Dask tasks when a
client exists.

This module is to :class:`~embgeo.alpha.AlphaEmbeddings` what scikit-learn's ``model_selection``
is to its estimators: it uses the method, the method does not know about it. :mod:`embgeo.alpha`
re-exports its public names (``from embgeo.alpha import alpha_sweep`` is the documented spelling).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Sequence

import numpy as np

from .. import backend as xb
from ..display import Display, pyplot
from ..blocking import block_rows
from ..linalg import unit_rows
# the private helpers are shared inside the embgeo.alpha package only (tests/test_architecture.py)
from ._model import AlphaEmbeddings, _geometry, _normalization, fisher_cosine

__all__ = ["alpha_sweep", "analogy_sweep", "SweepResult", "AnalogySweepResult", "CrossValidation",
           "ANALOGY_GROUPS"]


# ------------------------------------------------------------------ choosing α (Tables 2–3, 11)
def _cross_validate(score: Callable[[int, np.ndarray], float], n_alphas: int, n_items: int, folds: int,
                    top: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """k-fold choice of α: per fold, the ``top`` best α on the other folds, scored on the fold.

    Returns the chosen α indices and their test scores, both (folds, top), best first.
    """
    fold_of = rng.permutation(n_items) % folds
    chosen = np.empty((folds, top), dtype=np.int64)
    test = np.empty((folds, top))
    for f in range(folds):
        held = fold_of == f
        val = np.array([score(k, ~held) for k in range(n_alphas)])
        val = np.where(np.isfinite(val), val, -np.inf)
        order = np.argsort(-val, kind="stable")[:top]  # ties: the earlier α of the grid
        chosen[f] = order
        test[f] = [score(int(k), held) for k in order]
    return chosen, test


def _check_grid(alphas, folds, top):
    alphas = np.asarray(list(alphas), dtype=np.float64)
    if alphas.size == 0 or np.any(np.isnan(alphas)) or np.any(alphas == np.inf):
        raise ValueError("alphas must be a non-empty sequence of finite numbers (or -inf: the limit embedding)")
    if int(folds) < 2:
        raise ValueError(f"folds must be at least 2, got {folds}")
    if not 1 <= int(top) <= alphas.size:
        raise ValueError(f"top must be between 1 and the number of alphas ({alphas.size}), got {top}")
    return alphas, int(folds), int(top)


def _alpha_rows(model: AlphaEmbeddings, grid, rows, geometry, normalize, progress, shared: bool | None = None):
    """Yield (α, rows of W^α as float64 NumPy) for the grid; α = −∞ gives the limit embedding (eq. 9).

    The finite α are computed in chunks whose outputs fit the memory budget; each chunk shares
    one logits GEMM per block. ``shared``: as :meth:`AlphaEmbeddings._gradients` (default: the
    grid has several finite α).
    """
    per_chunk = max(1, model.memory_budget // (8 * max(len(rows), 1) * max(model.dim, 1)))
    finite = [float(a) for a in grid if np.isfinite(a)]
    shared = len(finite) > 1 if shared is None else shared
    for s in range(0, len(finite), per_chunk):
        chunk = finite[s:s + per_chunk]
        for a, (G, ls) in zip(chunk, model._gradients(chunk, rows, progress, shared)):
            yield a, np.asarray(xb.to_numpy(model._finish(G, ls, a, geometry, normalize)), dtype=np.float64)
    if np.any(np.isneginf(grid)):
        lim = model.limit(1, geometry=geometry, normalize=normalize, words=[model.words[i] for i in rows],
                          dtype_out="float64", progress=progress)
        yield -np.inf, np.asarray(xb.to_numpy(lim.vectors), dtype=np.float64)


def _alpha_group(model: AlphaEmbeddings, alphas, rows, geometry, normalize, evaluate, progress=False,
                 shared=None) -> dict:
    """``evaluate(W^α rows)`` for each α of one group, the group sharing its logits GEMMs."""
    return {a: evaluate(Y)
            for a, Y in _alpha_rows(model, np.asarray(alphas), rows, geometry, normalize, progress, shared)}


def _per_alpha(model: AlphaEmbeddings, grid, rows, geometry, normalize, evaluate, progress, client, local) -> list:
    """``evaluate(W^α rows)`` for every α of the grid, in grid order.

    Here, or, when a Dask client exists (or is given) and ``local`` is false, as Dask tasks: the
    distinct α are split in contiguous groups, one per worker, and each task computes its group
    with one logits GEMM per block for the whole group, as the local sweep does for its chunks.
    The model (its reference measure and Fisher matrix computed here first, once) goes to every
    worker with the task.
    """
    if not local and client is None:
        from ..distributed import current_client

        client = current_client()
    distinct = list(dict.fromkeys(float(a) for a in grid))
    if local or client is None:
        values = _alpha_group(model, distinct, rows, geometry, normalize, evaluate, progress)
    else:
        from ..distributed import map_grid

        model.fisher_cholesky  # p0, I(p0) and its Cholesky factor once, not once per worker
        n_groups = max(1, min(len(distinct), len(client.scheduler_info()["workers"])))
        groups = [[float(a) for a in g] for g in np.array_split(np.asarray(distinct), n_groups)]
        # blocks sized for the whole grid, so that every α's rows are the local ones bit for bit
        shared = sum(np.isfinite(a) for a in distinct) > 1
        task = partial(_alpha_group, model, rows=rows, geometry=geometry, normalize=normalize, evaluate=evaluate,
                       shared=shared)
        values = {}
        for part in map_grid(task, [{"alphas": g} for g in groups], client=client):
            values.update(part)
    return [values[float(a)] for a in grid]


def _pair_products(i1, i2, Y):
    return np.sum(Y[i1] * Y[i2], axis=1)


def _analogy_correct(q, memory_budget, Y):
    return _analogy_answers(Y, q, memory_budget) == q[:, 3]


def _as_model(model, p0, variant, kwargs) -> AlphaEmbeddings:
    if isinstance(model, AlphaEmbeddings):
        return model
    opts = dict(kwargs)
    if p0 is not None:
        opts["p0"] = p0
    if variant is not None:
        opts["variant"] = variant
    return AlphaEmbeddings(model, **opts)


def _pyplot():
    return pyplot("plotting an α sweep")


@dataclass(repr=False)
class CrossValidation(Display):
    """α chosen by k-fold cross-validation, summarised as in Volpi & Malagò (2020), Tables 2–3.

    In each fold the ``top`` best α on the other folds (validation) are scored on the held-out fold.
    Made by :meth:`from_folds` inside :func:`alpha_sweep` and :func:`analogy_sweep`.

    Parameters
    ----------
    alpha, alpha_std : float
        Mean and standard deviation over the ``top`` ranks of the fold-averaged chosen α
        (Table 3's "1.8 ± 0.1").
    score, score_std : float
        The same for the held-out score (Table 2's "84.5 ± 0.4": "averaging the performances on
        test of the top three alpha selected based on best performances on validation").
    fold_std : float
        Standard deviation over folds of each fold's mean held-out score.
    chosen_alphas, test_scores : ndarray (folds, top)
        The chosen α of each fold (best first) and their held-out scores.

    References
    ----------
    Volpi & Malagò (2020), "Natural Alpha Embeddings", RepL4NLP, Tables 2-3. arXiv:1912.02280
    """

    alpha: float
    alpha_std: float
    score: float
    score_std: float
    fold_std: float
    chosen_alphas: np.ndarray
    test_scores: np.ndarray

    @classmethod
    def from_folds(cls, alphas, chosen, test) -> "CrossValidation":
        """The summary of the choices made in each fold.

        Parameters
        ----------
        alphas : ndarray of float64, shape (n_alphas,)
            The grid (``-inf`` for the limit embedding).
        chosen : ndarray of int, shape (folds, top)
            Per fold, the indices into ``alphas`` of the ``top`` best α on validation, best first.
        test : ndarray of float, shape (folds, top)
            Their scores on the held-out fold.

        Returns
        -------
        CrossValidation
            Means and standard deviations over the ``top`` ranks (a chosen −∞ gives ``alpha=-inf``
            and ``alpha_std=nan``).
        """
        ca = alphas[chosen]
        with np.errstate(invalid="ignore"):  # a chosen −∞ (the limit embedding): mean −∞, spread nan
            by_rank_a, by_rank_s = ca.mean(axis=0), test.mean(axis=0)
            a_std = float(by_rank_a.std()) if np.all(np.isfinite(by_rank_a)) else float("nan")
        return cls(alpha=float(by_rank_a.mean()), alpha_std=a_std,
                   score=float(by_rank_s.mean()), score_std=float(by_rank_s.std()),
                   fold_std=float(test.mean(axis=1).std()), chosen_alphas=ca, test_scores=test)

    def __str__(self) -> str:
        return f"α={self.alpha:.2f}±{self.alpha_std:.2f}, score={self.score:.4f}±{self.score_std:.4f}"


@dataclass(repr=False)
class SweepResult(Display):
    """α sweep on a word-similarity benchmark (:func:`alpha_sweep`).

    Parameters
    ----------
    alphas : ndarray
        The grid.
    scores : ndarray
        Spearman's ρ of each α on all covered pairs.
    best_alpha, best_score : float
        The grid's best α on all pairs (an optimistic, in-sample number).
    cv : CrossValidation
        α chosen on k − 1 folds of the pairs, ρ on the held-out fold: the honest number.
    baseline : float
        ρ of the cosine of the plain input vectors (U, or U + V for the U+V variant), same pairs.
    n_pairs, n_total : int
        Covered pairs used, and pairs in the benchmark.
    name : str, default ""
        The benchmark's name (``"pairs"`` for a tuple of lists).
    settings : dict, default {}
        The settings of the sweep (``p0``, ``variant``, ``geometry``, ``normalize``, ``folds``, ``top``).

    See Also
    --------
    AnalogySweepResult : the analogy sweep's result.
    """

    alphas: np.ndarray
    scores: np.ndarray
    best_alpha: float
    best_score: float
    cv: CrossValidation
    baseline: float
    n_pairs: int
    n_total: int
    name: str = ""
    settings: dict = field(default_factory=dict)

    @property
    def cv_score(self) -> float:
        """Mean held-out ρ of the cross-validated α (``cv.score``)."""
        return self.cv.score

    @property
    def cv_std(self) -> float:
        """Standard deviation over folds of the held-out ρ (``cv.fold_std``; the earlier field)."""
        return self.cv.fold_std

    @property
    def cv_alphas(self) -> np.ndarray:
        """The best validation α of each fold (``cv.chosen_alphas[:, 0]``; the earlier field)."""
        return self.cv.chosen_alphas[:, 0]

    @property
    def cv_scores(self) -> np.ndarray:
        """Held-out ρ of each fold's best α (``cv.test_scores[:, 0]``; the earlier field)."""
        return self.cv.test_scores[:, 0]

    def plot(self, ax=None):
        """ρ against α, with the baseline (dotted) and the cross-validated α (dashed).

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
        plt = _pyplot()
        ax = plt.subplots()[1] if ax is None else ax
        label = " ".join(f"{k}={v}" for k, v in self.settings.items())
        line, = ax.plot(self.alphas, self.scores, marker=".", label=f"{self.name} {label}")
        ax.axhline(self.baseline, color=line.get_color(), linestyle=":", label=f"{self.name} baseline")
        ax.axvline(self.cv.alpha, color=line.get_color(), linestyle="--", alpha=0.5)
        ax.set_xlabel("α")
        ax.set_ylabel("Spearman ρ")
        ax.legend(fontsize="small")
        return ax


def _pairs(benchmark, lowercase):
    if isinstance(benchmark, tuple) and len(benchmark) == 3:
        w1, w2, s = benchmark
        return list(w1), list(w2), np.asarray(s, dtype=np.float64), "pairs"
    if hasattr(benchmark, "words1"):
        ds = benchmark
    else:
        from ..data import load_dataset

        ds = load_dataset(benchmark, lowercase=bool(lowercase))
    return list(ds.words1), list(ds.words2), np.asarray(ds.scores, dtype=np.float64), getattr(ds, "name", "")


def _looker(model, lowercase):
    """As embgeo.evaluate: the word as written, else its lower-case form (unless told)."""
    return lambda w: w.lower() if lowercase or (lowercase is None and w not in model) else w


def alpha_sweep(model, alphas: Sequence[float], benchmark, folds: int = 5, *, top: int = 1,
                geometry: str = "fisher", normalize=True, p0: str | None = None, variant: str | None = None,
                random_state=0, lowercase: bool | None = None, progress=None,
                client=None, local: bool = False, **kwargs) -> SweepResult:
    """Sweep α over a grid on a word-similarity benchmark, choosing α by k-fold cross-validation.

    For each α, the similarity of eq. 5 (cosine in ``geometry``) of alpha embeddings (eq. 2) is
    correlated (Spearman's ρ) with the human scores over the covered pairs; the pairs are split in
    ``folds`` random folds, and in each fold the ``top`` best α on the other folds are scored on it
    (:class:`CrossValidation`).

    This is *not* the paper's protocol: Volpi & Malagò (2020) report similarities for the limit
    embeddings (Table 1, Fig. 1) and cross-validate α only on analogies, with 3 folds and the top
    3 α (Tables 2–3, 11): that is :func:`analogy_sweep`. This sweep applies the same selection to
    similarity benchmarks (``folds=3, top=3`` gives the paper's summary).

    Only the benchmark's words are embedded (each still sums over all n contexts), and one logits
    GEMM per block serves every α of the grid. When a Dask client exists (or ``client`` is given),
    the grid runs as Dask tasks, one group of α per worker, each group sharing its GEMMs; the
    result is the local one.

    Parameters
    ----------
    model : AlphaEmbeddings, or anything :class:`AlphaEmbeddings` accepts
    alphas : sequence of float
        The grid; ``-np.inf`` stands for the limit embedding (eq. 9, ``limit(top=1)``).
    benchmark : str, path, :class:`embgeo.data.WordPairs`, or (words1, words2, scores)
        Names resolve through :func:`embgeo.data.load_dataset` (``"wordsim353"``,
        ``"simlex999"``, or a file path).
    folds : int
        Number of cross-validation folds (≥ 2).
    top : int
        How many of the best validation α are scored per fold (the paper: 3).
    geometry : {"fisher", "euclidean"}
        Products of eq. 5.
    normalize : True or {"fisher", "euclidean"}
        Normalisation before the products (True: in ``geometry``, i.e. the cosine of eq. 5).
    p0, variant : str, optional
        Passed to :class:`AlphaEmbeddings` when ``model`` is not one already.
    random_state : int, Generator or None
        Fold assignment.
    lowercase : bool or None
        As :func:`embgeo.evaluate.word_similarity`: None looks words up as written, then lower-cased.
    progress : bool, optional
        Progress bar over the blocks of rows; None: automatic.
    client : distributed.Client, optional
        Run the α groups on this client. Default: the current client if there is one
        (:func:`embgeo.distributed.current_client`), else here.
    local : bool
        True runs here whatever client exists.
    **kwargs
        Further :class:`AlphaEmbeddings` arguments (``dtype``, ``memory_budget``, ...).

    Returns
    -------
    SweepResult
        ρ per α on all pairs, the cross-validated α and ρ (``cv``), and the baseline.

    Raises
    ------
    ValueError
        An empty grid, NaN or +∞ in it, ``folds < 2``, ``top`` outside [1, len(alphas)], an unknown
        geometry, or fewer than ``2 * folds`` pairs in the vocabulary.

    See Also
    --------
    analogy_sweep : the paper's protocol (analogies).

    References
    ----------
    Volpi & Malagò (2020), "Natural Alpha Embeddings", RepL4NLP, eq. 2 and 5. arXiv:1912.02280
    """
    from scipy.stats import spearmanr

    geometry = _geometry(geometry)
    normalize = _normalization(normalize, geometry)
    grid, folds, top = _check_grid(alphas, folds, top)
    rng = np.random.default_rng(random_state)
    model = _as_model(model, p0, variant, kwargs)
    w1, w2, scores, name = _pairs(benchmark, lowercase)
    look = _looker(model, lowercase)
    w1, w2 = [look(w) for w in w1], [look(w) for w in w2]
    keep = np.array([a in model and b in model for a, b in zip(w1, w2)], dtype=bool)
    n_total = len(w1)
    if keep.sum() < 2 * folds:
        raise ValueError(f"only {int(keep.sum())} of {n_total} pairs are in the vocabulary: too few for "
                         f"{folds}-fold cross-validation")
    w1 = [w for w, k in zip(w1, keep) if k]
    w2 = [w for w, k in zip(w2, keep) if k]
    scores = scores[keep]
    vocab = sorted(set(w1) | set(w2), key=model.index)
    pos = {w: i for i, w in enumerate(vocab)}
    i1 = np.array([pos[w] for w in w1])
    i2 = np.array([pos[w] for w in w2])
    rows = model._rows(vocab)
    sims = np.array(_per_alpha(model, grid, rows, geometry, normalize, partial(_pair_products, i1, i2), progress,
                               client, local))
    Ub = np.asarray(xb.to_numpy(xb.take_rows(model.input_vectors, rows)), dtype=np.float64)
    base = fisher_cosine(Ub[i1], Ub[i2])

    def rho(s, sel):
        r = spearmanr(s[sel], scores[sel]).statistic
        return float(r) if np.isfinite(r) else float("nan")

    everything = np.ones(len(w1), dtype=bool)
    full = np.array([rho(s, everything) for s in sims])
    chosen, test = _cross_validate(lambda k, sel: rho(sims[k], sel), len(grid), len(w1), folds, top, rng)
    kbest = int(np.nanargmax(full))
    return SweepResult(
        alphas=grid, scores=full, best_alpha=float(grid[kbest]), best_score=float(full[kbest]),
        cv=CrossValidation.from_folds(grid, chosen, test), baseline=rho(base, everything),
        n_pairs=len(w1), n_total=n_total, name=name,
        settings={"p0": model.p0_kind, "variant": model.variant, "geometry": geometry,
                  "normalize": normalize, "folds": folds, "top": top},
    )


# ------------------------------------------------------------------ analogies (eq. 6, Tables 2, 3, 11)
ANALOGY_GROUPS = ("semantic", "syntactic", "total")


@dataclass(repr=False)
class AnalogySweepResult(Display):
    """α sweep on analogies with the paper's cross-validation (:func:`analogy_sweep`).

    Parameters
    ----------
    alphas : ndarray
        The grid.
    accuracy : dict
        Per group (``"semantic"``, ``"syntactic"``, ``"total"``): accuracy of each α on all the
        group's covered questions (in-sample).
    cv : dict
        Per group, a :class:`CrossValidation` (the paper's numbers: Table 2 accuracy, Table 3 α).
    baseline : dict
        Per group, the accuracy of the plain input vectors (U, or U + V), unit rows, same questions
        and candidates (3CosAdd): the paper's "U" / "U+V" rows.
    correct : ndarray of bool (n_alphas, n_evaluated)
        Per α and covered question, whether eq. 6 found the answer.
    n_evaluated, n_total : int
        Questions with all four words among the candidates, and questions in the file.
    restrict_vocab : int
        The number of candidate rows.
    name : str, default ""
        The question set's name.
    settings : dict, default {}
        The settings of the sweep (``p0``, ``variant``, ``geometry``, ``normalize``, ``folds``, ``top``).

    See Also
    --------
    SweepResult : the similarity sweep's result.
    """

    alphas: np.ndarray
    accuracy: dict
    cv: dict
    baseline: dict
    correct: np.ndarray = field(repr=False)
    n_evaluated: int = 0
    n_total: int = 0
    restrict_vocab: int = 0
    name: str = ""
    settings: dict = field(default_factory=dict)

    def table(self) -> list[dict]:
        """Rows shaped like the paper's Table 11: per group, cross-validated α and accuracy (%).

        Returns
        -------
        list of dict
            One dict per group (``"semantic"``, ``"syntactic"``, ``"total"``, those with enough
            questions) with keys ``group``, ``alpha``, ``alpha_std``, ``accuracy``,
            ``accuracy_std`` and ``baseline`` (the accuracies in %).
        """
        return [{"group": g, "alpha": self.cv[g].alpha, "alpha_std": self.cv[g].alpha_std,
                 "accuracy": 100 * self.cv[g].score, "accuracy_std": 100 * self.cv[g].score_std,
                 "baseline": 100 * self.baseline[g]} for g in ANALOGY_GROUPS if g in self.cv]

    def plot(self, ax=None):
        """Accuracy against α per group, baselines dotted.

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
        plt = _pyplot()
        ax = plt.subplots()[1] if ax is None else ax
        for g in ANALOGY_GROUPS:
            if g not in self.accuracy:
                continue
            line, = ax.plot(self.alphas, self.accuracy[g], marker=".", label=g)
            ax.axhline(self.baseline[g], color=line.get_color(), linestyle=":")
        ax.set_xlabel("α")
        ax.set_ylabel("analogy accuracy")
        ax.set_title(" ".join(f"{k}={v}" for k, v in self.settings.items()), fontsize="small")
        ax.legend(fontsize="small")
        return ax


def _analogy_answers(Y, q, memory_budget):
    """Eq. 6: per question (a, b, c), argmin_d ‖Y_b − Y_a − Y_d + Y_c‖ over the rows, d ∉ {a, b, c}.

    ‖t − y‖² = ‖t‖² − 2 tᵀy + ‖y‖², so the argmin is the argmax of 2 tᵀy − ‖y‖²: one GEMM per
    batch of questions. Ties go to the lower row.
    """
    n = Y.shape[0]
    sq = np.einsum("ij,ij->i", Y, Y)
    out = np.empty(len(q), dtype=np.int64)
    b = block_rows(n, 8, memory_budget)
    for s in range(0, len(q), b):
        Q = q[s:s + b]
        T = Y[Q[:, 1]] - Y[Q[:, 0]] + Y[Q[:, 2]]
        S = 2.0 * (T @ Y.T) - sq
        r = np.arange(len(Q))
        for j in range(3):
            S[r, Q[:, j]] = -np.inf
        out[s:s + b] = np.argmax(S, axis=1)
    return out


def _accuracy_of(C: np.ndarray) -> Callable[[int, np.ndarray], float]:
    return lambda k, sel: float(C[k, sel].mean())


def analogy_sweep(model, alphas: Sequence[float], questions="google-analogy", folds: int = 3, *, top: int = 3,
                  geometry: str = "fisher", normalize=True, restrict_vocab: int | None = 30000,
                  p0: str | None = None, variant: str | None = None, random_state=0,
                  lowercase: bool | None = None, progress=None, client=None, local: bool = False,
                  **kwargs) -> AnalogySweepResult:
    """The paper's α selection: analogies, 3-fold cross-validation, top-3 α (Tables 2, 3 and 11).

    Each question a : b = c : d is answered by minimising the analogy measure of eq. 6,
    ‖W^α(b) − W^α(a) − W^α(d) + W^α(c)‖ over the candidate words d ∉ {a, b, c}, with the vectors
    normalised in ``normalize``'s geometry and the norm taken in ``geometry``'s. The paper's
    "E-U+V-0-nF-pI" is ``variant="U+V", p0="0", geometry="euclidean", normalize="fisher"`` and
    its "nI-pI" ``geometry="euclidean", normalize=True``; with unit rows in the norm's own
    geometry eq. 6 is 3CosAdd. The semantic (non-``gram``) and syntactic (``gram*``) sections
    and the total are cross-validated separately, as in Table 11: the questions are split in
    ``folds`` folds, and in each fold the ``top`` best α on the other folds are scored on it;
    their mean ± standard deviation over the ``top`` ranks is what Tables 2–3 print.

    Parameters
    ----------
    model : AlphaEmbeddings, or anything :class:`AlphaEmbeddings` accepts
    alphas : sequence of float
        The grid (the paper: α between −10 and 10). ``-np.inf`` stands for the limit embedding
        (eq. 9, ``limit(top=1)``), which Table 3 lets the selection choose.
    questions : AnalogyQuestions, or str / Path
        ``"google-analogy"`` (Mikolov et al. 2013a, gensim's ``questions-words.txt``), or a file.
    folds, top : int
        3 and 3 in the paper.
    geometry : {"fisher", "euclidean"}
        The norm of eq. 6 (the paper's "p").
    normalize : bool or {"fisher", "euclidean"}
        The normalisation of the vectors (the paper's "n"; True: in ``geometry``).
    restrict_vocab : int or None
        Candidates (and question words) are the first ``restrict_vocab`` rows, as gensim's
        ``evaluate_word_analogies``; each candidate is embedded for every α (its eq. 2 still sums
        over all n contexts). None: the whole vocabulary.
    p0, variant : str, optional
        Passed to :class:`AlphaEmbeddings` when ``model`` is not one already.
    random_state : int, Generator or None
        Fold assignment.
    lowercase : bool or None
        None: a word as written, else lower-cased; True: always lower-cased.
    progress : bool, optional
        Progress bar over the blocks of rows; None: automatic.
    client, local
        As in :func:`alpha_sweep`: the grid runs as Dask tasks (one group of α per worker) when a
        client exists, unless ``local=True``.
    **kwargs
        Further :class:`AlphaEmbeddings` arguments.

    Returns
    -------
    AnalogySweepResult
        ``.table()`` gives the rows of Table 11; ``.plot()`` the curves of Fig. 1 (bottom).

    Raises
    ------
    ValueError
        An empty grid, NaN or +∞ in it, ``folds < 2``, ``top`` outside [1, len(alphas)], an unknown
        geometry, ``restrict_vocab`` leaving fewer than 4 candidates, or fewer than ``2 * folds``
        covered questions.

    See Also
    --------
    alpha_sweep : the same selection on a similarity benchmark.

    Notes
    -----
    Memory: the candidate rows for a chunk of α (n_r × d float64 each, chunked to fit
    ``memory_budget``) plus the blocked logits of :class:`AlphaEmbeddings`; the question batches
    of eq. 6 are bounded by ``memory_budget`` too. Questions with a word outside the candidates are
    left out (``oov="skip"``), as in gensim; the coverage is reported.

    References
    ----------
    Volpi & Malagò (2020), "Natural Alpha Embeddings", RepL4NLP, eq. 6 and Tables 2, 3 and 11.
    arXiv:1912.02280
    """
    from ..data import as_dataset

    geometry = _geometry(geometry)
    normalize = _normalization(normalize, geometry)
    grid, folds, top = _check_grid(alphas, folds, top)
    rng = np.random.default_rng(random_state)
    model = _as_model(model, p0, variant, kwargs)
    qs = as_dataset(questions, "analogy")
    n_r = len(model) if restrict_vocab is None else min(int(restrict_vocab), len(model))
    if n_r < 4:
        raise ValueError(f"restrict_vocab={restrict_vocab} leaves {n_r} candidate words; need at least 4")
    cand = {w: i for i, w in enumerate(model.words[:n_r])}
    look = (lambda w: w.lower() if lowercase or (lowercase is None and w not in cand) else w)
    Qw = qs.questions
    ids = np.array([cand.get(look(w), -1) for w in Qw.ravel().tolist()], dtype=np.int64).reshape(-1, 4)
    covered = np.all(ids >= 0, axis=1)
    q = ids[covered]
    if len(q) < 2 * folds:
        raise ValueError(f"only {len(q)} of {len(Qw)} questions have all four words among the "
                         f"{n_r} candidates: too few for {folds}-fold cross-validation")
    syntactic = np.array([name.startswith("gram") for name in qs.section_names])[qs.section_ids][covered]
    rows = np.arange(n_r)
    correct = np.array(_per_alpha(model, grid, rows, geometry, normalize,
                                  partial(_analogy_correct, q, model.memory_budget), progress, client, local),
                       dtype=bool).reshape(len(grid), len(q))
    U0 = np.asarray(xb.to_numpy(model.input_vectors[:n_r, ...]), dtype=np.float64)
    U0 = unit_rows(U0)
    base_ok = _analogy_answers(U0, q, model.memory_budget) == q[:, 3]
    groups = {"semantic": ~syntactic, "syntactic": syntactic, "total": np.ones(len(q), dtype=bool)}
    accuracy, cv, baseline = {}, {}, {}
    for g, m in groups.items():
        if m.sum() < 2 * folds:
            continue
        C = correct[:, m]
        accuracy[g] = C.mean(axis=1)
        baseline[g] = float(base_ok[m].mean())
        chosen, test = _cross_validate(_accuracy_of(C), len(grid), C.shape[1], folds, top, rng)
        cv[g] = CrossValidation.from_folds(grid, chosen, test)
    return AnalogySweepResult(
        alphas=grid, accuracy=accuracy, cv=cv, baseline=baseline, correct=correct,
        n_evaluated=int(covered.sum()), n_total=len(Qw), restrict_vocab=n_r, name=qs.name,
        settings={"p0": model.p0_kind, "variant": model.variant, "geometry": geometry,
                  "normalize": normalize, "folds": folds, "top": top},
    )
