"""What each public module exports: the public API of embgeo as one table.

scikit-learn and SciPy keep a test like this so that a change to the public API is a visible,
reviewed change to a list, never a side effect of a refactoring (a helper that leaks into
``__all__``, a name a move drops). A module is public when no part of its dotted name starts with
an underscore and it is not a compiled-loop module (``embgeo.kernels``). Adding a public module
or name means adding it here.
"""
from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import embgeo

PUBLIC_API = {  # module -> sorted __all__
    "embgeo": ["Embeddings", "FormatError", "KeyedVectors", "NotFittedError", "UnknownWordError", "__version__",
        "get_namespace", "load", "save", "set_progress", "to_device", "to_numpy"],
    "embgeo.alpha": ["ANALOGY_GROUPS", "AlphaEmbeddings", "AnalogySweepResult", "CrossValidation", "GEOMETRIES",
        "GloveModel", "P0_CHOICES", "SweepResult", "VARIANTS", "alpha_sweep", "analogy_sweep", "fisher_cosine",
        "read_glove"],
    "embgeo.alpha.sweeps": ["ANALOGY_GROUPS", "AnalogySweepResult", "CrossValidation", "SweepResult", "alpha_sweep",
        "analogy_sweep"],
    "embgeo.backend": ["asarray", "check_matrix", "default_dtype", "get_namespace", "is_cupy", "is_dask", "is_numpy",
        "resolve_dtype", "set_default_dtype", "single_blas_thread", "take_rows", "to_device", "to_numpy"],
    "embgeo.blocking": ["CACHE_TILE_COLS", "DEFAULT_MEMORY_BUDGET", "PASS_ROWS", "TILE_COLS", "TILE_ROWS",
        "block_rows", "budget_bytes", "n_jobs", "row_blocks", "run_blocks", "tile_shape"],
    "embgeo.cli": ["COMMANDS", "main"],
    "embgeo.crosslingual": ["History", "Mapper", "RECIPES", "dictionary_indices", "identical_dictionary",
        "induce_dictionary", "numeral_dictionary", "procrustes", "retrieval_factors", "retrieve",
        "unsupervised_dictionary"],
    "embgeo.crosslingual.rcsls": ["rcsls", "rcsls_loss"],
    "embgeo.data": ["AnalogyQuestions", "BUILTIN", "ChecksumError", "DownloadError", "FormatError", "KINDS",
        "PACKAGED", "Resource", "SemEvalCategory", "UNVERIFIED", "UnverifiedResourceError", "WordPairs",
        "as_dataset", "cache_dir", "cache_path", "cached", "dataset_path", "fetch", "find_local", "group_dictionary",
        "list_datasets", "load_dataset", "read_analogies", "read_compounds", "read_dictionary", "read_msr_analogies",
        "read_semeval2012", "read_word_pairs", "register", "registry", "split_dictionary"],
    "embgeo.data.cli": ["add_arguments", "run"],
    "embgeo.distributed": ["ShardedDatabase", "current_client", "get_client", "gram", "map_grid", "shard"],
    "embgeo.embeddings": ["Embeddings", "unwrap"],
    "embgeo.errors": ["ChecksumError", "DownloadError", "FormatError", "NotFittedError", "UnknownWordError",
        "UnverifiedResourceError"],
    "embgeo.evaluate": ["AnalogyResult", "BLIResult", "COLUMNS", "DEFAULT_DATASETS", "MEASURES", "Report",
        "SimilarityResult", "analogy", "bli", "evaluate", "postproc_grid_search", "word_similarity"],
    "embgeo.evaluate.analogy": ["AnalogyResult", "METHODS", "analogy"],
    "embgeo.evaluate.cli": ["add_arguments", "run"],
    "embgeo.evaluate.lexicon": ["BLIResult", "GridResult", "POSTPROC_GRID", "add_arguments", "bli", "gold_ranks",
        "group_dictionary", "postproc_grid_search", "read_dictionary", "run", "split_dictionary"],
    "embgeo.evaluate.relational": ["RelationalSimilarityResult", "maxdiff_accuracy", "offset_ratings", "semeval2012"],
    "embgeo.evaluate.report": ["Report"],
    "embgeo.evaluate.similarity": ["MEASURES", "SimilarityResult", "resolve_measure", "word_similarity"],
    "embgeo.fuzzy": ["CONSTRUCTIONS", "FUZZY_MEASURES", "FunctionWordReport", "FuzzyEmbeddings", "FuzzyMeasure",
        "FuzzySet", "HyponymyReport", "LOG_TINY", "bernoulli_cross_entropy", "bernoulli_kl_divergence", "cardinality",
        "categorical_cross_entropy", "categorical_kl_divergence", "complement", "cross_entropy", "difference",
        "disjoint_union", "entropy", "function_words", "fuzzify", "graded_inclusion", "hyponymy", "intersection",
        "intersection_ratio", "is_subset", "jaccard", "kl_divergence", "polysemy", "read_compounds",
        "symmetric_cross_entropy", "symmetric_kl_divergence", "union"],
    "embgeo.io": ["FORMATS", "FormatError", "GloveModel", "available", "detect_format", "load", "load_fasttext",
        "read_glove", "save"],
    "embgeo.io.atomic": ["atomic_dir", "atomic_path", "fsync_dir", "fsync_file", "reap_stale", "temp_name"],
    "embgeo.keyedvectors": ["Correlation", "KeyedVectors"],
    "embgeo.linalg": ["apply_matrix", "cached_inverse_norms", "centred_scatter", "checked_gram", "derived",
        "eigh_desc", "gram", "inverse_norms", "sym_power"],
    "embgeo.meta": ["GeometricMetaEmbedding", "average", "concatenate", "concatenate_svd", "objective"],
    "embgeo.negatives": ["PhraseIndex", "SynonymTable", "candidate_negatives", "false_negative_mask",
        "soft_regularisation", "synonym_table"],
    "embgeo.neighbors": ["csls_topk", "knn_mean_similarity", "merge_topk", "most_similar", "search", "select_topk",
        "self_topk", "topk"],
    "embgeo.neighbors.faiss_index": ["FaissIndex", "cached_index", "faiss_search"],
    "embgeo.normalize": ["Normalizer", "STEPS", "normalize"],
    "embgeo.pca": ["DEFAULT_DATASETS", "Table", "VarianceProfile", "cumulative_curve", "principal_space",
        "probe_components", "split_analysis", "variance_profile"],
    "embgeo.postprocess": ["AffineTransform", "STEPS", "all_but_the_top", "apply_transform", "center", "centeremb",
        "cross_covariance_svd", "dewhiten", "dewhitening_transform", "normalize", "ppa_pca_ppa", "reweight",
        "similarity_order", "similarity_order_transform", "unit", "unitdim", "whiten", "whitening_transform"],
    "embgeo.progress": ["progress_bar", "progress_enabled", "set_progress"],
    "embgeo.validation": ["check_k", "exclusion_csr", "mask_excluded", "max_excluded", "renamed_parameter"],
    "embgeo.vocabulary": ["Vocabulary", "oov_alias", "word_index"],
}


def _public_modules() -> set[str]:
    found = {"embgeo"}
    for info in pkgutil.walk_packages(embgeo.__path__, "embgeo."):
        if not (any(part.startswith("_") for part in info.name.split(".")) or ".kernels" in info.name):
            found.add(info.name)
    return found


def test_the_table_names_every_public_module():
    assert _public_modules() == set(PUBLIC_API)


@pytest.mark.parametrize("module", sorted(PUBLIC_API))
def test_each_public_module_exports_what_the_table_lists(module):
    mod = importlib.import_module(module)
    assert sorted(mod.__all__) == PUBLIC_API[module]
    missing = [name for name in mod.__all__ if not hasattr(mod, name)]
    assert not missing, f"{module}.__all__ names what the module lacks: {missing}"
    assert len(set(mod.__all__)) == len(mod.__all__), f"{module}.__all__ repeats a name"



def test_every_public_top_level_module_is_an_attribute_of_embgeo():
    """``import embgeo; embgeo.blocking`` works for each public module, and ``dir(embgeo)`` lists them.

    In a fresh interpreter: here the walk above has imported every module already, which sets it
    as an attribute of the package whatever ``embgeo.__getattr__`` would do.
    """
    top = sorted({m.split(".")[1] for m in _public_modules() if m.count(".") == 1})
    assert {"blocking", "neighbors", "io", "data", "distributed"} <= set(top)
    code = textwrap.dedent(f"""
        import importlib, embgeo
        names = {top!r}
        listed = set(dir(embgeo))
        print([n for n in names if n not in listed])
        print([n for n in names if getattr(embgeo, n) is not importlib.import_module("embgeo." + n)])
        try:
            embgeo.nonexistent
        except AttributeError as err:
            print(err)
    """)
    root = str(Path(embgeo.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.splitlines() == ["[]", "[]", "module 'embgeo' has no attribute 'nonexistent'"], out.stderr
