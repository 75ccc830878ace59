"""Function words by fuzzy entropy (Bhat et al. 2020, Sec. 4.3, Table 10)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import backend as xb
from ..display import Display
from ._embeddings import FuzzyEmbeddings

@dataclass(repr=False)
class FunctionWordReport(Display):
    """Function-word detection by fuzzy entropy vs by frequency (Bhat et al. 2020, Table 10).

    Made by :func:`function_words`.

    Parameters
    ----------
    by_entropy, by_frequency : list of str
        The top ``max(cutoffs)`` candidate words under each ranking.
    hits : dict int -> (int, int)
        For each cutoff K, how many of the top K are function words (entropy, frequency).
    n_candidates : int
        Words that passed the frequency threshold.
    frequency_source : str
        ``"counts"``, ``"user"`` or ``"rank"`` (row order as the frequency proxy).
    highest : bool, default True
        Whether ``by_entropy`` ranks by decreasing entropy (the paper's) or increasing.

    See Also
    --------
    function_words : makes this report.
    """

    by_entropy: list
    by_frequency: list
    hits: dict
    n_candidates: int
    frequency_source: str
    highest: bool = True

    def table(self) -> str:
        """The hits per cutoff as a Markdown table, the layout of the paper's Table 10.

        Returns
        -------
        str
            One row per cutoff K: the function words among the top K by entropy and by frequency.
        """
        rows = ["top K | entropy hits | frequency hits", "----- | ------------ | --------------"]
        rows += [f"{k:5d} | {h[0]:12d} | {h[1]:14d}" for k, h in self.hits.items()]
        return "\n".join(rows)


def function_words(F: FuzzyEmbeddings, *, min_count=None, top_n: int | None = None, frequencies=None,
                   stopwords=None, cutoffs=(15, 30, 50), highest: bool = True) -> FunctionWordReport:
    """Rank words by fuzzy entropy and count function words at the top (Bhat et al. 2020, Table 10).

    Among the words whose frequency passes the threshold, words are ranked by entropy
    ``H(A) = Σ −a ln a − (1 − a) ln(1 − a)`` (highest first unless ``highest=False``) and, as the
    baseline, by frequency; for each cutoff K the report counts how many of the top K are in
    the function-word list.

    Frequencies come from ``frequencies`` (a dict word → count, or an array aligned with
    ``F.words``), else ``F.counts``, else the row order: GloVe ships no counts but lists its words
    by decreasing corpus frequency, so the rank stands in for frequency and the threshold is
    ``top_n`` (the ``top_n`` most frequent words).

    Parameters
    ----------
    F : FuzzyEmbeddings
        The vocabulary of fuzzy sets; its entropies are computed once and kept.
    min_count : float, optional
        Keep words with frequency ≥ min_count (needs counts).
    top_n : int, optional
        Keep only the ``top_n`` most frequent words (works with any frequency source).
    frequencies : dict str -> float or array, shape (n_words,), optional
        Word frequencies (a dict, missing words count 0, or an array aligned with ``F.words``);
        default ``F.counts``, else the row order.
    stopwords : iterable of str, optional
        The function-word list; default scikit-learn's ``ENGLISH_STOP_WORDS`` (318 words).
    cutoffs : tuple of int, default (15, 30, 50)
        The K of "function words among the top K" (Table 10's).
    highest : bool, default True
        Rank by decreasing entropy (True) or increasing.

    Returns
    -------
    FunctionWordReport
        Both rankings and the hits per cutoff.

    Raises
    ------
    ValueError
        ``min_count`` without any counts, a ``frequencies`` array of the wrong shape, or no word
        passing the threshold.

    See Also
    --------
    FuzzyEmbeddings.entropy : the per-word entropies ranked here.

    References
    ----------
    Bhat, Debnath, Banerjee & Shrivastava (2020), "Word Embeddings as Tuples of Feature
    Probabilities", RepL4NLP, pp. 24-33, Sec. 4.3 and Table 10. doi:10.18653/v1/2020.repl4nlp-1.4
    """
    n = len(F)
    if frequencies is not None:
        if isinstance(frequencies, dict):
            freq = np.array([float(frequencies.get(w, 0)) for w in F.words])
        else:
            freq = np.asarray(xb.to_numpy(frequencies), dtype=np.float64)
            if freq.shape != (n,):
                raise ValueError(f"frequencies must have shape ({n},), got {freq.shape}")
        source = "user"
    elif F.counts is not None:
        freq, source = np.asarray(F.counts, dtype=np.float64), "counts"
    else:
        freq, source = None, "rank"
    if freq is None:
        if min_count is not None:
            raise ValueError("min_count needs word counts: pass frequencies= or use top_n= (rank as frequency)")
        order = np.arange(n)
    else:
        order = np.argsort(-freq, kind="stable")
        if min_count is not None:
            order = order[freq[order] >= float(min_count)]
    if top_n is not None:
        order = order[:int(top_n)]
    if order.size == 0:
        raise ValueError("no word passes the frequency threshold")
    if stopwords is None:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        stopwords = ENGLISH_STOP_WORDS
    stop = set(stopwords)
    H = xb.to_numpy(F.entropy())[order]
    by_h = order[np.argsort(-H if highest else H, kind="stable")]
    kmax = max(cutoffs)
    ent_words = [F.words[i] for i in by_h[:kmax]]
    frq_words = [F.words[i] for i in order[:kmax]]
    hits = {int(c): (sum(w in stop for w in ent_words[:c]), sum(w in stop for w in frq_words[:c])) for c in cutoffs}
    return FunctionWordReport(ent_words, frq_words, hits, int(order.size), source, highest)
