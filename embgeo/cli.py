"""The ``embgeo`` command line: ``python -m embgeo COMMAND [options]``.

Each command lives in its own module, imported only when the command runs, so ``embgeo --help`` stays
fast and a command whose dependencies are missing does not break the others. A command module exposes
``add_arguments(parser)`` (fill an :class:`argparse.ArgumentParser`) and ``run(args) -> int``.

Errors caused by the input (unknown dataset, missing file, bad embeddings path, malformed data, no
covered pairs) end the program with exit code 1 and one line on standard error; usage errors (bad
arguments) print one line and exit with 2. ``--debug``, before or after the command, shows the full
traceback instead.
"""
from __future__ import annotations

import argparse
import importlib
import sys

__all__ = ["main", "COMMANDS", "load_embeddings"]

#: Command name -> module implementing it.
COMMANDS = {
    "evaluate": "embgeo.evaluate.cli",
    "bli": "embgeo.evaluate.lexicon",
    "datasets": "embgeo.data.cli",
    "neighbors": "embgeo.neighbors.cli",
    "compare": "embgeo.evaluate.compare_cli",
    "map": "embgeo.crosslingual.cli",
    "bias": "embgeo.evaluate.bias.cli",
}
_SUMMARY = {
    "evaluate": "word similarity and analogy benchmarks for embeddings",
    "bli": "bilingual lexicon induction: map source to target embeddings and score a test dictionary",
    "datasets": "list (and fetch) the registered datasets and vectors, and what is cached",
    "neighbors": "the nearest words of each given word",
    "compare": "paired tests of two embeddings on the same benchmarks (Steiger, McNemar)",
    "map": "map source and target embeddings into one space and write both (VecMap's map_embeddings.py)",
    "bias": "WEAT (Caliskan et al. 2017), RIPA, ECT, RND, RNSB and MAC bias scores with intervals and p-values",
}
#: Exceptions that mean "bad input" rather than a bug: reported in one line. RuntimeError and
#: MemoryError are not among them: they mean a bug or an exhausted machine, and their traceback
#: is what a bug report needs.
USER_ERRORS = (ValueError, KeyError, OSError, ImportError, LookupError, EOFError)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (the usage itself is one ``--help`` away)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _top_parser() -> argparse.ArgumentParser:
    width = max(map(len, COMMANDS))
    listing = "\n".join(f"  {name.ljust(width)}  {_SUMMARY.get(name, '')}" for name in COMMANDS)
    p = _Parser(
        prog="embgeo", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Geometry of word embeddings.",
        epilog=f"commands:\n{listing}\n\nRun 'embgeo COMMAND --help' for a command's options.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    p.add_argument("--debug", action="store_true", help="show full tracebacks on errors")
    p.add_argument("command", metavar="COMMAND", nargs="?", help=f"one of: {', '.join(COMMANDS)}")
    p.add_argument("command_args", metavar="...", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return p


def _version() -> str:
    from . import __version__

    return __version__


def _load_command(name: str):
    """Import a command's module; a one-line reason when it is missing or incomplete."""
    modname = COMMANDS[name]
    try:
        mod = importlib.import_module(modname)
    except ImportError as exc:
        raise _CommandUnavailable(f"command {name!r} is not available: cannot import {modname} ({exc})") from None
    missing = [f for f in ("add_arguments", "run") if not callable(getattr(mod, f, None))]
    if missing:
        raise _CommandUnavailable(f"command {name!r} is not available: {modname} does not define "
                                  f"{' and '.join(f + '()' for f in missing)}")
    return mod


class _CommandUnavailable(Exception):
    pass


def main(argv=None) -> int:
    """Run the ``embgeo`` command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    top = _top_parser()
    try:
        ns = top.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return _code(exc)
    if ns.command is None:
        top.print_usage(sys.stderr)
        print(f"embgeo: error: no command given (choose from {', '.join(COMMANDS)}; see 'embgeo --help')",
              file=sys.stderr)
        return 2
    if ns.command not in COMMANDS:
        print(f"embgeo: error: unknown command {ns.command!r} (choose from {', '.join(COMMANDS)})", file=sys.stderr)
        return 2
    prog = f"embgeo {ns.command}"
    try:
        mod = _load_command(ns.command)
    except _CommandUnavailable as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    parser = _Parser(prog=prog, description=_SUMMARY.get(ns.command))
    mod.add_arguments(parser)
    parser.add_argument("--debug", action="store_true", help="show full tracebacks on errors")
    try:
        args = parser.parse_args(ns.command_args)
    except SystemExit as exc:
        return _code(exc)
    args.debug = args.debug or ns.debug
    try:
        return int(mod.run(args) or 0)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except USER_ERRORS as exc:
        if args.debug:
            raise
        print(f"{prog}: error: {_message(exc)}", file=sys.stderr)
        return 1


def _message(exc: BaseException) -> str:
    msg = str(exc)
    if isinstance(exc, KeyError) and not hasattr(exc, "message") and len(exc.args) == 1:
        msg = str(exc.args[0])
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        msg = f"{exc.strerror}: {exc.filename}"
    return (msg or type(exc).__name__).splitlines()[0] if msg else type(exc).__name__


def _code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    return code if isinstance(code, int) else 2


def load_embeddings(source: str, limit: int | None = None):
    """The embeddings a command's ``--embeddings NAME|PATH`` names (a registry name or a file)."""
    import os
    from pathlib import Path

    from . import io

    p = Path(source).expanduser()
    looks_like_path = os.sep in source or p.suffix != "" or p.exists()
    if looks_like_path and not p.exists():
        raise FileNotFoundError(f"embeddings file not found: {source}")
    if limit is not None and limit < 1:
        raise ValueError(f"--limit must be positive, got {limit}")
    return io.load(source) if limit is None else io.load(source, limit=limit)
