"""The cluster's client (:func:`get_client`, :func:`current_client`) and matrices held there as row
shards (:func:`shard`, :class:`ShardedDatabase`): what every Dask path of embgeo stands on.
"""
from __future__ import annotations

import os
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import backend as xb
from ..linalg import inverse_norms

__all__ = ["ShardedDatabase", "shard", "get_client", "current_client"]

_INSTALL = "pip install 'embgeo[distributed]'"


def get_client(client=None):
    """``client``, else the current ``dask.distributed`` client; a clear error when there is none.

    Parameters
    ----------
    client : distributed.Client, optional
        Returned as given when not None.

    Returns
    -------
    distributed.Client
        The client to run on.

    Raises
    ------
    ImportError
        ``dask.distributed`` is not installed (the extra to install is named).
    RuntimeError
        No client was given and none is running.

    See Also
    --------
    current_client : the same question, answered None instead of raising.
    """
    try:
        import distributed
    except ImportError:
        raise ImportError(f"backend='dask' needs dask.distributed: {_INSTALL}") from None
    if client is not None:
        return client
    try:
        return distributed.get_client()
    except ValueError:
        raise RuntimeError("backend='dask' needs a running dask.distributed client: "
                           "start one with `from distributed import Client; Client(...)`") from None


def current_client():
    """The current ``dask.distributed`` client, or None when dask is missing or no client runs.

    Unlike :func:`get_client` this never raises: it is how embgeo decides whether a grid
    (:func:`map_grid`, :func:`embgeo.evaluate.lexicon.postproc_grid_search`, the α sweeps of
    :mod:`embgeo.alpha`) goes to a cluster. Inside a Dask task it is None too: a grid run by a
    task (e.g. an α sweep per language pair of a :func:`map_grid`) runs within that task, since a
    task that waits on tasks of its own cluster can hold the thread they need (pass ``client=``
    to nest on purpose).

    Returns
    -------
    distributed.Client or None
        The client, or None (no dask, no client, or inside a task).

    See Also
    --------
    get_client : raises when there is no client.

    Examples
    --------
    >>> c = current_client()
    >>> c is None or hasattr(c, "submit")
    True
    """
    try:
        import distributed
    except ImportError:
        return None
    try:
        distributed.get_worker()
        return None
    except ValueError:  # not in a task
        pass
    try:
        return distributed.get_client()
    except ValueError:
        return None


# ------------------------------------------------------------------ shards
@dataclass(eq=False)
class ShardedDatabase:
    """A (n, d) matrix split by rows, each shard held by one Dask worker.

    Made by :func:`shard`; the search functions take it in place of the matrix, to search the
    same shards again.

    Parameters
    ----------
    client : distributed.Client
        The client whose workers hold the shards.
    shards : list of Future
        The raw rows of each shard, in order.
    bounds : list of (int, int)
        Row range ``[start, stop)`` of each shard.
    shape : (int, int)
        The shape (n, d) of the whole matrix.
    dtype : numpy dtype
        float32 or float64.
    workers : list of str
        The worker holding each shard.

    See Also
    --------
    shard : makes one.
    """

    client: Any
    shards: list
    bounds: list
    shape: tuple
    dtype: Any
    workers: list
    _inv: list | None = field(default=None, init=False, repr=False)

    def inverse_norms(self) -> list:
        """Futures of each shard's inverse row norms (:func:`embgeo.linalg.inverse_norms`).

        Computed on (and kept by) each shard's worker on the first call: what cosine search scales
        the raw rows by, as locally.

        Returns
        -------
        list of Future
            One per shard, in order; each resolves to an array of shape (rows of the shard,).
        """
        if self._inv is None:
            self._inv = [self.client.submit(_inverse_norms, f, workers=[w], pure=False)
                         for f, w in zip(self.shards, self.workers)]
        return self._inv

    def release(self) -> None:
        """Drop the shards from the workers' memory."""
        for f in self.shards + (self._inv or []):
            f.release()
        self.shards, self._inv = [], None


_CACHE: dict[int, tuple] = {}


def shard(database, client=None, n_shards: int | None = None) -> ShardedDatabase:
    """Put ``database`` on the workers as row shards (or return the shards made before).

    Keep the returned :class:`ShardedDatabase` and pass it to the search functions to search the
    same shards again. Passing the array itself reuses earlier shards only for a Dask array or a
    read-only NumPy array (e.g. ``embgeo.load(..., mmap=True)``); a writeable array is sharded
    again each time, so edits made to it in place are searched.

    Parameters
    ----------
    database : array (n, d), dask array, memory-mapped ``.npy`` array, path, or ShardedDatabase
        A NumPy array is scattered; a dask array's row chunks are computed on the workers; a
        ``numpy.memmap`` backed by a file (``embgeo.load(..., mmap=True)``) or a path to a ``.npy``
        file or embgeo cache directory is opened by every worker for its own rows.
    client : distributed.Client, optional
        Default: the current client.
    n_shards : int, optional
        Default: one per worker (a dask array keeps its row chunks).

    Returns
    -------
    ShardedDatabase
        The shards (``database`` itself when it is one).

    Raises
    ------
    ImportError
        ``dask.distributed`` is not installed.
    RuntimeError
        No client is running, or the cluster has no workers.
    FileNotFoundError
        A path that is neither a ``.npy`` file nor an embgeo cache directory.
    ValueError
        A matrix that is not 2-D, is empty, or holds NaN or inf (the row is named).
    """
    if isinstance(database, ShardedDatabase):
        return database
    client = get_client(client)
    # shards are reused only for data that cannot change under them: a writeable array edited in
    # place would otherwise be searched as it was (keep the ShardedDatabase to reuse its shards)
    reuse = xb.is_dask(database) or _read_only(database)
    key = id(database)
    hit = _CACHE.get(key) if reuse else None
    workers = sorted(client.scheduler_info().get("workers", {}))  # {} while the client reconnects
    # shards held by a worker that is gone (killed, restarted under a new address) are lost: make new ones
    if (hit is not None and hit[0]() is database and hit[1] is client and hit[2] == n_shards and hit[3].shards
            and set(hit[3].workers) <= set(workers)):
        return hit[3]
    if not workers:
        raise RuntimeError("the Dask cluster has no workers")
    n_parts = len(workers) if n_shards is None else max(1, int(n_shards))
    located = _locate_npy(database)
    if located is not None:
        path, offset, shape, dtype = located
        sd = _shard_file(client, path, offset, shape, dtype, n_parts, workers)
    elif xb.is_dask(database):
        sd = _shard_dask(client, database, workers)
    else:
        X = xb.check_matrix(xb.to_numpy(database), "database")
        bounds = _split(X.shape[0], n_parts)
        shards = [client.scatter(np.ascontiguousarray(X[s:e]), workers=[workers[i % len(workers)]], hash=False)
                  for i, (s, e) in enumerate(bounds)]
        sd = ShardedDatabase(client, shards, bounds, X.shape, X.dtype,
                             [workers[i % len(workers)] for i in range(len(bounds))])
    if not reuse:
        return sd
    try:
        _CACHE[key] = (weakref.ref(database), client, n_shards, sd)
        # when the array goes, the cache lets go of its shards (the workers drop them once no
        # ShardedDatabase the user kept refers to them)
        weakref.finalize(database, _forget, key, weakref.ref(sd))
    except TypeError:  # not weak-referenceable: no reuse
        pass
    return sd


def _read_only(x) -> bool:
    """A NumPy array that no one can write through: it and every array it views are read-only
    (a memory map opened with mode ``"r"``, as ``embgeo.load(..., mmap=True)`` gives)."""
    if not isinstance(x, np.ndarray):
        return False
    while isinstance(x, np.ndarray):
        if x.flags.writeable:
            return False
        x = x.base
    return True


def _forget(key, sd_ref) -> None:
    hit = _CACHE.get(key)
    if hit is not None and hit[3] is sd_ref():
        del _CACHE[key]


def _split(n: int, parts: int) -> list:
    parts = max(1, min(parts, n))
    edges = np.linspace(0, n, parts + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]


def _locate_npy(database):
    """(file, byte offset of row 0, shape, dtype) of a C-ordered array stored in a file, or None."""
    if isinstance(database, (str, os.PathLike)):
        p = os.fspath(database)
        if os.path.isdir(p):
            p = os.path.join(p, "vectors.npy")
        if not os.path.isfile(p):
            raise FileNotFoundError(f"no .npy file or embgeo cache at {database}")
        database = np.load(p, mmap_mode="r")
    if not isinstance(database, np.ndarray) or database.ndim != 2 or not database.flags.c_contiguous:
        return None
    m = database  # np.asarray(memmap) is a plain view: find the memmap it views
    while m is not None and not isinstance(m, np.memmap):
        m = m.base if isinstance(m.base, np.ndarray) else None
    mm = getattr(m, "_mmap", None)
    if m is None or mm is None or not m.filename:
        return None
    import mmap

    # where this array's first byte sits in the file: the map starts at the memmap's offset rounded
    # down to the allocation granularity (a slice keeps its parent's offset attribute)
    start = m.offset - m.offset % mmap.ALLOCATIONGRANULARITY
    base = np.frombuffer(mm, dtype=np.uint8).ctypes.data
    return m.filename, start + (database.ctypes.data - base), tuple(database.shape), database.dtype


def _shard_file(client, path, offset, shape, dtype, n_parts, workers) -> ShardedDatabase:
    bounds = _split(shape[0], n_parts)
    ws = [workers[i % len(workers)] for i in range(len(bounds))]
    shards = [client.submit(_open_rows, path, offset, shape[1], np.dtype(dtype).str, s, e, workers=[w],
                            allow_other_workers=False, pure=False)
              for (s, e), w in zip(bounds, ws)]
    return ShardedDatabase(client, shards, bounds, tuple(shape), np.dtype(dtype), ws)


def _shard_dask(client, X, workers) -> ShardedDatabase:
    if X.ndim != 2:
        raise ValueError(f"database must be 2-D, got shape {X.shape}")
    X = X.rechunk({1: -1})
    blocks = X.to_delayed().ravel().tolist()
    edges = np.concatenate([[0], np.cumsum(X.chunks[0])]).astype(int)
    bounds = [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]
    ws = [workers[i % len(workers)] for i in range(len(bounds))]
    shards = [client.compute(b, workers=[w]) for b, w in zip(blocks, ws)]
    shards = [client.submit(_as_float_matrix, f, workers=[w], pure=False) for f, w in zip(shards, ws)]
    dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.dtype(np.float32)
    return ShardedDatabase(client, shards, bounds, tuple(X.shape), dtype, ws)


# ------------------------------------------------------------------ worker tasks
def _open_rows(path, offset, d, dtype, start, stop):
    itemsize = np.dtype(dtype).itemsize
    return np.memmap(path, dtype=dtype, mode="r", offset=offset + start * d * itemsize, shape=(stop - start, d))


def _as_float_matrix(X):
    return xb.check_matrix(xb.asarray(np.asarray(X)), "database")


def _inverse_norms(X):
    return inverse_norms(np.asarray(X), "database", check_finite=False)
