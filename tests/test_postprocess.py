"""Tests of embgeo.postprocess against independent formulations (closed forms, loops, VecMap's SVD code)."""
from __future__ import annotations

import numpy as np
import pytest

import embgeo
from embgeo import postprocess as pp

xps = pytest.importorskip("array_api_strict")


def _X(rng, n=60, d=7, scale=None, dtype=np.float64):
    X = rng.standard_normal((n, d))
    if scale is not None:
        X = X * np.asarray(scale)
    return (X + 0.3).astype(dtype)


def _psd_power(S, p):
    """Power of a PSD matrix with zero eigenvalues kept at zero (the brute-force n×n reference)."""
    w, Q = np.linalg.eigh(S)
    tol = w.max() * S.shape[0] * np.finfo(float).eps
    wp = np.where(w > tol, np.clip(w, tol, None) ** p, 0.0)
    return (Q * wp) @ Q.T


# --------------------------------------------------------------------- similarity order
def test_similarity_order_alpha0_is_rotation_preserving_dot_products(rng):
    X = _X(rng)
    Y, T = pp.similarity_order(X, 0.0, return_transform=True)
    np.testing.assert_allclose(Y @ Y.T, X @ X.T, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(T.T @ T, np.eye(X.shape[1]), atol=1e-12)


def test_similarity_order_alpha0_is_rotation_even_when_rank_deficient(rng):
    X = _X(rng, d=5)
    X[:, 4] = X[:, 0] - X[:, 1]  # a null direction of XᵀX
    Y = pp.similarity_order(X, 0.0)
    np.testing.assert_allclose(Y @ Y.T, X @ X.T, atol=1e-9)


def test_similarity_order_half_gives_second_order_similarity(rng):
    X = _X(rng, n=30, d=6)
    Y = pp.similarity_order(X, 0.5)
    M = X @ X.T
    np.testing.assert_allclose(Y @ Y.T, M @ M, rtol=1e-9, atol=1e-8)


@pytest.mark.parametrize("alpha", [-0.5, -0.25, 0.25, 1.0])
def test_similarity_order_matches_power_of_similarity_matrix(rng, alpha):
    # (X Q Δ^α)(X Q Δ^α)ᵀ = (XXᵀ)^(1+2α): the paper's nth-order similarity with n = 1 + 2α
    X = _X(rng, n=25, d=5)
    Y = pp.similarity_order(X, alpha)
    np.testing.assert_allclose(Y @ Y.T, _psd_power(X @ X.T, 1 + 2 * alpha), rtol=1e-7, atol=1e-8)


def test_similarity_order_transform_equals_q_delta_alpha_from_numpy_eig(rng):
    X = _X(rng)
    T = pp.similarity_order_transform(X, 0.3)
    w, Q = np.linalg.eigh(X.T @ X)
    ref = Q[:, ::-1] * (w[::-1] ** 0.3)
    # eigenvectors are defined up to sign: compare T Tᵀ and |columns|
    np.testing.assert_allclose(T @ T.T, ref @ ref.T, rtol=1e-9)
    np.testing.assert_allclose(np.abs(T), np.abs(ref), atol=1e-9)


def test_similarity_order_held_out_rows_equal_transforming_whole_matrix(rng):
    X = _X(rng, n=80, dtype=np.float32)
    Y, T = pp.similarity_order(X, -0.25, return_transform=True)
    np.testing.assert_allclose(X[50:] @ T, Y[50:], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(pp.apply_transform(X[50:], T), Y[50:], rtol=1e-6, atol=1e-6)
    assert Y.dtype == np.float32 and T.dtype == np.float64


def test_similarity_order_zero_eigenvalue_rule(rng):
    X = _X(rng, d=5)
    X[:, 4] = 2 * X[:, 0]
    Y, T = pp.similarity_order(X, 0.5, return_transform=True)
    assert np.allclose(T[:, -1], 0)  # the null direction is weighted 0**α = 0
    np.testing.assert_allclose(Y @ Y.T, (X @ X.T) @ (X @ X.T), rtol=1e-8, atol=1e-7)
    with pytest.raises(ValueError, match="negative alpha"):
        pp.similarity_order(X, -0.5)


def test_similarity_order_embeddings_in_embeddings_out_and_pure(small_embeddings):
    before = np.array(small_embeddings.vectors, copy=True)
    out = pp.similarity_order(small_embeddings, 0.25)
    assert isinstance(out, embgeo.Embeddings)
    assert out.words == small_embeddings.words and out.dtype == np.float32
    np.testing.assert_array_equal(small_embeddings.vectors, before)


def test_similarity_order_array_api_strict_matches_numpy(rng):
    X = _X(rng, dtype=np.float32)
    ref, Tref = pp.similarity_order(X, -0.25, return_transform=True)
    out, T = pp.similarity_order(xps.asarray(X), -0.25, return_transform=True)
    assert isinstance(out, type(xps.asarray(X)))
    np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.abs(np.asarray(T)), np.abs(Tref), rtol=1e-9, atol=1e-12)


def test_similarity_order_bad_input(rng):
    X = _X(rng)
    bad = X.copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match="row 7"):
        pp.similarity_order(bad, 0.5)
    with pytest.raises(ValueError, match="ndim"):
        pp.similarity_order(X[0], 0.5)
    with pytest.raises(ValueError, match="empty"):
        pp.similarity_order(np.zeros((0, 3)), 0.5)
    with pytest.raises(ValueError, match="finite"):
        pp.similarity_order(X, np.nan)
    with pytest.raises(TypeError, match="alpha"):
        pp.similarity_order(X, "half")
    with pytest.raises(ValueError, match="dimension"):
        pp.apply_transform(X, np.eye(3))


# ------------------------------------------------------------------------ whitening
def _vecmap_whitening(m):
    # VecMap's map_embeddings.py, STEP 1
    u, s, vt = np.linalg.svd(m, full_matrices=False)
    return vt.T.dot(np.diag(1 / s)).dot(vt)


def test_whitening_transform_equals_vecmap_svd_formula(rng):
    X = _X(rng)
    np.testing.assert_allclose(pp.whitening_transform(X), _vecmap_whitening(X), rtol=1e-9, atol=1e-12)
    Y, W = pp.whiten(X, return_transform=True)
    np.testing.assert_allclose(Y.T @ Y, np.eye(X.shape[1]), atol=1e-9)
    np.testing.assert_allclose(X[:5] @ W, Y[:5])


def test_dewhiten_inverts_whiten_and_matches_vecmap_step4(rng):
    X, Z = _X(rng), _X(rng) * 2
    np.testing.assert_allclose(pp.dewhiten(pp.whiten(X), X), X, rtol=1e-9, atol=1e-9)
    # VecMap: xw = xw.dot(wx2.T.dot(inv(wx1)).dot(wx2)) after whitening and rotating by wx2
    wx1, wz1 = _vecmap_whitening(X), _vecmap_whitening(Z)
    wx2, s, wz2t = np.linalg.svd((X @ wx1).T @ (Z @ wz1))
    xw = (X @ wx1) @ wx2
    ref = xw.dot(wx2.T.dot(np.linalg.inv(wx1)).dot(wx2))
    out, M = pp.dewhiten(xw, X, rotation=wx2, return_transform=True)
    np.testing.assert_allclose(out, ref, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(M, pp.dewhitening_transform(X, rotation=wx2))


def test_cross_covariance_svd_and_reweight_match_vecmap_steps_2_3(rng):
    X, Z = _X(rng), _X(rng)
    U, s, Vt = pp.cross_covariance_svd(X, Z)
    wx2, s_ref, wz2t = np.linalg.svd(X.T @ Z)
    np.testing.assert_allclose(s, s_ref, rtol=1e-10)
    np.testing.assert_allclose(np.abs(U), np.abs(wx2), atol=1e-8)
    xw = X @ U
    ref = xw * s ** 0.5  # VecMap: xw *= s**args.src_reweight
    np.testing.assert_allclose(pp.reweight(xw, s, 0.5), ref, rtol=1e-12)
    np.testing.assert_allclose(pp.reweight(xw, s, 0.0), xw)


def test_whitening_errors(rng):
    X = _X(rng, d=4)
    X[:, 3] = X[:, 0]
    with pytest.raises(ValueError, match="singular"):
        pp.whiten(X)
    with pytest.raises(ValueError, match="dimension"):
        pp.dewhiten(_X(rng, d=4), _X(rng, d=5))
    with pytest.raises(ValueError, match="shape"):
        pp.reweight(_X(rng, d=4), np.ones(3), 0.5)
    with pytest.raises(ValueError, match="non-negative"):
        pp.reweight(_X(rng, d=4), -np.ones(4), 0.5)
    with pytest.raises(ValueError, match="negative"):
        pp.reweight(_X(rng, d=4), np.array([1.0, 0, 1, 1]), -0.5)
    with pytest.raises(ValueError, match="aligned"):
        pp.cross_covariance_svd(_X(rng, n=5), _X(rng, n=6))


def test_whiten_array_api_strict_matches_numpy(rng):
    X = _X(rng, dtype=np.float32)
    np.testing.assert_allclose(np.asarray(pp.whiten(xps.asarray(X))), pp.whiten(X), rtol=1e-5, atol=1e-5)
    back = pp.dewhiten(pp.whiten(xps.asarray(X)), xps.asarray(X))
    np.testing.assert_allclose(np.asarray(back), X, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------------- all-but-the-top
def _abtt_loop(X, D):
    """Mu & Viswanath's Algorithm 1, written as the paper's per-word loop with scikit-learn's PCA."""
    from sklearn.decomposition import PCA

    mu = X.mean(axis=0)
    Xt = X - mu
    U = PCA(svd_solver="full").fit(Xt).components_[:D]
    out = np.empty_like(Xt)
    for i, v in enumerate(Xt):
        for u in U:
            v = v - (u @ v) * u
        out[i] = v
    return out, U


@pytest.mark.parametrize("D", [0, 1, 3])
def test_all_but_the_top_equals_paper_loop_and_removes_projections(rng, D):
    X = _X(rng, n=120, d=8, scale=[6, 4, 3, 1, 1, 1, 1, 1])
    ref, U = _abtt_loop(X, D)
    Y = pp.all_but_the_top(X, D)
    np.testing.assert_allclose(Y, ref, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(Y.mean(axis=0), 0, atol=1e-10)
    if D:
        np.testing.assert_allclose(Y @ U.T, 0, atol=1e-9)  # projections on the top-D directions are gone


def test_all_but_the_top_held_out_rows(rng):
    X = _X(rng, n=100, scale=[5, 2, 1, 1, 1, 1, 1], dtype=np.float32)
    Y, t = pp.all_but_the_top(X, 2, return_transform=True)
    np.testing.assert_allclose(t.apply(X[70:]), Y[70:], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose((X[70:] - t.mean) @ t.matrix, Y[70:], rtol=1e-4, atol=1e-5)


def test_ppa_pca_ppa_equals_three_step_pipeline_with_sklearn(rng):
    from sklearn.decomposition import PCA

    X = _X(rng, n=150, d=10, scale=[7, 5, 4, 3, 2, 1.5, 1, 1, 0.5, 0.3])
    D, dim = 2, 6
    Z, _ = _abtt_loop(X, D)
    R = PCA(n_components=dim, svd_solver="full").fit_transform(Z)
    ref, U = _abtt_loop(R, D)
    Y, t = pp.ppa_pca_ppa(X, dim, D, return_transform=True)
    assert Y.shape == (150, dim) and t.matrix.shape == (10, dim)
    # PCA axes are defined up to sign: compare the (sign-invariant) Gram matrices
    np.testing.assert_allclose(Y @ Y.T, ref @ ref.T, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(Y[:, :D], 0, atol=1e-8)  # step 3 removes the leading components
    np.testing.assert_allclose(t.apply(X[:10]), Y[:10], atol=1e-10)


def test_ppa_array_api_strict_matches_numpy(rng):
    X = _X(rng, n=90, scale=[5, 2, 1, 1, 1, 1, 1], dtype=np.float32)
    np.testing.assert_allclose(np.asarray(pp.all_but_the_top(xps.asarray(X), 2)), pp.all_but_the_top(X, 2),
                               rtol=1e-4, atol=1e-5)
    a, b = np.asarray(pp.ppa_pca_ppa(xps.asarray(X), 5, 1)), pp.ppa_pca_ppa(X, 5, 1)
    np.testing.assert_allclose(a @ a.T, b @ b.T, rtol=1e-4, atol=1e-4)


def test_ppa_bad_input(rng):
    X = _X(rng, d=6)
    with pytest.raises(ValueError, match="D must satisfy"):
        pp.all_but_the_top(X, 6)
    with pytest.raises(ValueError, match="D must satisfy"):
        pp.all_but_the_top(X, -1)
    with pytest.raises(TypeError, match="integer"):
        pp.all_but_the_top(X, 1.5)
    with pytest.raises(ValueError, match="D must satisfy"):
        pp.ppa_pca_ppa(X, 3, 3)
    with pytest.raises(ValueError, match="dim"):
        pp.ppa_pca_ppa(X, 7, 1)
    bad = X.copy()
    bad[3, 0] = np.inf
    with pytest.raises(ValueError, match="row 3"):
        pp.all_but_the_top(bad, 1)


def test_normalisation_has_one_definition_that_the_step_functions_compose(small_embeddings):
    from embgeo.normalize import normalize

    out = pp.unit(pp.center(small_embeddings))
    np.testing.assert_array_equal(out.vectors, small_embeddings.normalize("center", "unit").vectors)
    np.testing.assert_array_equal(out.vectors, normalize(small_embeddings, "center", "unit").vectors)
    assert normalize(small_embeddings, "unit").words == small_embeddings.words
    np.testing.assert_array_equal(pp.unitdim(small_embeddings.vectors),
                                  normalize(small_embeddings.vectors, "unitdim"))
    assert "normalize" not in pp.__all__ and "STEPS" not in pp.__all__
    assert not hasattr(pp, "normalize")


# ------------------------------------------------------------------------ real data
def test_glove_alpha0_keeps_cosines_and_ppa_removes_top_directions(glove):
    e = glove.top(20000)
    r = pp.similarity_order(e, 0.0)
    for a, b in [("king", "queen"), ("paris", "france"), ("good", "bad")]:
        assert r.similarity(a, b) == pytest.approx(e.similarity(a, b), abs=1e-5)
    Y, t = pp.all_but_the_top(e, 3, return_transform=True)
    from embgeo.pca import variance_profile

    U = np.asarray(variance_profile(e).components[:3])
    assert np.abs(np.asarray(Y.vectors, dtype=np.float64) @ U.T).max() < 1e-3
    # held-out rows: (x − μ)(I − UUᵀ) with μ and U from a plain float64 SVD of the fitted vocabulary
    V = np.asarray(e.vectors, dtype=np.float64)
    mu = V.mean(axis=0)
    U3 = np.linalg.svd(V - mu, full_matrices=False)[2][:3]
    held = glove.subset(glove.words[30000:30010])
    H = np.asarray(held.vectors, dtype=np.float64)
    np.testing.assert_allclose(t.apply(held).vectors, (H - mu) @ (np.eye(50) - U3.T @ U3), atol=2e-4)


@pytest.mark.parametrize("method", [lambda X: pp.all_but_the_top(X, 1), lambda X: pp.ppa_pca_ppa(X, 2, 1)])
def test_one_row_is_refused_as_pca_refuses_it(method):
    with pytest.raises(ValueError, match=r"1 row\(s\): principal directions need at least 2 vectors"):
        method(np.arange(4.0).reshape(1, 4))
