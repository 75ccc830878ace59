"""The documentation site builds with MkDocs in strict mode (warnings are errors), API pages included."""
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings_handlers.python")

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # builds the whole site
def test_mkdocs_build_strict(tmp_path):
    site = tmp_path / "site"
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"),
                          "-d", str(site)], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-4000:]
    # the API reference is generated from the docstrings, not an empty shell
    page = (site / "api" / "embeddings" / "index.html").read_text(encoding="utf-8")
    assert 'id="embgeo.embeddings.Embeddings.most_similar"' in page
    kv = (site / "api" / "keyedvectors" / "index.html").read_text(encoding="utf-8")
    assert 'id="embgeo.keyedvectors.KeyedVectors.load_word2vec_format"' in kv
    # the notebook page (mkdocs-jupyter) shows the notebook's code and its stored outputs, plots included
    notebook = (site / "notebook" / "index.html").read_text(encoding="utf-8")
    assert "glove.top(20000)" in notebook and notebook.count("data:image/png") >= 2
    for md in (REPO / "docs").glob("*.md"):  # every narrative page is in the site
        assert (site / ("" if md.stem == "index" else md.stem) / "index.html").exists(), md.name


def test_every_public_module_has_an_api_page():
    documented = set()
    for page in (REPO / "docs" / "api").glob("*.md"):
        documented |= {ln.split()[1] for ln in page.read_text(encoding="utf-8").splitlines()
                       if ln.startswith("::: ")}
    modules = {".".join(p.relative_to(REPO).with_suffix("").parts) for p in (REPO / "embgeo").rglob("*.py")}
    public = {m for m in modules if not any(part.startswith("_") for part in m.split("."))
              and ".kernels" not in m and not m.endswith(".cli")}
    assert not public - documented, f"add these modules to a page in docs/api/: {sorted(public - documented)}"
