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
        "get_namespace", "load", "quantize", "save", "set_progress", "to_device", "to_numpy"],
    "embgeo.alpha": ["ANALOGY_GROUPS", "AlphaEmbeddings", "AnalogySweepResult", "CrossValidation", "GEOMETRIES",
        "P0_CHOICES", "SweepResult", "VARIANTS", "alpha_sweep", "analogy_sweep", "fisher_cosine"],
    "embgeo.alpha.sweeps": ["ANALOGY_GROUPS", "AnalogySweepResult", "CrossValidation", "SweepResult", "alpha_sweep",
        "analogy_sweep"],
    "embgeo.backend": ["asarray", "check_matrix", "check_same_device", "cuda_library", "default_dtype", "device",
        "get_namespace", "is_cupy", "is_dask", "is_numpy", "resolve_dtype", "set_default_dtype", "single_blas_thread",
        "take_rows", "to_device", "to_numpy"],
    "embgeo.blocking": ["CACHE_TILE_COLS", "DEFAULT_MEMORY_BUDGET", "MIN_MEMORY_BUDGET", "PASS_ROWS", "TILE_COLS",
        "TILE_ROWS", "block_rows", "budget_bytes", "n_jobs", "row_blocks", "run_blocks", "share", "tile_shape"],
    "embgeo.cli": ["COMMANDS", "check_not_vectors", "choice", "cli_hints", "did_you_mean", "load_embeddings", "main",
        "positive_int"],
    "embgeo.crosslingual": ["History", "Induction", "Initialization", "Mapper", "Mapping", "MultilingualMapper",
        "Preprocessing", "RECIPES", "RECIPE_HELP", "Selection", "dictionary_indices",
        "identical_dictionary", "induce_dictionary", "invnn_ranks", "mean_cosine", "numeral_dictionary", "procrustes",
        "retrieval_factors", "retrieve", "unsupervised_dictionary"],
    "embgeo.crosslingual.geomm": ["GeoMMResult", "geomm", "geomm_objective"],
    "embgeo.crosslingual.rcsls": ["rcsls", "rcsls_loss"],
    "embgeo.crosslingual.cli": ["add_arguments", "add_mapper_arguments", "mapper_from_arguments", "run"],
    "embgeo.data": ["AnalogyPairs", "AnalogyQuestions", "BUILTIN", "Categories", "ENTAILMENT_TASKS",
        "EntailmentPairs", "KINDS", "OutlierSets", "PACKAGED", "Resource", "SemEvalCategory", "UNVERIFIED",
        "WordPairs", "as_dataset", "cache_dir", "cache_path", "cached", "dataset_path", "fetch", "find_local",
        "group_dictionary", "list_datasets", "load_dataset", "read_analogies", "read_bats", "read_categories",
        "read_compounds", "read_dictionary", "read_entailment", "read_msr_analogies", "read_outlier_sets",
        "read_semeval2012", "read_semeval2017", "read_word_pairs", "register", "registry", "split_dictionary"],
    "embgeo.data.cli": ["add_arguments", "run"],
    "embgeo.diagnostics": ["CHANGE_MEASURES", "ConditionNumbers", "HubnessResult", "ISOMORPHISM_MEASURES",
        "IsomorphismResult", "IsotropyResult", "IsotropyTable", "SIMILARITY_MEASURES", "SemanticChangeResult",
        "SpaceSimilarityResult", "TRANSFORMS", "align_same_language", "hubness", "isomorphism", "isoscore",
        "isoscore_of_covariance", "isotropy", "isotropy_bands", "isotropy_clusters", "isotropy_table", "recall", "similarity"],
    "embgeo.display": ["Display", "Formatted", "Interval", "View", "number", "pyplot"],
    "embgeo.distributed": ["ShardedDatabase", "current_client", "get_client", "gram", "map_grid", "shard"],
    "embgeo.embeddings": ["Embeddings", "unwrap"],
    "embgeo.errors": ["ChecksumError", "DownloadError", "FormatError", "NotFittedError", "UnknownWordError",
        "UnverifiedResourceError"],
    "embgeo.evaluate": ["AnalogyResult", "BLIGrid", "BLIResult", "CI_COLUMNS", "COLUMNS", "CategorizationResult",
        "Comparison", "CompressionCost", "DEFAULT_DATASETS", "ENTAILMENT_MEASURES", "EntailmentResult", "MEASURES",
        "OutlierResult", "Report", "SimilarityResult", "analogy", "bli", "bli_grid", "categorization", "compare",
        "compression_cost", "compression_variants", "entailment",
        "evaluate", "outlier_detection", "postproc_grid_search", "word_similarity"],
    "embgeo.evaluate.analogy": ["AnalogyResult", "METHODS", "SET_METHODS", "analogy"],
    "embgeo.evaluate.bias": ["ALTERNATIVES", "BIAS_MEASURES", "BiasResult", "DoubleHardDebias", "EXACT_PARTITIONS",
        "HardDebias", "Query", "QueryTranslation", "RND_DISTANCES", "WEAT_QUERIES", "bias_report", "compare_bias",
        "debias_pairs", "ect", "gender_specific_words", "load_query", "mac", "ripa", "rnd", "rnsb", "translate_query",
        "weat", "word_set"],
    "embgeo.evaluate.bias.cli": ["add_arguments", "run"],
    "embgeo.evaluate.cli": ["add_arguments", "add_interval_arguments", "check_loading_options", "expand_datasets",
        "print_report", "run", "split_commas"],
    "embgeo.evaluate.compare_cli": ["COMPARE_COLUMNS", "add_arguments", "run"],
    "embgeo.evaluate.comparison": ["compare"],
    "embgeo.evaluate.compression": ["CompressionCost", "compression_cost", "compression_variants", "sif_weights"],
    "embgeo.evaluate.bli_cli": ["add_arguments", "run"],
    "embgeo.evaluate.lexicon": ["BLIResult", "GridResult", "POSTPROC_GRID", "bli", "gold_ranks",
        "postproc_grid_search"],
    "embgeo.evaluate.categorization": ["CLUSTERINGS", "CategorizationResult", "LINKAGES", "categorization", "purity"],
    "embgeo.evaluate.entailment": ["ENTAILMENT_MEASURES", "EntailmentResult", "entailment", "tuned_accuracy"],
    "embgeo.evaluate.outliers": ["OutlierResult", "outlier_detection"],
    "embgeo.evaluate.relational": ["RelationalSimilarityResult", "maxdiff_accuracy", "offset_ratings", "semeval2012"],
    "embgeo.evaluate.report": ["Report"],
    "embgeo.evaluate.similarity": ["MEASURES", "SimilarityResult", "resolve_measure", "word_similarity"],
    "embgeo.evaluate.stats": ["CI_METHODS", "Comparison", "DRAWS", "MIN_ITEMS", "Resampled", "TESTS",
        "bootstrap_interval", "compare_results", "mcnemar_test", "mean_score", "paired_permutation_test",
        "steiger_test", "weighted_mean", "weighted_purity", "weighted_spearman"],
    "embgeo.fuzzy": ["CONSTRUCTIONS", "FUZZY_MEASURES", "FunctionWordReport", "FuzzyEmbeddings", "FuzzyMeasure",
        "FuzzySet", "HyponymyReport", "LOG_TINY", "cardinality",
        "categorical_cross_entropy", "categorical_kl_divergence", "complement", "cross_entropy", "difference",
        "disjoint_union", "entropy", "function_words", "fuzzify", "graded_inclusion", "hyponymy", "intersection",
        "intersection_ratio", "is_subset", "jaccard", "kl_divergence", "polysemy",
        "symmetric_cross_entropy", "symmetric_kl_divergence", "union"],
    "embgeo.io": ["FORMATS", "GloveModel", "detect_format", "load", "load_fasttext",
        "read_glove", "save"],
    "embgeo.io.atomic": ["atomic_dir", "atomic_path", "atomic_paths", "finish_interrupted", "fsync_dir", "fsync_file",
                         "reap_stale", "temp_name"],
    "embgeo.keyedvectors": ["Correlation", "KeyedVectors"],
    "embgeo.latent_metric": ["LatentMetricFit", "LatentMetricObjective", "fit_latent_metric", "latent_metric_problem"],
    "embgeo.linalg": ["apply_matrix", "cached_inverse_norms", "centred_scatter", "checked_gram", "derived",
        "eigh_desc", "gram", "inverse_norms", "sym_power", "unit_rows"],
    "embgeo.meta": ["GeometricMetaEmbedding", "average", "concatenate", "concatenate_svd", "objective"],
    "embgeo.negatives": ["HEAD", "NegativeCandidates", "PhraseIndex", "SynonymTable", "TAIL", "candidate_negatives",
        "false_negative_mask", "soft_regularisation", "synonym_table"],
    "embgeo.neighbors": ["ARRAY_BACKENDS", "Cuda", "Dask", "Exact", "Faiss", "PAIRWISE_METRICS", "REDUCTION_METRICS",
        "RETRIEVAL_METRICS", "VALID_METRICS", "VALID_RETRIEVALS", "as_engine", "check_metric", "check_retrieval",
        "csls_topk", "isf_log_partition", "isf_topk", "knn_mean_similarity", "merge_topk", "most_similar",
        "reduction_ranks", "reduction_stats", "reduction_topk", "search", "select_topk", "self_topk", "topk"],
    "embgeo.neighbors.cli": ["add_arguments", "run"],
    "embgeo.neighbors.faiss_index": ["FaissIndex", "RecallResult", "cached_faiss_index", "faiss_search"],
    "embgeo.normalize": ["Normalizer", "STEPS", "normalize"],
    "embgeo.pca": ["DEFAULT_SIMILARITY_DATASETS", "Table", "VarianceProfile", "cumulative_curve", "principal_space",
        "probe_components", "split_analysis", "variance_profile"],
    "embgeo.postprocess": ["AffineTransform", "all_but_the_top", "apply_transform", "center", "centeremb",
        "cross_covariance_svd", "dewhiten", "dewhitening_transform", "ppa_pca_ppa", "reweight",
        "similarity_order", "similarity_order_transform", "unit", "unitdim", "whiten", "whitening_transform"],
    "embgeo.progress": ["progress_bar", "progress_enabled", "set_progress"],
    "embgeo.quantization": ["CodeSearch", "QuantizedEmbeddings", "SCHEMES", "int8_ranges", "quantize"],
    "embgeo.static": ["LAYOUTS", "StaticModel", "load"],
    "embgeo.validation": ["check_k", "collection_input_tags", "exclusion_csr", "mask_excluded", "max_excluded"],
    "embgeo.textfile": ["BOM", "csv_rows", "data_lines", "decode_lines", "read_lines", "split_lines"],
    "embgeo.vocabulary": ["Vocabulary", "word_index"],
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


_PENDING_SAME_OBJECT: set = set()
# one concept, two engines: the Gram matrix in memory (linalg, layer 0) and on a Dask cluster (distributed);
# one verb, each module's object: embgeo.io.load reads an Embeddings, embgeo.static.load a StaticModel
_PENDING_SAME_NAME = {"gram", "load"}
#: the protocol every CLI module implements (embgeo.cli's COMMANDS), one name by design
_PROTOCOL_NAMES = {"add_arguments", "run"}


def _exports():
    """(module, name, object) for every public name but the top-level namespace's (its façade)."""
    for module in sorted(set(PUBLIC_API) - {"embgeo"}):
        mod = importlib.import_module(module)
        for name in mod.__all__:
            yield module, name, getattr(mod, name)


def _facade(a: str, b: str) -> bool:
    """A package's __init__ re-exporting its own public submodule (embgeo.alpha over embgeo.alpha.sweeps)."""
    return a.startswith(b + ".") or b.startswith(a + ".")


def test_each_public_object_is_exported_by_one_module():
    homes: dict = {}
    for module, name, obj in _exports():
        if isinstance(obj, (str, int, float, bool, tuple, frozenset, type(None))):
            continue  # equal constants are not one object
        homes.setdefault(id(obj), []).append((module, name))
    shared = []
    for places in homes.values():
        mods = [m for m, _ in places]
        if len(places) == 1 or (len(places) == 2 and _facade(*mods)) or frozenset(mods) in _PENDING_SAME_OBJECT:
            continue
        shared.append(places)
    assert not shared, f"objects exported by more than one module: {shared}"


def test_one_public_name_means_one_thing():
    meanings: dict = {}
    for module, name, obj in _exports():
        meanings.setdefault(name, {})[module] = obj
    clashes = {name: sorted(by) for name, by in meanings.items()
               if name not in _PENDING_SAME_NAME | _PROTOCOL_NAMES and len(by) > 1
               and not all(o is next(iter(by.values())) or (isinstance(o, (str, int, tuple)) and o == next(iter(by.values())))
                           for o in by.values())}
    assert not clashes, f"one name, different objects: {clashes}"


def test_the_docs_table_is_this_surface_of_this_release():
    """docs/api/index.md names every public module of the table above, and says it is this release's surface."""
    import re

    page = (Path(__file__).resolve().parents[1] / "docs" / "api" / "index.md").read_text(encoding="utf-8")
    rows = "\n".join(ln for ln in page.splitlines() if ln.startswith("| "))
    named = set(re.findall(r"`(embgeo(?:\.\w+)*)`", rows))
    assert set(PUBLIC_API) <= named, f"add to docs/api/index.md: {sorted(set(PUBLIC_API) - named)}"
    assert not named - set(PUBLIC_API), f"not public modules: {sorted(named - set(PUBLIC_API))}"
    assert f"## The {embgeo.__version__} surface" in page


def test_topk_keeps_a_short_signature_with_engine_options_on_engine_objects():
    """Issue 42, item 9: ``neighbors.topk`` takes at most 9 parameters; what only one engine understands
    (threads, selector, screening, the Dask client, FAISS parameters) lives on that engine's object."""
    import inspect

    from embgeo import neighbors

    params = inspect.signature(neighbors.topk).parameters
    assert len(params) <= 9, list(params)
    engine_options = {"selector", "n_jobs", "screen", "client", "query_block", "offset", "kind", "index"}
    for function in (neighbors.topk, neighbors.csls_topk, neighbors.knn_mean_similarity, neighbors.self_topk,
                     neighbors.isf_topk, neighbors.search):
        assert not engine_options & set(inspect.signature(function).parameters), function.__name__


def test_every_backend_parameter_takes_the_engine_and_no_engine_option_beside_it():
    """Issue 42, items 8 and 9: one ``backend=`` concept. A public callable that picks a search engine takes
    a name or an engine object, as ``neighbors.topk`` does; the Dask client, threads, selector, screening and
    query blocks are the engine object's options, never a parameter beside ``backend=`` (a grid's
    ``client=``, where its cells run, has no ``backend=``)."""
    import inspect

    engine_options = {"client", "n_jobs", "selector", "screen", "query_block"}
    searching, beside = [], []
    for module, name, obj in _exports():
        functions = [(name, obj)] if inspect.isfunction(obj) else [
            (f"{name}.{m}", f) for m, f in vars(obj).items() if inspect.isfunction(f)] if inspect.isclass(obj) else []
        for qual, f in functions:
            params = inspect.signature(f).parameters
            if "backend" in params and params["backend"].default == "exact":
                searching.append(f"{module}.{qual}")
                beside += [f"{module}.{qual}({p}=)" for p in engine_options & set(params)]
    assert not beside, beside
    assert {"embgeo.diagnostics.hubness", "embgeo.negatives.synonym_table", "embgeo.neighbors.topk",
            "embgeo.fuzzy.FuzzyEmbeddings.neighbors"} <= set(searching)
