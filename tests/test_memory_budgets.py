"""Issue 38, item 12: a small ``memory_budget`` holds over a 400k-word vocabulary.

Exact search (``neighbors.topk``, ``Embeddings.neighbors``), ``diagnostics.hubness`` and
``diagnostics.isotropy`` over a random 400,000 × 50 float32 matrix (GloVe 6B 50d's shape), with
budgets of 64 KiB and 1 MiB: the peak of what they allocate (tracemalloc) stays within

    memory_budget + the outputs + the O(n) row statistics their docstrings state + FIXED

where FIXED covers a call's constant costs (Python objects, a block of queries, Numba's and
NumPy's small buffers). The tests' conftest lifts :data:`embgeo.blocking.MIN_MEMORY_BUDGET`
(4 MiB, to which a user's smaller budget is raised with a warning), so the small budgets are
the ones the methods run under.
"""
from __future__ import annotations

import numpy as np
import pytest

import embgeo
from conftest import traced_memory
from embgeo import backend as xb
from embgeo import neighbors
from embgeo.diagnostics import hubness, isotropy

N, DIM, K = 400_000, 50, 10
FIXED = 256 * 2**10
BUDGETS = [64 * 2**10, 2**20]


@pytest.fixture(scope="module")
def space():
    X = np.random.default_rng(38).standard_normal((N, DIM)).astype(np.float32)
    e = embgeo.Embeddings([f"w{i}" for i in range(N)], X)
    # compile the kernels outside the measurements (Numba's allocations are not the calls')
    neighbors.topk(X[:4], X[:2000], 3)
    hubness(X[:300], k=3, queries=np.arange(4))
    return X, e


def _peak(fn):
    with traced_memory() as trace:
        out = fn()
        return trace.peak, out


def _search_statistics(n):
    """The O(n) row statistics of an exact cosine search over n rows: the inverse norms (float32)
    and the screening bounds of the tiles (one float64 per tile of at least 16 columns)."""
    return 4 * n + 8 * n // 16


@pytest.mark.parametrize("budget", BUDGETS)
def test_topk_over_400k_rows_holds_the_budget(space, budget):
    X, _ = space
    Q = X[:16].copy()
    peak, (s, i) = _peak(lambda: neighbors.topk(Q, X, K, memory_budget=budget))
    outputs = s.nbytes + i.nbytes
    assert peak <= budget + outputs + _search_statistics(N) + FIXED, \
        f"peak {peak / 2**10:.0f} KiB for a budget of {budget / 2**10:.0f} KiB"


@pytest.mark.parametrize("budget", BUDGETS)
def test_embeddings_search_over_400k_words_holds_the_budget(space, budget):
    X, _ = space
    # a fresh object, so that its inverse norms (cached with it) are computed under the budget
    e = embgeo.Embeddings([f"w{i}" for i in range(N)], X)
    words = [f"w{i}" for i in range(0, 16 * 997, 997)]
    peak, (s, i) = _peak(lambda: e.neighbors(words, K, memory_budget=budget))
    assert peak <= budget + s.nbytes + i.nbytes + _search_statistics(N) + FIXED, \
        f"peak {peak / 2**10:.0f} KiB for a budget of {budget / 2**10:.0f} KiB"


@pytest.mark.parametrize("budget", BUDGETS)
def test_hubness_over_400k_words_holds_the_budget(space, budget):
    """N_k is counted over all 400k candidates (k-occurrence: n int64, the output); the queries
    are a sample, as a self-join of 400k words takes minutes."""
    _, e = space
    queries = np.arange(0, N, N // 64)
    peak, h = _peak(lambda: hubness(e, k=K, queries=queries, memory_budget=budget))
    outputs = h.k_occurrence.nbytes
    measures = 8 * N + N  # one float64 deviation per row and a boolean mask, for the summary measures
    assert h.k_occurrence.sum() == K * queries.size
    assert peak <= budget + outputs + max(measures, _search_statistics(N)) + FIXED, \
        f"peak {peak / 2**10:.0f} KiB for a budget of {budget / 2**10:.0f} KiB"


@pytest.mark.parametrize("budget", BUDGETS)
def test_isotropy_over_400k_words_holds_the_budget(space, budget):
    """No n-sized statistic at all: the budget, d × d matrices and a fixed overhead."""
    X, _ = space
    # the peak has no n-sized part, so fewer rows show the same: at 64 KiB (blocks of ~20 rows) all
    # 400k rows took 18.7 s on a loaded 2-core machine, 50k rows 2 s
    rows = N if budget >= 2**20 else N // 8
    # one BLAS thread: threaded GEMMs of a few hundred rows were 7x slower on a loaded 2-core machine
    with xb.single_blas_thread():
        peak, r = _peak(lambda: isotropy(X[:rows], memory_budget=budget))
    assert r.n == rows
    assert peak <= budget + FIXED, f"peak {peak / 2**10:.0f} KiB for a budget of {budget / 2**10:.0f} KiB"
