"""Exact top-k on codes: Hamming over packed bits (= FAISS IndexBinaryFlat), int8 dot products, CUDA twins.

The CUDA tests run under Numba's CUDA simulator where there is no GPU (tests/conftest.py sets
``NUMBA_ENABLE_CUDASIM=1``), on tiny shapes, against the CPU lists.
"""
from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

from embgeo import neighbors as nb
from embgeo.backend import to_numpy


def brute(S, k, smallest):
    """Top-k of a full integer score matrix, ties to the lower column (a stable sort)."""
    order = np.argsort(S if smallest else -S, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(S, order, 1), order


def hamming_matrix(Q, X):
    return (np.unpackbits(Q, axis=1)[:, None, :] != np.unpackbits(X, axis=1)[None]).sum(-1)


def packed(n, nbytes, seed=0, nq=12):
    """Random packed bits with duplicated rows (exact ties) and a query equal to a row."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 256, (n, nbytes), dtype=np.uint8)
    X[7] = X[3]
    X[n - 1] = X[3]
    Q = rng.integers(0, 256, (nq, nbytes), dtype=np.uint8)
    Q[0] = X[3]
    return Q, X


@pytest.mark.parametrize("nbytes", [32, 7])  # whole 64-bit words, and padded rows
def test_hamming_topk_is_the_brute_force_list_with_ties_to_the_lower_row(nbytes):
    Q, X = packed(3000, nbytes)
    d, i = nb.topk(Q, X, 10, metric="hamming")
    ref_d, ref_i = brute(hamming_matrix(Q, X), 10, smallest=True)
    assert d.dtype == np.int32 and i.dtype == np.int64
    np.testing.assert_array_equal(i, ref_i)
    np.testing.assert_array_equal(d, ref_d)
    assert i[0, :3].tolist() == [3, 7, 2999]  # three rows at distance 0: lowest first


@pytest.mark.parametrize("nbytes", [32, 48])
def test_hamming_topk_over_many_query_chunks_is_the_brute_force_list(nbytes):
    """Enough queries for chunks of the longest length and a shorter last one, in every thread."""
    Q, X = packed(1500, nbytes, seed=4, nq=521)
    d, i = nb.topk(Q, X, 7, metric="hamming")
    ref_d, ref_i = brute(hamming_matrix(Q, X), 7, smallest=True)
    np.testing.assert_array_equal(i, ref_i)
    np.testing.assert_array_equal(d, ref_d)


def test_hamming_topk_equals_faiss_index_binary_flat():
    faiss = pytest.importorskip("faiss")
    Q, X = packed(5000, 32, seed=1, nq=50)
    index = faiss.IndexBinaryFlat(256)
    index.add(X)
    fd, fi = index.search(Q, 10)
    d, i = nb.topk(Q, X, 10, metric="hamming")
    # IndexBinaryFlat also returns equal distances by the lower row (checked here on exact duplicates)
    np.testing.assert_array_equal(d, fd)
    np.testing.assert_array_equal(i, fi)


@pytest.mark.parametrize("nbytes", [7, 32])  # the generic loop, and the unrolled 256-bit one
def test_hamming_topk_does_not_depend_on_the_memory_budget_and_honours_exclude(nbytes):
    Q, X = packed(40_000, nbytes, seed=2, nq=3)
    whole = nb.topk(Q, X, 5, metric="hamming", exclude=[[3, 7], [], 5])
    # (tests lift the budget floor, conftest.blocks_of_any_size): tiles of 64 rows
    blocked = nb.topk(Q, X, 5, metric="hamming", exclude=[[3, 7], [], 5], memory_budget=1)
    for a, b in zip(whole, blocked):
        np.testing.assert_array_equal(a, b)
    assert 3 not in whole[1][0] and 7 not in whole[1][0] and 39999 in whole[1][0]
    S = hamming_matrix(Q, X)
    S[0, [3, 7]] = S[2, 5] = 10**6
    np.testing.assert_array_equal(whole[1], brute(S, 5, smallest=True)[1])


def int8_data(n=4000, d=50, nq=20, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(-128, 128, (n, d), dtype=np.int8)
    X[9] = X[4]
    Q = rng.integers(-128, 128, (nq, d), dtype=np.int8)
    return Q, X


def test_int8_dot_topk_is_the_exact_integer_list():
    Q, X = int8_data()
    s, i = nb.topk(Q, X, 10, metric="dot", exclude=np.arange(Q.shape[0]))
    S = Q.astype(np.int64) @ X.T.astype(np.int64)
    S[np.arange(Q.shape[0]), np.arange(Q.shape[0])] = -10**9
    ref_s, ref_i = brute(S, 10, smallest=False)
    assert s.dtype == np.int32
    np.testing.assert_array_equal(i, ref_i)
    np.testing.assert_array_equal(s, ref_s)


def test_int8_dot_topk_is_exact_beyond_float32_integers_and_across_database_blocks():
    # d = 1100: sums pass 2**24, so the GEMM runs in float64; a 2 MB budget splits the rows into 27 blocks
    Q, X = int8_data(n=3000, d=1100, nq=4)
    X[:, :] = -128
    X[5::7] = 127  # huge equal scores: ties to the lower row across blocks
    Q[:] = -128
    s, i = nb.topk(Q, X, 6, metric="dot", memory_budget=2_000_000)
    ref_s, ref_i = brute(Q.astype(np.int64) @ X.T.astype(np.int64), 6, smallest=False)
    np.testing.assert_array_equal(s, ref_s)
    np.testing.assert_array_equal(i, ref_i)
    assert int(s[0, 0]) == 1100 * 128 * 128 > 2**24


@pytest.mark.parametrize("database, queries, metric, message", [
    (np.zeros((5, 8), np.float32), np.zeros((1, 8), np.float32), "hamming", "binarise by sign"),
    (np.zeros((5, 64), bool), np.zeros((1, 64), bool), "hamming", "np.packbits"),
    (np.zeros((5, 8), np.int8), np.zeros((1, 8), np.int8), "hamming", "ubinary"),
    (np.zeros((5, 8), np.uint8), np.zeros((1, 8), np.uint8), "dot", "metric='hamming'"),
    (np.zeros((5, 8), np.int8), np.zeros((1, 8), np.int8), "cosine", "metric='dot'"),
    (np.zeros((5, 8), np.uint8), np.zeros((1, 8), np.float32), "hamming", "quantise the queries"),
    (np.zeros((5, 8), np.uint8), np.zeros((1, 4), np.uint8), "hamming", "4 bytes of packed bits per row"),
    (np.zeros(8, np.uint8), np.zeros((1, 8), np.uint8), "hamming", "2-D"),
])
def test_codes_of_the_wrong_kind_get_an_error_naming_it(database, queries, metric, message):
    with pytest.raises(ValueError, match=message):
        nb.topk(queries, database, 1, metric=metric)


def test_code_search_refuses_the_dask_engine():
    with pytest.raises(ValueError, match="'exact' or 'cuda'"):
        nb.topk(np.zeros((1, 4), np.uint8), np.zeros((5, 4), np.uint8), 1, metric="hamming", backend="dask")


# ------------------------------------------------------------------------------------------- CUDA engine
def cuda_engine_present() -> bool:
    """numba-cuda under the simulator, or with CuPy and a visible GPU (where the kernels run for real)."""
    if importlib.util.find_spec("numba_cuda") is None:
        return False
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return True
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, or CuPy without a GPU
        return False


needs_cuda = pytest.mark.skipif(not cuda_engine_present(), reason="needs numba-cuda (simulator) or a GPU with CuPy")


@needs_cuda
@pytest.mark.parametrize("nbytes", [8, 3])  # 32-bit words, and bytes
def test_cuda_hamming_lists_equal_the_cpu_lists(nbytes):
    Q, X = packed(40, nbytes, seed=4, nq=5)
    ex = [[3], [], [0, 1], [39], []]
    cpu = nb.topk(Q, X, 4, metric="hamming", exclude=ex)
    gpu = nb.topk(Q, X, 4, metric="hamming", exclude=ex, backend="cuda")
    for a, b in zip(cpu, gpu):
        np.testing.assert_array_equal(a, to_numpy(b))


@needs_cuda
def test_cuda_int8_dot_lists_equal_the_cpu_lists():
    Q, X = int8_data(n=40, d=6, nq=5, seed=5)
    X[11] = X[4]
    cpu = nb.topk(Q, X, 4, metric="dot", exclude=[[4], [], [], [], []])
    gpu = nb.topk(Q, X, 4, metric="dot", exclude=[[4], [], [], [], []], backend="cuda")
    for a, b in zip(cpu, gpu):
        np.testing.assert_array_equal(a, to_numpy(b))


# ------------------------------------------------------------------------ the fused int8 kernel's edges
def int8_brute(Q, X, k, exclude=None):
    """The exact integer list: int32 dot products, excluded pairs last, a stable sort by (-score, row)."""
    S = Q.astype(np.int32) @ X.T.astype(np.int32)
    S = S.astype(np.int64)
    for r, rows in enumerate(exclude or []):
        S[r, rows] = -2**40
    return brute(S, k, smallest=False)


@pytest.mark.parametrize("d", [1, 2, 3, 17, 50, 64])  # odd widths are padded with a zero dimension
def test_int8_kernel_is_the_brute_force_list_for_any_width_with_ties(d):
    # 1001 rows and 13 queries: neither whole blocks of 16 rows nor whole query tiles; duplicated rows tie
    rng = np.random.default_rng(d)
    X = rng.integers(-128, 128, (1001, d), dtype=np.int8)
    X[500] = X[20]
    X[1000] = X[20]
    Q = rng.integers(-128, 128, (13, d), dtype=np.int8)
    Q[0] = X[20]
    s, i = nb.topk(Q, X, 7, metric="dot")
    ref_s, ref_i = int8_brute(Q, X, 7)
    np.testing.assert_array_equal(i, ref_i)
    np.testing.assert_array_equal(s, ref_s)
    if d >= 17:  # (narrower rows tie in many places, all checked above)
        assert i[0, :3].tolist() == [20, 500, 1000]  # three equal best scores: the lower rows first


def test_int8_kernel_breaks_ties_within_a_block_and_between_blocks_to_the_lower_row():
    # every row scores the same: the list is rows 0..k-1 whatever the blocking (d = 1: the smallest width)
    X = np.full((100, 1), 3, dtype=np.int8)
    Q = np.full((2, 1), -2, dtype=np.int8)
    s, i = nb.topk(Q, X, 20, metric="dot")
    assert i.tolist() == [list(range(20))] * 2
    assert (s == -6).all()


def test_int8_kernel_honours_exclusions_and_takes_k_up_to_the_rows_left():
    Q, X = int8_data(n=37, d=9, nq=3, seed=6)
    ex = [[4, 9, 36], [], list(range(0, 37, 2))]
    # k = 18: the third query has 18 rows left, so its list is every odd row
    s, i = nb.topk(Q, X, 18, metric="dot", exclude=ex)
    ref_s, ref_i = int8_brute(Q, X, 18, ex)
    np.testing.assert_array_equal(i, ref_i)
    np.testing.assert_array_equal(s, ref_s)
    assert sorted(i[2].tolist()) == list(range(1, 37, 2))
    with pytest.raises(ValueError, match="k"):
        nb.topk(Q, X, 19, metric="dot", exclude=ex)
    with pytest.raises(ValueError, match="k"):
        nb.topk(Q, X, 38, metric="dot")


def test_int8_kernel_lists_do_not_depend_on_query_chunks_or_database_steps():
    # 500 queries: several chunks per thread; memory_budget=1: database steps of one cache tile (tests lift the
    # budget floor), so rows and ties meet across steps; the extreme codes give the largest pair sums (2·128²)
    Q, X = int8_data(n=9000, d=33, nq=500, seed=7)
    X[8000] = X[10]
    X[::50] = -128
    Q[::7] = -128
    whole = nb.topk(Q, X, 5, metric="dot", exclude=[[10]] + [[]] * 499)
    stepped = nb.topk(Q, X, 5, metric="dot", exclude=[[10]] + [[]] * 499, memory_budget=1)
    ref_s, ref_i = int8_brute(Q, X, 5, [[10]])
    for got in (whole, stepped):
        np.testing.assert_array_equal(got[1], ref_i)
        np.testing.assert_array_equal(got[0], ref_s)


def test_int8_kernel_compiles_to_vpmaddwd_on_avx2():
    # the kernel's speed rests on LLVM matching its vector IR to vpmaddwd (16 multiply-adds an instruction);
    # a Numba or LLVM upgrade that loses the match would leave a correct but slow kernel
    import platform

    from llvmlite import binding as ll
    from numba import njit

    from embgeo.kernels import topk as KT

    if platform.machine() not in ("x86_64", "AMD64") or not ll.get_host_cpu_features().get("avx2"):
        pytest.skip("vpmaddwd is an x86 AVX2 instruction")
    fresh = njit(parallel=True)(KT.int8_dot_topk.py_func)  # compiled here, not loaded from the cache
    Qp = np.zeros((12, 3), np.int32)
    hv = np.full((7, 3), np.iinfo(np.int32).min, np.int32)
    hi = np.full((7, 3), 2**62, np.int64)
    no = np.zeros(8, np.int64)
    fresh(Qp, 7, np.zeros(3 * KT.I8_ROWS * 2 * 3, np.int8), 40, 0, hv, hi, no, no[:0], 1, 6)
    asm = fresh.inspect_asm(fresh.signatures[0])
    assert "vpmaddwd" in asm and "vpmulld" not in asm
