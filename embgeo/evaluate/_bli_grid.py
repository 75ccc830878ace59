"""Many language pairs × mapping methods (× POSTPROC α) scored by BLI, resumably, on Dask or here."""
from __future__ import annotations

import json
import re
import time
import zlib
from collections.abc import Mapping
from functools import lru_cache, partial
from pathlib import Path

import numpy as np
from sklearn.base import clone

from ..crosslingual import RECIPES, Mapper
from ..data import read_dictionary
from ..display import pyplot
from ..io.atomic import atomic_path
from ..neighbors import check_retrieval
from ..progress import progress_bar
from .report import Report

#: Columns of the table :func:`bli_grid` returns (the P@k columns follow ``ks``).
GRID_KEYS = ("pair", "method", "postproc", "retrieval")


class BLIGrid(Report):
    """The table of :func:`bli_grid`: one row per (pair, method, POSTPROC, retrieval), a heat map by ``plot``.

    A :class:`~embgeo.evaluate.Report` (printing, ``to_frame``, ``to_markdown``, ``to_records``)
    with :meth:`pivot` and :meth:`plot` added.

    Parameters
    ----------
    rows : iterable of dict, optional
        One row per (pair, method, POSTPROC, retrieval): ``pair``, ``method``, ``postproc``,
        ``retrieval`` and the scores (``P@1``, ``MRR``...).
    columns : list of str, optional
        Column order; by default the keys in order of first appearance.
    title : str, optional
        A line printed above the table.
    formats : dict, optional
        Per-column format strings.
    """

    def pivot(self, score: str = "MRR", retrieval: str | None = None):
        """(row labels, column labels, S): pairs down, methods (with their POSTPROC) across.

        Parameters
        ----------
        score : str, default "MRR"
            The column shown (``"P@1"``, ``"MRR"``...).
        retrieval : str, optional
            The retrieval criterion whose rows are shown; None means the first in the table.

        Returns
        -------
        rows : list of str
            The language pairs, in table order.
        columns : list of str
            The methods (with their POSTPROC when several occur), in table order.
        S : numpy.ndarray of float64, shape (len(rows), len(columns))
            The scores; a cell not in the table is NaN.

        Raises
        ------
        ValueError
            The grid is empty, has no column ``score``, or no row with ``retrieval``.
        """
        rows = self.to_records()
        if not rows:
            raise ValueError("the grid is empty")
        if score not in rows[0]:
            raise ValueError(f"no column {score!r}; the table has {', '.join(rows[0])}")
        retrieval = retrieval or rows[0]["retrieval"]
        rows = [r for r in rows if r["retrieval"] == retrieval]
        if not rows:
            raise ValueError(f"no row with retrieval {retrieval!r}")
        several = len({r["postproc"] for r in rows}) > 1
        label = (lambda r: f"{r['method']} {r['postproc']}") if several else (lambda r: r["method"])
        pairs = list(dict.fromkeys(r["pair"] for r in rows))
        cols = list(dict.fromkeys(label(r) for r in rows))
        S = np.full((len(pairs), len(cols)), np.nan)
        for r in rows:
            S[pairs.index(r["pair"]), cols.index(label(r))] = r[score]
        return pairs, cols, S

    def plot(self, score: str = "MRR", retrieval: str | None = None, ax=None):
        """Heat map of ``score`` (in %), pairs down and methods across, for one retrieval.

        Needs matplotlib (``pip install embgeo[plot]``).

        Parameters
        ----------
        score : str, default "MRR"
            The column shown.
        retrieval : str, optional
            The retrieval criterion whose rows are shown; None means the first in the table.
        ax : matplotlib.axes.Axes, optional
            Where to draw; None makes a new figure.

        Returns
        -------
        matplotlib.axes.Axes
            The Axes drawn on.

        Raises
        ------
        ImportError
            matplotlib is not installed.
        """
        plt = pyplot("BLIGrid.plot")
        pairs, cols, S = self.pivot(score, retrieval)
        if ax is None:
            _, ax = plt.subplots(figsize=(2 + 1.1 * len(cols), 1 + 0.5 * len(pairs)))
        im = ax.imshow(100 * S, cmap="viridis", aspect="auto")
        ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
        ax.set_yticks(range(len(pairs)), pairs)
        for i in range(S.shape[0]):
            for j in range(S.shape[1]):
                if np.isfinite(S[i, j]):
                    ax.text(j, i, f"{100 * S[i, j]:.1f}", ha="center", va="center", color="w", fontsize=8)
        ax.set_title(f"BLI {score} (%), retrieval {retrieval or self.to_records()[0]['retrieval']}")
        ax.figure.colorbar(im, ax=ax)
        return ax


def _methods(methods) -> dict:
    """name -> Mapper parameters, from recipe names, Mappers or parameter dicts."""
    if isinstance(methods, str):
        methods = [methods]
    if not isinstance(methods, Mapping):
        methods = {m: m for m in methods}
    out = {}
    for name, m in methods.items():
        if isinstance(m, str):
            if m not in RECIPES:
                raise ValueError(f"method {name!r}: unknown recipe {m!r}; recipes: {', '.join(RECIPES)}")
            m = Mapper.from_recipe(m)
        elif isinstance(m, Mapping):
            m = Mapper().set_params(**m)   # stages (induction=Induction(...)) or their values (induction__csls_knn=5)
        elif not isinstance(m, Mapper):
            raise TypeError(f"method {name!r} must be a recipe name, a Mapper or a dict of Mapper parameters, "
                            f"got {type(m).__name__}")
        out[str(name)] = {**m.get_params(deep=False), "progress": False}
    if not out:
        raise ValueError("no method given")
    return out


def _pairs(pairs) -> dict:
    """name -> (src, tgt, train, test), each pair given as such a tuple or a dict with those keys."""
    out = {}
    for name, p in dict(pairs).items():
        if isinstance(p, Mapping):
            missing = [k for k in ("src", "tgt", "train", "test") if k not in p]
            if missing:
                raise ValueError(f"pair {name!r} lacks {', '.join(missing)} (needs src, tgt, train, test)")
            p = (p["src"], p["tgt"], p["train"], p["test"])
        if len(p) != 4:
            raise ValueError(f"pair {name!r} must be (src, tgt, train, test), got {len(p)} items")
        out[str(name)] = tuple(p)
    if not out:
        raise ValueError("no language pair given")
    return out


def _postprocs(postproc) -> list:
    if postproc is None:
        return [None]
    out = []
    for a in postproc:
        if a is not None:
            try:
                a = (float(a[0]), float(a[1]))
            except (TypeError, IndexError, ValueError):
                raise ValueError(f"postproc must hold (alpha_src, alpha_tgt) pairs or None, got {a!r}") from None
        out.append(a)
    return out


def _label(a) -> str:
    return "none" if a is None else f"({a[0]:g}, {a[1]:g})"


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s)[:40]


def cell_path(directory, pair: str, method: str, postproc) -> Path:
    """The file of one cell of a resumable grid (names made safe, a checksum keeps them apart)."""
    key = f"{pair}\0{method}\0{_label(postproc)}"
    tag = format(zlib.crc32(key.encode()), "08x")
    return Path(directory) / f"{_slug(pair)}--{_slug(method)}--{_slug(_label(postproc))}--{tag}.json"


@lru_cache(maxsize=2)
def _load(source):
    from ..io import load

    return load(source)


def _space(x):
    # paths and registry names are read in the process that runs the cell (a worker on Dask), once per pair
    return _load(str(x)) if isinstance(x, (str, Path)) else x


def _dictionary(x, lowercase):
    return read_dictionary(x, lowercase=lowercase) if isinstance(x, (str, Path)) else x


def _with_postproc(params, postproc) -> dict:
    """A method's Mapper parameters with the grid's POSTPROC (a copy: the method's own stage is left alone)."""
    return clone(Mapper(**params)).set_params(preprocessing__postproc=postproc).get_params(deep=False)


def _spec(params, retrieval, ks, source_size, lowercase) -> str:
    return repr((sorted((k, repr(v)) for k, v in params.items()), list(retrieval), list(ks), source_size, lowercase))


def _cell(pairs, methods, retrieval, ks, source_size, lowercase, directory, pair, method, postproc):
    """Fit one method on one pair (with POSTPROC ``postproc``), score every retrieval; a Dask task on a cluster."""
    from .lexicon import bli

    src, tgt, train, test = pairs[pair]
    params = _with_postproc(methods[method], postproc)
    src, tgt = _space(src), _space(tgt)
    t0 = time.perf_counter()
    xs, zt = Mapper(**params).fit_transform(src, tgt, _dictionary(train, lowercase))
    fit_s = time.perf_counter() - t0
    rows = []
    for r in retrieval:
        res = bli(xs, zt, _dictionary(test, lowercase), retrieval=r, ks=ks, source_size=source_size,
                  progress=False).to_dict()
        rows.append({"pair": pair, "method": method, "postproc": _label(postproc), "retrieval": r,
                     **{f"P@{k}": res[f"P@{k}"] for k in ks}, "MRR": res["MRR"], "coverage": res["coverage"],
                     "n_queries": res["n_queries"], "fit_seconds": fit_s})
    if directory is not None:
        path = cell_path(directory, pair, method, postproc)
        record = {"spec": _spec(params, retrieval, ks, source_size, lowercase), "rows": rows}
        with atomic_path(path) as tmp:
            Path(tmp).write_text(json.dumps(record, indent=1), encoding="utf-8")
    return rows


def _done(directory, pair, method, postproc, spec):
    """The stored rows of a cell, None when it was not run; a ValueError when it ran with other settings."""
    path = cell_path(directory, pair, method, postproc)
    if not path.exists():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        stored = record["spec"]
        rows = record["rows"]
    except (ValueError, KeyError) as exc:
        raise ValueError(f"{path}: not a bli_grid cell file ({exc}); delete it to recompute the cell") from None
    if stored != spec:
        raise ValueError(f"{path} holds cell ({pair}, {method}, {_label(postproc)}) run with other settings "
                         "(Mapper parameters, retrieval, ks, source_size or lowercase): delete it, or pass "
                         "another directory")
    return rows


def bli_grid(pairs, methods, *, postproc=None, retrieval=("nn", "csls"), ks=(1, 5, 10), source_size=None,
             lowercase: bool = False, directory=None, client=None, local: bool | None = None,
             progress=None) -> BLIGrid:
    """BLI of every language pair × mapping method (× POSTPROC (αs, αt)), one table and a heat map.

    Each cell fits a :class:`~embgeo.crosslingual.Mapper` on the pair's training dictionary
    (:meth:`~embgeo.crosslingual.Mapper.fit_transform`) and scores its test dictionary with
    :func:`~embgeo.evaluate.bli` for every ``retrieval`` criterion, as the grids of Vulić, Korhonen
    & Glavaš (2020, Table 2: 210 pairs × methods, POSTPROC on and off) are run.

    Cells are independent. With a ``dask.distributed`` client (``client``, or the current one
    unless ``local=True``) each is one Dask task (:func:`embgeo.distributed.map_grid`); otherwise
    they run here one after the other, with a progress bar. With ``directory`` the grid is
    resumable: each cell writes its rows to its own JSON file there, atomically
    (:mod:`embgeo.io.atomic`), as soon as it is done (on Dask, from the worker: the directory must
    be on a file system the workers share); a rerun reads the cells already done and runs only
    the others.

    Parameters
    ----------
    pairs : mapping of name -> (src, tgt, train, test) or {"src", "tgt", "train", "test"}
        ``src``/``tgt``: :class:`~embgeo.Embeddings`, or a path or registry name (read by
        :func:`embgeo.load` where the cell runs: prefer these on a cluster); ``train``/``test``:
        word pairs or a dictionary file (:func:`embgeo.data.read_dictionary`).
    methods : recipe name(s), or mapping of name -> recipe name, Mapper or dict of Mapper parameters
        The mapping methods compared, one table row each per pair (named by their recipe or key). A
        dict holds ``Mapper.set_params`` keywords: stages such as ``mapping=Mapping("orthogonal")``,
        or their values such as ``induction__csls_knn=5``.
    postproc : iterable of (αs, αt) or None, optional
        The POSTPROC axis (:data:`embgeo.evaluate.lexicon.POSTPROC_GRID` values, the paper's
        (−0.25, 0.15), ...); ``None`` in it means no POSTPROC. It overrides a method's own
        ``Preprocessing(postproc=...)``. Default: no axis (each method as given).
    retrieval : str or sequence of str
        BLI criteria (:data:`embgeo.neighbors.VALID_RETRIEVALS` ``["exact"]``), one row each.
    ks, source_size, lowercase
        As :func:`~embgeo.evaluate.bli` (``lowercase`` applies to dictionary files).
    directory : path, optional
        Where the cells are stored (created if missing). A stored cell run with other settings
        (Mapper parameters, retrieval, ks, source_size, lowercase) is an error, not silently reused;
        the data behind a pair name are not checked: use a new directory for new data.
    client : distributed.Client, optional
        Run the cells on this client; default: the current client, if any.
    local : bool, optional
        True runs every cell here even when a client exists.
    progress : bool, optional
        Progress bar over the cells.

    Returns
    -------
    BLIGrid
        A :class:`~embgeo.evaluate.Report` with columns pair, method, postproc, retrieval, P@k, MRR,
        coverage, n_queries, fit_seconds, in grid order (pairs, then methods, then POSTPROC);
        ``pivot(score, retrieval)`` and ``plot(score, retrieval)`` (heat map).
    """
    from .. import distributed as dd

    pairs, methods, alphas = _pairs(pairs), _methods(methods), _postprocs(postproc)
    retrieval = [retrieval] if isinstance(retrieval, str) else list(retrieval)
    for r in retrieval:
        check_retrieval(r, "exact")
    ks = tuple(int(k) for k in ks)
    # without a POSTPROC axis each method keeps its own Preprocessing(postproc=), so its cell sets that
    own = {m: _postprocs([Mapper(**methods[m]).get_params(deep=True).get("preprocessing__postproc")])
           for m in methods}
    grid = [{"pair": p, "method": m, "postproc": a} for p in pairs for m in methods
            for a in (alphas if postproc is not None else own[m])]

    def spec(c):
        return _spec(_with_postproc(methods[c["method"]], c["postproc"]), retrieval, ks, source_size, lowercase)

    results: dict[int, list] = {}
    if directory is not None:
        Path(directory).mkdir(parents=True, exist_ok=True)
        for i, c in enumerate(grid):
            rows = _done(directory, c["pair"], c["method"], c["postproc"], spec(c))
            if rows is not None:
                results[i] = rows
    todo = [i for i in range(len(grid)) if i not in results]
    cell = partial(_cell, pairs, methods, retrieval, ks, source_size, lowercase,
                   None if directory is None else str(directory))
    client = None if local else (client if client is not None else dd.current_client())
    if todo and client is not None:
        for i, rows in zip(todo, dd.map_grid(cell, [grid[i] for i in todo], client=client)):
            results[i] = rows
    else:
        try:
            for i in progress_bar(todo, total=len(todo), desc="BLI grid", progress=progress, unit="cell"):
                results[i] = cell(**grid[i])
        finally:
            _load.cache_clear()  # the spaces read from paths are not kept past the grid
    columns = list(GRID_KEYS) + [f"P@{k}" for k in ks] + ["MRR", "coverage", "n_queries", "fit_seconds"]
    pct = {c: "{:.2%}" for c in columns if c.startswith("P@") or c in ("MRR", "coverage")}
    pct["fit_seconds"] = "{:.1f}"
    title = f"BLI grid: {len(pairs)} pairs x {len(methods)} methods"
    if postproc is not None:
        title += f" x {len(alphas)} POSTPROC"
    if len(todo) < len(grid):
        title += f"; {len(grid) - len(todo)} of {len(grid)} cells read from {directory}"
    return BLIGrid([row for i in range(len(grid)) for row in results[i]], columns=columns, title=title,
                   formats=pct)
