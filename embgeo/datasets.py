"""Deprecated alias of :mod:`embgeo.data` (kept for one release)."""
import warnings

from .data import (  # noqa: F401  (the public names it had)
    BUILTIN,
    AnalogyQuestions,
    SemEvalCategory,
    WordPairs,
    as_dataset,
    dataset_path,
    fetch,
    group_dictionary,
    list_datasets,
    load_dataset,
    read_analogies,
    read_dictionary,
    read_msr_analogies,
    read_semeval2012,
    read_word_pairs,
    registry,
    split_dictionary,
)

warnings.warn("embgeo.datasets is deprecated; import from embgeo.data", DeprecationWarning, stacklevel=2)
