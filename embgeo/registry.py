"""Deprecated alias of :mod:`embgeo.data` (kept for one release); the command ``embgeo datasets``
is :mod:`embgeo.data.cli`."""
import warnings

from .data import (  # noqa: F401  (the public names it had)
    KINDS,
    UNVERIFIED,
    Resource,
    cache_dir,
    cache_path,
    cached,
    fetch,
    find_local,
    registry,
)
from .data.cli import add_arguments, run  # noqa: F401
from .errors import ChecksumError, DownloadError, UnverifiedResourceError  # noqa: F401

warnings.warn("embgeo.registry is deprecated; import from embgeo.data", DeprecationWarning, stacklevel=2)
