"""The package's import graph: its layers, private names inside their package, no import cycle.

A subpackage (``embgeo/neighbors/``, ...) is one unit: its modules may import each other's private
modules and names. Across packages (and between the flat modules of ``embgeo`` itself) only public
names of public modules are imported.

Function-level imports count: a cycle closed by a lazy import is still a cycle a reader has to untangle.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "embgeo"


#: Layers, lowest first (docs/contributing.md draws them): a module imports only from its own
#: layer or lower ones. A name covers a module and everything below it; the longest match wins.
LAYERS = {
    # foundation: array backend, errors, progress, argument checks, block sizes and threads,
    # compiled loops, small linear algebra, normalisation, atomic writes, the word <-> row protocol,
    # how results display
    "embgeo.backend": 0, "embgeo.errors": 0, "embgeo.progress": 0, "embgeo.validation": 0,
    "embgeo.blocking": 0, "embgeo.kernels": 0, "embgeo.linalg": 0, "embgeo.normalize": 0,
    "embgeo.io.atomic": 0, "embgeo.vocabulary": 0, "embgeo.textfile": 0, "embgeo.display": 0,
    # the latent-metric model (orthogonal maps + SPD metric on pymanopt) of GeoMM and meta
    "embgeo.latent_metric": 0,
    # data: benchmark files, dictionaries and the registry of downloadable resources
    "embgeo.data": 1,
    # cluster: the Dask client, row shards, Gram matrices and grids every Dask path stands on
    "embgeo.distributed": 2,
    # search: the exact / screened / FAISS / Dask engines
    "embgeo.neighbors": 3,
    # vectors: the Embeddings container and the file formats that make one
    "embgeo.embeddings": 4, "embgeo.io": 4, "embgeo.static": 4,
    # methods: one paper each
    "embgeo.fuzzy": 5, "embgeo.alpha": 5, "embgeo.alpha.sweeps": 5, "embgeo.postprocess": 5, "embgeo.meta": 5,
    "embgeo.crosslingual": 5, "embgeo.crosslingual.rcsls": 5, "embgeo.negatives": 5, "embgeo.quantization": 5,
    "embgeo.crosslingual._dictionaries": 5, "embgeo.crosslingual._procrustes": 5, "embgeo.crosslingual._retrieval": 5,
    "embgeo.crosslingual._induction": 5, "embgeo.crosslingual._muse": 5, "embgeo.crosslingual._mapper": 5,
    # evaluation: word similarity, analogy, relational similarity, BLI, reports
    "embgeo.evaluate": 6,
    # diagnostics: geometry measures (hubness, isotropy, search recall, isomorphism, semantic change)
    # over the engines and methods
    "embgeo.diagnostics": 6,
    # studies and adapters built on evaluation: Raunak et al.'s PCA protocol, gensim's API
    "embgeo.pca": 7, "embgeo.keyedvectors": 7,
    # entry points: the package namespace and the command line
    "embgeo": 8, "embgeo.cli": 8, "embgeo.__main__": 8, "embgeo.evaluate.cli": 8, "embgeo.evaluate.compare_cli": 8,
    "embgeo.evaluate.bli_cli": 8, "embgeo.data.cli": 8,
    "embgeo.neighbors.cli": 8, "embgeo.crosslingual.cli": 8, "embgeo.evaluate.bias.cli": 8,
}


def _layer(module: str) -> int:
    best = max((k for k in LAYERS if module == k or module.startswith(k + ".")), key=len)
    return LAYERS[best]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _subpackage(name: str, path: Path) -> str | None:
    """The subpackage a module belongs to (None for the flat modules of embgeo itself)."""
    parts = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    return ".".join(parts) if len(parts) > 1 else None


def _private_module(target: str) -> str | None:
    """The package holding the first private module on ``target``'s path, or None if it is public."""
    parts = target.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


def _inside(module: str | None, package: str) -> bool:
    return module is not None and (module == package or module.startswith(package + "."))


def _imports(name: str, path: Path, known: set[str]):
    """Yield (target module, imported names) for every embgeo import in the file, at any depth."""
    is_pkg = path.name == "__init__.py"
    here = name.split(".") if is_pkg else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "embgeo":
                    yield a.name, []
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != "embgeo":
                continue
            names = [a.name for a in node.names]
            # `from . import io` imports a submodule, not a name of the package
            subs = [f"{mod}.{n}" for n in names if f"{mod}.{n}" in known]
            for s in subs:
                yield s, []
            rest = [n for n in names if f"{mod}.{n}" not in known]
            if rest or not subs:
                yield mod, rest


def _graph():
    mods = _modules()
    known = set(mods)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    private: list[str] = []
    for name, path in mods.items():
        package = _subpackage(name, path)
        for target, names in _imports(name, path, known):
            if target not in known or target == name:
                continue
            graph[name].add(target)
            if ".kernels" in target:
                continue
            holder = _private_module(target)
            if holder is not None and not _inside(package, holder):
                private.append(f"{name} imports the private module {target}")
            for n in names:
                if n.startswith("_") and not n.startswith("__") and not (package and _inside(target, package)):
                    private.append(f"{name} imports {target}.{n}")
    return graph, private


def test_no_module_imports_another_modules_private_names():
    _, private = _graph()
    assert private == []


def test_import_graph_has_no_cycle():
    # A package's __init__ -> its submodules counts too: a module that imports a package imports
    # what the package re-exports (embgeo.distributed._gram -> embgeo.neighbors -> ._dask ->
    # embgeo.distributed -> ._gram is a cycle).
    graph, _ = _graph()
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycles.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_graph_is_read_at_all():
    graph, _ = _graph()
    assert "embgeo.neighbors" in graph["embgeo.embeddings"]
    assert "embgeo.neighbors._exact" in graph["embgeo.neighbors"]
    # the α sweeps use the method; the method does not know the sweeps
    assert "embgeo.alpha._model" in graph["embgeo.alpha.sweeps"]
    assert not any(t.startswith("embgeo.alpha.sweeps") for t in graph["embgeo.alpha._model"])
    # fuzzy: the studies use FuzzyEmbeddings, which uses the set algebra; never the reverse
    assert "embgeo.fuzzy._embeddings" in graph["embgeo.fuzzy._hyponymy"]
    assert "embgeo.fuzzy._sets" in graph["embgeo.fuzzy._embeddings"]
    assert not any(t.startswith("embgeo.fuzzy._embeddings") for t in graph["embgeo.fuzzy._sets"])
    assert len(graph) > 20


def test_private_modules_are_private_to_their_package():
    assert _private_module("embgeo.neighbors._exact") == "embgeo.neighbors"
    assert _private_module("embgeo.neighbors.faiss_index") is None
    assert _inside(_subpackage("embgeo.neighbors._dask", PACKAGE / "neighbors" / "_dask.py"), "embgeo.neighbors")
    assert not _inside(_subpackage("embgeo.distributed._cluster", PACKAGE / "distributed" / "_cluster.py"),
                       "embgeo.neighbors")
    assert _private_module("embgeo.crosslingual._induction") == "embgeo.crosslingual"


def test_every_module_imports_only_its_own_layer_or_lower_ones():
    graph, _ = _graph()
    upward = []
    for m, targets in graph.items():
        for target in targets:
            if target.startswith(m + "."):
                continue  # a package's __init__ re-exporting its own modules
            if _layer(target) > _layer(m):
                upward.append(f"{m} (layer {_layer(m)}) imports {target} (layer {_layer(target)})")
    assert upward == []


def test_every_layer_name_is_a_module_and_the_rule_can_fail():
    mods = _modules()
    assert set(LAYERS) <= set(mods), sorted(set(LAYERS) - set(mods))
    assert _layer("embgeo.neighbors._exact") == LAYERS["embgeo.neighbors"]
    assert _layer("embgeo.io.atomic") < _layer("embgeo.data") < _layer("embgeo.io")
    assert _layer("embgeo.distributed._gram") < _layer("embgeo.neighbors._dask")
    assert _layer("embgeo.evaluate.cli") > _layer("embgeo.evaluate.similarity")
