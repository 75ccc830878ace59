"""Word meta-embeddings: geometric (Riemannian) meta-embeddings and the classic baselines.

Jawanpuria, Dev, Kunchukuttan & Mishra (2020), "Learning Geometric Word Meta-Embeddings",
Proceedings of the 5th Workshop on Representation Learning for NLP (RepL4NLP), pp. 39-44,
doi:10.18653/v1/2020.repl4nlp-1.6, arXiv:2004.09219.

Two sources ``X`` (d₁ × n) and ``Z`` (d₂ × n) over a common vocabulary are brought into one
latent space by source-specific orthogonal maps ``U``, ``V`` and a shared symmetric
positive-definite (Mahalanobis) metric ``B``, learned from eq. 1 of the paper::

    min_{U, V, B ≻ 0}  ‖XᵀUᵀBVZ − Y‖²_F + C‖B‖²_F,      Y = I_n,

on the product manifold O × O × SPD with Riemannian conjugate gradients (pymanopt). The
meta-embeddings are then Geo-AVG ``(B^½Ux + B^½Vz)/2`` and Geo-CONC ``[B^½Ux; B^½Vz]``.

Conventions in this module
--------------------------
* The paper writes sources as d × n matrices with words in *columns*; embgeo stores n × d
  matrices with words in *rows*. Here ``E_i = X_iᵀ`` (n × d_i) is source i as stored, and a
  learned map ``M_i`` (``rotations_[i]``, shape d × d_i) acts on column vectors like the paper's
  ``U``: word vector ``x`` goes to ``M_i x``; a whole source goes to ``E_i M_iᵀ``.
* Writing ``A = M_iᵀ B M_j`` and the d×d Gram blocks ``C_ii = X_iX_iᵀ = E_iᵀE_i``,
  ``C_jj``, ``C_ij = X_iX_jᵀ = E_iᵀE_j``, the data term of eq. 1 is ::

      ‖X_iᵀ A X_j − I_n‖²_F = tr(Aᵀ C_ii A C_jj) − 2 tr(Aᵀ C_ij) + n

  (expand the square; ``tr(X_iᵀAX_j) = tr(A X_jX_iᵀ) = ⟨A, C_ij⟩``). The data enter only through
  the Gram blocks, which :func:`embgeo.linalg.gram` accumulates once, blockwise in float64
  (O(n·d²) time, O(d²) extra memory). After that every cost/gradient evaluation costs O(d³)
  whatever n is (``benchmarks/compare_meta.py`` shows the per-iteration time is flat in n).
* Euclidean gradient, with ``G = 2(C_ii A C_jj − C_ij)``:
  ``∂/∂M_i = B M_j Gᵀ``, ``∂/∂M_j = B M_i G``, ``∂/∂B = sym(M_i G M_jᵀ) + 2CB``; the Hessian
  (for trust regions) is its directional derivative; both are :class:`embgeo.latent_metric.LatentMetricObjective`,
  shared with GeoMM (:mod:`embgeo.crosslingual.geomm`).

embgeo's extensions beyond the paper
------------------------------------
* **Different dimensionalities.** The common space has ``dim`` dimensions (default: the largest
  source dimension). A source with d_i ≤ dim is mapped by ``M_i`` with orthonormal *columns*
  (a point of the Stiefel manifold St(dim, d_i)): an isometric embedding, the same as zero-padding
  the source to ``dim`` and rotating it, so nothing is lost. A source with d_i > dim is mapped by
  ``M_i`` with orthonormal *rows* (``M_iᵀ ∈ St(d_i, dim)``): a learned orthogonal projection.
  With equal dimensions ``M_i`` ranges over the whole orthogonal group O(d) = St(d, d),
  reflections included (pymanopt's ``SpecialOrthogonalGroup`` would exclude them, and a
  reflected source could then not be aligned).
* **More than two sources.** One map per source and one metric; the objective is eq. 1 summed
  over all source pairs i < j (plus one C‖B‖²_F); Geo-AVG/Geo-CONC average/concatenate all
  ``B^½ M_i x_i``. With two sources this is exactly eq. 1.

The released code (github.com/SatyadevNtv/geo-meta-emb, ``geomm.py`` and
``generate-meta-embs.py``) differs from the paper's text in two places, both followed here:

* **Regularisation weight.** ``geomm.py`` minimises ``½·l2_reg·‖B‖²_F + ‖XᵀWZ − A‖²_F``; the
  paper's eq. 1 writes ``C‖B‖²_F``. So ``C = l2_reg / 2``; the released default and sample
  script use ``l2_reg = 1e2``, i.e. ``C = 50``. ``C`` here is the paper's weight.
* **Unit-length mapped sources.** ``geomm.py`` writes each mapped source ``B^½ U x`` scaled to unit
  length (``length_normalize(xw)``), and ``generate-meta-embs.py`` averages or concatenates those
  files. :meth:`GeometricMetaEmbedding.transform` does the same by default
  (``normalize_mapped=True``); ``normalize_mapped=False`` gives the paper's formula literally.

Baselines: CONC and AVG (Coates & Bollegala 2018, "Frustratingly Easy Meta-Embedding", NAACL;
sources of different dimensionality are zero-padded before averaging) and the SVD of the
concatenation (Yin & Schütze 2016, "Learning Word Meta-Embeddings", ACL).
"""
from __future__ import annotations

import logging
from typing import Sequence

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions

from . import backend as xb
from .embeddings import Embeddings
from .errors import NotFittedError
from .latent_metric import INITS, SOLVERS, LatentMetricObjective, fit_latent_metric
from .linalg import gram, sym_power, unit_rows
from .progress import progress_bar
from .validation import collection_input_tags

__all__ = ["GeometricMetaEmbedding", "average", "concatenate", "concatenate_svd", "objective"]

logger = logging.getLogger(__name__)

_SOLVERS = SOLVERS
_KINDS = ("geo-avg", "geo-conc")
_INITS = INITS


# ---------------------------------------------------------------------------- input handling
def _aligned_sources(sources, name="sources"):
    """Return (list of n×d_i arrays, common words or None) from Embeddings or pre-aligned arrays.

    Embeddings are restricted to the words all of them share, in the first source's order.
    """
    if isinstance(sources, Embeddings) or not isinstance(sources, (list, tuple)):
        raise TypeError(f"{name} must be a list of Embeddings or of 2-D arrays, got {type(sources).__name__}")
    if len(sources) < 2:
        raise ValueError(f"a meta-embedding needs at least two sources, got {len(sources)}")
    is_emb = [isinstance(s, Embeddings) for s in sources]
    if any(is_emb) and not all(is_emb):
        raise TypeError(f"{name} mixes Embeddings and arrays: pass all Embeddings (aligned by word) "
                        "or all pre-aligned arrays")
    if all(is_emb):
        first = sources[0]
        for k, s in enumerate(sources[1:], start=1):
            try:
                first, _ = first.intersect(s)
            except ValueError:
                raise ValueError(f"{name} do not align: source 0 and source {k} share no word "
                                 f"({len(sources[0])} and {len(s)} words)") from None
        words = first.words
        for s in sources:
            s.check_finite()
        arrays = [s.subset(words).vectors for s in sources]
    else:
        words = None
        arrays = list(sources)
    out = []
    for k, X in enumerate(arrays):
        X = xb.check_matrix(X, f"{name}[{k}]")
        out.append(X)
    n = {int(X.shape[0]) for X in out}
    if len(n) > 1:
        rows = ", ".join(f"source {k}: {X.shape[0]}" for k, X in enumerate(out))
        raise ValueError(f"{name} are not aligned: pre-aligned arrays need the same number of rows "
                         f"(one per common word), got {rows}")
    return out, words


def _normalized(arrays, normalize):
    if normalize is None:
        return arrays
    from .normalize import normalize as _norm

    steps = (normalize,) if isinstance(normalize, str) else tuple(normalize)
    return [_norm(X, *steps) for X in arrays]


def _prepared(sources, normalize):
    """Aligned, normalised sources, their common words (or None) and their array namespace."""
    arrays, words = _aligned_sources(sources)
    arrays = _normalized(arrays, normalize)
    return arrays, words, xb.get_namespace(*arrays)


def _wrap(result, words):
    """Embeddings over the common vocabulary when the input had words, else the bare array."""
    return result if words is None else Embeddings(words, result, check_finite=False)


def _pair_grams(arrays, progress=None):
    """All Gram blocks ``G[i][j] = E_iᵀE_j`` (i ≤ j, mirrored), float64 NumPy, blockwise over rows."""
    k = len(arrays)
    pairs = [(i, j) for i in range(k) for j in range(i, k)]
    G = [[None] * k for _ in range(k)]
    for i, j in progress_bar(pairs, total=len(pairs), desc="meta: Gram blocks", progress=progress):
        G[i][j] = xb.to_numpy(gram(arrays[i], arrays[j])).astype(np.float64, copy=False)
        if i != j:
            G[j][i] = G[i][j].T
    return G


# ------------------------------------------------------------------------------- objective
# The objective on Gram blocks and its pymanopt problem are GeoMM's (embgeo.latent_metric), with
# Y = I_n: the constant is n.


def objective(sources, rotations, B, C: float = 0.0, *, progress=None) -> float:
    """Value of eq. 1 of Jawanpuria et al. (2020), summed over source pairs, via Gram matrices.

    ``Σ_{i<j} ‖X_iᵀ M_iᵀ B M_j X_j − I_n‖²_F + C‖B‖²_F`` with ``X_i = E_iᵀ`` (words in columns),
    computed as ``Σ tr(Aᵀ C_ii A C_jj) − 2⟨A, C_ij⟩ + n`` from blocked float64 Grams: the n × n
    matrix is never formed.

    Parameters
    ----------
    sources : list of Embeddings or of (n, d_i) arrays
        Used as given (no normalisation); Embeddings are intersected first.
    rotations : list of arrays, shapes (dim, d_i)
        The maps ``M_i`` (e.g. ``GeometricMetaEmbedding.rotations_``).
    B : array, shape (dim, dim)
        The symmetric positive-definite metric of the latent space (``B_`` of a fitted
        :class:`GeometricMetaEmbedding`).
    C : float
        Regularisation weight.
    progress : bool, optional
        Progress bar over the Gram blocks; None: automatic.

    Returns
    -------
    float
        The value of the objective.

    Raises
    ------
    TypeError
        ``sources`` is not a list, or mixes Embeddings and arrays.
    ValueError
        Fewer than two sources, sources that do not align, NaN/inf in a source (named), a number
        of rotations that differs from the sources, or a rotation of the wrong shape.

    See Also
    --------
    GeometricMetaEmbedding : minimises it.

    References
    ----------
    Jawanpuria, Dev, Kunchukuttan & Mishra (2020), "Learning Geometric Word Meta-Embeddings",
    RepL4NLP, pp. 39-44, eq. 1. doi:10.18653/v1/2020.repl4nlp-1.6
    """
    arrays, _ = _aligned_sources(sources)
    if len(rotations) != len(arrays):
        raise ValueError(f"{len(arrays)} sources but {len(rotations)} rotations")
    M = [np.asarray(xb.to_numpy(m), dtype=np.float64) for m in rotations]
    B = np.asarray(xb.to_numpy(B), dtype=np.float64)
    for k, (m, X) in enumerate(zip(M, arrays)):
        if m.ndim != 2 or m.shape != (B.shape[0], X.shape[1]):
            raise ValueError(f"rotations[{k}] must have shape ({B.shape[0]}, {X.shape[1]}), got {m.shape}")
    return LatentMetricObjective(_pair_grams(arrays, progress), arrays[0].shape[0], C).cost(M, B)


# ------------------------------------------------------------------------------- estimator
class GeometricMetaEmbedding(TransformerMixin, BaseEstimator):
    """Geometric meta-embeddings (Jawanpuria, Dev, Kunchukuttan & Mishra 2020).

    Learns one orthogonal map per source and a shared SPD metric ``B`` by minimising eq. 1
    (``‖XᵀUᵀBVZ − I‖²_F + C‖B‖²_F``, summed over source pairs when there are more than two) with
    pymanopt on the product manifold St × … × St × SPD, using the analytic cost and Euclidean
    gradient (and Hessian for trust regions). The data enter through d×d Gram blocks computed
    once in O(n·d²); each iteration is then O(d³), independent of the vocabulary size n.

    A scikit-learn estimator (``clone``, ``get_params``/``set_params``, ``check_is_fitted``); it
    keeps no copy of the training sources: ``transform(sources)`` maps the sources it is given.

    Parameters
    ----------
    C : float, default 1.0
        Weight of ``‖B‖²_F`` in eq. 1 (the paper's C; the released ``geomm.py`` writes
        ``0.5·l2_reg·‖B‖²``, so its ``--l2_reg 1e2`` is ``C=50``). ``C=0`` is allowed (B still
        stays positive definite on the manifold).
    kind : {"geo-avg", "geo-conc"}, default "geo-avg"
        What :meth:`transform` returns when it is not given ``kind``: Geo-AVG or Geo-CONC.
    solver : {"cg", "trust-regions"}, default "cg"
        pymanopt's ``ConjugateGradient`` (as in the paper) or ``TrustRegions`` (then with the
        analytic Euclidean Hessian: pymanopt 2.2 has no finite-difference fallback for the NumPy
        backend).
    max_iter : int, default 300
    dim : int, optional
        Dimension of the common space; default: the largest source dimension. See the module
        notes for how sources of other dimensionalities are handled (Stiefel factors).
    normalize : str or sequence of str or None, default "unit"
        Normalisation steps (:mod:`embgeo.normalize`) applied to every source before fitting
        and transforming; ``"unit"`` scales each word vector to unit length, so no source
        dominates by its norm. ``None`` uses the vectors as given.
    normalize_mapped : bool, default True
        Scale every mapped word vector ``B^½ M_i x`` to unit length before averaging or
        concatenating, as the released code does (``geomm.py`` writes length-normalised mapped
        sources, which ``generate-meta-embs.py`` then averages). ``False``: the paper's formula
        ``(B^½Ux + B^½Vz)/2`` as written, where a source whose mapped vectors are longer
        dominates the average.
    init : {"procrustes", "random"}, default "procrustes"
        Initial maps. ``"random"``: random orthonormal maps drawn from ``random_state``.
        ``"procrustes"``: source 0 gets a random map, every other source the orthogonal
        Procrustes solution of its cross-Gram with source 0. Riemannian iterations stay in the
        connected component of O(d) they start in (det = ±1), so a random start can end in a
        local minimum with one axis reflected; the Procrustes start lets the data choose.
        The metric starts at ``s·I`` with the best scalar s for the initial maps.
    tol : float, default 1e-6
        pymanopt's ``min_gradient_norm`` (Riemannian gradient norm at which to stop).
    random_state : int or numpy Generator, default 0
        Seeds the random orthonormal initial maps; the same seed gives the same fit.
    progress : bool, optional
        Progress bar with the current cost (None follows :func:`embgeo.set_progress`); at DEBUG
        level the ``embgeo.meta`` logger reports the cost per iteration too.

    Attributes
    ----------
    rotations_ : list of ndarray, shapes (dim_, d_i)
        ``M_i``: orthonormal columns (d_i ≤ dim_) or rows (d_i > dim_); word vector ``x`` of
        source i maps to ``M_i x``, the stored rows ``E_i`` to ``E_i @ M_i.T``.
    B_ : ndarray, shape (dim_, dim_)
        The learned Mahalanobis metric ``B`` of eq. 1 (symmetric positive definite; the paper's
        name and symbol).
    cost_history_ : list of float
        Value of eq. 1 at each iterate (one per iteration for CG; one per accepted step, plus
        the start, for trust regions). ``cost_`` is the last entry.
    vocabulary_ : list of str or None
        The common vocabulary of the training sources (None when fitted on arrays).
    source_dims_ : list of int
        The dimension of each training source.
    n_features_in_ : int
        Σ d_i, the features of all training sources together (the width of their
        concatenation): scikit-learn's count of the input features seen by ``fit``.
    dim_, n_iter_, stopping_criterion_ : int, int, str

    See Also
    --------
    average : the AVG baseline.
    concatenate : the CONC baseline.
    concatenate_svd : the SVD baseline.
    objective : the value of eq. 1 for given maps and metric.

    References
    ----------
    Jawanpuria, Dev, Kunchukuttan & Mishra (2020), "Learning Geometric Word Meta-Embeddings",
    RepL4NLP, pp. 39-44, eq. 1 and Section 2.2. doi:10.18653/v1/2020.repl4nlp-1.6

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import ortho_group
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 8))
    >>> R = ortho_group.rvs(8, random_state=1)
    >>> gme = GeometricMetaEmbedding(C=0.0, normalize=None, progress=False).fit([X, X @ R.T])
    >>> U, V = gme.rotations_
    >>> bool(np.allclose(V @ R, U, atol=1e-3))       # the second source is rotated onto the first
    True
    >>> gme.transform([X, X @ R.T], kind="geo-conc").shape
    (500, 16)
    """

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, np.inf, closed="left")],
        "kind": [StrOptions(set(_KINDS))],
        "solver": [StrOptions(set(_SOLVERS))],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "dim": [Interval(Integral, 1, None, closed="left"), None],
        "normalize": [str, tuple, list, None],
        "normalize_mapped": ["boolean"],
        "init": [StrOptions(set(_INITS))],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": [Interval(Integral, 0, None, closed="left"), np.random.Generator, None],
        "progress": ["boolean", None],
    }

    def __init__(self, C: float = 1.0, *, kind: str = "geo-avg", solver: str = "cg", max_iter: int = 300,
                 dim: int | None = None, normalize="unit", normalize_mapped: bool = True,
                 init: str = "procrustes", tol: float = 1e-6, random_state=0, progress=None):
        self.C = C
        self.kind = kind
        self.solver = solver
        self.max_iter = max_iter
        self.dim = dim
        self.normalize = normalize
        self.normalize_mapped = normalize_mapped
        self.init = init
        self.tol = tol
        self.random_state = random_state
        self.progress = progress

    # ------------------------------------------------------------------ fitting
    def __sklearn_tags__(self):
        """What a GeometricMetaEmbedding is, for scikit-learn: an unsupervised transformer whose
        input is a *list* of aligned sources (arrays or Embeddings), not one 2-D array ``X``.

        So ``input_tags.two_d_array`` is False, and scikit-learn's checks that fit on one array
        cannot apply; ``tests/test_sklearn_conformance.py`` runs the API checks that do.
        """
        return collection_input_tags(super().__sklearn_tags__())

    def fit(self, sources: Sequence, y=None):
        """Learn the maps and the metric from two or more sources.

        Parameters
        ----------
        sources : list of Embeddings, or list of (n, d_i) arrays
            Embeddings are intersected (common vocabulary, in the first source's order);
            arrays must already be aligned row by row.
        y : None
            Ignored (scikit-learn API).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Fewer than two sources, no common word or only one, pre-aligned arrays with different numbers of
            rows, NaN/inf in a source (named), bad hyper-parameters.
        """
        self._validate_params()
        arrays, words = _aligned_sources(sources)
        if arrays[0].shape[0] < 2:
            shared = f"share only the word {words[0]!r}" if words is not None else "have one row"
            raise ValueError(f"the sources {shared}: fitting the maps and the metric needs at least 2 "
                             "aligned vectors (one pair constrains no rotation)")
        arrays = _normalized(arrays, self.normalize)
        G = _pair_grams(arrays, self.progress)
        dims = [int(X.shape[1]) for X in arrays]
        d = int(self.dim) if self.dim is not None else max(dims)
        self._fit_grams(G, int(arrays[0].shape[0]), dims, d)
        self.vocabulary_ = None if words is None else list(words)
        self.source_dims_ = dims
        self.n_features_in_ = int(sum(dims))
        return self

    def _fit_grams(self, G, n, dims, d):
        fit = fit_latent_metric(LatentMetricObjective(G, n, self.C), dims, d, solver=self.solver,
                                max_iter=self.max_iter, tol=self.tol, init=self.init,
                                random_state=self.random_state, progress=self.progress, desc="meta", log=logger)
        self.rotations_ = fit.maps
        self.B_ = fit.B
        self.cost_history_ = fit.cost_history
        self.cost_ = fit.cost
        self.n_iter_ = fit.n_iter
        self.stopping_criterion_ = fit.stopping_criterion
        self.dim_ = d
        logger.info("geometric meta-embedding: cost %.10g after %d iterations (%s)", self.cost_,
                    self.n_iter_, self.stopping_criterion_)
        return self

    # ---------------------------------------------------------------- transform
    def transform(self, sources: Sequence, kind: str | None = None):
        """Geo-AVG or Geo-CONC meta-embeddings of ``sources`` (Jawanpuria et al. 2020, Section 2.2).

        Each source is normalised as in :meth:`fit` and mapped to ``B^½ M_i x`` (rows:
        ``E_i M_iᵀ B^½``), scaled to unit length when ``normalize_mapped`` (the released code's
        computation); Geo-AVG averages the mapped sources, Geo-CONC concatenates them.

        Parameters
        ----------
        sources : list of Embeddings, or list of (n, d_i) arrays
            The sources to map: as many as in ``fit``, with the same dimensions (Embeddings are
            intersected; they need not be the training words).
        kind : {"geo-avg", "geo-conc"}, optional
            Default: the estimator's ``kind``.

        Returns
        -------
        Embeddings over the common vocabulary (dim ``dim_`` for Geo-AVG, ``k·dim_`` for
        Geo-CONC), or an (n, ·) array when the sources were arrays.
        """
        from sklearn.exceptions import NotFittedError as SkNotFittedError
        from sklearn.utils.validation import check_is_fitted

        if isinstance(sources, str):
            raise TypeError(f"transform takes the sources first: transform(sources, kind={sources!r}); "
                            "the estimator keeps no copy of its training sources")
        try:
            check_is_fitted(self, "B_")
        except SkNotFittedError:
            raise NotFittedError("this GeometricMetaEmbedding is not fitted yet: call fit(sources) first") from None
        kind = self.kind if kind is None else kind
        if kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}, got {kind!r}")
        arrays, words = _aligned_sources(sources)
        if len(arrays) != len(self.rotations_):
            raise ValueError(f"fitted on {len(self.rotations_)} sources, got {len(arrays)}")
        for k, (X, M) in enumerate(zip(arrays, self.rotations_)):
            if X.shape[1] != M.shape[1]:
                raise ValueError(f"sources[{k}] has dimension {X.shape[1]}, fitted on {M.shape[1]}")
        arrays = _normalized(arrays, self.normalize)
        with xb.single_blas_thread():
            Bh = sym_power(self.B_, 0.5)
        xp = xb.get_namespace(*arrays)
        mapped = []
        for X, M in zip(arrays, self.rotations_):
            T = xp.asarray(np.ascontiguousarray(M.T @ Bh), dtype=X.dtype)
            Y = X @ T
            if self.normalize_mapped:
                Y = unit_rows(Y)  # geomm.py's length_normalize: zero rows stay zero
            mapped.append(Y)
        if kind == "geo-avg":
            out = mapped[0]
            for Y in mapped[1:]:
                out = out + Y
            out = out / len(mapped)
        else:
            out = xp.concat(mapped, axis=1)
        return _wrap(out, words)

    def fit_transform(self, sources: Sequence, y=None, kind: str | None = None):
        """``fit(sources).transform(sources, kind)``.

        Parameters
        ----------
        sources : list of Embeddings, or list of (n, d_i) arrays
            As in :meth:`fit`.
        y : None
            Ignored (scikit-learn API).
        kind : {"geo-avg", "geo-conc"}, optional
            Default: the estimator's ``kind``.

        Returns
        -------
        Embeddings or array
            As :meth:`transform`.

        Raises
        ------
        ValueError
            As :meth:`fit` and :meth:`transform`.
        """
        return self.fit(sources).transform(sources, kind)

    def __sklearn_is_fitted__(self):
        return hasattr(self, "B_")


# ------------------------------------------------------------------------------- baselines
def concatenate(sources: Sequence, normalize="unit"):
    """CONC: the concatenation ``[x_1; …; x_k]`` of (normalised) sources.

    Coates & Bollegala (2018) / Yin & Schütze (2016). Each source is normalised first
    (default ``"unit"``: every word vector scaled to length one), so each contributes equally
    to cosine similarities.

    Parameters
    ----------
    sources : list of Embeddings, or list of (n, d_i) arrays
        Two or more sources; Embeddings are intersected (common vocabulary, in the first source's
        order), arrays must be aligned row by row.
    normalize : str or sequence of str or None, default "unit"
        Normalisation steps (:mod:`embgeo.normalize`) applied to every source first; None: as given.

    Returns
    -------
    Embeddings or array
        Embeddings over the common vocabulary (dim Σd_i), or an array for array input.

    Raises
    ------
    TypeError
        ``sources`` is not a list, or mixes Embeddings and arrays.
    ValueError
        Fewer than two sources, sources that do not align, NaN/inf in a source (named), or an
        unknown normalisation step.

    See Also
    --------
    average : AVG.
    concatenate_svd : CONC reduced by SVD.
    """
    arrays, words, xp = _prepared(sources, normalize)
    return _wrap(xp.concat(arrays, axis=1), words)


def average(sources: Sequence, normalize="unit"):
    """AVG: the mean ``(x_1 + … + x_k)/k`` of (normalised) sources.

    Coates & Bollegala (2018), "Frustratingly Easy Meta-Embedding": sources of smaller
    dimension are zero-padded (trailing zeros) to the largest dimension before averaging.
    Each source is normalised first (default ``"unit"``).

    Parameters
    ----------
    sources : list of Embeddings, or list of (n, d_i) arrays
        Two or more sources; Embeddings are intersected (common vocabulary, in the first source's
        order), arrays must be aligned row by row.
    normalize : str or sequence of str or None, default "unit"
        Normalisation steps (:mod:`embgeo.normalize`) applied to every source first; None: as given.

    Returns
    -------
    Embeddings or array
        Embeddings over the common vocabulary (dim max d_i), or an array for array input.

    Raises
    ------
    TypeError
        ``sources`` is not a list, or mixes Embeddings and arrays.
    ValueError
        Fewer than two sources, sources that do not align, NaN/inf in a source (named), or an
        unknown normalisation step.

    See Also
    --------
    concatenate : CONC.
    GeometricMetaEmbedding : Geo-AVG, the average in a learned latent space.
    """
    arrays, words, xp = _prepared(sources, normalize)
    D = max(int(X.shape[1]) for X in arrays)
    padded = [X if X.shape[1] == D else
              xp.concat([X, xp.zeros((X.shape[0], D - X.shape[1]), dtype=X.dtype)], axis=1) for X in arrays]
    out = padded[0]
    for X in padded[1:]:
        out = out + X
    return _wrap(out / len(arrays), words)


def concatenate_svd(sources: Sequence, dim: int | None = None, normalize="unit", *, progress=None):
    """SVD: the concatenation projected on its top ``dim`` right singular vectors.

    Yin & Schütze (2016), "Learning Word Meta-Embeddings": ``CONC = U S Vᵀ`` and the
    meta-embedding is ``CONC V_dim = U_dim S_dim`` (no centring). ``V`` comes from the
    eigendecomposition of ``CONCᵀCONC``, assembled from the blocked float64 Gram blocks of the
    sources, so the n × Σd_i concatenation is never formed. Each singular vector's sign is fixed
    so that its largest-magnitude entry is positive.

    Parameters
    ----------
    sources : list of Embeddings, or list of (n, d_i) arrays
        Two or more sources; Embeddings are intersected (common vocabulary, in the first source's
        order), arrays must be aligned row by row.
    dim : int, optional
        Output dimension (default: the largest source dimension), at most Σd_i.
    normalize : str or sequence of str or None, default "unit"
        Normalisation steps (:mod:`embgeo.normalize`) applied to every source first; None: as given.
    progress : bool, optional
        Progress bar over the Gram blocks; None: automatic.

    Returns
    -------
    Embeddings or array
        Embeddings over the common vocabulary (dim ``dim``), or an array for array input.

    Raises
    ------
    TypeError
        ``sources`` is not a list, or mixes Embeddings and arrays.
    ValueError
        ``dim`` outside [1, Σd_i], fewer than two sources, sources that do not align, NaN/inf in a
        source (named), or an unknown normalisation step.

    See Also
    --------
    concatenate : CONC itself.
    """
    arrays, words, _ = _prepared(sources, normalize)
    dims = [int(X.shape[1]) for X in arrays]
    D = sum(dims)
    dim = max(dims) if dim is None else int(dim)
    if not 1 <= dim <= D:
        raise ValueError(f"dim must be between 1 and the concatenated dimension {D}, got {dim}")
    G = np.block(_pair_grams(arrays, progress))
    with xb.single_blas_thread():
        w, V = np.linalg.eigh(G)
    V = V[:, ::-1][:, :dim]
    sign = np.sign(V[np.argmax(np.abs(V), axis=0), np.arange(dim)])
    V = V * np.where(sign == 0, 1.0, sign)
    out, start = None, 0
    for X, di in zip(arrays, dims):
        P = xb.get_namespace(X).asarray(np.ascontiguousarray(V[start:start + di]), dtype=X.dtype)
        out = X @ P if out is None else out + X @ P
        start += di
    return _wrap(out, words)
