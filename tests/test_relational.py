"""MSR analogies and SemEval-2012 Task 2 (relational similarity): readers and evaluator."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

import embgeo
from embgeo.data import read_msr_analogies, read_semeval2012
from embgeo.errors import UnknownWordError
from embgeo.evaluate.analogy import analogy
from embgeo.evaluate.relational import maxdiff_accuracy, semeval2012

DATA = Path(__file__).parent / "data"
WORDS = ("flower tulip emotion rage poem sonnet animal dog fruit apple tool hammer car wheel blueprint "
         "building recipe cake score symphony map city").split()


@pytest.fixture
def emb():
    rng = np.random.default_rng(12)
    return embgeo.Embeddings(WORDS, rng.standard_normal((len(WORDS), 5)).astype(np.float32))


def test_read_semeval2012_published_layout():
    data = read_semeval2012(DATA / "semeval2012")
    assert list(data) == ["1a", "10c"]                          # natural order, not "10c" < "1a"
    a = data["1a"]
    assert a.prototypes == [("flower", "tulip"), ("emotion", "rage"), ("poem", "sonnet")]
    assert a.pairs[:5] == [("animal", "dog"), ("fruit", "apple"), ("tool", "hammer"), ("dog", "animal"),
                           ("car", "wheel")]
    np.testing.assert_array_equal(a.gold, [50, 20, 30, -75, -50])      # the Platinum file
    assert a.questions.shape == (6, 4) and a.pairs[a.most[0]] == ("animal", "dog")
    # no Platinum file: % most − % least over the answers showing the pair (counted by hand)
    c = data["10c"]
    gold = dict(zip(c.pairs, c.gold))
    assert gold[("map", "city")] == 66.7                 # maxdiff_to_scale.pl prints %5.1f
    assert gold[("recipe", "cake")] == 33.3
    assert gold[("cake", "recipe")] == -50
    assert gold[("car", "wheel")] == -33.3
    assert gold[("unknownword", "city")] == -100


def _score_maxdiff_pl(cat, rating):
    """score_maxdiff.pl (Turney 2011) as a loop: unique questions, majority votes, ties right.

    ``rating`` maps a pair to the system's rating; answers showing an unrated pair are left out.
    The guesses are scale_to_maxdiff.pl's: the first pair of strictly highest / lowest rating.
    """
    question2qnum, pairqnum2least, pairqnum2most, questions = {}, {}, {}, []
    for q, lo, hi in zip(cat.questions, cat.least, cat.most):
        shown = tuple(cat.pairs[i] for i in q)
        if not all(p in rating for p in shown):
            continue
        if shown not in question2qnum:
            question2qnum[shown] = len(questions)
            questions.append(shown)
            for p in shown:
                pairqnum2least[(p, question2qnum[shown])] = pairqnum2most[(p, question2qnum[shown])] = 0
        qnum = question2qnum[shown]
        least = cat.pairs[lo] if lo >= 0 else '""'      # the script keys an empty choice as '""'
        most = cat.pairs[hi] if hi >= 0 else '""'
        pairqnum2least[(least, qnum)] = pairqnum2least.get((least, qnum), 0) + 1
        pairqnum2most[(most, qnum)] = pairqnum2most.get((most, qnum), 0) + 1
    most_right = least_right = 0
    for qnum, shown in enumerate(questions):
        for i, p in enumerate(shown):
            if i == 0 or rating[p] > max_scale:
                max_scale, max_pair = rating[p], p
            if i == 0 or rating[p] < min_scale:
                min_scale, min_pair = rating[p], p
        max_least = max([0] + [pairqnum2least[(p, qnum)] for p in shown])
        max_most = max([0] + [pairqnum2most[(p, qnum)] for p in shown])
        least_right += pairqnum2least[(min_pair, qnum)] == max_least
        most_right += pairqnum2most[(max_pair, qnum)] == max_most
    return (most_right + least_right) / (2 * len(questions)), most_right, least_right, len(questions)


def _brute_force(emb, cat, skip_oov=True):
    """Offsets rated by a loop: r = mean(ŵ2 − ŵ1) over the prototypes; MaxDiff by score_maxdiff.pl's loops."""
    def u(w):
        v = np.asarray(emb[w], dtype=np.float64)
        return v / np.linalg.norm(v)
    r = np.mean([u(b) - u(a) for a, b in cat.prototypes if a in emb and b in emb], axis=0)
    rating = {}
    for a, b in cat.pairs:
        if a in emb and b in emb:
            d = u(b) - u(a)
            rating[(a, b)] = float(d @ r / np.linalg.norm(d) / np.linalg.norm(r))
        elif not skip_oov:
            rating[(a, b)] = 0.0
    rated = [p for p in cat.pairs if p in rating]
    gold = dict(zip(cat.pairs, cat.gold))
    rho = spearmanr([rating[p] for p in rated], [gold[p] for p in rated])[0]
    return rho, _score_maxdiff_pl(cat, rating)[0], len(rated)


def _perl_rated(path):
    out = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            value, pair = line.split()
            out[tuple(pair.strip('"').split(":"))] = float(value)
    return out


def test_semeval2012_category_matches_the_official_scripts():
    """A category-1b-shaped fixture (synthetic answers, three with an empty choice) against the Perl scripts' output."""
    cat = read_semeval2012(DATA / "semeval2012_1b")["1b"]
    golden = DATA / "semeval2012_1b_golden"
    assert (cat.least == -1).sum() + (cat.most == -1).sum() == 3
    gold = _perl_rated(golden / "GoldRatings-1b.txt")              # maxdiff_to_scale.pl
    assert dict(zip(cat.pairs, cat.gold.tolist())) == gold          # exactly, rounding included
    system = _perl_rated(golden / "SystemRatings-1b.txt")
    counts = {}
    for line in (golden / "ScoreMaxDiff-1b.txt").read_text().splitlines():
        name, value = line.rsplit(":", 1)
        counts[name.strip()] = value.strip()
    ratings = np.array([system[p] for p in cat.pairs])
    acc, most_right, least_right, n_q = maxdiff_accuracy(ratings, cat.questions, cat.least, cat.most)
    assert n_q == int(counts["Number of MaxDiff Questions"])
    assert most_right == int(counts["Number of Most Illustrative Guessed Correctly"])
    assert least_right == int(counts["Number of Least Illustrative Guessed Correctly"])
    assert f"{100 * acc:5.1f}%" == counts["Overall Accuracy"].rjust(6)
    assert _score_maxdiff_pl(cat, system) == (acc, most_right, least_right, n_q)


def test_semeval2012_constant_ratings_score_rho_zero():
    """score_scale.pl sets ρ = 0 when all system ratings are equal (not NaN, category kept)."""
    cat = read_semeval2012(DATA / "semeval2012_1b")["1b"]
    words = sorted({w for p in (*cat.pairs, *cat.prototypes) for w in p})
    e = embgeo.Embeddings(words, np.ones((len(words), 3), dtype=np.float32))   # every offset is 0: rating 0
    res = semeval2012(e, {"1b": cat})
    assert res.n_categories == 1 and res.spearman == 0.0
    assert res.categories["1b"]["n_questions"] == 6


@pytest.mark.parametrize("oov", ["skip", "zero"])
def test_semeval2012_matches_brute_force(emb, oov):
    data = read_semeval2012(DATA / "semeval2012")
    res = semeval2012(emb, data, oov=oov)
    for name, cat in data.items():
        rho, md, n_rated = _brute_force(emb, cat, skip_oov=oov == "skip")
        assert res.categories[name]["spearman"] == pytest.approx(rho, abs=1e-12)
        assert res.categories[name]["maxdiff"] == pytest.approx(md, abs=1e-12)
    assert res.spearman == pytest.approx(np.mean([v["spearman"] for v in res.categories.values()]))
    assert res.n_total == 10 and res.n_found == 9 and res.n_categories == 2
    assert res.categories["10c"]["n_answers"] == (2 if oov == "skip" else 3)


def test_semeval2012_from_path_and_oov_raise(emb):
    res = semeval2012(emb, DATA / "semeval2012", categories=["1a"])
    assert res.dataset == "semeval2012" and list(res.categories) == ["1a"]
    with pytest.raises(UnknownWordError, match="unknownword"):
        semeval2012(emb, DATA / "semeval2012", oov="raise")
    with pytest.raises(ValueError, match="oov must be"):
        semeval2012(emb, DATA / "semeval2012", oov="miss")


def test_semeval2012_bad_files(tmp_path):
    (tmp_path / "Phase1Questions-1a.txt").write_text("flower:tulip\n")
    (tmp_path / "Phase2Answers-1a.txt").write_text("# header\na:b\tc:d\te:f\n")
    with pytest.raises(ValueError, match=r"Phase2Answers-1a.txt, line 2: expected 4 pairs"):
        read_semeval2012(tmp_path)
    (tmp_path / "Phase2Answers-1a.txt").write_text("# header\na:b\tc:d\te:f\tg:h\tx:y\ta:b\t1a\n")
    with pytest.raises(ValueError, match="line 2: the least/most illustrative pair is not one of the four"):
        read_semeval2012(tmp_path)
    with pytest.raises(FileNotFoundError, match="not a directory"):
        read_semeval2012(tmp_path / "nope")


def test_read_msr_published_pair_of_files_and_four_column_file(tmp_path):
    q = read_msr_analogies(DATA / "msr")
    assert len(q) == 5 and q.section_names == ["gram-JJ_JJR", "gram-JJ_JJS", "gram-NN_NNS", "gram-VB_VBD",
                                               "gram-VB_VBN"]
    assert list(q.sections["gram-JJ_JJR"][0]) == ["good", "better", "rough", "rougher"]
    same = read_msr_analogies(DATA / "msr" / "word_relationship.questions")
    np.testing.assert_array_equal(same.questions, q.questions)
    four = tmp_path / "msr.txt"
    four.write_text("Good Better Rough Rougher\nyear years city cities\n")
    f = read_msr_analogies(four, lowercase=True)
    assert f.section_names == ["gram-msr"] and list(f.questions[0]) == ["good", "better", "rough", "rougher"]
    five = tmp_path / "EN-MSR.txt"  # word-embeddings-benchmarks' file, the registry's "msr-analogy"
    five.write_text("good better rough JJ_JJR rougher\nyear years city NN_NNS cities\n"
                    "good best rough JJ_JJS roughest\n")
    v = read_msr_analogies(five)
    assert v.section_names == ["gram-JJ_JJR", "gram-NN_NNS", "gram-JJ_JJS"]
    assert [list(r) for r in v.questions] == [["good", "better", "rough", "rougher"],
                                              ["year", "years", "city", "cities"],
                                              ["good", "best", "rough", "roughest"]]
    bad = tmp_path / "bad.txt"
    bad.write_text("a b c d\na b c\n")
    with pytest.raises(ValueError, match=r"bad.txt, line 2: expected 4 words"):
        read_msr_analogies(bad)
    (tmp_path / "x.questions").write_text("a b c\na b c\n")
    (tmp_path / "x.answers").write_text("JJ_JJR d\n")
    with pytest.raises(ValueError, match="2 questions but .* has 1 answers"):
        read_msr_analogies(tmp_path / "x.questions")


def test_msr_runs_through_the_analogy_evaluator():
    words = "good better rough rougher best roughest year years city cities".split()
    # b − a + c lands exactly on d for the JJ_JJR question
    V = np.eye(len(words), dtype=np.float32)
    V[words.index("rougher")] = V[words.index("better")] - V[words.index("good")] + V[words.index("rough")]
    e = embgeo.Embeddings(words, V)
    res = analogy(e, read_msr_analogies(DATA / "msr"), restrict_vocab=None, progress=False)
    assert res.n_total == 5 and res.n_evaluated == 3 and res.sections["gram-JJ_JJR"]["n_correct"] == 1


def test_platinum_file_found_under_another_name(tmp_path):
    import shutil

    root = tmp_path / "Testing"
    shutil.copytree(DATA / "semeval2012", root)
    (root / "Platinum" / "Platinum-1a.txt").rename(root / "Platinum" / "Phase2AnswersScaled-1a.txt")
    np.testing.assert_array_equal(read_semeval2012(root, ["1a"])["1a"].gold, [50, 20, 30, -75, -50])
