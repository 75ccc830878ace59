"""Embedding-side tools for true and false negatives.

Two methods lean on word-embedding geometry to tell true negatives from false ones:

* Zhang et al. (2023), "Language Model Pre-training on True Negatives" (AAAI). A *hard
  correction* ignores a masked-LM prediction whose token is a synonym of the gold token, the
  synonyms coming from WordNet or from an embedding space (GloVe 6B 50d, the 10 most similar
  words per word); a *soft regularisation* adds ``1 − cos(e_gold, e_pred)`` averaged over the
  masked positions (their eq. 3). :func:`synonym_table`, :func:`false_negative_mask` and
  :func:`soft_regularisation` serve those.
* Safavi et al. (2021), "NegatER: Unsupervised Discovery of Negatives in Commonsense Knowledge
  Bases" (EMNLP). Candidate negatives replace a positive triple's head or tail by its nearest
  phrases in a k-NN index over phrase embeddings (k = 10 or 20; the released code's is FAISS
  ``IndexFlatL2``), kept if they fill that slot of that relation elsewhere in the knowledge base.
  :class:`PhraseIndex` and :func:`candidate_negatives` are that candidate step as the authors'
  released code (tsafavi/NegatER) takes it; the fine-tuned LM scoring stays out.
"""
from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from . import backend as xb
from .io.atomic import atomic_dir, atomic_path
from .embeddings import Embeddings
from .errors import FormatError, UnknownWordError
from .textfile import data_lines, decode_lines

__all__ = ["SynonymTable", "synonym_table", "false_negative_mask", "soft_regularisation",
           "PhraseIndex", "NegativeCandidates", "candidate_negatives", "HEAD", "TAIL"]


# ----------------------------------------------------------------------------- synonym table
@dataclass(frozen=True)
class SynonymTable:
    """Each word's similar words, as CSR arrays over an index space.

    Row ``i`` lists the ids ``indices[indptr[i]:indptr[i+1]]`` (best first) with their cosine
    ``scores``; ids and rows index :attr:`words` (e.g. a tokenizer's vocabulary). A word absent
    from the embeddings has an empty row. Made by :func:`synonym_table` or :meth:`load`.

    Parameters
    ----------
    words : tuple of str
        The index space, n words.
    indptr : ndarray of int64, shape (n + 1,)
        Row ``i`` spans ``indices[indptr[i]:indptr[i + 1]]``.
    indices : ndarray of int64, shape (nnz,)
        The similar words' ids, best first within each row.
    scores : ndarray of float32, shape (nnz,)
        Their cosines.

    Raises
    ------
    ValueError
        Arrays that do not describe n rows, or ids outside [0, n).

    See Also
    --------
    false_negative_mask : the hard correction that looks predictions up in it.
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
        """A dense (n_words, width) int array of ids, padded with ``fill`` (for GPU lookups).

        Parameters
        ----------
        width : int, optional
            Columns kept per row (longer rows are cut, best first kept); default the longest row.
        fill : int, default -1
            The id of empty cells.

        Returns
        -------
        ndarray of int64, shape (n_words, max(width, 1))
            Row ``i`` holds word i's similar ids, then ``fill``.
        """
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
        """Write as JSON, TSV or NPZ, chosen by ``format`` or the file extension. Atomic.

        JSON is ``{"word": [["syn", score], ...]}``, TSV one ``word<TAB>syn<TAB>score`` per line,
        NPZ the CSR arrays.

        Parameters
        ----------
        path : str or Path
            The file to write (replaced only once complete).
        format : {"json", "tsv", "npz"}, optional
            Default: the extension of ``path``.

        Raises
        ------
        ValueError
            An unknown format.

        See Also
        --------
        load : reads the file back.
        """
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
        """Read a table written by :meth:`save`.

        Parameters
        ----------
        path : str or Path
            The file.
        format : {"json", "tsv", "npz"}, optional
            Default: the extension of ``path``.
        words : sequence of str, optional
            For TSV/JSON, the index space (e.g. a tokenizer's vocabulary; pairs with other words
            are left out); by default every word in the file, in order of first appearance.

        Returns
        -------
        SynonymTable
            The table.

        Raises
        ------
        ValueError
            An unknown format.
        FileNotFoundError
            No such file.
        FormatError
            The file is not such a table: bytes that are not UTF-8, a TSV line without three fields
            or with a score that is not a number, JSON that does not parse, a non-finite score
            (each naming the file, and the line where there is one).
        """
        path = Path(path)
        fmt = (format or path.suffix.lstrip(".")).lower()
        if fmt == "npz":
            try:
                with np.load(path, allow_pickle=False) as z:
                    table = cls(tuple(z["words"].tolist()), z["indptr"], z["indices"], z["scores"])
            except FileNotFoundError:
                raise
            except (ValueError, KeyError, OSError, EOFError, zipfile.BadZipFile) as exc:
                raise FormatError(path, f"not a synonym table written by SynonymTable.save ({exc})") from None
            if not np.isfinite(table.scores).all():
                raise FormatError(path, "a synonym score is not finite")
            return table
        if fmt == "json":
            text = "\n".join(decode_lines(path.read_bytes(), path))  # BOM and bad bytes as every reader
            try:
                data = json.loads(text)
                pairs = [(str(w), str(s), float(v)) for w, syn in data.items() for s, v in syn]
            except json.JSONDecodeError as exc:
                raise FormatError(path, f"not JSON ({exc.msg})", line=exc.lineno) from None
            except (AttributeError, TypeError, ValueError):
                raise FormatError(path, "expected {word: [[synonym, score], ...]}") from None
            heads = list(data)
        elif fmt == "tsv":
            pairs, heads = [], []
            for n, line in data_lines(path, comment=None):
                parts = line.split("\t")
                if len(parts) != 3:
                    raise FormatError(path, f"expected word<TAB>synonym<TAB>score, got {len(parts)} fields",
                                      line=n)
                try:
                    pairs.append((parts[0], parts[1], float(parts[2])))
                except ValueError:
                    raise FormatError(path, f"bad score {parts[2]!r}", line=n) from None
                heads.append(parts[0])
        else:
            raise ValueError(f"unknown synonym-table format {fmt!r}: use json, tsv or npz")
        for w, s, v in pairs:
            if not np.isfinite(v):
                raise FormatError(path, f"the score of {w!r} -> {s!r} is not finite ({v})")
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
                  progress: bool | None = None, *, backend="exact", symmetric: bool = False) -> SynonymTable:
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
    memory_budget : int, optional
        Bytes of working memory for the blocked search (default 256 MiB).
    progress : bool, optional
        Progress bar over the blocks; None: automatic.
    backend : {"exact", "dask"} or Exact or Dask, default "exact"
        The engine of :func:`embgeo.neighbors.self_topk`, a name or an engine object with its
        options. ``"dask"`` shards the rows across the workers of the current Dask client
        (``Dask(client)``: of that client) and joins them with themselves shard by shard
        (:mod:`embgeo.distributed`); the table is the local one, bit for bit (canonical scores,
        see :func:`embgeo.neighbors.topk`).
    symmetric : bool
        The exact engine only: score each pair once for both words
        (:func:`embgeo.neighbors.self_topk`'s symmetric path, ~1.24× faster at d = 300); its scores
        are the GEMM's float32 ones and may differ from the canonical ones in the last bit.

    Returns
    -------
    SynonymTable
        One row per word of the index space.

    Raises
    ------
    ValueError
        ``k`` < 1 or larger than the other known words, duplicate words in ``vocabulary``, no word
        of it in ``e``, NaN or inf in the vectors (the word is named), or an unknown ``backend``.
    TypeError
        ``backend`` is neither an engine name nor an engine object.

    See Also
    --------
    false_negative_mask : the hard correction.
    embgeo.neighbors.self_topk : the search.

    References
    ----------
    Zhang, Zhao, Utiyama & Sumita (2023), "Language Model Pre-training on True Negatives", AAAI
    (the embedding-based synonym lookup of the hard correction).
    """
    from .neighbors import Dask, as_engine, self_topk

    engine = as_engine(backend, ("exact", "dask"))
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
    scores, idx = self_topk(xb.to_numpy(X) if isinstance(engine, Dask) else X, k, metric="cosine",
                            memory_budget=memory_budget, progress=progress, symmetric=symmetric, backend=engine)
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


_PHRASE_METRICS = ("l2", "cosine", "dot")


def _duplicates(phrases) -> str:
    """'"x" at rows 3 and 7; ...' for the phrases that occur more than once ('' if none)."""
    rows: dict = {}
    for i, p in enumerate(phrases):
        rows.setdefault(p, []).append(i)
    dup = [(p, r) for p, r in rows.items() if len(r) > 1]
    return "; ".join(f"{p!r} at rows {', '.join(map(str, r))}" for p, r in dup[:5]) + (
        f" (and {len(dup) - 5} more)" if len(dup) > 5 else "")


class PhraseIndex:
    """A k-nearest-neighbour index over phrase embeddings (NegatER's candidate step).

    A phrase's vector is the mean of its words' vectors (words joined by spaces or underscores;
    unknown words are skipped, and a phrase with no known word is an error), or vectors you give.

    ``metric="l2"`` (default) is the index of the released NegatER code
    (``src/job/nearest_neighbors.py``: FAISS ``IndexFlatL2`` over the raw, unnormalised phrase
    vectors); its scores are squared Euclidean distances, smallest first. ``"cosine"`` and
    ``"dot"`` rank by similarity, largest first. ``kind="flat"`` searches exactly with
    :func:`embgeo.neighbors.topk` (blocked GEMM + compiled top-k; L2 as the inner product of
    ``[q, -1]`` with ``[x, ‖x‖²/2]``, which ranks as ``‖q − x‖²`` does); ``"hnsw"`` and ``"ivf"``
    are approximate FAISS indexes (:class:`embgeo.neighbors.faiss_index.FaissIndex`, cosine or
    dot only).

    Parameters
    ----------
    phrases : sequence of str
        The indexed phrases, unique.
    vectors : array, shape (len(phrases), dim)
        Their vectors (stored as float32).
    metric : {"l2", "cosine", "dot"}, default "l2"
        The ranking (see above).
    kind : {"flat", "hnsw", "ivf"}, default "flat"
        Exact search, or an approximate FAISS index.
    index : FaissIndex, optional
        The FAISS index of an approximate ``kind`` (``build`` makes it).

    Raises
    ------
    ValueError
        An unknown metric, ``"l2"`` with an approximate kind, an approximate kind without its
        index, vectors that do not match the phrases, or a phrase given twice (its rows named).

    See Also
    --------
    candidate_negatives : NegatER's candidate step over this index.

    Notes
    -----
    Self-exclusion: an indexed phrase queried against the index never finds itself; its own row
    is removed, whatever its rank. The released code instead searches ``k + 1`` neighbours and
    drops the *first* hit. The two differ only where another phrase is at distance 0 (a phrase
    spelled twice, "ice_cream" and "ice cream" as mean word vectors): the released list may then
    drop the twin and keep the phrase itself, which its filter later removes, so it ends one
    candidate short; here the twin stays. Ties are ordered by the lower row (FAISS leaves the
    order of equal distances to its heap). Phrases must be unique: a phrase given twice is
    refused, naming its rows.

    References
    ----------
    Safavi, Zhu & Koutra (2021), "NegatER: Unsupervised Discovery of Negatives in Commonsense
    Knowledge Bases", EMNLP, Section 3.1.

    Examples
    --------
    >>> idx = PhraseIndex.build(e, ["ice cream", "frozen yogurt", "car"])   # doctest: +SKIP
    >>> idx.query(["ice cream"], k=1)                                      # doctest: +SKIP
    [[('frozen yogurt', 1.93)]]
    """

    def __init__(self, phrases: Sequence[str], vectors, metric: str = "l2", kind: str = "flat", index=None):
        self.phrases = list(phrases)
        if metric not in _PHRASE_METRICS:
            raise ValueError(f"metric must be one of {', '.join(map(repr, _PHRASE_METRICS))}, got {metric!r}")
        if kind != "flat" and metric == "l2":
            raise ValueError(f"kind={kind!r} is a FAISS inner-product index: use metric 'cosine' or 'dot', "
                             "or kind='flat' for l2")
        if kind != "flat" and index is None:
            raise ValueError(f"kind={kind!r} needs its FAISS index")
        self.vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if self.vectors.ndim != 2 or self.vectors.shape[0] != len(self.phrases):
            raise ValueError(f"{len(self.phrases)} phrases but vectors of shape {self.vectors.shape}")
        dup = _duplicates(self.phrases)
        if dup:
            raise ValueError(f"phrases must be unique: {dup}")
        self.metric, self.kind, self.index = metric, kind, index
        self._pos = {p: i for i, p in enumerate(self.phrases)}
        self._database: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.phrases)

    def __contains__(self, phrase) -> bool:
        return phrase in self._pos

    def __repr__(self) -> str:
        return f"PhraseIndex({len(self)} phrases, dim={self.dim}, metric={self.metric!r}, kind={self.kind!r})"

    @property
    def dim(self) -> int:
        """The dimension of the phrase vectors."""
        return self.vectors.shape[1]

    @staticmethod
    def embed(e: Embeddings, phrases: Iterable[str]) -> np.ndarray:
        """Mean word vector of each phrase, float32 NumPy (n_phrases, dim).

        Parameters
        ----------
        e : Embeddings
            The word vectors.
        phrases : iterable of str
            Words joined by spaces or underscores; unknown words are skipped.

        Returns
        -------
        ndarray of float32, shape (n_phrases, dim)
            The means, accumulated in float64.

        Raises
        ------
        ValueError
            A phrase with no word in the vocabulary (named).
        """
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
              metric: str = "l2", **params) -> "PhraseIndex":
        """Embed ``phrases`` (or take ``vectors``) and index them.

        Parameters
        ----------
        e : Embeddings or None
            The word vectors to embed the phrases with (None when ``vectors`` are given).
        phrases : sequence of str
            The phrases, unique.
        vectors : array, shape (len(phrases), dim), optional
            The phrases' vectors, instead of their mean word vectors.
        kind : {"flat", "hnsw", "ivf"}, default "flat"
            Exact search, or an approximate FAISS index.
        metric : {"l2", "cosine", "dot"}, default "l2"
            The ranking; the approximate kinds take ``"cosine"`` or ``"dot"``.
        **params
            The FAISS index's parameters, for ``kind="hnsw"`` or ``"ivf"`` (see
            :class:`embgeo.neighbors.faiss_index.FaissIndex`).

        Returns
        -------
        PhraseIndex
            The index.

        Raises
        ------
        ValueError
            No phrases, a phrase given twice, neither ``e`` nor ``vectors``, vectors that do not
            match the phrases, a phrase with no known word, or ``"l2"`` with an approximate kind.
        TypeError
            Index parameters with ``kind="flat"``.
        """
        phrases = list(phrases)
        if not phrases:
            raise ValueError("no phrases to index")
        dup = _duplicates(phrases)
        if dup:
            raise ValueError(f"phrases must be unique: {dup}")
        if vectors is None:
            if e is None:
                raise ValueError("give embeddings to embed the phrases, or their vectors")
            X = cls.embed(e, phrases)
        else:
            X = np.asarray(xb.check_matrix(xb.to_numpy(vectors), "vectors"), dtype=np.float32)
            if X.shape[0] != len(phrases):
                raise ValueError(f"{len(phrases)} phrases but {X.shape[0]} vectors")
        index = None
        if kind != "flat":
            from .neighbors.faiss_index import FaissIndex

            if metric == "l2":
                raise ValueError(f"kind={kind!r} is a FAISS inner-product index: use metric 'cosine' or "
                                 "'dot', or kind='flat' for l2")
            index = FaissIndex(X.shape[1], metric=metric, kind=kind, **params)
            index.add(X)
        elif params:
            raise TypeError(f"kind='flat' takes no index parameters, got {', '.join(params)}")
        return cls(phrases, X, metric=metric, kind=kind, index=index)

    # ------------------------------------------------------------------ search
    def search(self, Q, k: int, self_ids=None):
        """Scores and rows of the ``k`` nearest indexed phrases of each row of ``Q``.

        Parameters
        ----------
        Q : array, shape (q, dim)
            Query vectors.
        k : int
            Neighbours per query.
        self_ids : array of int, shape (q,), optional
            Each query's own row (-1: none), never returned.

        Returns
        -------
        scores : ndarray of float32, shape (q, k)
            Squared distances (``l2``, ascending) or similarities (descending).
        rows : ndarray of int64, shape (q, k)
            The indexed phrases' rows.

        Raises
        ------
        ValueError
            Queries of another dimension, or ``k`` larger than the phrases available.
        """
        from .neighbors import topk

        Q = np.ascontiguousarray(Q, dtype=np.float32)
        if Q.ndim != 2 or Q.shape[1] != self.dim:
            raise ValueError(f"queries must have shape (q, {self.dim}), got {Q.shape}")
        self_ids = np.full(Q.shape[0], -1, dtype=np.int64) if self_ids is None else np.asarray(self_ids, np.int64)
        extra = int(bool((self_ids >= 0).any()))
        if k + extra > len(self):
            raise ValueError(f"k={k} is larger than the {len(self) - extra} phrases available")
        if self.kind != "flat":
            return self.index.search(Q, k, exclude=self_ids)
        if self.metric != "l2":
            return topk(Q, self.vectors, k, metric=self.metric, exclude=self_ids)
        if self._database is None:
            # ‖q − x‖² = ‖q‖² − 2 (q·x − ‖x‖²/2): the largest inner product of [q, −1] with
            # [x, ‖x‖²/2] is the nearest x, so the exact engine ranks by L2 without a new kernel
            sq = np.einsum("ij,ij->i", self.vectors, self.vectors, dtype=np.float64)
            self._database = np.hstack([self.vectors, (sq / 2).astype(np.float32)[:, None]])
        Qa = np.hstack([Q, np.full((len(Q), 1), -1, dtype=np.float32)])
        s, idx = topk(Qa, self._database, k, metric="dot", exclude=self_ids)
        qq = np.einsum("ij,ij->i", Q, Q, dtype=np.float64)
        dist = np.maximum(qq[:, None] - 2 * s.astype(np.float64), 0).astype(np.float32)
        return dist, idx

    def _query_rows(self, queries, e):
        """Vectors and own rows (-1 for new phrases) of string queries."""
        self_ids = np.array([self._pos.get(q, -1) for q in queries], dtype=np.int64)
        known = self_ids >= 0
        Q = np.empty((len(queries), self.dim), dtype=np.float32)
        if not known.all():
            missing = [q for q in queries if q not in self._pos]
            if e is None:
                more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
                shown = ", ".join(map(repr, missing[:5])) + more
                raise UnknownWordError(missing[0], f"not an indexed phrase ({len(missing)} missing: {shown}); "
                                                   "pass e= to embed new phrases")
            Q[~known] = self.embed(e, missing)
        Q[known] = self.vectors[self_ids[known]]
        return Q, self_ids

    def query(self, queries, k: int = 10, e: Embeddings | None = None, exclude_self: bool = True):
        """The ``k`` nearest indexed phrases of each query.

        Parameters
        ----------
        queries : str, sequence of str, or array (q, dim)
            Indexed phrases (their own vectors are used; they are excluded from their own lists),
            or new phrases with ``e`` to embed them, or a (q, dim) matrix.
        k : int, default 10
            Neighbours per query.
        e : Embeddings, optional
            Embeds the queries that are not indexed phrases.
        exclude_self : bool, default True
            Leave an indexed query out of its own list.

        Returns
        -------
        list of list of (str, float)
            One list per query of (phrase, score), nearest first.

        Raises
        ------
        ValueError
            ``k`` < 1 or larger than the phrases available, or queries of another dimension.
        UnknownWordError
            A query that is not an indexed phrase, without ``e`` (the missing ones are named).
        """
        k = int(k)
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        if isinstance(queries, str):
            queries = [queries]
        if isinstance(queries, (list, tuple)) and all(isinstance(q, str) for q in queries):
            Q, self_ids = self._query_rows(list(queries), e)
            if not exclude_self:
                self_ids[:] = -1
        else:
            Q = np.asarray(xb.to_numpy(queries), dtype=np.float32)
            Q = Q[None, :] if Q.ndim == 1 else Q
            self_ids = None
        scores, idx = self.search(Q, k, self_ids)
        return [[(self.phrases[j], float(s)) for s, j in zip(scores[r], idx[r]) if j >= 0]
                for r in range(idx.shape[0])]

    def save(self, path) -> None:
        """Save to the directory ``path``, atomically.

        Parameters
        ----------
        path : str or Path
            The directory: phrases, vectors, metric and kind, and the FAISS index of an
            approximate kind.

        See Also
        --------
        load : reads it back.
        """
        with atomic_dir(path) as tmp:
            np.save(tmp / "vectors.npy", self.vectors)
            if self.index is not None:
                self.index.save(tmp / "index.faiss")
            (tmp / "phrases.json").write_text(json.dumps(self.phrases, ensure_ascii=False), encoding="utf-8")
            (tmp / "meta.json").write_text(json.dumps({"format": 2, "metric": self.metric, "kind": self.kind}),
                                           encoding="utf-8")

    @classmethod
    def load(cls, path) -> "PhraseIndex":
        """Load an index written by :meth:`save`.

        Parameters
        ----------
        path : str or Path
            The directory :meth:`save` wrote.

        Returns
        -------
        PhraseIndex
            The index.

        Raises
        ------
        FileNotFoundError
            ``path`` is not a saved PhraseIndex.
        """
        path = Path(path)
        if not (path / "phrases.json").is_file() or not (path / "meta.json").is_file():
            raise FileNotFoundError(f"{path} is not a saved PhraseIndex (no phrases.json and meta.json)")
        phrases = json.loads((path / "phrases.json").read_text(encoding="utf-8"))
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        index = None
        if meta["kind"] != "flat":
            from .neighbors.faiss_index import FaissIndex

            index = FaissIndex.load(path / "index.faiss")
        return cls(phrases, np.load(path / "vectors.npy", allow_pickle=False), metric=meta["metric"],
                   kind=meta["kind"], index=index)


# ----------------------------------------------------------------------------- NegatER candidates
#: Positions of the triple that a candidate replaces (:attr:`NegativeCandidates.slot`).
HEAD, TAIL = 0, 2


@dataclass(frozen=True)
class NegativeCandidates:
    """NegatER's candidate negatives as arrays: candidate ``i`` is the triple
    ``(phrases[head[i]], relations[relation[i]], phrases[tail[i]])``, made from input triple
    ``source[i]`` by replacing its position ``slot[i]`` (0 = head, 2 = tail) with a neighbour whose
    index score was ``score[i]`` (squared L2 distance for ``metric="l2"``).

    Candidates come grouped by source triple, head replacements first, each slot in neighbour
    order. A negative made from two positives appears twice, as in the released code. Made by
    :func:`candidate_negatives`.

    Parameters
    ----------
    phrases : tuple of str
        The phrase vocabulary that ``head`` and ``tail`` index.
    relations : tuple of str
        The relation names that ``relation`` indexes.
    head, relation, tail : ndarray of int64, shape (m,)
        The candidate triples.
    source : ndarray of int64, shape (m,)
        The input triple each candidate was made from.
    slot : ndarray of int64, shape (m,)
        The position replaced: :data:`HEAD` (0) or :data:`TAIL` (2).
    score : ndarray of float32, shape (m,)
        The index score of the replacing neighbour.
    """

    phrases: tuple
    relations: tuple
    head: np.ndarray
    relation: np.ndarray
    tail: np.ndarray
    source: np.ndarray
    slot: np.ndarray
    score: np.ndarray

    def __len__(self) -> int:
        return len(self.head)

    def __iter__(self):
        """(head, relation, tail) strings, candidate by candidate."""
        P, R = self.phrases, self.relations
        for h, r, t in zip(self.head.tolist(), self.relation.tolist(), self.tail.tolist()):
            yield P[h], R[r], P[t]

    def __repr__(self) -> str:
        return (f"NegativeCandidates({len(self)} candidates from {len(np.unique(self.source))} triples: "
                f"{int((self.slot == HEAD).sum())} heads, {int((self.slot == TAIL).sum())} tails)")

    def counts(self) -> dict:
        """The number of candidates per relation and replaced slot.

        Returns
        -------
        dict
            ``{(relation, "head" | "tail"): number of candidates}``, every pair included (0 too).
        """
        out = {}
        for slot, name in ((HEAD, "head"), (TAIL, "tail")):
            n = np.bincount(self.relation[self.slot == slot], minlength=len(self.relations))
            out.update({(self.relations[r], name): int(n[r]) for r in range(len(self.relations))})
        return out


def _triple_array(triples, what):
    rows = [tuple(t) for t in triples]
    for n, t in enumerate(rows):
        if len(t) != 3:
            raise ValueError(f"{what} must be (head, relation, tail); row {n} is {t!r}")
    return rows


def _member(keys: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Whether each key is in the sorted, unique ``table``."""
    if table.size == 0:
        return np.zeros(keys.shape, dtype=bool)
    pos = np.minimum(np.searchsorted(table, keys), table.size - 1)
    return table[pos] == keys


def candidate_negatives(triples, index, k: int = 10, *, corrupt: str = "both", slot_filter: bool = True,
                        known=None, e: Embeddings | None = None) -> NegativeCandidates:
    """NegatER's candidate negatives: replace each triple's head and tail by their nearest phrases.

    For every (head, relation, tail), each of the ``k`` nearest neighbours ``n`` of the tail gives
    the candidate (head, relation, n), and each neighbour of the head gives (n, relation, tail),
    kept only if ``n`` fills that slot of that relation somewhere in the knowledge base, and is
    neither a known positive's filler in that direction nor the triple's own head or tail. This is
    ``_generate_corruptions`` of the released code (tsafavi/NegatER,
    ``src/job/generate_negatives.py``); Safavi et al. (2021), Section 3.1 (NegatER-θ, step 1).

    Parameters
    ----------
    triples : iterable of (head, relation, tail)
        The positives to corrupt.
    index : PhraseIndex or mapping
        The phrase index (the released code's is ``PhraseIndex(..., metric="l2")``), or the
        neighbour lists themselves, ``{phrase: [neighbour, ...]}`` nearest first (the
        ``top_k_index.json`` the released code saves); a phrase missing from the mapping has no
        neighbours there.
    k : int
        Neighbours per phrase (10 or 20 in the paper; the mapping's lists are cut to ``k``).
    corrupt : {"both", "head", "tail"}
        Which positions to replace. The released code replaces both; ``"tail"`` is embgeo's earlier
        tail-only variant.
    slot_filter : bool
        Keep only neighbours that fill the same slot of the same relation in the knowledge base
        (released). ``False`` keeps any neighbour (the known positives and the triple's own head
        and tail are still removed).
    known : iterable of triples, optional
        The knowledge base: slot fillers and known positives. Always includes ``triples``; the
        released code uses its train, valid and test triples, and corrupts them all.
    e : Embeddings, optional
        Embeds a head or tail that is not in the index (as a query only: it never becomes a
        candidate). Without it such phrases are refused, named.

    Returns
    -------
    NegativeCandidates
        Iterating gives (head, relation, tail) strings; arrays give ids, slots, sources and scores.

    Raises
    ------
    ValueError
        A row is not a triple, ``corrupt`` or ``k`` is invalid.
    UnknownWordError
        A head or tail to corrupt is not in the index and ``e`` is not given.

    Notes
    -----
    A relation whose slot has a single filler yields no candidate for that slot (the filler is
    the triple's own phrase); that is not an error. Neighbours found by :class:`PhraseIndex` never
    include the query phrase itself, whatever its rank (see the class's notes on how this differs
    from dropping the first hit).
    """
    if corrupt not in ("both", "head", "tail"):
        raise ValueError(f"corrupt must be 'both', 'head' or 'tail', got {corrupt!r}")
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    rows = _triple_array(triples, "triples")
    kb = rows + ([] if known is None else _triple_array(known, "known triples"))
    is_index = isinstance(index, PhraseIndex)
    if not is_index and not hasattr(index, "get"):
        raise TypeError(f"index must be a PhraseIndex or a mapping phrase -> neighbours, got {type(index).__name__}")

    phrases, pos, relations = _id_space(index if is_index else None, kb)
    _check_key_space(len(phrases), max(len(relations), 1))
    KB = np.array([(pos[h], relations[r], pos[t]) for h, r, t in kb], dtype=np.int64).reshape(-1, 3)
    T = KB[:len(rows)]
    slots = (HEAD, TAIL) if corrupt == "both" else ((HEAD,) if corrupt == "head" else (TAIL,))

    # neighbour lists of every phrase to corrupt: (u, k) ids into `phrases`, -1 where a list is short
    need = np.unique(np.concatenate([T[:, s] for s in slots])) if len(T) else np.zeros(0, np.int64)
    if is_index:
        NB, SC = _index_neighbours(index, need, phrases, k, e)
    else:
        NB, SC = _mapping_neighbours(index, need, phrases, pos, k)
    V, R = len(phrases), max(len(relations), 1)
    _check_key_space(V, R)
    row_of = np.full(V, -1, dtype=np.int64)
    row_of[need] = np.arange(len(need))

    # known positives and slot fillers as sorted int64 keys; one vectorised pass per slot
    kb_keys = np.unique((KB[:, 0] * R + KB[:, 1]) * V + KB[:, 2])
    parts = [_slot_candidates(s, T, KB, NB[row_of[T[:, s]]], SC[row_of[T[:, s]]], kb_keys, V, R, slot_filter)
             for s in slots]
    src, slot, head, tail, score = (np.concatenate(a) for a in zip(*parts))
    order = np.argsort(src, kind="stable")  # by source triple; heads before tails, neighbour order
    return NegativeCandidates(tuple(phrases), tuple(relations), head[order], T[src[order], 1], tail[order],
                              src[order], slot[order], score[order])


def _id_space(index, kb):
    """One id space for the phrases: the index's phrases first (``index`` a PhraseIndex, or None), then the
    other phrases of the knowledge base ``kb``; and an id per relation. Returns ``(phrases, pos, relations)``."""
    phrases = list(index.phrases) if index is not None else []
    pos = dict(index._pos) if index is not None else {}
    relations: dict = {}
    for h, r, t in kb:
        for p in (h, t):
            if p not in pos:
                pos[p] = len(phrases)
                phrases.append(p)
        relations.setdefault(r, len(relations))
    return phrases, pos, relations


def _check_key_space(V: int, R: int) -> None:
    """A triple is keyed by one int64, (head · R + relation) · V + tail: refuse what would overflow it."""
    if V * V * R >= 2 ** 63:
        raise ValueError(f"{V} phrases x {R} relations is too many to key triples with int64")


def _index_neighbours(index, need, phrases, k, e):
    """The ``k`` nearest phrases of each phrase ``need`` by a PhraseIndex, ids and scores (-1 and NaN
    where the index holds fewer)."""
    kk = min(k, len(index) - 1)
    NB = np.full((len(need), max(kk, 1)), -1, dtype=np.int64)
    SC = np.full(NB.shape, np.nan, dtype=np.float32)
    if kk >= 1 and len(need):
        Q, self_ids = index._query_rows([phrases[i] for i in need], e)
        SC[:, :kk], NB[:, :kk] = index.search(Q, kk, self_ids)
    return NB, SC


def _mapping_neighbours(index, need, phrases, pos, k):
    """The first ``k`` neighbours of each phrase ``need`` in a mapping phrase -> neighbours (a phrase new to
    the id space gets the next id); the scores are NaN, a mapping has ranks only."""
    lists = [list(index.get(phrases[i], ()))[:k] for i in need]
    for lst in lists:
        for p in lst:
            if p not in pos:
                pos[p] = len(phrases)
                phrases.append(p)
    NB = np.full((len(need), k), -1, dtype=np.int64)
    for j, lst in enumerate(lists):
        NB[j, :len(lst)] = [pos[p] for p in lst]
    SC = np.full(NB.shape, np.nan, dtype=np.float32)  # a mapping has ranks, not scores
    return NB, SC


def _slot_candidates(s, T, KB, cand, sc, kb_keys, V, R, slot_filter):
    """The candidates of slot ``s`` (HEAD or TAIL) of the triples ``T`` from their neighbours ``cand``
    (scores ``sc``): ``(source, slot, head, tail, score)`` arrays, neighbour order within a triple."""
    h0, r0, t0 = T[:, [0]], T[:, [1]], T[:, [2]]
    ok = (cand >= 0) & (cand != h0) & (cand != t0)
    if slot_filter:
        ok &= _member(r0 * V + cand, np.unique(KB[:, 1] * V + KB[:, s]))
    key = (cand * R + r0) * V + t0 if s == HEAD else (h0 * R + r0) * V + cand
    ok &= ~_member(key, kb_keys)
    src, col = np.nonzero(ok)
    c = cand[src, col]
    return (src, np.full(len(src), s, dtype=np.int8), c if s == HEAD else T[src, 0],
            T[src, 2] if s == HEAD else c, sc[src, col])
