"""Isotropy of a space: IsoScore, IsoScore*, partition-function isotropy, mean cosine, variance share,
effective rank.

* Mu & Viswanath (2018), "All-but-the-Top: simple and effective postprocessing for word
  representations", ICLR: the isotropy measure I({v(w)}) = min_{‖c‖=1} Z(c) / max_{‖c‖=1} Z(c)
  of Arora et al.'s (2016) partition function Z(c) = Σ_w exp(cᵀv(w)), with c ranging over the
  eigenvectors of VᵀV, as the paper evaluates it (1 for an isotropic space). An eigenvector's
  sign is arbitrary and Z(c) ≠ Z(−c), so both signs of each are taken (2d unit directions);
  ``partition_isotropy_one_sign`` is the common reading with one sign per eigenvector (NumPy's).
* The mean cosine over the n(n − 1) ordered pairs of distinct words, exactly, from the sum of the
  unit vectors s = Σ_w ŵ: Σ_{i≠j} cos(w_i, w_j) = ‖s‖² − Σ_i ‖ŵ_i‖² (never an n × n matrix).
* The share of the variance of the top-D principal components (Mu & Viswanath's D ≈ d/100).
* The effective rank of Roy & Vetterli (2007), "The effective rank: a measure of effective
  dimensionality", EUSIPCO, Def. 1: exp(−Σ p_i ln p_i), p_i = σ_i / Σ_j σ_j over the singular
  values σ of the matrix.

* Rudman, Gillman, Rayne & Eickhoff (2022), "IsoScore: Measuring the Uniformity of Embedding
  Space Utilization", Findings of ACL, doi:10.18653/v1/2022.findings-acl.262, Algorithm 1: the
  variances σ of the principal components (the eigenvalues of the sample covariance), scaled to
  ‖σ̂‖ = √d; the isotropy defect δ = ‖σ̂ − 1‖ / √(2(d − √d)); IsoScore = ((d − δ²(d − √d))² − d) /
  (d(d − 1)), in [0, 1] (1: every direction used equally). Rudman & Eickhoff (2024), "Stable
  Anisotropic Regularization", ICLR, eq. 5: IsoScore* is the same on the shrunk covariance
  (1 − ζ) C + ζ C₀. Both equal the ``isoscore`` package 2.0.1 (``IsoScore``, ``IsoScore_star``;
  a golden file of it, benchmarks/reference/isoscore_golden.py, is in the tests).

All of them come from two passes over the rows in blocks under ``memory_budget``: the d × d Gram
matrix (:func:`embgeo.linalg.gram`; on a Dask cluster :func:`embgeo.distributed.gram`), then one
pass for the row sums and the partition functions Z(c) of the d eigenvectors.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .. import backend as xb
from .. import blocking, linalg
from ..display import Display, pyplot
from ..embeddings import Embeddings
from ..neighbors import Dask, as_engine
from ..evaluate.report import Report
from ..progress import progress_bar

__all__ = ["IsotropyResult", "IsotropyTable", "isotropy", "isotropy_table", "isotropy_bands", "isotropy_clusters",
           "isoscore", "isoscore_of_covariance",
           "TRANSFORMS"]

MEASURES = ("isoscore", "isoscore_star", "partition_isotropy", "mean_cosine", "variance_share", "effective_rank")


@dataclass(frozen=True, repr=False)
class IsotropyResult(Display):
    """The isotropy measures of one space (:func:`isotropy`).

    Parameters
    ----------
    isoscore : float
        IsoScore of Rudman et al. (2022, Algorithm 1), in [0, 1]: how uniformly the centred rows
        spread their variance over the d dimensions (1: all equally; ≈ 1/d·… → 0: one direction).
    isoscore_star : float
        IsoScore* (Rudman & Eickhoff 2024): IsoScore of the shrunk covariance (1 − ζ) C + ζ C₀
        (``zeta``, ``C0`` of :func:`isotropy`); equals ``isoscore`` at ζ = 0.
    zeta : float
        The shrinkage of ``isoscore_star``.
    partition_isotropy : float
        I(W) = min_c Z(c) / max_c Z(c) over the eigenvectors c of WᵀW **and their negatives** (2d
        directions), in (0, 1]. An eigenvector's sign is arbitrary and Z(c) ≠ Z(−c), so this reading
        takes both; it does not depend on the sign the eigensolver returns. The common reading of Mu &
        Viswanath (2018) takes one sign per eigenvector: that is :attr:`partition_isotropy_one_sign`,
        never smaller (GloVe 6B 50d: 0.1037 here, 0.3716 with one sign).
    mean_cosine : float
        The mean cosine of distinct pairs of rows (zero rows count as cosine 0).
    variance_share : float
        The share of the centred variance along the top ``D`` principal directions.
    effective_rank : float
        exp of the entropy of the normalised singular values of W, in [1, d].
    D : int
        The number of top principal directions of ``variance_share``.
    explained_variance_ratio : ndarray (d,)
        Centred variance of each principal direction over the total, descending.
    singular_values : ndarray (d,)
        Of W itself (not centred), descending.
    log_partition : ndarray (2d,)
        ln Z(c) of each eigenvector c of WᵀW (in the order of ``singular_values``, with NumPy's signs),
        then of each −c.
    n : int
        The number of rows.
    dim : int
        The dimension d.
    partition_isotropy_one_sign : float
        I(W) over the d eigenvectors c of WᵀW, each with the sign NumPy's ``eigh`` (LAPACK) gives it:
        min_c Z(c) / max_c Z(c) over ``log_partition[:d]``. Another eigensolver may return other signs,
        and so another value; compare numbers of this reading only when the signs are the same.

    See Also
    --------
    isotropy_table : the measures of several transforms of a space, side by side.
    """

    _call = "isotropy(…, D={D}, zeta={zeta})"

    isoscore: float
    isoscore_star: float
    zeta: float
    partition_isotropy: float
    mean_cosine: float
    variance_share: float
    effective_rank: float
    D: int
    explained_variance_ratio: np.ndarray
    singular_values: np.ndarray
    log_partition: np.ndarray
    n: int
    dim: int
    partition_isotropy_one_sign: float

    def as_row(self) -> dict:
        """The six measures as a dict (a row of :func:`isotropy_table`).

        Returns
        -------
        dict
            ``isoscore``, ``isoscore_star``, ``partition_isotropy``, ``mean_cosine``,
            ``variance_share`` and ``effective_rank``.
        """
        return {m: getattr(self, m) for m in MEASURES}

    def plot(self, ax=None):
        """The spectrum: centred explained-variance ratio and normalised singular values per direction.

        Log scale, with four of the measures in the title. Needs matplotlib
        (``pip install embgeo[plot]``).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; None: a new figure.

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        plt = pyplot("IsotropyResult.plot")
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        i = np.arange(1, self.dim + 1)
        s = self.singular_values
        ax.semilogy(i, self.explained_variance_ratio, marker="o", ms=3, label="explained variance ratio (centred)")
        ax.semilogy(i, s / s.sum(), marker="s", ms=3, label="σ / Σσ (effective rank's p)")
        ax.axvline(self.D + 0.5, color="0.6", ls=":", lw=1)
        ax.set_xlabel("direction")
        ax.legend(fontsize="small")
        ax.set_title(f"I(W)={self.partition_isotropy:.3g}, mean cos={self.mean_cosine:.3g}, "
                     f"top-{self.D} share={self.variance_share:.3g}, erank={self.effective_rank:.3g}",
                     fontsize="small")
        return ax


def _matrix(model, name="model"):
    """The rows of an Embeddings, a FuzzyEmbeddings (its memberships) or a 2-D array."""
    if isinstance(model, Embeddings):
        model.check_finite()
        return model.vectors
    if hasattr(model, "memberships"):  # FuzzyEmbeddings
        return model.memberships
    if hasattr(model, "embed") and hasattr(model, "fisher"):  # AlphaEmbeddings
        raise TypeError("an AlphaEmbeddings has one space per α: measure ae.embed(alpha) "
                        "(isotropy_table's 'alpha' transform does so)")
    X = model if xb.is_dask(model) else xb.asarray(model)
    if X.ndim != 2:
        raise ValueError(f"{name} must be an Embeddings, FuzzyEmbeddings or a 2-D array (n, d), got ndim={X.ndim}")
    return X


def row_statistics(X, C, memory_budget=None):
    """One pass over the rows of ``X`` (blocked): the float64 sums the measures need.

    Returns ``(n, Σw, Σŵ, n_nonzero, m, z)`` where, for every column c of ``C`` (d × m),
    ``ln Z(c) = m + ln z`` (``m`` the running maximum of cᵀw, so no exponential overflows).
    The same function runs on a whole local matrix and on each shard of a Dask cluster;
    :func:`_merge` adds two of its results.
    """
    xp = xb.get_namespace(X)
    d = X.shape[1]
    C = xb.asarray(C, like=X, dtype=xp.float64)
    nc = C.shape[1]
    # what a block holds at once: its float64 rows (d numbers a row) and, on the m directions,
    # its projections P, P − m and exp(P − m) (3m): all of it fits memory_budget
    step = blocking.block_rows(d + 3 * nc, 8, memory_budget, maximum=blocking.PASS_ROWS)
    dev = xb.device(X)
    total = xp.zeros(d, dtype=xp.float64, device=dev)
    unit = xp.zeros(d, dtype=xp.float64, device=dev)
    nz = 0
    m = xp.full(nc, -xp.inf, dtype=xp.float64, device=dev)
    z = xp.zeros(nc, dtype=xp.float64, device=dev)
    for s in range(0, X.shape[0], step):
        B = xp.astype(X[s:min(s + step, X.shape[0]), ...], xp.float64)
        total = total + xp.sum(B, axis=0)
        norms = xp.sqrt(xp.sum(B * B, axis=1))
        ok = norms > 0
        nz += int(xp.sum(xp.astype(ok, xp.int64)))
        inv = xp.where(ok, 1.0 / xp.where(ok, norms, xp.ones_like(norms)), xp.zeros_like(norms))
        unit = unit + xp.sum(B * xp.reshape(inv, (-1, 1)), axis=0)
        P = B @ C
        m_new = xp.maximum(m, xp.max(P, axis=0))
        z = z * xp.exp(m - m_new) + xp.sum(xp.exp(P - xp.reshape(m_new, (1, -1))), axis=0)
        m = m_new
    return (int(X.shape[0]), xb.to_numpy(total), xb.to_numpy(unit), nz, xb.to_numpy(m), xb.to_numpy(z))


def _merge(a, b):
    m = np.maximum(a[4], b[4])
    z = a[5] * np.exp(a[4] - m) + b[5] * np.exp(b[4] - m)
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], m, z)


def effective_rank(singular_values) -> float:
    """Roy & Vetterli's (2007) effective rank exp H(p), p = σ / Σσ (0 log 0 = 0)."""
    s = np.asarray(singular_values, dtype=np.float64)
    p = s[s > 0] / s.sum()
    return float(np.exp(-(p * np.log(p)).sum()))


def isoscore_of_covariance(cov) -> float:
    """IsoScore of a covariance matrix: Rudman et al. (2022), Algorithm 1, steps 3–7.

    Parameters
    ----------
    cov : array (d, d)
        A covariance matrix (a point cloud's, or a known distribution's); d ≥ 2.

    Returns
    -------
    float
        In [0, 1]: 1 when the covariance is a multiple of the identity, 0 when one direction holds
        all the variance. The ``isoscore`` package's ``IsoScore_cov``.

    Examples
    --------
    >>> import numpy as np
    >>> round(isoscore_of_covariance(np.eye(5)), 12), round(isoscore_of_covariance(np.diag([1.0, 0, 0, 0, 0])), 12)
    (1.0, 0.0)
    """
    cov = np.asarray(cov, dtype=np.float64)
    if cov.ndim != 2 or cov.shape[0] != cov.shape[1] or cov.shape[0] < 2:
        raise ValueError(f"cov must be a square matrix of at least 2 × 2, got shape {cov.shape}")
    if not np.all(np.isfinite(cov)):
        raise ValueError("cov has a non-finite entry")
    # the package takes singular values (svdvals): the eigenvalues of a covariance, whatever C₀ is
    pcs = np.linalg.svd(cov, compute_uv=False)
    d = cov.shape[0]
    norm = np.linalg.norm(pcs)
    if norm == 0:
        raise ValueError("cov is zero: the points do not vary, IsoScore is undefined")
    defect = np.linalg.norm(pcs * np.sqrt(d) / norm - 1.0) / np.sqrt(2 * (d - np.sqrt(d)))
    score = ((d - defect ** 2 * (d - np.sqrt(d))) ** 2 - d) / (d * (d - 1.0))
    # rounding can step a hair outside [0, 1] at its ends
    return float(np.clip(score, 0.0, 1.0))


def covariance(X, memory_budget: int | None = None):
    """The mean and the sample covariance (n − 1) of the rows of ``X``, in two blocked passes.

    The second pass multiplies centred blocks in the rows' own floating type (float32 rows: float32
    products of at most 16384 rows, summed in float64), so that a 400k × 50 space takes one GEMM's
    time; centring first keeps a large mean from cancelling digits. Returns float64 NumPy arrays.
    """
    xp = xb.get_namespace(X)
    n, d = X.shape
    ftype = X.dtype if X.dtype in (xp.float32, xp.float64) else xp.float64
    step = blocking.block_rows(d, 8, memory_budget, maximum=16384)
    total = np.zeros(d)
    for s in range(0, n, step):
        total += xb.to_numpy(xp.sum(xp.astype(X[s:s + step, ...], xp.float64), axis=0))
    mu = total / n
    mu_x = xb.asarray(mu, like=X, dtype=ftype)
    cov = np.zeros((d, d))
    for s in range(0, n, step):
        B = xp.astype(X[s:s + step, ...], ftype) - mu_x
        cov += xb.to_numpy(xp.astype(B.T @ B, xp.float64))
    return mu, cov / (n - 1.0)


def isoscore(model, *, zeta: float = 0.2, C0=None, memory_budget: int | None = None) -> tuple[float, float]:
    """IsoScore and IsoScore* of a space alone: one blocked covariance pass, nothing else.

    What :func:`isotropy` reports as ``isoscore`` and ``isoscore_star``, without its other
    measures' passes (a 400k × 50 space in about a second).

    Parameters
    ----------
    model : Embeddings, FuzzyEmbeddings or array (n, d)
    zeta, C0, memory_budget
        As in :func:`isotropy`.

    Returns
    -------
    (isoscore, isoscore_star) : tuple of float

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((5000, 20))
    >>> [round(v, 2) for v in isoscore(X * np.r_[5.0, np.ones(19)])]   # one axis 25 × the variance
    [0.1, 0.13]
    """
    X = _matrix(model)
    n, d = X.shape
    zeta, C0 = _shrinkage(zeta, C0, n, d)
    if not isinstance(model, Embeddings):
        xb.check_matrix(X, "model")
    _, cov = covariance(X, memory_budget)
    return isoscore_of_covariance(cov), isoscore_of_covariance((1 - zeta) * cov + zeta * C0)


def _shrinkage(zeta, C0, n, d):
    if n < 2:
        raise ValueError(f"isotropy needs at least 2 rows (pairs of words), got {n}")
    if d < 2:
        raise ValueError(f"IsoScore needs at least 2 dimensions, got {d}")
    zeta = float(zeta)
    if not 0.0 <= zeta <= 1.0:
        raise ValueError(f"zeta (IsoScore*'s shrinkage) must be in [0, 1], got {zeta}")
    C0 = np.eye(d) if C0 is None else np.asarray(C0, dtype=np.float64)
    if C0.shape != (d, d) or not np.all(np.isfinite(C0)):
        raise ValueError(f"C0 must be a finite {d} × {d} matrix (the dimension of the rows), got shape {C0.shape}")
    return zeta, C0


def isotropy(model, D: int | None = None, *, zeta: float = 0.2, C0=None, memory_budget: int | None = None,
             backend="exact") -> IsotropyResult:
    """IsoScore, IsoScore*, partition-function isotropy, mean cosine, top-D variance share and effective rank.

    Parameters
    ----------
    model : Embeddings, FuzzyEmbeddings (its memberships) or array (n, d)
        Measured as given: nothing is centred or normalised first, except where a measure says
        so (the variance share is of the centred rows; the mean cosine scales every row).
    D : int, optional
        Principal directions in ``variance_share`` (default max(1, round(d / 100)), Mu &
        Viswanath's rule of thumb for the directions all-but-the-top removes).
    zeta : float
        IsoScore*'s shrinkage ζ in [0, 1]: the covariance is (1 − ζ) C + ζ C₀ (default 0.2, the
        authors' I-STAR setting; 0 gives IsoScore).
    C0 : array (d, d), optional
        IsoScore*'s shrinkage target (default the identity, as the ``isoscore`` package advises
        when no larger sample's covariance is at hand).
    memory_budget : int, optional
        Bytes of the float64 row blocks (default 256 MiB); no n × n matrix is ever formed.
        Peak memory: the inputs, d × d matrices, ``memory_budget`` and a fixed overhead under
        256 KiB; nothing of size n.
    backend : {"exact", "dask"} or Exact or Dask, default "exact"
        Where the Gram matrix and the row pass run, named as the engines of
        :func:`embgeo.neighbors.topk`: "exact" here; "dask" on the workers of the current Dask
        client, ``Dask(client)`` on that client (the rows sharded as
        :func:`embgeo.distributed.shard` does; only d-sized results come back). No search runs,
        so the engines' search options (``query_block``, ``n_jobs``, ...) have no effect.

    Returns
    -------
    IsotropyResult

    Raises
    ------
    ValueError
        Fewer than 2 rows, D outside 1 … d, NaN/inf in the rows, zeta outside [0, 1], C0 not
        d × d, an unknown ``backend``.
    TypeError
        ``backend`` is neither an engine name nor an engine object.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((2000, 10))
    >>> r = isotropy(X)
    >>> r.partition_isotropy > 0.8, abs(r.mean_cosine) < 0.01, r.effective_rank > 9, r.isoscore > 0.95
    (True, True, True, True)
    >>> isotropy(X * np.r_[10.0, np.ones(9)]).isoscore < 0.3      # one direction dominates
    True
    """
    X = _matrix(model)
    n, d = X.shape
    if n < 2:
        raise ValueError(f"isotropy needs at least 2 rows (pairs of words), got {n}")
    D = max(1, int(round(d / 100))) if D is None else D
    if isinstance(D, bool) or not isinstance(D, (int, np.integer)) or not 1 <= D <= d:
        raise ValueError(f"D must be an integer in 1 … {d} (the dimension), got {D!r}")
    zeta, C0 = _shrinkage(zeta, C0, n, d)
    engine = as_engine(backend, ("exact", "dask"))
    dask = isinstance(engine, Dask)
    if dask:
        from .. import distributed

        sd = distributed.shard(X, engine.client)
        c = sd.client
        G = distributed.gram(sd, client=c)
    else:
        G = xb.to_numpy(linalg.gram(X, memory_budget=memory_budget))
    if not np.all(np.isfinite(G)):
        xb.check_matrix(X, "model")  # names the bad row
        raise ValueError("model is too large: its Gram matrix overflows float64")
    w, Q = linalg.eigh_desc(np.asarray(G, dtype=np.float64))
    # an eigenvector's sign is arbitrary and Z(c) ≠ Z(−c): both are unit directions, so both count
    C = np.concatenate([Q, -Q], axis=1)
    if dask:
        parts = [c.submit(row_statistics, f, C, memory_budget, workers=[wk], pure=False)
                 for f, wk in zip(sd.shards, sd.workers)]
        stats = c.gather(parts)
        acc = stats[0]
        for part in stats[1:]:
            acc = _merge(acc, part)
    else:
        acc = row_statistics(X, C, memory_budget)
    _, total, unit, nz, m, z = acc
    log_z = m + np.log(z)
    mu = total / n
    centred = G - n * np.outer(mu, mu)
    scatter = np.linalg.eigvalsh(centred)[::-1].clip(min=0)
    # the sample covariance with n − 1, as torch.cov in the isoscore package (IsoScore* is not scale-free)
    cov = centred / (n - 1.0)
    ratio = scatter / scatter.sum() if scatter.sum() > 0 else np.full(d, np.nan)
    sv = np.sqrt(np.clip(w, 0, None))
    return IsotropyResult(
        isoscore=isoscore_of_covariance(cov), isoscore_star=isoscore_of_covariance((1 - zeta) * cov + zeta * C0),
        zeta=zeta, partition_isotropy=float(np.exp(log_z.min() - log_z.max())),
        mean_cosine=float((unit @ unit - nz) / (n * (n - 1.0))),
        variance_share=float(ratio[:D].sum()),
        effective_rank=effective_rank(sv),
        D=int(D), explained_variance_ratio=ratio, singular_values=sv, log_partition=log_z, n=int(n), dim=int(d),
        partition_isotropy_one_sign=float(np.exp(log_z[:d].min() - log_z[:d].max())))


# ------------------------------------------------------------------------- the table
def _abtt(e, D=None):
    from ..postprocess import all_but_the_top

    return all_but_the_top(e, D=max(1, round(e.dim / 100)) if D is None else D)


def _similarity_order(e, alpha=-0.5):
    from ..postprocess import similarity_order

    return similarity_order(e, alpha)


def _ppa_pca_ppa(e, dim=None, D=7):
    from ..postprocess import ppa_pca_ppa

    dim = e.dim // 2 if dim is None else dim
    return ppa_pca_ppa(e, dim, min(D, dim - 1) if dim > 1 else 1)


def _alpha(e, alpha=-1.0, model=None, geometry="fisher", p0=None):
    from ..alpha import AlphaEmbeddings

    if model is None:
        if getattr(e, "output_vectors", None) is None:
            raise ValueError("the 'alpha' transform needs output vectors (a skip-gram model's, e.g. "
                             "Embeddings.from_gensim(w2v)) or an AlphaEmbeddings: ('alpha', {'model': ae})")
        model = AlphaEmbeddings(e, p0=p0 or ("u" if e.counts is not None else "0"))
    return model.embed(alpha, geometry=geometry)


def _fuzzy(e, **kwargs):
    from ..fuzzy import FuzzyEmbeddings

    return FuzzyEmbeddings.from_embeddings(e, **kwargs)


#: The post-processings :func:`isotropy_table` knows by name: name -> callable(e, **options)
#: returning what :func:`isotropy` measures. Defaults: all-but-the-top with D = d/100 (Mu &
#: Viswanath 2018), the similarity order with α = −0.5 (Artetxe et al. 2018), PPA-PCA-PPA to d/2
#: dimensions with D = 7 (Raunak et al. 2019), the natural alpha embedding at α = −1 with the
#: Fisher geometry (Volpi & Malagò 2020; needs output vectors), the fuzzy memberships of Bhat et
#: al. (2020, Sec. 4.1).
TRANSFORMS: dict[str, Callable[..., Any]] = {"all_but_the_top": _abtt, "similarity_order": _similarity_order, "ppa_pca_ppa": _ppa_pca_ppa,
              "alpha": _alpha, "fuzzy": _fuzzy}


class IsotropyTable(Report):
    """The results of :func:`isotropy_table`, :func:`isotropy_bands` and :func:`isotropy_clusters`.

    An :class:`embgeo.evaluate.Report`: one row per space (a transform, a frequency band, a
    cluster), one column per measure, with ``.plot()`` and the full :class:`IsotropyResult` of each
    row in ``results`` (and, from :func:`isotropy_clusters`, each word's cluster in ``labels``).

    Parameters
    ----------
    rows : iterable of dict, optional
        One dict per space: its name first, then the measures.
    title : str, optional
        Printed above the table.
    results : dict, optional
        The :class:`IsotropyResult` of each row, by the row's name.
    labels : array of int, optional
        Each word's cluster (:func:`isotropy_clusters`).
    """

    def __init__(self, rows=(), title=None, results=None, labels=None):
        super().__init__(rows, title=title, formats={m: "{:.4g}" for m in MEASURES})
        self.results = dict(results or {})
        self.labels = labels

    def plot(self, axes=None):
        """One bar panel per measure, a bar per row (transform, band or cluster).

        Parameters
        ----------
        axes : array of matplotlib.axes.Axes, optional
            One per measure; None: a new figure with one row of panels.

        Returns
        -------
        array of matplotlib.axes.Axes
            The axes drawn on.

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        plt = pyplot("IsotropyTable.plot")
        if axes is None:
            _, axes = plt.subplots(1, len(MEASURES), figsize=(3 * len(MEASURES), 3.2))
        # the first column names the row: a transform, a frequency band or a cluster
        names = [str(next(iter(r.values()))) for r in self.to_records()]
        for ax, m in zip(np.ravel(axes), MEASURES):
            vals = [np.nan if r[m] is None else r[m] for r in self.to_records()]
            ax.bar(range(len(vals)), vals, color=[f"C{i}" for i in range(len(vals))])
            ax.set_xticks(range(len(vals)), names, rotation=45, ha="right", fontsize="small")
            ax.set_title(m, fontsize="medium")
        np.ravel(axes)[0].figure.tight_layout()
        return axes


def isotropy_table(model, transforms=None, *, D: int | None = None, zeta: float = 0.2,
                   memory_budget: int | None = None, backend="exact",
                   progress: bool | None = None) -> IsotropyTable:
    """The isotropy measures of ``model`` before and after each post-processing, in one table.

    Parameters
    ----------
    model : Embeddings
    transforms : list, optional
        Each entry is a name of :data:`TRANSFORMS`, a ``(name, options)`` pair (e.g.
        ``("similarity_order", {"alpha": 0.5})``, ``("alpha", {"model": ae, "alpha": 0.0})`` for
        an :class:`~embgeo.alpha.AlphaEmbeddings` built elsewhere), or a ``(label, callable)``
        pair whose callable maps ``model`` to an Embeddings, FuzzyEmbeddings or array. Default:
        all of :data:`TRANSFORMS`, "alpha" only when ``model`` has output vectors.
    D, zeta, memory_budget, backend
        As in :func:`isotropy` (one D for every row, from the original dimension; C₀ the identity).
    progress : bool, optional
        A progress bar over the rows (one transform and its measures a step; the full table of a
        400k-word GloVe takes minutes). ``None`` follows :func:`embgeo.set_progress`.

    Returns
    -------
    IsotropyTable
        First row "original", then one per transform, in order.
    """
    if not isinstance(model, Embeddings):
        raise TypeError(f"isotropy_table expects an embgeo.Embeddings, got {type(model).__name__}")
    if transforms is None:
        transforms = [t for t in TRANSFORMS if t != "alpha" or model.output_vectors is not None]
    D = max(1, int(round(model.dim / 100))) if D is None else D
    opts = dict(zeta=zeta, memory_budget=memory_budget, backend=backend)
    with progress_bar(total=len(transforms) + 1, desc="isotropy table", progress=progress, unit="row") as bar:
        results = {"original": isotropy(model, D, **opts)}
        bar.update()
        for t in transforms:
            label, fn, kw = _transform(t)
            bar.set_postfix(transform=label)
            space = fn(model, **kw)
            results[label] = isotropy(space, min(D, _matrix(space).shape[1]), **opts)
            bar.update()
    rows = [{"transform": label, **r.as_row()} for label, r in results.items()]
    return IsotropyTable(rows, title=f"isotropy ({model.dim}d, {len(model)} words)", results=results)


def _frequency_order(model):
    if model.counts is None:
        return np.arange(len(model))  # embgeo keeps a file's row order: GloVe, word2vec, fastText are by frequency
    return np.argsort(-model.counts, kind="stable")


def isotropy_bands(model, edges=None, *, D: int | None = None, zeta: float = 0.2,
                   memory_budget: int | None = None) -> IsotropyTable:
    """The isotropy measures of each frequency band of ``model``'s words, one row per band.

    Frequent and rare words occupy different regions of a space (the mean direction and the top
    principal directions encode frequency: Mu & Viswanath 2018, Sec. 2), so a space can be
    anisotropic as a whole and much less so within a band, or the reverse.

    Parameters
    ----------
    model : Embeddings
        Its words in frequency order: by ``counts`` when present, else by row order (as embgeo
        reads GloVe, word2vec and fastText files).
    edges : sequence of int, optional
        Band boundaries in frequency ranks, increasing, from 0 (the most frequent word); the last
        band ends at the vocabulary size. Default 0, 1000, 10000, 100000, … below the vocabulary size.
    D, zeta, memory_budget
        As in :func:`isotropy`.

    Returns
    -------
    IsotropyTable
        Rows ``{"band": "1–1000", "words": 1000, <measures>}``, most frequent band first.

    Examples
    --------
    >>> import numpy as np, embgeo
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((3000, 8)) * np.r_[np.ones(1000), 0.1 * np.ones(2000)][:, None]
    >>> X[1000:, 0] *= 30                                # the rare words stretch along one axis
    >>> t = isotropy_bands(embgeo.Embeddings([f"w{i}" for i in range(3000)], X), [0, 1000])
    >>> [r["band"] for r in t], t[0]["isoscore"] > 0.9, t[1]["isoscore"] < 0.2
    (['1–1000', '1001–3000'], True, True)
    """
    if not isinstance(model, Embeddings):
        raise TypeError(f"isotropy_bands expects an embgeo.Embeddings, got {type(model).__name__}")
    n = len(model)
    if edges is None:
        edges = [0] + [10 ** p for p in range(3, 12) if 10 ** p < n]
    edges = [int(x) for x in edges]
    if not edges or edges[0] != 0 or any(b <= a for a, b in zip(edges, edges[1:])) or edges[-1] >= n:
        raise ValueError(f"edges must increase from 0 and stay below the vocabulary size {n}, got {edges}")
    bounds = list(zip(edges, edges[1:] + [n]))
    short = [(a, b) for a, b in bounds if b - a < 2]
    if short:
        raise ValueError(f"every band needs at least 2 words; ranks {short[0][0]}–{short[0][1]} hold {short[0][1] - short[0][0]}")
    model.check_finite()
    order = _frequency_order(model)
    results = {}
    for a, b in bounds:
        rows = xb.take_rows(model.vectors, order[a:b])
        results[f"{a + 1}–{b}"] = isotropy(rows, D, zeta=zeta, memory_budget=memory_budget)
    rows = [{"band": label, "words": r.n, **r.as_row()} for label, r in results.items()]
    return IsotropyTable(rows, title=f"isotropy by frequency band ({model.dim}d, {n} words)", results=results)


def isotropy_clusters(model, n_clusters: int = 8, *, random_state: int = 0, D: int | None = None,
                      zeta: float = 0.2, memory_budget: int | None = None) -> IsotropyTable:
    """The isotropy measures within each k-means cluster of ``model``'s rows (cluster-local isotropy).

    A space made of a few tight, well separated clusters is anisotropic as a whole and may be
    isotropic within each (the cluster-level view of Cai, Huang, Bian & Church 2021, "Isotropy in
    the contextual embedding space: clusters and manifolds", ICLR). The clusters are scikit-learn's
    ``KMeans`` (k-means++, ``n_init=3``, seeded) on the rows as given; every measure of a cluster is
    :func:`isotropy` of its rows (IsoScore and the variance share centre them).

    Parameters
    ----------
    model : Embeddings or array (n, d)
    n_clusters : int
    random_state : int
        Seeds k-means.
    D, zeta, memory_budget
        As in :func:`isotropy`.

    Returns
    -------
    IsotropyTable
        Rows ``{"cluster": i, "words": size, <measures>}`` by cluster number, then a row
        ``"mean"`` with the size-weighted mean of each measure; ``labels`` holds each row's cluster.

    Raises
    ------
    ValueError
        n_clusters outside 1 … n/2 or a cluster of fewer than 2 rows (its number named).
    """
    from sklearn.cluster import KMeans

    X = _matrix(model)
    n = X.shape[0]
    if isinstance(n_clusters, bool) or not 1 <= int(n_clusters) <= n // 2:
        raise ValueError(f"n_clusters must be in 1 … {n // 2} (half the {n} rows), got {n_clusters}")
    X = xb.to_numpy(X)
    labels = KMeans(n_clusters=int(n_clusters), n_init=3, random_state=random_state).fit_predict(X)
    sizes = np.bincount(labels, minlength=int(n_clusters))
    if sizes.min() < 2:
        raise ValueError(f"k-means left cluster {int(np.argmin(sizes))} with {sizes.min()} row(s); "
                         "isotropy needs 2: ask for fewer clusters")
    results = {c: isotropy(X[labels == c], D, zeta=zeta, memory_budget=memory_budget) for c in range(int(n_clusters))}
    rows = [{"cluster": c, "words": r.n, **r.as_row()} for c, r in results.items()]
    w = sizes / n
    rows.append({"cluster": "mean", "words": n, **{m: float(np.dot(w, [r[m] for r in rows])) for m in MEASURES}})
    return IsotropyTable(rows, title=f"isotropy within {n_clusters} k-means clusters ({X.shape[1]}d, {n} rows)",
                         results=results, labels=labels)


def _transform(t):
    if isinstance(t, str):
        name, spec = t, {}
    elif isinstance(t, tuple) and len(t) == 2:
        name, spec = t
    else:
        raise TypeError(f"a transform is a name, (name, options) or (label, callable), got {t!r}")
    if callable(spec):
        return str(name), spec, {}
    if name not in TRANSFORMS:
        raise ValueError(f"unknown transform {name!r}; known: {', '.join(TRANSFORMS)} (or pass (label, callable))")
    return name, TRANSFORMS[name], dict(spec)
