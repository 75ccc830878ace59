"""``embgeo neighbors``: the nearest words of each given word.

Examples
--------
::

    python -m embgeo neighbors king queen                  # GloVe 6B 50d, 10 neighbours each
    python -m embgeo neighbors frog -k 5 --embeddings vectors.vec.gz --json
"""
from __future__ import annotations

import argparse
import json
import sys

from ..cli import choice, positive_int
from ._criteria import VALID_METRICS

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``embgeo neighbors``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The ``neighbors`` subcommand's parser; the options are added to it.
    """
    parser.add_argument("words", nargs="+", metavar="WORD", help="the query words")
    parser.add_argument("--embeddings", "-e", default="glove-6b-50d", metavar="NAME|PATH",
                        help="embeddings to search: 'glove-6b-50d' (default, needs embgeo[data]), a registry "
                             "name, or a file embgeo.load reads (word2vec/GloVe/fastText text or binary, ...)")
    parser.add_argument("-k", type=positive_int, default=10, metavar="K", help="neighbours per word (default: 10)")
    parser.add_argument("--limit", type=positive_int, default=None, metavar="N",
                        help="search only the first N words of the embeddings (default: all)")
    parser.add_argument("--metric", type=choice(VALID_METRICS["exact"], "metric"), default="cosine",
                        metavar="{" + ",".join(VALID_METRICS["exact"]) + "}",
                        help="cosine (default), dot product, csls or isf (hubness-corrected cosine), or a hubness "
                             "reduction (mp, mp-gauss, ls, cdm, dsl; K = 10): embgeo.neighbors.VALID_METRICS")
    parser.add_argument("--json", action="store_true", help="print {word: [[neighbour, score], ...]} as JSON")


def run(args) -> int:
    """Print each word's neighbours.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (the options of :func:`add_arguments`).

    Returns
    -------
    int
        The exit code, 0.

    Raises
    ------
    UnknownWordError
        A query word that is not in the embeddings (named, before the search).
    """
    from ..cli import load_embeddings

    e = load_embeddings(args.embeddings, args.limit)
    e.indices(args.words)  # an unknown word fails here, named, before the search
    scores, ids = e.neighbors(args.words, k=min(args.k, len(e) - 1), metric=args.metric)
    found = {w: list(zip(e.words_at(row), s.tolist())) for w, row, s in zip(args.words, ids, scores)}
    if args.json:
        print(json.dumps({w: [[n, round(float(x), 6)] for n, x in pairs] for w, pairs in found.items()},
                         ensure_ascii=False))
    else:
        for w, pairs in found.items():
            width = max(len(n) for n, _ in pairs)
            print(w)
            for rank, (n, x) in enumerate(pairs, 1):
                print(f"  {rank:>3}  {n.ljust(width)}  {x:.4f}")
    sys.stdout.flush()
    return 0
