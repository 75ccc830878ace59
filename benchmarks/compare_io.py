"""Time embgeo.io.load against gensim's KeyedVectors.load_word2vec_format (and pandas.read_csv)
on the same word2vec text files, in one run, best of N; print the ratios.

    /work/venv/bin/python benchmarks/compare_io.py [--rows 100000] [--dim 300] [--repeat 3]

The synthetic file holds float32 values N(0, 0.3^2) written with the shortest float32 repr (as
embgeo.io.save writes them; ~10 characters a number). The real file, when present, is
../shared/data/vectors/fi.floret.300d.30k.vec.gz (30,000 Finnish words, 300d, gzipped).
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

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "vectors" / "fi.floret.300d.30k.vec.gz"


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def load_gensim(path):
    from gensim.models import KeyedVectors

    return KeyedVectors.load_word2vec_format(str(path))


def load_pandas(path):
    import pandas as pd

    df = pd.read_csv(path, sep=" ", header=None, skiprows=1, quoting=csv.QUOTE_NONE, keep_default_na=False,
                     na_filter=False, engine="c")
    return df.iloc[:, 0].astype(str).tolist(), df.iloc[:, 1:].to_numpy(np.float32)


def compare(path, repeat, peers=("gensim", "pandas")):
    embgeo.set_progress(False)
    e = io.load(path)  # also checks the file parses, and warms the kernel cache
    rows = [("embgeo.io.load", best_of(lambda: io.load(path), repeat))]
    if "gensim" in peers:
        kv = load_gensim(path)
        assert kv.index_to_key == e.words and np.array_equal(kv.vectors, e.vectors), "gensim disagrees"
        rows.append(("gensim load_word2vec_format", best_of(lambda: load_gensim(path), repeat)))
    if "pandas" in peers:
        rows.append(("pandas.read_csv (C engine)", best_of(lambda: load_pandas(path), repeat)))
    base = rows[0][1]
    size = os.path.getsize(path) / 2**20
    print(f"\n{path.name}: {len(e)} x {e.dim}, {size:.0f} MiB on disk, best of {repeat}")
    print(f"{'reader':32s} {'seconds':>9s} {'x embgeo':>9s}")
    for name, t in rows:
        print(f"{name:32s} {t:9.3f} {t / base:9.1f}")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-pandas", action="store_true")
    args = ap.parse_args()
    peers = ("gensim",) if args.no_pandas else ("gensim", "pandas")
    rng = np.random.default_rng(0)
    X = (rng.standard_normal((args.rows, args.dim)) * 0.3).astype(np.float32)
    e = embgeo.Embeddings([f"word{i}" for i in range(args.rows)], X)
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        plain = io.save(e, Path(tmp) / "synthetic.vec", progress=False)
        t_save = time.perf_counter() - t
        gz = io.save(e, Path(tmp) / "synthetic.vec.gz", progress=False)
        print(f"(embgeo.io.save wrote {plain.name} in {t_save:.2f} s)")
        compare(plain, args.repeat, peers)
        compare(gz, args.repeat, peers)
    if SHARED.exists():
        compare(SHARED, args.repeat, peers)


if __name__ == "__main__":
    main()
