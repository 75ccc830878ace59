"""Progress bars for long work, silenced globally or per call.

Every long-running embgeo function takes ``progress=None``: ``None`` follows the global
setting (on, unless :func:`set_progress` turned it off or the environment variable
``EMBGEO_QUIET`` is set), ``True``/``False`` force it for that call.

A bar redraws itself only on a terminal or in a notebook (tqdm's widget there when ipywidgets is
installed, the ``notebook`` extra), and only for work that lasts more than a second. It ends in its final
state rather than vanishing: a saved notebook shows where the work ended (``7/7``, not a frozen ``6%``).
When standard error goes to a file or a pipe, as in a log, a task that took more than a second prints
one line when it ends (its name, how many steps, how long) instead of a stream of carriage-return updates.

Used as a context manager (``with progress_bar(total=...) as bar:``), a bar that the block leaves normally
is complete at its count, even where the loop ended early by design (converged); one that an exception
leaves stays at the step it reached.
"""
from __future__ import annotations

import functools
import os
import sys
import time

__all__ = ["set_progress", "progress_enabled", "progress_bar"]

_ENABLED = os.environ.get("EMBGEO_QUIET", "").strip().lower() in ("", "0", "false", "no")


def set_progress(enabled: bool) -> None:
    """Turn embgeo's progress bars on or off for the whole process.

    Parameters
    ----------
    enabled : bool
        The new global setting; a call's own ``progress=True`` or ``False`` still wins.

    See Also
    --------
    progress_enabled : The setting a call follows.
    """
    global _ENABLED
    _ENABLED = bool(enabled)


def progress_enabled(progress: bool | None = None) -> bool:
    """Resolve a per-call ``progress`` argument against the global setting.

    Parameters
    ----------
    progress : bool, optional
        A call's ``progress`` argument; None follows the global setting (:func:`set_progress`,
        ``EMBGEO_QUIET``).

    Returns
    -------
    bool
        Whether the call shows progress.
    """
    return _ENABLED if progress is None else bool(progress)


#: Work that ends within this many seconds prints nothing.
_DELAY = 1.0


def progress_bar(iterable=None, *, total=None, desc=None, progress: bool | None = None, unit="it", file=None):
    """A progress display for a loop or for manual ``update`` calls.

    A tqdm bar on a terminal or in a notebook (shown after a second of work, left in its final state);
    one summary line per task when ``file`` (default standard error) is not a terminal; the bare
    iterable (with a no-op ``update``) when progress is off. Every kind is a context manager: leaving the
    block closes it, complete at its count unless an exception left it (see the module's docstring).

    Parameters
    ----------
    iterable : iterable, optional
        The loop's iterable; None for a bar advanced by ``update(n)``.
    total : int, optional
        The number of steps (taken from ``len(iterable)`` by tqdm when it has one).
    desc : str, optional
        The task's name, shown before the bar.
    progress : bool, optional
        The call's ``progress`` argument (:func:`progress_enabled`).
    unit : str, default "it"
        The unit of a step.
    file : file-like, optional
        Where the display goes; None means standard error (or the notebook's widget).

    Returns
    -------
    tqdm or context manager
        Iterate over it, or call ``update(n)``; use it as a context manager to end it.
    """
    if not progress_enabled(progress):
        return _Silent(iterable)
    stream = sys.stderr if file is None else file
    if file is None and _in_notebook():
        from tqdm.notebook import IProgress

        if IProgress is not None:  # ipywidgets is installed: the widget
            return _notebook_bar()(iterable, total=total, desc=desc, unit=unit, leave=True, delay=_DELAY)
        # without ipywidgets, the text bar on the notebook's stderr (which is no terminal), redrawn in place
        return _text_bar()(iterable, total=total, desc=desc, unit=unit, leave=True, delay=_DELAY, file=stream)
    if _interactive(stream):
        return _text_bar()(iterable, total=total, desc=desc, unit=unit, leave=True, dynamic_ncols=True,
                           delay=_DELAY, file=stream)
    return _Line(iterable, total=total, desc=desc, unit=unit, stream=stream)


def _in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (a notebook, JupyterLab, VS Code), as IPython reports it."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # an IPython too broken to ask: treat it as a terminal
        return False
    return type(shell).__name__ == "ZMQInteractiveShell"


def _interactive(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class _Finish:
    """Leaving a ``with`` block normally completes the bar at its count (the loop may have converged early);
    an exception leaves it at the step it reached, so the bar shows where the work stopped."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None and self.total and self.n < self.total:
            self.total = self.n
        self.close()
        return False


@functools.cache
def _text_bar():
    """tqdm's text bar, that a ``with`` block completes (the class is made on first use: tqdm loads lazily)."""
    from tqdm.std import tqdm

    class TextBar(_Finish, tqdm):
        pass

    return TextBar


@functools.cache
def _notebook_bar():
    """tqdm's notebook widget, shown under a display id that closing updates.

    A notebook saved without widget state (as nbclient, nbconvert and most viewers keep it) shows a widget
    output's text form as it was when first displayed: a bar displayed after one second would read ``6%``
    forever. Closing re-sends the output under the same display id, so its text form is the final state.
    """
    from uuid import uuid4

    from IPython.display import display, update_display
    from tqdm.notebook import tqdm

    class NotebookBar(_Finish, tqdm):
        def __init__(self, *args, **kwargs):
            self._display_id = None
            super().__init__(*args, display=False, **kwargs)

        def display(self, msg=None, pos=None, close=False, bar_style=None, check_delay=True):
            super().display(msg, pos, close=close, bar_style=bar_style, check_delay=False)
            if check_delay and self._display_id is None:  # tqdm asks only once the delay is over
                self._display_id = uuid4().hex
                display(self.container, display_id=self._display_id)
                self.displayed = True

        def close(self):
            if self.disable:
                return
            if self.total:  # a ``with`` block that converged early lowered the total
                self.container.children[1].max = self.total
            super().close()
            if self._display_id is not None:
                update_display(self.container, display_id=self._display_id)

    return NotebookBar


class _Line(_Finish):
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
