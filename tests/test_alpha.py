"""Natural alpha embeddings (Volpi & Malagò 2020): every formula against a direct per-word loop."""
from __future__ import annotations

import numpy as np
import pytest

import embgeo
from embgeo.alpha import AlphaEmbeddings, alpha_sweep, metric_cosine

N, D = 150, 6


@pytest.fixture(scope="module")
def model():
    rng = np.random.default_rng(7)
    U = rng.standard_normal((N, D)) * 0.6
    V = rng.standard_normal((N, D)) * 0.6 + 0.3  # a non-zero mean, so centring matters
    counts = rng.integers(1, 500, N)
    return U, V, counts


# ----------------------------------------------------------------- direct formulation
def direct_p0(U, V, counts, kind, variant="U"):
    n = len(U)
    if kind == "0":
        return np.full(n, 1.0 / n)
    pi = counts / counts.sum()
    if kind == "ud":
        return pi
    Ue = U if variant == "U" else U + V
    p = np.zeros(n)
    for w in range(n):  # the marginal Σ_w π(w) p_w(χ), one word at a time
        s = V @ Ue[w]
        e = np.exp(s - s.max())
        p += pi[w] * e / e.sum()
    return p


def direct_alpha(U, V, counts, alpha, kind="0", variant="U"):
    """W^α of eq. 2 with eq. 1, 3, 4 written out word by word (float64)."""
    p0 = direct_p0(U, V, counts, kind, variant)
    dV = V - p0 @ V
    fisher = sum(p0[c] * np.outer(dV[c], dV[c]) for c in range(len(V)))
    Ue = U if variant == "U" else U + V
    W = np.empty_like(U)
    for w in range(len(U)):
        logits = V @ Ue[w]
        pw = np.exp(logits) / np.exp(logits).sum()  # eq. 1 (eq. 7 for U+V)
        if alpha == 1:
            l = p0 * (np.log(pw) - np.log(p0))
        else:
            l = 2 / (1 - alpha) * p0 * ((pw / p0) ** ((1 - alpha) / 2) - 1)  # eq. 3
        W[w] = np.linalg.solve(fisher, l @ dV)  # eq. 2
    return W, fisher, p0, dV


# ----------------------------------------------------------------- the alpha = 1 identity
def test_alpha_one_uniform_p0_gives_back_input_vectors_exactly(model):
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="0", dtype="float64")
    np.testing.assert_allclose(ae.alpha_vectors(1.0, metric="I"), U, rtol=0, atol=1e-12)
    ae32 = AlphaEmbeddings(U, V, counts=counts, p0="0")
    np.testing.assert_allclose(ae32.alpha_vectors(1.0, metric="I"), U, rtol=0, atol=1e-5)


def test_alpha_one_uplusv_variant_gives_back_u_plus_v(model):
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="0", variant="U+V", dtype="float64")
    np.testing.assert_allclose(ae.alpha_vectors(1.0), U + V, atol=1e-12)


@pytest.mark.parametrize("kind", ["u", "ud"])
def test_alpha_one_other_p0_is_input_vectors_shifted_by_one_constant(model, kind):
    # W^1 = u_w − I⁻¹ E_p0[ln p0 ΔV]: the same translation for every word ("up to centering")
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0=kind, dtype="float64")
    W = ae.alpha_vectors(1.0)
    p0 = np.asarray(ae.p0)
    dV = V - p0 @ V
    shift = -np.linalg.solve(np.asarray(ae.fisher), (p0 * np.log(p0)) @ dV)
    assert np.abs(shift).max() > 1e-3  # the test would notice a missing shift
    np.testing.assert_allclose(W - U, np.broadcast_to(shift, U.shape), atol=1e-11)


# ----------------------------------------------------------------- formulas vs direct loop
@pytest.mark.parametrize("kind", ["0", "u", "ud"])
@pytest.mark.parametrize("variant", ["U", "U+V"])
def test_alpha_vectors_match_direct_per_word_loop(model, kind, variant):
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0=kind, variant=variant, dtype="float64",
                         memory_budget=40 * N * 8)  # several blocks
    ae32 = AlphaEmbeddings(U, V, counts=counts, p0=kind, variant=variant)
    for alpha in (-3.0, -1.0, 0.0, 0.5, 1.0, 2.0, 7.0):
        W, fisher, p0, _ = direct_alpha(U, V, counts, alpha, kind, variant)
        np.testing.assert_allclose(ae.alpha_vectors(alpha), W, rtol=1e-9, atol=1e-9 * np.abs(W).max())
        np.testing.assert_allclose(ae32.alpha_vectors(alpha), W, rtol=0, atol=2e-4 * np.abs(W).max())
    np.testing.assert_allclose(np.asarray(ae.p0), p0, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ae.fisher), fisher, rtol=1e-12, atol=1e-14)


def test_model_unigram_p0_is_a_distribution_different_from_counts(model):
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="u", dtype="float64")
    p = np.asarray(ae.p0)
    assert np.all(p > 0) and abs(p.sum() - 1) < 1e-12
    assert np.abs(p - counts / counts.sum()).max() > 1e-4


def test_fisher_matrix_is_symmetric_positive_definite(model):
    U, V, counts = model
    for kind in ("0", "u", "ud"):
        F = np.asarray(AlphaEmbeddings(U, V, counts=counts, p0=kind).fisher)
        assert F.shape == (D, D) and F.dtype == np.float64
        np.testing.assert_array_equal(F, F.T)
        assert np.linalg.eigvalsh(F).min() > 0
        L = np.asarray(AlphaEmbeddings(U, V, counts=counts, p0=kind).fisher_cholesky)
        np.testing.assert_allclose(L @ L.T, F, rtol=1e-12, atol=1e-15)


def test_alpha_near_one_is_continuous(model):
    U, V, counts = model
    for dt, tol in (("float64", 1e-6), ("float32", 1e-4)):
        ae = AlphaEmbeddings(U, V, counts=counts, p0="ud", dtype=dt)
        W1 = ae.alpha_vectors(1.0)
        for eps in (1e-3, 1e-5, 1e-7):
            for a in (1 - eps, 1 + eps):
                Wa = ae.alpha_vectors(a)
                # |W^α − W^1| = O(|α − 1|): no jump, no cancellation blow-up near the branch point
                assert np.abs(Wa - W1).max() <= (tol + 10 * eps) * np.abs(W1).max()


def test_large_alpha_magnitudes_stay_finite_and_correct(model):
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="0", dtype="float64")
    for alpha in (-80.0, 60.0):  # exp(β x) overflows without the per-row shift
        W, *_ = direct_alpha(U, V, counts, alpha)
        Y = ae.alpha_vectors(alpha, normalize=True)
        np.testing.assert_allclose(Y, W / np.linalg.norm(W, axis=1, keepdims=True), atol=1e-9)
    with pytest.raises(OverflowError, match="normalize=True"):
        ae.alpha_vectors(-3000.0)


# ----------------------------------------------------------------- limit embeddings
def test_limit_top1_equals_normalised_large_negative_alpha_direction(model):
    U, V, counts = model
    for kind in ("0", "ud"):
        ae = AlphaEmbeddings(U, V, counts=counts, p0=kind, dtype="float64")
        lim = ae.limit(top=1, metric="I", dtype_out="float64").vectors
        far = ae.alpha_vectors(-5000.0, metric="I", normalize=True)
        # the runner-up context weighs (r2/r1)^2500.5: negligible once log(r1/r2) > 0.015
        R = U @ V.T - np.log(np.asarray(ae.p0))
        top2 = -np.sort(-R, axis=1)[:, :2]
        clear = top2[:, 0] - top2[:, 1] > 0.015
        assert clear.sum() > 0.9 * N
        np.testing.assert_allclose(lim[clear], far[clear], atol=1e-8)


@pytest.mark.parametrize("top,weighted", [(1, False), (3, False), (5, True)])
def test_limit_matches_direct_top_k_formula(model, top, weighted):
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="ud", dtype="float64")
    p0 = counts / counts.sum()
    dV = V - p0 @ V
    fisher = dV.T @ (p0[:, None] * dV)
    for natural in (True, False):
        got = ae.limit(top=top, weighted=weighted, metric="I", natural=natural, normalize=False,
                       dtype_out="float64").vectors
        for w in (0, 17, N - 1):
            pw = np.exp(V @ U[w]) / np.exp(V @ U[w]).sum()
            r = pw / p0
            best = np.argsort(-r, kind="stable")[:top]
            g = sum((r[c] if weighted else 1.0) * dV[c] for c in best)
            want = np.linalg.solve(fisher, g) if natural else g
            np.testing.assert_allclose(got[w], want, rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------- metric F geometry
def test_embed_fisher_metric_euclidean_products_are_fisher_products(model):
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="u", dtype="float64")
    alpha = -1.5
    W = ae.alpha_vectors(alpha, metric="I")
    F = np.asarray(ae.fisher)
    eF = ae.embed(alpha, metric="F", dtype_out="float64")
    X = eF.vectors
    np.testing.assert_allclose(X @ X.T, W @ F @ W.T, rtol=1e-10, atol=1e-10)  # xᵀ I y
    w1, w2 = ["0", "3", "9"], ["5", "5", "140"]
    i, j = [int(w) for w in w1], [int(w) for w in w2]
    np.testing.assert_allclose(eF.similarity_pairs(w1, w2), metric_cosine(W[i], W[j], F), atol=1e-12)  # eq. 5
    assert abs(ae.similarity("0", "5", alpha) - metric_cosine(W[0], W[5], F)[0]) < 1e-12
    eI = ae.embed(alpha, metric="I", dtype_out="float64")
    np.testing.assert_allclose(eI.similarity_pairs(w1, w2), metric_cosine(W[i], W[j]), atol=1e-12)


def test_embed_fisher_metric_analogy_matches_direct_formula(model):
    # eq. 6: d = argmax_x cos_I(x, ŵ_b − ŵ_a + ŵ_c), hats = unit vectors in the Fisher norm
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="0", dtype="float64")
    W = ae.alpha_vectors(0.0)
    F = np.asarray(ae.fisher)
    Wn = W / np.sqrt(np.einsum("ij,jk,ik->i", W, F, W))[:, None]
    e = ae.embed(0.0, metric="F", dtype_out="float64")
    for a, b, c in [(1, 2, 3), (10, 40, 99), (5, 6, 7)]:
        target = Wn[b] - Wn[a] + Wn[c]
        cos = metric_cosine(Wn, np.broadcast_to(target, Wn.shape), F)
        cos[[a, b, c]] = -np.inf
        want = str(int(np.argmax(cos)))
        got = e.most_similar(positive=[str(b), str(c)], negative=[str(a)], topn=1)[0][0]
        assert got == want


def test_result_does_not_depend_on_block_size(model):
    U, V, counts = model
    ref = AlphaEmbeddings(U, V, counts=counts, p0="u").alpha_vectors(-0.7)
    for budget in (N * 4, 7 * N * 4, 10**9):
        got = AlphaEmbeddings(U, V, counts=counts, p0="u", memory_budget=budget).alpha_vectors(-0.7)
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6 * np.abs(ref).max())


def test_words_subset_matches_full_rows(model):
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="ud", dtype="float64")
    full = ae.embed(2.0, metric="F", dtype_out="float64")
    part = ae.embed(2.0, metric="F", words=["12", "3", "77"], dtype_out="float64")
    assert part.words == ["12", "3", "77"]
    np.testing.assert_allclose(part.vectors, full[["12", "3", "77"]], atol=1e-12)
    np.testing.assert_array_equal(part.counts, counts[[12, 3, 77]])


def test_array_api_strict_path_matches_numpy(model):
    xps = pytest.importorskip("array_api_strict")
    U, V, counts = model
    for kind, variant in (("0", "U"), ("u", "U+V")):
        a = AlphaEmbeddings(U, V, counts=counts, p0=kind, variant=variant, dtype="float64")
        b = AlphaEmbeddings(xps.asarray(U), xps.asarray(V), counts=counts, p0=kind, variant=variant,
                            dtype="float64", memory_budget=50 * N * 8)
        for alpha in (1.0, -2.0, 3.0, -60.0):
            for metric in ("F", "I"):
                yb = b.embed(alpha, metric, normalize=True, dtype_out="float64").vectors
                assert not isinstance(yb, np.ndarray)  # stayed an array_api_strict array
                np.testing.assert_allclose(embgeo.to_numpy(yb),
                                           a.embed(alpha, metric, normalize=True, dtype_out="float64").vectors,
                                           atol=1e-10)
        np.testing.assert_allclose(embgeo.to_numpy(b.limit(3, True).vectors), a.limit(3, True).vectors, atol=1e-6)


# ----------------------------------------------------------------- inputs and errors
def test_embeddings_with_output_vectors_is_accepted(model):
    U, V, counts = model
    e = embgeo.Embeddings([f"w{i}" for i in range(N)], U, counts, output_vectors=V)
    ae = AlphaEmbeddings(e, p0="ud", dtype="float64")
    assert ae.words[3] == "w3"
    np.testing.assert_allclose(ae.alpha_vectors(0.5), AlphaEmbeddings(U, V, counts=counts, p0="ud",
                                                                      dtype="float64").alpha_vectors(0.5))


def test_bad_inputs_raise_clear_errors(model):
    U, V, counts = model
    with pytest.raises(ValueError, match="negative sampling"):
        AlphaEmbeddings(U)
    with pytest.raises(ValueError, match="output_vectors"):
        AlphaEmbeddings(embgeo.Embeddings([str(i) for i in range(N)], U))
    with pytest.raises(ValueError, match="p0 must be"):
        AlphaEmbeddings(U, V, p0="uniform")
    with pytest.raises(ValueError, match="variant"):
        AlphaEmbeddings(U, V, variant="V")
    with pytest.raises(ValueError, match="needs word counts"):
        AlphaEmbeddings(U, V, p0="u")
    with pytest.raises(ValueError, match="same shape"):
        AlphaEmbeddings(U, V[:-1])
    bad = U.copy()
    bad[4, 2] = np.nan
    with pytest.raises(ValueError, match="row 4"):
        AlphaEmbeddings(bad, V)
    zero = counts.copy()
    zero[9] = 0
    with pytest.raises(ValueError, match="row 9"):
        AlphaEmbeddings(U, V, counts=zero, p0="ud")
    with pytest.raises(ValueError, match="Fisher"):
        AlphaEmbeddings(U, np.c_[V[:, :-1], np.zeros(N)]).fisher_cholesky
    ae = AlphaEmbeddings(U, V)
    with pytest.raises(ValueError, match="metric"):
        ae.embed(0.0, metric="E")
    with pytest.raises(embgeo.UnknownWordError, match="nope"):
        ae.embed(0.0, words=["1", "nope"])
    with pytest.raises(ValueError, match="top"):
        ae.limit(top=0)


# ----------------------------------------------------------------- alpha sweep
def test_alpha_sweep_scores_are_spearman_of_embedded_similarities(model):
    from scipy.stats import spearmanr

    U, V, counts = model
    rng = np.random.default_rng(3)
    w1 = [str(i) for i in rng.integers(0, N, 60)]
    w2 = [str(i) for i in rng.integers(0, N, 60)]
    ae = AlphaEmbeddings(U, V, counts=counts, p0="0", dtype="float64")
    W = ae.alpha_vectors(0.3)
    i, j = [int(w) for w in w1], [int(w) for w in w2]
    gold = metric_cosine(W[i], W[j], np.asarray(ae.fisher)) + rng.normal(0, 0.05, 60)
    alphas = [-2.0, 0.3, 4.0]
    res = alpha_sweep(ae, alphas, (w1, w2, gold), folds=3)
    for a, got in zip(alphas, res.scores):
        e = ae.embed(a, "F", dtype_out="float64")
        assert abs(got - spearmanr(e.similarity_pairs(w1, w2), gold).statistic) < 1e-12
    assert res.best_alpha == 0.3 and res.n_pairs == 60 and len(res.cv_scores) == 3
    assert np.all(np.isin(res.cv_alphas, alphas)) and np.isfinite(res.cv_score)
    with pytest.raises(ValueError, match="folds"):
        alpha_sweep(ae, alphas, (w1, w2, gold), folds=1)


# ----------------------------------------------------------------- real data: gensim on lee_background
@pytest.fixture(scope="module")
def lee_model():
    from gensim.models import Word2Vec
    from gensim.test.utils import datapath
    from gensim.utils import simple_preprocess

    with open(datapath("lee_background.cor"), encoding="utf8") as fh:
        sents = [simple_preprocess(line) for line in fh]
    return Word2Vec(sents, vector_size=24, window=5, min_count=3, sg=1, negative=5, epochs=5, seed=0,
                    workers=1)


def test_gensim_skipgram_pipeline_end_to_end(lee_model):
    ae = AlphaEmbeddings(lee_model, p0="u")
    assert len(ae) == len(lee_model.wv) and ae.counts is not None
    np.testing.assert_allclose(np.asarray(ae.p0).sum(), 1.0)
    e = ae.embed(-1.0, metric="F")
    assert np.all(np.isfinite(e.vectors)) and e.words == list(lee_model.wv.index_to_key)
    # the same through Embeddings.from_gensim, which keeps syn1neg and the counts
    e2 = AlphaEmbeddings(embgeo.Embeddings.from_gensim(lee_model), p0="u").embed(-1.0, metric="F")
    np.testing.assert_allclose(e2.vectors, e.vectors, rtol=1e-6, atol=1e-6)
    from embgeo.evaluate import word_similarity

    res = word_similarity(e, "wordsim353")
    assert res.n_found >= 30 and np.isfinite(res.spearman)  # tiny corpus: low coverage, rho near 0
    sweep = alpha_sweep(ae, [-4.0, -1.0, 0.0, 1.0, 4.0], "wordsim353", folds=3)
    assert sweep.n_pairs >= 30 and np.all(np.isfinite(sweep.scores)) and np.isfinite(sweep.cv_score)
    lim = ae.limit(top=3, weighted=True)
    assert np.all(np.isfinite(lim.vectors))


def test_gensim_models_without_syn1neg_are_refused_with_the_reason(lee_model):
    from gensim.models import Word2Vec
    from gensim.test.utils import common_texts

    hs = Word2Vec(common_texts, vector_size=4, min_count=1, sg=1, hs=1, negative=0, epochs=1, workers=1)
    with pytest.raises(ValueError, match="syn1neg.*hierarchical-softmax"):
        AlphaEmbeddings(hs)
    with pytest.raises(ValueError, match="KeyedVectors"):
        AlphaEmbeddings(lee_model.wv)
    cbow = Word2Vec(common_texts, vector_size=4, min_count=1, sg=0, negative=5, epochs=1, workers=1)
    with pytest.warns(UserWarning, match="CBOW"):
        AlphaEmbeddings(cbow)
