"""Cross-lingual word similarity (``word_similarity(src, pairs, target=tgt)``) against VecMap's
``eval_similarity.py``, and the SemEval-2017 Task 2 and MUSE word-similarity data."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import embgeo
from embgeo.data import WordPairs, load_dataset, read_semeval2017, read_word_pairs
from embgeo.errors import FormatError
from embgeo.evaluate import word_similarity

XLING = Path(__file__).parent / "data" / "xling_similarity"


@pytest.fixture(scope="module")
def spaces():
    return embgeo.load(XLING / "src.vec"), embgeo.load(XLING / "trg.vec")


CASES = {"plain": dict(lowercase=False), "lowercase": dict(lowercase=True),
         "backoff0": dict(lowercase=False, backoff=0.0), "backoff05": dict(lowercase=False, backoff=0.5)}


@pytest.mark.parametrize("case", CASES)
def test_cross_lingual_scores_equal_vecmaps_eval_similarity(spaces, case):
    """benchmarks/reference/vecmap_similarity_golden.py ran VecMap's script on these files; it prints
    percentages with two decimals. VecMap's coverage counts backed-off pairs as covered."""
    golden = json.loads((XLING / "golden.json").read_text())["cases"][case]
    src, trg = spaces
    r = word_similarity(src, XLING / "pairs.tsv", target=trg, **CASES[case])
    assert abs(100 * r.pearson - golden["pearson"]) <= 0.0051
    assert abs(100 * r.spearman - golden["spearman"]) <= 0.0051
    vecmap_coverage = 1.0 if r.backoff is not None else r.coverage
    assert abs(100 * vecmap_coverage - golden["coverage"]) <= 0.0051
    if r.backoff is not None:
        assert r.n_pairs == r.n_total and r.oov == "zero" and r.backoff == CASES[case]["backoff"]


def test_monolingual_scores_equal_vecmaps_too(spaces):
    golden = json.loads((XLING / "golden.json").read_text())["cases"]["monolingual"]
    r = word_similarity(spaces[0], XLING / "mono.tsv", lowercase=False)
    assert abs(100 * r.spearman - golden["spearman"]) <= 0.0051
    assert abs(100 * r.coverage - golden["coverage"]) <= 0.0051


def test_cross_lingual_scores_equal_a_direct_computation(spaces):
    """Cosines of the source row and the target row, by hand; the unknown pairs left out or backed off."""
    src, trg = spaces
    pairs = read_word_pairs(XLING / "pairs.tsv")
    S = {w: np.asarray(src[w], np.float64) for w in src.words}
    T = {w: np.asarray(trg[w], np.float64) for w in trg.words}
    gold, sims, backed = [], [], []
    for w1, w2, g in pairs:
        if w1 in S and w2 in T:
            c = S[w1] @ T[w2] / np.linalg.norm(S[w1]) / np.linalg.norm(T[w2])
            gold.append(g)
            sims.append(c)
            backed.append(c)
        else:
            backed.append(-0.25)
    r = word_similarity(src, pairs, target=trg, lowercase=False)
    assert r.spearman == pytest.approx(stats.spearmanr(gold, sims)[0], abs=1e-12)
    assert r.pearson == pytest.approx(stats.pearsonr(gold, sims)[0], abs=1e-12)
    b = word_similarity(src, pairs, target=trg, lowercase=False, backoff=-0.25)
    assert b.spearman == pytest.approx(stats.spearmanr(pairs.scores, backed)[0], abs=1e-12)
    assert b.n_found == r.n_found == len(gold) and b.coverage == r.coverage


def test_cross_lingual_bad_input_is_named(spaces):
    src, trg = spaces
    with pytest.raises(ValueError, match="scores pairs by cosine"):
        word_similarity(src, XLING / "pairs.tsv", "dot", target=trg)
    with pytest.raises(ValueError, match="backoff= scores unknown pairs"):
        word_similarity(src, XLING / "pairs.tsv", target=trg, oov="raise", backoff=0.0)
    narrow = trg.with_vectors(np.asarray(trg.vectors)[:, :5])
    with pytest.raises(ValueError, match="8 dimensions and the target's 5"):
        word_similarity(src, XLING / "pairs.tsv", target=narrow)


def _semeval_zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        base = "SemEval17-Task2/test/"
        zf.writestr(base + "subtask1-monolingual/data/en.test.data.txt", "car\tbicycle\nclimate change\tweather\nsun\tmoon\n")
        zf.writestr(base + "subtask1-monolingual/keys/en.test.gold.txt", "2.83\n3.1\n2.5\n")
        zf.writestr(base + "subtask2-crosslingual/data/en-de.test.data.txt", "fencing\tGymnastik\nvolcano\tMagma\n")
        zf.writestr(base + "subtask2-crosslingual/keys/en-de.test.gold.txt", "2.17\n2.21\n")
        zf.writestr(base + "subtask2-crosslingual/data/en-es.test.data.txt", "a\tb\nc\td\n")
        zf.writestr(base + "subtask2-crosslingual/keys/en-es.test.gold.txt", "1.0\n")
    return path


def test_semeval2017_reads_the_archive_its_folder_and_a_data_file(tmp_path):
    z = _semeval_zip(tmp_path / "semeval2017-task2.zip")
    en = read_semeval2017(z, "en")
    assert isinstance(en, WordPairs) and en.words1 == ["car", "climate change", "sun"]
    np.testing.assert_array_equal(en.scores, [2.83, 3.1, 2.5])
    ende = read_semeval2017(z, "en-de", lowercase=True)
    assert ende.words2 == ["gymnastik", "magma"] and ende.name == "semeval2017-en-de"
    with zipfile.ZipFile(z) as zf:
        zf.extractall(tmp_path / "unpacked")
    assert read_semeval2017(tmp_path / "unpacked", "en-de").words2 == ["Gymnastik", "Magma"]
    data_file = tmp_path / "unpacked/SemEval17-Task2/test/subtask2-crosslingual/data/en-de.test.data.txt"
    assert read_semeval2017(data_file).words1 == ["fencing", "volcano"]
    with pytest.raises(FormatError, match="2 pairs but .*en-es.test.gold.txt has 1 scores"):
        read_semeval2017(z, "en-es")
    with pytest.raises(ValueError, match="no 'en-xx'"):
        read_semeval2017(z, "en-xx")
    with pytest.raises(ValueError, match="say which language"):
        read_semeval2017(z)


def test_semeval2017_and_muse_sets_are_registered_and_load_by_name(tmp_path, monkeypatch):
    reg = embgeo.data.registry()
    for lg in ("en", "de", "es", "fa", "it", "en-de", "it-fa"):
        r = reg[f"semeval2017-task2-{lg}"]
        assert r.format == "semeval2017" and r.filename == "semeval2017-task2.zip"
    for name in ("muse-es-ws-353", "muse-de-simlex-999", "muse-fr-rg-65", "muse-it-simlex-999", "muse-en-mc-30"):
        assert reg[name].format == "pairs" and reg[name].url.startswith("https://dl.fbaipublicfiles.com/arrival/")
    # a copy placed by hand in the cache, trusted on first use, then read by registry name
    monkeypatch.setenv("EMBGEO_DATA", str(tmp_path))
    target = embgeo.data.cache_path("semeval2017-task2-en-de")
    target.parent.mkdir(parents=True)
    _semeval_zip(target)
    embgeo.data.fetch("semeval2017-task2-en-de", verify=False)
    pairs = load_dataset("semeval2017-task2-en-de")
    assert pairs.words1 == ["fencing", "volcano"] and pairs.name == "semeval2017-task2-en-de"
