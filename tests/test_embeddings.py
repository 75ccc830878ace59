"""The Embeddings container: validation, lookup, derivations, gensim interop."""
import numpy as np
import pytest

import embgeo
from embgeo import Embeddings, UnknownWordError
from conftest import traced_memory


@pytest.fixture
def e(rng):
    X = rng.standard_normal((6, 4)).astype(np.float32)
    return Embeddings(["a", "b", "c", "d", "e", "f"], X, counts=[5, 9, 1, 9, 3, 0])


def test_basic_protocol(e):
    assert len(e) == 6 and e.dim == 4 and e.shape == (6, 4)
    assert "c" in e and "z" not in e
    assert np.array_equal(e["c"], e.vectors[2])
    assert e[["f", "a"]].shape == (2, 4)
    assert e.index("d") == 3
    assert list(e) == ["a", "b", "c", "d", "e", "f"]
    assert "6 words" in repr(e)


def test_unknown_word_error_names_the_word_and_is_a_keyerror(e):
    with pytest.raises(KeyError):
        e["zebra"]
    with pytest.raises(UnknownWordError, match="'zebra' is not in the vocabulary"):
        e.index("zebra")
    with pytest.raises(UnknownWordError, match=r"'x'.*2 words missing"):
        e.indices(["a", "x", "y"])


def test_indices_oov_policies(e):
    assert e.indices(["a", "x", "c"], oov="skip").tolist() == [0, 2]
    assert e.indices(["a", "x", "c"], oov="mark").tolist() == [0, -1, 2]
    with pytest.raises(ValueError, match="oov must be"):
        e.indices(["a"], oov="drop")
    with pytest.raises(TypeError):
        e.indices("abc")
    with pytest.raises(ValueError, match="'mark' is for index lookups"):
        e.subset(["a"], oov="mark")


def test_vectors_are_read_only_so_cached_unit_vectors_cannot_go_stale(e):
    before = e.most_similar("a", topn=2)
    with pytest.raises(ValueError, match="read-only"):
        e.vectors[0] = 0.0
    with pytest.raises(ValueError, match="read-only"):
        e.vectors[...] *= 2
    assert e.with_vectors(e.vectors * 2).vectors.flags.writeable is False
    assert e.most_similar("a", topn=2) == before
    # the caller's array keeps its own flags (the container holds a view)
    X = np.ones((2, 3), np.float32)
    Embeddings(["p", "q"], X)
    assert X.flags.writeable


@pytest.mark.parametrize("key", [123, np.int64(1), 1.5, slice(0, 2)])
def test_indexing_by_position_is_a_clear_type_error(e, key):
    with pytest.raises(TypeError, match=r"indexed by a word \(str\) or a list of words.*e\.vectors"):
        e[key]


@pytest.mark.parametrize("words, vectors, msg", [
    ([], np.zeros((0, 3)), "empty vocabulary"),
    (["a", "b", "a"], np.zeros((3, 2)), "duplicate word 'a' at rows 0 and 2"),
    (["a", "b"], np.zeros((3, 2)), "2 words but 3 vector rows"),
    (["a"], np.zeros(3), "2-D"),
    (["a", "b"], np.array([[0.0, 1.0], [np.nan, 0.0]]), "row 1 \\('b'\\) of the embeddings has a non-finite value \\(nan\\)"),
    (["a", "b"], np.array([[0.0, np.inf], [1.0, 0.0]]), "row 0 \\('a'\\) of the embeddings has a non-finite value \\(inf\\)"),
])
def test_bad_input_is_named(words, vectors, msg):
    with pytest.raises(ValueError, match=msg):
        Embeddings(words, vectors)


def test_bad_counts_and_output_vectors_are_refused():
    with pytest.raises(ValueError, match="counts must have shape"):
        Embeddings(["a", "b"], np.zeros((2, 2)), counts=[1, 2, 3])
    with pytest.raises(ValueError, match="non-negative"):
        Embeddings(["a", "b"], np.zeros((2, 2)), counts=[1, -2])
    with pytest.raises(ValueError, match="output_vectors must have shape"):
        Embeddings(["a", "b"], np.zeros((2, 2)), output_vectors=np.zeros((3, 2)))


def test_integer_vectors_become_float32():
    e = Embeddings(["a", "b"], [[1, 2], [3, 4]])
    assert e.dtype == np.float32


def test_subset_top_and_intersect(e, rng):
    s = e.subset(["d", "a"])
    assert s.words == ["d", "a"] and np.array_equal(s.vectors, e.vectors[[3, 0]])
    assert s.counts.tolist() == [9, 5]
    # by counts, ties in row order
    assert e.top(3).words == ["b", "d", "a"]
    no_counts = Embeddings(e.words, e.vectors)
    assert no_counts.top(2).words == ["a", "b"]
    other = Embeddings(["f", "x", "b"], rng.standard_normal((3, 2)))
    left, right = e.intersect(other)
    assert left.words == right.words == ["b", "f"]
    assert np.array_equal(right.vectors, other.vectors[[2, 0]])
    with pytest.raises(ValueError, match="share no word"):
        e.intersect(Embeddings(["zz"], np.ones((1, 4))))
    with pytest.raises(ValueError, match="subset is empty"):
        e.subset(["x"], oov="skip")
    with pytest.raises(ValueError, match="positive"):
        e.top(0)


def test_derivations_never_modify_the_original(e):
    before = e.vectors.copy()
    n = e.normalize("unit", "center")
    assert np.array_equal(e.vectors, before)
    assert np.allclose(n.vectors.mean(axis=0), 0, atol=1e-6)
    assert n.words == e.words and n.counts is e.counts


def test_similarity_is_cosine(e):
    a, b = e["a"].astype(np.float64), e["b"].astype(np.float64)
    cos = a @ b / np.linalg.norm(a) / np.linalg.norm(b)
    assert e.similarity("a", "b") == pytest.approx(cos, rel=1e-5)
    assert e.similarity_pairs(["a"], ["b"])[0] == pytest.approx(cos, rel=1e-5)
    assert e.similarity_pairs(["a"], ["b"], measure="dot")[0] == pytest.approx(a @ b, rel=1e-5)
    with pytest.raises(ValueError, match="measure"):
        e.similarity_pairs(["a"], ["b"], measure="kl")


def test_to_cpu_and_astype(e):
    assert e.to("cpu").device == "cpu"
    assert e.astype("float64").dtype == np.float64


def test_gensim_round_trip_keeps_words_vectors_counts(e):
    from gensim.models import KeyedVectors as GensimKeyedVectors

    kv = e.to_gensim()
    assert type(kv) is GensimKeyedVectors  # gensim's own class: comparisons with it judge embgeo
    assert kv.index_to_key == e.words
    assert np.array_equal(kv.vectors, e.vectors)
    back = Embeddings.from_gensim(kv)
    assert back.words == e.words and np.array_equal(back.vectors, e.vectors)
    assert back.counts.tolist() == e.counts.tolist()


def test_from_word2vec_keeps_output_vectors_and_counts():
    from gensim.models import Word2Vec

    sentences = [["the", "cat", "sat", "on", "the", "mat"], ["the", "dog", "sat"]] * 20
    model = Word2Vec(sentences, vector_size=8, min_count=1, sg=1, negative=3, epochs=2, seed=1, workers=1)
    e = Embeddings.from_gensim(model)
    assert e.output_vectors is not None and e.output_vectors.shape == (len(e), 8)
    assert np.array_equal(e.output_vectors, model.syn1neg)
    assert e.counts[e.index("the")] == 60
    assert e.top(1).words == ["the"] and e.top(1).output_vectors.shape == (1, 8)


def test_array_api_strict_embeddings_behave_like_numpy(e):
    xps = pytest.importorskip("array_api_strict")
    s = Embeddings(e.words, xps.asarray(e.vectors))
    assert np.allclose(s.similarity_pairs(["a", "c"], ["b", "d"]), e.similarity_pairs(["a", "c"], ["b", "d"]))
    assert np.allclose(np.asarray(s.normalize("unit", "center").vectors), e.normalize("unit", "center").vectors)
    assert s.subset(["c"]).words == ["c"]
    assert np.array_equal(np.asarray(s[["b"]]), e[["b"]])


def test_lazy_submodules():
    assert embgeo.normalize.normalize is not None
    with pytest.raises(AttributeError):
        embgeo.not_a_module


def test_all_is_the_public_api_only():
    import types

    assert not [n for n in embgeo.__all__ if isinstance(getattr(embgeo, n), types.ModuleType)]
    assert {"Embeddings", "KeyedVectors", "load", "save", "UnknownWordError", "NotFittedError",
            "FormatError"} <= set(embgeo.__all__)
    assert issubclass(embgeo.FormatError, ValueError) and embgeo.FormatError.__module__ == "embgeo.errors"
    ns: dict = {}
    exec("from embgeo import *", ns)
    assert ns["KeyedVectors"] is embgeo.KeyedVectors


def test_import_embgeo_stays_light():
    import subprocess
    import sys

    code = "import sys, embgeo; print(sorted(m for m in ('gensim', 'sklearn') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_not_fitted_error_is_sklearns():
    import pickle

    from sklearn.exceptions import NotFittedError as SklearnNotFittedError

    from embgeo.errors import NotFittedError

    assert issubclass(NotFittedError, SklearnNotFittedError)
    assert issubclass(NotFittedError, ValueError) and issubclass(NotFittedError, AttributeError)
    assert NotFittedError is embgeo.NotFittedError
    err = pickle.loads(pickle.dumps(NotFittedError("call fit first")))
    assert type(err) is NotFittedError and str(err) == "call fit first"


def test_with_vectors_shares_vocabulary_and_checks_shape(e):
    n = e.with_vectors(e.vectors * 2)
    assert n.words is e.words and n.index("c") == 2 and n.counts is e.counts
    assert np.allclose(n["a"], 2 * e["a"])
    with pytest.raises(ValueError, match=r"shape \(6, d\)"):
        e.with_vectors(np.ones((5, 4)))
    with pytest.raises(ValueError, match=r"row 1 \('b'\) of the embeddings has a non-finite value \(nan\)"):
        e.with_vectors(np.where(np.arange(6)[:, None] == 1, np.nan, 1.0) * np.ones((6, 4)))


def test_review_findings_on_the_container(rng):
    V = rng.standard_normal((3, 4)).astype(np.float32)
    # unsigned counts must not wrap under negation
    e = Embeddings(list("abc"), V, counts=np.array([5, 10, 0], np.uint32))
    assert e.top(2).words == ["b", "a"]
    # float16 becomes float32 (no BLAS or kernels for half precision)
    assert Embeddings(list("abc"), V.astype(np.float16)).dtype == np.float32
    # generators are accepted, and the error still names the missing word
    assert e.indices(w for w in ["c", "a"]).tolist() == [2, 0]
    with pytest.raises(UnknownWordError, match="'zz'"):
        e.indices(w for w in ["a", "zz"])
    # pairs must be aligned
    with pytest.raises(ValueError, match="differ in length"):
        e.similarity_pairs(["a", "b"], ["c"])


def test_similarity_reads_only_the_rows_of_the_pairs(tmp_path, rng):
    """A word pair on a memory-mapped 100k × 64 matrix (25.6 MB) allocates kilobytes, not a unit copy,
    and equals the float64 cosine written out from the two rows."""
    n, d = 100_000, 64
    np.save(tmp_path / "v.npy", rng.standard_normal((n, d)).astype(np.float32))
    X = np.load(tmp_path / "v.npy", mmap_mode="r")
    e = Embeddings([f"w{i}" for i in range(n)], X, check_finite=False)

    def cos64(i, j):
        a, b = np.asarray(X[i], np.float64), np.asarray(X[j], np.float64)
        return float(a @ b / np.sqrt((a @ a) * (b @ b)))

    i, j = rng.integers(0, n, 500), rng.integers(0, n, 500)
    w1, w2 = [f"w{k}" for k in i], [f"w{k}" for k in j]
    with traced_memory() as trace:
        s = e.similarity("w3", "w99998")
        peak_one = trace.peak
        trace.reset_peak()
        got = e.similarity_pairs(w1, w2)
        peak_pairs = trace.peak
    assert peak_one < 64 * 2**10 and peak_pairs < 2 * 2**20
    assert s == pytest.approx(cos64(3, 99998), rel=1e-12, abs=1e-15)
    assert np.allclose(got, [cos64(a, b) for a, b in zip(i, j)], rtol=1e-12, atol=1e-15)
    dots = e.similarity_pairs(w1, w2, measure="dot")
    assert np.allclose(dots, [float(np.asarray(X[a], np.float64) @ X[b].astype(np.float64)) for a, b in zip(i, j)],
                       rtol=1e-12)


def test_similarity_of_a_zero_row_is_zero():
    e = Embeddings(["a", "z", "b"], np.array([[1.0, 2.0], [0.0, 0.0], [3.0, -1.0]], dtype=np.float32))
    assert e.similarity("a", "z") == 0.0
    assert e.similarity_pairs(["z", "a"], ["b", "b"]).tolist() == [0.0, pytest.approx(1 / np.sqrt(50))]


def test_astype_refuses_an_overflow_naming_the_word():
    e = embgeo.Embeddings(["a", "b"], [[1.0, 2.0], [3.0, -1e39]])
    with pytest.raises(ValueError, match=r"'b' \(row 1\) hold 1e\+39, beyond the range of float32"):
        e.astype("float32")
    assert e.astype("float64").vectors.dtype == np.float64


@pytest.mark.parametrize("make", [
    lambda: embgeo.Embeddings(["a"], np.array([[1 + 2j, 0]])),
    lambda: embgeo.Embeddings(["a"], [[1.0, 0.0]]).with_vectors(np.array([[1j, 0]])),
    lambda: embgeo.neighbors.topk(np.array([[1 + 1j, 2]]), np.ones((3, 2)), k=1),
])
def test_complex_input_is_refused_not_cast_to_its_real_part(make):
    with pytest.raises(TypeError, match="complex values"):
        make()
def test_words_at_turns_neighbour_ids_into_words(small_embeddings):
    e = small_embeddings
    scores, ids = e.neighbors(["w1", "w2"], k=3)
    words = e.words_at(ids)
    assert words == [[e.words[i] for i in row] for row in ids.tolist()]
    assert e.indices(words[0]).tolist() == ids[0].tolist()  # the inverse of indices()
    assert e.words_at([[0, -1]]) == [["w0", None]]  # FAISS pads with -1
    assert e.words_at(np.int64(7)) == "w7"
    with pytest.raises(IndexError, match="200"):
        e.words_at([200])
    with pytest.raises(TypeError, match="integers"):
        e.words_at([0.5])
