"""How alike two spaces are on their shared words, calibrated against a permutation null.

Three measures of representational similarity, each computed without an n × n matrix:

* linear CKA (Kornblith, Norouzi, Lee & Hinton 2019, "Similarity of Neural Network Representations
  Revisited", ICML, eq. 5 with the linear kernel): ‖AᵀB‖²_F / (‖AᵀA‖_F ‖BᵀB‖_F) on the
  column-centred rows, from d_a × d_a, d_b × d_b and d_a × d_b matrices summed over row blocks;
* mutual k-NN alignment (Huh, Cheung, Wang & Isola 2024, "The Platonic Representation
  Hypothesis", ICML, Sec. 2): the mean over words of |N_A(w) ∩ N_B(w)| / k, N the k nearest other
  shared words by cosine, from one blocked self top-k pass per space (:func:`embgeo.neighbors.self_topk`);
* RSA (Kriegeskorte, Mur & Bandettini 2008, "Representational similarity analysis", Front. Syst.
  Neurosci.): the Spearman correlation between the two spaces' cosines on a seeded sample of
  pairs of distinct words.

Raw scores of all three rise with the widths of the spaces and fall with the number of words even
between unrelated spaces (two independent Gaussian spaces of widths 50 and 384 over 2000 words have
a linear CKA near 0.06). Gröger, Wen & Brbić (ICML 2026) calibrate them against a permutation null:
the row correspondence of one space is shuffled, which keeps each space's own geometry and breaks
only the pairing. ``score`` is the raw score minus the null mean; ``p_value`` is (1 + #{null ≥ raw})
/ (1 + n_permutations).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .. import backend as xb
from ..blocking import block_rows, row_blocks
from ..display import Display
from ..embeddings import Embeddings
from ..neighbors import self_topk

__all__ = ["similarity", "SpaceSimilarityResult", "SIMILARITY_MEASURES"]

#: The measures :func:`similarity` knows.
SIMILARITY_MEASURES = ("cka", "mutual_knn", "rsa")


@dataclass(frozen=True, repr=False)
class SpaceSimilarityResult(Display):
    """How alike two spaces are on their shared words (:func:`similarity`).

    Parameters
    ----------
    measure : str
        "cka", "mutual_knn" or "rsa".
    score : float
        With calibration, ``raw_score − null_mean`` (0: no more alike than unrelated spaces of the
        same geometry); without, the raw score.
    p_value : float or None
        (1 + #{null ≥ raw}) / (1 + n_permutations), one-sided; None without calibration.
    raw_score : float
        The measure itself, before calibration.
    null_mean, null_std : float or None
        Of the permutation null; None without calibration.
    n_words : int
        Shared words the score is over.
    k : int or None
        Neighbours per word ("mutual_knn" only).
    n_pairs : int or None
        Sampled pairs of words ("rsa" only).
    n_permutations : int
        0 without calibration.
    null : ndarray (n_permutations,) or None
        The raw score of each permutation; None without calibration.

    See Also
    --------
    similarity : makes it.
    """

    _call = "similarity(…, measure={measure!r}, n_permutations={n_permutations})"

    measure: str
    score: float
    p_value: float | None
    raw_score: float
    null_mean: float | None
    null_std: float | None
    n_words: int
    k: int | None
    n_pairs: int | None
    n_permutations: int
    null: np.ndarray | None = None


def _shared(a, b):
    if not (isinstance(a, Embeddings) and isinstance(b, Embeddings)):
        raise TypeError(f"similarity compares two embgeo.Embeddings (their words pair the rows), got "
                        f"{type(a).__name__} and {type(b).__name__}")
    words = [w for w in a.words if w in b]
    return words, np.asarray(a.indices(words)), np.asarray(b.indices(words))


def _rows(e, idx, ftype):
    """The shared rows of ``e`` as a NumPy matrix (float32 or float64), in shared-word order."""
    return np.ascontiguousarray(xb.to_numpy(xb.take_rows(e.vectors, idx)), dtype=ftype)


def _float(e):
    return np.float64 if np.dtype(xb.to_numpy(e.vectors[:1]).dtype) == np.float64 else np.float32


# ----------------------------------------------------------------------------- linear CKA
def _cka_parts(A, B, step):
    """Centred (in place) rows: ‖AᵀA‖_F, ‖BᵀB‖_F, each d × d product of a block summed in float64."""
    A -= A.mean(axis=0, dtype=np.float64).astype(A.dtype)
    B -= B.mean(axis=0, dtype=np.float64).astype(B.dtype)
    gaa = np.zeros((A.shape[1],) * 2)
    gbb = np.zeros((B.shape[1],) * 2)
    for s, e in row_blocks(A.shape[0], step):
        gaa += A[s:e].T @ A[s:e]
        gbb += B[s:e].T @ B[s:e]
    return np.linalg.norm(gaa), np.linalg.norm(gbb)


def _cka_cross(A, B, order, step, norm_aa, norm_bb):
    """Linear CKA of the centred A against B's rows in ``order`` (row i of A ↔ row order[i] of B)."""
    gab = np.zeros((A.shape[1], B.shape[1]))
    for s, e in row_blocks(A.shape[0], step):
        gab += A[s:e].T @ (B[s:e] if order is None else B[order[s:e]])
    den = norm_aa * norm_bb
    return float(np.sum(gab * gab) / den) if den > 0 else 0.0


# ----------------------------------------------------------------------------- mutual k-NN
def _mutual_knn(NA, NB, order, step):
    """Mean |N_A(i) ∩ N_B(i)| / k with row i of A ↔ row order[i] of B (lists in their own row numbers)."""
    n, k = NA.shape
    if order is None:
        mapped = NB
    else:
        inverse = np.empty(n, dtype=np.int64)
        inverse[order] = np.arange(n)
        # B's list of the row paired with i, written in A's row numbers
        mapped = inverse[NB[order]]
    total = 0
    for s, e in row_blocks(n, step):
        total += int(np.count_nonzero(NA[s:e, :, None] == mapped[s:e, None, :]))
    return total / (n * k)


# ----------------------------------------------------------------------------- RSA
def _unit(X):
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return np.divide(X, norms, out=np.zeros_like(X), where=norms > 0)


def _pair_cosines(U, i, j, step):
    out = np.empty(len(i))
    for s, e in row_blocks(len(i), step):
        out[s:e] = np.einsum("ij,ij->i", U[i[s:e]], U[j[s:e]])
    return out


def similarity(a: Embeddings, b: Embeddings, measure: str = "cka", *, calibrate: bool = True, k: int = 10,
               n_permutations: int = 100, resolution: float = 0.01, n_pairs: int = 100_000,
               random_state: int = 0, memory_budget: int | None = None,
               progress: bool | None = None) -> SpaceSimilarityResult:
    """How alike two spaces are on their shared words: linear CKA, mutual k-NN or RSA, calibrated.

    Parameters
    ----------
    a, b : Embeddings
        Two spaces of any dimensions (two models, corpora or training runs); their rows are paired
        by word, over every word of ``a`` that ``b`` has.
    measure : {"cka", "mutual_knn", "rsa"}
        Linear CKA (Kornblith et al. 2019), mutual k-NN alignment (Huh et al. 2024), or RSA
        (Spearman correlation of the two spaces' cosines on ``n_pairs`` sampled pairs).
    calibrate : bool
        Subtract the mean of a permutation null (one space's row correspondence shuffled
        ``n_permutations`` times) and give its p-value (Gröger, Wen & Brbić 2026).
    k : int
        Neighbours per word for "mutual_knn" (Huh et al. use 10).
    n_permutations : int
        Permutations of the null (calibration only).
    resolution : float
        The smallest p-value the test must be able to give: refused when 1 / (n_permutations + 1)
        is larger (100 permutations resolve 0.01; 0.001 needs 999).
    n_pairs : int
        Pairs of distinct words sampled for "rsa".
    random_state : int
        Seeds the permutations and the pairs.
    memory_budget, progress
        As everywhere: products run over row blocks under ``memory_budget``; ``progress`` shows the
        top-k passes of "mutual_knn".

    Returns
    -------
    SpaceSimilarityResult
        ``score``, ``p_value``, ``raw_score``, ``null_mean``, ``null_std``, ``n_words``, ...

    Raises
    ------
    ValueError
        An unknown measure; fewer than k + 1 shared words ("mutual_knn") or fewer than 4; a NaN or
        inf in a shared row (its word named); ``n_permutations`` too few for ``resolution``.
    TypeError
        ``a`` or ``b`` not Embeddings.

    Notes
    -----
    The shared rows of each space are gathered once (n × d_a and n × d_b), then: CKA sums d_a × d_a,
    d_b × d_b and d_a × d_b products over row blocks (a permutation re-sums only the d_a × d_b one,
    with B's rows of the block taken in permuted order); mutual k-NN runs one blocked self top-k per
    space and a permutation only renames B's lists; RSA recomputes B's cosines of the sampled pairs
    under each permutation. Rows are used as given (CKA centres the columns, as its definition does).

    Examples
    --------
    >>> import numpy as np, embgeo
    >>> rng = np.random.default_rng(0)
    >>> words = [f"w{i}" for i in range(500)]
    >>> A = rng.standard_normal((500, 20)).astype(np.float32)
    >>> a = embgeo.Embeddings(words, A)
    >>> b = embgeo.Embeddings(words, np.hstack([A, rng.standard_normal((500, 30))]) @ rng.standard_normal((50, 40)))
    >>> r = similarity(a, b, "cka")
    >>> r.score > 0.3, r.p_value < 0.05
    (True, True)
    """
    if measure not in SIMILARITY_MEASURES:
        raise ValueError(f"measure must be one of {', '.join(SIMILARITY_MEASURES)}, got {measure!r}")
    k = int(k)
    n_permutations = int(n_permutations) if calibrate else 0
    if calibrate:
        if n_permutations < 1:
            raise ValueError(f"calibration needs n_permutations ≥ 1, got {n_permutations}")
        floor = 1.0 / (n_permutations + 1)
        if floor > float(resolution):
            need = int(np.ceil(1.0 / float(resolution) - 1 - 1e-9))
            raise ValueError(f"n_permutations={n_permutations} cannot give a p-value below 1/(n_permutations + 1) = "
                             f"{floor:.4g}, above the requested resolution={resolution}: use n_permutations ≥ {need}")
    words, ia, ib = _shared(a, b)
    n = len(words)
    least = k + 1 if measure == "mutual_knn" else 4
    if n < least:
        raise ValueError(f"the two spaces share {n} word(s) (of {len(a)} and {len(b)}); {measure} needs at least "
                         f"{least}" + (f" (k + 1 for k={k})" if measure == "mutual_knn" else "")
                         + ": check that they are of one language and letter case")
    if measure == "mutual_knn" and k < 1:
        raise ValueError(f"k must be ≥ 1, got {k}")
    a.check_finite(ia)
    b.check_finite(ib)
    rng = np.random.default_rng(random_state)
    ftype = np.float64 if np.float64 in (_float(a), _float(b)) else np.float32
    A, B = _rows(a, ia, ftype), _rows(b, ib, ftype)
    item = np.dtype(ftype).itemsize
    pairs = None
    if measure == "cka":
        step = block_rows(A.shape[1] + B.shape[1], item, memory_budget, maximum=16384)
        naa, nbb = _cka_parts(A, B, step)

        def score(order):
            return _cka_cross(A, B, order, step, naa, nbb)
    elif measure == "mutual_knn":
        NA = xb.to_numpy(self_topk(A, k, metric="cosine", memory_budget=memory_budget, progress=progress)[1])
        NB = xb.to_numpy(self_topk(B, k, metric="cosine", memory_budget=memory_budget, progress=progress)[1])
        NA, NB = NA.astype(np.int64), NB.astype(np.int64)
        step = block_rows(k * k, 1, memory_budget, maximum=65536)

        def score(order):
            return _mutual_knn(NA, NB, order, step)
    else:
        pairs = int(n_pairs)
        if pairs < 3:
            raise ValueError(f"n_pairs must be ≥ 3, got {n_pairs}")
        i = rng.integers(n, size=pairs)
        j = rng.integers(n - 1, size=pairs)
        j += j >= i  # a distinct second word
        UA, UB = _unit(A), _unit(B)
        step = block_rows(2 * max(A.shape[1], B.shape[1]), item, memory_budget, maximum=65536)
        rank_a = stats.rankdata(_pair_cosines(UA, i, j, step))

        def score(order):
            sb = _pair_cosines(UB, i, j, step) if order is None else _pair_cosines(UB, order[i], order[j], step)
            return float(np.corrcoef(rank_a, stats.rankdata(sb))[0, 1])
    raw = score(None)
    if not calibrate:
        return SpaceSimilarityResult(measure=measure, score=raw, p_value=None, raw_score=raw, null_mean=None,
                                     null_std=None, n_words=n, k=k if measure == "mutual_knn" else None,
                                     n_pairs=pairs, n_permutations=0)
    null = np.array([score(rng.permutation(n)) for _ in range(n_permutations)])
    p_value = float((1 + np.sum(null >= raw)) / (1 + n_permutations))
    return SpaceSimilarityResult(
        measure=measure, score=float(raw - null.mean()), p_value=p_value,
        raw_score=raw, null_mean=float(null.mean()), null_std=float(null.std(ddof=1)) if n_permutations > 1 else 0.0,
        n_words=n, k=k if measure == "mutual_knn" else None, n_pairs=pairs, n_permutations=n_permutations, null=null)
