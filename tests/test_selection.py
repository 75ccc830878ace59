"""Seedless model selection: MUSE's mean-cosine criterion and ``Selection("best")`` (issue 31, item 2)."""
import json
from pathlib import Path

import numpy as np
import pytest

from embgeo.crosslingual import Mapper, Mapping, Preprocessing, Selection, mean_cosine, procrustes

GOLDEN = Path(__file__).parent / "data" / "muse_mean_cosine_golden.json"


def _golden_spaces():
    """Spaces on which benchmarks/reference/muse_mean_cosine_golden.py ran MUSE (it imports this)."""
    rng = np.random.default_rng(20261126)
    d = 16
    src = rng.standard_normal((12000, d)).astype(np.float32)
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    order = np.argsort(np.arange(12000) + rng.normal(0.0, 800.0, 12000), kind="stable")[:11000]
    tgt = (src[order] @ Q + 0.35 * rng.standard_normal((11000, d))).astype(np.float32)
    E = np.linalg.qr(Q + 0.05 * rng.standard_normal((d, d)))[0]
    R = np.linalg.qr(rng.standard_normal((d, d)))[0]
    return src, tgt, {"true": Q, "perturbed": E, "random": R}


@pytest.mark.parametrize("retrieval", ["csls", "nn"])
def test_mean_cosine_equals_muses_own_dist_mean_cosine(retrieval):
    golden = json.loads(GOLDEN.read_text())
    src, tgt, maps = _golden_spaces()
    fp = golden["fingerprint"]
    assert src.astype(np.float64).sum() == pytest.approx(fp["src_sum"], rel=1e-9)  # same spaces as MUSE's run
    assert tgt.astype(np.float64).sum() == pytest.approx(fp["tgt_sum"], rel=1e-9)
    got = {name: mean_cosine((src @ W).astype(np.float32), tgt, retrieval=retrieval, memory_budget=1 << 20)
           for name, W in maps.items()}
    for name in maps:
        assert got[name] == pytest.approx(golden[name][retrieval], abs=2e-6), name
    assert got["true"] > got["perturbed"] > got["random"]


def _dense_mean_cosine(A, B, k, max_rank, csls):
    """The criterion written from MUSE's get_candidates / dist_mean_cosine with dense matrices."""
    A = A / np.linalg.norm(A, axis=1, keepdims=True)
    B = B / np.linalg.norm(B, axis=1, keepdims=True)
    S = A[:max_rank] @ B.T
    if csls:
        r_b = np.sort(B @ A.T, axis=1)[:, -k:].mean(axis=1)   # every target against the whole source
        S = 2 * S - r_b[None, :]
    j = S.argmax(axis=1)
    i = np.arange(S.shape[0])
    keep = np.maximum(i, j) <= max_rank
    return float(np.mean(np.sum(A[i[keep]] * B[j[keep]], axis=1)))


@pytest.mark.parametrize("csls", [True, False])
def test_mean_cosine_against_the_dense_formula_with_the_rank_cut(rng, csls):
    A = rng.standard_normal((400, 8)).astype(np.float32)
    B = (A[rng.permutation(400)[:300]] + 0.5 * rng.standard_normal((300, 8))).astype(np.float32)
    got = mean_cosine(A, B, retrieval="csls" if csls else "nn", csls_knn=5, max_rank=120, memory_budget=1 << 14)
    assert got == pytest.approx(_dense_mean_cosine(A, B, 5, 120, csls), abs=1e-6)


def test_mean_cosine_refuses_spaces_of_different_dimensions(rng):
    with pytest.raises(ValueError, match="dimensions 4 and 5"):
        mean_cosine(rng.standard_normal((10, 4)), rng.standard_normal((10, 5)))


def _case(rng, n=1500, d=12, noise=0.45, good_seed=False):
    X = rng.standard_normal((n, d)).astype(np.float32)
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    Z = (X @ Q + noise * rng.standard_normal((n, d))).astype(np.float32)
    if good_seed:  # 300 true pairs of a noisy pair: refinement wanders, the best round is not the last
        return X, Z, np.stack([np.arange(300), np.arange(300)], axis=1)
    # a poor seed: half of its pairs are wrong, so rounds differ
    seed = np.stack([np.arange(60), np.r_[np.arange(30), rng.permutation(np.arange(100, 130))]], axis=1)
    return X, Z, seed


@pytest.mark.parametrize("recipe", ["muse", "semi_supervised"])
def test_history_records_the_mean_cosine_of_every_round(rng, recipe):
    X, Z, seed = _case(rng)
    kw = {} if recipe == "muse" else {"selection": Selection(record_mean_cosine=True)}
    m = Mapper.from_recipe(recipe, max_iter=3, progress=False, **kw).fit(X, Z, seed)
    assert len(m.history_) == 3 and m.best_iteration_ is None
    assert all(-1 <= r["mean_cosine"] <= 1 and "final" not in r for r in m.history_)
    if recipe == "muse":  # raw rows: round 1 scores Procrustes on the seed
        W = procrustes(X[seed[:, 0]], Z[seed[:, 1]])
        assert m.history_[0]["mean_cosine"] == pytest.approx(mean_cosine(X @ W, Z), abs=1e-6)


def test_vecmaps_loop_records_the_mean_cosine_only_when_asked(rng):
    X, Z, seed = _case(rng)
    m = Mapper.from_recipe("semi_supervised", max_iter=2, progress=False).fit(X, Z, seed)
    assert all("mean_cosine" not in r for r in m.history_)
    m = Mapper.from_recipe("semi_supervised", max_iter=2, progress=False, selection=Selection("best")).fit(
        X, Z, seed)
    assert all("mean_cosine" in r for r in m.history_) and len(m.history_) == 3
    with pytest.raises(ValueError, match="record_mean_cosine"):
        Mapper.from_recipe("muse", selection=Selection("best", record_mean_cosine=False), progress=False).fit(
            X, Z, seed)


@pytest.mark.parametrize("selection", ["mean_cosine", "objective", "validation"])
def test_keep_best_keeps_the_round_a_shorter_run_ends_with(rng, selection):
    """Record i scores the map learned from round i − 1's dictionary, so keeping round b is the
    last mapping of the same loop stopped after b − 1 rounds (MUSE's reload_best)."""
    X, Z, seed = _case(np.random.default_rng(0), noise=0.8, good_seed=True)
    val = np.stack([np.arange(300, 500), np.arange(300, 500)], axis=1)
    kw = dict(max_iter=4, progress=False, induction__vocabulary_cutoff=800)
    best = Mapper.from_recipe("muse", selection=Selection("best", criterion=selection), **kw).fit(
        X, Z, seed, validation=val)
    key = {"mean_cosine": "mean_cosine", "objective": "objective", "validation": "val_accuracy"}[selection]
    scores = [r[key] for r in best.history_]
    assert len(best.history_) == 5 and best.history_[-1]["final"] and best.n_iter_ == 4
    assert best.best_iteration_ == 1 + int(np.argmax(scores))      # the first best, as save_best's strict >
    # validation P@1 by cosine (MUSE's evaluation) rises to the final round here: 0.435 … 0.46
    assert best.best_iteration_ == {"validation": 5, "mean_cosine": 3, "objective": 5}[selection]
    short = Mapper.from_recipe("muse", **{**kw, "max_iter": best.best_iteration_ - 1}).fit(X, Z, seed)
    np.testing.assert_allclose(best.src_transform_, short.src_transform_, atol=1e-6)
    np.testing.assert_array_equal(best.dictionary_, short.dictionary_)


def test_keep_best_keeps_an_earlier_round_than_the_last():
    X, Z, seed = _case(np.random.default_rng(0), noise=0.8, good_seed=True)
    m = Mapper.from_recipe("muse", selection=Selection("best", criterion="mean_cosine"), max_iter=4, progress=False,
                           induction__vocabulary_cutoff=800).fit(X, Z, seed)
    last = Mapper.from_recipe("muse", max_iter=4, progress=False, induction__vocabulary_cutoff=800).fit(X, Z, seed)
    assert m.best_iteration_ < len(m.history_)
    assert not np.allclose(m.src_transform_, last.src_transform_)


def test_keep_last_is_the_default_and_unchanged(rng):
    X, Z, seed = _case(rng)
    a = Mapper.from_recipe("muse", max_iter=3, progress=False).fit(X, Z, seed)
    b = Mapper.from_recipe("muse", max_iter=3, progress=False, selection=Selection("last", criterion="objective")).fit(
        X, Z, seed)
    np.testing.assert_array_equal(a.src_transform_, b.src_transform_)
    assert Mapper().get_params()["selection__keep"] == "last"


def test_selection_by_validation_needs_a_validation_dictionary(rng):
    X, Z, seed = _case(rng)
    with pytest.raises(ValueError, match="validation="):
        Mapper.from_recipe("muse", selection=Selection("best", criterion="validation"), max_iter=1,
                           progress=False).fit(X, Z, seed)


def test_history_plot_draws_the_mean_cosine(rng):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    X, Z, seed = _case(rng)
    ax = Mapper.from_recipe("muse", max_iter=2, progress=False).fit(X, Z, seed).history_.plot()
    assert "mean cosine (MUSE)" in [line.get_label() for line in ax.get_lines()]


def _brute_validation(A, B, val_rows, cosine):
    """P@1 and mean best-gold similarity of aligned validation rows, written from MUSE / VecMap."""
    if cosine:
        A = A / np.linalg.norm(A, axis=1, keepdims=True)
        B = B / np.linalg.norm(B, axis=1, keepdims=True)
    S = A[val_rows].astype(np.float64) @ B.T.astype(np.float64)
    return float(np.mean(S.argmax(axis=1) == val_rows)), float(np.mean(S[np.arange(len(val_rows)), val_rows]))


@pytest.mark.parametrize("refinement", ["muse", "vecmap"])
def test_validation_scores_by_cosine_for_muse_and_by_dot_for_vecmap(rng, refinement):
    """MUSE's evaluation unit-normalises both sides; VecMap's --validation takes raw dot products. With
    unequal target norms (raw vectors, as MUSE's recipe keeps them) the two rank differently."""
    n, d = 600, 10
    X = rng.standard_normal((n, d)).astype(np.float32)
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    Z = (X @ Q + 0.6 * rng.standard_normal((n, d))).astype(np.float32)
    Z *= rng.uniform(0.2, 3.0, (n, 1)).astype(np.float32)        # norms unrelated to the translations
    seed, val = np.stack([np.arange(300)] * 2, axis=1), np.arange(300, 400)
    m = Mapper(Preprocessing(()), mapping=Mapping("orthogonal"), self_learning=True, refinement=refinement, max_iter=1,
               progress=False).fit(X, Z, seed, validation=np.stack([val, val], axis=1))
    W = procrustes(X[seed[:, 0]], Z[seed[:, 1]])                # the first record scores the seed's map
    acc, sim = _brute_validation(X @ W, Z, val, cosine=refinement == "muse")
    other, _ = _brute_validation(X @ W, Z, val, cosine=refinement != "muse")
    assert acc != other                                              # the case tells the two apart
    rec = m.history_[0]
    assert rec["val_accuracy"] == pytest.approx(acc) and rec["val_similarity"] == pytest.approx(sim, abs=1e-5)
