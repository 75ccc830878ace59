"""Evaluation data and the registry of named resources: read, locate, fetch.

Readers turn the standard files into Python objects::

    from embgeo import data
    ws = data.load_dataset("wordsim353")                 # WordPairs (gensim's copy, always installed)
    gq = data.load_dataset("google-analogy")             # AnalogyQuestions
    pairs = data.read_dictionary("en-fi.5k.tsv")         # [(source, target), ...]
    ap = data.load_dataset("ap")                         # Categories; also OutlierSets, EntailmentPairs
    train, test = data.split_dictionary(pairs, 0.2)      # held out by source word

The registry names every dataset, bilingual dictionary and set of pretrained vectors embgeo knows,
with its URL, checksum, licence and citation; :func:`fetch` brings one into the cache, verified::

    data.registry()["simverb-3500"]
    path = data.fetch("simverb-3500")
    data.load_dataset("simverb-3500")                    # readers accept registry names
    embgeo.load("glove-wiki-gigaword-100")               # and so does embgeo.load, for vectors

It is the one registry of names: :func:`embgeo.load` resolves every ``"vectors"`` name here.

A malformed file raises :class:`~embgeo.errors.FormatError` (a ValueError) whose message starts
``path, line N:``; a failed fetch raises :class:`~embgeo.errors.DownloadError`,
:class:`~embgeo.errors.ChecksumError` or :class:`~embgeo.errors.UnverifiedResourceError`.
``python -m embgeo datasets`` lists the registry and the cache (:mod:`embgeo.data.cli`).
"""
from __future__ import annotations

# the exceptions' one home is embgeo.errors; these names stay reachable here for code written against them
from ..errors import ChecksumError, DownloadError, FormatError, UnverifiedResourceError  # noqa: F401
from ._datasets import (
    BUILTIN,
    AnalogyPairs,
    AnalogyQuestions,
    WordPairs,
    as_dataset,
    dataset_path,
    list_datasets,
    load_dataset,
    read_analogies,
    read_compounds,
    read_bats,
    read_msr_analogies,
    read_semeval2017,
    read_word_pairs,
)
from ._dictionaries import group_dictionary, read_dictionary, split_dictionary
from ._registry import (
    KINDS,
    PACKAGED,
    UNVERIFIED,
    Resource,
    cache_dir,
    cache_path,
    cached,
    fetch,
    find_local,
    register,
    registry,
)
from ._semeval import SemEvalCategory, read_semeval2012
from ._wordsets import (
    ENTAILMENT_TASKS,
    Categories,
    EntailmentPairs,
    OutlierSets,
    read_categories,
    read_entailment,
    read_outlier_sets,
)

__all__ = [
    # evaluation data: containers, locating, reading
    "WordPairs",
    "AnalogyQuestions",
    "AnalogyPairs",
    "SemEvalCategory",
    "BUILTIN",
    "load_dataset",
    "as_dataset",
    "dataset_path",
    "list_datasets",
    "read_word_pairs",
    "read_compounds",
    "read_analogies",
    "read_msr_analogies",
    "read_semeval2012",
    "read_bats",
    "read_semeval2017",
    # word-set benchmarks: categorisation, outlier detection, entailment
    "Categories",
    "OutlierSets",
    "EntailmentPairs",
    "ENTAILMENT_TASKS",
    "read_categories",
    "read_outlier_sets",
    "read_entailment",
    # bilingual dictionaries
    "read_dictionary",
    "group_dictionary",
    "split_dictionary",
    # the registry and its cache
    "Resource",
    "KINDS",
    "UNVERIFIED",
    "PACKAGED",
    "registry",
    "register",
    "fetch",
    "cache_dir",
    "cache_path",
    "cached",
    "find_local",
    # errors
]
