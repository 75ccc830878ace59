"""Concept categorisation: purity, the clusterings of word-embeddings-benchmarks, OOV policies, the readers."""
from __future__ import annotations

import numpy as np
import pytest

import embgeo
from embgeo import data
from embgeo.errors import FormatError, UnknownWordError
from embgeo.evaluate import CategorizationResult, categorization, evaluate
from embgeo.evaluate.categorization import purity


def _write(tmp_path, rows, name="cats.csv", header=",category,word"):
    p = tmp_path / name
    p.write_text(header + "\n" + "".join(f"{i},{c},{w}\n" for i, (c, w) in enumerate(rows)), encoding="utf-8")
    return p


@pytest.fixture
def clustered():
    """4 categories of 5 words, tight clusters around random centres in 8 dimensions, plus 30 other words."""
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((4, 8)) * 3
    words, vecs, rows = [], [], []
    for c in range(4):
        for j in range(5):
            w = f"c{c}w{j}"
            words.append(w)
            vecs.append(centres[c] + 0.05 * rng.standard_normal(8))
            rows.append((f"cat{c}", w))
    for j in range(30):
        words.append(f"other{j}")
        vecs.append(rng.standard_normal(8))
    return embgeo.Embeddings(words, np.array(vecs, dtype=np.float32)), rows


def _purity_by_definition(cats, clusters):
    """Manning et al. (2008) eq. 16.1, written out."""
    total = 0
    for k in set(clusters):
        members = [c for c, z in zip(cats, clusters) if z == k]
        total += max(members.count(c) for c in set(members))
    return total / len(cats)


def test_purity_matches_its_definition_and_scikit_learns_contingency_table():
    from sklearn.metrics.cluster import contingency_matrix

    rng = np.random.default_rng(1)
    for _ in range(20):
        n = int(rng.integers(1, 60))
        cats, clus = rng.integers(0, 6, n), rng.integers(0, 4, n)
        want = _purity_by_definition(list(cats), list(clus))
        assert purity(cats, clus) == pytest.approx(want)
        assert purity(cats, clus) == pytest.approx(contingency_matrix(cats, clus).max(axis=0).sum() / n)


@pytest.mark.parametrize("kw", [{}, {"linkage": "average", "metric": "cosine"}, {"linkage": "complete"},
                                {"clustering": "kmeans"}])
def test_separated_categories_are_recovered_by_every_clustering(tmp_path, clustered, kw):
    e, rows = clustered
    r = categorization(e, _write(tmp_path, rows), **kw)
    assert isinstance(r, CategorizationResult)
    assert r.purity == 1.0 and r.n_clusters == 4 and r.coverage == 1.0
    assert all(v["share"] == 1.0 for v in r.categories.values())


def test_the_clustering_is_scikit_learns_on_the_words_vectors(tmp_path):
    from sklearn.cluster import AgglomerativeClustering

    rng = np.random.default_rng(2)
    words = [f"w{i}" for i in range(40)]
    e = embgeo.Embeddings(words, rng.standard_normal((40, 6)).astype(np.float32))
    cats = [f"k{i % 5}" for i in range(40)]
    path = _write(tmp_path, list(zip(cats, words)))
    for linkage, metric in [("ward", "euclidean"), ("average", "cosine"), ("complete", "euclidean")]:
        r = categorization(e, path, linkage=linkage, metric=metric)
        labels = AgglomerativeClustering(n_clusters=5, linkage=linkage, metric=metric).fit_predict(e.vectors)
        assert r.purity == pytest.approx(_purity_by_definition([int(c[1]) for c in cats], list(labels)))
        assert np.array_equal(r.per_item["cluster"], labels)


def test_oov_policies_skip_mean_and_raise(tmp_path, clustered):
    from sklearn.cluster import AgglomerativeClustering

    e, rows = clustered
    path = _write(tmp_path, rows + [("cat0", "unknown1"), ("cat3", "unknown2")])
    skip = categorization(e, path)
    assert (skip.n_items, skip.n_found, skip.n_total) == (20, 20, 22)
    assert skip.coverage == pytest.approx(20 / 22) and skip.categories["cat0"]["n_found"] == 5
    mean = categorization(e, path, oov="mean")
    # word-embeddings-benchmarks: an unknown word is the mean of all vectors
    X = np.vstack([e.vectors[e.index(w)] for _, w in rows] + [e.vectors.mean(axis=0)] * 2)
    labels = AgglomerativeClustering(n_clusters=4).fit_predict(X)
    cats = [int(c[3]) for c, _ in rows] + [0, 3]
    assert mean.n_items == 22 and mean.purity == pytest.approx(_purity_by_definition(cats, list(labels)))
    with pytest.raises(UnknownWordError, match="unknown1"):
        categorization(e, path, oov="raise")
    with pytest.raises(ValueError, match="oov"):
        categorization(e, path, oov="zero")


def test_result_keeps_per_item_codes_and_recomputes_its_purity(tmp_path, clustered):
    e, rows = clustered
    rows = [(c if i % 7 else "cat1", w) for i, (c, w) in enumerate(rows)]  # some words in a wrong category
    r = categorization(e, _write(tmp_path, rows))
    assert r.score_name == "purity" and r.score == r.purity < 1.0
    assert set(r.per_item) == {"category", "cluster", "item"} and r.per_item["item"].tolist() == list(range(20))
    assert len(r.per_item["category"]) == len(r.per_item["cluster"]) == len(r.items) == r.n_items
    assert r.statistic(r.per_item) == r.purity
    half = {k: v[::2] for k, v in r.per_item.items()}
    assert r.statistic(half) == pytest.approx(_purity_by_definition(list(half["category"]), list(half["cluster"])))
    assert [row["category"] for row in r.table()] == ["cat1", "cat0", "cat2", "cat3"]


def test_bad_input_is_named(tmp_path, clustered):
    e, rows = clustered
    with pytest.warns(UserWarning, match="single word.*'lonely'"):
        r = categorization(e, _write(tmp_path, rows + [("lonely", "other3")]))
    assert r.n_clusters == 5  # kept, as word-embeddings-benchmarks keeps it
    with pytest.raises(ValueError, match="0 of 4 words are in the model.s vocabulary"):
        categorization(e, _write(tmp_path, [("a", "nope"), ("a", "nada"), ("b", "nix"), ("b", "nul")]))
    bad = tmp_path / "bad.csv"
    bad.write_text(",category,word\n0,cat0,c0w0\n1,cat0\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"bad\.csv, line 3: expected 3 fields"):
        categorization(e, bad)
    header = tmp_path / "header.csv"
    header.write_text("category,word\ncat0,c0w0\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"header\.csv, line 1: expected the header"):
        data.read_categories(header)
    with pytest.raises(ValueError, match="Ward linkage needs metric='euclidean'"):
        categorization(e, _write(tmp_path, rows), metric="cosine")
    with pytest.raises(ValueError, match="unknown clustering"):
        categorization(e, _write(tmp_path, rows), clustering="spectral")


def test_reader_skips_the_collections_empty_words_and_keeps_repeated_words(tmp_path):
    p = _write(tmp_path, [("a", "x"), ("a", ""), ("b", "x"), ("b", "y")])
    c = data.read_categories(p)
    assert c.words == ["x", "x", "y"] and c.categories == ["a", "b", "b"] and c.category_names == ["a", "b"]
    assert isinstance(data.load_dataset(p), data.Categories)  # known by its header


def test_evaluate_adds_a_purity_column_only_when_categorisation_runs(tmp_path, clustered):
    e, rows = clustered
    rep = evaluate(e, [data.read_categories(_write(tmp_path, rows))])
    assert rep.columns[-1] == "purity" and rep[0]["purity"] == 1.0 and rep[0]["task"] == "categorization"
    assert isinstance(rep.results[0], CategorizationResult)


def test_plot_draws_one_bar_per_category(tmp_path, clustered):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    e, rows = clustered
    ax = categorization(e, _write(tmp_path, rows)).plot()
    assert len(ax.patches) == 4


#: word-embeddings-benchmarks' numbers on GloVe 6B 50d (its evaluate_categorization, every word known or the mean
#: vector), measured by benchmarks/compare_categorization.py running its code
#: (its method="agglomerative": the best of the five agglomerative clusterings; its k-means differs by initialisation)
WEB_AGGLOMERATIVE_BEST = {"ap": 253 / 402, "bless-categorization": 151 / 200, "essli-2008": 27 / 45}


def test_real_datasets_through_the_registry(shared_data, glove, monkeypatch):
    monkeypatch.setenv("EMBGEO_DATA", str(shared_data))
    for name, n_words, n_cats in [("ap", 402, 21), ("bless-categorization", 200, 17), ("essli-2008", 45, 9)]:
        d = data.load_dataset(name)  # verified against the registry's sha256
        assert (len(d), len(d.category_names)) == (n_words, n_cats)
        r = categorization(glove, name, oov="mean")
        assert r.n_items == n_words and 0.4 < r.purity <= 1.0
        best = max(categorization(glove, name, linkage=lk, metric=m, oov="mean").purity
                   for lk, m in [("ward", "euclidean"), ("average", "cosine"), ("average", "euclidean"),
                                 ("complete", "cosine"), ("complete", "euclidean")])
        assert best == pytest.approx(WEB_AGGLOMERATIVE_BEST[name], abs=1e-12)


def test_command_line_runs_word_set_files_and_names_a_bad_row(tmp_path, clustered, capsys):
    import json

    from embgeo import cli

    e, rows = clustered
    emb = tmp_path / "small.vec"
    e.to_gensim().save_word2vec_format(str(emb), binary=False)
    cats = _write(tmp_path, rows)
    outl = tmp_path / "outliers.csv"
    outl.write_text(",category,outliers,words\n0,k,\"['other1', '']\",\"['c0w0', 'c0w1', 'c0w2', 'c0w3']\"\n")
    ent = tmp_path / "ent.tsv"
    ent.write_text("word1\tword2\trelation\nc0w0\tc0w1\thyper\nc1w0\tother2\thyper\n")
    code = cli.main(["evaluate", "-e", str(emb), "-d", str(cats), str(outl), str(ent), "--json", "-q",
                     "--measures", "cosine,fuzzy-kl", "--oov", "mean"])
    out, err = capsys.readouterr()
    assert code == 0, err
    got = json.loads(out)
    assert got["columns"][-2:] == ["purity", "opp"]
    assert [(r["task"], r["measure"]) for r in got["rows"]] == [
        ("categorization", "agglomerative-ward"), ("outliers", "cosine"), ("entailment-direction", "cosine"),
        ("entailment-direction", "fuzzy-kl")]
    assert got["rows"][0]["purity"] == 1.0 and got["rows"][2]["accuracy"] == 0.0
    bad = tmp_path / "bad.csv"
    bad.write_text(",category,word\n0,cat0,c0w0,extra\n")
    code = cli.main(["evaluate", "-e", str(emb), "-d", str(bad)])
    out, err = capsys.readouterr()
    assert code == 1 and "bad.csv, line 2: expected 3 fields" in err and len(err.strip().splitlines()) == 1


def test_word_set_results_take_intervals_over_their_items(tmp_path, clustered):
    from scipy import stats

    e, rows = clustered
    rows = [(c if i % 5 else "cat1", w) for i, (c, w) in enumerate(rows)]
    r = categorization(e, _write(tmp_path, rows))
    low, high = r.ci(0.9, ci_method="percentile", n_resamples=999, random_state=0, draw="indices")
    ref = stats.bootstrap((np.arange(r.n_items),), lambda i: r.statistic({k: v[i] for k, v in r.per_item.items()}),
                          n_resamples=999, method="percentile", confidence_level=0.9, vectorized=False,
                          rng=np.random.default_rng(0))
    assert (low, high) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high))
    rep = evaluate(e, [data.read_categories(_write(tmp_path, rows))], ci=0.95, n_resamples=199, random_state=0)
    assert rep.columns[-3:] == ["purity", "low", "high"] and rep[0]["low"] <= rep[0]["purity"] <= rep[0]["high"]


@pytest.mark.parametrize("body, line, match", [
    (b"0,animal,cat\n1,caf\xe9,latte\n", 3, r"not UTF-8 text: bytes b'\\xe9'"),  # Latin-1
    (b"0,animal,cat\n\n1,animal,\xff\xfe\x00\x01\n", 4, "not UTF-8 text"),  # garbage after a blank line
    (b'0,animal,cat\n1,animal,"' + b"x" * 200_000 + b'"\n', 3, r"not a CSV row \(field larger than field limit"),
])
def test_undecodable_or_oversized_rows_are_format_errors_naming_the_line(tmp_path, body, line, match):
    p = tmp_path / "bad.csv"
    p.write_bytes(b",category,word\n" + body)
    with pytest.raises(FormatError, match=rf"^{p}, line {line}: {match}") as info:
        data.read_categories(p)
    assert info.value.line == line

