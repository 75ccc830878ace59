"""Run one page's examples as a reader would: ``python tests/page_runner.py PAGE`` in a fresh process.

The page's ```python blocks are executed in order in one namespace (one session, the blocks pasted in order),
its ```bash lines that run ``python -m embgeo ...`` through :func:`embgeo.cli.main`, which must return 0. A
block preceded by ``<!-- example: skip (reason) -->`` is left out. The working directory is the caller's
(tests/test_examples.py gives an empty one). Prints ``TIMING <where> <seconds>`` per block; exits 3 when a
block fails to download something (allowed offline: the rest of the page is not run), 1 on any other error.
This module imports nothing of embgeo or the tests at import time, so that tests/test_examples.py can use its
parser without a session's state leaking into the page's.
"""
from __future__ import annotations

import re
import shlex
import sys
import time
from pathlib import Path

_FENCE = re.compile(r"^(?P<marker><!--[^\n]*-->[ \t]*\n)?```(?P<lang>python|bash)[ \t]*\n(?P<code>.*?)^```",
                    flags=re.S | re.M)
_SKIP = re.compile(r"<!--\s*example:\s*skip\s*\((?P<reason>[^)]*\S[^)]*)\)\s*-->")

#: exit status of a page stopped by a failed download (an offline machine)
DOWNLOAD_FAILED = 3


def blocks(text):
    """``(lang, code, first_line, skip_reason)`` for every fenced python / bash block of a page."""
    out = []
    for m in _FENCE.finditer(text):
        line = text.count("\n", 0, m.start("code")) + 1
        marker = m.group("marker")
        reason = None
        if marker and "example" in marker:
            skip = _SKIP.search(marker)
            assert skip, f"line {line}: a skip marker reads <!-- example: skip (why it cannot run) -->"
            reason = skip.group("reason")
        out.append((m.group("lang"), m.group("code"), line, reason))
    return out


def embgeo_commands(code):
    """The argument lists of the ``python -m embgeo ...`` lines of a bash block (comments dropped)."""
    cmds = []
    for ln in code.splitlines():
        words = shlex.split(ln, comments=True)
        if words[:3] == ["python", "-m", "embgeo"]:
            cmds.append(words[3:])
    return cmds


def _open_dask_objects(namespace):
    """Dask clients and clusters the page left open: a reader's session would keep their event loop running."""
    dask = {name: v for name, v in namespace.items() if type(v).__module__.startswith("distributed")}
    dask.update({f"{name}.cluster": v.cluster for name, v in list(dask.items()) if getattr(v, "cluster", None)})
    return [name for name, v in dask.items()
            if hasattr(v, "close") and not str(getattr(v, "status", "closed")).endswith("closed")]


def run(page: Path, label: str) -> int:
    from embgeo.cli import main
    from embgeo.errors import DownloadError

    namespace: dict = {"__name__": "__main__"}
    for lang, code, line, reason in blocks(page.read_text(encoding="utf-8")):
        if reason is not None:
            continue
        where = f"{label}:{line}"
        start = time.perf_counter()
        try:
            if lang == "python":
                # padded to the block's place, so a traceback names the page's own line
                exec(compile("\n" * (line - 1) + code, label, "exec"), namespace)
            else:
                for argv in embgeo_commands(code):
                    status = main(argv)
                    if status != 0:
                        print(f"{where}: python -m embgeo {shlex.join(argv)} exited {status}", file=sys.stderr)
                        return 1
        except DownloadError as exc:
            print(f"{where}: a download failed (offline?): {exc}", file=sys.stderr)
            return DOWNLOAD_FAILED
        print(f"TIMING {where} {time.perf_counter() - start:.1f}", flush=True)
    left_open = _open_dask_objects(namespace)
    if left_open:
        print(f"{label} leaves Dask objects open: {left_open} (close them at the end of the example)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.path.pop(0)  # this script's folder (tests/): a page imports what a reader's session can import
    sys.exit(run(Path(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]))
