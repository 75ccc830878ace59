"""Concept categorisation: cluster a benchmark's words and score the clusters' purity.

The protocol of word-embeddings-benchmarks (Jastrzębski, Leśniak & Czarnecki 2017, "How to evaluate
word embeddings? On importance of data efficiency and simple supervised tasks", ``evaluate_categorization``
in ``web/evaluate.py``; Baroni, Dinu & Kruszewski 2014 before it): the words' vectors are clustered into as
many clusters as the dataset has categories, by scikit-learn's ``AgglomerativeClustering`` (Ward linkage
on Euclidean distance by default; average or complete linkage, with cosine or Euclidean distance) or
``KMeans``, and the clustering is scored by its purity (Manning, Raghavan & Schütze 2008, eq. 16.1)::

    purity = (1/N) Σ_k max_j |ω_k ∩ c_j|

over clusters ω_k and categories c_j.
"""
from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field
from typing import ClassVar

import numpy as np

from ..data import as_dataset
from ..display import pyplot
from ._oov import check_oov, vectors_of
from .stats import Resampled

__all__ = ["categorization", "CategorizationResult", "purity", "CLUSTERINGS", "LINKAGES"]

#: ``clustering=`` names of :func:`categorization`
CLUSTERINGS = ("agglomerative", "kmeans")
#: ``linkage=`` names of the agglomerative clustering (scikit-learn's)
LINKAGES = ("ward", "average", "complete", "single")
_METRICS = ("euclidean", "cosine")
_OOV = ("skip", "mean", "raise")


def purity(categories, clusters) -> float:
    """Purity of a clustering: the share of items in their cluster's majority category.

    Parameters
    ----------
    categories, clusters : array-like of int, shape (n,)
        Gold category and assigned cluster of each item (any non-negative codes).

    Returns
    -------
    float
        (1/n) Σ_clusters max_category |cluster ∩ category|, in (0, 1].

    Raises
    ------
    ValueError
        ``categories`` and ``clusters`` are not two 1-d arrays of one length.

    Examples
    --------
    >>> purity([0, 0, 1, 1, 1], [0, 0, 0, 1, 1])
    0.8
    """
    categories, clusters = np.asarray(categories, dtype=np.int64), np.asarray(clusters, dtype=np.int64)
    if categories.shape != clusters.shape or categories.ndim != 1:
        raise ValueError(f"categories and clusters must be two 1-d arrays of one length, got shapes "
                         f"{categories.shape} and {clusters.shape}")
    if len(categories) == 0:
        return float("nan")
    n_cat = int(categories.max()) + 1
    table = np.bincount(clusters * n_cat + categories, minlength=(int(clusters.max()) + 1) * n_cat)
    return float(table.reshape(-1, n_cat).max(axis=1).sum() / len(categories))


@dataclass(frozen=True, repr=False)
class CategorizationResult(Resampled):
    """Outcome of :func:`categorization`.

    Parameters
    ----------
    dataset, clustering, linkage, metric : str
        ``linkage`` and ``metric`` are those of the agglomerative clustering (k-means: ``""``, Euclidean).
    purity : float
        The clustering's purity (the headline number). Its interval (:meth:`ci`) and paired test
        (:func:`~embgeo.evaluate.compare`) resample the words with their cluster labels held fixed: they
        measure the variability of the word sample, not the clustering's own (another k-means
        initialisation, or one clustering of the resampled words, can move the purity by more).
        k-means purities cannot reproduce word-embeddings-benchmarks' numbers even with its seed: its
        ``evaluate_categorization`` shuffles the items first (``RandomState(seed).choice``) and seeds
        ``KMeans`` on that order, and its default ``seed=None`` draws a new shuffle and initialisation
        on every call; embgeo clusters the items in file order with ``random_state``.
    n_clusters : int
        Clusters asked for: the number of categories among the items clustered.
    n_items, n_found, n_total : int
        Words clustered, words in the vocabulary, words in the dataset.
    coverage : float
        ``n_found / n_total``.
    oov : str
        The ``oov`` policy used for words not in the vocabulary (``"skip"``, ...).
    categories : dict
        Per category (in file order): ``n`` words, ``n_found`` in the vocabulary, ``cluster`` (the
        cluster holding most of its words, -1 when none was clustered) and ``share`` (the share of
        its clustered words in that cluster).
    items : list of str
        The words clustered, in the order of ``per_item``.
    per_item : dict of str to ndarray
        ``{"category": int codes (into category_names), "cluster": cluster labels, "item": row in the dataset}``.
    category_names : list of str
        The categories, in file order: the names of ``per_item["category"]``'s codes.
    """

    _call = "categorization(…, {dataset!r}, {method!r}, {linkage!r}, {metric!r}, oov={oov!r})"

    dataset: str
    clustering: str
    linkage: str
    metric: str
    purity: float
    n_clusters: int
    n_items: int
    n_found: int
    n_total: int
    coverage: float
    oov: str
    categories: dict = field(repr=False)
    items: list = field(repr=False)
    per_item: dict = field(repr=False)
    category_names: list = field(repr=False)

    score_name: ClassVar[str] = "purity"

    @property
    def score(self) -> float:
        """The headline score: :attr:`purity`."""
        return self.purity

    def statistic(self, per_item: dict) -> float:
        """Purity of a (resampled) ``per_item`` dict.

        Parameters
        ----------
        per_item : dict of str to ndarray
            The result's ``per_item``, or a resample of it (as :meth:`ci` draws).

        Returns
        -------
        float
            The score.
        """
        return purity(per_item["category"], per_item["cluster"])

    def table(self) -> list:
        """One row per category: ``category, n, n_found, cluster, share``.

        Returns
        -------
        list of dict
            The rows, in file order (see :attr:`categories`).
        """
        return [{"category": c, **v} for c, v in self.categories.items()]

    def to_dict(self) -> dict:
        """The fields as plain Python values (JSON-ready).

        Returns
        -------
        dict
            Every field by name (``per_item``'s arrays as lists).
        """
        d = asdict(self)
        d["per_item"] = {k: v.tolist() for k, v in self.per_item.items()}
        return d

    def plot(self, ax=None):
        """Bar chart: each category's share of words in its majority cluster, the purity marked.

        Needs matplotlib (``pip install embgeo[plot]``).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; None makes a new figure.

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        plt = pyplot("CategorizationResult.plot")
        rows = [r for r in self.table() if r["n_found"] or self.oov == "mean"]
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 1 + 0.25 * len(rows)))
        y = np.arange(len(rows))
        ax.barh(y, [r["share"] for r in rows], color="tab:blue")
        ax.set_yticks(y, [f"{r['category']} ({r['n_found']}/{r['n']})" for r in rows])
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.axvline(self.purity, color="tab:red", linestyle="--", label=f"purity {self.purity:.3f}")
        ax.set_xlabel("share of the category's words in its majority cluster")
        ax.set_title(f"{self.dataset}: {self.clustering}" + (f" ({self.linkage}, {self.metric})" if self.linkage else ""))
        ax.legend(loc="lower right")
        return ax


def _cluster(X, k, clustering, linkage, metric, random_state):
    from sklearn.cluster import AgglomerativeClustering, KMeans

    if clustering == "kmeans":
        if isinstance(random_state, np.random.Generator):  # scikit-learn takes a seed or a RandomState
            random_state = int(random_state.integers(2**31 - 1))
        # word-embeddings-benchmarks' settings: 10 initialisations
        return KMeans(n_clusters=k, n_init=10, random_state=random_state).fit_predict(X)
    return AgglomerativeClustering(n_clusters=k, metric=metric, linkage=linkage).fit_predict(X)


def categorization(model, dataset, clustering: str = "agglomerative", linkage: str = "ward",
                   metric: str = "euclidean", *, oov: str = "skip", lowercase: bool | None = None,
                   random_state=0, data_dir=None, name: str | None = None) -> CategorizationResult:
    """Cluster a categorisation benchmark's words and score the purity of the clusters.

    Parameters
    ----------
    model : Embeddings
        Anything with ``word in model``, ``model.index(word)``, ``model.vectors`` and ``model.dim``.
    dataset : Categories, or str / Path
        Words with their categories, or a registry name (``"ap"``, ``"battig"``,
        ``"bless-categorization"``, ``"essli-2008"``) or path for :func:`embgeo.data.load_dataset`.
    clustering : {"agglomerative", "kmeans"}, default "agglomerative"
        scikit-learn's ``AgglomerativeClustering`` or ``KMeans``.
    linkage : {"ward", "average", "complete", "single"}, default "ward"
        Agglomerative clustering's linkage (ignored by k-means).
    metric : {"euclidean", "cosine"}, default "euclidean"
        Agglomerative clustering's distance, scikit-learn's ``metric=`` (Ward needs Euclidean;
        k-means is Euclidean).
    oov : {"skip", "mean", "raise"}, default "skip"
        A word outside the vocabulary is left out ("skip"), clustered as the mean vector of the model
        ("mean": word-embeddings-benchmarks' only behaviour, which its published numbers use), or raises
        :class:`~embgeo.errors.UnknownWordError`.
    lowercase : bool or None
        As in :func:`~embgeo.evaluate.word_similarity`: None looks a word up as written, then lower-cased.
    random_state : int, None or numpy Generator, default 0
        k-means' initialisations.
    data_dir : str or path-like, optional
        Where a dataset name is looked up (:func:`embgeo.data.dataset_path`); None means
        ``$EMBGEO_DATA``.
    name : str, optional
        The dataset's name in the result (default: the dataset's own name).

    Returns
    -------
    CategorizationResult
        The purity, per-category shares and coverage; ``ci()`` resamples the words.

    Raises
    ------
    ValueError
        An unknown ``clustering``, ``linkage``, ``metric`` or ``oov``, Ward linkage with a distance other than
        Euclidean, k-means with ``metric="cosine"``, or fewer than two words in the vocabulary
        (no clustering to score).
    UnknownWordError
        With ``oov="raise"``, naming the first unknown word.

    See Also
    --------
    purity : The score of the clustering.
    embgeo.data.read_categories : Reads the datasets.

    Notes
    -----
    The number of clusters is the number of categories among the items clustered (with
    ``oov="skip"``, a category none of whose words is known does not count). word-embeddings-benchmarks
    reports, by default (its ``method="all"``), the best purity over six clusterings (Ward; average and
    complete linkage with cosine and Euclidean distance; k-means), a choice made on the test data;
    here each clustering is one call, and that maximum is ``max`` over them.

    A category of one word is kept, as word-embeddings-benchmarks keeps it (it is a category like
    any other for purity); it is often a sign of a truncated file, so a warning names such categories.
    A word listed in two categories (Battig) is two items.

    References
    ----------
    S. Jastrzębski, D. Leśniak and W. M. Czarnecki (2017). How to evaluate word embeddings? On
    importance of data efficiency and simple supervised tasks. arXiv:1702.02170 (the protocol,
    word-embeddings-benchmarks).

    C. D. Manning, P. Raghavan and H. Schütze (2008). Introduction to Information Retrieval. Cambridge
    University Press, eq. 16.1 (purity).
    """
    for value, allowed, what in ((clustering, CLUSTERINGS, "clustering"), (linkage, LINKAGES, "linkage"),
                                 (metric, _METRICS, "metric")):
        if value not in allowed:
            raise ValueError(f"unknown {what} {value!r}; choose from {', '.join(allowed)}")
    check_oov(oov, _OOV, "categorization")
    if clustering == "agglomerative" and linkage == "ward" and metric != "euclidean":
        raise ValueError(f"Ward linkage needs metric='euclidean', got {metric!r}; use linkage='average' or "
                         "'complete' with cosine")
    if clustering == "kmeans" and metric != "euclidean":
        raise ValueError("k-means clusters by Euclidean distance: metric must be 'euclidean'")
    data = as_dataset(dataset, "categories", data_dir)
    names = data.category_names
    code = {c: i for i, c in enumerate(names)}
    codes = np.array([code[c] for c in data.categories], dtype=np.int64)
    sizes = np.bincount(codes, minlength=len(names))
    single = [names[i] for i in np.flatnonzero(sizes == 1)]
    if single:
        warnings.warn(f"{data.name}: {len(single)} categor{'y has' if len(single) == 1 else 'ies have'} a single "
                      f"word ({', '.join(map(repr, single[:5]))}{', ...' if len(single) > 5 else ''}); "
                      "kept, as word-embeddings-benchmarks keeps them", UserWarning, stacklevel=2)
    X, kept, covered = vectors_of(model, data.words, oov, lowercase=lowercase,
                                  context=f"in categorisation dataset {data.name}")
    if len(kept) < 2:
        raise ValueError(f"{data.name}: {int(covered.sum())} of {len(data)} words are in the model's vocabulary; "
                         "at least 2 are needed to cluster")
    cats = codes[kept]
    found_in = np.bincount(codes[covered], minlength=len(names))
    present = np.unique(cats)
    k = len(present)
    labels = np.asarray(_cluster(X, k, clustering, linkage, metric, random_state), dtype=np.int64)
    per_cat = {}
    for i, c in enumerate(names):
        mine = labels[cats == i]
        counts = np.bincount(mine, minlength=k) if len(mine) else np.zeros(k, dtype=np.int64)
        best = int(counts.argmax()) if len(mine) else -1
        per_cat[c] = {"n": int(sizes[i]), "n_found": int(found_in[i]), "cluster": best, "share": float(counts[best] / len(mine)) if len(mine) else float("nan")}
    n_found = int(covered.sum())
    return CategorizationResult(
        dataset=name or data.name, clustering=clustering, linkage=linkage if clustering == "agglomerative" else "",
        metric=metric, purity=purity(cats, labels), n_clusters=k, n_items=len(kept), n_found=n_found,
        n_total=len(data), coverage=n_found / len(data), oov=oov, categories=per_cat,
        items=[data.words[i] for i in kept], per_item={"category": cats, "cluster": labels, "item": kept},
        category_names=names)
