"""embgeo.KeyedVectors and Embeddings.most_similar against gensim's own KeyedVectors (the reference)."""
import gzip

import numpy as np
import pytest
from gensim.models import KeyedVectors as GensimKV

import embgeo
from embgeo import Embeddings, KeyedVectors, UnknownWordError


@pytest.fixture
def pair(rng):
    words = [f"w{i}" for i in range(40)]
    X = rng.standard_normal((40, 6)).astype(np.float32)
    X[3] *= 7.0  # unequal norms make normalisation mistakes visible
    g = GensimKV(6)
    g.add_vectors(words, X.copy())
    return Embeddings(words, X), g


def _same(ours, ref):
    assert [w for w, _ in ours] == [w for w, _ in ref]
    assert np.allclose([s for _, s in ours], [s for _, s in ref], atol=1e-5)


@pytest.mark.parametrize("query", [
    dict(positive="w1"),
    dict(positive=["w1", "w2"], negative=["w3"]),
    dict(positive="w1", negative="w2"),
    dict(positive=[("w1", 2.0), "w5"], negative=[("w3", 0.5)]),   # the tuple weight replaces the sign
    dict(negative=[("w3", 1.0)]),                                   # ... so this *adds* w3
    dict(positive=["w1"], restrict_vocab=12),
    dict(positive=["w20"], clip_start=5, clip_end=25),
    dict(positive=[7, "w2"]),                                       # an int that is not a key is a row
])
def test_most_similar_matches_gensim(pair, query):
    e, g = pair
    _same(e.most_similar(**query, topn=5), g.most_similar(**query, topn=5))


def test_raw_vectors_are_used_as_given_as_in_gensim(pair, rng):
    e, g = pair
    v = 10 * rng.standard_normal(6).astype(np.float32)
    for query in (dict(positive=[v, "w1"]), dict(positive=[v]), dict(positive=e.vectors[:3]),
                  dict(positive=["w2"], negative=[(v, 0.3)])):
        _same(e.most_similar(**query, topn=6), g.most_similar(**query, topn=6))


def test_most_similar_topn_none_and_zero_match_gensim(pair):
    e, g = pair
    assert np.allclose(e.most_similar("w4", topn=None), g.most_similar("w4", topn=None), atol=1e-6)
    assert e.most_similar("w4", topn=0) == [] == e.most_similar("w4", topn=np.uint8(0))
    assert len(e.most_similar("w4", topn=1000)) == len(e) - 1


def test_most_similar_errors(pair):
    e, _ = pair
    with pytest.raises(UnknownWordError, match="'nope'"):
        e.most_similar("nope")
    with pytest.raises(ValueError, match="at least one"):
        e.most_similar()
    with pytest.raises(TypeError, match="most_similar entries"):
        e.most_similar([{"w1"}])


def test_indexer_is_used_as_in_gensim(pair):
    e, _ = pair

    class Indexer:
        def most_similar(self, vector, topn):
            self.seen = (vector.shape, topn)
            return [("fake", 1.0)]

    ix = Indexer()
    assert e.most_similar("w1", topn=3, indexer=ix) == [("fake", 1.0)] and ix.seen == ((6,), 3)


def test_kv_is_a_gensim_keyedvectors_that_raises_unknown_word_error(pair):
    e, g = pair
    kv = KeyedVectors.from_embeddings(e)
    assert isinstance(kv, GensimKV)
    with pytest.raises(UnknownWordError, match="'zebra' is not in the vocabulary"):
        kv["zebra"]
    with pytest.raises(KeyError):
        kv.most_similar("zebra")
    assert kv.get_index("zebra", -1) == -1 and kv.get_index(3) == 3 and not kv.has_index_for("zebra")
    for method, args in [("most_similar_cosmul", (["w1", "w2"], ["w3"])), ("distances", ("w1",)),
                         ("closer_than", ("w1", "w9")), ("doesnt_match", (["w1", "w2", "w3"],)),
                         ("n_similarity", (["w1", "w2"], ["w4"])), ("rank", ("w1", "w9"))]:
        ours, ref = getattr(kv, method)(*args), getattr(g, method)(*args)
        if isinstance(ref, list) and ref and isinstance(ref[0], tuple):
            _same(ours, ref)
        elif isinstance(ref, (str, list)):
            assert ours == ref, method
        else:
            assert np.allclose(ours, ref, atol=1e-6), method


def test_adding_vectors_invalidates_cached_norms(pair, rng):
    """gensim keeps stale norms after ``kv[word] = v``; embgeo recomputes them."""
    e, _ = pair
    kv = KeyedVectors.from_embeddings(e)
    kv.most_similar("w1")  # fills the norms
    new = 50 * e.vectors[1]
    kv["w2"] = new  # in place: the old norm of w2 would be wrong by 50x
    top, score = kv.most_similar("w1", topn=1)[0]
    assert top == "w2" and score == pytest.approx(1.0, abs=1e-5)
    kv["w_new"] = -new  # grows the matrix: old norms would not even broadcast
    assert kv.most_similar("w1", topn=None).shape == (41,)
    kv.add_vectors(["w_new2"], [new])
    assert kv.most_similar("w1", topn=len(kv))[-1][0] == "w_new"


def test_embeddings_round_trip_and_sharing(pair):
    e, _ = pair
    kv = KeyedVectors.from_embeddings(Embeddings(e.words, e.vectors, counts=np.arange(40)))
    assert kv.vectors.flags.writeable and not np.shares_memory(kv.vectors, e.vectors)
    assert kv.get_vecattr("w5", "count") == 5
    back = kv.to_embeddings()
    assert np.shares_memory(back.vectors, kv.vectors) and not back.vectors.flags.writeable
    assert back.words == e.words and back.counts.tolist() == list(range(40))
    assert not np.shares_memory(kv.to_embeddings(copy=True).vectors, kv.vectors)
    with pytest.raises(ValueError, match="preallocated"):
        KeyedVectors(3, 4).to_embeddings()


def _write_w2v(path, words, X, binary=False):
    with (gzip.open if str(path).endswith(".gz") else open)(path, "wb") as f:
        f.write(f"{len(words)} {X.shape[1]}\n".encode())
        for w, v in zip(words, X):
            if binary:
                f.write(w.encode() + b" " + v.astype(np.float32).tobytes())
            else:
                f.write((w + " " + " ".join(repr(float(x)) for x in v) + "\n").encode())


@pytest.mark.parametrize("name, binary, limit, datatype", [
    ("v.txt", False, None, np.float32), ("v.txt.gz", False, 7, np.float32),
    ("v.bin", True, None, np.float32), ("v.bin", True, 5, np.float64), ("v.txt", False, None, np.float16),
])
def test_load_word2vec_format_equals_gensims(tmp_path, rng, name, binary, limit, datatype):
    words = ["ü", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
    X = rng.standard_normal((10, 4)).astype(np.float32)
    path = tmp_path / name
    _write_w2v(path, words, X, binary=binary)
    ours = KeyedVectors.load_word2vec_format(path, binary=binary, limit=limit, datatype=datatype)
    ref = GensimKV.load_word2vec_format(path, binary=binary, limit=limit, datatype=datatype)
    assert type(ours) is KeyedVectors
    assert ours.index_to_key == ref.index_to_key and ours.key_to_index == ref.key_to_index
    assert ours.vectors.dtype == ref.vectors.dtype and np.array_equal(ours.vectors, ref.vectors)
    assert np.array_equal(ours.expandos["count"], ref.expandos["count"])
    assert ours.vectors.flags.writeable and ours.next_index == len(ref)


def test_load_word2vec_format_uses_embgeos_parser_and_falls_back_to_gensims(tmp_path, rng, monkeypatch):
    calls = []
    load = embgeo.io.load
    monkeypatch.setattr(embgeo.io, "load", lambda *a, **k: calls.append(a) or load(*a, **k))
    X = rng.standard_normal((3, 2)).astype(np.float32)
    _write_w2v(tmp_path / "ok.txt", ["a", "b", "c"], X)
    KeyedVectors.load_word2vec_format(tmp_path / "ok.txt")
    assert len(calls) == 1
    # a duplicate word: embgeo's parser refuses it, gensim keeps the first with a warning
    _write_w2v(tmp_path / "dup.txt", ["a", "b", "a"], X)
    ours = KeyedVectors.load_word2vec_format(tmp_path / "dup.txt")
    ref = GensimKV.load_word2vec_format(tmp_path / "dup.txt")
    assert ours.index_to_key == ref.index_to_key and np.array_equal(ours.vectors, ref.vectors)
    # fvocab is gensim's path
    (tmp_path / "vocab.txt").write_text("a 10\nb 20\nc 30\n")
    kv = KeyedVectors.load_word2vec_format(tmp_path / "ok.txt", fvocab=tmp_path / "vocab.txt")
    assert type(kv) is KeyedVectors and kv.get_vecattr("c", "count") == 30
    assert len(calls) == 2


def test_save_and_load_round_trip_through_gensim(tmp_path, pair):
    e, g = pair
    g.save(str(tmp_path / "g.kv"))
    kv = KeyedVectors.load(str(tmp_path / "g.kv"))
    assert type(kv) is KeyedVectors and kv.index_to_key == g.index_to_key
    with pytest.raises(UnknownWordError):
        kv["zebra"]
    from gensim.test.utils import datapath

    old = KeyedVectors.load(datapath("old_keyedvectors_320.dat"))  # pickled by gensim 3.2
    assert type(old) is KeyedVectors and old.get_vector("computer").shape == (old.vector_size,)
    KeyedVectors.from_embeddings(e).save(str(tmp_path / "e.kv"))
    back = GensimKV.load(str(tmp_path / "e.kv"))
    assert np.array_equal(back.vectors, e.vectors)


def test_most_similar_is_backend_neutral(pair, rng):
    xps = pytest.importorskip("array_api_strict")
    e, _ = pair
    s = Embeddings(e.words, xps.asarray(e.vectors))
    v = rng.standard_normal(6).astype(np.float32)
    for query in (dict(positive=["w1", "w2"], negative=["w3"]), dict(positive=[v, ("w2", 0.5)]),
                  dict(positive=["w1"], clip_start=3, clip_end=20)):
        _same(s.most_similar(**query, topn=4), e.most_similar(**query, topn=4))
    assert np.allclose(s.most_similar("w1", topn=None), e.most_similar("w1", topn=None), atol=1e-6)
