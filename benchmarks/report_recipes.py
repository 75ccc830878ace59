"""Mapping recipes on en → fi BLI over several splits of the dictionary, with intervals and paired tests
(docs/crosslingual.md, "How sure is the ranking").

    OPENBLAS_NUM_THREADS=1 python benchmarks/report_recipes.py [--seeds 0 1 2 3 4] [--reg 5 50 500 5000]
        [--methods supervised orthogonal rcsls geomm] [--json recipes.json]

The protocol of docs/crosslingual.md's tables: GloVe 6B 50d (the embedded vectors, first 200k words) →
Finnish floret 300d (30k words, ``../shared/data``), the yacle 5k en-fi dictionary (Glavaš et al. 2019)
lower-cased, NN and CSLS retrieval (k = 10, r_S over the 20k most frequent mapped English words), P@1
over the covered held-out source words. The held-out words are drawn by ``split_dictionary(pairs, 0.2,
random_state=seed)`` for each ``--seeds`` (seed 0 is the split of the page's tables), so the recipes are
ranked on five different sets of test words, each with its own training pairs.

For each split: every recipe's P@1 with its 95 % bootstrap interval over the test words (BCa, 9,999
resamples, ``BLIResult.ci``), and exact McNemar tests between every two recipes with the same retrieval
(``embgeo.evaluate.compare``: the test words one gets right and the other wrong). The summary
counts, for each pair, the splits where the difference is significant (p < 0.05) in each direction.

GeoMM's weight C (``--reg``; C = l2_reg / 2 of the released code) is chosen without the test words too:
the training pairs are split again (``split_dictionary(train, 0.2, random_state=100 + seed)``), each C
is fitted on the rest and scored by CSLS P@1 on those validation words; the C chosen is printed per split.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import time
from pathlib import Path

os.environ.setdefault("EMBGEO_QUIET", "1")

import numpy as np  # noqa: E402

import embgeo  # noqa: E402
from embgeo.crosslingual import Mapper, Mapping  # noqa: E402
from embgeo.data import read_dictionary, split_dictionary  # noqa: E402
from embgeo.evaluate import bli, compare  # noqa: E402

DATA = Path(os.environ.get("EMBGEO_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
RETRIEVALS = ("nn", "csls")
SOURCE_SIZE = 20_000


def _models(methods, regs):
    out = {}
    if "supervised" in methods:
        out["VecMap supervised"] = lambda: Mapper(progress=False)
    if "orthogonal" in methods:
        out["Procrustes"] = lambda: Mapper(mapping=Mapping("orthogonal"), progress=False)
    if "rcsls" in methods:
        out["RCSLS"] = lambda: Mapper.from_recipe("rcsls", progress=False)
    if "geomm" in methods:
        for C in regs:
            out[f"GeoMM C={C:g}"] = lambda C=C: Mapper.from_recipe("geomm", mapping__reg=C, progress=False)
    return out


def _choose_reg(en, fi, train, seed, regs):
    """GeoMM's C by CSLS P@1 on validation words drawn from the training pairs only."""
    inner, val = split_dictionary(train, 0.2, random_state=100 + seed)
    scores = {}
    for C in regs:
        xs, zt = Mapper.from_recipe("geomm", mapping__reg=C, progress=False).fit(en, fi, inner).transform(en, fi)
        scores[C] = bli(xs, zt, val, retrieval="csls", source_size=SOURCE_SIZE, progress=False).p_at(1)
    return max(scores, key=lambda C: (scores[C], -C)), scores


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--reg", type=float, nargs="+", default=[5.0, 50.0, 500.0, 5000.0])
    ap.add_argument("--methods", nargs="+", default=["supervised", "orthogonal", "rcsls", "geomm"])
    ap.add_argument("--alpha", type=float, default=0.05, help="level of the McNemar tests")
    ap.add_argument("--json", help="write every split's results here")
    args = ap.parse_args(argv)
    embgeo.set_progress(False)
    load0 = os.getloadavg()
    en = embgeo.load("glove-6b-50d", limit=200_000)
    fi = embgeo.load(str(DATA / "vectors" / "fi.floret.300d.30k.vec.gz"))
    pairs = read_dictionary(DATA / "bli" / "yacle.train.freq.5k.en-fi.tsv", lowercase=True)
    models = _models(args.methods, args.reg)
    print(f"en {len(en)} x {en.dim} -> fi {len(fi)} x {fi.dim}; {len(pairs)} dictionary pairs; "
          f"load average at the start {load0[0]:.1f} {load0[1]:.1f} {load0[2]:.1f}", flush=True)
    splits = []  # one dict per split: its results, fit times, chosen C, tests and table rows
    for seed in args.seeds:
        train, test = split_dictionary(pairs, 0.2, random_state=seed)
        results, fit_s = {}, {}
        for name, make in models.items():
            t0 = time.perf_counter()
            xs, zt = make().fit(en, fi, train).transform(en, fi)
            fit_s[name] = time.perf_counter() - t0
            for r in RETRIEVALS:
                results[name, r] = bli(xs, zt, test, retrieval=r, source_size=SOURCE_SIZE, progress=False)
            print(f"split {seed}: {name} fitted in {fit_s[name]:.1f} s; P@1 "
                  + ", ".join(f"{r} {100 * results[name, r].p_at(1):.1f}" for r in RETRIEVALS), flush=True)
        chosen, val = _choose_reg(en, fi, train, seed, args.reg) if "geomm" in args.methods else (None, {})
        n_test = next(iter(results.values())).n
        print(f"split {seed}: {len(train)} training pairs, {n_test} covered test words of "
              f"{len({s for s, _ in test})}; GeoMM's C by validation: {chosen} "
              f"({', '.join(f'{C:g}: {100 * p:.1f}' for C, p in val.items())})", flush=True)
        tests = {(a, b, r): compare(results[a, r], results[b, r], test="mcnemar", labels=(a, b))
                 for r in RETRIEVALS for a, b in itertools.combinations(models, 2)}
        intervals = {key: res.ci(random_state=seed) for key, res in results.items()}
        splits.append({"split": seed, "n_train": len(train), "n_test": n_test, "chosen_C": chosen,
                       "validation_p@1": {f"{C:g}": p for C, p in val.items()},
                       "rows": [{"recipe": name, "retrieval": r, "p@1": res.p_at(1), "low": intervals[name, r][0],
                                 "high": intervals[name, r][1], "n": res.n, "fit_s": fit_s[name]}
                                for (name, r), res in results.items()],
                       "mcnemar": [{"a": a, "b": b, "retrieval": r, "right_a_only": c.details.get("b"),
                                    "right_b_only": c.details.get("c"), "difference": c.difference, "p": c.p_value}
                                   for (a, b, r), c in tests.items()],
                       "_results": results, "_intervals": intervals, "_tests": tests, "_fit_s": fit_s})

    # ---- tables
    names = list(models)
    print(f"\nP@1 (%) with 95 % BCa intervals over the covered test words, per split (seeds {args.seeds}):\n")
    print("| recipe | retrieval | " + " | ".join(f"split {s}" for s in args.seeds) + " | mean |")
    print("|---|---|" + "---:|" * (len(args.seeds) + 1))
    for name in names:
        for r in RETRIEVALS:
            ps = [sp["_results"][name, r].p_at(1) for sp in splits]
            bounds = [sp["_intervals"][name, r] for sp in splits]
            cells = [f"{100 * p:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]" for p, (lo, hi) in zip(ps, bounds)]
            print(f"| {name} | {r} | " + " | ".join(cells) + f" | {100 * np.mean(ps):.1f} |")
    print(f"\nMcNemar (exact, p < {args.alpha}): splits where the row's recipe is significantly better / worse "
          "than the column's, and the mean P@1 difference (points):\n")
    for r in RETRIEVALS:
        print(f"{r}:\n")
        print("| recipe | " + " | ".join(names) + " |")
        print("|---|" + "---:|" * len(names))
        for a in names:
            cells = []
            for b in names:
                if a == b:
                    cells.append("")
                    continue
                better = worse = 0
                diffs = []
                for sp in splits:
                    tests = sp["_tests"]
                    c = tests[a, b, r] if (a, b, r) in tests else tests[b, a, r]
                    d = c.difference if (a, b, r) in tests else -c.difference
                    diffs.append(d)
                    if c.p_value < args.alpha:
                        better += d > 0
                        worse += d < 0
                cells.append(f"{better}/{worse} ({100 * np.mean(diffs):+.1f})")
            print(f"| {a} | " + " | ".join(cells) + " |")
        print()
    if "geomm" in args.methods:
        print("GeoMM's C chosen on validation words: "
              + ", ".join(f"split {sp['split']}: {sp['chosen_C']:g}" for sp in splits))
    print("mean fit seconds: " + ", ".join(f"{n} {np.mean([sp['_fit_s'][n] for sp in splits]):.1f}" for n in names))
    print(f"load average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if args.json:
        record = [{k: v for k, v in sp.items() if not k.startswith("_")} for sp in splits]
        Path(args.json).write_text(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
