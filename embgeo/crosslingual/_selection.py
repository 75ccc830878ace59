"""Seedless model selection: MUSE's mean-cosine criterion and the choice of the best round."""
from __future__ import annotations

import math

import numpy as np

from .. import backend as xb
from ..neighbors import check_retrieval, csls_topk, topk

#: the criteria :class:`~embgeo.crosslingual.Mapper` can keep its best round by (``Selection(criterion=...)``),
#: each the ``history_`` key it reads
SELECTION_KEYS = {"mean_cosine": "mean_cosine", "validation": "val_accuracy", "objective": "objective"}


def mean_cosine(src, tgt, *, retrieval: str = "csls", csls_knn: int = 10, max_rank: int = 10000,
                memory_budget: int | None = None) -> float:
    """MUSE's unsupervised model-selection criterion: the mean cosine of induced translations.

    Conneau et al. (2018, "Word translation without parallel data", ICLR, Section 3.5, "Validation
    criterion for unsupervised model selection"), as MUSE's ``Evaluator.dist_mean_cosine``
    computes it (``src/evaluation/evaluator.py``, with ``get_candidates`` of
    ``src/dico_builder.py``): each of the ``max_rank`` most frequent source rows (the first rows)
    takes its best target over the *whole* target vocabulary by ``retrieval`` (CSLS with
    ``csls_knn`` neighbours, r_S over the whole source; MUSE's metric ``mean_cosine-csls_knn_10-
    S2T-10000``, or ``"nn"``); pairs whose target row exceeds ``max_rank`` are dropped (MUSE's
    ``dico_max_rank``, kept when ``<=``), and the criterion is the mean cosine of the pairs left.

    Parameters
    ----------
    src, tgt : arrays (n_s, d), (n_t, d)
        Mapped source and target vectors in one space (any scale: rows are compared by cosine),
        rows in frequency order.
    retrieval : {"csls", "nn"}
    csls_knn : int
        K of CSLS (MUSE: 10).
    max_rank : int
        MUSE's ``dico_max_rank`` (10000).
    memory_budget : int, optional
        Bytes of score blocks (:func:`embgeo.neighbors.csls_topk`); no n_s × n_t matrix is formed.

    Returns
    -------
    float
        The mean cosine (float64 accumulation); NaN when no pair is left (MUSE's mean of nothing).
    """
    check_retrieval(retrieval, "induction")
    A, B = xb.check_matrix(src, "src"), xb.check_matrix(xb.asarray(tgt, like=src), "tgt")
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"src and tgt must share one space: dimensions {A.shape[1]} and {B.shape[1]}")
    xp = xb.get_namespace(A)
    n = min(int(max_rank), A.shape[0]) if max_rank else A.shape[0]
    Q = A[:n, ...]
    if retrieval == "csls":
        # r_T of the queries is constant along a row: left out (zeros), as it cannot move the argmax
        _, idx = csls_topk(Q, B, 1, csls_knn=int(csls_knn), source=A, memory_budget=memory_budget,
                           r_queries=xp.zeros((n,), dtype=A.dtype), progress=False)
    else:
        _, idx = topk(Q, B, 1, metric="cosine", memory_budget=memory_budget, progress=False)
    j = np.asarray(xb.to_numpy(idx))[:, 0].astype(np.int64)
    rows = np.arange(n)
    if max_rank:
        keep = j <= int(max_rank)   # get_candidates: all_pairs.max(1)[0] <= dico_max_rank
        rows, j = rows[keep], j[keep]
    if rows.size == 0:
        return math.nan
    a = xb.to_numpy(xb.take_rows(Q, rows)).astype(np.float64)
    b = xb.to_numpy(xb.take_rows(B, j)).astype(np.float64)
    cos = np.einsum("ij,ij->i", a, b) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return float(np.mean(cos))


def selection_score(record: dict, selection: str) -> float:
    """The value of ``selection`` in one ``history_`` record (higher is better; NaN counts as worst)."""
    v = record.get(SELECTION_KEYS[selection])
    if v is None:
        raise ValueError(f"criterion={selection!r} needs {SELECTION_KEYS[selection]!r} in every history_ record"
                         + (": pass fit(..., validation=...)" if selection == "validation" else ""))
    v = float(v)
    return -math.inf if math.isnan(v) else v


class BestRound:
    """The round kept by ``Selection("best")``: MUSE's ``save_best`` (a strictly better score replaces it)."""

    def __init__(self, selection: str):
        self.selection = selection
        self.score = -math.inf
        self.iteration: int | None = None
        self.dictionary: tuple | None = None

    def offer(self, record: dict, si, ti) -> None:
        """Keep ``(si, ti)``, the dictionary whose mapping ``record`` scored, if it beats the best so far."""
        s = selection_score(record, self.selection)
        if self.iteration is None or s > self.score:
            self.score, self.iteration = s, record["iteration"]
            self.dictionary = (np.array(si, copy=True), np.array(ti, copy=True))
