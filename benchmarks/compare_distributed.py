"""Exact top-k on Dask: 1 vs 2 worker processes, against the local search, in one run.

A random float32 database (default 200,000 × 64) is written once as an embgeo cache and loaded
memory-mapped, so the workers open their shards from the file themselves; 2,000 queries, k = 10,
cosine. Each worker has one thread (``threads_per_worker=1``), and so does the local reference
(``n_jobs=1``), so the ratio measures what sharding across processes buys and costs (scatter of the
queries, per-shard search, tree merge, gather). The local search on all this process's CPUs is
printed as well. Sharding (workers opening the file and normalising their rows) happens in the
untimed warm-up call, as it does once per database in real use.

Run::

    /work/venv/bin/python benchmarks/compare_distributed.py [--n 200000] [--dim 64] [--queries 2000]

The machine's CPU count and load average are printed: on a machine with fewer free cores than
workers, the two-worker run cannot be faster, and the table shows the overhead instead.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np


def best_of(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args(argv)

    from distributed import Client, LocalCluster

    import embgeo
    from embgeo.distributed import _cluster as cluster_module  # its shard cache, cleared between clusters
    from embgeo import neighbors as nb

    embgeo.set_progress(False)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((args.n, args.dim)).astype(np.float32)
    Q = np.ascontiguousarray(X[rng.choice(args.n, args.queries, replace=False)])
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{args.n} x {args.dim} float32, {args.queries} queries, k={args.k}, cosine; {cpus} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at start")

    rows = []
    nb.topk(Q[:8], X[:5000], args.k)  # JIT warm-up
    t1, (s_ref, i_ref) = best_of(lambda: nb.topk(Q, X, args.k, backend=nb.Exact(n_jobs=1)), args.repeat)
    rows.append(("local neighbors.topk, n_jobs=1", t1, "reference"))
    t, _ = best_of(lambda: nb.topk(Q, X, args.k), args.repeat)
    rows.append((f"local neighbors.topk, n_jobs={cpus}", t, ""))

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "db.embgeo")
        embgeo.save(embgeo.Embeddings([f"w{i}" for i in range(args.n)], X, check_finite=False), path)
        M = embgeo.load(path, mmap=True).vectors
        for w in args.workers:
            with LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                    Client(cluster) as client:
                t0 = time.perf_counter()
                on_cluster = nb.Dask(client=client)
                nb.topk(Q[:8], M, args.k, backend=on_cluster)  # shards opened by the workers, JIT warm-up
                warm = time.perf_counter() - t0
                t, (s, i) = best_of(lambda: nb.topk(Q, M, args.k, backend=on_cluster), args.repeat)
                same = np.array_equal(i, i_ref)
                rows.append((f"topk(backend='dask'), {w} worker(s) x 1 thread", t,
                             f"indices equal: {same}; max |score diff| {np.abs(s - s_ref).max():.1e}; "
                             f"first call (sharding + JIT) {warm:.1f} s"))
                cluster_module._CACHE.clear()  # the next cluster shards the map again

    print(f"\n| {'method':40s} | {'wall s':>7s} | {'x ref':>6s} | note")
    print(f"|{'-' * 42}|{'-' * 9}|{'-' * 8}|------")
    for name, sec, note in rows:
        print(f"| {name:40s} | {sec:7.2f} | {sec / t1:6.2f} | {note}")
    print(f"\nload average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
