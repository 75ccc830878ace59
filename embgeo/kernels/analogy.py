"""Numba 3CosMul answer: each question's best candidate from the cosines of its three words.

Levy & Goldberg (2014) eq. 4 scores candidate d of question a : b :: c : ? by
``cos(d, b)·cos(d, c) / (cos(d, a) + ε)`` with the cosines shifted to [0, 1]. Given the shifted cosines
``C`` of the distinct question words against the candidates (one GEMM), :func:`cosmul_argmax` scans each
question's three rows once and keeps the best column, so no question × vocabulary score matrix exists.
The float32 operations are NumPy's (b·c, then a + ε, then the division), so the scores, and hence the
answers, equal the matrix form's; ties go to the lower column, as ``argmax`` does.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def cosmul_argmax(C, pa, pb, pc, eps, ex_ptr, ex_idx, out):
    """``out[q]`` = the best column for question ``q`` (rows ``pa[q]``, ``pb[q]``, ``pc[q]`` of ``C``),
    skipping the columns ``ex_idx[ex_ptr[q]:ex_ptr[q + 1]]``; -1 when every score is NaN or excluded."""
    n = C.shape[1]
    for q in prange(pa.shape[0]):
        ra, rb, rc = C[pa[q]], C[pb[q]], C[pc[q]]
        best = -np.inf
        arg = -1
        e0, e1 = ex_ptr[q], ex_ptr[q + 1]
        for j in range(n):
            s = (rb[j] * rc[j]) / (ra[j] + eps)
            if s > best or (arg < 0 and s == best):
                excluded = False
                for t in range(e0, e1):
                    if ex_idx[t] == j:
                        excluded = True
                        break
                if not excluded:
                    best = s
                    arg = j
        out[q] = arg
