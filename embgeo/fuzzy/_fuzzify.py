"""The representation of Bhat et al. (2020), Sec. 4.1: feature probabilities of word vectors, and the
constructions of the authors' released programs (see the package docstring)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import backend as xb
from ..blocking import block_rows
from ..progress import progress_bar

_AXES = ("vocabulary", "features")

#: The settings of :func:`fuzzify` behind each of the paper's tables (``from_embeddings(e, construction=...)``).
#: ``"paper"``: Sec. 4.1 as printed. The others are what the authors' released programs do
#: (AlokDebnath/fuzzy_embeddings, ``word2fuzzy/``): ``"released-cli"`` is ``cli.cpp`` (Tables 1-7, the
#: entropies of Sec. 4.3-4.4 such as H(the) = 6.29, Table 10's entropy ranking), ``"released-simlex"`` is
#: ``dump-accuracy-simlex.c`` (Table 8), ``"released-composition"`` is ``compute-composition.cpp``
#: (Table 11). Table 9's ``compute-accuracy-topn.c`` exponentiates without normalising (memberships up
#: to e, not fuzzy sets; see docs/fuzzy.md), so it has no entry.
CONSTRUCTIONS: dict[str, dict[str, Any]] = {
    "paper": {"axis": "vocabulary", "base": math.e, "l2_normalize": False},
    "released-cli": {"axis": "features", "base": 2.0, "l2_normalize": False},
    "released-simlex": {"axis": "features", "base": 2.0, "l2_normalize": True},
    "released-composition": {"axis": "vocabulary", "base": 2.0, "l2_normalize": True},
}


# ====================================================================== representation
def fuzzify(X, axis: str = "vocabulary", base: float = math.e, *, l2_normalize: bool = False, dtype=None,
            memory_budget: int | None = None, progress: bool | None = None):
    """Feature probabilities of word vectors: exponentiate and normalise (Bhat et al. 2020, Sec. 4.1).

    ``axis="vocabulary"`` (the paper, Sec. 4.1: ``v̂[i] = exp v[i] / Σ_{w ∈ VOCAB} exp w[i]``):
    ``µ[w, i] = base**X[w, i] / Σ_{w'} base**X[w', i]``, each column sums to 1 over the vocabulary.
    ``axis="features"`` (the released code's ``cli.cpp`` and ``dump-accuracy-simlex.c``, with
    ``base=2``): ``µ[w, i] = base**X[w, i] / Σ_j base**X[w, j]``, each row sums to 1.
    ``l2_normalize=True`` divides every vector by its L2 norm first, as the released code's
    Table 8 (``dump-accuracy-simlex.c``) and Table 11 (``compute-composition.cpp``) programs do;
    the scaling is folded into the kernels, so it makes no copy of ``X``. See
    :data:`CONSTRUCTIONS` for the settings of each paper table.

    The column (or row) maximum is subtracted before exponentiating, so nothing overflows;
    exponentials and sums are float64 and the result is stored in ``dtype`` (float32 default).
    On NumPy a parallel Numba kernel makes two passes over the rows (column max and rescaled
    sum of exponentials in one online pass, then the write), with O(d) extra memory beyond the
    output. Other arrays (CuPy, array-API) take the same two passes in blocks of rows.

    Parameters
    ----------
    X : array, shape (n_words, dim)
        Word vectors; finite.
    axis : {"vocabulary", "features"}
    base : float, default e
        Must be greater than 1.
    l2_normalize : bool, default False
        Unit-normalise every row before exponentiating.
    dtype : {"float32", "float64"}, optional
        Storage dtype of the memberships (default: embgeo's default, float32).
    memory_budget : int, optional
        Bytes for one block of float64 rows on the array-API path.
    progress : bool, optional
        Progress bar over blocks (array-API path).

    Returns
    -------
    M : array, shape (n_words, dim), same library as ``X``
        Memberships in [0, 1].

    Raises
    ------
    ValueError
        Unknown axis, ``base <= 1``, a non-2-D, empty or non-finite ``X``, or (with
        ``l2_normalize``) a zero row.

    Examples
    --------
    >>> import numpy as np
    >>> M = fuzzify(np.log(np.array([[1., 2.], [3., 2.]])), dtype="float64")
    >>> M.tolist()
    [[0.25, 0.5], [0.75, 0.5]]
    """
    if axis not in _AXES:
        raise ValueError(f"axis must be 'vocabulary' or 'features', got {axis!r}")
    base = float(base)
    if not math.isfinite(base) or base <= 1.0:
        raise ValueError(f"base must be a finite number greater than 1, got {base!r}")
    X = xb.check_matrix(X, "X")
    xp = xb.get_namespace(X)
    dt = xb.resolve_dtype(dtype, xp)
    scale = math.log(base)
    if xb.is_numpy(X):
        from ..kernels import fuzzy as kern
        from ..kernels import readonly

        X = np.ascontiguousarray(X, dtype=X.dtype if X.dtype in (np.float32, np.float64) else np.float64)
        X = readonly(X)  # read-only whatever the caller's flag: one compiled specialization per dtype
        rs = np.ones(X.shape[0])
        if l2_normalize:
            kern.inverse_row_norms(X, rs)
            _check_nonzero_rows(rs == 0)
        out = np.empty(X.shape, dtype=dt)
        if axis == "vocabulary":
            m, s = kern.column_logsumexp(X, rs, scale)
            kern.write_column_softmax(X, rs, scale, m, s, out)
        else:
            kern.row_softmax(X, rs, scale, out)
        return out
    return _fuzzify_xp(xp, X, axis, scale, l2_normalize, dt, memory_budget, progress)


def _check_nonzero_rows(zero):
    if np.any(zero):
        raise ValueError(f"row {int(np.flatnonzero(zero)[0])} is a zero vector: it has no L2 normalisation")


def _fuzzify_xp(xp, X, axis, scale, l2_normalize, dt, memory_budget, progress):
    n, d = X.shape
    step = block_rows(d, 8, memory_budget)
    starts = range(0, n, step)

    def scaled(s):
        A = xp.astype(X[s:min(s + step, n), ...], xp.float64)
        if l2_normalize:
            norms = xp.sqrt(xp.sum(A * A, axis=1, keepdims=True))
            zero = xb.to_numpy(norms == 0).reshape(-1)
            if zero.any():
                _check_nonzero_rows(np.concatenate([np.zeros(s, dtype=bool), zero]))
            A = A / norms
        return A * scale

    if axis == "features":
        parts = []
        for s in progress_bar(starts, total=len(starts), desc="fuzzify", progress=progress, unit="block"):
            A = scaled(s)
            E = xp.exp(A - xp.max(A, axis=1, keepdims=True))
            parts.append(xp.astype(E / xp.sum(E, axis=1, keepdims=True), dt))
        return xp.concat(parts, axis=0)
    # pass 1, blockwise log-sum-exp: the running sum is rescaled whenever the column maximum grows
    m, tot = None, None
    for s in starts:
        A = scaled(s)
        bm = xp.max(A, axis=0, keepdims=True)
        if m is None:
            m, tot = bm, xp.sum(xp.exp(A - bm), axis=0, keepdims=True)
            continue
        new = xp.maximum(m, bm)
        tot = tot * xp.exp(m - new) + xp.sum(xp.exp(A - new), axis=0, keepdims=True)
        m = new
    # pass 2: write
    parts = [xp.astype(xp.exp(scaled(s) - m) / tot, dt)
             for s in progress_bar(starts, total=len(starts), desc="fuzzify", progress=progress, unit="block")]
    return xp.concat(parts, axis=0)
