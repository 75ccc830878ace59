"""Tests for embgeo.crosslingual.geomm: GeoMM (Jawanpuria et al., TACL 2019) against its released code.

The golden file ``tests/data/geomm_golden.npz`` holds the output of the released ``geomm.py``
(anoopkunchukuttan/geomm, Theano + pymanopt 0.2.5), run by ``benchmarks/reference/geomm_golden.py``
on a 40 × 5 → 50 × 6 problem. The independent oracle of the minimum is the ridge problem
``min_W ‖X_D W Z_Dᵀ − A‖² + C‖W‖²`` (closed form), which the factored problem equals.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import embgeo
from embgeo.crosslingual import Mapper, Mapping, retrieve
from embgeo.crosslingual.geomm import GeoMMResult, geomm, geomm_objective
from embgeo.normalize import normalize

GOLDEN = Path(__file__).parent / "data" / "geomm_golden.npz"


@pytest.fixture(scope="module")
def golden():
    g = dict(np.load(GOLDEN))
    g["Xn"] = normalize(g["X"], "unit", "center")     # --normalize unit center
    g["Zn"] = normalize(g["Z"], "unit", "center")
    g["C"] = float(g["l2_reg"]) / 2                    # 0.5·l2_reg·‖B‖²
    return g


def _ridge_minimum(X, Z, si, ti, C):
    """min_W ‖X_D W Z_Dᵀ − A‖²_F + C‖W‖²_F, solved in the eigenbases of the two dictionary Grams."""
    su, tu = np.unique(si), np.unique(ti)
    A = np.zeros((su.size, tu.size))
    A[np.searchsorted(su, si), np.searchsorted(tu, ti)] = 1.0
    Xd, Zd = X[su].astype(np.float64), Z[tu].astype(np.float64)
    lx, P = np.linalg.eigh(Xd.T @ Xd)
    lz, Q = np.linalg.eigh(Zd.T @ Zd)
    W = P @ ((P.T @ Xd.T @ A @ Zd @ Q) / (np.outer(lx, lz) + C)) @ Q.T
    return float(np.sum((Xd @ W @ Zd.T - A) ** 2) + C * np.sum(W * W))


def _dense_cost(X, Z, si, ti, U, V, B, C):
    """The released geomm.py cost, written out: the |D_s| × |D_t| residual against binary A."""
    su, tu = list(dict.fromkeys(si.tolist())), list(dict.fromkeys(ti.tolist()))
    A = np.zeros((len(su), len(tu)))
    for a, b in zip(si.tolist(), ti.tolist()):
        A[su.index(a), tu.index(b)] = 1.0
    R = X[su].astype(np.float64) @ U @ B @ V.T @ Z[tu].astype(np.float64).T - A
    return float(np.sum(R * R) + C * np.sum(B * B))


def _random_factors(rng, ds, dt, d):
    U = np.linalg.qr(rng.standard_normal((max(ds, d), max(ds, d))))[0][:ds, :d]
    V = np.linalg.qr(rng.standard_normal((max(dt, d), max(dt, d))))[0][:dt, :d]
    S = rng.standard_normal((d, d))
    return U, V, S @ S.T + np.eye(d)


# ------------------------------------------------------------------------- the released code
def test_objective_at_the_released_point_is_the_released_cost(golden):
    tr = golden["train"]
    f = geomm_objective(golden["Xn"], golden["Zn"], tr[:, 0], tr[:, 1], golden["U"], golden["V"], golden["B"],
                        C=golden["C"])
    assert f == pytest.approx(float(golden["cost"]), rel=1e-7)


def test_fit_reaches_the_released_cost_and_the_ridge_minimum(golden):
    tr = golden["train"]
    res = geomm(golden["Xn"], golden["Zn"], tr[:, 0], tr[:, 1], C=golden["C"],
                max_iter=int(golden["max_iter"]), progress=False)
    best = _ridge_minimum(golden["Xn"], golden["Zn"], tr[:, 0], tr[:, 1], golden["C"])
    assert best <= float(golden["cost"]) + 1e-9
    assert res.cost <= float(golden["cost"]) + 1e-8          # at least as low as the released code's 150 steps
    assert res.cost == pytest.approx(best, rel=1e-7, abs=1e-7)
    # the map itself: the released code's W = U B Vᵀ and ours agree (to the reference's convergence)
    np.testing.assert_allclose(res.U @ res.B @ res.V.T, golden["U"] @ golden["B"] @ golden["V"].T, atol=5e-3)
    assert res.U.shape == (5, 5) and res.V.shape == (6, 5) and res.B.shape == (5, 5)   # latent dim = d_s


def test_latent_embeddings_are_the_released_ones(golden):
    """x ↦ x U B^½ and z ↦ z V B^½, unit length (geomm.py's --geomm_embeddings_path files)."""
    Tx, Tz = GeoMMResult(U=golden["U"], V=golden["V"], B=golden["B"], C=golden["C"], cost=0.0).transforms()
    np.testing.assert_allclose(normalize(golden["Xn"] @ Tx, "unit"), golden["src_latent"], atol=2e-6)
    np.testing.assert_allclose(normalize(golden["Zn"] @ Tz, "unit"), golden["trg_latent"], atol=2e-6)


def test_geomm_recipe_translates_as_the_released_code(golden):
    sw = [f"s{i}" for i in range(golden["X"].shape[0])]
    tw = [f"t{j}" for j in range(golden["Z"].shape[0])]
    src, tgt = embgeo.Embeddings(sw, golden["X"]), embgeo.Embeddings(tw, golden["Z"])
    m = Mapper.from_recipe("geomm", mapping__reg=golden["C"], progress=False)
    m.fit(src, tgt, [(sw[a], tw[b]) for a, b in golden["train"]])
    xs, zt = m.transform(src, tgt)
    A, B = normalize(xs.vectors, "unit"), normalize(zt.vectors, "unit")    # --normalize_eval
    queries = golden["top1"][:, 0]
    _, idx = retrieve(A[queries], B, 1, "csls", csls_knn=10, source=A, progress=False)
    np.testing.assert_array_equal(np.asarray(idx)[:, 0], golden["top1"][:, 1])
    gold = dict(golden["test"].tolist())
    assert np.mean([gold[q] == t for q, t in zip(queries.tolist(), np.asarray(idx)[:, 0].tolist())]) == \
        pytest.approx(float(golden["accuracy"]))
    assert np.asarray(m.B_).shape == (5, 5) and len(m.cost_history_) > 1


# ------------------------------------------------------------------------ the objective itself
@pytest.mark.parametrize("ds,dt,d", [(5, 7, 5), (7, 4, 7), (6, 6, 3)])
def test_gram_form_objective_equals_the_dense_residual(rng, ds, dt, d):
    X, Z = rng.standard_normal((30, ds)), rng.standard_normal((25, dt))
    si = np.array([0, 1, 2, 2, 5, 7, 7, 9, 1])      # repeated source words and one repeated pair
    ti = np.array([3, 4, 5, 6, 5, 8, 8, 0, 4])
    U, V, B = _random_factors(rng, ds, dt, d)
    assert geomm_objective(X, Z, si, ti, U, V, B, C=0.7) == pytest.approx(_dense_cost(X, Z, si, ti, U, V, B, 0.7),
                                                                          rel=1e-10)


@pytest.mark.parametrize("ds,dt", [(6, 8), (8, 6), (6, 6)])
def test_fit_reaches_the_closed_form_minimum_whatever_the_dimensions(rng, ds, dt):
    """d_t < d_s is beyond the released code (its Stiefel(d_t, d_s) needs d_t ≥ d_s); the target map then
    embeds isometrically and the minimum is still the ridge one."""
    X = rng.standard_normal((120, ds))
    Z = np.concatenate([X, rng.standard_normal((120, max(dt - ds, 0)))], axis=1)[:, :dt]
    Z = Z @ np.linalg.qr(rng.standard_normal((dt, dt)))[0] + 0.2 * rng.standard_normal((120, dt))
    si = ti = np.arange(70)
    res = geomm(X, Z, si, ti, C=2.0, max_iter=600, progress=False)
    assert res.cost == pytest.approx(_ridge_minimum(X, Z, si, ti, 2.0), rel=1e-6)
    np.testing.assert_allclose(res.U.T @ res.U, np.eye(ds), atol=1e-8)
    np.testing.assert_allclose(res.V.T @ res.V if dt >= ds else res.V @ res.V.T, np.eye(min(ds, dt)), atol=1e-8)
    assert np.all(np.linalg.eigvalsh(res.B) > 0)
    assert res.cost_history[-1] <= res.cost_history[0]


def test_geomm_runs_on_array_api_strict_like_numpy(rng):
    xps = pytest.importorskip("array_api_strict")
    X = rng.standard_normal((80, 5)).astype(np.float32)
    Z = (X @ np.linalg.qr(rng.standard_normal((5, 5)))[0]).astype(np.float32)
    idx = np.arange(40)
    a = geomm(X, Z, idx, idx, C=1.0, max_iter=30, progress=False)
    b = geomm(xps.asarray(X), xps.asarray(Z), idx, idx, C=1.0, max_iter=30, progress=False)
    assert b.cost == pytest.approx(a.cost, rel=1e-6)


# --------------------------------------------------------------------------------- bad input
def test_bad_input_is_named(rng):
    X, Z = rng.standard_normal((10, 3)), rng.standard_normal((12, 4))
    with pytest.raises(ValueError, match="empty"):
        geomm(X, Z, [], [])
    with pytest.raises(ValueError, match="differ in length"):
        geomm(X, Z, [0, 1], [0])
    with pytest.raises(ValueError, match="tgt_idx has row 12"):
        geomm(X, Z, [0, 1], [0, 12])
    bad = X.copy()
    bad[4, 1] = np.nan
    with pytest.raises(ValueError, match="X holds NaN or inf in a dictionary row .row 4"):
        geomm(bad, Z, [0, 4], [0, 1])
    geomm(bad, Z, [0, 1], [0, 1], max_iter=2, progress=False)   # row 4 is not in the dictionary
    with pytest.raises(ValueError, match="C must be"):
        geomm(X, Z, [0, 1], [0, 1], C=-1.0)
    with pytest.raises(ValueError, match="reg"):
        Mapper(mapping=Mapping("geomm", reg=-1.0))._validate_params()


def test_mapper_geomm_on_array_api_strict_matches_numpy(rng):
    xps = pytest.importorskip("array_api_strict")
    X = rng.standard_normal((150, 6)).astype(np.float32)
    Z = (X @ np.linalg.qr(rng.standard_normal((6, 6)))[0] + 0.05 * rng.standard_normal((150, 6))).astype(np.float32)
    pairs = np.stack([np.arange(60), np.arange(60)], axis=1)
    ref = Mapper.from_recipe("geomm", progress=False).fit(X, Z, pairs)
    m = Mapper.from_recipe("geomm", progress=False).fit(xps.asarray(X), xps.asarray(Z), pairs)
    xs, zt = m.transform(xps.asarray(X), xps.asarray(Z))
    rs, rt = ref.transform(X, Z)
    # the latent space is defined up to a rotation: compare the cross-lingual similarities
    np.testing.assert_allclose(np.asarray(xs) @ np.asarray(zt).T, rs @ rt.T, atol=1e-4)
