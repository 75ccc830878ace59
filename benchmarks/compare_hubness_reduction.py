"""Hubness reduction on real data: N_10 skewness, en→fi BLI, and the time of each criterion against CSLS.

    /work/venv/bin/python benchmarks/compare_hubness_reduction.py [--words 20000] [--k 10] [--bli-vocab 50000]
                                                                  [--repeat 3]

1. GloVe 6B 50d, its top ``--words`` words against themselves (each word leaves itself out):
   N_k skewness (:func:`embgeo.diagnostics.hubness`) with cosine ("nn"), CSLS and each hubness
   reduction, the seconds of each (the best of ``--repeat`` runs after one untimed run that
   compiles the kernels) and their ratio to CSLS's (the same data, one process).
2. en→fi BLI: GloVe 50d (top ``--bli-vocab``) mapped by supervised :class:`~embgeo.crosslingual.Mapper`
   onto Finnish floret 300d (30k, PCA to 50d by the Mapper's pipeline), the yacle 5k en-fi
   dictionary with 20 % of its source words held out (as benchmarks/compare_crosslingual.py);
   P@1 of each criterion, and an exact McNemar test of each against CSLS on the same test words,
   with the seconds of each ``bli`` call (timed as above).

The neighbourhood size K (``csls_knn``) is 10 for CSLS and each reduction, 50 for the MPs and 100
for DSL too (``CRITERIA``). Prints the load average beside the timings: the machine is shared, so
compare ratios from one run.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("EMBGEO_QUIET", "1")

import embgeo  # noqa: E402
from embgeo import diagnostics  # noqa: E402
from embgeo.crosslingual import Mapper  # noqa: E402
from embgeo.data import read_dictionary, split_dictionary  # noqa: E402
from embgeo.evaluate import compare  # noqa: E402
from embgeo.evaluate.lexicon import bli  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import best_of  # noqa: E402

DATA = Path(os.environ.get("EMBGEO_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
#: (criterion, K): both MPs re-rank each word's K nearest, so their K must exceed k (50, as
#: scikit-hubness re-ranks a longer candidate graph); the others use K = 10, CSLS's, and DSL also
#: K = 100, where it reduces hubness on GloVe (at K = 10 it raises it); CSLS at K = 50 and 100 too,
#: for the cost of the longer neighbourhood pass itself
CRITERIA = (("nn", 10), ("csls", 10), ("csls", 50), ("csls", 100), ("mp", 10), ("mp", 50), ("mp-gauss", 10),
            ("mp-gauss", 50), ("ls", 10), ("cdm", 10), ("dsl", 10), ("dsl", 100))


def skewness_table(words, k, repeat):
    e = embgeo.load("glove-6b-50d", limit=words)
    print(f"GloVe 6B 50d, top {words} words, k={k}, K=10; load average {os.getloadavg()[0]:.2f}")
    print(f"| criterion | K | N_{k} skewness | vs cosine | seconds | / CSLS |")
    print("|---|---|---|---|---|---|")
    rows = {}
    for r, K in CRITERIA:
        h = diagnostics.hubness(e, k=k, retrieval=r, csls_knn=K, progress=False)  # compiles the kernels
        sec = best_of(lambda: diagnostics.hubness(e, k=k, retrieval=r, csls_knn=K, progress=False), repeat)
        rows[r, K] = (h.skewness, sec)
    for (r, K), (s, sec) in rows.items():
        print(f"| {r} | {K} | {s:.2f} | {s / rows['nn', 10][0]:.2f} | {sec:.1f} | {sec / rows['csls', 10][1]:.2f} |",
              flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def bli_table(vocab, repeat):
    en = embgeo.load("glove-6b-50d", limit=vocab)
    fi = embgeo.load(str(DATA / "vectors" / "fi.floret.300d.30k.vec.gz"))
    pairs = read_dictionary(DATA / "bli" / "yacle.train.freq.5k.en-fi.tsv", lowercase=True)
    train, test = split_dictionary(pairs, 0.2)
    xs, zt = Mapper().fit_transform(en, fi, train)
    print(f"en→fi BLI: GloVe 50d top {vocab} → floret 300d 30k, yacle 5k (20 % held out); "
          f"load average {os.getloadavg()[0]:.2f}")
    res, secs = {}, {}
    for r, K in CRITERIA:
        res[f"{r} (K={K})"] = bli(xs, zt, test, retrieval=r, csls_knn=K, progress=False)
        secs[f"{r} (K={K})"] = best_of(lambda: bli(xs, zt, test, retrieval=r, csls_knn=K, progress=False), repeat)
    ref = "csls (K=10)"
    print(f"{res[ref].n} test words")
    print("| criterion | P@1 | McNemar vs CSLS | seconds | / CSLS |")
    print("|---|---|---|---|---|")
    for r, v in res.items():
        c = compare(v, res[ref], test="mcnemar", score="P@1", labels=(r, "csls"))
        print(f"| {r} | {100 * v.p_at(1):.2f} | p = {c.p_value:.3g} | {secs[r]:.1f} | {secs[r] / secs[ref]:.2f} |",
              flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--words", type=int, default=20000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--bli-vocab", type=int, default=50000)
    ap.add_argument("--only", choices=("skewness", "bli"))
    ap.add_argument("--repeat", type=int, default=3, help="the best of this many timed runs (after an untimed one)")
    args = ap.parse_args()
    if args.only != "bli":
        skewness_table(args.words, args.k, args.repeat)
    if args.only != "skewness":
        bli_table(args.bli_vocab, args.repeat)


if __name__ == "__main__":
    main()
