"""Longer fuzz run of embgeo.load against gensim's reader (the property of tests/test_io_fuzz.py).

    /work/venv/bin/python benchmarks/fuzz_io.py [--examples 20000] [--seed N] [--small-parts]

For any generated file (random bytes; text and binary word2vec files, valid or mutated; gzipped,
sometimes truncated), ``embgeo.load`` must return exactly what gensim's ``load_word2vec_format``
returns, or raise ``FormatError`` naming the line / record and byte offset. Prints how many files
loaded, how many were rejected, and the first counterexample (hypothesis shrinks it).
"""
from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_io_fuzz import ANY_FILE, check  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=None, help="fixed seed (default: random)")
    ap.add_argument("--small-parts", action="store_true",
                    help="parse every line as its own part, on 4 threads (exercises the threaded paths)")
    args = ap.parse_args()
    if args.small_parts:
        import os

        from embgeo.io import _textparse as textparse

        textparse._PARALLEL_MIN_BYTES, textparse._STREAM_PART = 0, 1
        os.cpu_count = lambda: 4
    counts: collections.Counter = collections.Counter()
    tmp = Path(tempfile.mkdtemp(prefix="embgeo-fuzz-"))

    @settings(max_examples=args.examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=ANY_FILE)
    def prop(data):
        p = tmp / "fuzz.vec"
        p.write_bytes(data)
        counts[check(p, tmp)] += 1

    if args.seed is not None:
        prop = __import__("hypothesis").seed(args.seed)(prop)
    t = time.perf_counter()
    prop()
    print(f"{sum(counts.values())} files in {time.perf_counter() - t:.0f} s: {counts['ok']} loaded and equal "
          f"to gensim's reading, {counts['error']} rejected with a located FormatError; no other outcome")


if __name__ == "__main__":
    main()
