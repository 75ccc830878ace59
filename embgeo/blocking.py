"""How vocabulary-wide work is cut into blocks under a memory budget, and run.

Every blocked method sizes its blocks with :func:`block_rows` (rows of scores that fit the
budget; passes over a matrix, such as row norms, Gram matrices and normalisation, cap them at
:data:`PASS_ROWS`) and cuts the rows with :func:`row_blocks` where every block must keep a minimum
(a query's whole candidate list), the searches shape their GEMM tiles with :func:`tile_shape`, run their query
blocks with :func:`run_blocks` on :func:`n_jobs` threads. One place, so that one budget means
the same everywhere.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
import warnings
from contextlib import nullcontext

from . import backend as xb
from .progress import progress_bar

__all__ = ["DEFAULT_MEMORY_BUDGET", "MIN_MEMORY_BUDGET", "share", "TILE_ROWS", "TILE_COLS", "CACHE_TILE_COLS",
           "PASS_ROWS", "budget_bytes", "block_rows", "row_blocks", "tile_shape", "run_blocks", "n_jobs"]

#: Bytes that the score blocks of one call may take, unless told otherwise.
DEFAULT_MEMORY_BUDGET = 256 * 2**20

#: Most rows in one block of a pass over a matrix (row norms, Gram matrices, normalisation):
#: enough to amortise the per-block overhead. A float64 block of up to 512 columns fits the default
#: budget at this height; wider rows get fewer.
PASS_ROWS = 65536

#: Rows and columns of the searches' GEMM tile: 256 × 4096 float32 = 4 MiB per thread, sized on
#: GloVe 400k × 50 (benchmarks/compare_neighbors.py); wider tiles leave the cache, narrower ones pay
#: call overhead.
TILE_ROWS = 256
TILE_COLS = 4096

#: Columns of a tile that a Numba kernel reads right after the GEMM wrote it, in both directions
#: (the fused induction of embgeo.crosslingual): TILE_ROWS × 1024 float32 = 1 MiB, which stays in
#: a core's cache between the two.
CACHE_TILE_COLS = 1024


#: The smallest budget a call is given: one full score tile (TILE_ROWS × TILE_COLS float32, 4 MiB).
#: Below it the fixed costs of a call (heaps, a block of queries, inverse norms, NumPy's and BLAS's
#: buffers) are no longer small beside the tiles, so the budget could not be held anyway, and tiles
#: of a few rows turn every GEMM into a matrix-vector product: ``memory_budget=64 * 1024`` took 23.6
#: MiB extra and 16× the time of the default. A smaller budget is raised to this, with a warning.
MIN_MEMORY_BUDGET = TILE_ROWS * TILE_COLS * 4


def n_jobs(n_jobs: int | None = None) -> int:
    """Threads a blocked method runs on: ``n_jobs`` if given (at least 1), else the usable cores.

    The usable cores are this process's CPU affinity, which containers and ``taskset`` narrow
    (``os.cpu_count()`` where the platform has no affinity).

    Parameters
    ----------
    n_jobs : int, optional
        The caller's choice; values below 1 give 1. None: the usable cores.

    Returns
    -------
    int
        At least 1.
    """
    if n_jobs is not None:
        return max(1, int(n_jobs))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def budget_bytes(memory_budget: int | None = None) -> int:
    """The bytes a call may use: ``memory_budget``, or :data:`DEFAULT_MEMORY_BUDGET` when None.

    A budget below :data:`MIN_MEMORY_BUDGET` is raised to it, with a warning naming
    the floor: so small a budget cannot be held (see there).

    Parameters
    ----------
    memory_budget : int, optional
        Bytes given by the caller (or a part made by :func:`share`, which is not raised again).

    Returns
    -------
    int
        The budget in bytes.

    Warns
    -----
    UserWarning
        ``memory_budget`` is below :data:`MIN_MEMORY_BUDGET` (and was raised to it).
    """
    if memory_budget is None:
        return DEFAULT_MEMORY_BUDGET
    budget = int(memory_budget)
    if isinstance(memory_budget, _Share):
        return max(1, budget)
    if budget < MIN_MEMORY_BUDGET:
        warnings.warn(f"memory_budget={budget} bytes is below the floor of {MIN_MEMORY_BUDGET} bytes "
                      f"({MIN_MEMORY_BUDGET / 2**20:g} MiB, one score tile) that a blocked method can hold; "
                      f"using {MIN_MEMORY_BUDGET} bytes", stacklevel=3)
        budget = MIN_MEMORY_BUDGET
    return budget


class _Share(int):
    """A part of a budget that was already raised to the floor: not raised again."""


def share(memory_budget: int | None, parts: int) -> int:
    """``1/parts`` of the budget (raised to the floor first), for a step that gets only a part of it.

    Pass it on as ``memory_budget=``: unlike a budget given by a caller, it is not raised to
    :data:`MIN_MEMORY_BUDGET` again (which would give the step the whole floor, not its part).

    Parameters
    ----------
    memory_budget : int, optional
        The whole budget (None: :data:`DEFAULT_MEMORY_BUDGET`).
    parts : int
        Into how many parts it is cut.

    Returns
    -------
    int
        The part, at least 1 byte (an ``int`` subclass that :func:`budget_bytes` leaves as is).
    """
    return _Share(max(1, budget_bytes(memory_budget) // int(parts)))


def block_rows(n_columns: int, itemsize: int = 4, memory_budget: int | None = None, minimum: int = 1,
               maximum: int | None = None) -> int:
    """How many rows of ``n_columns`` scores of ``itemsize`` bytes fit the memory budget.

    Parameters
    ----------
    n_columns : int
        Scores per row (e.g. the vocabulary size).
    itemsize : int
        Bytes per score (4 for float32).
    memory_budget : int, optional
        Bytes available (default :data:`DEFAULT_MEMORY_BUDGET`, 256 MiB).
    minimum : int
        Never return fewer rows than this (one row always fits by fiat).
    maximum : int, optional
        Never return more rows than this (e.g. :data:`PASS_ROWS` for a pass over a matrix).

    Returns
    -------
    int
        The number of rows, between ``minimum`` and ``maximum``.

    See Also
    --------
    row_blocks : cuts the rows into blocks of about this height.

    Examples
    --------
    >>> block_rows(300, 8, maximum=PASS_ROWS)   # a float64 block of 300 columns: the cap
    65536
    >>> block_rows(1024, 8, maximum=PASS_ROWS)  # 1024 columns: the budget
    32768
    """
    rows = max(int(minimum), budget_bytes(memory_budget) // max(1, int(n_columns) * int(itemsize)))
    return rows if maximum is None else max(int(minimum), min(rows, int(maximum)))


def row_blocks(n: int, rows: int, least: int = 1) -> "_RowBlocks":
    """``[start, stop)`` bounds that cut ``n`` rows into blocks of about ``rows`` rows, none shorter than ``least``.

    The blocks are as even as possible (their lengths differ by at most one) and as few as ``rows``
    allows: ``ceil(n / rows)`` of them, unless that would leave one shorter than ``least``, in which
    case there are ``n // least`` (so a block may exceed ``rows``, by less than ``least``). A search
    that keeps its top k of every block passes ``least=k`` so that each block holds a whole list.
    ``n < least`` gives one block of all ``n`` rows; ``n = 0`` gives none.

    Parameters
    ----------
    n : int
        Rows to cut.
    rows : int
        The block height the memory budget allows (e.g. from :func:`block_rows`).
    least : int, default 1
        The shortest block allowed.

    Returns
    -------
    sequence of (int, int)
        Consecutive ``(start, stop)`` pairs covering ``range(n)``: a sequence computed on demand
        (constant memory, whatever the number of blocks).

    Examples
    --------
    >>> row_blocks(10, 4)            # ceil(10 / 4) = 3 even blocks
    [(0, 3), (3, 6), (6, 10)]
    >>> row_blocks(10, 2, least=4)   # 5 blocks of 2 would be too short: 10 // 4 = 2 blocks
    [(0, 5), (5, 10)]
    """
    n = int(n)
    if n <= 0:
        return _RowBlocks(0, 0)
    return _RowBlocks(n, max(1, min(-(-n // max(1, int(rows))), n // max(1, int(least)))))


class _RowBlocks(Sequence):
    """The blocks of :func:`row_blocks`, computed on demand: a tiny budget over many rows means
    many blocks, and a list of them would itself outgrow the budget (O(1) memory, like ``range``)."""

    __slots__ = ("n", "n_blocks")

    def __init__(self, n: int, n_blocks: int):
        self.n, self.n_blocks = n, n_blocks

    def __len__(self) -> int:
        return self.n_blocks

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.n_blocks))]
        if i < 0:
            i += self.n_blocks
        if not 0 <= i < self.n_blocks:
            raise IndexError(f"block {i} of {self.n_blocks}")
        return self.n * i // self.n_blocks, self.n * (i + 1) // self.n_blocks

    def __iter__(self):
        n, m = self.n, self.n_blocks
        for i in range(m):
            yield n * i // m, n * (i + 1) // m

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


def tile_shape(n: int, nq: int, n_jobs: int, itemsize: int, memory_budget: int | None = None,
               max_cols: int | None = None) -> tuple[int, int]:
    """(rows, columns) of one score tile: ``nq`` queries against ``n`` rows on ``n_jobs`` threads.

    Each thread holds one tile, so ``n_jobs`` tiles fit ``memory_budget``; a tiny budget narrows
    the tile down to 16 columns (one chunk of the selection kernels). Few queries widen it, up to
    ``max_cols`` when the caller needs a tile to stay in cache.

    Parameters
    ----------
    n : int
        Database rows (candidates).
    nq : int
        Queries.
    n_jobs : int
        Threads, each holding one tile.
    itemsize : int
        Bytes per score (4 for float32).
    memory_budget : int, optional
        Bytes for all the threads' tiles (default :data:`DEFAULT_MEMORY_BUDGET`).
    max_cols : int, optional
        The widest tile allowed when few queries widen it (at least :data:`TILE_COLS`).

    Returns
    -------
    rows, cols : int
        At most :data:`TILE_ROWS` query rows and ``n`` database columns.
    """
    n_jobs = max(1, n_jobs)
    budget = budget_bytes(memory_budget)
    cols = max(16, min(n, TILE_COLS, budget // max(1, itemsize * n_jobs)))
    # enough blocks to keep every thread busy
    rows = max(1, min(TILE_ROWS, budget // max(1, itemsize * cols * n_jobs), -(-nq // n_jobs)))
    if rows < TILE_ROWS:
        # few queries: the GEMM is a matrix-vector product bound by reading the database, so
        # wider tiles (within the budget) only save per-tile overhead
        cols = max(cols, min(TILE_ROWS * TILE_COLS // rows, budget // max(1, itemsize * rows * n_jobs)))
        if max_cols is not None:
            cols = min(cols, max(TILE_COLS, max_cols))
    return rows, min(cols, n)


def run_blocks(fn, starts, *, n_jobs: int = 1, desc=None, progress: bool | None = None,
               flops: float = 0.0) -> None:
    """Call ``fn(start)`` for every block start, on ``n_jobs`` threads, with one progress bar.

    The blocked searches' one parallel level: ``fn`` releases the GIL in its GEMM and kernels,
    so threads, not processes, fill the cores, and BLAS runs one thread meanwhile — unless the
    whole job (``flops``, e.g. queries × rows × dimension) is too small to be worth the switch.

    Parameters
    ----------
    fn : callable
        ``fn(start)`` computes one block and stores its result itself; its return value is ignored.
    starts : sequence
        The block starts (anything ``fn`` takes), one call each.
    n_jobs : int, default 1
        Threads; 1 runs the blocks in order here.
    desc : str, optional
        The progress bar's label.
    progress : bool, optional
        Show a progress bar over the blocks; None: automatic.
    flops : float, default 0.0
        The work of the whole job; from 2**24 on, BLAS is held to one thread meanwhile.

    See Also
    --------
    n_jobs : the default number of threads of the blocked methods.
    """
    with progress_bar(total=len(starts), desc=desc, progress=progress, unit="block") as bar:
        with (xb.single_blas_thread() if flops >= 2**24 else nullcontext()):
            if n_jobs <= 1 or len(starts) == 1:
                for s in starts:
                    fn(s)
                    bar.update()
            else:
                from concurrent.futures import ThreadPoolExecutor

                with ThreadPoolExecutor(min(n_jobs, len(starts))) as pool:
                    for _ in pool.map(fn, starts):
                        bar.update()
