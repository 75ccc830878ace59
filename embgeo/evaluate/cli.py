"""``embgeo evaluate``: word-similarity, analogy, categorisation, outlier and entailment table for a set of embeddings.

Examples
--------
::

    python -m embgeo evaluate                                    # GloVe 6B 50d, gensim's datasets
    python -m embgeo evaluate --datasets ../shared/data/wordsim --measures cosine,fuzzy-cross-entropy,fuzzy-kl
    python -m embgeo evaluate --embeddings vectors.vec.gz --analogy 3cosadd,3cosmul --json
    python -m embgeo evaluate --datasets wordsim353 --ci                 # 95 % bootstrap intervals
    python -m embgeo evaluate --datasets ap 8-8-8 wbless --measures cosine,fuzzy-kl
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import DEFAULT_DATASETS
from .analogy import METHODS
from .entailment import ENTAILMENT_MEASURES, MEASURE_NAMES
from .similarity import _OOV, MEASURES
from .stats import CI_METHODS

__all__ = ["add_arguments", "add_interval_arguments", "run", "expand_datasets", "split_commas",
           "check_loading_options", "print_report"]

DEFAULT_EMBEDDINGS = "glove-6b-50d"
_DATA_SUFFIXES = {".txt", ".tsv", ".csv"}


def split_commas(values):
    """The comma-separated items of an option given once or several times (``-m cosine,dot -m l2``).

    Parameters
    ----------
    values : iterable of str
        The option's values.

    Returns
    -------
    list of str
        Every non-empty item, in order.
    """
    out = []
    for v in values:
        out += [s for s in v.split(",") if s]
    return out


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``embgeo evaluate``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser; the options are added to it.
    """
    parser.add_argument("--embeddings", "-e", default=DEFAULT_EMBEDDINGS, metavar="NAME|PATH",
                        help="embeddings to evaluate: 'glove-6b-50d' (default, needs embgeo[data]) or a file "
                             "embgeo.load reads (word2vec/GloVe/fastText text, gzipped or not, word2vec binary, ...)")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="load only the first N words of the embeddings")
    parser.add_argument("--datasets", "-d", nargs="+", default=None, metavar="NAME|PATH",
                        help="datasets by name (wordsim353, simlex999, google-analogy, a registry name such as "
                             "simlex-999, ap, 8-8-8, wbless, hyperlex, or a file in --data-dir) "
                             "or path; a directory means every .txt/.tsv/.csv file in it "
                             f"(default: {' '.join(DEFAULT_DATASETS)})")
    parser.add_argument("--data-dir", default=None, metavar="DIR",
                        help="where to look up dataset names (default: $EMBGEO_DATA)")
    parser.add_argument("--measures", "-m", nargs="+", default=["cosine"], metavar="M[,M...]",
                        help=f"similarity measures, comma separated: {', '.join(MEASURES)} (and for entailment "
                             f"datasets {', '.join(ENTAILMENT_MEASURES)}); a fuzzy measure may "
                             "end in @CONSTRUCTION (paper, released-cli, released-simlex, released-composition), "
                             "e.g. fuzzy-kl@released-simlex (default: cosine)")
    parser.add_argument("--analogy", nargs="+", default=["3cosadd"], metavar="METHOD[,METHOD]",
                        help=f"analogy methods: {', '.join(METHODS)} (default: 3cosadd)")
    parser.add_argument("--restrict-vocab", type=int, default=300000, metavar="N",
                        help="analogy candidates: the first N words (gensim's convention; default 300000)")
    parser.add_argument("--lowercase", action="store_true",
                        help="lower-case similarity datasets (default: as written, falling back to lower case)")
    parser.add_argument("--oov", choices=_OOV, default="skip",
                        help="pairs with an unknown word: skip (default), similarity 0 (gensim's dummy4unknown), "
                             "fail, or score the mean vector (word-embeddings-benchmarks; cosine, categorisation and "
                             "outlier detection)")
    parser.add_argument("--sections", action="store_true", help="also print per-section analogy accuracy")
    add_interval_arguments(parser)
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    out.add_argument("--markdown", action="store_true", help="print the report as a Markdown table")


def _level(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"a confidence level is between 0 and 1, got {text}")
    return v


def add_interval_arguments(parser: argparse.ArgumentParser, interval: bool = True) -> None:
    """``--ci``, ``--ci-method`` (with ``interval``), ``--n-resamples`` and ``--random-state``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The command's parser; the options are added to it.
    interval : bool, default True
        Add ``--ci`` and ``--ci-method`` (a command with tests but no intervals leaves them out).
    """
    from ..cli import positive_int

    if interval:
        parser.add_argument("--ci", nargs="?", type=_level, const=0.95, default=None, metavar="LEVEL",
                            help="add columns low and high: the bootstrap confidence interval over items of each "
                                 "row's score (Spearman or accuracy) at LEVEL (default 0.95)")
        parser.add_argument("--ci-method", choices=CI_METHODS, default="bca",
                            help="interval: bca (bias-corrected and accelerated, default) or percentile")
    parser.add_argument("--n-resamples", type=positive_int, default=9999, metavar="N",
                        help="bootstrap / permutation resamples (default 9999)")
    parser.add_argument("--random-state", type=int, default=None, metavar="INT",
                        help="random seed of the resamples, for reproducible numbers (default: fresh)")


def expand_datasets(items):
    """The dataset names and files of ``--datasets``: a directory stands for its .txt/.tsv/.csv files.

    A file that holds word vectors rather than a dataset is refused here, before any loading.

    Parameters
    ----------
    items : iterable of str
        The values of ``--datasets``: names, files or directories.

    Returns
    -------
    list of str or pathlib.Path
        Names as given, and the files (a directory's sorted).

    Raises
    ------
    FileNotFoundError
        A directory without a dataset file.
    ValueError
        A file holds word vectors.
    """
    from ..cli import check_not_vectors

    out = []
    for item in items:
        p = Path(item).expanduser()
        if p.is_dir():
            files = sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() in _DATA_SUFFIXES)
            if not files:
                raise FileNotFoundError(f"no .txt/.tsv/.csv dataset file in directory {item}")
            out += files
        else:
            out.append(item)
    for item in out:
        check_not_vectors(item, "--datasets", "a dataset (the vectors go to --embeddings)")
    return out


def run(args) -> int:
    """Evaluate and print the report.

    Parameters
    ----------
    args : argparse.Namespace
        The options parsed by the parser :func:`add_arguments` built (with ``--json`` and ``--quiet``
        from :func:`embgeo.cli.main`).

    Returns
    -------
    int
        The exit code, 0; errors raise (``embgeo evaluate`` prints them as one line).
    """
    from . import check_names, evaluate

    # checked before the (possibly long) loading of embeddings
    measures = check_names(split_commas(args.measures), MEASURE_NAMES, "measure")
    methods = check_names(split_commas(args.analogy), METHODS, "analogy method")
    check_loading_options(args)
    datasets = expand_datasets(args.datasets) if args.datasets else None
    if datasets is not None:
        # Fail on a bad dataset name before loading (possibly large) embeddings.
        from ..data import load_dataset

        datasets = [load_dataset(d, data_dir=args.data_dir) for d in datasets]
    from ..cli import load_embeddings

    e = load_embeddings(args.embeddings, args.limit)
    title = f"{args.embeddings}: {len(e)} words, dim {e.dim}"
    report = evaluate(e, datasets, measures, analogy_methods=methods, restrict_vocab=args.restrict_vocab,
                      lowercase=True if args.lowercase else None, oov=args.oov, sections=args.sections,
                      data_dir=args.data_dir, title=title, progress=False if args.quiet else None,
                      ci=args.ci, ci_method=args.ci_method, n_resamples=args.n_resamples, random_state=args.random_state)
    print_report(report, args)
    return 0


def check_loading_options(args) -> None:
    """``--restrict-vocab``, ``--limit`` and ``--data-dir`` checked before any (long) loading.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options.

    Raises
    ------
    ValueError
        ``--restrict-vocab`` below 4 or ``--limit`` below 1.
    FileNotFoundError
        ``--data-dir`` is not a directory.
    """
    if args.restrict_vocab is not None and args.restrict_vocab < 4:
        raise ValueError(f"--restrict-vocab must be at least 4, got {args.restrict_vocab}")
    if args.limit is not None and args.limit < 1:
        raise ValueError(f"--limit must be positive, got {args.limit}")
    if args.data_dir is not None and not Path(args.data_dir).expanduser().is_dir():
        raise FileNotFoundError(f"--data-dir {args.data_dir}: no such directory")


def print_report(report, args) -> None:
    """Print a report as JSON (``--json``), Markdown (``--markdown``) or an aligned table.

    Parameters
    ----------
    report : Report
        The table to print.
    args : argparse.Namespace
        The parsed options (``json`` and ``markdown`` are read).
    """
    if args.json:
        print(report.to_json())
    elif args.markdown:
        print(report.to_markdown())
    else:
        print(report)
    sys.stdout.flush()
