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
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np

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
        f"and {where}"
    )


def list_datasets(data_dir=None) -> list[str]:
    """Built-in names plus the files found in the data directory (``data_dir`` or ``$EMBGEO_DATA``)."""
    names = ["wordsim353", "simlex999", "google-analogy"]
    for d in _data_dirs(data_dir):
        if d.is_dir():
            names += sorted(f.stem for f in d.iterdir() if f.is_file() and f.suffix in _SUFFIXES[1:])
    return names


def _is_analogy_file(path: Path) -> bool:
    with open(path, encoding="utf8", errors="replace") as fh:
        for line in fh:
            s = line.strip()
            if s and not s.startswith("#"):
                return s.startswith(":")
    return False


def load_dataset(name_or_path, data_dir=None, lowercase: bool = False):
    """Read a dataset by name or path: :class:`WordPairs` or :class:`AnalogyQuestions`.

    The kind comes from the built-in registry or, for files, from the content (analogy files start
    with a ``: section`` line). ``lowercase`` lower-cases every word as it is read.
    """
    path = dataset_path(name_or_path, data_dir)
    key = os.fspath(name_or_path).lower()
    name = key if key in BUILTIN else path.stem
    if key in BUILTIN:
        kind = BUILTIN[key][1]
    else:
        kind = "analogy" if _is_analogy_file(path) else "pairs"
    if kind == "analogy":
        return read_analogies(path, lowercase=lowercase, name=name)
    return read_word_pairs(path, lowercase=lowercase, name=name)


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
