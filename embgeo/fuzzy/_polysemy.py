"""Senses of a word through the intersection with context words (Bhat et al. 2020, Table 6)."""
from __future__ import annotations

from .. import backend as xb
from ._embeddings import FuzzyEmbeddings

def polysemy(F: FuzzyEmbeddings, word: str, contexts, topn: int = 10, *, measure: str = "cross_entropy",
             reverse: bool = False, restrict_vocab: int | None = None) -> dict:
    """Senses of ``word`` seen through context words (Bhat et al. 2020, Table 6).

    For each context c, the nearest words to ``F[word] & F[c]`` (excluding word and c).

    Parameters
    ----------
    F : FuzzyEmbeddings
        The vocabulary of fuzzy sets.
    word : str
        The ambiguous word (e.g. ``"bank"``).
    contexts : str or sequence of str
        One context word per sense to bring out (e.g. ``["river", "money"]``).
    topn : int, default 10
        Nearest words listed per context.
    measure : str, default "cross_entropy"
        A searchable measure of :data:`FUZZY_MEASURES`.
    reverse : bool, default False
        Rank by ``m(candidate, query)`` instead.
    restrict_vocab : int, optional
        Search only the first ``restrict_vocab`` rows (the most frequent words, by convention).

    Returns
    -------
    dict str -> list of (str, float)
        ``{context: [(word, score), ...]}``, best first, in the order of ``contexts``.

    Raises
    ------
    ValueError
        No context word, or ``topn`` larger than the candidates.
    UnknownWordError
        ``word`` or a context word is not in the vocabulary.

    See Also
    --------
    FuzzyEmbeddings.neighbors : the search run for each context.

    References
    ----------
    Bhat, Debnath, Banerjee & Shrivastava (2020), "Word Embeddings as Tuples of Feature
    Probabilities", RepL4NLP, pp. 24-33, Table 6. doi:10.18653/v1/2020.repl4nlp-1.4
    """
    contexts = [contexts] if isinstance(contexts, str) else list(contexts)
    if not contexts:
        raise ValueError("polysemy needs at least one context word")
    q = F[word] & F[contexts]
    s, i = F.neighbors(q, topn, measure=measure, reverse=reverse, restrict_vocab=restrict_vocab, progress=False)
    s, i = xb.to_numpy(s), xb.to_numpy(i)
    return {c: [(F.words[j], float(v)) for v, j in zip(s[r], i[r])] for r, c in enumerate(contexts)}
