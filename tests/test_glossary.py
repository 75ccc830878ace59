"""One name per concept: retired spellings stay out of the public signatures.

embgeo names a concept once across the package (docs/contributing.md, "Glossary"). The spellings
below were retired and no public function accepts them: 0.1.0 is the first release, so a rename
changes every caller and leaves no deprecated alias behind (no DeprecationWarning, no shim).
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import embgeo

PACKAGE = Path(embgeo.__file__).resolve().parent

#: retired spelling -> the name to use
RETIRED = {
    "seed": "random_state",
    "missing": "oov",
    "knn": "csls_knn",
    "csls_neighborhood": "csls_knn",
    "verbosity": "progress",
    "max_iterations": "max_iter",
    "n_iterations": "max_iter",
    "tolerance": "tol",
}

#: `metric` names a search's similarity (cosine, dot, CSLS), and the distance a clustering groups words by
#: (scikit-learn's `metric=` of AgglomerativeClustering, the same pairwise score); elsewhere it is retired
SEARCH_MODULES = ("embgeo.neighbors", "embgeo.distributed", "embgeo.negatives", "embgeo.quantization")
#: `method` means one thing: the analogy solver (3CosAdd, 3CosMul, ..., the papers' own word). Any
#: other choice has the name of its concept: `retrieval=` (BLI, mapping), `clustering=` and `linkage=`
#: (categorisation), `ci_method=` (bootstrap intervals), `solver=` (optimisers).
ANALOGY_CALLABLES = {"analogy", "AnalogyResult.__init__"}
SEARCH_CALLABLES = {"Embeddings.neighbors", "Embeddings.search", "FuzzyEmbeddings.neighbors", "categorization",
                    "CategorizationResult.__init__"}


def _public_modules():
    for info in pkgutil.walk_packages(embgeo.__path__, "embgeo."):
        if any(p.startswith("_") for p in info.name.split(".")) or ".kernels" in info.name:
            continue
        yield info.name, importlib.import_module(info.name)


def _public_callables():
    seen = set()
    for name, mod in _public_modules():
        for attr in getattr(mod, "__all__", ()):
            obj = getattr(mod, attr, None)
            if inspect.isfunction(obj):
                items = [(f"{name}.{attr}", attr, obj, obj)]
            elif inspect.isclass(obj) and obj.__module__.startswith("embgeo"):
                items = [(f"{name}.{attr}.{m}", f"{attr}.{m}", f, obj) for m, f in vars(obj).items()
                         if inspect.isfunction(f) and (not m.startswith("_") or m == "__init__")]
            else:
                continue
            for qual, short, f, owner in items:
                if f not in seen:
                    seen.add(f)
                    yield qual, short, name, f, owner


def _violations():
    out = []
    for qual, short, module, f, owner in _public_callables():
        for p in inspect.signature(f).parameters.values():
            retired = p.name in RETIRED
            if p.name == "method":
                retired = short not in ANALOGY_CALLABLES
            if p.name == "metric":
                retired = not (module.startswith(SEARCH_MODULES) or short in SEARCH_CALLABLES)
            if retired:
                use = RETIRED.get(p.name, "a name of its concept (metric is a search's similarity, method an "
                                           "analogy solver)")
                out.append(f"{qual}({p.name}=...): use {use}")
    return out


def test_public_signatures_use_the_glossary():
    assert _violations() == []


def test_the_scan_sees_the_public_api():
    quals = {q for q, *_ in _public_callables()}
    assert "embgeo.neighbors.topk" in quals and "embgeo.crosslingual.Mapper.__init__" in quals
    assert len(quals) > 150


def test_no_fitted_attribute_is_called_metric_():
    """A fitted matrix is named by its role (GeometricMetaEmbedding's and GeoMM's Mahalanobis metric is
    ``B_``, the paper's symbol): ``metric`` is a search's similarity, never a learned matrix."""
    bad = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "metric_":
                bad.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert bad == []


#: modules whose ``__getattr__`` loads on first use (heavy imports), never to serve an old name
LAZY_GETATTR = {"__init__.py", "errors.py", "evaluate/__init__.py"}


def test_no_compatibility_shims():
    """No deprecated alias is served: nothing warns DeprecationWarning or FutureWarning, and a module
    ``__getattr__`` only defers an import."""
    warns, getattrs = [], []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in ("DeprecationWarning", "FutureWarning",
                                                          "PendingDeprecationWarning"):
                warns.append(f"{rel}:{node.lineno}")
        for node in tree.body:
            if (isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
                    or isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__getattr__" for t in node.targets)):
                if rel not in LAZY_GETATTR:
                    getattrs.append(rel)
    assert warns == [] and getattrs == []


def test_one_spelling_of_the_backend_import():
    """Modules import the array-backend layer as ``xb``: ``backend`` is also a parameter name
    (``backend="exact" | "faiss" | "dask"``) that would shadow the module."""
    bad = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                for a in node.names:
                    if a.name == "backend" and a.asname != "xb":
                        bad.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert bad == []
