"""embgeo.quantize: the references' codes, rows decoded when read, search with rescoring, recall, errors.

``tests/data/quantize_st_golden.npz`` was made by sentence-transformers 6.2.0's
``quantize_embeddings`` (``"int8"`` with ``calibration_embeddings``, and ``"ubinary"``) in a separate
virtual environment; the k-means test runs model2vec's recipe (``vocabulary_quantization.py``) with
scikit-learn, which is embgeo's dependency too.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import embgeo
from embgeo import Embeddings
from embgeo.quantization import QuantizedEmbeddings, quantize

GOLDEN = Path(__file__).parent / "data" / "quantize_st_golden.npz"


def words(n):
    return [f"w{i}" for i in range(n)]


@pytest.fixture(scope="module")
def space():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((600, 20)).astype(np.float32)
    X[:300] += 1.5 * X[300:]  # some structure: neighbours are not random
    return Embeddings(words(600), X)


def test_int8_and_binary_codes_equal_sentence_transformers():
    g = np.load(GOLDEN)
    e = Embeddings(words(len(g["embeddings"])), g["embeddings"])
    i8 = quantize(e, "int8", calibration=g["calibration"])
    np.testing.assert_array_equal(i8.codes, g["int8"])
    np.testing.assert_array_equal(quantize(e, "binary").codes, g["ubinary"])
    # decoded as sentence-transformers' _dequantize_embeddings: start + (code + 128) · step
    lo, hi = g["calibration"].min(0), g["calibration"].max(0)
    np.testing.assert_allclose(i8.vectors, lo + (g["int8"].astype(np.float64) + 128) * ((hi - lo) / 255), rtol=1e-6,
                               atol=1e-6)


def test_kmeans_follows_model2vec_vocabulary_quantization(space):
    from sklearn.cluster import KMeans

    q = quantize(space, ("kmeans", 16))
    X = space.vectors
    w = np.linalg.norm(X, axis=1) + 1e-32
    km = KMeans(n_clusters=16, random_state=42, init="random").fit((X / w[:, None]).astype(np.float32))
    mapping = km.predict((X / w[:, None]).astype(np.float32))
    np.testing.assert_array_equal(q.codes, mapping)
    np.testing.assert_allclose(q.vectors, km.cluster_centers_[mapping] * w[:, None], rtol=1e-5, atol=1e-6)
    assert q.codes.dtype == np.uint8 and q.nbytes == 600 + 16 * 20 * 4 + 600 * 4


def test_binary_pads_a_dimension_that_is_not_a_multiple_of_8():
    e = Embeddings(words(3), np.array([[1.0] * 9 + [-1.0], [-1.0] * 10, [0.5, -0.5] * 5]))
    q = quantize(e, "binary")
    assert q.codes.shape == (3, 2) and q.codes[0].tolist() == [255, 128]  # 9 ones, then 7 zero bits
    np.testing.assert_array_equal(q.vectors, np.sign(e.vectors))  # ±1, the padding dropped
    d, _ = embgeo.neighbors.topk(q.codes[:1], q.codes, 3, metric="hamming")
    assert d.tolist() == [[0, 4, 9]]


def test_float16_is_a_cast_and_memory_halves(space):
    q = quantize(space, "float16")
    np.testing.assert_array_equal(q.vectors, space.vectors.astype(np.float16).astype(np.float32))
    assert q.nbytes == space.vectors.nbytes // 2
    assert quantize(space, "int8").nbytes == 600 * 20 + 2 * 20 * 4
    assert quantize(space, "binary").nbytes == 600 * 3


@pytest.mark.parametrize("scheme", ["float16", "int8", "binary", ("kmeans", 8)])
def test_a_quantised_space_runs_evaluators_and_diagnostics_reading_only_the_rows_asked_for(space, scheme, monkeypatch):
    q = quantize(space, scheme)
    assert isinstance(q, Embeddings) and q.shape == space.shape and q.dtype == np.float32
    ref = q.dequantize()
    assert type(ref) is Embeddings
    # row-wise readers decode their rows only: never a block of the whole vocabulary
    decoded = []
    decode = QuantizedEmbeddings.decode
    monkeypatch.setattr(QuantizedEmbeddings, "decode",
                        lambda self, rows: decoded.append(np.arange(len(self))[rows].size) or decode(self, rows))
    pairs = (["w1", "w2", "w5"], ["w3", "w9", "w5"])
    np.testing.assert_allclose(q.similarity_pairs(*pairs), ref.similarity_pairs(*pairs), rtol=1e-6)
    np.testing.assert_array_equal(q["w7"], ref["w7"])
    assert type(q.subset(["w4", "w2"])) is QuantizedEmbeddings
    np.testing.assert_array_equal(q.subset(["w4", "w2"]).dequantize().vectors, ref[["w4", "w2"]])
    assert decoded and max(decoded) <= 5, decoded
    monkeypatch.undo()
    # vocabulary-wide readers get the decoded matrix for the call: the same results as the float copy
    h, h_ref = embgeo.diagnostics.hubness(q, k=5), embgeo.diagnostics.hubness(ref, k=5)
    assert h.skewness == h_ref.skewness
    s, i = q.neighbors("w1", 5)
    np.testing.assert_array_equal(i, ref.neighbors("w1", 5)[1])


def test_search_is_the_code_kernels_and_rescoring_is_sentence_transformers(space):
    Q = space.vectors[:7]
    b = quantize(space, "binary")
    d, i = b.search(Q, 5)
    np.testing.assert_array_equal((d, i), embgeo.neighbors.topk(np.packbits(Q > 0, axis=1), b.codes, 5,
                                                                 metric="hamming"))
    s, r = b.search(Q, 5, rescore=4)
    # sentence-transformers: float query · unpacked bits of the top r·k candidates, best k
    _, cand = b.search(Q, 20)
    bits = np.unpackbits(b.codes[cand], axis=-1, count=20).astype(np.float32)
    ref = np.einsum("qd,qkd->qk", Q, bits)
    order = np.argsort(-ref, axis=1, kind="stable")[:, :5]
    np.testing.assert_array_equal(r, np.take_along_axis(cand, order, 1))
    np.testing.assert_allclose(s, np.take_along_axis(ref, order, 1), rtol=1e-6)
    i8 = quantize(space, "int8")
    s, r = i8.search(Q, 5, rescore=3)
    _, cand = i8.search(Q, 15)
    ref = np.einsum("qd,qkd->qk", Q, i8.dequantize().vectors[cand])
    order = np.argsort(-ref, axis=1, kind="stable")[:, :5]
    np.testing.assert_array_equal(r, np.take_along_axis(cand, order, 1))
    # word queries leave themselves out
    assert 1 not in i8.search(["w1"], 5)[1][0]


def test_rescoring_raises_recall_against_exact_float_search(space):
    for scheme in ("binary", "int8"):
        q = quantize(space, scheme)
        plain = embgeo.diagnostics.recall(q, space, k=10, queries=100)
        rescored = embgeo.diagnostics.recall(q, space, k=10, queries=100, rescore=4)
        assert 0 < plain.recall < rescored.recall <= 1, scheme
    assert embgeo.diagnostics.recall(quantize(space, "float16"), space, k=10, queries=50).recall > 0.99


def test_int8_without_covering_calibration_warns_with_the_clipped_share(space):
    cal = space.vectors[:10]
    with pytest.warns(UserWarning, match=r"% of the values \(\d+\) lie outside the calibration ranges"):
        q = quantize(space, "int8", calibration=cal)
    assert q.codes.min() == -128 and q.codes.max() == 127
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quantize(space, "int8")  # its own ranges cover it


def test_int8_without_calibration_warns_when_planted_outliers_stretch_the_ranges():
    """Gaussian data (40,000 rows, robust ranges from a sample): no warning. Five values at 40 sigma:
    a warning counting the 5 stretched dimensions and the share the 0.01-99.99 percentile ranges clip
    (counted here), and the calibration it suggests quantises the other values with a finer step."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40_000, 16)).astype(np.float32)
    e = embgeo.Embeddings([f"w{i}" for i in range(len(X))], X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quantize(e, "int8")
    P = X[:16_000].copy()  # all rows give the robust ranges (larger vocabularies: a sample of 16,384)
    rows, dims = rng.choice(len(P), 5, replace=False), np.arange(5) * 3
    P[rows, dims] = 40.0
    planted = embgeo.Embeddings(e.words[:len(P)], P)
    lo, hi = np.percentile(P, [0.01, 99.99], axis=0)
    outside = int(((P[:, dims] < lo[dims]) | (P[:, dims] > hi[dims])).sum())
    message = (rf"in 5 of 16 dimension\(s\).*would clip {outside / P.size:.4%} of the values \({outside}\)"
               rf".*calibration=np.percentile\(e.vectors, \[0.01, 99.99\]")
    with pytest.warns(UserWarning, match=message):
        coarse = quantize(planted, "int8")
    with pytest.warns(UserWarning, match="lie outside the calibration ranges"):  # the outliers, clipped
        fine = quantize(planted, "int8", calibration=np.percentile(planted.vectors, [0.01, 99.99], axis=0))
    bulk = np.ones(P.shape, bool)
    bulk[rows, dims] = False
    err = [np.abs(q.dequantize().vectors - P)[bulk][:, None] for q in (coarse, fine)]
    assert err[1].mean() < err[0].mean() / 2


def test_int8_without_calibration_is_quiet_on_real_vectors(shared_data):
    """The measured rule: no warning on the shared MiniLM-static 384d vectors (stretch at most 1.6)."""
    e = embgeo.load(shared_data / "vectors" / "en.minilm-static.384d.50k.vec.gz")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quantize(e, "int8")


@pytest.mark.parametrize("scheme, kwargs, message", [
    ("int4", {}, "scheme must be"),
    ("kmeans", {}, r"\('kmeans', n_clusters\)"),
    (("kmeans", 0), {}, "positive integer"),
    (("kmeans", 601), {}, "n_clusters=601 exceeds the 600 words"),
    ("int8", {"calibration": np.full((4, 20), np.nan, np.float32)}, "row 0 of the calibration has a non-finite"),
    ("int8", {"calibration": np.zeros((4, 19), np.float32)}, r"\(rows, 20\)"),
    ("binary", {"calibration": np.zeros((4, 20), np.float32)}, "calibration= sets int8 ranges"),
])
def test_bad_input_gets_a_clear_error(space, scheme, kwargs, message):
    with pytest.raises(ValueError, match=message):
        quantize(space, scheme, **kwargs)


def test_float16_overflow_and_bad_queries_are_refused(space):
    big = Embeddings(["a", "b"], np.array([[1.0, 7e4], [0.0, 1.0]], dtype=np.float32))
    with pytest.raises(ValueError, match=r"row 0 \('a'\) holds values beyond float16"):
        quantize(big, "float16")
    b = quantize(space, "binary")
    with pytest.raises(ValueError, match=r"\(q, 20\)"):
        b.search(np.zeros((2, 19), np.float32))
    with pytest.raises(ValueError, match="rescore must be a positive integer"):
        b.search(space.vectors[:2], 3, rescore=0)
    with pytest.raises(ValueError, match="rescore= applies to binary and int8"):
        quantize(space, "float16").search(space.vectors[:2], 3, rescore=2)
