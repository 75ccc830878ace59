"""embgeo.evaluate.bias: WEAT, RIPA, ECT, RND, RNSB, MAC against WEFE, exact p-values, coverage, intervals."""
from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

import embgeo
from embgeo.errors import UnknownWordError
from embgeo.evaluate import bias

DATA = Path(__file__).parent / "data" / "bias"
GOLDEN = json.loads((DATA / "wefe_golden.json").read_text("utf-8"))


@pytest.fixture(scope="module")
def golden_vectors():
    return embgeo.load(str(DATA / "wefe_vectors.txt"))


def _wefe_query(name):
    q = GOLDEN["queries"][name]
    sets = GOLDEN["weat_json"]
    return [sets[s] for s in q["targets"]], [sets[s] for s in q["attributes"]]


def _random_space(words, dim=12, seed=0):
    rng = np.random.default_rng(seed)
    return embgeo.Embeddings(list(words), rng.standard_normal((len(words), dim)).astype(np.float32))


@pytest.fixture(scope="module")
def weat6_space():
    q = bias.load_query("weat6")
    return _random_space(sorted({w.lower() for s in q.sets for w in s}), seed=6), q


# ------------------------------------------------------------------ equal to WEFE 1.0.1
@pytest.mark.parametrize("name", sorted(GOLDEN["queries"], key=lambda n: int(n[4:])))
def test_every_measure_equals_wefe_on_the_golden_file(golden_vectors, name):
    e, g = golden_vectors, GOLDEN["queries"][name]
    targets, attributes = _wefe_query(name)
    opts = dict(min_coverage=0.8)
    w = bias.weat(e, targets=targets, attributes=attributes, **opts)
    assert w.score == pytest.approx(g["weat"]["effect_size"], abs=1e-6)
    assert w.statistic == pytest.approx(g["weat"]["statistic"], abs=1e-6)
    assert bias.rnd(e, targets=targets, attributes=attributes[:1], **opts).score == pytest.approx(g["rnd_norm"], abs=1e-6)
    assert bias.rnd(e, targets=targets, attributes=attributes[:1], distance="cos",
                    **opts).score == pytest.approx(g["rnd_cos"], abs=1e-6)
    assert bias.ect(e, targets=targets, attributes=attributes[:1], **opts).score == pytest.approx(g["ect"], abs=1e-6)
    assert bias.mac(e, targets=targets, attributes=attributes, **opts).score == pytest.approx(g["mac"], abs=1e-6)
    assert bias.rnsb(e, targets=targets, attributes=attributes, random_state=0,
                     **opts).score == pytest.approx(g["rnsb_holdout"], abs=1e-6)
    assert bias.rnsb(e, targets=targets, attributes=attributes, random_state=0, holdout=False,
                     **opts).score == pytest.approx(g["rnsb_all"], abs=1e-6)
    if "ripa" in g:
        r = bias.ripa(e, targets=targets, attributes=attributes[:1], **opts)
        assert r.score == pytest.approx(g["ripa"], abs=1e-6)
        for word, (mean, std) in g["ripa_word_values"].items():
            assert r.details["mean"][word] == pytest.approx(mean, abs=1e-6)
            assert r.details["std"][word] == pytest.approx(std, abs=1e-6)


def test_the_golden_file_leaves_words_out_so_coverage_is_exercised(golden_vectors):
    targets, attributes = _wefe_query("weat1")
    r = bias.weat(golden_vectors, targets=targets, attributes=attributes)
    assert r.coverage[0] == pytest.approx(23 / 25) and r.oov_words[0] == ("hyacinth", "gladiola")
    assert len(r.words[0]) == 23


def test_the_shipped_word_sets_are_wefes_but_for_the_papers_two_words():
    from embgeo.evaluate.bias._queries import _catalogue

    cat = _catalogue()
    wefe = GOLDEN["weat_json"]
    assert set(cat["sets"]) == set(wefe)
    differing = {name: [(p, w) for p, w in zip(cat["sets"][name], wefe[name]) if p != w]
                 for name in wefe if cat["sets"][name] != wefe[name]}
    assert differing == {n: [(d["paper"], d["wefe"])] for n, d in cat["wefe_differences"].items()}
    for name, g in GOLDEN["queries"].items():
        q = bias.load_query(name)
        assert list(q.target_names) == g["targets"] and list(q.attribute_names) == g["attributes"]


def test_load_query_names_the_shipped_queries_on_a_typo():
    assert bias.load_query("WEAT7").name == "weat7"
    with pytest.raises(KeyError, match="weat11.*weat1, weat2"):
        bias.load_query("weat11")


# ------------------------------------------------------------------ p-values
def _brute_p(s, nx, alternative):
    N, total = len(s), s.sum()
    obs = s[:nx].sum()
    centre = nx * total / N
    hits = n = 0
    for c in itertools.combinations(range(N), nx):
        v = s[list(c)].sum()
        n += 1
        if alternative == "greater":
            hits += v > obs + 1e-9
        else:
            hits += abs(v - centre) > abs(obs - centre) + 1e-9
    return hits / n, n


@pytest.mark.parametrize("alternative", bias.ALTERNATIVES)
def test_the_exact_p_value_counts_every_partition(weat6_space, alternative):
    e, q = weat6_space
    r = bias.weat(e, query=q, alternative=alternative)
    s = np.array([r.details["association"][w] for w in r.words[0] + r.words[1]])
    p, n = _brute_p(s, len(r.words[0]), alternative)
    assert r.p_method == "exact" and r.n_permutations == n == math.comb(16, 8)
    assert r.p_value == pytest.approx(p, abs=1e-12)
    assert 0 < r.p_value < 1


def test_the_sampled_p_value_is_seeded_and_near_the_exact_one(weat6_space, monkeypatch):
    e, q = weat6_space
    exact = bias.weat(e, query=q).p_value
    monkeypatch.setattr("embgeo.evaluate.bias._measures.EXACT_PARTITIONS", 100)
    a = bias.weat(e, query=q, n_permutations=100_000, random_state=3)
    b = bias.weat(e, query=q, n_permutations=100_000, random_state=3)
    assert a.p_method == "permutation" and a.n_permutations == 100_000
    assert a.p_value == b.p_value
    assert a.p_value == pytest.approx(exact, abs=0.01)


def test_a_strong_bias_has_a_small_p_value_and_the_mirror_query_a_large_one():
    rng = np.random.default_rng(1)
    d = 8
    male, female = rng.standard_normal(d), rng.standard_normal(d)
    X = [f"x{i}" for i in range(6)]
    Y = [f"y{i}" for i in range(6)]
    A = [f"a{i}" for i in range(5)]
    B = [f"b{i}" for i in range(5)]
    vec = np.concatenate([male + 0.3 * rng.standard_normal((6, d)), female + 0.3 * rng.standard_normal((6, d)),
                          male + 0.3 * rng.standard_normal((5, d)), female + 0.3 * rng.standard_normal((5, d))])
    e = embgeo.Embeddings(X + Y + A + B, vec.astype(np.float32))
    r = bias.weat(e, targets=[X, Y], attributes=[A, B])
    assert r.score > 1.5 and r.p_value < 0.01
    assert bias.weat(e, targets=[Y, X], attributes=[A, B]).p_value > 0.99
    assert bias.weat(e, targets=[Y, X], attributes=[A, B], alternative="two-sided").p_value < 0.01


# ------------------------------------------------------------------ coverage and bad input
def test_coverage_is_reported_and_min_coverage_refuses_with_the_missing_words(weat6_space):
    e, q = weat6_space
    small = e.subset([w for w in e.words if w not in ("john", "paul", "mike")])
    r = bias.weat(small, query=q, min_coverage=0.5)
    assert r.coverage[0] == pytest.approx(5 / 8) and r.oov_words[0] == ("John", "Paul", "Mike")
    assert r.n_words == (8, 8, 8, 8)
    with pytest.raises(ValueError, match=r"'male_names'.*62%.*min_coverage=80%.*John, Paul, Mike"):
        bias.weat(small, query=q)
    with pytest.raises(UnknownWordError, match="'John'.*male_names"):
        bias.weat(small, query=q, oov="raise", min_coverage=0)


@pytest.mark.parametrize("targets, attributes, message", [
    ([["he"], []], [["a", "b"], ["c", "d"]], "target set 'target 2' is empty"),
    ([["he", "she"], ["she"]], [["a", "b"], ["c", "d"]], "'target 1' and 'target 2' overlap: 'she'"),
    ([["he"], ["she"]], [["a"], ["c", "d"]], "attribute set 'attribute 1' has one word"),
    ([["he", "he"], ["she"]], [["a", "b"], ["c", "d"]], "'target 1' holds 'he' twice"),
    ([["he"], ["she"]], [["a", "b"]], "WEAT takes 2 attribute sets, got 1"),
    ([["he"], ["she"]], [["zz", "yy"], ["c", "d"]], "set 'attribute 1'.*none of its 2 words"),
])
def test_bad_queries_are_refused_naming_the_set(targets, attributes, message):
    e = _random_space(["he", "she", "a", "b", "c", "d"])
    with pytest.raises(ValueError, match=message):
        bias.weat(e, targets=targets, attributes=attributes, min_coverage=0)


def test_ripa_needs_equal_target_sizes_and_drops_a_pair_with_a_missing_word():
    e = _random_space(["he", "she", "man", "woman", "king", "nurse", "doctor"])
    with pytest.raises(ValueError, match="RIPA pairs the target words.*'target 1' 2, 'target 2' 1"):
        bias.ripa(e, targets=[["he", "man"], ["she"]], attributes=[["nurse", "doctor"]])
    r = bias.ripa(e, targets=[["he", "man", "king"], ["she", "woman", "queen"]], attributes=[["nurse", "doctor"]],
                  min_coverage=0.5)
    assert r.words[:2] == (("he", "man"), ("she", "woman")) and r.oov_words[0] == ("king",)


def test_unknown_options_are_refused(weat6_space):
    e, q = weat6_space
    with pytest.raises(ValueError, match="alternative"):
        bias.weat(e, query=q, alternative="less")
    with pytest.raises(ValueError, match="oov"):
        bias.weat(e, query=q, oov="mean")
    with pytest.raises(ValueError, match="distance"):
        bias.rnd(e, targets=q.targets, attributes=q.attributes[:1], distance="l1")
    with pytest.raises(TypeError, match="not both"):
        bias.weat(e, targets=q.targets, query=q)


# ------------------------------------------------------------------ intervals
@pytest.mark.parametrize("method", ["BCa", "percentile"])
def test_the_weat_interval_is_scipys_stratified_bootstrap(weat6_space, method):
    from scipy import stats

    e, q = weat6_space
    r = bias.weat(e, query=q)
    v = [np.asarray(x, dtype=np.float64) for x in r.vectors]

    def effect(*idx):
        X, Y, A, B = (v[k][np.asarray(i, dtype=int)] for k, i in enumerate(idx))
        s = lambda T: (T @ A.T / np.outer(np.linalg.norm(T, axis=1), np.linalg.norm(A, axis=1))).mean(1) - \
            (T @ B.T / np.outer(np.linalg.norm(T, axis=1), np.linalg.norm(B, axis=1))).mean(1)
        sx, sy = s(X), s(Y)
        return (sx.mean() - sy.mean()) / np.concatenate([sx, sy]).std()

    ref = stats.bootstrap([np.arange(len(x)) for x in v], effect, vectorized=False, paired=False, n_resamples=499,
                          method=method, rng=np.random.default_rng(5)).confidence_interval
    low, high = r.ci(0.95, method.lower(), n_resamples=499, random_state=5, batch=499)
    assert (low, high) == pytest.approx((ref.low, ref.high), rel=1e-9)
    assert low < r.score < high


def test_the_vectorised_weat_resamples_equal_the_per_resample_score(weat6_space):
    e, q = weat6_space
    r = bias.weat(e, query=q)
    rng = np.random.default_rng(0)
    idx = next(r._draws(50, rng, None))
    from embgeo.evaluate.bias._measures import _weat_resamples

    fast = _weat_resamples(r.vectors, idx)
    slow = [r._recompute(r._rows([i[k] for i in idx])) for k in range(50)]
    np.testing.assert_allclose(fast, slow, rtol=1e-10)


@pytest.mark.parametrize("measure", ["ripa", "ect", "rnd", "mac", "rnsb"])
def test_every_measure_has_an_interval_around_its_score(weat6_space, measure):
    e, q = weat6_space
    kwargs = {"random_state": 0} if measure == "rnsb" else {}
    attributes = q.attributes if measure in ("mac", "rnsb") else q.attributes[:1]
    r = getattr(bias, measure)(e, targets=q.targets, attributes=attributes, **kwargs)
    low, high = r.ci(0.9, n_resamples=299, random_state=0)
    assert low <= r.score <= high and low < high
    assert "90% CI" in repr(r)


def test_repr_and_html_show_score_interval_and_coverage(weat6_space):
    e, q = weat6_space
    r = bias.weat(e, query=q)
    r.ci(n_resamples=199, random_state=0)
    text = repr(r)
    assert text.startswith("BiasResult: weat, weat6") and "95% CI, bca" in text and "exact" in text
    assert f"{r.score:.4g} [" in text and "coverage of" in text and len(text.splitlines()) < 20
    html = r._repr_html_()
    assert 'class="embgeo-display"' in html and "effect size" in html and "95% CI" in html
    assert f"{r.score:.4g}" in html


# ------------------------------------------------------------------ two spaces
def test_compare_bias_pairs_the_resamples_and_tells_identical_from_different_spaces(weat6_space):
    e, q = weat6_space
    a = bias.weat(e, query=q)
    same = bias.compare_bias(a, bias.weat(e, query=q), n_resamples=299, random_state=0)
    assert same.difference == 0 and same.p_value == 1.0 and same.test == "bootstrap"
    vec = np.asarray(e.vectors).copy()
    u = np.random.default_rng(9).standard_normal(e.dim)
    for words, sign in zip(q.sets, (1, -1, 1, -1)):   # male names and career one way, female names and family the other
        for w in words:
            vec[e.index(w.lower())] += 3 * sign * u
    biased = e.with_vectors(vec)
    diff = embgeo.evaluate.compare(e, biased, q, n_resamples=299, random_state=0, labels=("orig", "biased"))
    assert diff.score_b > diff.score_a and diff.p_value < 0.05
    assert diff.dataset == "weat6" and diff.label_b == "biased"


def test_compare_bias_refuses_different_queries(weat6_space):
    e, q = weat6_space
    a = bias.weat(e, query=q)
    b = bias.weat(e, targets=q.targets, attributes=q.attributes[::-1])
    with pytest.raises(ValueError, match="different queries"):
        bias.compare_bias(a, b)


# ------------------------------------------------------------------ a table of queries
def test_bias_report_runs_queries_and_draws_a_forest_plot(weat6_space):
    e, q = weat6_space
    report = bias.bias_report(e, [q, bias.Query(q.targets, q.attributes[::-1], name="reversed")],
                              measures=("weat", "mac"), ci=0.9, n_resamples=199, random_state=0)
    rows = report.to_records()
    assert [(r["dataset"], r["measure"]) for r in rows] == [("weat6", "weat"), ("weat6", "mac"),
                                                             ("reversed", "weat"), ("reversed", "mac")]
    assert rows[0]["score"] == pytest.approx(-rows[2]["score"])
    assert all(r["low"] <= r["score"] <= r["high"] for r in rows)
    plt = pytest.importorskip("matplotlib.pyplot")
    ax = report.plot_intervals()
    assert len(ax.get_yticklabels()) == 4
    plt.close("all")
    with pytest.raises(ValueError, match="unknown bias measure 'weet'"):
        bias.bias_report(e, ["weat6"], measures=["weet"])


def test_bca_is_nan_when_every_resample_lies_on_one_side_of_the_estimate():
    from embgeo.evaluate.stats import bootstrap_interval

    low, high = bootstrap_interval(2.0, [0.5, 1.0, 1.5], 0.95, "bca", [1.0, 1.2, 0.9])
    assert math.isnan(low) and math.isnan(high)
    assert bootstrap_interval(2.0, [0.5, 1.0, 1.5], 0.95, "percentile") == pytest.approx((0.525, 1.475))


# ------------------------------------------------------------------ hard debias
@pytest.mark.parametrize("mode", ["ignore", "target"])
def test_hard_debias_equals_wefe_on_the_golden_file(mode):
    g = np.load(DATA / "wefe_hard_debias.npz")
    e = embgeo.Embeddings([str(w) for w in g["words"]], g["vectors"])
    hd = bias.HardDebias().fit(e)
    assert abs(float(hd.bias_direction_ @ g["bias_direction"])) == pytest.approx(1.0, abs=1e-6)
    out = hd.transform(e, **{mode: [str(w) for w in g[mode]]})
    ours, wefe = np.asarray(out.vectors), g[f"debiased_{mode}"]
    equalised = np.isin(g["words"], [w for p in hd.equalize_pairs_ for w in p])
    np.testing.assert_allclose(ours[~equalised], wefe[~equalised], atol=1e-6)
    # WEFE 1.0.1 divides the equalised vectors by their stale pre-equalise norms (gensim's norms are not
    # refreshed by WordEmbeddingModel.update), so they leave unit length; their directions are the same
    np.testing.assert_allclose(ours[equalised], wefe[equalised] / np.linalg.norm(wefe[equalised], axis=1,
                                                                                 keepdims=True), atol=1e-6)


def test_hard_debias_neutralises_and_equalises():
    g = np.load(DATA / "wefe_hard_debias.npz")
    e = embgeo.Embeddings([str(w) for w in g["words"]], g["vectors"])
    hd = bias.HardDebias().fit(e)
    gendered = {w for p in bias.debias_pairs("definitional") + bias.debias_pairs("equalize") for w in p}
    out = hd.transform(e, ignore=sorted(gendered | {w.lower() for w in gendered}))
    b = hd.bias_direction_
    V = np.asarray(out.vectors)
    assert np.abs(V[[out.index(f"neutral{i}") for i in range(40)]] @ b).max() < 1e-6
    np.testing.assert_allclose(np.linalg.norm(V, axis=1), 1, atol=1e-6)
    for a, c in hd.equalize_pairs_:          # an equalised pair is equidistant from every neutral word
        n = V[out.index("neutral0")]
        assert float(V[out.index(a)] @ n) == pytest.approx(float(V[out.index(c)] @ n), abs=1e-6)
    assert ("he", "she") in hd.equalize_pairs_ and ("Catholic_priest", "nun") not in hd.equalize_pairs_


def test_hard_debias_refuses_to_transform_unfitted_and_too_few_pairs():
    e = _random_space(["he", "she", "doctor"])
    with pytest.raises(embgeo.NotFittedError, match="fit"):
        bias.HardDebias().transform(e)
    with pytest.raises(ValueError, match="1 definitional pairs.*n_components=10"):
        bias.HardDebias().fit(e, [("she", "he")])
    with pytest.raises(ValueError, match="kind"):
        bias.debias_pairs("neutral")


# ------------------------------------------------------------------ double-hard debias
@pytest.fixture(scope="module")
def dhd_golden():
    g = np.load(DATA / "double_hard_debias.npz")
    e = embgeo.Embeddings([str(w) for w in g["words"]], g["vectors16"].astype(np.float32) / 16)
    # the golden file's scikit-learn ran KMeans(random_state=1) with its default n_init: 10 before 1.4, then 1
    major, minor = (int(x) for x in str(g["sklearn_version"]).split(".")[:2])
    n_init = 10 if (major, minor) < (1, 4) else 1
    return g, e, bias.DoubleHardDebias(n_init=n_init).fit(e)


def test_double_hard_debias_equals_the_authors_code_on_the_golden_file(dhd_golden):
    g, e, dhd = dhd_golden
    np.testing.assert_allclose(dhd.mean_, g["mean"], atol=1e-12)
    np.testing.assert_allclose(np.abs(np.sum(dhd.components_ * g["components"], axis=1)), 1, atol=1e-9)
    assert dhd.female_words_ == [e.words[i] for i in g["female"]]
    assert dhd.male_words_ == [e.words[i] for i in g["male"]]
    np.testing.assert_array_equal(dhd.accuracies_, g["precisions"])
    assert dhd.component_ == int(g["component"]) == 1          # not the first: the selection is tested
    assert len(dhd.definitional_pairs_) == 10 and ("mary", "john") in dhd.definitional_pairs_
    assert set(bias.gender_specific_words()) == {str(w) for w in g["excluded"]}
    # the authors' hard_debias with the selected component: purified, then the gender direction of the
    # purified pairs removed (no normalisation, no equalisation: their selection step)
    P = np.asarray(dhd.purify(e).vectors, dtype=np.float64)
    rows = []
    for a, c in dhd.definitional_pairs_:
        centre = (P[e.index(a)] + P[e.index(c)]) / 2
        rows += [P[e.index(a)] - centre, P[e.index(c)] - centre]
    gd = np.linalg.svd(np.array(rows))[2][0]
    neutralised = P - np.outer(P @ gd, gd)
    np.testing.assert_allclose(neutralised[g["debiased_rows"]], g["debiased"], atol=1e-5)


def _brute_force_double_hard(words, X, definitional, n_words, n_candidates, exclude, n_init, seed):
    """Algorithm 1 of Wang et al. (2020) word by word, from the paper: the same steps as DoubleHardDebias,
    written with per-word loops, an SVD for the PCA and sorted() for the ranking."""
    from sklearn.cluster import KMeans

    W = {w: X[i].astype(np.float64) for i, w in enumerate(words)}
    mu = sum(W.values()) / len(W)
    U = np.linalg.svd(np.array([W[w] - mu for w in words]), full_matrices=False)[2]

    def cos(a, b):
        return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))

    score = {w: cos(W[w], W["he"]) - cos(W[w], W["she"]) for w in words if w not in exclude}
    ranked = [w for w, _ in sorted(score.items(), key=lambda kv: kv[1])]
    female, male = ranked[:n_words], ranked[-n_words:]
    accuracies = []
    for i in range(n_candidates):
        u = U[i]
        Wp = {w: W[w] - mu - (u @ W[w]) * u for w in set(male + female) | {w for p in definitional for w in p}}
        diffs = [v for a, c in definitional for v in (Wp[a] - (Wp[a] + Wp[c]) / 2, Wp[c] - (Wp[a] + Wp[c]) / 2)]
        gdir = np.linalg.svd(np.array(diffs))[2][0]
        Z = np.array([Wp[w] - (Wp[w] @ gdir) * gdir for w in male + female])
        pred = KMeans(n_clusters=2, n_init=n_init, random_state=seed).fit(Z).predict(Z)
        acc = np.mean(pred == np.array([1] * n_words + [0] * n_words))
        accuracies.append(max(acc, 1 - acc))
    k = int(np.argmin(accuracies))
    purified = np.array([W[w] - mu - (U[k] @ W[w]) * U[k] for w in words])
    return accuracies, k, U, female, male, purified


def test_double_hard_debias_equals_a_brute_force_algorithm_1():
    rng = np.random.default_rng(40)
    gendered = ["he", "she", "man", "woman", "boy", "girl", "king", "queen", "father", "mother"]
    letters = "abcdefghijklmnopqrstuvwxyz"
    plain = [f"{letters[i // 26]}{letters[i % 26]}x" for i in range(150)]
    words = gendered + plain
    g = rng.standard_normal(12)
    sign = np.array([1.0 if i % 2 == 0 else -1.0 for i in range(10)] + list(rng.normal(0, 0.5, 150)))
    X = (rng.standard_normal((160, 12)) + np.outer(sign, g) * 2 + np.outer(np.linspace(3, 0, 160), rng.standard_normal(12))
         ).astype(np.float32)
    e = embgeo.Embeddings(words, X)
    definitional = [("he", "she"), ("man", "woman"), ("boy", "girl"), ("king", "queen"), ("father", "mother")]
    dhd = bias.DoubleHardDebias(n_candidates=8, n_words=40, n_components=4, n_init=3, random_state=7).fit(
        e, definitional, [("he", "she"), ("king", "queen")], exclude=gendered)
    acc, k, U, female, male, purified = _brute_force_double_hard(words, X, definitional, 40, 8, set(gendered), 3, 7)
    np.testing.assert_allclose(dhd.accuracies_, acc, atol=1e-12)
    assert dhd.component_ == k and (dhd.female_words_, dhd.male_words_) == (female, male)
    assert len(set(np.round(acc, 6))) > 1                                     # the candidates differ
    np.testing.assert_allclose(np.abs(np.sum(dhd.components_ * U[:8], axis=1)), 1, atol=1e-9)
    np.testing.assert_allclose(np.asarray(dhd.purify(e).vectors), purified, atol=1e-5)
    # Hard Debias (Bolukbasi et al.) of the purified vectors
    ref = bias.HardDebias(4).fit(embgeo.Embeddings(words, purified.astype(np.float32)), definitional,
                                 [("he", "she"), ("king", "queen")])
    ignore = gendered[:6]
    want = ref.transform(embgeo.Embeddings(words, purified.astype(np.float32)), ignore=ignore)
    out = dhd.transform(e, ignore=ignore)
    np.testing.assert_allclose(np.asarray(out.vectors), np.asarray(want.vectors), atol=1e-5)
    V, b = np.asarray(out.vectors), dhd.hard_debias_.bias_direction_
    np.testing.assert_allclose(np.linalg.norm(V, axis=1), 1, atol=1e-6)
    assert out.vectors.dtype == np.float32
    assert np.abs(V[[out.index(w) for w in plain]] @ b).max() < 1e-6          # neutralised
    n = V[out.index(plain[0])]
    assert float(V[out.index("king")] @ n) == pytest.approx(float(V[out.index("queen")] @ n), abs=1e-6)


def test_double_hard_debias_is_deterministic_for_a_seed(dhd_golden):
    g, e, first = dhd_golden
    again = bias.DoubleHardDebias(n_init=first.n_init).fit(e)
    np.testing.assert_array_equal(again.accuracies_, first.accuracies_)
    np.testing.assert_array_equal(np.asarray(again.transform(e).vectors), np.asarray(first.transform(e).vectors))


def test_double_hard_debias_refuses_bad_input_naming_it():
    e = _random_space(["he", "she", "man", "woman"] + [f"w{chr(97 + i)}" for i in range(20)], dim=6)
    with pytest.raises(embgeo.NotFittedError, match="fit"):
        bias.DoubleHardDebias().transform(e)
    with pytest.raises(UnknownWordError, match="'him'.*bias_words"):
        bias.DoubleHardDebias(n_candidates=3, bias_words=("him", "she")).fit(e)
    with pytest.raises(ValueError, match="n_candidates=20 exceeds the dimension 6"):
        bias.DoubleHardDebias().fit(e)
    with pytest.raises(ValueError, match="n_words=1000 .* 2000 candidates, but only 20"):
        bias.DoubleHardDebias(n_candidates=3).fit(e, [("she", "he")])
    with pytest.raises(ValueError, match="none of the definitional pairs"):
        bias.DoubleHardDebias(n_candidates=3).fit(e, [("queen", "king")])
    with pytest.raises(ValueError, match="each definitional pair is two words"):
        bias.DoubleHardDebias(n_candidates=3).fit(e, [("she", "he", "it")])
    with pytest.raises(ValueError, match="n_words must be a positive integer, got 0"):
        bias.DoubleHardDebias(n_words=0).fit(e)
    with pytest.raises(ValueError, match="bias_words must be two different words"):
        bias.DoubleHardDebias(n_candidates=3, bias_words="he").fit(e)
    dhd = bias.DoubleHardDebias(n_candidates=3, n_words=5, n_components=2).fit(e, [("she", "he"), ("woman", "man")])
    with pytest.raises(ValueError, match="dimension 4, the fitted ones 6"):
        dhd.transform(_random_space(["he", "she"], dim=4))


# ------------------------------------------------------------------ across languages
def test_translate_query_by_dictionary_reports_each_word_and_coverage():
    q = bias.Query(targets=[["Math", "algebra", "physics"], ["poetry", "art", "drama"]],
                   attributes=[["he", "him"], ["she", "her"]], name="toy")
    d = [("math", "matematiikka"), ("algebra", "algebra"), ("poetry", "runous"), ("art", "taide"),
         ("art", "kuvataide"), ("drama", "draama"), ("he", "hän"), ("him", "häntä"), ("she", "hän"),
         ("her", "hänen")]
    t = bias.translate_query(q, dictionary=d, language="fi")
    assert t.query.name == "toy@fi" and t.how == "dictionary"
    assert t.query.targets == (("matematiikka", "algebra"), ("runous", "taide", "draama"))
    assert t.translations[0] == (("Math", "matematiikka"), ("algebra", "algebra"), ("physics", None))
    assert t.coverage == pytest.approx((2 / 3, 1, 1, 1))
    assert [r["translation"] for r in t.to_report()][:3] == ["matematiikka", "algebra", None]
    assert "toy@fi" in repr(t) and "<table" in t._repr_html_() and "coverage" in repr(t)
    with pytest.raises(ValueError, match="'target 2'.*none of its 1 words was translated"):
        bias.translate_query(bias.Query([["he"], ["zebra"]], [["a", "b"]]), dictionary=d)
    with pytest.raises(ValueError, match="either with dictionary= or with source="):
        bias.translate_query(q)


def test_translate_query_by_retrieval_in_a_mapped_space():
    rng = np.random.default_rng(4)
    words = ["he", "she", "man", "woman", "doctor", "nurse", "king", "queen"]
    X = rng.standard_normal((8, 6)).astype(np.float32)
    R = np.linalg.qr(rng.standard_normal((6, 6)))[0].astype(np.float32)
    src = embgeo.Embeddings(words, X)
    tgt = embgeo.Embeddings([f"fi_{w}" for w in words][::-1], (X @ R)[::-1])

    class Rotation:                                   # a fitted mapper's transform
        def transform(self, s, t):
            return np.asarray(s.vectors) @ R, np.asarray(t.vectors)

    q = bias.Query([["he", "man"], ["she", "woman"]], [["doctor", "king"], ["nurse", "queen"]])
    t = bias.translate_query(q, source=src, target=tgt, mapper=Rotation(), retrieval="csls")
    assert t.query.sets == (("fi_he", "fi_man"), ("fi_she", "fi_woman"), ("fi_doctor", "fi_king"),
                            ("fi_nurse", "fi_queen"))
    assert t.how == "csls" and bias.weat(tgt, query=t.query).score == pytest.approx(bias.weat(src, query=q).score,
                                                                                   abs=1e-5)
    with pytest.raises(ValueError, match="6 dimensions and the target's 3"):
        bias.translate_query(q, source=src, target=embgeo.Embeddings(words, X[:, :3]))


def test_weat7_carried_into_finnish_with_the_shared_dictionary(shared_data):
    from embgeo.data import read_dictionary

    d = read_dictionary(shared_data / "bli" / "yacle.train.freq.5k.en-fi.tsv")
    fi = embgeo.load(str(shared_data / "vectors" / "fi.floret.300d.30k.vec.gz"))
    t = bias.translate_query("weat7", dictionary=d, language="fi")
    assert all(0 < c <= 1 for c in t.coverage)
    r = bias.weat(fi, query=t.query, min_coverage=0.5)
    assert r.query == "weat7@fi" and math.isfinite(r.score) and 0 <= r.p_value <= 1


def test_unequal_target_sets_partition_into_the_same_sizes(weat6_space):
    e, q = weat6_space
    r = bias.weat(e, targets=[q.targets[0][:5], q.targets[1]], attributes=q.attributes, alternative="two-sided")
    s = np.array([r.details["association"][w] for w in r.words[0] + r.words[1]])
    p, n = _brute_p(s, 5, "two-sided")
    assert r.n_permutations == n == math.comb(13, 5) and r.p_value == pytest.approx(p, abs=1e-12)
