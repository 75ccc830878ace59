"""The package's import graph: no module imports another's private names, and there is no import cycle.

Function-level imports count: a cycle closed by a lazy import is still a cycle a reader has to untangle.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "embgeo"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


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
        for target, names in _imports(name, path, known):
            if target not in known or target == name:
                continue
            graph[name].add(target)
            if ".kernels" in target:
                continue
            for n in names:
                if n.startswith("_") and not n.startswith("__"):
                    private.append(f"{name} imports {target}.{n}")
    return graph, private


def test_no_module_imports_another_modules_private_names():
    _, private = _graph()
    assert private == []


def test_import_graph_has_no_cycle():
    graph, _ = _graph()
    # A package's __init__ re-exporting its own submodules is not a cycle of design: drop parent -> child edges.
    for m, targets in graph.items():
        graph[m] = {t for t in targets if not t.startswith(m + ".")}
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
    assert len(graph) > 20
