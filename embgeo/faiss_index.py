"""Deprecated alias of :mod:`embgeo.neighbors.faiss_index` (kept for one release)."""
import warnings

from .neighbors.faiss_index import FaissIndex, cached_index, faiss_search  # noqa: F401  (the public names it had)

__all__ = ["FaissIndex", "faiss_search", "cached_index"]

warnings.warn("embgeo.faiss_index is deprecated; import from embgeo.neighbors.faiss_index", DeprecationWarning,
              stacklevel=2)
