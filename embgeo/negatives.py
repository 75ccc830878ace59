"""Embedding-side tools for true and false negatives.

Two methods lean on word-embedding geometry to tell true negatives from false ones:

* Zhang et al. (2023), "Language Model Pre-training on True Negatives" (AAAI). A *hard
  correction* ignores a masked-LM prediction whose token is a synonym of the gold token, the
  synonyms coming from WordNet or from an embedding space (GloVe 6B 50d, the 10 most similar
  words per word); a *soft regularisation* adds ``1 − cos(e_gold, e_pred)`` averaged over the
  masked positions (their eq. 3). :func:`synonym_table`, :func:`false_negative_mask` and
  :func:`soft_regularisation` serve those.
* Safavi et al. (2021), "NegatER: Unsupervised Discovery of Negatives in Commonsense Knowledge
  Bases" (EMNLP). Candidate negatives are found through a k-nearest-neighbour index over phrase
  embeddings (k = 10 or 20), built once, saved and reloaded. :class:`PhraseIndex` and
  :func:`candidate_negatives` are its candidate step (the fine-tuned LM scoring stays out).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from . import backend as xb
from .io.atomic import atomic_dir, atomic_path
from .embeddings import Embeddings
from .errors import UnknownWordError

__all__ = ["SynonymTable", "synonym_table", "false_negative_mask", "soft_regularisation",
           "PhraseIndex", "candidate_negatives"]


# ----------------------------------------------------------------------------- synonym table
@dataclass(frozen=True)
class SynonymTable:
    """Each word's similar words, as CSR arrays over an index space.

    Row ``i`` lists the ids ``indices[indptr[i]:indptr[i+1]]`` (best first) with their cosine
    ``scores``; ids and rows index :attr:`words` (e.g. a tokenizer's vocabulary). A word absent
    from the embeddings has an empty row.
    """

    words: tuple
    indptr: np.ndarray
    indices: np.ndarray
    scores: np.ndarray

    def __post_init__(self):
        n = len(self.words)
        if self.indptr.shape != (n + 1,) or self.indptr[0] != 0 or self.indptr[-1] != len(self.indices):
            raise ValueError("indptr does not describe the rows of this table")
        if len(self.indices) != len(self.scores):
            raise ValueError("indices and scores differ in length")
        if len(self.indices) and (self.indices.min() < 0 or self.indices.max() >= n):
            raise ValueError(f"ids must lie in [0, {n})")

    def __len__(self) -> int:
        return len(self.words)

    @property
    def _index(self) -> dict:
        idx = self.__dict__.get("_index_cache")
        if idx is None:
            idx = {w: i for i, w in enumerate(self.words)}
            object.__setattr__(self, "_index_cache", idx)
        return idx

    def __contains__(self, word) -> bool:
        return word in self._index

    def __getitem__(self, word: str) -> list[str]:
        """The similar words of ``word``, best first."""
        try:
            i = self._index[word]
        except KeyError:
            raise UnknownWordError(word, "not in the synonym table") from None
        return [self.words[j] for j in self.indices[self.indptr[i]:self.indptr[i + 1]]]

    def items(self):
        """(word, [(synonym, score), ...]) for every row."""
        for i, w in enumerate(self.words):
            s, e = self.indptr[i], self.indptr[i + 1]
            yield w, [(self.words[j], float(v)) for j, v in zip(self.indices[s:e], self.scores[s:e])]

    def to_padded(self, width: int | None = None, fill: int = -1) -> np.ndarray:
        """A dense (n_words, width) int array of ids, padded with ``fill`` (for GPU lookups)."""
        lengths = np.diff(self.indptr)
        width = int(lengths.max(initial=0)) if width is None else int(width)
        out = np.full((len(self.words), max(width, 1)), fill, dtype=np.int64)
        rows = np.repeat(np.arange(len(self.words)), lengths)
        cols = np.arange(len(self.indices)) - np.repeat(self.indptr[:-1], lengths)
        keep = cols < width
        out[rows[keep], cols[keep]] = self.indices[keep]
        return out

    # --------------------------------------------------------------- export / import
    def save(self, path, format: str | None = None) -> None:
        """Write as JSON (``{"word": [["syn", score], ...]}``), TSV (``word<TAB>syn<TAB>score``
        per line) or NPZ (the CSR arrays), chosen by ``format`` or the file extension. Atomic."""
        path = Path(path)
        fmt = (format or path.suffix.lstrip(".")).lower()
        if fmt == "json":
            data = {w: [[s, round(v, 6)] for s, v in syn] for w, syn in self.items()}
            _atomic_write(path, lambda f: f.write(json.dumps(data, ensure_ascii=False).encode("utf-8")))
        elif fmt == "tsv":
            lines = [f"{w}\t{s}\t{v:.6f}" for w, syn in self.items() for s, v in syn]
            _atomic_write(path, lambda f: f.write(("\n".join(lines) + "\n").encode("utf-8")))
        elif fmt == "npz":
            def write(f):
                np.savez(f, words=np.array(self.words, dtype=object).astype(str), indptr=self.indptr,
                         indices=self.indices, scores=self.scores)
            _atomic_write(path, write)
        else:
            raise ValueError(f"unknown synonym-table format {fmt!r}: use json, tsv or npz")

    @classmethod
    def load(cls, path, format: str | None = None, words: Sequence[str] | None = None) -> "SynonymTable":
        """Read a table written by :meth:`save`. For TSV/JSON, ``words`` fixes the index space
        (e.g. a tokenizer's vocabulary); by default it is every word in the file, in order of
        first appearance."""
        path = Path(path)
        fmt = (format or path.suffix.lstrip(".")).lower()
        if fmt == "npz":
            with np.load(path, allow_pickle=False) as z:
                return cls(tuple(z["words"].tolist()), z["indptr"], z["indices"], z["scores"])
        if fmt == "json":
            data = json.loads(path.read_text(encoding="utf-8-sig"))
            pairs = [(w, s, float(v)) for w, syn in data.items() for s, v in syn]
            heads = list(data)
        elif fmt == "tsv":
            pairs, heads = [], []
            for n, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), 1):
                if not line.strip():
                    continue
                parts = line.split("\t")
                if len(parts) != 3:
                    raise ValueError(f"{path}:{n}: expected word<TAB>synonym<TAB>score, got {len(parts)} fields")
                try:
                    pairs.append((parts[0], parts[1], float(parts[2])))
                except ValueError:
                    raise ValueError(f"{path}:{n}: bad score {parts[2]!r}") from None
                heads.append(parts[0])
        else:
            raise ValueError(f"unknown synonym-table format {fmt!r}: use json, tsv or npz")
        if words is None:
            seen = dict.fromkeys(heads)
            seen.update(dict.fromkeys(s for _, s, _ in pairs))
            words = list(seen)
        index = {w: i for i, w in enumerate(words)}
        rows, cols, vals = [], [], []
        for w, s, v in pairs:
            if w in index and s in index:
                rows.append(index[w])
                cols.append(index[s])
                vals.append(v)
        return _from_coo(tuple(words), np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64),
                         np.array(vals, dtype=np.float32))


def _atomic_write(path, write) -> None:
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        write(f)


def _from_coo(words, rows, cols, vals) -> SynonymTable:
    # stable sort by row keeps each row's best-first order
    order = np.argsort(rows, kind="stable")
    rows, cols, vals = rows[order], cols[order], vals[order]
    indptr = np.zeros(len(words) + 1, dtype=np.int64)
    np.add.at(indptr, rows + 1, 1)
    return SynonymTable(words, np.cumsum(indptr), cols.astype(np.int64), vals.astype(np.float32))


def synonym_table(e: Embeddings, k: int = 10, threshold: float | None = None, mutual: bool = False,
                  vocabulary: Sequence[str] | None = None, memory_budget: int | None = None,
                  progress: bool | None = None, *, backend: str = "exact", client=None,
                  symmetric: bool = False) -> SynonymTable:
    """Each word's ``k`` most similar words by cosine, in one blocked pass over the vocabulary.

    Zhang et al. (2023) build their hard-correction lookup table this way from GloVe 6B 50d with
    k = 10. Queries and candidates are the words of ``vocabulary`` (e.g. a tokenizer's whole-word
    tokens) that the embeddings know, or all of ``e``; a word is never its own synonym.

    Parameters
    ----------
    e : Embeddings
    k : int
        Neighbours per word before filtering; at most the number of known words minus one.
    threshold : float, optional
        Keep only neighbours with cosine ≥ threshold.
    mutual : bool
        Keep ``j`` in the list of ``i`` only if ``i`` is also in the list of ``j``.
    vocabulary : sequence of str, optional
        The index space of the table. Words missing from ``e`` get empty rows.

    backend : {"exact", "dask"}
        ``"dask"`` shards the rows across the workers of the current Dask client (or ``client``)
        and joins them with themselves shard by shard (:mod:`embgeo.distributed`); the table is
        the local one, bit for bit (canonical scores, see :func:`embgeo.neighbors.topk`).
    client : distributed.Client, optional
        With ``backend="dask"``: the client to use (default: the current one).
    symmetric : bool
        ``backend="exact"`` only: score each pair once for both words
        (:func:`embgeo.neighbors.self_topk`'s symmetric path, ~1.24× faster at d = 300); its scores
        are the GEMM's float32 ones and may differ from the canonical ones in the last bit.

    Returns
    -------
    SynonymTable
    """
    from .neighbors import self_topk

    k = int(k)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if vocabulary is None:
        words = tuple(e.words)
        known = np.arange(len(e))
        rows_in_e = known
    else:
        words = tuple(vocabulary)
        if len(set(words)) != len(words):
            raise ValueError("vocabulary has duplicate words")
        ids = e.indices(words, oov="mark")
        known = np.flatnonzero(ids >= 0)
        rows_in_e = ids[known]
        if known.size == 0:
            raise ValueError("none of the vocabulary's words is in the embeddings")
    if k > known.size - 1:
        raise ValueError(f"k={k} is larger than the {known.size - 1} other words available")
    e.check_finite(None if vocabulary is None else rows_in_e)
    X = e.vectors
    if not (vocabulary is None):
        xp = xb.get_namespace(X)
        X = X[rows_in_e, ...] if xb.is_numpy(X) else xp.take(X, xp.asarray(rows_in_e), axis=0)
    if backend not in ("exact", "dask"):
        raise ValueError(f"backend must be 'exact' or 'dask', got {backend!r}")
    scores, idx = self_topk(xb.to_numpy(X) if backend == "dask" else X, k, metric="cosine",
                            memory_budget=memory_budget, progress=progress, symmetric=symmetric, backend=backend,
                            client=client)
    scores, idx = xb.to_numpy(scores), xb.to_numpy(idx)
    keep = np.ones(idx.shape, dtype=bool)
    if threshold is not None:
        keep &= scores >= threshold
    if mutual:
        import scipy.sparse as sp

        m = known.size
        A = sp.csr_matrix((np.ones(idx.size, dtype=np.int8), idx.ravel(), np.arange(0, idx.size + 1, k)),
                          shape=(m, m))
        # (i, j) is mutual when A[j, i] is set too: look it up in Aᵀ, row by row
        At = A.T.tocsr()
        rows = np.repeat(np.arange(m), k)
        keep &= np.asarray(At[rows, idx.ravel()]).reshape(idx.shape) > 0
    rows = np.repeat(known, k).reshape(idx.shape)[keep]
    return _from_coo(words, rows, known[idx[keep]], scores[keep])


# ----------------------------------------------------------------------------- hard correction
def false_negative_mask(pred_ids, gold_ids, table):
    """True where a prediction is a synonym of the gold token (Zhang et al. 2023, hard correction).

    Parameters
    ----------
    pred_ids, gold_ids : int arrays of the same shape
        Token ids in the table's index space; NumPy, CuPy or any array-API library. Negative
        ids (padding) are never synonyms.
    table : SynonymTable or int array (n_words, width)
        A table, or its :meth:`SynonymTable.to_padded` form already on the device (pass that in a
        training loop to avoid a host-to-device copy per batch).

    Returns
    -------
    mask : bool array, same shape and library as ``pred_ids``
        The positions whose loss should be ignored. A prediction equal to the gold token is a
        correct prediction, not a false negative, and is not masked.
    """
    xp = xb.get_namespace(pred_ids, gold_ids)
    pred, gold = xp.asarray(pred_ids), xp.asarray(gold_ids)
    if tuple(pred.shape) != tuple(gold.shape):
        raise ValueError(f"pred_ids and gold_ids differ in shape ({tuple(pred.shape)} vs {tuple(gold.shape)})")
    padded = xp.asarray(table.to_padded() if isinstance(table, SynonymTable) else table)
    n = padded.shape[0]
    flat_g = xp.reshape(gold, (-1,))
    if bool(xp.any(flat_g >= n)) or bool(xp.any(xp.reshape(pred, (-1,)) >= n)):
        raise ValueError(f"token ids must be below the table size {n}")
    valid = flat_g >= 0
    rows = xp.take(padded, xp.where(valid, flat_g, xp.zeros_like(flat_g)), axis=0)
    flat_p = xp.reshape(pred, (-1, 1))
    hit = xp.any((rows == flat_p) & (rows >= 0), axis=1) & valid & (xp.reshape(pred, (-1,)) >= 0)
    return xp.reshape(hit, tuple(pred.shape))


# ----------------------------------------------------------------------------- soft regularisation
def soft_regularisation(e_gold, e_pred, mask=None):
    """Zhang et al. (2023), eq. 3: the mean over masked positions of ``1 − cos(e_gold, e_pred)``.

    Parameters
    ----------
    e_gold, e_pred : arrays, shape (..., d)
        Embeddings of the gold and the predicted tokens at each position.
    mask : bool array, shape (...), optional
        Positions to average over (the masked-LM positions); all positions by default.

    Returns
    -------
    float array (0-d), same library as the inputs. Zero vectors count as cosine 0.
    """
    xp = xb.get_namespace(e_gold, e_pred)
    g, p = xp.asarray(e_gold), xp.asarray(e_pred)
    if tuple(g.shape) != tuple(p.shape):
        raise ValueError(f"e_gold and e_pred differ in shape ({tuple(g.shape)} vs {tuple(p.shape)})")
    if g.ndim < 1 or g.shape[-1] == 0:
        raise ValueError("embeddings need a non-empty last (feature) axis")
    ng = xp.sqrt(xp.sum(g * g, axis=-1))
    npred = xp.sqrt(xp.sum(p * p, axis=-1))
    denom = ng * npred
    cos = xp.sum(g * p, axis=-1) / xp.where(denom == 0, xp.ones_like(denom), denom)
    loss = 1 - cos
    if mask is None:
        if loss.ndim == 0:
            return loss
        return xp.mean(loss)
    m = xp.asarray(mask)
    if tuple(m.shape) != tuple(loss.shape):
        raise ValueError(f"mask has shape {tuple(m.shape)}, expected {tuple(loss.shape)}")
    count = xp.sum(xp.astype(m, loss.dtype))
    if float(count) == 0:
        raise ValueError("mask selects no position")
    return xp.sum(xp.where(m, loss, xp.zeros_like(loss))) / count


# ----------------------------------------------------------------------------- phrase index
def _split(phrase: str) -> list[str]:
    return phrase.replace("_", " ").split()


class PhraseIndex:
    """A k-nearest-neighbour index over phrase embeddings (NegatER's candidate step).

    A phrase's vector is the mean of its words' vectors (words joined by spaces or underscores;
    unknown words are skipped, and a phrase with no known word is an error), or vectors you give.
    Search runs on FAISS (:class:`embgeo.neighbors.faiss_index.FaissIndex`): ``kind="flat"`` is exact,
    ``"hnsw"`` and ``"ivf"`` approximate.

    Examples
    --------
    >>> idx = PhraseIndex.build(e, ["ice cream", "frozen yogurt", "car"])   # doctest: +SKIP
    >>> idx.query(["ice cream"], k=1)                                      # doctest: +SKIP
    [[('frozen yogurt', 0.83)]]
    """

    def __init__(self, phrases: Sequence[str], index):
        self.phrases = list(phrases)
        self.index = index
        self._pos = {p: i for i, p in enumerate(self.phrases)}

    def __len__(self) -> int:
        return len(self.phrases)

    def __contains__(self, phrase) -> bool:
        return phrase in self._pos

    @staticmethod
    def embed(e: Embeddings, phrases: Iterable[str]) -> np.ndarray:
        """Mean word vector of each phrase, float32 NumPy (n_phrases, dim)."""
        phrases = list(phrases)
        V = xb.to_numpy(e.vectors)
        out = np.empty((len(phrases), e.dim), dtype=np.float32)
        for i, p in enumerate(phrases):
            ids = e.indices(_split(p), oov="skip")
            if ids.size == 0:
                raise ValueError(f"phrase {p!r} has no word in the vocabulary (empty phrase)")
            out[i] = V[ids].mean(axis=0, dtype=np.float64)
        return out

    @classmethod
    def build(cls, e: Embeddings | None, phrases: Sequence[str], vectors=None, kind: str = "flat",
              metric: str = "cosine", **params) -> "PhraseIndex":
        """Embed ``phrases`` (or take ``vectors``) and index them."""
        from .neighbors.faiss_index import FaissIndex

        phrases = list(phrases)
        if not phrases:
            raise ValueError("no phrases to index")
        if len(set(phrases)) != len(phrases):
            raise ValueError("phrases must be unique")
        if vectors is None:
            if e is None:
                raise ValueError("give embeddings to embed the phrases, or their vectors")
            X = cls.embed(e, phrases)
        else:
            X = np.asarray(xb.check_matrix(xb.to_numpy(vectors), "vectors"), dtype=np.float32)
            if X.shape[0] != len(phrases):
                raise ValueError(f"{len(phrases)} phrases but {X.shape[0]} vectors")
        index = FaissIndex(X.shape[1], metric=metric, kind=kind, **params)
        index.add(X)
        return cls(phrases, index)

    def query(self, queries, k: int = 10, e: Embeddings | None = None, exclude_self: bool = True):
        """The ``k`` nearest indexed phrases of each query.

        ``queries`` are indexed phrases (their own vectors are used; they are excluded from their
        own lists), or new phrases with ``e`` to embed them, or a (q, dim) matrix.
        Returns a list (one per query) of (phrase, score) lists, best first.
        """
        k = int(k)
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if isinstance(queries, str):
            queries = [queries]
        if isinstance(queries, (list, tuple)) and all(isinstance(q, str) for q in queries):
            # an indexed phrase is its own nearest neighbour: mark it (-1 for new phrases) to drop it
            self_ids = np.array([self._pos.get(q, -1) for q in queries], dtype=np.int64)
            missing = [q for q in queries if q not in self._pos]
            known = self_ids >= 0
            Q = np.empty((len(queries), self.index.dim), dtype=np.float32)
            if missing:
                if e is None:
                    raise UnknownWordError(missing[0], "not an indexed phrase; pass e= to embed new phrases")
                Q[~known] = self.embed(e, missing)
            if known.any():
                Q[known] = self.index.reconstruct(self_ids[known])
            if not exclude_self:
                self_ids[:] = -1
        else:
            Q = np.asarray(xb.to_numpy(queries), dtype=np.float32)
            self_ids = np.full(Q.shape[0] if Q.ndim == 2 else 1, -1, dtype=np.int64)
        extra = int(bool((self_ids >= 0).any()))
        if k + extra > len(self):
            raise ValueError(f"k={k} is larger than the {len(self) - extra} phrases available")
        scores, idx = self.index.search(Q, k + extra)
        out = []
        for r in range(idx.shape[0]):
            row = [(self.phrases[j], float(s)) for s, j in zip(scores[r], idx[r]) if j >= 0 and j != self_ids[r]]
            out.append(row[:k])
        return out

    def save(self, path) -> None:
        """Save to the directory ``path`` (the FAISS index and the phrase list), atomically."""
        with atomic_dir(path) as tmp:
            self.index.save(tmp / "index.faiss")
            (tmp / "phrases.json").write_text(json.dumps(self.phrases, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path) -> "PhraseIndex":
        """Load an index written by :meth:`save`."""
        from .neighbors.faiss_index import FaissIndex

        path = Path(path)
        if not (path / "phrases.json").is_file():
            raise FileNotFoundError(f"{path} is not a saved PhraseIndex (no phrases.json)")
        phrases = json.loads((path / "phrases.json").read_text(encoding="utf-8"))
        return cls(phrases, FaissIndex.load(path / "index.faiss"))


def candidate_negatives(triples, index: PhraseIndex, k: int = 10, exclude=None, e: Embeddings | None = None):
    """NegatER-θ candidates: replace each triple's tail by its nearest indexed phrases.

    For every (head, relation, tail), the ``k`` phrases nearest the tail (by the index's metric)
    become candidate tails, skipping the tail itself and every (head, relation, candidate) that is
    a known positive. Safavi et al. (2021), Section 3.1.

    Parameters
    ----------
    triples : iterable of (head, relation, tail)
    index : PhraseIndex
    k : int
        Neighbours retrieved per tail (10 or 20 in the paper) before known positives are removed.
    exclude : iterable of triples, optional
        Known positives; by default the given triples.
    e : Embeddings, optional
        Needed only for tails that are not in the index.

    Returns
    -------
    list of (head, relation, candidate_tail, score)
    """
    triples = [tuple(t) for t in triples]
    for t in triples:
        if len(t) != 3:
            raise ValueError(f"triples must be (head, relation, tail), got {t!r}")
    if not triples:
        return []
    positives = set(triples) if exclude is None else {tuple(t) for t in exclude} | set(triples)
    tails = list(dict.fromkeys(t[2] for t in triples))
    neigh = dict(zip(tails, index.query(tails, k=min(k, len(index) - 1), e=e)))
    out = []
    for h, r, t in triples:
        for cand, score in neigh[t]:
            if cand != t and (h, r, cand) not in positives:
                out.append((h, r, cand, score))
    return out
