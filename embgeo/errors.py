"""Exceptions with messages that name the problem.

:class:`UnknownWordError` is the one exception type for an out-of-vocabulary word everywhere in
embgeo (``oov="raise"``), including :class:`embgeo.KeyedVectors`. :class:`FormatError` is the one
type for a malformed file, embeddings or evaluation data, its message starting ``path, line N:``.
:class:`ChecksumError`, :class:`DownloadError` and :class:`UnverifiedResourceError` are raised by
:func:`embgeo.data.fetch`. :class:`NotFittedError` is
scikit-learn's ``NotFittedError`` subclassed, so ``except sklearn.exceptions.NotFittedError``
catches embgeo's too; it is built on first access, so ``import embgeo`` does not import
scikit-learn.
"""
from __future__ import annotations

from typing import Any

__all__ = ["UnknownWordError", "NotFittedError", "FormatError", "ChecksumError", "DownloadError",
           "UnverifiedResourceError"]


class UnknownWordError(KeyError):
    """A word is not in the vocabulary. Subclass of KeyError, with a readable message.

    Parameters
    ----------
    word : str
        The (first) missing word, kept as the attribute ``word``.
    context : str, optional
        What was being looked up, appended to the message (the dataset, the call).
    n_missing : int, default 1
        How many words were missing in all, when ``word`` is the first of several.

    See Also
    --------
    embgeo.vocabulary.Vocabulary.index : Raises it for a word out of vocabulary.

    Examples
    --------
    >>> err = UnknownWordError("zebra", n_missing=3)
    >>> print(err)
    word 'zebra' is not in the vocabulary (3 words missing in all)
    >>> isinstance(err, KeyError)
    True
    """

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


class FormatError(ValueError):
    """A malformed file: embeddings (:func:`embgeo.io.load`) or evaluation data (the readers of
    :mod:`embgeo.data`). The message starts with where: ``path, line N:`` (text),
    ``path, record N (byte offset B):`` (binary) or ``path:``.

    The arguments are kept as attributes of the same names (``path`` as a string); those that do
    not apply are None.

    Parameters
    ----------
    path : str or path-like
        The malformed file.
    message : str
        What is wrong, after the location (kept as ``message``).
    line : int, optional
        1-based line number, for a text file.
    record : int, optional
        1-based record number, for a binary file.
    offset : int, optional
        Byte offset in the (decompressed) data.
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


class ChecksumError(ValueError):
    """A file's checksum differs from the registered (or first-use) one; the file was not kept."""


class DownloadError(OSError):
    """A resource could not be downloaded; the message names the URL and where to place it by hand."""


class UnverifiedResourceError(ValueError):
    """A resource without a known checksum was fetched without ``verify=False``."""


def _make_not_fitted_error() -> type:
    from sklearn.exceptions import NotFittedError as SklearnNotFittedError

    class NotFittedError(SklearnNotFittedError):
        """An estimator was used before ``fit``: scikit-learn's ``NotFittedError``, subclassed.

        Like scikit-learn's, it is both a ValueError and an AttributeError.

        Examples
        --------
        >>> from embgeo.errors import NotFittedError
        >>> import sklearn.exceptions
        >>> issubclass(NotFittedError, sklearn.exceptions.NotFittedError)
        True
        """

    NotFittedError.__module__ = __name__
    NotFittedError.__qualname__ = "NotFittedError"
    return NotFittedError


def __getattr__(name: str) -> Any:
    # scikit-learn takes about a second to import: build the subclass only when it is asked for
    if name == "NotFittedError":
        cls = _make_not_fitted_error()
        globals()["NotFittedError"] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
