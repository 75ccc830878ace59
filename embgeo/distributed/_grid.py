"""Experiment grids as Dask tasks (:func:`map_grid`), in this process when no client runs."""
from __future__ import annotations

import itertools
from collections.abc import Mapping
from functools import partial
from typing import Callable, Iterable

from ..progress import progress_bar
from ._cluster import current_client

__all__ = ["map_grid"]


def _call(fn, kwargs):
    return fn(**kwargs)


def _grid(params) -> list[dict]:
    if isinstance(params, Mapping):
        keys = list(params)
        return [dict(zip(keys, values)) for values in itertools.product(*(list(params[k]) for k in keys))]
    calls = list(params)
    if not all(isinstance(p, Mapping) for p in calls):
        raise TypeError("params must be a mapping of name -> values (a grid) or an iterable of keyword dicts")
    return [dict(p) for p in calls]


def map_grid(fn: Callable, params: Mapping | Iterable[Mapping], *, client=None, local: bool | None = None,
             progress: bool | None = None) -> list:
    """Call ``fn(**p)`` for every point ``p`` of a parameter grid, as Dask tasks when a client exists.

    Parameters
    ----------
    fn : callable
        Must be importable (or cloudpickle-able) on the workers.
    params : mapping of name -> values, or iterable of dicts
        A mapping is expanded to the Cartesian product in key order (as scikit-learn's
        ``ParameterGrid`` does for one dict); an iterable gives the calls as they are.
    client : distributed.Client, optional
        Default: the current client if there is one.
    local : bool, optional
        True runs in this process whatever exists; None (default) uses Dask only when a client
        is found.
    progress : bool, optional
        A progress bar over the calls, counted as they finish (an experiment grid often runs for
        minutes). ``None`` follows :func:`embgeo.set_progress`.

    Returns
    -------
    list
        ``fn``'s results in grid order.

    Examples
    --------
    >>> map_grid(lambda a, b: a * b, {"a": [1, 2], "b": [10, 20]}, local=True)
    [10, 20, 20, 40]
    """
    calls = _grid(params)
    if not local:
        if client is None:
            client = current_client()
        if client is not None:
            from distributed import as_completed

            futures = client.map(partial(_call, fn), calls, pure=False)
            with progress_bar(total=len(futures), desc="grid", progress=progress, unit="call") as bar:
                for _ in as_completed(futures):
                    bar.update()
            return client.gather(futures)
    return [fn(**p) for p in progress_bar(calls, desc="grid", progress=progress, unit="call")]
