"""embgeo.diagnostics: hubness against scikit-hubness's numbers and a brute force from the papers,
isotropy against full n × n / SVD formulations, recall against a brute force of its definition."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import embgeo
from embgeo import diagnostics as dg
from embgeo.neighbors.faiss_index import FaissIndex

DATA = Path(__file__).parent / "data"


# ----------------------------------------------------------------------------- brute forces
def _unit(X):
    X = np.asarray(X, dtype=np.float64)
    n = np.linalg.norm(X, axis=1, keepdims=True)
    return np.divide(X, n, out=np.zeros_like(X), where=n > 0)


def _lists(S, k, own):
    """k best columns of each row of a full score matrix, ties to the lower column."""
    S = np.array(S, dtype=np.float64)
    if own:
        np.fill_diagonal(S, -np.inf)
    return np.array([np.lexsort((np.arange(S.shape[1]), -row))[:k] for row in S])


def _brute_measures(N, k, nq, hub_size=2.0):
    """The measures as the papers define them, from N_k."""
    N = np.asarray(N, dtype=np.float64)
    return {"skewness": stats.skew(N), "hub_occupancy": N[N >= hub_size * k].sum() / (k * nq),
            "antihub_rate": np.mean(N == 0), "robinhood": 0.5 * np.abs(N - N.mean()).sum() / N.sum()}


def _check(h, N, k, nq):
    np.testing.assert_array_equal(h.k_occurrence, N)
    for name, value in _brute_measures(N, k, nq).items():
        assert getattr(h, name) == pytest.approx(value, rel=1e-12, abs=1e-15), name


def _space(rng, n=300, d=12, shift=0.8):
    """Random rows around a common direction: hubs form."""
    return (rng.standard_normal((n, d)) + shift * rng.standard_normal(d)).astype(np.float32)


# ----------------------------------------------------------------------------- hubness
@pytest.mark.parametrize("k", [1, 5, 10])
def test_hubness_equals_scikit_hubness_golden(k):
    g = np.load(DATA / "skhubness_golden.npz")
    X, Q = g["X"].astype(np.float32), g["Q"].astype(np.float32)
    h = dg.hubness(X, k)
    np.testing.assert_array_equal(h.k_occurrence, g[f"self_k{k}_k_occurrence"])
    assert h.skewness == pytest.approx(float(g[f"self_k{k}_k_skewness"]), rel=1e-10)
    assert h.hub_occupancy == pytest.approx(float(g[f"self_k{k}_hub_occurrence"]), rel=1e-12)
    assert h.antihub_rate == pytest.approx(float(g[f"self_k{k}_antihub_occurrence"]), rel=1e-12)
    assert h.robinhood == pytest.approx(float(g[f"self_k{k}_robinhood"]), rel=1e-12)
    # queries against the space: scikit-hubness 0.30.0a1 (the golden's) divides the hub occupancy by the
    # indexed rows (X.shape[1] of its graph); 0.21.2 and embgeo divide by the queries
    t = dg.hubness(Q, k, target=X)
    np.testing.assert_array_equal(t.k_occurrence, g[f"query_k{k}_k_occurrence"])
    assert t.skewness == pytest.approx(float(g[f"query_k{k}_k_skewness"]), rel=1e-10)
    assert t.hub_occupancy * len(Q) / len(X) == pytest.approx(float(g[f"query_k{k}_hub_occurrence"]), rel=1e-12)
    assert t.robinhood == pytest.approx(float(g[f"query_k{k}_robinhood"]), rel=1e-12)
    assert t.antihub_rate == pytest.approx(float(g[f"query_k{k}_antihub_occurrence"]), rel=1e-12)


@pytest.mark.parametrize("budget", [None, 3000])
def test_hubness_nn_equals_brute_force_whatever_the_blocks(rng, budget):
    X = _space(rng, 257, 9)
    C = _unit(X) @ _unit(X).T
    N = np.bincount(_lists(C, 7, True).ravel(), minlength=257)
    _check(dg.hubness(X, 7, memory_budget=budget), N, 7, 257)
    # a subset of queries, searched in blocks: N_k still over every row
    rows = rng.choice(257, 100, replace=False)
    N = np.bincount(_lists(C, 7, True)[rows].ravel(), minlength=257)
    _check(dg.hubness(X, 7, queries=rows, memory_budget=budget), N, 7, 100)


def test_hubness_csls_and_isf_equal_brute_force(rng):
    S, T = _space(rng, 150, 8), _space(rng, 170, 8)
    C = _unit(S) @ _unit(T).T
    knn = 5
    # CSLS (Conneau et al. 2018, eq. 3): r_S of each target over the whole source; r_T ranks nothing
    r_s = np.sort(C, axis=0)[-knn:].mean(axis=0)
    N = np.bincount(_lists(2 * C - r_s, 4, False).ravel(), minlength=170)
    _check(dg.hubness(S, 4, "csls", target=T, csls_knn=knn), N, 4, 150)
    # inverted softmax (Smith et al. 2017, eq. 4): β cos − log Σ_source exp(β cos)
    beta = 10.0
    lz = np.log(np.exp(beta * C).sum(axis=0))
    N = np.bincount(_lists(beta * C - lz, 4, False).ravel(), minlength=170)
    _check(dg.hubness(S, 4, "isf", target=T, isf_beta=beta), N, 4, 150)
    # against itself: the word left out of its list, r_S over the whole space (as neighbors.search)
    C = _unit(S) @ _unit(S).T
    r = np.sort(C, axis=1)[:, -knn:].mean(axis=1)
    N = np.bincount(_lists(2 * C - r[None, :], 4, True).ravel(), minlength=150)
    _check(dg.hubness(S, 4, "csls", csls_knn=knn, memory_budget=2000), N, 4, 150)


def test_csls_reduces_hubness_on_a_hubby_space(rng):
    X = _space(rng, 400, 10, shift=1.5)
    assert dg.hubness(X, 10, "csls").skewness < dg.hubness(X, 10).skewness


def test_hubness_of_words_names_the_hubs(rng):
    X = _space(rng, 120, 6)
    e = embgeo.Embeddings([f"w{i}" for i in range(120)], X)
    h = dg.hubness(e, 5, queries=["w3", "w7", "w9"])
    assert h.n_queries == 3 and h.k_occurrence.sum() == 15
    top = h.top_hubs(2)
    assert [w for w, _ in top] == [f"w{i}" for i in np.argsort(-h.k_occurrence, kind="stable")[:2]]
    assert top[0][1] == h.k_occurrence.max()
    assert set(h.antihubs) == set(np.flatnonzero(h.k_occurrence == 0))
    assert all(h.k_occurrence[i] >= 10 for i in h.hubs)
    assert dg.hubness(e, 5).k_occurrence.tolist() == dg.hubness(X, 5).k_occurrence.tolist()


def test_hubness_of_fuzzy_sets_equals_brute_force(rng):
    from embgeo.fuzzy import FuzzyEmbeddings

    n = 60
    e = embgeo.Embeddings([f"w{i}" for i in range(n)], _space(rng, n, 6))
    F = FuzzyEmbeddings.from_embeddings(e)
    words = F.words
    S = np.array([F.similarity_pairs([w] * n, words, measure="kl") for w in words])
    N = np.bincount(_lists(S, 3, True).ravel(), minlength=n)
    h = dg.hubness(F, 3, measure="kl", memory_budget=500)
    _check(h, N, 3, n)
    assert h.retrieval == "fuzzy:kl"


def test_hubness_bad_input_is_named(rng):
    X = _space(rng, 30, 4)
    with pytest.raises(ValueError, match="k=30 is too large.*30 words"):
        dg.hubness(X, 30)
    with pytest.raises(ValueError, match="target has only 30 words"):
        dg.hubness(X, 31, target=X)
    with pytest.raises(ValueError, match="at least 1"):
        dg.hubness(X, 0)
    with pytest.raises(ValueError, match="queries is empty"):
        dg.hubness(X, 3, queries=[])
    with pytest.raises(ValueError, match="dimension 4 but target has 5"):
        dg.hubness(X, 3, target=np.ones((10, 5), np.float32))
    with pytest.raises(ValueError, match="retrieval must be"):
        dg.hubness(X, 3, "cosine")
    with pytest.raises(ValueError, match="isf.*exact"):
        dg.hubness(X, 3, "isf", backend="dask")
    with pytest.raises(TypeError, match="word queries need an Embeddings"):
        dg.hubness(X, 3, queries=["a"])
    e = embgeo.Embeddings([f"w{i}" for i in range(30)], X)
    with pytest.raises(KeyError, match="nope"):
        dg.hubness(e, 3, queries=["w1", "nope"])
    from embgeo.fuzzy import FuzzyEmbeddings

    with pytest.raises(ValueError, match="fuzzy measure"):
        dg.hubness(FuzzyEmbeddings.from_embeddings(e), 3, "csls")


def test_hubness_on_a_dask_cluster_equals_local(rng):
    distributed = pytest.importorskip("distributed")
    from embgeo.neighbors import Dask

    X = _space(rng, 200, 8)
    # not the current client: only the engine object's client can reach it
    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None,
                            set_as_default=False) as client:
        engine = Dask(client=client, query_block=7)
        for retrieval in ("nn", "csls"):
            local = dg.hubness(X, 5, retrieval)
            remote = dg.hubness(X, 5, retrieval, backend=engine)
            np.testing.assert_array_equal(remote.k_occurrence, local.k_occurrence)
        rows = np.arange(0, 200, 3)
        np.testing.assert_array_equal(dg.hubness(X, 5, queries=rows, backend=engine).k_occurrence,
                                      dg.hubness(X, 5, queries=rows).k_occurrence)
        local, remote = dg.isotropy(X), dg.isotropy(X, backend=Dask(client))
        for m in ("partition_isotropy", "mean_cosine", "variance_share", "effective_rank"):
            assert getattr(remote, m) == pytest.approx(getattr(local, m), rel=1e-6, abs=1e-7)
        for run in (lambda: dg.hubness(X, 5, backend="dask"), lambda: dg.isotropy(X, backend="dask")):
            with pytest.raises(RuntimeError, match="running dask.distributed client"):
                run()                                     # the name means the current client: there is none


def test_hubness_and_isotropy_take_engine_objects(rng):
    """``backend=`` takes what :func:`embgeo.neighbors.topk` takes: a name or an engine object whose
    options reach the search; an engine the function does not run is refused by name."""
    from embgeo.neighbors import Cuda, Exact, Faiss

    X = _space(rng, 60, 6)
    for retrieval in ("nn", "csls", "isf"):
        np.testing.assert_array_equal(dg.hubness(X, 4, retrieval, backend=Exact(selector="argpartition")).k_occurrence,
                                      dg.hubness(X, 4, retrieval).k_occurrence)
    with pytest.raises(ValueError, match="CSLS does not screen"):  # the engine's options reach csls_topk
        dg.hubness(X, 4, "csls", backend=Exact(screen=True))
    with pytest.raises(ValueError, match="isf.*exact"):
        dg.hubness(X, 3, "isf", backend=Cuda())
    with pytest.raises(ValueError, match="backend must be"):
        dg.hubness(X, 3, backend=Faiss())
    with pytest.raises(TypeError, match="engine object"):
        dg.hubness(X, 3, backend=42)
    assert dg.isotropy(X, backend=Exact()).isoscore == dg.isotropy(X).isoscore
    with pytest.raises(ValueError, match="backend must be 'exact' or 'dask'"):
        dg.isotropy(X, backend="cuda")


def test_hubness_plot(rng):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    ax = dg.hubness(_space(rng, 100, 5), 5).plot()
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"


# ----------------------------------------------------------------------------- isotropy
def _brute_isotropy(X, D):
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    _, Q = np.linalg.eigh(X.T @ X)
    Z = np.concatenate([np.exp(X @ Q).sum(axis=0), np.exp(-X @ Q).sum(axis=0)])
    U = _unit(X)
    C = U @ U.T
    mean_cos = (C.sum() - np.trace(C)) / (n * (n - 1))
    sv_c = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    share = (sv_c[:D] ** 2).sum() / (sv_c ** 2).sum()
    sv = np.linalg.svd(X, compute_uv=False)
    p = sv / sv.sum()
    Z1 = np.exp(X @ Q).sum(axis=0)  # one sign per eigenvector: NumPy's
    return {"partition_isotropy": Z.min() / Z.max(), "partition_isotropy_one_sign": Z1.min() / Z1.max(),
            "mean_cosine": mean_cos, "variance_share": share, "effective_rank": np.exp(-(p * np.log(p)).sum())}


@pytest.mark.parametrize("budget", [None, 500])
def test_isotropy_equals_full_matrix_brute_force(rng, budget):
    X = _space(rng, 211, 10, shift=0.5)
    X[17] = 0  # a zero row: cosine 0 with everything, not counted as a unit vector
    r = dg.isotropy(X, D=3, memory_budget=budget)
    for name, value in _brute_isotropy(X, 3).items():
        assert getattr(r, name) == pytest.approx(value, rel=1e-5), name
    assert r.D == 3 and r.n == 211 and r.dim == 10
    np.testing.assert_allclose(r.explained_variance_ratio.sum(), 1.0)
    # the two readings of Mu & Viswanath's I(W) differ here, so each comparison above tells them apart
    assert r.partition_isotropy_one_sign > 1.01 * r.partition_isotropy


def test_isotropy_on_array_namespaces_equals_numpy(array_namespace, rng):
    if array_namespace.kwargs:
        pytest.skip("isotropy has no GPU engine of its own: CuPy arrays take the xp path")
    X = _space(rng, 120, 6).astype(np.float64)
    ref = dg.isotropy(X, memory_budget=700)
    got = dg.isotropy(array_namespace.asarray(X), memory_budget=700)
    for m in ("partition_isotropy", "mean_cosine", "variance_share", "effective_rank"):
        assert getattr(got, m) == pytest.approx(getattr(ref, m), rel=1e-9)


def test_isotropy_extremes_and_all_but_the_top(rng):
    iso = dg.isotropy(rng.standard_normal((20000, 8)))
    assert iso.partition_isotropy > 0.9 and abs(iso.mean_cosine) < 1e-3 and iso.effective_rank > 7.5
    one_direction = np.outer(rng.random(50) + 1, rng.standard_normal(8))
    r = dg.isotropy(one_direction)
    assert r.mean_cosine == pytest.approx(1.0) and r.effective_rank == pytest.approx(1.0, abs=1e-6)
    # Mu & Viswanath 2018: removing the mean and the dominant directions makes the space more isotropic
    X = _space(rng, 2000, 20, shift=2.0)
    X[:, :2] *= 4
    after = dg.isotropy(embgeo.postprocess.all_but_the_top(X, D=2))
    before = dg.isotropy(X)
    assert after.partition_isotropy > before.partition_isotropy
    assert abs(after.mean_cosine) < abs(before.mean_cosine)


def test_isotropy_bad_input_is_named(rng):
    with pytest.raises(ValueError, match="at least 2 rows"):
        dg.isotropy(np.ones((1, 4)))
    with pytest.raises(ValueError, match="D must be an integer in 1 … 4"):
        dg.isotropy(rng.standard_normal((10, 4)), D=5)
    X = rng.standard_normal((10, 4))
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="row 3"):
        dg.isotropy(X)
    from embgeo.alpha import AlphaEmbeddings

    ae = AlphaEmbeddings(rng.standard_normal((30, 3)), rng.standard_normal((30, 3)))
    with pytest.raises(TypeError, match="embed"):
        dg.isotropy(ae)


def test_isotropy_table_rows_are_isotropy_of_each_transform(rng):
    from embgeo.alpha import AlphaEmbeddings
    from embgeo.fuzzy import FuzzyEmbeddings

    n, d = 400, 12
    e = embgeo.Embeddings([f"w{i}" for i in range(n)], _space(rng, n, d), counts=np.arange(n, 0, -1),
                          output_vectors=rng.standard_normal((n, d)).astype(np.float32))
    t = dg.isotropy_table(e, D=2)
    assert [r["transform"] for r in t] == ["original", "all_but_the_top", "similarity_order", "ppa_pca_ppa",
                                          "alpha", "fuzzy"]
    expect = {"original": e, "all_but_the_top": embgeo.postprocess.all_but_the_top(e, D=1),
              "similarity_order": embgeo.postprocess.similarity_order(e, -0.5),
              "ppa_pca_ppa": embgeo.postprocess.ppa_pca_ppa(e, d // 2, 5),
              "alpha": AlphaEmbeddings(e, p0="u").embed(-1.0),
              "fuzzy": FuzzyEmbeddings.from_embeddings(e)}
    for row in t:
        ref = dg.isotropy(expect[row["transform"]], D=2)
        for m in ("isoscore", "isoscore_star", "partition_isotropy", "mean_cosine", "variance_share",
                  "effective_rank"):
            assert row[m] == pytest.approx(getattr(ref, m), rel=1e-6), (row["transform"], m)
    # options, callables, and an AlphaEmbeddings built elsewhere
    ae = AlphaEmbeddings(e, p0="0")
    t = dg.isotropy_table(e, [("similarity_order", {"alpha": 0.5}), ("alpha", {"model": ae, "alpha": 0.0}),
                              ("centred", lambda x: x.normalize("center"))])
    assert [r["transform"] for r in t] == ["original", "similarity_order", "alpha", "centred"]
    assert t[3]["mean_cosine"] == pytest.approx(dg.isotropy(e.normalize("center")).mean_cosine)
    assert "partition_isotropy" in t.to_markdown()


def test_isoscore_equals_the_isoscore_package_golden():
    """IsoScore and IsoScore* (every ζ, identity and sample-covariance targets) = isoscore 2.0.1."""
    import json

    # the package takes √d and √(2(d − √d)) of an integer tensor, which torch computes in float32 scalars:
    # agreement is to a few 1e-7 (computing those two in float32 here reproduces it to 1e-8)
    golden = json.loads((DATA / "isoscore_golden.json").read_text())
    for case in golden["cases"]:
        X = np.array(case["points"])
        r = dg.isotropy(X, zeta=0.0)
        assert r.isoscore == pytest.approx(case["isoscore"], rel=1e-6, abs=1e-7), case["name"]
        assert r.isoscore_star == pytest.approx(case["isoscore"], rel=1e-6, abs=1e-7), case["name"]
        for star in case["isoscore_star"]:
            C0 = None if star["C0"] == "identity" else np.array(case["C0_sample"])
            got = dg.isotropy(X, zeta=star["zeta"], C0=C0).isoscore_star
            assert got == pytest.approx(star["value"], rel=1e-6, abs=1e-7), (case["name"], star)
            # the one-pass function, in float32 too (float32 blocks, float64 sums)
            assert dg.isoscore(X, zeta=star["zeta"], C0=C0)[1] == pytest.approx(star["value"], rel=1e-6, abs=1e-7)
            assert dg.isoscore(X.astype(np.float32), zeta=star["zeta"], C0=C0)[1] == pytest.approx(
                star["value"], rel=1e-4, abs=1e-6)


def test_isoscore_from_its_definition_blocked(rng):
    """Rudman et al. (2022) Algorithm 1 step by step (PCA, variances, defect, rescale) on a space read
    in many small blocks: the blocked covariance changes nothing."""
    X = rng.standard_normal((3000, 7)) * np.array([3.0, 1, 1, 0.5, 0.5, 0.2, 0.1]) + 5.0
    Z = (X - X.mean(0)) @ np.linalg.svd(X - X.mean(0), full_matrices=False)[2].T   # step 2: PCA reorientation
    var = Z.var(axis=0, ddof=1)                                                        # step 3
    d = X.shape[1]
    var_hat = var * np.sqrt(d) / np.linalg.norm(var)                                   # step 4
    defect = np.linalg.norm(var_hat - 1) / np.sqrt(2 * (d - np.sqrt(d)))               # step 5
    expect = ((d - defect ** 2 * (d - np.sqrt(d))) ** 2 - d) / (d * (d - 1))           # steps 6, 7
    budget = 8 * d * 100  # blocks of 100 rows
    assert dg.isoscore(X, zeta=0.0, memory_budget=budget)[0] == pytest.approx(expect, rel=1e-10)
    assert dg.isotropy(X, memory_budget=budget).isoscore == pytest.approx(expect, rel=1e-10)
    assert 0.0 < expect < 0.6


def test_isoscore_bad_input_is_named(rng):
    X = rng.standard_normal((50, 4))
    with pytest.raises(ValueError, match=r"zeta .* \[0, 1\], got 1.5"):
        dg.isotropy(X, zeta=1.5)
    with pytest.raises(ValueError, match="C0 must be a finite 4 × 4"):
        dg.isoscore(X, C0=np.eye(3))
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        dg.isoscore(X[:, :1])
    bad = X.copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match="7"):
        dg.isoscore(bad)
    e = embgeo.Embeddings([f"w{i}" for i in range(50)], bad, check_finite=False)
    with pytest.raises(ValueError, match="w7"):
        dg.isoscore(e)
    with pytest.raises(ValueError, match="zero"):
        dg.isoscore_of_covariance(np.zeros((3, 3)))


def test_isotropy_table_bad_input_is_named(rng):
    e = embgeo.Embeddings([f"w{i}" for i in range(50)], rng.standard_normal((50, 4)))
    assert "alpha" not in [r["transform"] for r in dg.isotropy_table(e)]  # no output vectors: left out
    with pytest.raises(ValueError, match="output vectors"):
        dg.isotropy_table(e, ["alpha"])
    with pytest.raises(ValueError, match="unknown transform 'abtt'"):
        dg.isotropy_table(e, ["abtt"])
    with pytest.raises(TypeError, match="expects an embgeo.Embeddings"):
        dg.isotropy_table(e.vectors)


def test_isotropy_plots(rng):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    e = embgeo.Embeddings([f"w{i}" for i in range(80)], rng.standard_normal((80, 6)))
    assert dg.isotropy(e).plot().get_yscale() == "log"
    assert len(dg.isotropy_table(e, ["all_but_the_top"]).plot()) == 6


# ----------------------------------------------------------------------------- recall
def _brute_recall(Q, D, ids, k, exclude=None):
    C = _unit(Q) @ _unit(D).T
    if exclude is not None:
        C[np.arange(len(Q)), exclude] = -np.inf
    kth = np.sort(C, axis=1)[:, -k]
    got = np.take_along_axis(C, np.maximum(ids, 0), axis=1)
    return np.mean((ids >= 0) & (got >= kth[:, None] - 1e-6), axis=1)


@pytest.mark.parametrize("kind,params", [("hnsw", {"M": 4, "ef_search": 4}), ("ivf", {"nlist": 20, "nprobe": 1})])
def test_recall_equals_brute_force_of_its_definition(rng, kind, params):
    pytest.importorskip("faiss")
    D = _space(rng, 1500, 16, shift=0.3)
    index = FaissIndex(16, kind=kind, **params)
    index.add(D)
    r = dg.recall(index, D, k=10, queries=300, random_state=1)
    rows = np.sort(np.random.default_rng(1).choice(1500, 300, replace=False))
    _, ids = index.search(D[rows], 10, exclude=rows)
    np.testing.assert_allclose(r.per_query, _brute_recall(D[rows], D, ids, 10, rows))
    assert 0 < r.recall < 1, "these settings are meant to miss some neighbours"
    assert r.build_seconds > 0 and r.query_seconds > 0 and r.exact_seconds > 0
    # the index's own method is the same measurement; outside queries exclude nothing
    assert index.recall(D, 10, 300, random_state=1).recall == r.recall
    Q = rng.standard_normal((50, 16)).astype(np.float32)
    _, ids = index.search(Q, 5)
    np.testing.assert_allclose(index.recall(D, 5, Q).per_query, _brute_recall(Q, D, ids, 5))


def test_recall_of_an_exact_index_is_one_and_words_work(small_embeddings):
    pytest.importorskip("faiss")
    e = small_embeddings
    r = dg.recall("flat", e, k=5, queries=["w1", "w2", "w3"])
    assert r.recall == 1.0 and r.n_queries == 3 and r.kind == "flat"
    r = dg.recall("hnsw", e, k=5, queries=50, ef_search=200)
    assert r.recall == 1.0 and r.params["ef_search"] == 200


def test_recall_bad_input_is_named(small_embeddings, rng):
    pytest.importorskip("faiss")
    e = small_embeddings
    with pytest.raises(ValueError, match="queries is empty"):
        dg.recall("flat", e, queries=[])
    with pytest.raises(ValueError, match="exceeds the 199 candidates"):
        dg.recall("flat", e, k=200, queries=3)
    other = FaissIndex(16)
    other.add(rng.standard_normal((50, 16)))
    with pytest.raises(ValueError, match="holds 50 vectors"):
        dg.recall(other, e)
    with pytest.raises(KeyError, match="nope"):
        dg.recall("flat", e, queries=["nope"])
    with pytest.raises(TypeError, match="prebuilt"):
        dg.recall(other, e, M=8)


def test_recall_counts_a_tie_with_the_kth_exact_score_as_a_hit(rng):
    pytest.importorskip("faiss")

    class OtherTwin(FaissIndex):
        """Returns the twin of each row (rows 2i and 2i + 1 are equal): the same scores, other ids."""

        def search(self, Q, k, exclude=None):
            s, i = super().search(Q, k, exclude=exclude)
            twin = i ^ 1
            keep = np.asarray(exclude).reshape(-1, 1) == twin  # never return the query itself
            return s, np.where(keep, i, twin)

    D = np.repeat(rng.standard_normal((40, 6)).astype(np.float32), 2, axis=0)
    index = OtherTwin(6)
    index.add(D)
    r = index.recall(D, 2, np.arange(0, 80, 2))  # exact: [twin, 2j]; this index: [twin, 2j + 1]
    assert r.recall == 1.0


# ----------------------------------------------------------------------------- isotropy by band and cluster
def test_isotropy_bands_are_isotropy_of_each_frequency_slice(rng):
    n = 900
    X = rng.standard_normal((n, 6))
    X[300:, 0] *= 10  # the rarer words stretch along one axis
    counts = rng.permutation(n) + 1
    e = embgeo.Embeddings([f"w{i}" for i in range(n)], X, counts=counts)
    t = dg.isotropy_bands(e, [0, 100, 300])
    assert [r["band"] for r in t] == ["1–100", "101–300", "301–900"]
    order = np.argsort(-counts, kind="stable")  # frequency order from the counts
    for row, (a, b) in zip(t, [(0, 100), (100, 300), (300, n)]):
        ref = dg.isotropy(X[order[a:b]])
        assert row["words"] == b - a
        for m in ("isoscore", "isoscore_star", "partition_isotropy", "mean_cosine"):
            assert row[m] == pytest.approx(getattr(ref, m), rel=1e-9), (row["band"], m)
    # without counts: row order; default edges stop below the vocabulary size
    plain = embgeo.Embeddings([f"w{i}" for i in range(n)], X)
    t = dg.isotropy_bands(plain, [0, 300])
    assert t[0]["isoscore"] == pytest.approx(dg.isotropy(X[:300]).isoscore, rel=1e-9)
    assert t[0]["isoscore"] > 0.8 > 0.2 > t[1]["isoscore"]
    assert [r["band"] for r in dg.isotropy_bands(plain)] == ["1–900"]
    with pytest.raises(ValueError, match="edges must increase from 0"):
        dg.isotropy_bands(plain, [0, 500, 400])
    with pytest.raises(ValueError, match="at least 2 words; ranks 0–1"):
        dg.isotropy_bands(plain, [0, 1])


def test_isotropy_clusters_measure_each_kmeans_cluster(rng):
    from sklearn.cluster import KMeans

    # three tight isotropic blobs far apart: anisotropic as a whole, isotropic within each
    centres = rng.standard_normal((3, 5)) * 50
    X = np.vstack([c + rng.standard_normal((200, 5)) for c in centres])
    t = dg.isotropy_clusters(X, 3, random_state=1)
    labels = KMeans(n_clusters=3, n_init=3, random_state=1).fit_predict(X)
    assert np.array_equal(t.labels, labels)
    for row in list(t)[:3]:
        ref = dg.isotropy(X[labels == row["cluster"]])
        assert row["isoscore"] == pytest.approx(ref.isoscore, rel=1e-9) and row["words"] == 200
        assert row["isoscore"] > 0.9
    assert dg.isotropy(X).isoscore < 0.6
    assert list(t)[3]["cluster"] == "mean"
    assert list(t)[3]["isoscore"] == pytest.approx(np.mean([r["isoscore"] for r in list(t)[:3]]))
    with pytest.raises(ValueError, match="n_clusters must be in 1 … 300"):
        dg.isotropy_clusters(X, 301)
