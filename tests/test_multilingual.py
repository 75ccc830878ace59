"""MultilingualMapper: pivot mappings and generalized Procrustes analysis (issue 31, item 1)."""
import numpy as np
import pytest
from sklearn.base import clone

import embgeo
from embgeo.crosslingual import Mapper, MultilingualMapper, procrustes
from embgeo.errors import NotFittedError
from embgeo.evaluate import bli


def _rotation(rng, d):
    return np.linalg.qr(rng.standard_normal((d, d)))[0]


def _spaces(rng, langs=("en", "de", "fi"), n=800, d=10, noise=0.0):
    """Every language a rotated (and noisy) copy of one latent space: word i of each is a translation."""
    X = rng.standard_normal((n, d))
    R = {lang: _rotation(rng, d) for lang in langs}
    spaces = {lang: embgeo.Embeddings([f"{lang}{i}" for i in range(n)],
                                      (X @ R[lang] + noise * rng.standard_normal((n, d))).astype(np.float32))
              for lang in langs}
    return spaces, R


def _dict(a, b, rows):
    return [(f"{a}{i}", f"{b}{i}") for i in rows]


@pytest.mark.parametrize("method", ["pivot", "gpa"])
def test_known_rotations_are_recovered_exactly(rng, method):
    spaces, R = _spaces(rng)
    dicts = {("en", "de"): _dict("en", "de", range(200)), ("fi", "en"): _dict("fi", "en", range(100, 300))}
    mm = MultilingualMapper(method, normalize=()).fit(spaces, dicts)
    T = mm.transforms_
    for a in spaces:
        for b in spaces:
            # T_a T_bᵀ is the rotation from a's space to b's: R_aᵀ R_b
            np.testing.assert_allclose(T[a] @ T[b].T, R[a].T @ R[b], atol=1e-5)
    if method == "pivot":
        np.testing.assert_allclose(T["de"], R["de"].T @ R["en"], atol=1e-5)
        np.testing.assert_array_equal(T["en"], np.eye(10))


def test_pivot_composes_through_a_language_that_reaches_the_pivot(rng):
    spaces, R = _spaces(rng, langs=("en", "de", "fi", "sv"))
    dicts = {("en", "de"): _dict("en", "de", range(150)), ("de", "fi"): _dict("de", "fi", range(150, 300)),
             ("sv", "fi"): _dict("sv", "fi", range(300, 450))}
    mm = MultilingualMapper("pivot", normalize=()).fit(spaces, dicts)
    assert mm.paths_["sv"] == ["sv", "fi", "de", "en"]
    np.testing.assert_allclose(mm.transforms_["sv"], R["sv"].T @ R["en"], atol=1e-5)
    # two non-pivot languages meet in the shared space: every Swedish word finds its Finnish translation
    sv, fi = mm.pair(spaces, "sv", "fi")
    res = bli(sv, fi, _dict("sv", "fi", range(450, 800)), retrieval="csls")
    assert res.p_at(1) == 1.0 and res.coverage == 1.0


def test_gpa_minimises_the_distance_to_the_mean_better_than_pivot_and_is_a_fixed_point(rng):
    spaces, _ = _spaces(rng, noise=0.3)
    rows = range(300)
    dicts = {("en", "de"): _dict("en", "de", rows), ("en", "fi"): _dict("en", "fi", rows),
             ("de", "fi"): _dict("de", "fi", rows)}
    E = {lang: spaces[lang].vectors[:300].astype(np.float64) for lang in spaces}

    def objective(T):
        G = np.mean([E[lang] @ T[lang] for lang in E], axis=0)
        return sum(np.sum((E[lang] @ T[lang] - G) ** 2) for lang in E), G

    gpa = MultilingualMapper("gpa", normalize=(), tol=1e-12).fit(spaces, dicts)
    piv = MultilingualMapper("pivot", normalize=()).fit(spaces, dicts)
    f_gpa, G = objective(gpa.transforms_)
    assert f_gpa < objective(piv.transforms_)[0]
    assert gpa.history_[0]["objective"] == pytest.approx(f_gpa / 900, rel=1e-6)
    for lang in E:  # Procrustes of each language onto the mean gives its own map back
        np.testing.assert_allclose(procrustes(E[lang], G), gpa.transforms_[lang], atol=1e-6)


def test_gpa_tuples_join_pairs_through_shared_words_and_tolerate_missing_languages(rng):
    spaces, R = _spaces(rng, noise=0.0)
    # no en-fi dictionary; en-de and de-fi share the German words 100..199 (full tuples there)
    dicts = {("en", "de"): _dict("en", "de", range(200)), ("de", "fi"): _dict("de", "fi", range(100, 300))}
    mm = MultilingualMapper("gpa", normalize=()).fit(spaces, dicts)
    assert mm.history_[0]["n_tuples"] == 300
    np.testing.assert_allclose(mm.transforms_["en"] @ mm.transforms_["fi"].T, R["en"].T @ R["fi"], atol=1e-5)


def test_gpa_self_learning_refines_from_induced_dictionaries(rng):
    spaces, _ = _spaces(rng, n=600, noise=0.15)
    dicts = {("en", "de"): _dict("en", "de", range(40)), ("en", "fi"): _dict("en", "fi", range(40))}
    base = MultilingualMapper("gpa", normalize=()).fit(spaces, dicts)
    ref = MultilingualMapper("gpa", normalize=(), self_learning=True, max_iter=2, vocabulary_cutoff=600,
                             progress=False).fit(spaces, dicts)
    assert [r["round"] for r in ref.history_] == [0, 1, 2]
    assert ref.history_[1]["n_tuples"] > base.history_[0]["n_tuples"]
    test = _dict("de", "fi", range(100, 600))
    p_base = bli(*base.pair(spaces, "de", "fi"), test).p_at(1)
    p_ref = bli(*ref.pair(spaces, "de", "fi"), test).p_at(1)
    assert p_ref >= p_base


def test_a_language_without_a_dictionary_path_is_named(rng):
    spaces, _ = _spaces(rng, langs=("en", "de", "fi", "sv"))
    dicts = {("en", "de"): _dict("en", "de", range(50)), ("fi", "de"): _dict("fi", "de", range(50))}
    for method in ("pivot", "gpa"):
        with pytest.raises(ValueError, match="no dictionary path links 'sv' to 'en'"):
            MultilingualMapper(method).fit(spaces, dicts)


def test_dictionary_coverage_is_recorded_and_a_dictionary_out_of_the_vocabularies_is_named(rng):
    spaces, _ = _spaces(rng)
    half = _dict("en", "de", range(100)) + [(f"zz{i}", f"de{i}") for i in range(100)]
    mm = MultilingualMapper("pivot").fit(spaces, {("en", "de"): half, ("en", "fi"): _dict("en", "fi", range(50))})
    assert mm.dictionary_coverage_[("en", "de")] == (100, 200)
    bad = {("en", "de"): [("xx", "yy"), ("xx2", "yy2")], ("en", "fi"): _dict("en", "fi", range(50))}
    with pytest.raises(ValueError, match=r"dictionary en-de: 0 of its 2 pairs .*coverage 0.0%"):
        MultilingualMapper("pivot").fit(spaces, bad)
    with pytest.raises(ValueError, match="'xx' which is not in spaces|names language 'xx'"):
        MultilingualMapper("pivot").fit(spaces, {("en", "xx"): [("a", "b")]})


def test_gpa_needs_one_dimension_or_pca(rng):
    spaces, _ = _spaces(rng)
    wide = rng.standard_normal((800, 16)).astype(np.float32)
    spaces["fi"] = embgeo.Embeddings(spaces["fi"].words, wide)
    dicts = {("en", "de"): _dict("en", "de", range(100)), ("en", "fi"): _dict("en", "fi", range(100))}
    with pytest.raises(ValueError, match=r"needs one dimension for all: got \{'en': 10, 'de': 10, 'fi': 16\}.*pca"):
        MultilingualMapper("gpa").fit(spaces, dicts)
    mm = MultilingualMapper("gpa", pca="match").fit(spaces, dicts)
    assert mm.transform("fi", spaces["fi"]).dim == 10 and mm.n_features_["fi"] == 16
    # pivot maps a wider language onto the pivot's dimension without pca (semi-orthogonal Procrustes)
    assert MultilingualMapper("pivot").fit(spaces, dicts).transform("fi", spaces["fi"]).dim == 10


def test_pivot_refuses_a_mapping_that_moves_the_pivot(rng):
    spaces, _ = _spaces(rng)
    dicts = {("en", "de"): _dict("en", "de", range(100)), ("en", "fi"): _dict("en", "fi", range(100))}
    with pytest.raises(ValueError, match="leaves the target side alone"):
        MultilingualMapper("pivot", mapper=Mapper()).fit(spaces, dicts)
    # a self-learning template is cloned per language
    mm = MultilingualMapper("pivot", mapper=Mapper.from_recipe("muse", max_iter=1, progress=False)).fit(spaces, dicts)
    assert set(mm.mappers_) == {"de", "fi"} and all(len(m.history_) == 1 for m in mm.mappers_.values())


def test_transform_reuses_the_fitted_statistics_and_checks_its_input(rng):
    spaces, _ = _spaces(rng, noise=0.1)
    dicts = {("en", "de"): _dict("en", "de", range(100)), ("en", "fi"): _dict("en", "fi", range(100))}
    mm = MultilingualMapper("gpa").fit(spaces, dicts)
    whole = mm.transform("de", spaces["de"])
    few = mm.transform("de", spaces["de"].vectors[:5])
    np.testing.assert_allclose(few, whole.vectors[:5], atol=1e-6)
    with pytest.raises(ValueError, match="unknown language 'sv'"):
        mm.transform("sv", spaces["de"])
    with pytest.raises(ValueError, match="dimension 3"):
        mm.transform("de", np.ones((2, 3), dtype=np.float32))
    with pytest.raises(NotFittedError):
        clone(mm).transform("de", spaces["de"])
    with pytest.raises(ValueError, match="at least three languages"):
        MultilingualMapper().fit({"en": spaces["en"], "de": spaces["de"]}, dicts)


def test_real_english_finnish_and_a_rotated_finnish_in_one_space(shared_data, glove):
    """en GloVe 50d, fi floret 300d (PCA 50; 10k words each) and "fx", a known random rotation of fi plus noise, with
    the yacle en-fi dictionary and an identity fi-fx dictionary of 5k words; pivot fi. BLI en→fx goes
    through the shared space (two non-pivot languages) and must match en→fi closely."""
    from embgeo.data import read_dictionary, split_dictionary

    rng = np.random.default_rng(0)
    en = glove.top(10000)
    fi = embgeo.load(str(shared_data / "vectors" / "fi.floret.300d.30k.vec.gz"), limit=10000)
    Q = _rotation(rng, fi.dim)
    noise = 0.05 * np.asarray(fi.vectors).std() * rng.standard_normal(fi.vectors.shape)
    fx = embgeo.Embeddings([w + "_x" for w in fi.words], (np.asarray(fi.vectors) @ Q + noise).astype(np.float32))
    pairs = read_dictionary(shared_data / "bli" / "yacle.train.freq.5k.en-fi.tsv", lowercase=True)
    train, test = split_dictionary(pairs, 0.2)
    spaces = {"fi": fi, "en": en, "fx": fx}
    dicts = {("en", "fi"): train, ("fi", "fx"): [(w, w + "_x") for w in fi.words[:5000]]}
    test_x = [(a, b + "_x") for a, b in test]
    out = {}
    for method in ("pivot", "gpa"):
        mm = MultilingualMapper(method, pca=50, progress=False).fit(spaces, dicts)
        out[method] = (bli(*mm.pair(spaces, "en", "fi"), test, retrieval="csls").p_at(1),
                       bli(*mm.pair(spaces, "en", "fx"), test_x, retrieval="csls").p_at(1))
    for p_fi, p_fx in out.values():
        assert 0.15 < p_fi < 0.45 and abs(p_fi - p_fx) < 0.03


@pytest.mark.parametrize("device", [None, "device1"])
def test_gpa_with_self_learning_runs_in_the_arrays_own_namespace(rng, device, monkeypatch):
    """The vocabulary-wide induction stays in the input's namespace (array_api_strict stands in for
    CuPy; on an emulated second device a stray host array fails): same maps as NumPy's."""
    xps = pytest.importorskip("array_api_strict")
    from embgeo.crosslingual import _multilingual

    seen, induce = [], _multilingual._muse_dictionary

    def spy(A, B, *args):
        seen.append((type(A).__module__.split(".")[0], type(B).__module__.split(".")[0]))
        return induce(A, B, *args)

    monkeypatch.setattr(_multilingual, "_muse_dictionary", spy)
    spaces, _ = _spaces(rng, n=500, noise=0.15)
    ids = np.stack([np.arange(40)] * 2, axis=1)
    dicts = {("en", "de"): ids, ("en", "fi"): ids}
    kw = dict(normalize=("unit", "center", "unit"), self_learning=True, max_iter=2, vocabulary_cutoff=500,
              progress=False)
    ref = MultilingualMapper("gpa", **kw).fit({k: e.vectors for k, e in spaces.items()}, dicts)
    dev = None if device is None else xps.Device(device)
    strict = {k: xps.asarray(e.vectors, device=dev) for k, e in spaces.items()}
    seen.clear()
    got = MultilingualMapper("gpa", **kw).fit(strict, dicts)
    assert seen and set(seen) == {("array_api_strict", "array_api_strict")}   # no host copy of a vocabulary
    assert [r["n_tuples"] for r in got.history_] == [r["n_tuples"] for r in ref.history_]
    for lang in spaces:
        np.testing.assert_allclose(got.transforms_[lang], ref.transforms_[lang], atol=1e-5)
    Y = got.transform("de", strict["de"])
    assert type(Y) is type(strict["de"]) and Y.device == strict["de"].device
