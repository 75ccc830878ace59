"""RCSLS: a linear cross-lingual map learned with the relaxed CSLS retrieval criterion.

Joulin, Bojanowski, Mikolov, Jégou & Grave (2018), "Loss in Translation: Learning Bilingual Word
Mapping with a Retrieval Criterion", EMNLP, doi:10.18653/v1/D18-1330, arXiv:1804.07745.

For training pairs ``(x_i, y_i)`` (unit-length rows of the source and target matrices) and a map
``W`` (rows: ``x ↦ xW``), the loss minimised is the negated, relaxed CSLS of the pairs, as fastText's
``alignment/align.py`` computes it (the paper's text was not available while this was written: the
formula is read from the released code, and no equation number is cited)::

    ℓ(W) = −(1/n) Σ_i [ 2 x_iW·y_i − (1/k) Σ_{z ∈ N_T(x_iW)} x_iW·z − (1/k) Σ_{x' ∈ N_S(y_i)} x'W·y_i ]

where ``N_T(x_iW)`` are the k target vectors with the largest dot product with ``x_iW`` and
``N_S(y_i)`` the k source vectors ``x'`` whose image ``x'W`` has the largest dot product with
``y_i``. Candidates ("negatives") are the first ``max_negatives`` rows of each matrix (the most
frequent words in a frequency-ordered file), the training pairs included. The neighbourhoods are
held fixed when differentiating (a subgradient)::

    ∇ℓ(W) = −(1/n) [ 2 XᵀY − (1/k) XᵀS_T − (1/k) S_SᵀY ],   S_T[i] = Σ_{N_T(x_iW)} z,  S_S[i] = Σ_{N_S(y_i)} x'.

Optimisation follows ``align.py``: start at the orthogonal Procrustes solution of the pairs,
full-batch gradient steps of size ``lr`` for ``n_epochs + 1`` iterations, halving ``lr`` whenever
the loss exceeds the best so far, stopping once ``lr < 1e-4``; optionally ``spectral=True``
(``--model spectral``): after each step the singular values of W are clipped to [0, 1].

Differences from the released code, on purpose
----------------------------------------------
* When the loss goes up, ``align.py`` means to restore the previous map (``f, R = fold, Rold``),
  but ``R -= lr * df`` updates ``R`` in place and ``Rold`` is the same array, so the step is kept
  and only ``lr`` is halved. embgeo reproduces that behaviour (it is what the published numbers
  ran), and ``tests/test_rcsls.py`` checks it against ``align.py`` itself. With ``spectral=True``
  the same aliasing leaves the map unprojected after such a step; embgeo always projects.
* ``align.py`` computes all n × max_negatives scores at once; here they are computed in row
  blocks under ``memory_budget`` (the scores and the gathered k × d neighbour rows of a block
  together), so memory does not grow with the number of pairs.
* A non-finite ``init``, or a map that becomes non-finite after a step (divergence), raises
  ``ValueError``; ``align.py`` runs on with NaN.
* Shapes: ``align.py``'s ``R`` is (d_t, d_s), applied as ``x Rᵀ``; embgeo returns ``W = Rᵀ``,
  (d_s, d_t), applied as ``x W``. Source and target may have different dimensions.
"""
from __future__ import annotations

import logging

import numpy as np

from .. import backend as xb
from ..blocking import block_rows
from ..neighbors import select_topk
from ..progress import progress_bar

__all__ = ["rcsls", "rcsls_loss"]

logger = logging.getLogger(__name__)


def _check_inputs(Xs, Zt, src_idx, tgt_idx, csls_knn, max_negatives):
    for name, A in (("Xs", Xs), ("Zt", Zt)):
        if not isinstance(A, np.ndarray):
            raise TypeError(f"{name} must be a NumPy array, got {type(A).__name__}")
    Xs = xb.check_matrix(Xs, "Xs")
    Zt = xb.check_matrix(Zt, "Zt")
    src = np.asarray(src_idx)
    tgt = np.asarray(tgt_idx)
    for name, idx, n in (("src_idx", src, Xs.shape[0]), ("tgt_idx", tgt, Zt.shape[0])):
        if idx.ndim != 1 or not np.issubdtype(idx.dtype, np.integer):
            raise ValueError(f"{name} must be a 1-D integer array, got shape {idx.shape} dtype {idx.dtype}")
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            bad = int(idx[(idx < 0) | (idx >= n)][0])
            raise ValueError(f"{name} holds row {bad}, outside the {n} rows of its matrix")
    if src.shape != tgt.shape:
        raise ValueError(f"src_idx and tgt_idx must pair up: {src.size} and {tgt.size} entries")
    if src.size == 0:
        raise ValueError("no training pairs: src_idx and tgt_idx are empty")
    k = int(csls_knn)
    m = int(max_negatives)
    if k < 1 or m < 1:
        raise ValueError(f"csls_knn and max_negatives must be positive, got {csls_knn!r}, {max_negatives!r}")
    if k > min(m, Xs.shape[0], Zt.shape[0]):
        raise ValueError(f"csls_knn={k} exceeds the number of candidate words "
                         f"({min(m, Xs.shape[0], Zt.shape[0])})")
    return Xs, Zt, src.astype(np.intp), tgt.astype(np.intp), k, m


def _knn_terms(Q, cands, k, memory_budget):
    """For each row q of Q: the sum of its k largest scores q·c over ``cands`` and the sum of those c.

    Row blocks of Q keep what one block allocates under ``memory_budget``: per row, the m scores
    (in the scores' real dtype), the gathered k × d neighbour rows, their float64 sum and the top-k
    scores and columns. Never n × m at once.
    """
    total = 0.0
    m, d = cands.shape
    S = np.empty((Q.shape[0], d), dtype=np.float64)
    score_size = np.result_type(Q.dtype, cands.dtype).itemsize
    row_bytes = m * score_size + k * d * cands.dtype.itemsize + d * 8 + k * (score_size + 8)
    step = block_rows(1, row_bytes, memory_budget)
    for a in range(0, Q.shape[0], step):
        scores = Q[a:a + step] @ cands.T
        top, cols = select_topk(scores, k)
        total += float(np.sum(top, dtype=np.float64))
        S[a:a + step] = cands[cols].sum(axis=1, dtype=np.float64)
        del scores, top, cols  # else the next block's scores are allocated while these still live
    return total, S


def _loss_grad(W, X, Y, Xneg, Zneg, k, memory_budget):
    n = X.shape[0]
    W32 = W.astype(Xneg.dtype, copy=False)
    XW = X @ W32                                  # n × d_t, the mapped training sources
    pos = float(np.sum(XW.astype(np.float64) * Y))
    fT, ST = _knn_terms(XW, Zneg, k, memory_budget)           # neighbours of x_iW among targets
    YWt = Y @ W32.T                               # n × d_s: x'W·y = x'·(yWᵀ)
    fS, SS = _knn_terms(YWt, Xneg, k, memory_budget)          # neighbours of y_i among mapped sources
    f = -(2.0 * pos - fT / k - fS / k) / n
    X64, Y64 = X.astype(np.float64), Y.astype(np.float64)
    grad = -(2.0 * (X64.T @ Y64) - (X64.T @ ST) / k - (SS.T @ Y64) / k) / n
    return f, grad


def rcsls_loss(W, Xs, Zt, src_idx, tgt_idx, *, csls_knn: int = 10, max_negatives: int = 200_000,
               memory_budget: int | None = None):
    """The RCSLS loss ℓ(W) and its (sub)gradient, as in the module notes.

    Parameters
    ----------
    W : array, shape (d_s, d_t)
    Xs, Zt, src_idx, tgt_idx, csls_knn, max_negatives
        As in :func:`rcsls`.
    memory_budget : int, optional
        Bytes for one block of scores (default: :data:`embgeo.blocking.DEFAULT_MEMORY_BUDGET`).

    Returns
    -------
    loss : float
    grad : ndarray, shape (d_s, d_t), float64
    """
    Xs, Zt, src, tgt, k, m = _check_inputs(Xs, Zt, src_idx, tgt_idx, csls_knn, max_negatives)
    W = np.asarray(W, dtype=np.float64)
    if W.shape != (Xs.shape[1], Zt.shape[1]):
        raise ValueError(f"W must have shape ({Xs.shape[1]}, {Zt.shape[1]}), got {W.shape}")
    if not np.isfinite(W).all():
        raise ValueError("W holds NaN or inf")
    return _loss_grad(W, Xs[src], Zt[tgt], Xs[:m], Zt[:m], k, memory_budget)


def _proj_spectral(W):
    U, s, Vt = np.linalg.svd(W, full_matrices=False)
    return (U * np.clip(s, 0.0, 1.0)) @ Vt


def rcsls(Xs, Zt, src_idx, tgt_idx, *, csls_knn: int = 10, n_epochs: int = 10, lr: float = 1.0,
          random_state=0, init=None, max_negatives: int = 200_000, spectral: bool = False,
          reg: float = 0.0, batch_size: int | None = None, memory_budget: int | None = None,
          progress: bool | None = None):
    """Learn a linear map from source to target space by minimising the RCSLS loss.

    Joulin et al. (2018), optimised as fastText's ``alignment/align.py`` does (its
    defaults: ``--knn 10 --niter 10 --lr 1.0 --maxneg 200000 --model none --reg 0``).

    Parameters
    ----------
    Xs : ndarray, shape (n_s, d_s)
        Source vectors, unit length, rows ordered by frequency (negatives are the first rows).
    Zt : ndarray, shape (n_t, d_t)
        Target vectors, likewise.
    src_idx, tgt_idx : int arrays, shape (n_pairs,)
        Rows of ``Xs`` and ``Zt`` forming the training translation pairs.
    csls_knn : int, default 10
        Neighbourhood size k of the CSLS terms (``--knn``).
    n_epochs : int, default 10
        ``--niter``: align.py runs ``niter + 1`` gradient steps (``for it in range(niter + 1)``).
    lr : float, default 1.0
        Initial step size; halved whenever the loss exceeds the best so far (full batch).
    random_state : int, None or numpy Generator, default 0
        Draws the mini-batches when ``batch_size`` is set (full batch uses no randomness).
    init : array, shape (d_s, d_t), optional
        Initial map (finite: NaN or inf raise ValueError); default the orthogonal Procrustes
        solution of the pairs (``U Vᵀ`` from the SVD of ``XᵀY``; orthonormal columns or rows when
        d_s ≠ d_t).
    max_negatives : int, default 200000
        Candidates for the CSLS neighbourhoods: the first ``max_negatives`` rows of each matrix.
    spectral : bool, default False
        Clip W's singular values to [0, 1] after each step (``--model spectral``).
    reg : float, default 0.0
        Weight decay: ``W *= 1 − lr·reg`` before each step (``--reg``).
    batch_size : int, optional
        Stochastic steps on ``batch_size`` random pairs (``--sgd --batchsize``); no lr halving.
    memory_budget : int, optional
        Bytes for one block of work: its scores and gathered neighbour rows.
    progress : bool, optional
        A progress bar over the gradient steps (each scores the pairs against up to ``max_negatives``
        rows of each side: seconds apiece at 200k). ``None`` follows :func:`embgeo.set_progress`.

    Returns
    -------
    W : ndarray, shape (d_s, d_t), float32
        The map: ``Xs @ W`` lies in the target space.

    Raises
    ------
    ValueError
        Bad shapes or indices, NaN or inf in the vectors or ``init``, or a map that becomes
        non-finite after a step (divergence: lower ``lr``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 5)).astype(np.float32)
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> Q = np.linalg.qr(rng.standard_normal((5, 5)))[0].astype(np.float32)
    >>> W = rcsls(X, X @ Q, np.arange(200), np.arange(200), csls_knn=5)
    >>> W.shape, W.dtype
    ((5, 5), dtype('float32'))
    >>> float(np.mean(np.argmax((X @ W) @ (X @ Q).T, axis=1) == np.arange(300)))   # held-out rows too
    1.0
    """
    Xs, Zt, src, tgt, k, m = _check_inputs(Xs, Zt, src_idx, tgt_idx, csls_knn, max_negatives)
    if int(n_epochs) < 0 or not np.isfinite(lr) or lr <= 0:
        raise ValueError(f"n_epochs must be >= 0 and lr > 0, got {n_epochs!r}, {lr!r}")
    if batch_size is not None and not 1 <= int(batch_size) <= src.size:
        raise ValueError(f"batch_size must be between 1 and the {src.size} pairs, got {batch_size!r}")
    X, Y = Xs[src], Zt[tgt]
    Xneg, Zneg = Xs[:m], Zt[:m]
    if init is None:
        U, _, Vt = np.linalg.svd(X.astype(np.float64).T @ Y.astype(np.float64), full_matrices=False)
        W = U @ Vt
    else:
        W = np.array(init, dtype=np.float64)
        if W.shape != (Xs.shape[1], Zt.shape[1]):
            raise ValueError(f"init must have shape ({Xs.shape[1]}, {Zt.shape[1]}), got {W.shape}")
        if not np.isfinite(W).all():
            row = int(np.flatnonzero(~np.isfinite(W).all(axis=1))[0])
            raise ValueError(f"init holds NaN or inf (first at row {row})")
    rng = np.random.default_rng(random_state)
    fold = 0.0
    with progress_bar(total=int(n_epochs) + 1, desc="RCSLS", progress=progress, unit="step") as bar:
        for it in range(int(n_epochs) + 1):
            if lr < 1e-4:
                break
            if batch_size is None:
                f, grad = _loss_grad(W, X, Y, Xneg, Zneg, k, memory_budget)
            else:
                rows = rng.choice(src.size, size=int(batch_size), replace=False)
                f, grad = _loss_grad(W, X[rows], Y[rows], Xneg, Zneg, k, memory_budget)
            if reg > 0:
                W *= 1.0 - lr * reg
            W -= lr * grad
            with np.errstate(over="ignore"):
                # the map is applied and returned in float32: beyond its range is as bad as inf
                finite = bool(np.isfinite(W.astype(np.float32)).all())
            if not finite:
                raise ValueError(f"RCSLS diverged: the map holds NaN or inf (in float32) after iteration {it} "
                                 f"(lr {lr:g}, loss {f:.6g}); lower lr or check the inputs")
            if spectral:
                W = _proj_spectral(W)
            logger.debug("RCSLS iteration %d: loss %.6f (lr %g)", it, f, lr)
            if f > fold and it > 0 and batch_size is None:
                # align.py halves lr and keeps the step (its R and Rold are one array)
                lr /= 2
                f = fold
            fold = f
            bar.update(1)
            bar.set_postfix(loss=f"{f:.4f}")
    return W.astype(np.float32)
