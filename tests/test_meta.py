"""Tests for embgeo.meta: geometric meta-embeddings (Jawanpuria et al. 2020) and the baselines."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import ortho_group

import embgeo
from embgeo.errors import NotFittedError
from embgeo.latent_metric import LatentMetricObjective, latent_metric_problem
from embgeo.meta import (GeometricMetaEmbedding, _pair_grams, average,
                         concatenate, concatenate_svd, objective)


# ----------------------------------------------------------------------------- helpers
def _orthonormal(rng, shape):
    q, _ = np.linalg.qr(rng.standard_normal(shape))
    return q


def _spd(rng, d):
    S = rng.standard_normal((d, d))
    return S @ S.T / d + 0.5 * np.eye(d)


def _direct_cost(arrays, M, B, C):
    """Eq. 1 literally: n × n residuals with words in columns (X_i = E_iᵀ)."""
    n = arrays[0].shape[0]
    f = C * np.sum(B * B)
    for i in range(len(arrays)):
        for j in range(i + 1, len(arrays)):
            Xi, Xj = arrays[i].T, arrays[j].T
            R = Xi.T @ M[i].T @ B @ M[j] @ Xj - np.eye(n)
            f += np.sum(R * R)
    return f


def _random_problem(rng, dims=(5, 7, 4), d=6, n=40):
    arrays = [rng.standard_normal((n, di)) for di in dims]
    M = [_orthonormal(rng, (d, di)) if di <= d else _orthonormal(rng, (di, d)).T for di in dims]
    return arrays, M, _spd(rng, d)


def _cosines(Y):
    Y = np.asarray(Y, dtype=np.float64)
    U = Y / np.linalg.norm(Y, axis=1, keepdims=True)
    return U @ U.T


def _identify_linear_piece(x, y, window_length):
    """pymanopt 2.2.1's helper of the same name, fixed for NumPy >= 2.4.

    pymanopt assigns ``np.sqrt(residuals)`` (an array of shape (1,)) to a scalar slot, which
    NumPy 2.4 refuses ("setting an array element with a sequence"); the logic is unchanged.
    """
    residues = np.zeros(len(x) - window_length)
    polys = np.zeros((2, len(residues)))
    for k in range(len(residues)):
        segment = np.arange(k, k + window_length + 1)
        poly, residuals, *_ = np.polyfit(x[segment], y[segment], deg=1, full=True)
        residues[k] = np.sqrt(residuals[0]) if np.size(residuals) else 0.0
        polys[:, k] = poly
    best = int(np.argmin(residues))
    return np.arange(best, best + window_length + 1), polys[:, best]


def _no_exp(*args):
    raise NotImplementedError


# ------------------------------------------------------------------ objective and derivatives
def test_gram_cost_equals_direct_n_sized_formula(rng):
    arrays, M, B = _random_problem(rng)
    for C in (0.0, 0.7):
        assert objective(arrays, M, B, C=C) == pytest.approx(_direct_cost(arrays, M, B, C), rel=1e-10)


def test_euclidean_gradient_matches_central_differences(rng):
    arrays, M, B = _random_problem(rng)
    obj = LatentMetricObjective(_pair_grams(arrays), arrays[0].shape[0], C=0.3)
    f0, gM, gB = obj.grad(M, B)
    assert f0 == pytest.approx(obj.cost(M, B), rel=1e-12)
    dM = [rng.standard_normal(m.shape) for m in M]
    S = rng.standard_normal(B.shape)
    dB = S + S.T  # B is symmetric: only symmetric directions are meaningful
    h = 1e-6
    fd = (obj.cost([m + h * e for m, e in zip(M, dM)], B + h * dB)
          - obj.cost([m - h * e for m, e in zip(M, dM)], B - h * dB)) / (2 * h)
    analytic = sum(np.sum(g * e) for g, e in zip(gM, dM)) + np.sum(gB * dB)
    assert analytic == pytest.approx(fd, rel=1e-6)


def test_euclidean_hessian_is_the_derivative_of_the_gradient(rng):
    arrays, M, B = _random_problem(rng)
    obj = LatentMetricObjective(_pair_grams(arrays), arrays[0].shape[0], C=0.3)
    dM = [rng.standard_normal(m.shape) for m in M]
    S = rng.standard_normal(B.shape)
    dB = S + S.T
    hM, hB = obj.hess(M, B, dM, dB)
    h = 1e-6
    _, gp, gBp = obj.grad([m + h * e for m, e in zip(M, dM)], B + h * dB)
    _, gm, gBm = obj.grad([m - h * e for m, e in zip(M, dM)], B - h * dB)
    for a, p, m in zip(hM + [hB], gp + [gBp], gm + [gBm]):
        np.testing.assert_allclose(a, (p - m) / (2 * h), rtol=1e-5, atol=1e-5 * np.abs(a).max())


@pytest.mark.parametrize("dims,d", [((6, 6), 6), ((4, 7), 7), ((4, 7, 5), 5)])
def test_pymanopt_check_gradient_and_hessian_slopes(rng, dims, d, monkeypatch):
    """pymanopt's check_gradient on the product manifold (equal dims, Stiefel factors, 3 sources).

    check_gradient plots; the slope it fits is read from check_directional_derivative: a correct
    gradient makes the first-order model error O(h²) (slope 2), a correct Hessian O(h³).
    """
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from pymanopt.tools import diagnostics
    from pymanopt.tools.diagnostics import check_directional_derivative, check_gradient

    monkeypatch.setattr(diagnostics, "identify_linear_piece", _identify_linear_piece)

    arrays = [rng.standard_normal((30, di)) / 3 for di in dims]
    obj = LatentMetricObjective(_pair_grams(arrays), 30, C=0.5)
    # polar (second-order) retraction for the Hessian check; pymanopt's exp (scipy's expm on every
    # point) is slow, and with it disabled the check walks along the retraction instead.
    problem, _ = latent_metric_problem(obj, list(dims), d, retraction="polar")
    monkeypatch.setattr(problem.manifold, "exp", _no_exp)
    np.random.seed(0)  # pymanopt draws its random point and direction from the global state
    x = problem.manifold.random_point()
    v = problem.manifold.random_tangent_vector(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Agg cannot "show"
        check_gradient(problem, x, v)
    plt.close("all")
    _, _, _, poly = check_directional_derivative(problem, x, v)
    assert poly[0] == pytest.approx(2.0, abs=0.1)
    _, _, _, poly = check_directional_derivative(problem, x, v, use_quadratic_model=True)
    assert poly[0] == pytest.approx(3.0, abs=0.15)
    # the Riemannian gradient is a tangent vector
    g = problem.riemannian_gradient(x)
    residual = g - problem.manifold.to_tangent_space(x, g)
    assert problem.manifold.norm(x, residual) < 1e-8 * problem.manifold.norm(x, g)


# --------------------------------------------------------------------------- optimisation
@pytest.fixture
def rotated_pair(rng):
    """A source X (anisotropic) and a rotated copy Z = XRᵀ (z = Rx), R with det −1."""
    d = 10
    X = rng.standard_normal((800, d)) @ np.diag(np.linspace(0.5, 2.0, d))
    R = ortho_group.rvs(d, random_state=3)
    if np.linalg.det(R) > 0:
        R[:, 0] *= -1
    return X, R


def test_cost_decreases_monotonically(rotated_pair):
    X, R = rotated_pair
    rng = np.random.default_rng(7)
    Z = X @ R.T + 0.3 * rng.standard_normal(X.shape)
    gme = GeometricMetaEmbedding(C=1.0, init="random", max_iter=60, progress=False).fit([X, Z])
    h = np.asarray(gme.cost_history_)
    assert len(h) == gme.n_iter_
    assert h[-1] < h[0]
    assert np.all(np.diff(h) <= 1e-9 * abs(h[0]))
    assert gme.cost_ == pytest.approx(h[-1])
    # the recorded cost is eq. 1 at the returned point (on the normalised sources)
    Xn, Zn = (embgeo.normalize.normalize(A, "unit") for A in (X, Z))
    assert objective([Xn, Zn], gme.rotations_, gme.B_, C=1.0) == pytest.approx(gme.cost_, rel=1e-10)


@pytest.mark.parametrize("solver", ["cg", "trust-regions"])
def test_rotated_copy_is_aligned(rotated_pair, solver):
    """Z = RX: the maps satisfy V R = U, so both sources land on the same points; B whitens.

    The unconstrained minimiser of ‖XᵀAZ − I‖² is A = C_xx⁻¹Rᵀ (C_xx = XXᵀ), reached with V = URᵀ
    and B = U C_xx⁻¹ Uᵀ; Geo-AVG is then U C_xx^{-1/2} x: the whitened source, rotated.
    """
    X, R = rotated_pair
    gme = GeometricMetaEmbedding(C=0.0, solver=solver, normalize=None, normalize_mapped=False,
                                 progress=False).fit([X, X @ R.T])
    U, V = gme.rotations_
    np.testing.assert_allclose(V @ R, U, atol=1e-5)
    np.testing.assert_allclose(gme.B_, U @ np.linalg.inv(X.T @ X) @ U.T, rtol=1e-4, atol=1e-9)
    assert gme.cost_ == pytest.approx(X.shape[0] - X.shape[1], rel=1e-8)  # ‖P − I‖², P a rank-d projection
    Y = gme.transform([X, X @ R.T])
    W = X @ np.linalg.inv(np.linalg.cholesky(X.T @ X)).T  # whitened X, any whitening (up to rotation)
    np.testing.assert_allclose(Y @ Y.T, W @ W.T, atol=1e-6)
    conc = gme.transform([X, X @ R.T], kind="geo-conc")
    np.testing.assert_allclose(conc[:, :10], conc[:, 10:], atol=1e-6)


def test_isotropic_source_geo_avg_is_the_original_up_to_rotation(rng):
    """With isotropic C_xx the whitening is a scaling: Geo-AVG cosines equal the original cosines."""
    n, d = 400, 8
    X = np.linalg.qr(rng.standard_normal((n, d)))[0] * 3.0
    R = ortho_group.rvs(d, random_state=5)
    gme = GeometricMetaEmbedding(C=0.0, normalize=None, progress=False).fit([X, X @ R.T])
    Y = gme.transform([X, X @ R.T])
    np.testing.assert_allclose(_cosines(Y[:100]), _cosines(X[:100]), atol=1e-6)


def test_same_seed_gives_identical_fit(rotated_pair):
    X, R = rotated_pair
    a = GeometricMetaEmbedding(C=0.5, max_iter=40, random_state=3, progress=False).fit([X, X @ R.T])
    b = GeometricMetaEmbedding(C=0.5, max_iter=40, random_state=3, progress=False).fit([X, X @ R.T])
    for p, q in zip(a.rotations_ + [a.B_], b.rotations_ + [b.B_]):
        np.testing.assert_array_equal(p, q)
    assert a.cost_history_ == b.cost_history_


def test_different_dimensionalities_use_stiefel_factors(rng):
    """z = Pᵀx embeds a 5-d source isometrically in 9 dimensions; both choices of dim align it."""
    n = 600
    X = rng.standard_normal((n, 5)) @ np.diag([0.6, 0.8, 1.0, 1.5, 2.0])
    P = _orthonormal(rng, (9, 5)).T  # 5 × 9, orthonormal rows
    Z = X @ P
    big = GeometricMetaEmbedding(C=0.0, normalize=None, progress=False).fit([X, Z])
    Mx, Mz = big.rotations_
    assert big.dim_ == 9 and Mx.shape == (9, 5) and Mz.shape == (9, 9)
    np.testing.assert_allclose(Mx.T @ Mx, np.eye(5), atol=1e-10)   # isometric embedding of the 5-d source
    np.testing.assert_allclose(Mz @ P.T, Mx, atol=1e-5)
    assert big.transform([X, Z]).shape == (n, 9) and big.transform([X, Z], "geo-conc").shape == (n, 18)

    small = GeometricMetaEmbedding(C=0.0, dim=5, normalize=None, progress=False).fit([X, Z])
    Mx, Mz = small.rotations_
    assert Mx.shape == (5, 5) and Mz.shape == (5, 9)
    np.testing.assert_allclose(Mz @ Mz.T, np.eye(5), atol=1e-10)   # orthonormal rows: a projection
    np.testing.assert_allclose(Mz @ P.T, Mx, atol=1e-5)
    assert small.transform([X, Z]).shape == (n, 5)


def test_three_sources_one_rotation_each(rng):
    """embgeo's extension: eq. 1 summed over pairs; every source is rotated onto the others."""
    n, d = 500, 6
    X = rng.standard_normal((n, d)) @ np.diag(np.linspace(0.7, 1.6, d))
    Rs = [ortho_group.rvs(d, random_state=s) for s in (11, 12)]
    srcs = [X, X @ Rs[0].T, X @ Rs[1].T]
    gme = GeometricMetaEmbedding(C=0.0, normalize=None, progress=False).fit(srcs)
    M0, M1, M2 = gme.rotations_
    np.testing.assert_allclose(M1 @ Rs[0], M0, atol=1e-5)
    np.testing.assert_allclose(M2 @ Rs[1], M0, atol=1e-5)
    pair_sum = sum(objective([srcs[i], srcs[j]], [gme.rotations_[i], gme.rotations_[j]], gme.B_)
                   for i, j in ((0, 1), (0, 2), (1, 2)))
    assert objective(srcs, gme.rotations_, gme.B_) == pytest.approx(pair_sum, rel=1e-12)


# ----------------------------------------------------------------------- Embeddings interface
@pytest.fixture
def two_vocabularies(rng):
    a = embgeo.Embeddings([f"w{i}" for i in range(300)], rng.standard_normal((300, 6)).astype(np.float32))
    words_b = [f"w{i}" for i in range(250, 50, -1)] + ["x1", "x2"]
    b = embgeo.Embeddings(words_b, rng.standard_normal((len(words_b), 9)).astype(np.float32))
    return a, b


def _unit(A):
    A = np.asarray(A, dtype=np.float64)
    return A / np.linalg.norm(A, axis=1, keepdims=True)


def test_avg_conc_svd_match_plain_numpy(two_vocabularies):
    a, b = two_vocabularies
    common = [w for w in a.words if w in b]
    Xa, Xb = _unit(a[common]), _unit(b[common])

    conc = concatenate([a, b])
    assert conc.words == common and conc.dim == 15
    np.testing.assert_allclose(conc.vectors, np.hstack([Xa, Xb]), atol=1e-6)

    avg = average([a, b])
    padded = np.hstack([Xa, np.zeros((len(common), 3))])  # zero-padding (Coates & Bollegala 2018)
    assert avg.words == common and avg.dim == 9
    np.testing.assert_allclose(avg.vectors, (padded + Xb) / 2, atol=1e-6)

    svd = concatenate_svd([a, b], dim=4)
    Uu, s, _ = np.linalg.svd(np.hstack([Xa, Xb]), full_matrices=False)
    ref = Uu[:, :4] * s[:4]
    # singular vectors are defined up to sign: compare column by column, sign-aligned
    signs = np.sign(np.sum(ref * svd.vectors, axis=0))
    np.testing.assert_allclose(svd.vectors, ref * signs, atol=1e-4)


def test_geometric_returns_embeddings_over_common_vocabulary(two_vocabularies):
    a, b = two_vocabularies
    gme = GeometricMetaEmbedding(max_iter=20, progress=False).fit([a, b])
    common = [w for w in a.words if w in b]
    assert gme.vocabulary_ == common
    avg, conc = gme.transform([a, b]), gme.transform([a, b], kind="geo-conc")
    assert isinstance(avg, embgeo.Embeddings) and avg.words == common and avg.dim == 9
    assert conc.dim == 18 and conc.dtype == np.float32
    # Geo-AVG by hand: rows E_i M_iᵀ B^½ of the unit-normalised sources, each mapped row scaled to
    # unit length (the released code's computation) or not (the paper's formula)
    w, Q = np.linalg.eigh(gme.B_)
    Bh = (Q * np.sqrt(w)) @ Q.T
    xa, xb = _unit(a[common]) @ gme.rotations_[0].T @ Bh, _unit(b[common]) @ gme.rotations_[1].T @ Bh
    np.testing.assert_allclose(avg.vectors, (_unit(xa) + _unit(xb)) / 2, atol=1e-5)
    np.testing.assert_allclose(conc.vectors, np.hstack([_unit(xa), _unit(xb)]), atol=1e-5)
    gme.set_params(normalize_mapped=False)
    np.testing.assert_allclose(gme.transform([a, b]).vectors, (xa + xb) / 2, atol=1e-5)
    # transform maps any words: a subset gives the rows of the full result
    part = gme.transform([a.subset(common[:5]), b])
    assert part.words == common[:5]
    np.testing.assert_allclose(part.vectors, ((xa + xb) / 2)[:5], atol=1e-5)


def test_backend_neutral_with_array_api_strict(rng):
    xps = pytest.importorskip("array_api_strict")
    X = rng.standard_normal((200, 5))
    Z = rng.standard_normal((200, 7))
    ref = GeometricMetaEmbedding(max_iter=15, progress=False).fit([X, Z])
    strict = GeometricMetaEmbedding(max_iter=15, progress=False).fit([xps.asarray(X), xps.asarray(Z)])
    np.testing.assert_allclose(strict.B_, ref.B_, rtol=1e-8)
    out = strict.transform([xps.asarray(X), xps.asarray(Z)], kind="geo-conc")
    assert not isinstance(out, np.ndarray)
    np.testing.assert_allclose(embgeo.to_numpy(out), ref.transform([X, Z], kind="geo-conc"), atol=1e-8)
    np.testing.assert_allclose(embgeo.to_numpy(average([xps.asarray(X), xps.asarray(Z)])),
                               average([X, Z]), atol=1e-12)


# ------------------------------------------------------------------------------ bad input
def test_not_fitted_error():
    with pytest.raises(NotFittedError, match="not fitted"):
        GeometricMetaEmbedding().transform([np.ones((3, 2)), np.ones((3, 2))])


def test_bad_input_raises_clear_errors(rng, two_vocabularies):
    a, b = two_vocabularies
    other = embgeo.Embeddings(["zz1", "zz2"], np.ones((2, 3), dtype=np.float32))
    gme = GeometricMetaEmbedding(progress=False)
    with pytest.raises(ValueError, match="share no word"):
        gme.fit([a, other])
    with pytest.raises(ValueError, match="not aligned.*source 0: 10, source 1: 9"):
        gme.fit([np.ones((10, 3)), np.ones((9, 3))])
    bad = rng.standard_normal((10, 3))
    bad[4, 1] = np.nan
    with pytest.raises(ValueError, match=r"sources\[1\] holds NaN or inf \(first at row 4\)"):
        gme.fit([rng.standard_normal((10, 3)), bad])
    with pytest.raises(ValueError, match="at least two sources"):
        gme.fit([a])
    with pytest.raises(TypeError, match="mixes Embeddings and arrays"):
        average([a, np.ones((300, 6))])
    with pytest.raises(TypeError, match="list of Embeddings"):
        concatenate(a)
    with pytest.raises(ValueError, match="'C' parameter of GeometricMetaEmbedding must be"):
        GeometricMetaEmbedding(C=-1).fit([a, b])
    with pytest.raises(ValueError, match="'C' parameter"):
        GeometricMetaEmbedding(C=np.inf).fit([a, b])
    with pytest.raises(ValueError, match="'solver' parameter of GeometricMetaEmbedding must be"):
        GeometricMetaEmbedding(solver="adam").fit([a, b])
    with pytest.raises(TypeError, match="positional"):
        GeometricMetaEmbedding(1.0, "geo-conc")  # hyper-parameters after C are keyword-only
    with pytest.raises(ValueError, match="dim must be between"):
        concatenate_svd([a, b], dim=16)
    fitted = GeometricMetaEmbedding(max_iter=3, progress=False).fit([a, b])
    with pytest.raises(ValueError, match="kind must be"):
        fitted.transform([a, b], "avg")
    with pytest.raises(TypeError, match="sources first"):
        fitted.transform("geo-avg")
    with pytest.raises(ValueError, match="dimension 6, fitted on 9"):
        fitted.transform([a, a])
    with pytest.raises(ValueError, match="fitted on 2 sources, got 3"):
        fitted.transform([a, b, b])


# ------------------------------------------------------------------------------ real data
def test_real_glove_and_minilm_fit_decreases_cost(glove, shared_data):
    from gensim.models import KeyedVectors

    path = shared_data / "vectors" / "en.minilm-static.384d.50k.vec.gz"
    minilm = embgeo.Embeddings.from_gensim(KeyedVectors.load_word2vec_format(str(path), binary=False,
                                                                            limit=5000))
    gme = GeometricMetaEmbedding(C=1.0, dim=50, max_iter=30, progress=False).fit([glove.top(20000), minilm])
    assert gme.cost_history_[-1] < gme.cost_history_[0]
    Y = gme.transform([glove.top(20000), minilm])
    assert Y.dim == 50 and 4000 < len(Y) <= 5000
    # a related pair is more similar than an unrelated one in the meta-embedding
    assert Y.similarity("man", "woman") > Y.similarity("man", "paper")


# ------------------------------------------------------------------------------ scikit-learn API
def test_scikit_learn_estimator_contract(rng):
    from sklearn.base import clone
    from sklearn.exceptions import NotFittedError as SkNotFittedError
    from sklearn.utils.validation import check_is_fitted

    gme = GeometricMetaEmbedding(C=2.0, kind="geo-conc", max_iter=5, progress=False)
    params = gme.get_params()
    assert params["C"] == 2.0 and params["kind"] == "geo-conc" and params["normalize_mapped"] is True
    twin = clone(gme)
    assert twin is not gme and twin.get_params() == params
    with pytest.raises(SkNotFittedError):
        check_is_fitted(gme)
    X, Z = rng.standard_normal((300, 4)), rng.standard_normal((300, 6))
    out = gme.fit_transform([X, Z])
    check_is_fitted(gme)
    assert out.shape == (300, 12)                       # kind="geo-conc" from the constructor
    assert gme.transform([X, Z], kind="geo-avg").shape == (300, 6)
    assert gme.set_params(C=0.5).C == 0.5
    # no copy of the training data: nothing of n rows is kept
    for name, value in vars(gme).items():
        for a in value if isinstance(value, list) else [value]:
            assert not (isinstance(a, np.ndarray) and a.ndim and a.shape[0] == 300), name
    with pytest.raises(ValueError, match="'kind' parameter of GeometricMetaEmbedding must be"):
        GeometricMetaEmbedding(kind="avg").fit([X, Z])


# ------------------------------------------------------------------------------ released-code golden
def test_cost_gradient_and_transform_match_released_geo_meta_emb_code():
    """Golden values from github.com/SatyadevNtv/geo-meta-emb (benchmarks/reference/geo_meta_emb_golden.py).

    geomm.py's cost is ``0.5·l2_reg·‖B‖² + ‖Xᵀ U1 B U2ᵀ Z − I‖²`` (rows Kx·U1, so U1 = M_0ᵀ):
    embgeo's C is l2_reg / 2. Its output vectors are ``length_normalize(Kx U1 B^½)``, which
    generate-meta-embs.py averages or concatenates: embgeo's default ``normalize_mapped=True``.
    """
    from pathlib import Path

    g = np.load(Path(__file__).parent / "data" / "geo_meta_emb_golden.npz")
    C = float(g["l2_reg"]) / 2
    np.testing.assert_allclose(embgeo.normalize.normalize(g["X"], "unit"), g["Xn"], atol=1e-12)
    M = [g["U1"].T, g["U2"].T]
    assert objective([g["Xn"], g["Zn"]], M, g["B"], C=C) == pytest.approx(float(g["cost"]), rel=1e-12)
    obj = LatentMetricObjective(_pair_grams([g["Xn"], g["Zn"]]), g["Xn"].shape[0], C)
    _, gM, gB = obj.grad(M, g["B"])
    np.testing.assert_allclose(gM[0].T, g["grad_U1"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(gM[1].T, g["grad_U2"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(gB, (g["grad_B"] + g["grad_B"].T) / 2, rtol=1e-6, atol=1e-6)

    gme = GeometricMetaEmbedding(C=C)     # a fitted state set by hand: the reference's point
    gme.rotations_, gme.B_, gme.dim_, gme.source_dims_ = M, g["B"], 4, [4, 4]
    np.testing.assert_allclose(gme.transform([g["X"], g["Z"]]), g["avg"], atol=1e-12)
    np.testing.assert_allclose(gme.transform([g["X"], g["Z"]], kind="geo-conc"), g["conc"], atol=1e-12)
    gme.set_params(normalize_mapped=False)
    assert np.abs(gme.transform([g["X"], g["Z"]]) - g["avg"]).max() > 1e-2


def test_a_single_shared_word_is_refused():
    rng = np.random.default_rng(0)
    a = embgeo.Embeddings(["x", "y"], rng.standard_normal((2, 3)))
    b = embgeo.Embeddings(["y", "z"], rng.standard_normal((2, 3)))
    with pytest.raises(ValueError, match=r"share only the word 'y'"):
        GeometricMetaEmbedding().fit([a, b])
