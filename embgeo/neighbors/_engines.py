"""The engines of the neighbour search as option objects: what ``backend=`` of :mod:`embgeo.neighbors` takes.

As FAISS keeps an engine's options on its index (``IndexHNSWFlat(d, M)``) and scikit-learn on its
algorithm (``NearestNeighbors(algorithm=..., leaf_size=...)``), an option that only one engine
understands lives on that engine's object, not on every search call: ``topk(Q, D, 10,
backend=Exact(n_jobs=2))``, ``topk(Q, D, 10, backend=Dask(query_block=1024))``. A name
(``backend="dask"``) is that engine with its defaults. The objects are frozen and check their
options when they are made, so a wrong option fails where it is written, not in the middle of a
search; their ``repr`` shows the options that differ from the defaults.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from ._criteria import ARRAY_BACKENDS, choices
from ._screening import ScreenIndex
from .faiss_index import Faiss

__all__ = ["Exact", "Dask", "Cuda", "as_engine"]

#: ``selector=`` names of :class:`Exact`.
SELECTORS = ("auto", "numba", "argpartition")


def _option(value) -> str:
    if isinstance(value, ScreenIndex):
        return f"<ScreenIndex {value.metric}, rank {value.rank}, {value.coords.shape[0]} rows>"
    return repr(value)


def _changed(value, default) -> bool:
    return value is not default and not (type(value) is type(default) and value == default)


class _Options:
    """The ``repr`` of an engine: its class and the options that differ from the defaults."""

    name: ClassVar[str]

    def __repr__(self) -> str:
        opts = [f"{f.name}={_option(getattr(self, f.name))}" for f in fields(self)  # type: ignore[arg-type]
                if _changed(getattr(self, f.name), f.default)]
        return f"{type(self).__name__}({', '.join(opts)})"


def _positive_int(name: str, value, none: str):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(f"{name} must be a positive integer or None ({none}), got {value!r}")


@dataclass(frozen=True, repr=False)
class Exact(_Options):
    """The exact blocked search on this machine (``backend="exact"``, the default).

    Scores are computed one GEMM tile (a block of queries × a block of database rows) at a time
    and merged into per-query heaps by a Numba kernel, under the call's ``memory_budget``. On
    NumPy (C-ordered or not, float32/float64, ``selector`` "auto" or "numba") every score is
    canonical: the same bits whatever the tiling, the threads, the screening or a split of the
    database into shards. CuPy inputs run the GPU engine whatever the options here.

    Parameters
    ----------
    selector : {"auto", "numba", "argpartition"}, default "auto"
        NumPy only: "auto" and "numba" fuse the GEMM with the Numba heap kernel (the fastest,
        canonical scores); "argpartition" selects from full-row blocks with ``np.argpartition``
        (the GEMM's own scores). Other array libraries always select with a stable ``argsort``.
    n_jobs : int, optional
        Threads (default: the CPUs this process may use, :func:`embgeo.blocking.n_jobs`). BLAS
        runs one thread per job meanwhile.
    screen : bool or ScreenIndex, optional
        True screens the search with a rotation index of the database, built for each call (a
        width-(r+1) GEMM of rigorous upper bounds prunes the pairs that cannot enter a top-k
        list), or, in :func:`~embgeo.neighbors.search`, built once and kept with the
        :class:`~embgeo.embeddings.Embeddings`; an index built earlier
        (:func:`~embgeo.neighbors.search` keeps one per metric) is accepted too. The same rows
        and scores as without it. None or False (default): no screening.

    Raises
    ------
    ValueError
        An unknown ``selector``, or an ``n_jobs`` that is not a positive integer.
    TypeError
        ``screen`` is not None, a bool or a screening index.

    See Also
    --------
    Dask : the same search over row shards on a Dask cluster.
    Cuda : the same search on a GPU.
    embgeo.neighbors.topk : the search that takes it as ``backend=``.

    Examples
    --------
    >>> Exact(n_jobs=2)
    Exact(n_jobs=2)
    >>> Exact(selector="heap")
    Traceback (most recent call last):
    ...
    ValueError: selector must be 'auto', 'numba' or 'argpartition', got 'heap'
    """

    selector: str = "auto"
    n_jobs: int | None = None
    screen: bool | ScreenIndex | None = None
    name: ClassVar[str] = "exact"

    def __post_init__(self):
        if self.selector not in SELECTORS:
            raise ValueError(f"selector must be {choices(SELECTORS)}, got {self.selector!r}")
        _positive_int("n_jobs", self.n_jobs, "the CPUs this process may use")
        if not (self.screen is None or isinstance(self.screen, (bool, ScreenIndex))):
            raise TypeError(f"screen must be None, a bool or a screening index, got {type(self.screen).__name__}")


@dataclass(frozen=True, repr=False)
class Dask(_Options):
    """The exact search over row shards on a Dask cluster (``backend="dask"``).

    The database is sharded by rows over the workers of a ``dask.distributed`` client
    (:func:`embgeo.distributed.shard`); each task runs the local engine on one block of queries
    against one shard, and the per-shard lists merge in a tree on the workers. The scores are
    the local engine's canonical ones, so the answer is :class:`Exact`'s bit for bit. Each worker
    runs with the local engine's defaults; the call's ``memory_budget`` and ``progress`` apply
    here only.

    Parameters
    ----------
    client : distributed.Client, optional
        The cluster (default: the current client, found at search time).
    query_block : int, optional
        Query rows per task (default 4096).

    Raises
    ------
    ValueError
        ``query_block`` is not a positive integer.
    TypeError
        ``client`` is not a Dask client (an object with ``submit``).

    See Also
    --------
    Exact : the same search on this machine, and its options.
    embgeo.distributed.shard : the row shards a search runs over.

    Examples
    --------
    >>> Dask(query_block=1024)
    Dask(query_block=1024)
    """

    client: Any = None
    query_block: int | None = None
    name: ClassVar[str] = "dask"

    def __post_init__(self):
        if self.client is not None and not callable(getattr(self.client, "submit", None)):
            raise TypeError(f"client must be a dask.distributed Client, got {type(self.client).__name__}")
        _positive_int("query_block", self.query_block, "4096 rows per task")


@dataclass(frozen=True, repr=False)
class Cuda(_Options):
    """The exact search on a GPU (``backend="cuda"``).

    CuPy GEMM tiles, scored and selected by :mod:`embgeo.kernels.cuda`, with the same canonical
    scores and lists as :class:`Exact`. NumPy inputs are copied to the device a block at a time
    and the results come back as NumPy; CuPy inputs take this engine with ``backend="exact"``
    too (their results are CuPy). ``memory_budget`` then counts device memory. It has no options.

    See Also
    --------
    Exact : the same search on the CPU.

    Examples
    --------
    >>> Cuda()
    Cuda()
    """

    name: ClassVar[str] = "cuda"


_BY_NAME = {"exact": Exact, "dask": Dask, "cuda": Cuda, "faiss": Faiss}


def as_engine(backend, backends=ARRAY_BACKENDS):
    """The engine object of ``backend``: a name of ``backends`` (that engine with its defaults) or an engine object.

    Parameters
    ----------
    backend : str or Exact or Dask or Cuda or Faiss
        The engine or its name.
    backends : tuple of str
        The engine names the caller runs.

    Returns
    -------
    Exact or Dask or Cuda or Faiss

    Raises
    ------
    ValueError
        A name or an engine the caller does not run (the accepted names are listed).
    TypeError
        ``backend`` is neither a name nor an engine object.
    """
    if isinstance(backend, str):
        if backend in backends:
            return _BY_NAME[backend]()
        shown = backend
    elif isinstance(backend, tuple(_BY_NAME.values())):
        if backend.name in backends:
            return backend
        shown = backend
    else:
        raise TypeError(f"backend must be a name ({choices(backends)}) or an engine object "
                        f"(embgeo.neighbors.Exact, Dask, Cuda or Faiss), got {type(backend).__name__}")
    hint = (" (FAISS: embgeo.neighbors.faiss_index.faiss_search for arrays, "
            "neighbors.search(..., backend='faiss') for words)") if getattr(backend, "name", backend) == "faiss" \
        and "faiss" not in backends else ""
    raise ValueError(f"backend must be {choices(backends)}, got {shown!r}{hint}")
