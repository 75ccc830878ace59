"""How a result shows itself: a compact HTML table in a notebook, the same table as text in a terminal.

Every result type of embgeo (:class:`~embgeo.embeddings.Embeddings`, the ``*Result``, ``*Report`` and
``*Comparison`` classes, :class:`~embgeo.evaluate.Report` and its tables) renders through this module,
as pandas' frames render through one formatter: numbers at four significant digits, a confidence
interval beside its number where one was computed, coverage, and what produced the result. A class
mixes in :class:`Display` and either builds a :class:`View` itself (``_view``) or, as a dataclass, gets
one from its fields. ``_repr_html_`` is what Jupyter shows; ``repr`` is the same table as text, cut to
one screen.
"""
from __future__ import annotations

import dataclasses
import html
from numbers import Integral, Real

import numpy as np

__all__ = ["Display", "Formatted", "Interval", "View", "number", "pyplot"]

#: rows ``repr`` shows before it says how many more there are (one screen of a terminal)
MAX_TEXT_ROWS = 20
#: rows a notebook cell shows (pandas' display.max_rows is 60)
MAX_HTML_ROWS = 60
#: characters of one cell; longer text ends in "…"
MAX_CELL = 60
#: elements of a list, dict or array written out in one cell
MAX_ITEMS = 6
#: string fields that say what a result is about: they go in its title, not its rows
TITLE_FIELDS = ("dataset", "name", "measure", "method", "task", "retrieval", "kind")


def pyplot(what: str):
    """``matplotlib.pyplot``, imported when a result is first plotted (matplotlib is the optional ``plot`` extra).

    Parameters
    ----------
    what : str
        What plots, for the error: ``"HubnessResult.plot"``.

    Returns
    -------
    module
        ``matplotlib.pyplot``.

    Raises
    ------
    ImportError
        matplotlib is not installed; the message says what needs it and how to install it.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(f"{what} needs matplotlib: pip install 'embgeo[plot]'") from None
    return plt


def number(value) -> str:
    """A value as a table cell: integers whole, other real numbers at four significant digits.

    Parameters
    ----------
    value : int, float, NumPy scalar, str or None
        The cell's value.

    Returns
    -------
    str
        ``""`` for None; ``str(value)`` for what is not a number.

    Examples
    --------
    >>> number(0.503312), number(353), number(float("nan")), number(None)
    ('0.5033', '353', 'nan', '')
    """
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (Integral, np.integer)):
        return str(int(value))
    if isinstance(value, (Real, np.floating)):
        return f"{float(value):.4g}"
    return str(value)


class Formatted(str):
    """A number already written in a format of its own (``"99.7%"``): text that aligns as a number."""


def _is_number(value) -> bool:
    return isinstance(value, (Real, np.number, Interval, Formatted)) and not isinstance(value, (bool, np.bool_))


@dataclasses.dataclass(frozen=True)
class Interval:
    """A number with its confidence interval: ``0.5033 [0.4087, 0.5861] (95% BCa)``.

    Parameters
    ----------
    value, low, high : float
        The point estimate and the interval's ends.
    label : str, optional
        How it was computed (level and method).
    """

    value: float
    low: float
    high: float
    label: str = ""

    def __str__(self) -> str:
        text = f"{number(self.value)} [{number(self.low)}, {number(self.high)}]"
        return f"{text} ({self.label})" if self.label else text


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CELL else text[:MAX_CELL - 1] + "…"


def _cell(value) -> str:
    """One value as the text of a table cell (a long collection summarised, long text cut)."""
    if isinstance(value, str):
        return _clip(value)
    if value is None or _is_number(value) or isinstance(value, (bool, np.bool_)):
        return number(value) if not isinstance(value, Interval) else str(value)
    if isinstance(value, np.ndarray):
        if value.ndim == 1 and value.size <= MAX_ITEMS:
            return _clip("[" + ", ".join(number(v) for v in value.tolist()) + "]")
        return f"array {value.shape} {value.dtype}"
    if isinstance(value, dict):
        if len(value) <= MAX_ITEMS and all(_scalar(v) for v in value.values()):
            return _clip(", ".join(f"{k}={number(v)}" for k, v in value.items()))
        return f"{len(value)} entr{'y' if len(value) == 1 else 'ies'}"
    if isinstance(value, (list, tuple)):
        if len(value) <= MAX_ITEMS and all(_scalar(v) for v in value):
            return _clip(", ".join(number(v) for v in value))
        return f"{len(value)} item{'' if len(value) == 1 else 's'}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = [f"{f.name}={number(getattr(value, f.name))}" for f in dataclasses.fields(value)
                 if f.repr and _scalar(getattr(value, f.name))]
        return _clip(", ".join(parts))
    shape = getattr(value, "shape", None)
    return f"{type(value).__name__} {tuple(shape)}" if shape is not None else type(value).__name__


def _scalar(value) -> bool:
    return value is None or isinstance(value, (str, bool, np.bool_)) or _is_number(value)


@dataclasses.dataclass(repr=False)
class View:
    """What a result shows: a title, rows of cells, and notes under the table.

    Parameters
    ----------
    title : str
        The heading: the result type and what it was computed on.
    rows : list of list
        With ``columns`` None, each row is ``(name, value)`` (a result's fields, the names as row
        headers); otherwise one value per column.
    columns : list of str, optional
        Column headings; None for a two-column table of names and values.
    notes : list of str, optional
        Lines under the table: what produced the result, what the table leaves out.
    """

    title: str
    rows: list
    columns: list | None = None
    notes: list = dataclasses.field(default_factory=list)

    def _cut(self, max_rows):
        rows = list(self.rows)
        notes = list(self.notes)
        if max_rows is not None and len(rows) > max_rows:
            notes.insert(0, f"… {len(rows) - max_rows} more rows")
            rows = rows[:max_rows]
        return rows, notes

    def _numeric(self, rows):
        if self.columns is None:
            return [False, False]
        return [any(_is_number(r[j]) for r in rows if j < len(r))
                and all(_is_number(r[j]) or r[j] is None for r in rows if j < len(r))
                for j in range(len(self.columns))]

    def text(self, max_rows: int | None = MAX_TEXT_ROWS) -> str:
        """The table as aligned plain text: numbers right-aligned, the notes last.

        Parameters
        ----------
        max_rows : int or None, default MAX_TEXT_ROWS
            Rows shown; a note says how many more there are. None shows every row.

        Returns
        -------
        str
            The aligned table (monospaced), the title above and the notes below.
        """
        rows, notes = self._cut(max_rows)
        body = [[_cell(v) for v in r] for r in rows]
        head = [] if self.columns is None else [[str(c) for c in self.columns]]
        numeric = self._numeric(rows)
        n = max((len(r) for r in head + body), default=0)
        widths = [max(len(r[j]) for r in head + body if j < len(r)) for j in range(n)]

        def line(cells):
            return "  ".join(s.rjust(w) if j < len(numeric) and numeric[j] else s.ljust(w)
                             for j, (s, w) in enumerate(zip(cells, widths))).rstrip()

        lines = [self.title]
        lines += [line(r) for r in head]
        if head:
            lines.append("  ".join("-" * w for w in widths))
        lines += [line(r) for r in body]
        return "\n".join(lines + notes)

    def html(self, max_rows: int | None = MAX_HTML_ROWS) -> str:
        """The table as one self-contained HTML fragment: inline styles, no script or style sheet, every
        word escaped (:func:`html.escape`).

        Parameters
        ----------
        max_rows : int or None, default MAX_HTML_ROWS
            Rows shown; a note says how many more there are. None shows every row.

        Returns
        -------
        str
            The fragment, for ``_repr_html_``.
        """
        rows, notes = self._cut(max_rows)
        numeric = self._numeric(rows)
        esc = html.escape
        out = ['<div class="embgeo-display"><table style="border-collapse:collapse">',
               f'<caption style="text-align:left;font-weight:bold">{esc(self.title)}</caption>']
        if self.columns is not None:
            out.append("<thead><tr>" + "".join(f'<th style="text-align:{"right" if num else "left"}">{esc(str(c))}'
                                               "</th>" for c, num in zip(self.columns, numeric)) + "</tr></thead>")
        out.append("<tbody>")
        for r in rows:
            cells = []
            for j, v in enumerate(r):
                if self.columns is None and j == 0:
                    cells.append(f'<th style="text-align:left">{esc(_cell(v))}</th>')
                else:
                    align = "right" if (numeric[j] if j < len(numeric) else False) else "left"
                    cells.append(f'<td style="text-align:{align}">{esc(_cell(v))}</td>')
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
        out += [f'<div style="font-size:smaller;opacity:0.7">{esc(n)}</div>' for n in notes]
        out.append("</div>")
        return "".join(out)

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        return self.html()


class _Attributes(dict):
    """``format_map`` over an object's attributes."""

    def __init__(self, obj):
        super().__init__()
        self.obj = obj

    def __missing__(self, key):
        return getattr(self.obj, key)


class Display:
    """Mixin: ``_repr_html_`` and a one-screen ``repr`` from the result's :class:`View`.

    A class overrides ``_view`` or, as a dataclass (declared with ``repr=False``, so that its own
    ``__repr__`` is this one), shows its fields: the descriptive strings (dataset, measure, ...) in the
    title, every other field shown by the dataclass repr as a row, a long array or list summarised by
    its shape or length. ``_call``, a format string over the result's attributes, names the call that
    made it (the model, which results do not keep, is written "…"); ``_intervals`` gives the confidence
    intervals computed so far, shown beside their numbers.
    """

    _call = ""

    def _intervals(self) -> dict:
        """``{field or score name: Interval}`` of the intervals this result has computed."""
        return {}

    def _call_note(self) -> list:
        return ["from " + self._call.format_map(_Attributes(self))] if self._call else []

    def _view(self) -> View:
        if not dataclasses.is_dataclass(self):
            raise NotImplementedError(f"{type(self).__name__} must define _view()")
        intervals = dict(self._intervals())
        about, rows = [], []
        for f in dataclasses.fields(self):
            if not f.repr:
                continue
            value = getattr(self, f.name)
            if f.name in TITLE_FIELDS and isinstance(value, str):
                if value:
                    about.append(value)
                continue
            if value is None:
                continue
            rows.append([f.name, intervals.pop(f.name, value)])
        rows += [[name, iv] for name, iv in intervals.items()]  # scores that are no field (BLI's p@1)
        title = type(self).__name__ + (": " + ", ".join(about) if about else "")
        return View(title, rows, notes=self._call_note())

    def __repr__(self) -> str:
        return self._view().text()

    def _repr_html_(self) -> str:
        return self._view().html()
