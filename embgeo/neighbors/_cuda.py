"""The GPU engine: exact top-k on a CUDA device, the same lists and scores as the CPU engine.

What ``_screening.screened_topk`` is on the CPU, on the device: score tiles by a float32 GEMM
(cuBLAS through CuPy), each merged into running per-query heaps by
:func:`embgeo.kernels.cuda.screen_tile`, which rescores every pair that can enter a heap by the
CPU engine's canonical float64 dot product (bit for bit) and certifies the rest by the same
margin (:func:`~embgeo.neighbors._screening.plain_margin`). So the returned rows and scores equal
the CPU engine's (ties to the lower row), whatever the tiling. Nothing of the score matrix leaves
the device; the heaps stay there across tiles and are sorted there.

Arrays: CuPy arrays are searched where they are (the results are CuPy); NumPy arrays (explicit
``backend="cuda"``) are copied to the device one query block and one database tile at a time
(the results come back as NumPy). Under Numba's CUDA simulator, with CuPy absent, the "device"
is the CPU: tiles are NumPy arrays, the GEMM is NumPy's and the kernels run simulated, which is
how CI tests this engine without a GPU.

Memory: ``memory_budget`` counts device bytes beyond the inputs: the heaps of a chunk of queries
(a quarter of the budget at most), one score tile, one query block (float32 and float64), a
copied database tile for NumPy input, and n column factors.
"""
from __future__ import annotations

import numpy as np

from .. import backend as xb
from ..blocking import budget_bytes
from ..progress import progress_bar
from ._screening import plain_margin

__all__ = ["device_library", "device_copy", "screened_topk"]

_U64 = 2.0 ** -53
#: most query rows per block (a GEMM this tall already fills a GPU)
_MAX_ROWS = 4096
#: most database rows per tile, None for the budget's; tests narrow it to check the merge of tiles
_MAX_COLS: int | None = None


def device_library():
    """(array library, simulated): :func:`embgeo.backend.cuda_library`."""
    return xb.cuda_library()


def device_copy(lib):
    """``dev(x)``: ``x`` as a C-ordered array of the device library ``lib`` (CuPy, or NumPy under the simulator)."""
    if lib is np:
        # the simulator copies every argument back after a launch: a read-only input (an
        # Embeddings' vectors) travels as a copy of its tile, as it would to a device
        def dev(x):
            x = np.ascontiguousarray(x)
            return x if x.flags.writeable else x.copy()
    else:
        def dev(x):
            return lib.ascontiguousarray(lib.asarray(x))
    return dev


def _max_row_norm(lib, D, step):
    """An upper bound of the largest row norm of ``D`` (float64 sums of squares, a block at a time)."""
    n, d = D.shape
    m = 0.0
    for s in range(0, n, step):
        B = lib.asarray(D[s:min(s + step, n)]).astype(np.float64)
        m = max(m, float((B * B).sum(axis=1).max()))
    return float(np.sqrt(m * (1.0 + 2.0 * d * _U64)) * (1.0 + 2.0 ** -51) + 1e-300)


def _shape(nq, n, d, k, itemsize, budget, streamed):
    """(chunk, rows, cols): queries per set of heaps, query rows per block, database rows per tile."""
    chunk = max(1, min(nq, (budget // 4) // max(1, k * (itemsize + 8))))
    rest = budget - chunk * k * (itemsize + 8) - n * 2 * itemsize
    rows = min(chunk, _MAX_ROWS)
    while True:
        per_col = rows * itemsize + (d * itemsize if streamed else 0)
        cols = (rest - rows * d * (itemsize + 8)) // max(1, per_col)
        if cols >= min(n, 1024) or rows == 1:
            break
        rows = max(1, rows // 2)
    cols = int(max(16, min(n, cols)))
    return chunk, rows, cols if _MAX_COLS is None else max(1, min(cols, int(_MAX_COLS)))


def screened_topk(Q, D, k, ex=None, q_inv=None, d_inv=None, *, memory_budget=None, progress=None,
                  desc="top-k", scale=None, col_bias=None, stats=None):
    """Exact top-k by canonical score on the device (the parameters of ``_screening.screened_topk``).

    Parameters
    ----------
    Q, D : arrays (q, d), (n, d)
        Raw queries and database rows, both NumPy or both CuPy, same float dtype.
    k : int
    ex : (ptr, idx), optional
        CSR exclusions (:func:`embgeo.validation.exclusion_csr`, NumPy).
    q_inv, d_inv : arrays, optional
        Inverse row norms (cosine), or None (dot).
    memory_budget : int, optional
        Device bytes for heaps, tiles and blocks (default
        :data:`~embgeo.blocking.DEFAULT_MEMORY_BUDGET`).
    scale, col_bias : float and array (n,), optional
        Rank by ``scale · cos − col_bias`` (CSLS; cosine only).
    stats : dict, optional
        Filled with ``survivors`` (pairs rescored) and ``pairs``.

    Returns
    -------
    scores, indices : arrays (q, k), best first, ties to the lower row; CuPy for CuPy input.

    Raises
    ------
    MemoryError
        The device ran out of memory (names the budget).
    """
    lib, _ = device_library()
    try:
        return _search(lib, Q, D, k, ex, q_inv, d_inv, memory_budget, progress, desc, scale, col_bias, stats)
    except Exception as err:
        if type(err).__name__ != "OutOfMemoryError":
            raise
        raise MemoryError(
            f"the GPU ran out of memory in {desc} ({Q.shape[0]} queries × {D.shape[0]} rows × {D.shape[1]} dims, "
            f"memory_budget={budget_bytes(memory_budget)} bytes for tiles and heaps): lower memory_budget or free "
            f"device memory ({err})") from None


def _search(lib, Q, D, k, ex, q_inv, d_inv, memory_budget, progress, desc, scale, col_bias, stats):
    from ..kernels import cuda as KC

    dev = device_copy(lib)
    on_device = xb.is_cupy(D)
    dtype = np.dtype(D.dtype)
    n, d = D.shape
    nq = Q.shape[0]
    budget = budget_bytes(memory_budget)
    streamed = not on_device and lib is not np
    chunk, rows, cols = _shape(nq, n, d, k, dtype.itemsize, budget, streamed)
    u = float(np.finfo(dtype).eps) / 2
    f = 1.0 if scale is None else float(scale)
    dummy = lib.zeros(1, dtype=dtype)
    cscale = dummy if d_inv is None else dev(lib.asarray(d_inv).astype(dtype, copy=False))
    bias = dummy if col_bias is None else dev(lib.asarray(col_bias).astype(dtype, copy=False))
    extra = 0.0
    if col_bias is not None:
        if d_inv is None:
            raise ValueError("a column bias (CSLS) needs cosine")
        # the biased canonical value is rounded once in the working dtype (as on the CPU)
        bmax = float(lib.abs(bias).max()) if n else 0.0
        extra = 3 * u * (abs(f) * (1 + 8 * u) + bmax) + 1e-300
    ymax = 1 + 4 * u if d_inv is not None else _max_row_norm(lib, D, max(1, budget // max(1, 16 * d)))
    p_margin = abs(f) * plain_margin(d, dtype) * ymax
    if ex is not None:
        ptr_h, idx_h = ex
        ex_idx = dev(idx_h) if idx_h.size else lib.zeros(1, dtype=np.int64)
    else:
        ex_idx = lib.zeros(1, dtype=np.int64)
    buf = lib.empty(rows * cols, dtype=dtype)
    out_v, out_i, survivors = [], [], 0
    blocks = [(c0, s) for c0 in range(0, nq, chunk) for s in range(c0, min(c0 + chunk, nq), rows)]
    with progress_bar(total=len(blocks), desc=desc, progress=progress, unit="block") as bar:
        for c0 in range(0, nq, chunk):
            c1 = min(c0 + chunk, nq)
            hv = lib.full((c1 - c0, k), -np.inf, dtype=dtype)
            hi = lib.full((c1 - c0, k), 2**62, dtype=np.int64)
            ex_ptr = dev(ex[0][c0:c1 + 1]) if ex is not None \
                else lib.zeros(1, dtype=np.int64)
            for s in range(c0, c1, rows):
                e = min(s + rows, c1)
                b = e - s
                Qb = lib.asarray(Q[s:e]).astype(dtype, copy=False)
                if q_inv is not None:
                    Qb = Qb * lib.asarray(q_inv[s:e]).astype(dtype, copy=False)[:, None]
                Qb = lib.ascontiguousarray(Qb)
                U = Qb.astype(np.float64)
                unorm = lib.sqrt((U * U).sum(axis=1)) * (1 + 4 * _U64)
                margin = lib.ascontiguousarray(p_margin * unorm + extra)
                counts = lib.zeros(b, dtype=np.int64)
                for c in range(0, n, cols):
                    ce = min(c + cols, n)
                    Dt = dev(D[c:ce])
                    S = buf[:b * (ce - c)].reshape((b, ce - c))
                    lib.matmul(Qb, Dt.T, out=S)
                    KC.screen_tile[b, KC.THREADS](S, c, Dt, U, cscale, d_inv is not None, bias, col_bias is not None,
                                                  f, hv, hi, s - c0, ex_ptr, ex_idx, ex is not None, margin, 2.0 ** -50,
                                                  dtype == np.float32, counts)
                survivors += int(counts.sum())
                bar.update()
            KC.finalize[-(-(c1 - c0) // KC.THREADS), KC.THREADS](hv, hi)
            out_v.append(hv)
            out_i.append(hi)
    if stats is not None:
        stats["survivors"] = survivors
        stats["pairs"] = int(nq) * int(n)
    if not out_v:
        hv, hi = lib.zeros((0, k), dtype=dtype), lib.zeros((0, k), dtype=np.int64)
    else:
        hv = out_v[0] if len(out_v) == 1 else lib.concatenate(out_v, axis=0)
        hi = out_i[0] if len(out_i) == 1 else lib.concatenate(out_i, axis=0)
    if not on_device and lib is not np:
        return lib.asnumpy(hv), lib.asnumpy(hi)
    return hv, hi
