"""Bootstrap intervals and paired tests on evaluation results (embgeo.evaluate.stats).

Checked against scipy.stats.bootstrap / permutation_test / binomtest on the same resamples, a hand
computation of Steiger's (1980) Z, and coverage simulations (seeded, modest size)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats as ss

import embgeo
from embgeo import cli
from embgeo.data import AnalogyQuestions, WordPairs
from embgeo.evaluate import Report, analogy, compare, evaluate, word_similarity
from embgeo.evaluate.analogy import AnalogyResult
from embgeo.evaluate.lexicon import BLIResult, bli
from embgeo.evaluate.similarity import SimilarityResult
from embgeo.evaluate.stats import (mcnemar_test, paired_permutation_test, steiger_test, weighted_purity,
                                   weighted_spearman)


def sim_result(gold, pred, items=None, name="toy"):
    n = len(gold)
    items = np.arange(n) if items is None else np.asarray(items)
    return SimilarityResult(name, "cosine", 0.0, 0.0, 0.0, 0.0, n, n, n, 1.0, "skip",
                            per_item={"gold": np.asarray(gold, float), "predicted": np.asarray(pred, float),
                                      "item": items})


def acc_result(correct, items=None, n_total=None):
    correct = np.asarray(correct, bool)
    n = len(correct)
    items = np.arange(n) if items is None else np.asarray(items)
    return AnalogyResult("toy", "3cosadd", float(correct.mean()), 0.0, int(correct.sum()), n, n_total or n,
                         n / (n_total or n), 10, per_item={"correct": correct, "item": items})


def spearman_axis(x, y, axis=-1):
    rx, ry = ss.rankdata(x, axis=axis), ss.rankdata(y, axis=axis)
    rx = rx - rx.mean(axis=axis, keepdims=True)
    ry = ry - ry.mean(axis=axis, keepdims=True)
    return (rx * ry).sum(axis) / np.sqrt((rx ** 2).sum(axis) * (ry ** 2).sum(axis))


# ------------------------------------------------------------------ intervals vs scipy, same resamples
@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_accuracy_interval_equals_scipy_bootstrap(method, rng):
    x = rng.random(150) < 0.3
    r = acc_result(x)
    ours = r.ci(0.9, ci_method=method, n_resamples=2000, random_state=7, batch=300, draw="indices")
    ref = ss.bootstrap((x.astype(float),), np.mean, confidence_level=0.9, n_resamples=2000, batch=300,
                       method=method, rng=np.random.default_rng(7)).confidence_interval
    assert ours == pytest.approx((ref.low, ref.high), abs=1e-12)


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_spearman_interval_equals_scipy_bootstrap_with_ties(method, rng):
    gold = np.round(rng.normal(size=80))          # ties on both sides: average ranks
    pred = np.round(gold + rng.normal(size=80), 1)
    r = sim_result(gold, pred)
    assert r.statistic(r.per_item) == pytest.approx(ss.spearmanr(gold, pred)[0], abs=1e-14)
    ours = r.ci(ci_method=method, n_resamples=1500, random_state=3, batch=500)
    ref = ss.bootstrap((gold, pred), spearman_axis, paired=True, vectorized=True, n_resamples=1500, batch=500,
                       method=method, rng=np.random.default_rng(3)).confidence_interval
    assert ours == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_weighted_spearman_is_spearman_of_the_expanded_sample(rng):
    x, y = np.round(rng.normal(size=30)), rng.normal(size=30)
    W = rng.integers(0, 4, size=(20, 30)).astype(float)
    expected = [ss.spearmanr(np.repeat(x, w.astype(int)), np.repeat(y, w.astype(int)))[0] for w in W]
    np.testing.assert_allclose(weighted_spearman(x, y, W), expected, atol=1e-13)


def test_weighted_purity_matches_the_definition(rng):
    cat, clu = rng.integers(0, 4, 40), rng.integers(0, 5, 40)
    W = rng.integers(0, 3, size=(10, 40)).astype(float)
    for w, got in zip(W, weighted_purity(cat, clu, W)):
        c, k = np.repeat(cat, w.astype(int)), np.repeat(clu, w.astype(int))
        purity = sum(np.bincount(c[k == j]).max() for j in np.unique(k)) / len(c)
        assert got == pytest.approx(purity)


def test_mrr_interval_equals_scipy_bootstrap(rng):
    ranks = rng.integers(1, 40, 120).astype(float)
    r = BLIResult("nn", per_item={"rank": ranks, "item": np.arange(120)})
    ours = r.ci(score="mrr", n_resamples=1000, random_state=5, batch=1000, draw="indices")
    ref = ss.bootstrap((1 / ranks,), np.mean, n_resamples=1000, batch=1000,
                       rng=np.random.default_rng(5)).confidence_interval
    assert ours == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_counts_draw_agrees_with_indices_within_monte_carlo_error(rng):
    # the multinomial counts of the distinct rows have the law of drawn indices; with 20,000 resamples
    # the 2.5 % / 97.5 % quantiles of an accuracy over 2,000 items move by about 0.001 between draws
    r = acc_result(rng.random(2000) < 0.4)
    a = r.ci(n_resamples=20000, random_state=1, draw="indices")
    b = r.ci(n_resamples=20000, random_state=2, draw="counts")
    assert a == pytest.approx(b, abs=0.004)


def test_generic_statistic_is_resampled_when_there_is_no_fast_form(rng):
    class Median(SimilarityResult):
        score_name = "median"

        def statistic(self, per_item):
            return float(np.median(per_item["predicted"]))

    x = rng.normal(size=60)
    r = Median("t", "c", 0, 0, 0, 0, 60, 60, 60, 1.0, "skip", per_item={"gold": x, "predicted": x})
    ours = r.ci(n_resamples=300, random_state=4, batch=300)
    ref = ss.bootstrap((x,), np.median, n_resamples=300, batch=300, rng=np.random.default_rng(4)).confidence_interval
    assert ours == pytest.approx((ref.low, ref.high), abs=1e-12)


# ------------------------------------------------------------------ coverage by simulation
def test_accuracy_intervals_cover_the_true_value(rng):
    gen = np.random.default_rng(2024)
    p, hits, reps = 0.3, 0, 400
    for _ in range(reps):
        lo, hi = acc_result(gen.random(120) < p).ci(n_resamples=999, random_state=gen)
        hits += lo <= p <= hi
    assert 0.93 <= hits / reps <= 0.97


def test_spearman_intervals_cover_the_true_value():
    gen = np.random.default_rng(2025)
    rho = 0.6
    rho_s = 6 / np.pi * np.arcsin(rho / 2)   # Spearman's rho of a bivariate normal (Pearson 1907)
    cov = [[1, rho], [rho, 1]]
    hits, reps = 0, 300
    for _ in range(reps):
        xy = gen.multivariate_normal([0, 0], cov, size=80)
        lo, hi = sim_result(xy[:, 0], xy[:, 1]).ci(n_resamples=999, random_state=gen)
        hits += lo <= rho_s <= hi
    assert 0.93 <= hits / reps <= 0.97


# ------------------------------------------------------------------ bad input
def test_fewer_than_three_items_is_a_clear_error():
    with pytest.raises(ValueError, match="at least 3 items"):
        acc_result([True, False]).ci()
    with pytest.raises(ValueError, match="ci_method"):
        acc_result([True, False, True]).ci(ci_method="basic")
    with pytest.raises(ValueError, match="level"):
        acc_result([True, False, True]).ci(level=95)


def test_degenerate_distribution_gives_a_point_interval():
    assert acc_result([True] * 10).ci(random_state=0) == (1.0, 1.0)


# ------------------------------------------------------------------ paired tests
def steiger_by_hand(r12, r13, r23, n):
    # Steiger (1980) eq. 3 (asymptotic covariance of r12 and r13), evaluated at the mean r, divided by
    # the variances (1 - r^2)^2 (eq. 10), then eq. 14: Z = (z12 - z13) sqrt(n - 3) / sqrt(2 - 2 s)
    r = (r12 + r13) / 2
    psi = r23 * (1 - r ** 2 - r ** 2) - 0.5 * (r * r) * (1 - r ** 2 - r ** 2 - r23 ** 2)
    s = psi / ((1 - r ** 2) * (1 - r ** 2))
    z = (0.5 * math.log((1 + r12) / (1 - r12)) - 0.5 * math.log((1 + r13) / (1 - r13))) * math.sqrt(n - 3)
    z /= math.sqrt(2 - 2 * s)
    return z, math.erfc(abs(z) / math.sqrt(2))


@pytest.mark.parametrize("r12, r13, r23, n", [(0.5, 0.4, 0.7, 100), (0.75, 0.62, 0.81, 353),
                                               (0.2, 0.45, 0.3, 40), (-0.1, 0.3, 0.2, 999)])
def test_steiger_matches_the_hand_computation(r12, r13, r23, n):
    assert steiger_test(r12, r13, r23, n) == pytest.approx(steiger_by_hand(r12, r13, r23, n), rel=1e-12)


def test_steiger_published_examples():
    # Steiger (1980), Case A (p. 249): r12 = .4, r13 = .5, r23 = .1, n = 103; the paper prints Z = -.8913,
    # computed from the covariance rounded to .0042 (cocor's test documents the unrounded -0.8887185)
    z, _ = steiger_test(0.4, 0.5, 0.1, 103)
    assert z == pytest.approx(-0.8887185, abs=1e-7) and z == pytest.approx(-0.8913, abs=0.003)
    # DEPCOR (Silver, Hittner & May 2006, Appl. Psychol. Meas. 30, 152): Z = -1.0718, p = .2838
    z, p = steiger_test(0.3, 0.4, 0.5, 100)
    assert round(z, 4) == -1.0718 and round(p, 4) == 0.2838


def test_steiger_rejects_at_the_nominal_rate_under_the_null():
    # gold and two predictions equally correlated with it: p < 0.05 about 5 % of the time
    gen = np.random.default_rng(11)
    reps, rejections = 400, 0
    for _ in range(reps):
        g = gen.normal(size=200)
        a, b = g + gen.normal(size=200), g + gen.normal(size=200)
        rejections += compare(sim_result(g, a), sim_result(g, b)).p_value < 0.05
    assert 0.025 <= rejections / reps <= 0.08


def test_mcnemar_equals_binomtest(rng):
    a, b = rng.random(300) < 0.6, rng.random(300) < 0.5
    nb, nc, p = mcnemar_test(a, b)
    assert (nb, nc) == (int(np.sum(a & ~b)), int(np.sum(~a & b)))
    assert p == pytest.approx(ss.binomtest(nb, nb + nc, 0.5).pvalue, rel=1e-12)
    c = compare(acc_result(a), acc_result(b))
    assert c.test == "mcnemar" and c.p_value == pytest.approx(p) and c.effect_size == pytest.approx(nb / nc)


def mean_difference(x, y, axis=-1):
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


def test_exact_permutation_test_equals_scipy(rng):
    x, y = rng.random(10), rng.random(10)
    diff, p = paired_permutation_test(x, y, n_resamples=9999)
    ref = ss.permutation_test((x, y), mean_difference, permutation_type="samples", n_resamples=9999,
                              vectorized=True)
    assert diff == pytest.approx(ref.statistic) and p == pytest.approx(ref.pvalue, abs=1e-12)


def test_random_permutation_test_agrees_with_scipy_within_monte_carlo_error(rng):
    # two p-values of 20,000 random sign patterns each: standard error about 2·sqrt(p(1-p)/20000) ≈ 0.007
    x = 1 / rng.integers(1, 30, 200)
    y = 1 / rng.integers(1, 34, 200)
    _, p = paired_permutation_test(x, y, n_resamples=20000, random_state=1)
    ref = ss.permutation_test((x, y), mean_difference, permutation_type="samples", n_resamples=20000,
                              vectorized=True, rng=2).pvalue
    assert 0.02 < ref < 0.98 and p == pytest.approx(ref, abs=0.03)


def test_compare_picks_the_test_by_score(rng):
    ranks_a, ranks_b = rng.integers(1, 20, 50).astype(float), rng.integers(1, 30, 50).astype(float)
    a = BLIResult("nn", per_item={"rank": ranks_a, "item": np.arange(50)})
    b = BLIResult("nn", per_item={"rank": ranks_b, "item": np.arange(50)})
    assert compare(a, b, score="p@5").test == "mcnemar"
    c = compare(a, b, score="mrr", random_state=0)
    assert c.test == "permutation" and c.difference == pytest.approx(np.mean(1 / ranks_a) - np.mean(1 / ranks_b))
    boot = compare(a, b, score="mrr", random_state=0, test="bootstrap", n_resamples=2000)
    assert boot.test == "bootstrap" and 0 <= boot.p_value <= 1
    with pytest.raises(ValueError, match="McNemar"):
        compare(a, b, score="mrr", test="mcnemar")


def test_compare_runs_on_the_items_both_cover_and_names_coverage(rng):
    g = rng.normal(size=50)
    a = sim_result(g[:40], g[:40] + rng.normal(size=40), items=np.arange(40))
    b = sim_result(g[10:], g[10:] + rng.normal(size=40), items=np.arange(10, 50))
    c = compare(a, b)
    assert c.n == 30 and (c.n_a, c.n_b) == (40, 40)
    assert c.score_a == pytest.approx(ss.spearmanr(g[10:40], a.per_item["predicted"][10:])[0])
    far = sim_result(g[:3], g[:3], items=[0, 1, 2])
    with pytest.raises(ValueError, match=r"0 item\(s\).*covers 3 items"):
        compare(far, sim_result(g[5:9], g[5:9], items=[5, 6, 7, 8]))


# ------------------------------------------------------------------ per-item data of real evaluations
@pytest.fixture
def toy(small_embeddings, rng):
    words = small_embeddings.words
    pairs = WordPairs([words[i] for i in range(60)] + ["zzz"], [words[(7 * i) % 200] for i in range(60)] + ["w1"],
                      rng.random(61), "toy-pairs")
    q = np.array(words)[rng.integers(0, 200, (80, 4))]
    return small_embeddings, pairs, AnalogyQuestions({"s": q}, "toy-q")


def test_per_item_reproduces_the_headline_scores(toy):
    e, pairs, questions = toy
    s = word_similarity(e, pairs)
    assert s.statistic(s.per_item) == pytest.approx(s.spearman) and len(s.per_item["gold"]) == s.n_pairs == 60
    assert 60 not in s.per_item["item"]
    z = word_similarity(e, pairs, oov="zero")
    assert z.statistic(z.per_item) == pytest.approx(z.spearman) and len(z.per_item["item"]) == 61
    a = analogy(e, questions, restrict_vocab=None, topn=20)
    assert a.statistic(a.per_item) == pytest.approx(a.accuracy) and len(a.per_item["correct"]) == a.n_evaluated
    low, high = a.ci(random_state=0)
    assert low <= a.accuracy <= high


def test_bli_per_item_ranks(small_embeddings):
    e = small_embeddings
    test = [(w, w) for w in e.words[:30]] + [("nope", "w1")]
    for oov in ("skip", "zero"):
        r = bli(e, e, test, ks=(1, 5), oov=oov)
        ranks = r.per_item["rank"]
        assert r.statistic(r.per_item) == pytest.approx(r.p_at(1))
        assert np.mean(1 / ranks) == pytest.approx(r.mrr)
        assert len(ranks) == (30 if oov == "skip" else 31)
        if oov == "skip":
            assert r.ci(score="p@5", random_state=0) == (1.0, 1.0)


def test_compare_two_models_on_a_dataset(toy, rng):
    e, pairs, questions = toy
    noisy = embgeo.Embeddings(e.words, e.vectors + rng.normal(scale=2.0, size=e.vectors.shape).astype(np.float32))
    c = compare(e, noisy, pairs)
    assert c.test == "steiger" and c.n == 60 and c.score_a == pytest.approx(word_similarity(e, pairs).spearman)
    c = compare(e, noisy, questions, restrict_vocab=None, topn=20)
    assert c.test == "mcnemar"
    with pytest.raises(ValueError, match="dataset"):
        compare(e, noisy)


# ------------------------------------------------------------------ Report and CLI
def test_evaluate_with_intervals_and_forest_plot(toy, tmp_path):
    e, pairs, questions = toy
    rep = evaluate(e, [pairs, questions], ci=0.9, random_state=0, restrict_vocab=None, title="model")
    assert rep.columns[-2:] == ["low", "high"] and rep.columns[:-2] == list(evaluate(e, [pairs]).columns)
    for row in rep:
        score = row["spearman"] if row["task"] == "similarity" else row["accuracy"]
        assert row["low"] <= score <= row["high"]
    assert "low" in str(rep)
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    other = evaluate(e, [pairs], ci=0.9, random_state=1, title="other")
    ax = rep.plot_intervals(other)
    assert len(ax.get_yticklabels()) == 2
    with pytest.raises(ValueError, match="ci=0.95"):
        evaluate(e, [pairs]).plot_intervals()


@pytest.fixture
def files(tmp_path, toy):
    e, pairs, _ = toy
    emb = tmp_path / "a.vec"
    e.to_gensim().save_word2vec_format(str(emb), binary=False)
    other = embgeo.Embeddings(e.words, e.vectors[:, ::-1].copy() + 0.5)
    emb2 = tmp_path / "b.vec"
    other.to_gensim().save_word2vec_format(str(emb2), binary=False)
    data = tmp_path / "pairs.txt"
    data.write_text("".join(f"{a}\t{b}\t{s:.3f}\n" for a, b, s in zip(pairs.words1, pairs.words2, pairs.scores)),
                    encoding="utf8")
    return emb, emb2, data


def test_cli_evaluate_ci_and_compare(files, capsys):
    emb, emb2, data = files
    assert cli.main(["evaluate", "-e", str(emb), "-d", str(data), "--ci", "--random-state", "1", "-q", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert rows[0]["low"] <= rows[0]["spearman"] <= rows[0]["high"]
    assert cli.main(["compare", str(emb), str(emb2), "-d", str(data), "-q", "--json", "--random-state", "0"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["test"] == "steiger" and 0 <= row["p_value"] <= 1 and row["n"] == 60
    assert cli.main(["compare", str(emb), str(emb2), "-d", str(data), "-q"]) == 0
    assert "steiger" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["evaluate", "--ci", "95"], "between 0 and 1"),
    (["compare", "A.vec"], "required"),
    (["compare", "{a}", "{b}", "-d", "no-such-dataset", "-q"], "no-such-dataset"),
    (["compare", "{a}", "{b}", "-d", "{d}", "--measure", "nope", "-q"], "unknown measure"),
    (["compare", "{a}", "{b}", "-d", "{d}", "--n-resamples", "0"], "positive"),
])
def test_cli_user_mistakes_are_one_line(files, capsys, argv, message):
    emb, emb2, data = files
    argv = [a.format(a=emb, b=emb2, d=data) for a in argv]
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code in (1, 2) and message in err and "Traceback" not in err


def test_semeval2012_per_category_items():
    from pathlib import Path

    from embgeo.data import read_semeval2012
    from embgeo.evaluate.relational import semeval2012

    data = read_semeval2012(Path(__file__).parent / "data" / "semeval2012")
    words = sorted({w for cat in data.values() for p in (*cat.prototypes, *cat.pairs) for w in p})
    e = embgeo.Embeddings(words, np.random.default_rng(3).standard_normal((len(words), 5)).astype(np.float32))
    r = semeval2012(e, data)
    assert r.statistic(r.per_item) == pytest.approx(r.spearman)
    assert np.mean(r.item_values("maxdiff")) == pytest.approx(r.maxdiff)
    with pytest.raises(ValueError, match="at least 3 items"):   # two categories in the fixture
        r.ci()
    with pytest.raises(ValueError, match="unknown SemEval-2012 score"):
        r.ci(score="p@1")


def test_a_contract_result_gets_intervals_and_the_paired_bootstrap(rng):
    # what a categorisation result of the shared contract looks like: per_item category / cluster codes
    from dataclasses import dataclass, field

    from embgeo.evaluate.stats import Resampled

    @dataclass(frozen=True)
    class Clustering(Resampled):
        dataset: str
        per_item: dict = field(default_factory=dict)
        score_name = "purity"

        def statistic(self, per_item):
            c, k = per_item["category"], per_item["cluster"]
            return sum(np.bincount(c[k == j]).max() for j in np.unique(k)) / len(c)

    cat = np.repeat(np.arange(4), 15)
    good = Clustering("toy", {"category": cat, "cluster": np.where(rng.random(60) < 0.8, cat, rng.integers(0, 4, 60)),
                              "item": np.arange(60)})
    bad = Clustering("toy", {"category": cat, "cluster": rng.integers(0, 4, 60), "item": np.arange(60)})
    fast = good.ci(n_resamples=500, random_state=1, batch=500, draw="indices")
    ref = ss.bootstrap((np.arange(60),), lambda i: good.statistic({k: v[i] for k, v in good.per_item.items()}),
                       vectorized=False, n_resamples=500, batch=500, rng=np.random.default_rng(1)).confidence_interval
    assert fast == pytest.approx((ref.low, ref.high), abs=1e-12)
    assert good._score(draw="indices").weighted is not None     # the vectorised purity, not the fallback
    c = compare(good, bad, random_state=0, n_resamples=2000)
    assert c.test == "bootstrap" and c.difference > 0 and c.p_value < 0.01
