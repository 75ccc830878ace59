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
