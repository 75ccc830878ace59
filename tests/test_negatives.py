"""True/false-negative tools: synonym tables, the hard-correction mask, soft regularisation,
the phrase index and NegatER candidates."""
import json
from pathlib import Path

import numpy as np
import pytest

from embgeo import Embeddings, UnknownWordError
from embgeo.errors import FormatError
from embgeo.negatives import (HEAD, TAIL, NegativeCandidates, PhraseIndex, SynonymTable, candidate_negatives,
                              false_negative_mask, soft_regularisation, synonym_table)


def brute_force_table(X, k):
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    S = U.astype(np.float64) @ U.T.astype(np.float64)
    np.fill_diagonal(S, -np.inf)
    order = np.argsort(-S, axis=1, kind="stable")[:, :k]
    return order, np.take_along_axis(S, order, axis=1)


@pytest.fixture
def emb(rng):
    X = rng.standard_normal((300, 12)).astype(np.float32)
    return Embeddings([f"w{i}" for i in range(300)], X)


def test_synonym_table_equals_brute_force_top_k(emb):
    t = synonym_table(emb, k=7)
    order, scores = brute_force_table(emb.vectors, 7)
    assert np.array_equal(np.diff(t.indptr), np.full(300, 7))
    assert np.array_equal(t.indices.reshape(300, 7), order)
    assert np.allclose(t.scores.reshape(300, 7), scores, atol=1e-5)
    assert t["w3"] == [f"w{j}" for j in order[3]]
    assert "w3" not in t["w3"]


def test_threshold_keeps_only_similar_enough(emb):
    t = synonym_table(emb, k=10, threshold=0.3)
    order, scores = brute_force_table(emb.vectors, 10)
    assert np.all(t.scores >= 0.3)
    assert len(t.indices) == int((scores >= 0.3).sum())


def test_mutual_filter_is_symmetric_and_matches_definition(emb):
    t = synonym_table(emb, k=5, mutual=True)
    order, _ = brute_force_table(emb.vectors, 5)
    sets = [set(r) for r in order]
    expected = {(i, j) for i in range(300) for j in order[i] if i in sets[j]}
    got = {(i, int(j)) for i in range(300) for j in t.indices[t.indptr[i]:t.indptr[i + 1]]}
    assert got == expected
    assert all((j, i) in got for i, j in got)


def test_vocabulary_defines_the_index_space(emb):
    vocab = ["w5", "[PAD]", "w1", "w2", "w9", "w7"]
    t = synonym_table(emb, k=2, vocabulary=vocab)
    assert t.words == tuple(vocab)
    assert t["[PAD]"] == []
    sub = emb.subset(["w5", "w1", "w2", "w9", "w7"])
    ref = synonym_table(sub, k=2)
    for w in ref.words:
        assert t[w] == ref[w]


@pytest.mark.parametrize("fmt", ["json", "tsv", "npz"])
def test_export_import_round_trip(emb, tmp_path, fmt):
    t = synonym_table(emb, k=4)
    p = tmp_path / f"syn.{fmt}"
    t.save(p)
    back = SynonymTable.load(p, words=t.words if fmt != "npz" else None)
    assert back.words == t.words
    assert np.array_equal(back.indptr, t.indptr) and np.array_equal(back.indices, t.indices)
    assert np.allclose(back.scores, t.scores, atol=1e-5)
    assert not list(tmp_path.glob(".*tmp"))


def test_json_layout_is_word_to_synonym_score_lists(emb, tmp_path):
    t = synonym_table(emb, k=2)
    t.save(tmp_path / "s.json")
    data = json.loads((tmp_path / "s.json").read_text())
    assert [s for s, _ in data["w0"]] == t["w0"]


@pytest.mark.parametrize("name, raw, line", [
    ("bad.tsv", b"a\tb\t0.5\na\tc\n", 2),                  # two fields
    ("bad.tsv", b"a\tb\t0.5\r\na\tc\tx\r\n", 2),          # a score that is not a number
    ("bad.tsv", b"a\tb\t0.5\na\tc\tnan\n", None),          # a non-finite score
    ("bad.tsv", b"a\tb\t0.5\n\xe9t\xe9\tc\t0.1\n", 2),   # Latin-1, not UTF-8
    ("bad.json", b'{"a": [["b", 0.5]],\n "c": [["d"', 2),   # JSON cut short
    ("bad.json", b'{"a": [["b", "x"]]}', None),               # a score that is not a number
    ("bad.json", b'{"a": [["b", Infinity]]}', None),          # a non-finite score
    ("bad.npz", b"PK\x03\x04 not a zip", None),
])
def test_a_malformed_table_is_a_format_error_naming_the_file_and_line(tmp_path, name, raw, line):
    p = tmp_path / name
    p.write_bytes(raw)
    with pytest.raises(FormatError) as info:
        SynonymTable.load(p)
    assert info.value.path == str(p) and info.value.line == line


def test_a_table_with_a_bom_and_crlf_reads_the_words_of_the_plain_file(tmp_path):
    plain, windows = tmp_path / "a.tsv", tmp_path / "b.tsv"
    plain.write_bytes(b"cat\tdog\t0.5\ndog\tcat\t0.5\n")
    windows.write_bytes(b"\xef\xbb\xbfcat\tdog\t0.5\r\ndog\tcat\t0.5\r\n")
    assert SynonymTable.load(windows).words == SynonymTable.load(plain).words == ("cat", "dog")


def test_bad_arguments(emb):
    with pytest.raises(ValueError, match="k must be"):
        synonym_table(emb, k=0)
    with pytest.raises(ValueError, match="larger than"):
        synonym_table(emb, k=300)
    with pytest.raises(ValueError, match="none of the vocabulary"):
        synonym_table(emb, k=1, vocabulary=["x", "y"])
    with pytest.raises(UnknownWordError):
        synonym_table(emb, k=2)["nope"]


def test_synonym_table_takes_an_engine_object_with_its_options(emb, monkeypatch):
    import embgeo.neighbors
    from embgeo.neighbors import Cuda, Exact

    ref = synonym_table(emb, k=5)
    seen = []
    search = embgeo.neighbors.self_topk
    monkeypatch.setattr(embgeo.neighbors, "self_topk", lambda *a, **kw: seen.append(kw["backend"]) or search(*a, **kw))
    engine = Exact(selector="argpartition", n_jobs=1)
    t = synonym_table(emb, k=5, backend=engine)
    assert seen == [engine]                                     # the object reaches the search as given
    np.testing.assert_array_equal(t.indices, ref.indices)
    np.testing.assert_allclose(t.scores, ref.scores, rtol=1e-6)
    with pytest.raises(ValueError, match="backend must be 'exact' or 'dask'"):
        synonym_table(emb, k=5, backend=Cuda())
    with pytest.raises(TypeError, match="engine object"):
        synonym_table(emb, k=5, backend=2)
    with pytest.raises(TypeError, match="client"):
        synonym_table(emb, k=5, backend="dask", client=None)  # the client is the Dask engine's option


def test_false_negative_mask_hand_written_case():
    # table over 5 tokens: 0 -> {1, 2}; 1 -> {0}; 3 -> {4}
    t = SynonymTable(tuple("abcde"), np.array([0, 2, 3, 3, 4, 4]), np.array([1, 2, 0, 4]),
                     np.ones(4, dtype=np.float32))
    gold = np.array([[0, 0, 0, 1], [3, 3, 2, -1]])
    pred = np.array([[1, 2, 0, 0], [4, 0, 1, 1]])
    expected = np.array([[True, True, False, True], [True, False, False, False]])
    assert np.array_equal(false_negative_mask(pred, gold, t), expected)
    assert np.array_equal(false_negative_mask(pred, gold, t.to_padded()), expected)


def test_false_negative_mask_on_array_api_strict():
    xps = pytest.importorskip("array_api_strict")
    t = SynonymTable(tuple("abc"), np.array([0, 1, 2, 2]), np.array([1, 0]), np.ones(2, dtype=np.float32))
    m = false_negative_mask(xps.asarray([1, 2, 0]), xps.asarray([0, 0, 1]), t)
    assert np.asarray(m).tolist() == [True, False, True]


def test_false_negative_mask_errors():
    t = SynonymTable(("a", "b"), np.array([0, 1, 2]), np.array([1, 0]), np.ones(2, dtype=np.float32))
    with pytest.raises(ValueError, match="shape"):
        false_negative_mask(np.array([0, 1]), np.array([0]), t)
    with pytest.raises(ValueError, match="below the table size"):
        false_negative_mask(np.array([5]), np.array([0]), t)


def test_soft_regularisation_equals_direct_cosine(rng):
    g = rng.standard_normal((4, 6, 8))
    p = rng.standard_normal((4, 6, 8))
    mask = rng.random((4, 6)) < 0.5
    cos = np.einsum("ijk,ijk->ij", g, p) / np.linalg.norm(g, axis=-1) / np.linalg.norm(p, axis=-1)
    assert float(soft_regularisation(g, p)) == pytest.approx(np.mean(1 - cos))
    assert float(soft_regularisation(g, p, mask)) == pytest.approx(np.mean((1 - cos)[mask]))
    assert float(soft_regularisation(g[0, 0], g[0, 0])) == pytest.approx(0, abs=1e-12)
    with pytest.raises(ValueError, match="no position"):
        soft_regularisation(g, p, np.zeros((4, 6), dtype=bool))
    with pytest.raises(ValueError, match="differ in shape"):
        soft_regularisation(g, p[:, :2])


@pytest.fixture
def phrase_emb():
    rng = np.random.default_rng(3)
    words = ["ice", "cream", "frozen", "yogurt", "car", "truck", "red", "blue", "dog", "cat"]
    return Embeddings(words, rng.standard_normal((10, 6)).astype(np.float32))


PHRASES = ["ice cream", "frozen yogurt", "car", "red truck", "blue car", "dog", "cat", "red_dog"]


def test_phrase_vectors_are_word_means(phrase_emb):
    V = PhraseIndex.embed(phrase_emb, ["ice cream", "red_dog", "cat unknownword"])
    assert np.allclose(V[0], (phrase_emb["ice"] + phrase_emb["cream"]) / 2, atol=1e-6)
    assert np.allclose(V[1], (phrase_emb["red"] + phrase_emb["dog"]) / 2, atol=1e-6)
    assert np.allclose(V[2], phrase_emb["cat"])
    with pytest.raises(ValueError, match="empty phrase"):
        PhraseIndex.embed(phrase_emb, ["zzz qqq"])


def test_phrase_index_neighbours_match_brute_force_and_survive_save_load(phrase_emb, tmp_path):
    idx = PhraseIndex.build(phrase_emb, PHRASES, metric="cosine")
    V = PhraseIndex.embed(phrase_emb, PHRASES)
    U = V / np.linalg.norm(V, axis=1, keepdims=True)
    S = U @ U.T
    np.fill_diagonal(S, -np.inf)
    got = idx.query(PHRASES, k=3)
    for i, row in enumerate(got):
        assert [p for p, _ in row] == [PHRASES[j] for j in np.argsort(-S[i], kind="stable")[:3]]
    idx.save(tmp_path / "pi")
    idx.save(tmp_path / "pi")  # overwriting an existing index is atomic too
    back = PhraseIndex.load(tmp_path / "pi")
    assert back.phrases == PHRASES
    assert back.query(PHRASES, k=3) == got
    assert [p for p, _ in idx.query(["blue truck"], k=2, e=phrase_emb)[0]][0] in {"red truck", "blue car"}
    with pytest.raises(UnknownWordError, match="blue truck.*pass e= to embed"):
        idx.query(["blue truck"], k=2)
    with pytest.raises(ValueError, match="larger than"):
        idx.query(["car"], k=8)
    with pytest.raises(FileNotFoundError):
        PhraseIndex.load(tmp_path / "nothing")


def test_known_positives_never_appear_as_candidates(phrase_emb):
    idx = PhraseIndex.build(phrase_emb, PHRASES, metric="cosine")  # heads not indexed: tails only
    triples = [("child", "Desires", "ice cream"), ("child", "Desires", "frozen yogurt"),
               ("person", "Drives", "car")]
    known = triples + [("person", "Drives", "red truck")]
    cands = candidate_negatives(triples, idx, k=5, known=known, slot_filter=False, corrupt="tail")
    assert len(cands)
    positives = set(known)
    for h, r, t in cands:
        assert (h, r, t) not in positives
    tails_for_child = {t for h, r, t in cands if h == "child"}
    assert "ice cream" not in tails_for_child and "frozen yogurt" not in tails_for_child
    assert "child" not in tails_for_child  # the triple's own head is no candidate either
    with pytest.raises(ValueError, match=r"head, relation, tail\); row 0 is \('a', 'b'\)"):
        candidate_negatives([("a", "b")], idx)


def test_synonym_table_on_glove_finds_known_synonyms(glove):
    e = glove.top(20000)
    t = synonym_table(e, k=10)
    assert "big" in t["large"] or "larger" in t["large"]
    assert len(t) == 20000 and len(t.indices) == 200000


def test_mixed_indexed_and_new_queries_still_exclude_themselves(phrase_emb):
    # review finding: one new phrase among the queries switched self-exclusion off for all
    idx = PhraseIndex.build(phrase_emb, PHRASES)
    rows = idx.query(["car", "blue truck"], k=3, e=phrase_emb)
    assert "car" not in [p for p, _ in rows[0]] and len(rows[0]) == 3
    assert rows[0] == idx.query(["car"], k=3)[0]


def test_faiss_index_save_follows_the_umask(tmp_path):
    pytest.importorskip("faiss")
    import os

    from embgeo.neighbors.faiss_index import FaissIndex

    index = FaissIndex(4)
    index.add(np.eye(4, dtype=np.float32))
    old = os.umask(0o022)
    try:
        index.save(tmp_path / "i.faiss")
    finally:
        os.umask(old)
    assert (os.stat(tmp_path / "i.faiss").st_mode & 0o777) == 0o644
    assert FaissIndex.load(tmp_path / "i.faiss").search(np.eye(4, dtype=np.float32), 1)[1].ravel().tolist() == [0, 1, 2, 3]


# ----------------------------------------------------------------------------- NegatER as released
GOLDEN = json.loads((Path(__file__).parent / "data" / "negater_golden.json").read_text(encoding="utf-8"))


def _sorted(cands):
    return sorted(map(list, cands))


@pytest.mark.parametrize("run", GOLDEN["runs"], ids=lambda r: f"k{r['k']}")
def test_candidates_equal_the_released_generate_corruptions(run):
    # tests/data/negater_golden.json: _generate_corruptions of tsafavi/NegatER run unchanged on this
    # fixture and these neighbour lists (benchmarks/reference/negater_golden.py); duplicates count
    got = candidate_negatives(GOLDEN["triples"], run["nearest_neighbors"], k=run["k"])
    assert _sorted(got) == run["corruptions"]


@pytest.mark.parametrize("run", GOLDEN["runs"], ids=lambda r: f"k{r['k']}")
def test_l2_phrase_index_gives_the_released_faiss_neighbours_and_candidates(run):
    idx = PhraseIndex.build(None, GOLDEN["phrases"], vectors=np.array(GOLDEN["vectors"], dtype=np.float32))
    assert idx.metric == "l2"
    rows = idx.query(GOLDEN["phrases"], k=run["k"])
    assert {p: [q for q, _ in row] for p, row in zip(GOLDEN["phrases"], rows)} == run["nearest_neighbors"]
    assert _sorted(candidate_negatives(GOLDEN["triples"], idx, k=run["k"])) == run["corruptions"]


def test_l2_scores_are_squared_distances_nearest_first(rng):
    X = rng.standard_normal((50, 7)).astype(np.float32) * 3 + 5  # far from the origin: not cosine's order
    idx = PhraseIndex.build(None, [f"p{i}" for i in range(50)], vectors=X)
    D = ((X[:, None].astype(np.float64) - X[None]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    scores, ids = idx.search(X, 5, np.arange(50))
    assert np.array_equal(ids, np.argsort(D, axis=1, kind="stable")[:, :5])
    assert np.allclose(scores, np.sort(D, axis=1)[:, :5], rtol=1e-5, atol=1e-4)
    cos = PhraseIndex.build(None, [f"p{i}" for i in range(50)], vectors=X, metric="cosine")
    assert not np.array_equal(cos.search(X, 5, np.arange(50))[1], ids)


def test_self_exclusion_removes_the_phrase_itself_not_the_first_hit():
    # "ice_cream" and "ice cream" have the same vector: dropping the first hit (the released code) may drop
    # the twin and keep the phrase itself; embgeo removes the phrase's own row and keeps the twin
    X = np.array([[0, 0], [0, 0], [1, 0], [0, 3]], dtype=np.float32)
    idx = PhraseIndex.build(None, ["ice_cream", "ice cream", "cake", "car"], vectors=X)
    assert [p for p, _ in idx.query(["ice cream"], k=2)[0]] == ["ice_cream", "cake"]
    assert [p for p, _ in idx.query(["ice_cream"], k=2)[0]] == ["ice cream", "cake"]
    assert idx.query(["ice cream"], k=1)[0][0][1] == 0.0


def test_corrupt_and_slot_filter_select_the_departures_by_name():
    idx = PhraseIndex.build(None, GOLDEN["phrases"], vectors=np.array(GOLDEN["vectors"], dtype=np.float32))
    full = candidate_negatives(GOLDEN["triples"], idx, k=6)
    tails = candidate_negatives(GOLDEN["triples"], idx, k=6, corrupt="tail")
    heads = candidate_negatives(GOLDEN["triples"], idx, k=6, corrupt="head")
    assert set(tails.slot.tolist()) == {TAIL} and set(heads.slot.tolist()) == {HEAD}
    assert _sorted(tails) + _sorted(heads) and sorted(_sorted(tails) + _sorted(heads)) == _sorted(full)
    loose = candidate_negatives(GOLDEN["triples"], idx, k=6, slot_filter=False)
    assert len(loose) > len(full) and set(map(tuple, _sorted(full))) <= set(map(tuple, _sorted(loose)))
    fillers = {(r, s): {t[s] for t in GOLDEN["triples"] if t[1] == r} for r in {t[1] for t in GOLDEN["triples"]}
               for s in (0, 2)}
    assert all(c[s] in fillers[c[1], s] for c, s in zip(full, full.slot.tolist()))
    assert not all(c[s] in fillers[c[1], s] for c, s in zip(loose, loose.slot.tolist()))
    # arrays: each candidate is its source triple with one slot replaced, a phrase nearer than the k-th
    src = np.array(GOLDEN["triples"], dtype=object)[full.source]
    for (h, r, t), s, (sh, sr, st) in zip(full, full.slot.tolist(), src):
        assert r == sr and ((s == HEAD and t == st and h != sh) or (s == TAIL and h == sh and t != st))
    assert isinstance(full, NegativeCandidates) and np.isfinite(full.score).all()
    with pytest.raises(ValueError, match="corrupt must be"):
        candidate_negatives(GOLDEN["triples"], idx, corrupt="relation")


def test_a_relation_with_a_single_filler_gives_no_candidate_and_no_error():
    idx = PhraseIndex.build(None, GOLDEN["phrases"], vectors=np.array(GOLDEN["vectors"], dtype=np.float32))
    only = [t for t in GOLDEN["triples"] if t[1] == "OnlyOne"]
    assert len({t[2] for t in only}) == 1
    got = candidate_negatives(only, idx, k=6, corrupt="tail")
    assert len(got) == 0 and got.counts() == {("OnlyOne", "head"): 0, ("OnlyOne", "tail"): 0}
    single = candidate_negatives([("phrase 00", "Alone", "phrase 01")], idx, k=6)
    assert len(single) == 0


def test_unindexed_heads_and_tails_are_named_or_embedded(phrase_emb):
    idx = PhraseIndex.build(phrase_emb, PHRASES)
    triples = [("blue truck", "IsA", "car"), ("dog", "IsA", "cat"), ("red truck", "IsA", "blue dog")]
    with pytest.raises(UnknownWordError, match=r"2 missing: 'blue truck', 'blue dog'.*pass e= to embed"):
        candidate_negatives(triples, idx, k=3)
    got = candidate_negatives(triples, idx, k=3, e=phrase_emb, slot_filter=False)
    assert len(got) and {"blue truck", "blue dog"} <= {p for c in got for p in (c[0], c[2])}
    # an embedded phrase is a query only: it never replaces anything
    replaced = [c[s] for c, s in zip(got, got.slot.tolist())]
    assert "blue truck" not in replaced and "blue dog" not in replaced
    rows = {c for c in got if c[0] == "blue truck"}
    assert {c[2] for c in rows} <= {p for p, _ in idx.query(["car"], k=3)[0]}


def test_duplicate_phrases_are_refused_by_name(phrase_emb):
    with pytest.raises(ValueError, match=r"unique: 'car' at rows 2, 8"):
        PhraseIndex.build(phrase_emb, PHRASES + ["car"])
    with pytest.raises(ValueError, match=r"unique: 'a' at rows 0, 1"):
        PhraseIndex(["a", "a"], np.eye(2))
    with pytest.raises(ValueError, match="kind='flat' for l2"):
        PhraseIndex.build(phrase_emb, PHRASES, kind="hnsw")


def test_l2_index_survives_save_load(phrase_emb, tmp_path):
    idx = PhraseIndex.build(phrase_emb, PHRASES)
    idx.save(tmp_path / "l2")
    back = PhraseIndex.load(tmp_path / "l2")
    assert (back.metric, back.kind, back.phrases) == ("l2", "flat", PHRASES)
    assert back.query(PHRASES, k=3) == idx.query(PHRASES, k=3)


def test_approximate_kind_excludes_self_and_survives_save_load(phrase_emb, tmp_path):
    pytest.importorskip("faiss")
    idx = PhraseIndex.build(phrase_emb, PHRASES, kind="hnsw", metric="cosine")
    exact = PhraseIndex.build(phrase_emb, PHRASES, metric="cosine")
    got = idx.query(PHRASES, k=3)
    assert [[p for p, _ in r] for r in got] == [[p for p, _ in r] for r in exact.query(PHRASES, k=3)]
    idx.save(tmp_path / "h")
    assert PhraseIndex.load(tmp_path / "h").query(PHRASES, k=3) == got
