"""Deprecated alias of the text parser of :mod:`embgeo.io` (kept for one release); read files with
:func:`embgeo.io.load`."""
import warnings

from .io._textparse import (  # noqa: F401  (the public names it had)
    check_unique,
    decode_words,
    first_line,
    gzip_module,
    parse_header,
    parse_text,
    read_bytes,
)

warnings.warn("embgeo.textparse is deprecated; it is private to embgeo.io (use embgeo.io.load)",
              DeprecationWarning, stacklevel=2)
