"""Analogy pairs with several accepted answers: the BATS format (Gladkova, Drozd & Matsuoka 2016).

BATS_3.0 (the Bigger Analogy Test Set) is a folder of four groups (``1_Inflectional_morphology``, ...),
each holding one file per relation (``I01 [noun - plural_reg].txt``) of lines ``word<TAB>answer1/answer2``:
the pair ``word : answer`` with every accepted answer. Questions are made from the pairs of one relation
(see :func:`embgeo.evaluate.analogy`), as vecto's analogy benchmark does.
"""
from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import FormatError
from ..textfile import decode_lines

__all__ = ["AnalogyPairs", "read_bats"]


@dataclass(frozen=True)
class AnalogyPairs:
    """Word pairs ``a : a'`` grouped by relation, each with one or more accepted ``a'``.

    Parameters
    ----------
    sections : dict of str to list of (str, tuple of str)
        Per relation, in file order, ``(word, answers)``; ``answers[0]`` is the pair's own target (the
        one a question's ``a'`` uses), every answer counts as correct.
    name : str, default "pairs"
        Short name used in reports.
    path : str, optional
        Where the pairs were read from.

    See Also
    --------
    read_bats : Reads them.
    embgeo.evaluate.analogy : Makes questions of every two pairs of a relation and answers them.
    """

    sections: dict = field(default_factory=dict)
    name: str = "pairs"
    path: str | None = None

    def __len__(self) -> int:
        return sum(len(p) for p in self.sections.values())

    def __repr__(self) -> str:
        return f"AnalogyPairs({self.name!r}, {len(self)} pairs in {len(self.sections)} relations)"

    @property
    def section_names(self) -> list[str]:
        """The relations' names, in file order."""
        return list(self.sections)

    def lower(self) -> "AnalogyPairs":
        """The same pairs with lower-cased words.

        Returns
        -------
        AnalogyPairs
            A new object; relation names, name and path are kept.
        """
        return AnalogyPairs({k: [(w.lower(), tuple(a.lower() for a in ans)) for w, ans in v]
                             for k, v in self.sections.items()}, self.name, self.path)


def _parse(lines, where: str, lowercase: bool) -> list:
    """``(word, answers)`` of each line ``word<TAB>a1/a2`` (white space instead of the tab, and commas
    instead of slashes, are read as vecto's ``get_pairs`` reads them)."""
    pairs = []
    for no, line in enumerate(lines, start=1):
        s = line.strip()
        if not s:
            continue
        if lowercase:
            s = s.lower()
        parts = s.split("\t") if "\t" in s else s.split()
        if len(parts) < 2:  # vecto reads the first two fields and ignores any further one
            raise FormatError(where, f"expected 'word<TAB>answer1/answer2', got {len(parts)} field: {s[:80]!r}",
                              line=no)
        right = parts[1].strip()
        answers = tuple(a.strip() for a in right.split("/" if "/" in right else ","))
        if not parts[0].strip() or not all(answers):
            raise FormatError(where, f"empty word or answer in {s[:80]!r}", line=no)
        pairs.append((parts[0].strip(), answers))
    if not pairs:
        raise FormatError(where, "no word pairs found")
    return pairs


def _relation(name: str) -> str:
    """``"I01 [noun - plural_reg].txt"`` -> ``"I01 [noun - plural_reg]"``."""
    return name[:-4] if name.endswith(".txt") else name


def read_bats(path, *, lowercase: bool = True, name: str | None = None) -> AnalogyPairs:
    """Read BATS-format analogy pairs: the BATS_3.0 folder, its zip archive, or one relation file.

    Parameters
    ----------
    path : str or Path
        A folder (its ``*.txt`` files, in sub-folders or not, one relation each, in sorted path order),
        a zip archive holding such a folder (``BATS_3.0.zip``) or a single file.
    lowercase : bool, default True
        Lower-case every word, as vecto's reader does.
    name : str, optional
        Name for reports (default: the folder or file stem).

    Returns
    -------
    AnalogyPairs
        One section per relation file, named by the file's stem (``"I01 [noun - plural_reg]"``).

    Raises
    ------
    FormatError
        A line with one field, an empty answer (naming the file and line), or no file.

    References
    ----------
    A. Gladkova, A. Drozd and S. Matsuoka (2016). Analogy-based detection of morphological and
    semantic relations with word embeddings: what works and what doesn't. NAACL Student Research
    Workshop, pp. 8–15 (BATS).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "E01 [country - capital].txt").write_text("france\\tparis\\njapan\\ttokyo\\n")
    >>> _ = (d / "L02 [hypernyms - animals].txt").write_text("cat\\tfeline/mammal\\ndog\\tcanine/mammal\\n")
    >>> p = read_bats(d)
    >>> p.section_names, p.sections["L02 [hypernyms - animals]"][0]
    (['E01 [country - capital]', 'L02 [hypernyms - animals]'], ('cat', ('feline', 'mammal')))
    """
    path = Path(path)
    sections: dict[str, list] = {}
    if path.is_file() and zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            members = sorted(m for m in zf.namelist() if m.endswith(".txt") and not Path(m).name.startswith(".")
                             and "__MACOSX" not in m)
            for m in members:
                where = f"{path}:{m}"
                sections[_relation(Path(m).name)] = _parse(decode_lines(zf.read(m), where), where, lowercase)
    elif path.is_dir():
        for f in sorted(p for p in path.rglob("*.txt") if not p.name.startswith(".")):
            sections[_relation(f.name)] = _read_file(f, lowercase)
    elif path.is_file():
        sections[_relation(path.name)] = _read_file(path, lowercase)
    else:
        raise FileNotFoundError(f"BATS data not found: {path}")
    if not sections:
        raise FormatError(path, "no relation file (*.txt) found")
    return AnalogyPairs(sections, name or path.stem, str(path))


def _read_file(f: Path, lowercase: bool) -> list:
    return _parse(decode_lines(f.read_bytes(), f), str(f), lowercase)
