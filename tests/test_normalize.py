"""VecMap normalisations against direct NumPy formulas, and on array_api_strict."""
import numpy as np
import pytest

from embgeo.backend import to_numpy
from embgeo.normalize import normalize


@pytest.fixture
def X(rng):
    X = rng.standard_normal((50, 7)).astype(np.float32) * 3 + 1
    X[4] = 0.0  # a zero row must stay zero under "unit"
    return X


def test_unit_scales_rows_to_length_one_and_keeps_zero_rows(X):
    Y = normalize(X, "unit")
    norms = np.linalg.norm(Y, axis=1)
    assert np.allclose(np.delete(norms, 4), 1, atol=1e-6)
    assert np.all(Y[4] == 0)
    assert Y.dtype == np.float32


def test_center_gives_zero_column_means(X):
    Y = normalize(X, "center")
    assert np.allclose(Y.mean(axis=0), 0, atol=1e-5)
    assert np.allclose(Y, X - X.mean(axis=0), atol=1e-5)


def test_unitdim_scales_columns_to_length_one(X):
    Y = normalize(X, "unitdim")
    assert np.allclose(np.linalg.norm(Y, axis=0), 1, atol=1e-6)


def test_centeremb_gives_zero_row_means(X):
    Y = normalize(X, "centeremb")
    assert np.allclose(Y.mean(axis=1), 0, atol=1e-5)


def test_chain_equals_vecmap_sequence(X):
    X64 = X.astype(np.float64)
    ref = X64 / np.maximum(np.linalg.norm(X64, axis=1, keepdims=True), 1e-300)
    ref[4] = 0
    ref = ref - ref.mean(axis=0)
    n = np.linalg.norm(ref, axis=1, keepdims=True)
    ref = ref / np.where(n == 0, 1, n)
    assert np.allclose(normalize(X, "unit", "center", "unit"), ref, atol=1e-5)
    assert np.allclose(normalize(X, ["unit", "center", "unit"]), ref, atol=1e-5)


def test_input_is_not_modified(X):
    before = X.copy()
    normalize(X, "unit", "center", "unitdim", "centeremb")
    assert np.array_equal(X, before)


def test_unknown_step_is_named(X):
    with pytest.raises(ValueError, match="'length'"):
        normalize(X, "length")


def test_every_namespace_and_device_matches_numpy(X, array_namespace):
    steps = ("unit", "center", "unitdim", "centeremb")
    X = X[:12]  # small: the CUDA namespace runs simulated where there is no GPU
    for chain in [(step,) for step in steps] + [steps]:
        Y = normalize(array_namespace.asarray(X), *chain, **array_namespace.kwargs)
        assert type(Y) is type(array_namespace.asarray(X))
        assert np.allclose(to_numpy(Y), normalize(X, *chain), atol=1e-6), chain


def test_blocked_path_equals_single_block(X):
    from embgeo.normalize import Normalizer

    steps = ("unit", "center", "unitdim", "centeremb")
    whole = normalize(X, *steps)
    budget = 7 * 8 * X.shape[1]  # a float64 block of 7 rows: 50 rows -> 8 blocks
    assert np.allclose(normalize(X, *steps, memory_budget=budget), whole, atol=1e-6)
    assert np.allclose(Normalizer(steps, memory_budget=budget).fit_transform(X), whole, atol=1e-6)


def test_integer_input_is_not_truncated():
    Y = normalize(np.array([[3, 4], [1, 0]]), "unit")
    assert np.allclose(Y, [[0.6, 0.8], [1.0, 0.0]])


def _vecmap_chain(X, steps):
    """VecMap's embeddings.normalize, written out in float64 NumPy."""
    X = np.array(X, dtype=np.float64)
    for s in steps:
        if s == "unit":
            n = np.linalg.norm(X, axis=1, keepdims=True)
            X = X / np.where(n == 0, 1, n)
        elif s == "center":
            X = X - X.mean(axis=0)
        elif s == "unitdim":
            n = np.linalg.norm(X, axis=0, keepdims=True)
            X = X / np.where(n == 0, 1, n)
        elif s == "centeremb":
            X = X - X.mean(axis=1, keepdims=True)
    return X


@pytest.mark.parametrize("steps", [("unit", "center", "unit"), ("center", "unitdim", "centeremb"), ()])
def test_normalizer_fits_once_and_transforms_held_out_rows(steps):
    from embgeo.normalize import Normalizer

    X = np.random.default_rng(1).standard_normal((80, 6)).astype(np.float32) + 2
    nz = Normalizer(steps)
    full = nz.fit_transform(X)
    np.testing.assert_allclose(full, _vecmap_chain(X, steps), atol=1e-6)
    # three held-out rows get the vocabulary's statistics, not their own
    np.testing.assert_allclose(nz.transform(X[[3, 40, 79]]), full[[3, 40, 79]], atol=1e-6)


def test_normalizer_errors():
    from embgeo.errors import NotFittedError
    from embgeo.normalize import Normalizer

    with pytest.raises(ValueError, match="unknown normalisation step 'unt'"):
        Normalizer(("unit", "unt"))
    with pytest.raises(NotFittedError):
        Normalizer().transform(np.ones((2, 2)))


def test_normalizer_on_array_api_strict():
    xps = pytest.importorskip("array_api_strict")
    from embgeo.normalize import Normalizer

    X = np.random.default_rng(2).standard_normal((30, 4)).astype(np.float32)
    nz = Normalizer(("center", "unitdim", "unit")).fit(xps.asarray(X))
    np.testing.assert_allclose(np.asarray(nz.transform(xps.asarray(X[:3]))),
                               _vecmap_chain(X, ("center", "unitdim", "unit"))[:3], atol=1e-6)


# ------------------------------------------------------------------------- hypothesis properties
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

from embgeo.normalize import STEPS  # noqa: E402

PROPERTY = settings(max_examples=40, deadline=None, derandomize=True)
# zeros (zero rows and columns must stay zero) and magnitudes far from float32's limits
ENTRIES = st.one_of(st.just(0.0), st.floats(-50, 50, width=32, allow_subnormal=False).filter(lambda v: abs(v) > 1e-3))
MATRICES = st.tuples(st.integers(1, 12), st.integers(1, 6)).flatmap(
    lambda shape: hnp.arrays(np.float32, shape, elements=ENTRIES))


def assert_same_up_to_rounding(again, once):
    scale = max(float(np.abs(once).max()), 1e-30)
    np.testing.assert_allclose(again, once, rtol=1e-5, atol=1e-5 * scale)


@PROPERTY
@given(X=MATRICES, step=st.sampled_from(STEPS))
def test_every_step_is_idempotent(X, step):
    once = normalize(X, step)
    assert_same_up_to_rounding(normalize(once, step), once)


@PROPERTY
@given(X=MATRICES, chain=st.lists(st.sampled_from(STEPS), min_size=1, max_size=4))
def test_a_chain_ends_on_a_fixed_point_of_its_last_step(X, chain):
    """Chains as VecMap's ("unit", "center", "unit"): repeating the last step changes nothing."""
    once = normalize(X, *chain)
    assert_same_up_to_rounding(normalize(once, chain[-1]), once)
    assert_same_up_to_rounding(normalize(X, *chain, "none"), once)


@PROPERTY
@given(X=MATRICES)
def test_the_two_centerings_commute_so_their_chain_is_idempotent(X):
    """``center`` (columns) and ``centeremb`` (rows) are commuting projections."""
    once = normalize(X, "center", "centeremb")
    assert_same_up_to_rounding(normalize(once, "center", "centeremb"), once)
    assert_same_up_to_rounding(normalize(X, "centeremb", "center"), once)
