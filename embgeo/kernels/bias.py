"""Numba enumeration of the k-subsets of n values, for WEAT's exact permutation test.

Each subset is visited once, in lexicographic order of its indices; its sum is kept up to date by
re-adding only the positions that changed (the tail after the incremented index), so a subset costs
O(1) amortised additions rather than k.
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def subset_sum_tails(values, k, above, below):
    """``(n_above, n_below, n_subsets)``: how many k-subsets of ``values`` have a sum > ``above``, and
    how many a sum < ``below``, among all C(n, k) of them."""
    n = values.shape[0]
    idx = np.arange(k)
    partial = np.empty(k + 1)        # partial[j] = sum of values[idx[:j]]
    partial[0] = 0.0
    for j in range(k):
        partial[j + 1] = partial[j] + values[idx[j]]
    n_above = 0
    n_below = 0
    n_subsets = 0
    while True:
        s = partial[k]
        if s > above:
            n_above += 1
        if s < below:
            n_below += 1
        n_subsets += 1
        i = k - 1
        while i >= 0 and idx[i] == n - k + i:
            i -= 1
        if i < 0:
            break
        idx[i] += 1
        for j in range(i + 1, k):
            idx[j] = idx[j - 1] + 1
        for j in range(i, k):
            partial[j + 1] = partial[j] + values[idx[j]]
    return n_above, n_below, n_subsets
