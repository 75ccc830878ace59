"""Search criteria as data (embgeo.neighbors.VALID_METRICS / VALID_RETRIEVALS), "isf" in neighbors.search,
and "nn" as the one spelling of plain nearest neighbours (csls_knn=0 refused)."""
import numpy as np
import pytest

import embgeo
from embgeo import Embeddings, neighbors
from embgeo.crosslingual import Induction, Mapper, induce_dictionary, retrieve, unsupervised_dictionary
from embgeo.evaluate.lexicon import bli


def _space(rng, n, d, prefix):
    return Embeddings([f"{prefix}{i}" for i in range(n)], rng.standard_normal((n, d)).astype(np.float32))


def _isf_brute(Q, T, S, beta):
    """log P(y|x) = β cos(x, y) − log Σ_{x'∈S} exp(β cos(x', y)) (Smith et al. 2017, eq. 4), float64."""
    def unit(A):
        A = np.asarray(A, dtype=np.float64)
        return A / np.linalg.norm(A, axis=1, keepdims=True)
    C = beta * unit(Q) @ unit(T).T
    Z = beta * unit(S) @ unit(T).T
    m = Z.max(axis=0)
    return C - (m + np.log(np.exp(Z - m).sum(axis=0)))


# --------------------------------------------------------------------------------------- the table
def test_every_engine_accepts_exactly_its_listed_metrics(rng):
    pytest.importorskip("faiss")
    e = _space(rng, 60, 8, "w")
    assert set(neighbors.VALID_METRICS) == {"exact", "dask", "faiss", "cuda"}
    for metric in ("cosine", "dot", "csls", "isf", "euclidean"):
        for backend in ("exact", "faiss", "cuda"):  # "cuda": the GPU engine, simulated where there is no GPU
            if metric in neighbors.VALID_METRICS[backend]:
                s, i = neighbors.search(e, ["w1", "w2"], 3, metric=metric, backend=backend)
                assert i.shape == (2, 3) and not np.isin(i[0], [1]).any()
            else:
                with pytest.raises(ValueError, match=f"metric must be .* got '{metric}'"):
                    neighbors.search(e, ["w1"], 3, metric=metric, backend=backend)
    # the error of a metric another engine has names that engine
    with pytest.raises(ValueError, match="'isf' needs backend 'exact'"):
        neighbors.search(e, ["w1"], 3, metric="isf", backend="dask")


def test_retrieval_tables_drive_retrieve_bli_induction_and_the_cli(rng):
    import argparse

    from embgeo.evaluate.bli_cli import add_arguments

    X, Z = rng.standard_normal((40, 5)), rng.standard_normal((50, 5))
    assert neighbors.VALID_RETRIEVALS["exact"] == tuple(neighbors.RETRIEVAL_METRICS)
    for r in ("nn", "csls", "isf", "dot", "invnn", "mp", "ls", "cosine"):
        if r in neighbors.VALID_RETRIEVALS["exact"]:
            retrieve(X[:3], Z, 2, r, source=X)
        else:
            with pytest.raises(ValueError, match="retrieval must be 'nn', 'csls', 'isf', 'dot', 'invnn', 'mp', 'mp-gauss', 'ls', 'cdm' or "
                               "'dsl'.*plain nearest"):
                retrieve(X[:3], Z, 2, r, source=X)
        if r in neighbors.VALID_RETRIEVALS["induction"]:
            induce_dictionary(X, Z, retrieval=r)
        else:
            with pytest.raises(ValueError, match="retrieval must be 'nn', 'csls', 'mp', 'mp-gauss', 'ls', 'cdm' "
                               "or 'dsl'"):
                induce_dictionary(X, Z, retrieval=r)
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    action = next(a for a in parser._actions if a.dest == "retrieval")
    assert action.type.valid == neighbors.VALID_RETRIEVALS["exact"]


# ---------------------------------------------------------------------------------- isf in search
def test_search_isf_equals_retrieve_bli_and_the_formula(rng):
    src, tgt = _space(rng, 120, 10, "s"), _space(rng, 90, 10, "t")
    Q = src.vectors[:30]
    beta = 12.0
    s, i = neighbors.search(tgt, Q, 5, metric="isf", source=src.vectors, isf_beta=beta)
    s2, i2 = retrieve(Q, tgt.vectors, 5, "isf", source=src.vectors, isf_beta=beta)
    np.testing.assert_array_equal(i, i2)
    np.testing.assert_allclose(s, s2, rtol=1e-6, atol=1e-5)
    ref = _isf_brute(Q, tgt.vectors, src.vectors, beta)
    np.testing.assert_array_equal(i, np.argsort(-ref, axis=1, kind="stable")[:, :5])
    np.testing.assert_allclose(s, np.take_along_axis(ref, i, axis=1), rtol=1e-5, atol=1e-4)
    # BLI's isf ranks the same way: P@1 from search's first neighbour equals bli's
    gold = rng.integers(0, 90, size=30)
    pairs = [(f"s{a}", f"t{b}") for a, b in enumerate(gold)]
    res = bli(src, tgt, pairs, retrieval="isf", isf_beta=beta, ks=(1, 5))
    assert res.p_at(1) == pytest.approx(np.mean(i[:, 0] == gold))
    assert res.p_at(5) == pytest.approx(np.mean((i == gold[:, None]).any(axis=1)))


def test_monolingual_isf_sums_over_the_whole_vocabulary_and_excludes_the_query(rng):
    e = _space(rng, 80, 6, "w")
    s, i = neighbors.search(e, ["w3", "w7"], 4, metric="isf")
    ref = _isf_brute(e.vectors[[3, 7]], e.vectors, e.vectors, 30.0)
    ref[0, 3] = ref[1, 7] = -np.inf
    np.testing.assert_array_equal(i, np.argsort(-ref, axis=1, kind="stable")[:, :4])
    np.testing.assert_allclose(s, np.take_along_axis(ref, i, axis=1), rtol=1e-5, atol=1e-4)
    with pytest.raises(ValueError, match="source="):
        neighbors.search(e, e.vectors[:2], 4, metric="isf")  # vector queries name no source space


# ----------------------------------------------------------- "nn", not csls_knn=0, says plain NN
def test_retrieval_alone_chooses_nn_or_csls_and_csls_knn_zero_is_refused(rng):
    X, Z = rng.standard_normal((60, 6)), rng.standard_normal((60, 6))
    nn_pairs = unsupervised_dictionary(X, Z, vocabulary=40, retrieval="nn")
    csls_pairs = unsupervised_dictionary(X, Z, vocabulary=40)  # VecMap's default: CSLS
    np.testing.assert_array_equal(csls_pairs, unsupervised_dictionary(X, Z, vocabulary=40, retrieval="csls"))
    assert not np.array_equal(nn_pairs, csls_pairs)
    with pytest.raises(ValueError, match="csls_knn must be at least 1"):
        unsupervised_dictionary(X, Z, vocabulary=40, csls_knn=0)

    src, tgt = _space(rng, 150, 6, "s"), _space(rng, 150, 6, "t")
    seed = [(f"s{i}", f"t{i}") for i in range(40)]
    def fit(**induction):
        return Mapper(self_learning=True, max_iter=2, induction=Induction(stochastic_initial=1.0, **induction)).fit(
            src, tgt, seed)

    nn = fit(retrieval="nn")
    np.testing.assert_array_equal(fit().dictionary_, nn.dictionary_)  # the default
    # csls_knn alone does not choose CSLS: it is K of CSLS when retrieval="csls" chooses it
    np.testing.assert_array_equal(fit(csls_knn=5).dictionary_, nn.dictionary_)
    csls = fit(retrieval="csls", csls_knn=5)
    assert not np.array_equal(csls.dictionary_, nn.dictionary_)
    with pytest.raises(ValueError, match="csls_knn"):
        fit(retrieval="csls", csls_knn=0)


def test_recipes_spell_csls_induction_with_retrieval():
    for name in embgeo.crosslingual.RECIPES:
        params = Mapper.from_recipe(name).get_params()
        if params["induction__csls_knn"] != Induction().csls_knn:
            assert params["induction__retrieval"] == "csls", name
