"""Exact top-k on quantised codes: Hamming distance of packed bits, integer dot product of int8 codes.

What :func:`embgeo.neighbors.topk` runs when the database holds codes (``uint8`` packed bits,
``int8`` codes) or ``metric="hamming"``. On the CPU, Hamming search is the Numba kernel
:func:`embgeo.kernels.topk.hamming_topk` (distances of runs of rows in vector registers, per-query
heaps fed only by rows within their bound: no score matrix; beyond inputs and outputs, the heaps and
a word-major copy of one block of database rows, zero-padded to whole 64-bit words,
``memory_budget`` bytes at most), and int8 search the Numba
kernel :func:`embgeo.kernels.topk.int8_dot_topk` (int32 sums of a tile of queries × a block of rows
in vector registers, heaps fed only by blocks that reach their threshold: no score matrix; beyond
inputs and outputs, the heaps and a packed copy of one step of database rows, see
:func:`_int8_topk`). With ``backend="cuda"`` (or CuPy inputs, or under the CUDA simulator) both run
as :func:`embgeo.kernels.cuda.hamming_rows` and :func:`~embgeo.kernels.cuda.int8_dot_rows`, with
the same lists.

The codes are those of :func:`embgeo.quantize` (sentence-transformers' ``"ubinary"`` and ``"int8"``
precisions): Hamming search takes ``np.packbits`` rows (bit order big-endian within a byte, as
FAISS ``IndexBinaryFlat`` reads them); distances are integers, smallest first; int8 scores are
exact integer dot products, largest first. Ties go to the lower database row.
"""
from __future__ import annotations

import numpy as np

from .. import backend as xb
from ..blocking import budget_bytes, n_jobs
from ..validation import check_k, exclusion_csr, max_excluded
from ._criteria import CODE_METRICS, choices
from ._cuda import device_copy
from ._engines import Cuda, Exact

__all__ = ["is_code_search", "topk"]

#: the largest int8 dimension whose dot products are exact in int32 (d · 128² < 2³¹)
MAX_INT8_DIM = (2**31 - 1) // (128 * 128)
#: bytes of database rows a thread scans per tile (they stay in L2 while its queries scan them)
_TILE_BYTES = 1 << 17
#: the most queries that scan a tile in turn (fewer when there are few queries per thread)
_QCHUNK = 64
#: bytes of packed int8 blocks a thread's queries scan per cache tile
_INT8_TILE_BYTES = 1 << 17
#: queries a thread takes at most in the int8 kernel (each chunk rereads the database once)
_INT8_CHUNK = 64
#: bytes of packed int8 rows per step at most (about half an L3 cache here)
_INT8_STEP_BYTES = 1 << 24


def is_code_search(database, metric) -> bool:
    """True when :func:`embgeo.neighbors.topk` must search codes: integer codes or ``metric="hamming"``."""
    if metric == "hamming":
        return True
    try:
        return np.dtype(getattr(database, "dtype", np.float32)) in (np.uint8, np.int8)
    except TypeError:  # an array-API library's dtype (codes are NumPy or CuPy arrays)
        return False


def _kind(X, name):
    """A one-line description of an array for the errors: ``float32 array of shape (5, 8)``."""
    return f"{name} is a {np.dtype(X.dtype)} array of shape {tuple(X.shape)}"


def check_codes(queries, database, metric):
    """``(Q, X)``: 2-D code matrices of one dtype that ``metric`` searches; clear errors otherwise."""
    X = database if xb.is_cupy(database) else np.asarray(database)
    Q = queries if xb.is_cupy(queries) else np.asarray(queries)
    if Q.ndim == 1:
        Q = Q.reshape(1, -1)
    if X.ndim != 2 or Q.ndim != 2:
        bad, name = (X, "database") if X.ndim != 2 else (Q, "queries")
        raise ValueError(f"codes must be 2-D (rows, bytes): {_kind(bad, name)}")
    dt = np.dtype(X.dtype)
    if metric == "hamming":
        if dt != np.uint8:
            if dt == np.bool_:
                hint = "unpacked bits: pack them with np.packbits(bits, axis=1)"
            elif dt == np.int8:
                hint = ("int8: sentence-transformers' 'binary' precision is packed bits minus 128; its 'ubinary' "
                        "(uint8) is what Hamming search takes, and int8 codes are searched with metric='dot'")
            else:
                hint = "binarise by sign first: embgeo.quantize(e, 'binary').codes, or np.packbits(X > 0, axis=1)"
            raise ValueError(f"metric='hamming' searches packed bits (uint8); {_kind(X, 'the database')}: {hint}")
    elif dt == np.uint8:
        raise ValueError(f"a uint8 database holds packed bits: search it with metric='hamming', not {metric!r} "
                         "(int8 codes take metric='dot')")
    elif dt == np.int8:
        if metric != "dot":
            raise ValueError(f"int8 codes are searched by their integer dot product, metric='dot', not {metric!r}; "
                             "for cosine, dequantise them (QuantizedEmbeddings.dequantize())")
        if X.shape[1] > MAX_INT8_DIM:
            raise ValueError(f"int8 codes of dimension {X.shape[1]} may overflow an int32 dot product "
                             f"(at most {MAX_INT8_DIM} dimensions)")
    if np.dtype(Q.dtype) != dt:
        raise ValueError(f"the database holds {dt} codes but {_kind(Q, 'queries')}: quantise the queries the "
                         "same way (QuantizedEmbeddings.search does so for float queries)")
    if Q.shape[1] != X.shape[1]:
        unit = "bytes of packed bits" if dt == np.uint8 else "dimensions"
        raise ValueError(f"queries have {Q.shape[1]} {unit} per row but the database has {X.shape[1]}")
    if X.shape[0] == 0:
        raise ValueError("the database has no rows")
    return Q, X


def _words(B):
    """Packed bit rows as uint64 words: a view when a row is whole words, else a zero-padded copy."""
    pad = -B.shape[1] % 8
    if pad:
        B = np.concatenate([B, np.zeros((B.shape[0], pad), dtype=np.uint8)], axis=1)
    return np.ascontiguousarray(B).view(np.uint64)


def topk(queries, database, k: int = 10, *, metric: str = "hamming", exclude=None,
         memory_budget: int | None = None, engine: Exact | Cuda = Exact()):
    """Exact top-``k`` rows of each query over code rows (what :func:`embgeo.neighbors.topk` dispatches to).

    Parameters
    ----------
    queries, database : arrays (q, b) and (n, b)
        Both ``uint8`` packed bits (``metric="hamming"``) or both ``int8`` codes (``metric="dot"``).
    k, exclude, memory_budget
        As in :func:`embgeo.neighbors.topk`.
    engine : Exact or Cuda
        The engine object of ``backend=`` (:func:`embgeo.neighbors.as_engine`): :class:`Cuda` (or
        CuPy inputs) runs the kernels of :mod:`embgeo.kernels.cuda`, with the same lists.

    Returns
    -------
    scores : int32 array (q, k)
        Hamming distances, smallest first, or int8 dot products, largest first.
    indices : int64 array (q, k)
        Database rows; ties go to the lower row.

    Raises
    ------
    ValueError
        A database or queries that are not codes of ``metric`` (float, unpacked bool, the other
        integer type), widths that differ, a bad ``k`` or ``exclude``, another engine.
    """
    if not isinstance(engine, (Exact, Cuda)):
        raise ValueError(f"search on codes runs on the 'exact' or 'cuda' engine, not {engine!r}")
    # the codes' own errors first: they say which metric the given codes take
    Q, X = check_codes(queries, database, metric)
    if metric not in CODE_METRICS:
        raise ValueError(f"metric must be {choices(CODE_METRICS)} on codes ('hamming': uint8 packed bits, 'dot': "
                         f"int8 codes), got {metric!r}")
    n = X.shape[0]
    ex = exclusion_csr(exclude, Q.shape[0], n)
    k = check_k(k, n - max_excluded(ex))
    if isinstance(engine, Cuda) or xb.is_cupy(X):
        return _cuda_topk(Q, X, k, ex, metric, memory_budget)
    from ..kernels import topk as KT

    if ex is None or ex[0].size == 0:
        ex = (np.zeros(Q.shape[0] + 1, dtype=np.int64), np.zeros(0, dtype=np.int64))
    if metric == "dot":
        return _int8_topk(Q, X, k, ex, memory_budget)
    hv, hi = _int32_heaps(Q.shape[0], k)  # of negated distances
    Qw = _words(Q)
    row_bytes = 8 * Qw.shape[1]
    tile = max(64, _TILE_BYTES // row_bytes)
    # a block of database rows is copied word-major at a time (after a zero-padded copy, for packed rows
    # of no whole words): two copies within the budget
    step = max(tile, budget_bytes(memory_budget) // (2 * row_bytes))
    # each tile is read from memory once per chunk of queries: long chunks, but work for every thread
    qchunk = int(min(_QCHUNK, max(1, Q.shape[0] // (4 * n_jobs(None)))))
    for s in range(0, n, step):
        # word-major: the kernel's runs of rows are then contiguous vectors (one copy of the step)
        KT.hamming_topk(Qw, np.ascontiguousarray(_words(X[s:s + step]).T), s, hv, hi, ex[0], ex[1], tile, qchunk)
    KT.finalize(hv, hi)
    return -hv, hi


def _int32_heaps(nq: int, k: int):
    """Empty int32 score heaps of the code kernels: the sentinel (worst score, row 2**62) loses to every real pair."""
    return np.full((nq, k), np.iinfo(np.int32).min, dtype=np.int32), np.full((nq, k), 2**62, dtype=np.int64)


def _int8_topk(Q, X, k, ex, memory_budget):
    """int8 top-k by exact integer dot products: the fused kernel :func:`embgeo.kernels.topk.int8_dot_topk`.

    Products of two int8 codes and their sums (d ≤ ``MAX_INT8_DIM``) are exact in int32, so the
    scores are the integer dot products themselves whatever the blocking. The database is packed
    into the kernel's layout a step of rows at a time (one buffer for every step, half the budget at
    most); the queries once, as int32 words of two int16 codes (dims 2p and 2p+1 in
    the low and high halves: the little-endian order the kernel's vector lanes read).
    """
    from ..kernels import readonly
    from ..kernels import topk as KT

    n, d = X.shape
    nq = Q.shape[0]
    R, T = KT.I8_ROWS, KT.I8_QUERIES
    pairs = -(-d // 2)
    Qp = np.zeros((-(-nq // T) * T, 2 * pairs), dtype=np.int16)
    Qp[:nq, :d] = Q
    Qp = Qp.view(np.int32)
    hv, hi = _int32_heaps(nq, k)
    block_bytes = 2 * R * pairs
    # a cache tile of blocks is scanned by every query of a thread's chunk before the next tile
    tile = max(1, _INT8_TILE_BYTES // block_bytes)
    # steps of at most _INT8_STEP_BYTES packed: one buffer serves every step, so that its pages are touched
    # once (a fresh 150 MB copy of 400k × 384 codes in each call cost 0.5 s in page faults alone)
    step = R * max(tile, min(_INT8_STEP_BYTES, budget_bytes(memory_budget) // 2) // block_bytes)
    packed = np.empty((min(step, -(-n // R) * R) // R, pairs, R, 2), dtype=np.int8)
    # enough chunks of queries for every thread, at most _INT8_CHUNK queries each (a smaller chunk rereads the
    # database more often)
    chunk = T * max(1, min(_INT8_CHUNK // T, -(-nq // (T * n_jobs()))))
    for s in range(0, n, step):
        Xs = X[s:s + step]
        P = packed[:-(-Xs.shape[0] // R)]
        KT.int8_pack(readonly(Xs), P)  # one compiled type for read-only codes and others
        KT.int8_dot_topk(Qp, nq, P.reshape(-1), Xs.shape[0], s, hv, hi, ex[0], ex[1], tile, chunk)
    KT.finalize(hv, hi)
    return hv, hi


def _cuda_topk(Q, X, k, ex, metric, memory_budget):
    """The GPU engine of :func:`topk`: one thread per query, a database tile at a time, heaps on the device."""
    from ..kernels import cuda as KC

    lib, _ = xb.cuda_library()
    on_device = xb.is_cupy(X)
    dev = device_copy(lib)
    hamming = metric == "hamming"
    # packed bits as 32-bit words when a row is whole words (one popc per word), else bytes
    as_words = hamming and X.shape[1] % 4 == 0

    def codes(B):
        B = dev(B)
        return B.view(np.uint32) if as_words else B
    nq, n = Q.shape[0], X.shape[0]
    budget = budget_bytes(memory_budget)
    cols = max(1, min(n, budget // 2 // max(1, X.shape[1])))
    hv = lib.full((nq, k), np.iinfo(np.int32).min, dtype=np.int32)
    hi = lib.full((nq, k), n, dtype=np.int64)
    has_ex = ex is not None
    ex_ptr = dev(ex[0]) if has_ex else lib.zeros(1, dtype=np.int64)
    ex_idx = dev(ex[1]) if has_ex and ex[1].size else lib.zeros(1, dtype=np.int64)
    Qd = codes(Q)
    kernel = KC.hamming_rows if hamming else KC.int8_dot_rows
    for c in range(0, n, cols):
        Xt = codes(X[c:c + cols])
        if nq:
            kernel[-(-nq // KC.THREADS), KC.THREADS](Qd, Xt, c, hv, hi, ex_ptr, ex_idx, has_ex)
    if nq:
        KC.finalize[-(-nq // KC.THREADS), KC.THREADS](hv, hi)
    if hamming:
        hv = -hv
    if not on_device and lib is not np:
        return lib.asnumpy(hv), lib.asnumpy(hi)
    return hv, hi
