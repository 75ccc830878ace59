"""Search on quantised codes: embgeo's Hamming top-k vs FAISS IndexBinaryFlat, int8 top-k vs float32 search.

Two rows of the issue's speed table (issue 39), ratios measured in one run on the same threads:

* Hamming top-``k`` of ``--queries`` packed codes over ``--rows`` × ``--bits`` random bits:
  ``embgeo.neighbors.topk(Q, X, k, metric="hamming")`` against FAISS ``IndexBinaryFlat.search``
  (both with ``--threads`` threads; the lists are checked equal);
* int8 top-``k`` (``metric="dot"`` on int8 codes of GloVe 6B 50d, or of ``--rows`` × ``--dim`` random data
  with ``--random``) against the float32 exact engine (``metric="dot"``) on the float vectors they quantise.

The issue's sizes are ``--rows 1000000 --queries 10000 --bits 256``; the defaults are smaller so that
a run on a shared 2-core machine stays short. The load average is printed: timings taken while other
jobs run are noisy, ratios measured in one run less so.

Run::

    /work/venv/bin/python benchmarks/compare_quantized.py [--rows 200000] [--queries 1000] [--bits 256] [--k 10] \\
        [--random --dim 256]
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import best_of, glove_or_none, timed  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--bits", type=int, default=256)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--random", action="store_true", help="int8 rows on random data instead of GloVe")
    p.add_argument("--dim", type=int, default=50, help="dimensions of the random data (--random): 256 and 384 are "
                   "the Model2Vec and MiniLM widths")
    a = p.parse_args(argv)
    if a.dim != 50 and not a.random:
        p.error("--dim sets the width of random data: add --random (GloVe 6B is 50d)")

    import faiss
    import numba

    import embgeo
    from embgeo import neighbors as nb

    faiss.omp_set_num_threads(a.threads)
    numba.set_num_threads(a.threads)
    embgeo.set_progress(False)
    print(f"threads {a.threads}, load average before {os.getloadavg()}")

    rng = np.random.default_rng(0)
    X = rng.integers(0, 256, (a.rows, a.bits // 8), dtype=np.uint8)
    Q = rng.integers(0, 256, (a.queries, a.bits // 8), dtype=np.uint8)
    nb.topk(Q[:2], X[:100], a.k, metric="hamming")  # compile outside the timing
    index = faiss.IndexBinaryFlat(a.bits)
    index.add(X)
    t_e = best_of(lambda: nb.topk(Q, X, a.k, metric="hamming"), a.repeat)
    t_f = best_of(lambda: index.search(Q, a.k), a.repeat)
    d, i = nb.topk(Q, X, a.k, metric="hamming")
    fd, fi = index.search(Q, a.k)
    same = bool((d == fd).all() and (i == fi).all())
    print(f"Hamming top-{a.k}, {a.queries} queries × {a.rows} rows × {a.bits} bits")
    print(f"  embgeo                {t_e:8.3f} s")
    print(f"  FAISS IndexBinaryFlat {t_f:8.3f} s   FAISS / embgeo = {t_f / t_e:.2f}   same lists: {same}")

    e = None if a.random else glove_or_none()
    if e is None:
        e = embgeo.Embeddings([f"w{j}" for j in range(a.rows)],
                              rng.standard_normal((a.rows, a.dim)).astype(np.float32))
    q8 = embgeo.quantize(e, "int8")
    F = np.asarray(e.vectors)
    pick = rng.choice(len(e), min(a.queries, len(e)), replace=False)
    Q8, QF = q8.codes[pick], F[pick]
    nb.topk(Q8[:2], q8.codes[:100], a.k, metric="dot")
    nb.topk(QF[:2], F[:100], a.k, metric="dot")
    # wall and CPU seconds, the best of the repeats each: on a shared machine the CPU ratio is the steadier one
    w_8, c_8 = best_wall_cpu(lambda: nb.topk(Q8, q8.codes, a.k, metric="dot"), a.repeat)
    w_32, c_32 = best_wall_cpu(lambda: nb.topk(QF, F, a.k, metric="dot"), a.repeat)
    print(f"int8 top-{a.k} (dot), {len(pick)} queries × {len(e)} rows × {e.dim} dims")
    print(f"  embgeo int8 codes     {w_8:8.3f} s wall {c_8:8.3f} s CPU   ({q8.codes.nbytes / 2**20:.1f} MiB)")
    print(f"  embgeo float32        {w_32:8.3f} s wall {c_32:8.3f} s CPU   ({F.nbytes / 2**20:.1f} MiB)")
    print(f"  float32 / int8 = {w_32 / w_8:.2f} wall, {c_32 / c_8:.2f} CPU")
    print(f"load average after {os.getloadavg()}")


def best_wall_cpu(f, repeat):
    """The shortest wall and the shortest CPU seconds (this process, all threads) of ``repeat`` calls of ``f``."""
    runs = [timed(f)[1:] for _ in range(repeat)]
    return min(w for w, _ in runs), min(c for _, c in runs)


if __name__ == "__main__":
    main()
