"""What compression costs: a space and its compressed variants, measured side by side.

:func:`compression_variants` builds the variants static models are shipped as today (PCA to fewer
dimensions, Zipf/SIF weighting on or off, float16, int8, binary, vocabulary k-means);
:func:`compression_cost` runs the existing evaluators on each (word similarity, analogies,
optionally BLI, each with its interval and a paired test against the original), the top-k
neighbour overlap with the original, hubness, isotropy and the bytes the variant takes, and
returns one :class:`CompressionCost` table.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..data import AnalogyPairs, AnalogyQuestions, WordPairs, load_dataset
from ..display import Interval, View, pyplot
from ..backend import to_numpy
from ..embeddings import Embeddings
from .analogy import analogy as _analogy
from .report import Report
from .similarity import word_similarity
from .stats import compare_results

__all__ = ["compression_cost", "compression_variants", "sif_weights", "CompressionCost"]


def sif_weights(n: int, coefficient: float = 1e-4) -> np.ndarray:
    """Model2Vec's Zipf/SIF row weights a / (a + p_r), p_r ∝ 1/(r + 1) for the row r = 1, 2, … n.

    model2vec estimates each token's probability from its rank alone (Zipf's law) and weights it as
    SIF (Arora et al. 2017, eq. of Algorithm 1): ``compute_weights`` in
    ``model2vec/distill/inference.py`` (MinishLab/model2vec at c901407, release 0.8.2, and the
    same in 0.10.0): ``inv_rank = 1 / arange(2, n + 2)``, ``p = inv_rank / sum(inv_rank)``,
    ``w = a / (a + p)``, with ``a = sif_coefficient``, 1e-4 by default. ``distill`` multiplies the
    PCA-reduced table's rows by these weights (row i is token id i).

    Parameters
    ----------
    n : int
        Number of rows (tokens or words, most frequent first).
    coefficient : float, default 1e-4
        The SIF coefficient a, in (0, 1) as model2vec requires.

    Returns
    -------
    float32 ndarray (n,)
        The weights, increasing with the row.

    Raises
    ------
    ValueError
        ``coefficient`` outside (0, 1).

    Examples
    --------
    >>> w = sif_weights(3, 0.5)
    >>> [round(float(x), 4) for x in w]
    [0.52, 0.619, 0.6842]
    """
    if not 0 < coefficient < 1:
        raise ValueError(f"the SIF coefficient must be in (0, 1) (model2vec's check), got {coefficient}")
    inv_rank = 1.0 / np.arange(2, n + 2, dtype=np.float64)
    p = inv_rank / inv_rank.sum()
    return (coefficient / (coefficient + p)).astype(np.float32)


def compression_variants(e: Embeddings, *, dims=(256, 128, 64), sif: bool = True, sif_applied: bool = False,
                         sif_coefficient: float = 1e-4, dtypes=("float16", "int8", "binary"), kmeans=(1024,),
                         memory_budget: int | None = None) -> dict:
    """The standard compressed variants of ``e``, each compression alone, by name.

    Parameters
    ----------
    e : Embeddings
        The space (rows most frequent first, as the Zipf weights assume).
    dims : sequence of int
        PCA widths: the rows centred and projected on their top principal axes (the space of
        :func:`embgeo.pca.principal_space` up to the axes' signs, model2vec's ``apply_pca``); only
        those below ``e.dim`` are built (``"pca128"``).
    sif : bool, default True
        Build the variant with Zipf/SIF weighting toggled (:func:`sif_weights`): ``"sif"``, the rows
        multiplied by the weights, or, with ``sif_applied``, ``"no-sif"``, the rows divided by them.
    sif_applied : bool, default False
        ``e`` already carries the weights (a Model2Vec table distilled with ``sif_coefficient``).
    sif_coefficient : float, default 1e-4
        model2vec's default (its ``config.json`` names the one a model was distilled with).
    dtypes : sequence of {"float16", "int8", "binary"}
        Quantisations (:func:`embgeo.quantize`, int8 calibrated on ``e``), named by the dtype.
    kmeans : sequence of int
        Vocabulary k-means sizes (``"kmeans1024"``); only those below the vocabulary size.
    memory_budget : int, optional
        Bytes of the float blocks used while quantising.

    Returns
    -------
    dict of str to Embeddings
        Float32 :class:`~embgeo.Embeddings` for PCA and SIF, :class:`~embgeo.quantization.QuantizedEmbeddings`
        (codes only) for the rest, in the order above.

    Raises
    ------
    TypeError
        ``e`` is not an Embeddings.
    ValueError
        A bad dtype, SIF coefficient or k-means size (from :func:`embgeo.quantize`).
    """
    from ..linalg import centred_scatter, eigh_desc
    from ..postprocess import apply_transform
    from ..quantization import quantize

    if not isinstance(e, Embeddings):
        raise TypeError(f"compression_variants takes an Embeddings, got {type(e).__name__}")
    out: dict = {}
    widths = [int(d) for d in dims if d < e.dim]
    if widths:
        # the principal axes of the centred rows (embgeo.pca's variance_profile, model2vec's apply_pca),
        # from the same float64 scatter; axis signs differ from scikit-learn's, which no measure here sees
        C, mu = centred_scatter(e.vectors, "vectors")
        V = eigh_desc(C)[1]
        for d in widths:
            out[f"pca{d}"] = apply_transform(e, V[:, :d], mu @ V[:, :d])
    if sif:
        w = sif_weights(len(e), sif_coefficient)
        X = to_numpy(e.vectors)
        out["no-sif" if sif_applied else "sif"] = e.with_vectors(X / w[:, None] if sif_applied else X * w[:, None])
    for dtype in dtypes:
        out[dtype] = quantize(e, dtype, memory_budget=memory_budget)
    for c in kmeans:
        if c < len(e):
            out[f"kmeans{c}"] = quantize(e, ("kmeans", int(c)), memory_budget=memory_budget)
    return out


def _nbytes(e) -> int:
    """Bytes of the stored vectors: the codes and their parameters for a quantised space."""
    return int(getattr(e, "nbytes", None) or e.vectors.nbytes)


def _neighbour_lists(X, q: int, k: int):
    from ..neighbors import topk

    return topk(X[:q], X, k, exclude=np.arange(q))[1]


class CompressionCost(Report):
    """One row per space (the original first, then each variant) of :func:`compression_cost`.

    Columns: ``variant``, ``dim``, ``bytes``, ``ratio`` (bytes over the original's), then for each
    scored dataset ``<name>`` (Spearman or accuracy), ``<name>_low``, ``<name>_high`` (its
    interval) and ``<name>_p`` (the paired test against the original), then ``overlap@k``,
    ``hubness`` (skewness of N_k) and ``isoscore``. Text, Markdown and HTML show each score with
    its interval beside it; :meth:`to_records` and :meth:`to_dict` keep every column.

    Parameters
    ----------
    rows : iterable of dict, optional
        The rows, as :class:`~embgeo.evaluate.Report` takes them.
    scores : sequence of str
        The score columns that carry an interval and a p-value.
    title : str, optional
        The heading.

    Attributes
    ----------
    scores : list of str
        The score columns.
    comparisons : dict
        variant -> score column -> :class:`~embgeo.evaluate.Comparison` against the original.
    results : list of dict
        Per row, score column -> the evaluation result behind it.
    """

    def __init__(self, rows=(), *, scores=(), title: str | None = None):
        super().__init__(rows, title=title, formats={"ratio": "{:.3f}"})
        self.scores = list(scores)
        self.comparisons: dict = {}

    def _shown(self):
        hidden = {f"{s}_{end}" for s in self.scores for end in ("low", "high")}
        return [c for c in self.columns if c not in hidden]

    def _cell(self, row, c):
        v = row.get(c)
        if c in self.scores and v is not None and row.get(f"{c}_low") is not None:
            return Interval(float(v), float(row[f"{c}_low"]), float(row[f"{c}_high"]))
        return v

    def _view(self) -> View:
        cols = self._shown()
        return View(self.title or "CompressionCost", [[self._cell(r, c) for c in cols] for r in self._rows],
                    columns=cols)

    def _cells(self):
        # Report's text, Markdown and HTML writers: each score with its interval, the ends hidden
        cols, body, numeric = super()._cells()
        shown = self._shown()
        keep = [cols.index(c) for c in shown]
        for row, line in zip(self._rows, body):
            for j, c in enumerate(cols):
                v = self._cell(row, c)
                if isinstance(v, Interval):
                    line[j] = str(v)
        return shown, [[line[j] for j in keep] for line in body], [numeric[j] for j in keep]

    def plot(self, ax=None, *, scores=None):
        """Each score against the bytes of each space (log scale), with its interval (matplotlib).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; None: a new figure.
        scores : sequence of str, optional
            The score columns drawn (default all of :attr:`scores`).

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        plt = pyplot("CompressionCost.plot")
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        nbytes = np.array([r["bytes"] for r in self._rows], dtype=float)
        for s in scores if scores is not None else self.scores:
            y = np.array([np.nan if r.get(s) is None else r[s] for r in self._rows], dtype=float)
            low = np.array([r.get(f"{s}_low", np.nan) for r in self._rows], dtype=float)
            high = np.array([r.get(f"{s}_high", np.nan) for r in self._rows], dtype=float)
            err = np.nan_to_num(np.vstack([y - low, high - y]))
            ax.errorbar(nbytes, y, yerr=err, fmt="o", ms=4, capsize=2, label=s)
        ax.set_xscale("log")
        # the variants' names on the top axis, one tick per size (variants within 2 % of a size share it)
        names: dict = {}
        for r, x in zip(self._rows, nbytes):
            near = next((t for t in names if abs(x - t) <= 0.02 * t), x)
            names.setdefault(near, []).append(r["variant"])
        top = ax.secondary_xaxis("top")
        top.set_xticks(list(names), ["\n".join(v) for v in names.values()], fontsize="x-small", rotation=90)
        top.xaxis.set_minor_locator(plt.NullLocator())
        ax.set_xlabel("bytes")
        ax.set_ylabel("score (interval)")
        ax.legend(loc="best", fontsize="small")
        if self.title:
            ax.set_title(self.title)
        return ax


def _check_variant(name, v, original, *, same_words: bool):
    if not isinstance(v, Embeddings):
        raise TypeError(f"variant {name!r} is a {type(v).__name__}, not an Embeddings")
    if same_words and v.words != original.words:
        extra = next((w for w in v.words if w not in original), None)
        where = f"{extra!r} is not in the original" if extra is not None else "the order differs"
        raise ValueError(f"variant {name!r} has other words than the original ({len(v)} vs {len(original)} words; "
                         f"{where}): the neighbour overlap compares the lists of the same words; pass "
                         f"neighbours=0 to leave it out")


def compression_cost(original, variants: dict, *, similarity=("wordsim353", "simlex999"),
                     analogy=("google-analogy",), bli=None, k: int = 10, neighbours: int | None = 10_000,
                     restrict_vocab: int | None = 300000, compose: Callable | None = None, ci: float = 0.95,
                     n_resamples: int = 9999, random_state=None, data_dir=None,
                     title: str | None = None) -> CompressionCost:
    """What each compression of ``original`` costs: scores with intervals, paired tests, overlap, bytes.

    Every measure is an existing one of embgeo: :func:`~embgeo.evaluate.word_similarity` (Spearman,
    BCa interval of :meth:`~embgeo.evaluate.SimilarityResult.ci`, Steiger's test against the
    original), :func:`~embgeo.evaluate.analogy` (3CosAdd accuracy, exact McNemar test),
    :func:`~embgeo.evaluate.bli` (P@1, McNemar), :func:`embgeo.diagnostics.hubness` (skewness of
    N_k, Radovanović et al. 2010) and :func:`embgeo.diagnostics.isotropy` (IsoScore). The
    neighbour overlap is the mean over the first ``neighbours`` words of |N_k(w) ∩ N'_k(w)| / k,
    the shares of each word's k nearest neighbours (cosine, itself left out) that the variant keeps.

    Parameters
    ----------
    original : Embeddings
        The uncompressed space.
    variants : dict of str to Embeddings
        Its variants by name (:func:`compression_variants`, or any others); a quantised one is read
        as it is (rows decoded when read; the vocabulary-wide searches decode it for their call).
    similarity, analogy : sequence of str, path or loaded dataset
        Word-pair and analogy datasets (default: the files shipped with gensim).
    bli : (target, dictionary), optional
        Also P@1 of each space searched in ``target`` (an Embeddings of the same dimension,
        the spaces already in one space) over the gold ``dictionary`` (pairs or a path).
    k : int, default 10
        Neighbours of the overlap and of hubness's N_k.
    neighbours : int or None, default 10000
        Words (the first rows) whose lists are compared; None all, 0 none (no ``overlap@k`` column).
    restrict_vocab : int or None, default 300000
        Candidate vocabulary of the analogies.
    compose : callable, optional
        Maps each stored space (original and variants) to the space evaluated, e.g. a Model2Vec
        token table to whole words: ``lambda t: model.with_tokens(t).words(words, oov="skip")``;
        the bytes are those of the stored space.
    ci : float, default 0.95
        Level of the intervals.
    n_resamples, random_state
        Of the bootstrap intervals.
    data_dir : str or path-like, optional
        Where dataset names are looked up.
    title : str, optional
        The table's title.

    Returns
    -------
    CompressionCost
        One row per space, the original first; ``comparisons`` holds the paired tests.

    Raises
    ------
    TypeError
        A variant (named) is not an Embeddings.
    ValueError
        A variant (named) has other words than the original while the overlap compares them, or
        another dimension than the BLI target; a variant named ``"original"``; a negative
        ``neighbours``.

    Examples
    --------
    >>> import numpy as np, embgeo
    >>> from embgeo.data import WordPairs
    >>> rng = np.random.default_rng(0)
    >>> e = Embeddings([f"w{i}" for i in range(50)], rng.standard_normal((50, 16)))
    >>> pairs = WordPairs([f"w{i}" for i in range(40)], [f"w{i + 1}" for i in range(40)],
    ...                   [float(i % 7) for i in range(40)], name="toy")
    >>> cost = compression_cost(e, {"float16": embgeo.quantize(e, "float16")}, similarity=[pairs],
    ...                         analogy=(), k=5, n_resamples=200, random_state=0)
    >>> [r["overlap@5"] for r in cost]
    [1.0, 1.0]
    >>> [r["toy_p"] for r in cost]
    [None, 1.0]
    """
    from ..diagnostics import hubness, isotropy

    if "original" in variants:
        raise ValueError("'original' names the original space; call the variant something else")
    if not isinstance(original, Embeddings):
        raise TypeError(f"the original is a {type(original).__name__}, not an Embeddings")
    if neighbours is not None and (isinstance(neighbours, bool) or neighbours < 0):
        raise ValueError(f"neighbours must be a number of words ≥ 0 or None, got {neighbours!r}")
    stored = {"original": original, **variants}
    spaces = {name: compose(v) if compose is not None else v for name, v in stored.items()}
    for name, v in spaces.items():
        _check_variant(name, v, spaces["original"], same_words=bool(neighbours))
    if bli is not None:
        target, dictionary = bli
        for name, v in spaces.items():
            if v.dim != target.dim:
                raise ValueError(f"variant {name!r} has dimension {v.dim}, the BLI target {target.dim}: BLI "
                                 "searches the target with the space's rows as they are; map the variant "
                                 "into the target first or leave it out of this call")
    datasets = [d if isinstance(d, (WordPairs, AnalogyQuestions, AnalogyPairs)) else load_dataset(d, data_dir)
                for d in (*similarity, *analogy)]

    def evaluations(v):
        out = {}
        for d in datasets:
            if isinstance(d, WordPairs):
                out[d.name] = word_similarity(v, d)
            else:
                out[d.name] = _analogy(v, d, restrict_vocab=restrict_vocab)
        if bli is not None:
            from .lexicon import bli as run_bli

            out["bli"] = run_bli(v, target, dictionary, ks=(1,))
        return out

    original_space = spaces["original"]
    q = min(len(original_space), neighbours or 0)
    reference = _neighbour_lists(original_space.vectors, q, k) if q else None
    base_bytes = _nbytes(original)
    rows: list = []
    results: list = []
    comparisons: dict = {}
    for name, v in spaces.items():
        res = evaluations(v)
        base = results[0] if results else res
        row = {"variant": name, "dim": v.dim, "bytes": _nbytes(stored[name]),
               "ratio": _nbytes(stored[name]) / base_bytes}
        comparisons[name] = {}
        for s, r in res.items():
            score_name = "p@1" if s == "bli" else None
            value = r.p_at(1) if s == "bli" else getattr(r, r.score_name)
            low, high = r.ci(ci, n_resamples=n_resamples, random_state=random_state, score=score_name)
            p = None
            if name != "original":
                c = compare_results(r, base[s], score=score_name, labels=(name, "original"))
                comparisons[name][s] = c
                p = c.p_value
            row.update({s: value, f"{s}_low": low, f"{s}_high": high, f"{s}_p": p})
        if q:
            lists = _neighbour_lists(v.vectors, q, k)
            assert reference is not None   # q > 0: the original's lists were made
            row[f"overlap@{k}"] = float((lists[:, :, None] == reference[:, None, :]).any(axis=2).mean())
        row["hubness"] = hubness(v, k=k).skewness
        row["isoscore"] = isotropy(v).isoscore
        rows.append(row)
        results.append(res)
    cost = CompressionCost(rows, scores=list(results[0]), title=title)
    cost.results = results
    cost.comparisons = {n: c for n, c in comparisons.items() if n != "original"}
    return cost
