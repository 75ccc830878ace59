"""Bias queries: named target and attribute word sets, and the ten WEAT queries of Caliskan et al. (2017)."""
from __future__ import annotations

import importlib.resources
import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

__all__ = ["Query", "load_query", "WEAT_QUERIES", "word_set"]

_DATA = "caliskan2017.json"


@lru_cache(maxsize=1)
def _catalogue() -> dict:
    return json.loads((importlib.resources.files(__package__) / _DATA).read_text("utf-8"))


#: Names of the shipped queries: ``"weat1"`` … ``"weat10"`` (Caliskan et al. 2017, Table 1 and supplement).
WEAT_QUERIES = tuple(f"weat{i}" for i in range(1, 11))


def word_set(name: str) -> tuple:
    """One shipped word set by name (``"flowers"``, ``"pleasant_5"``, ``"male_terms"`` …; WEFE's names).

    Parameters
    ----------
    name : str
        The set's name.

    Returns
    -------
    tuple of str
        Its words, as shipped.

    Raises
    ------
    KeyError
        An unknown name (the message lists the known ones).
    """
    sets = _catalogue()["sets"]
    if name not in sets:
        raise KeyError(f"unknown word set {name!r}; choose from {', '.join(sets)}")
    return tuple(sets[name])


@dataclass(frozen=True)
class Query:
    """Target and attribute word sets, with names for messages and tables.

    Parameters
    ----------
    targets, attributes : tuple of tuple of str
        The word sets, e.g. ``targets=(X, Y)``, ``attributes=(A, B)`` for WEAT.
    target_names, attribute_names : tuple of str
        One name per set (default ``"target 1"``, ``"attribute 1"`` …).
    name : str
        The query's name in results (default: the set names, ``"X and Y wrt A and B"`` as WEFE writes it).
    """

    targets: Sequence
    attributes: Sequence = ()
    target_names: Sequence = ()
    attribute_names: Sequence = ()
    name: str = ""

    def __post_init__(self):
        def sets(value, what):
            if isinstance(value, str) or not hasattr(value, "__iter__"):
                raise TypeError(f"{what} must be a list of word lists, got {type(value).__name__}")
            out = []
            for i, s in enumerate(value):
                if isinstance(s, str) or not hasattr(s, "__iter__"):
                    raise TypeError(f"{what} must be a list of word lists; set {i + 1} is a {type(s).__name__}")
                words = tuple(s)
                bad = [w for w in words if not isinstance(w, str)]
                if bad:
                    raise TypeError(f"{what} set {i + 1} holds a non-string {bad[0]!r}")
                out.append(words)
            return tuple(out)

        targets, attributes = sets(self.targets, "targets"), sets(self.attributes, "attributes")
        tn = tuple(self.target_names) or tuple(f"target {i + 1}" for i in range(len(targets)))
        an = tuple(self.attribute_names) or tuple(f"attribute {i + 1}" for i in range(len(attributes)))
        if len(tn) != len(targets) or len(an) != len(attributes):
            raise ValueError(f"{len(targets)} target and {len(attributes)} attribute sets but {len(tn)} and "
                             f"{len(an)} names")
        object.__setattr__(self, "targets", targets)
        object.__setattr__(self, "attributes", attributes)
        object.__setattr__(self, "target_names", tn)
        object.__setattr__(self, "attribute_names", an)
        if not self.name:
            name = " and ".join(tn) + (" wrt " + " and ".join(an) if an else "")
            object.__setattr__(self, "name", name)

    @property
    def sets(self) -> tuple:
        """Every set, targets first: ``(X, Y, A, B)``."""
        return tuple(self.targets) + tuple(self.attributes)

    @property
    def set_names(self) -> tuple:
        """The names of the target sets, then of the attribute sets."""
        return tuple(self.target_names) + tuple(self.attribute_names)


def load_query(name: str) -> Query:
    """A shipped query: ``"weat1"`` … ``"weat10"``, the tests of Caliskan et al. (2017).

    The word sets are the paper's supplementary lists (package data ``caliskan2017.json``, which cites
    the sources). They equal WEFE 1.0.1's ``WEAT.json`` but for two words where embgeo keeps the paper's:
    ``short-term`` (WEFE ``short``, WEAT 9) and ``Billy`` (WEFE ``Bill``, WEAT 10). Names are capitalised
    as in the paper; the measures look a word up as written, then lower-cased (GloVe is lower-case).

    Parameters
    ----------
    name : str
        ``"weat1"`` … ``"weat10"`` (case-insensitive).

    Returns
    -------
    Query
        The test's target and attribute sets, named as in WEFE.

    Raises
    ------
    KeyError
        An unknown name (the message lists the shipped ones).

    Examples
    --------
    >>> q = load_query("weat6")
    >>> q.target_names, q.attribute_names
    (('male_names', 'female_names'), ('career', 'family'))
    >>> q.targets[0][:3]
    ('John', 'Paul', 'Mike')
    """
    queries = _catalogue()["queries"]
    key = name.lower() if isinstance(name, str) else name
    if key not in queries:
        raise KeyError(f"unknown bias query {name!r}; choose from {', '.join(queries)}")
    q = queries[key]
    return Query(targets=[word_set(s) for s in q["targets"]], attributes=[word_set(s) for s in q["attributes"]],
                 target_names=q["targets"], attribute_names=q["attributes"], name=key)
