"""Read word-set benchmarks: concept categorisation, outlier detection, lexical entailment.

File formats
------------
Categories
    The ``vecto-ai/word-benchmarks`` CSV (a pandas index column first): a header ``,category,word``,
    then ``index,category,word`` a row (AP, BLESS, Battig, ESSLLI-2008). A word may appear in several
    categories (Battig): each row is one item. A row with an empty word is left out (AP and BLESS end
    every category with one, an artefact of the collection's conversion).
Outlier sets
    The same collection's CSV ``,category,outliers,words``: the two lists are Python literals
    (``"['Opel', 'Boeing', ...]"``); empty strings in them (every 8-8-8 list ends with one) are
    dropped. Multi-word names are joined by ``_`` (Camacho-Collados & Navigli 2016).
Entailment pairs
    The TSV files of ``facebookresearch/hypernymysuite`` (Roller, Kiela & Nickel 2018), a header naming
    the columns: ``word1 word2`` (hyponym, hypernym) and ``label`` (``True``/``False``, or ``1``/``-1``/``0``
    for BIBLESS, where -1 is a reversed pair), ``relation``, ``score`` (HyperLex's graded entailment),
    ``pos`` and ``fold``; or the word-benchmarks CSV ``,word1,word2,relation`` of BLESS relations
    (``hyper`` marks a hypernymy pair).

A malformed row raises :class:`~embgeo.errors.FormatError` whose message starts ``path, line N:``.
"""
from __future__ import annotations

import ast
import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import FormatError
from ..textfile import csv_rows

__all__ = ["Categories", "OutlierSets", "EntailmentPairs", "read_categories", "read_outlier_sets",
           "read_entailment", "ENTAILMENT_TASKS"]

#: What :func:`embgeo.evaluate.entailment` measures on a set of pairs (see its documentation).
ENTAILMENT_TASKS = ("direction", "detection", "bidirectional", "graded")


@dataclass(frozen=True)
class Categories:
    """Words with their gold category (concept categorisation).

    Parameters
    ----------
    words, categories : list of str
        One item a row, aligned: ``categories[i]`` is the gold category of ``words[i]``.
    name : str, default "categories"
        Short name used in reports.
    path : str, optional
        Where the items were read from.

    Raises
    ------
    ValueError
        ``words`` and ``categories`` differ in length, or are empty.

    See Also
    --------
    read_categories : Reads them.
    embgeo.evaluate.categorization : Clusters the words and scores the clusters.
    """

    words: list
    categories: list
    name: str = "categories"
    path: str | None = None

    def __post_init__(self):
        if len(self.words) != len(self.categories):
            raise ValueError(f"words and categories differ in length ({len(self.words)}, {len(self.categories)})")
        if not self.words:
            raise ValueError(f"{self.name}: no item")

    def __len__(self) -> int:
        return len(self.words)

    @property
    def category_names(self) -> list:
        """The categories in order of first appearance."""
        return list(dict.fromkeys(self.categories))

    def __repr__(self) -> str:
        return f"Categories({self.name!r}, {len(self)} words in {len(self.category_names)} categories)"


@dataclass(frozen=True)
class OutlierSets:
    """Clusters of words, each with its outliers (Camacho-Collados & Navigli 2016).

    Parameters
    ----------
    groups : list of (str, list of str, list of str)
        ``(category, words, outliers)`` per cluster; each outlier added to ``words`` makes one set W.
    name : str, default "outliers"
        Short name used in reports.
    path : str, optional
        Where the clusters were read from.

    See Also
    --------
    read_outlier_sets : Reads them.
    embgeo.evaluate.outlier_detection : Scores the embeddings on them.
    """

    groups: list
    name: str = "outliers"
    path: str | None = None

    def __len__(self) -> int:
        """The number of sets W (one per outlier)."""
        return sum(len(g[2]) for g in self.groups)

    def __repr__(self) -> str:
        return f"OutlierSets({self.name!r}, {len(self.groups)} clusters, {len(self)} sets)"


@dataclass(frozen=True)
class EntailmentPairs:
    """(hyponym, hypernym) candidate pairs with their relation, direction label or graded score.

    Parameters
    ----------
    words1, words2 : list of str
        The pairs, aligned: ``words1[i]`` is the candidate hyponym of ``words2[i]``.
    relations : list of str
        The relation of each pair (``"hyper"``, ``"rhyper"`` for a reversed pair, ``"other"``, BLESS's
        ``"coord"``, ``"mero"``..., HyperLex's ``"hyp-1"``...; ``""`` when a graded file gives scores alone).
    labels : array-like of int, shape (n_pairs,)
        1 for a hypernymy pair in the written direction, -1 for a reversed one, 0 otherwise (kept as
        int8).
    scores : array-like of float, shape (n_pairs,), optional
        Graded entailment (HyperLex), kept as float64; None for the other tasks.
    task : str, default "direction"
        What the set measures by default, one of :data:`ENTAILMENT_TASKS`.
    name : str, default "entailment"
        Short name used in reports.
    path : str, optional
        Where the pairs were read from.

    Raises
    ------
    ValueError
        The columns differ in length, or ``task`` is unknown.

    See Also
    --------
    read_entailment : Reads them.
    embgeo.evaluate.entailment : Scores a model on them.
    """

    words1: list
    words2: list
    relations: list
    labels: np.ndarray
    scores: np.ndarray | None = None
    task: str = "direction"
    name: str = "entailment"
    path: str | None = None

    def __post_init__(self):
        n = len(self.words1)
        if not (len(self.words2) == len(self.relations) == len(self.labels) == n) or (
                self.scores is not None and len(self.scores) != n):
            raise ValueError("words1, words2, relations, labels (and scores) differ in length")
        if self.task not in ENTAILMENT_TASKS:
            raise ValueError(f"task must be one of {', '.join(ENTAILMENT_TASKS)}, got {self.task!r}")
        object.__setattr__(self, "labels", np.asarray(self.labels, dtype=np.int8))
        if self.scores is not None:
            object.__setattr__(self, "scores", np.asarray(self.scores, dtype=np.float64))

    def __len__(self) -> int:
        return len(self.words1)

    def __repr__(self) -> str:
        return f"EntailmentPairs({self.name!r}, {len(self)} pairs, task={self.task!r})"


def _header(path: Path, rows, want: tuple) -> None:
    """Check the header row names the columns ``want`` after the (unnamed) index column."""
    first = next(rows, None)
    if first is None:
        raise FormatError(path, "empty file")
    no, fields = first
    names = tuple(f.strip().lower() for f in fields[1:])
    if names != want:
        raise FormatError(path, f"expected the header ',{','.join(want)}', got {','.join(fields)[:80]!r}", line=no)


def read_categories(path, *, lowercase: bool = False, name: str | None = None) -> Categories:
    """Read a concept-categorisation CSV (``,category,word``; see the module's formats).

    Parameters
    ----------
    path : str or path-like
        The CSV file (an unnamed index column, then ``category`` and ``word``).
    lowercase : bool, default False
        Lower-case the words.
    name : str, optional
        Name for reports (default: the file stem).

    Returns
    -------
    Categories
        The words and their categories, in file order.

    Raises
    ------
    FormatError
        A header other than ``,category,word``, a row without exactly 3 fields or with an empty
        category (the message names the file and line), or a file without items.
    """
    path = Path(path)
    rows = csv_rows(path)
    _header(path, rows, ("category", "word"))
    words, cats = [], []
    for no, fields in rows:
        if len(fields) != 3:
            raise FormatError(path, f"expected 3 fields (index, category, word), got {len(fields)}", line=no)
        cat, word = fields[1].strip(), fields[2].strip()
        if not cat:
            raise FormatError(path, "empty category", line=no)
        if not word:  # the collection's AP and BLESS end each category with one (a conversion artefact)
            continue
        words.append(word.lower() if lowercase else word)
        cats.append(cat)
    if not words:
        raise FormatError(path, "no item")
    return Categories(words, cats, name or path.stem, str(path))


def _word_list(path: Path, text: str, what: str, no: int) -> list:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise FormatError(path, f"{what} is not a Python list of words: {text[:60]!r}", line=no) from None
    if not isinstance(value, (list, tuple)) or not all(isinstance(w, str) for w in value):
        raise FormatError(path, f"{what} is not a list of words: {text[:60]!r}", line=no)
    return [w.strip() for w in value if w.strip()]


def read_outlier_sets(path, *, name: str | None = None) -> OutlierSets:
    """Read an outlier-detection CSV (``,category,outliers,words``; see the module's formats).

    Parameters
    ----------
    path : str or path-like
        The CSV file; ``outliers`` and ``words`` are Python lists of strings.
    name : str, optional
        Name for reports (default: the file stem).

    Returns
    -------
    OutlierSets
        The clusters, in file order.

    Raises
    ------
    FormatError
        A header other than ``,category,outliers,words``, a row without 4 fields, a list that is not a
        Python list of strings, a cluster of fewer than 2 words or without outliers (naming file and
        line), or a file without clusters.
    """
    path = Path(path)
    rows = csv_rows(path)
    _header(path, rows, ("category", "outliers", "words"))
    groups = []
    for no, fields in rows:
        if len(fields) != 4:
            raise FormatError(path, f"expected 4 fields (index, category, outliers, words), got {len(fields)}",
                              line=no)
        outliers = _word_list(path, fields[2], "outliers", no)
        words = _word_list(path, fields[3], "words", no)
        if len(words) < 2 or not outliers:
            raise FormatError(path, f"a cluster needs 2 words or more and an outlier, got {len(words)} words and "
                                    f"{len(outliers)} outliers", line=no)
        groups.append((fields[1].strip(), words, outliers))
    if not groups:
        raise FormatError(path, "no cluster")
    return OutlierSets(groups, name or path.stem, str(path))


_TRUE = {"true": 1, "1": 1, "false": 0, "0": 0, "-1": -1}


def read_entailment(path, *, task: str | None = None, name: str | None = None) -> EntailmentPairs:
    """Read entailment pairs: a hypernymysuite TSV or the BLESS relations CSV (see the module's formats).

    Parameters
    ----------
    path : str or Path
        A hypernymysuite TSV file or the BLESS relations CSV.
    task : str, optional
        One of :data:`ENTAILMENT_TASKS`. By default from the content: ``"graded"`` with a ``score``
        column (HyperLex), ``"bidirectional"`` with reversed pairs (label -1: BIBLESS),
        ``"detection"`` when the relations are ``hyper`` and ``other`` (WBLESS), else ``"direction"``
        (BLESS: the hypernymy pairs, asked which way they point).
    name : str, optional
        Name for reports (default: the file stem).

    Returns
    -------
    EntailmentPairs
        The pairs, in file order.

    Raises
    ------
    FormatError
        A header without ``word1`` and ``word2`` or without a ``label``, ``relation`` or ``score`` column,
        a row with another number of fields, an empty word, a label or score that cannot be read (naming
        file and line), or a file without pairs.
    """
    path = Path(path)
    rows, sep, (no, fields) = _entailment_rows(path)
    header = [h.strip().lower() for h in fields]
    if "word1" not in header or "word2" not in header:
        raise FormatError(path, f"the header must name the columns word1 and word2, got "
                                f"{sep.join(fields).strip()[:80]!r}", line=no)
    if not {"label", "relation", "score"} & set(header):
        raise FormatError(path, "the header names no label, relation or score column", line=no)
    col = {h: i for i, h in enumerate(header)}
    w1, w2, rels, labels, scores = [], [], [], [], []
    for no, fields in rows:
        if len(fields) != len(header):
            raise FormatError(path, f"expected {len(header)} fields, got {len(fields)}", line=no)
        a, b = fields[col["word1"]].strip(), fields[col["word2"]].strip()
        if not a or not b:
            raise FormatError(path, "empty word", line=no)
        if "score" in col:
            scores.append(_entailment_score(path, fields[col["score"]], no))
        rel, label = _entailment_label(path, fields, col, no)
        w1.append(a)
        w2.append(b)
        rels.append(rel)
        labels.append(label)
    if not w1:
        raise FormatError(path, "no pair")
    labels_arr = np.array(labels, dtype=np.int8)
    if task is None:
        task = _entailment_task(bool(scores), labels_arr, rels, "relation" in col)
    return EntailmentPairs(w1, w2, rels, labels_arr, np.array(scores) if scores else None, task,
                           name or path.stem, str(path))


def _entailment_rows(path: Path):
    """The rows after the header, the separator (a tab, or a comma for the BLESS relations CSV) and the
    header row ``(line, fields)``; a FormatError for an empty file."""
    for sep in ("\t", ","):
        rows = csv_rows(path, delimiter=sep, quoting=csv.QUOTE_NONE if sep == "\t" else csv.QUOTE_MINIMAL)
        first = next(rows, None)
        if first is None:
            raise FormatError(path, "empty file")
        if sep == "\t" and len(first[1]) == 1:
            continue  # no tab in the header: the BLESS relations CSV
        break
    assert first is not None  # an empty file raised above
    return rows, sep, first


def _entailment_score(path: Path, field: str, no: int) -> float:
    """A graded pair's score, or a FormatError naming the line where it is not a finite number."""
    raw = field.strip()
    try:
        score = float(raw)
    except ValueError:
        raise FormatError(path, f"score {raw!r} is not a number", line=no) from None
    if not np.isfinite(score):
        raise FormatError(path, f"score {raw!r} is not finite", line=no)
    return score


def _entailment_label(path: Path, fields: list, col: dict, no: int) -> tuple[str, int]:
    """A pair's relation and label (1 hypernymy, -1 reversed, 0 other), from its label or relation column."""
    rel = fields[col["relation"]].strip() if "relation" in col else None
    if "label" in col and "score" not in col:
        raw = fields[col["label"]].strip().lower()
        if raw not in _TRUE:
            raise FormatError(path, f"label {raw!r} is not True/False/1/0/-1", line=no)
        label = _TRUE[raw]
        if rel is None:
            rel = {1: "hyper", -1: "rhyper", 0: "other"}[label]
        return rel, label
    if rel is None:  # HyperLex's relation is its label column; a graded file may give scores alone
        rel = fields[col["label"]].strip() if "label" in col else ""
    return rel, 1 if rel == "hyper" else -1 if rel == "rhyper" else 0


def _entailment_task(graded: bool, labels: np.ndarray, rels: list, has_relation: bool) -> str:
    """The task a file poses, from its content (see :func:`read_entailment`)."""
    if graded:
        return "graded"
    if (labels == -1).any():
        return "bidirectional"
    if set(rels) == {"hyper", "other"} and has_relation:
        return "detection"
    return "direction"
