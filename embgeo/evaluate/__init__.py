"""Intrinsic evaluation: word similarity, analogies, bilingual lexicon induction, and a results table.

>>> import embgeo
>>> from embgeo.evaluate import evaluate
>>> report = evaluate(embgeo.load("glove-6b-50d"))          # doctest: +SKIP
>>> print(report)                                           # doctest: +SKIP

``bli`` (bilingual lexicon induction) lives in :mod:`embgeo.evaluate.lexicon` and is imported on first use.
"""
from __future__ import annotations

import difflib

from ..data import AnalogyPairs, AnalogyQuestions, Categories, EntailmentPairs, OutlierSets, WordPairs, load_dataset
from ..progress import progress_bar
from .analogy import METHODS, AnalogyResult, analogy
from .categorization import CategorizationResult, categorization
from .entailment import ENTAILMENT_MEASURES, MEASURE_NAMES, EntailmentResult, entailment
from .outliers import OutlierResult, outlier_detection
from .report import Report
from .similarity import MEASURES, SimilarityResult, resolve_measure, word_similarity
from .comparison import compare
from .stats import Comparison

__all__ = ["evaluate", "word_similarity", "analogy", "bli", "BLIResult", "postproc_grid_search", "Report",
           "SimilarityResult", "AnalogyResult", "MEASURES", "DEFAULT_DATASETS", "COLUMNS", "compare", "Comparison",
           "CI_COLUMNS", "bli_grid", "BLIGrid",
           "categorization", "CategorizationResult", "outlier_detection", "OutlierResult", "entailment",
           "EntailmentResult", "ENTAILMENT_MEASURES", "compression_cost", "compression_variants", "CompressionCost"]

#: What ``evaluate`` runs when no dataset is named: the files shipped with gensim.
DEFAULT_DATASETS = ("wordsim353", "simlex999", "google-analogy")
#: Columns of the report ``evaluate`` returns; ``EXTRA_COLUMNS`` follow when a dataset of their task is run.
COLUMNS = ("dataset", "task", "measure", "n", "coverage", "spearman", "pearson", "accuracy")
#: Columns ``evaluate(..., ci=level)`` appends: the interval of each row's headline score.
CI_COLUMNS = ("low", "high")
#: Columns a report gains with categorisation (``purity``) and outlier detection (``opp``) datasets.
EXTRA_COLUMNS = {"purity": Categories, "opp": OutlierSets}
_FORMATS = {"coverage": "{:.1%}"}
_WORDSETS = (Categories, OutlierSets, EntailmentPairs)
# evaluate()'s oov= reaches each task as far as it supports the policy
_TASK_OOV = {Categories: ("skip", "mean", "raise"), OutlierSets: ("skip", "mean", "raise"),
             EntailmentPairs: ("skip", "raise")}


def __getattr__(name):
    # BLI needs embgeo.crosslingual: imported on first use, not with embgeo.evaluate
    if name in ("bli", "BLIResult", "postproc_grid_search"):
        from . import lexicon

        return getattr(lexicon, name)
    if name in ("compression_cost", "compression_variants", "CompressionCost"):
        # needs embgeo.quantization, pca and diagnostics: imported on first use
        from . import compression

        return getattr(compression, name)
    if name in ("bli_grid", "BLIGrid"):
        from . import _bli_grid

        return getattr(_bli_grid, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_names(names, allowed, what: str) -> list:
    """``names`` as a list, or ValueError naming the first one not in ``allowed``."""
    names = list(names)
    for n in names:
        if n not in allowed:
            near = difflib.get_close_matches(str(n), list(allowed), n=3)
            hint = f"; did you mean {' or '.join(map(repr, near))}?" if near else ""
            raise ValueError(f"unknown {what} {n!r}{hint} (choose from {', '.join(allowed)})")
    return names


def evaluate(e, datasets=None, measures=None, *, analogy_methods=("3cosadd",), restrict_vocab: int | None = 300000,
             lowercase: bool | None = None, oov: str = "skip", sections: bool = False, data_dir=None,
             title: str | None = None, progress: bool | None = None, ci: float | None = None,
             ci_method: str = "bca", n_resamples: int = 9999, random_state=None) -> Report:
    """Run word-similarity, analogy, categorisation, outlier and entailment benchmarks and tabulate the results.

    Parameters
    ----------
    e : Embeddings
        The embeddings evaluated.
    datasets : iterable of str / Path / WordPairs / AnalogyQuestions / Categories / OutlierSets / EntailmentPairs
        Names (``"wordsim353"``, ``"simlex999"``, ``"google-analogy"``, registry names such as ``"ap"``,
        ``"8-8-8"``, ``"wbless"``, ``"hyperlex"``, or files in ``data_dir``) or paths.
        Default: :data:`DEFAULT_DATASETS`. Categorisation runs :func:`categorization` with its defaults (Ward),
        outlier sets :func:`outlier_detection`, entailment pairs :func:`entailment` with each measure.
    measures : iterable of str, optional
        Similarity measures, keys of :data:`~embgeo.evaluate.similarity.MEASURES`: ``"cosine"`` (default),
        ``"dot"``, and the fuzzy-set measures of Bhat et al. (2020) ``"fuzzy-cross-entropy"``, ``"fuzzy-kl"``,
        ``"fuzzy-categorical-kl"``, ``"fuzzy-symmetric-cross-entropy"``, ... (computed by :mod:`embgeo.fuzzy`), which
        take a construction suffix such as ``"fuzzy-kl@released-simlex"``; entailment datasets also take
        :data:`ENTAILMENT_MEASURES` (``"fuzzy-inclusion"``), which similarity datasets leave out.
    analogy_methods : iterable of {"3cosadd", "3cosmul"}
        Methods run on each analogy dataset (always on the vectors, by cosine).
    restrict_vocab : int or None, default 300000
        Candidate vocabulary for analogies (gensim's convention); similarity uses the whole vocabulary.
    lowercase, oov
        See :func:`word_similarity`. Analogies compare words case-insensitively, as gensim does. ``oov``
        reaches categorisation and outliers ("skip", "mean", "raise") and entailment ("skip", "raise")
        where they support it; a task that does not support the policy skips (its result's ``oov`` says so).
    sections : bool, default False
        Add one row per analogy section, named ``dataset/section`` (:meth:`AnalogyResult.section`;
        with ``ci``, each has its own interval over the section's questions).
    data_dir : str or path-like, optional
        Where a dataset name is looked up (:func:`embgeo.data.dataset_path`); None means
        ``$EMBGEO_DATA``.
    title : str, optional
        The report's title.
    progress : bool, optional
        Progress bars (default: the global setting, see :func:`embgeo.set_progress`).
    ci : float, optional
        Confidence level (e.g. 0.95): add columns ``low`` and ``high``, the bootstrap interval over
        items of each row's headline score (Spearman or accuracy; :meth:`SimilarityResult.ci`);
        :meth:`Report.plot_intervals` draws them.
    ci_method, n_resamples, random_state
        Passed to ``ci`` (``ci_method``, ``n_resamples``, ``random_state``).

    Returns
    -------
    Report
        Rows ``dataset, task, measure, n, coverage, spearman, pearson, accuracy``, then ``purity`` and ``opp``
        when categorisation or outlier datasets are run (then ``low, high`` with ``ci``); ``report.results``
        holds the result objects. Entailment fills ``accuracy`` (direction, detection, bidirectional) or
        ``spearman`` (graded); its task is ``entailment-<task>``.

    Raises
    ------
    ValueError
        No dataset to evaluate, or ``ci`` outside (0, 1); an evaluation's own errors (an unknown measure,
        a dataset the model does not cover) pass through.

    See Also
    --------
    word_similarity, analogy, categorization, outlier_detection, entailment : The evaluations run.
    compare : Two models on one dataset, with a paired test.
    """
    datasets = list(DEFAULT_DATASETS if datasets is None else datasets)
    measures = check_names(measures or ["cosine"], MEASURE_NAMES, "measure")
    analogy_methods = check_names(analogy_methods, METHODS, "analogy method")
    if not datasets:
        raise ValueError("no dataset to evaluate")
    if ci is not None and not 0 < ci < 1:
        raise ValueError(f"ci must be a confidence level between 0 and 1, got {ci}")
    # Read every file before the (possibly long) computations, so a bad name fails at once.
    loaded = [d if isinstance(d, (WordPairs, AnalogyQuestions, AnalogyPairs, *_WORDSETS))
              else load_dataset(d, data_dir=data_dir)
              for d in datasets]
    columns = COLUMNS + tuple(c for c, kind in EXTRA_COLUMNS.items() if any(isinstance(d, kind) for d in loaded))
    report = Report(columns=columns + (CI_COLUMNS if ci is not None else ()), title=title, formats=_FORMATS)

    def interval(result, score):
        if ci is None:
            return {}
        low, high = result.ci(ci, ci_method=ci_method, n_resamples=n_resamples, random_state=random_state)
        return {"score": score, "low": low, "high": high}

    cache: dict = {}

    def runs(d):
        if isinstance(d, (AnalogyQuestions, AnalogyPairs)):
            return analogy_methods
        if isinstance(d, (Categories, OutlierSets)):
            return [None]
        if isinstance(d, EntailmentPairs):
            return measures
        return [m for m in measures if m in MEASURES]

    tasks = [(d, m) for d in loaded for m in runs(d)]
    for data, m in progress_bar(tasks, total=len(tasks), desc="evaluate", progress=progress, unit="task"):
        if isinstance(data, _WORDSETS):
            task_oov = oov if oov in _TASK_OOV[type(data)] else "skip"
            if isinstance(data, Categories):
                c = categorization(e, data, oov=task_oov, lowercase=lowercase)
                clustering = "-".join(filter(None, (c.clustering, c.linkage)))
                report.append({"dataset": c.dataset, "task": "categorization", "measure": clustering,
                               "n": c.n_items, "coverage": c.coverage, "purity": c.purity,
                               **interval(c, c.purity)}, result=c)
            elif isinstance(data, OutlierSets):
                o = outlier_detection(e, data, oov=task_oov, lowercase=lowercase)
                report.append({"dataset": o.dataset, "task": "outliers", "measure": "cosine", "n": o.n_sets,
                               "coverage": o.coverage, "accuracy": o.accuracy, "opp": o.opp,
                               **interval(o, o.accuracy)}, result=o)
            else:
                t = entailment(e, data, m, oov=task_oov, lowercase=lowercase, cache=cache)
                report.append({"dataset": t.dataset, "task": f"entailment-{t.task}", "measure": m, "n": t.n_pairs,
                               "coverage": t.coverage, t.score_name: t.score, **interval(t, t.score)}, result=t)
        elif isinstance(data, (AnalogyQuestions, AnalogyPairs)):
            a = analogy(e, data, method=m, restrict_vocab=restrict_vocab, progress=progress)
            report.append({"dataset": a.dataset, "task": "analogy", "measure": m, "n": a.n_evaluated,
                           "coverage": a.coverage, "accuracy": a.accuracy, **interval(a, a.accuracy)}, result=a)
            if sections:
                for name in a.sections:
                    sa = a.section(name)
                    if ci is not None and sa.n_evaluated < 3:  # too few questions for a bootstrap interval
                        bounds = {"score": sa.accuracy, "low": float("nan"), "high": float("nan")}
                    else:
                        bounds = interval(sa, sa.accuracy)
                    report.append({"dataset": sa.dataset, "task": "analogy", "measure": m, "n": sa.n_evaluated,
                                   "coverage": sa.coverage, "accuracy": sa.accuracy, **bounds}, result=sa)
        else:
            model, measure = resolve_measure(e, m, cache, progress=progress)
            sim_oov = "skip" if oov == "mean" and model is not e else oov  # a fuzzy measure has no mean vector
            r = word_similarity(model, data, measure=measure, lowercase=lowercase, oov=sim_oov)
            report.append({"dataset": r.dataset, "task": "similarity", "measure": m, "n": r.n_pairs,
                           "coverage": r.coverage, "spearman": r.spearman, "pearson": r.pearson,
                           **interval(r, r.spearman)}, result=r)
    return report
