"""Natural alpha embeddings (Volpi & Malagò 2020): every formula against a direct per-word loop."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import embgeo
from embgeo.alpha import AlphaEmbeddings, alpha_sweep, analogy_sweep, fisher_cosine, read_glove
from conftest import traced_memory

N, D = 150, 6


@pytest.fixture(scope="module")
def model():
    rng = np.random.default_rng(7)
    U = rng.standard_normal((N, D)) * 0.6
    V = rng.standard_normal((N, D)) * 0.6 + 0.3  # a non-zero mean, so centring matters
    counts = rng.integers(1, 500, N)
    return U, V, counts


# ----------------------------------------------------------------- direct formulation
def direct_p0(U, V, counts, kind, variant="U", bias=None):
    n = len(U)
    if kind == "0":
        return np.full(n, 1.0 / n)
    pi = counts / counts.sum()
    if kind == "ud":
        return pi
    Ue = U if variant == "U" else U + V
    p = np.zeros(n)
    for w in range(n):  # the marginal Σ_w π(w) p_w(χ), one word at a time
        s = V @ Ue[w] + (0 if bias is None else bias)
        e = np.exp(s - s.max())
        p += pi[w] * e / e.sum()
    return p


def direct_alpha(U, V, counts, alpha, kind="0", variant="U", bias=None):
    """W^α of eq. 2 with eq. 1, 3, 4 written out word by word (float64); GloVe: exp(b̃_χ) base measure."""
    p0 = direct_p0(U, V, counts, kind, variant, bias)
    dV = V - p0 @ V
    fisher = sum(p0[c] * np.outer(dV[c], dV[c]) for c in range(len(V)))
    Ue = U if variant == "U" else U + V
    W = np.empty_like(U)
    for w in range(len(U)):
        logits = V @ Ue[w] + (0 if bias is None else bias)
        pw = np.exp(logits) / np.exp(logits).sum()  # eq. 1 (eq. 7 for U+V)
        if alpha == 1:
            l = p0 * (np.log(pw) - np.log(p0))
        else:
            l = 2 / (1 - alpha) * p0 * ((pw / p0) ** ((1 - alpha) / 2) - 1)  # eq. 3
        W[w] = np.linalg.solve(fisher, l @ dV)  # eq. 2
    return W, fisher, p0, dV


# ----------------------------------------------------------------- the alpha = 1 identity
def fisher_norm(x, F):
    return np.sqrt(sum(x[i] * F[i, j] * x[j] for i in range(len(x)) for j in range(len(x))))


def fisher_dot(x, y, F):
    return sum(x[i] * F[i, j] * y[j] for i in range(len(x)) for j in range(len(y)))


# ----------------------------------------------------------------- the alpha = 1 identity
def test_alpha_one_uniform_p0_gives_back_input_vectors_exactly(model):
    # the paper, below eq. 6: α = 1 and uniform p0 reduce eq. 2 to the standard vectors u_w
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="0", dtype="float64")
    np.testing.assert_allclose(ae.alpha_vectors(1.0, geometry="euclidean"), U, rtol=0, atol=1e-12)
    ae32 = AlphaEmbeddings(U, V, counts=counts, p0="0")
    np.testing.assert_allclose(ae32.alpha_vectors(1.0, geometry="euclidean"), U, rtol=0, atol=1e-5)


def test_alpha_one_uplusv_variant_gives_back_u_plus_v(model):
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="0", variant="U+V", dtype="float64")
    np.testing.assert_allclose(ae.alpha_vectors(1.0, geometry="euclidean"), U + V, atol=1e-12)


@pytest.mark.parametrize("kind", ["u", "ud"])
def test_alpha_one_other_p0_is_input_vectors_shifted_by_one_constant(model, kind):
    # W^1 = u_w − I⁻¹ E_p0[ln p0 ΔV]: the same translation for every word ("up to centering")
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0=kind, dtype="float64")
    W = ae.alpha_vectors(1.0, geometry="euclidean")
    p0 = direct_p0(U, V, counts, kind)
    dV = V - p0 @ V
    fisher = sum(p0[c] * np.outer(dV[c], dV[c]) for c in range(N))
    shift = -np.linalg.solve(fisher, (p0 * np.log(p0)) @ dV)
    assert np.abs(shift).max() > 1e-3  # the test would notice a missing shift
    np.testing.assert_allclose(W - U, np.broadcast_to(shift, U.shape), atol=1e-10)


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
        got = ae.alpha_vectors(alpha, geometry="euclidean")
        np.testing.assert_allclose(got, W, rtol=1e-9, atol=1e-9 * np.abs(W).max())
        got32 = ae32.alpha_vectors(alpha, geometry="euclidean")
        np.testing.assert_allclose(got32, W, rtol=0, atol=2e-4 * np.abs(W).max())
    np.testing.assert_allclose(np.asarray(ae.p0), p0, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ae.fisher), fisher, rtol=1e-12, atol=1e-14)


def test_glove_context_bias_is_a_base_measure_of_p_w(model):
    # GloVe: p_w(χ) ∝ exp(u_wᵀ v_χ + b̃_χ); the loop adds b̃ to the logits of eq. 1
    U, V, counts = model
    bias = np.random.default_rng(11).normal(0, 1.0, N)
    for kind in ("0", "u"):
        ae = AlphaEmbeddings(U, V, counts=counts, p0=kind, context_bias=bias, dtype="float64",
                             memory_budget=30 * N * 8)
        for alpha in (-2.0, 1.0, 3.0):
            W, *_ = direct_alpha(U, V, counts, alpha, kind, bias=bias)
            np.testing.assert_allclose(ae.alpha_vectors(alpha, geometry="euclidean"), W, rtol=1e-9,
                                       atol=1e-9 * np.abs(W).max())
        Wn, *_ = direct_alpha(U, V, counts, -2.0, kind)
        assert np.abs(ae.alpha_vectors(-2.0, geometry="euclidean") - Wn).max() > 1e-2  # the bias matters


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
        W1 = ae.alpha_vectors(1.0, geometry="euclidean")
        for eps in (1e-3, 1e-5, 1e-7):
            for a in (1 - eps, 1 + eps):
                Wa = ae.alpha_vectors(a, geometry="euclidean")
                # |W^α − W^1| = O(|α − 1|): no jump, no cancellation blow-up near the branch point
                assert np.abs(Wa - W1).max() <= (tol + 10 * eps) * np.abs(W1).max()


def test_large_alpha_magnitudes_stay_finite_and_correct(model):
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="0", dtype="float64")
    for alpha in (-80.0, 60.0):  # exp(β x) overflows without the per-row shift
        W, *_ = direct_alpha(U, V, counts, alpha)
        Y = ae.alpha_vectors(alpha, geometry="euclidean", normalize=True)
        np.testing.assert_allclose(Y, W / np.linalg.norm(W, axis=1, keepdims=True), atol=1e-9)
    with pytest.raises(OverflowError, match="normalize=True"):
        ae.alpha_vectors(-3000.0)


# ----------------------------------------------------------------- geometries and normalisations
def test_fisher_geometry_similarity_is_eq5_written_as_a_double_sum(model):
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="u", dtype="float64")
    alpha = -1.5
    W, F, *_ = direct_alpha(U, V, counts, alpha, "u")
    eF = ae.embed(alpha, dtype_out="float64")  # the default geometry is the Fisher one
    eI = ae.embed(alpha, geometry="euclidean", dtype_out="float64")
    for a, b in [(0, 5), (3, 5), (9, 140)]:
        want = fisher_dot(W[a], W[b], F) / (fisher_norm(W[a], F) * fisher_norm(W[b], F))  # eq. 5
        assert abs(ae.similarity(str(a), str(b), alpha) - want) < 1e-10
        assert abs(eF.similarity(str(a), str(b)) - want) < 1e-10
        cos = W[a] @ W[b] / np.sqrt((W[a] @ W[a]) * (W[b] @ W[b]))
        assert abs(eI.similarity(str(a), str(b)) - cos) < 1e-10
        assert abs(ae.similarity(str(a), str(b), alpha, geometry="euclidean") - cos) < 1e-10


@pytest.mark.parametrize("geometry,normalize", [("fisher", True), ("euclidean", True),
                                                ("euclidean", "fisher"), ("fisher", "euclidean")])
def test_normalisation_and_products_in_either_geometry(model, geometry, normalize):
    # Table 11's nF-pI: x / ‖x‖_F, then Euclidean products (and the three other combinations)
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="0", dtype="float64")
    W, F, *_ = direct_alpha(U, V, counts, 0.5)
    norm_geo = geometry if normalize is True else normalize
    got = ae.alpha_vectors(0.5, geometry=geometry, normalize=normalize)
    G = got @ got.T  # products of the rows in their frame
    for a, b in [(1, 2), (7, 100), (4, 4)]:
        na, nb = ((fisher_norm(W[i], F) if norm_geo == "fisher" else np.linalg.norm(W[i])) for i in (a, b))
        prod = fisher_dot(W[a], W[b], F) if geometry == "fisher" else W[a] @ W[b]
        assert abs(G[a, b] - prod / (na * nb)) < 1e-10


def test_fisher_analogy_is_eq6_argmin_over_candidates(model):
    # eq. 6: d = argmin_x ‖W(b) − W(a) − W(x) + W(c)‖_I, W normalised in I, x ∉ {a, b, c}
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="0", dtype="float64")
    W, F, *_ = direct_alpha(U, V, counts, 0.0)
    Wn = np.array([w / fisher_norm(w, F) for w in W])
    e = ae.embed(0.0, normalize=True, dtype_out="float64")
    for a, b, c in [(1, 2, 3), (10, 40, 99), (5, 6, 7)]:
        dist = [np.inf if x in (a, b, c) else fisher_norm(Wn[b] - Wn[a] - Wn[x] + Wn[c], F) for x in range(N)]
        want = str(int(np.argmin(dist)))
        assert e.most_similar(positive=[str(b), str(c)], negative=[str(a)], topn=1)[0][0] == want


# ----------------------------------------------------------------- limit embeddings
def test_limit_top1_equals_normalised_large_negative_alpha_direction(model):
    U, V, counts = model
    for kind in ("0", "ud"):
        ae = AlphaEmbeddings(U, V, counts=counts, p0=kind, dtype="float64")
        lim = ae.limit(top=1, geometry="euclidean", dtype_out="float64").vectors
        far = ae.alpha_vectors(-5000.0, geometry="euclidean", normalize=True)
        # the runner-up context weighs (r2/r1)^2500.5: negligible once log(r1/r2) > 0.015
        R = U @ V.T - np.log(np.asarray(ae.p0))
        top2 = -np.sort(-R, axis=1)[:, :2]
        clear = top2[:, 0] - top2[:, 1] > 0.015
        assert clear.sum() > 0.9 * N
        np.testing.assert_allclose(lim[clear], far[clear], atol=1e-8)


@pytest.mark.parametrize("geometry,normalize", [("fisher", True), ("euclidean", True), ("euclidean", "fisher")])
def test_alpha_minus_infinity_is_the_limit_embedding_and_nan_or_plus_infinity_are_refused(model, geometry,
                                                                                          normalize):
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="ud", dtype="float64")
    # eq. 9 written out: the direction of I(p0)^-1 ΔV_χ* with χ* = argmax_χ p_w(χ)/p0(χ) (eq. 8)
    _, F, p0, dV = direct_alpha(U, V, counts, 0.0, kind="ud")
    star = np.argmax(U @ V.T - np.log(p0), axis=1)
    W = np.linalg.solve(F, dV[star].T).T
    L = np.linalg.cholesky(F)
    Y = W @ L if geometry == "fisher" else W
    norm_in = geometry if normalize is True else normalize
    n = np.sqrt(np.einsum("ij,jk,ik->i", W, F, W)) if norm_in == "fisher" else np.linalg.norm(W, axis=1)
    got = ae.alpha_vectors(-np.inf, geometry=geometry, normalize=normalize)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, Y / n[:, None], atol=1e-9)
    e = ae.embed(-np.inf, geometry=geometry, normalize=normalize, words=["3", "7"], dtype_out="float64")
    np.testing.assert_allclose(e.vectors, (Y / n[:, None])[[3, 7]], atol=1e-9)
    if normalize is True:
        g = got[[3, 7]] / np.linalg.norm(got[[3, 7]], axis=1, keepdims=True)
        assert ae.similarity("3", "7", -np.inf, geometry=geometry) == pytest.approx(float(g[0] @ g[1]), abs=1e-9)
    for bad in (np.nan, np.inf, "abc"):
        with pytest.raises(ValueError, match="alpha"):
            ae.alpha_vectors(bad, geometry=geometry, normalize=normalize)
        with pytest.raises(ValueError, match="alpha"):
            ae.embed(bad, geometry=geometry)
        with pytest.raises(ValueError, match="alpha"):
            ae.similarity("1", "2", bad)
    with pytest.raises(ValueError, match="normalize=True"):  # W^α itself diverges: only a direction
        ae.alpha_vectors(-np.inf, geometry=geometry, normalize=False)


@pytest.mark.parametrize("top,weighted", [(1, False), (3, False), (5, True)])
@pytest.mark.parametrize("geometry", ["fisher", "euclidean"])
def test_limit_top_k_is_the_papers_verbal_definition(model, top, weighted, geometry):
    # Sec. 3.2: "the top k rows from ΔV", "-w: a weighted average (with weights p_w(χ)/p0(χ))";
    # eq. 9 applies I(p0)⁻¹; the direction is then normalised in the geometry
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="ud", dtype="float64")
    p0 = counts / counts.sum()
    dV = V - p0 @ V
    F = sum(p0[c] * np.outer(dV[c], dV[c]) for c in range(N))
    L = np.linalg.cholesky(F)
    got = ae.limit(top=top, weighted=weighted, geometry=geometry, dtype_out="float64").vectors
    raw = ae.limit(top=top, weighted=weighted, geometry="euclidean", natural=False, normalize=False,
                   dtype_out="float64").vectors
    for w in (0, 17, N - 1):
        ratio = [np.exp(U[w] @ V[c]) / sum(np.exp(U[w] @ V[k]) for k in range(N)) / p0[c] for c in range(N)]
        best = sorted(range(N), key=lambda c: -ratio[c])[:top]  # eq. 8, extended to the top k
        weights = [ratio[c] if weighted else 1.0 for c in best]
        avg = sum(wt * dV[c] for wt, c in zip(weights, best)) / sum(weights)
        lw = np.linalg.solve(F, avg)  # eq. 9
        want = lw @ L / fisher_norm(lw, F) if geometry == "fisher" else lw / np.linalg.norm(lw)
        np.testing.assert_allclose(got[w], want, atol=1e-9)
        # natural=False: the bare rows (a sum, so the average times Σ weights)
        np.testing.assert_allclose(raw[w], avg * sum(weights), rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------- blocks, subsets, backends
def test_result_does_not_depend_on_block_size(model):
    U, V, counts = model
    ref = AlphaEmbeddings(U, V, counts=counts, p0="u").alpha_vectors(-0.7)
    for budget in (N * 4, 7 * N * 4, 10**9):
        got = AlphaEmbeddings(U, V, counts=counts, p0="u", memory_budget=budget).alpha_vectors(-0.7)
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6 * np.abs(ref).max())


def test_vocabulary_wide_work_stays_within_the_memory_budget():
    # issue 11: the n × n logits (4 MB in float32 here) are never held; blocks fit memory_budget
    rng = np.random.default_rng(1)
    n, d = 1000, 8
    U, V = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    ae = AlphaEmbeddings(U, V, counts=rng.integers(1, 50, n), p0="u", memory_budget=128 * 1024)
    ae.alpha_vectors(-1.0, ["0"])  # compile the kernel and set up p0, ΔV, I(p0) outside the measurement
    for run in (lambda: ae.alpha_vectors(-1.0, progress=False),
                lambda: ae.limit(top=3, weighted=True, progress=False)):
        with traced_memory() as trace:
            run()
            peak = trace.peak
        # output n × d float64 (64 KB) + a few copies of it + 8 budget-sized blocks, below n² · 4
        assert peak < 8 * 128 * 1024 + 6 * n * d * 8, peak


def test_words_subset_matches_full_rows(model):
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="ud", dtype="float64")
    full = ae.embed(2.0, dtype_out="float64")
    part = ae.embed(2.0, words=["12", "3", "77"], dtype_out="float64")
    assert part.words == ["12", "3", "77"]
    np.testing.assert_allclose(part.vectors, full[["12", "3", "77"]], atol=1e-12)
    np.testing.assert_array_equal(part.counts, counts[[12, 3, 77]])


def test_array_api_strict_path_matches_numpy(model):
    xps = pytest.importorskip("array_api_strict")
    U, V, counts = model
    bias = np.linspace(-1, 1, N)
    for kind, variant, b in (("0", "U", None), ("u", "U+V", bias)):
        a = AlphaEmbeddings(U, V, counts=counts, p0=kind, variant=variant, dtype="float64", context_bias=b)
        x = AlphaEmbeddings(xps.asarray(U), xps.asarray(V), counts=counts, p0=kind, variant=variant,
                            dtype="float64", memory_budget=50 * N * 8, context_bias=b)
        for alpha in (1.0, -2.0, 3.0, -60.0):
            for geometry in ("fisher", "euclidean"):
                yb = x.embed(alpha, geometry, normalize=True, dtype_out="float64").vectors
                assert not isinstance(yb, np.ndarray)  # stayed an array_api_strict array
                np.testing.assert_allclose(embgeo.to_numpy(yb),
                                           a.embed(alpha, geometry, normalize=True, dtype_out="float64").vectors,
                                           atol=1e-10)
        np.testing.assert_allclose(embgeo.to_numpy(x.limit(3, True).vectors), a.limit(3, True).vectors, atol=1e-6)


# ----------------------------------------------------------------- names, inputs and errors
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
    with pytest.raises(ValueError, match="context_bias"):
        AlphaEmbeddings(U, V, context_bias=np.zeros(N - 1))
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
    with pytest.raises(ValueError, match="geometry must be"):
        ae.embed(0.0, geometry="E")
    with pytest.raises(ValueError, match="normalize must be"):
        ae.embed(0.0, normalize="unit")
    with pytest.raises(embgeo.UnknownWordError, match="nope"):
        ae.embed(0.0, words=["1", "nope"])
    with pytest.raises(ValueError, match="top"):
        ae.limit(top=0)


# ----------------------------------------------------------------- GloVe (the paper's model)
GLOVE = Path(__file__).parent / "data" / "glove_tiny"  # written by Stanford GloVe: benchmarks/reference/


def test_glove_text_and_binary_outputs_agree():
    txt = read_glove(GLOVE / "vectors.txt", GLOVE / "vocab.txt")
    binary = read_glove(GLOVE / "vectors.bin", GLOVE / "vocab.txt")
    assert txt.words == binary.words and txt.words[:3] == ["the", "to", "of"] and "<unk>" not in txt.words
    assert txt.word_vectors.shape == txt.context_vectors.shape == (183, 6)
    for a in ("word_vectors", "word_bias", "context_vectors", "context_bias"):
        np.testing.assert_allclose(getattr(txt, a), getattr(binary, a), atol=5e-7)  # "%lf": 6 decimals
    with open(GLOVE / "vocab.txt") as fh:
        first = fh.readline().split()
    assert txt.counts[0] == float(first[1])
    # the first text line, field by field: word, 6 + 1 word parameters, 6 + 1 context parameters
    with open(GLOVE / "vectors.txt") as fh:
        vals = [float(x) for x in fh.readline().split()[1:]]
    assert vals[6] == txt.word_bias[0] and vals[13] == txt.context_bias[0] and vals[7] == txt.context_vectors[0, 0]


def test_glove_model_alpha_embeddings_follow_the_direct_loop_with_biases():
    g = read_glove(GLOVE / "vectors.bin", GLOVE / "vocab.txt")
    ae = AlphaEmbeddings.from_glove(GLOVE / "vectors.bin", GLOVE / "vocab.txt", p0="ud", dtype="float64")
    W, *_ = direct_alpha(g.word_vectors, g.context_vectors, g.counts, -1.0, "ud", bias=g.context_bias)
    np.testing.assert_allclose(ae.alpha_vectors(-1.0, geometry="euclidean"), W, rtol=1e-8,
                               atol=1e-8 * np.abs(W).max())


def test_glove_reader_names_the_problem(tmp_path):
    with pytest.raises(ValueError, match="vocab="):
        read_glove(GLOVE / "vectors.bin")
    bad = tmp_path / "v.txt"
    bad.write_text("a 1 2 3 4 5 6\nb 1 2 x 4 5 6\n")
    with pytest.raises(ValueError, match="line 2"):
        read_glove(bad)
    bad.write_text("a 1 2 3 4 5 6\nb 1 2 3 4\n")
    with pytest.raises(ValueError, match="line 2: 4 numbers"):
        read_glove(bad)
    short = tmp_path / "v.bin"
    short.write_bytes(b"\0" * 24)
    with pytest.raises(ValueError, match="2·n·"):
        read_glove(short, GLOVE / "vocab.txt")


# ----------------------------------------------------------------- choosing α
def paper_cv(score_table, folds, top, random_state):
    """3-fold CV of Tables 2–3 as the paper describes it, on a table of per-item correctness or sims."""
    n_alpha, n = score_table.shape
    fold_of = np.random.default_rng(random_state).permutation(n) % folds
    tests, chosen = [], []
    for f in range(folds):
        val = [score_table[k][fold_of != f].mean() for k in range(n_alpha)]
        ranked = sorted(range(n_alpha), key=lambda k: (-val[k], k))[:top]
        chosen.append(ranked)
        tests.append([score_table[k][fold_of == f].mean() for k in ranked])
    per_rank = np.mean(tests, axis=0)
    return per_rank.mean(), per_rank.std(), np.array(chosen)


def test_alpha_sweep_scores_are_spearman_of_eq5_similarities(model):
    from scipy.stats import spearmanr

    U, V, counts = model
    rng = np.random.default_rng(3)
    pairs = rng.choice(N * N, 200, replace=False)
    pairs = [(p // N, p % N) for p in pairs if p // N != p % N][:60]  # distinct pairs: no tied similarities
    i, j = [x for x, _ in pairs], [y for _, y in pairs]
    w1, w2 = [str(x) for x in i], [str(y) for y in j]
    ae = AlphaEmbeddings(U, V, counts=counts, p0="0", dtype="float64")
    W, F, *_ = direct_alpha(U, V, counts, 0.3)
    gold = fisher_cosine(W[i], W[j], F) + rng.normal(0, 0.05, 60)
    alphas = [-2.0, 0.3, 4.0]
    res = alpha_sweep(ae, alphas, (w1, w2, gold), folds=3, top=2)
    for a, got in zip(alphas, res.scores):
        W, F, *_ = direct_alpha(U, V, counts, a)
        sims = [fisher_dot(W[x], W[y], F) / (fisher_norm(W[x], F) * fisher_norm(W[y], F)) for x, y in zip(i, j)]
        assert abs(got - spearmanr(sims, gold).statistic) < 1e-10
    assert res.best_alpha == 0.3 and res.n_pairs == 60 and res.cv.chosen_alphas.shape == (3, 2)
    # α = −∞: the limit embedding of eq. 8–9, I⁻¹ ΔV_χ* with χ* the argmax of the logits (uniform p0)
    _, F, p0, dV = direct_alpha(U, V, counts, 1.0)
    LW = np.array([np.linalg.solve(F, dV[int(np.argmax(V @ U[w]))]) for w in range(N)])
    sims = np.array([fisher_dot(LW[x], LW[y], F) / (fisher_norm(LW[x], F) * fisher_norm(LW[y], F))
                     for x, y in zip(i, j)])
    # limit embeddings cluster words (shared χ*): keep pairs whose similarities are not tied
    _, first, count = np.unique(sims.round(9), return_index=True, return_counts=True)
    keep = np.sort(first[count == 1])
    assert len(keep) > 30
    lim = alpha_sweep(ae, [-np.inf, 1.0], ([w1[k] for k in keep], [w2[k] for k in keep], gold[keep]), folds=3)
    assert abs(lim.scores[0] - spearmanr(sims[keep], gold[keep]).statistic) < 1e-10
    base = spearmanr([U[x] @ U[y] / np.linalg.norm(U[x]) / np.linalg.norm(U[y]) for x, y in zip(i, j)], gold)
    assert abs(res.baseline - base.statistic) < 1e-10
    with pytest.raises(ValueError, match="folds"):
        alpha_sweep(ae, alphas, (w1, w2, gold), folds=1)
    with pytest.raises(ValueError, match="top"):
        alpha_sweep(ae, alphas, (w1, w2, gold), top=4)


@pytest.fixture(scope="module")
def analogy_questions():
    from embgeo.data import AnalogyQuestions

    rng = np.random.default_rng(5)
    q = rng.choice(N, size=(90, 4), replace=True)
    q = np.array([r for r in q if len(set(r)) == 4])[:72].astype(str)
    return AnalogyQuestions({"capital": q[:30], "gram1-adj": q[30:]}, name="toy")


@pytest.mark.parametrize("variant,geometry,normalize", [("U+V", "euclidean", "fisher"), ("U", "fisher", True)])
def test_analogy_sweep_is_eq6_with_the_papers_cross_validation(model, analogy_questions, variant, geometry,
                                                               normalize):
    from embgeo.data import AnalogyQuestions

    U, V, counts = model
    alphas = [-np.inf, -4.0, -1.0, 0.5, 1.0, 2.0]  # −∞: the limit embedding, selectable as in Table 3
    Q = analogy_questions.questions.astype(int)
    answers = np.zeros((len(alphas), len(Q)), dtype=int)
    for k, a in enumerate(alphas):
        W, F, p0, dV = direct_alpha(U, V, counts, 0.0 if a == -np.inf else a, variant=variant)
        if a == -np.inf:  # eq. 8–9: I⁻¹ ΔV_χ*, χ* = argmax_χ p_w(χ)/p0(χ) (p0 uniform: argmax of the logits)
            Ue = U if variant == "U" else U + V
            W = np.array([np.linalg.solve(F, dV[int(np.argmax(V @ Ue[w]))]) for w in range(N)])
        Wn = np.array([w / fisher_norm(w, F) for w in W])  # both settings normalise in Fisher's norm
        Fp = F if geometry == "fisher" else np.eye(D)
        for t, (qa, qb, qc, _) in enumerate(Q):
            answers[k, t] = min((x for x in range(N) if x not in (qa, qb, qc)),
                                key=lambda x: fisher_norm(Wn[qb] - Wn[qa] - Wn[x] + Wn[qc], Fp))  # eq. 6
    # gold answers: eq. 6's answer at a different α for each question, so that α matters
    gold = answers[np.arange(len(Q)) % len(alphas), np.arange(len(Q))]
    correct = answers == gold
    Qg = np.c_[Q[:, :3], gold].astype(str)
    questions = AnalogyQuestions({"capital": Qg[:30], "gram1-adj": Qg[30:]}, name="toy")
    ae = AlphaEmbeddings(U, V, counts=counts, p0="0", variant=variant, dtype="float64")
    res = analogy_sweep(ae, alphas, questions, geometry=geometry, normalize=normalize, random_state=4)
    np.testing.assert_array_equal(res.correct, correct)
    sem = np.arange(len(Q)) < 30
    np.testing.assert_allclose(res.accuracy["total"], correct.mean(axis=1))
    np.testing.assert_allclose(res.accuracy["semantic"], correct[:, sem].mean(axis=1))
    rng = np.random.default_rng(4)
    for g, m in (("semantic", sem), ("syntactic", ~sem), ("total", np.ones(len(Q), bool))):
        acc, std, chosen = paper_cv(correct[:, m], 3, 3, rng)
        assert abs(res.cv[g].score - acc) < 1e-12 and abs(res.cv[g].score_std - std) < 1e-12
        np.testing.assert_array_equal(res.cv[g].chosen_alphas, np.array(alphas)[chosen])
    assert [r["group"] for r in res.table()] == ["semantic", "syntactic", "total"]


def test_sweeps_plot_and_say_when_matplotlib_is_missing(model, analogy_questions, monkeypatch):
    import sys

    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    U, V, counts = model
    ae = AlphaEmbeddings(U, V, counts=counts, p0="0")
    from matplotlib.axes import Axes

    res = analogy_sweep(ae, [-1.0, 1.0, 2.0], analogy_questions)
    ax = res.plot()
    assert isinstance(ax, Axes)
    assert len(ax.lines) == 6  # three groups and their baselines
    rng = np.random.default_rng(3)
    w = rng.choice(len(U), size=(30, 2))
    pairs = ([str(a) for a in w[:, 0]], [str(b) for b in w[:, 1]], rng.standard_normal(30))
    sim = alpha_sweep(ae, [-1.0, 1.0, 2.0], pairs, folds=3)
    ax2 = sim.plot()
    assert isinstance(ax2, Axes) and ax2 is not ax
    assert len(ax2.lines) == 3  # ρ against α, the baseline, the cross-validated α
    assert sim.plot(ax=ax2) is ax2 and res.plot(ax=ax) is ax  # an Axes given is drawn on and returned
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    for r in (res, sim):
        with pytest.raises(ImportError, match=r"embgeo\[plot\]"):
            r.plot()


def test_sweeps_live_in_their_own_module_and_embgeo_alpha_re_exports_them():
    """Issue 23: the method (embgeo/alpha/_model.py) and choosing α (embgeo.alpha.sweeps) are split;
    ``from embgeo.alpha import alpha_sweep`` stays the documented spelling, without a warning."""
    import ast
    import subprocess
    import sys

    from embgeo.alpha import sweeps

    for name in sweeps.__all__:
        assert name in embgeo.alpha.__all__ and getattr(embgeo.alpha, name) is getattr(sweeps, name)
    assert AlphaEmbeddings.__module__ == "embgeo.alpha._model" and alpha_sweep.__module__ == "embgeo.alpha.sweeps"
    model_src = Path(embgeo.alpha.__file__).with_name("_model.py").read_text(encoding="utf-8")
    imported = {n.module for n in ast.walk(ast.parse(model_src)) if isinstance(n, ast.ImportFrom)}
    assert not any("sweeps" in (m or "") for m in imported)  # the method does not know the sweeps
    code = ("from embgeo.alpha import (alpha_sweep, analogy_sweep, SweepResult, AnalogySweepResult, "
            "CrossValidation, AlphaEmbeddings)")
    out = subprocess.run([sys.executable, "-W", "error", "-c", code],
                         cwd=Path(embgeo.__file__).resolve().parents[1], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


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


def test_gensim_skipgram_pipeline_reads_u_from_vectors_and_v_from_syn1neg(lee_model):
    U = lee_model.wv.vectors.astype(np.float64)
    V = lee_model.syn1neg.astype(np.float64)
    counts = np.array([lee_model.wv.get_vecattr(w, "count") for w in lee_model.wv.index_to_key], dtype=float)
    ae = AlphaEmbeddings(lee_model, p0="ud", dtype="float64")
    words = ["the", "government", "australia"]
    rows = [lee_model.wv.key_to_index[w] for w in words]
    got = ae.alpha_vectors(-1.0, words, geometry="euclidean")
    # the direct loop of eq. 1–4, on the three words only (p0 = corpus unigram of the gensim vocabulary)
    p0 = counts / counts.sum()
    dV = V - p0 @ V
    F = (dV * p0[:, None]).T @ dV
    for r, g in zip(rows, got):
        s = V @ U[r]
        pw = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        l = 2 / (1 - (-1.0)) * p0 * ((pw / p0) ** 1.0 - 1)
        np.testing.assert_allclose(g, np.linalg.solve(F, l @ dV), rtol=1e-7, atol=1e-9)
    # the same through Embeddings.from_gensim, which keeps syn1neg and the counts
    e2 = AlphaEmbeddings(embgeo.Embeddings.from_gensim(lee_model), p0="ud", dtype="float64")
    np.testing.assert_allclose(e2.alpha_vectors(-1.0, words, geometry="euclidean"), got, rtol=1e-12)


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
