"""``compare``: the paired test of two models (or two results) on one dataset."""
from __future__ import annotations

from typing import Any, Callable

from ..data import AnalogyPairs, AnalogyQuestions, Categories, EntailmentPairs, OutlierSets, WordPairs, load_dataset
from .analogy import analogy
from .bias import WEAT_QUERIES, BiasResult, Query, compare_bias, load_query
from .categorization import categorization
from .entailment import entailment
from .outliers import outlier_detection
from .similarity import word_similarity
from .stats import Comparison, compare_results

__all__ = ["compare"]

#: the evaluation two models are compared by, for each kind of dataset
_EVALUATORS: dict[type, Callable[..., Any]] = {WordPairs: word_similarity, AnalogyQuestions: analogy, AnalogyPairs: analogy,
               Categories: categorization,
               OutlierSets: outlier_detection, EntailmentPairs: entailment}


def compare(a, b, dataset=None, *, test: str = "auto", score: str | None = None, n_resamples: int = 9999,
            random_state=None, labels=("a", "b"), data_dir=None, **kwargs) -> Comparison:
    """Paired test of two models, or two evaluation results, on the same dataset.

    Parameters
    ----------
    a, b : Embeddings (or any model the evaluation takes), or two evaluation results
        Models are evaluated on ``dataset`` (:func:`word_similarity` for word pairs, :func:`analogy` for
        analogy questions, the word-set evaluations for word sets; ``kwargs`` go to it). Results of one dataset (e.g. two
        :class:`~embgeo.evaluate.lexicon.BLIResult`) are compared as they are.
    dataset : str, Path, WordPairs, AnalogyQuestions, Categories, OutlierSets, EntailmentPairs or bias Query
        Needed with models: a registry name, a file or loaded items (word sets are evaluated by
        :func:`categorization`, :func:`outlier_detection` or :func:`entailment`). A bias query
        (:class:`embgeo.evaluate.bias.Query`, or a name ``"weat1"`` … ``"weat10"``) is scored by
        ``measure=`` (a keyword, default ``"weat"``) in both spaces and compared by
        :func:`embgeo.evaluate.bias.compare_bias`, a paired bootstrap over the words of each set.
    test : {"auto", "steiger", "mcnemar", "permutation", "bootstrap"}
        ``"auto"`` picks by score: Steiger's (1980) test for a Spearman correlation (the two models' ρ
        share the gold ratings), exact McNemar for an accuracy or a hit rate (P@k), a paired permutation
        test for another mean over items (MRR), a paired bootstrap otherwise (purity). See
        :func:`embgeo.evaluate.stats.compare_results`.
    score : str, optional
        Another score of the results (BLI: ``"mrr"``, ``"p@5"``).
    n_resamples, random_state
        For the permutation and bootstrap tests.
    labels : (str, str)
        Names of the two models in the result and its messages.
    data_dir : str or path-like, optional
        Where a dataset name is looked up (:func:`embgeo.data.dataset_path`); None means
        ``$EMBGEO_DATA``.
    **kwargs
        Passed to the evaluation that scores the models (``measure=``, ``method=``, ``oov=``...).

    Returns
    -------
    Comparison
        ``p_value``, ``effect_size`` (``effect_name``), ``score_a``, ``score_b``, ``difference``, and the
        items both cover (``n``) with each model's coverage.

    Raises
    ------
    ValueError
        No dataset for two models; results of different datasets or scores; fewer than 3 items covered
        by both models (the message names each model's coverage); a test that does not fit the score.

    See Also
    --------
    embgeo.evaluate.stats.compare_results : The tests on two results.
    embgeo.evaluate.bias.compare_bias : The test of two bias results.
    """
    if isinstance(a, BiasResult) or isinstance(b, BiasResult):
        if kwargs or dataset is not None or test not in ("auto", "bootstrap"):
            raise TypeError("two bias results are compared as they are, by a paired bootstrap: no dataset, "
                            "evaluation options or other test")
        return compare_bias(a, b, n_resamples=n_resamples, random_state=random_state, labels=labels)
    if isinstance(dataset, Query) or (isinstance(dataset, str) and dataset.lower() in WEAT_QUERIES):
        from . import bias

        query = dataset if isinstance(dataset, Query) else load_query(dataset)
        measure = kwargs.pop("measure", "weat")
        if measure not in bias.BIAS_MEASURES:
            raise ValueError(f"unknown bias measure {measure!r}; choose from {', '.join(bias.BIAS_MEASURES)}")
        run = getattr(bias, measure)
        return compare_bias(run(a, query=query, **kwargs), run(b, query=query, **kwargs), n_resamples=n_resamples,
                            random_state=random_state, labels=labels)
    if hasattr(a, "per_item") != hasattr(b, "per_item"):
        raise TypeError("compare two models or two results, not one of each")
    if not hasattr(a, "per_item"):
        if dataset is None:
            raise ValueError("compare needs a dataset to evaluate two models on")
        data = dataset if isinstance(dataset, tuple(_EVALUATORS)) else load_dataset(dataset, data_dir)
        run = _EVALUATORS[type(data)]
        a, b = run(a, data, **kwargs), run(b, data, **kwargs)
    elif kwargs or dataset is not None:
        raise TypeError("two results are compared as they are: no dataset or evaluation options")
    return compare_results(a, b, test=test, score=score, n_resamples=n_resamples, random_state=random_state, labels=labels)
