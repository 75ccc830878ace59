"""Every public name carries a numpydoc docstring that numpydoc's own validator accepts.

The public surface is the table in ``tests/test_public_api.py``: each function and class a public
module exports, and the public methods and properties of those classes (including dataclass
fields' ``__init__`` parameters, which the class docstring documents). The codes checked are the
ones that make a docstring usable as reference: a docstring exists (GL08), a summary (SS01), every
parameter documented and none invented (PR01, PR02), documented in order (PR03), each with a
description (PR10) and a Returns section where something is returned (RT01).

One test per public module (the ids are the module names, so ``-k embgeo.evaluate`` selects a few);
each object is checked once, under the public module that holds its code.
"""
from __future__ import annotations

import functools
import importlib
import inspect

import pytest

from test_public_api import PUBLIC_API

validate = pytest.importorskip("numpydoc.validate").validate

CODES = frozenset({"GL08", "SS01", "PR01", "PR02", "PR03", "PR10", "RT01"})


def _targets(module: str) -> list[str]:
    """Dotted paths (where each object is defined) of the module's public functions, classes and members."""
    mod = importlib.import_module(module)
    found: list[str] = []
    for name in PUBLIC_API[module]:
        obj = getattr(mod, name)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)) or not obj.__module__.startswith("embgeo."):
            continue  # constants and the version string have no docstring of their own; others' names are theirs
        home = f"{obj.__module__}.{obj.__qualname__}"
        found.append(home)
        if inspect.isclass(obj):
            found += [f"{home}.{attr}" for attr, value in vars(obj).items()
                      if not attr.startswith("_")
                      and (inspect.isfunction(value) or isinstance(value, (classmethod, staticmethod, property)))]
    return found


@functools.cache  # built on first use, so that collecting the tests imports nothing
def _by_home_module() -> dict[str, list[str]]:
    """Each object once, under the public module its code lives in (the longest public prefix of its home).

    ``embgeo.Embeddings`` is checked under ``embgeo.embeddings``, ``embgeo.data.read_bats`` (defined in
    ``embgeo.data._bats``) under ``embgeo.data``: a module's test fails for the docstrings its own files hold.
    """
    owned: dict[str, list[str]] = {module: [] for module in PUBLIC_API}
    for target in sorted({t for module in PUBLIC_API for t in _targets(module)}):
        parts = target.split(".")
        home = max((m for m in PUBLIC_API if parts[:len(m.split("."))] == m.split(".")), key=len)
        owned[home].append(target)
    return owned


@pytest.mark.parametrize("module", sorted(PUBLIC_API))
def test_public_docstrings_pass_numpydoc_validation(module):
    problems = []
    for target in _by_home_module()[module]:
        result = validate(target)
        problems += [f"{target}: {code} {message}" for code, message in result["errors"] if code in CODES]
    if problems:
        pytest.fail(f"{len(problems)} numpydoc errors in {module}:\n" + "\n".join(problems), pytrace=False)
