"""Hyponymy as graded inclusion of fuzzy sets (Bhat et al. 2020, Sec. 4.2 "Feature Inclusion")."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..display import Display
from ._embeddings import FuzzyEmbeddings

@dataclass(repr=False)
class HyponymyReport(Display):
    """Graded inclusion of hyponyms in hypernyms, made by :func:`hyponymy`.

    Parameters
    ----------
    pairs : list of (hyponym, hypernym)
        The pairs scored (both words known).
    scores, reverse_scores : ndarray of float64, shape (len(pairs),)
        ``inclusion(hypo ⊆ hyper)`` and ``inclusion(hyper ⊆ hypo)``.
    direction_accuracy : float
        Share of pairs with ``scores > reverse_scores`` (the direction of the relation recovered).
    mean_score : float
        The mean of ``scores``.
    n_skipped : int, default 0
        Pairs with an unknown word.
    ties : int, default 0
        Pairs with ``scores == reverse_scores`` (neither direction recovered).

    See Also
    --------
    hyponymy : makes this report.
    """

    pairs: list
    scores: np.ndarray
    reverse_scores: np.ndarray
    direction_accuracy: float
    mean_score: float
    n_skipped: int = 0
    ties: int = field(default=0)


def hyponymy(F: FuzzyEmbeddings, pairs, *, oov: str = "skip") -> HyponymyReport:
    """Score (hyponym, hypernym) pairs by graded inclusion (Bhat et al. 2020, Sec. 4.2 "Feature Inclusion").

    A hyponym's features should be (mostly) included in its hypernym's: the score is the share
    of features with ``µ_hypo ≤ µ_hyper``, and ``direction_accuracy`` is how often it beats the
    reverse inclusion.

    Parameters
    ----------
    F : FuzzyEmbeddings
        The vocabulary of fuzzy sets.
    pairs : iterable of (str, str)
        ``(hyponym, hypernym)`` pairs, e.g. ``("dog", "animal")``.
    oov : {"skip", "raise"}, default "skip"
        ``"skip"`` drops pairs with an unknown word (counted in ``n_skipped``); ``"raise"`` raises.

    Returns
    -------
    HyponymyReport
        The scores both ways and the direction accuracy.

    Raises
    ------
    ValueError
        An unknown ``oov``, no pairs, or no pair with both words known.
    UnknownWordError
        With ``oov="raise"``, a word not in the vocabulary (named).

    See Also
    --------
    graded_inclusion : the score of one pair of sets.

    References
    ----------
    Bhat, Debnath, Banerjee & Shrivastava (2020), "Word Embeddings as Tuples of Feature
    Probabilities", RepL4NLP, pp. 24-33, Sec. 4.2 "Feature Inclusion". doi:10.18653/v1/2020.repl4nlp-1.4
    """
    if oov not in ("skip", "raise"):
        raise ValueError(f"oov must be 'skip' or 'raise', got {oov!r}")
    pairs = [tuple(p) for p in pairs]
    if not pairs:
        raise ValueError("no pairs given")
    kept = [p for p in pairs if p[0] in F and p[1] in F]
    if oov == "raise" and len(kept) < len(pairs):
        bad = next(p for p in pairs if p not in kept)
        F.indices(list(bad))  # raises UnknownWordError naming the word
    if not kept:
        raise ValueError("none of the pairs has both words in the vocabulary")
    hypo, hyper = [p[0] for p in kept], [p[1] for p in kept]
    s = F.similarity_pairs(hypo, hyper, measure="inclusion")
    r = F.similarity_pairs(hyper, hypo, measure="inclusion")
    return HyponymyReport(kept, s, r, float(np.mean(s > r)), float(np.mean(s)), len(pairs) - len(kept),
                          int(np.sum(s == r)))
