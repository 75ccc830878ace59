"""Word similarity, analogies, evaluate() and Report (embgeo.evaluate)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

import embgeo
from embgeo.data import AnalogyQuestions, WordPairs, load_dataset
from embgeo.errors import UnknownWordError
from embgeo.evaluate import Report, analogy, evaluate, word_similarity
from embgeo.evaluate.similarity import resolve_measure


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def glove_small(glove):
    """The 20,000 most frequent GloVe words: enough for the gensim comparisons, fast."""
    return glove.top(20000)


def _kv(e):
    return e.to_gensim()


def _write_questions(path, questions: AnalogyQuestions, per_section=None):
    with open(path, "w", encoding="utf8") as fh:
        for name, rows in questions.sections.items():
            fh.write(f": {name}\n")
            for r in rows[:per_section]:
                fh.write(" ".join(r) + "\n")
    return path


# ------------------------------------------------------------ word similarity
def test_spearman_equals_a_direct_scipy_computation(small_embeddings, rng):
    words = small_embeddings.words
    i, j = rng.integers(0, 200, 50), rng.integers(0, 200, 50)
    gold = rng.random(50)
    wp = WordPairs([words[k] for k in i], [words[k] for k in j], gold, "toy")
    r = word_similarity(small_embeddings, wp)
    X = np.asarray(small_embeddings.vectors, dtype=np.float64)
    cos = [X[a] @ X[b] / np.linalg.norm(X[a]) / np.linalg.norm(X[b]) for a, b in zip(i, j)]
    rho, p = stats.spearmanr(gold, cos)
    assert r.spearman == pytest.approx(rho, abs=1e-12) and r.spearman_pvalue == pytest.approx(p, rel=1e-9)
    assert r.pearson == pytest.approx(stats.pearsonr(gold, cos)[0], abs=1e-6)
    assert (r.n_pairs, r.n_found, r.n_total, r.coverage) == (50, 50, 50, 1.0)


@pytest.mark.parametrize("name", ["wordsim353", "simlex999"])
@pytest.mark.parametrize("oov, dummy", [("skip", False), ("zero", True)])
def test_spearman_and_coverage_equal_gensim_evaluate_word_pairs(glove_small, name, oov, dummy):
    kv = _kv(glove_small)
    path = embgeo.data.dataset_path(name)
    pearson, spearman, oov_ratio = kv.evaluate_word_pairs(path, restrict_vocab=len(glove_small),
                                                          dummy4unknown=dummy)
    r = word_similarity(glove_small, name, oov=oov)
    assert r.spearman == pytest.approx(spearman[0], abs=1e-6)
    assert r.pearson == pytest.approx(pearson[0], abs=1e-5)
    assert r.coverage < 1  # 20k words miss some pairs, so the OOV policy matters
    if oov == "skip":
        assert 100 * (1 - r.coverage) == pytest.approx(oov_ratio)
        assert r.n_pairs == r.n_found
    else:
        assert r.n_pairs == r.n_total


def test_glove_known_values(glove):
    """The known values for GloVe 6B 50d: WS-353 rho ~ 0.50, SimLex-999 rho ~ 0.26, full coverage."""
    ws, sl = word_similarity(glove, "wordsim353"), word_similarity(glove, "simlex999")
    assert ws.spearman == pytest.approx(0.5033, abs=1e-3) and ws.coverage == 1
    assert sl.spearman == pytest.approx(0.2646, abs=1e-3) and sl.coverage == 1


def test_oov_policies_and_case_handling():
    e = embgeo.Embeddings(["cat", "dog", "sun", "moon"], np.eye(4, dtype=np.float32) + 0.1)
    wp = WordPairs(["Cat", "sun", "cat", "zebra"], ["dog", "moon", "sun", "cat"], [3.0, 2.0, 1.0, 0.5], "t")
    skip = word_similarity(e, wp)  # lowercase=None: "Cat" falls back to "cat"
    assert (skip.n_found, skip.n_pairs, skip.n_total) == (3, 3, 4) and skip.coverage == 0.75
    exact = word_similarity(e, wp, lowercase=False)
    assert exact.n_found == 2
    assert word_similarity(e, wp, lowercase=True).n_found == 3
    zero = word_similarity(e, wp, oov="zero")
    sims = e.similarity_pairs(["cat", "sun", "cat"], ["dog", "moon", "sun"])
    assert zero.n_pairs == 4
    assert zero.spearman == pytest.approx(stats.spearmanr([3, 2, 1, 0.5], [*sims, 0.0])[0])
    with pytest.raises(UnknownWordError, match="'zebra'.*pair 4 of t"):
        word_similarity(e, wp, oov="raise")
    with pytest.raises(ValueError, match="oov must be"):
        word_similarity(e, wp, oov="ignore")
    with pytest.raises(ValueError, match="no pair of none"):
        word_similarity(e, WordPairs(["x"], ["y"], [1.0], "none"))


def test_any_model_with_the_protocol_can_be_evaluated():
    class Reverse:
        """Similarity = -|i - j| on integer words; measure is passed through."""

        seen = []

        def __contains__(self, w):
            return w.isdigit()

        def similarity_pairs(self, words1, words2, measure=None):
            self.seen.append(measure)
            return np.array([-abs(int(a) - int(b)) for a, b in zip(words1, words2)], dtype=float)

    wp = WordPairs(["1", "1", "1", "x"], ["2", "5", "9", "1"], [9.0, 5.0, 1.0, 7.0], "ints")
    r = word_similarity(Reverse(), wp, measure="custom")
    assert r.spearman == pytest.approx(1.0) and r.n_found == 3 and r.measure == "custom"
    assert Reverse.seen == ["custom"]


def test_fuzzy_measures_go_through_fuzzy_embeddings(small_embeddings):
    fuzzy = pytest.importorskip("embgeo.fuzzy")
    cache = {}
    model, name = resolve_measure(small_embeddings, "fuzzy-kl-rev", cache)
    F = fuzzy.FuzzyEmbeddings.from_embeddings(small_embeddings)
    w1, w2 = small_embeddings.words[:5], small_embeddings.words[5:10]
    np.testing.assert_allclose(model.similarity_pairs(w1, w2), F.similarity_pairs(w2, w1, measure="kl"))
    assert name == "fuzzy-kl-rev" and "fuzzy" in cache
    with pytest.raises(ValueError, match="unknown measure 'fuzzy-foo'"):
        resolve_measure(small_embeddings, "fuzzy-foo")


# ------------------------------------------------------------------ analogy
def _brute_force(e, questions, method, n_r, eps=1e-3):
    """One question at a time, cosines from their definition, exact-case vocabulary."""
    W = np.asarray(e.vectors[:n_r], dtype=np.float64)
    pos = {w: i for i, w in enumerate(e.words[:n_r])}
    out = []
    for a, b, c, d in questions:
        if not all(w in pos for w in (a, b, c, d)):
            out.append(None)
            continue

        def cos(w):
            v = W[pos[w]]
            return W @ v / (np.linalg.norm(W, axis=1) * np.linalg.norm(v))

        if method == "3cosadd":
            s = cos(b) - cos(a) + cos(c)
        else:
            s = ((cos(b) + 1) / 2) * ((cos(c) + 1) / 2) / ((cos(a) + 1) / 2 + eps)
        for w in (a, b, c):
            s[pos[w]] = -np.inf
        out.append(int(np.argmax(s)))
    return out


@pytest.fixture(scope="module")
def google_subset(glove_small):
    """Up to 40 lower-cased Google questions per section whose words are among the 5000 most frequent."""
    q = load_dataset("google-analogy").lower()
    top = set(glove_small.words[:5000])
    keep = {k: np.array([r for r in v if all(w in top for w in r)][:40]).reshape(-1, 4)
            for k, v in q.sections.items()}
    return AnalogyQuestions(keep, "google-subset")


@pytest.mark.parametrize("method", ["3cosadd", "3cosmul"])
def test_analogy_equals_brute_force_loop(glove_small, google_subset, method):
    n_r = 3000
    r = analogy(glove_small, google_subset, method=method, restrict_vocab=n_r, case_insensitive=False)
    ref = _brute_force(glove_small, google_subset.questions, method, n_r)
    covered = [i for i, x in enumerate(ref) if x is not None]
    assert len(covered) == r.n_evaluated > 100
    np.testing.assert_array_equal(r.predictions[covered], [ref[i] for i in covered])
    answers = [glove_small.index(google_subset.questions[i, 3]) for i in covered]
    assert r.n_correct == sum(p == a for p, a in zip(r.predictions[covered], answers))


def test_3cosadd_equals_gensim_evaluate_word_analogies(glove_small, tmp_path):
    q = load_dataset("google-analogy")
    path = _write_questions(tmp_path / "q.txt", q, per_section=300)
    n_r = 5000
    score, sections = _kv(glove_small).evaluate_word_analogies(str(path), restrict_vocab=n_r)
    r = analogy(glove_small, path, restrict_vocab=n_r)
    total = sections[-1]
    assert r.n_correct == len(total["correct"]) and r.n_evaluated == len(total["correct"]) + len(total["incorrect"])
    assert r.accuracy == score
    for s in sections[:-1]:
        mine = r.sections[s["section"]]
        assert mine["n_correct"] == len(s["correct"]), s["section"]
        assert mine["n_evaluated"] == len(s["correct"]) + len(s["incorrect"])


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_3cosmul_agrees_with_gensim_most_similar_cosmul(glove_small, google_subset):
    """gensim's most_similar_cosmul (epsilon 1e-6) is a third, independent 3CosMul."""
    sub = glove_small.top(2000)
    kv = _kv(sub)
    r = analogy(sub, google_subset, method="3cosmul", epsilon=1e-6, case_insensitive=False)
    checked = 0
    for k, (a, b, c, d) in enumerate(google_subset.questions):
        if r.predictions[k] < 0:
            continue
        best = kv.most_similar_cosmul(positive=[b, c], negative=[a], topn=1)[0][0]
        assert sub.words[r.predictions[k]] == best
        checked += 1
    assert checked > 50


def _toy_analogies(rng):
    """Mixed-case vocabulary where answers are built as d = b - a + c + noise."""
    base = [f"w{i}" for i in range(40)]
    V = {w: rng.standard_normal(8) for w in base}
    rows = []
    for t in range(30):
        a, b, c = rng.choice(base, 3, replace=False)
        d = f"ans{t}"
        # growing noise: some answers are beaten by a case variant of a question word
        V[d] = V[b] - V[a] + V[c] + (0.3 + 0.1 * t) * rng.standard_normal(8)
        rows.append([a, b, c, d])
    # case variants: rarer rows (later) that gensim folds together with their lower-case word
    for w in base[:30] + ["ans3", "ans4"]:
        V[w.upper()] = V[w] + 0.05 * rng.standard_normal(8)
    for w in ["ans5", "ans6"]:  # an upper-case variant that is more frequent than the lower-case one
        V = {w.upper(): V[w] + 0.05 * rng.standard_normal(8), **V}
    words = list(V)
    e = embgeo.Embeddings(words, np.array([V[w] for w in words], dtype=np.float32))
    rows[0] = [x.upper() for x in rows[0]]
    q = AnalogyQuestions({"s1": np.array(rows[:15]), "s2": np.array(rows[15:])}, "toy")
    return e, q


def test_case_insensitive_convention_equals_gensim(rng, tmp_path):
    e, q = _toy_analogies(rng)
    path = _write_questions(tmp_path / "toy.txt", q)
    kv = _kv(e)
    for restrict in (None, 90):
        score, sections = kv.evaluate_word_analogies(str(path), restrict_vocab=restrict or len(e))
        r = analogy(e, q, restrict_vocab=restrict)
        assert r.n_correct == len(sections[-1]["correct"]) > 0
        assert r.n_evaluated == len(sections[-1]["correct"]) + len(sections[-1]["incorrect"])
        for s in sections[:-1]:
            assert r.sections[s["section"]]["n_correct"] == len(s["correct"])


def test_batching_does_not_change_answers(glove_small, google_subset):
    ref = analogy(glove_small, google_subset, method="3cosmul", restrict_vocab=4000)
    for bs in (1, 7):
        r = analogy(glove_small, google_subset, method="3cosmul", restrict_vocab=4000, batch_size=bs)
        np.testing.assert_array_equal(r.predictions, ref.predictions)
    r = analogy(glove_small, google_subset, restrict_vocab=4000, memory_budget=4000 * 4 * 3)
    np.testing.assert_array_equal(r.predictions, analogy(glove_small, google_subset, restrict_vocab=4000).predictions)


@pytest.mark.parametrize("method", ["3cosadd", "3cosmul", "pairdirection"])
def test_gemm_rows_are_the_distinct_words_or_pairs_of_a_batch(glove_small, google_subset, method, monkeypatch):
    """Questions of a section share their words: each batch's GEMM has one row per distinct word (PairDirection:
    per distinct c and per distinct pair a : b), not one or two per question, and a batch holds as many
    consecutive questions as the budget's rows allow."""
    import embgeo.kernels.analogy as kernels

    scans, scan = [], kernels.analogy_scan

    def spy(C, pos, *args):
        scans.append((C.shape[0], pos.shape[0], np.unique(pos).size))
        return scan(C, pos, *args)

    monkeypatch.setattr(kernels, "analogy_scan", spy)
    n_r, rows = 4000, 40
    r = analogy(glove_small, google_subset, method=method, restrict_vocab=n_r, memory_budget=2 * rows * n_r * 4)
    assert all(words == distinct <= rows for words, _, distinct in scans)
    assert sum(q for _, q, _ in scans) == r.n_evaluated
    per_question = 2 if method == "pairdirection" else 1  # the rows a question would bring alone
    assert sum(q for _, q, _ in scans) * per_question > 1.5 * sum(words for words, _, _ in scans)
    ref = analogy(glove_small, google_subset, method=method, restrict_vocab=n_r, batch_size=1)
    np.testing.assert_array_equal(r.predictions, ref.predictions)
    np.testing.assert_array_equal(r.ranks, ref.ranks)


@pytest.mark.parametrize("method", ["3cosadd", "3cosmul"])
def test_analogy_is_backend_neutral(rng, method):
    xps = pytest.importorskip("array_api_strict")
    e, q = _toy_analogies(rng)
    es = embgeo.Embeddings(e.words, xps.asarray(np.asarray(e.vectors)))
    a = analogy(e, q, method=method)
    b = analogy(es, q, method=method)
    np.testing.assert_array_equal(a.predictions, b.predictions)
    assert a.sections == b.sections


def test_analogy_result_fields_and_errors(rng, small_embeddings):
    e, q = _toy_analogies(rng)
    r = analogy(e, q)
    assert r.n_total == 30 and r.coverage == 1 and r.accuracy == r.accuracy_all
    assert sum(s["n_correct"] for s in r.sections.values()) == r.n_correct
    assert math.isnan(r.syntactic_accuracy) and r.semantic_accuracy == r.accuracy
    d = r.to_dict()
    json.dumps(d)
    assert "predictions" not in d
    with pytest.raises(ValueError, match="method must be"):
        analogy(e, q, method="3cosfoo")
    with pytest.raises(ValueError, match="restrict_vocab=2"):
        analogy(e, q, restrict_vocab=2)
    with pytest.raises(ValueError, match="holds word pairs, not analogy questions"):
        analogy(e, "wordsim353")
    with pytest.raises(ValueError, match="holds analogy questions, not word pairs"):
        word_similarity(e, "google-analogy")


def test_uncovered_questions_count_in_accuracy_all(glove_small, google_subset):
    r = analogy(glove_small, google_subset, restrict_vocab=1000)
    assert r.n_evaluated < r.n_total
    assert r.accuracy_all == pytest.approx(r.n_correct / r.n_total)
    assert r.coverage == pytest.approx(r.n_evaluated / r.n_total)
    assert np.all(r.predictions[r.predictions >= 0] < 1000)


# ------------------------------------------------------------------ Report
def test_report_text_markdown_and_records():
    rep = Report([{"dataset": "ws", "n": 353, "rho": 0.50331},
                  {"dataset": "google-analogy", "n": 19486, "acc": float("nan"), "rho": np.float64(0.25)}],
                 title="T", formats={"rho": "{:.2f}"})
    lines = str(rep).splitlines()
    assert lines[0] == "T"
    assert lines[1].split() == ["dataset", "n", "rho", "acc"]
    assert lines[3].startswith("ws ") and lines[3].rstrip().endswith("353  0.50")
    # numbers right-aligned under their header, text left-aligned
    assert lines[1].index(" n ") + 1 == lines[3].index("353") + 2 == lines[4].index("19486") + 4
    assert lines[4].startswith("google-analogy  ")
    md = rep.to_markdown().splitlines()
    assert md[2] == "| dataset | n | rho | acc |" and md[3] == "|---|---:|---:|---:|"
    recs = rep.to_records()
    assert recs[1] == {"dataset": "google-analogy", "n": 19486, "rho": 0.25, "acc": None}
    assert type(recs[1]["rho"]) is float
    assert json.loads(json.dumps(rep.to_dict())) == {"title": "T", "columns": ["dataset", "n", "rho", "acc"],
                                                      "rows": recs}
    assert len(rep) == 2 and rep[0]["dataset"] == "ws"
    with pytest.raises(TypeError, match="must be a dict"):
        rep.append([1, 2])


def test_evaluate_runs_every_dataset_and_measure(small_embeddings, tmp_path):
    words = small_embeddings.words
    p = tmp_path / "pairs.txt"
    p.write_text("".join(f"{words[i]}\t{words[i + 1]}\t{i % 7}\n" for i in range(40)), encoding="utf8")
    q = tmp_path / "q.txt"
    q.write_text(": s\n" + "".join(f"{' '.join(words[i:i + 4])}\n" for i in range(0, 40, 4)), encoding="utf8")
    rep = evaluate(small_embeddings, [p, q], ["cosine", "dot"], analogy_methods=["3cosadd", "3cosmul"],
                   sections=True)
    recs = rep.to_records()
    assert [(r["dataset"], r["measure"]) for r in recs] == [
        ("pairs", "cosine"), ("pairs", "dot"), ("q", "3cosadd"), ("q/s", "3cosadd"), ("q", "3cosmul"),
        ("q/s", "3cosmul")]
    assert recs[0]["spearman"] == pytest.approx(word_similarity(small_embeddings, p).spearman)
    assert recs[2]["accuracy"] == analogy(small_embeddings, q).accuracy and recs[2]["spearman"] is None
    assert [r.dataset for r in rep.results] == [r["dataset"] for r in recs]   # one result behind each row
    with pytest.raises(ValueError, match="unknown measure"):
        evaluate(small_embeddings, [p], ["cos"])
    with pytest.raises(FileNotFoundError, match="unknown dataset"):
        evaluate(small_embeddings, ["nosuchset"])


def test_bli_is_exported_lazily():
    import embgeo.evaluate as ev

    try:
        import embgeo.evaluate.lexicon  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            ev.bli
    else:
        assert callable(ev.bli)


def test_empty_analogy_section_does_not_divide_by_zero(tmp_path):
    # review finding: an empty section made evaluate(..., sections=True) raise ZeroDivisionError
    from embgeo.evaluate import evaluate

    words = ["a", "b", "c", "d", "e", "f"]
    rng = np.random.default_rng(0)
    e = embgeo.Embeddings(words, rng.standard_normal((6, 5)).astype(np.float32))
    p = tmp_path / "an.txt"
    p.write_text(": empty\n: real\na b c d\nb c d e\n")
    rep = evaluate(e, [str(p)], sections=True)
    assert any("empty" in str(r.get("dataset")) for r in rep.to_records())


def test_3cosmul_scan_kernel_equals_the_matrix_form(rng):
    """The compiled scan (no question × vocabulary matrix) against NumPy's argmax of eq. 4, exclusions included."""
    from embgeo.kernels.analogy import COSMUL, analogy_scan

    def scan(C, pa, pb, pc, excluded):
        ptr = np.concatenate([[0], np.cumsum([len(x) for x in excluded])]).astype(np.int64)
        top, rank = np.empty((len(pa), 1), dtype=np.int64), np.empty(len(pa), dtype=np.int64)
        analogy_scan(C, np.stack([pa, pb, pc], axis=1).astype(np.int64), np.zeros(len(pa)), COSMUL, np.float32(1e-3),
                     ptr, np.concatenate(excluded).astype(np.int64), np.zeros(len(pa) + 1, np.int64),
                     np.zeros(0, np.int64), top, rank)
        return top[:, 0]

    C = ((rng.uniform(-1, 1, (12, 500)).astype(np.float32) + 1.0) * 0.5).astype(np.float32)
    C[:, 7] = C[:, 3]  # equal scores: the lower column wins, as with argmax
    pa, pb, pc = (rng.integers(0, 12, 40) for _ in range(3))
    excluded = [rng.choice(500, 3, replace=False) for _ in range(40)]
    excluded[0] = np.array([int(np.argmax(C[pb[0]] * C[pc[0]] / (C[pa[0]] + np.float32(1e-3))))])
    S = C[pb] * C[pc] / (C[pa] + np.float32(1e-3))
    for q, cols in enumerate(excluded):
        S[q, cols] = -np.inf
    np.testing.assert_array_equal(scan(C, pa, pb, pc, excluded), np.argmax(S, axis=1))
    tie = np.full((3, 6), 0.5, dtype=np.float32)
    tie[1, [2, 4]] = 0.9  # the best score twice: the lower column wins
    z = np.zeros(1, dtype=np.int64)
    assert scan(tie, z, z + 1, z + 2, [np.zeros(0, np.int64)])[0] == 2


def test_3cosmul_top1_equals_the_best_of_its_top2(glove_small, google_subset):
    """topn=1 runs the scan, topn=2 the score matrix: the same best answers."""
    one = analogy(glove_small, google_subset, method="3cosmul", restrict_vocab=3000)
    two = analogy(glove_small, google_subset, method="3cosmul", restrict_vocab=3000, topn=2)
    np.testing.assert_array_equal(one.predictions, two.predictions)


def test_oov_mean_scores_an_unknown_word_as_the_mean_vector(small_embeddings):
    """word-embeddings-benchmarks' evaluate_similarity: cos(w.get(a, mean), w.get(b, mean)) for every pair."""
    e = small_embeddings
    pairs = WordPairs(["w1", "w2", "nope", "w4", "w5"], ["w3", "zzz", "w7", "w8", "w0"], np.arange(5.0), "toy")
    mean = e.vectors.mean(axis=0, dtype=np.float64)

    def vec(w):
        return e.vectors[e.index(w)].astype(np.float64) if w in e else mean

    want = [float(vec(a) @ vec(b) / (np.linalg.norm(vec(a)) * np.linalg.norm(vec(b)))) for a, b, _ in pairs]
    r = word_similarity(e, pairs, oov="mean")
    assert r.n_pairs == 5 and r.n_found == 3 and r.coverage == 0.6 and r.oov == "mean"
    assert r.spearman == pytest.approx(stats.spearmanr(np.arange(5.0), want)[0])
    assert r.pearson == pytest.approx(stats.pearsonr(np.arange(5.0), want)[0])
    model, measure = resolve_measure(e, "fuzzy-kl")
    with pytest.raises(ValueError, match="oov='mean' scores the mean vector"):
        word_similarity(model, pairs, measure=measure, oov="mean")
    # evaluate() leaves a measure without vectors on "skip" instead
    rep = evaluate(e, [pairs], measures=["cosine", "fuzzy-kl"], oov="mean")
    assert [x.oov for x in rep.results] == ["mean", "skip"]
    from embgeo.evaluate.relational import semeval2012

    with pytest.raises(ValueError, match="oov must be one of skip, zero, raise"):
        semeval2012(e, "unused", oov="mean")  # the policies of evaluations that do not score vectors are unchanged


def test_section_rows_have_their_own_intervals(tmp_path):
    """``sections=True, ci=...``: each section row's interval is the bootstrap of that section's questions
    alone (AnalogyResult.section), a section with fewer than 3 covered questions gets no bounds."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 16)).astype(np.float32)
    for i in range(0, 60, 4):                      # half of the "big" questions are planted: d = b - a + c
        X[i + 3] = X[i + 1] - X[i] + X[i + 2]
    e = embgeo.Embeddings([f"w{i}" for i in range(200)], X)
    q = tmp_path / "q.txt"
    q.write_text(": big\n" + "".join(f"w{i} w{i + 1} w{i + 2} w{i + 3}\n" for i in range(0, 120, 4))
                 + ": tiny\nw150 w151 w152 w153\n", encoding="utf8")
    rep = evaluate(e, [q], analogy_methods=["3cosadd"], sections=True, ci=0.9, n_resamples=999, random_state=0)
    whole, big, tiny = rep.to_records()
    a = analogy(e, q)
    sec = a.section("big")
    assert (big["dataset"], big["n"]) == ("q/big", 30) and sec.n_evaluated == 30
    assert 0.3 < sec.accuracy == a.sections["big"]["accuracy"] == big["accuracy"] < 0.8
    assert sec.per_item["correct"].size == 30
    assert (big["low"], big["high"]) == pytest.approx(sec.ci(0.9, n_resamples=999, random_state=0))
    # the brute force: the accuracy of resampled questions of that section only
    ok = sec.per_item["correct"].astype(float)
    boots = ok[np.random.default_rng(1).integers(0, ok.size, (4000, ok.size))].mean(axis=1)
    assert big["low"] == pytest.approx(np.quantile(boots, 0.05), abs=0.05)
    assert big["high"] == pytest.approx(np.quantile(boots, 0.95), abs=0.05)
    assert (whole["low"], whole["high"]) != (big["low"], big["high"])   # not the whole dataset's interval
    assert tiny["low"] is None and tiny["high"] is None and tiny["n"] == 1
    with pytest.raises(KeyError, match="sections: big, tiny"):
        a.section("nosuch")
