"""Isomorphism measures against POSTPROC α and BLI P@1 on en → fi (docs/isomorphism.md).

    OPENBLAS_NUM_THREADS=1 python benchmarks/report_isomorphism.py [--plot docs/img/isomorphism_postproc_en_fi.png]

English MiniLM static vectors (50k words; 384d of rank 381, so projected on their 300 principal
components, where a negative POSTPROC α and VecMap's whitening are defined) → Finnish floret (300d,
30k words), both from ``../shared/data``; the 5k en-fi dictionary of Glavaš et al. (2019), 20 % of its source words held
out for testing (``split_dictionary(pairs, 0.2)``, as docs/crosslingual.md). For every POSTPROC
setting (αs, αt) (Vulić, Korhonen & Glavaš 2020) the supervised Mapper is fitted on the training
pairs and scored by NN BLI P@1 on the test words; :func:`embgeo.diagnostics.isomorphism` measures
the two POSTPROC-ed monolingual spaces (both 300d) on the training pairs. Spearman's ρ of each measure against P@1 over
the settings closes the table. The Gromov–Hausdorff column needs gudhi or persim.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("EMBGEO_QUIET", "1")

import numpy as np  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

import embgeo  # noqa: E402
from embgeo.crosslingual import Mapper, Preprocessing  # noqa: E402
from embgeo.data import read_dictionary, split_dictionary  # noqa: E402
from embgeo.diagnostics import isomorphism  # noqa: E402
from embgeo.evaluate import bli  # noqa: E402
from embgeo.pca import principal_space, variance_profile  # noqa: E402
from embgeo.postprocess import similarity_order  # noqa: E402

DATA = Path(os.environ.get("EMBGEO_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))

#: (αs, αt): no POSTPROC, the paper's grid values on both sides, the paper's default
SETTINGS = [None, (-0.5, -0.5), (-0.25, -0.25), (-0.15, -0.15), (0.15, 0.15), (0.25, 0.25), (0.5, 0.5),
            (-0.25, 0.15)]
#: column -> (label, higher is more alike?)
COLUMNS = {"eigenvector_similarity": ("EVS", False), "relational_similarity": ("RSIM", True),
           "eigenvalue_divergence": ("EVD", False), "cond_hm": ("COND-HM", False),
           "econd_hm": ("ECOND-HM", False), "gromov_hausdorff": ("GH", False)}


def _label(pp):
    return "none" if pp is None else f"({pp[0]:g}, {pp[1]:g})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plot", help="write measure-vs-P@1 scatter plots to this PNG file")
    ap.add_argument("--n", type=int, default=5000, help="dictionary pairs in the isomorphism sample")
    args = ap.parse_args()
    embgeo.set_progress(False)
    en384 = embgeo.load(str(DATA / "vectors" / "en.minilm-static.384d.50k.vec.gz"))
    profile = variance_profile(en384.vectors)
    en = principal_space(en384, 300, profile=profile)
    print(f"en: MiniLM 384d -> its 300 principal components "
          f"({100 * profile.explained_variance_ratio[:300].sum():.2f} % of the variance)")
    fi = embgeo.load(str(DATA / "vectors" / "fi.floret.300d.30k.vec.gz"))
    pairs = read_dictionary(DATA / "bli" / "yacle.train.freq.5k.en-fi.tsv", lowercase=True)
    train, test = split_dictionary(pairs, 0.2)
    rows = []
    for pp in SETTINGS:
        t0 = time.perf_counter()
        m = Mapper(Preprocessing(postproc=pp)).fit(en, fi, train)
        xs, zt = m.transform(en, fi)
        p1 = bli(xs, zt, test, retrieval="nn").p_at(1)
        src = en if pp is None else similarity_order(en, pp[0])
        tgt = fi if pp is None else similarity_order(fi, pp[1])
        res = isomorphism(src, tgt, train, n=args.n)
        row = {"setting": _label(pp), "P@1": p1, **res.to_dict()}
        rows.append(row)
        print(f"{row['setting']:>14s}  done in {time.perf_counter() - t0:.0f} s (sample {res.n} pairs, "
              f"coverage {res.coverage:.3f})", flush=True)
    cols = [c for c in COLUMNS if rows[0][c] is not None]
    print("\n| POSTPROC (αs, αt) | NN P@1 | " + " | ".join(COLUMNS[c][0] for c in cols) + " |")
    print("|---|---:|" + "---:|" * len(cols))
    for r in rows:
        print(f"| {r['setting']} | {100 * r['P@1']:.1f} | " + " | ".join(f"{r[c]:.4g}" for c in cols) + " |")
    p1 = [r["P@1"] for r in rows]
    rho = {c: spearmanr([r[c] for r in rows], p1)[0] for c in cols}
    print("| Spearman ρ with P@1 | | " + " | ".join(f"{rho[c]:+.2f}" for c in cols) + " |")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ncol = 3
        nrow = -(-len(cols) // ncol)
        fig, axes = plt.subplots(nrow, ncol, figsize=(3.6 * ncol, 3.2 * nrow), sharey=True, squeeze=False)
        for ax in axes.ravel()[len(cols):]:
            ax.set_visible(False)
        for ax, c in zip(axes.ravel(), cols):
            x = [r[c] for r in rows]
            ax.scatter(x, [100 * v for v in p1], s=18)
            for r, xv in zip(rows, x):
                ax.annotate(r["setting"], (xv, 100 * r["P@1"]), fontsize=6)
            label, up = COLUMNS[c]
            ax.set_xlabel(f"{label} ({'higher' if up else 'lower'} = more alike)")
            ax.set_title(f"Spearman ρ = {rho[c]:+.2f}", fontsize=9)
        for ax in axes[:, 0]:
            ax.set_ylabel("NN BLI P@1 (%)")
        fig.suptitle("en (MiniLM, 300 PCs) → fi (floret 300d): isomorphism measures over POSTPROC (αs, αt)",
                     fontsize=10)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110, bbox_inches="tight")
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
