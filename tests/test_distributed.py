"""backend="dask": sharded exact search on a LocalCluster of 2 worker processes equals the local search
and a brute-force formulation written from the definitions."""
import os

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

import embgeo  # noqa: E402
from embgeo import distributed as dd  # noqa: E402
from embgeo import negatives, neighbors, progress  # noqa: E402


def _lift_budget_floor():
    """What conftest's blocks_of_any_size does here, in a worker process: tests compare tiny-block
    results computed on the workers with those computed here."""
    from embgeo import blocking

    blocking.MIN_MEMORY_BUDGET = 1


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, worker_dashboard_address=None)
    c = distributed.Client(cluster)
    c.run(_lift_budget_floor)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    D = rng.standard_normal((3001, 16)).astype(np.float32)
    Q = rng.standard_normal((40, 16)).astype(np.float32)
    return Q, D


def brute_topk(Q, D, k, cosine=True, exclude=None, bias=None):
    """Float64 scores of all pairs, sorted by score (desc) then row (asc)."""
    Q, D = Q.astype(np.float64), D.astype(np.float64)
    if cosine:
        Q = Q / np.linalg.norm(Q, axis=1, keepdims=True)
        D = D / np.linalg.norm(D, axis=1, keepdims=True)
    S = Q @ D.T
    if bias is not None:
        S = 2 * S - bias
    if exclude is not None:
        for r, cols in enumerate(exclude):
            S[r, cols] = -np.inf
    order = np.array([np.lexsort((np.arange(S.shape[1]), -row))[:k] for row in S])
    return np.take_along_axis(S, order, axis=1), order


def test_no_client_is_a_clear_error(monkeypatch):
    def none():
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "get_client", none)
    with pytest.raises(RuntimeError, match="needs a running dask.distributed client"):
        neighbors.topk(np.ones((1, 2)), np.ones((3, 2)), 1, backend="dask")


@pytest.mark.parametrize("metric", ["cosine", "dot"])
def test_topk_equals_local_and_brute_force(client, data, metric):
    Q, D = data
    ex = np.random.default_rng(1).integers(0, len(D), size=(len(Q), 2))
    s, i = neighbors.topk(Q, D, 7, metric=metric, exclude=ex, backend="dask")
    ls, li = neighbors.topk(Q, D, 7, metric=metric, exclude=ex, progress=False)
    bs, bi = brute_topk(Q, D, 7, cosine=metric == "cosine", exclude=ex)
    np.testing.assert_array_equal(i, li)
    np.testing.assert_array_equal(i, bi)
    # float32 GEMM tiles at other offsets round the last bit differently (as a local memory_budget does)
    np.testing.assert_allclose(s, ls, rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(s, bs, rtol=1e-5, atol=1e-5)
    assert s.dtype == np.float32 and i.dtype == np.int64 and len(dd.shard(D).shards) == 2


@pytest.mark.parametrize("metric", ["cosine", "dot"])
def test_self_topk_on_dask_equals_the_local_table(client, data, metric):
    _, D = data
    s, i = neighbors.self_topk(D, 6, metric=metric, backend="dask")
    ls, li = neighbors.self_topk(D, 6, metric=metric, progress=False)
    np.testing.assert_array_equal(i, li)
    np.testing.assert_array_equal(s, ls)          # canonical scores: the same bits whatever the shards
    assert not (i == np.arange(len(D))[:, None]).any()
    with pytest.raises(ValueError, match="symmetric=True"):
        neighbors.self_topk(D, 6, symmetric=True, backend="dask")


def test_exact_ties_across_shards_go_to_the_lower_row(client):
    # small integers: every dot product is exact in float32, so ties are exact whatever the tiling
    D = np.random.default_rng(2).integers(-1, 2, size=(400, 8)).astype(np.float32)
    D[[7, 150, 250, 399]] = 3  # the best rows for that query, copies in both shards
    s, i = neighbors.topk(D[[250, 7]], D, 4, metric="dot", backend=neighbors.Dask(query_block=1))
    assert i[:, :4].tolist() == [[7, 150, 250, 399], [7, 150, 250, 399]]
    assert len(set(s[0].tolist())) == 1


def test_csls_equals_local_and_the_formula(client, data):
    Q, D = data
    src = D[:500]
    s, i = neighbors.csls_topk(Q, D, 5, csls_knn=10, source=src, backend="dask")
    ls, li = neighbors.csls_topk(Q, D, 5, csls_knn=10, source=src, progress=False)
    np.testing.assert_array_equal(i, li)
    np.testing.assert_allclose(s, ls, rtol=2e-6, atol=2e-6)
    # eq. 3 of Conneau et al. (2018), from cosines in float64
    unit = lambda X: X.astype(np.float64) / np.linalg.norm(X, axis=1, keepdims=True)  # noqa: E731
    cos_ds = unit(D) @ unit(src).T
    r_s = np.sort(cos_ds, axis=1)[:, -10:].mean(axis=1)
    r_t = np.sort(unit(Q) @ unit(D).T, axis=1)[:, -10:].mean(axis=1)
    bs, bi = brute_topk(Q, D, 5, bias=r_s)
    np.testing.assert_array_equal(i, bi)
    np.testing.assert_allclose(s, bs - r_t[:, None], atol=1e-5)


@pytest.mark.parametrize("dim", [16, 160])
def test_synonym_table_equals_local(client, data, dim):
    # bit for bit, also in the dimensions where the symmetric path used to be the local default
    D = data[1] if dim == 16 else np.random.default_rng(2).standard_normal((1501, dim)).astype(np.float32)
    e = embgeo.Embeddings([f"w{j}" for j in range(len(D))], D)
    vocab = [f"w{j}" for j in range(0, len(D), 2)] + ["unknown"]
    for kw in ({}, {"mutual": True, "threshold": 0.2, "vocabulary": vocab}):
        t = negatives.synonym_table(e, 5, progress=False, backend="dask", **kw)
        lt = negatives.synonym_table(e, 5, progress=False, **kw)
        assert t.words == lt.words
        np.testing.assert_array_equal(t.indptr, lt.indptr)
        np.testing.assert_array_equal(t.indices, lt.indices)
        np.testing.assert_array_equal(t.scores, lt.scores)
    with pytest.raises(ValueError, match="symmetric"):
        negatives.synonym_table(e, 5, progress=False, backend="dask", symmetric=True)


def test_an_engine_object_carries_its_client_to_every_search(client, data, monkeypatch):
    """``backend=Dask(client)`` searches on that client where ``backend="dask"`` needs a current one:
    the synonym table and the fuzzy search pass the engine object on, not just its name."""
    from embgeo import fuzzy

    D = data[1][:600]
    e = embgeo.Embeddings([f"w{j}" for j in range(len(D))], D)
    F = fuzzy.FuzzyEmbeddings(e.words, fuzzy.fuzzify(D))
    local_table, local_fuzzy = negatives.synonym_table(e, 4, progress=False), F.neighbors(["w3", "w599"], 5)

    def none():
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "get_client", none)       # no current client from here on
    engine = neighbors.Dask(client=client, query_block=100)
    table = negatives.synonym_table(e, 4, progress=False, backend=engine)
    np.testing.assert_array_equal(table.indices, local_table.indices)
    np.testing.assert_array_equal(table.scores, local_table.scores)
    s, i = F.neighbors(["w3", "w599"], 5, backend=engine)
    np.testing.assert_array_equal(i, local_fuzzy[1])
    np.testing.assert_array_equal(s, local_fuzzy[0])
    for run in (lambda: negatives.synonym_table(e, 4, progress=False, backend="dask"),
                lambda: F.neighbors(["w3"], 5, backend="dask")):
        with pytest.raises(RuntimeError, match="needs a running dask.distributed client"):
            run()
    with pytest.raises(ValueError, match="backend must be 'exact' or 'dask'"):
        negatives.synonym_table(e, 4, backend=neighbors.Cuda())


def test_memory_mapped_cache_is_opened_by_the_workers(client, data, tmp_path):
    Q, D = data
    e = embgeo.Embeddings([f"w{j}" for j in range(len(D))], D)
    embgeo.save(e, tmp_path / "e.embgeo")
    em = embgeo.load(tmp_path / "e.embgeo", mmap=True)
    sd = dd.shard(em.vectors)
    assert all(f.key.startswith("_open_rows") for f in sd.shards)  # no scatter of the matrix
    assert dd.shard(em.vectors) is sd  # kept on the workers between calls
    np.testing.assert_array_equal(neighbors.topk(Q, em.vectors, 5, backend="dask")[1],
                                  neighbors.topk(Q, D, 5, progress=False)[1])
    sub = dd.shard(em.vectors[1000:2000])  # a row slice of the map: its own offset in the file
    np.testing.assert_array_equal(client.gather(sub.shards[1]), D[1500:2000])


def test_embeddings_holding_a_dask_array_search_on_the_cluster(client, data):
    _, D = data
    words = [f"w{j}" for j in range(len(D))]
    e = embgeo.Embeddings(words, da.from_array(D, chunks=(1000, 16)))
    local = embgeo.Embeddings(words, D)
    for metric in ("cosine", "dot", "csls"):
        s, i = neighbors.search(e, ["w3", "w2999"], 6, metric=metric, backend="dask")
        np.testing.assert_array_equal(e.neighbors(["w3", "w2999"], 6, metric=metric, backend="dask")[1], i)
        ls, li = neighbors.search(local, ["w3", "w2999"], 6, metric=metric, progress=False)
        np.testing.assert_array_equal(i, li)
        assert 3 not in i[0] and 2999 not in i[1]
    assert len(dd.shard(e.vectors).shards) == 4  # the dask array's row chunks


def test_gram_equals_the_float64_product(client, data):
    Q, D = data
    X = da.from_array(D, chunks=(700, 16))
    np.testing.assert_allclose(dd.gram(X), D.astype(np.float64).T @ D.astype(np.float64), rtol=1e-12)
    Z = np.random.default_rng(3).standard_normal((len(D), 3))
    np.testing.assert_allclose(dd.gram(D, Z), D.astype(np.float64).T @ Z, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="rows like X"):
        dd.gram(D, Z[:5])


def _where(a, b):
    return a * b, os.getpid()


def test_map_grid_runs_the_grid_on_the_workers_in_order(client, monkeypatch, capsys):
    monkeypatch.setattr(progress, "_DELAY", 0.0)  # every task counts as long: its one line is written
    out = dd.map_grid(_where, {"a": [1, 2], "b": [10, 20, 30]}, progress=True)
    assert "grid: 6/6 call in" in capsys.readouterr().err  # counted as the calls finish on the workers
    assert [v for v, _ in out] == [10, 20, 30, 20, 40, 60]
    assert os.getpid() not in {pid for _, pid in out}
    assert dd.map_grid(_where, [{"a": 3, "b": 4}], local=True) == [(12, os.getpid())]


def _client_seen_by_a_task():
    return dd.current_client() is None


def test_current_client_is_none_without_one(monkeypatch, client):
    assert dd.current_client() is client
    # inside a task a grid runs in the task: waiting on its own cluster could hold the thread it needs
    assert dd.map_grid(_client_seen_by_a_task, [{}, {}]) == [True, True]
    monkeypatch.setattr(distributed, "get_client", lambda: (_ for _ in ()).throw(ValueError("No clients")))
    assert dd.current_client() is None


def test_postproc_grid_on_dask_equals_the_local_loop(client):
    from embgeo.crosslingual import Mapper, Preprocessing
    from embgeo.evaluate.lexicon import bli, postproc_grid_search

    rng = np.random.default_rng(11)
    X = rng.standard_normal((300, 8)).astype(np.float32)
    Q, _ = np.linalg.qr(rng.standard_normal((8, 8)))
    Z = (X @ Q + 0.6 * rng.standard_normal(X.shape)).astype(np.float32)
    src = embgeo.Embeddings([f"s{i}" for i in range(300)], X)
    tgt = embgeo.Embeddings([f"t{i}" for i in range(300)], Z)
    train = [(f"s{i}", f"t{i}") for i in range(120)]
    val = [(f"s{i}", f"t{i}") for i in range(150, 300)]
    grid = dict(alphas_src=(-0.25, 0.0, 0.5), alphas_tgt=(0.0, 0.15))
    with distributed.get_task_stream(client) as ts:
        res = postproc_grid_search(src, tgt, train, val, **grid)
    assert len(ts.data) >= 6                                   # one task per cell, on the workers
    local = []                                                 # the grid written out, in this process
    for a in grid["alphas_src"]:
        for b in grid["alphas_tgt"]:
            xs, zt = Mapper(Preprocessing(postproc=(a, b))).fit(src, tgt, train).transform(src, tgt)
            local.append({"alpha_src": a, "alpha_tgt": b,
                          **bli(xs, zt, val, retrieval="csls", progress=False).to_dict()})
    assert res.table == local
    assert res.best == max(((r["alpha_src"], r["alpha_tgt"]) for r in local),
                           key=lambda c: next(r["MRR"] for r in local if (r["alpha_src"], r["alpha_tgt"]) == c))


def test_an_array_edited_in_place_is_searched_as_it_is_now(client, data):
    Q, _ = data
    rng = np.random.default_rng(5)
    X = rng.standard_normal((600, 16)).astype(np.float32)
    before = neighbors.topk(Q, X, 5, backend="dask")[1]
    np.testing.assert_array_equal(before, neighbors.topk(Q, X, 5, progress=False)[1])
    X[:] = rng.standard_normal(X.shape).astype(np.float32)        # same object, new contents
    after = neighbors.topk(Q, X, 5, backend="dask")[1]
    np.testing.assert_array_equal(after, neighbors.topk(Q, X, 5, progress=False)[1])
    assert not np.array_equal(before, after)
    # explicit shards are the user's to keep (and to re-shard after an edit); read-only data reuse
    sd = dd.shard(X)
    assert dd.shard(sd) is sd and dd.shard(X) is not sd
    R = X.copy()
    R.flags.writeable = False
    assert dd.shard(R) is dd.shard(R)


def test_real_valued_data_ids_equal_scores_to_float32_rounding(client):
    """What the docs promise on real-valued data: indices equal, scores equal to float32 rounding;
    exact duplicate rows (split across the shards) may reorder among themselves."""
    rng = np.random.default_rng(7)
    D = rng.standard_normal((1001, 24)).astype(np.float32)
    D[[620, 900]] = D[40]                                   # exact duplicates in both shards
    Q = np.vstack([D[:30], D[40] + 1e-3 * rng.standard_normal(24).astype(np.float32)])
    for metric in ("cosine", "dot"):
        s, i = neighbors.topk(Q, D, 8, metric=metric, backend="dask")
        ls, li = neighbors.topk(Q, D, 8, metric=metric, progress=False)
        bs, _ = brute_topk(Q, D, 8, cosine=metric == "cosine")
        # float32 rounding: a few ulp of the score scale (the local result is no closer to float64)
        tol = 4 * np.finfo(np.float32).eps * np.abs(bs).max()
        assert np.abs(s - ls).max() <= tol and np.abs(s - bs).max() <= tol
        same = i == li
        for r, c in zip(*np.nonzero(~same)):               # a difference is a reordered duplicate
            assert np.array_equal(D[i[r, c]], D[li[r, c]])
        dup = {40, 620, 900}
        assert all(set(i[r][np.isin(i[r], list(dup))]) == set(li[r][np.isin(li[r], list(dup))])
                   for r in range(len(Q)))
        assert same[~np.isin(li, list(dup))].all()          # every other index is the local one


@pytest.mark.parametrize("measure,reverse", [("cross_entropy", False), ("kl", True),
                                             ("categorical_cross_entropy", False)])
def test_fuzzy_search_on_dask_equals_local_and_the_formula(client, measure, reverse):
    from embgeo import fuzzy

    rng = np.random.default_rng(12)
    M = fuzzy.fuzzify(rng.standard_normal((1500, 12)).astype(np.float32))
    if measure.startswith("categorical"):
        M = M / M.sum(axis=1, keepdims=True)
    F = fuzzy.FuzzyEmbeddings([f"w{i}" for i in range(len(M))], M)
    words = ["w3", "w700", "w1499"]
    s, i = F.neighbors(words, 6, measure=measure, reverse=reverse, backend="dask", memory_budget=2**16)
    ls, li = F.neighbors(words, 6, measure=measure, reverse=reverse, progress=False)
    np.testing.assert_array_equal(i, li)
    np.testing.assert_array_equal(s, ls)                        # same candidates, rescored in float64 here
    # brute force from the definitions (Bhat et al. 2020, Sec. 4.4), all pairs in float64
    T = M.astype(np.float64)
    for r, w in enumerate(words):
        S = T[int(w[1:])]
        A, B = (T, S) if reverse else (S, T)                     # m(A, B) with A = first argument
        if measure == "cross_entropy":
            v = -(A * np.log(B) + (1 - A) * np.log1p(-B)).sum(axis=1)
        elif measure == "kl":
            v = (A * np.log(A / B) + (1 - A) * np.log((1 - A) / (1 - B))).sum(axis=1)
        else:
            v = -(A * np.log(B)).sum(axis=1)
        v[int(w[1:])] = np.inf                                  # the query word itself is excluded
        np.testing.assert_array_equal(i[r], np.argsort(v, kind="stable")[:6])
    with pytest.raises(ValueError, match="one product"):
        F.neighbors(words, 3, measure="jaccard", backend="dask")
    assert F.most_similar("w3", 4, backend="dask") == F.most_similar("w3", 4)


def test_neighbors_functions_take_backend_dask(client, data):
    Q, D = data
    ex = [[3, 5], [], 7] + [[]] * (len(Q) - 3)
    s, i = neighbors.topk(Q, D, 6, exclude=ex, backend=neighbors.Dask(client=client, query_block=16))
    bs, bi = brute_topk(Q, D, 6, exclude=ex)
    np.testing.assert_array_equal(i, bi)
    np.testing.assert_allclose(s, bs, rtol=1e-5, atol=1e-5)
    r = neighbors.knn_mean_similarity(Q, D, 4, metric="dot", backend="dask")
    np.testing.assert_allclose(r, brute_topk(Q, D, 4, cosine=False)[0].mean(axis=1), rtol=1e-5)
    cs, ci = neighbors.csls_topk(Q, D, 3, csls_knn=5, r_database=np.zeros(len(D)), backend="dask")
    np.testing.assert_array_equal(ci, brute_topk(Q, D, 3, bias=np.zeros(len(D)))[1])
    with pytest.raises(ValueError, match="backend must be 'exact', 'dask' or 'cuda'.*faiss"):
        neighbors.csls_topk(Q, D, 2, backend="faiss")


def test_shards_smaller_than_k_and_their_exclusions(client):
    """Toy shards with fewer candidates than k: all their rows, the excluded ones dropped."""
    rng = np.random.default_rng(8)
    D = rng.standard_normal((9, 4)).astype(np.float32)
    Q = rng.standard_normal((5, 4)).astype(np.float32)
    sd = dd.shard(D, n_shards=4)                                   # shards of 2-3 rows, k = 4
    ex = [[0, 1, 2], [], [8, 7], [4], [0, 3, 6, 8]]
    for metric in ("cosine", "dot"):
        s, i = neighbors.topk(Q, sd, 4, metric=metric, exclude=ex, backend="dask")
        bs, bi = brute_topk(Q, D, 4, cosine=metric == "cosine", exclude=ex)
        np.testing.assert_array_equal(i, bi)
        np.testing.assert_allclose(s, bs, rtol=1e-5, atol=1e-5)
    r_s = brute_topk(D, Q, 3)[0].mean(axis=1)                     # r_S over the queries, K = 3
    s, i = neighbors.csls_topk(Q, sd, 4, csls_knn=3, exclude=ex, backend="dask")
    np.testing.assert_array_equal(i, brute_topk(Q, D, 4, exclude=ex, bias=r_s)[1])


def test_search_on_the_cluster_is_the_facade_only():
    """The search names embgeo.distributed once forwarded are gone: neighbors(..., backend="dask") is the one way."""
    for name in ("topk", "knn_mean_similarity", "csls_topk", "search", "merge_topk"):
        with pytest.raises(AttributeError, match="no attribute"):
            getattr(dd, name)


def test_dask_results_are_the_local_ones_bit_for_bit(client):
    """Issue 17: same scores and same tie order as the local search, duplicates included."""
    rng = np.random.default_rng(9)
    D = rng.standard_normal((2001, 24)).astype(np.float32)
    D[[620, 1900]] = D[40]                                     # exact duplicates in both shards
    Q = np.vstack([D[:60], D[40] + 1e-3 * rng.standard_normal(24).astype(np.float32)])
    ex = rng.integers(0, len(D), size=(len(Q), 2))
    for metric in ("cosine", "dot"):
        s, i = neighbors.topk(Q, D, 8, metric=metric, exclude=ex, backend="dask")
        ls, li = neighbors.topk(Q, D, 8, metric=metric, exclude=ex, progress=False)
        np.testing.assert_array_equal(i, li)
        np.testing.assert_array_equal(s, ls)
    s, i = neighbors.csls_topk(Q, D, 5, source=D[:700], exclude=ex, backend="dask")
    ls, li = neighbors.csls_topk(Q, D, 5, source=D[:700], exclude=ex, progress=False)
    np.testing.assert_array_equal(i, li)
    np.testing.assert_array_equal(s, ls)


def test_alpha_sweeps_run_as_dask_tasks_and_equal_the_local_sweeps(client):
    """Issue 17: α sweeps as Dask tasks, one group of α per worker; the results are the local ones."""
    from embgeo.alpha import AlphaEmbeddings, alpha_sweep, analogy_sweep
    from embgeo.data import AnalogyQuestions

    rng = np.random.default_rng(13)
    n = 120
    U, V = 0.6 * rng.standard_normal((n, 6)), 0.6 * rng.standard_normal((n, 6)) + 0.3
    # float32 blocks of a few rows: a task that split the blocks otherwise would round differently
    ae = AlphaEmbeddings(U, V, counts=rng.integers(1, 500, n), p0="u", memory_budget=n * 4 * 2 * 7)
    alphas = [-np.inf, -2.0, 0.5, 3.0]      # two tasks: [−∞, −2] and [0.5, 3]
    w = rng.choice(n, size=(80, 2))
    pairs = ([str(a) for a in w[:, 0]], [str(b) for b in w[:, 1]], rng.standard_normal(80))
    q = rng.choice(n, size=(120, 4))
    q = np.array([r for r in q if len(set(r)) == 4]).astype(str)
    questions = AnalogyQuestions({"capital": q[:40], "gram1-adj": q[40:]}, name="toy")
    with distributed.get_task_stream(client) as ts:
        sim = alpha_sweep(ae, alphas, pairs, folds=3)
        ana = analogy_sweep(ae, alphas, questions, restrict_vocab=None)
    assert sum(t["key"].startswith("_call") for t in ts.data) == 4   # two α groups per sweep
    local_sim = alpha_sweep(ae, alphas, pairs, folds=3, local=True)
    local_ana = analogy_sweep(ae, alphas, questions, restrict_vocab=None, local=True)
    np.testing.assert_array_equal(sim.scores, local_sim.scores)
    np.testing.assert_array_equal(sim.cv.test_scores, local_sim.cv.test_scores)
    np.testing.assert_array_equal(ana.correct, local_ana.correct)
    assert ana.correct.any() and not ana.correct.all()
    # ρ and argmax hide the last bits: the W^α rows themselves are the local ones bit for bit
    from embgeo.alpha import sweeps

    rows = np.arange(n)
    on_dask = sweeps._per_alpha(ae, np.array(alphas), rows, "fisher", "fisher", np.asarray, False, client, False)
    here = sweeps._per_alpha(ae, np.array(alphas), rows, "fisher", "fisher", np.asarray, False, None, True)
    for a, b in zip(on_dask, here):
        np.testing.assert_array_equal(a, b)


def test_gram_based_methods_on_a_dask_backed_embeddings_run_on_the_cluster(client, monkeypatch):
    """Issue 17: the Gram / scatter matrices behind PCA, similarity order, the post-processing
    chain and meta-embeddings are summed by dask over the chunks; results equal the local ones."""
    import dask
    import dask.array as da

    from embgeo import linalg, meta, pca, postprocess

    rng = np.random.default_rng(4)
    X = (rng.standard_normal((2500, 12)) * np.linspace(3, 0.5, 12)).astype(np.float32)
    Y = rng.standard_normal((2500, 7)).astype(np.float32)
    words = [f"w{i}" for i in range(2500)]
    e, ed = embgeo.Embeddings(words, X), embgeo.Embeddings(words, da.from_array(X, chunks=(600, 12)))
    # every Gram of a dask array is one dask computation on the client, never a local loop
    computed = []
    real_compute = dask.array.Array.compute
    monkeypatch.setattr(dask.array.Array, "compute", lambda self, **kw: computed.append(self.shape)
                        or real_compute(self, **kw))
    G = linalg.gram(ed.vectors)
    assert isinstance(G, np.ndarray) and computed == [(12, 12)]
    np.testing.assert_allclose(G, X.astype(np.float64).T @ X, rtol=1e-12)

    np.testing.assert_allclose(pca.variance_profile(ed).explained_variance,
                               pca.variance_profile(e).explained_variance, rtol=1e-10)
    for f in (lambda v: postprocess.similarity_order(v, -0.5), lambda v: postprocess.all_but_the_top(v, 2),
              lambda v: postprocess.ppa_pca_ppa(v, 6, 2), postprocess.whiten):
        got = f(ed).vectors
        assert isinstance(got, da.Array)                    # the n × d result stays distributed
        np.testing.assert_allclose(got.compute(), f(e).vectors, rtol=1e-4, atol=1e-5)
    fy, fyd = embgeo.Embeddings(words, Y), embgeo.Embeddings(words, da.from_array(Y, chunks=(600, 7)))
    local = meta.GeometricMetaEmbedding(dim=6, max_iter=20, progress=False).fit([e, fy])
    dist = meta.GeometricMetaEmbedding(dim=6, max_iter=20, progress=False).fit([ed, fyd])
    np.testing.assert_allclose(dist.cost_, local.cost_, rtol=1e-8)


def _five_ways(e, tmp_path, fortran_cache):
    """(name, Embeddings) for the same vectors: in memory, memory-mapped, from the cache, sliced, sharded."""
    if fortran_cache:  # as the glove-6b-50d package stores it: a Fortran-ordered .npy
        np.save(tmp_path / "c.npy", np.asfortranarray(e.vectors))
        (tmp_path / "c.vocab.txt").write_text("\n".join(e.words) + "\n", encoding="utf-8")
        path = tmp_path / "c.npy"
    else:
        path = embgeo.save(e, tmp_path / "c.embgeo")
    wider = embgeo.Embeddings(e.words + ["zz-extra"], np.vstack([e.vectors, e.vectors[:1]]))
    strided = np.zeros((2 * len(e), e.dim), dtype=e.vectors.dtype)
    strided[::2] = e.vectors
    return [("mmap", embgeo.load(path, mmap=True)), ("cache", embgeo.load(path)),
            ("top", wider.top(len(e))), ("subset", wider.subset(e.words)),
            ("strided view", embgeo.Embeddings(e.words, strided[::2], check_finite=False)),
            ("fortran", embgeo.Embeddings(e.words, np.asfortranarray(e.vectors)))]


@pytest.mark.parametrize("fortran_cache", [False, True])
def test_canonical_scores_whatever_the_way_the_vectors_arrive(client, tmp_path, fortran_cache):
    """Issue 27: in memory, memory-mapped, from the cache, sliced and sharded give the same bits."""
    rng = np.random.default_rng(4)
    X = (rng.standard_normal((3000, 20)) * rng.uniform(0.1, 3, size=(3000, 1))).astype(np.float32)
    X[[700, 2500]] = X[10]  # exact ties
    e = embgeo.Embeddings([f"w{i}" for i in range(len(X))], X)
    words = e.words[:40]
    ref = {m: e.neighbors(words, 10, metric=m) for m in ("cosine", "dot", "csls")}
    ways = _five_ways(e, tmp_path, fortran_cache)
    ways += [("dask", e), ("dask mmap", ways[0][1])]
    for name, f in ways:
        for metric in ("cosine", "dot", "csls"):
            backend = "dask" if name.startswith("dask") else "exact"
            s, i = f.neighbors(words, 10, metric=metric, backend=backend)
            np.testing.assert_array_equal(i, ref[metric][1], err_msg=f"{name} {metric}")
            np.testing.assert_array_equal(s, ref[metric][0], err_msg=f"{name} {metric}")


@pytest.mark.slow
def test_canonical_scores_of_glove_whatever_the_way_it_arrives(client, glove, tmp_path):
    """The issue's case: glove-6b-50d memory-mapped (Fortran-ordered) gave 141,526 different scores."""
    mm = embgeo.load("glove-6b-50d", mmap=True).top(30000)
    e = embgeo.Embeddings(mm.words, np.array(mm.vectors, order="C"))
    words = e.words[::150]
    ref = e.neighbors(words, 10)
    for name, f in _five_ways(e, tmp_path, True) + [("package mmap", mm)]:
        s, i = f.neighbors(words, 10)
        np.testing.assert_array_equal(i, ref[1], err_msg=name)
        np.testing.assert_array_equal(s, ref[0], err_msg=name)
    s, i = e.neighbors(words, 10, backend="dask")
    np.testing.assert_array_equal(s, ref[0])
    np.testing.assert_array_equal(i, ref[1])


def _slow_shard_tasks():
    """Run in each worker: every shard task first sleeps, so that a search lasts long enough to be
    interrupted (tasks find the function by its module and name, so the patched one runs)."""
    import time

    from embgeo.neighbors import _dask

    real = _dask._shard_topk

    def slow(*args, **kwargs):
        time.sleep(0.5)
        return real(*args, **kwargs)

    _dask._shard_topk = slow


@pytest.mark.slow
@pytest.mark.parametrize("memory_mapped", [False, True])
def test_a_worker_killed_mid_search_loses_no_result(data, tmp_path, memory_mapped):
    """Issue 27: a worker killed mid-search failed the call with FutureCancelledError ("already
    forgotten"); the search now makes new shards on the workers left and completes. Memory-mapped
    shards (tasks Dask could rerun, but only on the dead worker) waited for it forever."""
    import signal
    import threading
    import time

    Q, D = data
    e = embgeo.Embeddings([f"w{i}" for i in range(len(D))], D)
    ref = e.neighbors(e.words[:40], 5)
    if memory_mapped:
        e = embgeo.load(embgeo.save(e, tmp_path / "e.embgeo"), mmap=True)
    # Dask's default config: the dead worker's address is tried for 30 s (comm.timeouts.connect), far
    # longer than the search may take
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  worker_dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        c.run(_slow_shard_tasks)
        victim, pid = sorted(c.run(os.getpid).items())[0]
        out = {}

        def run():
            try:
                out["r"] = e.neighbors(e.words[:40], 5, backend=neighbors.Dask(client=c, query_block=10))
            except Exception as exc:  # noqa: BLE001 (reported below)
                out["r"] = exc

        search = threading.Thread(target=run)
        search.start()
        deadline = time.monotonic() + 30
        while not c.processing().get(victim) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert search.is_alive(), "the search ended before the worker was killed"
        os.kill(pid, signal.SIGKILL)
        search.join(60)
        assert not search.is_alive(), "the search hangs after the worker was killed"
    assert not isinstance(out["r"], Exception), repr(out["r"])
    s, i = out["r"]
    np.testing.assert_array_equal(i, ref[1])
    np.testing.assert_array_equal(s, ref[0])


def test_a_worker_lost_mid_search_is_retried_once_then_named(client, monkeypatch):
    from embgeo.neighbors import _dask

    class FutureCancelledError(Exception):  # what distributed raises, by name
        pass

    calls = []

    def search(queries, database, **kwargs):
        calls.append(1)
        if len(calls) <= failures:
            raise FutureCancelledError("_merge2-… cancelled for reason: already forgotten.")
        return "answer"

    monkeypatch.setattr(_dask, "_NOTICE_S", 0.0)  # no worker is really lost: do not wait for one to go
    failures = 1
    assert _dask._surviving_lost_workers(search)(None, None, client=client) == "answer" and len(calls) == 2
    calls.clear()
    failures = 2
    with pytest.raises(RuntimeError, match=r"was lost during the search.*the call can be repeated"):
        _dask._surviving_lost_workers(search)(None, None, client=client)
    with pytest.raises(ValueError):  # other errors pass through, untried again
        _dask._surviving_lost_workers(lambda *a, **k: int("x"))(None, None, client=client)
