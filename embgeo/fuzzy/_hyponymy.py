"""Hyponymy as graded inclusion of fuzzy sets (Bhat et al. 2020, Sec. 4.2 "Feature Inclusion")."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..display import Display
from ._embeddings import FuzzyEmbeddings

@dataclass(repr=False)
class HyponymyReport(Display):
    """Graded inclusion of hyponyms in hypernyms.

    Attributes
    ----------
    pairs : list of (hyponym, hypernym)
        The pairs scored (both words known).
    scores, reverse_scores : ndarray of float64
        ``inclusion(hypo ⊆ hyper)`` and ``inclusion(hyper ⊆ hypo)``.
    direction_accuracy : float
        Share of pairs with ``scores > reverse_scores`` (the direction of the relation recovered).
    mean_score : float
    n_skipped : int
        Pairs with an unknown word.
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
    reverse inclusion. ``oov="skip"`` drops pairs with unknown words, ``"raise"`` raises
    :class:`~embgeo.errors.UnknownWordError`.
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
