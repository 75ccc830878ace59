"""Array backend: one code path for NumPy (CPU), CuPy (GPU) and other array-API libraries.

Algorithm modules take the namespace from their inputs, as SciPy does::

    xp = get_namespace(X, Y)
    G = xp.matmul(X, xp.matrix_transpose(Y))

and never call ``numpy.`` on data arrays. NumPy arrays give ``array_api_compat.numpy``
(NumPy with the standard's spellings), CuPy arrays give CuPy's compat namespace, and an
``array_api_strict`` array gives ``array_api_strict`` -- the tests use the latter to prove that
no NumPy-only call leaks into backend-neutral code.

Compiled Numba kernels run on NumPy arrays only; a function that has one checks
:func:`is_numpy` and otherwise falls back to the namespace code (or a CuPy kernel).

CuPy is optional. Nothing here imports it unless a CUDA device is asked for.
"""
from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import array_api_compat
import array_api_compat.numpy  # a submodule: `import array_api_compat` alone does not load it

__all__ = [
    "get_namespace",
    "asarray",
    "to_numpy",
    "to_device",
    "is_numpy",
    "is_cupy",
    "is_dask",
    "resolve_dtype",
    "default_dtype",
    "set_default_dtype",
    "check_matrix",
    "single_blas_thread",
    "take_rows",
    "check_same_device",
    "cuda_library",
    "device",
]

_DEFAULT_DTYPE = "float32"
_FLOAT_NAMES = {"float32": "float32", "float64": "float64", "single": "float32", "double": "float64"}


def get_namespace(*arrays: Any):
    """Return the array-API namespace shared by ``arrays``.

    Python scalars and ``None`` are ignored. NumPy arrays (and array-likes such as lists) give
    ``array_api_compat.numpy``; mixing arrays of two libraries raises ``TypeError``.

    Parameters
    ----------
    *arrays : array, list, scalar or None
        The inputs of a call.

    Returns
    -------
    module
        The array-API namespace (``array_api_compat.numpy`` when no array is given).

    Raises
    ------
    TypeError
        Arrays of two different libraries.

    See Also
    --------
    asarray : convert to the library of another array.
    """
    arrs = [a for a in arrays if a is not None and not isinstance(a, (int, float, bool, complex))]
    if not arrs:
        return array_api_compat.numpy
    arrs = [np.asarray(a) if isinstance(a, (list, tuple)) else a for a in arrs]
    return array_api_compat.array_namespace(*arrs)


def is_numpy(x: Any) -> bool:
    """True for NumPy arrays (and NumPy scalars).

    Parameters
    ----------
    x : object
        Anything.

    Returns
    -------
    bool
        Whether the compiled (Numba) kernels can take ``x``.
    """
    return isinstance(x, (np.ndarray, np.generic))


def is_dask(x: Any) -> bool:
    """True for dask arrays (lazy, chunked; computed on the current dask client if any).

    Parameters
    ----------
    x : object
        Anything.

    Returns
    -------
    bool
        Whether ``x`` comes from the ``dask`` package (dask is not imported).
    """
    return type(x).__module__.split(".")[0] == "dask"


def is_cupy(x: Any) -> bool:
    """True for CuPy arrays; never imports CuPy.

    Parameters
    ----------
    x : object
        Anything.

    Returns
    -------
    bool
        Whether ``x`` is a CuPy array.
    """
    return array_api_compat.is_cupy_array(x)


def device(x: Any):
    """The device ``x`` lives on: pass it as ``device=`` when creating arrays that meet ``x``.

    Parameters
    ----------
    x : array
        A NumPy, CuPy or array-API array.

    Returns
    -------
    object
        ``"cpu"`` for NumPy, a CuPy ``Device``, an array_api_strict device, ...
    """
    return array_api_compat.device(x)


def default_dtype() -> str:
    """The floating dtype embgeo stores vectors in unless told otherwise (``"float32"``).

    Returns
    -------
    str
        ``"float32"`` or ``"float64"``.

    See Also
    --------
    set_default_dtype : change it.
    """
    return _DEFAULT_DTYPE


def set_default_dtype(dtype) -> None:
    """Set the library-wide default floating dtype (``"float32"`` or ``"float64"``).

    Parameters
    ----------
    dtype : str or dtype
        ``"float32"``/``"float64"`` (or ``"single"``/``"double"``), or a dtype object of either;
        None keeps the current default.

    Raises
    ------
    ValueError
        Any other dtype.

    See Also
    --------
    default_dtype : the current default.
    """
    global _DEFAULT_DTYPE
    _DEFAULT_DTYPE = _dtype_name(dtype)


def _dtype_name(dtype) -> str:
    if dtype is None:
        return _DEFAULT_DTYPE
    if isinstance(dtype, str):
        name = dtype
    elif getattr(dtype, "name", None):
        name = str(dtype.name)
    else:
        # array-API dtype objects (array_api_strict, ...) are not NumPy dtypes: go by their repr
        text = str(dtype).rsplit(".", 1)[-1].strip("'>")
        try:
            name = np.dtype(dtype).name
        except TypeError:
            name = text
    if name not in _FLOAT_NAMES:
        raise ValueError(f"dtype must be float32 or float64, got {dtype!r}")
    return _FLOAT_NAMES[name]


def resolve_dtype(dtype=None, xp=None):
    """Map ``dtype`` (None means the default, float32) to the namespace's dtype object.

    Parameters
    ----------
    dtype : str or dtype, optional
        ``"float32"``/``"float64"`` (or ``"single"``/``"double"``), or a dtype object of either;
        None: :func:`default_dtype`.
    xp : module, optional
        The array-API namespace (default: NumPy's).

    Returns
    -------
    dtype
        ``xp.float32`` or ``xp.float64``.

    Raises
    ------
    ValueError
        A dtype that is neither float32 nor float64.
    """
    name = _dtype_name(dtype)
    xp = xp if xp is not None else array_api_compat.numpy
    return getattr(xp, name)


def asarray(x: Any, like: Any = None, dtype=None, copy: bool | None = None):
    """Convert ``x`` to an array of the same library (and device) as ``like``.

    Without ``like``, array-API arrays stay in their library and anything else becomes NumPy.
    ``dtype`` accepts ``"float32"``/``"float64"`` names or dtype objects; ``None`` keeps float32
    and float64 input as it is and converts anything else (integers, booleans, float16) to the
    default float dtype.

    Parameters
    ----------
    x : array_like
        What to convert.
    like : array, optional
        The array whose library and device the result takes.
    dtype : str or dtype, optional
        float32 or float64; None as above.
    copy : bool, optional
        As the array API's ``asarray``: True always copies, False never, None when needed.

    Returns
    -------
    array
        A floating array (float32 or float64).

    Raises
    ------
    TypeError
        Complex values (word vectors are real).
    ValueError
        A ``dtype`` that is neither float32 nor float64.
    """
    if like is not None:
        xp = get_namespace(like)
    elif array_api_compat.is_array_api_obj(x) and not isinstance(x, np.generic):
        xp = get_namespace(x)
    else:
        xp = array_api_compat.numpy
    # on like's device (a CuPy GPU, an array_api_strict emulated device), not the library's default
    on = {"device": device(like)} if like is not None and not is_numpy(like) \
        and not is_dask(like) else {}
    if is_cupy(like) and is_numpy(x):
        x = xp.asarray(x, **on)
    arr = xp.asarray(x, copy=copy, **on)
    if _is_complex(xp, arr.dtype):
        # a cast would keep the real part only, with nothing but NumPy's ComplexWarning to say so
        raise TypeError(f"complex values (dtype {arr.dtype}) are not supported: word vectors are real; "
                        "pass the real part (x.real) or the magnitude (abs(x)) if that is what is meant")
    if dtype is None:
        # float16 and other non-standard floats have no BLAS or kernels: they become the default too
        if not (arr.dtype == xp.float32 or arr.dtype == xp.float64):
            arr = xp.astype(arr, resolve_dtype(None, xp))
        return arr
    dt = resolve_dtype(dtype, xp)
    return arr if arr.dtype == dt else xp.astype(arr, dt)


def _is_complex(xp, dtype) -> bool:
    try:
        return bool(xp.isdtype(dtype, "complex floating"))
    except (AttributeError, TypeError):
        return getattr(dtype, "kind", "") == "c"


def to_numpy(x: Any) -> np.ndarray:
    """Return ``x`` as a NumPy array (copying from the GPU when needed).

    Parameters
    ----------
    x : array_like
        A NumPy, CuPy or array-API array, or anything ``numpy.asarray`` takes.

    Returns
    -------
    numpy.ndarray
        ``x`` itself for NumPy input; a host copy (or a DLPack view) otherwise.

    See Also
    --------
    to_device : move to a named device.
    """
    if is_numpy(x):
        return np.asarray(x)
    if is_cupy(x):
        return x.get()
    if array_api_compat.is_array_api_obj(x):
        # The buffer protocol or DLPack, whichever the library offers.
        try:
            return np.from_dlpack(x)
        except (TypeError, AttributeError, RuntimeError, BufferError):
            return np.asarray(x)
    return np.asarray(x)


def _cupy():
    if importlib.util.find_spec("cupy") is None:
        raise ImportError(
            "device 'cuda' needs CuPy, which is not installed: pip install 'embgeo[gpu]' "
            "(CuPy for CUDA 12) on a machine with an NVIDIA GPU; without a GPU, NUMBA_ENABLE_CUDASIM=1 runs "
            "embgeo's CUDA kernels simulated on NumPy arrays"
        )
    import cupy

    return cupy


def cuda_library():
    """(array library, simulated) of embgeo's CUDA kernels: CuPy on a GPU, or NumPy under Numba's
    CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, how CI runs the kernels without a GPU).

    Imports Numba (not ``numba.cuda``) and, on a GPU, CuPy.

    Returns
    -------
    lib : module
        CuPy, or NumPy under the simulator.
    simulated : bool
        True under the simulator.

    Raises
    ------
    ImportError
        numba-cuda is missing, or CuPy is missing outside the simulator (names the packages).
    """
    if importlib.util.find_spec("numba_cuda") is None and importlib.util.find_spec("numba") is None:
        raise ImportError("the CUDA engine needs numba-cuda and CuPy: pip install numba-cuda cupy-cuda12x "
                          "(or cupy-cuda13x)")
    from numba import config

    if getattr(config, "ENABLE_CUDASIM", 0):
        return np, True
    return _cupy(), False


def to_device(x: Any, device: str = "cpu"):
    """Move ``x`` to ``"cpu"`` (NumPy) or ``"cuda"`` (CuPy).

    Parameters
    ----------
    x : array_like
        The array to move.
    device : {"cpu", "cuda", "gpu"}, default "cpu"
        The target (``"gpu"`` is ``"cuda"``).

    Returns
    -------
    array
        A NumPy or CuPy array (``x`` itself when it is already there).

    Raises
    ------
    ValueError
        An unknown device.
    ImportError
        ``"cuda"`` without CuPy installed.

    See Also
    --------
    to_numpy : the ``"cpu"`` case.
    """
    if device == "cpu":
        return to_numpy(x)
    if device in ("cuda", "gpu"):
        cp = _cupy()
        return cp.asarray(x)
    raise ValueError(f"device must be 'cpu' or 'cuda', got {device!r}")


def take_rows(M, idx):
    """Rows ``idx`` (int sequence or NumPy array) of ``M``, in ``M``'s library.

    NumPy uses fancy indexing; other libraries get ``xp.take`` with the indices moved to them.

    Parameters
    ----------
    M : array, shape (n, d)
        The matrix.
    idx : sequence of int or array
        Row indices (any library; moved to ``M``'s).

    Returns
    -------
    array, shape (len(idx), d)
        A copy of the rows, in ``M``'s library and device.
    """
    idx = np.asarray(to_numpy(idx) if not isinstance(idx, (list, tuple)) else idx, dtype=np.int64)
    if is_numpy(M):
        return M[idx]
    xp = get_namespace(M)
    return xp.take(M, xp.asarray(idx, device=device(M)), axis=0)


def _device_of(x: Any):
    if is_cupy(x):
        return f"CuPy on GPU {x.device.id}"
    return "NumPy" if is_numpy(x) else None


def check_same_device(**arrays: Any) -> None:
    """Refuse NumPy and CuPy arrays mixed in one call, or CuPy arrays on different GPUs.

    Keyword names are the caller's argument names, which the error repeats. ``None``, Python
    sequences and other array libraries are not checked. Nothing is copied: a silent copy of a
    database between host and device is what this prevents.

    Parameters
    ----------
    **arrays : array or None
        The arrays of a call, by argument name (e.g. ``queries=Q, database=X``).

    Raises
    ------
    TypeError
        Two arguments live on different devices (NumPy vs CuPy, or two GPUs).
    """
    seen = [(name, _device_of(a)) for name, a in arrays.items() if a is not None]
    seen = [(name, dev) for name, dev in seen if dev is not None]
    for name, dev in seen[1:]:
        if dev != seen[0][1]:
            raise TypeError(f"{seen[0][0]} is {seen[0][1]} but {name} is {dev}: move both to one device "
                            "(embgeo.backend.to_device, or Embeddings.to)")


def check_matrix(X: Any, name: str = "X", *, check_finite: bool = True, allow_empty: bool = False):
    """Validate a 2-D floating matrix and return it (same library), raising clear errors.

    Parameters
    ----------
    X : array_like
        The matrix (NumPy, CuPy, array-API, or anything ``numpy.asarray`` takes).
    name : str, default "X"
        What the error messages call it.
    check_finite : bool, default True
        Refuse NaN and inf.
    allow_empty : bool, default False
        Accept a matrix with no rows or no columns.

    Returns
    -------
    array, shape (n, d)
        ``X`` as float32 or float64 (other dtypes become the default float dtype).

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, is empty, or (with ``check_finite``) holds NaN or inf; the message
        names the first offending row.
    """
    xp = get_namespace(X)
    X = asarray(X, like=X) if hasattr(X, "dtype") else asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_words, dim); expected ndim to be 2, but observed {X.ndim}")
    if not allow_empty and (X.shape[0] == 0 or X.shape[1] == 0):
        raise ValueError(f"{name} is empty (shape {tuple(X.shape)})")
    if not (X.dtype == xp.float32 or X.dtype == xp.float64):
        X = xp.astype(X, resolve_dtype(None, xp))
    if check_finite:
        finite = xp.all(xp.isfinite(X), axis=1)
        if not bool(xp.all(finite)):
            bad = to_numpy(finite)
            row = int(np.flatnonzero(~bad)[0])
            raise ValueError(f"{name} holds NaN or inf (first at row {row})")
    return X


_BLAS_CONTROLLER = None


def single_blas_thread():
    """Context manager limiting BLAS to one thread (threadpoolctl; the library scan runs once).

    For work where BLAS threads cost more than they bring: small d×d factorisations, and GEMM
    tiles fed to a Numba kernel that has its own threads (two thread pools on the same cores
    fight each other).

    Returns
    -------
    context manager
        ``with single_blas_thread(): ...`` runs the block with one BLAS thread, and restores the
        previous limits on exit.
    """
    global _BLAS_CONTROLLER
    if _BLAS_CONTROLLER is None:
        import scipy.linalg.cython_blas  # noqa: F401  (the BLAS Numba's np.dot calls: load it first)
        from threadpoolctl import ThreadpoolController

        _BLAS_CONTROLLER = ThreadpoolController()
    return _BLAS_CONTROLLER.limit(limits=1, user_api="blas")
