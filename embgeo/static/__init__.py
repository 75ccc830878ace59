"""Static embedding models distilled from transformers: Model2Vec and sentence-transformers' ``StaticEmbedding``.

A static model is a token table (one vector per token of a subword tokenizer) and a recipe: a text
is tokenised, its tokens' vectors are averaged (with per-token weights when the model has them),
and the mean is scaled to unit length when the model says so. :func:`load` reads such a model
directory without torch (``safetensors`` and ``tokenizers`` only: ``pip install 'embgeo[static]'``)
and returns a :class:`StaticModel`:

- ``model.tokens``: the token table as an :class:`~embgeo.Embeddings` (float32), so that every
  post-processing, diagnostic and mapping runs on it;
- ``model.encode(texts)``: the vectors ``model2vec.StaticModel.encode`` gives;
- ``model.words(words)``: an :class:`~embgeo.Embeddings` of whole words, each composed as ``encode``
  composes a text, so that every word-level evaluator runs on a distilled model;
- ``model.with_tokens(e)``: the same tokenizer and recipe over a new token table (a post-processed
  ``model.tokens``), which ``embgeo.save(model, path, format="model2vec")`` writes back as a directory
  that ``model2vec.StaticModel.from_pretrained`` loads.

Two layouts are read (the files are data only: JSON and safetensors; a torch pickle is refused):

==========================  =====================================================================
layout                      files
==========================  =====================================================================
Model2Vec                   ``config.json``, ``model.safetensors`` (``embeddings``, optional
                            ``weights`` and ``mapping``), ``tokenizer.json``
sentence-transformers       ``modules.json`` naming a ``StaticEmbedding`` module (optionally
                            followed by ``Normalize``; 5.x's and 6.x's type names); in its folder
                            ``model.safetensors`` (``embedding.weight``) and ``tokenizer.json``
==========================  =====================================================================

A directory with both (Model2Vec writes a ``modules.json`` too) is read as Model2Vec, as
``model2vec`` itself does. ``embgeo.load(path)`` on either gives the token table.
"""
from __future__ import annotations

from ._files import LAYOUTS, load
from ._model import StaticModel

__all__ = ["StaticModel", "load", "LAYOUTS"]
