"""``embgeo compare``: paired tests of two sets of embeddings on the same benchmarks.

Examples
--------
::

    python -m embgeo compare glove-6b-50d postprocessed.vec --datasets wordsim353 simlex999
    python -m embgeo compare a.vec b.vec --datasets google-analogy --restrict-vocab 30000 --json
"""
from __future__ import annotations

from ..cli import choice
from . import DEFAULT_DATASETS
from .analogy import METHODS
from .cli import add_interval_arguments, check_loading_options, expand_datasets, print_report
from .similarity import _OOV, MEASURES
from .stats import TESTS

__all__ = ["add_arguments", "run", "COMPARE_COLUMNS"]

#: Columns of the table ``embgeo compare`` prints.
COMPARE_COLUMNS = ("dataset", "score", "a", "b", "difference", "test", "p_value", "effect", "effect_size", "n",
                   "coverage_a", "coverage_b")


def add_arguments(parser) -> None:
    """Options of ``embgeo compare``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser; the options are added to it.
    """
    parser.add_argument("a", metavar="A", help="first embeddings: a registry name (glove-6b-50d) or a file embgeo.load "
                                               "reads")
    parser.add_argument("b", metavar="B", help="second embeddings, likewise")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="load only the first N words of each embeddings file")
    parser.add_argument("--datasets", "-d", nargs="+", default=None, metavar="NAME|PATH",
                        help="datasets by name or path; a directory means every .txt/.tsv/.csv file in it "
                             f"(default: {' '.join(DEFAULT_DATASETS)})")
    parser.add_argument("--data-dir", default=None, metavar="DIR",
                        help="where to look up dataset names (default: $EMBGEO_DATA)")
    parser.add_argument("--measure", "-m", default="cosine", metavar="M",
                        help=f"similarity measure for word-pair datasets: {', '.join(MEASURES)} (default: cosine)")
    parser.add_argument("--analogy", default="3cosadd", type=choice(METHODS, "analogy method"), metavar="METHOD",
                        help="analogy method for analogy datasets (default: 3cosadd)")
    parser.add_argument("--restrict-vocab", type=int, default=300000, metavar="N",
                        help="analogy candidates: the first N words (default 300000)")
    parser.add_argument("--lowercase", action="store_true",
                        help="lower-case similarity datasets (default: as written, falling back to lower case)")
    parser.add_argument("--oov", choices=_OOV, default="skip",
                        help="pairs with an unknown word: skip (default; the test runs on pairs both cover), "
                             "similarity 0, or fail")
    parser.add_argument("--test", type=choice(TESTS, "test"), default="auto", metavar="TEST",
                        help="paired test: auto (default: Steiger for similarity, exact McNemar for analogy), "
                             "steiger, mcnemar, permutation or bootstrap")
    add_interval_arguments(parser, interval=False)
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the table as JSON")
    out.add_argument("--markdown", action="store_true", help="print the table as Markdown")


def run(args) -> int:
    """Compare the two embeddings on every dataset and print one row per dataset.

    Parameters
    ----------
    args : argparse.Namespace
        The options parsed by the parser :func:`add_arguments` built (with ``--json`` and ``--quiet``
        from :func:`embgeo.cli.main`).

    Returns
    -------
    int
        The exit code, 0; errors raise (``embgeo compare`` prints them as one line).
    """
    from ..cli import load_embeddings
    from ..data import AnalogyPairs, AnalogyQuestions, load_dataset
    from . import check_names
    from .comparison import compare
    from .report import Report
    from .similarity import resolve_measure

    check_names([args.measure], MEASURES, "measure")
    check_loading_options(args)
    items = expand_datasets(args.datasets) if args.datasets else list(DEFAULT_DATASETS)
    datasets = [load_dataset(d, data_dir=args.data_dir) for d in items]   # fail before loading embeddings
    ea, eb = load_embeddings(args.a, args.limit), load_embeddings(args.b, args.limit)
    progress = False if args.quiet else None
    report = Report(columns=COMPARE_COLUMNS, title=f"A = {args.a}, B = {args.b}",
                    formats={"coverage_a": "{:.1%}", "coverage_b": "{:.1%}", "p_value": "{:.4g}"})
    cache_a: dict = {}
    cache_b: dict = {}
    for data in datasets:
        if isinstance(data, (AnalogyQuestions, AnalogyPairs)):
            ma, mb = ea, eb
            kwargs = {"method": args.analogy, "restrict_vocab": args.restrict_vocab, "progress": progress}
        else:
            ma, measure = resolve_measure(ea, args.measure, cache_a, progress=progress)
            mb, _ = resolve_measure(eb, args.measure, cache_b, progress=progress)
            kwargs = {"measure": measure, "lowercase": True if args.lowercase else None, "oov": args.oov}
        c = compare(ma, mb, data, test=args.test, n_resamples=args.n_resamples, random_state=args.random_state,
                    labels=(args.a, args.b), **kwargs)
        report.append({"dataset": c.dataset, "score": c.score_name, "a": c.score_a, "b": c.score_b,
                       "difference": c.difference, "test": c.test, "p_value": c.p_value, "effect": c.effect_name,
                       "effect_size": c.effect_size, "n": c.n, "coverage_a": c.coverage_a,
                       "coverage_b": c.coverage_b}, result=c)
    print_report(report, args)
    return 0
