"""embgeo.KeyedVectors against gensim's KeyedVectors, in one run: load, queries and evaluations.

    /work/venv/bin/python benchmarks/compare_gensim.py [--rows 100000] [--dim 300] [--repeat 3]
        [--queries 1000] [--questions 100] [--skip-load]

1. ``load_word2vec_format`` of the same word2vec text file (synthetic float32 N(0, 0.3^2), written
   by embgeo.save), best of N: embgeo.KeyedVectors (embgeo's parser) vs gensim's; checks that the
   two results are identical (keys, vectors, counts) and prints the ratio.
2. On GloVe 6B 50d (400k words, needs the data extra), the same rows in both classes, best of N
   unless said: ``most_similar(word)`` for 1,000 words (one call each, as gensim's API has no batch),
   ``evaluate_word_analogies`` on gensim's questions-words.txt (the first 100 questions per section
   by default, one run each) and ``evaluate_word_pairs`` on SimLex-999 (needs ../shared/data/wordsim),
   with the ratios and whether the answers are identical.
3. SimLex-999 Spearman rho: ``evaluate_word_pairs`` with gensim's default restrict_vocab=300000,
   with restrict_vocab=400000, and ``embgeo.evaluate.word_similarity`` (all words).
"""
from __future__ import annotations

import argparse
import os
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
    ap.add_argument("--queries", type=int, default=1000, help="most_similar calls (words from the top 100k)")
    ap.add_argument("--questions", type=int, default=100,
                    help="analogy questions per section (0: all 19,544; gensim then needs ~10 min)")
    ap.add_argument("--skip-load", action="store_true", help="skip the load_word2vec_format comparison")
    args = ap.parse_args()

    from gensim.models import KeyedVectors as GensimKV

    from embgeo import Embeddings, KeyedVectors

    embgeo.set_progress(False)
    if args.skip_load:
        glove_queries(args)
        return
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

    glove_queries(args)


def glove_queries(args):
    """The query and evaluation methods on GloVe 6B 50d: the same rows in both classes."""
    from gensim.models import KeyedVectors as GensimKV
    from gensim.test.utils import datapath

    from embgeo import KeyedVectors
    from embgeo.evaluate import word_similarity

    simlex = WORDSIM / "EN-SIMLEX-999.txt"
    try:
        e = embgeo.load("glove-6b-50d")
    except ImportError:
        print("GloVe 6B 50d not installed (data extra): query comparison skipped")
        return
    kv = KeyedVectors.from_embeddings(e)
    g = GensimKV(e.dim)
    g.add_vectors(list(e.words), np.array(e.vectors))
    t = time.perf_counter()
    kv.most_similar("the")  # builds the cached view: word index and unit vectors
    print(f"GloVe 6B 50d ({len(kv)} words): embgeo.KeyedVectors builds its Embeddings view once, "
          f"{time.perf_counter() - t:.2f} s (first query included)")

    rng = np.random.default_rng(0)
    words = [e.words[i] for i in rng.choice(100_000, args.queries, replace=False)]
    t_ours, ours = best_of(lambda: [kv.most_similar(w) for w in words], args.repeat)
    t_ref, ref = best_of(lambda: [g.most_similar(w) for w in words], args.repeat)
    same = sum([w for w, _ in a] == [w for w, _ in b] for a, b in zip(ours, ref))
    print(f"most_similar(word, topn=10), {len(words)} words one call each: embgeo.KeyedVectors "
          f"{t_ours:.2f} s, gensim {t_ref:.2f} s: {t_ref / t_ours:.1f}x; identical lists {same}/{len(words)}")

    questions = datapath("questions-words.txt")
    if args.questions:
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf8") as f:
            taken = 0
            for line in open(questions, encoding="utf8"):
                taken = 0 if line.startswith(": ") else taken + 1
                if taken <= args.questions:
                    f.write(line)
            questions = f.name
    try:
        t_ours, ours = best_of(lambda: kv.evaluate_word_analogies(questions), 1)
        t_ref, ref = best_of(lambda: g.evaluate_word_analogies(questions), 1)
    finally:
        if args.questions:
            os.unlink(questions)
    n = len(ref[1][-1]["correct"]) + len(ref[1][-1]["incorrect"])
    subset = f", first {args.questions} per section" if args.questions else ""
    print(f"evaluate_word_analogies(questions-words.txt{subset}, {n} covered, restrict_vocab=300000): embgeo.KeyedVectors {t_ours:.2f} s, gensim {t_ref:.2f} s: "
          f"{t_ref / t_ours:.1f}x; accuracy {ours[0]:.4f} vs {ref[0]:.4f}; identical sections: {ours[1] == ref[1]}")

    if not simlex.exists():
        print(f"{simlex} not found: word-pair comparison skipped")
        return
    # the first call builds the restricted key map (gensim builds it on every call), later calls reuse it
    t_first, _ = best_of(lambda: kv.evaluate_word_pairs(str(simlex)), 1)
    t_ours, ours = best_of(lambda: kv.evaluate_word_pairs(str(simlex)), args.repeat)
    t_ref, ref = best_of(lambda: g.evaluate_word_pairs(str(simlex)), args.repeat)
    print(f"evaluate_word_pairs(SimLex-999): embgeo.KeyedVectors first call {t_first * 1e3:.1f} ms "
          f"({t_ref / t_first:.1f}x), later calls {t_ours * 1e3:.1f} ms ({t_ref / t_ours:.1f}x), gensim "
          f"{t_ref * 1e3:.1f} ms; rho {ours[1][0]:.6f} vs {ref[1][0]:.6f} (|diff| {abs(ours[1][0] - ref[1][0]):.1e})")
    rho_all = kv.evaluate_word_pairs(str(simlex), restrict_vocab=len(kv))[1].statistic
    ours_rho = word_similarity(e, simlex).spearman
    print(f"SimLex-999 rho, GloVe 6B 50d: evaluate_word_pairs (gensim default restrict_vocab=300000) "
          f"{ours[1][0]:.4f}; restrict_vocab={len(kv)} {rho_all:.4f}; embgeo word_similarity {ours_rho:.4f}")


if __name__ == "__main__":
    main()
