"""Tests of embgeo.pca against scikit-learn's PCA and direct re-computation of the paper's protocols."""
from __future__ import annotations

import numpy as np
import pytest

import embgeo
from embgeo import pca

xps = pytest.importorskip("array_api_strict")


@pytest.fixture
def anisotropic(rng):
    X = rng.standard_normal((300, 9)) * np.array([8, 6, 5, 3, 2, 1.5, 1, 0.5, 0.2]) + 1.5
    return embgeo.Embeddings([f"w{i}" for i in range(300)], X.astype(np.float32))


def test_variance_profile_matches_sklearn_pca(anisotropic):
    from sklearn.decomposition import PCA

    X = np.asarray(anisotropic.vectors, dtype=np.float64)
    ref = PCA(svd_solver="full").fit(X)
    p = pca.variance_profile(anisotropic)
    np.testing.assert_allclose(p.explained_variance, ref.explained_variance_, rtol=1e-9)
    np.testing.assert_allclose(p.explained_variance_ratio, ref.explained_variance_ratio_, rtol=1e-9)
    np.testing.assert_allclose(p.cumulative, np.cumsum(ref.explained_variance_ratio_), rtol=1e-9)
    np.testing.assert_allclose(p.components, ref.components_, atol=1e-8)  # same sign convention
    np.testing.assert_allclose(p.mean, ref.mean_, rtol=1e-6)
    np.testing.assert_allclose(p.singular_values, ref.singular_values_, rtol=1e-8)


def test_variance_profile_uncentered_matches_svd(rng):
    X = rng.standard_normal((50, 4)) + 2
    p = pca.variance_profile(X, center=False)
    s = np.linalg.svd(X, compute_uv=False)
    np.testing.assert_allclose(p.explained_variance * (50 - 1), s ** 2, rtol=1e-10)
    np.testing.assert_allclose(p.mean, 0)


@pytest.mark.parametrize("components", [3, slice(2, 6), [0, 4, 8], [-1, 1]])
def test_principal_space_matches_sklearn_transform(anisotropic, components):
    from sklearn.decomposition import PCA

    X = np.asarray(anisotropic.vectors, dtype=np.float64)
    full = PCA(svd_solver="full").fit(X).transform(X)
    idx = np.arange(9)[slice(0, components)] if isinstance(components, int) else np.arange(9)[components]
    out = pca.principal_space(anisotropic, components)
    assert isinstance(out, embgeo.Embeddings) and out.dim == len(idx)
    np.testing.assert_allclose(out.vectors, full[:, idx], rtol=1e-4, atol=1e-4)


def test_principal_space_held_out_rows_and_reused_profile(anisotropic):
    p = pca.variance_profile(anisotropic)
    out, t = pca.principal_space(anisotropic, 4, profile=p, return_transform=True)
    held = anisotropic.subset(anisotropic.words[200:])
    np.testing.assert_allclose(t.apply(held).vectors, out.vectors[200:], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(pca.principal_space(held, 4, profile=p).vectors, out.vectors[200:], atol=1e-6)


def test_pca_array_api_strict_matches_numpy(anisotropic):
    X = np.asarray(anisotropic.vectors)
    p, q = pca.variance_profile(X), pca.variance_profile(xps.asarray(X))
    np.testing.assert_allclose(q.explained_variance, p.explained_variance, rtol=1e-10)
    np.testing.assert_allclose(np.asarray(q.components), p.components, atol=1e-10)
    out = pca.principal_space(xps.asarray(X), [0, 2])
    assert isinstance(out, type(xps.asarray(X)))
    np.testing.assert_allclose(np.asarray(out), pca.principal_space(X, [0, 2]), rtol=1e-6)


def test_cumulative_curve_steps_and_evaluates_each_prefix(anisotropic):
    seen = []

    def evaluate(model):
        seen.append(model.dim)
        return {"energy": float(np.square(np.asarray(model.vectors, dtype=np.float64)).sum())}

    table = pca.cumulative_curve(anisotropic, step=4, evaluate=evaluate)
    assert seen == [4, 8, 9] and table.column("n_components") == [4, 8, 9]
    p = pca.variance_profile(anisotropic)
    # the energy of the first k principal coordinates is (n-1)·Σ_{i<k} λ_i: an independent closed form
    for row in table:
        k = row["n_components"]
        assert row["energy"] == pytest.approx(299 * p.explained_variance[:k].sum(), rel=1e-5)
        assert row["cumulative_variance"] == pytest.approx(p.cumulative[k - 1])
    assert table[-1]["cumulative_variance"] == pytest.approx(1.0)
    assert "n_components" in str(table) and len(table.to_pandas()) == 3


def test_cumulative_curve_plot_returns_figure(anisotropic):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    table, fig = pca.cumulative_curve(anisotropic, step=3, evaluate=lambda m: 0.5, plot=True)
    assert fig.axes and table.column("score") == [0.5, 0.5, 0.5]
    assert pca.variance_profile(anisotropic).plot().lines


def test_split_analysis_variance_shares_and_scores(anisotropic):
    dims = []
    table = pca.split_analysis(anisotropic, 3, evaluate=lambda m: dims.append(m.dim) or float(m.dim))
    assert table.column("split") == ["T", "M", "B", "all"]
    assert table.column("n_components") == [3, 3, 3, 9] == dims
    p = pca.variance_profile(anisotropic)
    np.testing.assert_allclose(table.column("variance_share")[:3],
                               [p.explained_variance_ratio[i:i + 3].sum() for i in (0, 3, 6)])
    assert sum(table.column("variance_share")[:3]) == pytest.approx(1.0)
    assert table.column("variance_share")[0] > table.column("variance_share")[1] > table.column("variance_share")[2]


def test_probe_components_finds_the_informative_component(rng):
    n = 400
    y = np.repeat([0, 1], n // 2)
    X = rng.standard_normal((n, 5)) * np.array([1.0, 3, 2, 1.5, 0.5])
    X[:, 0] += 4 * y  # the label lives along axis 0 (largest variance → component 0)
    e = embgeo.Embeddings([f"w{i}" for i in range(n)], X.astype(np.float32))
    table = pca.probe_components(e, e.words, y, cv=5)
    scores = {r["component"]: r["score"] for r in table}
    best = max((c for c in scores if c != "all"), key=scores.get)
    p = pca.variance_profile(e)
    assert abs(p.components[best, 0]) > 0.9  # the best single component is axis 0
    assert scores[best] > 0.95 and scores["all"] > 0.95
    assert table.meta["baseline"] == pytest.approx(0.5)
    assert min(scores[c] for c in scores if c not in (best, "all")) < 0.7


def test_probe_components_oov_skip_leaves_unknown_words_out(rng):
    X = rng.standard_normal((40, 3)).astype(np.float32)
    e = embgeo.Embeddings([f"w{i}" for i in range(40)], X)
    y = [0, 1] * 20
    kw = dict(cv=2, components=[0], include_all=False)
    known = pca.probe_components(e, e.words, y, **kw)
    skipped = pca.probe_components(e, e.words + ["nope", "zzz"], y + [0, 1], oov="skip", **kw)
    assert [r["score"] for r in skipped] == [r["score"] for r in known]
    with pytest.raises(ValueError, match="oov must be"):
        pca.probe_components(e, e.words, y, oov="mark", **kw)


def test_pca_bad_input(anisotropic, rng):
    with pytest.raises(ValueError, match="at least 2"):
        pca.variance_profile(np.ones((1, 3)))
    with pytest.raises(ValueError, match="out of range"):
        pca.principal_space(anisotropic, [0, 9])
    with pytest.raises(ValueError, match=r"\[1, 9\]"):
        pca.principal_space(anisotropic, 0)
    with pytest.raises(ValueError, match="selects nothing"):
        pca.principal_space(anisotropic, slice(5, 5))
    with pytest.raises(ValueError, match="step"):
        pca.cumulative_curve(anisotropic, step=0, evaluate=lambda m: 0.0)
    with pytest.raises(ValueError, match="parts"):
        pca.split_analysis(anisotropic, 10, evaluate=lambda m: 0.0)
    with pytest.raises(TypeError, match="number or a dict"):
        pca.cumulative_curve(anisotropic, step=5, evaluate=lambda m: "good")
    with pytest.raises(ValueError, match="two classes"):
        pca.probe_components(anisotropic, anisotropic.words[:20], [1] * 20)
    with pytest.raises(KeyError, match="nope"):
        pca.probe_components(anisotropic, ["nope"] + anisotropic.words[:19], [0, 1] * 10)
    with pytest.raises(ValueError, match="one label per word"):
        pca.probe_components(anisotropic, anisotropic.words[:20], [0, 1] * 5)
    with pytest.raises(ValueError, match="dimension"):
        pca.principal_space(rng.standard_normal((5, 4)), 2, profile=pca.variance_profile(anisotropic))


# ------------------------------------------------------------------------ real data
def _pairs(path):
    rows = [line.rstrip("\n").split("\t") for line in open(path, encoding="utf-8") if line.strip()]
    return [(a.lower(), b.lower(), float(s)) for a, b, s in rows]


def _spearman_on(pairs):
    from scipy.stats import spearmanr

    def evaluate(model):
        kept = [(a, b, s) for a, b, s in pairs if a in model and b in model]
        sims = model.similarity_pairs([a for a, _, _ in kept], [b for _, b, _ in kept])
        return float(spearmanr([s for *_, s in kept], sims)[0])

    return evaluate


def test_glove_split_all_row_equals_centred_glove_and_variance_is_concentrated(glove, shared_data):
    e = glove.top(50000)
    evaluate = _spearman_on(_pairs(shared_data / "wordsim" / "EN-SIMLEX-999.txt"))
    table = pca.split_analysis(e, 3, evaluate=evaluate)
    # the "all" split is a rotation of the centred vectors: cosine scores are those of centred GloVe
    assert table[-1]["score"] == pytest.approx(evaluate(e.normalize("center")), abs=1e-4)
    shares = table.column("variance_share")[:3]
    assert shares[0] > shares[1] > shares[2]
    curve = pca.cumulative_curve(e, step=25, evaluate=evaluate)
    assert curve[-1]["score"] == pytest.approx(table[-1]["score"], abs=1e-6)


def test_glove_cumulative_curve_default_evaluation_uses_word_similarity(glove):
    pytest.importorskip("embgeo.evaluate")
    from embgeo.evaluate import word_similarity

    e = glove.top(50000)
    table = pca.cumulative_curve(e, step=30, datasets=["simlex999"])
    assert table.column("n_components") == [30, 50]
    # the k = d row is centred GloVe (a rotation of it): same score as evaluating that directly
    assert table[-1]["simlex999"] == pytest.approx(word_similarity(e.normalize("center"), "simlex999").spearman,
                                                   abs=1e-4)


def test_tables_are_embgeo_reports():
    """One results-table type: pca's tables are embgeo.evaluate.Report (issue 12)."""
    from embgeo.evaluate import Report

    t = pca.Table([{"component": 0, "ratio": 0.5}, {"component": 1, "ratio": float("nan")}], x="component")
    assert isinstance(t, Report) and len(t) == 2
    assert t.column("ratio") == [0.5, None]                       # NaN read back as None, as Report does
    assert "| component | ratio |" in t.to_markdown()
    assert t.to_records()[0] == {"component": 0, "ratio": 0.5}
