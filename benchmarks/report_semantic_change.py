"""Semantic change between GloVe 6B 50d and the English MiniLM static vectors (docs/isomorphism.md).

    OPENBLAS_NUM_THREADS=1 python benchmarks/report_semantic_change.py [--plot docs/img/semantic_change_glove_minilm.png]

Two English spaces of different models and dimensions (GloVe 50d, the first 100k words; MiniLM
static 384d, 50k words, from ``../shared/data``) aligned on their shared alphabetic words by
:func:`embgeo.diagnostics.align_same_language` (GloVe, the smaller space, mapped isometrically into
MiniLM's), then the words that differ most by displacement and by neighbourhood change (k = 25).
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
from embgeo.diagnostics import align_same_language  # noqa: E402

DATA = Path(os.environ.get("EMBGEO_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plot", help="write the displacement / neighbourhood-change scatter to this PNG file")
    ap.add_argument("--glove-words", type=int, default=100_000)
    args = ap.parse_args()
    embgeo.set_progress(False)
    glove = embgeo.load("glove-6b-50d", limit=args.glove_words)
    minilm = embgeo.load(str(DATA / "vectors" / "en.minilm-static.384d.50k.vec.gz"))
    words = [w for w in glove.words if w.isalpha() and w in minilm]
    t0 = time.perf_counter()
    res = align_same_language(glove, minilm, words=words, k=25)
    print(f"{len(res)} shared words, {time.perf_counter() - t0:.1f} s; mapped: {res.mapped} "
          f"(W {res.W.shape[0]}x{res.W.shape[1]})")
    print(f"median displacement {np.median(res.displacement):.3f}, median neighbourhood change "
          f"{np.median(res.neighborhood_change):.3f}, median overlap {np.median(res.overlap):.3f}; "
          f"Spearman(displacement, neighbourhood change) = "
          f"{spearmanr(res.displacement, res.neighborhood_change)[0]:.2f}")
    top = 10_000  # the frequent words, where both models are reliable
    freq = {w: i for i, w in enumerate(glove.words[:top])}
    rows = [r for r in res.table(None) if r["word"] in freq][:15]
    print(f"\nmost displaced among GloVe's {top} most frequent words")
    print("| word | displacement | neighbourhood change | overlap |")
    print("|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['word']} | {r['displacement']:.3f} | {r['neighborhood_change']:.3f} | {r['overlap']:.2f} |")
    rows = [r for r in res.table(None) if r["word"] in freq][-5:]
    print("\nleast displaced among them")
    for r in rows:
        print(f"| {r['word']} | {r['displacement']:.3f} | {r['neighborhood_change']:.3f} | {r['overlap']:.2f} |")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        ax = res.plot(annotate=12)
        ax.figure.savefig(args.plot, dpi=110, bbox_inches="tight")
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
