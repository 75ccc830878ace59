"""The ``embgeo`` command line: ``python -m embgeo COMMAND [options]``.

Each command lives in its own module, imported only when the command runs, so ``embgeo --help`` stays
fast and a command whose dependencies are missing does not break the others. A command module exposes
``add_arguments(parser)`` (fill an :class:`argparse.ArgumentParser`) and ``run(args) -> int``.

Every command takes ``--quiet`` (no progress bars, no progress lines on standard error; notes about
the input and errors still print) and ``--json`` (the result as JSON on standard output), added here.

Errors caused by the input (unknown dataset, missing file, bad embeddings path, malformed data, no
covered pairs) end the program with exit code 1 and one line on standard error, never a traceback;
usage errors (bad arguments) print one line and exit with 2. A misspelt name (measure, dataset,
recipe, retrieval, ...) is answered with the nearest valid ones ("did you mean ...?"), and the hints of
the library's messages name the command that does the same (``python -m embgeo datasets``, not
``embgeo.data.registry()``). ``--debug``, before or after the command, shows the full traceback instead.
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import re
import sys
from pathlib import Path

__all__ = ["main", "COMMANDS", "load_embeddings", "choice", "positive_int", "did_you_mean", "check_not_vectors",
           "cli_hints"]

#: Command name -> module implementing it.
COMMANDS = {
    "evaluate": "embgeo.evaluate.cli",
    "bli": "embgeo.evaluate.bli_cli",
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
    """Run the ``embgeo`` command line with ``argv``; return the exit code.

    Errors of the user's making (a missing file, a malformed one, an unknown word or name) print one
    line, ``embgeo COMMAND: error: ...``, instead of a traceback (``--debug`` shows it).

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; None means ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success, 1 for an error, 2 for a usage error, 130 when interrupted.
    """
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
        print(f"embgeo: error: unknown command {ns.command!r}{did_you_mean(ns.command, COMMANDS)} "
              f"(choose from {', '.join(COMMANDS)})", file=sys.stderr)
        return 2
    prog = f"embgeo {ns.command}"
    try:
        mod = _load_command(ns.command)
    except _CommandUnavailable as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    parser = _Parser(prog=prog, description=_SUMMARY.get(ns.command))
    mod.add_arguments(parser)
    _add_common_arguments(parser)
    try:
        args = parser.parse_args(ns.command_args)
    except SystemExit as exc:
        return _code(exc)
    args.debug = args.debug or ns.debug
    from .progress import progress_enabled, set_progress

    was = progress_enabled()
    if args.quiet:
        set_progress(False)
    try:
        return int(mod.run(args) or 0)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except USER_ERRORS as exc:
        if args.debug:
            raise
        print(f"{prog}: error: {cli_hints(_message(exc))}", file=sys.stderr)
        return 1
    finally:
        set_progress(was)   # main() may run again in this process (the tests, a notebook)


def _add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """``--quiet``, ``--json`` and ``--debug``, the options of every command.

    A command that prints other formats too (``--markdown``) defines ``--json`` itself, in one
    mutually exclusive group with them; ``get_default`` tells whether it did.
    """
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="no progress bars and no progress lines on standard error (notes about the input "
                             "and errors still print)")
    if parser.get_default("json") is None:
        parser.add_argument("--json", action="store_true", help="print the result as JSON on standard output")
    parser.add_argument("--debug", action="store_true", help="show full tracebacks on errors")


#: The library's hints rewritten for the command line: (pattern, replacement) in order.
_CLI_HINTS = (
    (re.compile(r"embgeo\.data\.registry\(\s*(?:kind=)?['\"](\w+)['\"]\s*\)"), r"python -m embgeo datasets --kind \1"),
    (re.compile(r"embgeo\.data\.registry\(\)"), "python -m embgeo datasets"),
    (re.compile(r"embgeo\.data\.fetch\(\s*['\"]([^'\"]+)['\"]\s*\)"), r"python -m embgeo datasets --fetch \1"),
    (re.compile(r"\blowercase=True\b"), "--lowercase"),
    (re.compile(r"\boov='(\w+)' or '(\w+)'"), r"--oov \1 or --oov \2"),
    (re.compile(r"\boov='(\w+)'"), r"--oov \1"),
)


def cli_hints(message: str) -> str:
    """``message`` with the Python calls its hints name replaced by the commands that do the same.

    Parameters
    ----------
    message : str
        An error message of the library.

    Returns
    -------
    str
        The message as a command-line user reads it.

    Examples
    --------
    >>> cli_hints("unknown dataset 'x' (see embgeo.data.registry())")
    "unknown dataset 'x' (see python -m embgeo datasets)"
    >>> cli_hints("fetch it: embgeo.data.fetch('xling-de-fi-train-5k')")
    'fetch it: python -m embgeo datasets --fetch xling-de-fi-train-5k'
    >>> cli_hints("use oov='skip' or 'zero'")
    'use --oov skip or --oov zero'
    """
    for pattern, replacement in _CLI_HINTS:
        message = pattern.sub(replacement, message)
    return message


def did_you_mean(name: str, valid) -> str:
    """``"; did you mean 'a' or 'b'?"`` for the valid names nearest ``name`` (difflib), else ``""``.

    Parameters
    ----------
    name : str
        The name given.
    valid : iterable
        The names accepted.

    Returns
    -------
    str
        The suggestion (up to three names, nearest first) to append to an error message, or ``""``.

    Examples
    --------
    >>> did_you_mean("supervsied", ["supervised", "semi_supervised", "unsupervised"])
    "; did you mean 'supervised' or 'unsupervised' or 'semi_supervised'?"
    >>> did_you_mean("zzz", ["cosine"])
    ''
    """
    near = difflib.get_close_matches(str(name), [str(v) for v in valid], n=3, cutoff=0.6)
    if not near:
        return ""
    return f"; did you mean {' or '.join(map(repr, near))}?"


def choice(valid, what: str):
    """An argparse ``type`` accepting one of ``valid``; anything else is a usage error naming the nearest.

    Used instead of ``choices=`` so that a misspelt value is answered with "did you mean ...?"
    (argparse only lists every choice).

    Parameters
    ----------
    valid : iterable of str
        The accepted values.
    what : str
        What a value is (``"measure"``, ``"dataset"``), for the message.

    Returns
    -------
    callable
        ``parse(text) -> str`` for ``add_argument(type=...)``; it raises
        :class:`argparse.ArgumentTypeError` for a value not in ``valid``.
    """
    valid = list(valid)

    def parse(text: str) -> str:
        if text in valid:
            return text
        raise argparse.ArgumentTypeError(f"unknown {what} {text!r}{did_you_mean(text, valid)} "
                                         f"(choose from {', '.join(valid)})")

    parse.__name__ = what   # argparse names the type in some messages
    parse.valid = tuple(valid)  # type: ignore[attr-defined]  # what argparse's choices= would hold
    return parse


def positive_int(text: str) -> int:
    """An argparse ``type``: an integer of at least 1.

    Parameters
    ----------
    text : str
        The option's value.

    Returns
    -------
    int
        The integer.

    Raises
    ------
    argparse.ArgumentTypeError
        ``text`` is not an integer, or is below 1.
    """
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return v


def check_not_vectors(path, option: str, expected: str) -> None:
    """A ValueError when the file given to ``option`` (where ``expected`` belongs) holds word vectors.

    Sniffed from the first lines, never parsed whole: a word2vec header ``N D`` (D > 1) followed by a
    line of a word and D numbers (or by binary data), or lines of a word and three or more numbers (GloVe,
    headerless text). A dictionary (``word word``), a similarity dataset (``word word score ...``) or an
    analogy file (four words) never looks like either. A missing or unreadable file is left to the
    reader, whose message names it.

    Parameters
    ----------
    path : str or path-like
        The file given.
    option : str
        The option it was given to (``"--dictionary"``), for the message.
    expected : str
        What belongs there (``"a dictionary"``), for the message.

    Raises
    ------
    ValueError
        The file looks like word vectors.
    """
    p = Path(path).expanduser()
    if not p.is_file():
        return
    import gzip

    try:
        with open(p, "rb") as f:
            raw = f.read(1 << 16)
        if raw[:2] == b"\x1f\x8b":
            with gzip.open(p, "rb") as f:
                raw = f.read(1 << 16)
    except (OSError, EOFError):
        return
    lines = raw.split(b"\n")
    first = lines[0].strip()
    why = None
    fields = first.split()
    if len(fields) == 2 and all(x.isdigit() for x in fields) and len(lines) > 1:
        d = int(fields[1])
        nxt = lines[1].split()
        # a dictionary's "1 1" (numerals) is followed by pairs, never by a word and two or more numbers
        if (d > 1 and len(nxt) == d + 1 and all(_is_number(x) for x in nxt[1:])) or b"\x00" in raw:
            why = f"its first line {first.decode('ascii')!r} is a word2vec header N D"
    if why is None:
        rows = [ln.split() for ln in lines[:5] if ln.strip()]
        if len(lines) > 5:
            rows = rows[:-1] if not raw.endswith(b"\n") else rows   # the last line may be cut by the read
        if rows and all(len(r) >= 4 and len(r) == len(rows[0]) and all(_is_number(x) for x in r[1:])
                        for r in rows):
            why = f"its lines are a word and {len(rows[0]) - 1} numbers"
    if why is not None:
        raise ValueError(f"{option} {path} looks like a word-vectors file ({why}), not {expected}")


def _is_number(field: bytes) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


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
    """The embeddings a command's ``--embeddings NAME|PATH`` names (a registry name or a file).

    Parameters
    ----------
    source : str
        A file or an embgeo cache (anything :func:`embgeo.io.load` reads), or a name of the
        ``vectors`` registry.
    limit : int, optional
        Read only the first ``limit`` words.

    Returns
    -------
    Embeddings
        The vectors.

    Raises
    ------
    FileNotFoundError
        ``source`` looks like a path (a separator or a suffix) and does not exist.
    ValueError
        ``limit`` is below 1.
    """
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
