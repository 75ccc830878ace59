"""embgeo: the geometry of word embeddings, with a compiled numeric core.

Submodules load on first use, so ``import embgeo`` stays light::

    import embgeo
    e = embgeo.load("glove-6b-50d")          # embgeo.io
    e.most_similar(positive=["king", "woman"], negative=["man"])
    embgeo.fuzzy.FuzzyEmbeddings.from_embeddings(e)
    kv = embgeo.KeyedVectors.load_word2vec_format("vectors.bin", binary=True)   # gensim's class

``__all__`` lists the public API of the top level; the modules (``embgeo.fuzzy``, ``embgeo.io``,
...) are public too and load on attribute access.
"""
from __future__ import annotations

import importlib
import pkgutil

from .backend import get_namespace, to_device, to_numpy
from .embeddings import Embeddings
from .errors import FormatError, UnknownWordError
from .progress import set_progress

#: The release; pyproject.toml reads it from here (tool.hatch.version), so the metadata says the same.
__version__ = "0.1.0"

# every public module of the package (no leading underscore) loads on attribute access; the table is
# read from the package's own files, so a module added or removed is never missing from it
_SUBMODULES = frozenset(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
# gensim and scikit-learn take seconds to import: their users pay for them on first use
_LAZY_ATTRS = {"load": "io", "save": "io", "KeyedVectors": "keyedvectors", "NotFittedError": "errors",
               "quantize": "quantization"}

__all__ = ["Embeddings", "KeyedVectors", "UnknownWordError", "FormatError", "NotFittedError", "load", "save",
           "quantize", "get_namespace", "to_numpy", "to_device", "set_progress", "__version__"]


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY_ATTRS:
        return getattr(importlib.import_module(f".{_LAZY_ATTRS[name]}", __name__), name)
    raise AttributeError(f"module 'embgeo' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _SUBMODULES | set(_LAZY_ATTRS))
