"""``embgeo datasets``: list the registered datasets and vectors, what is cached and where; fetch one.

Examples
--------
::

    python -m embgeo datasets --kind similarity          # the word-similarity sets, cached or not
    python -m embgeo datasets --cached                   # what the cache ($EMBGEO_DATA) holds
    python -m embgeo datasets --fetch simverb-3500       # download, verify, print the path
    python -m embgeo datasets --kind dictionary --json   # one JSON object per resource
"""
from __future__ import annotations

import importlib.util
import json

from ..cli import choice
from ._registry import KINDS, cache_dir, cached, fetch, registry

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    """Options of ``embgeo datasets``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser; the options are added to it.
    """
    parser.description = ("List the registered datasets and vectors, whether each is cached, and where; "
                          "with --fetch, download (and verify) one.")
    parser.add_argument("--kind", type=choice(KINDS, "kind"), metavar="{" + ",".join(KINDS) + "}",
                        help="list only this kind")
    parser.add_argument("--cached", action="store_true", help="list only what is in the cache")
    parser.add_argument("--fetch", metavar="NAME", help="fetch NAME into the cache and print its path")
    parser.add_argument("--no-verify", action="store_true",
                        help="with --fetch: accept a resource without a published checksum (trust on first use)")


def _checksum(r) -> str:
    if r.sha256:
        return "sha256"
    if r.md5:
        return "md5"
    return "package" if r.package else "loader" if r.loader else "unverified"


def _installed(r) -> str | None:
    """Where an installed package holds resource ``r`` (a resource of a package is never cached)."""
    if r.package is None or importlib.util.find_spec(r.package) is None:
        return None
    return f"{fetch(r.name)} (package)"


def run(args) -> int:
    """Run ``embgeo datasets``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (with ``--json`` from :func:`embgeo.cli.main`).

    Returns
    -------
    int
        The exit code, 0.
    """
    if args.fetch:
        path = fetch(args.fetch, verify=not args.no_verify)
        print(json.dumps({"name": args.fetch, "path": str(path)}) if args.json else path)
        return 0
    have = cached()
    rows = [(name, r.kind, "-" if r.size is None else str(r.size), _checksum(r),
             str(have[name]) if name in have else _installed(r) or "-")
            for name, r in registry(args.kind).items() if name in have or not args.cached]
    head = ("name", "kind", "bytes", "checksum", "cached at")
    if args.json:
        keys = ("name", "kind", "bytes", "checksum", "cached_at")
        records = [{k: (None if v == "-" else int(v) if k == "bytes" else v) for k, v in zip(keys, row)}
                   for row in rows]
        print(json.dumps({"cache": str(cache_dir()), "cached": len(have), "resources": records}, ensure_ascii=False))
        return 0
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(4)]
    for row in [head, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[4])
    print(f"# {len(rows)} listed, {len(have)} cached in {cache_dir()}")
    return 0
