"""embgeo.KeyedVectors against gensim's KeyedVectors, in one run: load time and word-pair defaults.

    /work/venv/bin/python benchmarks/compare_gensim.py [--rows 100000] [--dim 300] [--repeat 3]

1. ``load_word2vec_format`` of the same word2vec text file (synthetic float32 N(0, 0.3^2), written
   by embgeo.save), best of N: embgeo.KeyedVectors (embgeo's parser) vs gensim's; checks that the
   two results are identical (keys, vectors, counts) and prints the ratio.
2. SimLex-999 Spearman rho of GloVe 6B 50d (400k words, needs the data extra and
   ../shared/data/wordsim): gensim's ``evaluate_word_pairs`` with its default restrict_vocab=300000
   (the same method on embgeo.KeyedVectors), with restrict_vocab=400000, and
   ``embgeo.evaluate.word_similarity`` (all words).
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

import embgeo

WORDSIM = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "wordsim"


def best_of(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from gensim.models import KeyedVectors as GensimKV

    from embgeo import Embeddings, KeyedVectors

    embgeo.set_progress(False)
    rng = np.random.default_rng(0)
    X = (0.3 * rng.standard_normal((args.rows, args.dim))).astype(np.float32)
    words = [f"w{i}" for i in range(args.rows)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vectors.vec"
        embgeo.save(Embeddings(words, X), path, format="word2vec")
        t_ours, ours = best_of(lambda: KeyedVectors.load_word2vec_format(path), args.repeat)
        t_ref, ref = best_of(lambda: GensimKV.load_word2vec_format(path), args.repeat)
    same = (ours.index_to_key == ref.index_to_key and np.array_equal(ours.vectors, ref.vectors)
            and np.array_equal(ours.expandos["count"], ref.expandos["count"]))
    print(f"load_word2vec_format, {args.rows} x {args.dim} text: embgeo.KeyedVectors {t_ours:.2f} s, "
          f"gensim {t_ref:.2f} s: {t_ref / t_ours:.1f}x faster; identical keys/vectors/counts: {same}")

    simlex = WORDSIM / "EN-SIMLEX-999.txt"
    try:
        e = embgeo.load("glove-6b-50d")
    except ImportError:
        print("GloVe 6B 50d not installed (data extra): word-pair comparison skipped")
        return
    if not simlex.exists():
        print(f"{simlex} not found: word-pair comparison skipped")
        return
    from embgeo.evaluate import word_similarity

    kv = KeyedVectors.from_embeddings(e)
    rho_300k = kv.evaluate_word_pairs(str(simlex))[1].statistic
    rho_all = kv.evaluate_word_pairs(str(simlex), restrict_vocab=len(kv))[1].statistic
    ours_rho = word_similarity(e, simlex).spearman
    print(f"SimLex-999 rho, GloVe 6B 50d: evaluate_word_pairs (gensim default restrict_vocab=300000) "
          f"{rho_300k:.4f}; restrict_vocab={len(kv)} {rho_all:.4f}; embgeo word_similarity {ours_rho:.4f}")


if __name__ == "__main__":
    main()
