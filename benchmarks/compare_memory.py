"""Extra memory of exact cosine top-k, as a share of the matrix searched (issues 11 and 17).

Two cases, each in a fresh subprocess so nothing is cached from an earlier call:

* **in memory**: an ``Embeddings`` of ``--n`` × ``--dim`` random float32 vectors, the first
  ``e.neighbors(words, 10)`` call (its unit-norm state built from scratch);
* **memory-mapped**: the same search on an embgeo cache of ``--mmap-n`` × ``--dim`` written with
  ``embgeo.save`` to ``--dir`` (default /tmp) and opened with ``embgeo.load(..., mmap=True)``.

"Extra" is the peak of the process's *anonymous* resident memory (``RssAnon`` in
/proc/self/status, sampled every 5 ms by a thread) minus its value just before the call, so
pages of a memory-mapped file, which the kernel can drop at will, do not count; the tracemalloc
peak (NumPy's allocations) is printed beside it. The matrix's size is the denominator.

``--pythonpath DIR`` runs the measurement against another checkout (e.g. ``/work/main``) to
compare before and after in one run. Linux only (reads /proc).

Run::

    python benchmarks/compare_memory.py [--n 400000] [--dim 300] [--queries 2000]
        [--mmap-n 2000000] [--pythonpath /work/main] [--skip-mmap]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(r"""
    import json, os, sys, threading, time, tracemalloc
    import numpy as np
    import embgeo

    def anon():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
        return 0

    mode, path, n, d, q = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    if mode == "mmap":
        e = embgeo.load(path, mmap=True)
    else:
        X = np.random.default_rng(0).standard_normal((n, d)).astype(np.float32)
        e = embgeo.Embeddings([f"w{i}" for i in range(n)], X, check_finite=False)
        del X
    words = [e.words[i] for i in np.random.default_rng(1).choice(len(e), q, replace=False)]
    small = embgeo.Embeddings(["a", "b", "c"], np.eye(3, dtype=np.float32))
    small.neighbors(["a"], 1)  # compile / load the Numba kernels outside the measurement
    peak = [0]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], anon())
            time.sleep(0.005)

    tracemalloc.start()
    start = anon()
    peak[0] = start
    t = threading.Thread(target=sample, daemon=True)
    t.start()
    t0 = time.perf_counter()
    s, i = e.neighbors(words, 10)
    secs = time.perf_counter() - t0
    stop.set()
    t.join()
    traced = tracemalloc.get_traced_memory()[1]
    print(json.dumps({"extra": max(peak[0], anon()) - start, "traced": traced, "seconds": secs,
                      "matrix": int(e.vectors.nbytes), "module": embgeo.__file__}))
""")


def make_cache(path, n, d):
    """Write an embgeo cache of ``n`` × ``d`` random float32 rows without holding them in memory."""
    import numpy as np

    import embgeo

    tmp = path + ".raw.npy"
    M = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.float32, shape=(n, d))
    rng = np.random.default_rng(0)
    for s in range(0, n, 100_000):
        M[s:s + 100_000] = rng.standard_normal((min(100_000, n - s), d), dtype=np.float32)
    M.flush()
    e = embgeo.Embeddings([f"w{i}" for i in range(n)], np.load(tmp, mmap_mode="r"), check_finite=False)
    embgeo.save(e, path)
    del e, M
    os.remove(tmp)


def measure(mode, path, n, d, q, pythonpath):
    env = dict(os.environ, EMBGEO_QUIET="1")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    # run from the checkout itself: ``python -c`` puts the working directory first on sys.path
    out = subprocess.run([sys.executable, "-c", CHILD, mode, path, str(n), str(d), str(q)], env=env,
                         cwd=pythonpath, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(label, r):
    mib = 2**20
    print(f"{label:<34} matrix {r['matrix'] / mib:8.0f} MiB   extra anon {r['extra'] / mib:7.0f} MiB "
          f"= {r['extra'] / r['matrix']:5.2f}x   tracemalloc {r['traced'] / mib:7.0f} MiB   {r['seconds']:6.1f} s")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=400_000)
    p.add_argument("--dim", type=int, default=300)
    p.add_argument("--queries", type=int, default=2000)
    p.add_argument("--mmap-n", type=int, default=2_000_000)
    p.add_argument("--dir", default="/tmp")
    p.add_argument("--pythonpath", default=None, help="also measure this checkout (e.g. /work/main)")
    p.add_argument("--skip-mmap", action="store_true")
    a = p.parse_args(argv)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runs = [("this checkout", here)] + ([("--pythonpath", a.pythonpath)] if a.pythonpath else [])
    print(f"exact cosine top-10 of {a.queries} query words, first call; load average {os.getloadavg()[0]:.1f}")
    for name, pp in runs:
        r = measure("memory", "-", a.n, a.dim, a.queries, pp)
        report(f"in memory {a.n}x{a.dim} [{name}]", r)
    if not a.skip_mmap:
        path = os.path.join(a.dir, f"embgeo_mem_{a.mmap_n}x{a.dim}.embgeo")
        if not os.path.exists(path):
            make_cache(path, a.mmap_n, a.dim)
        for name, pp in runs:
            r = measure("mmap", path, a.mmap_n, a.dim, a.queries, pp)
            report(f"memory-mapped {a.mmap_n}x{a.dim} [{name}]", r)
        print(f"(cache left at {path}; delete it when done)")


if __name__ == "__main__":
    main()
