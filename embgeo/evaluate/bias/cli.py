"""``embgeo bias``: WEAT (and RIPA, ECT, RND, RNSB, MAC) scores of embeddings, with intervals and p-values.

Examples
--------
::

    python -m embgeo bias                                        # the ten WEAT tests on GloVe 6B 50d
    python -m embgeo bias --embeddings vectors.txt --queries weat1 weat6 --ci
    python -m embgeo bias --queries weat7 my_query.json --measures weat,mac --ci 0.9 --plot forest.png
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``embgeo bias``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser; the options are added to it.
    """
    from ..cli import DEFAULT_EMBEDDINGS
    from ._measures import ALTERNATIVES, BIAS_MEASURES

    parser.add_argument("--embeddings", "-e", default=DEFAULT_EMBEDDINGS, metavar="NAME|PATH",
                        help="embeddings to score: 'glove-6b-50d' (default, needs embgeo[data]) or a file embgeo.load "
                             "reads")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="load only the first N words of the embeddings")
    parser.add_argument("--queries", nargs="+", default=None, metavar="NAME|FILE.json",
                        help="weat1 ... weat10 (Caliskan et al. 2017; default: all ten), or a JSON file "
                             '{"targets": [[...], [...]], "attributes": [[...], [...]], "name": "..."}')
    parser.add_argument("--measures", "-m", default="weat", metavar="M[,M...]",
                        help=f"comma separated: {', '.join(BIAS_MEASURES)} (default: weat)")
    parser.add_argument("--oov", choices=("skip", "raise"), default="skip",
                        help="words out of the vocabulary: leave out (default) or fail")
    parser.add_argument("--min-coverage", type=float, default=0.8, metavar="SHARE",
                        help="refuse a word set with a smaller share of its words found (default 0.8)")
    parser.add_argument("--alternative", choices=ALTERNATIVES, default="greater",
                        help="WEAT's permutation test: one-sided (the paper's, default) or two-sided")
    parser.add_argument("--n-permutations", type=int, default=100_000, metavar="N",
                        help="WEAT's random partitions when there are more than 10^6 (default 100000; fewer are "
                             "all enumerated)")
    parser.add_argument("--ci", nargs="?", type=float, const=0.95, default=None, metavar="LEVEL",
                        help="add columns low and high: the bootstrap interval of each score over the words of "
                             "each set, at LEVEL (default 0.95)")
    parser.add_argument("--ci-method", choices=("bca", "percentile"), default="bca",
                        help="interval: bca (bias-corrected and accelerated, default) or percentile")
    parser.add_argument("--n-resamples", type=int, default=9999, metavar="N",
                        help="bootstrap resamples of the intervals (default 9999)")
    parser.add_argument("--random-state", type=int, default=None, metavar="INT",
                        help="seed of the resamples, WEAT's random partitions and RNSB's split and fit, for "
                             "reproducible numbers (default: fresh)")
    parser.add_argument("--plot", default=None, metavar="FILE",
                        help="write a forest plot of the scores and their intervals (needs --ci and matplotlib)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    out.add_argument("--markdown", action="store_true", help="print the report as a Markdown table")


def _query(item: str):
    from ._queries import Query, load_query

    if not item.lower().endswith(".json"):
        return load_query(item)
    path = Path(item).expanduser()
    try:
        spec = json.loads(path.read_text("utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{item}: not JSON ({exc})") from None
    if not isinstance(spec, dict) or "targets" not in spec:
        raise ValueError(f'{item}: expected an object with "targets" (and "attributes"), got {type(spec).__name__}')
    try:
        return Query(targets=spec["targets"], attributes=spec.get("attributes", ()),
                     target_names=spec.get("target_names", ()), attribute_names=spec.get("attribute_names", ()),
                     name=spec.get("name", path.stem))
    except TypeError as exc:
        raise ValueError(f"{item}: {exc}") from None


def run(args) -> int:
    """Score the queries and print the report.

    Parameters
    ----------
    args : argparse.Namespace
        The options parsed by the parser :func:`add_arguments` built (with ``--json`` and ``--quiet``
        from :func:`embgeo.cli.main`).

    Returns
    -------
    int
        The exit code, 0; errors raise (``embgeo bias`` prints them as one line).
    """
    from ...cli import did_you_mean
    from ..cli import print_report, split_commas
    from ._measures import BIAS_MEASURES, bias_report

    measures = split_commas([args.measures])
    for m in measures:
        if m not in BIAS_MEASURES:
            raise ValueError(f"unknown bias measure {m!r}{did_you_mean(m, BIAS_MEASURES)} (choose from "
                             f"{', '.join(BIAS_MEASURES)})")
    if not 0 <= args.min_coverage <= 1:
        raise ValueError(f"--min-coverage must be between 0 and 1, got {args.min_coverage}")
    if args.ci is not None and not 0 < args.ci < 1:
        raise ValueError(f"--ci is a confidence level between 0 and 1, got {args.ci}")
    if args.n_resamples < 1:
        raise ValueError(f"--n-resamples must be positive, got {args.n_resamples}")
    if args.n_permutations < 1:
        raise ValueError(f"--n-permutations must be positive, got {args.n_permutations}")
    if args.plot is not None and args.ci is None:
        raise ValueError("--plot draws the intervals: add --ci")
    queries = [_query(q) for q in args.queries] if args.queries else None   # a bad name fails before loading
    from ...cli import load_embeddings

    e = load_embeddings(args.embeddings, args.limit)
    report = bias_report(e, queries, measures, ci=args.ci, ci_method=args.ci_method, n_resamples=args.n_resamples,
                         random_state=args.random_state, title=f"{args.embeddings}: {len(e)} words, dim {e.dim}",
                         oov=args.oov, min_coverage=args.min_coverage, alternative=args.alternative,
                         n_permutations=args.n_permutations)
    print_report(report, args)
    if args.plot is not None:
        _save_plot(report, args.plot)
    return 0


def _save_plot(report, path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("--plot needs matplotlib: pip install 'embgeo[plot]'") from None
    from ...io.atomic import atomic_path

    ax = report.plot_intervals()
    ax.axvline(0.0, color="grey", linewidth=0.8)
    fmt = Path(path).suffix.lstrip(".").lower() or "png"
    with atomic_path(path) as tmp:
        ax.figure.savefig(tmp, format=fmt, bbox_inches="tight")
    plt.close(ax.figure)
