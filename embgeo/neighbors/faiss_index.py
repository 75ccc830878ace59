"""FAISS behind embgeo's neighbour conventions: exact (flat) and approximate (HNSW, IVF) indexes.

:class:`FaissIndex` wraps one FAISS index the way FAISS itself is used (``add``, then
``search(x, k)`` giving scores and ids), with three things added:

* ``metric="cosine"`` scales vectors to unit length on ``add`` *and* on every ``search``, so
  inner product equals cosine; ``"dot"`` uses the raw inner product.
* Results follow :func:`embgeo.neighbors.topk`: (scores, indices), similarities best first,
  equal scores ordered by the lower row, optional per-query exclusions. When an approximate
  index finds fewer than ``k`` eligible rows for a query, the missing slots hold score ``-inf``
  and index ``-1`` (FAISS's own padding).
* :func:`cached_faiss_index` builds an index over an :class:`~embgeo.embeddings.Embeddings` once
  and keeps it beside it (keyed by kind, parameters and metric), so ``e.neighbors(...,
  backend=Faiss("hnsw"))`` pays the build on the first call only (:class:`Faiss` is the engine
  object of :func:`embgeo.neighbors.search`, exported by :mod:`embgeo.neighbors`).
* ``save`` is atomic (temp file + ``os.replace``) and writes the metric, kind and parameters to a
  JSON file beside the index (``path + ".json"``), so :meth:`FaissIndex.load` re-applies cosine
  normalisation to queries.

FAISS is imported on first use only.

References
----------
Johnson, Douze & Jégou (2019), "Billion-scale similarity search with GPUs", IEEE Trans. Big Data.
Malkov & Yashunin (2018), "Efficient and robust approximate nearest neighbor search using
Hierarchical Navigable Small World graphs", IEEE TPAMI (the ``"hnsw"`` kind).
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import backend as xb
from ..display import Display, pyplot
from ..io.atomic import atomic_paths
from ..blocking import block_rows, budget_bytes
from ..linalg import derived, unit_rows
from ..progress import progress_bar
from ..validation import check_k, exclusion_csr, max_excluded
from ._criteria import check_metric

# Faiss (the engine object) is exported by embgeo.neighbors, beside the other engines
__all__ = ["FaissIndex", "RecallResult", "faiss_search", "cached_faiss_index"]

_KINDS = ("flat", "hnsw", "ivf")
_PARAMS: dict[str, dict[str, Any]] = {"flat": {}, "hnsw": {"M": 32, "ef_construction": 40, "ef_search": 64},
           "ivf": {"nlist": None, "nprobe": 8}}


def _faiss():
    try:
        import faiss
    except ImportError:  # pragma: no cover - faiss-cpu is a runtime dependency
        raise ImportError("the FAISS backend needs faiss: pip install faiss-cpu") from None
    return faiss


def _faiss_gpu():
    """FAISS with GPU support, or an ImportError naming the package that brings it."""
    faiss = _faiss()
    if not hasattr(faiss, "StandardGpuResources"):
        raise ImportError("FAISS on the GPU (CuPy arrays, FaissIndex.to_gpu) needs a faiss build with GPU support: "
                          "pip install faiss-gpu-cu12 (or conda install -c pytorch faiss-gpu); the installed faiss is "
                          "CPU-only. embgeo's own GPU engine needs no FAISS: neighbors.topk(..., backend='cuda')")
    if faiss.get_num_gpus() < 1:
        raise RuntimeError("faiss has GPU support but sees no GPU")
    return faiss


def _as_float32(X, name, dim=None):
    if xb.is_cupy(X):
        _faiss_gpu()  # CuPy data asks for FAISS's GPU index; a CPU-only faiss is an error, not a silent copy
    X = xb.to_numpy(X)  # FAISS's Python API takes host arrays (callers pass a block at a time)
    if X.ndim == 1:
        X = X.reshape(1, -1)
    X = xb.check_matrix(X, name, allow_empty=True)
    if dim is not None and X.shape[1] != dim:
        raise ValueError(f"{name} have dimension {X.shape[1]} but the index has dimension {dim}")
    return np.ascontiguousarray(X, dtype=np.float32)


def _unit(X):
    from ..normalize import normalize  # float64 accumulation; zero rows stay zero

    return np.ascontiguousarray(normalize(X, "unit"), dtype=np.float32)


def _check_kind(kind: str, params) -> None:
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, _KINDS))}, got {kind!r}")
    unknown = set(params) - set(_PARAMS[kind])
    if unknown:
        raise TypeError(f"unknown parameter(s) for kind={kind!r}: {', '.join(sorted(unknown))}; "
                        f"accepted: {', '.join(_PARAMS[kind]) or 'none'}")


class Faiss:
    """A FAISS index as the engine of :func:`embgeo.neighbors.search` (``backend="faiss"``).

    The options of the index a search of an :class:`~embgeo.embeddings.Embeddings` builds (on the
    first call, then kept with it: :func:`cached_faiss_index`), or an index built earlier. Cosine
    and dot only. Frozen, and checked when made.

    Parameters
    ----------
    kind : {"flat", "hnsw", "ivf"}, optional
        As for :class:`FaissIndex` (default "flat", exact; or the kind of ``index``).
    index : FaissIndex, optional
        A prebuilt index over the Embeddings' rows (e.g. :meth:`FaissIndex.load`), searched as it
        is; it takes no ``params``.
    **params
        The kind's parameters, as for :class:`FaissIndex` (``M``, ``ef_construction``,
        ``ef_search`` for "hnsw"; ``nlist``, ``nprobe`` for "ivf").

    Raises
    ------
    ValueError
        An unknown kind, or a kind other than that of ``index``.
    TypeError
        A parameter the kind does not have, parameters beside a prebuilt ``index``, or an
        ``index`` that is not a :class:`FaissIndex`.

    See Also
    --------
    embgeo.neighbors.Exact : the exact engine, which FAISS's "flat" kind equals up to rounding.

    Examples
    --------
    >>> Faiss("hnsw", ef_search=128)
    Faiss('hnsw', ef_search=128)
    """

    name = "faiss"
    __slots__ = ("kind", "index", "_params")
    kind: str
    index: "FaissIndex | None"
    _params: tuple

    def __init__(self, kind: str | None = None, *, index: "FaissIndex | None" = None, **params):
        if index is not None:
            if not isinstance(index, FaissIndex):
                raise TypeError(f"index must be a FaissIndex, got {type(index).__name__}")
            if params:
                raise TypeError(f"index= is prebuilt: {', '.join(sorted(params))} cannot apply to it")
            if kind is not None and kind != index.kind:
                raise ValueError(f"kind={kind!r} but the index is of kind {index.kind!r}")
            kind = index.kind
        kind = "flat" if kind is None else kind
        _check_kind(kind, params)
        for slot, value in (("kind", kind), ("index", index), ("_params", tuple(sorted(params.items())))):
            object.__setattr__(self, slot, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"Faiss is frozen: make a new one (cannot set {name!r})")

    @property
    def params(self) -> dict:
        """The kind's parameters given (the others keep :class:`FaissIndex`'s defaults)."""
        return dict(self._params)

    def __eq__(self, other):
        return (isinstance(other, Faiss) and (self.kind, self._params) == (other.kind, other._params)
                and self.index is other.index)

    def __hash__(self):
        return hash((self.kind, self._params, id(self.index)))

    def __repr__(self) -> str:
        opts = [] if self.kind == "flat" and self.index is None else [repr(self.kind)]
        opts += [f"{k}={v!r}" for k, v in self._params]
        if self.index is not None:
            opts.append(f"index={self.index!r}")
        return f"Faiss({', '.join(opts)})"


class FaissIndex:
    """A FAISS index over rows added in order (ids 0, 1, …), searched by cosine or dot product.

    Parameters
    ----------
    dim : int
        Vector dimension.
    metric : {"cosine", "dot"}
    kind : {"flat", "hnsw", "ivf"}
        ``"flat"``: ``faiss.IndexFlatIP``, exact. ``"hnsw"``: ``faiss.IndexHNSWFlat`` with the
        inner-product metric (parameters ``M``=32, ``ef_construction``=40, ``ef_search``=64).
        ``"ivf"``: ``faiss.IndexIVFFlat`` over an inner-product coarse quantiser, trained on the
        first ``add`` (parameters ``nlist`` = 4√n by default, ``nprobe``=8).
    **params
        The kind's parameters above.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.eye(4, dtype=np.float32)
    >>> index = FaissIndex(4, metric="cosine")
    >>> index.add(X)
    >>> scores, ids = index.search(X[:1] * 3, 2)
    >>> ids.tolist(), float(scores[0, 0])
    ([[0, 1]], 1.0)
    """

    def __init__(self, dim: int, metric: str = "cosine", kind: str = "flat", **params):
        check_metric(metric, "faiss")
        _check_kind(kind, params)
        dim = int(dim)
        if dim < 1:
            raise ValueError(f"dim must be positive, got {dim}")
        self.dim, self.metric, self.kind = dim, metric, kind
        self.params = {**_PARAMS[kind], **params}
        self._index: Any = None
        self._quantizer: Any = None  # IVF: FAISS does not own it, Python must keep it alive
        self._gpu: Any = None  # StandardGpuResources once on the GPU (kept alive with the index)
        self.words: list[str] | None = None  # the vocabulary of the rows, when known
        self.build_seconds = 0.0  # wall time spent in add (training, graph construction)
        if kind != "ivf" or self.params["nlist"] is not None:
            self._build()

    def _build(self, n_train: int | None = None):
        faiss = _faiss()
        p = self.params
        if self.kind == "flat":
            self._index = faiss.IndexFlatIP(self.dim)
        elif self.kind == "hnsw":
            self._index = faiss.IndexHNSWFlat(self.dim, int(p["M"]), faiss.METRIC_INNER_PRODUCT)
            self._index.hnsw.efConstruction = int(p["ef_construction"])
            self._index.hnsw.efSearch = int(p["ef_search"])
        else:
            if p["nlist"] is None:
                p["nlist"] = max(1, int(4 * np.sqrt(n_train or 1)))
            self._quantizer = faiss.IndexFlatIP(self.dim)
            self._index = faiss.IndexIVFFlat(self._quantizer, self.dim, int(p["nlist"]),
                                             faiss.METRIC_INNER_PRODUCT)
            self._index.nprobe = int(p["nprobe"])

    # ------------------------------------------------------------------ state
    @property
    def ntotal(self) -> int:
        """Number of vectors in the index."""
        return 0 if self._index is None else int(self._index.ntotal)

    def __len__(self) -> int:
        return self.ntotal

    @property
    def index(self):
        """The underlying ``faiss.Index`` (None for an IVF index before its first ``add``)."""
        return self._index

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v}" for k, v in self.params.items())
        return (f"FaissIndex(dim={self.dim}, metric={self.metric!r}, kind={self.kind!r}{extra}, "
                f"ntotal={self.ntotal})")

    # ------------------------------------------------------------------ build
    def to_gpu(self) -> "FaissIndex":
        """Move the index to GPU 0 (``GpuIndexFlatIP`` for "flat", ``GpuIndexIVFFlat`` for "ivf").

        Rows added from CuPy arrays do this by themselves.

        Returns
        -------
        FaissIndex
            ``self``, now on the GPU.

        Raises
        ------
        ImportError
            The installed faiss has no GPU support (names faiss-gpu).
        ValueError
            ``kind="hnsw"``: FAISS has no GPU HNSW index; or an IVF index before its first
            :meth:`add`.
        """
        faiss = _faiss_gpu()
        if self.kind == "hnsw":
            raise ValueError("FAISS has no GPU HNSW index: use kind='flat' or 'ivf' on the GPU")
        if self._index is None:
            raise ValueError("an IVF index is built on its first add: add rows, then move it to the GPU")
        if self._gpu is None:
            self._gpu = faiss.StandardGpuResources()
            self._index = faiss.index_cpu_to_gpu(self._gpu, 0, self._index)
        return self

    def add(self, X) -> None:
        """Append the rows of ``X`` (ids continue from :attr:`ntotal`). IVF trains on the first call.

        CuPy rows move the index to the GPU first (:meth:`to_gpu`). Rows are scaled to unit length
        for ``metric="cosine"``; the time spent is added to ``build_seconds``.

        Parameters
        ----------
        X : array, shape (m, dim)
            The rows (NumPy or CuPy; stored as float32).

        Raises
        ------
        ValueError
            Rows of another dimension, NaN or inf, or fewer rows than ``nlist`` on an IVF index's
            first add.
        """
        on_gpu = xb.is_cupy(X)
        X = _as_float32(X, "vectors", self.dim)
        if X.shape[0] == 0:
            return
        t0 = time.perf_counter()
        try:
            self._add(X, on_gpu)
        finally:
            self.build_seconds += time.perf_counter() - t0

    def _add(self, X, on_gpu):
        if self.metric == "cosine":
            X = _unit(X)
        if self._index is None:
            self._build(X.shape[0])
        if on_gpu and self._gpu is None:
            self.to_gpu()
        if not self._index.is_trained:
            nlist = int(self.params["nlist"])
            if X.shape[0] < nlist:
                raise ValueError(f"an IVF index with nlist={nlist} needs at least {nlist} vectors to train, "
                                 f"got {X.shape[0]}")
            self._index.train(X)
        self._index.add(X)

    def reconstruct(self, ids):
        """Stored vectors of rows ``ids`` (unit length for cosine).

        Parameters
        ----------
        ids : int or sequence of int
            Row ids, in [0, :attr:`ntotal`).

        Returns
        -------
        ndarray of float32, shape (len(ids), dim)
            The vectors as the index holds them.

        Raises
        ------
        IndexError
            An id outside [0, :attr:`ntotal`).
        """
        ids = np.asarray(ids, dtype=np.int64).ravel()
        if ids.size and (ids.min() < 0 or ids.max() >= self.ntotal):
            raise IndexError(f"ids must lie in [0, {self.ntotal}), got {ids.min()}..{ids.max()}")
        if self.kind == "ivf":
            self._index.make_direct_map()
        return np.vstack([self._index.reconstruct(int(i)) for i in ids]) if ids.size else \
            np.zeros((0, self.dim), dtype=np.float32)

    # ------------------------------------------------------------------ search
    def search(self, Q, k: int, exclude=None):
        """The ``k`` best rows for each query, as :func:`embgeo.neighbors.topk` returns them.

        Parameters
        ----------
        Q : array, shape (q, dim) or (dim,)
        k : int
            1 ≤ k ≤ ntotal − (most rows excluded for one query).
        exclude : optional
            Rows never to return, per query (same forms as :func:`embgeo.neighbors.topk`).
            FAISS is asked for ``k + max excluded`` rows, which are then filtered.

        Returns
        -------
        scores : float32 array (q, k)
        indices : int64 array (q, k)
            Best first; ``-inf`` / ``-1`` where an approximate index found too few rows.
        """
        if self.ntotal == 0:
            raise ValueError("the index is empty: add vectors before searching")
        Q = _as_float32(Q, "queries", self.dim)
        if self.metric == "cosine":
            Q = _unit(Q)
        ex = exclusion_csr(exclude, Q.shape[0], self.ntotal)
        m = max_excluded(ex)
        k = check_k(k, self.ntotal - m)
        kk = min(k + m, self.ntotal)
        scores, ids = self._index.search(Q, kk)
        ids = ids.astype(np.int64, copy=False)
        valid = ids >= 0
        if ex is not None:
            ptr, cols = ex
            n = np.int64(self.ntotal)
            keys = np.repeat(np.arange(Q.shape[0], dtype=np.int64), np.diff(ptr)) * n + cols
            valid &= ~np.isin(np.arange(Q.shape[0], dtype=np.int64)[:, None] * n + ids, keys)
        scores = np.where(valid, scores, -np.inf).astype(np.float32)
        ids = np.where(valid, ids, -1)
        # best first, equal scores by the lower row, invalid (-inf, -1) last
        order = np.lexsort((np.where(valid, ids, np.iinfo(np.int64).max), -scores), axis=1)[:, :k]
        return np.take_along_axis(scores, order, axis=1), np.take_along_axis(ids, order, axis=1)

    def recall(self, database, k: int = 10, queries=1000, *, random_state=0, memory_budget: int | None = None,
               progress: bool | None = None) -> "RecallResult":
        """Recall@k of this index against the exact lists of :func:`embgeo.neighbors.topk`.

        The recall of a query is the share of its ``k`` FAISS results that belong in its exact
        top-k (ann-benchmarks' k-NN recall); a result tied with the exact k-th score counts, so
        that an exact index scores 1 whatever order it gives equal scores. The exact lists are
        the certified ones of the exact engine (canonical scores, ties to the lower row).

        Parameters
        ----------
        database : array (n, dim) or Embeddings
            The rows this index holds, in the order they were added.
        k : int
        queries : int, int array, or array (q, dim)
            An int: that many rows of ``database`` drawn without replacement (``random_state``;
            all rows when it is ``n`` or more); a 1-D int array: those rows. Database rows as
            queries leave themselves out of both lists. A 2-D array: outside queries.
        random_state : int, None or numpy Generator
        memory_budget, progress
            Of the exact search.

        Returns
        -------
        RecallResult
            With the build time (:attr:`build_seconds`, the time spent in :meth:`add`) and the
            query time of this index.

        Raises
        ------
        ValueError
            The database does not match the index (rows, dimension), no queries, k too large.
        """
        from ._exact import topk as exact_topk

        D = database.vectors if hasattr(database, "vectors") else database
        D = _as_float32(D, "database")
        if D.shape[0] != self.ntotal or D.shape[1] != self.dim:
            raise ValueError(f"the index holds {self.ntotal} vectors of dimension {self.dim}, the database "
                             f"{D.shape[0]} of dimension {D.shape[1]}: pass the rows the index was built from")
        Q, rows = _recall_queries(queries, D, random_state)
        exclude = rows
        m = 0 if rows is None else 1
        k = check_k(k, self.ntotal - m)
        t0 = time.perf_counter()
        _, ids = self.search(Q, k, exclude=exclude)
        query_seconds = time.perf_counter() - t0
        t0 = time.perf_counter()
        exact, gold = exact_topk(Q, D, k, metric=self.metric, exclude=exclude, memory_budget=memory_budget,
                                 progress=progress)
        exact_seconds = time.perf_counter() - t0
        # the exact score of each returned row: a tie with the k-th exact score is a correct answer
        R = D[np.maximum(ids, 0)].astype(np.float64)  # (q, k, dim): the returned rows only
        Qs = Q.astype(np.float64)
        if self.metric == "cosine":
            Qs, R = unit_rows(Qs), unit_rows(R)
        got = np.einsum("qd,qkd->qk", Qs, R)
        kth = exact[:, -1:].astype(np.float64)
        tol = 4 * np.finfo(np.float32).eps * np.maximum(1.0, np.abs(kth))
        hit = (ids >= 0) & ((got >= kth - tol) | (ids[:, :, None] == gold[:, None, :]).any(axis=2))
        per_query = hit.mean(axis=1)
        return RecallResult(recall=float(per_query.mean()), per_query=per_query, k=k, n_queries=Q.shape[0],
                            kind=self.kind, params=dict(self.params), build_seconds=float(self.build_seconds),
                            query_seconds=query_seconds, exact_seconds=exact_seconds)

    def check_matches(self, e, metric: str | None = None) -> None:
        """Refuse to search ``e`` (an Embeddings) with an index built over other rows.

        Parameters
        ----------
        e : Embeddings
            The embeddings about to be searched with this index.
        metric : {"cosine", "dot"}, optional
            The metric the search asks for; None: not checked.

        Raises
        ------
        ValueError
            A different number of rows or dimension, other words (when the index knows its
            words), or another metric.
        """
        if self.ntotal != len(e) or self.dim != e.dim:
            raise ValueError(f"the index holds {self.ntotal} vectors of dimension {self.dim}, the embeddings "
                             f"{len(e)} of dimension {e.dim}")
        if self.words is not None and list(self.words) != list(e.words):
            first = next(i for i, (a, b) in enumerate(zip(self.words, e.words)) if a != b)
            raise ValueError(f"the index's words differ from the embeddings' (first at row {first}: "
                             f"{self.words[first]!r} vs {e.words[first]!r})")
        if metric is not None and metric != self.metric:
            raise ValueError(f"the index was built for metric={self.metric!r}, not {metric!r}")

    # ------------------------------------------------------------------ persistence
    def save(self, path) -> None:
        """Write the index to ``path`` and its settings to ``path + ".json"``, together atomically.

        Parameters
        ----------
        path : str or Path
            The index file; the settings (dim, metric, kind, parameters, words) go beside it.

        Raises
        ------
        ValueError
            An IVF index before its first :meth:`add` (nothing to save).

        See Also
        --------
        load : reads it back.
        """
        if self._index is None:
            raise ValueError("nothing to save: an IVF index is built on its first add")
        faiss = _faiss()
        path = os.fspath(path)
        meta = {"format": 1, "dim": self.dim, "metric": self.metric, "kind": self.kind,
                "params": self.params}
        if self.words is not None:
            meta["words"] = list(self.words)
        with atomic_paths([path, path + ".json"]) as (tmp, tmpm):
            # through Python's file: a full disk is an OSError naming the path, not FAISS's C++ assertion
            with open(tmp, "wb") as fh:
                faiss.write_index(self._index, faiss.PyCallbackIOWriter(fh.write))
            with open(tmpm, "w", encoding="utf-8") as f:
                json.dump(meta, f)

    @classmethod
    def load(cls, path, words=None, metric: str | None = None) -> "FaissIndex":
        """Read an index written by :meth:`save`, or adopt a plain FAISS index file.

        Parameters
        ----------
        path : str or Path
            A file from :meth:`save` (with its ``.json`` settings beside it), or any file
            ``faiss.write_index`` wrote holding an ``IndexFlatIP``, an inner-product
            ``IndexHNSWFlat`` or an inner-product ``IndexIVFFlat``.
        words : sequence of str, optional
            The word of each row. Needed to adopt a plain FAISS file (settings are then taken
            from the index itself); with a saved index, checked against the saved words.
        metric : {"cosine", "dot"}, optional
            For a plain FAISS file: whether its vectors were scaled to unit length ("cosine",
            the default: queries are scaled too) or not ("dot"). With a saved index, checked.

        Raises
        ------
        FileNotFoundError
            The ``.json`` settings are missing and no ``words`` were given.
        ValueError
            Settings and index disagree, or the index type cannot be adopted.
        """
        faiss = _faiss()
        path = os.fspath(path)
        meta_path = path + ".json"
        if not os.path.exists(meta_path) and words is None:
            raise FileNotFoundError(f"{meta_path} (the index settings written by FaissIndex.save) is missing; "
                                    f"to adopt a plain FAISS index file pass words=")
        if not os.path.exists(path):
            raise FileNotFoundError(f"no FAISS index at {path}")
        self = cls.__new__(cls)
        self._quantizer = None
        self.words = None
        self.build_seconds = float("nan")  # built elsewhere
        self._index = faiss.read_index(path)
        if os.path.exists(meta_path):
            with open(meta_path) as f:
                meta = json.load(f)
            self.dim, self.metric, self.kind = int(meta["dim"]), meta["metric"], meta["kind"]
            self.params = dict(meta["params"])
            self.words = meta.get("words")
            if metric is not None and metric != self.metric:
                raise ValueError(f"{path} was saved with metric={self.metric!r}, not {metric!r}")
        else:
            self._adopt(path, metric or "cosine")
        if self._index.d != self.dim:
            raise ValueError(f"{path} holds a {self._index.d}-d index but its settings say {self.dim}")
        if words is not None:
            words = [str(w) for w in words]
            if len(words) != self.ntotal:
                raise ValueError(f"{path} holds {self.ntotal} vectors but {len(words)} words were given")
            if self.words is not None and list(self.words) != words:
                raise ValueError(f"the words given differ from those saved with {path}")
            self.words = words
        if self.kind == "hnsw":
            self._index.hnsw.efSearch = int(self.params["ef_search"])
        elif self.kind == "ivf":
            self._index.nprobe = int(self.params["nprobe"])
        return self

    def _adopt(self, path, metric):
        """Settings of a plain FAISS index (no ``.json``): read from the index object."""
        faiss = _faiss()
        check_metric(metric, "faiss")
        # read_index already gives the concrete type; downcast only a generic wrapper (the
        # downcast one does not own the C++ object, so the original is kept alive beside it)
        index = self._index if type(self._index) is not faiss.Index else faiss.downcast_index(self._index)
        self._owner = self._index
        if index.metric_type != faiss.METRIC_INNER_PRODUCT:
            raise ValueError(f"{path} holds an index with FAISS metric {index.metric_type}; embgeo searches "
                             f"by inner product (METRIC_INNER_PRODUCT) only")
        if isinstance(index, faiss.IndexFlat):
            kind, params = "flat", {}
        elif isinstance(index, faiss.IndexHNSWFlat):
            kind = "hnsw"
            params = {"M": int(index.hnsw.nb_neighbors(1)), "ef_construction": int(index.hnsw.efConstruction),
                      "ef_search": int(index.hnsw.efSearch)}
        elif isinstance(index, faiss.IndexIVFFlat):
            kind, params = "ivf", {"nlist": int(index.nlist), "nprobe": int(index.nprobe)}
            self._quantizer = index.quantizer
        else:
            raise ValueError(f"{path} holds a {type(index).__name__}; FaissIndex adopts IndexFlatIP, "
                             f"IndexHNSWFlat and IndexIVFFlat")
        self._index = index
        self.dim, self.metric, self.kind, self.params = int(index.d), metric, kind, params


@dataclass(frozen=True, repr=False)
class RecallResult(Display):
    """Recall@k of an approximate index against the exact lists.

    Made by :meth:`FaissIndex.recall` and :func:`embgeo.diagnostics.recall`.

    Parameters
    ----------
    recall : float
        Mean over the queries of the share of their k results that are in the exact top-k.
    per_query : ndarray (q,)
        Each query's share.
    k, n_queries : int
        The list length and the number of queries.
    kind : str
        "flat", "hnsw" or "ivf".
    params : dict
        The index's parameters (``M``, ``ef_search``, ``nlist``, ``nprobe``, ...).
    build_seconds, query_seconds, exact_seconds : float
        Wall time of the index's build (NaN for a loaded index), of its search of the queries,
        and of the exact engine's search of the same queries.
    """

    _call = "recall(…, k={k})"

    recall: float
    per_query: np.ndarray
    k: int
    n_queries: int
    kind: str
    params: dict
    build_seconds: float
    query_seconds: float
    exact_seconds: float

    def plot(self, ax=None):
        """Histogram of the per-query recall.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; None: a new figure.

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        plt = pyplot("RecallResult.plot")
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        ax.hist(self.per_query, bins=np.linspace(0, 1, self.k + 2), color="C0")
        ax.set_xlabel(f"recall@{self.k} of a query")
        ax.set_ylabel("queries")
        ax.set_title(f"{self.kind}: recall@{self.k} = {self.recall:.3f}", fontsize="medium")
        return ax


def _recall_queries(queries, D, random_state):
    """(query matrix, their database rows or None) for :meth:`FaissIndex.recall`."""
    n = D.shape[0]
    if isinstance(queries, (int, np.integer)) and not isinstance(queries, bool):
        if queries < 1:
            raise ValueError(f"queries must be a positive number of rows, got {queries}")
        rng = np.random.default_rng(random_state)
        rows = np.arange(n) if queries >= n else np.sort(rng.choice(n, int(queries), replace=False))
        return D[rows], rows
    Q = np.asarray(queries)
    if Q.size == 0:
        raise ValueError("queries is empty: recall needs at least one query")
    if Q.ndim == 1 and np.issubdtype(Q.dtype, np.integer):
        if Q.min() < 0 or Q.max() >= n:
            raise ValueError(f"query rows must lie in 0 … {n - 1}, got {int(Q.min())} … {int(Q.max())}")
        return D[Q], Q.astype(np.int64)
    return _as_float32(Q, "queries", D.shape[1]), None


def cached_faiss_index(e, kind: str = "flat", metric: str = "cosine", *, progress: bool | None = None,
                       **params) -> FaissIndex:
    """The :class:`FaissIndex` of ``kind`` over an Embeddings' vectors, built on first use.

    Indexes are kept beside ``e`` (dropped with it), one per (kind, parameters, metric), so
    repeated searches (``e.neighbors(..., backend=Faiss("hnsw"))``) build once. The
    index knows ``e``'s words (so it can be saved and reloaded for ``e``).

    Parameters
    ----------
    e : Embeddings
        The vectors to index.
    kind, metric
        As for :class:`FaissIndex`.
    progress : bool, optional
        Progress of the build (an HNSW graph over 400k words takes about a minute), in blocks of rows.
    **params
        The kind's parameters, as for :class:`FaissIndex`.

    Returns
    -------
    FaissIndex
        The index over ``e``'s rows, with ``e``'s words (the same object on later calls).

    Raises
    ------
    ValueError
        An unknown kind or metric.
    TypeError
        Parameters the kind does not take (the accepted ones are listed).
    ImportError
        faiss is not installed.
    """
    _check_kind(kind, params)
    key = ("faiss index", kind, metric, tuple(sorted({**_PARAMS[kind], **params}.items())))
    return derived(e, key, lambda: _build_over(e, kind, metric, params, progress))


def _build_over(e, kind, metric, params, progress=None) -> FaissIndex:
    index = FaissIndex(e.dim, metric=metric, kind=kind, **params)
    V = e.vectors
    # blocks: the index holds its own copy, no second temporary one is made (IVF trains on its
    # first add, so it takes everything at once); float32 rows in a quarter of the budget, and at
    # most about 2 % of the rows, so that a long build shows its progress
    n = len(e)
    step = n if kind == "ivf" else min(block_rows(e.dim, 4, budget_bytes() // 4), max(10_000, -(-n // 50)))
    starts = range(0, n, step)
    for s in progress_bar(starts, total=len(starts), desc=f"FAISS {kind} index", progress=progress,
                          unit="block"):
        index.add(V[s:s + step, ...])
    index.words = list(e.words)
    return index


def faiss_search(queries, database, k: int = 10, metric: str = "cosine", exclude=None, kind: str = "flat",
                 **params):
    """One-shot FAISS search with :func:`embgeo.neighbors.topk`'s conventions.

    Builds a :class:`FaissIndex` of ``kind`` over ``database``, searches ``queries`` and returns
    ``(scores, indices)`` of shape (q, k), best first, ties to the lower row, ``exclude`` honoured.
    With ``kind="flat"`` the answer equals :func:`~embgeo.neighbors.topk` up to float32 rounding
    (rows can swap only at near-ties). Results come back in the array library of ``queries``.

    Parameters
    ----------
    queries : array, shape (q, d)
        The query vectors.
    database : array, shape (n, d)
        The rows to index and search.
    k : int, default 10
        Neighbours per query.
    metric : {"cosine", "dot"}, default "cosine"
        The similarity.
    exclude : None, int array or sequence of int sequences, optional
        Database rows never returned, per query (as :func:`embgeo.validation.exclusion_csr` takes).
    kind : {"flat", "hnsw", "ivf"}, default "flat"
        The FAISS index.
    **params
        The kind's parameters, as for :class:`FaissIndex`.

    Returns
    -------
    scores : array of float32, shape (q, k)
        Similarities, best first.
    indices : array of int64, shape (q, k)
        Database rows.

    Raises
    ------
    ValueError
        An empty database, dimensions that disagree, an unknown kind or metric, or ``k`` larger
        than the candidates.
    TypeError
        Parameters the kind does not take (the accepted ones are listed).
    ImportError
        faiss is not installed.

    See Also
    --------
    FaissIndex : keep the index to search it again.
    """
    like = queries if not xb.is_numpy(queries) and not isinstance(queries, (list, tuple)) else None
    D = _as_float32(database, "database")
    if D.shape[0] == 0:
        raise ValueError("database is empty")
    index = FaissIndex(D.shape[1], metric=metric, kind=kind, **params)
    Q = _as_float32(queries, "queries")
    if Q.shape[1] != D.shape[1]:
        raise ValueError(f"queries have dimension {Q.shape[1]} but the database has {D.shape[1]}")
    index.add(D)
    s, i = index.search(Q, k, exclude=exclude)
    if like is not None:
        xp = xb.get_namespace(like)
        s, i = xp.asarray(s), xp.asarray(i)
    return s, i
