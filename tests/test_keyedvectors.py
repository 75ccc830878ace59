"""embgeo.KeyedVectors and Embeddings.most_similar against gensim's own KeyedVectors (the reference)."""
import gzip

import numpy as np
import pytest
from gensim.models import KeyedVectors as GensimKV

import embgeo
from embgeo import Embeddings, KeyedVectors, UnknownWordError
from conftest import traced_memory


@pytest.fixture
def pair(rng):
    words = [f"w{i}" for i in range(40)]
    X = rng.standard_normal((40, 6)).astype(np.float32)
    X[3] *= 7.0  # unequal norms make normalisation mistakes visible
    g = GensimKV(6)
    g.add_vectors(words, X.copy())
    return Embeddings(words, X), g


#: the entry points that must all be gensim's most_similar (one implementation behind them)
_ENTRY_POINTS = {
    "Embeddings.most_similar": lambda e, *a, **k: e.most_similar(*a, **k),
    "neighbors.most_similar": lambda e, *a, **k: embgeo.neighbors.most_similar(e, *a, **k),
    "KeyedVectors.most_similar": lambda e, *a, **k: KeyedVectors.from_embeddings(e).most_similar(*a, **k),
}


@pytest.fixture(params=sorted(_ENTRY_POINTS))
def most_similar(request):
    return _ENTRY_POINTS[request.param]


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
def test_most_similar_matches_gensim(pair, query, most_similar):
    e, g = pair
    _same(most_similar(e, **query, topn=5), g.most_similar(**query, topn=5))


def test_raw_vectors_are_used_as_given_as_in_gensim(pair, rng, most_similar):
    e, g = pair
    v = 10 * rng.standard_normal(6).astype(np.float32)
    for query in (dict(positive=[v, "w1"]), dict(positive=[v]), dict(positive=e.vectors[:3]),
                  dict(positive=["w2"], negative=[(v, 0.3)])):
        _same(most_similar(e, **query, topn=6), g.most_similar(**query, topn=6))


@pytest.mark.parametrize("query", [
    # weights, signs, raw vectors and rows together: the mean divides by Σ|w| (here 5.35), not by
    # the number of entries, and the raw vector is not scaled to unit length
    lambda e, v: dict(positive=[("w1", 2.0), v, 4], negative=["w3", ("w5", 1.0), (v, 0.25), ("w3", -0.6)]),
    lambda e, v: dict(positive=[(v, -1.5)], negative=[("w3", -2.0)]),
    lambda e, v: dict(positive=[("w2", 0.5)], negative=[("w8", 3.0)], restrict_vocab=30),
    lambda e, v: dict(positive=["w9", (v, 0.1)], negative=[e.vectors[4]], clip_start=2, clip_end=33),
])
def test_mixed_weighted_raw_and_row_entries_match_gensim(pair, rng, query, most_similar):
    e, g = pair
    v = 10 * rng.standard_normal(6).astype(np.float32)
    q = query(e, v)
    _same(most_similar(e, **q, topn=8), g.most_similar(**q, topn=8))
    assert np.allclose(most_similar(e, **q, topn=None), g.most_similar(**q, topn=None), atol=1e-6)


def test_most_similar_topn_none_and_zero_match_gensim(pair, most_similar):
    e, g = pair
    assert np.allclose(most_similar(e, "w4", topn=None), g.most_similar("w4", topn=None), atol=1e-6)
    assert most_similar(e, "w4", topn=0) == [] == most_similar(e, "w4", topn=np.uint8(0))
    assert len(most_similar(e, "w4", topn=1000)) == len(e) - 1


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


# ------------------------------------------- the overridden methods against gensim's, on GloVe
@pytest.fixture(scope="module")
def glove_pair(glove):
    """embgeo.KeyedVectors and gensim's KeyedVectors holding the same GloVe 6B 50d rows."""
    g = GensimKV(glove.dim)
    g.add_vectors(list(glove.words), np.array(glove.vectors))
    return KeyedVectors.from_embeddings(glove), g


def _same_words(ours, ref, atol=1e-5):
    assert [w for w, _ in ours] == [w for w, _ in ref]
    assert np.allclose([s for _, s in ours], [s for _, s in ref], atol=atol)


@pytest.mark.parametrize("query", [
    dict(positive="computer"),
    dict(positive=["king", "woman"], negative=["man"]),
    dict(positive=[("paris", 1.0), ("germany", 0.5)], negative=[("france", 0.7)]),
    dict(negative=[("dog", 1.0)], positive=["cat"]),
    dict(positive=["river"], restrict_vocab=20000),
    dict(positive=["river"], clip_start=1000, clip_end=50000),
    dict(positive=["bank", 12], topn=25),
    dict(positive="good", topn=2000),        # the longest list embgeo's top-k answers
])
def test_glove_most_similar_equals_gensim(glove_pair, query):
    kv, g = glove_pair
    query = dict(query)
    topn = query.pop("topn", 10)
    ours, ref = kv.most_similar(**query, topn=topn), g.most_similar(**query, topn=topn)
    if topn <= 25:
        _same_words(ours, ref)
        return
    # a long list: float32 rounding may swap exact near-ties (gaps below 1e-6) far down, nothing else
    assert len(ours) == len(ref)
    assert np.allclose([s for _, s in ours], [s for _, s in ref], atol=1e-6)
    score = dict(ours)
    swapped = [(a, b) for (a, _), (b, _) in zip(ours, ref) if a != b]
    assert len(swapped) < 10 and all(abs(score[a] - score[b]) < 1e-6 for a, b in swapped)


def test_glove_similar_by_and_topn_none_equal_gensim(glove_pair, rng):
    kv, g = glove_pair
    v = rng.standard_normal(50).astype(np.float32)
    _same_words(kv.similar_by_word("apple", topn=15), g.similar_by_word("apple", topn=15))
    _same_words(kv.similar_by_key("apple", restrict_vocab=5000), g.similar_by_key("apple", restrict_vocab=5000))
    _same_words(kv.similar_by_vector(v, topn=15), g.similar_by_vector(v, topn=15))
    _same_words(kv.most_similar([v, "music"]), g.most_similar([v, "music"]))
    a, b = kv.most_similar("music", topn=None), g.most_similar("music", topn=None)
    assert a.shape == b.shape == (len(kv),) and np.allclose(a, b, atol=1e-6)
    a, b = (m.most_similar("music", topn=None, clip_start=10, clip_end=999) for m in (kv, g))
    assert a.shape == b.shape == (989,) and np.allclose(a, b, atol=1e-6)


def test_glove_cosmul_distances_rank_n_similarity_equal_gensim(glove_pair, rng):
    kv, g = glove_pair
    v = rng.standard_normal(50).astype(np.float32)
    for args in ((["king", "woman"], ["man"]), ("baghdad", "iraq"), ([v, "tea"],), (["sushi"],)):
        _same_words(kv.most_similar_cosmul(*args), g.most_similar_cosmul(*args))
    assert np.allclose(kv.most_similar_cosmul("tea", topn=None), g.most_similar_cosmul("tea", topn=None),
                       atol=1e-5)
    for args in (("house",), (v,), ("house", ["home", "car", "the"]), (v, ["home", "car"])):
        assert np.allclose(kv.distances(*args), g.distances(*args), atol=1e-6)
    assert kv.closer_than("king", "queen") == g.closer_than("king", "queen")
    assert kv.rank("dog", "wolf") == g.rank("dog", "wolf")
    assert kv.n_similarity(["sushi", "shop"], ["japanese", "restaurant", "zzzunknown"]) == pytest.approx(
        g.n_similarity(["sushi", "shop"], ["japanese", "restaurant", "zzzunknown"]), abs=1e-6)


@pytest.fixture(scope="module")
def analogy_file(tmp_path_factory):
    """The first 12 questions of each section of gensim's questions-words.txt, an invalid line and an OOV one."""
    from gensim.test.utils import datapath

    out, taken = [], 0
    for line in open(datapath("questions-words.txt"), encoding="utf8"):
        if line.startswith(": "):
            out.append(line)
            taken = 0
        elif taken < 12:
            out.append(line)
            taken += 1
    out.insert(3, "only three words\n")
    out.insert(5, "Athens Greece Zzzqx Iraq\n")
    path = tmp_path_factory.mktemp("analogy") / "questions.txt"
    path.write_text("".join(out), encoding="utf8")
    return str(path)


@pytest.mark.parametrize("kwargs", [dict(restrict_vocab=30000), dict(restrict_vocab=30000, dummy4unknown=True),
                                    dict(restrict_vocab=30000, case_insensitive=False),
                                    dict(restrict_vocab=2000)])
def test_glove_evaluate_word_analogies_equals_gensim(glove_pair, analogy_file, kwargs):
    kv, g = glove_pair
    score, sections = kv.evaluate_word_analogies(analogy_file, **kwargs)
    ref_score, ref_sections = g.evaluate_word_analogies(analogy_file, **kwargs)
    assert sections == ref_sections  # every 4-tuple in the same correct/incorrect list
    assert score == ref_score and len(sections) == 15


@pytest.mark.parametrize("kwargs", [dict(), dict(restrict_vocab=400000), dict(restrict_vocab=20000),
                                    dict(dummy4unknown=True, restrict_vocab=20000), dict(case_insensitive=False)])
def test_glove_evaluate_word_pairs_equals_gensim(glove_pair, shared_data, kwargs):
    from gensim.test.utils import datapath

    kv, g = glove_pair
    for path in (datapath("wordsim353.tsv"), shared_data / "wordsim" / "EN-SIMLEX-999.txt"):
        (r, p_r), (rho, p_rho), oov = kv.evaluate_word_pairs(str(path), **kwargs)
        ref = g.evaluate_word_pairs(str(path), **kwargs)
        assert rho == pytest.approx(ref[1][0], abs=1e-12) and p_rho == pytest.approx(ref[1][1], rel=1e-9, abs=0)
        assert r == pytest.approx(ref[0][0], abs=1e-6)
        assert oov == ref[2]


# --------------------------------------------- case variants, duplicate sections: small, exact
@pytest.fixture
def cased_pair(rng):
    words = ["the", "Paris", "paris", "France", "france", "PARIS", "Rome", "italy", "Italy", "rome"]
    words += [f"w{i}" for i in range(30)]
    X = rng.standard_normal((len(words), 5)).astype(np.float32)
    g = GensimKV(5)
    g.add_vectors(words, X.copy())
    kv = KeyedVectors(5)
    kv.add_vectors(words, X.copy())
    return kv, g, words


def test_evaluations_with_case_variants_equal_gensim(cased_pair, tmp_path, rng):
    kv, g, words = cased_pair
    lines = [": capitals\n", "paris France Rome italy\n", "Rome Italy PARIS france\n", ": random\n"]
    lines += [" ".join(rng.choice(words, 4, replace=False)) + "\n" for _ in range(60)]
    lines += [": capitals\n", "ROME italy paris FRANCE\n", ": empty\n"]  # a repeated and an empty section
    (tmp_path / "q.txt").write_text("".join(lines), encoding="utf8")
    pairs = [f"{a}\t{b}\t{rng.uniform(0, 10):.2f}\n" for a, b in rng.choice(words + ["nope"], (50, 2))]
    (tmp_path / "p.tsv").write_text("# comment\n" + "".join(pairs) + "bad line\n", encoding="utf8")
    for kwargs in (dict(), dict(case_insensitive=False), dict(restrict_vocab=25), dict(dummy4unknown=True)):
        assert kv.evaluate_word_analogies(tmp_path / "q.txt", **kwargs) == \
            g.evaluate_word_analogies(tmp_path / "q.txt", **kwargs), kwargs
        ours, ref = kv.evaluate_word_pairs(tmp_path / "p.tsv", **kwargs), g.evaluate_word_pairs(tmp_path / "p.tsv",
                                                                                                 **kwargs)
        assert ours[1][0] == pytest.approx(ref[1][0], abs=1e-12) and ours[2] == ref[2], kwargs
        assert ours[0].statistic == pytest.approx(ref[0].statistic, abs=1e-6)
        assert ours[1].correlation == ours[1].statistic == ours[1][0]


# --------------------------------------------------------- the cached view and the fallbacks
def test_view_is_built_once_and_dropped_on_mutation(pair):
    e, _ = pair
    kv = KeyedVectors.from_embeddings(e)
    view = kv._view()
    kv.most_similar("w1")
    kv.evaluate_word_pairs  # noqa: B018 (attribute access builds nothing)
    assert kv._view() is view and view is not None
    kv["w2"] = 3 * kv["w2"]
    assert kv._view() is not view
    view = kv._view()
    kv.add_vectors(["new"], [np.ones(6)])
    assert kv._view() is not view and "new" in kv._view()
    view = kv._view()
    kv.vectors[5] = -kv.vectors[1]  # a direct write: stale until fill_norms(force=True), as in gensim
    assert kv._view() is view
    kv.fill_norms(force=True)
    assert kv._view() is not view
    assert kv.most_similar("w1", topn=len(kv))[-1] == ("w5", pytest.approx(-1.0, abs=1e-5))


def test_view_is_not_pickled(pair, tmp_path):
    e, _ = pair
    kv = KeyedVectors.from_embeddings(e)
    kv.most_similar("w1")
    kv.save(str(tmp_path / "kv"))
    back = KeyedVectors.load(str(tmp_path / "kv"))
    assert "_embgeo_view" not in back.__dict__ and back.most_similar("w1") == kv.most_similar("w1")


def test_gensims_code_runs_where_embgeo_has_no_engine(pair, monkeypatch):
    """int keys, float16, NaN rows, unfilled preallocation and an indexer go to gensim's methods."""
    from embgeo.embeddings import Embeddings as E

    e, g = pair
    called = []
    monkeypatch.setattr(E, "most_similar", lambda *a, **k: called.append(1))
    ints = KeyedVectors(6)
    ints.add_vectors(list(range(40)), np.array(e.vectors))
    half = KeyedVectors(6, dtype=np.float16)
    half.add_vectors(e.words, np.array(e.vectors))
    nan = KeyedVectors.from_embeddings(e)
    nan.vectors[7] = np.nan
    nan.fill_norms(force=True)
    for kv in (ints, half, nan):
        assert kv._view() is None
        assert [kv.get_index(w) for w, _ in kv.most_similar(1)] == [g.get_index(w) for w, _ in g.most_similar(1)]
    assert KeyedVectors(6, 5)._view() is None
    kv = KeyedVectors.from_embeddings(e)

    class Indexer:
        def most_similar(self, vector, topn):
            return [("fake", 1.0)]

    assert kv.most_similar("w1", indexer=Indexer()) == [("fake", 1.0)] and not called
    kv.most_similar("w1")
    assert called  # and without an indexer, embgeo's engine


def test_queries_keep_norms_only_not_a_unit_copy(tmp_path, rng):
    """gensim keeps n norms beside ``vectors``; so must embgeo's cached view: after most_similar,
    most_similar_cosmul, distances and both evaluations on 100k × 64 rows (25.6 MB), the memory
    still held is about the 0.4 MB of inverse norms, and a most_similar query never allocates a
    matrix-sized array."""
    import gc

    n, d = 100_000, 64
    words = [f"w{i}" for i in range(n)]
    kv = KeyedVectors(d)
    kv.add_vectors(words, rng.standard_normal((n, d)).astype(np.float32))
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("".join(f"w{i}\tw{i + 7}\t{i % 5}\n" for i in range(20)))
    quads = tmp_path / "quads.txt"
    quads.write_text(": s\nw1 w2 w3 w4\nw5 w6 w7 w8\n")
    matrix = n * d * 4

    def warm_up(model):
        model.most_similar("w1", topn=5)  # compiles the top-k kernel
        model.n_similarity(["w1"], ["w2"])  # builds the view's word index, not its norms

    small = KeyedVectors(d)
    small.add_vectors(words[:100], kv.vectors[:100])
    warm_up(small)
    kv.n_similarity(["w1"], ["w2"])
    with traced_memory() as trace:
        kv.most_similar("w1", topn=5)
        peak_query = trace.peak
        kv.most_similar_cosmul(["w1", "w2"], ["w3"], topn=5)
        kv.distances("w1")
        kv.evaluate_word_pairs(pairs, restrict_vocab=1000)  # its key map is gensim's ok_vocab, cached
        kv.evaluate_word_analogies(quads, restrict_vocab=1000)
        gc.collect()
        held = trace.current
    assert peak_query < matrix / 4
    assert held < matrix / 10
    # gensim's own norm API still works, with gensim's semantics
    v = kv.get_vector("w1", norm=True)
    assert np.allclose(v, kv.vectors[1] / np.linalg.norm(kv.vectors[1]), rtol=1e-6)
