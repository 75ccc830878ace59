"""Geometric meta-embeddings (embgeo.meta): iteration time is flat in n, and the paper's Table 1.

    python benchmarks/compare_meta.py timing [--sizes 10000 50000 200000] [--iterations 20]
    python benchmarks/compare_meta.py table1 [--iterations 300] [--C 1.0 [50 ...]] [--dims 384 50] [--analogy all|geo|none]

``timing``: synthetic sources of 50 and 384 dimensions (the shapes of GloVe 6B 50d and MiniLM
static vectors). The one-off Gram precomputation (O(n·d²), blocked float64) is timed apart from
the Riemannian CG iterations (O(d³) each, independent of n); ratios are relative to the smallest n.

``table1``: Jawanpuria et al. (2020), Table 1 protocol on GloVe 6B 50d and
en.minilm-static.384d.50k over their common vocabulary: the sources, CONC, AVG, SVD, Geo-CONC
and Geo-AVG, Spearman's rho (cosine) on the shared word-similarity sets (their mean over all seven, and
"Avg(WS)" over the paper's six: RG, MC, WS, MTurk, RW, SimLex) and Google
analogy accuracy (3CosAdd, candidates = the whole common vocabulary). Each geometric fit is shown
twice: with unit-length mapped sources (``normalize_mapped=True``, the released code, the default)
and with the paper's formula as written (rows marked "raw").
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def timing(args):
    from embgeo.meta import GeometricMetaEmbedding, _pair_grams

    rng = np.random.default_rng(0)
    d1, d2 = 50, 384
    n_max = max(args.sizes)
    # correlated sources, so the optimisation has something to find
    base = rng.standard_normal((n_max, d1)).astype(np.float32)
    mix = rng.standard_normal((d1, d2)).astype(np.float32)
    X_all = base
    Z_all = base @ mix + rng.standard_normal((n_max, d2)).astype(np.float32)
    _pair_grams([X_all[:2000], Z_all[:2000]])  # warm-up: BLAS threads, imports
    rows = []
    for n in args.sizes:
        X, Z = X_all[:n], Z_all[:n]
        gme = GeometricMetaEmbedding(C=1.0, max_iter=args.iterations, tol=0.0, normalize=None,
                                     progress=False)
        t0 = time.perf_counter()
        G = _pair_grams([X, Z])
        t_gram = time.perf_counter() - t0
        t0 = time.perf_counter()
        gme._fit_grams(G, n, [d1, d2], d2)
        t_iter = (time.perf_counter() - t0) / gme.n_iter_
        rows.append((n, t_gram, t_iter, gme.n_iter_))
        del G
    g0, i0 = rows[0][1], rows[0][2]
    print(f"sources 50d + 384d, common dim 384, C = 1, {args.iterations} CG iterations (tol = 0)")
    print(f"{'n':>8}{'Gram s':>10}{'ratio':>8}{'s / iteration':>16}{'ratio':>8}{'iters':>7}")
    for n, tg, ti, it in rows:
        print(f"{n:>8}{tg:>10.3f}{tg / g0:>8.2f}{ti:>16.4f}{ti / i0:>8.2f}{it:>7}")
    print("Gram time grows like n; the per-iteration time does not depend on n.")


def _sources():
    import embgeo

    glove = embgeo.load("glove-6b-50d")
    minilm = embgeo.io.load(SHARED / "vectors" / "en.minilm-static.384d.50k.vec.gz")
    return glove, minilm


def table1(args):
    from embgeo.evaluate import analogy, word_similarity
    from embgeo.meta import GeometricMetaEmbedding, average, concatenate, concatenate_svd

    t0 = time.perf_counter()
    glove, minilm = _sources()
    g, m = glove.intersect(minilm)
    print(f"GloVe 6B 50d ({len(glove)} words) ∩ MiniLM static 384d ({len(minilm)} words): "
          f"{len(g)} common words (GloVe order); loaded in {time.perf_counter() - t0:.1f} s")
    models = {"GloVe 50d": g, "MiniLM 384d": m}
    t0 = time.perf_counter()
    models["CONC (434d)"] = concatenate([g, m])
    models["AVG (384d, zero-pad)"] = average([g, m])
    models[f"SVD ({args.svd_dim}d)"] = concatenate_svd([g, m], dim=args.svd_dim)
    print(f"baselines: {time.perf_counter() - t0:.1f} s")
    fits = []
    for C in args.C:
        for dim in args.dims:
            gme = GeometricMetaEmbedding(C=C, dim=dim, max_iter=args.iterations, progress=False)
            t0 = time.perf_counter()
            gme.fit([g, m])
            t_fit = time.perf_counter() - t0
            fits.append((C, gme.dim_, gme.n_iter_, gme.cost_history_[0], gme.cost_, t_fit,
                         gme.stopping_criterion_))
            tag = f" C={C:g}" if len(args.C) > 1 else ""
            # released code (unit-length mapped sources, the default) and the paper's formula as written
            for unit in (True, False):
                gme.set_params(normalize_mapped=unit)
                suffix = "" if unit else " raw"
                models[f"Geo-CONC {2 * gme.dim_}d{tag}{suffix}"] = gme.transform([g, m], kind="geo-conc")
                models[f"Geo-AVG {gme.dim_}d{tag}{suffix}"] = gme.transform([g, m], kind="geo-avg")
    for C, dim, it, c0, c1, t, why in fits:
        print(f"fit C={C:g} dim={dim}: {it} iterations, cost {c0:.6g} -> {c1:.6g}, {t:.1f} s ({why})")

    sim_sets = sorted((SHARED / "wordsim").glob("*.txt"))
    names = [p.stem.removeprefix("EN-") for p in sim_sets]
    paper6 = [i for i, n in enumerate(names) if not n.startswith("MEN")]   # the paper's Avg.(WS) sets
    header = (f"{'model':<24}" + "".join(f"{n[:10]:>11}" for n in names) + f"{'mean':>7}{'Avg(WS)':>9}"
              + (f"{'Google':>9}{'sem':>7}{'syn':>7}" if args.analogy != "none" else ""))
    print(f"\nSpearman rho x 100 (cosine; pairs covered by the common vocabulary) and Google analogy "
          f"accuracy x 100 (3CosAdd over all {len(g)} common words)")
    print(header)
    coverage = None
    for name, e in models.items():
        sims = [word_similarity(e, p) for p in sim_sets]
        run_an = args.analogy == "all" or (args.analogy == "geo" and name.startswith("Geo") and "raw" not in name)
        an = analogy(e, "google-analogy", restrict_vocab=None, progress=False) if run_an else None
        coverage = (sims, an if an is not None else (coverage[1] if coverage else None))
        mean = 100 * float(np.mean([r.spearman for r in sims]))
        avg_ws = 100 * float(np.mean([sims[i].spearman for i in paper6]))
        print(f"{name:<24}" + "".join(f"{100 * r.spearman:>11.1f}" for r in sims) + f"{mean:>7.1f}{avg_ws:>9.1f}"
              + (f"{100 * an.accuracy:>9.1f}{100 * an.semantic_accuracy:>7.1f}"
                 f"{100 * an.syntactic_accuracy:>7.1f}" if an is not None else ""))
    sims, an = coverage
    print("pairs   " + " ".join(f"{r.dataset[:10]}={r.n_found}/{r.n_total}" for r in sims)
          + (f"; analogy questions {an.n_evaluated}/{an.n_total}" if an is not None else ""))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd")
    t = sub.add_parser("timing")
    t.add_argument("--sizes", type=int, nargs="+", default=[10000, 50000, 200000])
    t.add_argument("--iterations", type=int, default=20)
    r = sub.add_parser("table1")
    r.add_argument("--iterations", type=int, default=300)
    r.add_argument("--C", type=float, nargs="+", default=[1.0])
    r.add_argument("--analogy", choices=["all", "geo", "none"], default="all",
                   help="Google analogies for every model, for the default geometric rows only, or none")
    r.add_argument("--dims", type=int, nargs="+", default=[384, 50])
    r.add_argument("--svd-dim", type=int, default=384)
    args = ap.parse_args(argv)
    import embgeo

    embgeo.set_progress(False)
    if args.cmd == "table1":
        table1(args)
    else:
        if args.cmd is None:
            args = ap.parse_args(["timing", *(argv or [])])
        timing(args)


if __name__ == "__main__":
    main()
