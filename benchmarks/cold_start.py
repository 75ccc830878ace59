"""First-call cost of each compiled path on a fresh install (issue 22).

embgeo's Numba kernels are compiled on first use and cached on disk (``cache=True``): a fresh
install pays the compilation once, every later process loads the machine code from the cache.
This script measures that once-per-install cost path by path: each path runs in a new process
with an empty ``NUMBA_CACHE_DIR`` (a fresh install), twice in that process (the second call is the
warm time), and then once more in a new process that reuses the now-filled cache (what every
later session pays). The data are loaded before the clock starts, so the numbers are the call
alone.

    python benchmarks/cold_start.py [--paths neighbors,evaluate,...]

The last column is what the first call costs in every process after the first one: the cache
load, not a compilation.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"

SETUP = """
import time, numpy as np, embgeo
embgeo.set_progress(False)
e = embgeo.load("glove-6b-50d")
words = e.words[1000:2000]
"""

#: path name -> (setup lines after SETUP, the call whose first and second runs are timed)
PATHS = {
    "neighbors (1 query)": ("", "e.neighbors(['king'], k=10)"),
    "neighbors (1k queries)": ("", "e.neighbors(words, k=10)"),
    "CSLS search (1k queries)": ("from embgeo import neighbors",
                                 "neighbors.search(e, words, k=10, metric='csls')"),
    "most_similar": ("", "e.most_similar(positive=['king', 'woman'], negative=['man'], topn=3)"),
    "word similarity + analogy": ("from embgeo.evaluate import word_similarity, analogy",
                                  "word_similarity(e, 'wordsim353'); analogy(e, 'google-analogy')"),
    "fuzzy CE neighbors (100 queries)": (
        "from embgeo import fuzzy\nF = fuzzy.FuzzyEmbeddings.from_embeddings(e)",
        "F.neighbors(words[:100], k=10)"),
    "synonym table (20k words)": (
        "from embgeo import negatives\nsmall = e.top(20000)",
        "negatives.synonym_table(small, k=10)"),
    "load word2vec text .gz (floret 30k)": (
        f"path = {str(SHARED / 'vectors' / 'fi.floret.300d.30k.vec.gz')!r}",
        "embgeo.load(path)"),
}

CHILD = """
{setup}
{extra}
t0 = time.perf_counter(); {call}
t1 = time.perf_counter(); {call}
t2 = time.perf_counter()
print(f"{{t1 - t0:.3f}} {{t2 - t1:.3f}}")
"""


def _run(code: str, cache: str) -> tuple[float, float]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr.strip().splitlines()[-1])
    first, second = out.stdout.split()[-2:]
    return float(first), float(second)


def _evaluate_cli(cache: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "embgeo", "evaluate", "--quiet"], env=env, cwd=REPO,
                   capture_output=True, check=False)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--paths", default=",".join(PATHS), help="comma-separated names (default: all)")
    args = ap.parse_args(argv)
    wanted = [p.strip() for p in args.paths.split(",") if p.strip()]
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"{'path':38s} {'fresh first':>12s} {'warm':>8s} {'cached first':>13s}")
    for name in wanted:
        extra, call = PATHS[name]
        if "floret" in name and not (SHARED / "vectors").is_dir():
            print(f"{name:38s} (skipped: ../shared/data not found)")
            continue
        code = CHILD.format(setup=SETUP, extra=extra, call=call)
        with tempfile.TemporaryDirectory() as cache:
            first, warm = _run(code, cache)
            cached_first, _ = _run(code, cache)
        print(f"{name:38s} {first:11.2f}s {warm:7.2f}s {cached_first:12.2f}s")
    with tempfile.TemporaryDirectory() as cache:
        fresh = _evaluate_cli(cache)
        cached = _evaluate_cli(cache)
    print(f"{'python -m embgeo evaluate (whole run)':38s} {fresh:11.2f}s {'':>8s} {cached:12.2f}s")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
