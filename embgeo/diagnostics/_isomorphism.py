"""How alike two embedding spaces are: the isomorphism measures of the BLI literature.

Four families, each computed on the same sample of paired rows (the covered pairs of a seed
dictionary, or the first ``n`` rows of two frequency-ordered vocabularies):

- eigenvector similarity of k-NN graph Laplacians (Søgaard, Ruder & Vulić 2018, "On the
  limitations of unsupervised bilingual dictionary induction", ACL, Section 4.3);
- relational similarity (Vulić, Ruder & Søgaard 2020, "Are all good word vector spaces
  isomorphic?", EMNLP, Section 3);
- the eigenvalue divergence and the (effective) condition numbers of the spectra (Dubossarsky,
  Vulić, Reichart & Korhonen 2020, "The secret is in the spectra", EMNLP, Section 3);
- a Gromov–Hausdorff proxy, the bottleneck distance between the persistence diagrams of the
  Rips filtrations (Patra et al. 2019, "Bilingual lexicon induction with semi-supervision in
  non-isometric embedding spaces", ACL, Section 5), where gudhi or persim is installed.

The details the papers leave open follow the authors' released scripts (cambridgeltl/iso-study:
``evs_script.py``, ``rsim_script.py``, ``gh_script.py``; joelmoniz/BLISS ``gh/gh.ipynb``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .. import backend as xb
from ..display import Display, pyplot
from ..blocking import block_rows, budget_bytes, row_blocks
from ..crosslingual import dictionary_indices
from ..embeddings import Embeddings
from ..linalg import gram, unit_rows
from ..neighbors import self_topk
from ..progress import progress_bar
from ._isotropy import effective_rank

__all__ = ["isomorphism", "IsomorphismResult", "ConditionNumbers", "ISOMORPHISM_MEASURES"]

#: The measures :func:`isomorphism` computes, by attribute name of :class:`IsomorphismResult`.
ISOMORPHISM_MEASURES = ("eigenvector_similarity", "relational_similarity", "eigenvalue_divergence",
                        "condition_numbers", "gromov_hausdorff")


@dataclass(frozen=True, repr=False)
class ConditionNumbers(Display):
    """Condition numbers of the two sample matrices (Dubossarsky et al. 2020, Section 3).

    κ(X) = σ₁/σ_r over the r = min(n, d) singular values; the effective condition number
    κ_eff(X) = σ₁/σ_er with the effective rank er(X) = ⌊exp H(σ/Σσ)⌋ (Roy & Vetterli 2007);
    the pair's score is the harmonic mean of the two (COND-HM, ECOND-HM). Lower is better.

    Parameters
    ----------
    source, target : float
        κ of the source and of the target sample.
    source_effective, target_effective : float
        κ_eff of each sample.
    source_effective_rank, target_effective_rank : int
        er of each sample.

    References
    ----------
    H. Dubossarsky, I. Vulić, R. Reichart, A. Korhonen (2020). The secret is in the spectra:
    predicting cross-lingual task performance with spectral similarity measures. EMNLP, Section 3.
    """

    source: float
    target: float
    source_effective: float
    target_effective: float
    source_effective_rank: int
    target_effective_rank: int

    @property
    def harmonic_mean(self) -> float:
        """COND-HM: 2 κ(X) κ(Z) / (κ(X) + κ(Z))."""
        return _harmonic(self.source, self.target)

    @property
    def effective_harmonic_mean(self) -> float:
        """ECOND-HM: the harmonic mean of the effective condition numbers."""
        return _harmonic(self.source_effective, self.target_effective)


def _harmonic(a: float, b: float) -> float:
    return 2.0 * a * b / (a + b) if (a + b) > 0 and math.isfinite(a + b) else float("inf")


@dataclass(frozen=True, repr=False)
class IsomorphismResult(Display):
    """The isomorphism measures of two spaces on one sample of paired rows (:func:`isomorphism`).

    A measure that could not be computed is ``None`` and its reason is in ``skipped``.

    Parameters
    ----------
    eigenvector_similarity : float or None
        Δ = Σ_{i≤k} (λ¹_i − λ²_i)² over the Laplacian eigenvalues of the two k-NN graphs
        (0 for isomorphic graphs; lower is more alike).
    relational_similarity : float or None
        Pearson's r between the pairwise cosines of the source words and those of their
        translations (1 for isometric spaces; higher is more alike). Needs a dictionary.
    eigenvalue_divergence : float or None
        Σ_i (log σ¹_i − log σ²_i)² over the singular values (0 for isospectral samples; lower is
        more alike). Needs spaces of one dimension.
    condition_numbers : ConditionNumbers or None
        κ and κ_eff of both samples (None where skipped).
    gromov_hausdorff : float or None
        Bottleneck distance between the 0-dimensional Rips persistence diagrams (0 for
        isometric samples; lower is more alike). Needs gudhi or persim.
    n : int
        Rows in the sample (pairs used).
    n_pairs : int or None
        Dictionary pairs given (None without a dictionary).
    coverage : float
        Fraction of the dictionary's pairs with both words in the vocabularies (1.0 without one).
    skipped : dict
        Measure name → why it was not computed.
    spectra : dict
        ``laplacian_source``, ``laplacian_target`` (ascending), ``singular_source``,
        ``singular_target`` (descending) and ``k`` (the eigenvalues Δ sums over), for ``plot``.

    See Also
    --------
    ConditionNumbers : the condition numbers' record.
    """

    _call = "isomorphism(…, n={n})"

    eigenvector_similarity: float | None
    relational_similarity: float | None
    eigenvalue_divergence: float | None
    condition_numbers: ConditionNumbers | None
    gromov_hausdorff: float | None
    n: int
    n_pairs: int | None = None
    coverage: float = 1.0
    skipped: dict = field(default_factory=dict)
    spectra: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        """One flat table row: every measure (None where skipped), COND-HM, ECOND-HM, n, coverage.

        Returns
        -------
        dict
            Keys ``eigenvector_similarity``, ``relational_similarity``, ``eigenvalue_divergence``,
            ``cond_hm``, ``econd_hm``, ``gromov_hausdorff``, ``n`` and ``coverage``.
        """
        c = self.condition_numbers
        return {"eigenvector_similarity": self.eigenvector_similarity,
                "relational_similarity": self.relational_similarity,
                "eigenvalue_divergence": self.eigenvalue_divergence,
                "cond_hm": None if c is None else c.harmonic_mean,
                "econd_hm": None if c is None else c.effective_harmonic_mean,
                "gromov_hausdorff": self.gromov_hausdorff, "n": self.n, "coverage": self.coverage}

    def plot(self, ax=None):
        """The two Laplacian spectra and the two singular-value spectra, side by side.

        Needs matplotlib (``pip install embgeo[plot]``).

        Parameters
        ----------
        ax : matplotlib.axes.Axes or array of two, optional
            Where to draw (the Laplacians on the first, the singular values on the second);
            None: a new figure of two panels.

        Returns
        -------
        ndarray of matplotlib.axes.Axes
            The axes drawn on.

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        plt = pyplot("IsomorphismResult.plot")
        if ax is None:
            _, ax = plt.subplots(1, 2, figsize=(10, 3.8))
        ax = np.atleast_1d(ax)
        s = self.spectra
        if "laplacian_source" in s:
            k = s["k"]
            ax[0].plot(s["laplacian_source"], label="source", lw=1)
            ax[0].plot(s["laplacian_target"], label="target", lw=1)
            ax[0].axvline(k - 0.5, color="grey", ls=":", label=f"k = {k}")
            ax[0].set_title(f"k-NN graph Laplacians: Δ = {self.eigenvector_similarity:.4g}")
        ax[0].set_xlabel("eigenvalue index (ascending)")
        ax[0].set_ylabel("eigenvalue")
        ax[0].legend()
        if len(ax) > 1 and "singular_source" in s:
            ax[1].semilogy(s["singular_source"], label="source", lw=1)
            ax[1].semilogy(s["singular_target"], label="target", lw=1)
            evd = self.eigenvalue_divergence
            ax[1].set_title("singular values" + ("" if evd is None else f": EVD = {evd:.4g}"))
            ax[1].set_xlabel("index")
            ax[1].legend()
        return ax


# ------------------------------------------------------------------------------------ sample
def _matrix(e, name):
    if isinstance(e, Embeddings):
        e.check_finite()
        return e.vectors
    return xb.check_matrix(e, name)


def _count(value, name: str, minimum: int, what: str) -> int:
    """``value`` as an int ≥ ``minimum``; a bool, a float or a smaller count is refused by name."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer ({what}), got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum} ({what}), got {value}")
    return int(value)


def _sample(src, tgt, dictionary, n):
    """Row indices of the paired sample, the dictionary size and its coverage."""
    if dictionary is None:
        ns, nt = _matrix(src, "src").shape[0], _matrix(tgt, "tgt").shape[0]
        m = min(int(n), ns, nt)
        rows = np.arange(m, dtype=np.int64)
        return rows, rows, None, 1.0
    pairs = dictionary if isinstance(dictionary, np.ndarray) else list(dictionary)
    n_pairs = len(pairs)
    if n_pairs == 0:
        raise ValueError("the dictionary is empty")
    try:
        si, ti = dictionary_indices(src, tgt, pairs)
    except ValueError as err:
        raise ValueError(f"isomorphism: no dictionary pair is covered (coverage 0 of {n_pairs} pairs): {err}") from None
    coverage = len(si) / n_pairs
    # one row per word on each side: a repeated word would be a duplicate graph node (the released
    # scripts key their graphs by word) and a zero distance in the Rips filtration
    seen_s, seen_t, keep = set(), set(), []
    for j, (a, b) in enumerate(zip(si.tolist(), ti.tolist())):
        if a not in seen_s and b not in seen_t:
            seen_s.add(a)
            seen_t.add(b)
            keep.append(j)
            if len(keep) == n:
                break
    keep = np.asarray(keep, dtype=np.int64)
    return si[keep], ti[keep], n_pairs, coverage


def _vocabulary_mean_of_unit_rows(V, memory_budget):
    """Mean of the unit-length rows of the whole vocabulary, blocked (no copy of ``V``)."""
    xp = xb.get_namespace(V)
    total = None
    rows = block_rows(V.shape[1], 8, memory_budget, maximum=65536)
    for s, e in row_blocks(V.shape[0], rows):
        part = xp.sum(unit_rows(xp.astype(V[s:e, ...], xp.float64)), axis=0)
        total = part if total is None else total + part
    return total / V.shape[0]


def _prepared(e, rows, normalize, memory_budget, name, center="vocabulary"):
    """The sample rows of ``e`` in float64, normalised as the released scripts do."""
    V = _matrix(e, name)
    xp = xb.get_namespace(V)
    X = xp.astype(xb.take_rows(V, xp.asarray(np.asarray(rows, dtype=np.int64), device=xb.device(V))), xp.float64)
    if normalize:
        # Vulić et al.'s scripts: unit length, minus the mean of the file they loaded, unit length again
        U = unit_rows(X)
        mean = _vocabulary_mean_of_unit_rows(V, memory_budget) if center == "vocabulary" else xp.mean(U, axis=0)
        X = unit_rows(U - mean)
    return X


# ---------------------------------------------------------------------------------- measures
def _select_k(spectrum, energy):
    """The smallest k whose first k eigenvalues (ascending) hold ``energy`` of the sum (iso-study's select_k)."""
    total = float(np.sum(spectrum))
    if total == 0.0:
        return len(spectrum)
    hit = np.flatnonzero(np.cumsum(spectrum) / total >= energy)
    return int(hit[0]) + 1 if hit.size else len(spectrum)


def knn_graph_laplacian_spectrum(X, n_neighbors=1, *, memory_budget=None):
    """Eigenvalues (ascending) of the Laplacian L = D − A of the undirected k-NN graph of the rows of ``X``.

    Edge i–j when j is among i's ``n_neighbors`` nearest other rows by cosine (or i among j's),
    unweighted, as networkx's ``Graph`` of iso-study's ``evs_script.py``. L is block diagonal over
    the graph's connected components, so each component is diagonalised alone; a component too
    large for ``memory_budget`` as a dense float64 matrix is refused.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = X.shape[0]
    _, nbrs = self_topk(X, n_neighbors, metric="cosine", memory_budget=memory_budget, progress=False)
    nbrs = xb.to_numpy(nbrs)
    rows = np.repeat(np.arange(n), nbrs.shape[1])
    A = coo_matrix((np.ones(rows.size), (rows, nbrs.ravel())), shape=(n, n)).tocsr()
    A = ((A + A.T) > 0).astype(np.float64)
    n_comp, labels = connected_components(A, directed=False)
    order = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[order], np.arange(n_comp + 1))
    largest = int(np.max(np.diff(bounds)))
    if largest * largest * 8 > budget_bytes(memory_budget):
        raise ValueError(f"the {n_neighbors}-NN graph has a connected component of {largest} words, whose dense "
                         f"Laplacian ({largest * largest * 8 / 2**20:.0f} MiB) exceeds memory_budget; use fewer "
                         "words (n=) or n_neighbors=1, or raise memory_budget")
    # one permutation groups each component's rows and columns; its block is then read straight
    # from the CSR arrays, and components of one size are diagonalised as one stacked batch
    P = A[order][:, order].tocsr()
    sizes = np.diff(bounds)
    eig = []
    for m in np.unique(sizes):
        starts = bounds[:-1][sizes == m]
        L = np.zeros((len(starts), m, m))
        for b, s0 in enumerate(starts):
            lo, hi = P.indptr[s0], P.indptr[s0 + m]
            r = np.repeat(np.arange(m), np.diff(P.indptr[s0:s0 + m + 1]))
            L[b, r, P.indices[lo:hi] - s0] = -1.0
        L[:, np.arange(m), np.arange(m)] = -L.sum(axis=2)
        eig.append(np.linalg.eigvalsh(L).ravel())
    return np.sort(np.concatenate(eig))


def _eigenvector_similarity(X, Z, n_neighbors, energy, memory_budget):
    l1 = knn_graph_laplacian_spectrum(X, n_neighbors, memory_budget=memory_budget)
    l2 = knn_graph_laplacian_spectrum(Z, n_neighbors, memory_budget=memory_budget)
    k = min(_select_k(l1, energy), _select_k(l2, energy))
    return float(np.sum((l1[:k] - l2[:k]) ** 2)), l1, l2, k


def _relational_similarity(X, Z, memory_budget):
    """Pearson's r over the distinct pairs i < j of cos_X(i, j) against cos_Z(i, j), blocked."""
    xp = xb.get_namespace(X)
    Xu, Zu = unit_rows(X), unit_rows(Z)
    n = X.shape[0]
    sums = np.zeros(5)  # Σx, Σy, Σx², Σy², Σxy
    rows = block_rows(2 * n, 8, memory_budget)
    cols = xp.arange(n)
    for s, e in row_blocks(n, rows):
        Sx = Xu[s:e, ...] @ xp.matrix_transpose(Xu)
        Sz = Zu[s:e, ...] @ xp.matrix_transpose(Zu)
        upper = xp.astype(cols[None, :] > xp.arange(s, e)[:, None], xp.float64)
        sx, sz = Sx * upper, Sz * upper
        sums += np.array([float(xp.sum(sx)), float(xp.sum(sz)), float(xp.sum(sx * Sx)),
                          float(xp.sum(sz * Sz)), float(xp.sum(sx * Sz))])
    m = n * (n - 1) / 2
    cov = sums[4] - sums[0] * sums[1] / m
    vx, vz = sums[2] - sums[0] ** 2 / m, sums[3] - sums[1] ** 2 / m
    return float(cov / math.sqrt(vx * vz)) if vx > 0 and vz > 0 else float("nan")


def _singular_values(X):
    """The min(n, d) singular values, descending: square roots of the eigenvalues of the blocked Gram XᵀX.

    A d × d eigenproblem instead of an SVD of the n × d sample (many times faster for n ≫ d); in
    float64 the relative error of σ_i is about ε κ², negligible for embedding spectra.
    """
    G = xb.to_numpy(gram(X))
    lam = np.linalg.eigvalsh((G + G.T) / 2)[::-1][:min(X.shape)]
    return np.sqrt(np.clip(lam, 0.0, None))


def _condition(s):
    """κ = σ₁/σ_r, κ_eff = σ₁/σ_er and er = ⌊exp H(σ/Σσ)⌋ (0 log 0 = 0; a zero σ_r gives κ = inf)."""
    er = max(1, int(math.floor(effective_rank(s) * (1 + 1e-12))))
    with np.errstate(divide="ignore"):
        return float(s[0] / s[-1]), float(s[0] / s[er - 1]), er


def _h0_deaths(X):
    """Death times of the 0-dimensional Rips persistence diagram: the edge lengths of a minimum spanning tree.

    Prim's algorithm over Euclidean distances, one row of distances at a time (O(n) memory).
    """
    X = np.ascontiguousarray(xb.to_numpy(X), dtype=np.float64)
    n = X.shape[0]
    sq = np.einsum("ij,ij->i", X, X)
    best = np.full(n, np.inf)
    done = np.zeros(n, dtype=bool)
    deaths = np.empty(n - 1)
    cur = 0
    done[0] = True
    for step in range(n - 1):
        d = np.sqrt(np.maximum(sq + sq[cur] - 2.0 * (X @ X[cur]), 0.0))
        np.minimum(best, d, out=best)
        best[done] = np.inf
        cur = int(np.argmin(best))
        deaths[step] = best[cur]
        done[cur] = True
    return np.sort(deaths)


def bottleneck_backend():
    """The installed package that computes bottleneck distances ("gudhi", "persim") or None."""
    for name in ("gudhi", "persim"):
        try:
            __import__(name)
            return name
        except ImportError:
            continue
    return None


def _bottleneck(d1, d2, package):
    D1 = np.column_stack([np.zeros_like(d1), d1])
    D2 = np.column_stack([np.zeros_like(d2), d2])
    if package == "gudhi":
        import gudhi

        return float(gudhi.bottleneck_distance(D1, D2, 0.0))
    import persim

    return float(persim.bottleneck(D1, D2))


# ---------------------------------------------------------------------------------- the entry
def isomorphism(src, tgt, dictionary=None, *, n: int = 5000, n_neighbors: int = 1, normalize: bool = True,
                center: str = "vocabulary", measures=None, energy: float = 0.9, memory_budget: int | None = None,
                progress: bool | None = None) -> IsomorphismResult:
    """How alike two embedding spaces are: EVS, RSIM, EVD, condition numbers and a GH proxy.

    Parameters
    ----------
    src, tgt : Embeddings or arrays (n_s, d_s), (n_t, d_t)
        The two spaces (any dimensions; the eigenvalue divergence needs d_s = d_t).
    dictionary : word pairs, an int array (m, 2) of row pairs, or None
        The covered pairs (both words in the vocabularies; pairs reusing a word already taken are
        left out, so each side has distinct rows) give the sample, in the given order, up to
        ``n``. ``None``: the first ``n`` rows of each space, i.e. frequency-aligned vocabularies
        (as the released EVS and GH scripts), where the relational similarity is not defined.
    n : int
        Rows in the sample (the scripts use 10,000 for EVS, 5,000 for GH, 1,000 pairs for RSIM).
    n_neighbors : int
        Neighbours per word in the graphs of the eigenvector similarity (1 in ``evs_script.py``).
    normalize : bool
        Scale rows to unit length, subtract the (unit-row) mean, scale to unit length again, as the
        released scripts do (default). False: the rows as given (``center`` is then unused).
    center : {"vocabulary", "sample"}
        Whose mean ``normalize`` subtracts: the whole vocabulary's (default: the released scripts
        centre every row of the file they load, then keep the sample, e.g. ``evs_script.py``'s
        10,000 most frequent words), or the sampled (paired) rows' own. Every measure moves with
        it, eigenvector similarity most: GloVe 6B 50d (200k words) against Finnish floret (30k) on
        the en-fi dictionary's 3,101 usable pairs gives EVS 12.49 and 5.67 (docs/isomorphism.md);
        a file that holds only the sample makes the two the same.
    measures : sequence of str, optional
        Names from :data:`ISOMORPHISM_MEASURES` (default: all that apply). A measure asked for by
        name that cannot run raises instead of being skipped.
    energy : float
        The share of the Laplacian eigenvalue sum that selects k (0.9 in the paper).
    memory_budget, progress
        As everywhere (:mod:`embgeo.blocking`, :mod:`embgeo.progress`).

    Returns
    -------
    IsomorphismResult

    Raises
    ------
    ValueError
        ``n`` < 3 or ``n_neighbors`` < 1; no covered dictionary pair (the message names the
        coverage), fewer than 3 rows, different
        dimensions for a measure asked for by name that needs equal ones, unknown measures.
    TypeError
        ``n`` or ``n_neighbors`` is not an integer.
    ImportError
        ``gromov_hausdorff`` asked for by name without gudhi or persim.

    Notes
    -----
    - Eigenvector similarity (Søgaard et al. 2018, §4.3): the Laplacians L = D − A of the k-NN
      graphs of the two samples, their eigenvalues λ; k = min over both graphs of the smallest k
      whose k eigenvalues hold 90 % of the sum, Δ = Σ_{i≤k} (λ¹_i − λ²_i)². The paper's text says
      "the k largest eigenvalues"; its formula and the authors' script (networkx's
      ``laplacian_spectrum``, ascending) take them from the smallest, which is followed here.
    - Relational similarity (Vulić et al. 2020, §3): Pearson's r of the cosines of all word pairs of
      the source sample against those of their translations (``rsim_script.py``; it takes each pair
      twice, which leaves r unchanged), computed in row blocks.
    - Eigenvalue divergence (Dubossarsky et al. 2020; "EVD" in their arXiv v1, the singular value gap
      SVG in the EMNLP version): Σ_i (log σ¹_i − log σ²_i)² over the singular values of the two
      sample matrices, descending.
    - Condition numbers (the same paper): see :class:`ConditionNumbers`.
    - Gromov–Hausdorff proxy (Patra et al. 2019, after Chazal et al. 2009): the bottleneck distance
      between the 0-dimensional persistence diagrams of the Rips filtrations of the two samples'
      Euclidean distances (of the normalised rows: √(2 − 2 cos), as the scripts). A 0-dimensional
      Rips diagram is born at 0 and dies at the edge lengths of a minimum spanning tree, which is
      how it is computed here (Prim, O(n) memory); gudhi or persim computes the bottleneck distance.
      The released scripts pass the distance matrix to ``gudhi.RipsComplex`` positionally, i.e. as
      *points* whose coordinates are distances; this implements the metric the paper describes.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 8))
    >>> Q, _ = np.linalg.qr(rng.standard_normal((8, 8)))
    >>> pairs = np.stack([np.arange(200), np.arange(200)], axis=1)
    >>> res = isomorphism(X, X @ Q, pairs, measures=["eigenvector_similarity", "relational_similarity"])
    >>> round(res.eigenvector_similarity, 6), round(res.relational_similarity, 6)
    (0.0, 1.0)
    """
    names = ISOMORPHISM_MEASURES if measures is None else tuple(measures)
    unknown = [m for m in names if m not in ISOMORPHISM_MEASURES]
    if unknown:
        raise ValueError(f"unknown measure(s) {unknown}; choose from {', '.join(ISOMORPHISM_MEASURES)}")
    explicit = measures is not None
    if not 0.0 < float(energy) <= 1.0:
        raise ValueError(f"energy must be in (0, 1], got {energy}")
    # n=0 once meant "every pair": a count below the minimum is an error, not "no limit"
    n = _count(n, "n", 3, "rows in the sample; the measures need at least 3")
    n_neighbors = _count(n_neighbors, "n_neighbors", 1, "neighbours per word")
    if center not in ("vocabulary", "sample"):
        raise ValueError(f"center must be 'vocabulary' (the whole vocabulary's mean) or 'sample' (the sampled "
                         f"rows' mean), got {center!r}")
    si, ti, n_pairs, coverage = _sample(src, tgt, dictionary, n)
    m = len(si)
    if m < 3:
        raise ValueError(f"isomorphism needs at least 3 paired rows, got {m}"
                         + ("" if n_pairs is None else f" (coverage {coverage:.1%} of {n_pairs} pairs)"))
    if not 1 <= n_neighbors < m:
        raise ValueError(f"n_neighbors must be in [1, {m - 1}] for a sample of {m} words, got {n_neighbors}")
    X = _prepared(src, si, normalize, memory_budget, "src", center)
    Z = _prepared(tgt, ti, normalize, memory_budget, "tgt", center)
    skipped: dict = {}

    def skip(name, reason, exc=ValueError):
        if explicit:
            raise exc(f"{name}: {reason}")
        skipped[name] = reason

    out: dict = {k: None for k in ISOMORPHISM_MEASURES}
    spectra: dict = {}
    bar = progress_bar(names, total=len(names), desc="isomorphism", progress=progress)
    for name in bar:
        if name == "eigenvector_similarity":
            out[name], l1, l2, k = _eigenvector_similarity(X, Z, n_neighbors, float(energy), memory_budget)
            spectra.update(laplacian_source=l1, laplacian_target=l2, k=k)
        elif name == "relational_similarity":
            if dictionary is None:
                skip(name, "needs a dictionary: the i-th frequent words of two languages are not translations")
                continue
            out[name] = _relational_similarity(X, Z, memory_budget)
        elif name in ("eigenvalue_divergence", "condition_numbers"):
            if "singular_source" not in spectra:
                spectra.update(singular_source=_singular_values(X), singular_target=_singular_values(Z))
            s1, s2 = spectra["singular_source"], spectra["singular_target"]
            if name == "condition_numbers":
                (k1, e1, r1), (k2, e2, r2) = _condition(s1), _condition(s2)
                out[name] = ConditionNumbers(k1, k2, e1, e2, r1, r2)
            elif X.shape[1] != Z.shape[1]:
                skip(name, f"needs spaces of one dimension, got source {X.shape[1]}d and target {Z.shape[1]}d "
                     "(map them into one space first, e.g. embgeo.crosslingual.Mapper)")
            else:
                with np.errstate(divide="ignore"):
                    out[name] = float(np.sum((np.log(s1) - np.log(s2)) ** 2))
        elif name == "gromov_hausdorff":
            package = bottleneck_backend()
            if package is None:
                skip(name, "needs gudhi or persim for the bottleneck distance (pip install gudhi)", ImportError)
                continue
            out[name] = _bottleneck(_h0_deaths(X), _h0_deaths(Z), package)
    return IsomorphismResult(n=m, n_pairs=n_pairs, coverage=coverage, skipped=skipped, spectra=spectra, **out)
