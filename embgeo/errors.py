"""Exceptions with messages that name the problem."""
from __future__ import annotations

__all__ = ["UnknownWordError", "NotFittedError", "FormatError"]


class UnknownWordError(KeyError):
    """A word is not in the vocabulary. Subclass of KeyError, with a readable message."""

    def __init__(self, word, context: str | None = None, n_missing: int = 1):
        self.word = word
        self.n_missing = n_missing
        msg = f"word {word!r} is not in the vocabulary"
        if n_missing > 1:
            msg += f" ({n_missing} words missing in all)"
        if context:
            msg += f" ({context})" if n_missing <= 1 else f"; {context}"
        self.message = msg
        super().__init__(msg)

    def __str__(self):  # KeyError would quote the whole message
        return self.message


class NotFittedError(ValueError, AttributeError):
    """An estimator was used before ``fit`` (the same contract as scikit-learn's)."""


class FormatError(ValueError):
    """A malformed embeddings file. The message starts with where: ``path, line N:`` (text),
    ``path, record N (byte offset B):`` (binary) or ``path:``.

    Attributes ``path``, ``line`` (1-based, text), ``record`` (1-based, binary) and ``offset``
    (byte offset in the decompressed data) hold the location; those that do not apply are None.
    """

    def __init__(self, path, message: str, line: int | None = None, *, record: int | None = None,
                 offset: int | None = None):
        self.path = str(path)
        self.line = line
        self.record = record
        self.offset = offset
        where = self.path
        if line is not None:
            where += f", line {line}"
        if record is not None:
            where += f", record {record}"
        if offset is not None:
            where += f" (byte offset {offset})" if record is not None else f", byte offset {offset}"
        self.message = message
        super().__init__(f"{where}: {message}")
