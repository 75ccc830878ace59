"""The README's set-up stays true: CI installs what its install command installs (plus the CUDA
simulator's extra) and runs exactly its test command; every extra it names exists in pyproject.toml."""
import re

import pytest
from conftest import REPO

tomllib = pytest.importorskip("tomllib")   # Python 3.11+


def _bash_blocks(text):
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def _extras(command):
    """The extras of the ``pip install`` in ``command``: ``".[data,plot]"`` -> {"data", "plot"}."""
    found = re.findall(r'"\.\[([^\]]*)\]"', command)
    assert len(found) == 1, command
    return {e.strip() for e in found[0].split(",")}


def _setup():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]


def _ci_lines():
    return [ln.strip() for ln in (REPO / ".ci" / "run").read_text().splitlines()
            if ln.strip() and not ln.lstrip().startswith("#")]


def test_ci_runs_the_readme_test_command_exactly():
    install, test = _bash_blocks(_setup())[:2]
    assert "pip install" in install and "python -m embgeo evaluate" in install
    ci = _ci_lines()
    assert ci[-1] == test
    # CI installs the README's extras, and the CUDA simulator so that the GPU engine's tests run
    ci_install = [ln for ln in ci if "pip install" in ln and ".[" in ln]
    assert len(ci_install) == 1
    assert _extras(ci_install[0]) == _extras(install) | {"cuda-sim"}


def test_the_readme_names_every_extra_and_dev_has_no_cuda_stack():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    table = {m.group(1) for m in re.finditer(r"^\| `([\w-]+)` \|", _setup(), flags=re.M)}
    assert table == set(extras)
    assert _extras(_bash_blocks(_setup())[0]) <= set(extras)
    cuda = [d for d in extras["dev"] if re.match(r"(numba-cuda|cupy|nvidia-|cuda-)", d)]
    assert not cuda, f"dev pulls the CUDA stack: {cuda} (it belongs in cuda-sim / gpu)"
    assert any(d.startswith("numba-cuda") for d in extras["cuda-sim"])
    assert re.search(r"about \d+ minutes on 2 cores", _setup()), "the README says how long the test command takes"
