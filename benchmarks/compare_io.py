"""Time embgeo.io.load against gensim's KeyedVectors.load_word2vec_format (and pandas.read_csv)
on the same word2vec text files, in one run, best of N; print the ratios.

    /work/venv/bin/python benchmarks/compare_io.py [--rows 100000] [--dim 300] [--repeat 3] [--real-only | --synthetic-only]

The synthetic file holds float32 values N(0, 0.3^2) written with the shortest float32 repr (as
embgeo.io.save writes them; ~10 characters a number). The real files, when present, are
../shared/data/vectors/en.minilm-static.384d.50k.vec.gz (50,000 English words, 384d, 183 MB
inflated) and fi.floret.300d.30k.vec.gz (30,000 Finnish words, 300d). Also prints how long
inflating alone takes with zlib and with python-isal (which embgeo uses when installed).
"""
from __future__ import annotations

import argparse
import csv
import os
import tempfile
import time
from pathlib import Path

import numpy as np

import embgeo
from embgeo import io

VECTORS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "vectors"
SHARED = [VECTORS / "en.minilm-static.384d.50k.vec.gz", VECTORS / "fi.floret.300d.30k.vec.gz"]


def best_of(fn, repeat):
    """(wall seconds, CPU seconds of all threads) of the fastest of ``repeat`` runs."""
    best = (float("inf"), 0.0)
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        best = min(best, (time.perf_counter() - t, time.process_time() - c))
    return best


def load_gensim(path):
    from gensim.models import KeyedVectors

    return KeyedVectors.load_word2vec_format(str(path))


def load_pandas(path):
    import pandas as pd

    df = pd.read_csv(path, sep=" ", header=None, skiprows=1, quoting=csv.QUOTE_NONE, keep_default_na=False,
                     na_filter=False, engine="c")
    return df.iloc[:, 0].astype(str).tolist(), df.iloc[:, 1:].to_numpy(np.float32)


def load_baseline(path, repeat, checkout):
    """Best-of time of ``embgeo.io.load`` from another checkout (e.g. before a change), in a subprocess."""
    import json
    import subprocess
    import sys

    code = ("import json, sys, time, embgeo; embgeo.set_progress(False); p = sys.argv[1]; embgeo.io.load(p, limit=5)\n"
            "ts = []\nfor _ in range(int(sys.argv[2])):\n    t, c = time.perf_counter(), time.process_time(); "
            "embgeo.io.load(p); ts.append((time.perf_counter() - t, time.process_time() - c))\n"
            "print(json.dumps([min(ts), embgeo.__file__]))")
    env = dict(os.environ, PYTHONPATH=str(checkout))
    out = subprocess.run([sys.executable, "-c", code, str(Path(path).resolve()), str(repeat)], env=env, check=True,
                         cwd=checkout, capture_output=True, text=True).stdout
    times, module = json.loads(out.strip().splitlines()[-1])
    assert module.startswith(str(Path(checkout).resolve())), module
    return tuple(times)


def compare(path, repeat, peers=("gensim", "pandas"), baseline=None):
    embgeo.set_progress(False)
    e = io.load(path)  # also checks the file parses, and warms the kernel cache
    rows = [("embgeo.io.load", *best_of(lambda: io.load(path), repeat))]
    if baseline is not None:
        rows.append((f"embgeo.io.load from {baseline}", *load_baseline(path, repeat, baseline)))
    if "gensim" in peers:
        kv = load_gensim(path)
        assert kv.index_to_key == e.words and np.array_equal(kv.vectors, e.vectors), "gensim disagrees"
        rows.append(("gensim load_word2vec_format", *best_of(lambda: load_gensim(path), repeat)))
    if "pandas" in peers:
        rows.append(("pandas.read_csv (C engine)", *best_of(lambda: load_pandas(path), repeat)))
    if path.name.endswith(".gz"):
        import gzip

        raw = path.read_bytes()
        rows.append(("(inflate only: zlib)", *best_of(lambda: gzip.decompress(raw), repeat)))
        try:
            from isal import igzip

            rows.append(("(inflate only: isal)", *best_of(lambda: igzip.decompress(raw), repeat)))
        except ImportError:
            pass
    base, base_cpu = rows[0][1], rows[0][2]
    size = os.path.getsize(path) / 2**20
    print(f"\n{path.name}: {len(e)} x {e.dim}, {size:.0f} MiB on disk, best of {repeat}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"{'reader':36s} {'seconds':>9s} {'x embgeo':>9s} {'CPU s':>7s} {'x embgeo':>9s}")
    for name, t, c in rows:
        print(f"{name:36s} {t:9.3f} {t / base:9.1f} {c:7.2f} {c / base_cpu:9.1f}")
    print("(CPU s: CPU time of the process in the best run, all its threads: on a loaded machine the "
          "fairer measure of work done)")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-pandas", action="store_true")
    ap.add_argument("--real-only", action="store_true", help="only the real files in ../shared/data/vectors")
    ap.add_argument("--synthetic-only", action="store_true", help="only the synthetic files")
    ap.add_argument("--no-gensim", action="store_true")
    ap.add_argument("--baseline", metavar="CHECKOUT", default=None,
                    help="also time embgeo.io.load from another checkout (e.g. ../../main, before a change)")
    args = ap.parse_args()
    peers = tuple(p for p, off in (("gensim", args.no_gensim), ("pandas", args.no_pandas)) if not off)
    for path in [] if args.synthetic_only else SHARED:
        if path.exists():
            compare(path, args.repeat, peers, args.baseline)
    if args.real_only:
        return
    rng = np.random.default_rng(0)
    X = (rng.standard_normal((args.rows, args.dim)) * 0.3).astype(np.float32)
    e = embgeo.Embeddings([f"word{i}" for i in range(args.rows)], X)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        plain = io.save(e, Path(tmp) / "synthetic.vec", progress=False)
        t_save = time.perf_counter() - t
        gz = io.save(e, Path(tmp) / "synthetic.vec.gz", progress=False)
        print(f"(embgeo.io.save wrote {plain.name} in {t_save:.2f} s)")
        compare(plain, args.repeat, peers, args.baseline)
        compare(gz, args.repeat, peers, args.baseline)


if __name__ == "__main__":
    main()
