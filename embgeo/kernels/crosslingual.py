"""Stochastic dictionary induction (VecMap's dropout over a score block, fused with the argmax)."""
import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True, fastmath=False)
def dropout_argmax(S, r_half, thr, seed, row0, best, maxsim):  # pragma: no cover - compiled
    """For each row i of the score block S: ``best[i]`` = argmax_j of dropout(S[i, j] − r_half[j])
    and ``maxsim[i]`` = max_j S[i, j].

    A score is kept when the top 8 bits of splitmix64(seed, row0 + i, j) are below ``thr``
    (keep probability thr/256) and set to 0 otherwise, so the mask is the same whatever the
    blocking and the number of threads.
    """
    n, m = S.shape
    for i in prange(n):
        bv = -np.inf
        bi = 0
        mx = -np.inf
        base = np.uint64(row0 + i) * np.uint64(m)
        for j in range(m):
            v = S[i, j]
            if v > mx:
                mx = v
            v = v - r_half[j]
            # a dropped score becomes 0: only hash when the outcome can change the best
            if thr < 256 and (v > bv or bv < 0.0):
                z = (base + np.uint64(j)) ^ seed
                z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
                z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
                z = z ^ (z >> np.uint64(31))
                if (z >> np.uint64(56)) >= np.uint64(thr):
                    v = 0.0
            if v > bv:
                bv = v
                bi = j
        best[i] = bi
        maxsim[i] = mx
