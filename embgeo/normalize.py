"""VecMap's embedding normalisations, as composable steps.

The names and definitions are those of VecMap (Artetxe, Labaka & Agirre 2018, "A robust
self-learning method for fully unsupervised cross-lingual mappings of word embeddings", and
"Generalizing and improving bilingual word embedding mappings ..." AAAI 2018, Section 3.1):

``unit``
    scale each word vector to unit Euclidean length (zero vectors stay zero);
``center``
    subtract the mean word vector (centre each dimension over the vocabulary);
``unitdim``
    scale each dimension (column) to unit length over the vocabulary;
``centeremb``
    subtract each word vector's own mean over its dimensions;
``none``
    do nothing.

They are defined once here and used by :class:`~embgeo.embeddings.Embeddings`,
:mod:`embgeo.postprocess` and :mod:`embgeo.crosslingual`. All steps are backend-neutral and
accumulate sums in float64 whatever the storage dtype, one block of rows at a time (the only
full-size allocation is the result): a float64 copy of a block fits ``memory_budget``, at most
:data:`~embgeo.blocking.PASS_ROWS` rows.
"""
from __future__ import annotations

import numpy as np

from . import backend as xb
from .blocking import PASS_ROWS, block_rows, row_blocks
from .linalg import unit_rows

__all__ = ["normalize", "Normalizer", "STEPS"]

STEPS = ("unit", "center", "unitdim", "centeremb", "none")


def _safe(xp, norms):
    # VecMap's rule: a zero norm divides by one, so all-zero rows/columns stay zero.
    return xp.where(norms == 0, xp.ones_like(norms), norms)


def _blocks(X, memory_budget):
    # (0, 0) for no rows: the steps still return an empty array of X's shape
    return row_blocks(X.shape[0], block_rows(X.shape[1], 8, memory_budget, maximum=PASS_ROWS)) or [(0, 0)]


def _rowwise(xp, X, f, memory_budget):
    """Apply ``f`` (float64 block -> float64 block) to row blocks, storing in X's dtype."""
    parts = [xp.astype(f(xp.astype(X[s:e, ...], xp.float64)), X.dtype) for s, e in _blocks(X, memory_budget)]
    return parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)


def _column_sums(xp, X, square: bool, memory_budget):
    total = xp.zeros((1, X.shape[1]), dtype=xp.float64, device=xb.device(X))
    for s, e in _blocks(X, memory_budget):
        B = xp.astype(X[s:e, ...], xp.float64)
        total = total + xp.sum(B * B if square else B, axis=0, keepdims=True)
    return total


def _unit(xp, X, budget):
    return _rowwise(xp, X, unit_rows, budget)


def _center(xp, X, budget):
    mean = _column_sums(xp, X, False, budget) / max(X.shape[0], 1)
    return _rowwise(xp, X, lambda B: B - mean, budget)


def _unitdim(xp, X, budget):
    norms = _safe(xp, xp.sqrt(_column_sums(xp, X, True, budget)))
    return _rowwise(xp, X, lambda B: B / norms, budget)


def _centeremb(xp, X, budget):
    return _rowwise(xp, X, lambda B: B - xp.mean(B, axis=1, keepdims=True), budget)


_FUNCS = {"unit": _unit, "center": _center, "unitdim": _unitdim, "centeremb": _centeremb,
          "none": lambda xp, X, budget: X}


def normalize(X, *steps: str, memory_budget: int | None = None, backend: str | None = None):
    """Apply normalisation ``steps`` to the rows of ``X`` in order, returning a new array.

    The one definition of the steps: :meth:`Embeddings.normalize <embgeo.embeddings.Embeddings.normalize>`
    and :mod:`embgeo.postprocess`'s ``unit``/``center``/... call it.

    Parameters
    ----------
    X : array, shape (n_words, dim), or Embeddings
        NumPy, CuPy or other array-API matrix; an :class:`~embgeo.embeddings.Embeddings` gives a
        new Embeddings with normalised vectors (the same words and counts).
    *steps : str
        Any of ``"unit"``, ``"center"``, ``"unitdim"``, ``"centeremb"``, ``"none"``; VecMap's
        usual chain is ``normalize(X, "unit", "center", "unit")``.
    memory_budget : int, optional
        Bytes for a float64 block of rows (default
        :data:`~embgeo.blocking.DEFAULT_MEMORY_BUDGET`); results depend on it only through the
        order of the float64 column sums.
    backend : {None, "cuda"}
        None: the array's own library (CuPy arrays run the CUDA kernels of
        :mod:`embgeo.kernels.cuda`, one fused pass per row-wise step, two for ``center`` and
        ``unitdim``); "cuda" runs those kernels whatever the input (a NumPy ``X`` is copied to the
        device and the result comes back as NumPy; under Numba's CUDA simulator they run on the
        CPU). The kernels' float64 sums run in another order than NumPy's: results agree to the
        last bit of the storage dtype, not always bit for bit.

    Returns
    -------
    array, shape (n_words, dim), or Embeddings
        A new array in the library, device and dtype of ``X`` (integer input becomes floating);
        a new :class:`~embgeo.embeddings.Embeddings` for an Embeddings.

    Raises
    ------
    ValueError
        An unknown step (the valid ones are listed), an unknown ``backend``, or an ``X`` that is
        not 2-D.

    See Also
    --------
    Normalizer : the same steps with statistics fitted once and reused on new rows.

    References
    ----------
    M. Artetxe, G. Labaka, E. Agirre (2018). Generalizing and improving bilingual word embedding
    mappings with a multi-step framework of linear transformations. AAAI, Section 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> Y = normalize(np.array([[3., 4.], [0., 0.]], dtype=np.float32), "unit")
    >>> Y.tolist()
    [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
    """
    if hasattr(X, "with_vectors"):  # an Embeddings (a higher layer: recognised, not imported)
        return X.with_vectors(normalize(X.vectors, *steps, memory_budget=memory_budget), check_finite=False)
    X = _check(X)  # integer input becomes float, not truncated on the way back
    xp = xb.get_namespace(X)
    if len(steps) == 1 and isinstance(steps[0], (list, tuple)):
        steps = tuple(steps[0])
    for step in steps:
        if not isinstance(step, str) or step not in _FUNCS:
            raise ValueError(f"unknown normalisation step {step!r}; choose from {', '.join(STEPS)}")
    if backend not in (None, "cuda"):
        raise ValueError(f"backend must be None or 'cuda', got {backend!r}")
    if backend == "cuda" or xb.is_cupy(X):
        return _normalize_cuda(X, steps)
    for step in steps:
        X = _FUNCS[step](xp, X, memory_budget)
    return X


def _normalize_cuda(X, steps):
    """:func:`normalize` by the CUDA kernels: each step one pass over the rows (two for the column steps)."""
    from .kernels import cuda as KC

    lib, _ = xb.cuda_library()
    host = xb.is_numpy(X) and lib is not np
    X = lib.ascontiguousarray(lib.asarray(X))
    n, d = X.shape
    for step in steps:
        if step == "none":
            continue
        out = lib.empty((n, d), dtype=X.dtype)
        if step == "unit":
            KC.launch_rows(KC.unit_rows, n, X, out)
        elif step == "centeremb":
            KC.launch_rows(KC.centeremb_rows, n, X, out)
        else:
            sums = lib.zeros(d, dtype=np.float64)
            KC.column_stats(X, step == "unitdim", sums)
            if step == "center":
                KC.launch_rows(KC.center_rows, n, X, sums / max(n, 1), out)
            else:
                norms = lib.sqrt(sums)
                KC.launch_rows(KC.unitdim_rows, n, X, lib.where(norms == 0, 1.0, norms), out)
        X = out
    return lib.asnumpy(X) if host else X


class Normalizer:
    """A fitted chain of normalisation steps: statistics learnt once, applied to new rows.

    ``center`` and ``unitdim`` depend on the whole vocabulary (its mean vector, its column
    norms). :func:`normalize` recomputes them from whatever rows it is given; a ``Normalizer``
    fits them on the training vocabulary and reuses them, so transforming a few held-out words
    gives the same vectors as transforming the whole vocabulary. ``unit``, ``centeremb`` and
    ``none`` act on each row alone and need no statistics.

    Parameters
    ----------
    steps : sequence of str
        As for :func:`normalize`, e.g. ``("unit", "center", "unit")`` (VecMap's ``--normalize``).
    memory_budget : int, optional
        As for :func:`normalize`.

    Attributes
    ----------
    statistics_ : list
        One entry per step: the float64 mean (1, d) for ``center``, the float64 column norms
        (1, d) for ``unitdim``, ``None`` otherwise.

    Raises
    ------
    ValueError
        An unknown step (the valid ones are listed).

    See Also
    --------
    normalize : the steps with statistics computed from the rows given.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((50, 4)).astype(np.float32)
    >>> nz = Normalizer(("unit", "center", "unit")).fit(X)
    >>> bool(np.allclose(nz.transform(X[:5]), normalize(X, "unit", "center", "unit")[:5], atol=1e-6))
    True
    """

    def __init__(self, steps=("unit", "center", "unit"), memory_budget: int | None = None):
        steps = (steps,) if isinstance(steps, str) else tuple(steps or ())
        for step in steps:
            if step not in _FUNCS:
                raise ValueError(f"unknown normalisation step {step!r}; choose from {', '.join(STEPS)}")
        self.steps = steps
        self.memory_budget = memory_budget

    def fit(self, X) -> "Normalizer":
        """Learn the statistics of every step on ``X`` (the steps before it applied).

        Parameters
        ----------
        X : array, shape (n_words, dim)
            The training vocabulary's vectors (NumPy, CuPy or array-API).

        Returns
        -------
        Normalizer
            ``self``, fitted (:attr:`statistics_` set).

        Raises
        ------
        ValueError
            ``X`` is not 2-D.
        """
        self.fit_transform(X)
        return self

    def fit_transform(self, X):
        """Fit on ``X`` and return it normalised (one pass per step, as :func:`normalize`).

        Parameters
        ----------
        X : array, shape (n_words, dim)
            The training vocabulary's vectors (NumPy, CuPy or array-API).

        Returns
        -------
        array, shape (n_words, dim)
            ``X`` normalised, in its library and dtype: what :func:`normalize` gives.

        Raises
        ------
        ValueError
            ``X`` is not 2-D.
        """
        X = _check(X)
        xp = xb.get_namespace(X)
        stats = []
        for step in self.steps:
            if step == "center":
                stats.append(_column_sums(xp, X, False, self.memory_budget) / max(X.shape[0], 1))
            elif step == "unitdim":
                stats.append(_safe(xp, xp.sqrt(_column_sums(xp, X, True, self.memory_budget))))
            else:
                stats.append(None)
            X = self._step(xp, X, step, stats[-1])
        self.statistics_ = stats
        return X

    def transform(self, X):
        """Normalise ``X`` with the fitted statistics.

        Parameters
        ----------
        X : array, shape (m, dim)
            Rows to normalise, over the dimensions the statistics were fitted on (any library:
            the statistics are moved to it).

        Returns
        -------
        array, shape (m, dim)
            The rows normalised as they would be inside the fitted vocabulary.

        Raises
        ------
        NotFittedError
            :meth:`fit` has not been called.
        ValueError
            ``X`` is not 2-D.
        """
        if not hasattr(self, "statistics_"):
            from .errors import NotFittedError

            raise NotFittedError("this Normalizer is not fitted yet; call fit(X) first")
        X = _check(X)
        xp = xb.get_namespace(X)
        for step, st in zip(self.steps, self.statistics_):
            X = self._step(xp, X, step, st)
        return X

    def _step(self, xp, X, step, st):
        if st is None:
            return _FUNCS[step](xp, X, self.memory_budget)
        st = xb.asarray(xb.to_numpy(st), like=X, dtype="float64") \
            if xb.get_namespace(st) is not xp else st
        if step == "center":
            return _rowwise(xp, X, lambda B: B - st, self.memory_budget)
        return _rowwise(xp, X, lambda B: B / st, self.memory_budget)

    def __repr__(self):
        return f"Normalizer({self.steps!r})"


def _check(X):
    X = xb.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"normalize expects a 2-D matrix, got ndim={X.ndim}")
    return X
