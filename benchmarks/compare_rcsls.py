"""RCSLS vs orthogonal Procrustes on English → Finnish BLI (embgeo.crosslingual.rcsls).

    python benchmarks/compare_rcsls.py [--train 5k] [--epochs 10] [--max-load 200000]

GloVe 6B 50d (English, first ``--max-load`` words, as fastText's align.py loads 200k) → floret
300d (Finnish, 30k words), both unit-normalised. The yacle en-fi dictionary is split by source
word (``embgeo.data.split_dictionary``, 20 % held out, seed 0); both maps are learned on
the training part and scored by P@1 with nearest-neighbour and CSLS retrieval on the held-out
part. RCSLS runs with fastText's defaults (knn 10, lr 1, 10 iterations, 200k negatives).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", default="5k", choices=["500", "1k", "3k", "5k"])
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--max-load", type=int, default=200_000)
    args = ap.parse_args(argv)
    import embgeo
    from embgeo.crosslingual import dictionary_indices, procrustes
    from embgeo.data import read_dictionary, split_dictionary
    from embgeo.evaluate import bli
    from embgeo.normalize import normalize
    from embgeo.crosslingual.rcsls import rcsls

    embgeo.set_progress(False)
    en = embgeo.load("glove-6b-50d").top(args.max_load)
    fi = embgeo.io.load(SHARED / "vectors" / "fi.floret.300d.30k.vec.gz")
    en = embgeo.Embeddings(en.words, normalize(en.vectors, "unit"))
    fi = embgeo.Embeddings(fi.words, normalize(fi.vectors, "unit"))
    pairs = read_dictionary(SHARED / "bli" / f"yacle.train.freq.{args.train}.en-fi.tsv", lowercase=True)
    train, test = split_dictionary(pairs, test_size=0.2, random_state=0)
    si, ti = dictionary_indices(en, fi, train)
    idx = np.stack([np.asarray(si), np.asarray(ti)], axis=1)
    print(f"en {len(en)} x {en.dim}, fi {len(fi)} x {fi.dim}; dictionary {len(pairs)} pairs: "
          f"{len(train)} train ({len(idx)} in vocabulary), {len(test)} held out")
    results = {}
    t0 = time.perf_counter()
    W_p = np.asarray(procrustes(en.vectors, fi.vectors, idx))
    results["Procrustes"] = (W_p, time.perf_counter() - t0)
    t0 = time.perf_counter()
    W_r = rcsls(en.vectors, fi.vectors, idx[:, 0], idx[:, 1], n_epochs=args.epochs)
    results["RCSLS"] = (W_r, time.perf_counter() - t0)
    print(f"{'map':<12}{'fit s':>8}{'P@1 NN':>9}{'P@1 CSLS':>10}{'coverage':>10}{'queries':>9}")
    for name, (W, t) in results.items():
        mapped = embgeo.Embeddings(en.words, normalize(en.vectors @ W.astype(np.float32), "unit"))
        nn = bli(mapped, fi, test, retrieval="nn")
        cs = bli(mapped, fi, test, retrieval="csls")
        print(f"{name:<12}{t:>8.1f}{100 * nn.p_at(1):>9.1f}{100 * cs.p_at(1):>10.1f}"
              f"{nn.coverage:>10.3f}{nn.n:>9}")


if __name__ == "__main__":
    main()
