"""``python -m embgeo bli``: map source to target embeddings, then score a test dictionary (BLI).

Examples
--------
::

    python -m embgeo bli --src glove-6b-50d --tgt fi.vec.gz --train en-fi.tsv --holdout 0.2 \\
        --lowercase --retrieval nn csls --postproc -0.25 0.15 --self-learning
    python -m embgeo bli --src en.vec --tgt fi.vec --train en-fi.train.tsv --test en-fi.test.tsv --json

The options naming the two spaces (``--src``, ``--tgt``, ``--src-vocab``, ``--tgt-vocab``) and the
Mapper's (``--recipe``, ``--self-learning``, ...) are those of ``python -m embgeo map``
(:mod:`embgeo.crosslingual.cli`). The scores are :func:`embgeo.evaluate.bli`'s, one row per
retrieval method.
"""
from __future__ import annotations

import sys

from ..cli import check_not_vectors, choice, positive_int
from ..crosslingual.cli import add_mapper_arguments, mapper_from_arguments
from ..data import read_dictionary, split_dictionary
from ..neighbors import VALID_RETRIEVALS
from .lexicon import bli

__all__ = ["add_arguments", "run"]

_OOV_POLICIES = ("skip", "zero", "raise")


def add_arguments(parser) -> None:
    """Arguments of ``python -m embgeo bli``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser; the options are added to it.
    """
    retrievals = list(VALID_RETRIEVALS["exact"])
    parser.add_argument("--src", required=True, metavar="NAME|PATH",
                        help="source vectors: a name (glove-6b-50d) or a .vec[.gz] path")
    parser.add_argument("--tgt", required=True, metavar="NAME|PATH", help="target vectors: a name or a .vec[.gz] path")
    parser.add_argument("--train", required=True, metavar="DICT", help="training (seed) dictionary")
    parser.add_argument("--test", metavar="DICT", help="test dictionary; without it, --holdout of --train is held out")
    parser.add_argument("--holdout", type=float, default=0.2, metavar="FRACTION",
                        help="fraction of training source words held out for testing when no --test, "
                             "between 0 and 1 (default: 0.2)")
    parser.add_argument("--seed-size", type=positive_int, default=None, metavar="N",
                        help="seed = the first N pairs of --train minus the test words (the yacle 1k/500 "
                             "files are the first lines of the 5k file)")
    parser.add_argument("--src-vocab", type=positive_int, default=200000, metavar="N",
                        help="keep the first N source words, the most frequent in frequency-sorted files "
                             "(default: 200000; the rest of a larger file is dropped, and the run says so)")
    parser.add_argument("--tgt-vocab", type=positive_int, default=200000, metavar="N",
                        help="keep the first N target words (default: 200000)")
    add_mapper_arguments(parser)
    parser.add_argument("--retrieval", nargs="+", default=["nn", "csls"], type=choice(retrievals, "retrieval"),
                        metavar="{" + ",".join(retrievals) + "}",
                        help="how a mapped source word finds its translation, one row each: nn (nearest "
                             "neighbour, cosine), csls (cross-domain similarity local scaling, Conneau et al. "
                             "2018), isf (inverted softmax, Smith et al. 2017), dot (raw dot product, VecMap's "
                             "--dot), invnn (inverted nearest neighbour, Dinu et al. 2015) (default: nn csls)")
    parser.add_argument("--source-size", type=positive_int, default=None, metavar="N",
                        help="CSLS / inverted-softmax statistics over the N most frequent source words (all)")
    parser.add_argument("--oov", default="skip", type=choice(_OOV_POLICIES, "OOV policy"),
                        metavar="{" + ",".join(_OOV_POLICIES) + "}",
                        help="uncovered test words: skip (default), zero (count as failures) or raise")
    parser.add_argument("--lowercase", action="store_true", help="lower-case the dictionaries")


def _load_vocab(source, n, option):
    """The first ``n`` words of ``source``; one line on standard error when the file holds more."""
    from ..cli import load_embeddings

    e = load_embeddings(source, n + 1)  # one word more tells whether the file was cut
    if len(e) > n:
        print(f"embgeo bli: note: keeping the first {n} words of {source} ({option} {n})", file=sys.stderr)
        e = e.subset(e.words[:n])
    return e


def run(args) -> int:
    """Run ``python -m embgeo bli``: map, evaluate, print one table row per retrieval method.

    Parameters
    ----------
    args : argparse.Namespace
        The options parsed by the parser :func:`add_arguments` built (with ``--json`` and ``--quiet``
        from :func:`embgeo.cli.main`).

    Returns
    -------
    int
        The exit code, 0; errors raise (``embgeo bli`` prints them as one line).
    """
    import time

    from .report import Report

    if not args.test and not 0 < args.holdout < 1:
        raise ValueError(f"--holdout must be between 0 and 1 (a fraction of the --train source words), "
                         f"got {args.holdout}")
    # checked before the (possibly long) loading of the vectors
    for option, path in (("--train", args.train), ("--test", args.test)):
        if path:
            check_not_vectors(path, option, "a dictionary of word pairs (the vectors go to --src and --tgt)")
    pairs = read_dictionary(args.train, lowercase=args.lowercase)
    test = read_dictionary(args.test, lowercase=args.lowercase) if args.test else None
    src = _load_vocab(args.src, args.src_vocab, "--src-vocab")
    tgt = _load_vocab(args.tgt, args.tgt_vocab, "--tgt-vocab")
    if test is None:
        _, test = split_dictionary(pairs, args.holdout)
    test_src = {s for s, _ in test}
    # a smaller seed = the first N pairs of the same file, minus the test words, so that the
    # held-out words (and hence the scores) stay comparable across seed sizes
    pool = pairs[:args.seed_size] if args.seed_size else pairs
    train = [p for p in pool if p[0] not in test_src]
    if not train:
        raise ValueError("no training pair is left after removing the test words")
    recipe, over, mapper = mapper_from_arguments(args)
    t0 = time.perf_counter()
    mapper.fit(src, tgt, train)
    xs, zt = mapper.transform(src, tgt)
    fit_s = time.perf_counter() - t0
    rows = [bli(xs, zt, test, retrieval=r, oov=args.oov, source_size=args.source_size).to_dict()
            for r in args.retrieval]
    title = (f"BLI {args.src} ({len(src)}x{src.dim}) -> {args.tgt} ({len(tgt)}x{tgt.dim}); recipe {recipe}"
             f"{' ' + str(over) if over else ''}; {len(train)} seed pairs; {rows[0]['n_test']} test words; "
             f"fit {fit_s:.1f}s, {mapper.n_iter_} self-learning iterations")
    pct = {c: "{:.2%}" for c in ("P@1", "P@5", "P@10", "MRR", "coverage")}
    report = Report(rows, columns=["retrieval", "P@1", "P@5", "P@10", "MRR", "coverage", "n_queries"],
                    title=title, formats=pct)
    print(report.to_json() if args.json else report)
    sys.stdout.flush()
    return 0
