"""Numba threshold tuning on random validation splits (the entailment protocol of Kiela et al. 2015).

One call runs every trial of :func:`embgeo.evaluate.entailment.tuned_accuracy`: trial t's validation
pairs are those with ``masks[t, i]``; the threshold is the validation score of highest
validation accuracy of ``score >= threshold`` (the lowest such score on a tie, as ``np.unique`` then
``argmax`` pick it), and the trial's accuracy is that of the other pairs. The per-trial Python loop
it replaces cost tens of microseconds of NumPy overhead a trial, which a bootstrap interval of the
score multiplied by its resamples.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def tuned_accuracies(scores, detect, labels, direction, masks, out):
    """``out[t]`` = test accuracy of trial t (NaN without a test pair).

    ``detect[i]`` = pair i is a gold entailment (``labels != 0``); with ``direction`` non-empty the
    prediction is ``(score >= t) * direction`` compared with ``labels``, else ``score >= t`` with
    ``detect``. Everything is read-only but ``out``.
    """
    n = scores.shape[0]
    with_direction = direction.shape[0] > 0
    val_s = np.empty(n)
    val_d = np.empty(n, dtype=np.bool_)
    for t in range(masks.shape[0]):
        m = 0
        for i in range(n):
            if masks[t, i]:
                val_s[m] = scores[i]
                val_d[m] = detect[i]
                m += 1
        best = -np.inf          # no validation pair drawn: everything is detected
        if m > 0:
            order = np.argsort(val_s[:m])
            best_hits = -1
            k = 0
            while k < m:
                thr = val_s[order[k]]
                hits = 0
                for j in range(m):
                    if (val_s[j] >= thr) == val_d[j]:
                        hits += 1
                if hits > best_hits:    # strictly better: the lowest threshold keeps a tie
                    best_hits = hits
                    best = thr
                k += 1           # past every copy of thr (a NaN score equals nothing, itself included)
                while k < m and val_s[order[k]] == thr:
                    k += 1
        n_test = n - m
        if n_test == 0:
            out[t] = np.nan
            continue
        right = 0
        for i in range(n):
            if masks[t, i]:
                continue
            pred = scores[i] >= best
            if with_direction:
                if (direction[i] if pred else 0) == labels[i]:
                    right += 1
            elif pred == detect[i]:
                right += 1
        out[t] = right / n_test
