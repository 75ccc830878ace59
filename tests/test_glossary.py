"""One name per concept: retired spellings stay out of the public signatures.

embgeo names a concept once across the package (docs/contributing.md, "Glossary"). The spellings
below were retired; a public function may still accept one for a release, but only as a
keyword-only deprecated alias (default None) that it hands to
:func:`embgeo.validation.renamed_parameter`, so that the old spelling warns and the new one is
the documented parameter.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap
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
    "method": "retrieval",  # only for the retrieval method of BLI and cross-lingual mapping
}

#: `metric` names a search's similarity (cosine, dot, CSLS), and the distance a clustering groups words by
#: (scikit-learn's `metric=` of AgglomerativeClustering, the same pairwise score); elsewhere it is retired
SEARCH_MODULES = ("embgeo.neighbors", "embgeo.distributed", "embgeo.negatives")
#: `method` is retired as the name of the retrieval method (BLI, mapping); elsewhere (analogy's
#: 3CosAdd / 3CosMul) it is a paper's own word
RETRIEVAL_MODULES = ("embgeo.crosslingual", "embgeo.crosslingual.rcsls", "embgeo.evaluate.lexicon")
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


def _hands_to_renamed_parameter(src: str, name: str, scope) -> bool:
    """``src`` passes ``name`` to renamed_parameter(old="name"), directly or through a helper of
    ``scope`` (a module's globals) that does."""
    if f'old="{name}"' in src or f"old='{name}'" in src or f"'{name}' is deprecated" in src:
        return True
    tree = ast.parse(textwrap.dedent(src))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == name
                                              for a in [*node.args, *(k.value for k in node.keywords)]):
            helper = scope.get(getattr(node.func, "id", getattr(node.func, "attr", "")))
            if helper is not None and callable(helper):
                try:
                    helper_src = inspect.getsource(helper)
                except (OSError, TypeError):
                    continue
                if f'old="{name}"' in helper_src:
                    return True
    return False


def _deprecated_alias(f, owner, param) -> bool:
    """A keyword-only None that the function (for an estimator's __init__: its class) hands to
    :func:`embgeo.validation.renamed_parameter`."""
    if param.kind is not inspect.Parameter.KEYWORD_ONLY or param.default is not None:
        return False
    try:
        src = inspect.getsource(owner)
    except (OSError, TypeError):
        return False
    return _hands_to_renamed_parameter(src, param.name, f.__globals__)


def _violations():
    out = []
    for qual, short, module, f, owner in _public_callables():
        for p in inspect.signature(f).parameters.values():
            retired = p.name in RETIRED
            if p.name == "method":
                retired = module.startswith(RETRIEVAL_MODULES)
            if p.name == "metric":
                retired = not (module.startswith(SEARCH_MODULES) or short in SEARCH_CALLABLES)
            if retired and not _deprecated_alias(f, owner if short.endswith("__init__") else f, p):
                use = RETIRED.get(p.name, "a name of its concept (metric is a search's similarity)")
                out.append(f"{qual}({p.name}=...): use {use}")
    return out


def test_public_signatures_use_the_glossary():
    assert _violations() == []


def test_the_scan_sees_the_public_api():
    quals = {q for q, *_ in _public_callables()}
    assert "embgeo.neighbors.topk" in quals and "embgeo.crosslingual.Mapper.__init__" in quals
    assert len(quals) > 150


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
