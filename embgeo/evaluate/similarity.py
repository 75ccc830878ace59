"""Word similarity: rank correlation between a model's similarities and human judgements."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import ClassVar

import numpy as np

from .. import backend as xb
from ..data import as_dataset
from ..errors import UnknownWordError
from ..fuzzy import FUZZY_MEASURES
from ._oov import mean_vector_similarities
from .stats import Resampled

__all__ = ["word_similarity", "SimilarityResult", "MEASURES", "resolve_measure"]

class _Measures(dict):
    """Measure name -> (geometry, measure, reverse); also accepts ``fuzzy-...@construction`` spellings.

    A fuzzy measure followed by ``@`` and a name of :data:`embgeo.fuzzy.CONSTRUCTIONS` builds the fuzzy
    sets that way instead of the paper's way, e.g. ``"fuzzy-symmetric-cross-entropy@released-simlex"`` (the released
    code's Table 8 program). ``in`` and ``[]`` accept these; iteration lists the plain names only.
    """

    def _split(self, name):
        if not isinstance(name, str) or "@" not in name:
            return None
        base, construction = name.split("@", 1)
        if not dict.__contains__(self, base) or dict.__getitem__(self, base)[0] != "fuzzy":
            return None
        from ..fuzzy import CONSTRUCTIONS

        return (base, construction) if construction in CONSTRUCTIONS else None

    def __contains__(self, name):
        return dict.__contains__(self, name) or self._split(name) is not None

    def __missing__(self, name):
        split = self._split(name)
        if split is None:
            raise KeyError(name)
        _, measure, reverse = dict.__getitem__(self, split[0])
        return (f"fuzzy@{split[1]}", measure, reverse)


#: Measure names understood by :func:`resolve_measure` (and the CLI): name -> (geometry, measure, reverse).
#: Fuzzy measures are those of Bhat et al. (2020), "Word Embeddings as Tuples of Feature Probabilities",
#: negated so that higher means more similar; ``-rev`` scores the pair in the other direction,
#: D(word2 || word1) instead of D(word1 || word2). ``cross-entropy``/``kl`` are the Bernoulli (two-term) forms,
#: ``categorical-*`` the one-term forms (the KL the paper prints in Sec. 4.4), ``symmetric-*`` both
#: directions summed. Add ``@construction`` (a key of ``embgeo.fuzzy.CONSTRUCTIONS``) to build the fuzzy
#: sets as one of the authors' released programs does: the paper's Table 8 columns are
#: ``fuzzy-symmetric-cross-entropy@released-simlex`` ("K-L Divergence") and ``fuzzy-kl@released-simlex``
#: ("Cross-Entropy").
#: The ``fuzzy-*`` names are derived from :data:`embgeo.fuzzy.FUZZY_MEASURES`, the one table of fuzzy
#: measure names (``fuzzy-<name>`` with hyphens, :attr:`embgeo.fuzzy.FuzzyMeasure.evaluate_name`, and
#: ``-rev`` appended for the other direction of an asymmetric measure).
MEASURES = _Measures({
    "cosine": ("vectors", "cosine", False),
    "dot": ("vectors", "dot", False),
    **{m.evaluate_name + rev: ("fuzzy", m.name, bool(rev)) for m in FUZZY_MEASURES.values() if m.word_similarity
       for rev in ("", "-rev")[:1 if m.symmetric else 2]},
})

#: the ``oov=`` policies of the evaluations for a pair or question with a word out of vocabulary; "mean"
#: (the mean vector, word-embeddings-benchmarks' policy) only where the evaluation scores vectors
_OOV = ("skip", "zero", "raise", "mean")


def _check_oov(oov: str, allowed: tuple = _OOV[:3]) -> None:
    if oov not in allowed:
        raise ValueError(f"oov must be one of {', '.join(allowed)}, got {oov!r}")


@dataclass(frozen=True, repr=False)
class SimilarityResult(Resampled):
    """Outcome of :func:`word_similarity`.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    measure : str
        The similarity measure of the model (``"cosine"``, ...).
    spearman, spearman_pvalue : float
        Spearman's rank correlation (the usual headline number) and its two-sided p-value.
    pearson, pearson_pvalue : float
        Pearson's linear correlation and its two-sided p-value.
    n_pairs : int
        Pairs that entered the correlation (covered pairs, plus OOV pairs under ``oov="zero"``).
    n_found, n_total : int
        Pairs with both words in the vocabulary, and pairs in the dataset.
    coverage : float
        ``n_found / n_total``.
    oov : str
        The policy used for pairs with an unknown word.
    per_item : dict of ndarray
        One row per pair in the correlation: ``gold`` (human score), ``predicted`` (the model's
        similarity) and ``item`` (the pair's row in the dataset), for :meth:`ci` and
        :func:`~embgeo.evaluate.compare`.
    backoff : float or None
        The similarity an uncovered pair was given (VecMap's ``--backoff``), or None.
    """

    _call = "word_similarity(…, {dataset!r}, measure={measure!r}, oov={oov!r})"

    score_name: ClassVar[str] = "spearman"

    dataset: str
    measure: str
    spearman: float
    spearman_pvalue: float
    pearson: float
    pearson_pvalue: float
    n_pairs: int
    n_found: int
    n_total: int
    coverage: float
    oov: str
    per_item: dict = field(default_factory=dict, repr=False, compare=False)
    backoff: float | None = None

    @property
    def correlation(self) -> float:
        """The headline correlation: :attr:`spearman`."""
        return self.spearman

    def statistic(self, per_item: dict) -> float:
        """Spearman's ρ of ``per_item["gold"]`` and ``per_item["predicted"]`` (the headline score).

        Parameters
        ----------
        per_item : dict of str to ndarray
            The result's ``per_item``, or a resample of it (as :meth:`ci` draws).

        Returns
        -------
        float
            The score.
        """
        from scipy import stats

        return float(stats.spearmanr(per_item["gold"], per_item["predicted"])[0])

    def to_dict(self) -> dict:
        """The fields as plain Python values (JSON-ready).

        Returns
        -------
        dict
            Every field by name (``per_item`` left out).
        """
        out = asdict(self)
        out.pop("per_item")
        return out


def _resolve_words(model, words, lowercase):
    """Map dataset words to model keys; None where absent.

    ``lowercase=None`` takes the word as written and falls back to its lower-case form, so mixed-case
    files work with lower-cased vectors (GloVe) without losing cased keys of cased vectors.
    """
    out = []
    for w in words:
        if lowercase:
            w = w.lower()
            out.append(w if w in model else None)
        elif w in model:
            out.append(w)
        elif lowercase is None and w.lower() in model:
            out.append(w.lower())
        else:
            out.append(None)
    return out


def word_similarity(model, dataset, measure: str | None = None, *, lowercase: bool | None = None,
                    oov: str = "skip", data_dir=None, name: str | None = None, target=None,
                    backoff: float | None = None) -> SimilarityResult:
    """Correlate a model's word-pair similarities with human judgements.

    With ``target``, the pairs are cross-lingual (SemEval-2017 Task 2's subtask 2, VecMap's
    ``eval_similarity.py SRC TRG``): the first word of each pair is looked up in ``model``, the second in
    ``target``, and the similarity is the cosine of the two vectors (both spaces must share one vector
    space, e.g. mapped by :class:`embgeo.crosslingual.Mapper`).

    Parameters
    ----------
    model : object
        Anything with ``word in model`` and ``model.similarity_pairs(words1, words2, measure=None)``
        returning similarities (higher = more similar): :class:`~embgeo.Embeddings`, fuzzy and alpha
        embeddings, or an adapter from :func:`resolve_measure`.
    dataset : WordPairs, or str / Path
        Pairs, or a dataset name or path for :func:`embgeo.data.load_dataset`.
    measure : str, optional
        Passed to ``similarity_pairs`` (None: the model's default, cosine for Embeddings).
    lowercase : bool or None, default None
        True lower-cases dataset words; False looks them up as written; None (default) looks them up as
        written and falls back to the lower-case form.
    oov : {"skip", "zero", "raise", "mean"}, default "skip"
        Pairs with a word missing from the model are dropped ("skip", gensim's default), given
        similarity 0 (gensim's ``dummy4unknown=True``; meaningful for cosine-like measures only), or raise
        :class:`~embgeo.errors.UnknownWordError`; "mean" scores a missing word as the mean of the model's
        vectors (word-embeddings-benchmarks' policy; for embeddings with ``cosine`` or ``dot`` only, not with
        ``target``). ``coverage`` is reported whatever the policy.
    data_dir : str or path-like, optional
        Where a dataset name is looked up (:func:`embgeo.data.dataset_path`); None means
        ``$EMBGEO_DATA``.
    name : str, optional
        The dataset's name in the result (default: the dataset's own name).
    target : Embeddings, optional
        The second language's vectors: ``word2`` of each pair is looked up there (``measure`` must then be
        None or ``"cosine"``).
    backoff : float, optional
        VecMap's ``--backoff``: a pair with an unknown word gets this similarity instead of being left
        out (``oov="zero"`` is ``backoff=0``); needs ``oov`` ``"skip"`` or ``"zero"``. VecMap then reports
        a coverage of 100 %; ``coverage`` here still counts the pairs with both words known.

    Returns
    -------
    SimilarityResult
        Spearman's and Pearson's correlations with their p-values, coverage and per-pair values.

    Raises
    ------
    ValueError
        Unknown ``oov`` policy, or no pair covered by the model (nothing to correlate).
    UnknownWordError
        With ``oov="raise"``, naming the first missing word.

    See Also
    --------
    resolve_measure : The model and measure behind a measure name.
    embgeo.evaluate.evaluate : Several datasets and measures in one report.
    embgeo.KeyedVectors.evaluate_word_pairs : The same protocol behind gensim's interface.

    Notes
    -----
    Spearman's rho with the two-sided p-value of :func:`scipy.stats.spearmanr` (ties get average ranks),
    as gensim's ``KeyedVectors.evaluate_word_pairs`` reports. Fewer than 3 usable pairs give NaN.
    VecMap's ``eval_similarity.py`` looks words up as written (``lowercase=False``; its ``-l`` is
    ``lowercase=True``) and reports the same Pearson and Spearman coefficients.
    """
    from scipy import stats

    _check_oov(oov, _OOV)
    if oov == "mean" and target is not None:
        raise ValueError("oov='mean' scores one model's mean vector; it does not apply to a cross-lingual target=")
    if backoff is not None:
        if oov not in ("skip", "zero"):
            raise ValueError(f"backoff= scores unknown pairs, which oov={oov!r} does not allow; use oov='skip'")
        backoff = float(backoff)
        oov = "zero"
    if target is not None and measure not in (None, "cosine"):
        raise ValueError(f"a cross-lingual evaluation (target=) scores pairs by cosine, not {measure!r}")
    dataset = as_dataset(dataset, "pairs", data_dir)
    a = _resolve_words(model, dataset.words1, lowercase)
    b = _resolve_words(model if target is None else target, dataset.words2, lowercase)
    found = np.array([x is not None and y is not None for x, y in zip(a, b)], dtype=bool)
    n_total = len(dataset)
    n_found = int(found.sum())
    if oov == "raise" and n_found < n_total:
        i = int(np.flatnonzero(~found)[0])
        missing = dataset.words1[i] if a[i] is None else dataset.words2[i]
        raise UnknownWordError(missing, context=f"pair {i + 1} of {dataset.name}",
                               n_missing=n_total - n_found)
    if n_found == 0:
        raise ValueError(f"no pair of {dataset.name} has both words in the model's vocabulary")
    idx = np.flatnonzero(found)
    if target is None:
        sims = np.asarray(model.similarity_pairs([a[i] for i in idx], [b[i] for i in idx], measure=measure),
                          dtype=np.float64)
    else:
        sims = _cross_cosines(model, target, [a[i] for i in idx], [b[i] for i in idx])
    if sims.shape != (n_found,):
        raise ValueError(f"similarity_pairs returned shape {sims.shape} for {n_found} pairs")
    gold = dataset.scores
    if oov == "zero":
        model_sims = np.full(n_total, 0.0 if backoff is None else backoff)
        model_sims[idx] = sims
        items = np.arange(n_total)
    elif oov == "mean":
        model_sims = mean_vector_similarities(model, a, b, measure)
        model_sims[idx] = sims
        items = np.arange(n_total)
    else:
        model_sims, gold, items = sims, gold[idx], idx
    n = len(gold)
    if n >= 3:
        rho, p_rho = stats.spearmanr(gold, model_sims)
        r, p_r = stats.pearsonr(gold, model_sims)
    else:
        rho = p_rho = r = p_r = float("nan")
    return SimilarityResult(
        dataset=name or dataset.name, measure=measure or "cosine",
        spearman=float(rho), spearman_pvalue=float(p_rho), pearson=float(r), pearson_pvalue=float(p_r),
        n_pairs=n, n_found=n_found, n_total=n_total, coverage=n_found / n_total, oov=oov, backoff=backoff,
        per_item={"gold": np.asarray(gold, dtype=np.float64), "predicted": model_sims, "item": items},
    )


def _cross_cosines(source, target, words1, words2) -> np.ndarray:
    """Cosine of ``source[w1]`` and ``target[w2]`` for each pair, float64 from the float32 rows (a zero
    vector has cosine 0, as VecMap's length normalisation leaves it zero)."""
    source.check_finite(source.indices(list(words1)))
    target.check_finite(target.indices(list(words2)))
    X = np.asarray(xb.to_numpy(source[list(words1)]), dtype=np.float64)
    Y = np.asarray(xb.to_numpy(target[list(words2)]), dtype=np.float64)
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"the source vectors have {X.shape[1]} dimensions and the target's {Y.shape[1]}: "
                         "cross-lingual similarity needs one shared space")
    nx, ny = np.linalg.norm(X, axis=1), np.linalg.norm(Y, axis=1)
    nx[nx == 0] = 1.0
    ny[ny == 0] = 1.0
    return np.einsum("ij,ij->i", X, Y) / (nx * ny)


class _Directed:
    """Adapter fixing a model's measure and direction, so any measure fits the evaluation protocol."""

    def __init__(self, model, measure, reverse):
        self.model, self.measure, self.reverse = model, measure, reverse

    def __contains__(self, word):
        return word in self.model

    def similarity_pairs(self, words1, words2, measure=None):
        return self.model.similarity_pairs(words1, words2, measure=self.measure, reverse=self.reverse)


def resolve_measure(e, name: str, cache: dict | None = None, progress: bool | None = None):
    """Return ``(model, measure)`` evaluating ``name`` (a key of :data:`MEASURES`) on embeddings ``e``.

    Fuzzy measures build ``embgeo.fuzzy.FuzzyEmbeddings.from_embeddings(e)`` once per construction (kept in
    ``cache`` under ``"fuzzy"``, or ``"fuzzy@<construction>"`` for an ``@construction`` spelling) and fix
    the measure's direction.

    Parameters
    ----------
    e : Embeddings
        The embeddings evaluated.
    name : str
        A measure of :data:`MEASURES` (``"cosine"``, ``"dot"``, a fuzzy measure, ``"fuzzy-...@construction"``).
    cache : dict, optional
        Where the fuzzy embeddings built from ``e`` are kept between calls (one evaluation of several
        measures passes the same dict).
    progress : bool, optional
        Progress bar while fuzzy embeddings are built.

    Returns
    -------
    model : object
        ``e``, or the fuzzy (possibly direction-reversing) model to pass to :func:`word_similarity`.
    measure : str or None
        The measure to pass with it.

    Raises
    ------
    ValueError
        Unknown measure name.
    ImportError
        A fuzzy measure when :mod:`embgeo.fuzzy` is not available.
    """
    try:
        geometry, measure, reverse = MEASURES[name]
    except KeyError:
        raise ValueError(f"unknown measure {name!r}; choose from {', '.join(MEASURES)}") from None
    if geometry == "vectors":
        return e, measure
    cache = {} if cache is None else cache
    if geometry not in cache:
        from ..fuzzy import FuzzyEmbeddings

        construction = geometry.partition("@")[2] or None
        cache[geometry] = FuzzyEmbeddings.from_embeddings(e, construction=construction, progress=progress)
    return _Directed(cache[geometry], measure, reverse), name
