"""embgeo.backend: namespaces, conversions, dtype policy and input validation."""
import numpy as np
import pytest

array_api_strict = pytest.importorskip("array_api_strict")

from embgeo import backend


def test_numpy_arrays_give_numpy_compatible_namespace():
    xp = backend.get_namespace(np.ones((2, 2)))
    assert xp.__name__ == "array_api_compat.numpy"


def test_array_api_strict_arrays_give_their_own_namespace():
    xp = backend.get_namespace(array_api_strict.ones((2, 2)))
    assert xp is array_api_strict


def test_mixing_libraries_is_refused():
    with pytest.raises(TypeError):
        backend.get_namespace(np.ones(2), array_api_strict.ones(2))


def test_asarray_follows_like_and_defaults_to_float32():
    a = backend.asarray([[1, 2], [3, 4]])
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    b = backend.asarray(np.ones(3, dtype=np.float64))
    assert b.dtype == np.float64  # floating input keeps its dtype
    c = backend.asarray(np.ones(3), like=array_api_strict.ones(1))
    assert backend.get_namespace(c) is array_api_strict
    d = backend.asarray([1.0], dtype="float64")
    assert d.dtype == np.float64


def test_resolve_dtype_rejects_non_float():
    with pytest.raises(ValueError, match="float32 or float64"):
        backend.resolve_dtype("int32")


def test_set_default_dtype_switches_policy():
    try:
        backend.set_default_dtype("float64")
        assert backend.asarray([1, 2]).dtype == np.float64
    finally:
        backend.set_default_dtype("float32")
    assert backend.asarray([1, 2]).dtype == np.float32


def test_to_numpy_round_trips_strict_arrays():
    x = array_api_strict.asarray([[1.0, 2.0]])
    y = backend.to_numpy(x)
    assert isinstance(y, np.ndarray) and y.tolist() == [[1.0, 2.0]]


def test_cuda_moves_to_cupy_or_is_a_clear_error_without_it():
    import importlib.util

    if importlib.util.find_spec("cupy") is None:
        with pytest.raises(ImportError, match="CuPy"):
            backend.to_device(np.ones(2), "cuda")
    else:  # pragma: no cover - where CuPy is installed (the GPU run of benchmarks/gpu.py)
        x = backend.to_device(np.ones(2), "cuda")
        assert backend.is_cupy(x) and backend.to_numpy(x).tolist() == [1.0, 1.0]
        assert backend.is_numpy(backend.to_device(x, "cpu"))
    with pytest.raises(ValueError, match="device"):
        backend.to_device(np.ones(2), "tpu")
    assert not backend.is_cupy(np.ones(2))


@pytest.mark.parametrize("bad, msg", [
    (np.ones(3), "expected ndim to be 2"),
    (np.ones((0, 3)), "empty"),
    (np.array([[1.0, 2.0], [np.nan, 0.0]]), "row 1"),
    (np.array([[np.inf, 2.0]]), "row 0"),
])
def test_check_matrix_names_the_problem(bad, msg):
    with pytest.raises(ValueError, match=msg):
        backend.check_matrix(bad)


def test_import_embgeo_does_not_import_heavy_modules():
    import subprocess
    import sys

    code = ("import sys, embgeo; heavy = [m for m in ('numba', 'faiss', 'gensim', 'pymanopt', 'cupy', "
            "'sklearn', 'scipy') if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_resolve_dtype_works_in_a_fresh_interpreter():
    # array_api_compat.numpy is a submodule that must be imported explicitly
    import subprocess
    import sys

    code = ("import numpy as np; from embgeo import backend; "
            "print(np.dtype(backend.resolve_dtype(None)).name, backend.asarray([1]).dtype)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["float32", "float32"]


def test_dtype_objects_of_other_libraries_are_understood():
    x = array_api_strict.asarray([1.0], dtype=array_api_strict.float64)
    assert backend.resolve_dtype(x.dtype, array_api_strict) == array_api_strict.float64
    y = backend.asarray(np.ones(2), like=x, dtype=x.dtype)
    assert y.dtype == array_api_strict.float64
    with pytest.raises(ValueError, match="float32 or float64"):
        backend.resolve_dtype(array_api_strict.int64)
