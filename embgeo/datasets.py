"""Locate and read word-similarity and analogy evaluation data.

Datasets are addressed by name or by path::

    from embgeo import datasets
    ws = datasets.load_dataset("wordsim353")          # gensim's wordsim353.tsv
    gq = datasets.load_dataset("google-analogy")      # gensim's questions-words.txt
    men = datasets.load_dataset("/data/wordsim/EN-MEN-TR-3k.txt")
    rw = datasets.load_dataset("EN-RW-STANFORD", data_dir="/data/wordsim")

Built-in names resolve to the test files shipped with gensim (always installed), so the library works
without any other data. Further names (e.g. the ``EN-SIMLEX-999`` files of Faruqui & Dyer's
eval-word-vectors collection) are looked up in a data directory given by ``data_dir=`` or the
``EMBGEO_DATA`` environment variable.

File formats
------------
Word pairs
    ``word1 word2 score`` per line, separated by a tab (if the line holds one) or by white space.
    Lines starting with ``#`` and blank lines are skipped (gensim's files carry ``#`` headers);
    a first data line whose score is not a number is taken as a column header. Wider files
    (e.g. the original SimLex-999 with its POS and concreteness columns) are read with
    ``columns=(0, 1, 3)``.
Analogies
    ``: section name`` header lines, then four words per line, ``a b c d`` meaning a : b :: c : d
    (Mikolov et al. 2013, "Efficient estimation of word representations in vector space").

Malformed lines raise :class:`ValueError` naming the file and the line number.

Registered data
---------------
:func:`registry` lists the standard datasets, dictionaries and vectors by name, and :func:`fetch`
downloads one into the cache, verified (see :mod:`embgeo.registry`). :func:`load_dataset` and the
evaluators accept those names too (``load_dataset("simverb-3500")``).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from . import registry as _reg
from .registry import fetch, registry
from .validation import renamed_parameter

__all__ = [
    "WordPairs",
    "AnalogyQuestions",
    "BUILTIN",
    "dataset_path",
    "load_dataset",
    "as_dataset",
    "read_word_pairs",
    "read_analogies",
    "list_datasets",
    "registry",
    "fetch",
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

    Attributes
    ----------
    words1, words2 : list of str
        The pairs, aligned.
    scores : ndarray of float64
        The human judgements (any scale; only ranks matter for Spearman's rho).
    name : str
        Short name used in reports (the built-in name or the file stem).
    path : str or None
        Where the pairs were read from.
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
        object.__setattr__(self, "scores", np.asarray(self.scores, dtype=np.float64))

    def __len__(self) -> int:
        return len(self.words1)

    def __iter__(self) -> Iterator[tuple[str, str, float]]:
        return iter(zip(self.words1, self.words2, self.scores.tolist()))

    def __repr__(self) -> str:
        return f"WordPairs({self.name!r}, {len(self)} pairs)"

    def lower(self) -> "WordPairs":
        """The same pairs with lower-cased words."""
        return WordPairs([w.lower() for w in self.words1], [w.lower() for w in self.words2],
                         self.scores, self.name, self.path)


@dataclass(frozen=True)
class AnalogyQuestions:
    """Analogy questions ``a : b :: c : d`` grouped in sections.

    Attributes
    ----------
    sections : dict of str to ndarray of str, shape (n_i, 4)
        Each row is ``(a, b, c, d)``; ``d`` is the expected answer. Insertion order is file order.
    name, path : str
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
    without ``.txt``/``.tsv``/``.csv``, matches case-insensitively.

    Raises
    ------
    FileNotFoundError
        Naming the dataset and where it was looked for.
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
    if key in _reg.registry():
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
    raise FileNotFoundError(
        f"unknown dataset {s!r}: not a file, not a built-in name ({', '.join(sorted(BUILTIN))}), "
        f"not a registry name (see embgeo.datasets.registry()), and {where}"
    )


def list_datasets(data_dir=None) -> list[str]:
    """Built-in names plus the files found in the data directory (``data_dir`` or ``$EMBGEO_DATA``)."""
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
        return "msr" if (path / "word_relationship.questions").is_file() else "pairs"
    if path.name.endswith(".questions"):
        return "msr"
    with open(path, encoding="utf8", errors="replace") as fh:
        for line in fh:
            s = line.strip()
            if s and not s.startswith("#"):
                if s.startswith(":"):
                    return "analogy"
                parts = s.split()
                return "msr" if len(parts) == 5 and _MSR_TAG.fullmatch(parts[3]) else "pairs"
    return "pairs"


def load_dataset(name_or_path, data_dir=None, lowercase: bool = False, *, format: str | None = None):
    """Read a dataset by name or path: :class:`WordPairs` or :class:`AnalogyQuestions`.

    The kind comes from the built-in names, the registry's entry (``"msr-analogy"``, or ``"msr"``
    for short, is read by :func:`read_msr_analogies`) or, for files, from the content: analogy files
    start with a ``: section`` line, MSR files have ``a b c TAG d`` lines (``EN-MSR.txt``; MSR's
    ``test_set`` folder or its ``word_relationship.questions`` work too), anything else is word pairs.
    ``lowercase`` lower-cases every word as it is read.

    Parameters
    ----------
    name_or_path : str or Path
    data_dir : str or Path, optional
    lowercase : bool
    format : {"pairs", "analogy", "msr"}, optional
        Read the file with this reader instead of guessing from its content.

    Raises
    ------
    ValueError
        A registry entry that is not word pairs or analogies (e.g. a dictionary), an unknown ``format``.
    """
    if format is not None and format not in _READERS:
        raise ValueError(f"format must be one of {', '.join(_READERS)}, got {format!r}")
    key = os.fspath(name_or_path).lower()
    if key in _ALIASES and not os.path.exists(name_or_path):
        key = name_or_path = _ALIASES[key]
    entry = _reg.registry().get(key) if key not in BUILTIN and not os.path.exists(name_or_path) else None
    if entry is not None and entry.format not in _READERS:
        raise ValueError(f"{key} is registered as {entry.kind} ({entry.format} format), which load_dataset "
                         f"does not read; its file is embgeo.datasets.fetch({key!r})")
    p = Path(os.fspath(name_or_path)).expanduser()
    # MSR's published test_set is a folder (questions and answers beside each other)
    path = p if p.is_dir() and _file_kind(p) == "msr" else dataset_path(name_or_path, data_dir)
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
    """``data`` if it already is a dataset of ``kind`` (``"pairs"`` or ``"analogy"``), else read it by
    name or path; ValueError if the file holds the other kind."""
    cls = {"pairs": WordPairs, "analogy": AnalogyQuestions}[kind]
    if not isinstance(data, (WordPairs, AnalogyQuestions)):
        data = load_dataset(data, data_dir=data_dir)
    if not isinstance(data, cls):
        what = "word pairs" if kind == "pairs" else "analogy questions"
        raise ValueError(f"{data.name} holds {'analogy questions' if kind == 'pairs' else 'word pairs'}, not {what}")
    return data


# ------------------------------------------------------------------ readers
def _lines(path: Path):
    try:
        with open(path, encoding="utf8") as fh:
            for no, line in enumerate(fh, start=1):
                yield no, line.rstrip("\r\n")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_word_pairs(path, *, lowercase: bool = False, delimiter: str | None = None, columns=None,
                    name: str | None = None) -> WordPairs:
    """Read a word-pair similarity file.

    Parameters
    ----------
    path : str or Path
    lowercase : bool, default False
        Lower-case the words (for lower-cased vectors such as GloVe; some files have mixed case).
    delimiter : str, optional
        Field separator; by default a tab if the line holds one, else any white space.
    columns : tuple of 3 ints, optional
        Columns of word1, word2 and score. By default each line must have exactly 3 fields;
        with ``columns`` it must have at least ``max(columns) + 1``.
    name : str, optional
        Name for reports (default: the file stem).

    Raises
    ------
    ValueError
        A line with the wrong number of fields or a score that is not a finite number (file and
        line named), or a file without any pair.
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
    for no, line in _lines(path):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        sep = delimiter if delimiter is not None else ("\t" if "\t" in s else None)
        parts = [p.strip() for p in s.split(sep)]
        bad_count = len(parts) != 3 if columns is None else len(parts) < need
        if bad_count:
            want = "3" if columns is None else f"at least {need}"
            raise ValueError(f"{path}, line {no}: expected {want} fields (word1 word2 score), "
                             f"got {len(parts)}: {s[:80]!r}")
        try:
            score = float(parts[c3])
        except ValueError:
            if first_data:  # a column header such as "word1 word2 SimLex999"
                first_data = False
                continue
            raise ValueError(f"{path}, line {no}: score {parts[c3]!r} is not a number") from None
        if not np.isfinite(score):
            raise ValueError(f"{path}, line {no}: score {parts[c3]!r} is not finite")
        if not parts[c1] or not parts[c2]:
            raise ValueError(f"{path}, line {no}: empty word")
        first_data = False
        a, b = parts[c1], parts[c2]
        if lowercase:
            a, b = a.lower(), b.lower()
        w1.append(a)
        w2.append(b)
        sc.append(score)
    if not w1:
        raise ValueError(f"{path}: no word pairs found")
    return WordPairs(w1, w2, np.asarray(sc, dtype=np.float64), name or path.stem, str(path))


def read_analogies(path, *, lowercase: bool = False, name: str | None = None) -> AnalogyQuestions:
    """Read an analogy file in the word2vec ``questions-words.txt`` format.

    Raises
    ------
    ValueError
        A question before any ``: section`` header, a line without exactly 4 words, an empty section
        name (file and line named), or a file without questions.
    """
    path = Path(path)
    sections: dict[str, list] = {}
    current = None
    for no, line in _lines(path):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        if s.startswith(":"):
            current = s[1:].strip()
            if not current:
                raise ValueError(f"{path}, line {no}: empty section name")
            sections.setdefault(current, [])
            continue
        parts = s.split()
        if len(parts) != 4:
            raise ValueError(f"{path}, line {no}: expected 4 words (a b c d), got {len(parts)}: {s[:80]!r}")
        if current is None:
            raise ValueError(f"{path}, line {no}: question before any ': section' header")
        sections[current].append([p.lower() for p in parts] if lowercase else parts)
    if not any(sections.values()):
        raise ValueError(f"{path}: no analogy questions found")
    arrays = {k: (np.array(v, dtype=str).reshape(-1, 4)) for k, v in sections.items()}
    return AnalogyQuestions(arrays, name or path.stem, str(path))


# --- MSR and SemEval-2012 analogy formats ---
# MSR (Mikolov, Yih & Zweig 2013, "Linguistic Regularities in Continuous Space Word
# Representations", NAACL; used by Jawanpuria et al. 2020): the published test_set holds
# ``word_relationship.questions`` (``a b c`` a line) and ``word_relationship.answers``
# (``TAG_TAG d`` a line, e.g. ``JJ_JJR better``), line i answering question i.
# SemEval-2012 Task 2 (Jurgens, Mohammad, Turney & Holyoak 2012, "Measuring Degrees of Relational
# Similarity"): per relation category ``1a`` … ``10j``, ``Phase1Questions-1a.txt`` (free text
# with the prototypical pairs, one ``w1:w2`` a line), ``Phase1Answers-1a.txt`` (the pairs to
# rate, ``"w1:w2"`` a line), ``Phase2Answers-1a.txt`` (a header line, then one Turker's MaxDiff
# answer a line: four pairs, the least and the most illustrative, the relation, tab-separated)
# and the gold ratings (the "Platinum" / TurkerScaled files, ``rating "w1:w2"`` a line).
import re as _re  # noqa: E402

_PAIR_LINE = _re.compile(r'^\s*"?([^\s":]+):([^\s":]+)"?\s*$')
_RATED_LINE = _re.compile(r'^\s*(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)\s+"?([^\s":]+):([^\s":]+)"?\s*$')


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
    name : str

    Returns
    -------
    AnalogyQuestions
        One section per tag pair (``gram-JJ_JJR``, …; the ``gram`` prefix marks them syntactic,
        as in the Google set, so ``syntactic_accuracy`` covers them all); a four-word file gives
        one section ``gram-msr``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "EN-MSR.txt"
    >>> _ = f.write_text("good better rough JJ_JJR rougher\\nyear years law NN_NNS laws\\n")
    >>> q = read_msr_analogies(f)
    >>> sorted(q.sections), q.questions.tolist()[0]
    (['gram-JJ_JJR', 'gram-NN_NNS'], ['good', 'better', 'rough', 'rougher'])

    Raises
    ------
    ValueError
        Question and answer files of different lengths, or a malformed line (file and line named).
    """
    path = Path(path)
    if path.is_dir():
        path = path / "word_relationship.questions"
    if answers is None and path.name.endswith(".questions"):
        answers = path.with_name(path.name[: -len(".questions")] + ".answers")
    sections: dict[str, list] = {}
    if answers is None:
        for no, line in _lines(path):
            parts = line.split()
            if not parts:
                continue
            if len(parts) == 5:  # word-embeddings-benchmarks' EN-MSR.txt (the registry's file): a b c TAG d
                sections.setdefault(f"gram-{parts[3]}", []).append([*parts[:3], parts[4]])
                continue
            if len(parts) != 4:
                raise ValueError(f"{path}, line {no}: expected 4 words (a b c d) or 5 (a b c TAG d), got "
                                 f"{len(parts)}: {line[:80]!r}")
            sections.setdefault("gram-msr", []).append(parts)
    else:
        answers = Path(answers)
        q_lines = [(no, line.split()) for no, line in _lines(path) if line.strip()]
        a_lines = [(no, line.split()) for no, line in _lines(answers) if line.strip()]
        if len(q_lines) != len(a_lines):
            raise ValueError(f"{path} has {len(q_lines)} questions but {answers} has {len(a_lines)} answers")
        for (qno, q), (ano, a) in zip(q_lines, a_lines):
            if len(q) != 3:
                raise ValueError(f"{path}, line {qno}: expected 3 words (a b c), got {len(q)}: {' '.join(q)[:80]!r}")
            if len(a) != 2:
                raise ValueError(f"{answers}, line {ano}: expected 'TAG_TAG answer', got {' '.join(a)[:80]!r}")
            sections.setdefault(f"gram-{a[0]}", []).append([*q, a[1]])
    if not sections:
        raise ValueError(f"{path}: no analogy questions found")
    arrays = {k: np.array([[w.lower() for w in q] if lowercase else q for q in v], dtype=str).reshape(-1, 4)
              for k, v in sections.items()}
    return AnalogyQuestions(arrays, name, str(path))


#: load_dataset's readers, by the kind a name, a registry entry or a file's content gives.
_READERS: dict[str, Callable[..., Any]] = {"pairs": read_word_pairs, "analogy": read_analogies, "msr": read_msr_analogies}


@dataclass
class SemEvalCategory:
    """One relation category of SemEval-2012 Task 2.

    Attributes
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
        raise ValueError(f"{path}, line {no}: expected a word pair 'w1:w2', got {text[:80]!r}")
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
        raise ValueError(f"{root}: category {cat} needs Phase1Questions-{cat}.txt and Phase2Answers-{cat}.txt")
    prototypes = [(low(m.group(1)), low(m.group(2))) for _, line in _lines(q1)
                  if (m := _PAIR_LINE.match(line)) is not None]
    if not prototypes:
        raise ValueError(f"{q1}: no prototypical pair (a line 'w1:w2') found")
    index: dict = {}
    pairs: list = []

    def add(p):
        if p not in index:
            index[p] = len(pairs)
            pairs.append(p)
        return index[p]

    a1 = _find(root, "Phase1Answers", cat)
    if a1 is not None:
        for no, line in _lines(a1):
            if line.strip() and not line.lstrip().startswith("#"):
                w1, w2 = _split_pair(line, a1, no)
                add((low(w1), low(w2)))
    rows, least, most = [], [], []
    for no, line in _lines(a2):
        fields = [f.strip() for f in line.split("\t")]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if len(fields) < 6:
            if no == 1:      # the published files start with a header line
                continue
            raise ValueError(f"{a2}, line {no}: expected 4 pairs, least, most and relation, tab-separated; "
                             f"got {len(fields)} fields")
        # an empty choice ("") is a Turker who picked no pair: the official scripts split on
        # whitespace, so it counts for no pair while the answer still shows its four pairs
        ids = [add(tuple(map(low, _split_pair(f, a2, no)))) for f in fields[:4]]
        ids += [-1 if f.strip('"') == "" else add(tuple(map(low, _split_pair(f, a2, no)))) for f in fields[4:6]]
        if (ids[4] != -1 and ids[4] not in ids[:4]) or (ids[5] != -1 and ids[5] not in ids[:4]):
            raise ValueError(f"{a2}, line {no}: the least/most illustrative pair is not one of the four")
        rows.append(ids[:4])
        least.append(ids[4])
        most.append(ids[5])
    if not rows:
        raise ValueError(f"{a2}: no MaxDiff answers found")
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
        for no, line in _lines(gold_file):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = _RATED_LINE.match(line)
            if m is None:
                raise ValueError(f"{gold_file}, line {no}: expected 'rating \"w1:w2\"', got {line[:80]!r}")
            rated[add((low(m.group(2)), low(m.group(3))))] = float(m.group(1))
        if len(rated) < len(pairs):
            missing = pairs[min(set(range(len(pairs))) - set(rated))]
            raise ValueError(f"{gold_file}: no rating for the pair {missing[0]}:{missing[1]}")
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

    Returns
    -------
    dict of str to SemEvalCategory
        In natural order (``1a``, ``1b``, …, ``10a``).
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a directory with the SemEval-2012 Task 2 files")
    if categories is None:
        found = {p.stem.split("-", 1)[1] for p in [*root.glob("Phase2Answers-*.txt"),
                                                   *root.glob("Phase2Answers/Phase2Answers-*.txt")]}
        categories = sorted(found, key=lambda c: (int(_re.sub(r"\D", "", c) or 0), c))
    if not categories:
        raise ValueError(f"{root}: no Phase2Answers-*.txt file found")
    return {c: _semeval_category(root, c, lowercase) for c in categories}


__all__ += ["read_msr_analogies", "read_semeval2012", "SemEvalCategory"]


# --- bilingual dictionaries ---
# Readers of BLI dictionaries (MUSE, VecMap, tab-separated) and the held-out split, used by
# embgeo.crosslingual (seed dictionaries) and embgeo.evaluate.lexicon (BLI); self-contained.
import zlib  # noqa: E402

__all__ += ["read_dictionary", "split_dictionary", "group_dictionary"]

_DICTIONARY_FORMATS = ("auto", "muse", "vecmap", "tsv")


def read_dictionary(path, *, format: str = "auto", lowercase: bool = False, encoding: str = "utf-8"):
    """Read a bilingual dictionary into a list of (source, target) pairs.

    Parameters
    ----------
    path : str or Path
    format : {"auto", "muse", "vecmap", "tsv"}
        ``"muse"`` and ``"vecmap"``: two whitespace-separated words a line (MUSE's files use a
        space or a tab, VecMap splits on any whitespace); ``"tsv"``: exactly two tab-separated
        fields (words may then contain spaces). ``"auto"`` uses the tab when a line has one,
        otherwise whitespace.
    lowercase : bool
        Lower-case both words (for lower-cased vectors such as GloVe; some dictionaries capitalise
        entries). Pairs that become identical are kept once.
    encoding : str

    Returns
    -------
    list of (str, str)
        In file order, duplicates removed. A source word may have several translations.

    Raises
    ------
    ValueError
        Empty file, or a malformed line (the message names the file and line number).
    """
    if format not in _DICTIONARY_FORMATS:
        raise ValueError(f"format must be one of {', '.join(_DICTIONARY_FORMATS)}, got {format!r}")
    path = Path(path)
    pairs, seen = [], set()
    with open(path, encoding=encoding) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip():
                continue
            if format == "tsv" or (format == "auto" and "\t" in line):
                fields = [x.strip() for x in line.split("\t")]
            else:
                fields = line.split()
            if len(fields) != 2 or not all(fields):
                raise ValueError(
                    f"{path}:{n}: malformed dictionary line {line!r}: expected 2 fields "
                    f"(source and target word), found {len([x for x in fields if x])}"
                )
            s, t = (fields[0].lower(), fields[1].lower()) if lowercase else (fields[0], fields[1])
            if (s, t) not in seen:
                seen.add((s, t))
                pairs.append((s, t))
    if not pairs:
        raise ValueError(f"{path}: the dictionary is empty")
    return pairs


def group_dictionary(pairs):
    """{source word: [gold translations]} in first-seen order."""
    out = {}
    for s, t in pairs:
        lst = out.setdefault(s, [])
        if t not in lst:
            lst.append(t)
    return out


def split_dictionary(pairs, test_size: float = 0.2, *, random_state: int = 0, seed=None):
    """Deterministic held-out split **by source word** (all translations of a word go together).

    A word goes to the test part when ``crc32(f"{random_state}:{word}") / 2³² < test_size``: the
    split does not depend on the order or size of the dictionary, so a word held out of the 5k
    dictionary is also held out of its 1k and 500 subsets.

    Parameters
    ----------
    pairs : list of (source, target)
    test_size : float in (0, 1)
    random_state : int
        Salt of the hash (an int: the split is a hash, not a random draw). ``seed`` is its
        deprecated old name.

    Returns
    -------
    train, test : lists of (source, target) pairs
    """
    random_state = renamed_parameter(random_state, seed, old="seed", new="random_state", where="split_dictionary")
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)):
        raise TypeError(f"random_state must be an int (the hash salt), got {random_state!r}")
    if not 0 < test_size < 1:
        raise ValueError(f"test_size must be in (0, 1), got {test_size}")
    train: list = []
    test: list = []
    for s, t in pairs:
        h = zlib.crc32(f"{random_state}:{s}".encode("utf-8")) / 2**32
        (test if h < test_size else train).append((s, t))
    if not train or not test:
        raise ValueError(f"split of {len(pairs)} pairs left an empty part; use a larger dictionary")
    return train, test
