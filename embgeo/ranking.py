"""Deprecated alias of :func:`embgeo.neighbors.merge_topk` (kept for one release)."""
import warnings

from .neighbors import merge_topk  # noqa: F401  (the public name it had)

__all__ = ["merge_topk"]

warnings.warn("embgeo.ranking is deprecated; import from embgeo.neighbors", DeprecationWarning, stacklevel=2)
