"""Retrieval by inverted nearest neighbour ("invnn", Dinu et al. 2015) and raw dot product ("dot").

Checked against a brute force written from the definition (every target's full ranking of the
sources) and against VecMap's own ``eval_translation.py`` (golden accuracies made by
``benchmarks/reference/vecmap_eval_golden.py``; with ``EMBGEO_VECMAP=/path/to/vecmap`` the script
itself is run here too).
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from embgeo import Embeddings, neighbors
from embgeo.crosslingual import Induction, Mapper, invnn_ranks, retrieval_factors, retrieve
from embgeo.crosslingual import _invnn
from embgeo.evaluate import bli

GOLDEN = Path(__file__).parent / "data" / "vecmap_eval_golden.npz"


def _unit(A):
    A = np.asarray(A, dtype=np.float64)
    return A / np.linalg.norm(A, axis=1, keepdims=True)


def _invnn_order(Q, T, S):
    """Targets of every query in the order of Dinu et al.: rank of the query among S seen from the
    target (strictly larger cosines counted), then the larger cosine, then the lower row."""
    C, Cq = _unit(T) @ _unit(S).T, _unit(T) @ _unit(Q).T
    rank = np.stack([(C > Cq[:, [j]] + 1e-9).sum(axis=1) for j in range(Q.shape[0])], axis=1)
    n = T.shape[0]
    return np.stack([np.lexsort((np.arange(n), -Cq[:, j], rank[:, j])) for j in range(Q.shape[0])]), rank


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of a few target rows, so that the merge across blocks and the growth of K are exercised."""
    monkeypatch.setattr(_invnn, "block_rows", lambda *a, **k: 7)
    monkeypatch.setattr(_invnn, "_FIRST_K", 2)
    monkeypatch.setattr(_invnn, "_GROWTH", 2)


@pytest.mark.parametrize("blocked,sorted_scores", [(False, False), (True, False), (True, True)])
def test_invnn_retrieve_and_ranks_equal_the_definition(rng, request, monkeypatch, blocked, sorted_scores):
    if blocked:
        request.getfixturevalue("small_blocks")
    if sorted_scores:  # every K takes the path of large K: the block's scores sorted whole
        monkeypatch.setattr(_invnn, "_SORT_ABOVE", 0)
    S = rng.standard_normal((160, 6)).astype(np.float32)
    T = rng.standard_normal((120, 6)).astype(np.float32)
    Q = np.concatenate([S[:25], rng.standard_normal((5, 6)).astype(np.float32)])  # 5 queries outside S
    order, _ = _invnn_order(Q, T, S)
    scores, idx = retrieve(Q, T, 6, "invnn", source=S)
    np.testing.assert_array_equal(idx, order[:, :6])
    assert np.all(np.diff(scores, axis=1) <= 0)
    gold = [np.array([(3 * j) % 120, (11 * j + 5) % 120]) for j in range(len(Q))]
    want = [1 + min(int(np.flatnonzero(order[j] == g)[0]) for g in gold[j]) for j in range(len(Q))]
    np.testing.assert_array_equal(invnn_ranks(Q, T, gold, source=S), want)


def test_invnn_scores_are_minus_the_inverted_rank(rng):
    S = rng.standard_normal((50, 4)).astype(np.float32)
    T = rng.standard_normal((40, 4)).astype(np.float32)
    _, rank = _invnn_order(S[:10], T, S)
    scores, idx = retrieve(S[:10], T, 3, "invnn", source=S)
    np.testing.assert_array_equal(-scores, np.take_along_axis(rank.T, idx, axis=1))


def test_bli_invnn_and_dot_equal_the_definition(rng):
    src = Embeddings([f"s{i}" for i in range(150)], rng.standard_normal((150, 5)).astype(np.float32))
    tgt = Embeddings([f"t{i}" for i in range(130)],
                     (src.vectors[:130] * rng.uniform(0.3, 3, (130, 1)) + rng.standard_normal((130, 5))).astype(np.float32))
    test = [(f"s{i}", f"t{i}") for i in range(60)] + [(f"s{i}", f"t{i + 1}") for i in range(0, 20, 3)]
    order, _ = _invnn_order(src.vectors[:60], tgt.vectors, src.vectors)
    gold = [[i] + ([i + 1] if i < 20 and i % 3 == 0 else []) for i in range(60)]
    ranks = np.array([1 + min(int(np.flatnonzero(order[i] == g)[0]) for g in gold[i]) for i in range(60)])
    res = bli(src, tgt, test, retrieval="invnn", ks=(1, 5))
    assert res.p_at(1) == pytest.approx(np.mean(ranks <= 1)) and res.p_at(5) == pytest.approx(np.mean(ranks <= 5))
    assert res.mrr == pytest.approx(np.mean(1 / ranks))
    # dot: nearest neighbour by the raw inner product (no length normalisation)
    D = src.vectors[:60].astype(np.float64) @ tgt.vectors.T.astype(np.float64)
    top = D.argmax(axis=1)
    res = bli(src, tgt, test, retrieval="dot")
    assert res.p_at(1) == pytest.approx(np.mean([top[i] in gold[i] for i in range(60)]))
    s, i = retrieve(src.vectors[:60], tgt.vectors, 3, "dot")
    np.testing.assert_array_equal(i[:, 0], top)
    np.testing.assert_allclose(s[:, 0], D.max(axis=1), rtol=1e-5)
    assert res.p_at(1) != bli(src, tgt, test, retrieval="nn").p_at(1)   # the norms matter here


def _golden_inputs():
    g = np.load(GOLDEN)
    n = g["src"].shape[0]
    src = Embeddings([f"s{i}" for i in range(n)], g["src"])
    tgt = Embeddings([f"t{i}" for i in range(g["trg"].shape[0])], g["trg"])
    return g, src, tgt, [tuple(p) for p in g["test"].tolist()]


@pytest.mark.parametrize("case", ["nn", "invnn", "csls", "dot"])
def test_bli_equals_vecmaps_eval_translation(case):
    g, src, tgt, test = _golden_inputs()
    cases = g["cases"].tolist()
    cov, acc = g["coverage"][cases.index(case)], g["accuracy"][cases.index(case)]
    res = bli(src, tgt, test, retrieval=case)
    # VecMap prints percentages with two decimals
    assert res.coverage == pytest.approx(cov, abs=5e-5)
    assert res.p_at(1) == pytest.approx(acc, abs=5e-5)


def test_golden_cases_differ():
    """The golden pair is built so that each criterion gives its own accuracy (the test can fail)."""
    g = np.load(GOLDEN)
    assert len(set(np.round(g["accuracy"], 4).tolist())) == len(g["cases"])


@pytest.mark.skipif(not os.environ.get("EMBGEO_VECMAP"), reason="set EMBGEO_VECMAP to a clone of artetxem/vecmap")
def test_vecmaps_script_itself_on_the_golden_files(tmp_path):
    sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks" / "reference"))
    try:
        import vecmap_eval_golden as ref
    finally:
        sys.path.pop(0)
    src, trg, X, Z, test = ref.make_pair()
    out = ref.run(os.environ["EMBGEO_VECMAP"], src, trg, X, Z, test)
    g = np.load(GOLDEN)
    for case, acc in zip(g["cases"].tolist(), g["accuracy"]):
        assert out[case][1] == pytest.approx(acc)


def test_the_criteria_table_says_where_invnn_and_dot_apply(rng):
    assert {"invnn", "dot"} <= set(neighbors.VALID_RETRIEVALS["exact"])
    assert neighbors.RETRIEVAL_METRICS["dot"] == "dot" and neighbors.RETRIEVAL_METRICS["invnn"] is None
    X = rng.standard_normal((30, 4))
    with pytest.raises(ValueError, match="invnn.*needs source="):
        retrieve(X[:2], X, 2, "invnn")
    with pytest.raises(ValueError, match="no.*factors|not by a score"):
        retrieval_factors(X[:2], X, "invnn", source=X)
    from embgeo.crosslingual import induce_dictionary

    with pytest.raises(ValueError, match="'invnn' is a criterion of the 'exact' engine"):
        induce_dictionary(X, X, retrieval="invnn")
    from embgeo import Embeddings as E

    e = E([f"w{i}" for i in range(30)], X.astype(np.float32))
    with pytest.raises(ValueError, match="'invnn' is a retrieval= criterion with no metric"):
        neighbors.search(e, ["w1"], 3, metric="invnn")
    with pytest.raises(ValueError, match="'nn' is a retrieval= criterion; metric='cosine' ranks alike"):
        neighbors.search(e, ["w1"], 3, metric="nn")
    with pytest.raises(ValueError, match="retrieval"):
        Mapper(induction=Induction(retrieval="dot"), self_learning=True).fit(X, X, np.stack([np.arange(10)] * 2, axis=1))
