"""Reading and writing word embeddings: every format, exact round trips, atomic writes.

=====================  ==============================================  ======  ======
format                 what it is                                      load    save
=====================  ==============================================  ======  ======
``"word2vec"``         text, ``N D`` header, then ``word v1 ... vD``   yes     yes
``"fasttext"``         the same layout (fastText's ``.vec``)           yes     yes
``"glove"``            text without header                             yes     yes
``"word2vec_binary"``  word2vec C binary (float32)                     yes     yes
``"fasttext_binary"``  fastText's native ``.bin`` (via gensim)         yes     no
``"gensim"``           ``KeyedVectors.save`` / ``Word2Vec.save`` file  yes     no
``"model2vec"``        a Model2Vec (or sentence-transformers           yes     yes
                       ``StaticEmbedding``) model directory
``"embgeo"``           ``vectors.npy`` + ``vocab.txt`` (+ counts)      yes     yes
=====================  ==============================================  ======  ======

Text formats may be gzipped (``.gz``). Named embeddings (``load("glove-6b-50d")``,
``load("glove-wiki-gigaword-100")``) are the ``"vectors"`` entries of the registry
(:func:`embgeo.data.registry`): fetched into the cache and verified, or read from the installed
Python package that holds them.

Text is parsed in bulk (by the private ``embgeo.io._textparse``): the file's bytes go to a Numba
kernel (:mod:`embgeo.kernels.parse`), one thread per core, that finds words and numbers and
converts each number exactly (decimal -> correctly rounded float64 -> output dtype, the same
result as NumPy); gzipped files are inflated (python-isal when installed) by a thread while the
inflated lines are parsed. The format is decided from the first bytes by structure, never by
trying a reader and falling back; a bad file raises :class:`~embgeo.errors.FormatError` naming the
line, or the record and byte offset. Text is written with the shortest decimal that reads back to
the same float32, so ``load(save(e))`` is bit-exact for every format.

A ``"model2vec"`` directory loads as its token table (:attr:`embgeo.static.StaticModel.tokens`;
:func:`embgeo.static.load` gives the model, which composes texts and words); ``save`` writes a
:class:`~embgeo.static.StaticModel`, or an Embeddings as a word-level model
(:meth:`~embgeo.static.StaticModel.from_embeddings`), as a directory that ``model2vec`` loads. Both
need the ``static`` extra (``pip install 'embgeo[static]'``).

GloVe's own model files (every parameter of a trained model: W, W̃ and both biases) are read by
:func:`read_glove` for :mod:`embgeo.alpha`.

Every write is atomic and durable (:mod:`embgeo.io.atomic`, public: other packages write through
it). Names live in the one registry of :mod:`embgeo.data` (``embgeo.data.registry("vectors")``;
``embgeo.data.register`` adds one).
"""
from __future__ import annotations

from ..errors import FormatError  # noqa: F401  (its home is embgeo.errors; reachable here too)
from ._formats import FORMATS, detect_format, load, load_fasttext, save
from ._glove import GloveModel, read_glove

__all__ = ["load", "save", "load_fasttext", "detect_format", "FORMATS",
           "GloveModel", "read_glove"]

