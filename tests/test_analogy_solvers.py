"""The analogy solvers of Drozd, Gladkova & Matsuoka (2016) and BATS with several answers: vecto's numbers,
a brute-force formulation from the paper, the gold rank of every question, and the BATS reader."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

import embgeo
from embgeo.data import AnalogyPairs, AnalogyQuestions, load_dataset, read_bats
from embgeo.errors import FormatError
from embgeo.evaluate import analogy
from embgeo.evaluate.analogy import METHODS, SET_METHODS

DATA = Path(__file__).parent / "data"
BATS = DATA / "bats"


@pytest.fixture(scope="module")
def bats_vectors():
    return embgeo.load(DATA / "bats_vectors.txt")


def _section_slices(r):
    stops = np.cumsum([s["n_total"] for s in r.sections.values()])
    return {name: slice(int(stop - s["n_total"]), int(stop)) for (name, s), stop in zip(r.sections.items(), stops)}


@pytest.mark.parametrize("method", METHODS)
def test_every_rank_and_accuracy_equals_vectos_on_the_bats_fixture(bats_vectors, method):
    """benchmarks/reference/vecto_analogy_golden.py ran vecto 0.2.21's solvers on the same files (LRCos on
    the same random negative words): each question's rank and each relation's accuracy agree."""
    golden = json.loads((DATA / "bats_vecto_golden.json").read_text())["methods"][method]
    r = analogy(bats_vectors, read_bats(BATS), method=method, restrict_vocab=None, case_insensitive=False,
                random_state=0)
    assert list(r.sections) == list(golden)
    for name, sl in _section_slices(r).items():
        ranks = r.ranks[sl]
        s = r.sections[name]
        if method in SET_METHODS:  # vecto leaves a pair with an unknown word out
            assert ranks[ranks >= 0].tolist() == golden[name]["ranks"]
            assert s["n_evaluated"] == golden[name]["cnt_total"]
        else:  # vecto counts a question with an unknown word as wrong (rank -1)
            assert ranks.tolist() == golden[name]["ranks"]
            assert s["n_total"] == golden[name]["cnt_total"]
            assert s["n_correct"] / s["n_total"] == pytest.approx(golden[name]["accuracy"])
        assert s["n_correct"] == golden[name]["cnt_correct"]


def _unit(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _brute(e, pairs: AnalogyPairs, method, n_r):
    """Every question scored over the whole vocabulary with plain NumPy, from Drozd et al. (2016)
    Sec. 3 and Levy & Goldberg (2014): the full ranking, the excluded words left out."""
    U = _unit(np.asarray(e.vectors[:n_r], dtype=np.float64))
    ix = {w: i for i, w in enumerate(e.words[:n_r])}
    out = []
    for rel in pairs.sections.values():
        rows = [(ix.get(w, -1), [ix.get(x, -1) for x in ans]) for w, ans in rel]
        if method in SET_METHODS:
            questions = [(None, k) for k in range(len(rows))]
        else:
            questions = [(i, j) for j in range(len(rows)) for i in range(len(rows)) if i != j]
        for i, j in questions:
            b, answers = rows[j][0], [x for x in rows[j][1] if x >= 0]
            if b < 0 or rows[j][1][0] < 0 or (i is not None and (rows[i][0] < 0 or rows[i][1][0] < 0)):
                out.append(None)
                continue
            if method == "3cosavg":
                train = [r for t, r in enumerate(rows) if t != j and r[0] >= 0 and r[1][0] >= 0]
                q = U[[r[1][0] for r in train]].mean(0) - U[[r[0] for r in train]].mean(0) + U[b]
                s = U @ _unit(q[None])[0]
                excl = {b}
            else:
                a, a2 = rows[i][0], rows[i][1][0]
                if method == "3cosadd":
                    s = U @ (U[a2] - U[a] + U[b])
                elif method == "3cosmul":
                    c = (U @ U[[a, a2, b]].T + 1) / 2
                    s = c[:, 1] * c[:, 2] / (c[:, 0] + 1e-3)
                else:  # pairdirection: cos(x - b, a' - a)
                    d = U[a2] - U[a]
                    diff = U - U[b]
                    with np.errstate(invalid="ignore", divide="ignore"):
                        s = diff @ d / np.linalg.norm(diff, axis=1) / np.linalg.norm(d)
                    s[b] = 0.0
                excl = {a, b, *[x for x in rows[i][1] if x >= 0]}
            order = [x for x in np.argsort(-s, kind="stable") if x not in excl]
            rank = min(order.index(x) for x in answers if x not in excl)
            out.append((order[:3], rank))
    return out


@pytest.mark.parametrize("method", [m for m in METHODS if m != "lrcos"])
def test_solvers_equal_a_brute_force_ranking_in_tiny_batches(rng, method):
    """Random vectors and pairs with several answers; batches of 2 questions, top 3: the predictions and
    ranks of a direct float64 NumPy ranking (no shared code with the GEMM + scan)."""
    words = [f"w{i}" for i in range(120)]
    e = embgeo.Embeddings(words, rng.standard_normal((120, 12)).astype(np.float32))
    sections = {}
    for s in range(3):
        rel = []
        for k in range(5):
            base = int(rng.integers(0, 120))
            answers = tuple(f"w{x}" for x in rng.choice(120, size=int(rng.integers(1, 4)), replace=False))
            rel.append((f"w{base}", answers))
        sections[f"rel{s}"] = rel
    sections["rel0"][1] = ("unknownword", sections["rel0"][1][1])
    pairs = AnalogyPairs(sections, "random")
    r = analogy(e, pairs, method=method, restrict_vocab=None, case_insensitive=False, topn=3, batch_size=2)
    ref = _brute(e, pairs, method, 120)
    assert len(ref) == r.n_total
    for q, want in enumerate(ref):
        if want is None:
            assert r.ranks[q] == -1 and r.predictions[q] == -1
            continue
        top, rank = want
        assert r.ranks[q] == rank, q
        assert r.predictions[q] == top[0], q
    covered = r.ranks >= 0
    assert r.n_correct == int(np.sum(r.ranks[covered] < 3))


def test_lrcos_scores_are_cosine_times_the_classifiers_probability(bats_vectors):
    """LRCos's best answer equals argmax cos(b, x)·P(x) with scikit-learn's predict_proba over the unit
    vectors, for a classifier fitted here on vecto's training set (positives, 4 × sources, noise)."""
    from sklearn.linear_model import LogisticRegression

    pairs = read_bats(BATS / "3_Encyclopedic_semantics")
    r = analogy(bats_vectors, pairs, method="lrcos", restrict_vocab=None, case_insensitive=False, random_state=7)
    rel = next(iter(pairs.sections.values()))
    n = len(bats_vectors)
    U = _unit(np.asarray(bats_vectors.vectors, dtype=np.float64))
    rng = np.random.default_rng(7)
    for k, (b, _) in enumerate(rel):
        others = [p for t, p in enumerate(rel) if t != k]
        src = [bats_vectors.index(w) for w, _ in others]
        tgt = [bats_vectors.index(a[0]) for _, a in others]
        noise = rng.integers(0, n, size=len(src)).tolist()
        y = np.r_[np.ones(len(tgt)), np.zeros(4 * len(src) + len(noise))]
        clf = LogisticRegression(solver="liblinear", class_weight="balanced").fit(U[tgt + src * 4 + noise], y)
        s = (U @ U[bats_vectors.index(b)]) * clf.predict_proba(U)[:, 1]
        s[bats_vectors.index(b)] = -np.inf
        assert r.predictions[k] == int(np.argmax(s))


def test_a_question_is_solved_by_any_accepted_answer(rng):
    words = ["a", "a2", "b", "b_first", "b_other", "x"]
    V = rng.standard_normal((6, 8)).astype(np.float32)
    V[4] = V[2] + V[1] - V[0]  # the second accepted answer is 3CosAdd's exact answer
    e = embgeo.Embeddings(words, V)
    pairs = AnalogyPairs({"r": [("a", ("a2",)), ("b", ("b_first", "b_other"))]})
    r = analogy(e, pairs, restrict_vocab=None, case_insensitive=False)
    b_question = 1  # test pair b, example pair a : a2
    assert e.words[r.predictions[b_question]] == "b_other" and r.ranks[b_question] == 0
    assert r.sections["r"]["n_correct"] >= 1


def test_set_methods_on_a_questions_file_use_its_distinct_pairs(rng):
    words = [f"w{i}" for i in range(30)]
    e = embgeo.Embeddings(words, rng.standard_normal((30, 8)).astype(np.float32))
    q = AnalogyQuestions({"s": np.array([["w1", "w2", "w3", "w4"], ["w3", "w4", "w1", "w2"],
                                         ["w1", "w2", "w5", "w6"]])})
    r = analogy(e, q, method="3cosavg", restrict_vocab=None)
    assert r.n_total == 3  # the pairs w1:w2, w3:w4, w5:w6, each one question
    same = analogy(e, AnalogyPairs({"s": [("w1", ("w2",)), ("w3", ("w4",)), ("w5", ("w6",))]}), method="3cosavg",
                   restrict_vocab=None)
    np.testing.assert_array_equal(r.ranks, same.ranks)


@pytest.mark.parametrize("method", ["pairdirection", "3cosavg", "lrcos"])
def test_new_solvers_are_backend_neutral(bats_vectors, method):
    xps = pytest.importorskip("array_api_strict")
    es = embgeo.Embeddings(bats_vectors.words, xps.asarray(np.asarray(bats_vectors.vectors)))
    pairs = read_bats(BATS)
    a = analogy(bats_vectors, pairs, method=method, restrict_vocab=None, random_state=1)
    b = analogy(es, pairs, method=method, restrict_vocab=None, random_state=1)
    np.testing.assert_array_equal(a.predictions, b.predictions)
    np.testing.assert_array_equal(a.ranks, b.ranks)


def test_ranks_of_3cosadd_and_3cosmul_agree_with_their_top_n(rng):
    """On the classic Google-format path too: a question is solved within top n exactly when its rank < n,
    on NumPy (the scan) and on array_api_strict (the score matrix)."""
    xps = pytest.importorskip("array_api_strict")
    words = [f"w{i}" for i in range(60)]
    V = rng.standard_normal((60, 6)).astype(np.float32)
    q = AnalogyQuestions({"s": rng.choice(words, size=(40, 4))})
    for method in ("3cosadd", "3cosmul"):
        for e in (embgeo.Embeddings(words, V), embgeo.Embeddings(words, xps.asarray(V))):
            r = analogy(e, q, method=method, topn=4, restrict_vocab=None)
            # a question whose answer is one of its own words cannot be solved: rank -1
            assert int(np.sum((r.ranks >= 0) & (r.ranks < 4))) == r.n_correct


def test_read_bats_reads_folders_zips_and_names_bad_lines(tmp_path):
    pairs = read_bats(BATS)
    assert len(pairs.sections) == 3 and len(pairs) == 19
    rel = pairs.sections["L02 [hypernyms - animals]"]
    assert rel[0] == ("lion", ("feline", "cat", "animal"))
    assert load_dataset(BATS).sections == pairs.sections
    z = tmp_path / "BATS_3.0.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for f in sorted(BATS.rglob("*.txt")):
            zf.write(f, "BATS_3.0/" + str(f.relative_to(BATS)))
    assert read_bats(z).sections == pairs.sections
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "E99 [x - y].txt").write_text("paris\tfrance\nlonely\n")
    with pytest.raises(FormatError, match=r"E99 \[x - y\]\.txt, line 2"):
        read_bats(bad)
    (bad / "E99 [x - y].txt").write_text("paris\tfrance/\n")
    with pytest.raises(FormatError, match="empty word or answer"):
        read_bats(bad)


def test_bats_is_registered_and_bad_method_input_is_named(bats_vectors):
    r = embgeo.data.registry()["bats-3.0"]
    assert r.kind == "analogy" and r.format == "bats" and r.filename == "BATS_3.0.zip"
    with pytest.raises(ValueError, match="method must be one of"):
        analogy(bats_vectors, read_bats(BATS), method="lr")


def test_evaluate_runs_the_new_solvers_on_bats_pairs(bats_vectors):
    from embgeo.evaluate import evaluate

    report = evaluate(bats_vectors, [read_bats(BATS)], analogy_methods=["3cosadd", "3cosavg", "lrcos"],
                      restrict_vocab=None)
    assert [row["measure"] for row in report.to_dict()["rows"]] == ["3cosadd", "3cosavg", "lrcos"]
    r = report.results[1]
    assert r.method == "3cosavg" and r.per_item["rank"].tolist() == r.ranks[r.ranks >= 0].tolist()
    assert r.statistic(r.per_item) == pytest.approx(r.accuracy)
