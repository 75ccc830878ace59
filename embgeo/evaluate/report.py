"""A small results table: aligned text, Markdown, JSON-ready records, and a pandas DataFrame
(pandas is optional and imported only by :meth:`Report.to_frame`)."""
from __future__ import annotations

import json
import math
from numbers import Integral, Real

import numpy as np

from ..display import Display, Formatted, Interval, View, pyplot

__all__ = ["Report"]


def _plain(v):
    """A JSON-ready Python value: NumPy scalars unwrapped, NaN/inf as None."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, np.ndarray)):
        return [_plain(x) for x in v]
    return v


def _is_number(v):
    return isinstance(v, (Real, np.number)) and not isinstance(v, bool)


def _finite_interval(row) -> bool:
    low, high = row.get("low"), row.get("high")
    return _is_number(low) and _is_number(high) and math.isfinite(low) and math.isfinite(high)


class Report(Display):
    """A table of evaluation results: one row per dataset and measure, one column per metric.

    Parameters
    ----------
    rows : iterable of dict, optional
        Each row maps column names to values (str, int, float or None). Missing cells are empty.
    columns : list of str, optional
        Column order; by default the keys in order of first appearance.
    title : str, optional
        A line printed above the table (and the HTML caption).
    formats : dict, optional
        Per-column format strings, e.g. ``{"coverage": "{:.1%}"}``; floats default to ``"{:.4f}"``.

    Examples
    --------
    >>> r = Report([{"dataset": "wordsim353", "spearman": 0.5033}], title="GloVe 50d")
    >>> print(r)
    GloVe 50d
    dataset     spearman
    ----------  --------
    wordsim353    0.5033
    >>> r.to_records()
    [{'dataset': 'wordsim353', 'spearman': 0.5033}]
    >>> r.to_frame()  # doctest: +SKIP
          dataset  spearman
    0  wordsim353    0.5033
    """

    def __init__(self, rows=(), columns=None, title: str | None = None, formats: dict | None = None):
        self._rows: list[dict] = []
        self._columns = list(columns) if columns is not None else None
        self.title = title
        self.formats = dict(formats or {})
        #: Result objects behind the rows (e.g. SimilarityResult), when the producer keeps them.
        self.results: list = []
        for row in rows:
            self.append(row)

    # ----------------------------------------------------------- building
    def append(self, row: dict, result=None) -> "Report":
        """Add one row (a dict of column -> value).

        Parameters
        ----------
        row : dict
            Column name -> value (str, int, float or None); new columns are appended.
        result : object, optional
            The result the row came from, kept in :attr:`results`.

        Returns
        -------
        Report
            This report (so that calls chain).

        Raises
        ------
        TypeError
            ``row`` is not a dict.
        """
        if not isinstance(row, dict):
            raise TypeError(f"a row must be a dict of column -> value, got {type(row).__name__}")
        self._rows.append(dict(row))
        if result is not None:
            self.results.append(result)
        return self

    def add(self, **cells) -> "Report":
        """Add one row given as keyword arguments.

        Parameters
        ----------
        **cells
            Column name -> value.

        Returns
        -------
        Report
            This report (so that calls chain).
        """
        return self.append(cells)

    @property
    def columns(self) -> list[str]:
        """The column names in order: as given, else in order of first appearance in the rows."""
        if self._columns is not None:
            return list(self._columns)
        cols: dict[str, None] = {}
        for r in self._rows:
            cols.update(dict.fromkeys(r))
        return list(cols)

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self):
        return iter(self.to_records())

    def __getitem__(self, i) -> dict:
        return self.to_records()[i]

    def _view(self) -> View:
        """The rows for ``repr`` and notebooks: a row's ``low`` and ``high`` cells are shown beside its
        headline score (its ``score`` cell, or the column holding the same number, as
        ``evaluate(..., ci=0.95)`` writes them); a column of :attr:`formats` keeps its format."""
        cols = self.columns
        targets = [self._interval_column(r, cols) for r in self._rows]
        joined = {"low", "high"} <= set(cols) and all(
            t is not None or not _finite_interval(r) for r, t in zip(self._rows, targets))
        shown = [c for c in cols if not (joined and c in ("low", "high"))]
        rows = []
        for r, target in zip(self._rows, targets):
            line = []
            for c in shown:
                v = r.get(c)
                if isinstance(v, float) and math.isnan(v):
                    v = None
                if joined and c == target and v is not None:
                    v = Interval(float(v), float(r["low"]), float(r["high"]))
                elif v is not None and c in self.formats:
                    v = (Formatted if _is_number(v) else str)(self.formats[c].format(v))
                line.append(v)
            rows.append(line)
        return View(self.title or f"{type(self).__name__}: {len(self)} row{'' if len(self) == 1 else 's'}", rows, columns=shown)

    @staticmethod
    def _interval_column(row, cols):
        """The column an interval of ``row`` belongs to (None when it has none)."""
        if not _finite_interval(row):
            return None
        score = row.get("score")
        if "score" in cols:
            return "score"
        return next((c for c in cols if c not in ("low", "high") and _is_number(row.get(c))
                     and row.get(c) == score), None)

    # ----------------------------------------------------------- export
    def to_records(self) -> list[dict]:
        """Rows as a list of dicts of plain Python values (JSON-ready; NaN becomes None).

        Returns
        -------
        list of dict
            One dict per row with every column (None for a missing cell).
        """
        cols = self.columns
        return [{c: _plain(r.get(c)) for c in cols} for r in self._rows]

    def to_dict(self) -> dict:
        """``{"title", "columns", "rows"}`` with plain Python values, for ``json.dumps``.

        Returns
        -------
        dict
            The title, the column names and :meth:`to_records`.
        """
        return {"title": self.title, "columns": self.columns, "rows": self.to_records()}

    def to_frame(self):
        """The table as a pandas DataFrame (columns in order; missing cells and NaN as NaN).

        pandas is not a dependency of embgeo: without it this raises an ImportError saying what
        to install; :meth:`to_records` gives the same rows as plain dicts.

        Returns
        -------
        pandas.DataFrame
            One row per row of the report.

        Raises
        ------
        ImportError
            pandas is not installed.
        """
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError(
                "Report.to_frame() needs pandas (pip install pandas, or embgeo[dev]); "
                "Report.to_records() gives the same rows as plain dicts without it"
            ) from exc
        return pd.DataFrame.from_records(self.to_records(), columns=self.columns)

    def to_json(self, **kwargs) -> str:
        """:meth:`to_dict` as a JSON string.

        Parameters
        ----------
        **kwargs
            Passed to :func:`json.dumps` (``indent`` defaults to 2).

        Returns
        -------
        str
            The JSON text.
        """
        kwargs.setdefault("indent", 2)
        return json.dumps(self.to_dict(), **kwargs)

    def _cells(self):
        cols = self.columns
        body = []
        for r in self._rows:
            line = []
            for c in cols:
                v = r.get(c)
                if v is None or (isinstance(v, float) and math.isnan(v)):
                    line.append("")
                elif c in self.formats:
                    line.append(self.formats[c].format(v))
                elif isinstance(v, (Integral, np.integer)) and not isinstance(v, bool):
                    line.append(str(int(v)))
                elif _is_number(v):
                    line.append(f"{float(v):.4f}")
                else:
                    line.append(str(v))
            body.append(line)
        numeric = [all(_is_number(r.get(c)) or r.get(c) is None for r in self._rows)
                   and any(r.get(c) is not None for r in self._rows) for c in cols]
        return cols, body, numeric

    def __str__(self) -> str:
        cols, body, numeric = self._cells()
        widths = [max([len(c)] + [len(b[j]) for b in body]) for j, c in enumerate(cols)]

        def fmt(cells):
            return "  ".join(s.rjust(w) if num else s.ljust(w)
                             for s, w, num in zip(cells, widths, numeric)).rstrip()

        lines = [self.title] if self.title else []
        lines += [fmt(cols), "  ".join("-" * w for w in widths)]
        lines += [fmt(b) for b in body]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A GitHub-flavoured Markdown table (numeric columns right-aligned).

        Returns
        -------
        str
            The table, the title in bold above it.
        """
        cols, body, numeric = self._cells()

        def esc(s):
            return s.replace("|", "\\|")

        lines = [f"**{self.title}**", ""] if self.title else []
        lines.append("| " + " | ".join(esc(c) for c in cols) + " |")
        lines.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
        lines += ["| " + " | ".join(esc(s) for s in b) + " |" for b in body]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:  # notebooks render the Markdown table
        return self.to_markdown()

    def to_html(self) -> str:
        """An HTML table (numeric columns right-aligned), for notebooks (``_repr_html_`` of the results).

        Returns
        -------
        str
            A ``<table>`` element, the title as its caption.
        """
        import html

        cols, body, numeric = self._cells()
        align = ["right" if n else "left" for n in numeric]
        head = "".join(f'<th style="text-align:{a}">{html.escape(c)}</th>' for c, a in zip(cols, align))
        rows = "".join("<tr>" + "".join(f'<td style="text-align:{a}">{html.escape(v)}</td>'
                                        for v, a in zip(b, align)) + "</tr>" for b in body)
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"

    # ----------------------------------------------------------- intervals
    def intervals(self) -> list[dict]:
        """Rows that carry a confidence interval: ``{"label", "score", "low", "high"}`` each.

        A row has one when it holds ``low`` and ``high`` cells (``evaluate(..., ci=0.95)``); its point
        estimate is its ``score`` cell (the headline score the interval is about).

        Returns
        -------
        list of dict
            ``{"label", "score", "low", "high"}`` per such row; the label joins its dataset and measure.
        """
        out: list[dict] = []
        for r in self._rows:
            if r.get("low") is None or r.get("high") is None:
                continue
            label = " ".join(str(r[c]) for c in ("dataset", "measure") if r.get(c) is not None)
            out.append({"label": label or str(len(out)), "score": r.get("score"), "low": r["low"],
                        "high": r["high"]})
        return out

    def plot_intervals(self, *others: "Report", ax=None, labels=None):
        """Forest plot: each row's score and confidence interval, one colour per report (model).

        Parameters
        ----------
        *others : Report
            More reports (other models) to draw beside this one; rows are matched by dataset and
            measure.
        ax : matplotlib Axes, optional
            Where to draw; None makes a new figure.
        labels : list of str, optional
            Legend names of the reports (default: their titles).

        Returns
        -------
        matplotlib Axes
            The Axes drawn on.

        Raises
        ------
        ValueError
            No report row has an interval (evaluate with ``ci=0.95``).

        Needs matplotlib (``pip install embgeo[plot]``).
        """
        reports = (self, *others)
        rows = [r.intervals() for r in reports]
        if not any(rows):
            raise ValueError("no row has a confidence interval: run evaluate(..., ci=0.95)")
        plt = pyplot("Report.plot_intervals")
        names = list(dict.fromkeys(x["label"] for rs in rows for x in rs))
        labels = list(labels) if labels is not None else [r.title or f"report {i + 1}" for i, r in
                                                          enumerate(reports)]
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 1 + 0.45 * len(names) * max(1, len(reports)) ** 0.5))
        step = 0.7 / len(reports)
        for k, (rs, label) in enumerate(zip(rows, labels)):
            y = [names.index(x["label"]) + (k - (len(reports) - 1) / 2) * step for x in rs]
            score = np.array([np.nan if x["score"] is None else x["score"] for x in rs], dtype=float)
            low = np.array([x["low"] for x in rs], dtype=float)
            high = np.array([x["high"] for x in rs], dtype=float)
            ax.errorbar(score, y, xerr=[score - low, high - score], fmt="o", capsize=3, label=label)
        ax.set_yticks(range(len(names)), names)
        ax.invert_yaxis()
        ax.set_xlabel("score (confidence interval)")
        if len(reports) > 1 or labels[0]:
            ax.legend(loc="best", fontsize="small")
        return ax
