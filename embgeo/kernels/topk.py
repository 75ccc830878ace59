"""Numba top-k selection: running per-row heaps fed one score tile at a time.

The neighbour search (:mod:`embgeo.neighbors`) computes scores with a float32 GEMM, one tile
of (query rows × database columns) at a time, and merges each tile (:func:`block_topk` runs a
query block's whole tile loop, GEMM included, without the GIL; :func:`merge_tile` merges one
tile given by the caller). The merge keeps, for every query row, the ``k`` best (score, column)
pairs seen so far in a binary min-heap whose root is the *worst* kept pair. :func:`finalize`
sorts each heap best first. :func:`self_block_topk` serves a self-join (every row against all
others), scoring each pair once for both rows.

Cosine never needs unit-length copies: :func:`block_topk` scales each score by its column's
inverse norm in the merge's first pass, and :func:`self_block_topk` scales one block of rows at
a time.

Order used everywhere: a pair is better if its score is higher, or the scores are equal and its
column is lower. So ties always go to the lower database row, independent of tile sizes and of
the order in which tiles arrive.

A tile row is scanned in chunks of ``_CHUNK`` scores: the chunk's maximum (a loop LLVM
vectorises) is compared with the heap root first, and only the rare chunks that can enter the
heap are looked at score by score. For k = 10 out of 400,000 columns only a few hundred chunks
per row pass, so the scan runs near memory speed.

Excluded columns are given per row in CSR form (``ex_ptr``, ``ex_idx``, sorted within a row,
found by binary search per tile); they are marked NaN in the tile, and NaN never enters a heap
(every comparison with NaN is false).
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["merge_tile", "merge_tile_serial", "block_topk", "finalize", "topk_rows", "init_heaps",
           "self_block_topk", "merge_heaps"]

_CHUNK = 16
# finalize: from this k on, two O(k log k) sorts beat the O(k²) insertion sort
_SORT_MIN_K = 128


@njit(cache=True, inline="always")
def _worse(v1, i1, v2, i2):
    """True when pair 1 ranks below pair 2 (lower score, or equal score and higher column)."""
    return v1 < v2 or (v1 == v2 and i1 > i2)


@njit(cache=True, inline="always")
def _sift_down(hv, hi, k):
    # restore the min-heap (root = worst kept pair) after the root was replaced
    pos = 0
    while True:
        child = 2 * pos + 1
        if child >= k:
            break
        right = child + 1
        if right < k and _worse(hv[right], hi[right], hv[child], hi[child]):
            child = right
        if _worse(hv[child], hi[child], hv[pos], hi[pos]):
            tv = hv[pos]
            ti = hi[pos]
            hv[pos] = hv[child]
            hi[pos] = hi[child]
            hv[child] = tv
            hi[child] = ti
            pos = child
        else:
            break


@njit(cache=True, inline="always")
def _merge_row(s, col0, hv, hi, k, cscale):
    # with ``cscale`` (non-empty), scores are first scaled by their column's factor, in the
    # same pass as the chunk maximum (cosine from raw dot products and inverse norms)
    m = s.shape[0]
    thr = hv[0]
    full = m - m % _CHUNK
    scaled = cscale.shape[0] > 0
    j = 0
    while j < full:
        # NaN (excluded) never wins ``v > mx``, so it cannot poison the chunk maximum. This scan is
        # written out here and in screen.screened_block on purpose: shared as one inlined function it
        # made the exact top-k about 20 % slower (GloVe 400k, 10k queries: 4.5 -> 5.5 s).
        mx = -np.inf
        if scaled:
            for t in range(_CHUNK):
                v = s[j + t] * cscale[col0 + j + t]
                s[j + t] = v
                mx = v if v > mx else mx
        else:
            for t in range(_CHUNK):
                v = s[j + t]
                mx = v if v > mx else mx
        if mx >= thr:
            for t in range(_CHUNK):
                v = s[j + t]
                c = col0 + j + t
                if _worse(hv[0], hi[0], v, c):
                    hv[0] = v
                    hi[0] = c
                    _sift_down(hv, hi, k)
            thr = hv[0]
        j += _CHUNK
    for jj in range(full, m):
        v = s[jj] * cscale[col0 + jj] if scaled else s[jj]
        c = col0 + jj
        if _worse(hv[0], hi[0], v, c):
            hv[0] = v
            hi[0] = c
            _sift_down(hv, hi, k)


@njit(cache=True, inline="always")
def _mark_excluded(s, col0, ex_ptr, ex_idx, r):
    m = s.shape[0]
    a = ex_ptr[r]
    b = ex_ptr[r + 1]
    # the row's exclusions are sorted: jump to the first one inside this tile
    p = a + np.searchsorted(ex_idx[a:b], col0)
    while p < b and ex_idx[p] < col0 + m:
        s[ex_idx[p] - col0] = np.nan
        p += 1


@njit(cache=True, inline="always")
def _merge_one(S, r, col0, heap_vals, heap_idx, row0, ex_ptr, ex_idx, cscale):
    s = S[r]
    if ex_ptr.shape[0] > 0:
        _mark_excluded(s, col0, ex_ptr, ex_idx, row0 + r)
    _merge_row(s, col0, heap_vals[row0 + r], heap_idx[row0 + r], heap_vals.shape[1], cscale)


@njit(cache=True, parallel=True)
def merge_tile(S, col0, heap_vals, heap_idx, row0, ex_ptr, ex_idx):
    """Merge a score tile into the running heaps of its rows (parallel over rows).

    Parameters
    ----------
    S : float32 or float64 array, shape (b, m), C-contiguous, **modified** (excluded → NaN)
        Scores of query rows ``row0 … row0+b-1`` against database columns ``col0 … col0+m-1``.
    col0 : int
        Database column of ``S[:, 0]``.
    heap_vals, heap_idx : arrays, shape (q, k)
        Running heaps from :func:`init_heaps`, updated in place for rows ``row0 … row0+b-1``.
    row0 : int
        Heap row of ``S[0]``.
    ex_ptr, ex_idx : int64 arrays
        CSR exclusion lists indexed by heap row (``ex_ptr`` has q + 1 entries, ``ex_idx`` sorted
        within a row); both empty for no exclusions.
    """
    empty = np.zeros(0, dtype=S.dtype)
    for r in prange(S.shape[0]):
        _merge_one(S, r, col0, heap_vals, heap_idx, row0, ex_ptr, ex_idx, empty)


@njit(cache=True, nogil=True)
def merge_tile_serial(S, col0, heap_vals, heap_idx, row0, ex_ptr, ex_idx):
    """:func:`merge_tile` on one thread, releasing the GIL (for callers that run their own threads)."""
    empty = np.zeros(0, dtype=S.dtype)
    for r in range(S.shape[0]):
        _merge_one(S, r, col0, heap_vals, heap_idx, row0, ex_ptr, ex_idx, empty)


@njit(cache=True, nogil=True)
def block_topk(Qb, D, cols, heap_vals, heap_idx, row0, ex_ptr, ex_idx, scale, col_bias, col_scale):
    """A whole block of queries against the whole database: GEMM tile, merge, next tile.

    The float GEMM of each (block × ``cols``) tile is ``np.dot`` (BLAS, through SciPy) into a
    reused buffer; the tile is then merged as in :func:`merge_tile`. The loop over tiles stays
    in compiled code, without the GIL, so Python threads running blocks never wait on each other.
    ``D`` is read one tile of rows at a time, so a memory-mapped ``D`` is paged in tile by tile.

    Parameters
    ----------
    Qb : array (b, d), C-contiguous
    D : array (n, d), C-contiguous, same dtype
    cols : int
        Database rows per tile.
    heap_vals, heap_idx, row0, ex_ptr, ex_idx
        As in :func:`merge_tile`.
    scale : float
        Scores are ``scale · (q·x) · col_scale[x] − col_bias[x]``: 1 and empty arrays for plain
        dot products, the inverse row norms of ``D`` as ``col_scale`` for cosine, 2 and r_S for
        CSLS.
    col_bias, col_scale : arrays (n,) or empty
    """
    n = D.shape[0]
    b = Qb.shape[0]
    has_bias = col_bias.shape[0] > 0
    has_cscale = col_scale.shape[0] > 0
    # one tile buffer for every tile, the last (narrower) one included: the memory budget counts one
    buf = np.empty(b * cols, dtype=D.dtype)
    for c in range(0, n, cols):
        ce = min(c + cols, n)
        S = buf[:b * (ce - c)].reshape((b, ce - c))
        np.dot(Qb, D[c:ce].T, S)
        fused = col_scale
        if has_bias or scale != 1.0:
            # CSLS: scale, inverse norm and bias in one pass before the merge
            for r in range(b):
                for j in range(ce - c):
                    v = S[r, j] * col_scale[c + j] if has_cscale else S[r, j]
                    S[r, j] = scale * v - (col_bias[c + j] if has_bias else 0.0)
            fused = col_scale[:0]
        for r in range(b):
            # plain cosine: the inverse norms are applied inside the merge's first pass
            _merge_one(S, r, c, heap_vals, heap_idx, row0, ex_ptr, ex_idx, fused)


def init_heaps(n_rows, k, dtype=np.float32):
    """Empty heaps: score -inf and column ``2**62`` (worse than any real pair)."""
    hv = np.full((n_rows, k), -np.inf, dtype=dtype)
    hi = np.full((n_rows, k), 2**62, dtype=np.int64)
    return hv, hi


@njit(cache=True, nogil=True)
def _insertion_sort_rows(heap_vals, heap_idx):
    q, k = heap_vals.shape
    for r in range(q):
        hv = heap_vals[r]
        hi = heap_idx[r]
        for a in range(1, k):
            v = hv[a]
            i = hi[a]
            b = a - 1
            while b >= 0 and _worse(hv[b], hi[b], v, i):
                hv[b + 1] = hv[b]
                hi[b + 1] = hi[b]
                b -= 1
            hv[b + 1] = v
            hi[b + 1] = i


def finalize(heap_vals, heap_idx):
    """Sort every heap best first, in place (score descending, column ascending on ties).

    Small k (the usual 10–100): a compiled insertion sort, O(k²) with tiny constants; large k
    (``_SORT_MIN_K`` and above, where k² dominated: 4 s for one row at k = 100k): NumPy's
    O(k log k) lexsort. The large-k sort stays out of Numba because compiling Numba's
    argsort implementations cost ~8 s of a fresh install's first search (issue 22), for a path
    that the usual k never takes. Neither relies on the heap order, so any producer of
    (values, columns) rows may call it.
    """
    if heap_vals.shape[1] < _SORT_MIN_K:
        _insertion_sort_rows(heap_vals, heap_idx)
        return
    order = np.lexsort((heap_idx, -heap_vals), axis=-1)
    heap_vals[...] = np.take_along_axis(heap_vals, order, axis=-1)
    heap_idx[...] = np.take_along_axis(heap_idx, order, axis=-1)


def topk_rows(S, k, ex_ptr=None, ex_idx=None, col0=0):
    """Top-``k`` of every row of a score matrix, best first, ties to the lower column.

    ``S`` is modified where exclusions apply. Returns ``(scores, columns)`` of shape (b, k);
    a row with fewer than ``k`` eligible columns is padded with (-inf, 2**62).
    """
    S = np.ascontiguousarray(S)
    if ex_ptr is None:
        ex_ptr = np.zeros(0, dtype=np.int64)
        ex_idx = np.zeros(0, dtype=np.int64)
    hv, hi = init_heaps(S.shape[0], k, S.dtype)
    # one row gains nothing from the parallel loop, and its launch cost 15-30 ms on a loaded
    # 2-core machine, against 0.2 ms serially, for a 300k-column row (most_similar's one query)
    merge = merge_tile_serial if S.shape[0] == 1 else merge_tile
    merge(S, col0, hv, hi, 0, ex_ptr, ex_idx)
    finalize(hv, hi)
    return hv, hi


@njit(cache=True, nogil=True)
def _unit_rows_into(X, inv, start, stop, out):
    # rows start..stop-1 of X scaled by their inverse norms, into out[:stop-start]
    d = X.shape[1]
    for r in range(stop - start):
        f = inv[start + r]
        for c in range(d):
            out[r, c] = X[start + r, c] * f


@njit(cache=True, nogil=True)
def self_block_topk(X, inv, i0, i1, cols, heap_vals, heap_idx):
    """All pairs (i, j) with i in block ``i0 … i1−1`` and j ≥ i0, each scored once, into both heaps.

    The symmetric half of a self-join (every row's top-k among the other rows of ``X``, cosine
    when ``inv`` holds inverse norms, dot product when it holds ones): the unit-length block
    of rows i0…i1−1 meets one tile of unit-length rows j at a time (a GEMM); row i's heap takes
    the tile row, and, for j past the block, row j's heap takes the tile column with ids i. Pairs
    inside the block are in the tile twice and are merged from rows only; the diagonal (i = j)
    is never merged. Blocks run in any order and on any thread, provided each thread has its own
    heaps (merged at the end): every pair is scored exactly once, by one GEMM, so both rows of a
    pair see the same score.

    Parameters
    ----------
    X : array (n, d), C-contiguous
    inv : array (n,), same dtype
    i0, i1 : int
        The block of rows.
    cols : int
        Rows j per tile.
    heap_vals, heap_idx : arrays (n, k)
        This thread's heaps for all rows, from :func:`init_heaps`.
    """
    n, d = X.shape
    b = i1 - i0
    k = heap_vals.shape[1]
    A = np.empty((b, d), dtype=X.dtype)
    _unit_rows_into(X, inv, i0, i1, A)
    B = np.empty((cols, d), dtype=X.dtype)
    buf = np.empty(b * cols, dtype=X.dtype)  # every tile, the last (narrower) one included
    colmax = np.empty(cols, dtype=X.dtype)
    empty = np.zeros(0, dtype=X.dtype)
    for c in range(i0, n, cols):
        ce = min(c + cols, n)
        m = ce - c
        _unit_rows_into(X, inv, c, ce, B)
        S = buf[:b * m].reshape((b, m))
        np.dot(A, B[:m].T, S)
        # the block's own columns: rows merge them, the diagonal excluded
        for r in range(b):
            if i0 + r >= c and i0 + r < ce:
                S[r, i0 + r - c] = np.nan
        for r in range(b):
            _merge_row(S[r], c, heap_vals[i0 + r], heap_idx[i0 + r], k, empty)
        # columns past the block: their rows' heaps take the column, ids i0 + r. A vectorised
        # pass takes every column's maximum over the block's rows, row by row (contiguous
        # reads); only columns whose maximum reaches their heap's worst score are then scanned
        j0 = max(0, i1 - c)
        if j0 < m:
            for j in range(j0, m):
                colmax[j] = -np.inf
            for r in range(b):
                for j in range(j0, m):
                    v = S[r, j]
                    colmax[j] = v if v > colmax[j] else colmax[j]
            for j in range(j0, m):
                hv = heap_vals[c + j]
                if colmax[j] >= hv[0]:
                    hi = heap_idx[c + j]
                    for r in range(b):
                        v = S[r, j]
                        if _worse(hv[0], hi[0], v, i0 + r):
                            hv[0] = v
                            hi[0] = i0 + r
                            _sift_down(hv, hi, k)


@njit(cache=True, nogil=True)
def merge_heaps(dst_vals, dst_idx, src_vals, src_idx):
    """Merge heap set ``src`` into ``dst`` row by row (both (n, k) heaps of :func:`init_heaps`)."""
    n, k = dst_vals.shape
    for r in range(n):
        for t in range(k):
            v = src_vals[r, t]
            c = src_idx[r, t]
            if _worse(dst_vals[r, 0], dst_idx[r, 0], v, c):
                dst_vals[r, 0] = v
                dst_idx[r, 0] = c
                _sift_down(dst_vals[r], dst_idx[r], k)


# ---------------------------------------------------------------------------- Hamming distance of packed bits
# Packed bits are read as uint64 words (the caller pads a row to whole words with zero bytes, which add
# nothing to a distance); a word's popcount is the SWAR sequence, which LLVM compiles to one popcnt.
# Distances enter the heaps negated, so the order is the one above: ties to the lower row. Queries are taken
# in chunks (one chunk per thread at a time) and the database in tiles, so that a tile stays in cache while
# the chunk's queries scan it. Distances are computed for runs of rows at once (vectorised, see
# hamming_topk), and only a row at least as near as the query's bound (its heap root's distance) touches
# the heap.
__all__ += ["hamming_topk"]
#: rows whose distances to one query are computed in one vectorised loop before any heap is touched
_RUN = 64
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S4 = np.uint64(4)
_S56 = np.uint64(56)


@njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return np.int32((x * _H01) >> _S56)


@njit(cache=True, inline="always")
def _excluded(ex_ptr, ex_idx, r, c):
    a = ex_ptr[r]
    b = ex_ptr[r + 1]
    if a == b:
        return False
    p = a + np.searchsorted(ex_idx[a:b], c)
    return p < b and ex_idx[p] == c


@njit(cache=True, inline="always")
def _offer_distance(hvr, hir, d, c, ex_ptr, ex_idx, r):
    """Push row ``c`` at distance ``d`` into query ``r``'s heap if it ranks above the root; the new bound."""
    if _worse(hvr[0], hir[0], -d, c) and not _excluded(ex_ptr, ex_idx, r, c):
        hvr[0] = -d
        hir[0] = c
        _sift_down(hvr, hir, hvr.shape[0])
    return -np.int64(hvr[0])


@njit(cache=True, parallel=True)
def hamming_topk(Q, Xt, col0, hv, hi, ex_ptr, ex_idx, tile, qchunk):
    """Merge rows of ``Xt`` (database rows ``col0 …``, stored word-major) into the heaps of queries ``Q``
    by Hamming distance.

    ``Q`` (q, w) are ``uint64`` words of packed bits and ``Xt`` (w, m) the database's words transposed
    (word b of every row contiguous), so that the distances of a run of _RUN rows to a query are one
    loop LLVM vectorises, popcounts included (``vpshufb`` nibble tables on AVX2, four rows a vector:
    twice the rows per second of one ``popcnt`` per word); a run whose least distance exceeds the
    query's bound (its heap root) touches no heap. ``hv`` (q, k) ``int32`` holds negated distances,
    ``hi`` (q, k) ``int64`` rows (:func:`finalize` sorts them). ``ex_ptr`` has length q + 1 (all zero:
    nothing excluded); an excluded row is looked up (binary search) only for a candidate that would
    enter the heap. ``tile``: database rows per cache tile; ``qchunk``: queries that scan a tile in turn.
    """
    nq, w = Q.shape
    m = Xt.shape[1]
    for ch in prange((nq + qchunk - 1) // qchunk):
        q0 = ch * qchunk
        q1 = min(nq, q0 + qchunk)
        dist = np.empty(_RUN, dtype=np.int64)
        for t0 in range(0, m, tile):
            t1 = min(m, t0 + tile)
            for r in range(q0, q1):
                hvr = hv[r]
                hir = hi[r]
                # int64: the sentinel root's negation does not fit in int32
                bound = -np.int64(hvr[0])
                for j0 in range(t0, t1, _RUN):
                    nb = min(_RUN, t1 - j0)
                    if w == 4:  # 256-bit codes, the common width: the query's words in registers
                        a0, a1, a2, a3 = Q[r, 0], Q[r, 1], Q[r, 2], Q[r, 3]
                        x0, x1, x2, x3 = Xt[0, j0:j0 + nb], Xt[1, j0:j0 + nb], Xt[2, j0:j0 + nb], Xt[3, j0:j0 + nb]
                        for jj in range(nb):
                            dist[jj] = (_popcount(a0 ^ x0[jj]) + _popcount(a1 ^ x1[jj])
                                        + _popcount(a2 ^ x2[jj]) + _popcount(a3 ^ x3[jj]))
                    else:
                        qb = Q[r, 0]
                        xb = Xt[0, j0:j0 + nb]
                        for jj in range(nb):
                            dist[jj] = _popcount(qb ^ xb[jj])
                        for b in range(1, w):
                            qb = Q[r, b]
                            xb = Xt[b, j0:j0 + nb]
                            for jj in range(nb):
                                dist[jj] += _popcount(qb ^ xb[jj])
                    least = dist[0]
                    for jj in range(1, nb):
                        least = min(least, dist[jj])
                    if least <= bound:
                        for jj in range(nb):
                            if dist[jj] <= bound:
                                bound = _offer_distance(hvr, hir, np.int32(dist[jj]), col0 + j0 + jj, ex_ptr, ex_idx, r)


# ---------------------------------------------------------------------------- int8 dot products
# A fused kernel: scores of a tile of I8_QUERIES queries × a block of I8_ROWS database rows are summed in int32
# vector registers and never written out as a score matrix; the heaps see a block only when its best score
# reaches a heap root (the running k-th best, the threshold). Products are exact integers and int32 sums
# are exact for the dimensions embgeo.neighbors._codes accepts, so every tiling gives the same scores, and
# the heap order above gives ties to the lower row.
#
# Layout (the caller packs it, see _codes): the database is cut into blocks of I8_ROWS rows, and a block
# stores, for each pair of dims (2p, 2p+1), its rows' two codes side by side: (pair, row, 2) int8,
# dims padded with zeros to an even number and rows with zero rows to whole blocks. A query is its pairs
# as int32 words, each the two codes as int16 halves. So one vector of 16 int8 codes (8 rows × a pair),
# sign-extended to int16, times the query's pair broadcast to 8 lanes, summed pairwise into 8 int32
# lanes, is one `vpmaddwd` on AVX2 (`vpmovsxbw` before it): 16 multiply-adds per instruction where a
# float32 FMA does 8. Numba's integer arithmetic widens to int64 and LLVM then does not find `vpmaddwd`
# (a plain Numba loop was 2× slower than the float32 engine), so the block's loop over pairs is written
# as LLVM vector IR below (target-independent IR: the x86 backend matches the pattern to vpmaddwd;
# other targets compile the same IR, unmeasured).
__all__ += ["int8_dot_topk", "int8_pack", "I8_ROWS", "I8_QUERIES"]
# database rows per block (two vectors of 8 int32 lanes) and queries per register tile: 12 accumulators,
# with the block's two code vectors and a query's pair they fill AVX2's 16 registers (6 × 16 ran ~10 %
# faster than 4 × 16 and 4 × 24 on GloVe 50d and random 256d, 2026-11-27)
I8_ROWS = 16
I8_QUERIES = 6


def _vector_ptr(context, builder, arrty, arr, offset, vty):
    a = context.make_array(arrty)(context, builder, arr)
    return builder.bitcast(builder.gep(a.data, [offset]), ir.PointerType(vty))


@intrinsic
def _int8_block_scores(typingctx, X, xoff, Q, qoff, pairs, S, T):
    """Scores of a query tile × a block into ``S`` (query i's at ``S[i·I8_ROWS …]``); bit i of the result is
    set when query i has a score ≥ ``T[i]`` (its heap root). The tile's queries are ``pairs`` words apart
    from ``Q[qoff]``, the block's pairs ``2·I8_ROWS`` codes apart from ``X[xoff]``."""
    ok = (isinstance(X, types.Array) and X.dtype == types.int8 and all(
        isinstance(a, types.Array) and a.dtype == types.int32 for a in (Q, S, T)))
    if not ok:
        return None
    sig = types.int64(X, types.intp, Q, types.intp, types.intp, S, T)

    def codegen(context, builder, sig, args):
        X, xoff, Q, qoff, pairs, S, T = args
        i64, i32, i16, i8 = ir.IntType(64), ir.IntType(32), ir.IntType(16), ir.IntType(8)
        v8, v16 = ir.VectorType(i32, 8), ir.VectorType(i32, 16)
        zero8 = ir.Constant(v8, [0] * 8)
        even = ir.Constant(v8, list(range(0, 16, 2)))
        odd = ir.Constant(v8, list(range(1, 16, 2)))
        halves = I8_ROWS // 8

        def broadcast(x):
            return builder.shuffle_vector(builder.insert_element(zero8, x, ir.Constant(i32, 0)), zero8, zero8)
        # accumulators in allocas of the entry block: LLVM promotes them to registers across the loop
        acc = [cgutils.alloca_once_value(builder, zero8) for _ in range(I8_QUERIES * halves)]
        with cgutils.for_range(builder, pairs) as loop:
            p = loop.index
            base = builder.add(xoff, builder.mul(p, ir.Constant(i64, 2 * I8_ROWS)))
            xs = []
            for h in range(halves):
                at = builder.add(base, ir.Constant(i64, 16 * h))
                xv = builder.load(_vector_ptr(context, builder, sig.args[0], X, at, ir.VectorType(i8, 16)), align=1)
                xs.append(builder.sext(xv, v16))
            for i in range(I8_QUERIES):
                at = builder.add(builder.add(qoff, builder.mul(ir.Constant(i64, i), pairs)), p)
                q = builder.load(_vector_ptr(context, builder, sig.args[2], Q, at, i32))
                qw = builder.sext(builder.bitcast(broadcast(q), ir.VectorType(i16, 16)), v16)
                for h in range(halves):
                    m = builder.mul(xs[h], qw)
                    s = builder.add(builder.shuffle_vector(m, m, even), builder.shuffle_vector(m, m, odd))
                    a = acc[i * halves + h]
                    builder.store(builder.add(builder.load(a), s), a)
        mask = ir.Constant(i64, 0)
        for i in range(I8_QUERIES):
            t = broadcast(builder.load(_vector_ptr(context, builder, sig.args[6], T, ir.Constant(i64, i), i32)))
            hit = ir.Constant(ir.IntType(1), 0)
            for h in range(halves):
                a = builder.load(acc[i * halves + h])
                builder.store(a, _vector_ptr(context, builder, sig.args[5], S, ir.Constant(i64, 8 * (i * halves + h)),
                                             v8), align=4)
                ge = builder.icmp_signed(">=", a, t)
                hit = builder.or_(hit, builder.icmp_unsigned("!=", builder.bitcast(ge, ir.IntType(8)),
                                                             ir.Constant(ir.IntType(8), 0)))
            mask = builder.or_(mask, builder.shl(builder.zext(hit, i64), ir.Constant(i64, i)))
        return mask
    return sig, codegen


@njit(cache=True, parallel=True)
def int8_dot_topk(Q, nq, X, m, col0, hv, hi, ex_ptr, ex_idx, tile_blocks, qchunk):
    """Merge packed int8 rows ``X`` (database rows ``col0 … col0+m−1``) into the heaps of queries ``Q``.

    ``Q`` (padded to whole tiles of :data:`I8_QUERIES` rows, ``pairs`` int32 words a row) and ``X``
    (1-D, whole blocks of :data:`I8_ROWS` rows) are packed as the comment above says; only the first
    ``nq`` queries and ``m`` rows are real. ``hv`` (nq, k) int32 scores and ``hi`` (nq, k) int64 rows
    are heaps as :func:`hamming_topk`'s (not negated: larger is better); ``ex_ptr`` has length nq + 1
    (all zero: nothing excluded). Each thread takes ``qchunk`` queries and scans the database a cache
    tile of ``tile_blocks`` blocks at a time, every query tile of its chunk against the tile.
    """
    pairs = Q.shape[1]
    Qf = Q.reshape(-1)
    nblk = X.shape[0] // (2 * I8_ROWS * pairs)
    ntiles = Q.shape[0] // I8_QUERIES
    per = qchunk // I8_QUERIES
    for ch in prange((ntiles + per - 1) // per):
        S = np.empty(I8_QUERIES * I8_ROWS, dtype=np.int32)
        T = np.empty(I8_QUERIES, dtype=np.int32)
        for t0 in range(0, nblk, tile_blocks):
            t1 = min(nblk, t0 + tile_blocks)
            for qt in range(ch * per, min(ntiles, (ch + 1) * per)):
                q0 = qt * I8_QUERIES
                real = min(I8_QUERIES, nq - q0)
                # the thresholds: each real query's heap root; padding queries never pass
                for i in range(I8_QUERIES):
                    T[i] = hv[q0 + i, 0] if i < real else np.iinfo(np.int32).max
                for b in range(t0, t1):
                    hit = _int8_block_scores(X, b * 2 * I8_ROWS * pairs, Qf, q0 * pairs, pairs, S, T)
                    if hit == 0:
                        continue
                    for i in range(real):
                        if not (hit >> i) & 1:
                            continue
                        r = q0 + i
                        hvr = hv[r]
                        hir = hi[r]
                        for j in range(min(I8_ROWS, m - b * I8_ROWS)):
                            c = col0 + b * I8_ROWS + j
                            v = S[i * I8_ROWS + j]
                            if _worse(hvr[0], hir[0], v, c) and not _excluded(ex_ptr, ex_idx, r, c):
                                hvr[0] = v
                                hir[0] = c
                                _sift_down(hvr, hir, hvr.shape[0])
                        T[i] = hvr[0]


@njit(cache=True, parallel=True)
def int8_pack(X, out):
    """Rows ``X`` (m, d) int8 into the kernel's blocks ``out`` (blocks, pairs, I8_ROWS, 2), zero-padded.

    (NumPy's transpose of this shape, 2-byte inner runs, took 1.8 s for 400k × 384 codes; this loop
    0.06 s into touched memory.)
    """
    m, d = X.shape
    blocks, pairs = out.shape[0], out.shape[1]
    whole = d // 2
    for b in prange(blocks):
        for r in range(I8_ROWS):
            row = b * I8_ROWS + r
            if row >= m:
                for p in range(pairs):
                    out[b, p, r, 0] = 0
                    out[b, p, r, 1] = 0
                continue
            for p in range(whole):
                out[b, p, r, 0] = X[row, 2 * p]
                out[b, p, r, 1] = X[row, 2 * p + 1]
            if whole < pairs:  # an odd width: the last pair's second code is padding
                out[b, whole, r, 0] = X[row, d - 1]
                out[b, whole, r, 1] = 0
