"""Certified screened search and canonical scores against an independent brute force.

The oracle is written from the definition, not from the library: the canonical score of a pair is
the float64 product of the float32 unit query and the raw row (exact products, NumPy's float64
GEMM), times the row's float32 inverse norm, rounded to float32; the ranking is a lexsort on
(−score, row). The screened search must return exactly those rows and scores.
"""
import numpy as np
import pytest

from embgeo.linalg import inverse_norms
from embgeo.neighbors import _exact as exact
from embgeo.neighbors import _screening as screening


def oracle(Q, D, k, metric="cosine", exclude=None, offset=0):
    D = np.asarray(D)
    if metric == "cosine":
        inv = inverse_norms(D)
        U = (Q * inverse_norms(Q)[:, None]).astype(D.dtype)
        S = (U.astype(np.float64) @ D.T.astype(np.float64)) * inv.astype(np.float64)
    else:
        S = Q.astype(np.float64) @ D.T.astype(np.float64)
    S = S.astype(D.dtype)
    if exclude is not None:
        for r, cols in enumerate(exclude):
            cols = np.atleast_1d(cols) - offset
            S[r, cols[(cols >= 0) & (cols < len(D))]] = -np.inf
    if k < len(D) // 4:
        # only the rows at or above each k-th score can rank (ties at the k-th included)
        kth = -np.partition(-S, k - 1, axis=1)[:, k - 1:k]
        out_s, out_i = np.empty((len(S), k), S.dtype), np.empty((len(S), k), np.int64)
        for r in range(len(S)):
            cand = np.flatnonzero(S[r] >= kth[r])
            o = cand[np.lexsort((cand, -S[r, cand]))][:k]
            out_s[r], out_i[r] = S[r, o], o
        return out_s, out_i + offset
    order = np.lexsort((np.broadcast_to(np.arange(len(D)), S.shape), -S), axis=1)[:, :k]
    return np.take_along_axis(S, order, axis=1), order + offset


def near_tie_data(rng, n=6000, d=24, r=6, copies=400):
    """Rows in an r-dimensional subspace (the bound is then nearly tight) plus near-copies.

    Each of 20 planted rows gets ``copies`` copies perturbed in the last bits, so hundreds of
    canonical scores sit within a few float32 ulps of each other around the top of the lists:
    any bound that undershoots by a rounding error drops some of them.
    """
    basis = np.linalg.qr(rng.standard_normal((d, r)))[0]
    D = (rng.standard_normal((n, r)) @ basis.T).astype(np.float32)
    planted = rng.choice(n, 20, replace=False)
    near = np.repeat(D[planted], copies, axis=0)
    near = (near * (1 + 1e-6 * rng.standard_normal(near.shape))).astype(np.float32)
    D = np.vstack([D, near])
    perm = rng.permutation(len(D))
    D = np.ascontiguousarray(D[perm])
    Q = np.ascontiguousarray(D[np.flatnonzero(np.isin(perm, planted))] * 1.5)
    return Q, D


@pytest.mark.parametrize("metric", ["cosine", "dot"])
def test_screened_equals_brute_force_on_planted_near_ties(rng, metric, monkeypatch):
    monkeypatch.setattr(screening, "SEED_ROWS", 512)
    Q, D = near_tie_data(rng)
    index = screening.build_index(D, metric, rank=4)
    for k in (1, 7, screening.MAX_K):
        s, i = exact.topk(Q, D, k, metric=metric, screen=index)
        ref_s, ref_i = oracle(Q, D, k, metric)
        np.testing.assert_array_equal(i, ref_i)
        np.testing.assert_array_equal(s, ref_s)


def test_a_margin_too_small_or_a_wrong_bound_is_caught(rng, monkeypatch):
    # the test above must be able to fail: without the rounding margin, or without the residual
    # column of the bound, rows of the true top-k are pruned
    monkeypatch.setattr(screening, "SEED_ROWS", 512)
    Q, D = near_tie_data(rng)
    ref = oracle(Q, D, 200)[1]
    index = screening.build_index(D, "cosine", rank=4)
    with monkeypatch.context() as m:
        m.setattr(screening, "screen_margin", lambda *a: -1e-300)
        m.setattr(screening, "plain_margin", lambda *a: -1e-300)
        assert not np.array_equal(exact.topk(Q, D, 200, screen=index)[1], ref)
    G = rng.standard_normal((8000, 24)).astype(np.float32)
    index = screening.build_index(G, "cosine", rank=6)
    coords = index.coords.copy()
    coords[:, -1] = 0  # Cauchy–Schwarz term dropped
    wrong = screening.ScreenIndex(index.rotation, index.rank, coords, "cosine", index.max_norm, index.eta, 0.0)
    assert not np.array_equal(exact.topk(G[:50], G, 10, screen=wrong)[1], oracle(G[:50], G, 10)[1])
    np.testing.assert_array_equal(exact.topk(G[:50], G, 10, screen=index)[1], oracle(G[:50], G, 10)[1])


def test_exclusions_offset_zero_rows_and_threads(rng, monkeypatch):
    monkeypatch.setattr(screening, "SEED_ROWS", 300)
    D = rng.standard_normal((5000, 32)).astype(np.float32)
    D[:, :4] *= 6  # a dominant subspace: the bound prunes
    D[[17, 2500]] = 0  # cosine with zero rows scores 0
    Q = np.vstack([D[:40], np.zeros((1, 32), np.float32)])
    ex = [rng.choice(5000, int(rng.integers(0, 20)), replace=False) + 1000 for _ in range(len(Q))]
    index = screening.build_index(D, "cosine", rank=8)
    for n_jobs in (1, 3):
        s, i = exact.topk(Q, D, 12, exclude=ex, offset=1000, screen=index, n_jobs=n_jobs, memory_budget=2**16)
        ref_s, ref_i = oracle(Q, D, 12, exclude=ex, offset=1000)
        np.testing.assert_array_equal(i, ref_i)
        np.testing.assert_array_equal(s, ref_s)
    assert list(i[-1]) == list(range(1000, 1012))  # a zero query ties everything: lowest rows first
    # k up to n (minus the most excluded): the plain canonical path
    k = 5000 - max(len(x) for x in ex)
    np.testing.assert_array_equal(exact.topk(Q[:3], D, k, exclude=ex[:3], offset=1000, screen=index)[1],
                                  oracle(Q[:3], D, k, exclude=ex[:3], offset=1000)[1])


def test_screened_search_of_exact_duplicates_and_equal_cosines_equals_the_oracle(rng, monkeypatch):
    # issue 17's rows: exact duplicates and one direction at another norm (equal cosines) rank as the
    # oracle ranks them, lowest row first (that shards merge to the whole search: test_neighbors.py)
    monkeypatch.setattr(screening, "SEED_ROWS", 256)
    D = rng.standard_normal((3000, 40)).astype(np.float32)
    D[:, :5] *= 4
    D[2900] = D[10]
    D[1501] = D[10]
    D[1499] = D[77] * 3
    Q = np.vstack([D[[10, 77, 5]], rng.standard_normal((30, 40)).astype(np.float32)])
    for metric in ("cosine", "dot"):
        s, i = exact.topk(Q, D, 9, metric=metric, screen=screening.build_index(D, metric, rank=6))
        ref_s, ref_i = oracle(Q, D, 9, metric)
        np.testing.assert_array_equal(i, ref_i)
        np.testing.assert_array_equal(s, ref_s)
    assert list(i[0, :3]) == [10, 1501, 2900]  # dot: the duplicates, lowest row first


def test_margins_cover_the_measured_rounding(rng):
    # the derived margins bound the errors actually made (and are not absurdly loose)
    d = 50
    X = rng.standard_normal((2000, d)).astype(np.float32)
    U = rng.standard_normal((30, d)).astype(np.float32)
    exact_s = U.astype(np.float64) @ X.T.astype(np.float64)
    gemm = (U @ X.T).astype(np.float64)
    scale = np.linalg.norm(U.astype(np.float64), axis=1)[:, None] * np.linalg.norm(X.astype(np.float64), axis=1)
    err = np.abs(gemm - exact_s.astype(np.float32)) / scale
    m = screening.plain_margin(d, np.float32)
    assert err.max() <= m < 1e-4
    assert screening.gamma(10, 2.0 ** -24) == pytest.approx(10 * 2.0 ** -24, rel=1e-5)
    index = screening.build_index(X, "dot", rank=12)
    Z = X.astype(np.float64) @ index.rotation
    P = U.astype(np.float64) @ index.rotation
    bound = P[:, :12] @ Z[:, :12].T + (np.linalg.norm(P[:, 12:], axis=1)[:, None] * np.linalg.norm(Z[:, 12:], axis=1))
    assert np.all(bound >= exact_s - 1e-9 * scale)  # Cauchy–Schwarz holds
    assert index.eta < 1e-10


def test_glove_screened_equals_brute_force(glove):
    X = np.ascontiguousarray(np.asarray(glove.vectors, dtype=np.float32))
    rng = np.random.default_rng(0)
    qi = np.sort(rng.choice(len(X), 150, replace=False))
    index = screening.build_index(X, "cosine", rank=28)
    stats = {}
    inv = inverse_norms(X)
    s, i = screening.screened_topk(X[qi], X, 10, None, inverse_norms(X[qi]), inv, index, n_jobs=2,
                                   stats=stats)
    assert stats["survivors"] < 0.05 * stats["pairs"]
    for a in range(0, len(qi), 50):
        ref_s, ref_i = oracle(X[qi[a:a + 50]], X, 10)
        np.testing.assert_array_equal(i[a:a + 50], ref_i)
        np.testing.assert_array_equal(s[a:a + 50], ref_s)


def test_csls_ranking_scores_are_canonical(rng):
    # CSLS ranks by 2 cos − r_S: the same canonical rescoring, so any tiling gives the same bits
    D = rng.standard_normal((3000, 20)).astype(np.float32)
    D[2999] = D[5]  # an exact tie
    Q = np.vstack([D[[5, 9]], rng.standard_normal((20, 20)).astype(np.float32)])
    rD = rng.uniform(0.1, 0.4, len(D)).astype(np.float32)
    rD[2999] = rD[5]
    rQ = rng.uniform(0.1, 0.4, len(Q)).astype(np.float32)
    s, i = exact.csls_topk(Q, D, 6, r_database=rD, r_queries=rQ)
    inv = inverse_norms(D)
    U = (Q * inverse_norms(Q)[:, None]).astype(np.float32)
    V = (2 * ((U.astype(np.float64) @ D.T.astype(np.float64)) * inv.astype(np.float64))
         - rD.astype(np.float64)).astype(np.float32)
    order = np.lexsort((np.broadcast_to(np.arange(len(D)), V.shape), -V), axis=1)[:, :6]
    np.testing.assert_array_equal(i, order)
    np.testing.assert_array_equal(s, np.take_along_axis(V, order, axis=1) - rQ[:, None])
    assert list(i[0, :2]) == [5, 2999]
    s2, i2 = exact.csls_topk(Q, D, 6, r_database=rD, r_queries=rQ, memory_budget=1, n_jobs=3)
    np.testing.assert_array_equal(i2, i)
    np.testing.assert_array_equal(s2, s)


def test_public_topk_takes_screen_and_dask_refuses_it(rng):
    from embgeo import neighbors

    D = rng.standard_normal((3000, 40)).astype(np.float32)
    Q = D[:50]
    plain = neighbors.topk(Q, D, 7, exclude=np.arange(50), progress=False)
    screened = neighbors.topk(Q, D, 7, exclude=np.arange(50), progress=False,
                              backend=neighbors.Exact(screen=screening.build_index(D, "cosine")))
    np.testing.assert_array_equal(plain[1], screened[1])
    np.testing.assert_array_equal(plain[0], screened[0])
    np.testing.assert_array_equal(plain[1], oracle(Q, D, 7, exclude=np.arange(50))[1])


def test_word_search_keeps_the_screening_index_of_its_embeddings(rng, monkeypatch):
    from embgeo import Embeddings, neighbors

    D = rng.standard_normal((3000, 40)).astype(np.float32)
    e = Embeddings([f"w{i}" for i in range(len(D))], D)
    built, real = [], screening.build_index
    monkeypatch.setattr(screening, "build_index", lambda *a, **kw: built.append(a[1]) or real(*a, **kw))
    plain = e.neighbors(["w3", "w70"], 7)
    for _ in range(2):
        screened = e.neighbors(["w3", "w70"], 7, backend=neighbors.Exact(screen=True))
        np.testing.assert_array_equal(plain[1], screened[1])
        np.testing.assert_array_equal(plain[0], screened[0])
    assert built == ["cosine"]  # built on the first call, kept with e
    e.neighbors(["w3"], 7, metric="dot", backend=neighbors.Exact(screen=True))
    assert built == ["cosine", "dot"]
