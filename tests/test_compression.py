"""embgeo.evaluate.compression: what each compression of a space costs, on small synthetic spaces."""
from __future__ import annotations

import json

import numpy as np
import pytest

import embgeo
from embgeo import Embeddings
from embgeo.data import AnalogyQuestions, WordPairs
from embgeo.evaluate import compression_cost, compression_variants
from embgeo.evaluate.compression import CompressionCost, sif_weights
from embgeo.quantization import QuantizedEmbeddings

N, D = 120, 24
OPTIONS = {"k": 5, "n_resamples": 200, "random_state": 0}


@pytest.fixture(scope="module")
def space():
    rng = np.random.default_rng(1)
    return Embeddings([f"w{i}" for i in range(N)], rng.standard_normal((N, D)).astype(np.float32))


@pytest.fixture(scope="module")
def pairs():
    rng = np.random.default_rng(2)
    return WordPairs([f"w{i}" for i in range(60)], [f"w{i + 30}" for i in range(60)],
                     rng.uniform(0, 10, 60), name="toy")


@pytest.fixture(scope="module")
def questions():
    q = np.array([[f"w{i}", f"w{i + 1}", f"w{i + 2}", f"w{i + 3}"] for i in range(0, 80, 2)])
    return AnalogyQuestions({"s": q}, name="toyanalogy")


def run(space, variants, pairs, questions=None, **kwargs):
    return compression_cost(space, variants, similarity=[pairs], analogy=[questions] if questions else (),
                            **{**OPTIONS, **kwargs})


def test_an_identical_variant_keeps_every_neighbour_and_its_paired_tests_give_p_1(space, pairs, questions):
    cost = run(space, {"same": space.with_vectors(space.vectors.copy())}, pairs, questions)
    orig, same = cost.to_records()
    assert same["overlap@5"] == 1.0 and orig["overlap@5"] == 1.0
    assert same["toy_p"] == 1.0 and same["toyanalogy_p"] == 1.0  # Steiger and McNemar
    assert orig["toy_p"] is None
    assert same["toy"] == orig["toy"] and same["hubness"] == orig["hubness"] and same["isoscore"] == orig["isoscore"]
    assert orig["toy_low"] <= orig["toy"] <= orig["toy_high"]
    assert cost.comparisons["same"]["toy"].test == "steiger"
    assert cost.comparisons["same"]["toyanalogy"].test == "mcnemar"


def test_a_changed_variant_loses_neighbours_and_scores(space, pairs):
    rng = np.random.default_rng(5)
    other = space.with_vectors(rng.standard_normal((N, D)).astype(np.float32))
    row = run(space, {"random": other}, pairs).to_records()[1]
    assert row["overlap@5"] < 0.3 and row["toy"] != run(space, {}, pairs).to_records()[0]["toy"]


def test_bytes_are_those_of_the_stored_codes_per_dtype(space, pairs):
    variants = compression_variants(space, dims=(8,), sif=False, kmeans=(16,))
    assert list(variants) == ["pca8", "float16", "int8", "binary", "kmeans16"]
    assert isinstance(variants["int8"], QuantizedEmbeddings) and not isinstance(variants["pca8"], QuantizedEmbeddings)
    rows = {r["variant"]: r for r in run(space, variants, pairs)}
    expected = {"original": N * D * 4, "pca8": N * 8 * 4, "float16": N * D * 2,
                "int8": N * D + 2 * D * 4,  # codes, then float32 starts and steps
                "binary": N * (D // 8),
                "kmeans16": N * 1 + 16 * D * 4 + N * 4}  # uint8 cluster ids, float32 centres and weights
    assert {v: r["bytes"] for v, r in rows.items()} == expected
    assert rows["binary"]["ratio"] == pytest.approx(1 / 32)
    assert rows["pca8"]["dim"] == 8 and rows["binary"]["dim"] == D


def test_pca_variants_are_the_principal_space_up_to_the_axes_signs(space):
    from embgeo.pca import principal_space

    got = compression_variants(space, dims=(8,), sif=False, dtypes=(), kmeans=())["pca8"].vectors
    want = principal_space(space, 8).vectors
    signs = np.sign((got * want).sum(axis=0))
    assert set(signs.tolist()) <= {-1.0, 1.0}
    np.testing.assert_array_equal(got * signs, want)


def test_variants_are_built_only_where_the_width_and_vocabulary_allow(space):
    v = compression_variants(space, dims=(256, 16), dtypes=(), kmeans=(1024, 8))
    assert list(v) == ["pca16", "sif", "kmeans8"]


def test_sif_weights_are_model2vec_zipf_weights_and_no_sif_undoes_them(space):
    # model2vec compute_weights: inv_rank = 1/arange(2, n+2), p = inv_rank/sum, w = a/(a + p)
    p = np.array([1 / 2, 1 / 3, 1 / 4, 1 / 5]) / sum([1 / 2, 1 / 3, 1 / 4, 1 / 5])
    np.testing.assert_allclose(sif_weights(4, 1e-2), 1e-2 / (1e-2 + p), rtol=1e-6)
    weighted = compression_variants(space, dims=(), dtypes=(), kmeans=())["sif"]
    np.testing.assert_allclose(weighted.vectors, space.vectors * sif_weights(N)[:, None], rtol=1e-6)
    back = compression_variants(weighted, dims=(), dtypes=(), kmeans=(), sif_applied=True)["no-sif"]
    np.testing.assert_allclose(back.vectors, space.vectors, rtol=1e-5)
    with pytest.raises(ValueError, match="SIF coefficient"):
        sif_weights(3, 1.5)


def test_a_variant_with_other_words_is_named(space, pairs):
    fewer = space.subset(space.words[:-1])
    with pytest.raises(ValueError, match="variant 'short' has other words"):
        run(space, {"short": fewer}, pairs)
    reordered = space.subset(space.words[::-1])
    with pytest.raises(ValueError, match="variant 'reversed'.*order differs"):
        run(space, {"reversed": reordered}, pairs)
    # without the overlap, the paired tests match items by word: other words are allowed
    assert run(space, {"short": fewer}, pairs, neighbours=0).to_records()[1]["toy_p"] is not None


def test_a_variant_of_another_dimension_than_the_bli_target_is_named(space, pairs):
    pca = compression_variants(space, dims=(8,), sif=False, dtypes=(), kmeans=())
    dictionary = [(f"w{i}", f"w{i}") for i in range(30)]
    with pytest.raises(ValueError, match="variant 'pca8' has dimension 8, the BLI target 24"):
        run(space, pca, pairs, bli=(space, dictionary))


def test_bli_scores_p_at_1_with_its_interval_and_test(space, pairs):
    dictionary = [(f"w{i}", f"w{i}") for i in range(40)]
    rows = run(space, {"float16": embgeo.quantize(space, "float16")}, pairs, bli=(space, dictionary)).to_records()
    assert rows[0]["bli"] == 1.0 and rows[1]["bli"] == 1.0 and rows[1]["bli_p"] == 1.0


def test_bad_variants_are_refused_by_name(space, pairs):
    with pytest.raises(TypeError, match="variant 'raw' is a ndarray"):
        run(space, {"raw": space.vectors}, pairs)
    with pytest.raises(ValueError, match="'original' names the original"):
        run(space, {"original": space}, pairs)
    with pytest.raises(ValueError, match="neighbours must be"):
        run(space, {}, pairs, neighbours=-1)


def test_compose_evaluates_a_space_made_from_each_stored_one_and_keeps_the_stored_bytes(space, pairs):
    half = space.words[:60]
    cost = run(space, {"int8": embgeo.quantize(space, "int8")}, pairs, compose=lambda t: t.subset(half))
    orig, int8 = cost.to_records()
    assert orig["bytes"] == N * D * 4 and int8["bytes"] == N * D + 2 * D * 4
    assert cost.results[0]["toy"].n_pairs < len(pairs.words1)  # pairs beyond the first 60 words are not covered


def test_the_table_shows_each_score_with_its_interval_and_exports_every_column(space, pairs):
    cost = run(space, {"float16": embgeo.quantize(space, "float16")}, pairs, title="toy space")
    assert isinstance(cost, CompressionCost) and cost.scores == ["toy"]
    text = str(cost)
    assert "toy_low" not in text and "[" in text and "toy_p" in text
    assert "toy_low" in cost.to_dict()["columns"]
    json.dumps(cost.to_dict())
    assert "toy space" in cost._repr_html_() and "toy_high" not in cost._repr_html_()
    assert cost.to_markdown().count("|") > 10


def test_plot_draws_score_against_bytes_or_says_matplotlib_is_missing(space, pairs, monkeypatch):
    import sys

    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    cost = run(space, {"binary": embgeo.quantize(space, "binary"), "float16": embgeo.quantize(space, "float16")},
               pairs)
    ax = cost.plot()
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "bytes"
    assert len(ax.containers) == 1  # one error-bar series per score
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="embgeo\\[plot\\]"):
        cost.plot()
