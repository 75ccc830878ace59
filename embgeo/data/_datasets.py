"""Locate and read word-similarity and analogy evaluation data.

Datasets are addressed by name or by path::

    from embgeo import data
    ws = data.load_dataset("wordsim353")              # gensim's wordsim353.tsv
    gq = data.load_dataset("google-analogy")          # gensim's questions-words.txt
    men = data.load_dataset("/data/wordsim/EN-MEN-TR-3k.txt")
    rw = data.load_dataset("EN-RW-STANFORD", data_dir="/data/wordsim")

Built-in names resolve to the test files shipped with gensim (always installed), so the library works
without any other data. Further names (e.g. the ``EN-SIMLEX-999`` files of Faruqui & Dyer's
eval-word-vectors collection) are looked up in a data directory given by ``data_dir=`` or the
``EMBGEO_DATA`` environment variable.

File formats
------------
Word pairs
    ``word1 word2 score`` per line, separated by a tab (if the line holds one) or by white space.
    Lines starting with ``#`` and blank lines are skipped (gensim's files carry ``#`` headers);
    a first data line is taken as a column header when it looks like one (``word1 word2 score``:
    word columns named like ``word1``/``Word 2``/``w1`` and a score that is not a number); any other
    score that is not a number is an error naming its line. A byte-order mark is dropped. Wider files
    (e.g. the original SimLex-999 with its POS and concreteness columns) are read with
    ``columns=(0, 1, 3)``.
Analogies
    ``: section name`` header lines, then four words per line, ``a b c d`` meaning a : b :: c : d
    (Mikolov et al. 2013, "Efficient estimation of word representations in vector space").
MSR analogies
    Mikolov, Yih & Zweig (2013), "Linguistic Regularities in Continuous Space Word
    Representations", NAACL (used by Jawanpuria et al. 2020): the published ``test_set`` holds
    ``word_relationship.questions`` (``a b c`` a line) and ``word_relationship.answers``
    (``TAG_TAG d`` a line, e.g. ``JJ_JJR better``), line i answering question i; re-packaged
    copies have ``a b c TAG d`` a line (``EN-MSR.txt``).

Word sets
    Categorisation, outlier and entailment files (``read_categories``, ``read_outlier_sets``,
    ``read_entailment``: ``,category,word``, ``,category,outliers,words``, ``word1 word2 ... label``), known
    by their header line.

A malformed line raises :class:`~embgeo.errors.FormatError` (a ValueError) whose message starts
``path, line N:``.

Registered data
---------------
:func:`~embgeo.data.registry` lists the standard datasets, dictionaries and vectors by name, and
:func:`~embgeo.data.fetch` downloads one into the cache, verified. :func:`load_dataset` and the
evaluators accept those names too (``load_dataset("simverb-3500")``).
"""
from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from ..errors import FormatError
from ._bats import AnalogyPairs, read_bats
from ._registry import fetch, registry
from ._semeval2017 import semeval2017_pairs
from ..textfile import data_lines
from ._wordsets import Categories, EntailmentPairs, OutlierSets, read_categories, read_entailment, read_outlier_sets

__all__ = [
    "WordPairs",
    "AnalogyQuestions",
    "BUILTIN",
    "dataset_path",
    "load_dataset",
    "as_dataset",
    "read_word_pairs",
    "read_compounds",
    "read_analogies",
    "read_msr_analogies",
    "list_datasets",
    "AnalogyPairs",
    "read_bats",
    "read_semeval2017",
]

#: Built-in names: (gensim test-data file, kind). Aliases share a file.
BUILTIN = {
    "wordsim353": ("wordsim353.tsv", "pairs"),
    "ws353": ("wordsim353.tsv", "pairs"),
    "simlex999": ("simlex999.txt", "pairs"),
    "simlex": ("simlex999.txt", "pairs"),
    "google-analogy": ("questions-words.txt", "analogy"),
    "questions-words": ("questions-words.txt", "analogy"),
}
_SUFFIXES = ("", ".txt", ".tsv", ".csv")


@dataclass(frozen=True)
class WordPairs:
    """Word pairs with human similarity scores.

    Parameters
    ----------
    words1, words2 : list of str
        The pairs, aligned.
    scores : array-like of float, shape (n_pairs,)
        The human judgements (any scale; only ranks matter for Spearman's rho), kept as a float64
        array.
    name : str, default "pairs"
        Short name used in reports (the built-in name or the file stem).
    path : str, optional
        Where the pairs were read from.

    Raises
    ------
    ValueError
        The three sequences differ in length, or a score is not finite (the pair is named).

    See Also
    --------
    read_word_pairs : Reads them from a file.
    load_dataset : Reads any dataset by name or path.
    """

    words1: list
    words2: list
    scores: np.ndarray
    name: str = "pairs"
    path: str | None = None

    def __post_init__(self):
        if not (len(self.words1) == len(self.words2) == len(self.scores)):
            raise ValueError(
                f"words1, words2 and scores differ in length "
                f"({len(self.words1)}, {len(self.words2)}, {len(self.scores)})"
            )
        scores = np.asarray(self.scores, dtype=np.float64)
        if not np.all(np.isfinite(scores)):
            i = int(np.flatnonzero(~np.isfinite(scores))[0])
            raise ValueError(f"the score of pair {i} ({self.words1[i]!r}, {self.words2[i]!r}) is {scores[i]}: "
                             "every gold score must be a finite number")
        object.__setattr__(self, "scores", scores)

    def __len__(self) -> int:
        return len(self.words1)

    def __iter__(self) -> Iterator[tuple[str, str, float]]:
        return iter(zip(self.words1, self.words2, self.scores.tolist()))

    def __repr__(self) -> str:
        return f"WordPairs({self.name!r}, {len(self)} pairs)"

    def lower(self) -> "WordPairs":
        """The same pairs with lower-cased words.

        Returns
        -------
        WordPairs
            A new object; scores, name and path are kept.
        """
        return WordPairs([w.lower() for w in self.words1], [w.lower() for w in self.words2],
                         self.scores, self.name, self.path)


@dataclass(frozen=True)
class AnalogyQuestions:
    """Analogy questions ``a : b :: c : d`` grouped in sections.

    Parameters
    ----------
    sections : dict of str to ndarray of str, shape (n_i, 4)
        Each row is ``(a, b, c, d)``; ``d`` is the expected answer. Insertion order is file order.
    name : str, default "analogy"
        Short name used in reports.
    path : str, optional
        Where the questions were read from.

    See Also
    --------
    read_analogies : Reads them from a ``questions-words.txt`` file.
    embgeo.evaluate.analogy : Answers them.
    """

    sections: dict = field(default_factory=dict)
    name: str = "analogy"
    path: str | None = None

    def __len__(self) -> int:
        return sum(len(q) for q in self.sections.values())

    def __repr__(self) -> str:
        return f"AnalogyQuestions({self.name!r}, {len(self)} questions in {len(self.sections)} sections)"

    @property
    def section_names(self) -> list[str]:
        """The sections' names, in file order."""
        return list(self.sections)

    @property
    def questions(self) -> np.ndarray:
        """All questions, shape (n, 4), in file order."""
        parts = [q for q in self.sections.values() if len(q)]
        if not parts:
            return np.empty((0, 4), dtype=str)
        return np.concatenate(parts, axis=0)

    @property
    def section_ids(self) -> np.ndarray:
        """Section number (into :attr:`section_names`) of each row of :attr:`questions`."""
        return np.repeat(np.arange(len(self.sections)), [len(q) for q in self.sections.values()])

    def lower(self) -> "AnalogyQuestions":
        """The same questions with lower-cased words.

        Returns
        -------
        AnalogyQuestions
            A new object; section names, name and path are kept.
        """
        return AnalogyQuestions({k: np.char.lower(v) for k, v in self.sections.items()}, self.name, self.path)


# ------------------------------------------------------------------ locating
def _data_dirs(data_dir) -> list[Path]:
    root = data_dir if data_dir is not None else os.environ.get("EMBGEO_DATA")
    if not root:
        return []
    root = Path(root).expanduser()
    # A data root may hold the similarity files directly or in the collection's "wordsim/" folder.
    return [root, root / "wordsim", root / "analogy"]


def dataset_path(name_or_path, data_dir=None) -> Path:
    """Resolve a dataset name or path to an existing file.

    Order: an existing path; a built-in name (:data:`BUILTIN`, gensim's test data); a file in the
    data directory (``data_dir`` or ``$EMBGEO_DATA``, and its ``wordsim/`` folder) whose name, with or
    without ``.txt``/``.tsv``/``.csv``, matches case-insensitively. A name of the registry
    (:func:`registry`) is fetched (downloaded once, then read from the cache).

    Parameters
    ----------
    name_or_path : str or path-like
        A file, a built-in or registry name, or a file name of the data directory.
    data_dir : str or path-like, optional
        The data directory; None means ``$EMBGEO_DATA``.

    Returns
    -------
    pathlib.Path
        The file.

    Raises
    ------
    FileNotFoundError
        Naming the dataset and where it was looked for (with the nearest names).
    IsADirectoryError
        ``name_or_path`` is a directory.

    See Also
    --------
    load_dataset : Reads the file found.
    """
    s = os.fspath(name_or_path)
    p = Path(s).expanduser()
    if p.is_file():
        return p
    if p.is_dir():
        raise IsADirectoryError(f"dataset {s!r} is a directory; give a file (or list it with list_datasets)")
    key = s.lower()
    if key in BUILTIN:
        from gensim.test.utils import datapath

        return Path(datapath(BUILTIN[key][0]))
    if key in registry():
        return fetch(key)
    looks_like_path = os.sep in s or (os.altsep and os.altsep in s) or p.suffix in _SUFFIXES[1:]
    dirs = [d for d in _data_dirs(data_dir) if d.is_dir()]
    for d in dirs:
        by_lower = {f.name.lower(): f for f in d.iterdir() if f.is_file()}
        for suf in _SUFFIXES:
            f = by_lower.get(key + suf)
            if f is not None:
                return f
    if looks_like_path:
        raise FileNotFoundError(f"dataset file not found: {s}")
    where = (f"not found in data directory {', '.join(str(d) for d in dirs)}" if dirs
             else "no data directory is set (set EMBGEO_DATA, or pass --data-dir DIR on the command line, "
                  "data_dir= in Python)")
    known = [*BUILTIN, *(n for n, r in registry().items() if r.kind != "vectors"),
             *(f.stem.lower() for d in dirs for f in d.iterdir() if f.is_file() and f.suffix.lower() in _SUFFIXES)]
    near = difflib.get_close_matches(key, known, n=3)
    hint = f" (did you mean {' or '.join(map(repr, near))}?)" if near else ""
    raise FileNotFoundError(
        f"unknown dataset {s!r}{hint}: not a file, not a built-in name ({', '.join(sorted(BUILTIN))}), "
        f"not a registry name (see embgeo.data.registry()), and {where}"
    )


def list_datasets(data_dir=None) -> list[str]:
    """Built-in names plus the files found in the data directory (``data_dir`` or ``$EMBGEO_DATA``).

    Parameters
    ----------
    data_dir : str or path-like, optional
        The data directory; None means ``$EMBGEO_DATA``.

    Returns
    -------
    list of str
        Names :func:`load_dataset` accepts: the built-in ones, then the file stems found.

    See Also
    --------
    registry : The datasets embgeo can download.
    """
    names = ["wordsim353", "simlex999", "google-analogy"]
    for d in _data_dirs(data_dir):
        if d.is_dir():
            names += sorted(f.stem for f in d.iterdir() if f.is_file() and f.suffix in _SUFFIXES[1:])
    return names


#: A tag pair such as ``JJ_JJR`` or ``NN_NNPOS``: the fourth of five words on an MSR line (``a b c TAG d``).
_MSR_TAG = re.compile(r"[A-Z$]+_[A-Z$]+")

#: Short names of registry entries.
_ALIASES = {"msr": "msr-analogy"}


def _file_kind(path: Path) -> str:
    """"analogy" (a ``: section`` line first), "msr" (``a b c TAG d`` lines, or MSR's ``test_set``
    folder) or "pairs", from the first line that is not blank or a comment."""
    if path.is_dir():
        if (path / "word_relationship.questions").is_file():
            return "msr"
        return "bats" if any(path.rglob("*.txt")) else "pairs"
    if path.name.endswith(".questions"):
        return "msr"
    for _, line in data_lines(path):
        s = line.strip()
        kind = _wordset_kind(s)
        if kind is not None:
            return kind
        if s.startswith(":"):
            return "analogy"
        parts = s.split()
        return "msr" if len(parts) == 5 and _MSR_TAG.fullmatch(parts[3]) else "pairs"
    return "pairs"


def _wordset_kind(header: str) -> str | None:
    """"categories", "outliers" or "entailment" from a header line of those formats, else None."""
    names = [f.strip().lower() for f in header.replace("\t", ",").split(",")]
    if names in (["", "category", "word"], ["", "category", "outliers", "words"]):
        return "categories" if len(names) == 3 else "outliers"
    if {"word1", "word2"} <= set(names) and {"label", "relation", "score"} & set(names):
        return "entailment"
    return None


def load_dataset(name_or_path, data_dir=None, lowercase: bool = False, *, format: str | None = None):
    """Read a dataset by name or path: :class:`WordPairs`, :class:`AnalogyQuestions`, or a word-set
    benchmark (:class:`~embgeo.data.Categories`, :class:`~embgeo.data.OutlierSets`,
    :class:`~embgeo.data.EntailmentPairs`).

    The kind comes from the built-in names, the registry's entry (``"msr-analogy"``, or ``"msr"``
    for short, is read by :func:`read_msr_analogies`) or, for files, from the content: analogy files
    start with a ``: section`` line, MSR files have ``a b c TAG d`` lines (``EN-MSR.txt``; MSR's
    ``test_set`` folder or its ``word_relationship.questions`` work too), the word-set formats are known
    by their header (``,category,word``, ``,category,outliers,words``, ``word1 word2 ... label``), anything
    else is word pairs.
    ``lowercase`` lower-cases every word as it is read.

    Parameters
    ----------
    name_or_path : str or Path
        A built-in or registry name, a file name of the data directory, or a path
        (:func:`dataset_path`).
    data_dir : str or Path, optional
        The data directory; None means ``$EMBGEO_DATA``.
    lowercase : bool, default False
        Lower-case every word as it is read.
    format : {"pairs", "analogy", "msr", "categories", "outliers", "entailment"}, optional
        Read the file with this reader instead of guessing from its content.

    Returns
    -------
    WordPairs, AnalogyQuestions, AnalogyPairs, Categories, OutlierSets or EntailmentPairs
        The dataset, named by its built-in or registry name or its file stem.

    Raises
    ------
    ValueError
        A registry entry that is not word pairs or analogies (e.g. a dictionary), an unknown ``format``.

    See Also
    --------
    dataset_path : How a name is resolved to a file.
    list_datasets : The names available locally.
    registry : The datasets embgeo can download.
    """
    if format is not None and format not in _READERS:
        raise ValueError(f"format must be one of {', '.join(_READERS)}, got {format!r}")
    key = os.fspath(name_or_path).lower()
    if key in _ALIASES and not os.path.exists(name_or_path):
        key = name_or_path = _ALIASES[key]
    entry = registry().get(key) if key not in BUILTIN and not os.path.exists(name_or_path) else None
    if entry is not None and entry.format not in _READERS:
        raise ValueError(f"{key} is registered as {entry.kind} ({entry.format} format), which load_dataset "
                         f"does not read; its file is embgeo.data.fetch({key!r})")
    p = Path(os.fspath(name_or_path)).expanduser()
    # MSR's published test_set and BATS are folders
    path = p if p.is_dir() and _file_kind(p) in ("msr", "bats") else dataset_path(name_or_path, data_dir)
    name = key if key in BUILTIN or entry is not None else path.stem
    if format is not None:
        kind = format
    elif key in BUILTIN:
        kind = BUILTIN[key][1]
    elif entry is not None:
        kind = str(entry.format)
    else:
        kind = _file_kind(path)
    return _READERS[kind](path, lowercase=lowercase, name=name)


def as_dataset(data, kind: str, data_dir=None):
    """``data`` if it already is a dataset of ``kind``, else read it by name or path.

    What an evaluation calls at its door, so that it takes a dataset object, a name or a path.

    Parameters
    ----------
    data : dataset, str or path-like
        A dataset object, or what :func:`load_dataset` reads.
    kind : {"pairs", "analogy", "categories", "outliers", "entailment"}
        The kind expected (``"analogy"``: :class:`AnalogyQuestions` or :class:`AnalogyPairs`).
    data_dir : str or path-like, optional
        The data directory for names; None means ``$EMBGEO_DATA``.

    Returns
    -------
    WordPairs, AnalogyQuestions, AnalogyPairs, Categories, OutlierSets or EntailmentPairs
        The dataset, of ``kind``.

    Raises
    ------
    ValueError
        ``data`` holds another kind of dataset (both are named).
    KeyError
        ``kind`` is not one of the five.
    """
    if kind not in _CONTAINERS:
        raise KeyError(kind)
    cls = _CONTAINERS[kind]
    if not isinstance(data, tuple(c for v in _CONTAINERS.values() for c in (v if isinstance(v, tuple) else (v,)))):
        data = load_dataset(data, data_dir=data_dir)
    if not isinstance(data, cls):
        holds = next(k for k, c in _CONTAINERS.items() if isinstance(data, c))
        raise ValueError(f"{data.name} holds {_WHAT[holds]}, not {_WHAT[kind]}")
    return data


# ------------------------------------------------------------------ readers
#: A column name of a word in a header line: "word1", "Word 2", "w1", "term_a", "first word", ...
_WORD_COLUMN = re.compile(r"(?i)(word|w|term|token|first|second)[ _-]?(1|2|a|b|one|two|word)?")


def _is_header(word1: str, word2: str, score: str) -> bool:
    """A header line names its columns: the words' columns look like "word1"/"Word 2" and the score's
    holds no digit ("SimLex999" has one, but then the words must still be column names)."""
    return bool(_WORD_COLUMN.fullmatch(word1) and _WORD_COLUMN.fullmatch(word2)
                and (not any(c.isdigit() for c in score) or re.search(r"[a-zA-Z]", score)))


def read_word_pairs(path, *, lowercase: bool = False, delimiter: str | None = None, columns=None,
                    name: str | None = None) -> WordPairs:
    """Read a word-pair similarity file.

    Parameters
    ----------
    path : str or Path
        The file: one pair a line, ``word1 word2 score`` (a header line is skipped).
    lowercase : bool, default False
        Lower-case the words (for lower-cased vectors such as GloVe; some files have mixed case).
    delimiter : str, optional
        Field separator; by default a tab if the line holds one, else any white space.
    columns : tuple of 3 ints, optional
        Columns of word1, word2 and score. By default each line must have exactly 3 fields;
        with ``columns`` it must have at least ``max(columns) + 1``.
    name : str, optional
        Name for reports (default: the file stem).

    Returns
    -------
    WordPairs
        The pairs, in file order (a header line, when there is one, skipped).

    Raises
    ------
    FormatError
        A line with the wrong number of fields or a score that is not a finite number (the message
        starts ``path, line N:``), or a file without any pair.
    ValueError
        ``columns`` does not give three column numbers.

    See Also
    --------
    load_dataset : Reads any dataset by name or path, guessing its kind.
    embgeo.evaluate.word_similarity : Scores a model on the pairs.
    """
    path = Path(path)
    if columns is not None:
        columns = tuple(int(c) for c in columns)
        if len(columns) != 3:
            raise ValueError(f"columns must give 3 column numbers (word1, word2, score), got {columns}")
    c1, c2, c3 = columns or (0, 1, 2)
    need = max(c1, c2, c3) + 1
    w1, w2, sc = [], [], []
    first_data = True
    for no, line in data_lines(path):
        s = line.strip()
        sep = delimiter if delimiter is not None else ("\t" if "\t" in s else None)
        parts = [p.strip() for p in s.split(sep)]
        bad_count = len(parts) != 3 if columns is None else len(parts) < need
        if bad_count:
            want = "3" if columns is None else f"at least {need}"
            raise FormatError(path, f"expected {want} fields (word1 word2 score), got {len(parts)}: {s[:80]!r}",
                              line=no)
        try:
            score = float(parts[c3])
        except ValueError:
            if first_data and _is_header(parts[c1], parts[c2], parts[c3]):
                first_data = False
                continue
            raise FormatError(path, f"score {parts[c3]!r} is not a number", line=no) from None
        if not np.isfinite(score):
            raise FormatError(path, f"score {parts[c3]!r} is not finite", line=no)
        if not parts[c1] or not parts[c2]:
            raise FormatError(path, "empty word", line=no)
        first_data = False
        a, b = parts[c1], parts[c2]
        if lowercase:
            a, b = a.lower(), b.lower()
        w1.append(a)
        w2.append(b)
        sc.append(score)
    if not w1:
        raise FormatError(path, "no word pairs found")
    return WordPairs(w1, w2, np.asarray(sc, dtype=np.float64), name or path.stem, str(path))



def read_compounds(path, *, head_column: int = 3, modifier_column: int = 4, score_column: int = 10,
                   n_columns: int | None = 13, name: str | None = None) -> WordPairs:
    """Nominal compounds with human compositionality scores, as word pairs (Bhat et al. 2020, Sec. 5.3, Table 11).

    Reads the tab-separated file of Ramisch et al. (2016) the way the released Table 11 program
    (``compute-composition.cpp``) does: 13 columns, the head lemma in column 3, the modifier in column 4
    and the compositionality score in column 10 (0-based). The result is a
    :class:`WordPairs` (head, modifier, score), so Table 11 is
    ``embgeo.evaluate.word_similarity(F, read_compounds(path), measure="symmetric_kl")`` with
    ``F = FuzzyEmbeddings.from_embeddings(e, construction="released-composition")``; its ``spearman`` and
    ``pearson`` are the table's two rows.

    Parameters
    ----------
    path : str or path-like
        The tab-separated file.
    head_column : int, default 3
        Column (from 0) of the head lemma.
    modifier_column : int, default 4
        Column of the modifier lemma.
    score_column : int, default 10
        Column of the compositionality score.
    n_columns : int or None, default 13
        The number of columns every line must have; None accepts any line long enough.
    name : str, optional
        Name for reports (default: the file stem).

    Returns
    -------
    WordPairs
        ``(head, modifier, score)`` of each compound, in file order.

    Raises
    ------
    FormatError
        A line with another number of columns (``n_columns=None`` accepts any number that reaches the
        columns used), or a score that is not a number, naming the line.

    References
    ----------
    Bhat et al. (2020). Word embeddings as tuples of feature probabilities. RepL4NLP workshop,
    Sec. 5.3, Table 11.

    C. Ramisch, S. Cordeiro, L. Zilio, M. Idiart and A. Villavicencio (2016). How naked is the naked
    truth? A multilingual lexicon of nominal compound compositionality. ACL, pp. 156–161 (the data).
    """
    path = Path(path)
    heads, mods, scores = [], [], []
    need = max(head_column, modifier_column, score_column) + 1
    for no, line in data_lines(path, comment=None):
        cols = line.split("\t")
        if (n_columns is not None and len(cols) != n_columns) or len(cols) < need:
            raise FormatError(path, f"{len(cols)} tab-separated columns, expected "
                                    f"{n_columns if n_columns is not None else f'at least {need}'}", line=no)
        try:
            scores.append(float(cols[score_column]))
        except ValueError:
            raise FormatError(path, f"score {cols[score_column]!r} is not a number", line=no) from None
        heads.append(cols[head_column])
        mods.append(cols[modifier_column])
    if not heads:
        raise FormatError(path, "no compound")
    return WordPairs(heads, mods, np.array(scores), name=name or path.stem, path=str(path))


def read_analogies(path, *, lowercase: bool = False, name: str | None = None) -> AnalogyQuestions:
    """Read an analogy file in the word2vec ``questions-words.txt`` format.

    Parameters
    ----------
    path : str or path-like
        The file: ``: section`` header lines, then questions of four words ``a b c d``.
    lowercase : bool, default False
        Lower-case the words.
    name : str, optional
        Name for reports (default: the file stem).

    Returns
    -------
    AnalogyQuestions
        The questions by section, in file order.

    Raises
    ------
    FormatError
        A question before any ``: section`` header, a line without exactly 4 words, an empty section
        name (the message starts ``path, line N:``), or a file without questions.

    See Also
    --------
    read_msr_analogies : The MSR test set.
    read_bats : BATS pairs.
    embgeo.evaluate.analogy : Answers the questions.
    """
    path = Path(path)
    sections: dict[str, list] = {}
    current = None
    for no, line in data_lines(path):
        s = line.strip()
        if s.startswith(":"):
            current = s[1:].strip()
            if not current:
                raise FormatError(path, "empty section name", line=no)
            sections.setdefault(current, [])
            continue
        parts = s.split()
        if len(parts) != 4:
            raise FormatError(path, f"expected 4 words (a b c d), got {len(parts)}: {s[:80]!r}", line=no)
        if current is None:
            raise FormatError(path, "question before any ': section' header", line=no)
        sections[current].append([p.lower() for p in parts] if lowercase else parts)
    if not any(sections.values()):
        raise FormatError(path, "no analogy questions found")
    arrays = {k: (np.array(v, dtype=str).reshape(-1, 4)) for k, v in sections.items()}
    return AnalogyQuestions(arrays, name or path.stem, str(path))


def read_msr_analogies(path, answers=None, *, lowercase: bool = False, name: str = "msr") -> AnalogyQuestions:
    """Read the MSR analogy test set (Mikolov, Yih & Zweig 2013) as :class:`AnalogyQuestions`.

    Parameters
    ----------
    path : str or Path
        The published ``test_set`` directory, its ``word_relationship.questions`` file (the
        answers file is then taken from beside it), or a single file of four words a line
        (``a b c d``, as some toolkits re-package it), or of five (``a b c TAG d``: ``EN-MSR.txt``,
        the file of the registry's ``"msr-analogy"``).
    answers : str or Path, optional
        The ``word_relationship.answers`` file, when it is not beside the questions.
    lowercase : bool
        Lower-case the words.
    name : str
        Name for reports.

    Returns
    -------
    AnalogyQuestions
        One section per tag pair (``gram-JJ_JJR``, …; the ``gram`` prefix marks them syntactic,
        as in the Google set, so ``syntactic_accuracy`` covers them all); a four-word file gives
        one section ``gram-msr``.

    Raises
    ------
    FormatError
        Question and answer files of different lengths, or a malformed line (the message starts
        ``path, line N:``).

    References
    ----------
    T. Mikolov, W. Yih and G. Zweig (2013). Linguistic regularities in continuous space word
    representations. NAACL-HLT, pp. 746–751 (the test set).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "EN-MSR.txt"
    >>> _ = f.write_text("good better rough JJ_JJR rougher\\nyear years law NN_NNS laws\\n")
    >>> q = read_msr_analogies(f)
    >>> sorted(q.sections), q.questions.tolist()[0]
    (['gram-JJ_JJR', 'gram-NN_NNS'], ['good', 'better', 'rough', 'rougher'])
    """
    path = Path(path)
    if path.is_dir():
        path = path / "word_relationship.questions"
    if answers is None and path.name.endswith(".questions"):
        answers = path.with_name(path.name[: -len(".questions")] + ".answers")
    sections: dict[str, list] = {}
    if answers is None:
        for no, line in data_lines(path, comment=None):
            parts = line.split()
            if len(parts) == 5:  # word-embeddings-benchmarks' EN-MSR.txt (the registry's file): a b c TAG d
                sections.setdefault(f"gram-{parts[3]}", []).append([*parts[:3], parts[4]])
                continue
            if len(parts) != 4:
                raise FormatError(path, f"expected 4 words (a b c d) or 5 (a b c TAG d), got {len(parts)}: "
                                        f"{line[:80]!r}", line=no)
            sections.setdefault("gram-msr", []).append(parts)
    else:
        answers = Path(answers)
        q_lines = [(no, line.split()) for no, line in data_lines(path, comment=None)]
        a_lines = [(no, line.split()) for no, line in data_lines(answers, comment=None)]
        if len(q_lines) != len(a_lines):
            raise FormatError(path, f"{len(q_lines)} questions but {answers} has {len(a_lines)} answers")
        for (qno, q), (ano, a) in zip(q_lines, a_lines):
            if len(q) != 3:
                raise FormatError(path, f"expected 3 words (a b c), got {len(q)}: {' '.join(q)[:80]!r}", line=qno)
            if len(a) != 2:
                raise FormatError(answers, f"expected 'TAG_TAG answer', got {' '.join(a)[:80]!r}", line=ano)
            sections.setdefault(f"gram-{a[0]}", []).append([*q, a[1]])
    if not sections:
        raise FormatError(path, "no analogy questions found")
    arrays = {k: np.array([[w.lower() for w in q] if lowercase else q for q in v], dtype=str).reshape(-1, 4)
              for k, v in sections.items()}
    return AnalogyQuestions(arrays, name, str(path))


def read_semeval2017(path, language: str | None = None, *, split: str = "test", lowercase: bool = False,
                     name: str | None = None) -> WordPairs:
    """Read one language (or language pair) of SemEval-2017 Task 2 as :class:`~embgeo.data.WordPairs`.

    Camacho-Collados, Pilehvar, Collier & Navigli (2017), "SemEval-2017 Task 2: Multilingual and
    Cross-lingual Semantic Word Similarity": each ``*.data.txt`` (``term1<TAB>term2``) with its
    ``keys/*.gold.txt`` (one score a line), as MUSE's ``get_evaluation.sh`` pastes them side by side.

    Parameters
    ----------
    path : str or Path
        The archive ``semeval2017-task2.zip``, the unpacked folder (the one holding ``SemEval17-Task2``,
        or ``SemEval17-Task2`` itself), or one ``*.data.txt`` file (its gold file is read from the
        ``keys`` folder beside ``data``).
    language : str, optional
        ``"en"``, ``"de"``, ``"es"``, ``"fa"``, ``"it"`` (subtask 1) or a pair such as ``"en-de"``
        (subtask 2). Needed for an archive or folder; taken from ``name`` when that is a registry name
        (``"semeval2017-task2-en-de"``).
    split : {"test", "trial"}, default "test"
        Which of the task's two sets.
    lowercase : bool, default False
        Lower-case the terms.
    name : str, optional
        Name for reports; a registry name also gives ``language``.

    Returns
    -------
    WordPairs
        The term pairs with their gold scores (0-4).

    Raises
    ------
    FormatError
        Data and gold files of different lengths, a data line without two tab-separated terms, or a
        gold score that is not a number (naming the file and line).

    References
    ----------
    J. Camacho-Collados, M. T. Pilehvar, N. Collier and R. Navigli (2017). SemEval-2017 Task 2:
    multilingual and cross-lingual semantic word similarity. SemEval, pp. 15–26.
    """
    return WordPairs(*semeval2017_pairs(path, language, split, lowercase, name))


#: load_dataset's readers, by the kind a name, a registry entry or a file's content gives.
_READERS: dict[str, Callable[..., Any]] = {"pairs": read_word_pairs, "analogy": read_analogies, "msr": read_msr_analogies,
                                           "bats": read_bats, "semeval2017": read_semeval2017}
_READERS.update({"categories": lambda path, lowercase=False, name=None: read_categories(path, lowercase=lowercase,
                                                                                        name=name),
                 "outliers": lambda path, lowercase=False, name=None: read_outlier_sets(path, name=name),
                 "entailment": lambda path, lowercase=False, name=None: read_entailment(path, name=name)})
#: as_dataset's kinds: the container(s) each reads into, and how an error names it
_CONTAINERS: dict[str, Any] = {"pairs": WordPairs, "analogy": (AnalogyQuestions, AnalogyPairs), "categories": Categories,
                               "outliers": OutlierSets, "entailment": EntailmentPairs}
_WHAT = {"pairs": "word pairs", "analogy": "analogy questions", "categories": "categorised words",
         "outliers": "outlier sets", "entailment": "entailment pairs"}

