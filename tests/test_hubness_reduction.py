"""Hubness reductions as criteria (embgeo.neighbors.reduction_topk): scikit-hubness's golden file, the
papers' formulas by brute force, blocking, ties, and every entry point that takes a criterion."""
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm

import embgeo
from embgeo import crosslingual, diagnostics, neighbors
from embgeo.neighbors import REDUCTION_METRICS, reduction_ranks, reduction_topk

GOLDEN = Path(__file__).parent / "data" / "skhubness_reduction_golden.npz"


@pytest.fixture(scope="module")
def golden():
    return dict(np.load(GOLDEN))


def _all_scores(X, metric, knn, **kw):
    """Every (query, database row) score of the space against itself, as an (n, n) dict lookup."""
    n = X.shape[0]
    s, i = reduction_topk(X, X, n - 1, metric=metric, csls_knn=knn, exclude=np.arange(n), query_rows=np.arange(n), **kw)
    full = np.full((n, n), np.nan)
    np.put_along_axis(full, i, s, axis=1)
    return full


def _reduced_pairs(golden, name):
    """scikit-hubness's sorted reduced distances and columns, the point itself dropped."""
    dist, idx = golden[f"{name}_dist"], golden[f"{name}_idx"]
    keep = idx != np.arange(idx.shape[0])[:, None]
    n = idx.shape[0]
    return dist[keep].reshape(n, -1), idx[keep].reshape(n, -1)


def test_empirical_mp_equals_skhubness_on_its_knn_graph(golden):
    X, K = golden["X"], int(golden["K"])
    n = X.shape[0]
    s, i = reduction_topk(X, X, K, metric="mp", csls_knn=K, exclude=np.arange(n), query_rows=np.arange(n))
    dist, idx = _reduced_pairs(golden, "mp")
    for r in range(n):
        # MP values are counts / n: many ties, which scikit-hubness leaves in its sort's order
        assert dict(zip(idx[r].tolist(), np.round(1 - dist[r], 12).tolist())) == \
            dict(zip(i[r].tolist(), np.round(s[r], 12).tolist()))


def test_gaussian_mp_equals_skhubness_on_its_knn_graph(golden):
    """Moments over each row of the K-NN graph, the K candidates re-ranked: scikit-hubness's
    MutualProximity(method="normal") on the same graph (its order, its values)."""
    X, K = golden["X"], int(golden["K"])
    n = X.shape[0]
    s, i = reduction_topk(X, X, K, metric="mp-gauss", csls_knn=K, exclude=np.arange(n), query_rows=np.arange(n))
    dist, idx = _reduced_pairs(golden, "mp_gauss_knn")
    # it stores 1 − MP, where MP below 1e-16 rounds to a distance of 1: those pairs tie in its sort
    for r in range(n):
        assert set(i[r].tolist()) == set(idx[r].tolist())
        mine = dict(zip(i[r].tolist(), s[r].tolist()))
        np.testing.assert_allclose([1 - mine[j] for j in idx[r].tolist()], dist[r], rtol=0, atol=1e-12)
    assert np.all(np.diff(s, axis=1) <= 0)
    distinct = np.diff(dist, axis=1) > 1e-12
    np.testing.assert_array_equal(i[:, :-1][distinct], idx[:, :-1][distinct])


def test_gaussian_mp_over_complete_lists_is_the_papers(golden):
    """With K = n − 1 the moments are those of all other points (Schnitzer et al. 2012, eq. 8), as
    scikit-hubness's on the complete graph."""
    X = golden["X"]
    n = X.shape[0]
    s, i = reduction_topk(X, X, 10, metric="mp-gauss", csls_knn=n - 1, exclude=np.arange(n),
                          query_rows=np.arange(n))
    dist, idx = _reduced_pairs(golden, "mp_gauss")
    np.testing.assert_array_equal(i, idx[:, :10])
    np.testing.assert_allclose(s, 1 - dist[:, :10], rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("metric, name", [("ls", "ls"), ("cdm", "nicdm"), ("dsl", "dsl")])
def test_local_criteria_rank_skhubness_graphs_alike(golden, metric, name):
    """LS, NICDM and DSL rank each K-NN graph row as scikit-hubness does; the values differ from its
    by the query's own term only (1/σ_x, 1/√μ_x, a shift), constant along a row."""
    X, K = golden["X"], int(golden["K"])
    full = _all_scores(X, metric, K)
    dist, idx = _reduced_pairs(golden, name)
    mine = np.take_along_axis(full, idx, axis=1)
    assert np.all(np.diff(mine, axis=1) < 0)  # the same order, best first
    if metric == "ls":
        ratio = (dist - 1) / -mine
    elif metric == "cdm":
        ratio = dist / -mine
    else:
        ratio = dist - -mine
    np.testing.assert_allclose(ratio, ratio[:, :1] * np.ones_like(ratio), rtol=1e-6, atol=1e-9)


def _unit(A):
    return A / np.linalg.norm(A, axis=1, keepdims=True)


def _brute(metric, Q, T, S, K, own):
    """The papers' formulas on full n × n distance matrices (unit vectors, d = ‖x − y‖)."""
    Q, T, S = _unit(Q), _unit(T), _unit(S)

    def dist(A, B):
        return np.sqrt(np.maximum(2 - 2 * A @ B.T, 0))

    DT = dist(T, S)
    if own:
        np.fill_diagonal(DT, np.inf)
    near = np.sort(DT, axis=1)[:, :K]
    D = dist(Q, T)
    if metric == "ls":  # Zelnik-Manor & Perona 2005: σ = distance to the K-th neighbour
        return -D ** 2 / near[:, -1]
    if metric == "cdm":  # Jégou et al. 2007, NICDM: μ = mean distance to the K neighbours
        return -D / np.sqrt(near.mean(axis=1))
    if metric == "dsl":  # Hara et al. 2016: c = centroid of the K neighbours
        c = S[np.argsort(DT, axis=1, kind="stable")[:, :K]].mean(axis=1)
        return -(D ** 2 - ((T - c) ** 2).sum(axis=1))
    # Schnitzer et al. 2012, eq. 8, with scikit-hubness's moments over each point's K nearest
    # distances; the query's K nearest targets re-ranked, the others after them by cosine
    DQ = dist(Q, S)
    if own:
        DQ = DT[:Q.shape[0]]
    near_q = np.sort(DQ, axis=1)[:, :K]
    mq, sq = near_q.mean(axis=1), near_q.std(axis=1)
    mt, st = near.mean(axis=1), near.std(axis=1)
    if own:
        np.fill_diagonal(D, np.inf)
    cand = np.argsort(D, axis=1, kind="stable")[:, :K]
    B = np.cos(0) - D ** 2 / 2 - 2  # cos − 2
    g = norm.sf(D, mq[:, None], sq[:, None]) * norm.sf(D, mt[None, :], st[None, :])
    np.put_along_axis(B, cand, np.take_along_axis(g, cand, axis=1), axis=1)
    return B


@pytest.mark.parametrize("metric", ["ls", "cdm", "dsl", "mp-gauss"])
@pytest.mark.parametrize("own", [True, False])
@pytest.mark.parametrize("K", [4, 12])  # k = 8 beyond and within MP's K candidates
def test_closed_form_criteria_equal_the_papers_by_brute_force(rng, metric, own, K):
    T = rng.standard_normal((90, 6)) + 0.7
    S = T if own else rng.standard_normal((70, 6)) + 0.5
    Q = T[:30] if own else rng.standard_normal((30, 6))
    kw = dict(exclude=np.arange(30), query_rows=np.arange(30)) if own else dict(source=S)
    s, i = reduction_topk(Q, T, 8, metric=metric, csls_knn=K, **kw)
    B = _brute(metric, Q, T, S, K, own)
    if own:
        B[np.arange(30), np.arange(30)] = -np.inf
    order = np.argsort(-B, axis=1, kind="stable")[:, :8]
    np.testing.assert_array_equal(i, order)
    np.testing.assert_allclose(s, np.take_along_axis(B, order, axis=1), rtol=1e-5, atol=1e-6)


def test_empirical_mp_over_complete_lists_is_the_papers_mp(rng):
    """With K = n − 1 the k-NN graph approximation is exact: |{j: d(x,j) > d(x,y), d(y,j) > d(x,y)}| / n."""
    X = _unit(rng.standard_normal((40, 5)) + 0.5)
    n = X.shape[0]
    D = np.sqrt(np.maximum(2 - 2 * X @ X.T, 0))
    s, i = reduction_topk(X, X, 6, metric="mp", csls_knn=n - 1, exclude=np.arange(n), query_rows=np.arange(n))
    for x in range(n):
        for y, v in zip(i[x], s[x]):
            d = D[x, y]
            others = np.delete(np.arange(n), [x, y])
            assert v == pytest.approx(np.sum((D[x, others] > d) & (D[y, others] > d)) / n)


@pytest.mark.parametrize("metric", REDUCTION_METRICS)
def test_blocked_equals_unblocked_and_ranks_agree_with_topk(rng, metric):
    T = rng.standard_normal((120, 8)).astype(np.float32)
    S = rng.standard_normal((100, 8)).astype(np.float32)
    Q = rng.standard_normal((25, 8)).astype(np.float32)
    big = reduction_topk(Q, T, 7, metric=metric, source=S, csls_knn=5)
    tiny = reduction_topk(Q, T, 7, metric=metric, source=S, csls_knn=5, memory_budget=64)
    np.testing.assert_array_equal(big[1], tiny[1])
    np.testing.assert_allclose(big[0], tiny[0], rtol=1e-6, atol=1e-7)  # float32 BLAS rounds by block shape
    # BLI's ranks: rank ≤ k exactly when the gold row is in the top k
    gold = [np.array([j]) for j in big[1][:, 3]]
    np.testing.assert_array_equal(reduction_ranks(Q, T, gold, metric=metric, source=S, csls_knn=5), 4)


@pytest.mark.parametrize("metric", REDUCTION_METRICS)
def test_ties_go_to_the_lower_row(rng, metric):
    T = rng.standard_normal((30, 5)).astype(np.float32)
    T = np.concatenate([T, T])  # every row twice: equal scores
    Q = rng.standard_normal((4, 5)).astype(np.float32)
    s, i = reduction_topk(Q, T, 6, metric=metric, source=T[:30], csls_knn=3)
    cos = np.take_along_axis(_unit(Q) @ _unit(T).T, i, axis=1)
    for row_s, row_i, row_c in zip(s, i, cos):
        for a in range(5):
            if row_s[a] == row_s[a + 1]:
                # MP's equal counts go to the nearer pair first (scikit-hubness's sort keeps that order)
                assert row_i[a] < row_i[a + 1] or (metric == "mp" and row_c[a] > row_c[a + 1])
        assert len(set(row_i.tolist()) & set((row_i + 30).tolist())) > 0 or metric == "mp"


@pytest.mark.parametrize("metric", REDUCTION_METRICS)
def test_every_entry_point_takes_the_criteria(rng, metric):
    X = rng.standard_normal((150, 10)).astype(np.float32)
    e = embgeo.Embeddings([f"w{i}" for i in range(150)], X)
    s, i = neighbors.search(e, ["w1", "w2"], 4, metric=metric, csls_knn=6)
    ref = reduction_topk(X[1:3], X, 4, metric=metric, csls_knn=6, exclude=[1, 2], query_rows=[1, 2])
    np.testing.assert_array_equal(i, ref[1])
    h = diagnostics.hubness(e, k=4, retrieval=metric, csls_knn=6)
    assert h.retrieval == metric and h.k_occurrence.sum() == 150 * 4
    _, r = crosslingual.retrieve(X[:5], X[50:], 3, metric, source=X[:100], csls_knn=6)
    np.testing.assert_array_equal(r, reduction_topk(X[:5], X[50:], 3, metric=metric, source=X[:100], csls_knn=6)[1])
    assert neighbors.check_retrieval(metric, "induction") == metric


@pytest.mark.parametrize("metric", REDUCTION_METRICS)
def test_induction_by_a_reduction_is_its_best_row_in_each_direction(rng, metric):
    """induce_dictionary: forward rows by reduction_topk over the mapped source (CSLS's r_S side),
    backward ones over the target; VecMap's objective stays the mean best cosine."""
    A = _unit(rng.standard_normal((120, 8))).astype(np.float32)
    B = _unit(A[::-1] + 0.3 * rng.standard_normal((120, 8))).astype(np.float32)
    pairs, obj = crosslingual.induce_dictionary(A, B, retrieval=metric, csls_knn=15, return_objective=True)
    fwd = reduction_topk(A, B, 1, metric=metric, source=A, csls_knn=15)[1][:, 0]
    bwd = reduction_topk(B, A, 1, metric=metric, source=B, csls_knn=15)[1][:, 0]
    np.testing.assert_array_equal(pairs, np.concatenate([np.stack([np.arange(120), fwd], 1),
                                                         np.stack([bwd, np.arange(120)], 1)]))
    assert obj == pytest.approx(crosslingual.induce_dictionary(A, B, return_objective=True)[1], rel=1e-6)
    mutual = crosslingual.induce_dictionary(A, B, retrieval=metric, csls_knn=15, direction="mutual")
    assert all(fwd[a] == b and bwd[b] == a for a, b in mutual)


def test_self_learning_with_a_reduction_recovers_a_rotation(rng):
    X = _unit(rng.standard_normal((400, 16))).astype(np.float32)
    R = np.linalg.qr(rng.standard_normal((16, 16)))[0].astype(np.float32)
    Z = _unit(X @ R + 0.02 * rng.standard_normal((400, 16))).astype(np.float32)
    src = embgeo.Embeddings([f"s{i}" for i in range(400)], X)
    tgt = embgeo.Embeddings([f"t{i}" for i in range(400)], Z)
    seed = [(f"s{i}", f"t{i}") for i in range(25)]
    ind = crosslingual.Induction("ls", csls_knn=10, direction="forward", stochastic_initial=1.0)
    m = crosslingual.Mapper(self_learning=True, induction=ind, max_iter=10).fit(src, tgt, seed)
    xs, zt = m.transform(src, tgt)
    assert np.mean(np.argmax(np.asarray(xs.vectors) @ np.asarray(zt.vectors).T, axis=1) == np.arange(400)) > 0.95


def test_a_reduction_refuses_stochastic_induction_and_muse_refinement(rng):
    X = rng.standard_normal((50, 4)).astype(np.float32)
    with pytest.raises(ValueError, match="keep_prob=1"):
        crosslingual.induce_dictionary(X, X, retrieval="ls", keep_prob=0.5)
    src = embgeo.Embeddings([f"w{i}" for i in range(50)], X)
    seed = [(f"w{i}", f"w{i}") for i in range(10)]
    with pytest.raises(ValueError, match="stochastic_initial=1.0"):
        crosslingual.Mapper(self_learning=True, induction=crosslingual.Induction("mp")).fit(src, src, seed)
    with pytest.raises(ValueError, match="refinement='muse'.*'nn' or 'csls'"):
        crosslingual.Mapper.from_recipe("muse", induction__retrieval="dsl").fit(src, src, seed)


def test_hubness_reductions_cut_hubness(rng):
    """A space with a common direction has hubs; every reduction lowers the N_k skewness."""
    X = rng.standard_normal((600, 30)) + 0.6 * rng.standard_normal(30)
    base = diagnostics.hubness(X, k=5).skewness
    for metric in ("mp-gauss", "ls", "cdm"):
        assert diagnostics.hubness(X, k=5, retrieval=metric).skewness < base
    assert diagnostics.hubness(X, k=5, retrieval="mp", csls_knn=30).skewness < base


def test_bad_input_is_named(rng):
    X = rng.standard_normal((6, 4)).astype(np.float32)
    with pytest.raises(ValueError, match="need at least 7 words"):
        reduction_topk(X[:2], X, 2, metric="ls", csls_knn=6)
    with pytest.raises(ValueError, match="'mp', 'mp-gauss', 'ls', 'cdm' or 'dsl'"):
        reduction_topk(X, X, 2, metric="mutual")
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="row 3"):
        reduction_topk(X, bad, 2, metric="mp", csls_knn=2)
    with pytest.raises(ValueError, match="query 1 has no gold row"):
        reduction_ranks(X[:2], X, [[0], []], metric="ls", source=X, csls_knn=2)
    with pytest.raises(ValueError, match="query 0 has a gold row outside the database's 6 rows"):
        reduction_ranks(X[:2], X, [[6], [1]], metric="ls", source=X, csls_knn=2)
    with pytest.raises(ValueError, match="'retrieval' parameter of Induction.*Got 'invnn'"):
        crosslingual.Mapper(induction=crosslingual.Induction(retrieval="invnn"), self_learning=True).fit(
            embgeo.Embeddings(list("abcdef"), X), embgeo.Embeddings(list("abcdef"), X), [("a", "a"), ("b", "b")])


def test_importing_the_criteria_imports_no_numba():
    """The reductions' kernels are imported where they run: `import embgeo.neighbors` pays no Numba start-up."""
    import subprocess
    import sys

    code = "import sys, embgeo.neighbors; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1])
    assert out.stdout.strip() == "False", out.stderr
