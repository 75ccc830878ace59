"""``mypy embgeo`` is clean (the package ships ``py.typed``); configuration in pyproject.toml."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy")
pytestmark = pytest.mark.slow  # a cold mypy run takes about 30 s

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory):
    """One ``mypy embgeo`` run (about 30 s cold): error lines grouped by file."""
    cache = tmp_path_factory.mktemp("mypy_cache")
    out = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), "embgeo"],
                         cwd=REPO, capture_output=True, text=True)
    if out.returncode not in (0, 1):  # 2: mypy itself failed (bad config, crash)
        pytest.fail(f"mypy did not run: {out.stdout[-2000:]}{out.stderr[-2000:]}")
    errors: dict[str, list[str]] = {}
    if out.returncode and not re.search(r"^embgeo/\S+\.py:\d+: error:", out.stdout, re.M):
        errors["(unparsed)"] = out.stdout.splitlines()[-20:]
    for line in out.stdout.splitlines():
        m = re.match(r"(embgeo/[^:]+\.py):\d+: error:", line)
        if m:
            errors.setdefault(m.group(1), []).append(line)
    return errors


def test_mypy_embgeo_is_clean(mypy_errors):
    lines = [line for errs in mypy_errors.values() for line in errs]
    assert not lines, f"{len(lines)} mypy errors in {sorted(mypy_errors)}:\n" + "\n".join(lines)
