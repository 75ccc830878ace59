"""MSR analogies and SemEval-2012 Task 2 (relational similarity): readers and evaluator."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

import embgeo
from embgeo.datasets import read_msr_analogies, read_semeval2012
from embgeo.errors import UnknownWordError
from embgeo.evaluate.analogy import analogy
from embgeo.evaluate.relational import semeval2012

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
    assert gold[("map", "city")] == pytest.approx(100 * 2 / 3)
    assert gold[("recipe", "cake")] == pytest.approx(100 / 3)
    assert gold[("cake", "recipe")] == pytest.approx(-50)
    assert gold[("car", "wheel")] == pytest.approx(-100 / 3)
    assert gold[("unknownword", "city")] == pytest.approx(-100)


def _brute_force(emb, cat, skip_oov=True):
    """Offsets rated by a loop: r = mean(ŵ2 − ŵ1) over the prototypes; MaxDiff by loops over answers."""
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
    hits = n = 0
    for q, lo, hi in zip(cat.questions, cat.least, cat.most):
        shown = [cat.pairs[i] for i in q]
        if not all(p in rating for p in shown):
            continue
        scores = [rating[p] for p in shown]
        hits += (shown[int(np.argmax(scores))] == cat.pairs[hi]) + (shown[int(np.argmin(scores))] == cat.pairs[lo])
        n += 2
    return rho, hits / n, len(rated)


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
