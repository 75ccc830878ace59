"""What compression costs: the tables of ``docs/compression.md``.

For GloVe 6B 50d (the 50,000 most frequent words) and for the shared Model2Vec model
``../shared/data/models/minilm-l6-m2v-256`` (its token table compressed, whole words composed from
it as ``encode`` composes them: the 30,000 most frequent GloVe words plus every word of the
datasets, the words without a known token left out), :func:`embgeo.evaluate.compression_variants`
builds PCA, SIF, float16, int8, binary and vocabulary k-means variants, and
:func:`embgeo.evaluate.compression_cost` scores each: WS-353 and SimLex-999 (Spearman, Steiger's
test against the original), Google analogies (3CosAdd accuracy, McNemar), top-10 neighbour
overlap over the first 10,000 words, hubness (skewness of N_10), IsoScore, bytes. Intervals: 95 %
BCa over 2,000 resamples::

    python benchmarks/report_compression.py glove --plot docs/img/compression_glove.png   # ~5 min, 2 cores
    python benchmarks/report_compression.py m2v --plot docs/img/compression_m2v.png       # ~10 min (../shared)
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import embgeo
from embgeo.data import load_dataset
from embgeo.evaluate import compression_cost, compression_variants

MODEL = Path(__file__).resolve().parents[2] / "shared" / "data" / "models" / "minilm-l6-m2v-256"
OPTIONS = {"n_resamples": 2000, "random_state": 0, "neighbours": 10_000}


def glove():
    e = embgeo.load("glove-6b-50d", limit=50_000)
    variants = compression_variants(e, dims=(32, 16), kmeans=(1024, 4096))
    return compression_cost(e, variants, title="GloVe 6B 50d, 50,000 words", **OPTIONS)


def m2v():
    from embgeo import static

    model = static.load(MODEL)
    words = list(embgeo.load("glove-6b-50d", limit=30_000).words)
    seen = set(words)
    for name in ("wordsim353", "simlex999", "google-analogy"):
        d = load_dataset(name)
        items = (d.words1 + d.words2) if hasattr(d, "words1") else [w for q in d.questions for w in q[:4]]
        for w in items:
            if w.lower() not in seen:
                seen.add(w.lower())
                words.append(w.lower())
    variants = compression_variants(model.tokens, dims=(128, 64), sif_applied=True,
                                    sif_coefficient=model.config["sif_coefficient"], kmeans=(1024, 4096))
    return compression_cost(model.tokens, variants, compose=lambda t: model.with_tokens(t).words(words, oov="skip"),
                            title=f"minilm-l6-m2v-256 ({len(model)} tokens), whole words", **OPTIONS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("space", choices=("glove", "m2v"))
    parser.add_argument("--plot", help="also draw score against bytes into this PNG")
    parser.add_argument("--json", help="also write the table's to_dict() here")
    args = parser.parse_args()
    t = time.perf_counter()
    cost = {"glove": glove, "m2v": m2v}[args.space]()
    print(cost.to_markdown())
    print(f"\n{time.perf_counter() - t:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(cost.to_dict(), indent=1))
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        ax = cost.plot()
        ax.figure.savefig(args.plot, dpi=100, bbox_inches="tight")


if __name__ == "__main__":
    main()
