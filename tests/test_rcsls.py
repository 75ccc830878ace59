"""Tests for embgeo.crosslingual.rcsls: the RCSLS loss (Joulin et al. 2018, as align.py computes it) and fastText's optimiser."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from embgeo.crosslingual.rcsls import rcsls, rcsls_loss
from conftest import traced_memory


def _unit(A):
    return A / np.linalg.norm(A, axis=1, keepdims=True)


@pytest.fixture
def problem():
    rng = np.random.default_rng(0)
    Xs = _unit(rng.standard_normal((70, 5)))
    Q = np.linalg.qr(rng.standard_normal((7, 7)))[0][:5]          # 5 → 7 dimensions
    Zt = _unit(np.vstack([Xs @ Q, rng.standard_normal((20, 7))]) + 0.3 * rng.standard_normal((90, 7)))
    perm = rng.permutation(90)
    Zt = Zt[perm]
    src = np.arange(35)
    tgt = np.argsort(perm)[:35]                                    # where row i of Xs @ Q went
    W = Q + 0.1 * rng.standard_normal((5, 7))
    return Xs, Zt, src, tgt, W


def _brute_force(W, Xs, Zt, src, tgt, k, m):
    """The RCSLS loss with loops: every score, sorted, k best summed; gradient term by term."""
    f, g = 0.0, np.zeros_like(W)
    for i, j in zip(src, tgt):
        x, y = Xs[i], Zt[j]
        xw = x @ W
        sT = np.array([xw @ z for z in Zt[:m]])
        sS = np.array([(xp @ W) @ y for xp in Xs[:m]])
        nT, nS = np.argsort(-sT)[:k], np.argsort(-sS)[:k]
        f += 2 * xw @ y - sT[nT].sum() / k - sS[nS].sum() / k
        g += 2 * np.outer(x, y) - sum(np.outer(x, Zt[c]) for c in nT) / k \
            - sum(np.outer(Xs[c], y) for c in nS) / k
    return -f / len(src), -g / len(src)


@pytest.mark.parametrize("m", [90, 50])
def test_loss_and_gradient_match_a_brute_force_loop(problem, m):
    Xs, Zt, src, tgt, W = problem
    f, g = rcsls_loss(W, Xs, Zt, src, tgt, csls_knn=4, max_negatives=m)
    f_ref, g_ref = _brute_force(W, Xs, Zt, src, tgt, 4, m)
    assert f == pytest.approx(f_ref, rel=1e-10)
    np.testing.assert_allclose(g, g_ref, atol=1e-10)
    # the neighbourhoods are locally constant: the subgradient is the derivative there
    E = np.random.default_rng(1).standard_normal(W.shape)
    h = 1e-7
    fp = rcsls_loss(W + h * E, Xs, Zt, src, tgt, csls_knn=4, max_negatives=m)[0]
    fm = rcsls_loss(W - h * E, Xs, Zt, src, tgt, csls_knn=4, max_negatives=m)[0]
    assert (fp - fm) / (2 * h) == pytest.approx(np.sum(g * E), rel=1e-5)


def test_blocks_do_not_change_the_result(problem):
    Xs, Zt, src, tgt, W = problem
    f, g = rcsls_loss(W, Xs, Zt, src, tgt, csls_knn=3)
    f2, g2 = rcsls_loss(W, Xs, Zt, src, tgt, csls_knn=3, memory_budget=3 * 90 * 4)   # 3 rows a block
    assert f2 == pytest.approx(f, rel=1e-12)
    np.testing.assert_allclose(g2, g, atol=1e-12)
    np.testing.assert_allclose(rcsls(Xs, Zt, src, tgt, csls_knn=3, memory_budget=10 * 90 * 4),
                               rcsls(Xs, Zt, src, tgt, csls_knn=3), atol=1e-6)


def test_matches_fasttext_align_py():
    """Golden outputs of fastText's alignment/align.py (benchmarks/reference/fasttext_rcsls_golden.py).

    align.py's R is (d_t, d_s), applied as x Rᵀ: embgeo's W is Rᵀ. At lr=20 the loss goes up and
    align.py halves lr while keeping the step (its R and Rold are one array); embgeo does the same.
    """
    g = np.load(Path(__file__).parent / "data" / "rcsls_fasttext_golden.npz")
    x, z, src, tgt = g["x_src"], g["x_tgt"], g["src_idx"], g["tgt_idx"]
    k, m = int(g["knn"]), int(g["maxneg"])
    f0, grad0 = rcsls_loss(g["R0"].T, x, z, src, tgt, csls_knn=k, max_negatives=m)
    assert f0 == pytest.approx(float(g["loss0"]), rel=1e-9)
    np.testing.assert_allclose(grad0, g["grad0"].T, atol=1e-10)
    for tag, lr in (("lr1", 1.0), ("lr20", 20.0)):
        W = rcsls(x, z, src, tgt, csls_knn=k, max_negatives=m, n_epochs=int(g["niter"]), lr=lr)
        np.testing.assert_allclose(W, g[f"R_{tag}"].T, atol=1e-5)
    assert float(g["final_lr_lr20"]) < 20.0                       # the halving branch was exercised


def test_rcsls_improves_on_procrustes_loss_and_spectral_clips(problem):
    Xs, Zt, src, tgt, _ = problem
    U, _, Vt = np.linalg.svd(Xs[src].T @ Zt[tgt], full_matrices=False)
    f_init = rcsls_loss(U @ Vt, Xs, Zt, src, tgt, csls_knn=3)[0]
    W = rcsls(Xs, Zt, src, tgt, csls_knn=3, n_epochs=30)
    assert W.shape == (5, 7) and W.dtype == np.float32
    assert rcsls_loss(W, Xs, Zt, src, tgt, csls_knn=3)[0] < f_init
    Ws = rcsls(Xs, Zt, src, tgt, csls_knn=3, n_epochs=30, spectral=True)
    assert np.linalg.svd(Ws, compute_uv=False).max() <= 1 + 1e-5
    a = rcsls(Xs, Zt, src, tgt, csls_knn=3, batch_size=10, random_state=4)
    b = rcsls(Xs, Zt, src, tgt, csls_knn=3, batch_size=10, random_state=4)
    np.testing.assert_array_equal(a, b)


def test_bad_input_raises_clear_errors(problem):
    Xs, Zt, src, tgt, W = problem
    with pytest.raises(ValueError, match="src_idx and tgt_idx must pair up"):
        rcsls(Xs, Zt, src, tgt[:-1])
    with pytest.raises(ValueError, match="tgt_idx holds row 90, outside the 90 rows"):
        rcsls(Xs, Zt, src, np.r_[tgt[:-1], 90])
    with pytest.raises(ValueError, match="csls_knn=100 exceeds"):
        rcsls(Xs, Zt, src, tgt, csls_knn=100)
    with pytest.raises(ValueError, match="init must have shape"):
        rcsls(Xs, Zt, src, tgt, init=np.eye(5))
    with pytest.raises(ValueError, match="W must have shape"):
        rcsls_loss(np.eye(5), Xs, Zt, src, tgt)
    bad = Xs.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        rcsls(bad, Zt, src, tgt)
    with pytest.raises(TypeError, match="NumPy array"):
        rcsls(Xs.tolist(), Zt, src, tgt)


def test_non_finite_init_or_map_raises_a_clear_error(problem):
    Xs, Zt, src, tgt, W = problem
    bad = W.copy()
    bad[2, 4] = np.inf
    with pytest.raises(ValueError, match=r"init holds NaN or inf \(first at row 2\)"):
        rcsls(Xs, Zt, src, tgt, init=bad)
    bad[2, 4] = np.nan
    with pytest.raises(ValueError, match="W holds NaN or inf"):
        rcsls_loss(bad, Xs, Zt, src, tgt)
    with pytest.raises(ValueError, match=r"diverged: the map holds NaN or inf \(in float32\) after iteration 0"):
        rcsls(Xs, Zt, src, tgt, lr=1e308)                 # lr·grad overflows


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_score_blocks_stay_under_the_memory_budget(dtype):
    """tracemalloc (NumPy reports its buffers to it): one block's scores in their real itemsize
    plus the gathered k × d neighbour rows fit ``memory_budget``; only the n × d output is extra."""
    from embgeo.crosslingual.rcsls import _knn_terms

    rng = np.random.default_rng(1)
    m, d, n, k, budget = 4000, 32, 64, 10, 256 * 1024
    cands = rng.standard_normal((m, d)).astype(dtype)
    Q = rng.standard_normal((n, d)).astype(dtype)
    # compile every kernel the call takes outside the trace (a cold Numba cache compiles inside a
    # call on a smaller input that misses the multi-block paths, and compiling allocates)
    _knn_terms(Q, cands, k, budget)
    with traced_memory() as trace:
        _, S = _knn_terms(Q, cands, k, budget)
        peak = trace.peak
    assert budget // 2 < peak - S.nbytes <= budget           # blocks are used, and the budget holds
