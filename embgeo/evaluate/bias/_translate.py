"""Carry a bias query into another language: through a bilingual dictionary, or by retrieval in a mapped space."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import backend as xb
from .._oov import lookup
from ...display import Display, View
from ..report import Report
from ._queries import Query, load_query

__all__ = ["QueryTranslation", "translate_query"]


@dataclass(frozen=True, repr=False)
class QueryTranslation(Display):
    """Outcome of :func:`translate_query`.

    Parameters
    ----------
    query : Query
        The translated query (its sets hold the translations found, each word once), named
        ``"<name>@<language>"``.
    source : Query
        The query as given, in the source language.
    translations : tuple of tuple of (str, str or None)
        For each set, each source word with its translation (None: not translated).
    coverage : tuple of float
        Share of each set's words translated.
    how : str
        ``"dictionary"`` or the retrieval (``"nn"``, ``"csls"`` …) in the mapped space.
    """

    query: Query
    source: Query
    translations: tuple
    coverage: tuple
    how: str

    def to_report(self) -> Report:
        """One row per source word: ``set``, ``word``, ``translation``.

        Returns
        -------
        Report
            The table, titled with the query and how it was translated.
        """
        rows = [{"set": name, "word": w, "translation": t}
                for name, pairs in zip(self.source.set_names, self.translations) for w, t in pairs]
        return Report(rows, columns=["set", "word", "translation"], title=f"{self.source.name} ({self.how})")

    def _view(self) -> View:
        rows = [[name, w, t] for name, pairs in zip(self.source.set_names, self.translations) for w, t in pairs]
        cov = ", ".join(f"{name} {c:.1%}" for name, c in zip(self.source.set_names, self.coverage))
        return View(f"QueryTranslation: {self.source.name} -> {self.query.name} ({self.how})", rows,
                    columns=["set", "word", "translation"], notes=[f"coverage: {cov}"])


def translate_query(query, *, dictionary=None, source=None, target=None, mapper=None, retrieval: str = "nn",
                    language: str = "translated", lowercase: bool | None = None) -> QueryTranslation:
    """Translate every set of a bias query, word by word, to score it in another language's space.

    Either through a bilingual ``dictionary`` (the first listed translation of each word), or, with
    ``source`` and ``target`` embeddings and a fitted ``mapper`` (:class:`embgeo.crosslingual.Mapper`, or
    None when the two spaces already share one), as the target word retrieved for each mapped source word
    (:func:`embgeo.crosslingual.retrieve` with ``retrieval``, k = 1). A word without a translation is left
    out of its set; a translation already taken in the same set is not repeated. Two target sets that end
    up sharing a word are reported by the measure that refuses them.

    Parameters
    ----------
    query : Query or str
        The query to translate, or the name of a shipped one (``"weat1"`` …).
    dictionary : iterable of (str, str), optional
        Source → target pairs (e.g. :func:`embgeo.data.read_dictionary`).
    source, target : Embeddings, optional
        For retrieval: the query's language and the other one.
    mapper : fitted Mapper, optional
        Maps ``source`` and ``target`` into one space (``mapper.transform(source, target)``).
    retrieval : {"nn", "csls", "isf", "invnn", "dot"}, default "nn"
        How a mapped source word retrieves its translation (:func:`embgeo.crosslingual.retrieve`).
    language : str, default "translated"
        Appended to the query's name (``"weat6@fi"``).
    lowercase : bool or None, default None
        How source words are looked up (in the dictionary or ``source``): as written then lower-cased
        (None), always lower-cased (True), as written (False).

    Returns
    -------
    QueryTranslation
        The translated query, with each word's translation and each set's coverage.

    Raises
    ------
    ValueError
        Neither or both of ``dictionary`` and ``source``/``target``; spaces of different dimension without a
        mapper; a set with no word translated (named).

    See Also
    --------
    embgeo.crosslingual.retrieve : The retrieval of translations in a mapped space.
    embgeo.data.read_dictionary : Reads a bilingual dictionary.
    """
    q = load_query(query) if isinstance(query, str) else query
    if (dictionary is None) == (source is None and target is None):
        raise ValueError("translate a query either with dictionary= or with source= and target= (and mapper=)")
    if dictionary is not None:
        table: dict = {}
        for pair in dictionary:
            if len(pair) != 2:
                raise ValueError(f"a dictionary entry is a (source, target) pair, got {pair!r}")
            table.setdefault(pair[0], pair[1])

        def translate(words):
            out = []
            for w in words:
                cand = [w] if lowercase is False else [w.lower()] if lowercase else [w, w.lower()]
                out.append(next((table[c] for c in cand if c in table), None))
            return out

        how = "dictionary"
    else:
        if source is None or target is None:
            raise ValueError("retrieval needs both source= and target= embeddings")
        from ...crosslingual import retrieve

        if mapper is not None:
            S, T = mapper.transform(source, target)
            S, T = (getattr(S, "vectors", S), getattr(T, "vectors", T))
        else:
            S, T = source.vectors, target.vectors
        if S.shape[1] != T.shape[1]:
            raise ValueError(f"the source vectors have {S.shape[1]} dimensions and the target's {T.shape[1]}: "
                             "pass a fitted mapper= that maps both into one space")

        def translate(words):
            rows = lookup(source, list(words), lowercase)
            out: list = [None] * len(words)
            found = np.flatnonzero(rows >= 0)
            if found.size:
                _, idx = retrieve(S[rows[found]], T, 1, retrieval, source=S)
                for i, t in zip(found, xb.to_numpy(idx)[:, 0]):
                    out[int(i)] = target.words[int(t)]
            return out

        how = retrieval
    translations, sets, coverage = [], [], []
    for words, name in zip(q.sets, q.set_names):
        pairs = list(zip(words, translate(words)))
        kept = list(dict.fromkeys(t for _, t in pairs if t is not None))
        if not kept:
            raise ValueError(f"set {name!r} of query {q.name!r}: none of its {len(words)} words was translated")
        translations.append(tuple(pairs))
        sets.append(kept)
        coverage.append(sum(t is not None for _, t in pairs) / len(words))
    nt = len(q.targets)
    translated = Query(targets=sets[:nt], attributes=sets[nt:], target_names=q.target_names,
                       attribute_names=q.attribute_names, name=f"{q.name}@{language}")
    return QueryTranslation(query=translated, source=q, translations=tuple(translations), coverage=tuple(coverage),
                            how=how)
