"""Deprecated alias of the screened search of :mod:`embgeo.neighbors` (kept for one release).

``neighbors.topk(..., screen=True)`` screens a search, and :func:`embgeo.neighbors.search`
(``Embeddings.neighbors``) keeps the screening index of an Embeddings with ``screen=True``.
"""
import warnings

from .neighbors._screening import (  # noqa: F401  (the public names it had)
    MAX_K, SEED_ROWS, ScreenIndex, build_index, cached_index, gamma, plain_margin, resolve_index, screen_margin,
    screened_topk)

__all__ = ["ScreenIndex", "build_index", "cached_index", "screened_topk", "screen_margin", "plain_margin",
           "gamma", "resolve_index", "MAX_K", "SEED_ROWS"]

warnings.warn("embgeo.screening is deprecated; screen with embgeo.neighbors.topk(..., screen=True)",
              DeprecationWarning, stacklevel=2)
