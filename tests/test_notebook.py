"""docs/notebook.ipynb, the "embgeo in Jupyter" notebook, runs in a fresh kernel from an empty directory, prints
what the docs site shows (the outputs it is stored with), and leaves its progress bars at their final count."""
from __future__ import annotations

import os
import re
import shutil
import time

import pytest

from conftest import REPO

NOTEBOOK = REPO / "docs" / "notebook.ipynb"
RERUN = "python -m nbconvert --to notebook --execute --inplace docs/notebook.ipynb"
_BAR = re.compile(r"\|\s*(?P<n>\d+)/(?P<total>\d+) \[")


def _text(output) -> str | None:
    """What a reader sees of an output that a fresh run must reproduce: results and printed text, not the
    progress bars (their timings differ from run to run), pictures or standard error."""
    if output["output_type"] == "stream":
        return output["text"] if output["name"] == "stdout" else None
    data = output.get("data", {})
    if "application/vnd.jupyter.widget-view+json" in data or "text/plain" not in data:
        return None
    if output["output_type"] == "display_data" and "image/png" in data:
        return None
    return data["text/plain"]


def _texts(nb):
    return [[t for t in map(_text, cell.outputs) if t is not None] for cell in nb.cells if cell.cell_type == "code"]


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _same_text(fresh: str, stored: str) -> bool:
    """The same words and, at the four significant digits shown, the same numbers. The last shown digit
    may differ: blocked sums run on as many threads as the machine gives, so their order (and the
    rounding of a value such as a centred space's mean cosine, near 0) varies with the load."""
    def shape(text):  # the words, with every number, run of spaces and rule of dashes (widths follow the numbers) alike
        return re.sub(r"\s+", " ", re.sub(r"-{2,}", "--", _NUMBER.sub("#", text)))

    if shape(fresh) != shape(stored):
        return False
    for a, b in zip(map(float, _NUMBER.findall(fresh)), map(float, _NUMBER.findall(stored))):
        if abs(a - b) > 2e-3 * max(abs(a), abs(b)) + 1e-5:
            return False
    return True


def _stale(fresh, stored) -> list:
    """The outputs of ``fresh`` that differ from ``stored`` (cell and output index, both texts)."""
    a, b = _texts(fresh), _texts(stored)
    if len(a) != len(b):
        return [("cells", len(a), len(b))]
    return [(i, x, y) for i, (xs, ys) in enumerate(zip(a, b))
            for x, y in ([(xs, ys)] if len(xs) != len(ys) else zip(xs, ys))
            if (x != y if isinstance(x, list) else not _same_text(x, y))]


def _bars(nb):
    """The text form (what a notebook viewer without widgets shows) of every progress bar output."""
    return [m for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs
            for m in _BAR.finditer(o.get("data", {}).get("text/plain", "") + o.get("text", ""))]


@pytest.mark.slow
def test_the_jupyter_notebook_runs_fresh_and_matches_what_the_docs_show(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    stored = nbformat.read(NOTEBOOK, as_version=4)
    assert all(cell.execution_count == i for i, cell in
               enumerate((c for c in stored.cells if c.cell_type == "code"), 1)), f"run in order: {RERUN}"

    work = tmp_path / "empty"  # no ../shared beside it, nothing in it
    work.mkdir()
    shutil.copy(NOTEBOOK, tmp_path / "notebook.ipynb")
    fresh = nbformat.read(tmp_path / "notebook.ipynb", as_version=4)
    # the kernel imports this checkout's embgeo, with progress on (the test session silences it)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.delenv("EMBGEO_QUIET", raising=False)
    start = time.perf_counter()
    nbclient.NotebookClient(fresh, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(work)}}).execute()
    took = time.perf_counter() - start
    print(f"docs/notebook.ipynb: {took:.1f} s")

    assert list(work.iterdir()) == []  # it writes nothing
    stale = _stale(fresh, stored)
    assert not stale, f"the stored outputs are stale ({RERUN}): {stale[:2]}"
    bars = _bars(fresh) + _bars(stored)
    assert bars, "no progress bar: the notebook's long cells no longer show one"
    assert all(m["n"] == m["total"] for m in bars), [m.group(0) for m in bars]


def test_the_notebook_is_in_the_docs_site_and_the_notebook_extra():
    mkdocs = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    assert "notebook.ipynb" in mkdocs and "mkdocs-jupyter" in mkdocs
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^notebook = \["ipywidgets[^\]]*"matplotlib', pyproject, flags=re.M)
