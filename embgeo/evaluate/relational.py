"""Relational similarity: SemEval-2012 Task 2 scored by vector offsets.

Jurgens, Mohammad, Turney & Holyoak (2012), "SemEval-2012 Task 2: Measuring Degrees of
Relational Similarity", *SEM. For each relation category (``1a`` … ``10j``) a system rates how
well each word pair illustrates the relation shown by a few prototypical pairs. Two official
scores, averaged over the categories:

* **Spearman** (``score_scale.pl``): Spearman's ρ between the system's ratings and the gold
  ratings (the GoldRatings / ``maxdiff_to_scale.pl`` ratings: % of answers choosing a pair most
  illustrative − % least); ρ = 0 when all the system's ratings are equal, as the scorer sets it.
* **MaxDiff accuracy** (``score_maxdiff.pl``): the Turkers' answers are grouped into unique
  questions (four pairs); the system answers each with its highest- and lowest-rated pair, and a
  guess is right when it got the most Turker votes (ties for the most count as right); accuracy
  = (most right + least right) / (2 · unique questions). See :func:`maxdiff_accuracy`.

Rating by vector offsets, as Mikolov, Yih & Zweig (2013, NAACL) and Zhila et al.
(2013) did for this task (and Jawanpuria et al. 2020 report as "SemEval"): with unit-length word
vectors, the relation vector is the mean offset ``r = mean(ŵ₂ − ŵ₁)`` of the prototypical pairs,
and a pair (a, b) is rated ``cos(b̂ − â, r)``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import numpy as np
from scipy.stats import spearmanr

from .. import backend as xb
from ..data import SemEvalCategory, read_semeval2012
from ..errors import UnknownWordError
from ..linalg import unit_rows
from ._oov import check_finite
from .similarity import _check_oov
from .stats import Resampled, mean_score

__all__ = ["semeval2012", "RelationalSimilarityResult", "offset_ratings", "maxdiff_accuracy"]


@dataclass(frozen=True, repr=False)
class RelationalSimilarityResult(Resampled):
    """Outcome of :func:`semeval2012`.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    spearman : float
        Mean over the scored categories of Spearman's ρ (system ratings vs gold ratings).
    maxdiff : float
        Mean over the scored categories of the MaxDiff accuracy.
    n_categories : int
        Categories scored (at least two rated pairs and one MaxDiff answer).
    n_found, n_total : int
        Pairs with both words (and the category with a covered prototype) in the vocabulary; all pairs.
    coverage : float
        ``n_found / n_total``.
    oov : str
        The ``oov`` policy used for words not in the vocabulary (``"skip"``, ...).
    categories : dict
        Per category: ``{"spearman", "maxdiff", "n_rated", "n_pairs", "n_answers", "n_questions"}``
        (``n_answers`` Turker answers and ``n_questions`` unique questions scored).
    per_item : dict of ndarray
        One row per scored category (the task's scores are means over categories): ``spearman``,
        ``maxdiff`` and ``item`` (the category's position among those read). Intervals and paired tests
        resample categories (``score="maxdiff"`` for the MaxDiff accuracy).
    """

    _call = "semeval2012(…, {dataset!r}, oov={oov!r})"

    score_name: ClassVar[str] = "spearman"

    dataset: str
    spearman: float
    maxdiff: float
    n_categories: int
    n_found: int
    n_total: int
    coverage: float
    oov: str
    categories: dict = field(default_factory=dict, repr=False)
    per_item: dict = field(default_factory=dict, repr=False, compare=False)

    def statistic(self, per_item: dict) -> float:
        """Mean over categories of Spearman's ρ.

        Parameters
        ----------
        per_item : dict of str to ndarray
            The result's ``per_item``, or a resample of it (as :meth:`ci` draws).

        Returns
        -------
        float
            The score.
        """
        return float(np.mean(per_item["spearman"]))

    def _key(self, score):
        key = score or self.score_name
        if key not in ("spearman", "maxdiff"):
            raise ValueError(f"unknown SemEval-2012 score {score!r}: use 'spearman' or 'maxdiff'")
        return key

    def item_values(self, score=None, per_item=None):
        """Per category: its Spearman's ρ or MaxDiff accuracy.

        Parameters
        ----------
        score : str, optional
            ``"spearman"`` or ``"maxdiff"``; None means the headline score.
        per_item : dict of str to ndarray, optional
            Per-item data; None means the result's own.

        Returns
        -------
        numpy.ndarray of float, shape (n_items,)
            One value per category; their mean is the score.
        """
        return np.asarray((self.per_item if per_item is None else per_item)[self._key(score)])

    def score_function(self, score=None):
        """``"spearman"`` or ``"maxdiff"``, means over categories.

        Parameters
        ----------
        score : str, optional
            ``"spearman"`` or ``"maxdiff"``; None means the headline score.

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
        return mean_score(self._key(score))


def _unit_word_vectors(e, words):
    """Unit-length vectors (float64 NumPy) of ``words`` and a mask of those in the vocabulary."""
    found = np.array([w in e for w in words], dtype=bool)
    rows = [e.index(w) for w, f in zip(words, found) if f]
    check_finite(e, np.asarray(rows, dtype=np.int64))
    V = np.zeros((len(words), e.dim))
    if rows:
        V[found] = xb.to_numpy(xb.take_rows(e.vectors, rows)).astype(np.float64)
    return unit_rows(V), found


def offset_ratings(e, prototypes, pairs):
    """Ratings ``cos(b̂ − â, r)`` of ``pairs``, r the mean offset of the covered ``prototypes``.

    Parameters
    ----------
    e : Embeddings
        The embeddings (hats: unit vectors).
    prototypes : list of (str, str)
        The category's prototypical pairs (Phase 1 of SemEval-2012 Task 2).
    pairs : list of (str, str)
        The pairs to rate.

    Returns
    -------
    ratings : ndarray of float, shape (len(pairs),)
        NaN for a pair with a word out of vocabulary (or when no prototype is covered).
    """
    P, fp = _unit_word_vectors(e, [w for p in prototypes for w in p])
    fp = fp.reshape(-1, 2).all(axis=1)
    out = np.full(len(pairs), np.nan)
    if not fp.any():
        return out
    offsets = P[1::2] - P[0::2]
    r = offsets[fp].mean(axis=0)
    Q, fq = _unit_word_vectors(e, [w for p in pairs for w in p])
    fq = fq.reshape(-1, 2).all(axis=1)
    D = Q[1::2] - Q[0::2]
    den = np.linalg.norm(D, axis=1) * np.linalg.norm(r)
    with np.errstate(invalid="ignore", divide="ignore"):
        cos = np.where(den > 0, D @ r / np.where(den > 0, den, 1.0), 0.0)
    out[fq] = cos[fq]
    return out


def maxdiff_accuracy(ratings, questions, least, most):
    """MaxDiff accuracy of ``ratings`` as ``score_maxdiff.pl`` defines it.

    The Turkers' answers are grouped into unique questions (the four pairs, in their order);
    for each, the system's guesses are its highest- and lowest-rated pair (the first on a tie,
    as ``scale_to_maxdiff.pl``); a guess is right when it got the most Turker votes of the four
    (a tie for the most votes counts as right).

    Parameters
    ----------
    ratings : ndarray of float, shape (n_pairs,)
        The system's rating of each pair (higher: more illustrative of the relation).
    questions : ndarray of int, shape (m, 4)
        One row per Turker answer (indices into ``ratings``).
    least, most : ndarray of int, shape (m,)
        The Turker's choices; -1 for an empty choice, which votes for no pair.

    Returns
    -------
    accuracy : float
        ``(most_right + least_right) / (2 · unique questions)``; NaN without questions.
    most_right, least_right, n_questions : int
        Unique questions whose most (least) illustrative pair the system guessed right, and unique questions scored.

    Examples
    --------
    >>> q = np.array([[0, 1, 2, 3]] * 3)
    >>> maxdiff_accuracy(np.array([0.9, 0.1, 0.5, 0.2]), q, np.array([1, 3, -1]), np.array([0, 0, 2]))
    (1.0, 1, 1, 1)
    """
    questions = np.asarray(questions)
    if len(questions) == 0:
        return float("nan"), 0, 0, 0
    uq, inv = np.unique(questions, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    right = []
    for choice in (np.asarray(most), np.asarray(least)):
        votes = np.zeros(uq.shape, dtype=np.int64)
        voted = choice >= 0
        pos = np.argmax(questions == choice[:, None], axis=1)
        np.add.at(votes, (inv[voted], pos[voted]), 1)
        right.append(votes)
    R = np.asarray(ratings)[uq]
    rows = np.arange(len(uq))
    most_right = int(np.sum(right[0][rows, np.argmax(R, axis=1)] == right[0].max(axis=1)))
    least_right = int(np.sum(right[1][rows, np.argmin(R, axis=1)] == right[1].max(axis=1)))
    return (most_right + least_right) / (2 * len(uq)), most_right, least_right, len(uq)


def _spearman(ratings, gold):
    """Spearman's ρ as ``score_scale.pl``: 0 when all system ratings are equal."""
    if len(ratings) < 2:
        return float("nan")
    if np.all(ratings == ratings[0]):
        return 0.0
    return float(spearmanr(ratings, gold)[0])


def _score_category(e, cat: SemEvalCategory, oov: str):
    ratings = offset_ratings(e, cat.prototypes, cat.pairs)
    covered = ~np.isnan(ratings)
    if oov == "raise":
        missing = [w for p in (*cat.prototypes, *cat.pairs) for w in p if w not in e]
        if missing:
            raise UnknownWordError(missing[0], context=f"SemEval-2012 category {cat.name}",
                                   n_missing=len(set(missing)))
    if oov == "zero":
        ratings = np.where(covered, ratings, 0.0)
        rated = np.ones(len(ratings), dtype=bool)
    else:
        rated = covered
    rho = _spearman(ratings[rated], cat.gold[rated])
    keep = rated[cat.questions].all(axis=1)           # MaxDiff answers whose four pairs are all rated
    maxdiff, _, _, n_q = maxdiff_accuracy(ratings, cat.questions[keep], cat.least[keep], cat.most[keep])
    return {"spearman": rho, "maxdiff": maxdiff, "n_rated": int(covered.sum()), "n_pairs": len(cat.pairs),
            "n_answers": int(keep.sum()), "n_questions": n_q}


def semeval2012(e, data, *, categories=None, oov: str = "skip", lowercase: bool = False,
                name: str | None = None) -> RelationalSimilarityResult:
    """Score embeddings on SemEval-2012 Task 2 (relational similarity) by vector offsets.

    Parameters
    ----------
    e : Embeddings
        The embeddings scored.
    data : path or dict of SemEvalCategory
        The published directory (:func:`embgeo.data.read_semeval2012`) or what it returned.
    categories : list of str, optional
        Category ids to score (default all).
    oov : {"skip", "zero", "raise"}, default "skip"
        A pair with a word out of vocabulary is left out (of the correlation, and the MaxDiff
        answers that show it), rated 0, or raises :class:`~embgeo.errors.UnknownWordError`.
    lowercase : bool
        Lower-case the files' words when reading them from a path.
    name : str, optional
        The dataset's name in the result (default: the directory name).

    Returns
    -------
    RelationalSimilarityResult
        The mean Spearman's ρ and MaxDiff accuracy over the scored categories, per-category scores and coverage.

    Raises
    ------
    ValueError
        No category can be scored (none requested, or none covered).

    See Also
    --------
    offset_ratings : The ratings of one category.
    maxdiff_accuracy : The MaxDiff score of the ratings.
    embgeo.data.read_semeval2012 : Reads the task's files.

    References
    ----------
    D. A. Jurgens, S. M. Mohammad, P. D. Turney and K. J. Holyoak (2012). SemEval-2012 Task 2:
    measuring degrees of relational similarity. *SEM, pp. 356–364.

    T. Mikolov, W. Yih and G. Zweig (2013). Linguistic regularities in continuous space word
    representations. NAACL-HLT (rating by vector offsets).
    """
    _check_oov(oov)
    if isinstance(data, (str, Path)):
        name = name or Path(data).name
        data = read_semeval2012(data, categories, lowercase=lowercase)
    elif categories is not None:
        data = {c: data[c] for c in categories}
    if not data:
        raise ValueError("no SemEval-2012 category to score")
    per = {c: _score_category(e, cat, oov) for c, cat in data.items()}
    scored = [v for v in per.values() if not (np.isnan(v["spearman"]) or np.isnan(v["maxdiff"]))]
    scored_items = [i for i, v in enumerate(per.values()) if not (np.isnan(v["spearman"]) or np.isnan(v["maxdiff"]))]
    n_found = sum(v["n_rated"] for v in per.values())
    n_total = sum(v["n_pairs"] for v in per.values())
    return RelationalSimilarityResult(
        dataset=name or "semeval2012",
        spearman=float(np.mean([v["spearman"] for v in scored])) if scored else float("nan"),
        maxdiff=float(np.mean([v["maxdiff"] for v in scored])) if scored else float("nan"),
        n_categories=len(scored), n_found=n_found, n_total=n_total,
        coverage=n_found / n_total if n_total else 0.0, oov=oov, categories=per,
        per_item={"spearman": np.array([v["spearman"] for v in scored], dtype=np.float64),
                  "maxdiff": np.array([v["maxdiff"] for v in scored], dtype=np.float64),
                  "item": np.asarray(scored_items, dtype=np.int64)})
