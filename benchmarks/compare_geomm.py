"""GeoMM (embgeo.crosslingual.geomm) on English → Finnish BLI, and its iteration time against the released code.

    python benchmarks/compare_geomm.py bli [--src glove|minilm] [--reg 50 500] [--methods supervised rcsls geomm]
    python benchmarks/compare_geomm.py timing [--python /tmp/ref-geomm/bin/python] [--iterations 150]

``bli``: the protocol of docs/crosslingual.md: GloVe 6B 50d (first 200k words; ``--src minilm``:
en.minilm-static 384d, 50k) → Finnish floret 300d (30k), the yacle 5k en-fi dictionary split by
source word (``split_dictionary(pairs, 0.2)``), 955 held-out source words, P@1 / P@10 / MRR over the
covered ones, NN and CSLS (k = 10, r_S over the 20k most frequent mapped English words). Rows:
VecMap supervised (``Mapper()``), RCSLS (``Mapper.from_recipe("rcsls")``) and GeoMM
(``Mapper.from_recipe("geomm", mapping__reg=C)`` for each ``--reg``; C = l2_reg / 2 of the released code).

``timing``: the released ``geomm.py`` (dense |D_s| × |D_t| residual, Theano autodiff) and
``geomm_optimized.py`` (Gram form, Theano autodiff), run unchanged with pymanopt 0.2.5 in the
environment of ``benchmarks/reference/geomm_golden.py`` (CuPy stubbed by NumPy, one BLAS thread),
against :func:`embgeo.crosslingual.geomm.geomm` (Gram form, analytic gradients, pymanopt 2) on the
same normalised en-fi training dictionary, for ``--iterations`` CG iterations (``geomm.py``,
whose every cost evaluation forms the |D_s| × |D_t| residual, for ``--dense-iterations``);
d = 50 latent dimensions, 50 → 300. Per-iteration seconds are the solver's own time divided by its iterations
(pymanopt's "after N seconds" for the reference), so file reading and evaluation do not count.
Final costs include the constant ‖A‖²_F (which ``geomm_optimized.py`` leaves out and is added back).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent / "reference"))


def _load(src):
    import embgeo
    from embgeo.data import read_dictionary, split_dictionary

    embgeo.set_progress(False)
    if src == "glove":
        en = embgeo.load("glove-6b-50d", limit=200_000)
    else:
        en = embgeo.load(SHARED / "vectors" / "en.minilm-static.384d.50k.vec.gz")
    fi = embgeo.load(SHARED / "vectors" / "fi.floret.300d.30k.vec.gz")
    pairs = read_dictionary(SHARED / "bli" / "yacle.train.freq.5k.en-fi.tsv", lowercase=True)
    train, test = split_dictionary(pairs, 0.2)
    return en, fi, train, test


def bli_table(args):
    from embgeo.crosslingual import Mapper
    from embgeo.evaluate import bli

    en, fi, train, test = _load(args.src)
    models = {}
    if "supervised" in args.methods:
        models["VecMap supervised (Mapper())"] = Mapper(progress=False)
    if "rcsls" in args.methods:
        models["RCSLS (recipe 'rcsls')"] = Mapper.from_recipe("rcsls", progress=False)
    for C in args.reg if "geomm" in args.methods else ():
        models[f"GeoMM (recipe 'geomm', C = {C:g})"] = Mapper.from_recipe("geomm", mapping__reg=C, progress=False)
    print(f"en {len(en)} x {en.dim} -> fi {len(fi)} x {fi.dim}; {len(train)} training pairs, "
          f"{len({s for s, _ in test})} held-out source words; load {os.getloadavg()[0]:.1f}")
    print(f"| method | retrieval | P@1 | P@10 | MRR | fit (s) |")
    print("|---|---|---:|---:|---:|---:|")
    for name, m in models.items():
        t0 = time.perf_counter()
        xs, zt = m.fit(en, fi, train).transform(en, fi)
        fit = time.perf_counter() - t0
        for r in ("nn", "csls"):
            res = bli(xs, zt, test, retrieval=r, source_size=20000, progress=False)
            print(f"| {name} | {r} | {100 * res.p_at(1):.1f} | {100 * res.p_at(10):.1f} | {100 * res.mrr:.1f} | "
                  f"{fit:.1f} |", flush=True)
    print(f"coverage {res.coverage:.3f} ({res.n} queries); load average {os.getloadavg()}")


def timing(args):
    from embgeo.crosslingual import dictionary_indices
    from embgeo.crosslingual.geomm import geomm
    from embgeo.normalize import normalize
    from geomm_golden import run_reference_files

    en, fi, train, _ = _load("glove")
    si, ti = dictionary_indices(en, fi, train)
    # the reference reads text files: the 20k most frequent English words (the dictionary's
    # English words are among them or dropped as OOV by both) and the 30k Finnish ones
    n_en = 20000
    keep = np.asarray(si) < n_en
    si, ti = np.asarray(si)[keep], np.asarray(ti)[keep]
    en = en.top(n_en)
    X = normalize(en.vectors, "unit", "center")
    Z = normalize(fi.vectors, "unit", "center")
    C = args.reg
    print(f"{len(si)} training pairs ({len(set(si.tolist()))} distinct English, {len(set(ti.tolist()))} "
          f"distinct Finnish words), 50 -> 300, C = {C:g}, {args.iterations} CG iterations; "
          f"load {os.getloadavg()}")
    print(f"{'program':<30}{'solver s':>10}{'iterations':>12}{'s / iteration':>15}{'final cost':>16}{'ratio':>8}")
    base = None

    def row(name, t, n, f):
        nonlocal base
        base = t / n if base is None else base
        print(f"{name:<30}{t:>10.2f}{n:>12d}{t / n:>15.4f}{f:>16.6f}{(t / n) / base:>8.1f}", flush=True)

    geomm(X, Z, si[:50], ti[:50], C=C, max_iter=3, progress=False)  # warm-up: imports, BLAS
    t0 = time.perf_counter()
    res = geomm(X, Z, si, ti, C=C, max_iter=args.iterations, tol=0.0, progress=False)
    row("embgeo geomm()", time.perf_counter() - t0, len(res.cost_history), res.cost)
    if not args.no_reference:
        pairs = np.stack([si, ti], axis=1)
        for script, iters in (("geomm_optimized.py", args.iterations), ("geomm.py", args.dense_iterations)):
            out = run_reference_files(args.python, args.repo, en.words, en.vectors, fi.words, fi.vectors, pairs,
                                      pairs[:10], 2 * C, iters, script=script)
            # geomm_optimized.py's cost leaves out the constant ‖A‖²_F (the number of distinct pairs)
            const = len({(a, b) for a, b in pairs.tolist()}) if script == "geomm_optimized.py" else 0
            row(f"released {script}", out["seconds"], out["n_iter"], out["cost"] + const)
    print(f"load average after: {os.getloadavg()}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("bli")
    b.add_argument("--src", choices=["glove", "minilm"], default="glove")
    b.add_argument("--reg", type=float, nargs="+", default=[50.0, 500.0])
    b.add_argument("--methods", nargs="+", choices=["supervised", "rcsls", "geomm"],
                   default=["supervised", "rcsls", "geomm"])
    t = sub.add_parser("timing")
    t.add_argument("--python", default="/tmp/ref-geomm/bin/python")
    t.add_argument("--repo", default="/work/.mirror/anoopkunchukuttan+geomm/repo")
    t.add_argument("--iterations", type=int, default=150)
    t.add_argument("--dense-iterations", type=int, default=20,
                   help="iterations of the released geomm.py (its dense residual makes each one slow)")
    t.add_argument("--reg", type=float, default=50.0)
    t.add_argument("--no-reference", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory():
        (bli_table if args.cmd == "bli" else timing)(args)


if __name__ == "__main__":
    main()
