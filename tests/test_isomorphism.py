"""embgeo.diagnostics.isomorphism against brute forces written from the papers, and its sanity properties."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.sparse.csgraph import minimum_spanning_tree
from scipy.stats import pearsonr

import embgeo
from embgeo.diagnostics import ISOMORPHISM_MEASURES, isomorphism
from embgeo.diagnostics import _isomorphism as iso
from embgeo.normalize import normalize


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def _pairs(n):
    return np.stack([np.arange(n), np.arange(n)], axis=1)


def _rotation(rng, d):
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return Q


# ------------------------------------------------------------------ brute forces from the papers
def _brute_sample(V, rows, normalized=True):
    X = normalize(V.astype(np.float64), "unit", "center", "unit") if normalized else V.astype(np.float64)
    return X[rows]


def _brute_laplacian(X, k):
    """Søgaard et al. (2018) §4.3: the k-NN graph by cosine (self excluded, ties to the lower row), L = D − A."""
    n = len(X)
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    S = U @ U.T
    A = np.zeros((n, n))
    for i in range(n):
        order = sorted((j for j in range(n) if j != i), key=lambda j: (-S[i, j], j))
        for j in order[:k]:
            A[i, j] = A[j, i] = 1.0
    return np.linalg.eigvalsh(np.diag(A.sum(1)) - A)


def _brute_evs(X, Z, k=1, energy=0.9):
    l1, l2 = _brute_laplacian(X, k), _brute_laplacian(Z, k)

    def select(lam):
        run = 0.0
        for i, v in enumerate(lam):
            run += v
            if run / lam.sum() >= energy:
                return i + 1
        return len(lam)

    kk = min(select(l1), select(l2))
    return sum((l1[i] - l2[i]) ** 2 for i in range(kk))


def _brute_rsim(X, Z):
    """Vulić et al. (2020), rsim_script.py: Pearson over all ordered pairs w != v of cosines."""
    cx, cz = [], []
    for i, j in itertools.permutations(range(len(X)), 2):
        cx.append(X[i] @ X[j] / np.linalg.norm(X[i]) / np.linalg.norm(X[j]))
        cz.append(Z[i] @ Z[j] / np.linalg.norm(Z[i]) / np.linalg.norm(Z[j]))
    return pearsonr(cx, cz)[0]


def _brute_evd(X, Z):
    s1, s2 = np.linalg.svd(X, compute_uv=False), np.linalg.svd(Z, compute_uv=False)
    return sum((math.log(a) - math.log(b)) ** 2 for a, b in zip(s1, s2))


def _brute_econd(X):
    s = np.linalg.svd(X, compute_uv=False)
    p = s / s.sum()
    er = int(math.floor(math.exp(-sum(v * math.log(v) for v in p)) + 1e-9))
    return s[0] / s[er - 1]


# ------------------------------------------------------------------------------ the measures
@pytest.mark.parametrize("n_neighbors", [1, 3])
def test_eigenvector_similarity_matches_brute_force(rng, n_neighbors):
    X, Z = rng.standard_normal((60, 6)), rng.standard_normal((70, 6))
    res = isomorphism(X, Z, _pairs(50), n_neighbors=n_neighbors, measures=["eigenvector_similarity"])
    want = _brute_evs(_brute_sample(X, np.arange(50)), _brute_sample(Z, np.arange(50)), n_neighbors)
    assert res.eigenvector_similarity == pytest.approx(want, rel=1e-9, abs=1e-9)
    assert res.n == 50


def test_relational_similarity_matches_brute_force_blocked(rng):
    X, Z = rng.standard_normal((40, 5)), rng.standard_normal((40, 7))
    Z[:, :5] += 2 * X  # related, so r is far from 0
    pairs = rng.permutation(40)[:30]
    P = np.stack([pairs, pairs], axis=1)
    want = _brute_rsim(_brute_sample(X, pairs), _brute_sample(Z, pairs))
    for budget in (None, 4096):
        res = isomorphism(X, Z, P, measures=["relational_similarity"], memory_budget=budget)
        assert res.relational_similarity == pytest.approx(want, abs=1e-10)
    assert 0.3 < want < 1


def test_spectral_measures_match_brute_force(rng):
    X, Z = rng.standard_normal((80, 6)) * [5, 3, 2, 1, 1, .5], rng.standard_normal((80, 6))
    res = isomorphism(X, Z, _pairs(80), measures=["eigenvalue_divergence", "condition_numbers"])
    Xs, Zs = _brute_sample(X, np.arange(80)), _brute_sample(Z, np.arange(80))
    assert res.eigenvalue_divergence == pytest.approx(_brute_evd(Xs, Zs), rel=1e-9)
    c = res.condition_numbers
    assert c.source == pytest.approx(np.linalg.cond(Xs), rel=1e-9)
    assert c.target == pytest.approx(np.linalg.cond(Zs), rel=1e-9)
    assert c.source_effective == pytest.approx(_brute_econd(Xs), rel=1e-9)
    assert c.target_effective == pytest.approx(_brute_econd(Zs), rel=1e-9)
    assert c.harmonic_mean == pytest.approx(2 * c.source * c.target / (c.source + c.target))


def test_without_normalisation_rows_are_taken_as_given(rng):
    X, Z = rng.standard_normal((30, 4)) + 3, rng.standard_normal((30, 4))
    res = isomorphism(X, Z, _pairs(30), normalize=False, measures=["eigenvalue_divergence"])
    assert res.eigenvalue_divergence == pytest.approx(_brute_evd(X, Z), rel=1e-9)


def test_normalisation_centres_on_the_whole_vocabulary(rng):
    # the sample is 20 rows of 100: the mean subtracted is the vocabulary's, as in the released scripts
    X, Z = rng.standard_normal((100, 4)) + 1, rng.standard_normal((100, 4))
    res = isomorphism(X, Z, _pairs(20), measures=["eigenvalue_divergence"])
    want = _brute_evd(_brute_sample(X, np.arange(20)), _brute_sample(Z, np.arange(20)))
    assert res.eigenvalue_divergence == pytest.approx(want, rel=1e-9)


def test_h0_diagram_is_the_minimum_spanning_tree(rng):
    X = rng.standard_normal((50, 5))
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    want = np.sort(minimum_spanning_tree(D).data)
    np.testing.assert_allclose(iso._h0_deaths(X), want, rtol=1e-9)


def test_h0_diagram_matches_ripser(rng):
    ripser = pytest.importorskip("ripser")
    X = rng.standard_normal((40, 5))
    dgm = ripser.ripser(X, maxdim=0)["dgms"][0]
    np.testing.assert_allclose(iso._h0_deaths(X), np.sort(dgm[np.isfinite(dgm[:, 1]), 1]), rtol=1e-6)


def test_gromov_hausdorff_matches_gudhi_rips_pipeline(rng):
    """Patra et al.'s proxy computed the long way: gudhi's Rips complex of the distance matrix."""
    gudhi = pytest.importorskip("gudhi")
    X, Z = rng.standard_normal((40, 5)), rng.standard_normal((40, 5)) * [3, 1, 1, 1, .2]
    res = isomorphism(X, Z, _pairs(40), measures=["gromov_hausdorff"])

    def diagram(A):
        D = np.sqrt(((A[:, None] - A[None]) ** 2).sum(-1))
        st = gudhi.RipsComplex(distance_matrix=D).create_simplex_tree(max_dimension=1)
        st.persistence()
        return st.persistence_intervals_in_dimension(0)

    want = gudhi.bottleneck_distance(diagram(_brute_sample(X, np.arange(40))),
                                     diagram(_brute_sample(Z, np.arange(40))), 0)
    assert res.gromov_hausdorff == pytest.approx(want, rel=1e-6)
    assert res.gromov_hausdorff > 0


def test_gromov_hausdorff_with_persim_equals_gudhi(rng, monkeypatch):
    pytest.importorskip("persim")
    pytest.importorskip("gudhi")
    d1, d2 = np.sort(rng.random(30)), np.sort(rng.random(25))
    assert iso._bottleneck(d1, d2, "persim") == pytest.approx(iso._bottleneck(d1, d2, "gudhi"), rel=1e-6)


# --------------------------------------------------------------------------------- sanity
def test_rotated_copy_scores_perfectly_and_random_space_worse(rng):
    X = rng.standard_normal((150, 10)) * np.linspace(3, 0.5, 10)
    Y = X @ _rotation(rng, 10)
    R = rng.standard_normal((150, 10))
    same = isomorphism(X, Y, _pairs(150))
    other = isomorphism(X, R, _pairs(150))
    assert same.eigenvector_similarity == pytest.approx(0, abs=1e-9)
    assert same.relational_similarity == pytest.approx(1, abs=1e-9)
    assert same.eigenvalue_divergence == pytest.approx(0, abs=1e-9)
    cn = same.condition_numbers
    assert cn.source == pytest.approx(cn.target, rel=1e-9)
    assert other.eigenvector_similarity > 0.1
    assert other.relational_similarity < 0.5
    assert other.eigenvalue_divergence > 100 * max(same.eigenvalue_divergence, 1e-12)
    if iso.bottleneck_backend() is not None:
        assert same.gromov_hausdorff == pytest.approx(0, abs=1e-6)
        assert other.gromov_hausdorff > 10 * max(same.gromov_hausdorff, 1e-9)


def test_word_dictionary_covered_pairs_and_coverage(rng):
    words = [f"w{i}" for i in range(50)]
    a = embgeo.Embeddings(words, rng.standard_normal((50, 6)).astype(np.float32))
    b = embgeo.Embeddings([w + "_x" for w in words], a.vectors @ _rotation(rng, 6).astype(np.float32))
    pairs = [(w, w + "_x") for w in words[:40]] + [("nope", "w1_x"), ("w2", "nope")]
    res = isomorphism(a, b, pairs)
    assert res.n == 40 and res.n_pairs == 42 and res.coverage == pytest.approx(40 / 42)
    assert res.relational_similarity == pytest.approx(1, abs=1e-5)


def test_repeated_words_are_used_once(rng):
    X, Z = rng.standard_normal((30, 4)), rng.standard_normal((30, 4))
    P = np.array([[0, 0], [0, 1], [1, 0], [2, 2], [3, 3]])
    assert isomorphism(X, Z, P).n == 3   # (0, 1) repeats source 0, (1, 0) target 0


def test_frequency_aligned_vocabularies_skip_relational_similarity(rng):
    X, Z = rng.standard_normal((40, 5)), rng.standard_normal((60, 5))
    res = isomorphism(X, Z, n=30)
    assert res.n == 30 and res.relational_similarity is None
    assert "dictionary" in res.skipped["relational_similarity"]
    with pytest.raises(ValueError, match="dictionary"):
        isomorphism(X, Z, n=30, measures=["relational_similarity"])


# ------------------------------------------------------------------------------ bad input
def test_no_covered_pair_names_coverage(rng):
    a = embgeo.Embeddings(["a", "b", "c"], rng.standard_normal((3, 2)).astype(np.float32))
    with pytest.raises(ValueError, match="coverage 0 of 2 pairs"):
        isomorphism(a, a, [("x", "y"), ("z", "a")])


def test_different_dimensions_refused_where_needed(rng):
    X, Z = rng.standard_normal((40, 5)), rng.standard_normal((40, 7))
    with pytest.raises(ValueError, match="source 5d and target 7d"):
        isomorphism(X, Z, _pairs(40), measures=["eigenvalue_divergence"])
    res = isomorphism(X, Z, _pairs(40))
    assert res.eigenvalue_divergence is None and "one dimension" in res.skipped["eigenvalue_divergence"]
    assert res.eigenvector_similarity is not None and res.condition_numbers is not None


def test_gromov_hausdorff_without_package(rng, monkeypatch):
    monkeypatch.setattr(iso, "bottleneck_backend", lambda: None)
    X = rng.standard_normal((20, 3))
    assert isomorphism(X, X, _pairs(20)).skipped["gromov_hausdorff"].startswith("needs gudhi or persim")
    with pytest.raises(ImportError, match="gudhi"):
        isomorphism(X, X, _pairs(20), measures=["gromov_hausdorff"])


@pytest.mark.parametrize("measure", ["eigenvector_similarity", "eigenvalue_divergence"])
def test_centring_on_the_vocabulary_or_on_the_sample(rng, measure):
    # 60 sampled rows of 200, the vocabulary's mean away from the sample's (the rest is shifted): the two
    # readings of the scripts' "minus the mean" give different numbers, each equal to its brute force
    X, Z = rng.standard_normal((200, 5)), rng.standard_normal((200, 5))
    X[60:] += 1.5
    Z[60:] -= 1.0
    rows = np.arange(60)
    brute = _brute_evs if measure == "eigenvector_similarity" else _brute_evd
    on_sample = brute(normalize(X[rows].astype(np.float64), "unit", "center", "unit"),
                      normalize(Z[rows].astype(np.float64), "unit", "center", "unit"))
    on_vocabulary = brute(_brute_sample(X, rows), _brute_sample(Z, rows))
    got = {c: getattr(isomorphism(X, Z, _pairs(60), center=c, measures=[measure]), measure)
           for c in ("vocabulary", "sample")}
    assert got["sample"] == pytest.approx(on_sample, rel=1e-9, abs=1e-9)
    assert got["vocabulary"] == pytest.approx(on_vocabulary, rel=1e-9, abs=1e-9)
    assert isomorphism(X, Z, _pairs(60), measures=[measure]).to_dict()[measure] == got["vocabulary"]  # the default
    assert abs(on_sample - on_vocabulary) > 1e-3 * max(abs(on_sample), abs(on_vocabulary))
    with pytest.raises(ValueError, match="center must be"):
        isomorphism(X, Z, _pairs(60), center="target", measures=[measure])


def test_bad_arguments(rng):
    X = rng.standard_normal((20, 3))
    with pytest.raises(ValueError, match="unknown measure"):
        isomorphism(X, X, _pairs(20), measures=["spectral"])
    with pytest.raises(ValueError, match="n_neighbors"):
        isomorphism(X, X, _pairs(20), n_neighbors=20)
    with pytest.raises(ValueError, match="at least 3"):
        isomorphism(X, X, _pairs(2))


def test_oversized_graph_component_refused(rng, monkeypatch):
    X = rng.standard_normal((200, 3))
    with pytest.raises(ValueError, match="connected component"):
        isomorphism(X, X, _pairs(200), n_neighbors=30, measures=["eigenvector_similarity"], memory_budget=1000)


def test_array_api_strict_matches_numpy(rng):
    xps = pytest.importorskip("array_api_strict")
    X, Z = rng.standard_normal((40, 5)), rng.standard_normal((40, 5))
    names = ["eigenvector_similarity", "relational_similarity", "eigenvalue_divergence", "condition_numbers"]
    ref = isomorphism(X, Z, _pairs(40), measures=names)
    got = isomorphism(xps.asarray(X), xps.asarray(Z), _pairs(40), measures=names)
    for name in names[:3]:
        assert getattr(got, name) == pytest.approx(getattr(ref, name), rel=1e-9, abs=1e-12)
    assert got.condition_numbers.source == pytest.approx(ref.condition_numbers.source, rel=1e-9)


def test_result_table_row_and_plot(rng):
    X = rng.standard_normal((30, 4))
    res = isomorphism(X, X, _pairs(30))
    row = res.to_dict()
    assert set(row) >= {"eigenvector_similarity", "relational_similarity", "eigenvalue_divergence", "cond_hm",
                        "econd_hm", "gromov_hausdorff", "n", "coverage"}
    assert set(ISOMORPHISM_MEASURES) <= set(row) | {"condition_numbers"}
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    ax = res.plot()
    assert len(ax) == 2 and ax[0].get_title().startswith("k-NN graph Laplacians")


# ------------------------------------------------------------------------------- property
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=30, deadline=None, derandomize=True)
@given(n=st.integers(8, 40), d=st.integers(2, 6), seed=st.integers(0, 2**16), scale=st.floats(0.1, 10))
def test_an_isometry_of_one_side_is_perfectly_isomorphic(n, d, seed, scale):
    """Rotating and scaling one space changes none of the measures' verdicts (the papers' premise)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n + 5, d)) * rng.uniform(0.2, 3, d)
    res = isomorphism(X, scale * X @ _rotation(rng, d), _pairs(n),
                      measures=["eigenvector_similarity", "relational_similarity", "eigenvalue_divergence"])
    assert res.eigenvector_similarity == pytest.approx(0, abs=1e-8)
    assert res.relational_similarity == pytest.approx(1, abs=1e-8)
    assert res.eigenvalue_divergence == pytest.approx(0, abs=1e-8)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"n": 0}, ValueError, r"n must be at least 3 \(rows in the sample.*got 0"),
    ({"n": -5}, ValueError, r"n must be at least 3.*got -5"),
    ({"n": 2}, ValueError, r"n must be at least 3.*got 2"),
    ({"n": 10.0}, TypeError, r"n must be an integer.*float 10.0"),
    ({"n": True}, TypeError, r"n must be an integer.*bool True"),
    ({"n_neighbors": 0}, ValueError, r"n_neighbors must be at least 1.*got 0"),
    ({"n_neighbors": 1.5}, TypeError, r"n_neighbors must be an integer.*float 1.5"),
])
def test_counts_are_validated_not_read_as_all_pairs(rng, kwargs, error, match):
    """Issue 38, item 10: n=0 was accepted and silently used every pair of the dictionary."""
    X, Z = rng.standard_normal((40, 5)), rng.standard_normal((40, 5))
    for dictionary in (_pairs(40), None):
        with pytest.raises(error, match=match):
            isomorphism(X, Z, dictionary, measures=["eigenvalue_divergence"], **kwargs)
    assert isomorphism(X, Z, _pairs(40), n=3, measures=["eigenvalue_divergence"]).n == 3
    assert isomorphism(X, Z, _pairs(40), n=np.int64(10), measures=["eigenvalue_divergence"]).n == 10
