"""gensim 4's ``KeyedVectors.most_similar`` over an :class:`~embgeo.embeddings.Embeddings`: the one implementation.

:meth:`embgeo.Embeddings.most_similar`, :func:`embgeo.neighbors.most_similar` and
:meth:`embgeo.KeyedVectors.most_similar` all run :func:`most_similar`, so the three read gensim's
arguments the same way (gensim 4.3, ``KeyedVectors.most_similar`` and ``get_mean_vector``):

* every entry has a weight: +1 in ``positive``, −1 in ``negative``, and a ``(key, weight)``
  tuple's weight *replaces* that sign in either list;
* the query is Σ wᵢ vᵢ / Σ |wᵢ| (``vᵢ`` the unit row of a word or row key, a raw vector as
  given, not normalised), then scaled to unit length;
* rows ``clip_start:clip_end`` (``restrict_vocab=n``: ``0:n``) are ranked by cosine to it, the
  key entries excluded.
"""
from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

from .. import backend as xb
from .. import linalg
from ..errors import UnknownWordError
from ._exact import prepared_topk, select_topk


def weighted_keys(positive, negative) -> tuple[list[Any], list[float]]:
    """gensim's reading of ``most_similar``'s arguments: entries and their weights.

    A single key or 1-D vector is a one-entry list and a 2-D matrix a list of rows. An entry that
    is neither a key (str, int) nor an array is a ``(key, weight)`` pair whose weight *replaces*
    the list's default sign (+1 positive, −1 negative), as in gensim 4.
    """
    keys: list[Any] = []
    weights: list[float] = []
    for items, sign in ((positive, 1.0), (negative, -1.0)):
        if items is None:
            continue
        if isinstance(items, (str, Integral)) or (hasattr(items, "ndim") and items.ndim == 1):
            items = [items]
        elif hasattr(items, "ndim") and items.ndim == 2:
            items = [items[i, ...] for i in range(items.shape[0])]
        for item in items:
            if isinstance(item, (str, Integral)) or hasattr(item, "ndim"):
                keys.append(item)
                weights.append(sign)
            elif isinstance(item, tuple) and len(item) == 2:
                keys.append(item[0])
                weights.append(float(item[1]))
            else:
                raise TypeError(f"most_similar entries are words, rows, vectors or (key, weight) pairs, "
                                f"got {item!r}")
    if not keys:
        raise ValueError("most_similar needs at least one positive or negative entry")
    return keys, weights


def _row_of_key(e, key) -> int:
    if isinstance(key, str):
        return e.index(key)
    if 0 <= int(key) < len(e):  # gensim: an int that is not a key is a row
        return int(key)
    raise UnknownWordError(key, context=f"nor a row number below {len(e)}")


def gensim_mean(e, keys, weights, inv):
    """gensim's ``get_mean_vector(keys, weights, pre_normalize=True, post_normalize=True)`` and the
    rows of the key entries (excluded from the results); ``inv`` holds the rows' inverse norms."""
    V = e.vectors
    xp = xb.get_namespace(V)
    mean = xp.zeros((V.shape[1],), dtype=V.dtype)
    total, rows = 0.0, []
    for key, w in zip(keys, weights):
        if isinstance(key, (str, Integral)):
            r = _row_of_key(e, key)
            rows.append(r)
            v = V[r, ...] * inv[r]
        else:
            v = xb.asarray(key, like=V, dtype=V.dtype)
            if tuple(v.shape) != (V.shape[1],):
                raise ValueError(f"a query vector must have shape ({V.shape[1]},), got {tuple(v.shape)}")
        mean = mean + float(w) * v
        total += abs(float(w))
    if total > 0:
        mean = mean / total
    norm = float(xp.sqrt(xp.sum(mean * mean)))
    return (mean / norm if norm > 0 else mean), rows


def most_similar(e, positive=None, negative=None, topn: int | None = 10, clip_start: int = 0,
                 clip_end: int | None = None, restrict_vocab: int | None = None, indexer=None):
    """gensim 4's ``KeyedVectors.most_similar`` on ``e`` (see the module docstring for the semantics).

    No unit-length copy of the vocabulary is made: n cached inverse row norms stand in for
    gensim's unit rows. Over the whole vocabulary the search is the fused, threaded top-k.
    Ties go to the lower row, and an all-zero row scores 0 (gensim: NaN).
    """
    if isinstance(topn, Integral) and topn < 1:
        return []
    keys, weights = weighted_keys(positive, negative)
    n = len(e)
    if restrict_vocab:
        clip_start, clip_end = 0, int(restrict_vocab)
    clip_start, clip_end = max(int(clip_start), 0), min(int(clip_end or n), n)
    V, inv = e.vectors, linalg.cached_inverse_norms(e)
    xp = xb.get_namespace(V)
    query, rows = gensim_mean(e, keys, weights, inv)
    if indexer is not None and isinstance(topn, int):
        return indexer.most_similar(xb.to_numpy(query), topn)
    if clip_end <= clip_start:
        return xb.to_numpy(xp.zeros((0,), dtype=V.dtype)) if not topn else []
    excl = np.unique(np.asarray([r - clip_start for r in rows if clip_start <= r < clip_end], dtype=np.int64))
    k = min(int(topn), clip_end - clip_start - excl.size) if topn else 0
    if topn and k < 1:
        return []
    Q = xp.reshape(query, (1, -1))
    if topn and clip_start == 0 and clip_end == n:
        # the whole vocabulary: the fused, threaded search with the same cached norms (the query
        # is unit length already, or zero: its inverse norm is 1 or 0 as the search's own would be)
        q_inv = linalg.inverse_norms(Q, "query")
        s, i = prepared_topk(xp, Q, V, k, [excl], q_inv, inv, progress=False)
    else:
        scores = (V[clip_start:clip_end, ...] @ query) * inv[clip_start:clip_end, ...]
        if not topn:
            return xb.to_numpy(scores)
        s, i = select_topk(xp.reshape(scores, (1, -1)), k, exclude=[excl])
    s, i = xb.to_numpy(s)[0], xb.to_numpy(i)[0]
    words = e.words
    return [(words[j + clip_start], float(v)) for v, j in zip(s, i)]
