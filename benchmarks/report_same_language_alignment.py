"""Aligning two models of one language without a dictionary (issue 41, item 4; docs/diagnostics.md).

GloVe 6B 50d and the shared MiniLM-static 384d space, each cut to its ``--limit`` most frequent words.
The shared words are split (``split_dictionary``, 10 % held out, seeded) into identity pairs: the
supervised upper bound is the orthogonal Procrustes map fitted on the training pairs (and VecMap's
supervised recipe, PCA-matched), the unsupervised one is ``Mapper.from_recipe("unsupervised")`` on the
two spaces alone (MiniLM reduced to 50 dimensions by PCA, ``Preprocessing(pca="match")``: its centred
vectors have rank 381 < 384, so VecMap's whitening needs the reduction). Both are scored by identity
retrieval of the held-out words (``evaluate.bli``, NN and CSLS) over the whole MiniLM vocabulary.

    python benchmarks/report_same_language_alignment.py [--limit 20000] [--minilm PATH]

The unsupervised recipe's self-learning runs about 1,300 iterations at 10,000 words (14 minutes on one
loaded core); the numbers are in docs/diagnostics.md.
"""
from __future__ import annotations

import argparse
import logging
import os
import time

import embgeo
from embgeo.crosslingual import Mapper, Preprocessing, procrustes
from embgeo.data import split_dictionary
from embgeo.evaluate import bli

HERE = os.path.dirname(os.path.abspath(__file__))
MINILM = os.path.join(HERE, "..", "..", "shared", "data", "vectors", "en.minilm-static.384d.50k.vec.gz")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=20000)
    parser.add_argument("--minilm", default=MINILM)
    args = parser.parse_args(argv)
    embgeo.set_progress(False)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    glove = embgeo.load("glove-6b-50d", limit=args.limit)
    minilm = embgeo.load(args.minilm, limit=args.limit)
    shared = [w for w in glove.words if w in minilm]
    train, test = split_dictionary([(w, w) for w in shared], 0.1)
    print(f"{len(shared)} shared words: {len(train)} training pairs, {len(test)} held out; "
          f"load average {os.getloadavg()[0]:.1f}")
    rows = []

    def score(name, xs, zt, seconds):
        p_nn, p_csls = (bli(xs, zt, test, retrieval=r).p_at(1) for r in ("nn", "csls"))
        rows.append((name, p_nn, p_csls, seconds))
        print(f"{name}: P@1 nn {p_nn:.4f}, csls {p_csls:.4f} ({seconds:.0f} s)", flush=True)

    t = time.perf_counter()
    W = procrustes(glove, minilm, train)
    score("Procrustes (supervised)", glove.with_vectors(glove.vectors @ W), minilm, time.perf_counter() - t)
    t = time.perf_counter()
    sup = Mapper(preprocessing=Preprocessing(pca="match")).fit(glove, minilm, train)
    score("Mapper(), PCA-matched (supervised)", *sup.transform(glove, minilm), time.perf_counter() - t)
    t = time.perf_counter()
    uns = Mapper.from_recipe("unsupervised", preprocessing__pca="match", verbose=True).fit(glove, minilm)
    score(f"unsupervised recipe, PCA-matched ({uns.n_iter_} iterations)", *uns.transform(glove, minilm),
          time.perf_counter() - t)
    best = max(r[2] for r in rows[:2])
    print(f"unsupervised / best supervised (CSLS): {rows[2][2] / best:.2f}")


if __name__ == "__main__":
    main()
