"""Fuzzy-set embeddings (Bhat et al. 2020) on GloVe 6B 50d: speed against cosine top-k, and the paper's tables.

    python benchmarks/compare_fuzzy.py                 # both parts
    python benchmarks/compare_fuzzy.py --speed [--queries 1000 --k 10]
    python benchmarks/compare_fuzzy.py --tables        # Table 8 (similarity), Table 10 (function words), analogies

Speed: vocabulary-wide top-k by cross-entropy (and KL both ways, Jaccard) over all 400k words,
divided by the time of embgeo.neighbors.topk (cosine) for the same queries on the same-sized matrix,
plus a plain-NumPy reference that evaluates the two-GEMM expansion −P·ln Qᵀ − (1−P)·ln(1−Q)ᵀ in
float64 block by block.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

WORDSIM = ["EN-SIMLEX-999", "EN-WS-353-ALL"]
#: A hand-picked illustration (not a benchmark) of (hyponym, hypernym) pairs.
HYPONYMS = [("dog", "animal"), ("cat", "animal"), ("rose", "flower"), ("oak", "tree"), ("car", "vehicle"),
            ("apple", "fruit"), ("hammer", "tool"), ("guitar", "instrument"), ("sparrow", "bird"),
            ("salmon", "fish"), ("shirt", "clothing"), ("chair", "furniture"), ("beer", "beverage"),
            ("gold", "metal"), ("football", "sport"), ("surgeon", "doctor"), ("violin", "instrument"),
            ("truck", "vehicle"), ("eagle", "bird"), ("tulip", "flower")]


def _timed(f, *a, **kw):
    t0 = time.perf_counter()
    out = f(*a, **kw)
    return time.perf_counter() - t0, out


def numpy_two_gemm_ce_topk(Qm, P, k, exclude, block=64):
    """Reference: H(S, T) = −S·ln Tᵀ − (1 − S)·ln(1 − T)ᵀ in float64, two GEMMs per block, argpartition."""
    with np.errstate(divide="ignore"):
        LT = np.log(P.astype(np.float64)).T
        L1T = np.log1p(-P.astype(np.float64)).T
    out = []
    for s in range(0, len(Qm), block):
        S = Qm[s:s + block].astype(np.float64)
        H = -(S @ LT) - ((1 - S) @ L1T)
        H[np.arange(len(S)), exclude[s:s + block]] = np.inf
        part = np.argpartition(H, k, axis=1)[:, :k]
        out.append(np.take_along_axis(part, np.argsort(np.take_along_axis(H, part, 1), axis=1), 1))
    return np.concatenate(out)


def speed(e, n_queries, k):
    from embgeo.fuzzy import FuzzyEmbeddings, fuzzify
    from embgeo.neighbors import topk

    fuzzify(e.vectors[:1000])  # JIT compile outside the timings
    t_norm, F = _timed(FuzzyEmbeddings.from_embeddings, e)
    t_stats, _ = _timed(F._stats, True)
    rng = np.random.default_rng(0)
    qi = np.sort(rng.choice(len(e), n_queries, replace=False))
    words = [e.words[i] for i in qi]
    print(f"GloVe 6B 50d, {len(e)} words, {n_queries} queries, k = {k}; numba threads = "
          f"{__import__('numba').get_num_threads()}, machine shared with other jobs (timings are noisy; "
          "ratios come from one run)")
    print(f"normalisation (vocabulary axis, Numba): {t_norm:.2f} s; one-off precompute of logit/entropy: "
          f"{t_stats:.2f} s")
    t_cos, (_, i_cos) = _timed(topk, e.vectors[qi], e.vectors, k, metric="cosine", exclude=list(qi), progress=False)
    rows = [("cosine top-k (embgeo.neighbors.topk)", t_cos)]
    results = {}
    for label, measure, rev in [("cross-entropy H(q, w)", "cross_entropy", False),
                                ("cross-entropy H(w, q)", "cross_entropy", True),
                                ("KL D(q||w)", "kl", False), ("KL D(w||q)", "kl", True),
                                ("Jaccard", "jaccard", False)]:
        t, (_, idx) = _timed(F.neighbors, words, k, measure=measure, reverse=rev, progress=False)
        rows.append((f"fuzzy {label}", t))
        results[(measure, rev)] = idx
    t_np, i_np = _timed(numpy_two_gemm_ce_topk, np.asarray(F.memberships[qi]), F.memberships, k, qi)
    rows.append(("NumPy float64, two GEMMs, H(q, w)", t_np))
    print(f"\n{'method':<40}{'seconds':>9}{'/ cosine':>10}")
    for name, t in rows:
        print(f"{name:<40}{t:>9.2f}{t / t_cos:>10.2f}")
    agree = np.mean([len(set(a) & set(b)) / k for a, b in zip(results[("cross_entropy", False)], i_np)])
    print(f"\nCE top-{k} overlap, embgeo (float32 select + float64 rescore) vs NumPy float64: {agree:.4%}")
    return F


def tables(e, F):
    from pathlib import Path

    from embgeo import fuzzy
    from embgeo.datasets import read_word_pairs
    from embgeo.evaluate.similarity import resolve_measure, word_similarity

    data = Path(__file__).resolve().parents[2] / "shared" / "data" / "wordsim"
    top = e.top(50000)
    reps = [("paper: axis=vocabulary, base=e, over all 400k words", F, e),
            ("paper's formula over the top 50k words only", fuzzy.FuzzyEmbeddings.from_embeddings(top), top),
            ("released code: axis=features, base=2", fuzzy.FuzzyEmbeddings.from_embeddings(e, "features", 2), e)]
    names = ["cosine", "fuzzy-kl", "fuzzy-kl-rev", "fuzzy-ce", "fuzzy-ce-rev", "fuzzy-jaccard"]
    print("\nTable 8: Spearman rho x 100 on ../shared/data/wordsim (lower-cased; pairs found / total)")
    print("fuzzy-X scores pair (word1, word2) with S = word1, T = word2; -rev with S = word2, T = word1")
    for title, FF, base in reps:
        print(f"\n{title}")
        print(f"{'dataset':<16}" + "".join(f"{n:>14}" for n in names) + f"{'pairs':>12}")
        for ds in WORDSIM:
            pairs = read_word_pairs(data / f"{ds}.txt", lowercase=True, name=ds)
            cache = {"fuzzy": FF}
            cells = []
            for n in names:
                model, meas = resolve_measure(base, n, cache)
                r = word_similarity(model, pairs, None if n == "cosine" else meas)
                cells.append(r.spearman * 100)
            print(f"{ds:<16}" + "".join(f"{c:>14.1f}" for c in cells) + f"{f'{r.n_found}/{r.n_total}':>12}")

    print("\nTable 10: function words (scikit-learn ENGLISH_STOP_WORDS) among the top K words")
    print("GloVe has no counts: rank (row order) is the frequency proxy; candidates = the top_n most frequent words")
    for title, FF, _ in (reps[0], reps[2]):
        print(f"\n{title}")
        print(f"{'candidates':>10} {'ranking':<18}" + "".join(f"{'top ' + str(c):>8}" for c in (15, 30, 50)))
        for top_n in (1000, 10000, 50000, 400000):
            for highest in (True, False):
                rep = fuzzy.function_words(FF, top_n=top_n, highest=highest)
                lab = "entropy, highest" if highest else "entropy, lowest"
                print(f"{top_n:>10} {lab:<18}" + "".join(f"{rep.hits[c][0]:>8}" for c in (15, 30, 50)))
            print(f"{top_n:>10} {'frequency':<18}" + "".join(f"{rep.hits[c][1]:>8}" for c in (15, 30, 50)))
        for highest in (True, False):
            rep = fuzzy.function_words(FF, top_n=10000, highest=highest)
            print(f"{'highest' if highest else 'lowest'}-entropy words among the top 10k: "
                  + ", ".join(rep.by_entropy[:15]))

    print("\nTable 6-style polysemy: nearest words by cross-entropy H(query, w), top 50k words, query = word & context")
    for title, FF, _ in (reps[0], reps[2]):
        print(f"{title}")
        for word, ctx in [("bank", ["river", "money"]), ("apple", ["fruit", "computer"]),
                          ("bass", ["fish", "guitar"])]:
            for c, nb in fuzzy.polysemy(FF, word, ctx, topn=6, restrict_vocab=50000).items():
                print(f"  {word} & {c}: {', '.join(w for w, _ in nb)}")

    print(f"\nHyponymy by graded inclusion, {len(HYPONYMS)} hand-picked (hyponym, hypernym) pairs (an illustration)")
    for title, FF, _ in (reps[0], reps[2]):
        rep = fuzzy.hyponymy(FF, HYPONYMS)
        print(f"  {title}: mean inclusion(hypo in hyper) {rep.mean_score:.3f}, reverse "
              f"{float(np.mean(rep.reverse_scores)):.3f}, direction right for {rep.direction_accuracy:.0%} "
              f"({rep.ties} ties)")

    print("\nAnalogies y = (b + x) - a, nearest word excluding a, b, x (gensim questions-words.txt, top 30k words)")
    for title, FF, _ in (reps[0], reps[2]):
        print(f"{title}")
        for meas, rev in [("cross_entropy", False), ("cross_entropy", True), ("kl", True), ("jaccard", False)]:
            t, rep = _timed(fuzzy.evaluate_analogies, FF, restrict_vocab=30000, measure=meas, reverse=rev,
                            progress=False)
            print(f"  {meas:<14} reverse={rep.reverse!s:<5}: {rep.accuracy:.4f} ({rep.correct}/{rep.total}, "
                  f"{rep.skipped} skipped) in {t:.1f} s")
    try:
        from embgeo.evaluate.analogy import analogy

        r = analogy(e, "google-analogy", "3cosadd", restrict_vocab=30000)
        print(f"reference: cosine 3CosAdd on the vectors, same vocabulary: {r.accuracy:.4f}")
    except Exception as exc:  # the evaluate module is optional for this script
        print(f"(cosine 3CosAdd reference unavailable: {exc})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--speed", action="store_true")
    ap.add_argument("--tables", action="store_true")
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args(argv)
    both = not (args.speed or args.tables)

    import embgeo
    from embgeo.fuzzy import FuzzyEmbeddings

    embgeo.set_progress(False)
    e = embgeo.load("glove-6b-50d")
    F = speed(e, args.queries, args.k) if (both or args.speed) else FuzzyEmbeddings.from_embeddings(e)
    if both or args.tables:
        tables(e, F)


if __name__ == "__main__":
    main()
