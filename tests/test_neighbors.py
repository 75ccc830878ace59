"""Exact blocked top-k, CSLS and the FAISS backend against dense brute force, gensim and each other."""
import numpy as np
import pytest

import embgeo
from embgeo import neighbors as nb
from embgeo.backend import to_numpy
from embgeo.linalg import inverse_norms
from embgeo.neighbors.faiss_index import FaissIndex, faiss_search
from conftest import traced_memory

SELECTORS = ("numba", "argpartition")


def unit(X):
    X = np.asarray(X, dtype=np.float64)
    n = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(n == 0, 1, n)


def brute(Q, D, k, metric="cosine", exclude=None):
    """Dense float64 scores, then a stable sort on (-score, row): the reference ranking."""
    S = unit(Q) @ unit(D).T if metric == "cosine" else np.asarray(Q, np.float64) @ np.asarray(D, np.float64).T
    if exclude is not None:
        for r, cols in enumerate(exclude):
            S[r, np.atleast_1d(cols)] = -np.inf
    idx = np.argsort(-S, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(S, idx, axis=1), idx


@pytest.fixture
def data(rng):
    D = rng.standard_normal((700, 12)).astype(np.float32)
    Q = rng.standard_normal((45, 12)).astype(np.float32)
    return Q, D


# ------------------------------------------------------------------------- exact top-k
@pytest.mark.parametrize("selector", SELECTORS)
@pytest.mark.parametrize("metric", ["cosine", "dot"])
def test_topk_equals_dense_argsort(data, selector, metric):
    Q, D = data
    s, i = nb.topk(Q, D, 9, metric=metric, backend=nb.Exact(selector=selector))
    ref_s, ref_i = brute(Q, D, 9, metric)
    np.testing.assert_array_equal(i, ref_i)
    np.testing.assert_allclose(s, ref_s, rtol=1e-5, atol=1e-5)
    assert s.dtype == np.float32 and i.dtype == np.int64


@pytest.mark.parametrize("selector", SELECTORS)
def test_topk_with_exclusions_equals_dense_argsort(data, rng, selector):
    Q, D = data
    ragged = [rng.choice(len(D), size=int(rng.integers(0, 30)), replace=False) for _ in range(len(Q))]
    s, i = nb.topk(Q, D, 6, exclude=ragged, backend=nb.Exact(selector=selector))
    ref_s, ref_i = brute(Q, D, 6, exclude=ragged)
    np.testing.assert_array_equal(i, ref_i)
    for r, cols in enumerate(ragged):
        assert not set(i[r]) & set(cols.tolist())
    # the same exclusions as a -1-padded matrix, and as one row per query
    pad = np.full((len(Q), 30), -1)
    for r, cols in enumerate(ragged):
        pad[r, :cols.size] = cols
    np.testing.assert_array_equal(nb.topk(Q, D, 6, exclude=pad, backend=nb.Exact(selector=selector))[1], ref_i)
    one = np.arange(len(Q))
    np.testing.assert_array_equal(nb.topk(Q, D, 6, exclude=one, backend=nb.Exact(selector=selector))[1],
                                  brute(Q, D, 6, exclude=list(one))[1])


@pytest.mark.parametrize("selector", SELECTORS)
def test_ties_go_to_the_lower_row_deterministically(rng, selector):
    base = rng.standard_normal((40, 8)).astype(np.float32)
    # every vector appears three times: rows r, r+40, r+80 score identically against any query
    D = np.concatenate([base, base, base])
    Q = base[:10]
    s, i = nb.topk(Q, D, 5, backend=nb.Exact(selector=selector))
    ref_s, ref_i = brute(Q, D, 5)
    np.testing.assert_array_equal(i, ref_i)
    assert list(i[0, :3]) == [0, 40, 80]
    # the k-th slot cuts through a tie: still the lower rows, whatever the tiling
    s2, i2 = nb.topk(Q, D, 2, backend=nb.Exact(selector=selector), memory_budget=64 * 4)
    np.testing.assert_array_equal(i2, ref_i[:, :2])
    # with the query row itself excluded its copies come first
    s3, i3 = nb.topk(Q, D, 2, exclude=np.arange(10), backend=nb.Exact(selector=selector))
    assert [list(r) for r in i3[:3]] == [[40, 80], [41, 81], [42, 82]]


def test_numba_kernel_equals_argpartition_path(rng):
    Q = rng.standard_normal((130, 20)).astype(np.float32)
    D = rng.standard_normal((5000, 20)).astype(np.float32)
    ex = rng.integers(-1, 5000, size=(130, 4))
    a = nb.topk(Q, D, 17, exclude=ex, backend=nb.Exact(selector="numba"))
    b = nb.topk(Q, D, 17, exclude=ex, backend=nb.Exact(selector="argpartition"))
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_allclose(a[0], b[0], atol=1e-6)


def test_kernel_topk_rows_matches_sort_and_honours_exclusions(rng):
    from embgeo.kernels.topk import topk_rows

    S = rng.standard_normal((50, 333)).astype(np.float64)
    S[:, 100:110] = S[:, :1]  # ties
    ptr = np.arange(0, 101, 2, dtype=np.int64)
    idx = np.sort(rng.choice(333, size=(50, 2), replace=False), axis=1).ravel().astype(np.int64)
    ref = S.copy()
    ref[np.repeat(np.arange(50), 2), idx] = -np.inf
    order = np.lexsort((np.broadcast_to(np.arange(333), S.shape), -ref), axis=1)[:, :7]
    v, c = topk_rows(S.copy(), 7, ptr, idx)
    np.testing.assert_array_equal(c, order)
    np.testing.assert_array_equal(v, np.take_along_axis(ref, order, 1))


@pytest.mark.parametrize("selector", SELECTORS)
def test_tiny_memory_budget_forces_many_blocks_same_result(data, selector):
    Q, D = data
    a = nb.topk(Q, D, 8, backend=nb.Exact(selector=selector), exclude=np.arange(len(Q)))
    b = nb.topk(Q, D, 8, backend=nb.Exact(selector=selector), exclude=np.arange(len(Q)), memory_budget=1)
    c = nb.topk(Q, D, 8, backend=nb.Exact(selector=selector, n_jobs=2), exclude=np.arange(len(Q)),
                memory_budget=3 * 700 * 4)
    for x in (b, c):
        np.testing.assert_array_equal(a[1], x[1])
        np.testing.assert_allclose(a[0], x[0], atol=1e-6)


def test_thread_count_does_not_change_results(rng):
    Q = rng.standard_normal((600, 10)).astype(np.float32)
    D = rng.standard_normal((9000, 10)).astype(np.float32)
    a = nb.topk(Q, D, 5, backend=nb.Exact(n_jobs=1))
    b = nb.topk(Q, D, 5, backend=nb.Exact(n_jobs=3))
    np.testing.assert_array_equal(a[1], b[1])


def test_float64_inputs_stay_float64(data):
    Q, D = data
    s, i = nb.topk(Q.astype(np.float64), D.astype(np.float64), 4)
    assert s.dtype == np.float64
    np.testing.assert_array_equal(i, brute(Q, D, 4)[1])


@pytest.mark.parametrize("selector", SELECTORS)
def test_fortran_ordered_and_strided_inputs_give_the_same_result(data, selector):
    Q, D = data
    ref = nb.topk(Q, D, 5, backend=nb.Exact(selector=selector))
    for Dv, Qv in ((np.asfortranarray(D), Q), (D, np.asfortranarray(Q)), (D[:, ::1], Q[::1, :])):
        np.testing.assert_array_equal(nb.topk(Qv, Dv, 5, backend=nb.Exact(selector=selector))[1], ref[1])
    wide = np.repeat(D, 2, axis=1)[:, ::2]  # equals D, but neither stride is one element
    np.testing.assert_array_equal(nb.topk(Q, wide, 5, backend=nb.Exact(selector=selector))[1], ref[1])


def test_one_dimensional_query_and_empty_query_block(data):
    Q, D = data
    s, i = nb.topk(Q[0], D, 3)
    assert s.shape == (1, 3)
    s, i = nb.topk(Q[:0], D, 3)
    assert s.shape == (0, 3) and i.shape == (0, 3)


def test_bad_input_raises_clear_errors(data):
    Q, D = data
    with pytest.raises(ValueError, match="at least 1"):
        nb.topk(Q, D, 0)
    with pytest.raises(ValueError, match="exceeds the 700 candidates"):
        nb.topk(Q, D, 701)
    with pytest.raises(ValueError, match="exceeds the 699 candidates"):
        nb.topk(Q, D, 700, exclude=np.arange(len(Q)))
    with pytest.raises(ValueError, match="dimension 11 but the database has 12"):
        nb.topk(Q[:, :11], D, 3)
    Qn = Q.copy()
    Qn[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or inf.*row 3"):
        nb.topk(Qn, D, 3)
    with pytest.raises(ValueError, match="metric"):
        nb.topk(Q, D, 3, metric="euclidean")
    with pytest.raises(ValueError, match="selector must be 'auto', 'numba' or 'argpartition', got 'heap'"):
        nb.Exact(selector="heap")
    with pytest.raises(ValueError, match="exclude has 2 rows for 45"):
        nb.topk(Q, D, 3, exclude=[1, 2])
    with pytest.raises(ValueError, match="database has 700 rows"):
        nb.topk(Q, D, 3, exclude=np.full(len(Q), 700))
    with pytest.raises(TypeError, match="integer"):
        nb.topk(Q, D, 2.5)


def test_every_namespace_and_device_matches_numpy(array_namespace, rng):
    # small: the CUDA namespace runs simulated where there is no GPU
    D = rng.standard_normal((70, 12)).astype(np.float32)
    Q = rng.standard_normal((6, 12)).astype(np.float32)
    ns, kw = array_namespace, array_namespace.kwargs
    ex = [np.array([r, r + 1]) for r in range(len(Q))]
    s, i = nb.topk(ns.asarray(Q), ns.asarray(D), 6, exclude=ex, **kw)
    assert type(i) is type(ns.asarray(np.zeros(1)))
    ref_s, ref_i = nb.topk(Q, D, 6, exclude=ex)
    np.testing.assert_array_equal(to_numpy(i), ref_i)
    np.testing.assert_allclose(to_numpy(s), ref_s, atol=0 if ns.exact else 1e-6)
    cs, ci = nb.csls_topk(ns.asarray(Q), ns.asarray(D), 4, csls_knn=3, memory_budget=70 * 4 * 5, **kw)
    ref_cs, ref_ci = nb.csls_topk(Q, D, 4, csls_knn=3)
    np.testing.assert_array_equal(to_numpy(ci), ref_ci)
    np.testing.assert_allclose(to_numpy(cs), ref_cs, atol=0 if ns.exact else 1e-5)


# ---------------------------------------------------------------------------------- CSLS
def dense_csls(Q, T, S, knn):
    """MUSE's CSLS with dense matrices: r_T over the target, r_S over the whole mapped source."""
    Qn, Tn, Sn = unit(Q), unit(T), unit(S)
    r_T = np.sort(Qn @ Tn.T, axis=1)[:, -knn:].mean(axis=1)
    r_S = np.sort(Tn @ Sn.T, axis=1)[:, -knn:].mean(axis=1)
    return 2 * Qn @ Tn.T - r_T[:, None] - r_S[None, :]


@pytest.mark.parametrize("selector", SELECTORS)
def test_csls_equals_dense_formula(rng, selector):
    S = rng.standard_normal((300, 10)).astype(np.float32)   # whole mapped source vocabulary
    T = rng.standard_normal((400, 10)).astype(np.float32)   # target vocabulary
    Q = S[:25]
    C = dense_csls(Q, T, S, 7)
    ref_i = np.argsort(-C, axis=1, kind="stable")[:, :5]
    s, i = nb.csls_topk(Q, T, 5, csls_knn=7, source=S, backend=nb.Exact(selector=selector), memory_budget=400 * 4 * 3)
    np.testing.assert_array_equal(i, ref_i)
    np.testing.assert_allclose(s, np.take_along_axis(C, ref_i, 1), atol=1e-5)
    # the same with r_S precomputed, and without source (queries as the source space)
    rS = nb.knn_mean_similarity(T, S, 7)
    np.testing.assert_allclose(rS, np.sort(unit(T) @ unit(S).T, axis=1)[:, -7:].mean(1), atol=1e-6)
    np.testing.assert_array_equal(nb.csls_topk(Q, T, 5, csls_knn=7, r_database=rS)[1], ref_i)
    C_q = dense_csls(Q, T, Q, 7)
    np.testing.assert_array_equal(nb.csls_topk(Q, T, 5, csls_knn=7)[1],
                                  np.argsort(-C_q, axis=1, kind="stable")[:, :5])


def test_csls_bad_r_shapes_and_knn(rng):
    T = rng.standard_normal((50, 4)).astype(np.float32)
    with pytest.raises(ValueError, match="r_database must have shape"):
        nb.csls_topk(T[:3], T, 2, r_database=np.zeros(7))
    with pytest.raises(ValueError, match="knn"):
        nb.csls_topk(T[:3], T, 2, csls_knn=0)



def _count_norm_passes(monkeypatch):
    """Row counts of every inverse-norm pass the local engine makes from now on."""
    from embgeo.neighbors import _exact

    seen, real = [], _exact.inverse_norms

    def spy(X, *args, **kwargs):
        seen.append(X.shape[0])
        return real(X, *args, **kwargs)

    monkeypatch.setattr(_exact, "inverse_norms", spy)
    return seen


def test_word_query_csls_search_makes_one_norm_pass_for_the_queries_only(small_embeddings, monkeypatch):
    e = small_embeddings
    ref = nb.search(e, ["w3", "w40", "w7"], k=4, metric="csls", csls_knn=5)  # caches e's inverse norms
    seen = _count_norm_passes(monkeypatch)
    got = nb.search(e, ["w3", "w40", "w7"], k=4, metric="csls", csls_knn=5)
    assert seen == [3]
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_array_equal(got[1], ref[1])


# ---------------------------------------------------------------------------------- FAISS
@pytest.mark.parametrize("metric", ["cosine", "dot"])
def test_faiss_flat_agrees_with_exact(data, metric):
    Q, D = data
    ex = np.arange(len(Q))
    s, i = faiss_search(Q, D, 7, metric=metric, exclude=ex)
    ref_s, ref_i = nb.topk(Q, D, 7, metric=metric, exclude=ex)
    np.testing.assert_allclose(s, ref_s, rtol=1e-5, atol=1e-5)
    # indices may differ only at near-ties: there the two lists hold (almost) the same score
    differ = i != ref_i
    assert np.all(np.abs(s[differ] - ref_s[differ]) < 1e-5)
    assert differ.mean() < 0.05
    assert i.dtype == np.int64


def test_faiss_flat_respects_tie_convention(rng):
    base = rng.standard_normal((30, 6)).astype(np.float32)
    D = np.concatenate([base, base])
    s, i = faiss_search(base[:5], D, 3, exclude=np.arange(5))
    np.testing.assert_array_equal(i[:, 0], np.arange(5) + 30)


def test_hnsw_recall_is_high_on_small_data(rng):
    D = rng.standard_normal((3000, 16)).astype(np.float32)
    Q = rng.standard_normal((200, 16)).astype(np.float32)
    _, ref = nb.topk(Q, D, 10)
    index = FaissIndex(16, metric="cosine", kind="hnsw")
    index.add(D)
    _, i = index.search(Q, 10)
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(i, ref)])
    assert recall > 0.9


def test_ivf_with_all_lists_probed_is_exact(rng):
    D = rng.standard_normal((2000, 8)).astype(np.float32)
    Q = D[:20] + 0.01
    index = FaissIndex(8, metric="dot", kind="ivf", nlist=10, nprobe=10)
    index.add(D)
    np.testing.assert_array_equal(index.search(Q, 5)[1], nb.topk(Q, D, 5, metric="dot")[1])
    with pytest.raises(ValueError, match="needs at least 10 vectors"):
        FaissIndex(8, kind="ivf", nlist=10).add(D[:5])


@pytest.mark.parametrize("kind", ["flat", "hnsw", "ivf"])
def test_faiss_index_save_load_round_trip(tmp_path, rng, kind):
    D = rng.standard_normal((500, 8)).astype(np.float32)
    params = {"nlist": 8} if kind == "ivf" else {}
    index = FaissIndex(8, metric="cosine", kind=kind, **params)
    index.add(D[:300])
    index.add(D[300:])
    assert len(index) == index.ntotal == 500
    path = tmp_path / "words.faiss"
    index.save(path)
    index.save(path)  # overwrite in place, atomically
    again = FaissIndex.load(path)
    assert (again.metric, again.kind, again.params) == (index.metric, index.kind, index.params)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["words.faiss", "words.faiss.json"]
    Q = D[:10] * 7.0  # cosine must be re-applied to the queries after loading
    a, b = index.search(Q, 4), again.search(Q, 4)
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_allclose(b[0][:, 0], 1.0, atol=1e-5) if kind == "flat" else None
    np.testing.assert_allclose(again.reconstruct([3]), unit(D[3:4]), atol=1e-6)


def test_faiss_bad_input(rng, tmp_path):
    D = rng.standard_normal((20, 4)).astype(np.float32)
    index = FaissIndex(4)
    with pytest.raises(ValueError, match="empty"):
        index.search(D, 1)
    index.add(D)
    with pytest.raises(ValueError, match="dimension 3 but the index has dimension 4"):
        index.search(D[:, :3], 1)
    with pytest.raises(ValueError, match="exceeds the 20 candidates"):
        index.search(D, 21)
    with pytest.raises(ValueError, match="metric"):
        FaissIndex(4, metric="l2")
    with pytest.raises(ValueError, match="kind"):
        FaissIndex(4, kind="pq")
    with pytest.raises(TypeError, match="nprobe"):
        FaissIndex(4, kind="hnsw", nprobe=3)
    Dn = D.copy()
    Dn[2, 0] = np.inf
    with pytest.raises(ValueError, match="row 2"):
        index.search(Dn, 1)
    with pytest.raises(FileNotFoundError, match="json"):
        FaissIndex.load(tmp_path / "missing.faiss")


# -------------------------------------------------------------------- Embeddings-level API
def test_search_excludes_query_words_and_backends_agree(small_embeddings):
    e = small_embeddings
    words = ["w3", "w17", "w150"]
    s, i = embgeo.neighbors.search(e, words, k=6)
    ref_s, ref_i = brute(e[words], e.vectors, 6, exclude=[[3], [17], [150]])
    np.testing.assert_array_equal(i, ref_i)
    fs, fi = e.neighbors(words, k=6, backend="faiss")
    np.testing.assert_array_equal(fi, ref_i)
    ds, di = e.neighbors(words, k=6, metric="dot")
    np.testing.assert_array_equal(di, brute(e[words], e.vectors, 6, "dot", exclude=[[3], [17], [150]])[1])
    cs, ci = e.neighbors(words, k=4, metric="csls", source=e.vectors)
    C = dense_csls(e[words], e.vectors, e.vectors, 10)
    C[[0, 1, 2], [3, 17, 150]] = -np.inf
    np.testing.assert_array_equal(ci, np.argsort(-C, axis=1, kind="stable")[:, :4])
    # vector queries are not excluded
    assert e.neighbors(e[["w3"]], k=1)[1][0, 0] == 3
    assert e.neighbors("w3", k=1, exclude_self=False)[1][0, 0] == 3


def test_search_bad_metric_or_backend(small_embeddings):
    with pytest.raises(ValueError, match="metric"):
        small_embeddings.neighbors("w1", metric="l1")
    with pytest.raises(ValueError, match="backend"):
        small_embeddings.neighbors("w1", backend="annoy")
    with pytest.raises(ValueError, match="csls"):
        small_embeddings.neighbors("w1", metric="csls", backend="faiss")
    with pytest.raises(KeyError, match="nope"):
        small_embeddings.neighbors(["nope"])
    q = np.ones((2, 16), dtype=np.float32)
    q[1, 5] = np.nan
    for metric in ("cosine", "dot", "csls"):
        with pytest.raises(ValueError, match="NaN or inf.*row 1"):
            small_embeddings.neighbors(q, metric=metric)
    with pytest.raises(ValueError, match="dimension 3 but the database has 16"):
        small_embeddings.neighbors(np.ones((1, 3)), metric="dot")


def _gensim_same(e, kv, **kw):
    ours = e.most_similar(**kw)
    theirs = kv.most_similar(**kw)
    assert [w for w, _ in ours] == [w for w, _ in theirs]
    np.testing.assert_allclose([s for _, s in ours], [s for _, s in theirs], atol=1e-5)


def test_most_similar_equals_gensim_on_random_data(small_embeddings):
    e = small_embeddings
    kv = e.to_gensim()
    _gensim_same(e, kv, positive=["w1"], topn=10)
    _gensim_same(e, kv, positive=["w1", "w5"], negative=["w9"], topn=7)
    _gensim_same(e, kv, positive=["w2"], negative=["w4"], topn=5, restrict_vocab=60)
    _gensim_same(e, kv, positive=[("w1", 2.0), "w3"], topn=5)
    _gensim_same(e, kv, positive=[e["w7"] * 3], topn=5)
    with pytest.raises(ValueError, match="at least one"):
        e.most_similar()


def test_most_similar_equals_gensim_on_glove_subset(glove):
    e = glove.top(30000)
    kv = e.to_gensim()
    for kw in ({"positive": ["king", "woman"], "negative": ["man"]}, {"positive": ["frog"]},
               {"positive": ["paris", "germany"], "negative": ["france"], "restrict_vocab": 20000}):
        _gensim_same(e, kv, topn=10, **kw)
    assert e.most_similar(positive=["king", "woman"], negative=["man"], topn=1)[0][0] == "queen"


def test_glove_exact_and_faiss_flat_agree(glove):
    e = glove.top(50000)
    words = e.words[:300:3]
    s, i = e.neighbors(words, k=10)
    fs, fi = e.neighbors(words, k=10, backend="faiss")
    np.testing.assert_allclose(s, fs, atol=1e-5)
    differ = i != fi
    assert differ.mean() < 0.01
    gap = np.abs(s[differ] - fs[differ])
    assert np.all(gap < 1e-5)


def test_word_query_csls_uses_the_whole_vocabulary_as_source_space(rng):
    from embgeo import Embeddings
    from embgeo.neighbors import search

    X = rng.standard_normal((120, 8)).astype(np.float32)
    e = Embeddings([f"w{i}" for i in range(120)], X)
    U = X.astype(np.float64) / np.linalg.norm(X, axis=1, keepdims=True)
    S = U @ U.T
    knn = 5
    r = np.sort(S, axis=1)[:, ::-1][:, :knn].mean(axis=1)  # r_S(y) over the whole vocabulary
    q = [3, 40]
    csls = 2 * S[q] - r[q][:, None] - r[None, :]
    csls[np.arange(2), q] = -np.inf
    _, ids = search(e, ["w3", "w40"], k=4, metric="csls", csls_knn=knn)
    assert np.array_equal(np.asarray(ids), np.argsort(-csls, axis=1, kind="stable")[:, :4])


def test_empty_word_query_list_gives_empty_results(rng):
    from embgeo import Embeddings

    e = Embeddings([f"w{i}" for i in range(10)], rng.standard_normal((10, 4)).astype(np.float32))
    s, i = e.neighbors([], k=2)
    assert s.shape == (0, 2) and i.shape == (0, 2)


def test_most_similar_topn_none_returns_all_cosines_like_gensim(rng):
    from embgeo import Embeddings

    X = rng.standard_normal((50, 6)).astype(np.float32)
    e = Embeddings([f"w{i}" for i in range(50)], X)
    ours = e.most_similar(positive=["w1", "w2"], negative=["w3"], topn=None)
    theirs = e.to_gensim().most_similar(positive=["w1", "w2"], negative=["w3"], topn=None)
    assert ours.shape == (50,)
    assert np.allclose(ours, theirs, atol=1e-5)


def test_select_topk_matches_brute_force_with_exclusions_on_both_paths(rng):
    from embgeo.neighbors import select_topk

    S = rng.standard_normal((7, 30))
    S[2, 5] = S[2, 9] = S[2].max() + 1  # a tie at the top goes to the lower column
    ex = [[0, 3], [], [5], [29], [1, 2, 4], [], [7]]
    ref = S.copy()
    for r, cols in enumerate(ex):
        ref[r, cols] = -np.inf
    order = np.argsort(-ref, axis=1, kind="stable")[:, :4]
    v, i = select_topk(S.copy(), 4, exclude=ex)
    assert np.array_equal(i, order) and np.allclose(v, np.take_along_axis(ref, order, axis=1))
    xps = pytest.importorskip("array_api_strict")
    v2, i2 = select_topk(xps.asarray(S), 4, exclude=ex)
    assert np.array_equal(np.asarray(i2), order)
    with pytest.raises(ValueError, match="exceeds"):
        select_topk(S.copy(), 28, exclude=ex)


# ------------------------------------------------------------------ shards, memory, FAISS cache
def test_merge_topk_orders_ties_by_lower_id_and_padding_last():
    a = (np.array([[0.5, -np.inf]]), np.array([[9, -1]]))
    b = (np.array([[0.5, 0.1]]), np.array([[4, 2]]))
    s, i = nb.merge_topk([a, b], k=4)
    assert i.tolist() == [[4, 9, 2, -1]]
    with pytest.raises(ValueError, match="part 1"):
        nb.merge_topk([a, (np.zeros((2, 2)), np.zeros((2, 2)))])


def test_inverse_norms_match_numpy_and_name_the_bad_row(rng):
    X = rng.standard_normal((1000, 7)).astype(np.float32)
    X[5] = 0
    inv = inverse_norms(X, memory_budget=7 * 40)  # many blocks
    n = np.linalg.norm(X.astype(np.float64), axis=1)
    np.testing.assert_allclose(inv, np.where(n > 0, 1 / np.where(n > 0, n, 1), 0), rtol=1e-6)
    X[777, 3] = np.nan
    with pytest.raises(ValueError, match="row 777"):
        inverse_norms(X, memory_budget=7 * 40)


def _traced_peak(fn):
    with traced_memory() as trace:
        out = fn()
        return trace.peak, out


@pytest.mark.parametrize("call", ["topk", "neighbors", "csls"])
def test_first_search_never_copies_the_matrix(rng, call):
    # issue 11: extra memory is bounded by the budget, not by the matrix (main made a unit copy)
    X = rng.standard_normal((30000, 48)).astype(np.float32)
    e = embgeo.Embeddings([f"w{i}" for i in range(len(X))], X, check_finite=False)
    words = [f"w{i}" for i in range(0, 30000, 150)]
    budget = 2**18
    fns = {"topk": lambda: nb.topk(X[:200], X, 10, memory_budget=budget),
           "neighbors": lambda: e.neighbors(words, 10, memory_budget=budget),
           "csls": lambda: e.neighbors(words, 10, metric="csls", memory_budget=budget)}
    small = embgeo.Embeddings(["a", "b", "c"], X[:3])
    nb.topk(X[:2], X[:50], 3, memory_budget=budget)  # compile (Numba's allocations are not the search's)
    small.neighbors(["a"], 1, metric="csls", csls_knn=1, memory_budget=budget)
    peak, (s, i) = _traced_peak(fns[call])
    assert peak < 0.35 * X.nbytes, f"extra memory {peak / X.nbytes:.2f}x the matrix"
    if call != "csls":
        Q = X[:200] if call == "topk" else X[::150]
        ex = None if call == "topk" else [[j] for j in range(0, 30000, 150)]
        np.testing.assert_array_equal(i[:20], brute(Q[:20], X, 10, exclude=None if ex is None else ex[:20])[1])


def test_memory_mapped_embeddings_search_block_by_block(tmp_path, rng):
    X = rng.standard_normal((3000, 16)).astype(np.float32)
    words = [f"w{i}" for i in range(len(X))]
    embgeo.save(embgeo.Embeddings(words, X), tmp_path / "small.embgeo")
    e = embgeo.load(tmp_path / "small.embgeo", mmap=True)
    assert isinstance(e.vectors, np.memmap) or not e.vectors.flags.owndata
    s, i = e.neighbors(words[:30], 5)
    np.testing.assert_array_equal(i, brute(X[:30], X, 5, exclude=[[j] for j in range(30)])[1])


def test_hnsw_index_is_built_once_and_reused(small_embeddings, monkeypatch):
    pytest.importorskip("faiss")
    e = small_embeddings
    builds = []
    orig = FaissIndex._build
    monkeypatch.setattr(FaissIndex, "_build", lambda self, *a: (builds.append(self.kind), orig(self, *a))[1])
    first = e.neighbors(["w1"], 5, backend=nb.Faiss("hnsw"))
    for _ in range(3):
        again = e.neighbors(["w2", "w1"], 5, backend=nb.Faiss("hnsw"))
    np.testing.assert_array_equal(again[1][1], first[1][0])
    assert builds == ["hnsw"]
    e.neighbors(["w1"], 5, backend=nb.Faiss("hnsw", ef_search=128))  # other parameters: a new index
    e.neighbors(["w1"], 5, backend=nb.Faiss("hnsw"), metric="dot")  # other metric: a new index
    assert builds == ["hnsw"] * 3


def test_prebuilt_and_adopted_plain_faiss_index(small_embeddings, tmp_path):
    faiss = pytest.importorskip("faiss")
    e = small_embeddings
    U = unit(e.vectors).astype(np.float32)
    raw = faiss.IndexFlatIP(e.dim)
    raw.add(U)
    faiss.write_index(raw, str(tmp_path / "plain.faiss"))
    with pytest.raises(FileNotFoundError, match="words="):
        FaissIndex.load(tmp_path / "plain.faiss")
    index = FaissIndex.load(tmp_path / "plain.faiss", words=e.words)
    assert (index.kind, index.metric, index.words[:2]) == ("flat", "cosine", ["w0", "w1"])
    s, i = e.neighbors(["w3", "w7"], 6, backend=nb.Faiss(index=index))
    np.testing.assert_array_equal(i, e.neighbors(["w3", "w7"], 6)[1])
    with pytest.raises(ValueError, match="199 words"):
        FaissIndex.load(tmp_path / "plain.faiss", words=e.words[1:])
    other = embgeo.Embeddings([f"v{i}" for i in range(len(e))], e.vectors)
    with pytest.raises(ValueError, match="row 0"):
        other.neighbors(["v1"], 3, backend=nb.Faiss(index=index))


def test_the_engine_modules_never_import_the_facade_above_them():
    import ast
    import pathlib

    package = pathlib.Path(nb.__file__).parent
    engines = [*package.glob("*.py"), package.parent / "validation.py", *(package.parent / "distributed").glob("*.py")]
    for path in engines:
        if path.name == "__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            names = {a.name for a in node.names}
            inside = path.parent == package
            top = 1 if path.parent == package.parent else 2  # the level of `from ..` that reaches embgeo
            facade = (node.level == top and (node.module == "neighbors" or
                                                            (node.module is None and "neighbors" in names)))
            facade |= inside and node.level == 1 and node.module is None and any(
                not (n.startswith("_") or n == "faiss_index") for n in names)
            assert not facade and node.module != "embgeo.neighbors", f"{path.name} imports the façade"


def test_engine_objects_check_their_options_when_made_and_show_what_differs():
    assert (repr(nb.Exact()), repr(nb.Dask()), repr(nb.Cuda()), repr(nb.Faiss())) == \
        ("Exact()", "Dask()", "Cuda()", "Faiss()")
    assert repr(nb.Exact(n_jobs=2, selector="argpartition")) == "Exact(selector='argpartition', n_jobs=2)"
    assert repr(nb.Dask(query_block=64)) == "Dask(query_block=64)"
    assert repr(nb.Faiss("hnsw", ef_search=128)) == "Faiss('hnsw', ef_search=128)"
    for make, error, match in [
        (lambda: nb.Exact(n_jobs=0), ValueError, "n_jobs must be a positive integer or None"),
        (lambda: nb.Exact(n_jobs=True), ValueError, "n_jobs must be a positive integer"),
        (lambda: nb.Exact(screen="yes"), TypeError, "screen must be None, a bool or a screening index"),
        (lambda: nb.Dask(query_block=0), ValueError, "query_block must be a positive integer"),
        (lambda: nb.Dask(client="tcp://127.0.0.1:8786"), TypeError, "client must be a dask.distributed Client"),
        (lambda: nb.Dask(screen=True), TypeError, "screen"),
        (lambda: nb.Faiss("annoy"), ValueError, "kind must be one of"),
        (lambda: nb.Faiss("flat", M=16), TypeError, "unknown parameter.*M"),
    ]:
        with pytest.raises(error, match=match):
            make()
    engine = nb.Exact()
    with pytest.raises(AttributeError):
        engine.n_jobs = 3  # frozen: an engine given to many calls cannot change under them
    faiss_engine = nb.Faiss()
    with pytest.raises(AttributeError, match="frozen"):
        faiss_engine.kind = "hnsw"


def test_a_name_is_its_engine_with_defaults_and_a_wrong_engine_is_named(data):
    Q, D = data
    for name, engine in (("exact", nb.Exact()), ("cuda", nb.Cuda())):
        a, b = nb.topk(Q, D, 4, backend=name), nb.topk(Q, D, 4, backend=engine)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    with pytest.raises(ValueError, match="backend must be 'exact', 'dask' or 'cuda', got Faiss\\(\\).*faiss_search"):
        nb.topk(Q, D, 2, backend=nb.Faiss())
    with pytest.raises(TypeError, match="backend must be a name .* or an engine object"):
        nb.topk(Q, D, 2, backend=3)
    with pytest.raises(ValueError, match="backend must be 'exact', got Dask"):
        nb.isf_topk(Q, D, 2, source=D, backend=nb.Dask())
    with pytest.raises(ValueError, match="CSLS does not screen"):
        nb.csls_topk(Q, D, 2, backend=nb.Exact(screen=True))


def test_search_refuses_an_option_its_metric_does_not_take(small_embeddings):
    with pytest.raises(TypeError, match="unexpected keyword argument.*n_jobs"):
        small_embeddings.neighbors("w1", n_jobs=2)
    with pytest.raises(TypeError, match="FAISS engine got unexpected keyword argument.*kind"):
        small_embeddings.neighbors("w1", backend="faiss", kind="hnsw")


def test_the_package_exports_its_functions_and_criteria_tables():
    functions = ["topk", "csls_topk", "isf_topk", "isf_log_partition", "knn_mean_similarity", "search",
                 "most_similar", "merge_topk", "select_topk", "self_topk", "as_engine", "check_metric",
                 "check_retrieval", "reduction_topk", "reduction_ranks", "reduction_stats"]
    tables = ["VALID_METRICS", "PAIRWISE_METRICS", "ARRAY_BACKENDS", "REDUCTION_METRICS", "RETRIEVAL_METRICS",
              "VALID_RETRIEVALS"]
    engines = ["Exact", "Dask", "Cuda", "Faiss"]
    assert sorted(nb.__all__) == sorted(functions + tables + engines)
    assert all(callable(getattr(nb, name)) for name in functions)


@pytest.mark.parametrize("metric", ["cosine", "dot"])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_self_topk_equals_brute_force_with_self_excluded(rng, metric, n_jobs):
    X = rng.standard_normal((900, 10)).astype(np.float32)
    X[17] = 0  # a zero row: cosine 0 with everything
    ref_s, ref_i = brute(X, X, 6, metric=metric, exclude=[[r] for r in range(len(X))])
    for symmetric in (True, False, None):
        s, i = nb.self_topk(X, 6, metric=metric, memory_budget=64 * 300 * 4, backend=nb.Exact(n_jobs=n_jobs),
                            symmetric=symmetric)  # many blocks
        np.testing.assert_array_equal(i, ref_i)
        np.testing.assert_allclose(s, ref_s, rtol=1e-5, atol=1e-5)
    xps = pytest.importorskip("array_api_strict")
    s2, i2 = nb.self_topk(xps.asarray(X[:200]), 3, metric=metric)
    np.testing.assert_array_equal(np.asarray(i2), brute(X[:200], X[:200], 3, metric=metric,
                                                        exclude=[[r] for r in range(200)])[1])


@pytest.mark.parametrize("k", [127, 128, 700])
def test_large_k_lists_equal_a_lexsort_with_ties(rng, k):
    # k on both sides of the finalize switch (insertion sort below 128, two sorts from 128 on);
    # integer-valued scores make many exact ties, which must go to the lower row
    D = rng.integers(-3, 4, size=(900, 4)).astype(np.float32)
    Q = D[:3]
    s, i = nb.topk(Q, D, k, metric="dot", exclude=[0, 1, 2], progress=False)
    S = Q.astype(np.float64) @ D.T.astype(np.float64)
    for r in range(3):
        S[r, r] = -np.inf
        order = np.lexsort((np.arange(D.shape[0]), -S[r]))[:k]
        np.testing.assert_array_equal(i[r], order)
        np.testing.assert_array_equal(s[r], S[r, order].astype(np.float32))


def test_word_query_csls_keeps_r_of_the_vocabulary_and_equals_the_uncached_search(rng, monkeypatch):
    words = [f"w{i}" for i in range(400)]
    e = embgeo.Embeddings(words, rng.standard_normal((400, 6)).astype(np.float32))
    ref = nb.csls_topk(e[["w3", "w7"]], e.vectors, 5, csls_knn=4, source=e.vectors, exclude=[3, 7])
    first = e.neighbors(["w3", "w7"], k=5, metric="csls", csls_knn=4)
    calls = []
    from embgeo.neighbors import _exact

    real = _exact.knn_mean_similarity
    monkeypatch.setattr(_exact, "knn_mean_similarity", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    again = e.neighbors(["w1"], k=5, metric="csls", csls_knn=4)
    assert calls == []  # r_S of the vocabulary was kept with e
    e.neighbors(["w1"], k=5, metric="csls", csls_knn=6)
    assert calls == [1]  # another csls_knn is another r_S
    np.testing.assert_array_equal(first[0], ref[0])
    np.testing.assert_array_equal(first[1], ref[1])
    assert again[1].shape == (1, 5)


def test_topk_stays_within_its_memory_budget_with_a_narrow_last_tile():
    """The score tiles are the budget: the last, narrower tile of a pass reuses the tile buffer
    instead of allocating another (which took the search to 1.8× its budget)."""
    rng = np.random.default_rng(0)
    D = rng.standard_normal((40_000, 51)).astype(np.float32)  # 40,000 = 9 tiles of 4,096 + a narrow one
    Q = rng.standard_normal((1_000, 51)).astype(np.float32)
    budget = 8 * 2**20
    nb.topk(Q[:3], D, 20, metric="dot", memory_budget=budget)  # compile outside the measurement
    with traced_memory() as trace:
        nb.topk(Q, D, 20, metric="dot", memory_budget=budget, check_finite=False)
        peak = trace.peak
    assert peak <= 1.15 * budget, f"{peak / 2**20:.1f} MiB for a budget of {budget / 2**20:.0f} MiB"


# ------------------------------------------------------------------------- hypothesis properties
from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

PROPERTY = settings(max_examples=40, deadline=None, derandomize=True)
# few distinct small integers: many exact ties, and every dot product is exact in float32
SMALL_INTS = st.sampled_from([-2.0, -1.0, 0.0, 1.0, 2.0])


@st.composite
def search_problems(draw):
    """(Q, D, exclude, k, memory_budget): up to 3 excluded rows per query (-1 ignored), 1 ≤ k ≤ what remains."""
    n, q, d = draw(st.integers(1, 50)), draw(st.integers(1, 5)), draw(st.integers(1, 4))
    D = draw(hnp.arrays(np.float32, (n, d), elements=SMALL_INTS))
    Q = draw(hnp.arrays(np.float32, (q, d), elements=SMALL_INTS))
    exclude = draw(st.lists(st.lists(st.integers(-1, n - 1), max_size=3), min_size=q, max_size=q))
    room = n - max(len({c for c in row if c >= 0}) for row in exclude)
    assume(room >= 1)
    k = draw(st.integers(1, room))
    budget = draw(st.sampled_from([None, 1, 600]))  # one tile, the narrowest tiles, a few tiles
    return Q, D, exclude, k, budget


def _brute_ties_low(S, exclude, k):
    """Each row's k best columns among the allowed ones: score descending, ties to the lower column."""
    rows = []
    for r, s in enumerate(S):
        allowed = np.setdiff1d(np.arange(s.size), [c for c in exclude[r] if c >= 0])
        order = np.lexsort((allowed, -s[allowed]))[:k]
        rows.append(allowed[order])
    return np.array(rows, dtype=np.int64)


@PROPERTY
@given(problem=search_problems())
def test_topk_dot_equals_brute_force_with_ties_to_the_lower_row(problem):
    Q, D, exclude, k, budget = problem
    s, i = nb.topk(Q, D, k, metric="dot", exclude=exclude, memory_budget=budget)
    S = Q.astype(np.float64) @ D.astype(np.float64).T  # exact: small integers
    want = _brute_ties_low(S, exclude, k)
    np.testing.assert_array_equal(i, want)
    np.testing.assert_array_equal(s, np.take_along_axis(S, want, axis=1).astype(np.float32))


@PROPERTY
@given(problem=search_problems())
def test_topk_cosine_equals_brute_force_up_to_rounding(problem):
    """Cosine scores are not exact: the lists' scores match the float64 ones, excluded rows never appear."""
    Q, D, exclude, k, budget = problem
    s, i = nb.topk(Q, D, k, metric="cosine", exclude=exclude, memory_budget=budget)
    S = unit(Q) @ unit(D).T
    want = _brute_ties_low(S, exclude, k)
    np.testing.assert_allclose(s, np.take_along_axis(S, want, axis=1), atol=1e-6)
    np.testing.assert_allclose(s, np.take_along_axis(S, i, axis=1), atol=1e-6)
    for r in range(len(Q)):
        assert not set(i[r]) & {c for c in exclude[r] if c >= 0}
        assert len(set(i[r])) == k
        assert all(np.diff(s[r]) <= 0)


@st.composite
def sharded_problems(draw):
    """(Q, D, k, cuts, exclude): random float rows cut into shards of at least k rows each, some of them
    copies of a query (which another shard then holds too), and up to 2 excluded rows per query (ids of
    the whole, so a shard gets the ids of other shards as well)."""
    k, n_shards = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    sizes = draw(st.lists(st.integers(k + 2, k + 20), min_size=n_shards, max_size=n_shards))
    d = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    D = rng.standard_normal((n, d)).astype(np.float32)
    D[rng.random(len(D)) < 0.2] = D[0]  # repeated rows: exact ties across shards
    Q = rng.standard_normal((draw(st.integers(1, 4)), d)).astype(np.float32)
    Q[0] = D[0]  # a query whose best rows are the ties
    exclude = [rng.choice(n, int(rng.integers(0, 3)), replace=False).astype(np.int64) for _ in range(len(Q))]
    return Q, D, k, np.cumsum([0] + sizes), exclude


@PROPERTY
@given(problem=sharded_problems(), metric=st.sampled_from(["cosine", "dot"]))
def test_merge_topk_of_shards_equals_the_whole_search_bit_for_bit(problem, metric):
    """Per-shard top-k lists merged equal the search of the whole, scores bit for bit: ties across shards
    go to the lower row, an excluded row is excluded from whichever shard holds it, the shards' order is
    irrelevant."""
    Q, D, k, cuts, exclude = problem
    whole = nb.topk(Q, D, k, metric=metric, exclude=exclude)
    parts = []
    for a, b in zip(cuts[:-1], cuts[1:]):  # each shard searched alone: its own rows, then made global
        s, i = nb.topk(Q, D[a:b], k, metric=metric, exclude=[x[(x >= a) & (x < b)] - a for x in exclude])
        parts.append((s, i + a))
    for merged in (nb.merge_topk(parts, k), nb.merge_topk(parts[::-1], k)):  # nor on the shards' order
        np.testing.assert_array_equal(merged[1], whole[1])
        np.testing.assert_array_equal(merged[0], whole[0])


@pytest.mark.parametrize("selector", ["auto", "argpartition"])
def test_a_nan_row_never_yields_a_row_that_does_not_exist(selector):
    # topk(check_finite=False) lets a NaN row in; it ranks nowhere, so k = n - 1 cannot be filled
    X = np.random.default_rng(0).standard_normal((20, 8)).astype(np.float32)
    X[5] = np.nan
    with pytest.raises(ValueError, match=r"fewer than k=19 rows with a finite score.*row 5"):
        nb.topk(X[1:2], X, 19, exclude=[1], backend=nb.Exact(selector=selector), check_finite=False)
    s, i = nb.topk(X[1:2], X, 3, exclude=[1], backend=nb.Exact(selector=selector), check_finite=False)
    assert np.isfinite(s).all() and (i < 20).all()
    # Embeddings (check_finite=False) refuse the row before any search, naming its word (issue 38)
    e = embgeo.Embeddings([f"w{i}" for i in range(20)], X, check_finite=False)
    for search in (lambda: e.neighbors(["w1"], k=3, backend=nb.Exact(selector=selector)),
                   lambda: e.most_similar("w1", topn=3)):
        with pytest.raises(ValueError, match=r"row 5 \('w5'\) of the embeddings has a non-finite value"):
            search()


def test_a_budget_below_the_floor_is_raised_to_it_with_a_warning(monkeypatch, rng):
    from embgeo import blocking

    floor = blocking.TILE_ROWS * blocking.TILE_COLS * 4  # the real floor (conftest lifts it for other tests)
    monkeypatch.setattr(blocking, "MIN_MEMORY_BUDGET", floor, raising=False)
    X = rng.standard_normal((40000, 48)).astype(np.float32)
    Q = X[:400]
    nb.topk(Q[:2], X[:50], 3)  # compile (Numba's allocations are not the search's)
    with pytest.warns(UserWarning, match=r"memory_budget=65536 bytes is below the floor of 4194304 bytes \(4 MiB"):
        peak, (s, i) = _traced_peak(lambda: nb.topk(Q, X, 10, memory_budget=64 * 1024))
    # the tiles take the floor; the rest (heaps, blocks of queries, n inverse norms) is small beside it
    assert peak <= 1.25 * floor, f"extra memory {peak / 2**20:.1f} MiB"
    np.testing.assert_array_equal(i, brute(Q, X, 10)[1])
    # the budget used is the floor's: the same tiles, and a part of it is not raised again
    with pytest.warns(UserWarning, match="floor"):
        assert blocking.tile_shape(40000, 400, 2, 4, 64 * 1024) == blocking.tile_shape(40000, 400, 2, 4, floor)
    assert blocking.budget_bytes(blocking.share(64 * 1024, 4)) == floor // 4
