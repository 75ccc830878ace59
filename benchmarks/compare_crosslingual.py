"""Time embgeo's cross-lingual pipeline against the same steps written plainly in NumPy.

VecMap itself is not installable here (it is a script repository, not a package), so the
reference is a line-by-line NumPy transcription of its ``map_embeddings.py`` steps: dense where
the matrices fit in memory, VecMap's own ``topk_mean`` (k argmax passes) and ``dropout``.

    /work/venv/bin/python benchmarks/compare_crosslingual.py [--src-vocab 200000] [--iters 10] [--cutoff 10000]

Data: GloVe 6B 50d (English, top ``--src-vocab``), Finnish floret 300d (30k), the 5k en-fi
training dictionary of Glavaš et al. (2019) with 20% of its source words held out for testing.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("EMBGEO_QUIET", "1")

import embgeo  # noqa: E402
from embgeo.crosslingual import Mapper, retrieval_factors  # noqa: E402
from embgeo.neighbors import topk  # noqa: E402
from embgeo.evaluate.lexicon import bli, read_dictionary, split_dictionary  # noqa: E402

DATA = Path(os.environ.get("EMBGEO_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


# ------------------------------------------------------------------ plain NumPy (VecMap's steps)
def p_normalize(x):
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    x = x - x.mean(axis=0)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def p_whitening(m):
    u, s, vt = np.linalg.svd(m, full_matrices=False)
    return vt.T.dot(np.diag(1 / s)).dot(vt)


def p_advanced(x, z, si, ti):
    wx1, wz1 = p_whitening(x[si]), p_whitening(z[ti])
    xw, zw = x.dot(wx1), z.dot(wz1)
    wx2, s, wz2t = np.linalg.svd(xw[si].T.dot(zw[ti]), full_matrices=False)  # thin: 50d vs 300d
    wz2 = wz2t.T
    xw, zw = xw.dot(wx2) * s ** 0.5, zw.dot(wz2) * s ** 0.5
    xw = xw.dot(wx2.T.dot(np.linalg.inv(wx1)).dot(wx2))
    zw = zw.dot(wz2.T.dot(np.linalg.inv(wz1)).dot(wz2))
    return xw, zw


def p_topk_mean(m, k):
    """VecMap's topk_mean: k passes of argmax, overwriting each maximum."""
    n = m.shape[0]
    ans = np.zeros(n, dtype=m.dtype)
    ind0 = np.arange(n)
    minimum = m.min()
    for _ in range(k):
        ind1 = m.argmax(axis=1)
        ans += m[ind0, ind1]
        m[ind0, ind1] = minimum
    return ans / k


def p_self_learning(x, z, si, ti, cutoff, iters, rng, keep_prob=0.1, csls=10):
    """VecMap's loop (orthogonal map, union, CSLS, dropout), dense cutoff×cutoff similarities."""
    xc, zc = x[:cutoff], z[:cutoff]
    for _ in range(iters):
        u, s, vt = np.linalg.svd(z[ti].T.dot(x[si]), full_matrices=False)
        w = vt.T.dot(u.T)
        xw = xc.dot(w)
        sim = xw.dot(zc.T)                       # forward similarities (fits for 10k-20k)
        knn_bwd = p_topk_mean(sim.T.copy(), csls)
        knn_fwd = p_topk_mean(sim.copy(), csls)
        f = sim - knn_bwd / 2
        f = f * (rng.random(f.shape, dtype=np.float32) >= 1 - keep_prob)
        tf = f.argmax(axis=1)
        b = sim.T - knn_fwd / 2
        b = b * (rng.random(b.shape, dtype=np.float32) >= 1 - keep_prob)
        sb = b.argmax(axis=1)
        si = np.concatenate([np.arange(cutoff), sb])
        ti = np.concatenate([tf, np.arange(cutoff)])
    return si, ti


def p_nn_p1(xw, zw, q, gold):
    xq = xw[q] / np.linalg.norm(xw[q], axis=1, keepdims=True)
    zn = zw / np.linalg.norm(zw, axis=1, keepdims=True)
    nn = (xq @ zn.T).argmax(axis=1)
    return float(np.mean([nn[i] in g for i, g in enumerate(gold)]))


def p_csls_top10(Q, T, S, k=10, block=1000):
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    Tn = T / np.linalg.norm(T, axis=1, keepdims=True)
    Sn = S / np.linalg.norm(S, axis=1, keepdims=True)
    r_s = np.concatenate([-np.partition(-(Tn[i:i + block] @ Sn.T), k, axis=1)[:, :k].mean(axis=1)
                          for i in range(0, len(Tn), block)])   # 30k × 200k does not fit: blocks
    t_r = time.perf_counter()
    C = 2 * Qn @ Tn.T - r_s
    top = np.argpartition(-C, 10, axis=1)[:, :10]
    return r_s, top, time.perf_counter() - t_r


# ---------------------------------------------------------------------------------- driver
def timed(f, *a, **kw):
    t = time.perf_counter()
    out = f(*a, **kw)
    return out, time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src-vocab", type=int, default=200000)
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--cutoff", type=int, default=10000)
    args = ap.parse_args()
    en = embgeo.load("glove-6b-50d", limit=args.src_vocab)
    fi = embgeo.load(str(DATA / "vectors" / "fi.floret.300d.30k.vec.gz"))
    pairs = read_dictionary(DATA / "bli" / "yacle.train.freq.5k.en-fi.tsv", lowercase=True)
    train, test = split_dictionary(pairs, 0.2)
    si = en.indices([p[0] for p in train], missing="mark")
    ti = fi.indices([p[1] for p in train], missing="mark")
    ok = (si >= 0) & (ti >= 0)
    si, ti = si[ok], ti[ok]
    groups = {}
    for s, t in test:
        if s in en and t in fi:
            groups.setdefault(en.index(s), []).append(fi.index(t))
    q = np.fromiter(groups, dtype=np.int64)
    gold = [set(v) for v in groups.values()]
    X, Z = np.asarray(en.vectors), np.asarray(fi.vectors)
    rows = []
    print(f"en {en.shape} -> fi {fi.shape}; {len(si)} seed pairs; {len(q)} test queries; "
          f"self-learning: {args.iters} iterations, cutoff {args.cutoff}", flush=True)

    # 1. full supervised pipeline: normalise, whiten, map, re-weight, de-whiten, NN P@1
    def e_sup():
        xs, zt = Mapper().fit_transform(en, fi, train)
        return bli(xs, zt, test, retrieval="nn").p_at(1)

    def p_sup():
        x, z = p_normalize(X), p_normalize(Z)
        xw, zw = p_advanced(x, z, si, ti)
        return p_nn_p1(xw, zw, q, gold)

    (ea, et), (pa, pt) = timed(e_sup), timed(p_sup)
    rows.append(("supervised pipeline + NN P@1", et, pt, f"P@1 {100 * ea:.2f} vs {100 * pa:.2f}"))
    print(rows[-1], flush=True)

    # 2. one self-learning run (fixed number of iterations on both sides)
    def e_sl():
        m = Mapper(self_learning=True, vocabulary_cutoff=args.cutoff, csls_knn=10,
                   max_iter=args.iters, stochastic_interval=10 ** 9).fit(en, fi, train)
        return bli(*m.transform(en, fi), test, retrieval="nn").p_at(1)

    def p_sl():
        x, z = p_normalize(X), p_normalize(Z)
        s2, t2 = p_self_learning(x, z, si, ti, args.cutoff, args.iters, np.random.default_rng(0))
        xw, zw = p_advanced(x, z, s2, t2)
        return p_nn_p1(xw, zw, q, gold)

    (ea, et), (pa, pt) = timed(e_sl), timed(p_sl)
    rows.append((f"self-learning, {args.iters} it. + final map", et, pt, f"P@1 {100 * ea:.2f} vs {100 * pa:.2f}"))
    print(rows[-1], flush=True)

    # 3. CSLS retrieval: r_S over the whole mapped source vocabulary (once per mapping), then
    #    the top-10 of 1k queries over the whole target vocabulary
    xs, zt = Mapper().fit_transform(en, fi, train)
    Xs, Zt = np.asarray(xs.vectors), np.asarray(zt.vectors)
    Q = Xs[:1000]
    (fac, e_r) = timed(retrieval_factors, Q, Zt, "csls", source=Xs, progress=False)
    ((_, eidx), e_q) = timed(topk, fac[0], fac[1], 10, metric="dot", progress=False)
    (r_s, pidx, p_q), p_all = timed(p_csls_top10, Q, Zt, Xs)
    agree = np.mean([set(a) == set(b) for a, b in zip(eidx.tolist(), pidx.tolist())])
    rows.append((f"CSLS r_S over {len(Xs)} source words", e_r, p_all - p_q, ""))
    rows.append(("CSLS top-10 of 1k queries over 30k targets", e_q, p_q, f"same top-10 sets {100 * agree:.1f}%"))
    print(rows[-2], rows[-1], flush=True)

    print(f"\n{'step':48s} {'embgeo s':>9s} {'NumPy s':>9s} {'ratio':>7s}  check")
    for name, e, p, note in rows:
        print(f"{name:48s} {e:9.2f} {p:9.2f} {p / e:6.2f}x  {note}")
    print("\nratio = plain NumPy time / embgeo time (>1: embgeo faster). Timings on a shared 2-core machine.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
