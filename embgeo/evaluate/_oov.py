"""Words to rows under an ``oov=`` policy, for the evaluations that use the vectors themselves.

``oov="mean"`` gives a word outside the vocabulary the mean of all the model's vectors, as
word-embeddings-benchmarks does everywhere (``w.get(word, mean_vector)`` in its ``web/evaluate.py``).
"""
from __future__ import annotations

import numpy as np

from .. import backend as xb
from ..errors import UnknownWordError


def check_oov(oov: str, allowed: tuple, where: str) -> None:
    """ValueError unless ``oov`` is one of ``allowed`` (the policies ``where`` supports)."""
    if oov not in allowed:
        raise ValueError(f"{where} takes oov={' | '.join(map(repr, allowed))}, got {oov!r}")


def check_finite(model, rows=None) -> None:
    """``model.check_finite(rows)`` for embeddings (the error names a non-finite word and its row);
    other models (fuzzy sets, KeyedVectors) have no such check here."""
    check = getattr(model, "check_finite", None)
    if check is not None:
        check(rows)


def lookup(model, words, lowercase: bool | None = None) -> np.ndarray:
    """Rows of ``words`` in ``model`` (int64, -1 where absent).

    ``lowercase=None`` looks a word up as written, then lower-cased (mixed-case data, lower-cased
    vectors such as GloVe); True always lower-cases; False never does.
    """
    rows = np.full(len(words), -1, dtype=np.int64)
    for i, w in enumerate(words):
        if lowercase:
            w = w.lower()
        if w in model:
            rows[i] = model.index(w)
        elif lowercase is None and w.lower() in model:
            rows[i] = model.index(w.lower())
    return rows


def mean_vector(model) -> np.ndarray:
    """The mean of the model's vectors (float64, accumulated without a copy of the vectors)."""
    check_finite(model)
    V = model.vectors
    if xb.is_numpy(V):
        return np.asarray(np.mean(V, axis=0, dtype=np.float64))
    xp = xb.get_namespace(V)
    return xb.to_numpy(xp.mean(xp.astype(V, xp.float64), axis=0))


def raise_first_missing(words, rows, context: str) -> None:
    """UnknownWordError naming the first word with row -1 (and how many are missing)."""
    missing = np.flatnonzero(rows < 0)
    if len(missing):
        raise UnknownWordError(words[int(missing[0])], context=context, n_missing=len(missing))


def vectors_of(model, words, oov: str, *, lowercase: bool | None = None, context: str = ""):
    """``(X, kept, covered)``: float32 NumPy rows for ``words`` and the positions of ``words`` they stand for.

    ``oov="skip"`` keeps the words in the vocabulary, ``"mean"`` keeps every word (the mean vector
    for the others), ``"raise"`` raises :class:`~embgeo.errors.UnknownWordError` on the first
    unknown word. ``kept`` indexes ``words``; ``covered`` (the third value) says which words are in
    the vocabulary.
    """
    rows = lookup(model, words, lowercase)
    covered = rows >= 0
    if oov == "raise":
        raise_first_missing(words, rows, context)
    kept = np.arange(len(words)) if oov == "mean" else np.flatnonzero(covered)
    X = np.empty((len(kept), model.dim), dtype=np.float32)
    found = covered[kept]
    check_finite(model, rows[kept[found]])
    if found.any():
        X[found] = xb.to_numpy(model.vectors[rows[kept[found]]])
    if not found.all():
        X[~found] = mean_vector(model)
    return X, kept, covered


def mean_vector_similarities(model, words1, words2, measure: str | None) -> np.ndarray:
    """Cosine (or dot) similarity of aligned pairs, a word given as None standing for the mean vector.

    For ``word_similarity(oov="mean")``: word-embeddings-benchmarks' ``evaluate_similarity`` scores
    ``cos(w.get(a, mean), w.get(b, mean))``.

    Raises
    ------
    ValueError
        The model has no vectors, or the measure is not cosine or dot.
    """
    if measure not in (None, "cosine", "dot") or not hasattr(model, "vectors"):
        raise ValueError("oov='mean' scores the mean vector, so it needs embeddings (with .vectors) and the measure "
                         f"cosine or dot; got {type(model).__name__} with measure {measure!r}")
    mean = mean_vector(model)  # checks every row

    def rows(words):
        X = np.empty((len(words), model.dim), dtype=np.float64)
        for i, w in enumerate(words):
            X[i] = mean if w is None else xb.to_numpy(model.vectors[model.index(w)])
        return X

    A, B = rows(words1), rows(words2)
    dots = np.einsum("ij,ij->i", A, B)
    if measure == "dot":
        return dots
    den = np.linalg.norm(A, axis=1) * np.linalg.norm(B, axis=1)
    return np.divide(dots, den, out=np.zeros_like(dots), where=den > 0)
