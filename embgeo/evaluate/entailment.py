"""Lexical entailment: direction, detection and graded entailment of (hyponym, hypernym) pairs.

Any pair score of the model serves (``measure=``): symmetric (cosine, dot, fuzzy Jaccard) or asymmetric
(the fuzzy-set measures of Bhat et al. 2020: KL, cross-entropy, graded inclusion). Write ``s(x, y)`` for
the score of "x entails y" (``measure`` scores ``(words1, words2)`` that way; ``-rev`` turns a measure
around). The tasks follow the protocols of Kiela, Rimell, Vulić & Clark (2015), "Exploiting image
generality for lexical entailment detection" (ACL), as implemented in hypernymysuite (Roller, Kiela &
Nickel 2018, ``hypernymysuite/evaluation.py``) and used by Vulić & Mrkšić (2018, "Specialising word vectors
for lexical entailment", NAACL, Sec. 4):

``direction`` (BLESS)
    On the hypernymy pairs (hyponym x, hypernym y) only: correct when ``s(x, y) > s(y, x)``; a tie is wrong,
    so a symmetric measure scores 0 (it cannot tell a direction). Accuracy.
``detection`` (WBLESS, Weeds et al. 2014)
    Hypernymy pairs against other pairs (reversed hypernyms, co-hyponyms, meronyms, random), by a threshold
    on ``s(x, y)``: ``n_trials`` times, a random ``val_fraction`` of the pairs (2 %) tunes the threshold (the
    most accurate on them among their scores), and the accuracy on the other pairs is averaged.
``bidirectional`` (BIBLESS, Kiela et al. 2015)
    Three classes, hypernymy (1), reversed hypernymy (-1), other (0): detection by a threshold on
    ``max(s(x, y), s(y, x))`` tuned as for WBLESS, then direction ``sign(s(x, y) − s(y, x))`` (≥ counts as 1).
    Averaged accuracy.
``graded`` (HyperLex, Vulić et al. 2017)
    Spearman's ρ between ``s(x, y)`` and the human scores of "x is a type of y".
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import ClassVar

import numpy as np

from ..data import ENTAILMENT_TASKS, as_dataset
from ..fuzzy import FUZZY_MEASURES
from ..kernels import readonly
from ._oov import check_oov, lookup, raise_first_missing
from .similarity import MEASURES, resolve_measure
from .stats import Resampled

__all__ = ["entailment", "EntailmentResult", "ENTAILMENT_MEASURES", "tuned_accuracy"]

#: Measures :func:`entailment` offers beyond :data:`~embgeo.evaluate.similarity.MEASURES`: fuzzy-set pair
#: measures of :data:`embgeo.fuzzy.FUZZY_MEASURES` that word similarity does not use (name -> fuzzy measure).
ENTAILMENT_MEASURES = {m.evaluate_name: m.name for m in FUZZY_MEASURES.values() if not m.word_similarity}
_OOV = ("skip", "raise")


class _MeasureNames(tuple):
    """The names ``evaluate`` and the CLI accept: MEASURES' (with their ``@construction`` spellings) and
    ENTAILMENT_MEASURES'."""

    def __contains__(self, name) -> bool:
        return name in MEASURES or name in ENTAILMENT_MEASURES


#: every measure name of the evaluations, for checking a list of them (``embgeo.evaluate.check_names``)
MEASURE_NAMES = _MeasureNames([*MEASURES, *ENTAILMENT_MEASURES])


def tuned_accuracy(scores, labels, *, n_trials: int = 1000, val_fraction: float = 0.02, random_state=42,
                   direction=None) -> float:
    """Mean test accuracy of a threshold tuned on random small validation splits (Kiela et al. 2015).

    Each trial draws a validation mask (each pair with probability ``val_fraction``, hypernymysuite's
    ``rng.rand(n) < 0.02``), picks among the validation scores the threshold t of highest validation
    accuracy of ``scores >= t`` (the lowest on a tie), and scores the other pairs.

    Parameters
    ----------
    scores : ndarray, shape (n,)
        Detection scores (higher = entails).
    labels : ndarray, shape (n,)
        Gold: bool (detection), or 1 / -1 / 0 with ``direction`` (bidirectional).
    n_trials : int, default 1000
        Random validation splits; the accuracy is the mean over them.
    val_fraction : float, default 0.02
        Probability of each pair to be in a trial's validation split.
    random_state : int, None or numpy Generator, default 42
        An int seeds NumPy's legacy ``RandomState``, as hypernymysuite does, so that its splits are
        reproduced.
    direction : ndarray of {1, -1}, optional
        Predicted direction of each pair: the prediction is then ``detected * direction``, compared
        with ``labels``, while the threshold is tuned on ``labels != 0``.

    Returns
    -------
    float
        The mean over trials of the accuracy on the pairs outside the validation split.

    References
    ----------
    D. Kiela, L. Rimell, I. Vulić and S. Clark (2015). Exploiting image generality for lexical
    entailment detection. ACL (the threshold tuned on small random validation splits).
    """
    from ..kernels.threshold import tuned_accuracies

    scores = np.ascontiguousarray(scores, dtype=np.float64)
    labels = np.asarray(labels)
    n = len(scores)
    gold_detect = np.ascontiguousarray(labels != 0)
    signs = np.ascontiguousarray(labels, dtype=np.int64) if direction is not None else np.zeros(0, np.int64)
    pointing = (np.ascontiguousarray(direction, dtype=np.int64) if direction is not None
                else np.zeros(0, np.int64))
    # read-only, as the masks: one compiled specialization
    scores, gold_detect, signs, pointing = (readonly(a) for a in (scores, gold_detect, signs, pointing))
    accs = np.empty(n_trials)
    for t0, masks in _validation_masks(n, n_trials, float(val_fraction), random_state):
        tuned_accuracies(scores, gold_detect, signs, pointing, masks, accs[t0:t0 + masks.shape[0]])
    return float(np.nanmean(accs))


_MASK_BYTES = 1 << 24   # validation masks of one seed kept for the next call (a bootstrap's resamples)
_DRAW_ROWS = 1 << 22    # uniforms drawn at a time (32 MiB of float64)


def _validation_masks(n: int, n_trials: int, val_fraction: float, random_state):
    """``(first_trial, masks)`` blocks of the trials' validation masks, ``rng.rand(n) < val_fraction`` each.

    The uniforms are drawn in the order hypernymysuite's per-trial draws consume the stream, so its
    splits are reproduced. An int seed gives the same masks at every call with the same ``n``: a
    bootstrap interval calls this once per resample, and the draws cost most of a call, so masks of up
    to ``_MASK_BYTES`` are kept for the next calls (two seeds' worth); a Generator or None draws anew.
    """
    if isinstance(random_state, (int, np.integer)) and n * n_trials <= _MASK_BYTES:
        return [(0, _seeded_masks(n, n_trials, val_fraction, int(random_state)))]
    rng = random_state if isinstance(random_state, np.random.Generator) else np.random.RandomState(random_state)
    return _drawn_masks(rng, n, n_trials, val_fraction)   # one block at a time: memory bounded by _DRAW_ROWS


def _drawn_masks(rng, n, n_trials, val_fraction):
    step = max(1, _DRAW_ROWS // max(1, n))
    for t0 in range(0, n_trials, step):
        rows = min(n_trials, t0 + step) - t0
        U = rng.random((rows, n)) if isinstance(rng, np.random.Generator) else rng.rand(rows, n)
        yield t0, readonly(U < val_fraction)


@lru_cache(maxsize=2)
def _seeded_masks(n: int, n_trials: int, val_fraction: float, seed: int):
    masks = np.empty((n_trials, n), dtype=bool)
    for t0, block in _drawn_masks(np.random.RandomState(seed), n, n_trials, val_fraction):
        masks[t0:t0 + block.shape[0]] = block
    return readonly(masks)


@dataclass(frozen=True, repr=False)
class EntailmentResult(Resampled):
    """Outcome of :func:`entailment`.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    measure : str
        The asymmetric (or symmetric) score s(x, y) of the pairs.
    task : str
        One of :data:`~embgeo.data.ENTAILMENT_TASKS`.
    score : float
        The headline number: ``accuracy`` (direction, detection, bidirectional) or ``spearman`` (graded).
    accuracy, spearman : float
        NaN where the task does not give it.
    n_pairs, n_found, n_total : int
        Pairs scored, pairs of the task with both words in the vocabulary, pairs of the task in the
        dataset (direction: the hypernymy pairs).
    coverage : float
        ``n_found / n_total``.
    n_ties : int
        Pairs with ``s(x, y) == s(y, x)`` (direction, bidirectional): all of them for a symmetric measure.
    oov : str
        The ``oov`` policy used for words not in the vocabulary (``"skip"``, ...).
    n_trials, val_fraction, random_state
        The threshold tuning (detection, bidirectional).
    items : list of (str, str)
        The pairs scored, in the order of ``per_item``.
    per_item : dict of str to ndarray
        direction: ``forward``, ``reverse``, ``correct``; detection: ``score``, ``label``; bidirectional:
        ``forward``, ``reverse``, ``label``; graded: ``gold``, ``predicted``; each with ``item``, the pair's row
        in the dataset.
    """

    _call = "entailment(…, {dataset!r}, {measure!r}, task={task!r}, oov={oov!r})"

    dataset: str
    measure: str
    task: str
    score: float
    accuracy: float
    spearman: float
    n_pairs: int
    n_found: int
    n_total: int
    coverage: float
    n_ties: int
    oov: str
    n_trials: int
    val_fraction: float
    random_state: object = field(repr=False)
    items: list = field(repr=False, default_factory=list)
    per_item: dict = field(repr=False, default_factory=dict)

    @property  # one result type for the four tasks: the score's name follows the task
    def score_name(self) -> str:  # type: ignore[override]
        """``"spearman"`` for the graded task, else ``"accuracy"``."""
        return "spearman" if self.task == "graded" else "accuracy"

    def statistic(self, per_item: dict) -> float:
        """The headline score of a (resampled) ``per_item`` dict.

        Direction: the share of pairs scored higher forwards; graded: Spearman's ρ; detection and
        bidirectional: the accuracy of a tuned threshold (:func:`tuned_accuracy`).

        Parameters
        ----------
        per_item : dict of str to ndarray
            The result's ``per_item``, or a resample of it (as :meth:`ci` draws).

        Returns
        -------
        float
            The score.
        """
        if self.task == "direction":
            return float(np.mean(per_item["correct"]))
        if self.task == "graded":
            from scipy import stats

            return float(stats.spearmanr(per_item["gold"], per_item["predicted"])[0])
        if self.task == "detection":
            return tuned_accuracy(per_item["score"], per_item["label"], n_trials=self.n_trials,
                                  val_fraction=self.val_fraction, random_state=self.random_state)
        f, r = per_item["forward"], per_item["reverse"]
        return tuned_accuracy(np.maximum(f, r), per_item["label"], direction=np.where(f >= r, 1, -1),
                              n_trials=self.n_trials, val_fraction=self.val_fraction, random_state=self.random_state)

    def to_dict(self) -> dict:
        """The fields as plain Python values (JSON-ready).

        Returns
        -------
        dict
            Every field by name (``per_item``'s arrays as lists, a generator ``random_state`` as its repr).
        """
        d = asdict(self)
        d["per_item"] = {k: v.tolist() for k, v in self.per_item.items()}
        d["random_state"] = self.random_state if isinstance(self.random_state, (int, type(None))) else repr(self.random_state)
        return d


def _scorer(model, measure: str, cache: dict):
    """``score(words1, words2)``: the model's ``measure`` of each aligned pair (higher = w1 entails w2)."""
    if measure in MEASURES:
        m, name = resolve_measure(model, measure, cache)
        return lambda a, b: np.asarray(m.similarity_pairs(a, b, measure=name), dtype=np.float64)
    if measure in ENTAILMENT_MEASURES:
        fuzzy_measure = ENTAILMENT_MEASURES[measure]
        if hasattr(model, "memberships"):  # already fuzzy sets
            F = model
        else:
            resolve_measure(model, "fuzzy-jaccard", cache)  # builds the paper's fuzzy sets once, into cache
            F = cache["fuzzy"]
        return lambda a, b: np.asarray(F.similarity_pairs(a, b, measure=fuzzy_measure), dtype=np.float64)
    raise ValueError(f"unknown measure {measure!r}; choose from {', '.join([*MEASURES, *ENTAILMENT_MEASURES])}")


def entailment(model, dataset, measure: str = "cosine", *, task: str | None = None, oov: str = "skip",
               lowercase: bool | None = None, n_trials: int = 1000, val_fraction: float = 0.02, random_state=42,
               data_dir=None, name: str | None = None, cache: dict | None = None) -> EntailmentResult:
    """Evaluate a pair measure on lexical entailment: direction, detection or graded entailment.

    Parameters
    ----------
    model : Embeddings
        Or any object with ``word in model``, ``model.index`` and ``similarity_pairs`` (a
        :class:`~embgeo.fuzzy.FuzzyEmbeddings` takes the ``fuzzy-*`` measures directly).
    dataset : EntailmentPairs, or str / Path
        Pairs, or a registry name (``"bless-relations"``, ``"bless-hypernymy"``, ``"wbless"``, ``"bibless"``,
        ``"hyperlex"``) or path for :func:`embgeo.data.load_dataset`.
    measure : str, default "cosine"
        A key of :data:`~embgeo.evaluate.similarity.MEASURES` (``"cosine"``, ``"fuzzy-kl"``,
        ``"fuzzy-kl-rev"``, ``"fuzzy-cross-entropy"``, ...) or of :data:`ENTAILMENT_MEASURES` (``"fuzzy-inclusion"``:
        the share of features with µ_x ≤ µ_y, Bhat et al. 2020 Sec. 4.2 "Feature Inclusion").
    task : {"direction", "detection", "bidirectional", "graded"}, optional
        Default: the dataset's (see :func:`embgeo.data.read_entailment`); the protocols are described in
        the module's documentation.
    oov : {"skip", "raise"}, default "skip"
        Pairs with a word outside the vocabulary are left out (hypernymysuite's ``*_inv`` numbers), or
        raise :class:`~embgeo.errors.UnknownWordError`. A fuzzy measure has no score for a mean vector, so
        ``"mean"`` is not offered.
    lowercase : bool or None, default None
        True lower-cases the dataset's words; False looks them up as written; None looks them up as
        written and falls back to the lower-case form.
    n_trials, val_fraction, random_state
        The threshold tuning of detection and bidirectional (hypernymysuite: 1000, 0.02, 42).
    data_dir : str or path-like, optional
        Where a dataset name is looked up (:func:`embgeo.data.dataset_path`); None means
        ``$EMBGEO_DATA``.
    name : str, optional
        The dataset's name in the result (default: the dataset's own name).
    cache : dict, optional
        Fuzzy sets built for ``fuzzy-*`` measures, kept across calls (as in :func:`resolve_measure`).

    Returns
    -------
    EntailmentResult
        The task's score (accuracy or Spearman's ρ), coverage and per-pair scores.

    Raises
    ------
    ValueError
        An unknown measure, task or ``oov``, a dataset without pairs for the task (direction: no
        hypernymy pair; graded: no scores), or no pair in the vocabulary.

    See Also
    --------
    tuned_accuracy : The threshold tuning of detection and bidirectional.
    embgeo.data.read_entailment : Reads the datasets.

    Notes
    -----
    hypernymysuite keeps nouns only (HyperLex's 2,163 of 2,616 pairs) and lemmatises words with WordNet;
    here every pair is scored as written (falling back to lower case), so HyperLex's ρ is over all
    parts of speech.

    References
    ----------
    D. Kiela, L. Rimell, I. Vulić and S. Clark (2015). Exploiting image generality for lexical
    entailment detection. ACL (the direction, detection and bidirectional protocols).

    S. Roller, D. Kiela and M. Nickel (2018). Hearst patterns revisited: automatic hypernym detection
    from large text corpora. ACL (hypernymysuite, whose evaluation this follows).

    I. Vulić, D. Gerz, D. Kiela, F. Hill and A. Korhonen (2017). HyperLex: a large-scale evaluation of
    graded lexical entailment. Computational Linguistics 43(4) (graded).
    """
    check_oov(oov, _OOV, "entailment")
    data = as_dataset(dataset, "entailment", data_dir)
    task = task or data.task
    if task not in ENTAILMENT_TASKS:
        raise ValueError(f"unknown task {task!r}; choose from {', '.join(ENTAILMENT_TASKS)}")
    score = _scorer(model, measure, {} if cache is None else cache)
    sel = np.flatnonzero(data.labels == 1) if task == "direction" else np.arange(len(data))
    if task == "graded" and data.scores is None:
        raise ValueError(f"{data.name} has no graded scores for task='graded'")
    if not len(sel):
        raise ValueError(f"{data.name}: no hypernymy pair (label 1) for task='direction'")
    w1 = [data.words1[i] for i in sel]
    w2 = [data.words2[i] for i in sel]
    r1, r2 = lookup(model, w1, lowercase), lookup(model, w2, lowercase)
    if oov == "raise":
        words = [w for pair in zip(w1, w2) for w in pair]
        raise_first_missing(words, np.column_stack([r1, r2]).ravel(), f"in entailment dataset {data.name}")
    found = (r1 >= 0) & (r2 >= 0)
    if not found.any():
        raise ValueError(f"no pair of {data.name} has both words in the model's vocabulary")
    keep = np.flatnonzero(found)
    vocab = model.words if hasattr(model, "words") else None
    a = [vocab[r1[i]] if vocab is not None else w1[i] for i in keep]
    b = [vocab[r2[i]] if vocab is not None else w2[i] for i in keep]
    labels = data.labels[sel][keep]
    rows = sel[keep]  # the pairs' rows in the dataset: two models' results align on them
    forward = score(a, b)
    per_item: dict
    acc = rho = float("nan")
    n_ties = 0
    if task == "graded":
        from scipy import stats

        gold = data.scores[sel][keep]
        per_item = {"gold": gold, "predicted": forward, "item": rows}
        rho = float(stats.spearmanr(gold, forward)[0]) if len(keep) >= 3 else float("nan")
    elif task == "detection":
        per_item = {"score": forward, "label": labels == 1, "item": rows}
    else:
        reverse = score(b, a)
        n_ties = int(np.sum(forward == reverse))
        per_item = ({"forward": forward, "reverse": reverse, "correct": forward > reverse, "item": rows}
                    if task == "direction" else {"forward": forward, "reverse": reverse, "label": labels, "item": rows})
    result = EntailmentResult(
        dataset=name or data.name, measure=measure, task=task, score=float("nan"), accuracy=acc, spearman=rho,
        n_pairs=len(keep), n_found=len(keep), n_total=len(sel), coverage=len(keep) / len(sel), n_ties=n_ties,
        oov=oov, n_trials=n_trials, val_fraction=val_fraction, random_state=random_state,
        items=list(zip(a, b)), per_item=per_item)
    headline = result.statistic(per_item) if task != "graded" else rho
    return _with_score(result, headline)


def _with_score(result: EntailmentResult, value: float) -> EntailmentResult:
    from dataclasses import replace

    return replace(result, score=value, accuracy=value if result.task != "graded" else float("nan"))
