"""Deprecated alias of :mod:`embgeo.io.atomic` (kept for one release)."""
import warnings

from .io.atomic import atomic_dir, atomic_path, fsync_dir, fsync_file, reap_stale, temp_name  # noqa: F401

warnings.warn("embgeo.atomic is deprecated; import from embgeo.io.atomic", DeprecationWarning, stacklevel=2)
