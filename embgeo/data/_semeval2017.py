"""SemEval-2017 Task 2: multilingual and cross-lingual word similarity, from its published archive.

Camacho-Collados, Pilehvar, Collier & Navigli (2017), "SemEval-2017 Task 2: Multilingual and
Cross-lingual Semantic Word Similarity", SemEval. The archive ``semeval2017-task2.zip`` holds, per
subtask and split, ``SemEval17-Task2/<split>/subtask1-monolingual/data/<lang>.<split>.data.txt`` (the
pairs, ``word1<TAB>word2`` a line; a word may be several tokens, "climate change") and
``.../keys/<lang>.<split>.gold.txt`` (the gold score of line i on line i); the cross-lingual subtask
uses ``subtask2-crosslingual`` and a language pair (``en-de``: word1 English, word2 German). MUSE's
``get_evaluation.sh`` pastes the two files side by side; this reader reads them in place.
"""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import numpy as np

from ..errors import FormatError
from ..textfile import decode_lines

__all__ = ["semeval2017_pairs", "SEMEVAL2017_LANGUAGES", "SEMEVAL2017_PAIRS"]

#: Subtask 1 (monolingual) languages and subtask 2 (cross-lingual) pairs of the test data.
SEMEVAL2017_LANGUAGES = ("en", "de", "es", "fa", "it")
SEMEVAL2017_PAIRS = ("de-es", "de-fa", "de-it", "en-de", "en-es", "en-fa", "en-it", "es-fa", "es-it", "it-fa")
_NAME = re.compile(r"semeval-?2017(?:-task-?2)?-([a-z]{2}(?:-[a-z]{2})?)$")


def _members(language: str, split: str) -> tuple[str, str]:
    sub = "subtask2-crosslingual" if "-" in language else "subtask1-monolingual"
    base = f"SemEval17-Task2/{split}/{sub}"
    return f"{base}/data/{language}.{split}.data.txt", f"{base}/keys/{language}.{split}.gold.txt"


def semeval2017_pairs(path, language: str | None = None, split: str = "test", lowercase: bool = False,
                      name: str | None = None) -> tuple:
    """``(words1, words2, scores, name, where)`` of one language or pair: see
    :func:`embgeo.data.read_semeval2017`, which makes them a :class:`~embgeo.data.WordPairs`."""
    path = Path(path)
    if language is None and name is not None and (m := _NAME.match(name.lower())):
        language = m.group(1)
    if split not in ("test", "trial"):
        raise ValueError(f"split must be 'test' or 'trial', got {split!r}")
    if path.is_file() and not zipfile.is_zipfile(path):
        data_name = str(path)
        data_text = path.read_bytes()
        gold_path = path.parent.parent / "keys" / path.name.replace(".data.txt", ".gold.txt")
        if not gold_path.is_file():
            raise FileNotFoundError(f"{path}: its gold scores {gold_path} are missing")
        gold_name, gold_text = str(gold_path), gold_path.read_bytes()
        language = language or path.name.split(".")[0]
    else:
        if language is None:
            raise ValueError(f"{path}: say which language (or pair) to read, e.g. language='en-de'")
        if language not in SEMEVAL2017_LANGUAGES + SEMEVAL2017_PAIRS:
            raise ValueError(f"SemEval-2017 Task 2 has no {language!r}; languages: "
                             f"{', '.join(SEMEVAL2017_LANGUAGES)}; pairs: {', '.join(SEMEVAL2017_PAIRS)}")
        data_m, gold_m = _members(language, split)
        if path.is_dir():
            root = path if (path / "SemEval17-Task2").is_dir() else path.parent
            data_name, gold_name = str(root / data_m), str(root / gold_m)
            try:
                data_text = (root / data_m).read_bytes()
                gold_text = (root / gold_m).read_bytes()
            except FileNotFoundError as exc:
                raise FileNotFoundError(f"{path}: no {exc.filename}") from None
        elif path.is_file():
            with zipfile.ZipFile(path) as zf:
                try:
                    data_text = zf.read(data_m)
                    gold_text = zf.read(gold_m)
                except KeyError as exc:
                    raise FormatError(path, f"the archive has no {exc.args[0]}") from None
            data_name, gold_name = f"{path}:{data_m}", f"{path}:{gold_m}"
        else:
            raise FileNotFoundError(f"SemEval-2017 Task 2 data not found: {path}")
    return _pairs(data_text, gold_text, data_name, gold_name, lowercase, name or f"semeval2017-{language}")


def _pairs(data_text, gold_text, data_name, gold_name, lowercase, name):
    data = [(no, line) for no, line in enumerate(decode_lines(data_text, data_name), 1) if line.strip()]
    gold = [(no, line) for no, line in enumerate(decode_lines(gold_text, gold_name), 1) if line.strip()]
    if len(data) != len(gold):
        raise FormatError(data_name, f"{len(data)} pairs but {gold_name} has {len(gold)} scores")
    w1, w2, scores = [], [], []
    for (no, line), (gno, g) in zip(data, gold):
        parts = line.split("\t")
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise FormatError(data_name, f"expected 'term1<TAB>term2', got {line[:80]!r}", line=no)
        try:
            scores.append(float(g.strip()))
        except ValueError:
            raise FormatError(gold_name, f"score {g.strip()[:40]!r} is not a number", line=gno) from None
        a, b = parts[0].strip(), parts[1].strip()
        w1.append(a.lower() if lowercase else a)
        w2.append(b.lower() if lowercase else b)
    if not w1:
        raise FormatError(data_name, "no word pairs found")
    return w1, w2, np.asarray(scores, dtype=np.float64), name, data_name
