"""Progress bars for long work, silenced globally or per call.

Every long-running embgeo function takes ``progress=None``: ``None`` follows the global
setting (on, unless :func:`set_progress` turned it off or the environment variable
``EMBGEO_QUIET`` is set), ``True``/``False`` force it for that call.

A bar redraws itself only on a terminal (or in a notebook). When standard error goes to a file or a
pipe, as in a log, a task that took more than a second prints one line when it ends (its name, how
many steps, how long) instead of a stream of carriage-return updates.
"""
from __future__ import annotations

import os
import sys
import time

__all__ = ["set_progress", "progress_enabled", "progress_bar"]

_ENABLED = os.environ.get("EMBGEO_QUIET", "").strip().lower() in ("", "0", "false", "no")


def set_progress(enabled: bool) -> None:
    """Turn embgeo's progress bars on or off for the whole process."""
    global _ENABLED
    _ENABLED = bool(enabled)


def progress_enabled(progress: bool | None = None) -> bool:
    """Resolve a per-call ``progress`` argument against the global setting."""
    return _ENABLED if progress is None else bool(progress)


#: Work that ends within this many seconds prints nothing.
_DELAY = 1.0


def progress_bar(iterable=None, *, total=None, desc=None, progress: bool | None = None, unit="it", file=None):
    """A progress display for a loop or for manual ``update`` calls.

    A tqdm bar on a terminal or in a notebook; one summary line per task when ``file`` (default
    standard error) is not a terminal; the bare iterable (with a no-op ``update``) when progress is off.
    """
    if not progress_enabled(progress):
        return _Silent(iterable)
    stream = sys.stderr if file is None else file
    if _interactive(stream):
        from tqdm.auto import tqdm

        return tqdm(iterable, total=total, desc=desc, unit=unit, leave=False, dynamic_ncols=True, delay=_DELAY,
                    file=file)
    return _Line(iterable, total=total, desc=desc, unit=unit, stream=stream)


def _interactive(stream) -> bool:
    if "ipykernel" in sys.modules:  # a notebook's stderr is no terminal, yet it draws tqdm's widget
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class _Line:
    """Counts steps silently and writes ``desc: n/total unit in t s`` once, when the task ends."""

    def __init__(self, iterable, *, total, desc, unit, stream):
        self._it = iterable
        if total is None and iterable is not None and hasattr(iterable, "__len__"):
            total = len(iterable)
        self.total, self.desc, self.unit, self._stream = total, desc, unit, stream
        self.n = 0
        self._postfix = ""
        self._start = time.perf_counter()
        self._closed = False

    def __iter__(self):
        try:
            for item in self._it:
                yield item
                self.n += 1
        finally:
            self.close()

    def update(self, n=1):
        self.n += n

    def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
        items = dict(ordered_dict or {}, **kwargs)
        self._postfix = ", ".join(f"{k}={v}" for k, v in items.items())

    def close(self):
        if self._closed:
            return
        self._closed = True
        elapsed = time.perf_counter() - self._start
        if elapsed < _DELAY:
            return
        done = f"{self.n}/{self.total}" if self.total is not None else f"{self.n}"
        extra = f" ({self._postfix})" if self._postfix else ""
        try:
            self._stream.write(f"{self.desc or 'embgeo'}: {done} {self.unit} in {elapsed:.1f} s{extra}\n")
            self._stream.flush()
        except (OSError, ValueError):  # a closed or broken log must not break the computation
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


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
