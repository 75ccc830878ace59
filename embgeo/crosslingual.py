"""Cross-lingual embedding mappings: Procrustes, the VecMap pipeline, self-learning, retrieval.

Two monolingual spaces X (source, n_s × d_s) and Z (target, n_t × d_t) and a seed dictionary D of
word pairs are mapped into one space in which translations are nearest neighbours.

- :func:`procrustes`: the orthogonal map W = UVᵀ, UΣVᵀ = SVD(X_DᵀZ_D) (Xing et al. 2015;
  Smith et al. 2017; Conneau et al. 2018 eq. 2). With d_s ≠ d_t, W is semi-orthogonal (and, for
  d_s > d_t, an alignment optimum rather than a least-squares one).
- :class:`Mapper`: the multi-step framework of Artetxe, Labaka & Agirre (AAAI 2018, Section 3:
  normalisation, whitening, orthogonal mapping, re-weighting, de-whitening, dimensionality
  reduction) and their self-learning (ACL 2017; ACL 2018 Section 3.3: stochastic dictionary
  induction, frequency-based vocabulary cutoff, CSLS, bidirectional induction), with the option
  names and defaults of VecMap's ``map_embeddings.py`` and its recipes (including the fully
  unsupervised initialisation of ACL 2018, :func:`unsupervised_dictionary`) and MUSE's refinement;
  optional POSTPROC (Vulić, Korhonen & Glavaš, RepL4NLP 2020) on the raw spaces and PCA reduction
  of the larger space.
- :func:`induce_dictionary`: forward / backward / union / mutual nearest neighbours, NN or CSLS.
- :func:`retrieve`: translation retrieval by NN, CSLS (Conneau et al. 2018, eq. 3) or inverted
  softmax (Smith et al. 2017, eq. 4), blockwise over the full target vocabulary.

BLI evaluation (P@k, MRR, coverage) and the POSTPROC grid search live in
:mod:`embgeo.evaluate.lexicon`, the dictionary readers in :mod:`embgeo.data`.
"""
from __future__ import annotations

import os
import re
import time

import numpy as np
from sklearn.base import BaseEstimator

from . import backend as xb
from .data import read_dictionary
from .embeddings import Embeddings
from .errors import NotFittedError
from .linalg import centred_scatter, eigh_desc, gram
from .blocking import block_rows
from .blocking import n_jobs as default_n_jobs
from .neighbors import knn_mean_similarity, topk
from .normalize import Normalizer, normalize
from .normalize import normalize as _normalize_rows
from .postprocess import (AffineTransform, apply_transform, cross_covariance_svd, dewhitening_transform,
                          similarity_order_transform, whitening_transform)
from .progress import progress_bar
from .validation import renamed_parameter

__all__ = ["procrustes", "Mapper", "History", "unsupervised_dictionary", "induce_dictionary", "retrieve", "retrieval_factors",
           "dictionary_indices", "identical_dictionary", "numeral_dictionary",
           "RECIPES"]

#: VecMap's recommended settings (``map_embeddings.py --supervised`` etc.) as Mapper parameters.
RECIPES = {
    "supervised": dict(normalize=("unit", "center", "unit"), whiten=True, src_reweight=0.5,
                       trg_reweight=0.5, src_dewhiten="src", trg_dewhiten="trg", mapping="advanced",
                       self_learning=False),
    "semi_supervised": dict(normalize=("unit", "center", "unit"), whiten=True, src_reweight=0.5,
                            trg_reweight=0.5, src_dewhiten="src", trg_dewhiten="trg", mapping="advanced",
                            self_learning=True, vocabulary_cutoff=20000, csls_knn=10),
    "identical": dict(init="identical", normalize=("unit", "center", "unit"), whiten=True,
                      src_reweight=0.5, trg_reweight=0.5, src_dewhiten="src", trg_dewhiten="trg",
                      mapping="advanced", self_learning=True, vocabulary_cutoff=20000, csls_knn=10),
    # ACL 2017 (numeral seed, orthogonal, forward induction, no stochastic dropout)
    "acl2017": dict(init="numerals", mapping="orthogonal", normalize=("unit", "center"), whiten=False,
                    src_reweight=0.0, trg_reweight=0.0, src_dewhiten=None, trg_dewhiten=None,
                    self_learning=True, direction="forward", stochastic_initial=1.0, stochastic_interval=1),
    # ACL 2018 (--unsupervised, = --acl2018): similarity-distribution initialisation + self-learning
    "unsupervised": dict(init="unsupervised", unsupervised_vocab=4000, normalize=("unit", "center", "unit"),
                         whiten=True, src_reweight=0.5, trg_reweight=0.5, src_dewhiten="src",
                         trg_dewhiten="trg", mapping="advanced", self_learning=True,
                         vocabulary_cutoff=20000, csls_knn=10),
    # AAAI 2018 (--aaai2018): supervised multi-step mapping, target re-weighting only
    "aaai2018": dict(normalize=("unit", "center"), whiten=True, src_reweight=0.0, trg_reweight=1.0,
                     src_dewhiten="src", trg_dewhiten="trg", mapping="advanced", self_learning=False),
    # MUSE's supervised refinement (Conneau et al. 2018, Section 2.3), with the defaults of its
    # supervised.py: Procrustes on the raw rows (normalize_embeddings=""), n_refinement=5 rounds of
    # [CSLS (k = 10) mutual nearest neighbours ("S2T&T2S"), searched over the whole vocabularies
    # and cut to dico_max_rank=10000 afterwards -> Procrustes]: 6 Procrustes solves, 5 induced
    # dictionaries (see Mapper's ``refinement="muse"``)
    "muse": dict(normalize=(), whiten=False, src_reweight=0.0, trg_reweight=0.0, src_dewhiten=None,
                 trg_dewhiten=None, mapping="orthogonal", self_learning=True, refinement="muse",
                 direction="mutual", csls_knn=10, vocabulary_cutoff=10000, max_iter=5),
    # EMNLP 2016: orthogonal mapping of unit-length, centred embeddings
    "orthogonal": dict(mapping="orthogonal", normalize=("unit", "center"), whiten=False, src_reweight=0.0,
                       trg_reweight=0.0, src_dewhiten=None, trg_dewhiten=None, self_learning=False),
    # Joulin et al. 2018 (fastText's alignment/align.py): unit, centre, unit, then RCSLS from Procrustes
    "rcsls": dict(mapping="rcsls", normalize=("unit", "center", "unit"), whiten=False, src_reweight=0.0,
                  trg_reweight=0.0, src_dewhiten=None, trg_dewhiten=None, self_learning=False, csls_knn=10),
}

RECIPES["acl2018"] = RECIPES["unsupervised"]

_NUMERAL = re.compile(r"[0-9]+\Z")


# ---------------------------------------------------------------------------- dictionaries
def _matrix(e, name):
    if isinstance(e, Embeddings):
        return e.vectors
    return xb.check_matrix(e, name)


def dictionary_indices(src, tgt, pairs, *, oov: str = "skip"):
    """Resolve a dictionary of word pairs to row indices of ``src`` and ``tgt``.

    Parameters
    ----------
    src, tgt : Embeddings
    pairs : iterable of (source_word, target_word), or an int array of shape (m, 2) of row pairs
    oov : {"skip", "raise"}
        Pairs with a word outside a vocabulary are dropped (VecMap's and MUSE's convention),
        or raise :class:`~embgeo.errors.UnknownWordError` naming the first one.

    Returns
    -------
    src_idx, tgt_idx : int64 NumPy arrays of equal length (≥ 1)

    Raises
    ------
    ValueError
        The dictionary is empty, or no pair has both words in the vocabularies.
    """
    if oov not in ("skip", "raise"):
        raise ValueError(f"oov must be 'skip' or 'raise', got {oov!r}")
    if isinstance(pairs, np.ndarray) and np.issubdtype(pairs.dtype, np.integer):
        return _check_index_pairs(pairs, _n_rows(src), _n_rows(tgt))
    pairs = list(pairs)
    if not pairs:
        raise ValueError("the dictionary is empty")
    if all(isinstance(p, (tuple, list)) and len(p) == 2 and all(isinstance(v, (int, np.integer)) for v in p)
           for p in pairs):
        return _check_index_pairs(np.asarray(pairs, dtype=np.int64), _n_rows(src), _n_rows(tgt))
    if not (isinstance(src, Embeddings) and isinstance(tgt, Embeddings)):
        raise TypeError("word-pair dictionaries need Embeddings for src and tgt; with arrays pass "
                        "an int array of (source_row, target_row) pairs")
    for n, p in enumerate(pairs):
        if not (isinstance(p, (tuple, list)) and len(p) == 2):
            raise ValueError(f"dictionary entry {n} is not a (source, target) pair: {p!r}")
    si = src.indices([p[0] for p in pairs], oov="mark")
    ti = tgt.indices([p[1] for p in pairs], oov="mark")
    ok = (si >= 0) & (ti >= 0)
    if oov == "raise" and not ok.all():
        from .errors import UnknownWordError

        bad = int(np.flatnonzero(~ok)[0])
        word, side = (pairs[bad][0], "source") if si[bad] < 0 else (pairs[bad][1], "target")
        raise UnknownWordError(word, context=f"{side} side of dictionary entry {bad}",
                               n_missing=int((~ok).sum()))
    if not ok.any():
        ex = pairs[0]
        raise ValueError(
            f"none of the {len(pairs)} dictionary pairs has both words in the vocabularies "
            f"(e.g. {ex[0]!r} in source: {ex[0] in src}, {ex[1]!r} in target: {ex[1] in tgt}); "
            "check the language direction and letter case"
        )
    return si[ok], ti[ok]


def _n_rows(e):
    return len(e) if isinstance(e, Embeddings) else int(e.shape[0])


def _check_index_pairs(P, ns, nt):
    P = np.asarray(P, dtype=np.int64)
    if P.ndim != 2 or P.shape[1] != 2:
        raise ValueError(f"index pairs must have shape (m, 2), got {P.shape}")
    if P.shape[0] == 0:
        raise ValueError("the dictionary is empty")
    if P[:, 0].min() < 0 or P[:, 0].max() >= ns or P[:, 1].min() < 0 or P[:, 1].max() >= nt:
        raise ValueError(f"index pairs out of range for {ns} source and {nt} target rows")
    return P[:, 0].copy(), P[:, 1].copy()


def identical_dictionary(src: Embeddings, tgt: Embeddings):
    """Pairs of identical strings in both vocabularies (VecMap's ``--init_identical``)."""
    pairs = [(w, w) for w in src.words if w in tgt]
    if not pairs:
        raise ValueError("the two vocabularies share no identical string")
    return pairs


def numeral_dictionary(src: Embeddings, tgt: Embeddings):
    """Pairs of identical Latin numerals ``[0-9]+`` (VecMap's ``--init_numerals``, ACL 2017)."""
    pairs = [(w, w) for w in src.words if _NUMERAL.match(w) and w in tgt]
    if not pairs:
        raise ValueError("no numeral ([0-9]+) occurs in both vocabularies")
    return pairs


# -------------------------------------------------------------------------------- Procrustes
def procrustes(X, Z, pairs=None, *, check_finite: bool = True):
    """Orthogonal Procrustes map W = UVᵀ with UΣVᵀ = SVD(X_Dᵀ Z_D).

    With d_s = d_t, W is the orthogonal matrix minimising ‖X_D W − Z_D‖_F (Schönemann 1966;
    Xing et al. 2015; Smith et al. 2017, eq. 3; Conneau et al. 2018, eq. 2). With d_s < d_t it
    minimises it over maps with orthonormal rows (W Wᵀ = I keeps ‖X_D W‖ = ‖X_D‖ constant). With
    d_s > d_t it maximises tr(Wᵀ X_Dᵀ Z_D) over maps with orthonormal columns, which is *not* the
    distance minimiser (‖X_D W‖ then depends on W; that "projection Procrustes" problem has no
    closed form): VecMap, MUSE and this function use UVᵀ, the alignment (sum of dot products)
    optimum.

    Parameters
    ----------
    X : array (n_s, d_s) or Embeddings
        Source vectors.
    Z : array (n_t, d_t) or Embeddings
        Target vectors.
    pairs : optional
        The dictionary D: word pairs (with Embeddings; OOV pairs are skipped) or an int array of
        (source_row, target_row) pairs. ``None`` means the rows of X and Z are aligned.
    check_finite : bool
        Refuse NaN/inf.

    Returns
    -------
    W : array (d_s, d_t), dtype of X
        ``X @ W`` lies in the target space.

    Notes
    -----
    With d_s = d_t W is orthogonal and SciPy's :func:`scipy.linalg.orthogonal_procrustes` computes
    it (NumPy inputs). With d_s ≠ d_t the thin SVD gives a *semi-orthogonal* W (r = min(d_s, d_t)):
    for d_s < d_t, W Wᵀ = I, so x ↦ xW is an isometry of the source into an r-dimensional subspace
    of the target space (the target keeps its d_t - r other directions); for d_s > d_t, WᵀW = I and
    W projects the source onto r directions that maximise the summed dot products with the target
    (see above: not the least-squares fit). XᵀZ is accumulated in
    float64 (:func:`embgeo.linalg.gram`), so memory is O(d_s d_t) beyond the dictionary rows.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 5))
    >>> Q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    >>> np.allclose(procrustes(X, X @ Q), Q)
    True
    """
    Xd, Zd = _dictionary_rows(X, Z, pairs, check_finite)
    xp = xb.get_namespace(Xd, Zd)
    dt = Xd.dtype
    if xb.is_numpy(Xd) and xb.is_numpy(Zd) and Xd.shape[1] == Zd.shape[1]:
        from scipy.linalg import orthogonal_procrustes

        W, _ = orthogonal_procrustes(Xd.astype(np.float64), Zd.astype(np.float64), check_finite=False)
        return W.astype(dt)
    M = gram(Xd, Zd)
    U, _, Vt = xp.linalg.svd(M, full_matrices=False)
    return xp.astype(U @ Vt, dt)


def _dictionary_rows(X, Z, pairs, check_finite=True):
    """The aligned dictionary matrices X_D, Z_D."""
    if pairs is None:
        Xm, Zm = _matrix(X, "X"), _matrix(Z, "Z")
        if Xm.shape[0] != Zm.shape[0]:
            raise ValueError(f"without pairs, X and Z must have the same number of rows "
                             f"({Xm.shape[0]} vs {Zm.shape[0]})")
        Xd, Zd = Xm, Zm
    else:
        si, ti = dictionary_indices(X, Z, pairs)
        Xd, Zd = xb.take_rows(_matrix(X, "X"), si), xb.take_rows(_matrix(Z, "Z"), ti)
    if check_finite:
        Xd, Zd = xb.check_matrix(Xd, "X_D"), xb.check_matrix(Zd, "Z_D")
    return Xd, Zd




# ---------------------------------------------------------------------------------- retrieval
def retrieval_factors(queries, target, retrieval: str = "nn", *, source=None, csls_knn: int = 10,
                      isf_beta: float = 30.0, memory_budget: int | None = None, progress=None, method=None):
    """Query and target factors whose dot product ranks targets like ``retrieval`` does.

    Every supported score is s(x, y) = a·cos(x, y) − c(y) + const(x), so it is the inner product
    of [a·x̂, 1] with [ŷ, −c(y)]:

    - ``"nn"``: a = 1, c = 0;
    - ``"csls"``: a = 2, c(y) = r_S(y), the mean cosine of y to its ``csls_knn`` nearest mapped
      source words (Conneau et al. 2018, eq. 3; the query term r_T(x) does not change the ranking);
    - ``"isf"``: inverted softmax P(y|x) = exp(β cos(x, y)) / Σ_{x'} exp(β cos(x', y)) (Smith et al.
      2017, eq. 4), ranked by its logarithm: a = β, c(y) = log Σ_{x'} exp(β cos(x', y)).

    ``source`` is the mapped source vocabulary that r_S and the softmax denominators run over
    (the whole, or top-n, mapped source space, as MUSE and VecMap use); it is required for
    ``"csls"`` and ``"isf"``: the queries alone are no substitute (a single query would make
    every inverted-softmax score 0). Work is blocked over target rows, so memory stays bounded.

    Raises
    ------
    ValueError
        Unknown ``retrieval``; ``source`` missing for ``"csls"``/``"isf"``; ``csls_knn < 1``;
        dimensions that disagree.

    Returns
    -------
    Qa : array (q, d + 1)
    Ta : array (n_t, d + 1)
    """
    retrieval = renamed_parameter(retrieval, method, old="method", new="retrieval", where="retrieval_factors")
    if retrieval not in ("nn", "csls", "isf"):
        raise ValueError(f"retrieval must be 'nn', 'csls' or 'isf', got {retrieval!r}")
    if retrieval != "nn" and source is None:
        raise ValueError(f"retrieval={retrieval!r} needs source=, the mapped source vocabulary its "
                         "hubness correction runs over (e.g. the whole mapped source space)")
    if retrieval == "csls" and int(csls_knn) < 1:
        raise ValueError(f"csls_knn must be at least 1, got {csls_knn}")
    T = normalize(xb.check_matrix(target, "target"), "unit")
    xp = xb.get_namespace(T)
    Q = xb.asarray(queries, like=T)
    if Q.ndim == 1:
        Q = xp.reshape(Q, (1, -1))
    if Q.shape[1] != T.shape[1]:
        raise ValueError(f"queries have dimension {Q.shape[1]} but the target space has {T.shape[1]}")
    Q = normalize(xp.astype(Q, T.dtype), "unit")
    S = Q
    if source is not None:
        S = xb.check_matrix(xb.asarray(source, like=T), "source")
        if S.shape[1] != T.shape[1]:
            raise ValueError(f"source has dimension {S.shape[1]} but the target space has {T.shape[1]}")
        S = normalize(xp.astype(S, T.dtype), "unit")
    if retrieval == "nn":
        a, c = 1.0, xp.zeros((T.shape[0],), dtype=xp.float64)
    elif retrieval == "csls":
        a = 2.0
        c = knn_mean_similarity(T, S, min(int(csls_knn), S.shape[0]), metric="dot",
                                memory_budget=memory_budget, progress=progress)
    else:
        a = float(isf_beta)
        c = _log_partition(T, S, a, memory_budget, progress)
    ones = xp.ones((Q.shape[0], 1), dtype=T.dtype)
    Qa = xp.concat([Q * a, ones], axis=1)
    Ta = xp.concat([T, xp.reshape(xp.astype(-c, T.dtype), (-1, 1))], axis=1)
    return Qa, Ta


def _log_partition(T, S, beta, memory_budget, progress):
    """log Σ_x exp(β t·x) for every target row t, blocked over targets, stabilised by the row max."""
    xp = xb.get_namespace(T)
    n = T.shape[0]
    step = block_rows(S.shape[0], 4, memory_budget)
    out = []
    starts = range(0, n, step)
    ST = xp.matrix_transpose(S)
    for s in progress_bar(starts, total=len(starts), desc="inverted softmax", progress=progress, unit="block"):
        # exp in the storage dtype (float32 exp is several times cheaper), sums in float64;
        # subtracting the row maximum keeps every term in (0, 1]
        B = (T[s:min(s + step, n), ...] @ ST) * beta
        m = xp.max(B, axis=1, keepdims=True)
        lse = xp.log(xp.sum(xp.exp(B - m), axis=1, dtype=xp.float64))
        out.append(xp.astype(xp.reshape(m, (-1,)), xp.float64) + lse)
    return xp.concat(out, axis=0)


def retrieve(queries, target, k: int = 10, retrieval: str = "nn", *, source=None, csls_knn: int = 10,
             isf_beta: float = 30.0, memory_budget: int | None = None, progress=None, method=None):
    """Top-``k`` target rows of each (mapped) query by NN, CSLS or inverted softmax.

    See :func:`retrieval_factors` for the scores; ``"csls"`` and ``"isf"`` need ``source``, the
    mapped source vocabulary (not just the queries). The search is exact and blocked
    (:func:`embgeo.neighbors.topk`); ties go to the lower target row.

    Returns
    -------
    scores, indices : arrays (q, k)
        Scores are the ranking scores up to a per-query constant (cosine for ``"nn"``).
    """
    retrieval = renamed_parameter(retrieval, method, old="method", new="retrieval", where="retrieve")
    Qa, Ta = retrieval_factors(queries, target, retrieval, source=source, csls_knn=csls_knn,
                               isf_beta=isf_beta, memory_budget=memory_budget, progress=progress)
    return topk(Qa, Ta, k, metric="dot", memory_budget=memory_budget, progress=progress)


# ------------------------------------------------------------------------ dictionary induction
def _nn_induction(A, B, r_B, keep_prob, rng, memory_budget):
    """For each row of A: argmax_j of dropout(a·b_j − r_B[j]/2), and max_j a·b_j (blocked).

    Dropout is VecMap's stochastic dictionary induction (Artetxe et al. 2018, Section 3.3):
    every score is set to 0 with probability 1 − p, *after* the CSLS correction, as VecMap does.
    The mask is drawn with 8 bits of resolution (p is rounded to a multiple of 1/256).
    """
    xp = xb.get_namespace(A)
    n = A.shape[0]
    step = block_rows(B.shape[0], 4, memory_budget)
    BT = xp.matrix_transpose(B)
    thr = _dropout_threshold(keep_prob)
    if xb.is_numpy(A):
        from .kernels.crosslingual import dropout_argmax as kernel
        seed = np.uint64(rng.integers(0, 2**63))
        r_half = np.zeros(B.shape[0], dtype=np.float32) if r_B is None else (np.asarray(r_B) / 2).astype(np.float32)
        best = np.empty(n, dtype=np.int64)
        sims = np.empty(n, dtype=np.float64)
        for s in range(0, n, step):
            e = min(s + step, n)
            S = np.ascontiguousarray(A[s:e] @ BT, dtype=np.float32)
            kernel(S, r_half, thr, seed, s, best[s:e], sims[s:e])
        return best, sims
    best, sims = [], []
    for s in range(0, n, step):
        S = A[s:min(s + step, n), ...] @ BT
        sims.append(xp.max(S, axis=1))
        if r_B is not None:
            # subtracting r_S/2 ranks like CSLS (the row term is constant), as in VecMap
            S = S - xp.reshape(xp.astype(r_B, S.dtype), (1, -1)) / 2
        if thr < 256:
            keep = xp.asarray(rng.random(tuple(S.shape)) < thr / 256)  # boolean, in S's library
            S = xp.where(keep, S, xp.zeros_like(S))
        best.append(xp.argmax(S, axis=1))
    return (xb.to_numpy(xp.concat(best, axis=0)).astype(np.int64),
            xb.to_numpy(xp.concat(sims, axis=0)).astype(np.float64))


#: a fused induction tile is at most this many rows × columns (1 MiB of float32 scores): the GEMM
#: writes it and the kernel reads it while it is still in the core's cache
_TILE_ROWS, _TILE_COLS = 256, 1024
#: threads of the fused induction (None: one per available core), each with at least
#: _JOB_COLUMNS columns; tests change both to check the merge of the ranges
_FUSED_JOBS: int | None = None
_JOB_COLUMNS = 256


def _dropout_threshold(keep_prob):
    # at least 1/256: a zero threshold would drop every score and send every row to column 0
    return 256 if keep_prob >= 1.0 else max(1, int(round(keep_prob * 256)))


def _n_jobs() -> int:
    return default_n_jobs(_FUSED_JOBS)


def _fused_induction(X, Z, do_f, do_b, csls_knn, keep_prob, rng, memory_budget):
    """Forward and backward dropout-argmax induction from one score matrix S = X Zᵀ (NumPy).

    Equal to :func:`_nn_induction` run on (X, Z) and on (Z, X) with the CSLS terms of
    :func:`~embgeo.neighbors.knn_mean_similarity` (same masks, seeds drawn in the same order),
    but S is computed tile by tile only twice: pass 1 gathers the top-``csls_knn`` scores of
    every row and column (both r terms; skipped for NN), pass 2 takes the argmax along rows and
    down columns (:mod:`embgeo.kernels.crosslingual`). VecMap computes four products per
    iteration (two for the r terms, two for the argmaxes). Each thread owns a range of
    columns (targets) with single-threaded BLAS; the row results of the ranges are merged.

    Returns
    -------
    tgt_of_src, max_f, src_of_tgt, max_b : NumPy arrays (int64, float64, int64, float64); the
    entries of a direction not asked for are empty.
    """
    from concurrent.futures import ThreadPoolExecutor

    from .kernels import crosslingual as K

    X = np.ascontiguousarray(X, dtype=np.float32)
    Z = np.ascontiguousarray(Z, dtype=np.float32)
    ns, nt = X.shape[0], Z.shape[0]
    thr = _dropout_threshold(keep_prob)
    seed_f = np.uint64(rng.integers(0, 2**63)) if do_f else np.uint64(0)
    seed_b = np.uint64(rng.integers(0, 2**63)) if do_b else np.uint64(0)
    jobs = max(1, min(_n_jobs(), nt // _JOB_COLUMNS))
    bounds = np.linspace(0, nt, jobs + 1).astype(np.int64)
    cols = max(1, min(_TILE_COLS, -(-nt // jobs)))
    rows = max(1, min(_TILE_ROWS, block_rows(cols * jobs, 4, memory_budget)))
    bufs = [np.empty((rows, cols), dtype=np.float32) for _ in range(jobs)]

    def run(task):
        with xb.single_blas_thread():
            if jobs == 1:
                task(0)
            else:
                with ThreadPoolExecutor(jobs) as pool:
                    list(pool.map(task, range(jobs)))

    r_col_half = np.zeros(nt, dtype=np.float32)   # r of each target over the sources (forward)
    r_row_half = np.zeros(ns, dtype=np.float32)   # r of each source over the targets (backward)
    if csls_knn > 0:
        kc, kr = min(csls_knn, ns), min(csls_knn, nt)
        col_vals = np.full((nt, kc), -np.inf, dtype=np.float32)
        col_min = np.full(nt, -np.inf, dtype=np.float32)
        row_vals = np.full((jobs, ns if do_b else 0, kr), -np.inf, dtype=np.float32)
        row_min = np.full((jobs, ns if do_b else 0), -np.inf, dtype=np.float32)

        def topk_pass(w):
            K.topk_sweep(X, Z, int(bounds[w]), int(bounds[w + 1]), rows, bufs[w], row_vals[w], row_min[w],
                         col_vals, col_min, do_b, do_f)

        run(topk_pass)
        if do_f:
            r_col_half = (col_vals.astype(np.float64).mean(axis=1) / 2).astype(np.float32)
        if do_b:
            # the k largest of each row among its ranges' k largest
            merged = np.concatenate(list(row_vals), axis=1)
            top = -np.partition(-merged, kr - 1, axis=1)[:, :kr] if merged.shape[1] > kr else merged
            r_row_half = (top.astype(np.float64).mean(axis=1) / 2).astype(np.float32)
    nf = ns if do_f else 0
    row_bv = np.full((jobs, nf), -np.inf, dtype=np.float32)
    row_bi = np.zeros((jobs, nf), dtype=np.int64)
    row_max = np.full((jobs, nf), -np.inf, dtype=np.float32)
    col_bv = np.full(nt, -np.inf, dtype=np.float32)
    col_bi = np.zeros(nt, dtype=np.int64)
    col_max = np.full(nt, -np.inf, dtype=np.float32)

    def argmax_pass(w):
        K.argmax_sweep(X, Z, int(bounds[w]), int(bounds[w + 1]), rows, bufs[w], r_col_half, r_row_half, thr,
                       seed_f, seed_b, row_bv[w], row_bi[w], row_max[w], col_bv, col_bi, col_max, do_f, do_b)

    run(argmax_pass)
    # forward: the first range holding the row's best value wins (its columns come first)
    win = np.argmax(row_bv, axis=0)
    best_f = row_bi[win, np.arange(nf)]
    max_f = row_max.max(axis=0) if nf else np.zeros(0, dtype=np.float32)
    return (best_f, max_f.astype(np.float64), col_bi if do_b else col_bi[:0],
            col_max.astype(np.float64) if do_b else np.zeros(0))


def induce_dictionary(X, Z, *, direction: str = "union", retrieval: str = "nn", csls_knn: int = 10,
                      keep_prob: float = 1.0, random_state=None, memory_budget: int | None = None,
                      return_objective: bool = False):
    """Induce a dictionary from mapped spaces by nearest neighbours (dot product).

    Parameters
    ----------
    X, Z : arrays (n_s, d), (n_t, d)
        Mapped source and target vectors (already cut to the vocabulary to search; VecMap uses
        length-normalised vectors, so dot products are cosines).
    direction : {"forward", "backward", "union", "mutual"}
        Source→target, target→source, their union (VecMap's default), or only mutual nearest
        neighbours (pairs found in both directions; MUSE's "S2T&T2S").
    retrieval : {"nn", "csls"}
        CSLS subtracts r/2 of the candidate side (Conneau et al. 2018, eq. 3).
    keep_prob : float
        Stochastic dictionary induction: each similarity is zeroed with probability 1 − p
        (Artetxe et al. 2018, Section 3.3); 1 makes it deterministic. p is resolved in steps of
        1/256 (at least 1/256). Ignored for ``direction="mutual"``.

    Returns
    -------
    pairs : int64 array (m, 2)
        (source_row, target_row) pairs; forward pairs first, then backward ones (union keeps
        duplicates, as VecMap does, which weights pairs found twice).
    objective : float, if ``return_objective``
        Mean best similarity (averaged over the directions used), VecMap's objective.

    Notes
    -----
    NumPy inputs are scored in float32 (VecMap's default ``--precision fp32``; float64 inputs
    are cast) and both directions come from one score matrix S = X Zᵀ computed twice, tile by
    tile: once for the CSLS terms of rows and columns, once for the argmaxes along rows and down
    columns (VecMap computes it four times). Other array libraries run each direction by itself.
    """
    if direction not in ("forward", "backward", "union", "mutual"):
        raise ValueError(f"direction must be forward, backward, union or mutual, got {direction!r}")
    if retrieval not in ("nn", "csls"):
        raise ValueError(f"retrieval must be 'nn' or 'csls' for dictionary induction, got {retrieval!r}")
    if not 0 < keep_prob <= 1:
        raise ValueError(f"keep_prob must be in (0, 1], got {keep_prob}")
    X = xb.check_matrix(X, "X")
    Z = xb.check_matrix(xb.asarray(Z, like=X), "Z")
    if X.shape[1] != Z.shape[1]:
        raise ValueError(f"X and Z must share their dimension ({X.shape[1]} vs {Z.shape[1]})")
    rng = np.random.default_rng(random_state)
    if direction == "mutual":
        # dropout draws the two directions' choices independently, so almost no pair would be
        # mutual: mutual induction is deterministic
        keep_prob = 1.0
    csls = retrieval == "csls"
    do_f = direction in ("forward", "union", "mutual")
    do_b = direction in ("backward", "union", "mutual")
    parts, objs = [], []
    if xb.is_numpy(X):
        # both directions from one score matrix, two GEMM passes (seeds drawn in the order below)
        t, sim_f, s, sim_b = _fused_induction(X, Z, do_f, do_b, csls_knn if csls else 0, keep_prob, rng,
                                              memory_budget)
    else:
        if do_f:
            r = knn_mean_similarity(Z, X, min(csls_knn, X.shape[0]), metric="dot",
                                    memory_budget=memory_budget, progress=False) if csls else None
            t, sim_f = _nn_induction(X, Z, r, keep_prob, rng, memory_budget)
        if do_b:
            r = knn_mean_similarity(X, Z, min(csls_knn, Z.shape[0]), metric="dot",
                                    memory_budget=memory_budget, progress=False) if csls else None
            s, sim_b = _nn_induction(Z, X, r, keep_prob, rng, memory_budget)
    if do_f:
        parts.append(np.stack([np.arange(X.shape[0]), t], axis=1))
        objs.append(sim_f.mean())
    if do_b:
        parts.append(np.stack([s, np.arange(Z.shape[0])], axis=1))
        objs.append(sim_b.mean())
    if direction == "mutual":
        fwd, bwd = parts
        mutual = bwd[fwd[bwd[:, 0], 1] == bwd[:, 1]]
        pairs = mutual[np.argsort(mutual[:, 0], kind="stable")]
    else:
        pairs = np.concatenate(parts, axis=0)
    pairs = pairs.astype(np.int64)
    return (pairs, float(np.mean(objs))) if return_objective else pairs


def unsupervised_dictionary(X, Z, *, vocabulary: int | None = 4000, normalize=("unit", "center", "unit"),
                            direction: str = "union", csls_knn: int = 10, memory_budget: int | None = None):
    """Initial dictionary without any seed: similarity-distribution signatures (ACL 2018).

    Artetxe, Labaka & Agirre (2018, "A robust self-learning method for fully unsupervised
    cross-lingual mappings of word embeddings", Section 3.2): for the first n = ``vocabulary``
    words of each (normalised) space, ``M = (XXᵀ)^(1/2) = U S Uᵀ`` (X = USVᵀ); each row of M is
    sorted, so that it no longer depends on the word order of the language, and the sorted
    rows are normalised like the embeddings (VecMap's ``--normalize`` steps). Words are then paired
    with their nearest neighbour across languages in that signature space, by CSLS when
    ``csls_knn > 0``, in ``direction`` (as :func:`induce_dictionary`), as VecMap's
    ``--init_unsupervised`` does.

    Parameters
    ----------
    X, Z : arrays (n_s, d_s), (n_t, d_t)
        Normalised source and target vectors, rows in frequency order.
    vocabulary : int or None
        n; ``None`` uses min(n_s, n_t). Memory and time are O(n²) and O(n² d): n is capped at 20000.

    Returns
    -------
    pairs : int64 array (m, 2) of (source_row, target_row)
    """
    X = xb.check_matrix(X, "X")
    Z = xb.check_matrix(xb.asarray(Z, like=X), "Z")
    if csls_knn < 0:
        raise ValueError(f"csls_knn must be >= 0 (0: plain nearest neighbours), got {csls_knn}")
    n = min(X.shape[0], Z.shape[0]) if not vocabulary else min(X.shape[0], Z.shape[0], int(vocabulary))
    if n > 20000:
        raise ValueError(f"the unsupervised initialisation compares n×n similarity matrices; n = {n} is "
                         "too large: pass vocabulary (VecMap uses 4000)")
    xp = xb.get_namespace(X, Z)
    steps = (normalize,) if isinstance(normalize, str) else tuple(normalize or ())

    def signature(M):
        U, s, _ = xp.linalg.svd(M[:n, ...], full_matrices=False)
        S = (U * xp.reshape(s, (1, -1))) @ xp.matrix_transpose(U)
        return _normalize_rows(xp.sort(S, axis=1), steps)

    return induce_dictionary(signature(X), signature(Z), direction=direction,
                             retrieval="csls" if csls_knn > 0 else "nn", csls_knn=max(1, int(csls_knn)),
                             memory_budget=memory_budget)


class History(list):
    """Self-learning records (one dict per iteration) of :attr:`Mapper.history_`, with a plot."""

    def plot(self, ax=None):
        """Objective and, when recorded, validation P@1 per iteration; returns the Axes.

        Needs matplotlib (``pip install embgeo[plot]``).
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("History.plot needs matplotlib: pip install 'embgeo[plot]'") from None
        if not self:
            raise ValueError("no self-learning iteration was recorded (self_learning=False?)")
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        it = [r["iteration"] for r in self]
        ax.plot(it, [r["objective"] for r in self], color="C0", label="objective")
        ax.set_xlabel("iteration")
        ax.set_ylabel("objective (mean best similarity)", color="C0")
        if "val_accuracy" in self[0]:
            ax2 = ax.twinx()
            ax2.plot(it, [100 * r["val_accuracy"] for r in self], color="C1", label="validation P@1")
            ax2.set_ylabel("validation P@1 (%)", color="C1")
        ax.set_title("self-learning")
        return ax


# ------------------------------------------------------------------------------------ Mapper
class Mapper(BaseEstimator):
    """VecMap's cross-lingual mapping framework as a scikit-learn estimator.

    Implements the steps of Artetxe, Labaka & Agirre (AAAI 2018, "Generalizing and improving
    bilingual word embedding mappings with a multi-step framework of linear transformations",
    Section 3) and the self-learning of Artetxe et al. (ACL 2017; ACL 2018, "A robust
    self-learning method for fully unsupervised cross-lingual mappings", Section 3.3). Parameter
    names and meanings follow VecMap's ``map_embeddings.py``; the defaults are its ``--supervised``
    recipe (see :data:`RECIPES` and :meth:`from_recipe` for the others).

    Parameters
    ----------
    normalize : sequence of str
        VecMap's ``--normalize`` steps (:mod:`embgeo.normalize`), default unit, center, unit.
    whiten : bool
        Step 1: whiten each side with (X_DᵀX_D)^(−1/2) computed on the dictionary rows.
    src_reweight, trg_reweight : float
        Step 3: scale the mapped dimensions by σᵢ^p, the singular values of the whitened X_DᵀZ_D.
    src_dewhiten, trg_dewhiten : {"src", "trg", None}
        Step 4: restore the variance of the source or target side.
    dim_reduction : int or None
        Step 5: keep the first k mapped dimensions.
    mapping : {"advanced", "orthogonal", "unconstrained", "rcsls"}
        The full multi-step mapping (VecMap's default), a single orthogonal (Procrustes) map of
        the source (``-c``), least squares W = (X_DᵀX_D)⁻¹X_DᵀZ_D (``-u``, Mikolov et al. 2013),
        or the relaxed CSLS loss of Joulin et al. (2018) optimised from the Procrustes solution
        (:func:`embgeo.rcsls.rcsls` with ``csls_knn`` and ``random_state``; recipe ``"rcsls"``).
    init : {"seed", "identical", "numerals", "unsupervised"}
        Seed dictionary: the one given to :meth:`fit`, identical strings, Latin numerals, or
        the fully unsupervised initialisation of Artetxe et al. (ACL 2018, Section 3.2;
        :func:`unsupervised_dictionary`).
    unsupervised_vocab : int or None
        Words (the first rows) compared by the unsupervised initialisation; VecMap's
        ``--unsupervised_vocab`` (its recipe: 4000). Its memory is O(n²).
    self_learning : bool
        Iterate mapping and dictionary induction (ACL 2017/2018).
    vocabulary_cutoff : int or None
        Induce dictionaries among the k most frequent words (rows) only.
    direction : {"union", "forward", "backward", "mutual"}
        Dictionary induction direction ("mutual" is an embgeo addition: mutual NNs only, found
        without stochastic dropout, which would make the two directions disagree).
    csls_knn : int
        k of CSLS for induction (VecMap's ``--csls``); 0 uses plain nearest neighbours.
        ``csls_neighborhood`` is its deprecated old name.
    threshold : float
        Convergence: an improvement of the objective smaller than this does not count.
    stochastic_initial, stochastic_multiplier, stochastic_interval : float, float, int
        Keep probability p starts at ``stochastic_initial`` and is multiplied (capped at 1) after
        ``stochastic_interval`` iterations without improvement; learning stops when that happens
        at p = 1.
    max_iter : int or None
        Safety bound on self-learning iterations (VecMap has none); with ``refinement="muse"``
        the number of induced dictionaries, MUSE's ``n_refinement`` (default 5).
    refinement : {"vecmap", "muse"}
        The self-learning loop. ``"vecmap"``: VecMap's (induction among the ``vocabulary_cutoff``
        first rows of both sides, on the normalised vectors, stochastic dropout, stop on
        convergence). ``"muse"``: MUSE's ``supervised.py`` loop (embgeo's reading of its code,
        ``src/trainer.py`` and ``src/dico_builder.py``): ``max_iter`` rounds of [map with the
        current W, unit-normalise the mapped source and the target rows (``build_dictionary``),
        CSLS terms over the *whole* vocabularies, each of the first ``vocabulary_cutoff`` rows
        takes its argmax over the *whole* other side, pairs whose other index exceeds
        ``vocabulary_cutoff`` are dropped (MUSE keeps ``max(pair) <= dico_max_rank``, so the
        other side reaches row ``vocabulary_cutoff`` itself), then S2T / T2S / S2T|T2S / S2T&T2S
        for ``direction`` forward / backward / union / mutual, as sets → Procrustes on the
        (pre-processed, by default raw) rows]; no stochastic dropout, no convergence test.
        Unlike MUSE, embgeo keeps the *last* mapping: MUSE reloads the iteration with the best
        validation score (``save_best``/``reload_best``); ``history_`` records the validation
        scores when ``fit(validation=...)`` is given, to choose ``max_iter`` from.
    postproc : (float, float) or None
        POSTPROC (Vulić et al. 2020, Section 2): similarity-order transform X Q Δ^α of each side
        (:func:`embgeo.postprocess.similarity_order`) with (αs, αt); the paper's values are
        (−0.25, 0.15). Applied to the raw vectors, *before* ``normalize``, as the paper's
        pipeline (uncovec's ``post-process.py``, then VecMap) does.
    pca : int, "match" or None
        Reduce the space(s) wider than k dimensions to their top-k principal components before
        mapping; "match" reduces the wider space to the narrower one's dimension.
    memory_budget : int or None
        Bytes per block of similarity scores (memory is bounded by it, results do not depend on it).
    random_state : int or None
        Seed of the stochastic dictionary induction (VecMap ``--seed``, default 0).
    progress : bool or None
        Progress bar over self-learning iterations.
    verbose : bool
        Print one line per self-learning iteration (as VecMap's ``--verbose``).

    Attributes
    ----------
    src_transform_, tgt_transform_ : arrays (d_s', m), (d_t', m)
        Linear maps applied after normalisation, POSTPROC and PCA.
    dictionary_ : int array (n, 2)
        The dictionary the final mapping was fitted on (row pairs).
    history_ : History (a list of dict)
        One record per self-learning iteration (``history_.plot()`` draws them): ``iteration``, ``objective``, ``keep_prob``,
        ``dictionary_size``, ``seconds``, and ``val_accuracy``, ``val_similarity``,
        ``val_coverage`` when a validation dictionary is given.
    n_iter_ : int
    singular_values_ : array
        σ of the (whitened) dictionary cross-covariance of the last mapping.

    Notes
    -----
    Different dimensionalities (e.g. English GloVe 50d → Finnish 300d): the orthogonal mapping
    becomes semi-orthogonal (see :func:`procrustes`); the advanced mapping uses the thin SVD, so
    both sides land in an r = min(d_s, d_t)-dimensional shared space (VecMap itself requires equal
    dimensions). Alternatively ``pca="match"`` first reduces the wider space by PCA.

    Examples
    --------
    >>> import numpy as np, embgeo
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 20)).astype(np.float32)
    >>> Q, _ = np.linalg.qr(rng.standard_normal((20, 20)))
    >>> src = embgeo.Embeddings([f"s{i}" for i in range(500)], X)
    >>> tgt = embgeo.Embeddings([f"t{i}" for i in range(500)], (X @ Q).astype(np.float32))
    >>> m = Mapper.from_recipe("orthogonal", normalize=()).fit(src, tgt, [(f"s{i}", f"t{i}") for i in range(100)])
    >>> xs, zt = m.transform(src, tgt)
    >>> bool(np.allclose(xs.vectors, zt.vectors, atol=1e-4))
    True
    """

    def __init__(self, normalize=("unit", "center", "unit"), whiten=True, src_reweight=0.5,
                 trg_reweight=0.5, src_dewhiten="src", trg_dewhiten="trg", dim_reduction=None,
                 mapping="advanced", init="seed", unsupervised_vocab=None, self_learning=False,
                 vocabulary_cutoff=None,
                 direction="union", csls_knn=0, threshold=1e-6, stochastic_initial=0.1,
                 stochastic_multiplier=2.0, stochastic_interval=50, max_iter=None, postproc=None,
                 pca=None, memory_budget=None, random_state=0, progress=None,
                 verbose=False, refinement="vecmap", *, csls_neighborhood=None):
        self.normalize = normalize
        self.whiten = whiten
        self.src_reweight = src_reweight
        self.trg_reweight = trg_reweight
        self.src_dewhiten = src_dewhiten
        self.trg_dewhiten = trg_dewhiten
        self.dim_reduction = dim_reduction
        self.mapping = mapping
        self.init = init
        self.unsupervised_vocab = unsupervised_vocab
        self.self_learning = self_learning
        self.vocabulary_cutoff = vocabulary_cutoff
        self.direction = direction
        self.csls_knn = csls_knn
        self.threshold = threshold
        self.stochastic_initial = stochastic_initial
        self.stochastic_multiplier = stochastic_multiplier
        self.stochastic_interval = stochastic_interval
        self.max_iter = max_iter
        self.postproc = postproc
        self.pca = pca
        self.memory_budget = memory_budget
        self.random_state = random_state
        self.progress = progress
        self.verbose = verbose
        self.csls_neighborhood = csls_neighborhood  # deprecated name of csls_knn
        self.refinement = refinement

    @classmethod
    def from_recipe(cls, name: str, **overrides) -> "Mapper":
        """A Mapper with one of the recommended settings of :data:`RECIPES`.

        VecMap's ``"supervised"``, ``"semi_supervised"``, ``"identical"``, ``"unsupervised"``
        (= ``"acl2018"``), ``"aaai2018"``, ``"acl2017"`` and ``"orthogonal"`` (``--emnlp2016``),
        and MUSE's supervised refinement ``"muse"``; ``overrides`` replace single parameters.
        """
        try:
            params = dict(RECIPES[name])
        except KeyError:
            raise ValueError(f"unknown recipe {name!r}; choose from {', '.join(RECIPES)}") from None
        params.update(overrides)
        return cls(**params)

    # ----------------------------------------------------------------- validation
    def _csls_knn(self) -> int:
        return int(renamed_parameter(self.csls_knn, self.csls_neighborhood, old="csls_neighborhood",
                                     new="csls_knn", where="Mapper", stacklevel=3) or 0)

    def _check_params(self):
        if self.mapping not in ("advanced", "orthogonal", "unconstrained", "rcsls"):
            raise ValueError(f"mapping must be advanced, orthogonal, unconstrained or rcsls, got {self.mapping!r}")
        if self.init not in ("seed", "identical", "numerals", "unsupervised"):
            raise ValueError(f"init must be seed, identical, numerals or unsupervised, got {self.init!r}")
        for name in ("src_dewhiten", "trg_dewhiten"):
            if getattr(self, name) not in ("src", "trg", None):
                raise ValueError(f"{name} must be 'src', 'trg' or None, got {getattr(self, name)!r}")
        if self.direction not in ("union", "forward", "backward", "mutual"):
            raise ValueError(f"direction must be union, forward, backward or mutual, got {self.direction!r}")
        if self.postproc is not None:
            pp = self.postproc
            if not (isinstance(pp, (tuple, list, np.ndarray)) and len(pp) == 2
                    and all(isinstance(a, (int, float, np.integer, np.floating)) and np.isfinite(a) for a in pp)):
                raise ValueError(f"postproc must be a pair of finite numbers (alpha_src, alpha_tgt), got {pp!r}")
        if self.pca is not None and self.pca != "match" and not (
                isinstance(self.pca, (int, np.integer)) and not isinstance(self.pca, bool) and self.pca >= 1):
            raise ValueError(f"pca must be a positive int, 'match' or None, got {self.pca!r}")
        if self._csls_knn() < 0:
            raise ValueError(f"csls_knn must be >= 0 (0: plain nearest neighbours), got {self._csls_knn()}")
        if (self.src_dewhiten is not None or self.trg_dewhiten is not None) and not self.whiten:
            # map_embeddings.py: "ERROR: De-whitening requires whitening first"
            raise ValueError("de-whitening requires whitening first: set whiten=True or "
                             "src_dewhiten=None, trg_dewhiten=None")
        if self.dim_reduction and self.mapping != "advanced":
            # VecMap applies --dim_reduction (STEP 5) in its advanced mapping only
            raise ValueError(f"dim_reduction applies to mapping='advanced' only, not {self.mapping!r}")
        if self.refinement not in ("vecmap", "muse"):
            raise ValueError(f"refinement must be 'vecmap' or 'muse', got {self.refinement!r}")
        if self.refinement == "muse" and self.mapping != "orthogonal":
            raise ValueError(f"refinement='muse' solves Procrustes: it needs mapping='orthogonal', "
                             f"not {self.mapping!r}")
        if self.max_iter is not None and not (isinstance(self.max_iter, (int, np.integer)) and self.max_iter >= 0):
            raise ValueError(f"max_iter must be a non-negative int or None, got {self.max_iter!r}")
        if not 0 < self.stochastic_initial <= 1:
            raise ValueError(f"stochastic_initial must be in (0, 1], got {self.stochastic_initial}")
        if self.stochastic_initial < 1 and not self.stochastic_multiplier > 1:
            # keep_prob would never reach 1, the only point where self-learning stops
            raise ValueError(f"stochastic_multiplier must be > 1 when stochastic_initial < 1 "
                             f"(got {self.stochastic_multiplier} with stochastic_initial "
                             f"{self.stochastic_initial}): the keep probability would never reach 1")
        if not (isinstance(self.stochastic_interval, (int, np.integer)) and self.stochastic_interval >= 1):
            raise ValueError(f"stochastic_interval must be a positive int, got {self.stochastic_interval!r}")

    # ----------------------------------------------------------- preprocessing
    def _preprocess(self, X, side, fit):
        """POSTPROC → normalize → PCA, fitting the statistics when ``fit``.

        POSTPROC comes first, on the raw vectors, as in Vulić et al. (2020, Section 2: "a
        transformation ... applied before they undergo the series of standard normalisation and
        centering steps"), whose pipeline runs uncovec's ``post-process.py`` on the input files
        and then VecMap, which normalises.
        """
        xp = xb.get_namespace(X)
        if self.postproc is not None:
            alpha = float(tuple(self.postproc)[0 if side == "src" else 1])
            if fit:
                T = similarity_order_transform(X, alpha)
                setattr(self, f"{side}_postproc_", T)
            X = apply_transform(X, getattr(self, f"{side}_postproc_"))
        if fit:
            nz = Normalizer(self.normalize)
            X = nz.fit_transform(X)
            setattr(self, f"{side}_normalizer_", nz)
        else:
            X = getattr(self, f"{side}_normalizer_").transform(X)
        if fit:
            k = self._pca_dim(side)
            t = None
            if k is not None and k < X.shape[1]:
                # the top-k principal axes of the centred vocabulary (embgeo.pca's definition)
                C, mu = centred_scatter(X, side)
                t = AffineTransform(eigh_desc(C)[1][:, :k], mu)
            setattr(self, f"{side}_pca_", t)
        t = getattr(self, f"{side}_pca_")
        return X if t is None else t.apply(X)

    def _pca_dim(self, side):
        if self.pca is None:
            return None
        if self.pca == "match":
            return min(self._dims)
        return int(self.pca)

    # ------------------------------------------------------------------- fitting
    def fit(self, src, tgt, seed_dictionary=None, *, validation=None) -> "Mapper":
        """Learn the mapping.

        Parameters
        ----------
        src, tgt : Embeddings (or arrays, then dictionaries are (m, 2) int row pairs)
            Rows in frequency order (the vocabulary cutoff keeps the first rows).
        seed_dictionary : word pairs, int (m, 2) array, or a path (read with
            :func:`embgeo.data.read_dictionary`); ignored for ``init`` "identical"/"numerals".
            Pairs with out-of-vocabulary words are skipped.
        validation : word pairs, array or path, optional
            Scored (NN P@1 and mean similarity of the best gold translation) at every
            self-learning iteration, as VecMap's ``--validation``; recorded in ``history_``.

        Returns
        -------
        self
        """
        self._fit(src, tgt, seed_dictionary, validation)
        del self._fitted_inputs
        return self

    def _fit(self, src, tgt, seed_dictionary=None, validation=None):
        """fit without releasing the pre-processed matrices (kept for fit_transform)."""
        self._check_params()
        X0, Z0 = _matrix(src, "src"), _matrix(tgt, "tgt")
        xb.get_namespace(X0, Z0)  # both sides must share one array library
        self._dims = (X0.shape[1], Z0.shape[1])
        if self.init == "identical":
            seed_dictionary = identical_dictionary(src, tgt)
        elif self.init == "numerals":
            seed_dictionary = numeral_dictionary(src, tgt)
        elif self.init == "seed" and seed_dictionary is None:
            raise ValueError("init='seed' needs a seed_dictionary")
        if self.init != "unsupervised":
            si, ti = dictionary_indices(src, tgt, _maybe_read(seed_dictionary))
        val = None
        if validation is not None:
            validation = _maybe_read(validation)
            if not isinstance(validation, np.ndarray):
                validation = list(validation)
            vs, vt = dictionary_indices(src, tgt, validation)
            val = {}
            for a, b in zip(vs.tolist(), vt.tolist()):
                val.setdefault(a, set()).add(b)
            # coverage is relative to the distinct validation source words, OOV ones included
            self._val_total = len({p[0] for p in validation}) if isinstance(validation, list) else len(val)
        X = self._preprocess(X0, "src", fit=True)
        Z = self._preprocess(Z0, "tgt", fit=True)
        if self.init == "unsupervised":
            k = self._csls_knn()
            pairs = unsupervised_dictionary(X, Z, vocabulary=self.unsupervised_vocab, normalize=self.normalize,
                                            direction=self.direction, csls_knn=k,
                                            memory_budget=self.memory_budget)
            si, ti = pairs[:, 0], pairs[:, 1]
        self.history_ = History()
        self.n_iter_ = 0
        if self.self_learning and self.refinement == "muse":
            si, ti = self._muse_refine(X, Z, si, ti, val, self._csls_knn())
        elif self.self_learning:
            si, ti = self._self_learn(X, Z, si, ti, val, self._csls_knn())
        with xb.single_blas_thread():
            # d × d work on the dictionary rows: BLAS threads only wait on each other
            self._final_mapping(X, Z, si, ti)
        self.dictionary_ = np.stack([si, ti], axis=1)
        self.n_features_in_ = (X0.shape[1], Z0.shape[1])
        self._fitted_inputs = (X, Z)  # fit_transform maps them; fit drops them
        return self

    def _final_mapping(self, X, Z, si, ti):
        xp = xb.get_namespace(X)
        Xd, Zd = xb.take_rows(X, si), xb.take_rows(Z, ti)
        ds, dt = X.shape[1], Z.shape[1]
        f64 = xp.float64
        if self.mapping == "orthogonal":
            W = xp.astype(procrustes(Xd, Zd, check_finite=False), f64)
            self.src_transform_ = W
            self.tgt_transform_ = xp.eye(dt, dtype=f64)
            self.singular_values_ = xp.linalg.svdvals(gram(Xd, Zd))
        elif self.mapping == "rcsls":
            from .rcsls import rcsls

            W = rcsls(xb.to_numpy(X), xb.to_numpy(Z), np.asarray(xb.to_numpy(si)),
                      np.asarray(xb.to_numpy(ti)), csls_knn=self._csls_knn() or 10, random_state=self.random_state)
            self.src_transform_ = xp.asarray(np.asarray(W, dtype=np.float64))
            self.tgt_transform_ = xp.eye(dt, dtype=f64)
            self.singular_values_ = xp.linalg.svdvals(gram(Xd, Zd))
        elif self.mapping == "unconstrained":
            G = gram(Xd)
            W = xp.linalg.solve(G, gram(Xd, Zd))
            self.src_transform_ = W
            self.tgt_transform_ = xp.eye(dt, dtype=f64)
            self.singular_values_ = xp.linalg.svdvals(gram(Xd, Zd))
        else:
            # AAAI 2018 Section 3, composed from embgeo.postprocess: STEP 1 whitening on the
            # dictionary rows, STEP 2 orthogonal mapping (SVD of the whitened X_DᵀZ_D), STEP 3
            # re-weighting by σ^p, STEP 4 de-whitening Rᵀ(X_DᵀX_D)^(1/2)R
            if self.whiten:
                try:
                    wx1, wz1 = whitening_transform(Xd), whitening_transform(Zd)
                except ValueError as exc:
                    raise ValueError(
                        f"cannot whiten: the dictionary's vectors do not span the space ({exc}); the "
                        f"dictionary has {len(set(np.asarray(si).tolist()))} distinct source and "
                        f"{len(set(np.asarray(ti).tolist()))} distinct target words for {ds}/{dt} "
                        "dimensions: use a larger dictionary, whiten=False, or pca") from None
            else:
                wx1, wz1 = xp.eye(ds, dtype=f64), xp.eye(dt, dtype=f64)
            U, s, Vt = cross_covariance_svd(apply_transform(Xd, wx1), apply_transform(Zd, wz1))
            wx2, wz2 = U, xp.matrix_transpose(Vt)
            Tx = wx1 @ wx2 * xp.reshape(s ** float(self.src_reweight), (1, -1))
            Tz = wz1 @ wz2 * xp.reshape(s ** float(self.trg_reweight), (1, -1))
            # de-whitening: Rᵀ(X_DᵀX_D)^(1/2)R with R = wx2 or wz2 (thin when d_s ≠ d_t);
            # _check_params refuses it without whitening, as VecMap does
            rot = {"src": (Xd, wx2), "trg": (Zd, wz2)}
            if self.src_dewhiten is not None:
                A, R = rot[self.src_dewhiten]
                Tx = Tx @ (xp.matrix_transpose(R) @ dewhitening_transform(A) @ R)
            if self.trg_dewhiten is not None:
                A, R = rot[self.trg_dewhiten]
                Tz = Tz @ (xp.matrix_transpose(R) @ dewhitening_transform(A) @ R)
            self.src_transform_, self.tgt_transform_ = Tx, Tz
            self.singular_values_ = s
        if self.dim_reduction:
            k = int(self.dim_reduction)
            self.src_transform_ = self.src_transform_[:, :k]
            self.tgt_transform_ = self.tgt_transform_[:, :k]

    def _self_learn(self, X, Z, si, ti, val, k):
        """VecMap's self-learning loop (ACL 2018, Algorithm/Section 3.3) with orthogonal mappings."""
        ns = X.shape[0] if not self.vocabulary_cutoff else min(X.shape[0], int(self.vocabulary_cutoff))
        nt = Z.shape[0] if not self.vocabulary_cutoff else min(Z.shape[0], int(self.vocabulary_cutoff))
        Xc, Zc = X[:ns, ...], Z[:nt, ...]
        rng = np.random.default_rng(self.random_state)
        retrieval = "csls" if k > 0 else "nn"
        best_objective = -100.0
        it, last_improvement = 1, 0
        keep_prob = float(self.stochastic_initial)
        end = False
        bar = progress_bar(total=self.max_iter, desc="self-learning", progress=self.progress, unit="iter")
        try:
            while True:
                t0 = time.perf_counter()
                if it - last_improvement > self.stochastic_interval:
                    if keep_prob >= 1.0:
                        end = True
                    keep_prob = min(1.0, self.stochastic_multiplier * keep_prob)
                    last_improvement = it
                if end or (self.max_iter is not None and it > int(self.max_iter)):
                    break
                with xb.single_blas_thread():
                    # a 50 × 50 problem: BLAS threads only wait on each other (0.7 s against
                    # 0.01 s for 40k dictionary rows on a loaded 2-core machine)
                    W = procrustes(xb.take_rows(X, si), xb.take_rows(Z, ti), check_finite=False)
                    A, B = _shared_space(Xc, Zc, W)
                pairs, objective = induce_dictionary(
                    A, B, direction=self.direction, retrieval=retrieval,
                    csls_knn=k or 10, keep_prob=keep_prob,
                    random_state=rng, memory_budget=self.memory_budget, return_objective=True)
                si, ti = pairs[:, 0], pairs[:, 1]
                if objective - best_objective >= self.threshold:
                    last_improvement = it
                    best_objective = objective
                self._record(it, objective, keep_prob, pairs, X, Z, W, val, t0)
                bar.update(1)
                bar.set_postfix(objective=f"{objective:.4f}", p=keep_prob)
                it += 1
        finally:
            bar.close()
        self.n_iter_ = len(self.history_)
        return si, ti

    def _record(self, it, objective, keep_prob, pairs, X, Z, W, val, t0) -> None:
        """One row of ``history_`` (printed with ``verbose``)."""
        rec = {"iteration": it, "objective": objective, "keep_prob": keep_prob,
               "dictionary_size": int(pairs.shape[0])}
        if val is not None:
            rec.update(self._score_validation(X, Z, W, val))
        rec["seconds"] = time.perf_counter() - t0
        self.history_.append(rec)
        if self.verbose:
            print(_format_record(rec), flush=True)

    def _muse_refine(self, X, Z, si, ti, val, k):
        """MUSE's refinement loop (``supervised.py``); the final Procrustes is :meth:`_final_mapping`."""
        n_rounds = 5 if self.max_iter is None else int(self.max_iter)
        bar = progress_bar(total=n_rounds, desc="refinement", progress=self.progress, unit="iter")
        try:
            for it in range(1, n_rounds + 1):
                t0 = time.perf_counter()
                W = procrustes(xb.take_rows(X, si), xb.take_rows(Z, ti), check_finite=False)
                A, B = _shared_space(X, Z, W)
                # Trainer.build_dictionary: cosines of the mapped source and the target rows
                A, B = normalize(A, "unit"), normalize(B, "unit")
                pairs, objective = _muse_dictionary(A, B, self.direction, k, self.vocabulary_cutoff,
                                                    self.memory_budget)
                si, ti = pairs[:, 0], pairs[:, 1]
                self._record(it, objective, 1.0, pairs, X, Z, W, val, t0)
                bar.update(1)
        finally:
            bar.close()
        self.n_iter_ = len(self.history_)
        return si, ti

    def _score_validation(self, X, Z, W, val):
        src_rows = np.fromiter(val.keys(), dtype=np.int64)
        Q, Zs = _shared_space(xb.take_rows(X, src_rows), Z, W)
        scores, idx = topk(Q, Zs, 1, metric="dot", memory_budget=self.memory_budget, progress=False)
        nn = xb.to_numpy(idx)[:, 0]
        acc = float(np.mean([nn[i] in val[s] for i, s in enumerate(src_rows.tolist())]))
        sims = []
        Qn = xb.to_numpy(Q).astype(np.float64)
        for i, s in enumerate(src_rows.tolist()):
            g = np.fromiter(val[s], dtype=np.int64)
            sims.append(float(np.max(xb.to_numpy(xb.take_rows(Zs, g)).astype(np.float64) @ Qn[i])))
        cov = len(val) / max(1, getattr(self, "_val_total", len(val)))
        return {"val_accuracy": acc, "val_similarity": float(np.mean(sims)), "val_coverage": cov}

    # ---------------------------------------------------------------- transform
    def _check_fitted(self):
        if not hasattr(self, "src_transform_"):
            raise NotFittedError("this Mapper is not fitted yet; call fit(src, tgt, seed_dictionary) first")

    def _apply(self, e, side):
        vec = _matrix(e, side)
        dim = self.n_features_in_[0 if side == "src" else 1]
        if vec.shape[1] != dim:
            raise ValueError(f"{side} has dimension {vec.shape[1]} but the mapper was fitted on {dim}")
        return self._map(e, self._preprocess(vec, side, fit=False), side)

    def _map(self, e, X, side):
        xp = xb.get_namespace(X)
        T = getattr(self, f"{side}_transform_")
        Y = xp.astype(X @ xp.astype(xb.asarray(T, like=X), X.dtype), X.dtype)
        return e.with_vectors(Y, check_finite=False) if isinstance(e, Embeddings) else Y

    def transform(self, src, tgt=None):
        """Map source vectors (and, if given, target vectors) into the shared space.

        Parameters
        ----------
        src : Embeddings or array (n, d_s)
        tgt : Embeddings or array (n, d_t), optional

        Returns
        -------
        The mapped source (same type as given), or a tuple (source, target) when ``tgt`` is given
        (scikit-learn's CCA convention). Normalisation reuses the statistics fitted on the
        training vocabularies.
        """
        self._check_fitted()
        out = self._apply(src, "src")
        if tgt is None:
            return out
        return out, self._apply(tgt, "tgt")

    def fit_transform(self, src, tgt, seed_dictionary=None, *, validation=None):
        """``fit(...)`` then ``transform(src, tgt)``, reusing the pre-processed training matrices."""
        self._fit(src, tgt, seed_dictionary, validation)
        X, Z = self.__dict__.pop("_fitted_inputs")
        return self._map(src, X, "src"), self._map(tgt, Z, "tgt")


def _shared_space(X, Z, W):
    """Rows of X and Z compared in the shared space of a (semi-)orthogonal W.

    With equal dimensions this is VecMap's (XW, Z). With d_s < d_t the target is projected onto the
    source's subspace instead, (xW)·z = x·(zWᵀ), so a 50d source against a 300d target costs a 50d
    GEMM; as the projection (or, for d_s > d_t, the map) drops part of a vector, the projected rows
    are re-normalised so that dot products remain cosines.
    """
    xp = xb.get_namespace(X)
    if W.shape[0] < W.shape[1]:
        return X, normalize(Z @ xp.matrix_transpose(W), "unit")
    if W.shape[0] > W.shape[1]:
        return normalize(X @ W, "unit"), Z
    return X @ W, Z


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


def _muse_dictionary(A, B, direction, csls_knn, max_rank, memory_budget):
    """MUSE's ``build_dictionary`` on unit rows: S2T, T2S, their union or intersection, as sets."""
    fwd = bwd = None
    objs = []
    if direction in ("forward", "union", "mutual"):
        # CSLS terms over the whole vocabularies (get_nn_avg_dist on the full embeddings); the
        # searched row's own term is constant along its row and does not change its argmax
        r = knn_mean_similarity(B, A, min(csls_knn, A.shape[0]), metric="dot", memory_budget=memory_budget,
                                progress=False) if csls_knn > 0 else None
        fwd, sim = _muse_candidates(A, B, r, max_rank, memory_budget)
        objs.append(sim.mean())
    if direction in ("backward", "union", "mutual"):
        r = knn_mean_similarity(A, B, min(csls_knn, B.shape[0]), metric="dot", memory_budget=memory_budget,
                                progress=False) if csls_knn > 0 else None
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


def _format_record(rec):
    s = (f"iteration {rec['iteration']:4d}  objective {rec['objective']:.5f}  p {rec['keep_prob']:.2f}  "
         f"dictionary {rec['dictionary_size']}")
    if "val_accuracy" in rec:
        s += f"  val P@1 {100 * rec['val_accuracy']:.2f}%  val sim {rec['val_similarity']:.4f}"
    return s


def _maybe_read(d):
    if isinstance(d, (str, os.PathLike)):
        return read_dictionary(d)
    return d
