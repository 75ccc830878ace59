"""The CUDA kernels and the GPU engine give the CPU engine's lists and scores.

Where CuPy and a GPU are present the tests run on the hardware (CuPy arrays and NumPy arrays with
``backend="cuda"``); elsewhere under Numba's CUDA simulator (tests/conftest.py sets
``NUMBA_ENABLE_CUDASIM=1`` before numba.cuda is imported), where every thread is a Python thread:
shapes are tiny there. ``benchmarks/gpu.py`` runs this file on a GPU.
"""
from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

import embgeo
from embgeo import neighbors as nb
from embgeo.backend import to_numpy
from embgeo.normalize import normalize

pytest.importorskip("numba_cuda")
SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
if not SIMULATED:
    cupy = pytest.importorskip("cupy")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError:  # pragma: no cover - CuPy without a GPU
        pytest.skip("no GPU visible", allow_module_level=True)
    from embgeo.kernels import cuda as KC
else:
    cupy = None
    from embgeo.kernels import cuda as KC

from embgeo.neighbors import _cuda  # noqa: E402

# (queries, rows, dim): tiny under the simulator, several rounds of real thread blocks on a GPU
SHAPE = (5, 40, 6) if SIMULATED else (300, 20_000, 24)


def tied_data(seed=0):
    """Small-integer vectors (many exact ties), with duplicated rows and a query equal to a row."""
    nq, n, d = SHAPE
    rng = np.random.default_rng(seed)
    D = rng.integers(-2, 3, (n, d)).astype(np.float32)
    D[7] = D[3]
    D[n - 1] = D[3]  # a tie with the last row of the narrow last tile
    Q = rng.integers(-2, 3, (nq, d)).astype(np.float32)
    Q[0] = D[3]
    return Q, D


def exclusions(nq, n):
    ex = [[3], [], [0, 1, 2], [n - 1], [7, 3, n - 1]]
    return [ex[i % len(ex)] for i in range(nq)]


def assert_same(a, b):
    for x, y in zip(a, b):
        np.testing.assert_array_equal(to_numpy(x), to_numpy(y))


@pytest.mark.parametrize("metric", ["cosine", "dot"])
def test_topk_equals_the_cpu_engine_with_ties_exclusions_narrow_tiles(metric, monkeypatch):
    Q, D = tied_data()
    nq, n, d = Q.shape[0], D.shape[0], D.shape[1]
    ex = exclusions(nq, n)
    k = 20 if SIMULATED else 50
    ref = nb.topk(Q, D, k, metric=metric, exclude=ex)
    # tiles narrower than k, the last one narrower still
    monkeypatch.setattr(_cuda, "_MAX_COLS", k - 3)
    chunk, rows, cols = _cuda._shape(nq, n, d, k, 4, 2**28, False)
    assert cols == k - 3 and n % cols != 0
    got = nb.topk(Q, D, k, metric=metric, exclude=ex, backend="cuda")
    assert isinstance(got[0], np.ndarray)
    assert_same(got, ref)
    monkeypatch.setattr(_cuda, "_MAX_COLS", None)
    assert_same(nb.topk(Q, D, 4, metric=metric, backend="cuda"), nb.topk(Q, D, 4, metric=metric))


def test_a_small_memory_budget_gives_chunks_blocks_and_tiles_with_the_same_lists(monkeypatch):
    Q, D = tied_data(10)
    nq, n, d = Q.shape[0], D.shape[0], D.shape[1]
    # heaps of a few queries at a time (chunks), blocks, tiles (the simulator's 40 rows fit any tile: narrowed)
    k, budget = (8, 1300) if SIMULATED else (200, 2_000_000)
    if SIMULATED:
        monkeypatch.setattr(_cuda, "_MAX_COLS", 13)
    chunk, rows, cols = _cuda._shape(nq, n, d, k, 4, budget, False)
    assert chunk < nq and cols < n, (chunk, rows, cols)
    assert_same(nb.topk(Q, D, k, exclude=exclusions(nq, n), backend="cuda", memory_budget=budget),
                nb.topk(Q, D, k, exclude=exclusions(nq, n)))


def test_tie_order_goes_to_the_lower_row():
    # every row scores the same: the lists must be rows 0, 1, 2, ... whatever the tiling
    D = np.ones((37, 4), dtype=np.float32)
    Q = np.ones((2, 4), dtype=np.float32)
    s, i = nb.topk(Q, D, 9, backend="cuda", memory_budget=2_000)
    assert to_numpy(i).tolist() == [list(range(9))] * 2


def test_float64_equals_the_cpu_engine():
    Q, D = tied_data(1)
    Q, D = Q.astype(np.float64) / 3, D.astype(np.float64) / 7
    assert_same(nb.topk(Q, D, 5, backend="cuda"), nb.topk(Q, D, 5))


def test_csls_and_r_terms_equal_the_cpu_engine():
    Q, D = tied_data(2)
    Q = Q + np.float32(0.25)  # fewer exact ties: CSLS sums r terms
    S = D[: D.shape[0] // 2] * np.float32(0.5) + np.float32(0.1)
    assert_same(nb.csls_topk(Q, D, 4, csls_knn=3, source=S, exclude=exclusions(Q.shape[0], D.shape[0]),
                             backend="cuda"),
                nb.csls_topk(Q, D, 4, csls_knn=3, source=S, exclude=exclusions(Q.shape[0], D.shape[0])))
    np.testing.assert_array_equal(nb.knn_mean_similarity(Q, D, 3, backend="cuda"), nb.knn_mean_similarity(Q, D, 3))


def test_self_topk_and_word_search_equal_the_cpu_engine():
    Q, D = tied_data(3)
    X = D[:16] + np.float32(0.125) * np.arange(D.shape[1], dtype=np.float32)
    assert_same(nb.self_topk(X, 3, backend="cuda"), nb.self_topk(X, 3))
    e = embgeo.Embeddings([f"w{i}" for i in range(len(X))], X)
    words = ["w0", "w5", "w15"]
    assert_same(e.neighbors(words, 4, backend="cuda"), e.neighbors(words, 4))
    assert_same(e.neighbors(words, 4, metric="csls", backend="cuda"), e.neighbors(words, 4, metric="csls"))


def test_certified_rescoring_prunes_pairs():
    rng = np.random.default_rng(4)
    nq, n, d = SHAPE
    D = rng.standard_normal((n, d)).astype(np.float32)
    Q = rng.standard_normal((nq, d)).astype(np.float32)
    stats = {}
    from embgeo.linalg import inverse_norms

    s, i = _cuda.screened_topk(Q, D, 3, None, inverse_norms(Q), inverse_norms(D), stats=stats)
    assert_same((s, i), nb.topk(Q, D, 3))
    assert 0 < stats["survivors"] < stats["pairs"]


@pytest.mark.parametrize("steps", [("unit",), ("center",), ("unitdim",), ("centeremb",),
                                   ("unit", "center", "unit"), ("none",)])
def test_normalisation_kernels_equal_normalize(steps):
    rng = np.random.default_rng(5)
    X = (rng.standard_normal((9, 7) if SIMULATED else (5000, 300)) * 3 + 1).astype(np.float32)
    X[4] = 0.0
    Y = normalize(X, *steps, backend="cuda")
    assert isinstance(Y, np.ndarray) and Y.dtype == X.dtype
    np.testing.assert_allclose(Y, normalize(X, *steps), rtol=2e-7, atol=2e-7)
    if steps == ("unit",):
        assert not Y[4].any()


def test_device_out_of_memory_is_a_clear_error(monkeypatch):
    class OutOfMemoryError(Exception):  # CuPy's name for it
        pass

    def oom(*args):
        raise OutOfMemoryError("out of memory allocating 1 GiB")

    monkeypatch.setattr(_cuda, "_search", oom)
    Q, D = tied_data()
    with pytest.raises(MemoryError, match="memory_budget=1000 bytes"):
        nb.topk(Q, D, 2, backend="cuda", memory_budget=1000)


def test_unknown_backends_are_named():
    Q, D = tied_data()
    with pytest.raises(ValueError, match="'cuda'"):
        nb.topk(Q, D, 2, backend="gpu")
    with pytest.raises(ValueError, match="'cuda'"):
        nb.self_topk(D, 2, backend="gpu")
    with pytest.raises(ValueError, match="'cuda'"):
        normalize(D, "unit", backend="gpu")


@pytest.mark.skipif(cupy is None, reason="CuPy arrays need a GPU")
def test_cupy_inputs_take_the_gpu_engine_and_stay_on_the_device():  # pragma: no cover - GPU only
    Q, D = tied_data(6)
    Qd, Dd = cupy.asarray(Q), cupy.asarray(D)
    s, i = nb.topk(Qd, Dd, 10, exclude=exclusions(len(Q), len(D)))
    assert isinstance(s, cupy.ndarray) and isinstance(i, cupy.ndarray)
    ref = nb.topk(Q, D, 10, exclude=exclusions(len(Q), len(D)))
    np.testing.assert_array_equal(i.get(), ref[1])
    np.testing.assert_allclose(s.get(), ref[0], atol=1e-6)  # CuPy's inverse norms may differ in an ulp
    e = embgeo.Embeddings([f"w{i}" for i in range(len(D))], D).to("cuda")
    si, ii = e.neighbors(["w3", "w10"], 5)
    assert isinstance(ii, cupy.ndarray)
    Y = normalize(Dd, "unit", "center", "unit")
    assert isinstance(Y, cupy.ndarray)
    np.testing.assert_allclose(Y.get(), normalize(D, "unit", "center", "unit"), atol=1e-6)


@pytest.mark.skipif(cupy is None, reason="CuPy arrays need a GPU")
def test_numpy_and_cupy_mixed_is_an_error_naming_the_arguments():  # pragma: no cover - GPU only
    Q, D = tied_data()
    with pytest.raises(TypeError, match="queries is NumPy but database is CuPy"):
        nb.topk(Q, cupy.asarray(D), 2)


def test_kernels_module_is_not_imported_by_embgeo():
    import subprocess
    import sys

    code = "import sys, embgeo, embgeo.neighbors, embgeo.normalize; print('numba.cuda' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert importlib.util.find_spec("embgeo.kernels.cuda") is not None
    assert KC.THREADS >= 1


def test_the_cut_keeps_a_pair_whose_plain_score_errs_within_the_margin():
    # column 1's canonical score (1 + 2^-23) beats column 0's (1), but its plain score is stated
    # 1.5 ulp low, below column 0's, as a GEMM's rounding may do: only the margin lets it through
    from embgeo.neighbors._screening import plain_margin

    lib = np if cupy is None else cupy
    d = 6
    m = KC.THREADS * KC.ITEMS + 1  # the last column comes in a later round than column 0
    D = np.zeros((m, d), dtype=np.float32)
    D[0, 0], D[m - 1, 0] = 1.0, np.float32(1 + 2.0 ** -23)
    U = np.zeros((1, d))
    U[0, 0] = 1.0
    S = np.zeros((1, m), dtype=np.float32)
    S[0, 0], S[0, m - 1] = 1.0, 1 - 2.0 ** -24
    margin = np.array([plain_margin(d, np.float32) * 1.01])
    assert margin[0] > 2.0 ** -23 + 2.0 ** -24
    hv, hi = lib.full((1, 1), -np.inf, dtype=np.float32), lib.full((1, 1), 2**62, dtype=np.int64)
    one = lib.zeros(1, dtype=np.float32)
    none = lib.zeros(1, dtype=np.int64)
    counts = lib.zeros(1, dtype=np.int64)
    KC.screen_tile[1, KC.THREADS](lib.asarray(S), 0, lib.asarray(D), lib.asarray(U), one, False, one, False, 1.0,
                                  hv, hi, 0, none, none, False, lib.asarray(margin), 2.0 ** -50, True, counts)
    assert int(to_numpy(hi)[0, 0]) == m - 1 and float(to_numpy(hv)[0, 0]) == np.float32(1 + 2.0 ** -23)


def test_faiss_on_the_gpu_needs_faiss_with_gpu_support():
    faiss = pytest.importorskip("faiss")
    from embgeo.neighbors.faiss_index import FaissIndex

    index = FaissIndex(4)
    if hasattr(faiss, "StandardGpuResources"):  # pragma: no cover - faiss-gpu
        index.add(np.eye(4, dtype=np.float32))
        assert index.to_gpu().search(np.eye(4, dtype=np.float32)[:1], 1)[1].tolist() == [[0]]
    else:
        with pytest.raises(ImportError, match="faiss-gpu"):
            index.to_gpu()
    with pytest.raises((ImportError, ValueError), match="faiss-gpu|HNSW"):
        FaissIndex(4, kind="hnsw").to_gpu()


@pytest.mark.parametrize("thr", [256, 128, 20])
def test_dropout_argmax_kernel_equals_the_cpu_kernel(thr):
    from embgeo.kernels.crosslingual import dropout_argmax

    lib = np if cupy is None else cupy
    rng = np.random.default_rng(7)
    shape = (6, 37) if SIMULATED else (500, 3000)
    S = (rng.integers(-3, 4, shape) / 4).astype(np.float32)  # many ties
    r = (rng.integers(0, 3, shape[1]) / 8).astype(np.float32)
    b1, m1 = np.empty(shape[0], np.int64), np.empty(shape[0])
    dropout_argmax(S.copy(), r, thr, np.uint64(12345678901234), 5, b1, m1)
    b2, m2 = lib.empty(shape[0], dtype=np.int64), lib.empty(shape[0])
    KC.dropout_argmax[shape[0], KC.THREADS](lib.asarray(S), lib.asarray(r), True, thr, np.uint64(12345678901234), 5,
                                            b2, m2)
    np.testing.assert_array_equal(to_numpy(b2), b1)
    np.testing.assert_array_equal(to_numpy(m2), m1)


@pytest.mark.parametrize("retrieval, keep_prob", [("nn", 1.0), ("nn", 0.5), ("csls", 0.7)])
def test_gpu_dictionary_induction_equals_the_cpu_one(retrieval, keep_prob):
    from embgeo.crosslingual import _induction

    rng = np.random.default_rng(8)
    n = (9, 11) if SIMULATED else (400, 500)
    X = normalize(rng.standard_normal((n[0], 8)).astype(np.float32), "unit")
    Z = normalize(rng.standard_normal((n[1], 8)).astype(np.float32), "unit")
    knn = 3 if retrieval == "csls" else 0
    got = _induction._cuda_induction(X, Z, True, True, knn, keep_prob, np.random.default_rng(1), None)
    if retrieval == "nn":  # same scores (float32 GEMM) and masks: the fused CPU path's choices
        ref = _induction._fused_induction(X, Z, True, True, 0, keep_prob, np.random.default_rng(1), None)
    else:  # CSLS: the r terms of knn_mean_similarity, the CPU kernel on the same score rows
        from embgeo.kernels.crosslingual import dropout_argmax

        seeds = np.random.default_rng(1).integers(0, 2**63, size=2)
        ref = []
        for A, B, seed in ((X, Z, seeds[0]), (Z, X, seeds[1])):
            r = (nb.knn_mean_similarity(B, A, 3, metric="dot") / 2).astype(np.float32)
            best, sims = np.empty(len(A), np.int64), np.empty(len(A))
            dropout_argmax(np.ascontiguousarray(A @ B.T), r, int(round(keep_prob * 256)), np.uint64(seed), 0,
                           best, sims)
            ref += [best, sims]
    if SIMULATED:  # NumPy's GEMM on both sides: the same scores, so the same choices
        for a, b in zip(got, ref):
            np.testing.assert_array_equal(a, b)
        return
    # cuBLAS and the CPU's BLAS round differently: near-ties may go either way
    for a, b in zip(got[0::2], ref[0::2]):
        assert np.mean(a == b) > 0.97
    for a, b in zip(got[1::2], ref[1::2]):
        np.testing.assert_allclose(a, b, atol=1e-6)


@pytest.mark.skipif(cupy is None, reason="CuPy arrays need a GPU")
def test_mapper_self_learning_runs_on_cupy_embeddings():  # pragma: no cover - GPU only
    from embgeo.crosslingual import Induction, Mapper

    rng = np.random.default_rng(9)
    X = rng.standard_normal((400, 12)).astype(np.float32)
    R, _ = np.linalg.qr(rng.standard_normal((12, 12)))
    Z = (X @ R + 0.05 * rng.standard_normal((400, 12))).astype(np.float32)
    src = embgeo.Embeddings([f"s{i}" for i in range(400)], X)
    tgt = embgeo.Embeddings([f"t{i}" for i in range(400)], Z)
    seed = [(f"s{i}", f"t{i}") for i in range(40)]
    opts = dict(self_learning=True, induction=Induction(retrieval="csls", csls_knn=10), max_iter=4)
    accuracy = []
    for s, t in ((src, tgt), (src.to("cuda"), tgt.to("cuda"))):
        xs, zt = Mapper(**opts).fit_transform(s, t, seed)
        _, idx = nb.topk(xs.vectors, zt.vectors, 1)
        accuracy.append(float((to_numpy(idx)[:, 0] == np.arange(400)).mean()))
    assert accuracy[1] >= accuracy[0] - 0.05, accuracy


def test_conditioned_logit_kernel_equals_the_cpu_kernel_bit_for_bit():
    from embgeo.fuzzy import LOG_TINY
    from embgeo.kernels import readonly
    from embgeo.kernels.fuzzy import conditioned_logit

    lib = np if cupy is None else cupy
    rng = np.random.default_rng(3)
    n, d = (9, 5) if SIMULATED else (5000, 300)
    P = rng.random((n, d)).astype(np.float32)
    P[1, 2], P[2, 0], P[3] = 0.0, 1.0, 1 - 1e-7  # ln 0, a membership of 1, a product that underflows
    centre, inv = rng.standard_normal(d + 1), rng.random(d + 1) + 0.5
    want = np.empty((n, d + 1), np.float32)
    conditioned_logit(readonly(P), LOG_TINY, centre, inv, want)  # as the library calls it: one specialization
    got = lib.empty((n, d + 1), dtype=np.float32)
    KC.launch_threads(KC.conditioned_logit_rows, n, lib.asarray(P), LOG_TINY, lib.asarray(centre), lib.asarray(inv),
                      got)
    np.testing.assert_array_equal(to_numpy(got), want)


@pytest.mark.parametrize("measure, reverse", [("cross_entropy", False), ("kl", True), ("categorical_kl", False)])
def test_fuzzy_search_on_the_gpu_engine_equals_the_cpu_lists(measure, reverse):
    from embgeo import fuzzy

    rng = np.random.default_rng(4)
    n, d = (50, 6) if SIMULATED else (20_000, 50)
    e = embgeo.Embeddings([f"w{i}" for i in range(n)], rng.standard_normal((n, d)).astype(np.float32))
    F = fuzzy.FuzzyEmbeddings.from_embeddings(e)
    queries, budget = ["w1", "w2", f"w{n - 1}"], 4096 if SIMULATED else 2**20  # several candidate blocks
    for precompute in (False, True):
        want = F.neighbors(queries, k=5, measure=measure, reverse=reverse, exclude=["w0"], precompute=precompute,
                           memory_budget=budget)
        got = F.neighbors(queries, k=5, measure=measure, reverse=reverse, exclude=["w0"], precompute=precompute,
                          memory_budget=budget, backend="cuda")
        assert_same(got, want)
    with pytest.raises(ValueError, match="backend='cuda' searches the measures that are one product"):
        F.neighbors(["w1"], k=3, measure="jaccard", backend="cuda")
