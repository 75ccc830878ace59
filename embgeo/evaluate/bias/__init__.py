"""Social bias in word embeddings: WEAT, RIPA, ECT, RND, RNSB and MAC, with coverage, intervals and paired tests.

Each measure is a function of the embeddings and a query (target and attribute word sets) returning a
:class:`BiasResult` with :meth:`~BiasResult.ci` (a bootstrap over the words of each set), like every
evaluation of :mod:`embgeo.evaluate`:

>>> from embgeo.evaluate import bias
>>> q = bias.load_query("weat1")                            # Caliskan et al. (2017), shipped
>>> r = bias.weat(e, query=q)                               # doctest: +SKIP
>>> r.score, r.p_value, r.ci(0.95)                          # doctest: +SKIP

:func:`translate_query` carries a query into another language (a dictionary, or retrieval in a mapped
space); :class:`HardDebias` (Bolukbasi et al. 2016) and :class:`DoubleHardDebias` (Wang et al. 2020)
post-process the vectors (``fit``/``transform``).
The numbers equal WEFE 1.0.1's on the same words (``tests/test_bias.py`` holds the golden file made by
``benchmarks/reference/wefe_bias_golden.py``).
"""
from __future__ import annotations

from ._measures import (
    ALTERNATIVES,
    BIAS_MEASURES,
    EXACT_PARTITIONS,
    RND_DISTANCES,
    BiasResult,
    bias_report,
    compare_bias,
    ect,
    mac,
    ripa,
    rnd,
    rnsb,
    weat,
)
from ._debias import DoubleHardDebias, HardDebias, debias_pairs, gender_specific_words
from ._queries import WEAT_QUERIES, Query, load_query, word_set
from ._translate import QueryTranslation, translate_query

__all__ = ["ALTERNATIVES", "BIAS_MEASURES", "EXACT_PARTITIONS", "RND_DISTANCES", "WEAT_QUERIES", "BiasResult",
           "DoubleHardDebias", "HardDebias", "Query", "QueryTranslation", "bias_report", "compare_bias",
           "debias_pairs", "ect", "gender_specific_words", "load_query", "mac", "ripa", "rnd", "rnsb",
           "translate_query", "weat", "word_set"]
