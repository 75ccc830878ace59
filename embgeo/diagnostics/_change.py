"""Semantic change between two spaces of one language (Hamilton, Leskovec & Jurafsky 2016).

Two measures per shared word:

- the *global* (displacement) measure of "Diachronic word embeddings reveal statistical laws of
  semantic change" (ACL 2016, §2.3 and §4): align the spaces by orthogonal Procrustes on the shared
  vocabulary, then the cosine distance between a word's vector in one space and its aligned vector
  from the other;
- the *local neighbourhood* measure of "Cultural shift or linguistic drift? Comparing two
  computational measures of semantic change" (EMNLP 2016, §3.2): for the union N of the word's k
  nearest neighbours in the two spaces, the cosine distance between the vectors of its cosine
  similarities to the words of N in each space (second-order similarity; no alignment needed;
  k = 25 in the paper).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import backend as xb
from ..display import Display, View, pyplot
from ..blocking import block_rows, row_blocks
from ..crosslingual import procrustes
from ..embeddings import Embeddings
from ..linalg import inverse_norms, unit_rows
from ..neighbors import ARRAY_BACKENDS, as_engine, self_topk
from ..progress import progress_bar

__all__ = ["align_same_language", "SemanticChangeResult", "CHANGE_MEASURES"]

#: The per-word columns of :class:`SemanticChangeResult` a ranking can use.
CHANGE_MEASURES = ("displacement", "neighborhood_change", "overlap")


@dataclass(frozen=True, eq=False, repr=False)
class SemanticChangeResult(Display):
    """Per-word change between two spaces of one language (:func:`align_same_language`).

    Parameters
    ----------
    words : list of str
        The shared vocabulary, in the first space's row order.
    displacement : ndarray (n,)
        Cosine distance between the word's two vectors after alignment (Hamilton et al., ACL 2016).
    neighborhood_change : ndarray (n,)
        Hamilton et al.'s (EMNLP 2016) local measure: cosine distance between the second-order
        similarity vectors over the union of the two k-NN sets.
    overlap : ndarray (n,)
        Jaccard index |N_a ∩ N_b| / |N_a ∪ N_b| of the two k-NN sets (1: the same neighbours).
    W : array
        The (semi-)orthogonal map: ``mapped`` side's unit rows @ W lie in the other space.
    mapped : {"a", "b"}
        The space that was mapped (the one of lower dimension; "a" when equal).
    k : int
        Neighbours per word.
    n_anchors : int
        Words the final Procrustes fit used (all shared words unless refined).

    References
    ----------
    W. L. Hamilton, J. Leskovec, D. Jurafsky (2016). Diachronic word embeddings reveal statistical
    laws of semantic change. ACL (displacement). W. L. Hamilton, J. Leskovec, D. Jurafsky (2016).
    Cultural shift or linguistic drift? Comparing two computational measures of semantic change.
    EMNLP (neighbourhood change).
    """

    words: list
    displacement: np.ndarray
    neighborhood_change: np.ndarray
    overlap: np.ndarray
    W: object
    mapped: str
    k: int
    n_anchors: int

    def __len__(self) -> int:
        return len(self.words)

    def _view(self) -> View:
        rows = self.table(10)
        columns = list(rows[0]) if rows else ["word"]
        return View(f"SemanticChangeResult: {len(self)} words, k={self.k}, {self.n_anchors} anchors, mapped {self.mapped}",
                    [[r[c] for c in columns] for r in rows], columns=columns,
                    notes=[f"the {len(rows)} most displaced words; table(n) lists more",
                           f"from align_same_language(…, k={self.k})"])

    def _column(self, by):
        if by not in CHANGE_MEASURES:
            raise ValueError(f"by must be one of {', '.join(CHANGE_MEASURES)}, got {by!r}")
        # a low overlap is a large change: rank it ascending
        return -self.overlap if by == "overlap" else getattr(self, by)

    def most_changed(self, n: int = 20, by: str = "displacement") -> list:
        """The ``n`` words that changed most by ``by`` (ties: the earlier row first).

        Parameters
        ----------
        n : int, default 20
            How many words.
        by : {"displacement", "neighborhood_change", "overlap"}, default "displacement"
            The measure (a low overlap is a large change).

        Returns
        -------
        list of str
            The words, most changed first.

        Raises
        ------
        ValueError
            An unknown ``by``.
        """
        order = np.argsort(-self._column(by), kind="stable")[:int(n)]
        return [self.words[i] for i in order]

    def table(self, n: int | None = 20, by: str = "displacement") -> list:
        """Rows ``{"word", "displacement", "neighborhood_change", "overlap", "rank_<by>"}``, most changed first.

        Parameters
        ----------
        n : int or None, default 20
            How many rows; None: every word.
        by : {"displacement", "neighborhood_change", "overlap"}, default "displacement"
            The measure that orders the rows.

        Returns
        -------
        list of dict
            One dict per word.

        Raises
        ------
        ValueError
            An unknown ``by``.
        """
        order = np.argsort(-self._column(by), kind="stable")
        order = order if n is None else order[:int(n)]
        return [{"word": self.words[i], "displacement": float(self.displacement[i]),
                 "neighborhood_change": float(self.neighborhood_change[i]), "overlap": float(self.overlap[i]),
                 f"rank_{by}": r + 1} for r, i in enumerate(order)]

    def plot(self, ax=None, *, annotate: int = 10):
        """Displacement against neighbourhood change, one point per word, the ``annotate`` most displaced named.

        Needs matplotlib (``pip install embgeo[plot]``).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; None: a new figure.
        annotate : int, default 10
            How many of the most displaced words are named.

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        plt = pyplot("SemanticChangeResult.plot")
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 5))
        ax.scatter(self.displacement, self.neighborhood_change, s=3, alpha=0.3, lw=0)
        order = np.argsort(-self.displacement, kind="stable")[:int(annotate)]
        for i in order:
            ax.annotate(self.words[i], (self.displacement[i], self.neighborhood_change[i]), fontsize=7)
        ax.set_xlabel("displacement (cosine distance after alignment)")
        ax.set_ylabel(f"neighbourhood change (k = {self.k})")
        ax.set_title(f"semantic change over {len(self.words)} shared words")
        return ax


def _shared_rows(a, b, words):
    if not (isinstance(a, Embeddings) and isinstance(b, Embeddings)):
        raise TypeError("align_same_language needs two Embeddings (words decide which rows are shared)")
    if words is None:
        words = [w for w in a.words if w in b]
    else:
        words = [w for w in dict.fromkeys(words) if w in a and w in b]
    if len(words) < 2:
        raise ValueError(f"the two spaces share {len(words)} word(s) (of {len(a)} and {len(b)}); "
                         "alignment needs at least 2: check that they are of one language and letter case")
    return words, a.indices(words), b.indices(words)


def _displacement(A, B, W, memory_budget):
    """1 − cos(a_i W, b_i) for aligned rows, blocked."""
    xp = xb.get_namespace(A)
    out = []
    for s, e in row_blocks(A.shape[0], block_rows(A.shape[1] + B.shape[1], 8, memory_budget, maximum=65536)):
        Ab = xp.astype(A[s:e, ...], xp.float64)
        Bb = xp.astype(B[s:e, ...], xp.float64)
        out.append(xb.to_numpy(1.0 - xp.sum(unit_rows(unit_rows(Ab) @ xp.astype(W, xp.float64)) * unit_rows(Bb),
                                           axis=1)))
    return np.concatenate(out)


def _second_order(X, inv, rows, cols):
    """cos(x_rows[i], x_cols[i, j]) for a block: rows (b,), cols (b, m); one batched GEMV in X's dtype."""
    xp = xb.get_namespace(X)
    b, m = cols.shape
    flat = xp.reshape(cols, (-1,))
    G = xp.reshape(xb.take_rows(X, flat), (b, m, X.shape[1]))
    dots = xp.astype(xp.matmul(G, xb.take_rows(X, rows)[:, :, None])[:, :, 0], xp.float64)
    return dots * xp.astype(inv[rows], xp.float64)[:, None] * xp.reshape(xp.astype(inv[flat], xp.float64), (b, m))


def _index(like, idx):
    """An int64 index array in the library of ``like``."""
    xp = xb.get_namespace(like)
    return xp.asarray(np.asarray(idx, dtype=np.int64), device=xb.device(like))


def _self_lists(X, k, memory_budget, progress, engine):
    """Each row's k nearest other rows by cosine: the exact self-join, or one sharded search on Dask."""
    return self_topk(X, k, metric="cosine", memory_budget=memory_budget, progress=progress, backend=engine)[1]


def _neighborhood(A, B, k, memory_budget, progress, engine="exact"):
    """Hamilton et al.'s local measure and the Jaccard overlap of the two k-NN sets, blocked."""
    na = _self_lists(A, k, memory_budget, progress, engine)
    nb = _self_lists(B, k, memory_budget, progress, engine)
    na, nb = xb.to_numpy(na).astype(np.int64), xb.to_numpy(nb).astype(np.int64)
    n = na.shape[0]
    union = np.concatenate([na, nb], axis=1)
    # a neighbour of both lists counts once in the union: its second copy gets weight 0
    dup = (nb[:, :, None] == na[:, None, :]).any(axis=2)
    weight = np.concatenate([np.ones_like(na, dtype=np.float64), (~dup).astype(np.float64)], axis=1)
    inter = dup.sum(axis=1)
    overlap = inter / (2 * k - inter)
    ia, ib = inverse_norms(A), inverse_norms(B)
    change = np.empty(n)
    rows = block_rows(2 * k * max(A.shape[1], B.shape[1]), 2 * A.dtype.itemsize, memory_budget)
    for s, e in progress_bar(row_blocks(n, rows), desc="neighbourhoods", progress=progress):
        r = np.arange(s, e)
        sa = xb.to_numpy(_second_order(A, ia, _index(A, r), _index(A, union[s:e])))
        sb = xb.to_numpy(_second_order(B, ib, _index(B, r), _index(B, union[s:e])))
        w = weight[s:e]
        num = np.sum(w * sa * sb, axis=1)
        den = np.sqrt(np.sum(w * sa * sa, axis=1) * np.sum(w * sb * sb, axis=1))
        change[s:e] = 1.0 - np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    return change, overlap


def align_same_language(a: Embeddings, b: Embeddings, *, words=None, k: int = 25, refine: int = 0,
                        anchor_share: float = 0.5, memory_budget: int | None = None,
                        progress: bool | None = None, backend="exact") -> SemanticChangeResult:
    """Align two spaces of one language on their shared words and rank the words by how much they changed.

    Parameters
    ----------
    a, b : Embeddings
        Two spaces of one language (two periods, corpora or models), any dimensions.
    words : iterable of str, optional
        The words to align and rank (default: every word of ``a`` that ``b`` has, in ``a``'s order).
    k : int
        Neighbours per word for the neighbourhood measures (25 in Hamilton et al., EMNLP 2016).
    refine : int
        Extra Procrustes fits, each on the ``anchor_share`` of words the previous fit displaced least
        (0: Hamilton et al.'s single fit on all shared words). This trimming is an embgeo option, not
        part of the papers: words that did change pull the least-squares fit towards themselves.
    anchor_share : float
        Share of the words kept as anchors at each refinement.
    memory_budget, progress
        As everywhere.
    backend : {"exact", "dask", "cuda"} or Exact or Dask or Cuda, default "exact"
        Engine of the two vocabulary-wide k-NN searches (:func:`embgeo.neighbors.self_topk`), a
        name or an engine object with its options: ``"dask"`` runs them as sharded searches on
        the current ``dask.distributed`` client, ``Dask(client)`` on that client.

    Returns
    -------
    SemanticChangeResult
        ``table()``, ``most_changed()`` and ``plot()``.

    Notes
    -----
    Rows are scaled to unit length before the fit (HistWords aligns normalised vectors). Orthogonal
    Procrustes (Hamilton et al. 2016, eq. 4: R = argmin_{QᵀQ=I} ‖W_a Q − W_b‖_F, solved by
    :func:`embgeo.crosslingual.procrustes`) needs one dimension; for two dimensions the space of
    lower dimension is mapped by the *semi-orthogonal* solution (W Wᵀ = I), an isometry into the
    larger space, so its cosines are untouched and the displacement stays a cosine distance. A PCA
    of the larger space would discard its variance beyond the smaller dimension, and a general
    linear map would change the mapped space's own cosines. The neighbourhood measure needs no
    alignment. Neighbours are searched among the shared words (``embgeo.neighbors.self_topk``); the
    shared rows of each space are gathered once, then every step is blocked under ``memory_budget``.

    Examples
    --------
    >>> import numpy as np, embgeo
    >>> rng = np.random.default_rng(0)
    >>> V = rng.standard_normal((200, 8)).astype(np.float32)
    >>> Q, _ = np.linalg.qr(rng.standard_normal((8, 8)))
    >>> W2 = V @ Q.astype(np.float32)
    >>> W2[7] = -W2[7]                                        # one word changes
    >>> words = [f"w{i}" for i in range(200)]
    >>> res = align_same_language(embgeo.Embeddings(words, V), embgeo.Embeddings(words, W2), k=5)
    >>> res.most_changed(1)
    ['w7']
    """
    k = int(k)
    refine = int(refine)
    if refine < 0:
        raise ValueError(f"refine must be ≥ 0, got {refine}")
    engine = as_engine(backend, ARRAY_BACKENDS)
    if not 0.0 < float(anchor_share) <= 1.0:
        raise ValueError(f"anchor_share must be in (0, 1], got {anchor_share}")
    shared, ia, ib = _shared_rows(a, b, words)
    n = len(shared)
    if not 1 <= k < n:
        raise ValueError(f"k must be in [1, {n - 1}] for {n} shared words, got {k}")
    a.check_finite(ia)
    b.check_finite(ib)
    A = xb.take_rows(a.vectors, _index(a.vectors, ia))
    B = xb.take_rows(b.vectors, _index(b.vectors, ib))
    mapped = "a" if a.dim <= b.dim else "b"
    src, tgt = (A, B) if mapped == "a" else (B, A)
    xp = xb.get_namespace(src)
    anchors = np.arange(n)
    for step in range(refine + 1):
        pairs = np.stack([anchors, anchors], axis=1)
        W = procrustes(unit_rows(xp.astype(src, xp.float64)), unit_rows(xp.astype(tgt, xp.float64)), pairs)
        disp = _displacement(src, tgt, W, memory_budget)
        if step < refine:
            keep = max(2, int(round(float(anchor_share) * n)))
            anchors = np.sort(np.argsort(disp, kind="stable")[:keep])
    change, overlap = _neighborhood(A, B, k, memory_budget, progress, engine)
    return SemanticChangeResult(words=shared, displacement=disp, neighborhood_change=change, overlap=overlap,
                                W=W, mapped=mapped, k=k, n_anchors=len(anchors))
