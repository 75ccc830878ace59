"""Blocked Gram matrices and SPD powers."""
import numpy as np
import pytest

from embgeo.linalg import gram, sym_power


def test_blocked_gram_equals_dense_product(rng):
    X = rng.standard_normal((1003, 6)).astype(np.float32)
    Z = rng.standard_normal((1003, 4)).astype(np.float32)
    G = gram(X, Z, block_rows=100)
    assert G.dtype == np.float64
    assert np.allclose(G, X.astype(np.float64).T @ Z.astype(np.float64))
    assert np.allclose(gram(X, block_rows=7), X.astype(np.float64).T @ X.astype(np.float64))


def test_gram_blocks_follow_the_memory_budget(rng, monkeypatch):
    from embgeo import blocking

    X = rng.standard_normal((1003, 6)).astype(np.float32)
    Z = rng.standard_normal((1003, 4)).astype(np.float32)
    rows = []
    real = blocking.block_rows
    monkeypatch.setattr(blocking, "block_rows", lambda *a, **kw: rows.append(real(*a, **kw)) or rows[-1])
    G = gram(X, Z, memory_budget=8 * 10 * 50)  # float64 blocks of X and Z: 50 rows of 10 columns
    assert rows == [50]
    assert np.allclose(G, X.astype(np.float64).T @ Z.astype(np.float64))
    gram(X)
    assert rows[-1] == blocking.PASS_ROWS  # 6 float64 columns: the cap, not the budget


def test_gram_rejects_mismatched_rows(rng):
    with pytest.raises(ValueError, match="same number of rows"):
        gram(np.ones((3, 2)), np.ones((4, 2)))


def test_sym_power_inverse_square_root_whitens(rng):
    X = rng.standard_normal((500, 5))
    S = X.T @ X
    W = sym_power(S, -0.5)
    assert np.allclose(W @ S @ W, np.eye(5), atol=1e-10)
    R = sym_power(S, 0.5)
    assert np.allclose(R @ R, S, atol=1e-8)


def test_sym_power_refuses_negative_power_of_singular_matrix():
    S = np.diag([2.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="singular"):
        sym_power(S, -1)
    assert np.allclose(sym_power(S, 2), np.diag([4.0, 1.0, 0.0]))


def test_gram_on_array_api_strict(rng):
    xps = pytest.importorskip("array_api_strict")
    X = rng.standard_normal((40, 3))
    assert np.allclose(np.asarray(gram(xps.asarray(X), block_rows=9)), X.T @ X)


def test_centred_scatter_equals_numpy_covariance_times_n_minus_1():
    from embgeo.linalg import centred_scatter

    X = np.random.default_rng(5).standard_normal((300, 7)).astype(np.float32) + 3
    C, mu = centred_scatter(X)
    np.testing.assert_allclose(C, np.cov(X.astype(np.float64), rowvar=False) * 299, rtol=1e-6)
    np.testing.assert_allclose(mu, X.astype(np.float64).mean(axis=0), rtol=1e-6)


def test_eigh_desc_and_apply_matrix():
    from embgeo.linalg import apply_matrix, eigh_desc

    A = np.random.default_rng(6).standard_normal((5, 5))
    S = A @ A.T
    w, Q = eigh_desc(S)
    assert np.all(np.diff(w) <= 0)
    np.testing.assert_allclose((Q * w) @ Q.T, S, atol=1e-10)
    X = np.random.default_rng(7).standard_normal((4, 5)).astype(np.float32)
    Y = apply_matrix(X, Q, np.ones(5))
    assert Y.dtype == np.float32
    np.testing.assert_allclose(Y, X.astype(np.float64) @ Q - 1, atol=1e-5)


def test_checked_gram_names_the_bad_row_and_unwrap_rejects_bad_shapes():
    from embgeo.embeddings import unwrap
    from embgeo.linalg import checked_gram

    X = np.ones((6, 3), dtype=np.float32)
    X[4, 1] = np.nan
    with pytest.raises(ValueError, match="4"):
        checked_gram(X, "vectors")
    with pytest.raises(ValueError, match="2-D"):
        unwrap(np.ones(3))
    with pytest.raises(ValueError, match="empty"):
        unwrap(np.ones((0, 3)))
