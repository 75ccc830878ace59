"""MUSE's refinement (Conneau et al. 2018, Section 2.3): candidates and ``build_dictionary``."""
from __future__ import annotations

import numpy as np

from ..neighbors import knn_mean_similarity
from ._induction import _nn_induction


def _muse_candidates(A, B, r_B, max_rank, memory_budget):
    """MUSE's ``get_candidates``: the first ``max_rank`` rows of A against all of B, then the rank cut.

    Returns (pairs (m, 2) of (A row, B row), best similarities of the searched rows).
    """
    n = A.shape[0] if not max_rank else min(int(max_rank), A.shape[0])
    # keep_prob 1: no dropout, the generator is never used
    best, sims = _nn_induction(A[:n, ...], B, r_B, 1.0, np.random.default_rng(0), memory_budget)
    pairs = np.stack([np.arange(n), best], axis=1)
    if max_rank:
        # dico_builder.py: ``all_pairs.max(1)[0] <= params.dico_max_rank``
        pairs = pairs[pairs.max(axis=1) <= int(max_rank)]
    return pairs, sims


def _muse_dictionary(A, B, direction, retrieval, csls_knn, max_rank, memory_budget):
    """MUSE's ``build_dictionary`` on unit rows: S2T, T2S, their union or intersection, as sets,
    by ``retrieval`` "nn" or "csls" (MUSE's ``dico_method``)."""
    csls = retrieval == "csls"
    fwd = bwd = None
    objs = []
    if direction in ("forward", "union", "mutual"):
        # CSLS terms over the whole vocabularies (get_nn_avg_dist on the full embeddings); the
        # searched row's own term is constant along its row and does not change its argmax
        r = knn_mean_similarity(B, A, min(csls_knn, A.shape[0]), metric="dot", memory_budget=memory_budget,
                                progress=False) if csls else None
        fwd, sim = _muse_candidates(A, B, r, max_rank, memory_budget)
        objs.append(sim.mean())
    if direction in ("backward", "union", "mutual"):
        r = knn_mean_similarity(A, B, min(csls_knn, B.shape[0]), metric="dot", memory_budget=memory_budget,
                                progress=False) if csls else None
        bwd, sim = _muse_candidates(B, A, r, max_rank, memory_budget)
        bwd = bwd[:, ::-1]
        objs.append(sim.mean())
    if direction == "forward":
        pairs = fwd
    elif direction == "backward":
        pairs = bwd
    else:
        sets = [{(int(a), int(b)) for a, b in p} for p in (fwd, bwd)]
        chosen = sets[0] | sets[1] if direction == "union" else sets[0] & sets[1]
        pairs = np.array(sorted(chosen), dtype=np.int64).reshape(-1, 2)
    if pairs.shape[0] == 0:
        raise ValueError(f"MUSE refinement induced an empty dictionary ({direction}); the mapping has no "
                         "mutual nearest neighbours within vocabulary_cutoff: check the seed dictionary")
    return np.ascontiguousarray(pairs, dtype=np.int64), float(np.mean(objs))
