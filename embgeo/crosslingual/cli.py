"""``python -m embgeo map``: map two embedding files into one space and write both (VecMap's main use).

Examples
--------
::

    python -m embgeo map --src en.vec --tgt fi.vec --src-out en.mapped.vec --tgt-out fi.mapped.vec \\
        --recipe supervised --train en-fi.txt
    python -m embgeo map --src en.vec --tgt de.vec --src-out en.out.vec.gz --tgt-out de.out.vec.gz --recipe unsupervised
    python -m embgeo map --src en.vec --tgt fi.vec --src-out en.npy --tgt-out fi.npy --recipe semi_supervised \\
        --train seed.txt --validation val.txt --max-iter 50 --json

VecMap's ``map_embeddings.py SRC TRG SRC_OUT TRG_OUT``, with the options of ``python -m embgeo bli``
(``--src``, ``--tgt``, ``--src-vocab``, ``--tgt-vocab``): every word of both files is mapped
(``--src-vocab`` / ``--tgt-vocab`` keep the first N), with the recipe's normalisation fitted on the
whole vocabularies. Each output is written atomically (:func:`embgeo.io.save`: a temporary file beside
it replaces it when complete), streamed block by block, in the format its name says (or ``--format``).
Nothing words × words is ever held: the mapping is d × d, self-learning is blocked.

This module also holds the :class:`~embgeo.crosslingual.Mapper` options that ``map`` and ``bli``
share (:func:`add_mapper_arguments`, :func:`mapper_from_arguments`).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..cli import check_not_vectors, choice, positive_int
from ._mapper import RECIPE_HELP, RECIPES, Mapper

__all__ = ["add_arguments", "run", "add_mapper_arguments", "mapper_from_arguments"]


def add_mapper_arguments(parser, default_recipe: str | None = None) -> None:
    """The :class:`~embgeo.crosslingual.Mapper` options shared by ``bli`` and ``map``, and the recipe list.

    The list (the epilog of ``--help``) is :data:`embgeo.crosslingual.RECIPE_HELP`, one line per recipe.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser; its epilog and formatter are replaced.
    default_recipe : str or None
        The ``--recipe`` default (None: chosen by :func:`mapper_from_arguments`).
    """
    width = max(map(len, RECIPES))
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = "recipes (--recipe):\n" + "\n".join(f"  {name.ljust(width)}  {RECIPE_HELP.get(name, '')}"
                                                        for name in RECIPES)
    parser.add_argument("--recipe", default=default_recipe, type=choice(sorted(RECIPES), "recipe"), metavar="RECIPE",
                        help="Mapper recipe (listed below; default: supervised, semi_supervised with "
                             "--self-learning)")
    parser.add_argument("--self-learning", action="store_true", help="iterate mapping and dictionary induction")
    parser.add_argument("--vocabulary-cutoff", type=positive_int, default=None, metavar="N",
                        help="self-learning vocabulary cutoff")
    parser.add_argument("--max-iter", type=positive_int, default=None, metavar="N",
                        help="bound on self-learning iterations")
    parser.add_argument("--postproc", nargs=2, type=float, metavar=("ALPHA_SRC", "ALPHA_TGT"),
                        help="POSTPROC similarity-order exponents (paper: -0.25 0.15)")
    parser.add_argument("--pca", default=None, type=_pca, metavar="N|match",
                        help="reduce the wider space by PCA: N dimensions or 'match' (the narrower one's)")


def _pca(text: str):
    if text == "match":
        return text
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a number of dimensions or 'match', got {text!r}") from None


def mapper_from_arguments(args):
    """The Mapper the options of :func:`add_mapper_arguments` ask for.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed options of a parser given :func:`add_mapper_arguments`.

    Returns
    -------
    recipe : str
        The recipe's name (``--recipe``, else supervised, or semi_supervised with ``--self-learning``).
    overrides : dict
        The options given, as :meth:`Mapper.from_recipe` overrides (``induction__vocabulary_cutoff``, ...).
    mapper : Mapper
        Unfitted.
    """
    recipe = args.recipe or ("semi_supervised" if args.self_learning else "supervised")
    over: dict = {}
    if args.self_learning:
        over["self_learning"] = True
    if args.vocabulary_cutoff:
        over["induction__vocabulary_cutoff"] = args.vocabulary_cutoff
    if args.max_iter:
        over["max_iter"] = args.max_iter
    if args.postproc:
        over["preprocessing__postproc"] = tuple(args.postproc)
    if args.pca:
        over["preprocessing__pca"] = args.pca
    return recipe, over, Mapper.from_recipe(recipe, **over)


def add_arguments(parser) -> None:
    """Arguments of ``python -m embgeo map``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The ``map`` command's parser.
    """
    parser.add_argument("--src", required=True, metavar="NAME|PATH",
                        help="source vectors: a file embgeo.load reads, or a registry name")
    parser.add_argument("--tgt", required=True, metavar="NAME|PATH", help="target vectors: a file or a registry name")
    parser.add_argument("--src-out", required=True, metavar="PATH", help="where the mapped source vectors go")
    parser.add_argument("--tgt-out", required=True, metavar="PATH", help="where the mapped target vectors go")
    add_mapper_arguments(parser)
    parser.add_argument("--train", metavar="DICT", help="seed dictionary (word pairs), for the recipes that need one")
    parser.add_argument("--validation", metavar="DICT",
                        help="dictionary scored at every self-learning iteration (VecMap's --validation)")
    parser.add_argument("--lowercase", action="store_true", help="lower-case the dictionaries")
    parser.add_argument("--src-vocab", type=positive_int, default=None, metavar="N",
                        help="map only the first N source words")
    parser.add_argument("--tgt-vocab", type=positive_int, default=None, metavar="N",
                        help="map only the first N target words")
    parser.add_argument("--format", default=None, metavar="FORMAT",
                        help="output format (word2vec, fasttext, glove, word2vec_binary, embgeo); default: from "
                             "each output name (.vec/.txt text, .bin word2vec binary, .npy/.embgeo embgeo cache, "
                             ".gz compressed)")


def _same(a: Path, b: Path) -> bool:
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return a.resolve() == b.resolve()


def _check_paths(args) -> tuple[Path, Path]:
    """The two outputs; a ValueError when one would overwrite an input or the other output."""
    outs = {"--src-out": Path(args.src_out).expanduser(), "--tgt-out": Path(args.tgt_out).expanduser()}
    ins = {"--src": Path(args.src).expanduser(), "--tgt": Path(args.tgt).expanduser()}
    if _same(outs["--src-out"], outs["--tgt-out"]):
        raise ValueError(f"--src-out and --tgt-out are the same file ({args.src_out}): give two output paths")
    for oname, o in outs.items():
        for iname, i in ins.items():
            if i.exists() and _same(o, i):
                raise ValueError(f"{oname} {o} is the input {iname}: it would be overwritten; "
                                 "write the mapped vectors elsewhere")
        if not o.parent.is_dir():
            raise FileNotFoundError(f"{oname}: no such directory: {o.parent}")
    return outs["--src-out"], outs["--tgt-out"]


def run(args) -> int:
    """Run ``python -m embgeo map``: load, fit the recipe, write both mapped spaces.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of :func:`add_arguments`.

    Returns
    -------
    int
        The exit status, 0 (errors are raised, and reported by :func:`embgeo.cli.main`).
    """
    import time

    from .. import io
    from ..cli import load_embeddings
    from ..data import read_dictionary

    src_out, tgt_out = _check_paths(args)
    recipe, over, mapper = mapper_from_arguments(args)
    needs_seed = mapper.get_params()["initialization__dictionary"] == "seed"
    if needs_seed and not args.train:
        raise ValueError(f"recipe {recipe!r} needs a seed dictionary: pass --train DICT (or a seedless recipe: "
                         "identical, acl2017, unsupervised)")
    if args.train and not needs_seed:
        print(f"embgeo map: note: recipe {recipe!r} makes its own seed dictionary; --train is not used",
              file=sys.stderr)
    # the dictionaries and the output formats are checked before the (possibly long) loading and fit
    for option, path in (("--train", args.train if needs_seed else None), ("--validation", args.validation)):
        if path:
            check_not_vectors(path, option, "a dictionary of word pairs (the vectors go to --src and --tgt)")
    train = read_dictionary(args.train, lowercase=args.lowercase) if args.train and needs_seed else None
    validation = read_dictionary(args.validation, lowercase=args.lowercase) if args.validation else None
    for p in (src_out, tgt_out):
        _check_writable(p, args.format)

    def info(line: str) -> None:
        if not args.quiet:
            print(f"embgeo map: {line}", file=sys.stderr)

    t0 = time.perf_counter()
    src = load_embeddings(args.src, args.src_vocab)
    tgt = load_embeddings(args.tgt, args.tgt_vocab)
    info(f"{args.src} {len(src)}x{src.dim}, {args.tgt} {len(tgt)}x{tgt.dim}; recipe {recipe}"
         f"{' ' + str(over) if over else ''}")
    xs, zt = mapper.fit_transform(src, tgt, train, validation=validation)
    fit_s = time.perf_counter() - t0
    summary: dict = {"recipe": recipe, "options": over, "src": args.src, "tgt": args.tgt,
                     "fit_seconds": round(fit_s, 3), "self_learning_iterations": int(mapper.n_iter_ or 0),
                     "dictionary_pairs": len(mapper.dictionary_)}
    line = f"fitted in {fit_s:.1f} s (loading included)"
    if mapper.n_iter_:
        last = mapper.history_[-1]
        summary["objective"] = float(last["objective"])
        line += f"; {mapper.n_iter_} self-learning iterations, objective {last['objective']:.4f}"
        if "val_accuracy" in last:
            summary["validation_p@1"] = float(last["val_accuracy"])
            line += f", validation P@1 {100 * last['val_accuracy']:.2f}%"
    info(line + f"; dictionary {len(mapper.dictionary_)} pairs")
    progress = False if args.quiet else None
    for key, e, p in (("src_out", xs, src_out), ("tgt_out", zt, tgt_out)):
        io.save(e, p, format=args.format, progress=progress)
        summary[key] = {"path": str(p), "words": len(e), "dim": int(e.dim)}
        info(f"wrote {p} ({len(e)}x{e.dim})")
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    return 0


def _check_writable(path: Path, fmt) -> None:
    """io.save's ValueError for ``path``'s name and ``fmt`` now, rather than after the fit.

    A one-word space is saved under the same name in a temporary directory: the format is decided
    by :func:`embgeo.io.save` itself, so this check knows exactly the names and formats it knows.
    """
    import tempfile

    import numpy as np

    from .. import io
    from ..embeddings import Embeddings

    with tempfile.TemporaryDirectory() as tmp:
        try:
            io.save(Embeddings(["w"], np.zeros((1, 1), dtype=np.float32)), Path(tmp) / path.name, format=fmt,
                    progress=False)
        except ImportError as exc:
            raise ImportError(f"cannot write {path.name}: {exc}") from None
