"""``python -m embgeo map``: map two embedding files into one space and write both (VecMap's main use).

Examples
--------
::

    python -m embgeo map en.vec fi.vec en.mapped.vec fi.mapped.vec --recipe supervised --train en-fi.txt
    python -m embgeo map en.vec de.vec en.out.vec.gz de.out.vec.gz --recipe unsupervised
    python -m embgeo map en.vec fi.vec en.npy fi.npy --recipe semi_supervised --train seed.txt \\
        --validation val.txt --max-iter 50

Like ``map_embeddings.py SRC TRG SRC_OUT TRG_OUT``: every word of both files is mapped (``--src-vocab``
/ ``--tgt-vocab`` keep the first N), with the recipe's normalisation fitted on the whole vocabularies.
Each output is written atomically (:func:`embgeo.io.save`: a temporary file beside it replaces it
when complete), streamed block by block, in the format its name says (or ``--format``). Nothing
words × words is ever held: the mapping is d × d, self-learning is blocked.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ..evaluate.lexicon import add_mapper_arguments, mapper_from_arguments

__all__ = ["add_arguments", "run"]


def add_arguments(parser) -> None:
    """Arguments of ``python -m embgeo map``."""
    parser.add_argument("src", metavar="SRC", help="source vectors: a file embgeo.load reads, or a registry name")
    parser.add_argument("tgt", metavar="TRG", help="target vectors: a file or a registry name")
    parser.add_argument("src_out", metavar="SRC_OUT", help="where the mapped source vectors go")
    parser.add_argument("tgt_out", metavar="TRG_OUT", help="where the mapped target vectors go")
    add_mapper_arguments(parser)
    parser.add_argument("--train", metavar="DICT", help="seed dictionary (word pairs), for the recipes that need one")
    parser.add_argument("--validation", metavar="DICT",
                        help="dictionary scored at every self-learning iteration (VecMap's --validation)")
    parser.add_argument("--lowercase", action="store_true", help="lower-case the dictionaries")
    parser.add_argument("--src-vocab", type=int, default=None, metavar="N", help="map only the first N source words")
    parser.add_argument("--tgt-vocab", type=int, default=None, metavar="N", help="map only the first N target words")
    parser.add_argument("--format", default=None, metavar="FORMAT",
                        help="output format (word2vec, fasttext, glove, word2vec_binary, embgeo); default: from "
                             "each output name (.vec/.txt text, .bin word2vec binary, .npy/.embgeo embgeo cache, "
                             ".gz compressed)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress bars")


def _same(a: Path, b: Path) -> bool:
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return a.resolve() == b.resolve()


def _check_paths(args) -> tuple[Path, Path]:
    """The two outputs; a ValueError when one would overwrite an input or the other output."""
    outs = {"SRC_OUT": Path(args.src_out).expanduser(), "TRG_OUT": Path(args.tgt_out).expanduser()}
    ins = {"SRC": Path(args.src).expanduser(), "TRG": Path(args.tgt).expanduser()}
    if _same(outs["SRC_OUT"], outs["TRG_OUT"]):
        raise ValueError(f"SRC_OUT and TRG_OUT are the same file ({args.src_out}): give two output paths")
    for oname, o in outs.items():
        for iname, i in ins.items():
            if i.exists() and _same(o, i):
                raise ValueError(f"{oname} {o} is the input {iname}: it would be overwritten; "
                                 "write the mapped vectors elsewhere")
        if not o.parent.is_dir():
            raise FileNotFoundError(f"{oname}: no such directory: {o.parent}")
    return outs["SRC_OUT"], outs["TRG_OUT"]


def run(args) -> int:
    """Run ``python -m embgeo map``: load, fit the recipe, write both mapped spaces."""
    import time

    from .. import io
    from ..data import read_dictionary
    from ..progress import set_progress
    from ._mapper import RECIPES

    if args.quiet:
        set_progress(False)
    src_out, tgt_out = _check_paths(args)
    for name in ("src_vocab", "tgt_vocab"):
        n = getattr(args, name)
        if n is not None and n < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be positive, got {n}")
    recipe, over, mapper = mapper_from_arguments(args)
    needs_seed = RECIPES[recipe].get("init", "seed") == "seed"
    if needs_seed and not args.train:
        raise ValueError(f"recipe {recipe!r} needs a seed dictionary: pass --train DICT (or a seedless recipe: "
                         "identical, acl2017, unsupervised)")
    if args.train and not needs_seed:
        print(f"embgeo map: note: recipe {recipe!r} makes its own seed dictionary; --train is not used",
              file=sys.stderr)
    # the dictionaries and the output formats are checked before the (possibly long) loading and fit
    train = read_dictionary(args.train, lowercase=args.lowercase) if args.train and needs_seed else None
    validation = read_dictionary(args.validation, lowercase=args.lowercase) if args.validation else None
    for p in (src_out, tgt_out):
        _check_writable(p, args.format)
    from ..cli import load_embeddings

    t0 = time.perf_counter()
    src = load_embeddings(args.src, args.src_vocab)
    tgt = load_embeddings(args.tgt, args.tgt_vocab)
    print(f"embgeo map: {args.src} {len(src)}x{src.dim}, {args.tgt} {len(tgt)}x{tgt.dim}; recipe {recipe}"
          f"{' ' + str(over) if over else ''}", file=sys.stderr)
    xs, zt = mapper.fit_transform(src, tgt, train, validation=validation)
    fit_s = time.perf_counter() - t0
    line = f"embgeo map: fitted in {fit_s:.1f} s (loading included)"
    if mapper.n_iter_:
        last = mapper.history_[-1]
        line += f"; {mapper.n_iter_} self-learning iterations, objective {last['objective']:.4f}"
        if "val_accuracy" in last:
            line += f", validation P@1 {100 * last['val_accuracy']:.2f}%"
    print(line + f"; dictionary {len(mapper.dictionary_)} pairs", file=sys.stderr)
    progress = False if args.quiet else None
    for e, p in ((xs, src_out), (zt, tgt_out)):
        io.save(e, p, format=args.format, progress=progress)
        print(f"embgeo map: wrote {p} ({len(e)}x{e.dim})", file=sys.stderr)
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
