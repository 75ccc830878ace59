"""MultilingualMapper (pivot, GPA) against one bilingual Mapper: seconds and BLI, on three languages.

Three "languages" of 30k words each: English GloVe 6B 50d (the first 30k words), Finnish floret
300d (30k words; ``../shared/data``) and "fx", a known random rotation of the Finnish space plus
Gaussian noise (5 % of the vectors' standard deviation per coordinate), its words renamed
``word_x``. Dictionaries: the yacle en-fi 5k dictionary split 80/20 by source word
(``split_dictionary``, random_state 0) and an identity fi-fx dictionary of the 5,000 most frequent
Finnish words. Every space is normalised (unit, center, unit) and reduced to 50d by PCA.

Speed: one bilingual ``Mapper(Preprocessing(pca=50), mapping=Mapping("orthogonal"))`` fit en → fi against
``MultilingualMapper(strategy, pca=50)`` fits of the three languages, in one process (the issue's
budget: at most 3× the bilingual fit). BLI: P@1 (CSLS, r_S over the 20k most frequent source
words) of en→fi, en→fx and fi→fx through the shared space, for pivot on en, pivot on fi, GPA, and
GPA with two rounds of self-learning. First, a synthetic
case (:func:`synthetic`) shows where the methods differ: dictionaries that form a cycle.

    python benchmarks/compare_multilingual.py [--words 30000] [--synthetic-only]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def synthetic() -> None:
    """Where GPA and pivot differ: three noisy rotated copies of one latent space (5,000 words, 50d),
    small disjoint dictionaries as a star (a-b, a-c) or a triangle (a-b, a-c, b-c); P@1 (CSLS) of b→c
    on 1,000 words outside every dictionary."""
    import embgeo
    from embgeo.crosslingual import MultilingualMapper
    from embgeo.evaluate import bli

    rng = np.random.default_rng(0)
    n, d = 5000, 50
    latent = rng.standard_normal((n, d))
    print("synthetic: noise  pairs/dictionary   star pivot  star gpa  triangle pivot  triangle gpa")
    for noise in (0.3, 0.6):
        for m in (50, 200):
            spaces = {lang: embgeo.Embeddings(
                [f"{lang}{i}" for i in range(n)],
                ((latent + noise * rng.standard_normal((n, d))) @ np.linalg.qr(rng.standard_normal((d, d)))[0])
                .astype(np.float32)) for lang in "abc"}

            def pairs(a, b, rows):
                return [(f"{a}{i}", f"{b}{i}") for i in rows]

            tri = {("a", "b"): pairs("a", "b", range(m)), ("a", "c"): pairs("a", "c", range(m, 2 * m)),
                   ("b", "c"): pairs("b", "c", range(2 * m, 3 * m))}
            star = {k: v for k, v in tri.items() if k != ("b", "c")}
            test = pairs("b", "c", range(4000, 5000))
            p = []
            for dicts in (star, tri):
                for strategy in ("pivot", "gpa"):
                    mm = MultilingualMapper(strategy, normalize=(), progress=False).fit(spaces, dicts)
                    p.append(bli(*mm.pair(spaces, "b", "c"), test, retrieval="csls").p_at(1))
            print(f"{'':11s}{noise:5.1f}  {m:16d}  " + "  ".join(f"{100 * v:10.1f}%" for v in p), flush=True)
    print()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=int, default=30000)
    ap.add_argument("--repeat", type=int, default=2, help="timed fits of each (the best is reported)")
    ap.add_argument("--synthetic-only", action="store_true")
    args = ap.parse_args(argv)
    synthetic()
    if args.synthetic_only:
        return 0
    if not DATA.is_dir():
        print(f"{DATA} not found: skipped")
        return 0
    import embgeo
    from embgeo.crosslingual import Mapper, Mapping, MultilingualMapper, Preprocessing
    from embgeo.data import read_dictionary, split_dictionary
    from embgeo.evaluate import bli

    embgeo.set_progress(False)
    n = args.words
    rng = np.random.default_rng(0)
    en = embgeo.load("glove-6b-50d", limit=n)
    fi = embgeo.load(str(DATA / "vectors" / "fi.floret.300d.30k.vec.gz")).top(n)
    V = np.asarray(fi.vectors, dtype=np.float64)
    Q = np.linalg.qr(rng.standard_normal((fi.dim, fi.dim)))[0]
    fx = embgeo.Embeddings([w + "_x" for w in fi.words],
                           (V @ Q + 0.05 * V.std() * rng.standard_normal(V.shape)).astype(np.float32))
    pairs = read_dictionary(DATA / "bli" / "yacle.train.freq.5k.en-fi.tsv", lowercase=True)
    train, test = split_dictionary(pairs, 0.2, random_state=0)
    test_x = [(a, b + "_x") for a, b in test]
    spaces = {"en": en, "fi": fi, "fx": fx}
    dicts = {("en", "fi"): train, ("fi", "fx"): [(w, w + "_x") for w in fi.words[:5000]]}
    print(f"en {en.shape}, fi {fi.shape}, fx {fx.shape}; {len(train)} en-fi training pairs, {len(test)} test "
          f"pairs; load average {os.getloadavg()[0]:.2f}", flush=True)

    def best_of(fit):
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            out = fit()
            times.append(time.perf_counter() - t0)
        return out, min(times)

    def bilingual():
        return Mapper(Preprocessing(pca=50), mapping=Mapping("orthogonal"))

    bilingual().fit(en.top(2000), fi.top(2000), train)   # warm-up (Numba, imports)
    bi, t_bi = best_of(lambda: bilingual().fit(en, fi, train))
    xs, zt = bi.transform(en, fi)
    p_bi = bli(xs, zt, test, retrieval="csls", source_size=20000).p_at(1)
    rows = [("bilingual Mapper en→fi (orthogonal, pca 50)", t_bi, p_bi, float("nan"), float("nan"))]
    configs = [("pivot en", dict(strategy="pivot", pivot="en")), ("pivot fi", dict(strategy="pivot", pivot="fi")),
               ("gpa", dict(strategy="gpa")),
               ("gpa + self-learning (2 rounds)", dict(strategy="gpa", self_learning=True, max_iter=2))]
    for name, kw in configs:
        mm, t = best_of(lambda: MultilingualMapper(pca=50, **kw).fit(spaces, dicts))
        p = [bli(*mm.pair(spaces, a, b), d, retrieval="csls", source_size=20000).p_at(1)
             for a, b, d in (("en", "fi", test), ("en", "fx", test_x),
                             ("fi", "fx", [(w, w + "_x") for w in fi.words[5000:7000]]))]
        rows.append((f"MultilingualMapper {name}", t, *p))
        print(f"{name}: {t:.1f} s", flush=True)
    print()
    print(f"{'method':48s} {'fit s':>7s} {'ratio':>6s} {'en→fi':>7s} {'en→fx':>7s} {'fi→fx':>7s}")
    for name, t, *p in rows:
        print(f"{name:48s} {t:7.2f} {t / t_bi:5.2f}x " + " ".join(f"{100 * v:6.1f}%" for v in p))
    print(f"\nP@1 with CSLS; fi→fx: 2,000 Finnish words outside the fi-fx training dictionary. "
          f"load average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
