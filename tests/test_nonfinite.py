"""Issue 38, item 5: no non-finite value reaches a score.

Embeddings built with ``check_finite=False``, or loaded with ``embgeo.load(..., mmap=True)``, may
hold NaN or inf rows; every evaluation, search, diagnostic and fit raises a ValueError naming the
word and its row before it reads them (:meth:`embgeo.Embeddings.check_finite`), and the whole
matrix is scanned at most once per object.
"""
from __future__ import annotations

import time

import numpy as np
import pytest

import embgeo
from embgeo import embeddings as emb_module
from embgeo import neighbors
from embgeo.crosslingual import Initialization, Mapper
from embgeo.diagnostics import hubness, isotropy
from embgeo.evaluate import word_similarity

MESSAGE = r"row {row} \('{word}'\) of the embeddings has a non-finite value \({value}\)"


@pytest.fixture(scope="module")
def ws353():
    return embgeo.data.load_dataset("wordsim353")


@pytest.fixture(scope="module")
def ws_space(ws353):
    """Random float32 vectors for WS-353's words (plus fillers), a clean Embeddings and its matrix."""
    words = sorted(set(ws353.words1) | set(ws353.words2)) + [f"filler{i}" for i in range(200)]
    X = np.random.default_rng(38).standard_normal((len(words), 16)).astype(np.float32)
    return words, X


def _with_nan(words, X, word="tiger", value=np.nan):
    bad = X.copy()
    bad[words.index(word), 3] = value
    return bad


def _nan_variants(tmp_path, words, X):
    """The same NaN-holding vectors, unchecked in memory and memory-mapped from a cache file."""
    bad = _with_nan(words, X)
    unchecked = embgeo.Embeddings(words, bad, check_finite=False)
    path = tmp_path / "v.embgeo"
    # the cache writer refuses nothing: write a clean cache, then plant the NaN in its .npy matrix
    embgeo.save(embgeo.Embeddings(words, X), path)
    npys = sorted(path.rglob("*.npy")) if path.is_dir() else []
    target = next((p for p in npys if np.load(p, mmap_mode="r").shape == X.shape), None)
    if target is None:
        pytest.skip("the cache layout holds no (n, d) .npy matrix")
    M = np.load(target, mmap_mode="r+")
    M[words.index("tiger"), 3] = np.nan
    M.flush()
    del M
    mapped = embgeo.load(path, mmap=True)
    assert isinstance(mapped.vectors, np.memmap) or isinstance(mapped.vectors.base, np.memmap)
    return {"check_finite=False": unchecked, "load(mmap=True)": mapped}


@pytest.fixture(params=["check_finite=False", "load(mmap=True)"])
def nan_space(request, tmp_path, ws_space):
    words, X = ws_space
    return words, _nan_variants(tmp_path, words, X)[request.param]


def _tiger(words):
    return MESSAGE.format(row=words.index("tiger"), word="tiger", value="nan")


def test_constructor_names_the_word_and_row(ws_space):
    words, X = ws_space
    with pytest.raises(ValueError, match=_tiger(words)):
        embgeo.Embeddings(words, _with_nan(words, X))
    with pytest.raises(ValueError, match=MESSAGE.format(row=words.index("tiger"), word="tiger", value="-inf")):
        embgeo.Embeddings(words, _with_nan(words, X, value=-np.inf))


def test_word_similarity_refuses_a_nan_row_instead_of_a_wrong_spearman(nan_space, ws353):
    """Main scored WS-353 silently over the NaN pair (0.4886 instead of 0.5247 on GloVe)."""
    words, e = nan_space
    with pytest.raises(ValueError, match=_tiger(words)):
        word_similarity(e, ws353)
    with pytest.raises(ValueError, match=_tiger(words)):
        e.similarity("tiger", "cat")
    # rows outside the pairs are not read: dropping the word's pairs gives a score
    keep = [k for k, (a, b) in enumerate(zip(ws353.words1, ws353.words2)) if "tiger" not in (a, b)]
    sims = e.similarity_pairs([ws353.words1[k] for k in keep], [ws353.words2[k] for k in keep])
    assert np.isfinite(sims).all()


@pytest.mark.parametrize("call", ["neighbors", "most_similar", "topk_vector_queries", "dot"])
def test_neighbour_search_refuses_a_nan_row(nan_space, call):
    words, e = nan_space
    fns = {"neighbors": lambda: e.neighbors(["cat"], k=5),
           "most_similar": lambda: e.most_similar("cat", topn=5),
           "topk_vector_queries": lambda: neighbors.search(e, np.ones((2, e.dim), np.float32), k=3),
           "dot": lambda: e.neighbors(["cat"], k=5, metric="dot")}
    with pytest.raises(ValueError, match=_tiger(words)):
        fns[call]()


@pytest.mark.parametrize("diagnostic", ["hubness", "isotropy"])
def test_diagnostics_refuse_a_nan_row(nan_space, diagnostic):
    words, e = nan_space
    with pytest.raises(ValueError, match=_tiger(words)):
        hubness(e, k=3) if diagnostic == "hubness" else isotropy(e)


def test_a_fit_refuses_a_nan_row(nan_space, ws_space):
    words, e = nan_space
    clean = embgeo.Embeddings(*ws_space)
    pairs = [(w, w) for w in words[:100]]
    with pytest.raises(ValueError, match=_tiger(words)):
        Mapper(initialization=Initialization("seed")).fit(e, clean, pairs)
    with pytest.raises(ValueError, match=_tiger(words)):
        embgeo.postprocess.all_but_the_top(e, 1)


def test_the_whole_matrix_is_scanned_once_per_object(monkeypatch, ws_space, ws353):
    words, X = ws_space
    calls = []
    scan = emb_module._first_nonfinite_row
    monkeypatch.setattr(emb_module, "_first_nonfinite_row", lambda M, *a, **k: calls.append(M.shape) or scan(M, *a, **k))
    n = len(words)
    unchecked = embgeo.Embeddings(words, X, check_finite=False)
    for _ in range(3):
        unchecked.neighbors(["cat"], k=3)
        hubness(unchecked, k=3)
        isotropy(unchecked)
    assert calls.count((n, X.shape[1])) == 1, calls
    # a NaN found once is remembered: the second call raises without a second scan
    bad = embgeo.Embeddings(words, _with_nan(words, X), check_finite=False)
    calls.clear()
    for _ in range(2):
        with pytest.raises(ValueError, match=_tiger(words)):
            bad.neighbors(["cat"], k=3)
    assert calls == [(n, X.shape[1])]
    # checked objects, and those derived from them, are never scanned
    clean = embgeo.Embeddings(words, X)  # its own check, at construction
    calls.clear()
    for e in (clean, clean.top(300), clean.subset(words[:50]), clean.astype("float64")):
        e.neighbors([words[0]], k=3)
        word_similarity(e, ws353, oov="skip")
    assert calls == []


def test_subset_drops_the_bad_word(ws_space):
    """The way out that the message names: a subset without the word scores."""
    words, X = ws_space
    bad = embgeo.Embeddings(words, _with_nan(words, X), check_finite=False)
    good = bad.subset([w for w in words if w != "tiger"])
    assert good.neighbors(["cat"], k=3)[1].shape == (1, 3)


def test_the_check_costs_nothing_after_the_first_call():
    """A clean 200k × 64 unchecked matrix: the first check reads it once, later ones are free."""
    X = np.random.default_rng(1).standard_normal((200_000, 64)).astype(np.float32)
    e = embgeo.Embeddings([f"w{i}" for i in range(len(X))], X, check_finite=False)
    t = time.perf_counter()
    e.check_finite()
    first = time.perf_counter() - t
    t = time.perf_counter()
    for _ in range(1000):
        e.check_finite()
    later = (time.perf_counter() - t) / 1000
    assert later < 1e-4 and later < first / 100, (first, later)


def test_the_check_never_copies_the_matrix():
    from conftest import traced_memory

    X = np.random.default_rng(2).standard_normal((100_000, 64)).astype(np.float32)
    e = embgeo.Embeddings([f"w{i}" for i in range(len(X))], X, check_finite=False)
    with traced_memory() as trace:
        e.check_finite()
    assert trace.peak < 0.1 * X.nbytes, trace.peak


def test_rows_check_reads_only_the_rows(ws_space):
    words, X = ws_space
    e = embgeo.Embeddings(words, _with_nan(words, X), check_finite=False)
    t = words.index("tiger")
    e.check_finite(np.array([0, 1, -1]))  # -1: a missing word's mark, ignored
    with pytest.raises(ValueError, match=_tiger(words)):
        e.check_finite(np.array([0, t]))
    with pytest.raises(ValueError, match=_tiger(words)):
        e.check_finite()
    e.check_finite(np.array([0, 1]))  # the known bad row is not among them
