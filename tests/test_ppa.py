"""PPA and PPA-PCA-PPA against the recipes of the scripts released with Raunak et al. (vyraun/dlp)."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.decomposition import PCA

from embgeo import postprocess as pp


@pytest.fixture
def X():
    rng = np.random.default_rng(5)
    return (rng.standard_normal((400, 12)) * np.linspace(4, 0.5, 12) + 0.7).astype(np.float64)


def _remove(Z, U):
    """The released loop: ``x = x - np.dot(u.T, x) * u`` for each top component u."""
    out = Z.copy()
    for u in U:
        out = out - np.outer(out @ u, u)
    return out


def test_scalar_mean_ppa_is_the_released_ppa_pca_first_step(X):
    """ppa_pca.py: X - np.mean(X), sklearn PCA components, projections removed from the shifted X."""
    Xs = X - np.mean(X)
    U = PCA(n_components=12).fit(Xs).components_[:3]
    np.testing.assert_allclose(pp.all_but_the_top(X, 3, mean="scalar"), _remove(Xs, U), atol=1e-9)
    # the paper's Algorithm 1 subtracts the mean vector: a different output (not merely shifted by 0)
    Xv = X - X.mean(axis=0)
    np.testing.assert_allclose(pp.all_but_the_top(X, 3), _remove(Xv, U), atol=1e-9)
    assert np.abs(pp.all_but_the_top(X, 3, mean="scalar") - pp.all_but_the_top(X, 3)).max() > 0.1
    Y, t = pp.all_but_the_top(X, 3, mean="scalar", return_transform=True)
    np.testing.assert_allclose(t.apply(X[:7]), Y[:7], atol=1e-9)
    with pytest.raises(ValueError, match="mean must be one of"):
        pp.all_but_the_top(X, 3, mean="median")


def test_ppa_pca_ppa_equals_the_released_algo_py_recipe(X):
    """algo.py: scalar means throughout, sklearn fit_transform (which centres) in the middle."""
    D, dim = 2, 6
    Xs = X - np.mean(X)
    z = _remove(Xs, PCA(n_components=12).fit(Xs).components_[:D])
    Xt = z - np.mean(z)
    Y = PCA(n_components=dim).fit_transform(Xt)
    Ufit = PCA(n_components=dim).fit(Y - np.mean(Y)).components_
    ref = _remove(Y - np.mean(Y), Ufit[:D])
    ours = pp.ppa_pca_ppa(X, dim, D)
    # principal axes are defined up to sign: compare the Gram matrices
    np.testing.assert_allclose(ours @ ours.T, ref @ ref.T, atol=1e-8)
