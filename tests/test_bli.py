"""Tests of embgeo.evaluate.lexicon: dictionary readers, splits, P@k / MRR, OOV policy; the CLI (bli_cli)."""
from __future__ import annotations

import numpy as np
import pytest

import embgeo
from embgeo import cli
from embgeo.evaluate.lexicon import (BLIResult, bli, gold_ranks, group_dictionary,
                                     read_dictionary, split_dictionary)


def _angles(deg):
    r = np.deg2rad(np.asarray(deg, dtype=np.float64))
    return np.stack([np.cos(r), np.sin(r)], axis=1).astype(np.float32)


@pytest.fixture
def toy():
    """Targets at 0°, 10°, …, 110° (t0 … t11); queries at known angles.

    Cosine ranks by angular distance, so every rank below is computed by hand.
    """
    tgt = embgeo.Embeddings([f"t{i}" for i in range(12)], _angles(np.arange(12) * 10))
    src = embgeo.Embeddings(["a", "b", "c", "d"], _angles([0.0, 41.0, 104.0, 57.0]))
    return src, tgt


def test_precision_and_mrr_match_hand_computed_ranks(toy):
    src, tgt = toy
    # a at 0°: t0 rank 1.  b at 41°: order t4, t5/t3 (t3 at 11°, t5 at 9° -> t5), t3 ... gold t3 -> rank 3.
    # c at 104°: t10 (4°), t11 (6°), t9 (14°), t8, t7, t6 ... gold t6 -> rank 6.
    # d at 57°: t6 (3°), t5 (7°), t7, t4, t8, t3, t9, t2, t10, t1, t11, t0: gold t0 -> rank 12
    test = [("a", "t0"), ("b", "t3"), ("c", "t6"), ("d", "t0")]
    res = bli(src, tgt, test, retrieval="nn")
    ranks = np.array([1, 3, 6, 12])
    assert res.p_at(1) == pytest.approx(1 / 4)
    assert res.p_at(5) == pytest.approx(2 / 4)
    assert res.p_at(10) == pytest.approx(3 / 4)
    assert res.mrr == pytest.approx(np.mean(1 / ranks))
    assert res.coverage == 1.0 and res.n == 4


def test_multiple_gold_translations_count_the_best_ranked(toy):
    src, tgt = toy
    # b has golds t0 (rank 5 at 41°: t4,t5,t3,t6,t2 ... t0 is 9th) and t5 (rank 2): best is 2
    res = bli(src, tgt, [("b", "t0"), ("b", "t5")], retrieval="nn")
    assert res.n == 1 and res.n_pairs == 2
    assert res.p_at(1) == 0 and res.p_at(5) == 1
    assert res.mrr == pytest.approx(1 / 2)


def test_gold_ranks_agree_with_topk_under_ties():
    # targets 1 and 3 are identical: the lower row wins, as in embgeo.neighbors.topk
    T = np.array([[1, 0], [0, 1], [0.5, 0.5], [0, 1]], dtype=np.float32)
    Q = np.array([[0, 1]], dtype=np.float32)
    assert gold_ranks(Q, T, [np.array([1])]).tolist() == [1]
    assert gold_ranks(Q, T, [np.array([3])]).tolist() == [2]
    assert gold_ranks(Q, T, [np.array([3, 2])]).tolist() == [2]


def test_gold_ranks_brute_force_on_random_scores(rng):
    Q = rng.standard_normal((30, 5)).astype(np.float32)
    T = rng.standard_normal((200, 5)).astype(np.float32)
    gold = [rng.choice(200, size=rng.integers(1, 4), replace=False) for _ in range(30)]
    S = Q @ T.T
    expect = [min(int(np.sum(S[i] > S[i, g]) + 1) for g in gs) for i, gs in enumerate(gold)]
    assert gold_ranks(Q, T, gold, memory_budget=1000).tolist() == expect


def test_gold_ranks_array_api_strict_matches_numpy(rng):
    xps = pytest.importorskip("array_api_strict")
    Q = rng.standard_normal((10, 4)).astype(np.float32)
    T = rng.standard_normal((50, 4)).astype(np.float32)
    gold = [np.array([i, i + 1]) for i in range(10)]
    assert gold_ranks(xps.asarray(Q), xps.asarray(T), gold).tolist() == gold_ranks(Q, T, gold).tolist()


def _brute_force_ranks(Q, T, S, gold, method, k=10, beta=30.0):
    """Ranks of the best gold target from the papers' formulas, dense, float64.

    CSLS (Conneau et al. 2018, eq. 3): 2cos(x, y) − r_T(x) − r_S(y), r_S(y) the mean cosine of y
    to its k nearest source words S. Inverted softmax (Smith et al. 2017, eq. 4):
    exp(β cos(x, y)) / Σ_{x' ∈ S} exp(β cos(x', y)).
    """
    un = lambda M: M / np.linalg.norm(M, axis=1, keepdims=True)  # noqa: E731
    Q, T, S = un(Q.astype(np.float64)), un(T.astype(np.float64)), un(S.astype(np.float64))
    C = Q @ T.T
    if method == "csls":
        rS = np.sort(T @ S.T, axis=1)[:, -k:].mean(axis=1)
        rT = np.sort(C, axis=1)[:, -k:].mean(axis=1)
        C = 2 * C - rT[:, None] - rS[None, :]
    elif method == "isf":
        C = np.exp(beta * C) / np.exp(beta * (S @ T.T)).sum(axis=0)[None, :]
    ranks = []
    for i, g in enumerate(gold):
        best = C[i, g].max()
        ranks.append(1 + int(np.sum(C[i] > best)))
    return np.array(ranks, dtype=np.float64)


@pytest.mark.parametrize("method", ["nn", "csls", "isf"])
def test_bli_scores_equal_brute_force_retrieval(method):
    rng = np.random.default_rng(11)
    S = rng.standard_normal((60, 5)).astype(np.float32)
    T = rng.standard_normal((80, 5)).astype(np.float32)
    src = embgeo.Embeddings([f"s{i}" for i in range(60)], S)
    tgt = embgeo.Embeddings([f"t{i}" for i in range(80)], T)
    test = [(f"s{i}", f"t{(7 * i) % 80}") for i in range(30)] + [(f"s{i}", f"t{(3 * i) % 80}") for i in range(10)]
    gold = [np.array(sorted({(7 * i) % 80} | ({(3 * i) % 80} if i < 10 else set()))) for i in range(30)]
    ranks = _brute_force_ranks(S[:30], T, S, gold, method, k=4, beta=5.0)
    res = bli(src, tgt, test, retrieval=method, csls_knn=4, isf_beta=5.0)
    assert isinstance(res, BLIResult) and res.retrieval == method
    for k in (1, 5, 10):
        assert res.p_at(k) == pytest.approx(np.mean(ranks <= k))
    assert res.mrr == pytest.approx(np.mean(1 / ranks))
    assert res.to_dict()["P@10"] == res.p_at(10) and res.n == 30 and res.n_pairs == 40


def test_oov_policy_skip_zero_raise(toy):
    from embgeo.errors import UnknownWordError

    src, tgt = toy
    test = [("a", "t0"), ("zz", "t1"), ("b", "nope")]
    skip = bli(src, tgt, test, oov="skip")
    assert skip.coverage == pytest.approx(1 / 3) and skip.p_at(1) == 1.0
    zero = bli(src, tgt, test, oov="zero")
    assert zero.p_at(1) == pytest.approx(1 / 3) and zero.mrr == pytest.approx(1 / 3)
    with pytest.raises(UnknownWordError, match="'zz'.*2 words missing"):
        bli(src, tgt, test, oov="raise")
    with pytest.raises(ValueError, match="oov must be"):
        bli(src, tgt, test, oov="ignore")


def test_all_oov_and_empty_dictionaries_raise_clearly(toy):
    src, tgt = toy
    with pytest.raises(ValueError, match="none of the 2 test source words"):
        bli(src, tgt, [("x", "t0"), ("a", "T0")])
    with pytest.raises(ValueError, match="empty"):
        bli(src, tgt, [])
    other = embgeo.Embeddings(["t0"], np.ones((1, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="not in one space"):
        bli(src, other, [("a", "t0")])


# ------------------------------------------------------------------------------- readers
def test_read_dictionary_formats(tmp_path):
    p = tmp_path / "muse.txt"
    p.write_text("the le\nthe la\ncat chat\n\ncat chat\n", encoding="utf-8")
    assert read_dictionary(p) == [("the", "le"), ("the", "la"), ("cat", "chat")]
    t = tmp_path / "d.tsv"
    t.write_text("New\tUusi\nice cream\tjäätelö\n", encoding="utf-8")
    assert read_dictionary(t, format="tsv", lowercase=True) == [("new", "uusi"), ("ice cream", "jäätelö")]
    v = tmp_path / "vecmap.txt"
    v.write_text("dog\thund\nhouse   haus\n", encoding="utf-8")
    assert read_dictionary(v, format="vecmap") == [("dog", "hund"), ("house", "haus")]
    assert group_dictionary(read_dictionary(p)) == {"the": ["le", "la"], "cat": ["chat"]}


def test_read_dictionary_malformed_lines_name_the_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("a b\nc d\nlonely\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.txt, line 3: malformed dictionary line 'lonely'"):
        read_dictionary(p)
    q = tmp_path / "bad.tsv"
    q.write_text("a\tb\tc\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.tsv, line 1: .*expected 2 fields.*found 3"):
        read_dictionary(q)
    e = tmp_path / "empty.txt"
    e.write_text("\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match="empty"):
        read_dictionary(e)
    with pytest.raises(ValueError, match="format"):
        read_dictionary(p, format="csv")


def test_split_is_by_source_word_deterministic_and_nested():
    pairs = [(f"w{i}", f"x{i}") for i in range(2000)] + [("w1", "extra")]
    tr, te = split_dictionary(pairs, 0.2)
    assert {s for s, _ in tr}.isdisjoint({s for s, _ in te})
    assert 0.15 < len({s for s, _ in te}) / 2000 < 0.25
    assert split_dictionary(pairs, 0.2) == (tr, te)
    # a word held out of the full dictionary is held out of any subset
    tr_small, te_small = split_dictionary(pairs[:500], 0.2)
    assert set(te_small) <= set(te)
    with pytest.raises(ValueError, match="test_size"):
        split_dictionary(pairs, 1.5)
    # the readers live in embgeo.data; lexicon re-exports the same functions
    from embgeo import data
    assert data.split_dictionary is split_dictionary and data.read_dictionary is read_dictionary


# ------------------------------------------------------------------------------------- CLI
def _write_vec(path, words, M):
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{len(words)} {M.shape[1]}\n")
        for w, v in zip(words, M):
            f.write(w + " " + " ".join(f"{x:.6f}" for x in v) + "\n")


def test_cli_maps_and_prints_a_table(tmp_path, rng, capsys):
    n, d = 300, 8
    X = rng.standard_normal((n, d)).astype(np.float32)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    Z = X @ Q + 0.05 * rng.standard_normal((n, d))
    _write_vec(tmp_path / "s.vec", [f"s{i}" for i in range(n)], X)
    _write_vec(tmp_path / "t.vec", [f"t{i}" for i in range(n)], Z)
    (tmp_path / "train.tsv").write_text("".join(f"S{i}\tT{i}\n" for i in range(200)), encoding="utf-8")
    assert cli.main(["bli", "--src", str(tmp_path / "s.vec"), "--tgt", str(tmp_path / "t.vec"),
                     "--train", str(tmp_path / "train.tsv"), "--lowercase", "--retrieval", "nn", "csls"]) == 0
    out = capsys.readouterr().out
    assert "P@1" in out and "csls" in out and "MRR" in out
    assert "100.0" in out  # near-perfect rotation: held-out P@1 is 100%


def test_a_missing_dictionary_file_says_what_was_expected(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no such dictionary file: '.*en-fi\.tsv'.*word pairs.*fetch"):
        read_dictionary(tmp_path / "en-fi.tsv")
