"""Exceptions with messages that name the problem."""
from __future__ import annotations

__all__ = ["UnknownWordError", "NotFittedError"]


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
