"""Deprecated alias of :mod:`embgeo.crosslingual.rcsls` (kept for one release)."""
import warnings

from .crosslingual.rcsls import rcsls, rcsls_loss  # noqa: F401  (the public names it had)

__all__ = ["rcsls", "rcsls_loss"]

warnings.warn("embgeo.rcsls is deprecated; import from embgeo.crosslingual.rcsls", DeprecationWarning, stacklevel=2)
