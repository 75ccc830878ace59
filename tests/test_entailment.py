"""Lexical entailment: direction (BLESS), detection (WBLESS), bidirectional (BIBLESS), graded (HyperLex)."""
from __future__ import annotations

import numpy as np
import pytest

from embgeo import data
from embgeo.errors import FormatError, UnknownWordError
from embgeo.evaluate import EntailmentResult, entailment, evaluate
from embgeo.evaluate.entailment import tuned_accuracy
from embgeo.fuzzy import FuzzyEmbeddings, hyponymy


def _tsv(tmp_path, header, rows, name="pairs.tsv"):
    p = tmp_path / name
    p.write_text("\t".join(header) + "\n" + "".join("\t".join(map(str, r)) + "\n" for r in rows), encoding="utf-8")
    return p


@pytest.fixture
def pairs(rng):
    """120 (w_i, w_j) pairs of the small random embeddings, a third of each relation."""
    i, j = rng.choice(200, 120), rng.choice(200, 120)
    keep = i != j
    rel = np.array(["hyper", "rhyper", "other"])[np.arange(120) % 3][keep]
    return [f"w{a}" for a in i[keep]], [f"w{b}" for b in j[keep]], rel


def _reference_tuned_accuracy(h, y, direction=None, trials=1000):
    """hypernymysuite's wbless_setup / bibless_setup loop, written out with scikit-learn's thresholds."""
    from sklearn.metrics import precision_recall_curve

    rng = np.random.RandomState(42)
    yh = y != 0
    scores = []
    for _ in range(trials):
        m_val = rng.rand(len(y)) < .02
        m_test = ~m_val
        _, _, t = precision_recall_curve(yh[m_val], h[m_val])
        thr_accs = np.mean((h[m_val, np.newaxis] >= t) == yh[m_val, np.newaxis], axis=0)
        best_t = t[thr_accs.argmax()]
        pred = h[m_test] >= best_t
        scores.append(np.mean((pred if direction is None else pred * direction[m_test]) ==
                              (yh[m_test] if direction is None else y[m_test])))
    return np.mean(scores)


def test_threshold_tuning_follows_hypernymysuites_protocol(rng):
    import warnings

    h = rng.standard_normal(900)
    y = (h + rng.standard_normal(900) > 0.3).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a validation split with one class: scikit-learn warns, as it did there
        want = _reference_tuned_accuracy(h, y, trials=200)
        assert tuned_accuracy(h, y, n_trials=200) == pytest.approx(want, abs=1e-12)
        y3 = np.where(rng.random(900) < 0.5, 0, np.where(h > 0, 1, -1))
        direction = np.where(rng.random(900) < 0.8, np.sign(h), 1).astype(int)
        want = _reference_tuned_accuracy(np.abs(h), y3, direction, trials=200)
        assert tuned_accuracy(np.abs(h), y3, direction=direction, n_trials=200) == pytest.approx(want, abs=1e-12)


def test_direction_is_the_share_of_pairs_scored_higher_forward(tmp_path, small_embeddings, pairs):
    w1, w2, rel = pairs
    p = _tsv(tmp_path, ["word1", "word2", "relation"], zip(w1, w2, rel))
    F = FuzzyEmbeddings.from_embeddings(small_embeddings)
    hyp = rel == "hyper"
    a, b = [w for w, k in zip(w1, hyp) if k], [w for w, k in zip(w2, hyp) if k]
    for measure, fuzzy_name, rev in [("fuzzy-kl", "kl", False), ("fuzzy-cross-entropy-rev", "cross_entropy", True)]:
        r = entailment(small_embeddings, p, measure, task="direction", cache={"fuzzy": F})
        fwd = F.similarity_pairs(a, b, measure=fuzzy_name, reverse=rev)
        back = F.similarity_pairs(b, a, measure=fuzzy_name, reverse=rev)
        assert r.task == "direction" and r.n_pairs == hyp.sum() == r.n_total
        assert r.accuracy == pytest.approx(np.mean(fwd > back)) and r.score == r.accuracy
        assert r.statistic(r.per_item) == r.accuracy and r.score_name == "accuracy"
    # graded inclusion: the fuzzy module's own hyponymy study gives the same direction accuracy
    inc = entailment(small_embeddings, p, "fuzzy-inclusion", task="direction", cache={"fuzzy": F})
    assert inc.accuracy == pytest.approx(hyponymy(F, list(zip(a, b))).direction_accuracy)
    # a symmetric measure cannot point: every pair is a tie, and a tie is wrong
    cos = entailment(small_embeddings, p, "cosine", task="direction")
    assert cos.n_ties == cos.n_pairs and cos.accuracy == 0.0


def test_detection_bidirectional_and_graded_tasks(tmp_path, small_embeddings, pairs):
    from scipy import stats

    w1, w2, rel = pairs
    lab = np.where(rel == "hyper", 1, np.where(rel == "rhyper", -1, 0))
    e = small_embeddings
    cos = e.similarity_pairs(w1, w2)
    wb = _tsv(tmp_path, ["word1", "word2", "label", "relation", "fold"],
              [(a, b, str(r == "hyper"), "hyper" if r == "hyper" else "other", "val") for a, b, r in zip(w1, w2, rel)],
              "wbless.tsv")
    r = entailment(e, wb)
    assert r.task == "detection"
    assert r.accuracy == pytest.approx(tuned_accuracy(cos, lab == 1))
    bb = _tsv(tmp_path, ["word1", "word2", "relation", "label"], zip(w1, w2, rel, lab), "bibless.tsv")
    F = FuzzyEmbeddings.from_embeddings(e)
    r = entailment(e, bb, "fuzzy-kl", cache={"fuzzy": F})
    f, back = F.similarity_pairs(w1, w2, measure="kl"), F.similarity_pairs(w2, w1, measure="kl")
    assert r.task == "bidirectional"
    assert r.accuracy == pytest.approx(tuned_accuracy(np.maximum(f, back), lab, direction=np.where(f >= back, 1, -1)))
    assert r.statistic(r.per_item) == r.accuracy
    gold = np.linspace(0, 6, len(w1))
    hl = _tsv(tmp_path, ["word1", "word2", "pos", "label", "score", "fold"],
              [(a, b, "N", "hyp-1", g, "train") for a, b, g in zip(w1, w2, gold)], "hyperlex.tsv")
    r = entailment(e, hl)
    assert r.task == "graded" and r.score_name == "spearman"
    assert r.spearman == pytest.approx(stats.spearmanr(gold, cos)[0]) and r.statistic(r.per_item) == r.spearman
    assert isinstance(r, EntailmentResult) and np.isnan(r.accuracy)


def test_oov_and_bad_input(tmp_path, small_embeddings):
    p = _tsv(tmp_path, ["word1", "word2", "relation"], [("w1", "w2", "hyper"), ("w3", "nope", "hyper"),
                                                         ("w4", "w5", "coord")])
    r = entailment(small_embeddings, p, "dot")
    assert (r.n_pairs, r.n_total, r.coverage) == (1, 2, 0.5) and r.items == [("w1", "w2")]
    with pytest.raises(UnknownWordError, match="nope"):
        entailment(small_embeddings, p, oov="raise")
    with pytest.raises(ValueError, match="oov"):
        entailment(small_embeddings, p, oov="mean")
    with pytest.raises(ValueError, match="unknown measure 'kl'"):
        entailment(small_embeddings, p, "kl")
    none = _tsv(tmp_path, ["word1", "word2", "relation"], [("x", "y", "hyper")], "none.tsv")
    with pytest.raises(ValueError, match="no pair of none has both words"):
        entailment(small_embeddings, none)
    bad = _tsv(tmp_path, ["word1", "word2", "label"], [("a", "b", "True"), ("a", "b", "maybe")], "bad.tsv")
    with pytest.raises(FormatError, match=r"bad\.tsv, line 3: label 'maybe'"):
        data.read_entailment(bad)
    short = _tsv(tmp_path, ["word1", "word2", "label"], [("a", "b")], "short.tsv")
    with pytest.raises(FormatError, match=r"short\.tsv, line 2: expected 3 fields"):
        data.read_entailment(short)


def test_a_graded_file_without_a_label_column_is_read_and_nan_scores_are_refused(tmp_path):
    """The docs accept ``word1 word2 score`` (HyperLex's graded scores alone)."""
    p = _tsv(tmp_path, ["word1", "word2", "score"], [("cat", "animal", 5.5), ("dog", "cat", 0.25)], "graded.tsv")
    d = data.read_entailment(p)
    assert d.task == "graded" and d.scores.tolist() == [5.5, 0.25] and d.labels.tolist() == [0, 0]
    assert d.words1 == ["cat", "dog"] and d.relations == ["", ""]
    for bad in ("nan", "inf", "-Infinity"):
        q = _tsv(tmp_path, ["word1", "word2", "score"], [("cat", "animal", 5.5), ("dog", "cat", bad)], "nan.tsv")
        with pytest.raises(FormatError, match=rf"nan\.tsv, line 3: score '{bad}' is not finite") as info:
            data.read_entailment(q)
        assert info.value.line == 3


@pytest.mark.parametrize("body, match", [
    (b"word1\tword2\tlabel\ncat\tanimal\tTrue\ncaf\xe9\tdrink\tTrue\n", r"not UTF-8 text: bytes b'\\xe9'"),
    (b",word1,word2,relation\n0,cat,animal,hyper\n1,\"" + b"x" * 200_000 + b"\",animal,hyper\n",
     r"not a CSV row \(field larger than field limit"),
])
def test_undecodable_or_oversized_rows_are_format_errors_naming_the_line(tmp_path, body, match):
    p = tmp_path / "bad.tsv"
    p.write_bytes(body)
    with pytest.raises(FormatError, match=rf"^{p}, line 3: {match}") as info:
        data.read_entailment(p)
    assert info.value.line == 3


def test_readers_of_the_registered_formats(tmp_path):
    bless = tmp_path / "bless.csv"
    bless.write_text(",word1,word2,relation\n0,shirt,re-join,?\n1,goose,bird,hyper\n2,goose,duck,coord\n")
    d = data.load_dataset(bless)  # known by its header
    assert isinstance(d, data.EntailmentPairs) and d.task == "direction" and d.labels.tolist() == [0, 1, 0]
    suite = _tsv(tmp_path, ["word1", "word2", "label", "fold"], [("goose", "waterbird", "True", "val"),
                                                                  ("bus", "radiator", "False", "test")])
    d = data.read_entailment(suite)
    assert d.task == "direction" and d.relations == ["hyper", "other"]


def test_evaluate_runs_each_measure_on_entailment_pairs(tmp_path, small_embeddings):
    p = _tsv(tmp_path, ["word1", "word2", "relation"], [("w1", "w2", "hyper"), ("w3", "w9", "hyper")])
    rep = evaluate(small_embeddings, [data.read_entailment(p)], measures=["cosine", "fuzzy-inclusion"])
    assert [row["measure"] for row in rep] == ["cosine", "fuzzy-inclusion"]
    assert rep[0]["task"] == "entailment-direction" and rep[0]["accuracy"] == 0.0
    assert "purity" not in rep.columns


def test_bless_direction_on_glove(shared_data, glove):
    e = glove.top(50000)
    path = shared_data / "relations" / "bless.csv"
    cache: dict = {}
    kl = entailment(e, path, "fuzzy-kl", cache=cache)
    rev = entailment(e, path, "fuzzy-kl-rev", cache=cache)
    cos = entailment(e, path, "cosine")
    assert kl.n_total == 1279 and kl.n_pairs == 972  # 76 % of the hypernymy pairs in the 50,000 words
    assert kl.accuracy + rev.accuracy == pytest.approx(1 - kl.n_ties / kl.n_pairs)
    assert cos.accuracy == 0.0 and kl.accuracy > 0.5


def _loop_tuned_accuracy(h, y, rng, trials, direction=None):
    """The per-trial NumPy loop (np.unique thresholds, the lowest of the best), drawing from ``rng``."""
    yh = y != 0
    accs = []
    for _ in range(trials):
        val = (rng.random(len(h)) if isinstance(rng, np.random.Generator) else rng.rand(len(h))) < 0.02
        thr = np.unique(h[val])
        best = thr[int(((h[val][:, None] >= thr[None, :]) == yh[val][:, None]).mean(axis=0).argmax())] \
            if len(thr) else -np.inf
        pred = h[~val] >= best
        accs.append(np.mean((pred if direction is None else pred * direction[~val]) ==
                            (yh[~val] if direction is None else y[~val])))
    return float(np.nanmean(accs))


def test_tuned_accuracy_draws_its_splits_in_blocks_from_the_same_stream(rng):
    """Trials run in blocks of uniforms (6,000 pairs: two blocks for 900 trials); ties among the scores
    (rounded to 1 decimal) keep the lowest best threshold; a Generator works as RandomState does."""
    h = np.round(rng.standard_normal(6000), 1)
    y = (h + rng.standard_normal(6000) > 0.3).astype(int)
    assert tuned_accuracy(h, y, n_trials=900) == _loop_tuned_accuracy(h, y, np.random.RandomState(42), 900)
    got = tuned_accuracy(h, y, n_trials=300, random_state=np.random.default_rng(5))
    assert got == _loop_tuned_accuracy(h, y, np.random.default_rng(5), 300)
    y3 = np.where(rng.random(6000) < 0.5, 0, np.where(h > 0, 1, -1))
    direction = np.where(rng.random(6000) < 0.8, np.sign(h), 1).astype(int)
    got = tuned_accuracy(np.abs(h), y3, direction=direction, n_trials=300)
    assert got == _loop_tuned_accuracy(np.abs(h), y3, np.random.RandomState(42), 300, direction)
