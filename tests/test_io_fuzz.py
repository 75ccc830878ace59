"""Property-based fuzzing of embgeo.load (issue 11): for any bytes, ``load`` either returns exactly
what gensim's reader returns for the same file, or raises ``FormatError`` saying where (the line for
text, the record and byte offset for binary) -- never another exception, never a silent success.

The oracle is gensim's ``KeyedVectors.load_word2vec_format`` (``binary=`` as detected,
``no_header=True`` for GloVe, ``unicode_errors="replace"`` since embgeo replaces invalid UTF-8 with
a warning). embgeo's text reader is more lenient than gensim's in documented ways (tabs and runs
of blanks between numbers, CR, a byte-order mark, blank lines at the end); where embgeo accepts a
text file, gensim reads the file with just those spellings normalised, so every number is still
parsed by gensim. ``benchmarks/fuzz_io.py`` runs the same properties for longer.
"""
from __future__ import annotations

import gzip
import re
import struct
import tracemalloc
import warnings
from contextlib import contextmanager
from datetime import timedelta
from io import BytesIO
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from embgeo import data as datasets
from embgeo import io
from embgeo.io import _textparse as textparse
from embgeo.errors import FormatError

from conftest import fake_cores

# ------------------------------------------------------------------ the oracle

_FILE_LEVEL = ("the file is empty", "gzip", "not a valid fastText", "not a loadable gensim", "looks like a pickle",
               "not an embgeo cache", "an embgeo cache needs")


def _normalise_text(data: bytes) -> bytes:
    """The file in gensim's strict spelling: one space between tokens, no CR, BOM or trailing blank lines."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    lines = data.split(b"\n")
    while lines and not lines[-1].strip(b" \t\r\n"):
        lines.pop()
    out = []
    for line in lines:
        word, sep, rest = line.partition(b" ")
        toks = [t for t in re.split(rb"[ \t\r]+", rest) if t]
        out.append(b" ".join([word, *toks]) if sep else word.rstrip(b"\r"))
    return b"\n".join(out) + b"\n"


def _gensim(path: Path, fmt: str, tmp: Path):
    from gensim.models import KeyedVectors

    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if fmt == "word2vec_binary":
        src = tmp / "oracle.bin"
        src.write_bytes(data)
        return KeyedVectors.load_word2vec_format(str(src), binary=True, unicode_errors="replace")
    src = tmp / "oracle.txt"
    src.write_bytes(_normalise_text(data))
    return KeyedVectors.load_word2vec_format(str(src), binary=False, no_header=fmt == "glove",
                                             unicode_errors="replace")


#: what a reader may allocate beyond the file's size (issue 38): a lying header must never size an allocation
_MAX_EXTRA = 64 << 20


@contextmanager
def bounded_memory(path: Path):
    """Assert that the block allocates (tracemalloc's peak: Python and NumPy) at most the file's size + 64 MiB."""
    size = path.stat().st_size if path.is_file() else sum(f.stat().st_size for f in path.iterdir())
    tracemalloc.start()
    try:
        yield
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak <= size + _MAX_EXTRA, f"{path}: {peak:,} bytes allocated for a file of {size:,}"


def check(path: Path, tmp: Path, fmt: str | None = None) -> str:
    """Load ``path`` (as ``fmt``, or detected); assert the property; return "ok" or "error" (for statistics)."""
    try:
        with warnings.catch_warnings(), bounded_memory(path):
            warnings.simplefilter("ignore", UnicodeWarning)
            e = io.load(path, format=fmt)
    except FormatError as exc:
        msg = str(exc)
        assert msg.startswith(str(path)), msg
        located = exc.line is not None or (exc.record is not None and exc.offset is not None)
        assert located or any(s in msg for s in _FILE_LEVEL), f"error without a location: {msg}"
        if exc.record is not None:
            assert f"record {exc.record} (byte offset {exc.offset})" in msg
        return "error"
    fmt = fmt or io.detect_format(path)
    kv = _gensim(path, fmt, tmp)  # where embgeo accepts a file, the oracle must too
    assert e.words == list(kv.index_to_key), (e.words[:5], kv.index_to_key[:5])
    assert np.array_equal(e.vectors.view(np.uint32), np.asarray(kv.vectors, dtype=np.float32).view(np.uint32))
    return "ok"


# ------------------------------------------------------------------ strategies
_WORDS = st.sampled_from([b"a", b"b", b"cat", b"dog", b"\xc3\xa4", b"x\ty", b"\xff", b"3", b"-", b"a", b"nan",
                          b"\xe6\x97\xa5", b"<s>", b"1e5"])
_NUMBERS = st.one_of(
    st.floats(width=32, allow_nan=False, allow_infinity=False).map(lambda x: repr(x).encode()),
    st.integers(-10**6, 10**6).map(lambda i: str(i).encode()),
    st.sampled_from([b"0.1", b"-0", b"+.5", b"5.", b"1e-05", b"1E+05", b"0.x3", b"0,1", b"NA", b"nan", b"inf",
                     b"1_0", b"0x1p-3", b"1e400", b"1e-400", b"99999999999999999999", b"-", b".", b"e5", b""]),
)
#: counts a lying header may claim: allocating them would take gigabytes
_HUGE = st.sampled_from([2_000_000_000, 2**31 - 1, 10**12])
_SEPS = st.sampled_from([b" ", b" ", b" ", b"  ", b"\t", b" \r", b""])


@st.composite
def text_files(draw):
    dim = draw(st.integers(1, 4))
    n = draw(st.integers(0, 5))
    lines = []
    for _ in range(n):
        d = dim if draw(st.integers(0, 9)) else draw(st.integers(0, dim + 1))
        toks = [draw(_NUMBERS) for _ in range(d)]
        line = draw(_WORDS) + b"".join(draw(_SEPS) + t for t in toks)
        lines.append(line + draw(st.sampled_from([b"", b"", b"\r", b" "])))
    header = b""
    if draw(st.booleans()):
        hn = n if draw(st.integers(0, 3)) else draw(st.one_of(st.integers(0, 7), _HUGE))
        hd = dim if draw(st.integers(0, 3)) else draw(st.one_of(st.integers(0, 5), _HUGE))
        header = b"%d %d\n" % (hn, hd)
    body = header + b"\n".join(lines) + draw(st.sampled_from([b"\n", b"", b"\n\n", b"\n \n"]))
    if draw(st.integers(0, 9)) == 0:
        body = b"\xef\xbb\xbf" + body
    return body


@st.composite
def binary_files(draw):
    dim = draw(st.integers(1, 4))
    n = draw(st.integers(0, 5))
    words = [draw(_WORDS) for _ in range(n)]
    X = draw(st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), min_size=n * dim,
                      max_size=n * dim))
    sep = draw(st.sampled_from([b"", b"\n"]))
    hn = n if draw(st.integers(0, 3)) else draw(st.one_of(st.integers(0, 7), _HUGE))
    body = b"%d %d\n" % (hn, dim)
    for i, w in enumerate(words):
        body += w + b" " + struct.pack(f"<{dim}f", *X[i * dim:(i + 1) * dim]) + sep
    return body


@st.composite
def mutated(draw, base):
    data = bytearray(draw(base))
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.integers(0, 3))
        at = draw(st.integers(0, len(data)))
        if op == 0:
            data[at:at] = draw(st.binary(min_size=1, max_size=3))
        elif op == 1:
            del data[at:at + draw(st.integers(1, 4))]
        elif op == 2 and at < len(data):
            data[at] = draw(st.integers(0, 255))
        else:
            data = data[:at]
    return bytes(data)


@st.composite
def maybe_gzipped(draw, base):
    data = draw(base)
    if draw(st.integers(0, 4)) == 0:
        data = gzip.compress(data)
        if draw(st.booleans()):
            data = data[:draw(st.integers(0, len(data)))]
    return data


ANY_FILE = maybe_gzipped(st.one_of(st.binary(max_size=120), mutated(text_files()), mutated(binary_files()),
                                   text_files(), binary_files()))

#: an example that takes longer is a hang (the kernels are compiled first, by _compiled)
DEADLINE = timedelta(seconds=10)
SETTINGS = settings(max_examples=250, deadline=DEADLINE, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@pytest.fixture(scope="module", autouse=True)
def _compiled(tmp_path_factory):
    """Compile the parsing kernels (text, gzip, binary) before any example runs under the deadline."""
    d = tmp_path_factory.mktemp("warm")
    (d / "a.vec").write_bytes(b"2 2\na 0.1 0.2\nb 0.3 0.4\n")
    (d / "a.vec.gz").write_bytes(gzip.compress(b"2 2\na 0.1 0.2\nb 0.3 0.4\n"))
    (d / "a.txt").write_bytes(b"a 0.1 0.2\nb 0.3 0.4\n")
    (d / "a.bin").write_bytes(b"2 1\na \x00\x00\x80?b \x00\x00\x00@")
    for name in ("a.vec", "a.vec.gz", "a.txt", "a.bin"):
        io.load(d / name)


@SETTINGS
@given(data=ANY_FILE)
def test_load_returns_what_gensim_reads_or_raises_a_located_format_error(tmp_path, data):
    p = tmp_path / "fuzz.vec"
    p.write_bytes(data)
    check(p, tmp_path)


@settings(max_examples=120, deadline=DEADLINE, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=ANY_FILE)
def test_the_property_holds_when_every_line_is_its_own_part(tmp_path, monkeypatch, data):
    # the threaded paths (parts per core, gzip parts parsed while inflating) on tiny files
    monkeypatch.setattr(textparse, "_PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(textparse, "_STREAM_PART", 1)
    fake_cores(monkeypatch, 4)
    assert textparse.default_n_jobs() == 4  # four threads even on a one-CPU machine
    p = tmp_path / "fuzz.vec"
    p.write_bytes(data)
    check(p, tmp_path)


@settings(max_examples=60, deadline=DEADLINE, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=maybe_gzipped(st.one_of(mutated(text_files()), text_files(), st.binary(max_size=80))),
       fmt=st.sampled_from(["word2vec", "fasttext", "glove"]))
def test_text_read_as_a_named_format_returns_what_gensim_reads_or_raises(tmp_path, data, fmt):
    """``format=`` given: fastText's ``.vec`` is word2vec text, GloVe has no header (gensim's no_header)."""
    p = tmp_path / "fuzz.txt"
    p.write_bytes(data)
    check(p, tmp_path, fmt)


@pytest.mark.parametrize("data, expect", [
    (b"3 4\nthe 0.1 0.2 0.x3 0.4\ncat 0.5 0.6 0.7 0.8\ndog 0.9 1.0 1.1 1.2\n", "error"),
    (b"2 2\na 0.1 0.2\nb 0.3 0.4\n", "ok"),
    (b"a 0.5\t -1e-3 \r\nb 2 3\n\n", "ok"),
    (b"2 1\na \x00\x00\x80?b \x00\x00\x00@", "ok"),
])
def test_the_oracle_itself(tmp_path, data, expect):
    p = tmp_path / "f.vec"
    p.write_bytes(data)
    assert check(p, tmp_path) == expect


# ------------------------------------------------------------------ the other loaders
_FT_MODEL: list[bytes] = []


def fasttext_bytes() -> bytes:
    """A tiny fastText model in Facebook's format, trained and saved by gensim (cached)."""
    if not _FT_MODEL:
        import tempfile

        from gensim.models import FastText
        from gensim.models.fasttext import save_facebook_model

        sents = [["the", "cat", "sat"], ["a", "dog", "ran"]] * 5
        m = FastText(sentences=sents, vector_size=4, min_count=1, epochs=1, bucket=50, min_n=2, max_n=3,
                     seed=0, workers=1)
        with tempfile.TemporaryDirectory() as d:
            save_facebook_model(m, f"{d}/m.bin")
            _FT_MODEL.append(Path(f"{d}/m.bin").read_bytes())
    return _FT_MODEL[0]


def check_fasttext(path: Path) -> str:
    from gensim.models.fasttext import load_facebook_vectors

    try:
        with bounded_memory(path):
            e = io.load(path)
    except FormatError as exc:
        located = r"(, record \d+ \(byte offset \d+\)|, byte offset \d+)?"
        assert re.match(re.escape(str(path)) + located + ": not a valid fastText binary model", str(exc)), str(exc)
        return "error"
    kv = load_facebook_vectors(str(path))
    assert e.words == list(kv.index_to_key)
    assert np.array_equal(e.vectors.view(np.uint32), np.asarray(kv.vectors, np.float32).view(np.uint32))
    return "ok"


@st.composite
def fasttext_files(draw):
    data = bytearray(fasttext_bytes())
    for _ in range(draw(st.integers(1, 3))):
        if len(data) < 6:
            break
        at = draw(st.integers(4, len(data) - 1))
        if draw(st.booleans()):
            data[at] = draw(st.integers(0, 255))
        else:
            data = data[:at]
    return bytes(data)


@settings(max_examples=40, deadline=DEADLINE, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=fasttext_files())
def test_fasttext_bin_loads_as_gensim_or_raises_format_error(tmp_path, data):
    p = tmp_path / "fuzz.bin"
    p.write_bytes(data)
    check_fasttext(p)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=60))
def test_gensim_pickle_garbage_raises_format_error(tmp_path, data):
    p = tmp_path / "fuzz.model"
    p.write_bytes(b"\x80\x04" + data)
    with pytest.raises(FormatError, match="looks like a pickle"):  # never unpickled unless asked for
        io.load(p)
    with pytest.raises(FormatError, match="not a loadable gensim file"):
        io.load(p, format="gensim")


def _lying_npy(n: int) -> bytes:
    """A .npy of 2 x 3 float32 whose header claims ``n`` rows."""
    buf = BytesIO()
    np.save(buf, np.ones((2, 3), np.float32))
    raw = buf.getvalue()
    return raw[:128].replace(b"(2, 3)", b"(%d, 3)" % n).ljust(128, b" ")[:127] + b"\n" + raw[128:]


_VOCAB = st.lists(_WORDS, max_size=4).map(lambda w: b"\n".join(w) + b"\n")


@settings(max_examples=60, deadline=DEADLINE, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(vocab=st.one_of(st.binary(max_size=30), _VOCAB,
                       _VOCAB.map(lambda v: b"\xef\xbb\xbf" + v.replace(b"\n", b"\r\n"))),
       npy=st.one_of(st.binary(max_size=40), st.integers(0, 4).map(
           lambda n: b"" if n == 4 else np.arange(3 * n, dtype=np.float32).reshape(n, 3)),
           _HUGE.map(_lying_npy), mutated(st.just(_lying_npy(2)))))
# found by this test: NumPy tokenizes a header before it evaluates it, and a cut "(" raised tokenize's TokenError
@example(vocab=b"", npy=_lying_npy(2).replace(b"'shape': (", b"'shape"))
def test_embgeo_cache_loads_its_files_or_raises_format_error(tmp_path, vocab, npy):
    d = tmp_path / "c.embgeo"
    d.mkdir(exist_ok=True)
    (d / "vocab.txt").write_bytes(vocab)
    if isinstance(npy, np.ndarray):
        np.save(d / "vectors.npy", npy)
    else:
        (d / "vectors.npy").write_bytes(npy)
    try:
        with bounded_memory(d):
            e = io.load(d)
    except FormatError as exc:
        assert str(exc).startswith(str(d)), str(exc)
        return
    # the one line rule of every reader of words (embgeo.textfile): a BOM and CRLF are no parts of words
    words = vocab.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    words = words[:-1] if words[-1] == "" else words
    assert e.words == words and np.array_equal(e.vectors, np.load(d / "vectors.npy"))


def test_fasttext_cut_inside_its_vocabulary_is_a_format_error_not_a_hang(tmp_path):
    """gensim reads a word until its NUL and loops forever at the end of the file: embgeo checks first."""
    data = fasttext_bytes()
    p = tmp_path / "cut.bin"
    for cut in range(4, 400):
        p.write_bytes(data[:cut])
        with pytest.raises(FormatError, match="not a valid fastText binary model"):
            io.load(p)
    p.write_bytes(data[:95])  # 92 header bytes, then three bytes of the first word
    with pytest.raises(FormatError, match=r"record \d+ \(byte offset \d+\).*ends inside word record"):
        io.load(p)


# ------------------------------------------------------------------ the readers of evaluation data
_DWORDS = st.sampled_from(["cat", "dog", "fish", "naïve", "日本", "a-b", "x_y", "Paris"])
_SCORES = st.one_of(st.floats(-10, 10, allow_nan=False).map(repr), st.integers(0, 10).map(str))


@st.composite
def _lines(draw, line, min_size=1, max_size=5):
    return [draw(line) for _ in range(draw(st.integers(min_size, max_size)))]


def _join(lines) -> bytes:
    return ("\n".join(lines) + "\n").encode()


@st.composite
def pair_files(draw):
    sep = draw(st.sampled_from([" ", "\t"]))
    rows = draw(_lines(st.tuples(_DWORDS, _DWORDS, _SCORES).map(sep.join)))
    head = draw(st.sampled_from([[], ["# a comment"], [sep.join(["word1", "word2", "score"])]]))
    return _join(head + rows)


@st.composite
def analogy_files(draw):
    lines = []
    for _ in range(draw(st.integers(1, 3))):
        lines.append(": " + draw(_DWORDS))
        lines += draw(_lines(st.tuples(_DWORDS, _DWORDS, _DWORDS, _DWORDS).map(" ".join)))
    return _join(lines)


@st.composite
def dictionary_files(draw):
    sep = draw(st.sampled_from([" ", "\t"]))
    return _join(draw(_lines(st.tuples(_DWORDS, _DWORDS).map(sep.join))))


@st.composite
def category_files(draw):
    rows = draw(_lines(st.tuples(_DWORDS, _DWORDS)))
    return _join([",category,word"] + [f"{i},{c},{w}" for i, (c, w) in enumerate(rows)])


@st.composite
def outlier_files(draw):
    rows = draw(_lines(st.tuples(_DWORDS, st.lists(_DWORDS, min_size=1, max_size=2),
                                 st.lists(_DWORDS, min_size=2, max_size=4))))
    return _join([",category,outliers,words"] + [f'{i},{c},"{o!r}","{w!r}"' for i, (c, o, w) in enumerate(rows)])


@st.composite
def entailment_files(draw):
    last = draw(st.sampled_from(["label", "score", "relation"]))
    value = {"label": st.sampled_from(["True", "False", "1", "0", "-1"]), "score": _SCORES,
             "relation": st.sampled_from(["hyper", "rhyper", "coord", "other"])}[last]
    rows = draw(_lines(st.tuples(_DWORDS, _DWORDS, value).map("\t".join)))
    return _join(["\t".join(["word1", "word2", last])] + rows)


@st.composite
def bats_files(draw):
    answers = st.lists(_DWORDS, min_size=1, max_size=3).map("/".join)
    return _join(draw(_lines(st.tuples(_DWORDS, answers).map("\t".join))))


def _plain(result):
    """A reader's result as plain Python values, to compare two readings."""
    if isinstance(result, list):
        return result
    if isinstance(result, datasets.WordPairs):
        return result.words1, result.words2, result.scores.tolist()
    if isinstance(result, datasets.AnalogyQuestions):
        return {k: v.tolist() for k, v in result.sections.items()}
    if isinstance(result, datasets.Categories):
        return result.words, result.categories
    if isinstance(result, datasets.EntailmentPairs):
        return (result.words1, result.words2, result.relations, result.labels.tolist(),
                None if result.scores is None else result.scores.tolist(), result.task)
    return result.groups if isinstance(result, datasets.OutlierSets) else result.sections


#: each reader of evaluation data, the file name it reads and valid files of its format
DATA_READERS = {
    "pairs": (datasets.read_word_pairs, "pairs.txt", pair_files()),
    "analogy": (datasets.read_analogies, "questions.txt", analogy_files()),
    "dictionary": (datasets.read_dictionary, "en-fr.txt", dictionary_files()),
    "categories": (datasets.read_categories, "cats.csv", category_files()),
    "outliers": (datasets.read_outlier_sets, "outliers.csv", outlier_files()),
    "entailment": (datasets.read_entailment, "pairs.tsv", entailment_files()),
    "bats": (datasets.read_bats, "E01 [x].txt", bats_files()),
}


@st.composite
def data_cases(draw, valid):
    """(valid file, the file to read, whether the two must read the same): the valid file itself, or
    re-spelled as on Windows (a BOM, CRLF), or mutated, truncated, or random bytes."""
    good = draw(valid)
    how = draw(st.sampled_from(["same", "windows", "mutated", "mutated", "cut", "random"]))
    if how == "same":
        return good, good, True
    if how == "windows":
        return good, b"\xef\xbb\xbf" + good.replace(b"\n", b"\r\n"), True
    if how == "cut":
        return good, good[:draw(st.integers(0, len(good)))], False
    if how == "random":
        return good, draw(st.binary(max_size=120)), False
    return good, draw(mutated(st.just(good))), False


@pytest.mark.parametrize("kind", DATA_READERS)
@settings(max_examples=40, deadline=DEADLINE, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=st.data())
def test_data_readers_return_the_valid_files_reading_or_a_format_error_naming_the_file(tmp_path, kind, case):
    read, name, valid = DATA_READERS[kind]
    good, fuzzed, same = case.draw(data_cases(valid))
    ref, p = tmp_path / "ref", tmp_path / "fuzz"
    ref.mkdir(exist_ok=True)
    p.mkdir(exist_ok=True)
    (ref / name).write_bytes(good)
    (p / name).write_bytes(fuzzed)
    expected = _plain(read(ref / name))
    try:
        with bounded_memory(p / name):
            got = read(p / name)
    except FormatError as exc:
        assert not same, f"{exc} (the valid file reads)"
        assert str(exc).startswith(str(p / name)) and exc.path.startswith(str(p / name)), str(exc)
        return
    if same:
        assert _plain(got) == expected
