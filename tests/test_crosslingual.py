"""Tests of embgeo.crosslingual: Procrustes, retrieval, dictionary induction, the Mapper."""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

import embgeo
from embgeo.crosslingual import (RECIPES, Induction, Initialization, Mapper, Mapping, Preprocessing, Selection,
                                 dictionary_indices, identical_dictionary, induce_dictionary, numeral_dictionary,
                                 procrustes, retrieve, retrieval_factors)
from embgeo.errors import NotFittedError


def _orth(rng, d):
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return Q


def _unit(M):
    M = np.asarray(M, dtype=np.float64)
    return M / np.linalg.norm(M, axis=1, keepdims=True)


def _pair(rng, n=600, d=16, noise=0.0):
    X = rng.standard_normal((n, d)).astype(np.float32)
    Q = _orth(rng, d)
    Z = (X @ Q + noise * rng.standard_normal((n, d))).astype(np.float32)
    src = embgeo.Embeddings([f"s{i}" for i in range(n)], X)
    tgt = embgeo.Embeddings([f"t{i}" for i in range(n)], Z)
    return src, tgt, Q


# ------------------------------------------------------------------------------- Procrustes
def test_procrustes_recovers_orthogonal_map_exactly_without_noise(rng):
    X = rng.standard_normal((200, 12))
    Q = _orth(rng, 12)
    W = procrustes(X, X @ Q)
    np.testing.assert_allclose(W, Q, atol=1e-10)


def test_procrustes_recovers_orthogonal_map_approximately_with_noise(rng):
    X = rng.standard_normal((2000, 10))
    Q = _orth(rng, 10)
    W = procrustes(X, X @ Q + 0.1 * rng.standard_normal((2000, 10)))
    assert np.linalg.norm(W - Q) < 0.05
    np.testing.assert_allclose(W @ W.T, np.eye(10), atol=1e-10)  # still orthogonal


def test_procrustes_equals_svd_formula_uv(rng):
    X, Z = rng.standard_normal((50, 6)), rng.standard_normal((50, 6))
    U, _, Vt = np.linalg.svd(X.T @ Z)
    np.testing.assert_allclose(procrustes(X, Z), U @ Vt, atol=1e-10)


@pytest.mark.parametrize("ds,dt", [(5, 12), (12, 5)])
def test_procrustes_is_semi_orthogonal_for_different_dimensions(rng, ds, dt):
    d = max(ds, dt)
    Q = _orth(rng, d)
    W_true = Q[:ds, :dt]  # orthonormal rows (ds < dt) or columns (ds > dt)
    X = rng.standard_normal((300, ds))
    Z = X @ W_true
    W = procrustes(X, Z)
    assert W.shape == (ds, dt)
    r = min(ds, dt)
    G = W @ W.T if ds < dt else W.T @ W
    np.testing.assert_allclose(G, np.eye(r), atol=1e-10)
    if ds < dt:  # an isometry into the target: exact recovery
        np.testing.assert_allclose(W, W_true, atol=1e-10)


def _stiefel_minimum(X, Z, starts=3, seed=0, start=None):
    """min ‖XW − Z‖_F over W with orthonormal rows/columns, by BFGS on W = orth(A) (independent of SVD)."""
    from scipy.optimize import minimize

    ds, dt = X.shape[1], Z.shape[1]

    def orth(a):
        A = a.reshape(ds, dt)
        if ds >= dt:
            return np.linalg.qr(A)[0]
        return np.linalg.qr(A.T)[0].T

    def f(a):
        return np.linalg.norm(X @ orth(a) - Z)

    r = np.random.default_rng(seed)
    x0s = [r.standard_normal(ds * dt) for _ in range(starts)] + ([] if start is None else [start.ravel()])
    return min(minimize(f, x0, method="BFGS").fun for x0 in x0s)


@pytest.mark.parametrize("ds, dt", [(4, 4), (3, 5), (5, 3)])
def test_procrustes_distance_against_numerical_optimum(rng, ds, dt):
    X = rng.standard_normal((40, ds)) * np.arange(1, ds + 1)  # unequal variances matter for ds > dt
    Z = rng.standard_normal((40, dt))
    W = procrustes(X, Z)
    at_uv = np.linalg.norm(X @ W - Z)
    best = _stiefel_minimum(X, Z, start=W)
    if ds <= dt:
        # UVᵀ is the least-squares optimum: no search (one started at UVᵀ itself) gets below it
        assert at_uv <= best * (1 + 1e-7)
    else:
        assert best < at_uv - 0.1                        # documented: not the distance minimiser
        # ... but it maximises the alignment tr(WᵀXᵀZ), which no orthonormal W beats
        Q = np.linalg.qr(rng.standard_normal((ds, dt)))[0]
        assert np.trace(W.T @ X.T @ Z) >= np.trace(Q.T @ X.T @ Z)


def test_procrustes_word_pairs_match_index_pairs_and_skip_oov(rng):
    src, tgt, _ = _pair(rng, 100, 6, noise=0.3)
    words = [(f"s{i}", f"t{i}") for i in range(30)] + [("s1", "nope"), ("nope", "t2")]
    idx = np.array([[i, i] for i in range(30)])
    np.testing.assert_allclose(procrustes(src, tgt, words), procrustes(src.vectors, tgt.vectors, idx), atol=1e-6)


def test_procrustes_rejects_bad_input(rng):
    with pytest.raises(ValueError, match="same number of rows"):
        procrustes(np.ones((4, 2)), np.ones((5, 2)))
    with pytest.raises(ValueError, match="NaN"):
        procrustes(np.array([[np.nan, 1.0], [1.0, 2.0]]), np.ones((2, 2)))
    with pytest.raises(ValueError, match="out of range"):
        procrustes(np.ones((4, 2)), np.ones((4, 2)), np.array([[0, 9]]))
    src, tgt, _ = _pair(rng, 20, 4)
    with pytest.raises(ValueError, match="none of the 1 dictionary pairs"):
        procrustes(src, tgt, [("xx", "yy")])


def test_procrustes_array_api_strict_matches_numpy(rng):
    xps = pytest.importorskip("array_api_strict")
    X, Z = rng.standard_normal((40, 5)), rng.standard_normal((40, 7))
    W = procrustes(xps.asarray(X), xps.asarray(Z))
    np.testing.assert_allclose(np.asarray(embgeo.to_numpy(W)), procrustes(X, Z), atol=1e-10)


# -------------------------------------------------------------------------------- retrieval
def _dense_csls(Q, T, S, k):
    Qn, Tn, Sn = _unit(Q), _unit(T), _unit(S)
    C = Qn @ Tn.T
    r_t = np.sort(C, axis=1)[:, ::-1][:, :k].mean(axis=1)              # r_T(x): query to targets
    r_s = np.sort(Tn @ Sn.T, axis=1)[:, ::-1][:, :k].mean(axis=1)      # r_S(y): target to sources
    return 2 * C - r_t[:, None] - r_s[None, :]


def test_csls_retrieval_equals_dense_formula(rng):
    S = rng.standard_normal((300, 8)).astype(np.float32)
    T = rng.standard_normal((250, 8)).astype(np.float32)
    Q = S[:40]
    dense = _dense_csls(Q, T, S, 10)
    expect = np.argsort(-dense, axis=1, kind="stable")[:, :5]
    _, idx = retrieve(Q, T, 5, "csls", source=S, csls_knn=10, memory_budget=4096)  # many blocks
    np.testing.assert_array_equal(idx, expect)
    # the factor form reproduces the scores up to the per-query constant r_T(x)
    Qa, Ta = retrieval_factors(Q, T, "csls", source=S)
    F = (Qa.astype(np.float64) @ Ta.T.astype(np.float64))
    np.testing.assert_allclose(F - dense, np.broadcast_to((F - dense)[:, :1], F.shape), atol=1e-5)


def test_inverted_softmax_equals_dense_formula(rng):
    S = rng.standard_normal((200, 6)).astype(np.float32)
    T = rng.standard_normal((150, 6)).astype(np.float32)
    Q, beta = S[:30], 7.0
    E = np.exp(beta * _unit(T) @ _unit(S).T)                  # (targets, sources)
    P = np.exp(beta * _unit(Q) @ _unit(T).T) / E.sum(axis=1)[None, :]   # Smith et al. eq. 4
    _, idx = retrieve(Q, T, 3, "isf", source=S, isf_beta=beta)
    np.testing.assert_array_equal(idx, np.argsort(-P, axis=1, kind="stable")[:, :3])


def test_nn_retrieval_is_cosine_topk(rng):
    T = rng.standard_normal((100, 5)).astype(np.float32)
    Q = rng.standard_normal((7, 5)).astype(np.float32)
    s, idx = retrieve(Q, T, 4, "nn")
    C = _unit(Q) @ _unit(T).T
    np.testing.assert_array_equal(idx, np.argsort(-C, axis=1, kind="stable")[:, :4])
    np.testing.assert_allclose(s, np.sort(C, axis=1)[:, ::-1][:, :4], atol=1e-5)


def test_retrieval_array_api_strict_matches_numpy(rng):
    xps = pytest.importorskip("array_api_strict")
    S = rng.standard_normal((60, 4)).astype(np.float32)
    T = rng.standard_normal((50, 4)).astype(np.float32)
    for method in ("nn", "csls", "isf"):
        _, a = retrieve(xps.asarray(S[:9]), xps.asarray(T), 3, method, source=xps.asarray(S))
        _, b = retrieve(S[:9], T, 3, method, source=S)
        np.testing.assert_array_equal(np.asarray(embgeo.to_numpy(a)), b)


def test_retrieval_rejects_unknown_method_and_dimension_mismatch(rng):
    with pytest.raises(ValueError, match="retrieval must be"):
        retrieve(np.ones((2, 3)), np.ones((4, 3)), 1, "cosine")
    with pytest.raises(ValueError, match="dimension"):
        retrieve(np.ones((2, 3)), np.ones((4, 5)), 1, "nn")


def test_csls_and_isf_need_the_source_vocabulary_not_the_queries(rng):
    # the reviewer's repro: with the queries standing in for the source vocabulary, one query makes
    # every inverted-softmax score 0 and the true target was not retrieved
    Z = rng.standard_normal((1000, 20)).astype(np.float32)
    q = Z[537] + 0.05 * rng.standard_normal(20).astype(np.float32)
    for method in ("csls", "isf"):
        with pytest.raises(ValueError, match="source"):
            retrieve(q, Z, k=5, retrieval=method)
        with pytest.raises(ValueError, match="source"):
            retrieval_factors(q, Z, method)
        _, idx = retrieve(q, Z, k=5, retrieval=method, source=Z)
        assert idx[0, 0] == 537
    _, idx = retrieve(q, Z, k=5, retrieval="nn")  # NN needs no source
    assert idx[0, 0] == 537
    with pytest.raises(ValueError, match="csls_knn"):
        retrieve(q, Z, k=5, retrieval="csls", source=Z, csls_knn=0)
    with pytest.raises(ValueError, match="source has dimension"):
        retrieve(q, Z, k=5, retrieval="isf", source=Z[:, :5])
    bad = Z.copy()
    bad[12, 3] = np.nan
    with pytest.raises(ValueError, match="source holds NaN.*row 12"):
        retrieve(q, Z, k=5, retrieval="csls", source=bad)


# ---------------------------------------------------------------------- dictionary induction
def test_forward_induction_is_brute_force_argmax(rng):
    X = _unit(rng.standard_normal((80, 6))).astype(np.float32)
    Z = _unit(rng.standard_normal((90, 6))).astype(np.float32)
    pairs = induce_dictionary(X, Z, direction="forward", memory_budget=2048)
    np.testing.assert_array_equal(pairs[:, 0], np.arange(80))
    np.testing.assert_array_equal(pairs[:, 1], np.argmax(X @ Z.T, axis=1))
    pairs = induce_dictionary(X, Z, direction="backward")
    np.testing.assert_array_equal(pairs[:, 0], np.argmax(Z @ X.T, axis=1))


def test_csls_induction_matches_dense_csls_argmax(rng):
    X = _unit(rng.standard_normal((70, 5))).astype(np.float32)
    Z = _unit(rng.standard_normal((60, 5))).astype(np.float32)
    pairs = induce_dictionary(X, Z, direction="forward", retrieval="csls", csls_knn=4)
    np.testing.assert_array_equal(pairs[:, 1], np.argmax(_dense_csls(X, Z, X, 4), axis=1))


@pytest.mark.parametrize("retrieval", ["nn", "csls"])
def test_mutual_nn_dictionary_is_symmetric(rng, retrieval):
    X = _unit(rng.standard_normal((120, 5))).astype(np.float32)
    Z = _unit(rng.standard_normal((100, 5))).astype(np.float32)
    fwd = induce_dictionary(X, Z, direction="mutual", retrieval=retrieval)
    bwd = induce_dictionary(Z, X, direction="mutual", retrieval=retrieval)
    assert len(fwd) > 0
    assert {tuple(p) for p in fwd.tolist()} == {(b, a) for a, b in bwd.tolist()}
    if retrieval == "nn":  # every pair is a nearest neighbour both ways (brute force)
        C = X @ Z.T
        for i, j in fwd.tolist():
            assert C[i].argmax() == j and C[:, j].argmax() == i


def test_stochastic_induction_is_seeded_and_full_keep_is_deterministic(rng):
    X = _unit(rng.standard_normal((200, 5))).astype(np.float32)
    Z = _unit(rng.standard_normal((200, 5))).astype(np.float32)
    det = induce_dictionary(X, Z, direction="forward")
    a = induce_dictionary(X, Z, direction="forward", keep_prob=0.3, random_state=1)
    b = induce_dictionary(X, Z, direction="forward", keep_prob=0.3, random_state=1, memory_budget=1024)
    np.testing.assert_array_equal(a, b)  # same mask whatever the blocking
    assert (a[:, 1] != det[:, 1]).mean() > 0.3
    with pytest.raises(ValueError, match="keep_prob"):
        induce_dictionary(X, Z, keep_prob=0)
    with pytest.raises(ValueError, match="direction"):
        induce_dictionary(X, Z, direction="sideways")


def _splitmix_dropped(keys, seed, thr):
    """The documented dropout mask, vectorised: top 8 bits of splitmix64(key ^ seed) >= thr."""
    z = keys.astype(np.uint64) ^ np.uint64(seed)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(56)) >= np.uint64(thr)


def _dense_vecmap_induction(X, Z, k, keep_prob, random_state):
    """VecMap's union induction written densely from map_embeddings.py: simfwd − knn_sim_bwd/2
    and simbwd − knn_sim_fwd/2 (top-k means by a full sort), dropout, argmax, per direction."""
    rng = np.random.default_rng(random_state)
    seed_f, seed_b = rng.integers(0, 2**63), rng.integers(0, 2**63)
    thr = 256 if keep_prob >= 1 else max(1, int(round(keep_prob * 256)))
    S = X @ Z.T                                            # float32, exact for dyadic inputs
    ns, nt = S.shape
    knn_bwd = -np.sort(-S, axis=0)[:k].astype(np.float64).mean(axis=0) if k else np.zeros(nt)  # per target
    knn_fwd = -np.sort(-S, axis=1)[:, :k].astype(np.float64).mean(axis=1) if k else np.zeros(ns)
    F = S - (knn_bwd / 2).astype(np.float32)[None, :]
    B = S.T - (knn_fwd / 2).astype(np.float32)[None, :]
    if thr < 256:
        F[_splitmix_dropped(np.arange(ns)[:, None] * nt + np.arange(nt)[None, :], seed_f, thr)] = 0
        B[_splitmix_dropped(np.arange(nt)[:, None] * ns + np.arange(ns)[None, :], seed_b, thr)] = 0
    pairs = np.concatenate([np.stack([np.arange(ns), F.argmax(axis=1)], axis=1),
                            np.stack([B.argmax(axis=1), np.arange(nt)], axis=1)])
    objective = (S.max(axis=1).astype(np.float64).mean() + S.max(axis=0).astype(np.float64).mean()) / 2
    return pairs, objective


@pytest.mark.parametrize("keep_prob", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("budget, jobs, tile", [(None, None, None), (9000, None, None), (None, 3, (11, 37))])
def test_fused_union_induction_equals_dense_vecmap_formulation(rng, monkeypatch, keep_prob, budget, jobs, tile):
    # dyadic entries make every float32 product exact, so tiles and the dense matrix agree bit
    # for bit; ties are frequent and must go to the lower index in both directions.
    # budget 9000 (9 rows of 250 float32 scores) forces tiles that split the rows unevenly;
    # 3 threads over column ranges and 11 × 37 tiles check the merge of rows across ranges
    from embgeo.crosslingual import _induction

    if jobs is not None:
        monkeypatch.setattr(_induction, "_FUSED_JOBS", jobs)
        monkeypatch.setattr(_induction, "_JOB_COLUMNS", 1)
    if tile is not None:
        monkeypatch.setattr(_induction, "_TILE_ROWS", tile[0])
        monkeypatch.setattr(_induction, "_TILE_COLS", tile[1])
    X = (rng.integers(-8, 9, size=(300, 6)) / 8).astype(np.float32)
    Z = (rng.integers(-8, 9, size=(250, 6)) / 8).astype(np.float32)
    expect, obj = _dense_vecmap_induction(X, Z, 10, keep_prob, 7)
    got, got_obj = induce_dictionary(X, Z, direction="union", retrieval="csls", csls_knn=10,
                                     keep_prob=keep_prob, random_state=7, memory_budget=budget,
                                     return_objective=True)
    np.testing.assert_array_equal(got, expect)
    assert got_obj == pytest.approx(obj, abs=1e-12)


@pytest.mark.parametrize("jobs", [None, 2])
def test_fused_induction_where_every_kept_score_is_negative(rng, monkeypatch, jobs):
    # S < 0 everywhere: every kept score loses to a dropped one (0), so each row's and each
    # column's answer is its first dropped entry — the case where a run cannot be skipped
    # although none of its scores beats the best so far
    from embgeo.crosslingual import _induction

    if jobs is not None:
        monkeypatch.setattr(_induction, "_FUSED_JOBS", jobs)
        monkeypatch.setattr(_induction, "_JOB_COLUMNS", 1)
    X = (rng.integers(1, 9, size=(200, 4)) / 8).astype(np.float32)
    Z = (-rng.integers(1, 9, size=(150, 4)) / 8).astype(np.float32)
    for keep in (0.9, 0.99):
        expect, obj = _dense_vecmap_induction(X, Z, 0, keep, 3)
        got, got_obj = induce_dictionary(X, Z, direction="union", keep_prob=keep, random_state=3,
                                         return_objective=True)
        np.testing.assert_array_equal(got, expect)
        assert got_obj == pytest.approx(obj, abs=1e-12)


def test_fused_induction_directions_and_nn_equal_dense_argmax(rng):
    X = (rng.integers(-8, 9, size=(120, 5)) / 8).astype(np.float32)
    Z = (rng.integers(-8, 9, size=(90, 5)) / 8).astype(np.float32)
    union, _ = _dense_vecmap_induction(X, Z, 3, 0.3, 1)
    fwd = induce_dictionary(X, Z, direction="forward", retrieval="csls", csls_knn=3, keep_prob=0.3,
                            random_state=1)
    np.testing.assert_array_equal(fwd, union[:120])      # forward alone draws the first seed
    S = X @ Z.T
    nn = induce_dictionary(X, Z, direction="backward", memory_budget=1000)
    np.testing.assert_array_equal(nn[:, 0], S.argmax(axis=0))


def test_union_objective_is_mean_of_best_similarities(rng):
    X = _unit(rng.standard_normal((50, 4))).astype(np.float32)
    Z = _unit(rng.standard_normal((40, 4))).astype(np.float32)
    _, obj = induce_dictionary(X, Z, direction="union", return_objective=True)
    C = X.astype(np.float64) @ Z.T
    assert obj == pytest.approx((C.max(axis=1).mean() + C.max(axis=0).mean()) / 2, abs=1e-6)


# ------------------------------------------------------------------------------------ Mapper
def test_mapper_transform_before_fit_raises_not_fitted(rng):
    src, tgt, _ = _pair(rng, 50, 4)
    with pytest.raises(NotFittedError, match="not fitted"):
        Mapper().transform(src)


def test_mapper_bad_parameters_raise(rng):
    src, tgt, _ = _pair(rng, 50, 4)
    seed = [(f"s{i}", f"t{i}") for i in range(20)]
    for bad in (dict(mapping=Mapping("rotate")), dict(initialization=Initialization("magic")),
                dict(mapping=Mapping(src_dewhiten="both")), dict(preprocessing=Preprocessing(postproc=(0.1,))),
                dict(induction=Induction(direction="sideways")), dict(mapping="orthogonal")):
        with pytest.raises(ValueError):
            Mapper(**bad).fit(src, tgt, seed)
    with pytest.raises(ValueError, match="seed_dictionary"):
        Mapper().fit(src, tgt)
    # each error names the stage and the parameter
    for bad, msg in ((dict(preprocessing__postproc=0.5), "'postproc' parameter of Preprocessing"),
                     (dict(preprocessing__postproc=("a", 0.1)), "Preprocessing: postproc must be a pair"),
                     (dict(preprocessing__postproc=(np.nan, 0.1)), "postproc"),
                     (dict(preprocessing__pca="abc"), "'pca' parameter of Preprocessing"),
                     (dict(preprocessing__pca=0), "'pca' parameter of Preprocessing"),
                     (dict(induction__csls_knn=-1), "'csls_knn' parameter of Induction"),
                     (dict(induction__retrieval="isf"), "'retrieval' parameter of Induction"),
                     (dict(initialization__vocabulary=0), "'vocabulary' parameter of Initialization"),
                     (dict(mapping__reg=-1.0), "'reg' parameter of Mapping"),
                     (dict(selection__keep="first"), "'keep' parameter of Selection"),
                     (dict(mapping=Preprocessing()), "'mapping' parameter of Mapper")):
        with pytest.raises(ValueError, match=msg):
            Mapper().set_params(**bad).fit(src, tgt, seed)
    with pytest.raises(ValueError, match="unknown recipe"):
        Mapper.from_recipe("magic")


def test_advanced_mapping_without_whitening_equals_orthogonal_similarities(rng):
    src, tgt, _ = _pair(rng, 300, 8, noise=0.5)
    seed = [(f"s{i}", f"t{i}") for i in range(100)]
    plain = Mapping(whiten=False, src_reweight=0, trg_reweight=0, src_dewhiten=None, trg_dewhiten=None)
    a_s, a_t = Mapper(mapping=plain).fit_transform(src, tgt, seed)
    o_s, o_t = Mapper(mapping=Mapping("orthogonal")).fit_transform(src, tgt, seed)
    np.testing.assert_allclose(a_s.vectors @ a_t.vectors.T, o_s.vectors @ o_t.vectors.T, atol=1e-4)


def test_whitening_gives_identity_covariance_on_dictionary(rng):
    src, tgt, _ = _pair(rng, 300, 6, noise=0.5)
    seed = [(f"s{i}", f"t{i}") for i in range(150)]
    m = Mapper(mapping=Mapping(src_reweight=0, trg_reweight=0, src_dewhiten=None, trg_dewhiten=None)).fit(
        src, tgt, seed)
    xs, zt = m.transform(src, tgt)
    Xd = xs.vectors[:150].astype(np.float64)
    Zd = zt.vectors[:150].astype(np.float64)
    np.testing.assert_allclose(Xd.T @ Xd, np.eye(6), atol=1e-4)       # AAAI 2018 step 1 (+ rotation)
    np.testing.assert_allclose(Zd.T @ Zd, np.eye(6), atol=1e-4)
    C = Xd.T @ Zd                                                    # step 2 diagonalises X_DᵀZ_D
    np.testing.assert_allclose(C, np.diag(np.diag(C)), atol=1e-4)
    np.testing.assert_allclose(np.diag(C), m.singular_values_, atol=1e-4)


def test_unconstrained_mapping_is_least_squares(rng):
    src, tgt, _ = _pair(rng, 200, 5, noise=0.3)
    seed = [(f"s{i}", f"t{i}") for i in range(80)]
    m = Mapper(Preprocessing(()), mapping=Mapping("unconstrained")).fit(src, tgt, seed)
    W, *_ = np.linalg.lstsq(src.vectors[:80].astype(np.float64), tgt.vectors[:80].astype(np.float64), rcond=None)
    np.testing.assert_allclose(m.src_transform_, W, atol=1e-6)


def test_mapper_transform_of_subset_equals_rows_of_full_transform(rng):
    src, tgt, _ = _pair(rng, 200, 6, noise=0.3)
    seed = [(f"s{i}", f"t{i}") for i in range(60)]
    m = Mapper(Preprocessing(("unit", "center", "unitdim", "unit"))).fit(src, tgt, seed)
    full = m.transform(src).vectors
    part = m.transform(src.subset(["s5", "s7", "s150"])).vectors
    np.testing.assert_allclose(part, full[[5, 7, 150]], atol=1e-5)
    fs, ft = Mapper(Preprocessing(("unit", "center", "unitdim", "unit"))).fit_transform(src, tgt, seed)
    np.testing.assert_allclose(fs.vectors, full, atol=1e-5)
    np.testing.assert_allclose(ft.vectors, m.transform(src, tgt)[1].vectors, atol=1e-5)


def test_mapper_handles_different_dimensions_and_pca(rng):
    n = 400
    X = rng.standard_normal((n, 6)).astype(np.float32)
    Q = _orth(rng, 15)[:6]
    Z = (X @ Q + 0.05 * rng.standard_normal((n, 15))).astype(np.float32)
    src = embgeo.Embeddings([f"s{i}" for i in range(n)], X)
    tgt = embgeo.Embeddings([f"t{i}" for i in range(n)], Z)
    seed = [(f"s{i}", f"t{i}") for i in range(100)]
    from embgeo.evaluate.lexicon import bli

    test = [(f"s{i}", f"t{i}") for i in range(200, 400)]
    for kw in (dict(), dict(mapping__kind="orthogonal"), dict(preprocessing__pca="match"), dict(preprocessing__pca=4)):
        xs, zt = Mapper().set_params(**kw).fit_transform(src, tgt, seed)
        assert xs.dim == zt.dim
        assert xs.dim == (4 if kw.get("preprocessing__pca") == 4 else
                          (15 if kw.get("mapping__kind") == "orthogonal" else 6))
        assert bli(xs, zt, test).p_at(1) > 0.9, kw


def test_identical_and_numeral_seeds():
    a = embgeo.Embeddings(["the", "1", "22", "x"], np.eye(4, dtype=np.float32))
    b = embgeo.Embeddings(["22", "1", "x", "y"], np.eye(4, dtype=np.float32))
    assert identical_dictionary(a, b) == [("1", "1"), ("22", "22"), ("x", "x")]
    assert numeral_dictionary(a, b) == [("1", "1"), ("22", "22")]
    c = embgeo.Embeddings(["q"], np.ones((1, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="numeral"):
        numeral_dictionary(a, c)


def test_dictionary_indices_oov_policy(rng):
    src, tgt, _ = _pair(rng, 10, 3)
    si, ti = dictionary_indices(src, tgt, [("s1", "t2"), ("s3", "zz")])
    assert si.tolist() == [1] and ti.tolist() == [2]
    with pytest.raises(KeyError, match="zz"):
        dictionary_indices(src, tgt, [("s1", "t2"), ("s3", "zz")], oov="raise")
    with pytest.raises(ValueError, match="empty"):
        dictionary_indices(src, tgt, [])


def test_self_learning_improves_over_the_seed_mapping(rng):
    from embgeo.evaluate.lexicon import bli

    src, tgt, _ = _pair(rng, 1200, 16, noise=0.55)
    seed = [(f"s{i}", f"t{i}") for i in range(22)]
    test = [(f"s{i}", f"t{i}") for i in range(600, 1200)]
    base = dict(mapping=Mapping("orthogonal"), induction=Induction(retrieval="csls", stochastic_interval=3))
    m0 = Mapper(**base).fit(src, tgt, seed)
    m1 = Mapper(self_learning=True, max_iter=40, **base).fit(src, tgt, seed, validation=test[:100])
    p0 = bli(*m0.transform(src, tgt), test).p_at(1)
    p1 = bli(*m1.transform(src, tgt), test).p_at(1)
    assert p1 > p0 + 0.1, (p0, p1)
    h = m1.history_
    assert m1.n_iter_ == len(h) > 1
    assert {"iteration", "objective", "keep_prob", "dictionary_size", "val_accuracy", "seconds"} <= set(h[0])
    assert h[-1]["objective"] > h[0]["objective"]
    assert h[0]["keep_prob"] == pytest.approx(0.1)


# ------------------------------------------------------- goldens from VecMap and uncovec themselves
GOLDEN = Path(__file__).parent / "data" / "vecmap_golden.npz"


def _subset(path, n, dim):
    """First n words, first dim columns (the recipe of benchmarks/reference/vecmap_goldens.py)."""
    rows = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        f.readline()
        for _ in range(n):
            rows.append(np.array(f.readline().split(" ", 1)[1].split()[:dim], dtype=np.float32))
    return np.stack(rows)


@pytest.fixture(scope="module")
def vecmap_case(shared_data):
    g = dict(np.load(GOLDEN))
    n, d = int(g["n_words"]), int(g["dim"])
    X = _subset(shared_data / "vectors" / "en.minilm-static.384d.50k.vec.gz", n, d)
    Z = _subset(shared_data / "vectors" / "fi.floret.300d.30k.vec.gz", n, d)
    return g, X, Z


FAST_SL = dict(induction__stochastic_initial=1.0, induction__stochastic_interval=5, tol=1e-4,
               induction__vocabulary_cutoff=1500)


@pytest.mark.parametrize("case, recipe, overrides, dictionary", [
    ("supervised", "supervised", {}, "train"),
    ("postproc_supervised", "supervised", {"preprocessing__postproc": (-0.25, 0.15)}, "train"),
    ("semi_supervised", "semi_supervised", FAST_SL, "seed"),
    ("postproc_semi_supervised", "semi_supervised", {"preprocessing__postproc": (-0.25, 0.15), **FAST_SL}, "seed"),
    ("acl2017_seed", "acl2017", {"initialization": Initialization("seed"), "tol": 1e-4}, "seed"),
    ("aaai2018", "aaai2018", {}, "train"),
    ("unsupervised", "unsupervised", {"initialization__vocabulary": 1000, **FAST_SL}, None),
])
def test_mapper_equals_vecmap_and_uncovec_pipeline(vecmap_case, case, recipe, overrides, dictionary):
    # tests/data/vecmap_golden.npz: VecMap's map_embeddings.py (after uncovec's post-process.py for
    # the POSTPROC cases) run unmodified on 2000 real en/fi words; regenerate with
    # benchmarks/reference/vecmap_goldens.py. VecMap writes 6 significant digits.
    g, X, Z = vecmap_case
    m = Mapper.from_recipe(recipe, progress=False, **overrides)
    xs, zt = m.fit_transform(X, Z, None if dictionary is None else g[dictionary])
    rows = g["rows"]
    gs, gt = g[f"{case}_src"], g[f"{case}_tgt"]
    xs, zt = xs[rows], zt[rows]
    # the SVD fixes each shared-space axis up to a sign, flipped on both sides together
    sign = np.sign(np.sum(xs * gs, axis=0))
    np.testing.assert_allclose(xs * sign, gs, atol=5e-5)
    np.testing.assert_allclose(zt * sign, gt, atol=5e-5)


def test_postproc_golden_differs_from_postproc_after_normalisation(vecmap_case):
    # the placement matters: similarity order on the normalised spaces (embgeo <= 0.x) is a
    # different pipeline from the paper's, far beyond float tolerance
    g, X, Z = vecmap_case
    from embgeo.normalize import normalize
    from embgeo.postprocess import similarity_order

    Xn = similarity_order(normalize(X, "unit", "center", "unit"), -0.25)
    Zn = similarity_order(normalize(Z, "unit", "center", "unit"), 0.15)
    xs, _ = Mapper().fit_transform(Xn, Zn, g["train"])
    gs = g["postproc_supervised_src"]
    xs = xs[g["rows"]]
    sign = np.sign(np.sum(xs * gs, axis=0))
    assert np.abs(xs * sign - gs).max() > 0.05


def test_postproc_transform_of_new_rows_equals_fitted_rows(rng):
    src, tgt, _ = _pair(rng, 300, 8, noise=0.4)
    seed = [(f"s{i}", f"t{i}") for i in range(120)]
    pp = Mapper(Preprocessing(postproc=(-0.25, 0.15))).fit(src, tgt, seed)
    full = pp.transform(src).vectors
    np.testing.assert_allclose(pp.transform(src.subset(["s3", "s200"])).vectors, full[[3, 200]], atol=1e-5)


def test_postproc_grid_search_default_grid_and_criterion(rng):
    from embgeo.evaluate.lexicon import POSTPROC_GRID, postproc_grid_search

    # the paper's grid (Vulić et al. 2020, Section 3), including -0.15 and 0.5
    assert POSTPROC_GRID == (-0.5, -0.25, -0.15, 0.0, 0.15, 0.25, 0.5)
    src, tgt, _ = _pair(rng, 300, 8, noise=0.6)
    train = [(f"s{i}", f"t{i}") for i in range(120)]
    val = [(f"s{i}", f"t{i}") for i in range(150, 300)]
    grid = dict(alphas_src=(-0.25, 0.0), alphas_tgt=(0.0, 0.5))
    best, table = postproc_grid_search(src, tgt, train, val, **grid)
    assert len(table) == 4
    assert best == max(((r["alpha_src"], r["alpha_tgt"]) for r in table),
                       key=lambda c: [r["MRR"] for r in table if (r["alpha_src"], r["alpha_tgt"]) == c][0])
    best1, _ = postproc_grid_search(src, tgt, train, val, criterion="P@1", **grid)
    top = max(r["P@1"] for r in table)
    assert [r for r in table if (r["alpha_src"], r["alpha_tgt"]) == best1][0]["P@1"] == top
    with pytest.raises(ValueError, match="criterion"):
        postproc_grid_search(src, tgt, train, val, criterion="accuracy", **grid)
    res = postproc_grid_search(src, tgt, train, val, **grid)
    a_s, a_t, S = res.grid()
    assert (a_s, a_t) == ([-0.25, 0.0], [0.0, 0.5]) and S[1, 1] == res.table[3]["MRR"]
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    ax = res.plot()
    assert ax.get_xlabel().startswith("αt") and len(ax.texts) == 4


def test_vecmap_argument_checks(rng):
    src, tgt, _ = _pair(rng, 100, 4)
    seed = [(f"s{i}", f"t{i}") for i in range(50)]
    # map_embeddings.py: "De-whitening requires whitening first"
    with pytest.raises(ValueError, match="de-whitening requires whitening"):
        Mapper(mapping=Mapping(whiten=False)).fit(src, tgt, seed)
    # --dim_reduction is STEP 5 of the advanced mapping only
    with pytest.raises(ValueError, match="dim_reduction"):
        Mapper.from_recipe("orthogonal", mapping__dim_reduction=2).fit(src, tgt, seed)


@pytest.mark.parametrize("multiplier", [1.0, 0.5, 0.0, -2.0])
def test_stochastic_multiplier_that_never_reaches_keep_prob_one_is_refused(rng, multiplier):
    # keep_prob only stops growing at 1, the one point where self-learning ends (VecMap's loop):
    # with a multiplier <= 1 from p < 1 it would never end
    src, tgt, _ = _pair(rng, 60, 4)
    seed = [(f"s{i}", f"t{i}") for i in range(20)]
    with pytest.raises(ValueError, match="stochastic_multiplier"):
        Mapper(self_learning=True, induction=Induction(stochastic_initial=0.5, stochastic_multiplier=multiplier,
                                                       stochastic_interval=1)).fit(src, tgt, seed)
    # from p = 1 the multiplier is never used: allowed
    m = Mapper.from_recipe("orthogonal", self_learning=True, preprocessing=Preprocessing(()),
                           induction=Induction(stochastic_initial=1.0, stochastic_multiplier=multiplier,
                                               stochastic_interval=1)).fit(src, tgt, seed)
    assert m.n_iter_ >= 1
    with pytest.raises(ValueError, match="stochastic_interval"):
        Mapper(self_learning=True, induction=Induction(stochastic_interval=0)).fit(src, tgt, seed)


def test_unsupervised_dictionary_names_a_non_finite_row(rng):
    from embgeo.crosslingual import unsupervised_dictionary

    X = _unit(rng.standard_normal((50, 6)))
    Z = _unit(rng.standard_normal((50, 6)))
    X[17, 2] = np.nan
    with pytest.raises(ValueError, match="X holds NaN.*row 17"):
        unsupervised_dictionary(X, Z, vocabulary=30)
    X[17, 2] = 0.0
    Z[3, 0] = np.inf
    with pytest.raises(ValueError, match="Z holds NaN.*row 3"):
        unsupervised_dictionary(X, Z, vocabulary=30)


def test_dictionary_indices_uses_the_oov_glossary_name_without_deprecation_warnings(rng):
    import warnings

    src, tgt, _ = _pair(rng, 30, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        si, ti = dictionary_indices(src, tgt, [("s1", "t2"), ("zz", "t3"), ("s4", "t5")])
    assert si.tolist() == [1, 4] and ti.tolist() == [2, 5]


# ----------------------------------------------------------------------------- real data
def test_real_en_fi_supervised_bli_measured_values(shared_data, glove):
    from embgeo.evaluate.lexicon import bli, read_dictionary, split_dictionary

    fi = embgeo.load(str(shared_data / "vectors" / "fi.floret.300d.30k.vec.gz"))
    en = glove.top(20000)
    pairs = read_dictionary(shared_data / "bli" / "yacle.train.freq.5k.en-fi.tsv", lowercase=True)
    train, test = split_dictionary(pairs, 0.2)
    xs, zt = Mapper().fit_transform(en, fi, train)   # 50d -> 300d: a 50d shared space
    assert xs.dim == zt.dim == 50
    res = bli(xs, zt, test, retrieval="nn")
    # measured: 699 of 955 test words covered; P@1 26.9 %, P@10 55.2 %, MRR 36.3 % (chance: 1/30000)
    assert (res.n, res.n_test) == (699, 955)
    assert res.p_at(1) == pytest.approx(0.269, abs=0.015)
    assert res.p_at(10) == pytest.approx(0.552, abs=0.015)
    assert res.mrr == pytest.approx(0.363, abs=0.015)


def test_mutual_induction_is_not_thinned_by_dropout_and_tiny_keep_prob_is_not_degenerate():
    # review findings: independent dropout in the two directions left almost no mutual pair;
    # keep_prob < 1/512 zeroed every score and sent every row to target 0
    from embgeo.crosslingual import induce_dictionary

    rng = np.random.default_rng(7)
    X = rng.standard_normal((300, 10)).astype(np.float32)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Q, _ = np.linalg.qr(rng.standard_normal((10, 10)))
    Z = (X @ Q + 0.01 * rng.standard_normal((300, 10))).astype(np.float32)
    pairs = induce_dictionary(X @ Q, Z, direction="mutual", keep_prob=0.1, random_state=0)
    assert len(pairs) >= 290
    fwd = induce_dictionary(X @ Q, Z, direction="forward", keep_prob=0.001, random_state=0)
    assert len(np.unique(fwd[:, 1])) > 1


def test_stochastic_induction_runs_on_array_api_strict():
    xps = pytest.importorskip("array_api_strict")
    from embgeo.crosslingual import induce_dictionary

    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 6)).astype(np.float32)
    Z = rng.standard_normal((50, 6)).astype(np.float32)
    pairs = induce_dictionary(xps.asarray(X), xps.asarray(Z), keep_prob=0.5, direction="forward", random_state=1)
    assert pairs.shape == (40, 2) and pairs[:, 1].max() < 50


def test_n_features_in_is_the_source_dimension_as_scikit_learn_defines_it(rng):
    """Issue 23: n_features_in_ was the tuple (d_s, d_t); scikit-learn expects the int d_s."""
    n = 200
    X = rng.standard_normal((n, 6)).astype(np.float32)
    Z = (X @ _orth(rng, 9)[:6]).astype(np.float32)
    src = embgeo.Embeddings([f"s{i}" for i in range(n)], X)
    tgt = embgeo.Embeddings([f"t{i}" for i in range(n)], Z)
    m = Mapper(mapping=Mapping("orthogonal"))
    m.fit(src, tgt, [(f"s{i}", f"t{i}") for i in range(80)])
    assert type(m.n_features_in_) is int and m.n_features_in_ == 6
    assert type(m.n_target_features_) is int and m.n_target_features_ == 9
    m.transform(src, tgt)                                  # the dimension checks read both
    with pytest.raises(ValueError, match="src has dimension 9 but the mapper was fitted on 6"):
        m.transform(Z)
    with pytest.raises(ValueError, match="tgt has dimension 6 but the mapper was fitted on 9"):
        m.transform(src, X)


# ------------------------------------------------------------------- scikit-learn estimator
def test_mapper_is_a_scikit_learn_estimator(rng):
    from sklearn.base import BaseEstimator, clone
    from sklearn.utils.validation import check_is_fitted

    src, tgt, _ = _pair(rng, 200, 6, noise=0.05)
    seed = [(f"s{i}", f"t{i}") for i in range(60)]
    m = Mapper.from_recipe("semi_supervised", induction__vocabulary_cutoff=150, max_iter=3)
    assert isinstance(m, BaseEstimator) and m.get_params()["induction__csls_knn"] == 10
    c = clone(m)
    def values(est):  # the stages are compared by their values
        return {k: v for k, v in est.get_params().items() if not hasattr(v, "get_params")}

    assert values(c) == values(m) and c is not m and c.induction is not m.induction
    assert c.set_params(induction__csls_knn=5) is c and c.induction.csls_knn == 5
    assert m.induction.csls_knn == 10                       # the clone's stage is its own
    with pytest.raises(ValueError):
        c.set_params(nonsense=1)
    with pytest.raises(ValueError):
        c.set_params(induction__nonsense=1)
    with pytest.raises(NotFittedError):
        m.transform(src)
    with pytest.raises(Exception) as exc:  # scikit-learn's own check agrees
        check_is_fitted(m)
    assert "not fitted" in str(exc.value)
    m.fit(src, tgt, seed, validation=seed)
    check_is_fitted(m)
    assert "Mapper(" in repr(m) and "retrieval='csls'" in repr(m)  # scikit-learn shows the non-defaults
    # no copy of the training matrices is kept: only d×d transforms and small statistics
    big = [k for k, v in vars(m).items() if hasattr(v, "shape") and v.size >= 200 * 6 and k != "dictionary_"]
    assert big == [], big
    assert len(m.history_) == m.n_iter_ == 3


def test_mapper_signature_is_short_and_grouped_by_stage():
    import inspect

    params = inspect.signature(Mapper).parameters
    assert len(params) <= 16, list(params)
    for stage in ("preprocessing", "initialization", "induction", "mapping", "selection"):
        assert params[stage].default is None        # scikit-learn: immutable defaults; None = the stage's defaults


def test_stage_values_are_nested_scikit_learn_parameters():
    from sklearn.base import clone

    deep = Mapper().get_params(deep=True)
    assert deep["induction__csls_knn"] == 10 and deep["mapping__kind"] == "advanced"
    assert deep["preprocessing__normalize"] == ("unit", "center", "unit") and deep["selection__keep"] == "last"
    assert set(Mapper().get_params(deep=False)) <= set(deep)
    # set_params on a stage left None makes the Mapper its own stage: another Mapper is not changed
    a, b = Mapper().set_params(induction__csls_knn=5), Mapper()
    assert a.induction.get_params() == Induction(csls_knn=5).get_params()
    assert b.induction is None and b.get_params()["induction__csls_knn"] == 10
    assert clone(a).get_params()["induction__csls_knn"] == 5 and clone(a).induction is not a.induction
    # from_recipe takes whole stages or stage__param values, and copies the recipe's stages
    m = Mapper.from_recipe("semi_supervised", induction__csls_knn=3, selection=Selection("best"))
    assert m.induction.get_params() == Induction(retrieval="csls", csls_knn=3, vocabulary_cutoff=20000).get_params()
    assert RECIPES["semi_supervised"]["induction"].csls_knn == 10 and m.selection.keep == "best"
    m = Mapper.from_recipe("muse", induction=Induction(retrieval="nn"), induction__direction="forward")
    assert (m.induction.retrieval, m.induction.direction, m.induction.vocabulary_cutoff) == ("nn", "forward", None)
    with pytest.raises(ValueError, match="nonsense"):
        Mapper.from_recipe("muse", induction__nonsense=1)


def test_history_plot(rng):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    src, tgt, _ = _pair(rng, 120, 4, noise=0.05)
    seed = [(f"s{i}", f"t{i}") for i in range(40)]
    m = Mapper(induction=Induction(retrieval="csls", csls_knn=3), self_learning=True, max_iter=3).fit(
        src, tgt, seed, validation=seed)
    ax = m.history_.plot()
    assert ax.get_xlabel() == "iteration" and len(ax.figure.axes) >= 2  # objective + validation axis
    ax.figure.canvas.draw()
    ticks = ax.get_xticks()
    assert len(ticks) >= 2 and np.array_equal(ticks, np.round(ticks))  # whole iterations, no 1.5
    with pytest.raises(ValueError, match="self-learning did not run"):
        Mapper().fit(src, tgt, seed).history_.plot()


def test_unsupervised_recipe_recovers_a_hidden_rotation_of_real_vectors(glove):
    # no dictionary: GloVe's top 1500 words against a rotated, noised, row-shuffled copy that
    # lacks 10 % of them; VecMap's --unsupervised recipe (ACL 2018), a few iterations.
    # Measured: identity P@1 0.996.
    X = np.asarray(glove.top(1500).vectors, dtype=np.float32)
    rng = np.random.default_rng(0)
    Q = _orth(rng, 50)
    keep = np.sort(rng.permutation(1500)[:1350])
    rows = keep[rng.permutation(1350)]
    Z = (X[rows] @ Q + 0.1 * rng.standard_normal((1350, 50))).astype(np.float32)
    m = Mapper.from_recipe("unsupervised", initialization__vocabulary=None, induction__stochastic_interval=3,
                           max_iter=4, progress=False)
    xs, zt = m.fit_transform(X, Z)
    nn = np.argmax(_unit(xs[rows]) @ _unit(zt).T, axis=1)
    assert np.mean(nn == np.arange(1350)) >= 0.9


def _muse_refinement_from_its_source(X, Z, si, ti, n_refinement, max_rank, knn, build):
    """MUSE's supervised.py loop written from its source (torch is not installed here, so MUSE itself
    cannot run): supervised.py:87-97, Trainer.procrustes / build_dictionary (src/trainer.py),
    get_candidates / build_dictionary (src/dico_builder.py), get_nn_avg_dist (src/utils.py)."""
    def unit(M):
        return M / np.linalg.norm(M, axis=1, keepdims=True)

    def candidates(e1, e2, avg1, avg2):
        n_src = min(max_rank, len(e1)) if max_rank > 0 else len(e1)
        out = []
        for i in range(n_src):
            scores = 2 * (e2 @ e1[i]) - avg1[i] - avg2
            j = int(np.argmax(scores))
            if not max_rank or max(i, j) <= max_rank:
                out.append((i, j))
        return out

    W = None
    for n_iter in range(n_refinement + 1):
        if n_iter > 0:
            e1, e2 = unit(X @ W.T), unit(Z)                      # mapping(src) = W x
            C = e1 @ e2.T
            avg1 = np.sort(C, axis=1)[:, -knn:].mean(axis=1)     # get_nn_avg_dist(tgt, src, knn)
            avg2 = np.sort(C.T, axis=1)[:, -knn:].mean(axis=1)   # get_nn_avg_dist(src, tgt, knn)
            s2t = set(candidates(e1, e2, avg1, avg2))
            t2s = {(a, b) for b, a in candidates(e2, e1, avg2, avg1)}
            dico = {"S2T": s2t, "T2S": t2s, "S2T|T2S": s2t | t2s, "S2T&T2S": s2t & t2s}[build]
            si, ti = np.array(sorted(dico)).T
        M = Z[ti].T @ X[si]                                      # B^T A
        U, _, Vt = np.linalg.svd(M)
        W = U @ Vt
    return W.T, si, ti                                           # x ↦ x Wᵀ


@pytest.mark.parametrize("direction,build", [("mutual", "S2T&T2S"), ("union", "S2T|T2S"), ("forward", "S2T")])
def test_muse_recipe_equals_musess_refinement_loop(rng, direction, build):
    # raw rows of varying norm (Procrustes runs on them, induction on unit rows), a rank cut that
    # leaves most of the vocabulary outside it (searched over, then dropped), 5 + 1 Procrustes
    # (the target rows are shuffled, so most translations of the first 150 rows lie beyond rank 150)
    src, tgt, _ = _pair(rng, 400, 8, noise=0.3)
    perm = rng.permutation(400)
    tgt = embgeo.Embeddings(tgt.words, tgt.vectors[perm])
    inv = np.argsort(perm)
    X, Z = src.vectors.astype(np.float64), tgt.vectors.astype(np.float64)
    W, si, ti = _muse_refinement_from_its_source(X, Z, np.arange(40), inv[:40], 5, 150, 10, build)
    m = Mapper.from_recipe("muse", induction__vocabulary_cutoff=150, induction__direction=direction,
                           progress=False).fit(
        src, tgt, [(f"s{i}", f"t{inv[i]}") for i in range(40)])
    assert m.n_iter_ == 5
    d = m.dictionary_[np.lexsort((m.dictionary_[:, 1], m.dictionary_[:, 0]))]
    np.testing.assert_array_equal(d[:, 0], si)
    np.testing.assert_array_equal(d[:, 1], ti)
    np.testing.assert_allclose(m.src_transform_, W, atol=1e-4)
    # searched over the whole other side, then cut: fewer pairs than a search among the first 150
    # rows, which pairs every searched row; the pairs found are the true translations
    assert 20 < len(d) < 150
    assert np.mean(inv[d[:, 0]] == d[:, 1]) > 0.8


def test_muse_recipe_has_musess_defaults():
    r = Mapper.from_recipe("muse").get_params()
    assert [r[k] for k in ("refinement", "max_iter", "induction__vocabulary_cutoff", "induction__csls_knn",
                           "induction__direction", "preprocessing__normalize")] == ["muse", 5, 10000, 10, "mutual", ()]
    with pytest.raises(ValueError, match="refinement"):
        Mapper(refinement="faiss")._validate_params()
    with pytest.raises(ValueError, match="orthogonal"):
        Mapper(refinement="muse", mapping=Mapping("advanced"))._validate_params()


@pytest.mark.parametrize("kw", [dict(preprocessing=Preprocessing(postproc=(-0.25, 0.15))),
                                dict(preprocessing=Preprocessing(("unit", "center", "unitdim"), pca=4)),
                                dict(self_learning=True, max_iter=2,
                                     induction=Induction(retrieval="csls", csls_knn=5, stochastic_initial=1.0))])
def test_mapper_on_array_api_strict_matches_numpy(rng, kw):
    xps = pytest.importorskip("array_api_strict")
    X = rng.standard_normal((150, 6)).astype(np.float32)
    Z = (X @ _orth(rng, 6) + 0.05 * rng.standard_normal((150, 6))).astype(np.float32)
    pairs = np.stack([np.arange(60), np.arange(60)], axis=1)
    ref = Mapper(progress=False, **kw).fit(X, Z, pairs)
    m = Mapper(progress=False, **kw).fit(xps.asarray(X), xps.asarray(Z), pairs)
    np.testing.assert_array_equal(m.dictionary_, ref.dictionary_)
    xs, zt = m.transform(xps.asarray(X), xps.asarray(Z))
    rs, rt = ref.transform(X, Z)
    sign = np.sign(np.sum(np.asarray(xs) * rs, axis=0))
    np.testing.assert_allclose(np.asarray(xs) * sign, rs, atol=1e-4)
    np.testing.assert_allclose(np.asarray(zt) * sign, rt, atol=1e-4)


def test_unsupervised_dictionary_on_array_api_strict_matches_numpy(rng):
    xps = pytest.importorskip("array_api_strict")
    from embgeo.crosslingual import unsupervised_dictionary

    X = rng.standard_normal((150, 6)).astype(np.float32)
    Z = rng.standard_normal((160, 6)).astype(np.float32)
    a = unsupervised_dictionary(X, Z, csls_knn=5)
    b = unsupervised_dictionary(xps.asarray(X), xps.asarray(Z), csls_knn=5)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (300, 2)  # union: 150 forward + 150 backward pairs (n = min(150, 160))


# ------------------------------------------------------------------------------- RCSLS mapping
def test_mapper_rcsls_is_rcsls_on_the_normalised_spaces_and_its_dictionary(rng):
    """mapping="rcsls" hands the normalised spaces and the seed pairs to embgeo.crosslingual.rcsls.rcsls unchanged."""
    from embgeo.normalize import normalize
    from embgeo.crosslingual.rcsls import rcsls

    src, tgt, Q = _pair(rng, n=300, d=8, noise=0.3)
    pairs = [(f"s{i}", f"t{i}") for i in range(150)]
    m = Mapper.from_recipe("rcsls", induction__csls_knn=5, random_state=0).fit(src, tgt, pairs)
    X = normalize(src.vectors, "unit", "center", "unit")
    Z = normalize(tgt.vectors, "unit", "center", "unit")
    idx = np.arange(150)
    W = rcsls(np.asarray(X), np.asarray(Z), idx, idx, csls_knn=5, random_state=0)
    np.testing.assert_allclose(np.asarray(m.src_transform_), W, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(m.tgt_transform_), np.eye(8))
    xs, zt = m.transform(src, tgt)
    # the hidden rotation is recovered: held-out words translate to themselves
    s, i = embgeo.neighbors.topk(xs.vectors[150:], zt.vectors, 1, progress=False)
    assert (i[:, 0] == np.arange(150, 300)).mean() > 0.9


def test_mapper_rejects_an_unknown_mapping():
    with pytest.raises(ValueError, match="rcsls"):
        Mapper(mapping=Mapping("procrustes"))._validate_params()


def test_rcsls_mapping_takes_csls_knn(rng):
    """Issue 22: mapping="rcsls" must read the csls_knn it is given (its loss's K), not a default."""
    src, tgt, _ = _pair(rng, n=300, d=8, noise=0.3)
    pairs = [(f"s{i}", f"t{i}") for i in range(150)]
    new = Mapper.from_recipe("rcsls", induction__csls_knn=3, random_state=0).fit(src, tgt, pairs)
    default = Mapper.from_recipe("rcsls", random_state=0).fit(src, tgt, pairs)
    assert not np.array_equal(np.asarray(default.src_transform_), np.asarray(new.src_transform_))


def test_transform_refuses_nan_as_fit_does():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(30)]
    X, Z = rng.standard_normal((30, 4)), rng.standard_normal((30, 4))
    E = embgeo.Embeddings
    m = Mapper(initialization=Initialization("seed")).fit(E(words, X), E(words, Z), [(w, w) for w in words])
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match=r"row 3 \('w3'\) of the embeddings has a non-finite value \(nan\)"):
        m.transform(E(words, X, check_finite=False))
