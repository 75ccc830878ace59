"""SemEval-2012 Task 2 (relational similarity) from its published files.

Jurgens, Mohammad, Turney & Holyoak (2012), "SemEval-2012 Task 2: Measuring Degrees of Relational
Similarity", *SEM. Per relation category ``1a`` … ``10j``: ``Phase1Questions-1a.txt`` (free text
with the prototypical pairs, one ``w1:w2`` a line), ``Phase1Answers-1a.txt`` (the pairs to rate,
``"w1:w2"`` a line), ``Phase2Answers-1a.txt`` (a header line, then one Turker's MaxDiff answer a
line: four pairs, the least and the most illustrative, the relation, tab-separated) and the gold
ratings (the "Platinum" / TurkerScaled files, ``rating "w1:w2"`` a line).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import FormatError
from ..textfile import data_lines, read_lines

__all__ = ["SemEvalCategory", "read_semeval2012"]

_PAIR_LINE = re.compile(r'^\s*"?([^\s":]+):([^\s":]+)"?\s*$')
_RATED_LINE = re.compile(r'^\s*(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)\s+"?([^\s":]+):([^\s":]+)"?\s*$')


@dataclass
class SemEvalCategory:
    """One relation category of SemEval-2012 Task 2.

    Parameters
    ----------
    name : str
        The category id, e.g. ``"1a"``.
    prototypes : list of (str, str)
        The prototypical pairs of Phase 1 (``Phase1Questions``).
    pairs : list of (str, str)
        The pairs to rate, in file order.
    gold : ndarray of float, shape (len(pairs),)
        Gold rating of each pair: the Platinum / GoldRatings file's, or (without one) the official
        ``maxdiff_to_scale.pl`` rating from the Turkers' answers: % most − % least illustrative,
        rounded to one decimal as the published GoldRatings files are.
    questions : ndarray of int, shape (m, 4)
        The MaxDiff questions (indices into ``pairs``), one row per Turker answer.
    least, most : ndarray of int, shape (m,)
        That Turker's least / most illustrative choice (indices into ``pairs``); -1 where the
        Turker left the choice empty (``""`` in the file, 50 of the 79 published categories).
    """

    name: str
    prototypes: list
    pairs: list
    gold: np.ndarray
    questions: np.ndarray
    least: np.ndarray
    most: np.ndarray


def _split_pair(text, path, no):
    m = _PAIR_LINE.match(text)
    if m is None:
        raise FormatError(path, f"expected a word pair 'w1:w2', got {text[:80]!r}", line=no)
    return m.group(1), m.group(2)


def _find(root: Path, stem: str, cat: str):
    for cand in (root / stem / f"{stem}-{cat}.txt", root / f"{stem}-{cat}.txt"):
        if cand.is_file():
            return cand
    return None


def _semeval_category(root: Path, cat: str, lowercase: bool) -> SemEvalCategory:
    low = (lambda w: w.lower()) if lowercase else (lambda w: w)
    q1 = _find(root, "Phase1Questions", cat)
    a2 = _find(root, "Phase2Answers", cat)
    if q1 is None or a2 is None:
        raise FormatError(root, f"category {cat} needs Phase1Questions-{cat}.txt and Phase2Answers-{cat}.txt")
    prototypes = [(low(m.group(1)), low(m.group(2))) for _, line in read_lines(q1)
                  if (m := _PAIR_LINE.match(line)) is not None]
    if not prototypes:
        raise FormatError(q1, "no prototypical pair (a line 'w1:w2') found")
    index: dict = {}
    pairs: list = []

    def add(p):
        if p not in index:
            index[p] = len(pairs)
            pairs.append(p)
        return index[p]

    a1 = _find(root, "Phase1Answers", cat)
    if a1 is not None:
        for no, line in data_lines(a1):
            w1, w2 = _split_pair(line, a1, no)
            add((low(w1), low(w2)))
    rows, least, most = [], [], []
    for no, line in data_lines(a2):
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) < 6:
            if no == 1:      # the published files start with a header line
                continue
            raise FormatError(a2, f"expected 4 pairs, least, most and relation, tab-separated; "
                                  f"got {len(fields)} fields", line=no)
        # an empty choice ("") is a Turker who picked no pair: the official scripts split on
        # whitespace, so it counts for no pair while the answer still shows its four pairs
        ids = [add(tuple(map(low, _split_pair(f, a2, no)))) for f in fields[:4]]
        ids += [-1 if f.strip('"') == "" else add(tuple(map(low, _split_pair(f, a2, no)))) for f in fields[4:6]]
        if (ids[4] != -1 and ids[4] not in ids[:4]) or (ids[5] != -1 and ids[5] not in ids[:4]):
            raise FormatError(a2, "the least/most illustrative pair is not one of the four", line=no)
        rows.append(ids[:4])
        least.append(ids[4])
        most.append(ids[5])
    if not rows:
        raise FormatError(a2, "no MaxDiff answers found")
    questions = np.asarray(rows, dtype=np.int64)
    least_a, most_a = np.asarray(least, dtype=np.int64), np.asarray(most, dtype=np.int64)
    gold_file = None
    for stem in ("Platinum", "GoldRatings", "TurkerScaled"):
        gold_file = gold_file or _find(root, stem, cat)
    if gold_file is None and (root / "Platinum").is_dir():
        # the Platinum package's own file names vary; any "<name>-<category>.txt" in Platinum/
        gold_file = next(iter(sorted((root / "Platinum").glob(f"*-{cat}.txt"))), None)
    if gold_file is not None:
        rated = {}
        for no, line in data_lines(gold_file):
            m = _RATED_LINE.match(line)
            if m is None:
                raise FormatError(gold_file, f"expected 'rating \"w1:w2\"', got {line[:80]!r}", line=no)
            rated[add((low(m.group(2)), low(m.group(3))))] = float(m.group(1))
        if len(rated) < len(pairs):
            missing = pairs[min(set(range(len(pairs))) - set(rated))]
            raise FormatError(gold_file, f"no rating for the pair {missing[0]}:{missing[1]}")
        gold = np.array([rated[i] for i in range(len(pairs))])
    else:
        gold = _maxdiff_to_scale(questions, least_a, most_a, len(pairs))
    return SemEvalCategory(cat, prototypes, pairs, gold, questions, least_a, most_a)


def _maxdiff_to_scale(questions, least, most, n_pairs):
    """Ratings as ``maxdiff_to_scale.pl`` computes and prints them.

    ``100·most/shown − 100·least/shown`` (each term computed apart, as the script does), rounded
    to one decimal as its ``%5.1f`` output (the published GoldRatings files), so the result
    equals those files exactly. A pair never shown rates 0.
    """
    shown = np.bincount(questions.ravel(), minlength=n_pairs).astype(np.float64)
    n_most = np.bincount(most[most >= 0], minlength=n_pairs)
    n_least = np.bincount(least[least >= 0], minlength=n_pairs)
    den = np.where(shown > 0, shown, 1.0)
    raw = np.where(shown > 0, 100.0 * n_most / den - 100.0 * n_least / den, 0.0)
    # str formatting rounds the exact binary value, as C's printf (Perl's sprintf) does; np.round does not
    return np.array([float(f"{x:.1f}") for x in raw])


def read_semeval2012(root, categories=None, *, lowercase: bool = False) -> dict:
    """Read SemEval-2012 Task 2 (relational similarity) from its published files.

    Parameters
    ----------
    root : str or Path
        A directory holding ``Phase1Questions/``, ``Phase2Answers/`` (and optionally
        ``Phase1Answers/`` and ``Platinum/``) sub-directories as published (the package's
        ``Testing`` or ``Training`` directory), or those files side by side.
    categories : list of str, optional
        Category ids to read (default: every ``Phase2Answers-*.txt`` found).
    lowercase : bool
        Lower-case the words of the pairs.

    Returns
    -------
    dict of str to SemEvalCategory
        In natural order (``1a``, ``1b``, …, ``10a``).

    Raises
    ------
    FileNotFoundError
        ``root`` is not a directory holding the task's files.
    FormatError
        No ``Phase2Answers-*.txt`` file, or a malformed line (naming the file and line).

    References
    ----------
    D. A. Jurgens, S. M. Mohammad, P. D. Turney and K. J. Holyoak (2012). SemEval-2012 Task 2:
    measuring degrees of relational similarity. *SEM, pp. 356–364.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a directory with the SemEval-2012 Task 2 files")
    if categories is None:
        found = {p.stem.split("-", 1)[1] for p in [*root.glob("Phase2Answers-*.txt"),
                                                   *root.glob("Phase2Answers/Phase2Answers-*.txt")]}
        categories = sorted(found, key=lambda c: (int(re.sub(r"\D", "", c) or 0), c))
    if not categories:
        raise FormatError(root, "no Phase2Answers-*.txt file found")
    return {c: _semeval_category(root, c, lowercase) for c in categories}
