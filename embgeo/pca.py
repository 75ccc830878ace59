"""Principal-component analysis of an embedding space (Raunak, Kumar, Gupta & Metze, RepL4NLP 2020).

Raunak et al. (2020), "On dimensional linguistic properties of the word embedding space", ask which
principal components carry which linguistic information. This module gives their protocol as
small functions over one fitted :class:`VarianceProfile`:

:func:`variance_profile`
    explained variance, its ratio and cumulative ratio per component (identical to scikit-learn's
    ``PCA`` on the same data, computed from a blocked float64 covariance in O(n·d²), O(d²) memory);
:func:`principal_space`
    the vectors projected onto chosen components (a slice, a count, or an index list);
:func:`cumulative_curve`
    the paper's Figures 1/2: add components ``step`` at a time and evaluate each prefix;
:func:`split_analysis`
    top/middle/bottom (T/M/B) component splits, their variance shares (Table 3) and scores
    (Tables 1/4);
:func:`probe_components`
    per-component probing: each component's 1-D projection fed to a scikit-learn classifier with
    cross-validation, on labelled words the user supplies.

Evaluations are any callable ``evaluate(model) -> float | dict[str, float]``; by default
:func:`embgeo.evaluate.word_similarity` on named datasets. Results come back as a :class:`Table`:
embgeo's results table (:class:`embgeo.evaluate.Report`: prints aligned, ``to_markdown()``,
``to_records()``, ``to_json()``) with ``column()``, ``to_pandas()`` and ``plot()`` added.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import backend as xb
from .display import Display, View, pyplot
from .embeddings import Embeddings
from .embeddings import unwrap as _unwrap
from .evaluate.report import Report
from .linalg import apply_matrix as _apply
from .linalg import centred_scatter as _centred_scatter
from .linalg import checked_gram as _statistics
from .linalg import eigh_desc as _eigh_desc
from .progress import progress_bar

__all__ = [
    "VarianceProfile",
    "Table",
    "variance_profile",
    "principal_space",
    "cumulative_curve",
    "split_analysis",
    "probe_components",
    "DEFAULT_SIMILARITY_DATASETS",
]

#: Word-similarity sets used when no ``evaluate`` callable is given (names for embgeo.data).
#: Not :data:`embgeo.evaluate.DEFAULT_DATASETS` (which adds the analogy test): hence its own name.
DEFAULT_SIMILARITY_DATASETS = ("wordsim353", "simlex999")


# --------------------------------------------------------------------------- results
class Table(Report):
    """Rows of results: :class:`embgeo.evaluate.Report` (embgeo's one results-table type) plus
    what the PCA protocol needs to draw its figures.

    Printing, ``to_markdown()``, ``to_records()`` and ``to_json()`` are Report's;
    ``table.column("name")`` gives one column as a list, ``to_pandas()`` a DataFrame, and
    ``plot()`` (matplotlib) draws the numeric columns against the ``x`` column. ``meta`` holds
    extra numbers (e.g. a probe's majority-class ``baseline``).

    Parameters
    ----------
    rows : iterable of dict, optional
        One dict (column -> value) per row.
    title : str, optional
        Printed above the table and on its plot.
    x : str, optional
        The column :meth:`plot` draws the others against (default: the first column).
    meta : dict, optional
        Extra numbers and plotting hints (``"secondary"``, ``"no_plot"``, ``"ylabel"``).

    See Also
    --------
    embgeo.evaluate.Report : printing and export.
    """

    def __init__(self, rows=(), *, title: str | None = None, x: str | None = None,
                 meta: dict | None = None):
        super().__init__(rows, title=title)
        self.x = x
        self.meta = dict(meta or {})
        # four significant digits for fractional columns (variance ratios, scores), as the
        # protocol's tables are read; Report's default is four decimals
        self.formats.update({c: "{:.4g}" for c in self.columns
                             if any(isinstance(v, (float, np.floating)) for v in self.column(c))})

    def column(self, name: str) -> list:
        """One column's values, in row order.

        Parameters
        ----------
        name : str
            The column.

        Returns
        -------
        list
            One value per row (None where a row lacks the column).
        """
        return [r.get(name) for r in self.to_records()]

    def to_pandas(self):
        """The rows as a pandas DataFrame, columns in this table's order.

        Returns
        -------
        pandas.DataFrame
            One row per row of the table.

        Raises
        ------
        ImportError
            pandas is not installed.
        """
        import pandas as pd

        return pd.DataFrame(self.to_records(), columns=self.columns)

    def plot(self, ax=None, *, y: Sequence[str] | None = None, secondary: str | None = None):
        """Plot numeric columns against ``self.x`` (matplotlib).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; None: a new 6 × 4 inch figure.
        y : sequence of str, optional
            The columns drawn; default every numeric column but ``x``, ``secondary`` and those
            ``meta["no_plot"]`` names.
        secondary : str, optional
            A column drawn on a right-hand axis from 0 to 1 (e.g. the cumulative variance);
            default ``meta["secondary"]``.

        Returns
        -------
        matplotlib.axes.Axes
            The (left-hand) axes drawn on.

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        plt = pyplot("plotting")

        x = self.x or self.columns[0]
        secondary = secondary if secondary is not None else self.meta.get("secondary")
        if y is None:
            skip = {x, secondary, *self.meta.get("no_plot", ())}
            y = [c for c in self.columns if c not in skip
                 and all((isinstance(v, numbers.Real) and not isinstance(v, bool)) or v is None
                         for v in self.column(c))]
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        xs = self.column(x)
        for c in y:
            ax.plot(xs, [np.nan if v is None else v for v in self.column(c)], marker="o", ms=3, label=c)
        ax.set_xlabel(x)
        ax.set_ylabel(self.meta.get("ylabel", "score"))
        handles, labels = ax.get_legend_handles_labels()
        if secondary:
            ax2 = ax.twinx()
            (line,) = ax2.plot(xs, self.column(secondary), color="0.5", ls="--", label=secondary)
            ax2.set_ylabel(secondary)
            ax2.set_ylim(0, 1.02)
            handles, labels = handles + [line], labels + [secondary]
        ax.legend(handles, labels, loc="lower right", fontsize="small")
        if self.title:
            ax.set_title(self.title)
        ax.figure.tight_layout()
        return ax


# ------------------------------------------------------------------------- the fit
@dataclass(frozen=True, repr=False)
class VarianceProfile(Display):
    """Principal components of a set of vectors, named as in scikit-learn's ``PCA``.

    Made by :func:`variance_profile`.

    Parameters
    ----------
    components : array, shape (d, d), float64
        Principal axes as rows, by decreasing variance (the array library of the input).
        Signs follow scikit-learn's convention: each axis's largest-magnitude loading is positive.
    mean : array, shape (d,), float64
        The mean vector (zeros when ``center=False``).
    explained_variance : ndarray, shape (d,), float64
        Variance along each axis, with the ``n − 1`` denominator (NumPy).
    explained_variance_ratio : ndarray, shape (d,)
        Each axis's share of the total variance.
    cumulative : ndarray, shape (d,)
        Cumulative sum of ``explained_variance_ratio``.
    n_samples : int
        The number of vectors fitted.
    centered : bool, default True
        Whether the mean was subtracted (False: the uncentred second-moment matrix).

    See Also
    --------
    principal_space : project vectors onto chosen components.
    """

    components: Any
    mean: Any
    explained_variance: np.ndarray
    explained_variance_ratio: np.ndarray
    cumulative: np.ndarray
    n_samples: int
    centered: bool = True

    @property
    def n_components(self) -> int:
        """The number of components d (all of them are kept)."""
        return int(self.explained_variance.shape[0])

    @property
    def singular_values(self) -> np.ndarray:
        """Singular values of the centred data, ``sqrt(explained_variance · (n − 1))`` (scikit-learn's)."""
        return np.sqrt(self.explained_variance * max(self.n_samples - 1, 1))

    def _view(self) -> View:
        top = min(5, self.n_components)
        rows = [["n_samples", self.n_samples], ["n_components", self.n_components], ["centered", self.centered],
                [f"explained_variance_ratio[:{top}]", self.explained_variance_ratio[:top]],
                [f"cumulative[:{top}]", self.cumulative[:top]]]
        return View("VarianceProfile", rows, notes=[f"from variance_profile(…, center={self.centered})",
                                                    "table() lists every component"])

    def table(self) -> Table:
        """One row per component: variance, ratio, cumulative ratio.

        Returns
        -------
        Table
            Columns ``component``, ``explained_variance``, ``ratio``, ``cumulative``.
        """
        return Table(({"component": i, "explained_variance": float(v), "ratio": float(r),
                       "cumulative": float(c)}
                      for i, (v, r, c) in enumerate(zip(self.explained_variance,
                                                         self.explained_variance_ratio, self.cumulative))),
                     x="component", title="explained variance", meta={"no_plot": ("explained_variance",),
                                                                      "ylabel": "ratio"})

    def plot(self, ax=None):
        """Scree plot: ratio per component and the cumulative ratio.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; None: a new figure.

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.
        """
        return self.table().plot(ax, y=["ratio"], secondary="cumulative")

    def transform_matrix(self, components=slice(None)):
        """The (d, k) projection matrix of ``components`` (columns are principal axes).

        Parameters
        ----------
        components : int, slice or sequence of int, default all
            ``k`` → the first k components; a slice; or indices (in that order).

        Returns
        -------
        array, shape (d, k), float64
            In the array library of :attr:`components`.

        Raises
        ------
        ValueError
            A selection that is empty or out of range.
        TypeError
            ``components`` of another type.
        """
        idx = _component_index(components, self.n_components)
        xp = xb.get_namespace(self.components)
        V = xp.matrix_transpose(self.components)
        if isinstance(idx, slice):
            return V[:, idx]
        return xp.take(V, xp.asarray(idx) if not xb.is_numpy(V) else idx, axis=1)


def variance_profile(e, *, center: bool = True) -> VarianceProfile:
    """Explained variance (ratio, cumulative) of the principal components of ``e``.

    The covariance ``Σ(x−μ)(x−μ)ᵀ = XᵀX − nμμᵀ`` is accumulated over row blocks in float64
    (no centred copy of the vectors), then eigendecomposed: O(n·d²) time, O(d²) extra memory.
    The numbers equal scikit-learn's ``PCA().fit(X)`` attributes ``explained_variance_``,
    ``explained_variance_ratio_`` and ``components_`` (same sign convention).

    Parameters
    ----------
    e : Embeddings or array, shape (n, d), n >= 2
        The vectors.
    center : bool, default True
        False analyses ``XᵀX`` of the raw vectors (the uncentred second-moment matrix).

    Returns
    -------
    VarianceProfile
        Every component, by decreasing variance.

    Raises
    ------
    ValueError
        Fewer than 2 vectors, or NaN or inf in them (the row is named).

    See Also
    --------
    split_analysis : the T/M/B variance shares of Raunak et al. (2020), Table 3.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((500, 4)) * [3, 2, 1, 0.5]
    >>> p = variance_profile(X)
    >>> np.round(p.explained_variance_ratio, 2).tolist()
    [0.66, 0.25, 0.07, 0.02]
    """
    X, _ = _unwrap(e)
    n = X.shape[0]
    if n < 2:
        raise ValueError(f"variance_profile needs at least 2 vectors, got {n}")
    if center:
        C, mu = _centred_scatter(X, "vectors")
    else:
        C, _ = _statistics(X, "vectors")
        xp = xb.get_namespace(C)
        mu = xp.zeros((X.shape[1],), dtype=xp.float64)
    w, Q = _eigh_desc(C)
    xp = xb.get_namespace(Q)
    # scikit-learn's svd_flip(u_based_decision=False): the largest |loading| of each axis is positive
    Qn = xb.to_numpy(Q)
    signs = np.sign(Qn[np.argmax(np.abs(Qn), axis=0), np.arange(Qn.shape[1])])
    signs[signs == 0] = 1.0
    Q = Q * xb.asarray(signs.reshape(1, -1), like=Q, dtype="float64")
    var = np.clip(xb.to_numpy(w), 0.0, None) / (n - 1)
    total = var.sum()
    ratio = var / total if total > 0 else np.zeros_like(var)
    return VarianceProfile(xp.matrix_transpose(Q), mu, var, ratio, np.cumsum(ratio), int(n), bool(center))


def _component_index(components, d: int):
    """A slice, or a list of ints, validated against ``d``; an int ``k`` means the first k."""
    if isinstance(components, slice):
        if len(range(*components.indices(d))) == 0:
            raise ValueError(f"components {components} selects nothing out of {d}")
        return components
    if isinstance(components, (int, np.integer)) and not isinstance(components, bool):
        k = int(components)
        if not 1 <= k <= d:
            raise ValueError(f"the number of components must be in [1, {d}], got {k}")
        return slice(0, k)
    try:
        idx = [int(i) for i in components]
    except TypeError:
        raise TypeError(f"components must be an int, a slice or a list of ints, got {components!r}") from None
    if not idx:
        raise ValueError("components is empty")
    bad = [i for i in idx if not -d <= i < d]
    if bad:
        raise ValueError(f"component index {bad[0]} is out of range for {d} components")
    return np.asarray([i % d for i in idx], dtype=np.int64)


def principal_space(e, components, *, profile: VarianceProfile | None = None, center: bool = True,
                    return_transform: bool = False):
    """Project vectors onto chosen principal components: ``(X − μ)·V[:, components]``.

    Parameters
    ----------
    e : Embeddings or array, shape (n, d)
    components : int, slice or sequence of int
        ``k`` → the first k components; ``slice(10, 20)``; ``[0, 5, 7]`` (in that order).
    profile : VarianceProfile, optional
        A profile fitted before (e.g. on a larger vocabulary); default: fit on ``e``.
    center : bool
        Passed to :func:`variance_profile` when ``profile`` is None.
    return_transform : bool
        Also return the :class:`~embgeo.postprocess.AffineTransform` for held-out vectors.

    Returns
    -------
    result : Embeddings or array (kind of ``e``), shape (n, len(components))
        The projections.
    transform : AffineTransform
        Only with ``return_transform=True``.

    Raises
    ------
    ValueError
        A profile of another dimension, or a selection that is empty or out of range.
    """
    from .postprocess import AffineTransform

    X, _ = _unwrap(e)
    p = profile if profile is not None else variance_profile(X, center=center)
    if p.components.shape[1] != X.shape[1]:
        raise ValueError(f"the profile is for dimension {p.components.shape[1]}, the vectors have {X.shape[1]}")
    t = AffineTransform(p.transform_matrix(components), p.mean)
    out = t.apply(e)
    return (out, t) if return_transform else out


# --------------------------------------------------------------------- evaluation
def _scores(result, name: str = "score") -> dict[str, float]:
    """Normalise what an evaluation returns to ``{name: float}``."""
    if isinstance(result, numbers.Real):
        return {name: float(result)}
    if isinstance(result, Mapping):
        return {str(k): float(v) for k, v in result.items() if isinstance(v, numbers.Real)}
    for attr in ("spearman", "correlation", "score", "value"):
        v = getattr(result, attr, None)
        if isinstance(v, numbers.Real):
            return {name: float(v)}
    if hasattr(result, "to_dict"):
        return _scores(result.to_dict(), name)
    raise TypeError(f"an evaluation must return a number or a dict of numbers, got {type(result).__name__}")


def _evaluator(evaluate, datasets) -> Callable[[Any], dict[str, float]]:
    if evaluate is not None:
        if not callable(evaluate):
            raise TypeError(f"evaluate must be callable, got {evaluate!r}")
        return lambda model: _scores(evaluate(model))
    datasets = DEFAULT_SIMILARITY_DATASETS if datasets is None else tuple([datasets] if isinstance(datasets, str) else datasets)
    from .evaluate import word_similarity

    def run(model):
        out = {}
        for ds in datasets:
            out.update(_scores(word_similarity(model, ds), name=str(ds)))
        return out

    return run


def _projected(e, profile):
    """The full principal-coordinate matrix once; prefixes/splits are then column views."""
    X, wrap = _unwrap(e)
    Y = _apply(X, profile.transform_matrix(), _offset(profile))
    return Y, wrap


def _offset(profile):
    return profile.components @ profile.mean if profile.centered else None


def cumulative_curve(e, step: int = 10, evaluate: Callable | None = None, *, datasets=None,
                     profile: VarianceProfile | None = None, plot: bool = False, progress=None):
    """Score the space spanned by the top ``k`` components, ``k = step, 2·step, …, d``.

    The protocol of Raunak et al. (2020), Figures 1 and 2: project onto the first ``k`` principal
    components (centred PCA), evaluate, and grow ``k`` until all ``d`` are used.

    Parameters
    ----------
    e : Embeddings (or array, when ``evaluate`` accepts arrays), shape (n, d)
    step : int
        Components added per step; ``d`` itself is always the last point.
    evaluate : callable, optional
        ``evaluate(model) -> float | dict[str, float]`` where ``model`` is the projected Embeddings.
        Default: :func:`embgeo.evaluate.word_similarity` on each of ``datasets``.
    datasets : str or sequence of str, optional
        Dataset names/paths for the default evaluation (default :data:`DEFAULT_SIMILARITY_DATASETS`).
    profile : VarianceProfile, optional
        Reuse a fitted profile.
    plot : bool
        Also return the matplotlib Axes of the figure (``(table, ax)``); or call ``table.plot()`` later.
    progress : bool, optional
        Progress bar over the prefixes; None: automatic.

    Returns
    -------
    Table
        Rows ``{"n_components", "cumulative_variance", <score columns>}``.

    Raises
    ------
    ValueError
        ``step`` not a positive integer.
    TypeError
        ``evaluate`` not callable, or returning something other than a number or a dict of numbers.

    See Also
    --------
    split_analysis : contiguous groups of components instead of prefixes.

    References
    ----------
    Raunak, Kumar, Gupta & Metze (2020), "On dimensional linguistic properties of the word
    embedding space", RepL4NLP, Figures 1 and 2.
    """
    X, _ = _unwrap(e)
    d = X.shape[1]
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 1:
        raise ValueError(f"step must be a positive integer, got {step!r}")
    run = _evaluator(evaluate, datasets)
    p = profile if profile is not None else variance_profile(e)
    Y, wrap = _projected(e, p)
    ks = list(range(int(step), d + 1, int(step)))
    if not ks or ks[-1] != d:
        ks.append(d)
    rows = []
    for k in progress_bar(ks, desc="cumulative curve", progress=progress):
        row = {"n_components": k, "cumulative_variance": float(p.cumulative[k - 1])}
        row.update(run(wrap(Y[:, :k])))
        rows.append(row)
    table = Table(rows, x="n_components", title="cumulative principal-component curve",
                  meta={"secondary": "cumulative_variance"})
    return (table, table.plot()) if plot else table


def _split_names(parts: int) -> list[str]:
    return ["T", "M", "B"] if parts == 3 else (["T", "B"] if parts == 2 else [f"P{i + 1}" for i in range(parts)])


def split_analysis(e, parts: int = 3, evaluate: Callable | None = None, *, datasets=None,
                   profile: VarianceProfile | None = None, include_all: bool = True, progress=None):
    """Top / middle / bottom component splits: variance shares and scores (Raunak et al. 2020).

    The ``d`` components, sorted by variance, are cut into ``parts`` contiguous groups of
    near-equal size (``numpy.array_split``); with ``parts=3`` they are named T, M, B as in the
    paper. Each group's vectors are the projections onto its components only.

    Parameters
    ----------
    e : Embeddings (or array, when ``evaluate`` accepts arrays), shape (n, d)
        The vectors.
    parts : int, default 3
        The number of groups, 1 … d (3: T, M, B; 2: T, B; else P1, P2, ...).
    evaluate : callable, optional
        ``evaluate(model) -> float | dict[str, float]`` on each group's projected vectors.
        Default: :func:`embgeo.evaluate.word_similarity` on each of ``datasets``.
    datasets : str or sequence of str, optional
        Dataset names/paths for the default evaluation (default :data:`DEFAULT_SIMILARITY_DATASETS`).
    profile : VarianceProfile, optional
        Reuse a fitted profile.
    include_all : bool, default True
        Add a last row ``"all"``.
    progress : bool, optional
        Progress bar over the groups; None: automatic.

    Returns
    -------
    Table
        Rows ``{"split", "components", "n_components", "variance_share", <scores>}`` — the
        variance shares of Table 3 and the scores of Tables 1/4; with ``include_all`` a last row
        ``"all"`` (every component; equals the centred, rotated original).

    Raises
    ------
    ValueError
        ``parts`` not an integer in [1, d].
    TypeError
        ``evaluate`` not callable, or returning something other than a number or a dict of numbers.

    See Also
    --------
    cumulative_curve : prefixes of the components instead of groups.

    References
    ----------
    Raunak, Kumar, Gupta & Metze (2020), "On dimensional linguistic properties of the word
    embedding space", RepL4NLP, Tables 1, 3 and 4.
    """
    X, _ = _unwrap(e)
    d = X.shape[1]
    if isinstance(parts, bool) or not isinstance(parts, (int, np.integer)) or not 1 <= parts <= d:
        raise ValueError(f"parts must be an integer in [1, {d}], got {parts!r}")
    run = _evaluator(evaluate, datasets)
    p = profile if profile is not None else variance_profile(e)
    Y, wrap = _projected(e, p)
    groups = [(name, idx) for name, idx in zip(_split_names(int(parts)), np.array_split(np.arange(d), int(parts)))]
    if include_all:
        groups.append(("all", np.arange(d)))
    rows = []
    for name, idx in progress_bar(groups, desc="splits", progress=progress):
        lo, hi = int(idx[0]), int(idx[-1]) + 1
        row = {"split": name, "components": f"{lo}–{hi - 1}", "n_components": hi - lo,
               "variance_share": float(p.explained_variance_ratio[lo:hi].sum())}
        row.update(run(wrap(Y[:, lo:hi])))
        rows.append(row)
    return Table(rows, x="split", title=f"{parts}-way component split")


# ------------------------------------------------------------------------- probing
def probe_components(e, words: Sequence[str], labels, *, components=None, classifier=None, cv: int = 5,
                     scoring: str = "accuracy", profile: VarianceProfile | None = None,
                     oov: str = "raise", random_state: int = 0, include_all: bool = True,
                     progress=None) -> Table:
    """Per-component probing: can one principal component alone predict a word property?

    For each chosen component ``j``, the labelled words' 1-D projections ``(x − μ)·v_j`` are fed to
    a scikit-learn classifier scored by stratified ``cv``-fold cross-validation — the probing
    protocol of Raunak et al. (2020, Section 4), with the user's labelled data.

    Parameters
    ----------
    e : Embeddings
        The space; the PCA is fitted on all of it (or given as ``profile``).
    words : sequence of str
        Labelled words.
    labels : sequence
        One class label per word (any hashable; two or more classes).
    components : int, slice or sequence of int, optional
        Components to probe (default all).
    classifier : scikit-learn estimator, optional
        Default ``LogisticRegression(max_iter=1000)`` after ``StandardScaler``; cloned per fold.
    cv : int
        Number of stratified folds (shuffled with ``random_state``).
    scoring : str
        Any scikit-learn scorer name.
    profile : VarianceProfile, optional
        Reuse a fitted profile (default: fit on all of ``e``).
    oov : {"raise", "skip"}
        What to do with labelled words absent from ``e``: raise
        :class:`~embgeo.errors.UnknownWordError`, or leave them out.
    random_state : int, default 0
        Shuffles the stratified folds.
    include_all : bool
        Add a last row ``"all"``: the classifier on the full projection (every component).
    progress : bool, optional
        Progress bar over the components; None: automatic.

    Returns
    -------
    Table
        Rows ``{"component", "variance_ratio", "score", "std"}`` plus ``meta["baseline"]``, the
        majority-class score under the same folds.

    Raises
    ------
    TypeError
        ``e`` is not an Embeddings, or ``words`` is one string.
    ValueError
        Labels not one per word, an unknown ``oov``, fewer than two classes, or a class with fewer
        words than ``cv``.
    UnknownWordError
        With ``oov="raise"``, a labelled word not in ``e`` (named).

    References
    ----------
    Raunak, Kumar, Gupta & Metze (2020), "On dimensional linguistic properties of the word
    embedding space", RepL4NLP, Section 4 and Table 4.

    Examples
    --------
    Is a GloVe word a stop word? (``sklearn.feature_extraction.text.ENGLISH_STOP_WORDS``)::

        stop = [w for w in ENGLISH_STOP_WORDS if w in glove]
        other = [w for w in glove.words[:5000] if w not in ENGLISH_STOP_WORDS][:len(stop)]
        t = probe_components(glove, stop + other, [1] * len(stop) + [0] * len(other))
        print(t)     # which single components separate stop words from content words
    """
    from sklearn.base import clone
    from sklearn.dummy import DummyClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if not isinstance(e, Embeddings):
        raise TypeError("probe_components needs an Embeddings (the words are looked up in it)")
    if isinstance(words, str):
        raise TypeError("words must be a sequence of words, not one string")
    words, y = list(words), np.asarray(labels)
    if y.ndim != 1 or len(words) != y.shape[0]:
        raise ValueError(f"{len(words)} words but labels of shape {y.shape}: give one label per word")
    if oov not in ("raise", "skip"):
        raise ValueError(f"oov must be 'raise' or 'skip', got {oov!r}")
    idx = e.indices(words, oov="mark")
    if oov == "raise" and (idx < 0).any():
        e.indices(words)  # raises UnknownWordError naming the first missing word
    keep = idx >= 0
    idx, y = idx[keep], y[keep]
    classes, counts = np.unique(y, return_counts=True)
    if classes.size < 2:
        raise ValueError("labels need at least two classes")
    if counts.min() < cv:
        raise ValueError(f"the smallest class has {counts.min()} word(s), fewer than cv={cv} folds")
    p = profile if profile is not None else variance_profile(e)
    comp = _component_index(slice(None) if components is None else components, p.n_components)
    comp = np.arange(p.n_components)[comp] if isinstance(comp, slice) else comp
    labelled = e.subset([e.words[i] for i in idx])
    Z = xb.to_numpy(principal_space(labelled.vectors, slice(None), profile=p)).astype(np.float64)
    clf = classifier if classifier is not None else make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    folds = StratifiedKFold(n_splits=int(cv), shuffle=True, random_state=random_state)

    def score(M, model):
        s = cross_val_score(clone(model), M, y, cv=folds, scoring=scoring)
        return float(s.mean()), float(s.std())

    rows = []
    for j in progress_bar(comp, desc="probing components", progress=progress):
        m, s = score(Z[:, [int(j)]], clf)
        rows.append({"component": int(j), "variance_ratio": float(p.explained_variance_ratio[j]),
                     "score": m, "std": s})
    if include_all:
        m, s = score(Z, clf)
        rows.append({"component": "all", "variance_ratio": float(p.explained_variance_ratio.sum()),
                     "score": m, "std": s})
    base, _ = score(Z[:, :1], DummyClassifier(strategy="most_frequent"))
    return Table(rows, x="component", title=f"per-component probe ({scoring}, {cv}-fold)",
                 meta={"baseline": base, "n_words": int(y.shape[0]), "no_plot": ("variance_ratio", "std")})
