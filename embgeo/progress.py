"""Progress bars for long work, silenced globally or per call.

Every long-running embgeo function takes ``progress=None``: ``None`` follows the global
setting (on, unless :func:`set_progress` turned it off or the environment variable
``EMBGEO_QUIET`` is set), ``True``/``False`` force it for that call.
"""
from __future__ import annotations

import os

__all__ = ["set_progress", "progress_enabled", "progress_bar"]

_ENABLED = os.environ.get("EMBGEO_QUIET", "").strip().lower() in ("", "0", "false", "no")


def set_progress(enabled: bool) -> None:
    """Turn embgeo's progress bars on or off for the whole process."""
    global _ENABLED
    _ENABLED = bool(enabled)


def progress_enabled(progress: bool | None = None) -> bool:
    """Resolve a per-call ``progress`` argument against the global setting."""
    return _ENABLED if progress is None else bool(progress)


def progress_bar(iterable=None, *, total=None, desc=None, progress: bool | None = None, unit="it"):
    """A tqdm bar, or the bare iterable (with a no-op ``update``) when progress is off."""
    if progress_enabled(progress):
        from tqdm.auto import tqdm

        # delay: work that ends within a second prints nothing
        return tqdm(iterable, total=total, desc=desc, unit=unit, leave=False, dynamic_ncols=True, delay=1.0)
    return _Silent(iterable)


class _Silent:
    def __init__(self, iterable):
        self._it = iterable

    def __iter__(self):
        return iter(self._it)

    def update(self, n=1):
        pass

    def set_postfix(self, *args, **kwargs):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
