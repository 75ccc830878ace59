"""embgeo.diagnostics.align_same_language against brute forces written from Hamilton et al. (2016)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import orthogonal_procrustes

import embgeo
from embgeo.diagnostics import align_same_language
from embgeo.neighbors import Dask, Exact, Faiss


@pytest.fixture
def rng():
    return np.random.default_rng(11)


def _unit(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _pair(rng, n=120, d=6, changed=(), dim_b=None):
    words = [f"w{i}" for i in range(n)]
    A = rng.standard_normal((n, d)).astype(np.float32)
    Q, _ = np.linalg.qr(rng.standard_normal((dim_b or d, dim_b or d)))
    B = (np.pad(A, ((0, 0), (0, (dim_b or d) - d))) @ Q).astype(np.float32)
    B += 0.05 * rng.standard_normal(B.shape).astype(np.float32)
    for i in changed:
        B[i] = rng.standard_normal(B.shape[1]) * np.linalg.norm(B[i])
    return embgeo.Embeddings(words, A), embgeo.Embeddings(words, B)


def _brute_knn(X, k):
    U = _unit(X.astype(np.float64))
    S = U @ U.T
    return [sorted((j for j in range(len(X)) if j != i), key=lambda j: (-S[i, j], j))[:k] for i in range(len(X))]


def _brute_local(A, B, k):
    """Hamilton et al. (EMNLP 2016) §3.2: second-order vectors over N_k^a(w) ∪ N_k^b(w), cosine distance."""
    Ua, Ub = _unit(A.astype(np.float64)), _unit(B.astype(np.float64))
    na, nb = _brute_knn(A, k), _brute_knn(B, k)
    change, jac = [], []
    for i in range(len(A)):
        union = sorted(set(na[i]) | set(nb[i]))
        sa = np.array([Ua[i] @ Ua[j] for j in union])
        sb = np.array([Ub[i] @ Ub[j] for j in union])
        change.append(1 - sa @ sb / np.linalg.norm(sa) / np.linalg.norm(sb))
        jac.append(len(set(na[i]) & set(nb[i])) / len(union))
    return np.array(change), np.array(jac)


def test_displacement_matches_scipy_procrustes(rng):
    a, b = _pair(rng, changed=(3, 50))
    res = align_same_language(a, b, k=5)
    R, _ = orthogonal_procrustes(_unit(a.vectors.astype(np.float64)), _unit(b.vectors.astype(np.float64)))
    want = 1 - np.sum((_unit(a.vectors.astype(np.float64)) @ R) * _unit(b.vectors.astype(np.float64)), axis=1)
    np.testing.assert_allclose(res.displacement, want, atol=1e-6)
    assert set(res.most_changed(2)) == {"w3", "w50"}
    assert res.mapped == "a" and res.n_anchors == len(a)


@pytest.mark.parametrize("budget", [None, 8192])
def test_neighbourhood_measures_match_brute_force(rng, budget):
    a, b = _pair(rng, n=60, changed=(7,))
    res = align_same_language(a, b, k=4, memory_budget=budget)
    change, jac = _brute_local(a.vectors, b.vectors, 4)
    np.testing.assert_allclose(res.neighborhood_change, change, atol=1e-6)
    np.testing.assert_allclose(res.overlap, jac, atol=1e-12)
    assert "w7" in res.most_changed(3, by="neighborhood_change")


def test_neighbourhoods_on_a_dask_cluster_equal_local(rng):
    distributed = pytest.importorskip("distributed")
    a, b = _pair(rng, n=60, changed=(7,))
    local = align_same_language(a, b, k=4)
    # not the current client: only the engine object's client can reach it
    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None,
                            set_as_default=False) as client:
        remote = align_same_language(a, b, k=4, backend=Dask(client=client, query_block=16))
        with pytest.raises(RuntimeError, match="running dask.distributed client"):
            align_same_language(a, b, k=4, backend="dask")
    np.testing.assert_array_equal(remote.overlap, local.overlap)
    np.testing.assert_allclose(remote.neighborhood_change, local.neighborhood_change, atol=1e-12)
    with pytest.raises(ValueError, match="backend"):
        align_same_language(a, b, k=4, backend="gpu")


def test_neighbourhoods_take_the_exact_engine_with_its_options(rng, monkeypatch):
    from embgeo.diagnostics import _change

    a, b = _pair(rng, n=60, changed=(7,))
    local = align_same_language(a, b, k=4)
    engine = Exact(selector="argpartition", n_jobs=1)
    seen = []
    search = _change.self_topk
    monkeypatch.setattr(_change, "self_topk", lambda *args, **kw: seen.append(kw["backend"]) or search(*args, **kw))
    tuned = align_same_language(a, b, k=4, backend=engine)
    assert seen == [engine, engine]                               # both searches run the engine as given
    np.testing.assert_array_equal(tuned.overlap, local.overlap)
    with pytest.raises(ValueError, match="backend must be"):
        align_same_language(a, b, k=4, backend=Faiss())


def test_different_dimensions_map_the_smaller_space_isometrically(rng):
    a, b = _pair(rng, d=5, dim_b=9, changed=(0,))
    res = align_same_language(a, b, k=5)
    assert res.mapped == "a" and res.W.shape == (5, 9)
    np.testing.assert_allclose(res.W @ res.W.T, np.eye(5), atol=1e-5)
    assert res.most_changed(1) == ["w0"]
    assert np.median(res.displacement) < 0.01
    rev = align_same_language(b, a, k=5)
    assert rev.mapped == "b" and rev.most_changed(1) == ["w0"]
    np.testing.assert_allclose(rev.displacement, res.displacement, atol=1e-5)


def test_refinement_fits_on_the_least_displaced_words(rng):
    changed = tuple(range(0, 120, 4))  # a quarter of the words change
    a, b = _pair(rng, changed=changed)
    plain = align_same_language(a, b, k=5)
    refined = align_same_language(a, b, k=5, refine=2, anchor_share=0.5)
    assert refined.n_anchors == 60
    stable = np.setdiff1d(np.arange(120), changed)
    # anchors free of changed words fit the stable words better
    assert np.mean(refined.displacement[stable]) < np.mean(plain.displacement[stable])
    assert set(refined.most_changed(len(changed))) == {f"w{i}" for i in changed}


def test_shared_words_only_in_first_space_order(rng):
    a = embgeo.Embeddings(["x", "y", "z", "u", "v"], rng.standard_normal((5, 3)).astype(np.float32))
    b = embgeo.Embeddings(["v", "z", "q", "x", "u"], rng.standard_normal((5, 3)).astype(np.float32))
    res = align_same_language(a, b, k=2)
    assert res.words == ["x", "z", "u", "v"]
    sub = align_same_language(a, b, words=["v", "x", "z", "nope"], k=1)
    assert sub.words == ["v", "x", "z"]


def test_table_and_rankings(rng):
    a, b = _pair(rng, changed=(9,))
    res = align_same_language(a, b, k=5)
    rows = res.table(3)
    assert [r["rank_displacement"] for r in rows] == [1, 2, 3] and rows[0]["word"] == "w9"
    assert rows[0]["displacement"] >= rows[1]["displacement"]
    assert res.table(2, by="overlap")[0]["overlap"] == res.overlap.min()
    with pytest.raises(ValueError, match="by must be"):
        res.table(by="jaccard")


def test_bad_input(rng):
    a = embgeo.Embeddings(["x", "y", "z"], rng.standard_normal((3, 3)).astype(np.float32))
    b = embgeo.Embeddings(["p", "q", "x"], rng.standard_normal((3, 3)).astype(np.float32))
    with pytest.raises(ValueError, match="share 1 word"):
        align_same_language(a, b)
    with pytest.raises(ValueError, match="k must be"):
        align_same_language(a, a, k=3)
    with pytest.raises(TypeError, match="two Embeddings"):
        align_same_language(a.vectors, a.vectors)
    with pytest.raises(ValueError, match="refine"):
        align_same_language(a, a, k=1, refine=-1)


def test_plot(rng):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    a, b = _pair(rng, n=40, changed=(1,))
    ax = align_same_language(a, b, k=3).plot(annotate=3)
    assert "40 shared words" in ax.get_title() and len(ax.texts) == 3
