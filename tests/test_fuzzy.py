"""Fuzzy-set embeddings (Bhat et al. 2020): representation, set algebra, measures, vocabulary search,
analyses. Every property is checked against a direct loop, a closed form or an identity of the paper."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import embgeo
from embgeo import Embeddings, UnknownWordError
from embgeo import fuzzy
from embgeo.fuzzy import FuzzyEmbeddings, FuzzySet

TINY = np.finfo(np.float64).tiny


# ----------------------------------------------------------------- reference loops
def _ln(x):
    return math.log(max(x, TINY))


def loop_entropy(a):
    h = 0.0
    for x in a:
        x = float(x)
        h -= (x * math.log(x) if x > 0 else 0.0) + ((1 - x) * math.log(1 - x) if x < 1 else 0.0)
    return h


def loop_cross_entropy(s, t):
    h = 0.0
    for x, y in zip(s, t):
        x, y = float(x), float(y)
        h -= (x * _ln(y) if x > 0 else 0.0) + ((1 - x) * _ln(1 - y) if x < 1 else 0.0)
    return h


def loop_kl(s, t):
    d = 0.0
    for x, y in zip(s, t):
        x, y = float(x), float(y)
        if x > 0:
            d += x * (_ln(x) - _ln(y))
        if x < 1:
            d += (1 - x) * (_ln(1 - x) - _ln(1 - y))
    return d


def loop_categorical_kl(s, t):
    """The KL divergence as the paper prints it (Sec. 4.4): Σ s ln(s/t), 0·ln 0 = 0."""
    return sum(float(x) * (_ln(float(x)) - _ln(float(y))) for x, y in zip(s, t) if x > 0)


def loop_categorical_cross_entropy(s, t):
    return -sum(float(x) * _ln(float(y)) for x, y in zip(s, t) if x > 0)


def loop_measure(name, s, t):
    s, t = [float(x) for x in s], [float(x) for x in t]
    inter = sum(x * y for x, y in zip(s, t))
    if name == "cross_entropy":
        return -loop_cross_entropy(s, t)
    if name == "kl":
        return -loop_kl(s, t)
    if name == "categorical_kl":
        return -loop_categorical_kl(s, t)
    if name == "categorical_cross_entropy":
        return -loop_categorical_cross_entropy(s, t)
    if name == "symmetric_cross_entropy":
        return -loop_cross_entropy(s, t) - loop_cross_entropy(t, s)
    if name == "symmetric_kl":
        return -loop_kl(s, t) - loop_kl(t, s)
    if name == "jaccard":
        uni = sum(x + y - x * y for x, y in zip(s, t))
        return inter / uni if uni > 0 else 1.0
    if name == "intersection_ratio":
        return inter / sum(s) if sum(s) > 0 else 1.0
    if name == "inclusion":
        return sum(x <= y for x, y in zip(s, t)) / len(s)
    raise AssertionError(name)


def brute_topk(F, query_mu, k, measure, reverse, exclude=(), n=None):
    P = np.asarray(F.memberships, dtype=np.float64)[:n]
    sc = np.array([loop_measure(measure, t, query_mu) if reverse else loop_measure(measure, query_mu, t)
                   for t in P])
    sc[list(exclude)] = -np.inf
    order = np.lexsort((np.arange(len(sc)), -sc))[:k]
    return sc[order], order


@pytest.fixture
def sets(rng):
    """Random memberships with exact 0s and 1s sprinkled in (the 0·ln 0 cases)."""
    A = rng.random((6, 9))
    B = rng.random((6, 9))
    A[0, :3] = 0.0
    A[1, :2] = 1.0
    B[2, :3] = 0.0
    B[3, 4] = 1.0
    A[4] = B[4]
    return A, B


@pytest.fixture
def F64(rng):
    X = rng.standard_normal((150, 8)) * 1.5
    return FuzzyEmbeddings.from_embeddings(Embeddings([f"w{i}" for i in range(150)], X), dtype="float64")


# ----------------------------------------------------------------- representation
def test_vocabulary_axis_is_columnwise_softmax_and_columns_sum_to_one(rng):
    X = rng.standard_normal((500, 7)) * 3
    M = fuzzy.fuzzify(X, dtype="float64")
    ref = np.exp(X) / np.exp(X).sum(axis=0, keepdims=True)
    assert np.allclose(M, ref, rtol=1e-12, atol=0)
    assert np.allclose(M.sum(axis=0), 1.0, rtol=1e-12)
    M32 = fuzzy.fuzzify(X.astype(np.float32))
    assert M32.dtype == np.float32
    assert np.allclose(M32.sum(axis=0, dtype=np.float64), 1.0, rtol=1e-5)


def test_normalisation_is_stable_for_huge_values(rng):
    X = rng.standard_normal((300, 5))
    shifted = X + np.array([800.0, -800.0, 3000.0, 0.0, 700.0])  # exp() alone overflows/underflows
    assert np.allclose(fuzzy.fuzzify(shifted, dtype="float64"), fuzzy.fuzzify(X, dtype="float64"), rtol=1e-9)
    assert np.allclose(fuzzy.fuzzify(shifted, "features", 2, dtype="float64").sum(axis=1), 1.0)


def test_released_code_mode_matches_hand_computation():
    X = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]])
    M = fuzzy.fuzzify(X, axis="features", base=2, dtype="float64")
    # row 0: 2, 4, 8 over 14; row 1: 1, 1/2, 2 over 3.5
    assert np.allclose(M, [[2 / 14, 4 / 14, 8 / 14], [1 / 3.5, 0.5 / 3.5, 2 / 3.5]], rtol=1e-14)
    e = Embeddings(["a", "b"], X)
    F = FuzzyEmbeddings.from_embeddings(e, axis="features", base=2, dtype="float64")
    assert F.axis == "features" and F.base == 2
    assert np.allclose(F["b"].memberships, [1 / 3.5, 0.5 / 3.5, 2 / 3.5])


def test_base_changes_the_exponent(rng):
    X = rng.standard_normal((40, 3))
    assert np.allclose(fuzzy.fuzzify(X, base=10, dtype="float64"),
                       fuzzy.fuzzify(X * math.log(10), dtype="float64"), rtol=1e-12)


@pytest.mark.parametrize("axis", ["vocabulary", "features"])
@pytest.mark.parametrize("l2", [False, True])
def test_array_api_strict_normalisation_equals_numpy(rng, axis, l2):
    xps = pytest.importorskip("array_api_strict")
    X = rng.standard_normal((257, 6)).astype(np.float32)
    X[:, 0] += np.linspace(0, 900, 257, dtype=np.float32)  # each later block raises the column maximum
    ref = fuzzy.fuzzify(X, axis=axis, base=2.5, l2_normalize=l2)
    got = fuzzy.fuzzify(xps.asarray(X), axis=axis, base=2.5, l2_normalize=l2,
                        memory_budget=6 * 8 * 50)  # several blocks
    assert isinstance(got, type(xps.asarray(X)))
    assert np.allclose(embgeo.to_numpy(got), ref, rtol=1e-6)


# ----------------------------------------------------------------- set operations
def test_set_operations_equal_direct_loops(sets):
    A, B = sets
    m, d = A.shape
    loops = {
        "intersection": lambda a, b: a * b,
        "union": lambda a, b: a + b - a * b,
        "disjoint_union": lambda a, b: min(1.0, a + b),
        "difference": lambda a, b: a - min(a, b),
    }
    for name, f in loops.items():
        got = getattr(fuzzy, name)(A, B)
        ref = np.array([[f(A[r, i], B[r, i]) for i in range(d)] for r in range(m)])
        assert np.allclose(got, ref, rtol=0, atol=1e-15), name
    assert np.allclose(fuzzy.complement(A), [[1 - x for x in row] for row in A])
    for r in range(m):
        assert fuzzy.cardinality(A[r]) == pytest.approx(sum(A[r]), rel=1e-14)
        assert fuzzy.entropy(A[r]) == pytest.approx(loop_entropy(A[r]), rel=1e-12, abs=1e-14)
        assert fuzzy.cross_entropy(A[r], B[r]) == pytest.approx(loop_cross_entropy(A[r], B[r]), rel=1e-12)
        assert fuzzy.kl_divergence(A[r], B[r]) == pytest.approx(loop_kl(A[r], B[r]), rel=1e-12, abs=1e-12)
        for name in ("jaccard", "intersection_ratio"):
            assert getattr(fuzzy, name)(A[r], B[r]) == pytest.approx(loop_measure(name, A[r], B[r]), rel=1e-12)
        assert fuzzy.graded_inclusion(A[r], B[r]) == loop_measure("inclusion", A[r], B[r])
        assert bool(fuzzy.is_subset(A[r], B[r])) == all(a <= b for a, b in zip(A[r], B[r]))
    assert fuzzy.entropy(A).shape == (m,)  # vectorised over the batch


def test_cross_entropy_is_entropy_plus_kl(sets):
    A, B = sets
    assert np.allclose(fuzzy.cross_entropy(A, B), fuzzy.entropy(A) + fuzzy.kl_divergence(A, B), rtol=1e-12)
    assert np.allclose(fuzzy.cross_entropy(B, A), fuzzy.entropy(B) + fuzzy.kl_divergence(B, A), rtol=1e-12)


def test_zero_log_zero_conventions():
    crisp = np.array([0.0, 1.0, 0.0, 1.0])
    assert fuzzy.entropy(crisp) == 0.0
    assert fuzzy.kl_divergence(crisp, crisp) == 0.0
    assert fuzzy.cross_entropy(crisp, crisp) == 0.0
    # a feature certain in S and impossible in T: infinite in theory, clipped to -ln(tiny) here
    ce = fuzzy.cross_entropy(np.array([1.0]), np.array([0.0]))
    assert np.isfinite(ce) and ce == pytest.approx(-fuzzy.LOG_TINY)
    assert fuzzy.jaccard(np.zeros(3), np.zeros(3)) == 1.0
    assert fuzzy.intersection_ratio(np.zeros(3), np.full(3, 0.5)) == 1.0


memb = arrays(np.float64, st.integers(1, 12).map(lambda d: (2, d)),
              elements=st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1.0])))


@settings(max_examples=150, deadline=None)
@given(memb)
def test_ranges_and_order_of_operations(M):
    A, B = M
    lo, hi = np.minimum(A, B), np.maximum(A, B)
    inter, uni, dis = fuzzy.intersection(A, B), fuzzy.union(A, B), fuzzy.disjoint_union(A, B)
    for R in (inter, uni, dis, fuzzy.difference(A, B), fuzzy.complement(A)):
        assert np.all((R >= 0) & (R <= 1))
    eps = 1e-12
    assert np.all(inter <= lo + eps) and np.all(lo <= hi) and np.all(hi <= uni + eps) and np.all(uni <= dis + eps)
    d = A.size
    assert -eps <= fuzzy.entropy(A) <= d * math.log(2) + eps
    assert fuzzy.kl_divergence(A, B) >= -1e-9
    assert abs(fuzzy.kl_divergence(A, A)) <= 1e-12
    assert fuzzy.cross_entropy(A, B) == pytest.approx(fuzzy.entropy(A) + fuzzy.kl_divergence(A, B),
                                                      rel=1e-9, abs=1e-9)
    assert 0 <= fuzzy.jaccard(A, B) <= 1 + eps
    assert fuzzy.jaccard(A, B) == pytest.approx(fuzzy.jaccard(B, A))
    # monotonicity: A ∩ B ⊆ A ⊆ A ∪ B, so cardinalities order the same way
    assert np.all(inter <= A + eps) and np.all(A <= uni + eps)
    assert fuzzy.is_subset(A * A, A) and fuzzy.is_subset(A, fuzzy.disjoint_union(A, B))
    assert fuzzy.cardinality(inter) <= fuzzy.cardinality(A) + eps <= fuzzy.cardinality(uni) + 2 * eps
    assert fuzzy.graded_inclusion(inter, A) == 1.0
    assert fuzzy.graded_inclusion(fuzzy.difference(A, B), A) == 1.0
    # De Morgan holds for the product / probabilistic-sum pair
    assert np.allclose(fuzzy.complement(uni), fuzzy.intersection(1 - A, 1 - B), atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(memb, st.floats(0, 1))
def test_cross_entropy_grows_as_target_moves_away(M, lam):
    # T(λ) = S + λ(¬S − S) moves every feature away from s as λ grows (0 ≤ λ ≤ 1); per feature
    # H(s, t) is convex in t with its minimum at t = s, so H(S, T(λ)) is non-decreasing in λ
    S = M[0]
    lam1, lam2 = 0.5 * lam, 0.5 + 0.5 * lam
    T1, T2 = S + lam1 * (1 - 2 * S), S + lam2 * (1 - 2 * S)
    assert fuzzy.cross_entropy(S, S) <= fuzzy.cross_entropy(S, T1) + 1e-9
    assert fuzzy.cross_entropy(S, T1) <= fuzzy.cross_entropy(S, np.clip(T2, 0, 1)) + 1e-9


def test_fuzzy_set_operators_equal_functions_and_broadcast(F64):
    a, b = F64["w1"], F64["w2"]
    A, B = a.memberships, b.memberships
    assert np.allclose((a & b).memberships, fuzzy.intersection(A, B))
    assert np.allclose((a | b).memberships, fuzzy.union(A, B))
    assert np.allclose((a + b).memberships, fuzzy.disjoint_union(A, B))
    assert np.allclose((a - b).memberships, fuzzy.difference(A, B))
    assert np.allclose((~a).memberships, 1 - A)
    assert (a & b) <= a and not (a <= (a & b))
    assert a.cross_entropy(b) == pytest.approx(loop_cross_entropy(A, B))
    assert a.kl(b) == pytest.approx(loop_kl(A, B))
    assert a.inclusion(b) == loop_measure("inclusion", A, B)
    expr = (a + b) - F64["w3"]
    assert expr.label == "((w1 + w2) - w3)" and expr.sources == ("w1", "w2", "w3")
    batch = F64[["w4", "w5", "w6"]] & a  # a single set combines with every row
    assert batch.is_batch and batch.memberships.shape == (3, 8)
    assert np.allclose(batch.memberships[1], F64["w5"].memberships * A)
    assert batch.sources == [("w4", "w1"), ("w5", "w1"), ("w6", "w1")]
    assert np.allclose(batch.entropy(), [loop_entropy(r) for r in batch.memberships])
    with pytest.raises(ValueError, match="broadcast"):
        F64[["w1", "w2"]] & F64[["w1", "w2", "w3"]]


# ----------------------------------------------------------------- word pairs (evaluate protocol)
@pytest.mark.parametrize("measure", ["cross_entropy", "kl", "categorical_cross_entropy", "categorical_kl",
                                     "symmetric_cross_entropy", "symmetric_kl", "jaccard", "intersection_ratio",
                                     "inclusion"])
def test_similarity_pairs_is_the_negated_measure_with_words1_as_S(F64, measure):
    w1, w2 = ["w0", "w5", "w9"], ["w3", "w5", "w100"]
    got = F64.similarity_pairs(w1, w2, measure=measure)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    ref = [loop_measure(measure, F64[a].memberships, F64[b].memberships) for a, b in zip(w1, w2)]
    assert np.allclose(got, ref, rtol=1e-12)
    rev = F64.similarity_pairs(w1, w2, measure=measure, reverse=True)
    assert np.allclose(rev, F64.similarity_pairs(w2, w1, measure=measure))


def test_similarity_pairs_default_measure_is_cross_entropy(F64):
    assert F64.similarity_pairs(["w1"], ["w2"])[0] == pytest.approx(-F64["w1"].cross_entropy(F64["w2"]))
    assert F64.similarity("w1", "w2", measure="kl", reverse=True) == pytest.approx(-F64["w2"].kl(F64["w1"]))


# ----------------------------------------------------------------- vocabulary-wide search
CASES = [("cross_entropy", False), ("cross_entropy", True), ("kl", False), ("kl", True),
         ("categorical_cross_entropy", False), ("categorical_cross_entropy", True), ("categorical_kl", False),
         ("categorical_kl", True), ("symmetric_cross_entropy", False), ("symmetric_kl", False),
         ("jaccard", False), ("intersection_ratio", False), ("intersection_ratio", True)]


@pytest.mark.parametrize("measure,reverse", CASES)
def test_vocabulary_topk_equals_brute_force(F64, measure, reverse):
    s, i = F64.neighbors(["w7", "w42"], 6, measure=measure, reverse=reverse)
    for r, w in enumerate(["w7", "w42"]):
        ref_s, ref_i = brute_topk(F64, F64[w].memberships, 6, measure, reverse, exclude=[F64.index(w)])
        assert np.array_equal(i[r], ref_i)
        assert np.allclose(s[r], ref_s, rtol=1e-12)


@pytest.mark.parametrize("measure,reverse", [("cross_entropy", False), ("kl", True), ("jaccard", False)])
def test_composed_query_topk_excludes_sources_and_matches_brute_force(F64, measure, reverse):
    q = (F64["w1"] + F64["w2"]) - F64["w3"]
    s, i = F64.neighbors(q, 5, measure=measure, reverse=reverse, exclude=["w10"], restrict_vocab=120)
    ex = [1, 2, 3, 10]
    ref_s, ref_i = brute_topk(F64, q.memberships, 5, measure, reverse, exclude=ex, n=120)
    assert np.array_equal(i[0], ref_i) and not set(ex) & set(i[0].tolist())
    assert np.allclose(s[0], ref_s, rtol=1e-12)
    # the analogy a : b :: x : y builds (b ⊔ x) \ a, written out feature by feature, and excludes a, b, x only
    A, B, X = (F64[w].memberships for w in ("w3", "w1", "w2"))
    y = np.array([max(min(b + x, 1.0) - a, 0.0) for a, b, x in zip(A, B, X)])
    gs, gi = F64.analogy("w3", "w1", "w2", 5, measure=measure, reverse=reverse, restrict_vocab=120)
    ref_s, ref_i = brute_topk(F64, y, 5, measure, reverse, exclude=[1, 2, 3], n=120)
    assert gi.shape == (1, 5) and np.array_equal(gi[0], ref_i)
    assert np.allclose(gs[0], ref_s, rtol=1e-12)
    bs, bi = F64.analogy(["w3", "w3"], ["w1", "w1"], ["w2", "w2"], 5, measure=measure, reverse=reverse,
                         restrict_vocab=120)
    assert np.array_equal(bi, np.vstack([gi, gi]))  # one return type for single words and batches


def test_float32_topk_agrees_with_float64_brute_force(rng):
    X = rng.standard_normal((400, 10)).astype(np.float32)
    F = FuzzyEmbeddings.from_embeddings(Embeddings([f"w{i}" for i in range(400)], X))
    for measure, reverse in CASES:
        s, i = F.neighbors("w5", 8, measure=measure, reverse=reverse)
        ref_s, ref_i = brute_topk(F, F["w5"].memberships, 8, measure, reverse, exclude=[5])
        assert np.allclose(s[0], ref_s, rtol=1e-5), (measure, reverse)
        assert len(set(i[0].tolist()) & set(ref_i.tolist())) >= 7, (measure, reverse)


@pytest.mark.parametrize("measure,reverse", [("jaccard", False), ("cross_entropy", False), ("kl", True),
                                             ("symmetric_kl", False)])
def test_topk_under_a_tiny_memory_budget_equals_brute_force(F64, measure, reverse):
    # a budget of a few rows forces many candidate blocks and merges
    queries = [f"w{j}" for j in range(0, 150, 7)]
    s, i = F64.neighbors(queries, 4, measure=measure, reverse=reverse, memory_budget=8 * 12 * 16)
    for r, w in enumerate(queries):
        ref_s, ref_i = brute_topk(F64, F64[w].memberships, 4, measure, reverse, exclude=[F64.index(w)])
        assert np.array_equal(i[r], ref_i) and np.allclose(s[r], ref_s, rtol=1e-12)
    s2, i2 = F64.neighbors(queries, 4, measure=measure, reverse=reverse, precompute=True)
    assert np.array_equal(i2, i)


def test_neighbors_take_the_engine_objects_of_neighbors_topk(F64, monkeypatch):
    """``backend=`` is a name or an engine object, as for :func:`embgeo.neighbors.topk`, and the object
    with its options reaches every float32 search; an engine that cannot serve the call is refused."""
    from embgeo import neighbors
    from embgeo.fuzzy import _embeddings

    queries = ["w7", "w42"]
    ref_s, ref_i = F64.neighbors(queries, 5, precompute=False)
    seen = []
    search = _embeddings._dot_topk
    monkeypatch.setattr(_embeddings, "_dot_topk", lambda *a, **kw: seen.append(kw["backend"]) or search(*a, **kw))
    engine = neighbors.Exact(selector="argpartition", screen=True)
    s, i = F64.neighbors(queries, 5, precompute=False, backend=engine)
    assert seen and all(b is engine for b in seen)
    np.testing.assert_array_equal(i, ref_i)
    np.testing.assert_array_equal(s, ref_s)
    index = neighbors.cached_screen_index(Embeddings(F64.words, F64.memberships), "dot")
    with pytest.raises(ValueError, match="index built before"):
        F64.neighbors(queries, 5, backend=neighbors.Exact(screen=index))
    with pytest.raises(ValueError, match="backend must be"):
        F64.neighbors(queries, 5, backend=neighbors.Faiss())
    with pytest.raises(ValueError, match="one product"):
        F64.neighbors(queries, 5, measure="jaccard", backend=neighbors.Cuda())
    with pytest.raises(TypeError, match="engine object"):
        F64.most_similar("w7", 5, backend=None)


def test_every_block_is_sized_from_the_callers_memory_budget(F64, monkeypatch):
    # the statistics (entropies, cardinalities) and the cached transformed vocabulary included: no
    # block of a call may be sized from the default budget when the caller gave one
    from embgeo.fuzzy import _embeddings

    seen = []
    real = _embeddings.budget_bytes
    monkeypatch.setattr(_embeddings, "budget_bytes", lambda b=None: seen.append(b) or real(b))
    budget = 8 * 12 * 16
    for measure, reverse in [("cross_entropy", False), ("kl", True), ("jaccard", False)]:
        for precompute in (False, True):
            F = FuzzyEmbeddings(F64.words, F64.memberships)  # nothing cached yet
            F.neighbors(["w1", "w2"], 4, measure=measure, reverse=reverse, memory_budget=budget,
                        precompute=precompute)
    FuzzyEmbeddings(F64.words, F64.memberships).entropy(memory_budget=budget)
    assert seen and set(seen) == {budget}


def test_the_candidate_side_is_kept_when_it_fits_the_budget_one_measure_at_a_time(rng, request):
    import tracemalloc

    n, d = 20000, 16
    F = FuzzyEmbeddings.from_embeddings(Embeddings([f"w{i}" for i in range(n)], rng.standard_normal((n, d))))
    copy = n * (d + 1) * 4  # the conditioned candidate side of H(q, w): n × (d + 1) float32
    queries = ["w3", "w99", "w1234"]
    for measure, reverse in [("cross_entropy", False), ("kl", True)]:  # compile and import outside the count
        FuzzyEmbeddings(F.words[:100], F.memberships[:100]).neighbors(queries[:2], 5, measure=measure,
                                                                      reverse=reverse, progress=False)

    def call(**kw):  # (bytes kept after the call, peak extra bytes during it, its result)
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = F.neighbors(queries, 5, progress=False, **kw)
        now, peak = tracemalloc.get_traced_memory()
        return now - before, peak - before, out

    tracemalloc.start()  # one trace for the whole test: a copy freed later was allocated under it
    request.addfinalizer(tracemalloc.stop)
    kept, _, (s0, i0) = call(memory_budget=copy // 2)  # does not fit: transformed per block, not kept
    assert kept < copy / 4
    kept, _, (s1, i1) = call()  # fits the default budget: kept with F
    assert kept >= copy
    kept, peak, (s2, i2) = call()  # reused: no transform, nothing new kept
    assert abs(kept) < copy / 4 and peak < copy / 4
    assert np.array_equal(i0, i1) and np.array_equal(i1, i2) and np.array_equal(s0, s2)
    kept, _, _ = call(measure="kl", reverse=True)  # another form replaces the kept one (plus O(n) statistics)
    assert abs(kept) < copy / 2
    kept, _, (s3, i3) = call(precompute=False)  # never kept, never read: the same lists
    assert abs(kept) < copy / 4 and np.array_equal(i3, i0)


@pytest.mark.parametrize("measure,reverse", [("jaccard", False), ("intersection_ratio", True),
                                             ("cross_entropy", False), ("kl", True)])
def test_topk_with_empty_and_crisp_sets_matches_brute_force(rng, measure, reverse):
    M = rng.random((60, 5))
    M[3] = 0.0  # an empty set: J(∅, ∅) = 1, |∅ ∩ T| / |∅| = 1
    M[7] = 1.0  # a crisp full set: ln(1 − µ) = ln 0 is clipped
    M[9, :2] = 0.0
    F = FuzzyEmbeddings([f"w{i}" for i in range(60)], M)
    for q in (FuzzySet(np.zeros(5)), F["w9"], F["w7"]):
        s, i = F.neighbors(q, 6, measure=measure, reverse=reverse)
        ex = [F.index(w) for w in q.sources]
        ref_s, ref_i = brute_topk(F, q.memberships, 6, measure, reverse, exclude=ex)
        assert np.all(np.isfinite(s)) and np.allclose(s[0], ref_s, rtol=1e-12)
        # |T ∩ 1| / |T| = 1 for every T: an all-way tie whose order only rounding decides
        if not (measure == "intersection_ratio" and q.sources == ("w7",)):
            assert np.array_equal(i[0], ref_i)


@pytest.mark.parametrize("measure,reverse", [("cross_entropy", False), ("kl", True), ("jaccard", False)])
def test_array_api_strict_search_equals_numpy(rng, measure, reverse):
    xps = pytest.importorskip("array_api_strict")
    X = rng.standard_normal((120, 6))
    words = [f"w{i}" for i in range(120)]
    Fn = FuzzyEmbeddings.from_embeddings(Embeddings(words, X), dtype="float64")
    Fs = FuzzyEmbeddings.from_embeddings(Embeddings(words, xps.asarray(X)), dtype="float64")
    q = ["w3", "w17"]
    sn, i_n = Fn.neighbors(q, 5, measure=measure, reverse=reverse)
    ss, i_s = Fs.neighbors(q, 5, measure=measure, reverse=reverse)
    assert isinstance(ss, type(xps.asarray(X)))
    assert np.array_equal(embgeo.to_numpy(i_s), i_n)
    assert np.allclose(embgeo.to_numpy(ss), sn, rtol=1e-12)
    assert np.allclose(Fs.similarity_pairs(q, ["w1", "w2"], measure=measure),
                       Fn.similarity_pairs(q, ["w1", "w2"], measure=measure), rtol=1e-12)
    assert np.allclose(embgeo.to_numpy(Fs.entropy()), Fn.entropy(), rtol=1e-12)


# ----------------------------------------------------------------- analyses
def test_function_words_counts_hits_of_both_rankings(rng):
    stop = ["the", "of", "and", "to", "in"]
    content = [f"c{i}" for i in range(60)]
    words = content[:10] + stop + content[10:]
    X = rng.standard_normal((len(words), 12)) - 1.0
    X[10:15] += 3.0  # function words get large memberships everywhere -> the highest entropies
    F = FuzzyEmbeddings.from_embeddings(Embeddings(words, X), dtype="float64")
    rep = fuzzy.function_words(F, stopwords=stop, cutoffs=(5, 10, 15))
    assert rep.frequency_source == "rank"
    assert set(rep.by_entropy[:5]) == set(stop)
    assert rep.hits == {5: (5, 0), 10: (5, 0), 15: (5, 5)}  # rank proxy: stop words sit at rows 10-14
    H = F.entropy()
    assert rep.by_entropy == [words[j] for j in np.argsort(-H, kind="stable")[:15]]
    counts = np.arange(len(words), 0, -1)[::-1]  # the last row is the most frequent
    rep2 = fuzzy.function_words(F, frequencies=counts, min_count=len(words) - 20, stopwords=stop, cutoffs=(5,))
    assert rep2.n_candidates == 21 and rep2.by_frequency[0] == words[-1] and rep2.hits[5] == (0, 0)
    with pytest.raises(ValueError, match="min_count needs word counts"):
        fuzzy.function_words(F, min_count=5)
    assert "entropy hits" in rep.table()


def test_polysemy_neighbours_of_intersections(F64):
    out = fuzzy.polysemy(F64, "w1", ["w2", "w3"], topn=4)
    P = np.asarray(F64.memberships)
    for c in ("w2", "w3"):
        q = [a * b for a, b in zip(P[1], P[F64.index(c)])]  # the product intersection, feature by feature
        ref_s, ref_i = brute_topk(F64, q, 4, "cross_entropy", False, exclude=[1, F64.index(c)])
        assert [w for w, _ in out[c]] == [F64.words[j] for j in ref_i]
        assert np.allclose([v for _, v in out[c]], ref_s, rtol=1e-12)


def test_hyponymy_scores_equal_a_loop_of_feature_comparisons(rng):
    X = rng.standard_normal((30, 8))
    words = [f"w{i}" for i in range(30)]
    F = FuzzyEmbeddings.from_embeddings(Embeddings(words, X), dtype="float64")
    pairs = [(f"w{a}", f"w{b}") for a, b in zip(rng.integers(0, 30, 25), rng.integers(0, 30, 25))]
    rep = fuzzy.hyponymy(F, pairs + [("w1", "zzz")])
    P = np.asarray(F.memberships)
    fwd = [sum(P[F.index(h), i] <= P[F.index(H), i] for i in range(8)) / 8 for h, H in pairs]
    bwd = [sum(P[F.index(H), i] <= P[F.index(h), i] for i in range(8)) / 8 for h, H in pairs]
    assert np.allclose(rep.scores, fwd) and np.allclose(rep.reverse_scores, bwd)
    assert rep.direction_accuracy == pytest.approx(sum(f > b for f, b in zip(fwd, bwd)) / 25)
    assert rep.ties == sum(f == b for f, b in zip(fwd, bwd)) and rep.n_skipped == 1
    # with the vocabulary axis every column shares its denominator: inclusion compares the raw vectors
    raw = [np.mean(X[F.index(h)] <= X[F.index(H)]) for h, H in pairs]
    assert np.allclose(rep.scores, raw)
    with pytest.raises(UnknownWordError, match="zzz"):
        fuzzy.hyponymy(F, [("w1", "zzz")], oov="raise")
    assert F.indices(["w1", "zzz"], oov="mark").tolist() == [F.index("w1"), -1]
    assert F.indices(["zzz", "w1"], oov="skip").tolist() == [F.index("w1")]


def _questions(lines, tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("topn,measure,reverse", [(1, "cross_entropy", False), (5, "cross_entropy", False),
                                                  (3, "kl", True), (2, "categorical_kl", False)])
def test_fuzzy_analogies_through_evaluate_equal_a_brute_force_loop(F64, tmp_path, topn, measure, reverse):
    from embgeo.evaluate import AnalogyResult, analogy

    lines = [": s1", "w1 w2 w3 w4", "w5 w6 w7 w8", "w20 w21 w22 w23", ": gram-s2", "w9 w10 w11 w12",
             "w30 w31 w32 w33", "w1 w2 w3 w149", "w1 w2 w3 nope"]
    r = analogy(F64, _questions(lines, tmp_path), scorer=F64.analogy_scorer(measure, reverse), topn=topn,
                restrict_vocab=140)
    assert isinstance(r, AnalogyResult) and r.topn == topn
    assert r.n_evaluated == 5 and r.n_total == 7  # w149 is outside the first 140 words; "nope" is unknown
    P = np.asarray(F64.memberships, dtype=np.float64)
    correct, per_section = 0, {"s1": 0, "gram-s2": 0}
    section = None
    for ln in lines:
        if ln.startswith(":"):
            section = ln[2:]
            continue
        a, b, x, y = ln.split()
        if not all(w in F64 and F64.index(w) < 140 for w in (a, b, x, y)):
            continue
        ia, ib, ix = F64.index(a), F64.index(b), F64.index(x)
        q = np.array([max(min(P[ib, i] + P[ix, i], 1.0) - P[ia, i], 0.0) for i in range(F64.dim)])
        _, top = brute_topk(F64, q, topn, measure, reverse, exclude=[ia, ib, ix], n=140)
        hit = F64.index(y) in top.tolist()
        correct += hit
        per_section[section] += hit
    assert r.n_correct == correct and r.accuracy == correct / 5
    assert r.sections["gram-s2"]["n_correct"] == per_section["gram-s2"]
    assert r.method == f"fuzzy-{measure}" + ("-rev" if reverse else "")


def test_analogy_topn_counts_the_answer_anywhere_in_the_top_n(rng):
    from embgeo.evaluate import analogy
    from embgeo.data import AnalogyQuestions

    words = [f"w{i}" for i in range(60)]
    e = Embeddings(words, rng.standard_normal((60, 6)))
    Q = np.array([words[i:i + 4] for i in range(0, 40, 2)])
    qs = AnalogyQuestions({"s": Q})
    U = e.vectors / np.linalg.norm(e.vectors, axis=1, keepdims=True)
    for topn in (1, 3, 10):
        r = analogy(e, qs, topn=topn)
        hits = 0
        for a, b, c, d in Q:
            ia, ib, ic = (words.index(w) for w in (a, b, c))
            sc = U @ (U[ib] - U[ia] + U[ic])
            sc[[ia, ib, ic]] = -np.inf
            hits += words.index(d) in np.argsort(-sc, kind="stable")[:topn].tolist()
        assert r.n_correct == hits and r.topn == topn
    assert analogy(e, qs, topn=3).n_correct >= analogy(e, qs).n_correct
    with pytest.raises(ValueError, match="topn"):
        analogy(e, qs, topn=0)


# ----------------------------------------------------------------- bad input
def test_bad_input_raises_clear_errors(rng):
    X = rng.standard_normal((5, 3))
    X[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fuzzy.fuzzify(X)
    with pytest.raises(ValueError, match="empty"):
        fuzzy.fuzzify(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="axis"):
        fuzzy.fuzzify(np.ones((2, 2)), axis="rows")
    with pytest.raises(ValueError, match="base"):
        fuzzy.fuzzify(np.ones((2, 2)), base=1.0)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        FuzzySet(np.array([0.2, 1.5]))
    with pytest.raises(ValueError, match="NaN"):
        fuzzy.entropy(np.array([0.2, np.nan]))
    with pytest.raises(ValueError, match="empty"):
        FuzzySet(np.zeros(0))
    with pytest.raises(TypeError, match="Embeddings"):
        FuzzyEmbeddings.from_embeddings(X)
    F = FuzzyEmbeddings.from_embeddings(Embeddings(list("abcde"), rng.standard_normal((5, 3))))
    with pytest.raises(UnknownWordError, match="'zebra'"):
        F["zebra"]
    with pytest.raises(UnknownWordError, match="'zebra'"):
        F.similarity_pairs(["a"], ["zebra"])
    with pytest.raises(UnknownWordError, match="'zebra'"):
        F.most_similar("zebra")
    with pytest.raises(ValueError, match="unknown fuzzy measure"):
        F.similarity_pairs(["a"], ["b"], measure="cosine")
    with pytest.raises(ValueError, match="pair measure"):
        F.neighbors("a", 2, measure="inclusion")
    with pytest.raises(ValueError, match="exceeds"):
        F.neighbors("a", 5)
    with pytest.raises(ValueError, match="different numbers of features"):
        F["a"] & FuzzySet(np.full(4, 0.5))
    with pytest.raises(ValueError, match="differ in length"):
        F.similarity_pairs(["a", "b"], ["c"])


# ----------------------------------------------------------------- real data
def test_glove_fuzzy_sets_behave_as_in_the_paper(glove):
    F = FuzzyEmbeddings.from_embeddings(glove)
    assert F.memberships.dtype == np.float32
    assert np.allclose(F.memberships.sum(axis=0, dtype=np.float64), 1.0, atol=1e-4)
    V = np.asarray(glove.vectors, dtype=np.float64)
    top = V.max(axis=0)
    ref = np.exp(V[:2000] - top) / np.exp(V - top).sum(axis=0)
    assert np.allclose(F.memberships[:2000], ref, rtol=1e-5)
    near = [w for w, _ in F.most_similar("king", 10, restrict_vocab=50000)]
    assert "queen" in near or "prince" in near
    # entropy: Σ −µ ln µ − (1 − µ) ln(1 − µ), written out with numpy on the first 1000 words
    M = np.asarray(F.memberships[:1000], dtype=np.float64)
    H = -(M * np.log(M) + (1 - M) * np.log1p(-M)).sum(axis=1)
    assert np.allclose(F.entropy()[:1000], H, rtol=1e-9)
    rep = fuzzy.function_words(F, top_n=1000)
    assert rep.frequency_source == "rank" and rep.n_candidates == 1000
    assert rep.by_entropy == [glove.words[j] for j in np.argsort(-H, kind="stable")[:50]]
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as stop

    assert rep.hits[50] == (sum(w in stop for w in rep.by_entropy), sum(w in stop for w in glove.words[:50]))
    # the released code's construction (cli.cpp): memberships sum to 1 over each word's features
    R = FuzzyEmbeddings.from_embeddings(glove.top(1000), construction="released-cli", dtype="float64")
    m = np.asarray(R["the"].memberships)
    assert np.allclose(m, 2.0 ** V[0] / (2.0 ** V[0]).sum(), rtol=1e-12)
    assert R["the"].entropy() == pytest.approx(float(-(m * np.log(m) + (1 - m) * np.log1p(-m)).sum()), rel=1e-12)


# ----------------------------------------------------------------- the authors' released programs
REF = __import__("pathlib").Path(__file__).parent / "data" / "fuzzy_reference"


def _reference_embeddings():
    lines = (REF / "vectors.txt").read_text().split("\n")[1:]
    rows = [ln.split() for ln in lines if ln.strip()]
    return Embeddings([r[0] for r in rows], np.array([[float(v) for v in r[1:]] for r in rows], dtype=np.float32))


def _golden(name):
    return np.loadtxt(REF / name)


def _simlex_pairs():
    rows = [ln.split("\t") for ln in (REF / "simlex.txt").read_text().splitlines()[1:]]
    return [(a, b) for a, b, *_ in rows if a != "unknownword" and b != "unknownword" and b != "unknownword"]


def test_table8_protocol_equals_the_released_simlex_program():
    # dump-accuracy-simlex.c prints 100 − H(S,T) − H(T,S) for its "kl" option and 100 − D(S‖T) for
    # "crossentropy" (Bernoulli forms), on L2-normalised vectors, base 2, normalised per word
    e = _reference_embeddings()
    F = FuzzyEmbeddings.from_embeddings(e, construction="released-simlex", dtype="float64")
    pairs = [(a, b) for a, b in _simlex_pairs() if a in F and b in F]
    w1, w2 = [a for a, _ in pairs], [b for _, b in pairs]
    kl_opt, ce_opt = _golden("simlex_kl.txt"), _golden("simlex_crossentropy.txt")
    assert len(pairs) == len(kl_opt) == 30
    assert np.allclose(100 + F.similarity_pairs(w1, w2, measure="symmetric_cross_entropy"), kl_opt[:, 1], atol=2e-6)
    assert np.allclose(100 + F.similarity_pairs(w1, w2, measure="kl"), ce_opt[:, 1], atol=2e-6)
    # and through the evaluation API, by measure spelling
    from scipy import stats
    from embgeo.data import WordPairs
    from embgeo.evaluate import word_similarity
    from embgeo.evaluate.similarity import resolve_measure

    data = WordPairs(w1, w2, kl_opt[:, 0])
    for spelling, gold in (("fuzzy-symmetric-cross-entropy@released-simlex", kl_opt),
                           ("fuzzy-kl@released-simlex", ce_opt)):
        model, measure = resolve_measure(e, spelling)
        r = word_similarity(model, data, measure=measure)
        assert r.spearman == pytest.approx(stats.spearmanr(gold[:, 0], gold[:, 1])[0], abs=1e-9)


def test_table11_protocol_equals_the_released_composition_program():
    e = _reference_embeddings()
    F = FuzzyEmbeddings.from_embeddings(e, construction="released-composition", dtype="float64")
    comp = embgeo.data.read_compounds(REF / "compounds.tsv")
    keep = [i for i, (h, m) in enumerate(zip(comp.words1, comp.words2)) if h in F and m in F]
    h, m = [comp.words1[i] for i in keep], [comp.words2[i] for i in keep]
    sym, headmod = _golden("composition_xhsym.txt"), _golden("composition_xhheadmod.txt")
    assert np.allclose(comp.scores[keep], sym[:, 0], atol=1e-6)
    assert np.allclose(100 + F.similarity_pairs(h, m, measure="symmetric_kl"), sym[:, 1], atol=2e-6)
    assert np.allclose(F.similarity_pairs(h, m, measure="kl"), headmod[:, 1], atol=2e-6)
    from scipy import stats
    from embgeo.evaluate import word_similarity

    r = word_similarity(F, comp, measure="symmetric_kl")
    assert r.n_pairs == 30 and r.coverage == pytest.approx(30 / 31)
    assert r.spearman == pytest.approx(stats.spearmanr(sym[:, 0], sym[:, 1])[0], abs=1e-9)
    assert r.pearson == pytest.approx(stats.pearsonr(sym[:, 0], sym[:, 1])[0], abs=1e-6)


def test_read_compounds_names_the_bad_line(tmp_path):
    p = tmp_path / "c.tsv"
    p.write_text("\t".join(["x"] * 13) + "\n" + "\t".join(["x"] * 12) + "\n")
    with pytest.raises(ValueError, match="line 1: score 'x'"):
        embgeo.data.read_compounds(p)
    p.write_text("\t".join(["x"] * 10 + ["1.5", "x", "x"]) + "\n" + "\t".join(["x"] * 12) + "\n")
    with pytest.raises(ValueError, match="line 2: 12 tab-separated columns"):
        embgeo.data.read_compounds(p)


def test_kl_and_cross_entropy_match_scipy_definitions(rng):
    # independent formulations: the paper's printed KL Σ s ln(s/t) is scipy's relative entropy of two
    # distributions over the features; the Bernoulli KL is a sum of two-outcome relative entropies
    from scipy import stats

    X = rng.standard_normal((2, 7))
    S, T = fuzzy.fuzzify(X, axis="features", base=2, dtype="float64")
    assert fuzzy.categorical_kl_divergence(S, T) == pytest.approx(stats.entropy(S, T), rel=1e-12)
    assert fuzzy.categorical_cross_entropy(S, T) == pytest.approx(stats.entropy(S) + stats.entropy(S, T), rel=1e-12)
    bern = sum(stats.entropy([s, 1 - s], [t, 1 - t]) for s, t in zip(S, T))
    assert fuzzy.kl_divergence(S, T) == pytest.approx(bern, rel=1e-12)
    h = sum(stats.entropy([s, 1 - s]) for s in S)
    assert fuzzy.cross_entropy(S, T) == pytest.approx(h + bern, rel=1e-12)
    assert fuzzy.symmetric_cross_entropy(S, T) == pytest.approx(
        fuzzy.cross_entropy(S, T) + fuzzy.cross_entropy(T, S), rel=1e-12)
    # the two KLs are different quantities: they must not agree
    assert abs(fuzzy.categorical_kl_divergence(S, T) - fuzzy.kl_divergence(S, T)) > 1e-3


def test_l2_normalize_equals_normalising_first(rng):
    X = rng.standard_normal((50, 6)) * 4
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    for axis in ("vocabulary", "features"):
        got = fuzzy.fuzzify(X, axis, 2, l2_normalize=True, dtype="float64")
        ref = 2.0 ** U / (2.0 ** U).sum(axis=0 if axis == "vocabulary" else 1, keepdims=True)
        assert np.allclose(got, ref, rtol=1e-12)
    X[7] = 0
    with pytest.raises(ValueError, match="row 7"):
        fuzzy.fuzzify(X, l2_normalize=True)
    with pytest.raises(ValueError, match="construction"):
        FuzzyEmbeddings.from_embeddings(Embeddings([f"w{i}" for i in range(50)], U), construction="nope")
    with pytest.raises(ValueError, match="not both"):
        FuzzyEmbeddings.from_embeddings(Embeddings([f"w{i}" for i in range(50)], U), construction="paper",
                                        axis="features")


def test_cli_evaluates_the_released_table8_mode_by_measure_spelling(tmp_path, capsys):
    # `embgeo evaluate --measures fuzzy-kl@released-simlex` gives the released program's Spearman ρ
    import json
    from scipy import stats
    from embgeo import cli

    pairs = _simlex_pairs()[:30]
    gold = {"fuzzy-symmetric-cross-entropy@released-simlex": _golden("simlex_kl.txt"),
            "fuzzy-kl@released-simlex": _golden("simlex_crossentropy.txt")}
    data = tmp_path / "pairs.txt"
    data.write_text("".join(f"{a}\t{b}\t{s}\n" for (a, b), s in zip(pairs, gold["fuzzy-kl@released-simlex"][:, 0])))
    code = cli.main(["evaluate", "-e", str(REF / "vectors.txt"), "-d", str(data), "-q", "--json",
                     "--measures", ",".join(gold)])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = {r["measure"]: r for r in json.loads(out)["rows"]}
    for m, g in gold.items():
        assert rows[m]["spearman"] == pytest.approx(stats.spearmanr(g[:, 0], g[:, 1])[0], abs=1e-9)
    code = cli.main(["evaluate", "-e", str(REF / "vectors.txt"), "-d", str(data), "-q",
                     "--measures", "fuzzy-kl@nonsense"])
    assert code != 0 and "unknown measure 'fuzzy-kl@nonsense'" in capsys.readouterr().err


# ----------------------------------------------------------------- certified float32 search
LINEAR_CASES = [c for c in CASES if c not in (("jaccard", False), ("intersection_ratio", True))]


@pytest.mark.parametrize("measure,reverse", LINEAR_CASES)
def test_float32_search_returns_the_float64_lists_at_near_ties(rng, measure, reverse):
    """Two clusters of 40 near-copies of a query's row, one membership moved by 1..40 float32 ulps
    (up in one cluster, another membership down in the other): their float32 scores tie or cross at random, their
    float64 scores are strictly ordered, so that a float32 top-2k can miss the float64 top-k.
    The search certifies its lists in float64 and searches again where it cannot, so they are
    the float64 brute force's exactly."""
    M = (rng.random((200, 12)) * 0.9 + 0.05).astype(np.float32)
    for base, col, direction in ((120, 0, 1.0), (160, 1, -1.0)):
        for j in range(40):
            M[base + j] = M[0]
            M[base + j, col] = M[0, col] + np.float32(direction * (j + 1)) * np.spacing(M[0, col])
    F = FuzzyEmbeddings([f"w{j}" for j in range(200)], M)
    queries = ["w0"] + [f"w{j}" for j in range(1, 100, 9)]
    _, i = F.neighbors(queries, 6, measure=measure, reverse=reverse)
    for r, w in enumerate(queries):
        q = int(w[1:])
        _, ref = brute_topk(F, M[q], 6, measure, reverse, exclude=[q])
        assert i[r].tolist() == ref.tolist(), (measure, reverse, w)


def test_glove_cross_entropy_lists_equal_a_float64_brute_force(glove):
    """The vocabulary-axis memberships of 50k GloVe words (logits near ln(1/50k), the case whose
    float32 rounding the conditioning of the search is for): H(q, w) both ways, the lists of a
    float64 evaluation of −S·ln Tᵀ − (1 − S)·ln(1 − T)ᵀ, ties to the lower row."""
    e = glove.top(50_000)
    F = FuzzyEmbeddings.from_embeddings(e)
    qi = np.arange(0, 50_000, 2_500)
    P = np.asarray(F.memberships, dtype=np.float64)
    S = P[qi]
    for reverse in (False, True):
        H = (-(np.log(S) @ P.T) - (np.log1p(-S) @ (1 - P).T) if reverse
             else -(S @ np.log(P).T) - ((1 - S) @ np.log1p(-P).T))
        H[np.arange(len(qi)), qi] = np.inf
        ref = np.lexsort((np.broadcast_to(np.arange(len(e)), H.shape), H), axis=1)[:, :10]
        _, i = F.neighbors([e.words[j] for j in qi], 10, reverse=reverse)
        assert np.array_equal(i, ref), reverse


def test_one_table_of_fuzzy_measure_names_serves_fuzzy_and_evaluate(F64):
    from embgeo.evaluate.similarity import MEASURES as EVALUATION_MEASURES

    fuzzy_names = {k: v for k, v in EVALUATION_MEASURES.items() if v[0] == "fuzzy"}
    # one spelling per measure: evaluate's name is "fuzzy-" and the measure= name with hyphens
    assert list(fuzzy_names) == ["fuzzy-cross-entropy", "fuzzy-cross-entropy-rev", "fuzzy-kl", "fuzzy-kl-rev",
                                 "fuzzy-categorical-cross-entropy", "fuzzy-categorical-cross-entropy-rev",
                                 "fuzzy-categorical-kl", "fuzzy-categorical-kl-rev", "fuzzy-symmetric-cross-entropy",
                                 "fuzzy-symmetric-kl", "fuzzy-jaccard"]
    a, b = ["w1", "w5", "w9"], ["w2", "w7", "w3"]
    for name, (_, measure, reverse) in fuzzy_names.items():
        m = fuzzy.FUZZY_MEASURES[measure]
        suffix = "-rev" if reverse else ""
        assert name == m.evaluate_name + suffix == "fuzzy-" + measure.replace("_", "-") + suffix
        want = F64.similarity_pairs(a, b, measure=measure, reverse=reverse)
        model, _ = embgeo.evaluate.resolve_measure(None, name, cache={"fuzzy": F64})
        assert np.array_equal(model.similarity_pairs(a, b), want)
    # no second spelling: the short and old names are refused
    for other in ("ce", "cross-entropy", "crossentropy", "bernoulli_kl", "kl_divergence", "symmetric-ce",
                  "graded_inclusion"):
        with pytest.raises(ValueError, match="unknown fuzzy measure"):
            F64.similarity_pairs(a, b, measure=other)
    assert {m.name for m in fuzzy.FUZZY_MEASURES.values() if m.divergence} == {
        "cross_entropy", "kl", "categorical_cross_entropy", "categorical_kl", "symmetric_cross_entropy", "symmetric_kl"}


@pytest.mark.parametrize("name", ["intersection", "union", "disjoint_union", "difference", "graded_inclusion",
                                  "jaccard", "intersection_ratio", "cross_entropy",
                                  "kl_divergence", "categorical_cross_entropy", "categorical_kl_divergence",
                                  "symmetric_cross_entropy", "symmetric_kl_divergence"])
def test_the_factory_made_functions_carry_full_numpydoc(name):
    # their examples run as doctests (pytest --doctest-modules over embgeo)
    doc = getattr(fuzzy, name).__doc__
    for section in ("Parameters\n    ----------", "Returns\n    -------", "Examples\n    --------\n    >>> "):
        assert section in doc, (name, section)
    assert getattr(fuzzy, name).__name__ == name
