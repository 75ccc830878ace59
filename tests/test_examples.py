"""Every example in README.md and docs/*.md runs as written, pasted in order into a fresh session.

Each page runs in its own Python process (``tests/page_runner.py``): its ```python blocks in order in one
namespace, its ```bash lines that run ``python -m embgeo ...`` through :func:`embgeo.cli.main` (exit 0), from
an empty working directory with no ``../shared`` beside it, no ``EMBGEO_DATA`` and an empty data cache, so a
page can use only what a fresh install has: the embedded GloVe, gensim's bundled corpora, the datasets that
ship with embgeo and the files the page writes itself. A block that truly cannot run here (it needs data that
is not distributed, a GPU, a cluster) is preceded by the marker ``<!-- example: skip (reason) -->``; the reason
is required. A block that fails to download something skips the rest of its page (an offline machine).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import embgeo
from conftest import REPO
from page_runner import DOWNLOAD_FAILED, blocks, embgeo_commands

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
RUNNER = Path(__file__).with_name("page_runner.py")


def test_blocks_finds_markers_and_commands():
    page = ("```python\nx = 1\n```\n<!-- example: skip (needs a GPU) -->\n```python\ny\n```\n"
            "```bash\npython -m embgeo neighbors king -k 3   # the three nearest\npip install x\n```\n")
    found = blocks(page)
    assert [(b[0], b[3]) for b in found] == [("python", None), ("python", "needs a GPU"), ("bash", None)]
    assert embgeo_commands(found[2][1]) == [["neighbors", "king", "-k", "3"]]
    with pytest.raises(AssertionError, match="skip marker"):
        blocks("<!-- example: skip -->\n```python\nz\n```\n")


def _runnable(page):
    return any(reason is None for _, _, _, reason in blocks(page.read_text(encoding="utf-8")))


def fresh_session_env(cache: Path) -> dict:
    """The environment of a reader's new session: this checkout's embgeo importable, no shared data, an
    empty download cache, no windows; nothing the test session set for itself (the CUDA simulator, quiet
    progress)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("EMBGEO_", "PYTEST_", "NUMBA_ENABLE_CUDASIM"))}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(embgeo.__file__).resolve().parents[1]),
                                         *filter(None, [os.environ.get("PYTHONPATH")])])
    env["EMBGEO_DATA"] = str(cache)
    env["MPLBACKEND"] = "Agg"
    return env


@pytest.mark.parametrize("page", [p for p in PAGES if _runnable(p)], ids=lambda p: p.name)
def test_page_examples_run(page, tmp_path, glove_package):
    pytest.importorskip("matplotlib")  # the README's install: the data (glove_package), plot and dev extras
    work, cache = tmp_path / "session", tmp_path / "cache"
    work.mkdir()
    cache.mkdir()
    assert not (work.parent / "shared").exists()
    rel = page.relative_to(REPO).as_posix()
    out = subprocess.run([sys.executable, str(RUNNER), str(page), rel], cwd=work, env=fresh_session_env(cache),
                         capture_output=True, text=True, timeout=1800)
    print("\n".join(ln[len("TIMING "):] + " s" for ln in out.stdout.splitlines() if ln.startswith("TIMING ")))
    if out.returncode == DOWNLOAD_FAILED:
        pytest.skip(out.stderr.strip().splitlines()[-1])
    assert out.returncode == 0, f"{rel} (run: cd to an empty folder; python {RUNNER} {page}):\n{out.stderr[-6000:]}"


def test_a_page_runs_in_a_fresh_process_from_an_empty_folder(tmp_path):
    """The runner's session knows nothing of the test session: no names, no files, no shared data."""
    page = tmp_path / "page.md"
    page.write_text("```python\nimport os, sys\nassert os.listdir('.') == [] and 'pytest' not in sys.modules\n"
                    "assert not os.path.exists('../shared') and os.environ['EMBGEO_DATA'] != ''\n"
                    "assert not os.listdir(os.environ['EMBGEO_DATA'])\n"
                    "open('out.txt', 'w').write('x')\n```\n"
                    "<!-- example: skip (shows a skip) -->\n```python\nraise SystemExit(9)\n```\n"
                    "```python\nassert open('out.txt').read() == 'x'   # blocks share one session\n"
                    "from embgeo.errors import DownloadError\nraise DownloadError('no network')\n```\n"
                    "```python\nraise SystemExit(7)   # not reached: the page stopped at the download\n```\n")
    work, cache = tmp_path / "session", tmp_path / "cache"
    work.mkdir()
    cache.mkdir()
    out = subprocess.run([sys.executable, str(RUNNER), str(page), "page.md"], cwd=work,
                         env=fresh_session_env(cache), capture_output=True, text=True, timeout=300)
    assert out.returncode == DOWNLOAD_FAILED, out.stderr
    assert "page.md:13: a download failed (offline?): no network" in out.stderr
    assert out.stdout.splitlines() == ["TIMING page.md:2 " + out.stdout.split()[2]]
    page.write_text("```python\nx = 1\n```\n```python\nassert x == 2, 'x is 1'\n```\n")
    out = subprocess.run([sys.executable, str(RUNNER), str(page), "page.md"], cwd=work,
                         env=fresh_session_env(cache), capture_output=True, text=True, timeout=300)
    assert out.returncode == 1 and 'File "page.md", line 5' in out.stderr and "x is 1" in out.stderr


def _bound(code):
    """Names a block binds (assignments, imports, definitions, loop and with targets)."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def _loaded(code):
    import ast

    return {n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def rebound_by_skipped_blocks(text):
    """``(skipped block's line, later block's line, names)``: a skipped block (real data, a GPU) that rebinds
    names the page's runnable blocks bound before it and use after it, so that a reader who pastes every
    block in order, the skipped one too, runs the later ones on other objects than the page shows."""
    found, runnable_bound = [], set()
    page = [(code, line, reason) for lang, code, line, reason in blocks(text) if lang == "python"]
    for i, (code, line, reason) in enumerate(page):
        if reason is None:
            runnable_bound |= _bound(code)
            continue
        clash = _bound(code) & runnable_bound
        for later, later_line, later_reason in page[i + 1:]:
            used = clash & _loaded(later) if later_reason is None else set()
            if used:
                found.append((line, later_line, sorted(used)))
    return found


def test_rebinding_check_finds_a_skipped_block_that_changes_later_names():
    page = ("```python\nen = 1\ntrain = [1]\n```\n<!-- example: skip (real data) -->\n```python\n"
            "en = 2\nfi = 3\n```\n```python\nprint(en, fi, train)\n```\n")
    assert rebound_by_skipped_blocks(page) == [(7, 11, ["en"])]
    assert rebound_by_skipped_blocks(page.replace("en = 2", "en200k = 2")) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_skipped_blocks_do_not_rebind_names_later_blocks_use(page):
    clashes = rebound_by_skipped_blocks(page.read_text(encoding="utf-8"))
    assert not clashes, (f"{page.name}: a skipped block rebinds names that later blocks use (pasted in order, "
                         f"they would run on other objects); give its variables their own names: {clashes}")
