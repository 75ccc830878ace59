"""Senses of a word through the intersection with context words (Bhat et al. 2020, Table 6)."""
from __future__ import annotations

from .. import backend as xb
from ._embeddings import FuzzyEmbeddings

def polysemy(F: FuzzyEmbeddings, word: str, contexts, topn: int = 10, *, measure: str = "cross_entropy",
             reverse: bool = False, restrict_vocab: int | None = None) -> dict:
    """Senses of ``word`` seen through context words (Bhat et al. 2020, Table 6).

    For each context c, the nearest words to ``F[word] & F[c]`` (excluding word and c).
    Returns ``{context: [(word, score), ...]}``.
    """
    contexts = [contexts] if isinstance(contexts, str) else list(contexts)
    if not contexts:
        raise ValueError("polysemy needs at least one context word")
    q = F[word] & F[contexts]
    s, i = F.neighbors(q, topn, measure=measure, reverse=reverse, restrict_vocab=restrict_vocab, progress=False)
    s, i = xb.to_numpy(s), xb.to_numpy(i)
    return {c: [(F.words[j], float(v)) for v, j in zip(s[r], i[r])] for r, c in enumerate(contexts)}
