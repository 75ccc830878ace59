"""The release: one version (embgeo.__version__, read by pyproject.toml), a CHANGELOG entry for it, and
an sdist and wheel that ``python -m build`` makes and ``twine check`` passes, offline.

The build runs with ``--no-isolation``: an isolated build downloads its build backend, which a
machine without the network cannot; the ``dev`` extra installs hatchling, build and twine instead.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser

import pytest

import embgeo
from conftest import REPO


def test_the_version_has_one_source_and_a_changelog_entry():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["hatch"]["version"]["path"] == "embgeo/__init__.py"
    assert embgeo.__version__ == "0.1.0"
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    first = re.search(r"^## (\S+)", changelog, flags=re.M)
    assert first and first.group(1) == embgeo.__version__, "CHANGELOG.md's newest entry is not this version"
    assert "### Security" in changelog


def test_build_and_twine_check_pass_offline(tmp_path):
    for module in ("build", "twine", "hatchling"):
        pytest.importorskip(module, reason=f"{module} comes with the dev extra")
    out = tmp_path / "dist"
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    version = embgeo.__version__
    wheel, sdist = out / f"embgeo-{version}-py3-none-any.whl", out / f"embgeo-{version}.tar.gz"
    assert sorted(p.name for p in out.iterdir()) == sorted([wheel.name, sdist.name])
    proc = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]

    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = Parser().parsestr(z.read(f"embgeo-{version}.dist-info/METADATA").decode("utf-8"))
        entry_points = z.read(f"embgeo-{version}.dist-info/entry_points.txt").decode("utf-8")
    assert meta["Version"] == version and meta["Name"] == "embgeo"
    assert meta["Description-Content-Type"] == "text/markdown"
    extras = set(meta.get_all("Provides-Extra"))
    assert {"data", "dev", "gpu", "cuda-sim"} <= extras
    # what a user of the wheel needs beyond the .py files: the registry, its checksums, the typing marker
    for data_file in ("embgeo/py.typed", "embgeo/data/catalogue.json"):
        assert data_file in names, data_file
    assert any(n.startswith("embgeo/data/checksums") for n in names)
    assert not any("__pycache__" in n or n.startswith("tests/") for n in names)
    assert "embgeo = embgeo.__main__:main" in entry_points

    with tarfile.open(sdist) as t:
        members = {m.name.split("/", 1)[1] for m in t.getmembers() if "/" in m.name}
    for f in ("pyproject.toml", "README.md", "CHANGELOG.md", "LICENSE", "embgeo/__init__.py"):
        assert f in members, f
