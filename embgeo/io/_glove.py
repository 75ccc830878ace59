"""GloVe's own model files: every parameter of a trained model, for :mod:`embgeo.alpha`.

GloVe (Pennington et al. 2014) writes ``vectors.bin`` (``-binary 1``: W, then W̃, each row with its
bias, float64) or ``vectors.txt`` (``-model 0``: a word's w, b, w̃, b̃ on one line), and
``vocab_count`` writes the vocabulary with its counts. Natural alpha embeddings (Volpi & Malagò
2020) need all four parameter sets, so :func:`read_glove` reads them together; the embeddings-only
formats are :func:`embgeo.io.load`'s.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import FormatError
from ..textfile import read_lines

__all__ = ["GloveModel", "read_glove"]


@dataclass
class GloveModel:
    """All parameters of a GloVe model: ``log X_wχ ≈ w_wᵀ c_χ + b_w + b̃_χ`` (Pennington et al. 2014).

    Parameters
    ----------
    words : list of str
        The vocabulary, in row order.
    word_vectors : ndarray of shape (n, d), float64
        GloVe's W: U of the alpha model.
    word_bias : ndarray of shape (n,), float64
        GloVe's b.
    context_vectors : ndarray of shape (n, d), float64
        GloVe's W̃: V of the alpha model.
    context_bias : ndarray of shape (n,), float64
        GloVe's b̃.
    counts : ndarray of shape (n,), optional
        Word counts from the vocabulary file, when given.

    References
    ----------
    J. Pennington, R. Socher and C. D. Manning, "GloVe: Global vectors for word
    representation", EMNLP 2014.
    """

    words: list
    word_vectors: np.ndarray
    word_bias: np.ndarray
    context_vectors: np.ndarray
    context_bias: np.ndarray
    counts: np.ndarray | None = None


def _read_glove_vocab(path):
    words, counts = [], []
    # the corpus's bytes as they are (vocab_count does not check UTF-8): the vectors file's words match
    for lineno, line in read_lines(path, errors="surrogateescape"):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise FormatError(path, f"expected 'word count' (vocab_count's output), "
                                    f"got {len(parts)} fields", lineno)
        try:
            counts.append(float(parts[1]))
        except ValueError:
            raise FormatError(path, f"count {parts[1]!r} of {parts[0]!r} is not a number", lineno) from None
        words.append(parts[0])
    if not words:
        raise FormatError(path, "empty vocabulary file")
    return words, np.asarray(counts)


def read_glove(path, vocab=None) -> GloveModel:
    """Read a GloVe model with its context vectors and biases (``glove -model 0``, text or binary).

    The natural alpha embeddings of Volpi & Malagò (2020, Sec. 3) are computed from GloVe's word
    vectors (U), context vectors (V) and context biases (p_w of eq. 1 with the base measure
    exp(b̃_χ)); GloVe's usual ``-model 2`` output
    (``w + c`` only) loses V and cannot be used.

    Parameters
    ----------
    path : str or Path
        ``X.txt`` written by ``glove -save-file X -model 0``: per line a word, its d + 1 word
        parameters (vector then bias) and d + 1 context parameters; an optional ``n d`` header
        (``-write-header 1``) and GloVe's appended ``<unk>`` row are skipped. Or ``X.bin``
        (``-binary 1`` or ``2``): 2·n·(d + 1) native float64 numbers, word rows then context rows,
        each vector then bias; it carries no words, so ``vocab`` is required.
    vocab : str or Path, optional
        The ``vocab.txt`` of ``vocab_count`` (``word count`` per line, the order of the rows):
        words for the binary file, counts for ``p0="u"`` / ``"ud"``.

    Returns
    -------
    GloveModel
        Every parameter set of the model, float64 (counts when ``vocab`` is given).

    Raises
    ------
    ValueError
        A malformed line (named by number), a size that does not fit the vocabulary, a missing
        vocabulary for a binary file.
    """
    path = Path(path)
    vwords, counts = _read_glove_vocab(vocab) if vocab is not None else (None, None)
    if path.suffix == ".bin":
        if vwords is None:
            raise FormatError(path, "a binary GloVe file holds no words; pass vocab= (vocab_count's file)")
        n = len(vwords)
        size = path.stat().st_size
        if size % (16 * n) != 0 or size // (16 * n) < 2:
            raise FormatError(path, f"{size} bytes is not 2·n·(d+1) float64 numbers for the n = {n} words "
                             f"of {vocab}")
        P = np.fromfile(path, dtype="<f8").reshape(2 * n, -1)
        words = vwords
    else:
        words, rows = [], []
        width = None
        for lineno, line in read_lines(path, errors="surrogateescape"):
            parts = line.split(" ")
            if lineno == 1 and len(parts) == 2:
                continue  # "-write-header 1": "n d"
            if parts[0] == "<unk>":
                continue  # GloVe's appended average of rare words, not a vocabulary word
            if width is None:
                width = len(parts) - 1
                if width < 4 or width % 2:
                    raise FormatError(path, f"{width} numbers; `glove -model 0` writes "
                                            "2·(d+1) (word vector, bias, context vector, bias)", lineno)
            if len(parts) - 1 != width:
                raise FormatError(path, f"{len(parts) - 1} numbers after {parts[0]!r}, "
                                        f"expected {width}", lineno)
            try:
                rows.append([float(x) for x in parts[1:]])
            except ValueError:
                raise FormatError(path, f"a value of {parts[0]!r} is not a number", lineno) from None
            words.append(parts[0])
        if not rows:
            raise FormatError(path, "no vectors")
        A = np.asarray(rows)
        half = A.shape[1] // 2
        P = np.concatenate([A[:, :half], A[:, half:]], axis=0)
        n = len(words)
        if vwords is not None and vwords != words:
            raise ValueError(f"{path} and {vocab} list different words (or in another order)")
    d = P.shape[1] - 1
    return GloveModel(words=list(words), word_vectors=P[:n, :d], word_bias=P[:n, d],
                      context_vectors=P[n:, :d], context_bias=P[n:, d], counts=counts)
