"""The README's set-up stays true: its test command is exactly what CI runs."""
import re

from conftest import REPO


def _bash_blocks(text):
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", text, flags=re.S)]


def test_ci_runs_the_readme_test_command_exactly():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    install, test = _bash_blocks(setup)[:2]
    assert "pip install" in install and "python -m embgeo evaluate" in install
    ci = [ln.strip() for ln in (REPO / ".ci" / "run").read_text().splitlines()
          if ln.strip() and not ln.lstrip().startswith("#")]
    assert ci[-1] == test
    assert '".[data,plot,dev]"' in (REPO / ".ci" / "run").read_text()
