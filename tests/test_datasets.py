"""Readers and locators of evaluation data (embgeo.data)."""
from __future__ import annotations

import numpy as np
import pytest

from embgeo import data
from embgeo.data import AnalogyQuestions, WordPairs, dataset_path, load_dataset, read_analogies, read_word_pairs


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf8")
    return p


def _gensim_pairs(path):
    """gensim's own parsing rule for pair files (evaluate_word_pairs): '#' comments, tab-split 3 fields."""
    out = []
    for line in open(path, encoding="utf8"):
        if line.startswith("#"):
            continue
        a, b, s = line.split("\t")
        out.append((a, b, float(s)))
    return out


@pytest.mark.parametrize("name, n", [("wordsim353", 353), ("simlex999", 999), ("ws353", 353)])
def test_builtin_pair_names_read_gensim_files_like_gensim(name, n):
    wp = load_dataset(name)
    assert isinstance(wp, WordPairs) and len(wp) == n
    ref = _gensim_pairs(dataset_path(name))
    assert [(a, b) for a, b, _ in wp] == [(a, b) for a, b, _ in ref]
    np.testing.assert_array_equal(wp.scores, [s for *_, s in ref])


def test_google_analogy_sections_and_counts_match_the_file():
    q = load_dataset("google-analogy")
    assert isinstance(q, AnalogyQuestions)
    path = dataset_path("questions-words")
    lines = [l.split() for l in open(path, encoding="utf8")]
    n_headers = sum(1 for l in lines if l[0] == ":")
    assert len(q.sections) == n_headers == 14
    assert len(q) == len(lines) - n_headers == 19544
    assert q.section_names[0] == "capital-common-countries"
    assert q.sections["capital-common-countries"][0].tolist() == ["Athens", "Greece", "Baghdad", "Iraq"]
    assert q.questions.shape == (19544, 4)
    assert np.bincount(q.section_ids).tolist() == [len(v) for v in q.sections.values()]


def test_pairs_space_separated_with_header_comments_and_blank_lines(tmp_path):
    p = _write(tmp_path, "x.txt", "# a comment\nword1 word2 score\n\nCat  dog 7.5\n# mid comment\nsun moon -1e-1\n")
    wp = read_word_pairs(p)
    assert wp.words1 == ["Cat", "sun"] and wp.words2 == ["dog", "moon"]
    np.testing.assert_array_equal(wp.scores, [7.5, -0.1])
    assert wp.name == "x"
    assert read_word_pairs(p, lowercase=True).words1 == ["cat", "sun"]


def test_pairs_tab_separated_keeps_multiword_fields(tmp_path):
    p = _write(tmp_path, "t.tsv", "new york\tcity\t3\nA\tB\t1\n")
    wp = read_word_pairs(p)
    assert wp.words1 == ["new york", "A"]


def test_pairs_columns_select_from_wide_files(tmp_path):
    p = _write(tmp_path, "simlex.txt", "word1\tword2\tPOS\tSimLex999\tconc\nold\tnew\tA\t1.58\t2.7\n")
    wp = read_word_pairs(p, columns=(0, 1, 3))
    assert wp.words1 == ["old"] and wp.scores.tolist() == [1.58]
    with pytest.raises(ValueError, match=r"line 1: expected 3 fields"):
        read_word_pairs(p)


@pytest.mark.parametrize("text, line, what", [
    ("a b 1\nc d\n", 2, "expected 3 fields"),
    ("a b 1\nc d e f\n", 2, "expected 3 fields"),
    ("a b 1\n# c\nc d x\n", 3, "not a number"),
    ("a b 1\nc d nan\n", 2, "not finite"),
])
def test_malformed_pair_lines_name_file_and_line(tmp_path, text, line, what):
    p = _write(tmp_path, "bad.txt", text)
    with pytest.raises(ValueError, match=rf"bad\.txt, line {line}: .*{what}"):
        read_word_pairs(p)


def test_pairs_file_without_pairs_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="no word pairs"):
        read_word_pairs(_write(tmp_path, "e.txt", "# only a comment\n"))


def test_analogy_reader_and_its_errors(tmp_path):
    p = _write(tmp_path, "q.txt", ": s1\nA b c d\n\n: s2\ne f g h\ni j k l\n")
    q = read_analogies(p, lowercase=True)
    assert q.section_names == ["s1", "s2"] and len(q) == 3
    assert q.sections["s1"].tolist() == [["a", "b", "c", "d"]]
    with pytest.raises(ValueError, match=r"q2\.txt, line 2: expected 4 words"):
        read_analogies(_write(tmp_path, "q2.txt", ": s\na b c\n"))
    with pytest.raises(ValueError, match=r"q3\.txt, line 1: question before any"):
        read_analogies(_write(tmp_path, "q3.txt", "a b c d\n"))
    with pytest.raises(ValueError, match="no analogy questions"):
        read_analogies(_write(tmp_path, "q4.txt", ": empty\n"))


def test_load_dataset_detects_kind_from_content(tmp_path):
    assert isinstance(load_dataset(_write(tmp_path, "q.txt", ": s\na b c d\n")), AnalogyQuestions)
    assert isinstance(load_dataset(_write(tmp_path, "p.txt", "a b 1\n")), WordPairs)


def test_names_in_data_dir_and_environment(tmp_path, monkeypatch):
    d = tmp_path / "data" / "wordsim"
    d.mkdir(parents=True)
    (d / "EN-TOY-3.txt").write_text("a\tb\t1\nc\td\t2\n", encoding="utf8")
    monkeypatch.delenv("EMBGEO_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match="no data directory"):
        dataset_path("EN-TOY-3")
    assert dataset_path("en-toy-3", data_dir=d).name == "EN-TOY-3.txt"
    # the collection root works too (files in its wordsim/ folder)
    monkeypatch.setenv("EMBGEO_DATA", str(tmp_path / "data"))
    assert len(load_dataset("EN-TOY-3")) == 2
    assert "EN-TOY-3" in data.list_datasets()


def test_unknown_name_and_missing_path_raise_clear_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("EMBGEO_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match="unknown dataset 'nosuchset'.*wordsim353"):
        dataset_path("nosuchset")
    with pytest.raises(FileNotFoundError, match="dataset file not found"):
        dataset_path(tmp_path / "missing.txt")
    with pytest.raises(IsADirectoryError):
        dataset_path(tmp_path)


def test_shared_wordsim_files_read_with_expected_sizes(shared_data):
    sizes = {"EN-WS-353-ALL": 353, "EN-SIMLEX-999": 999, "EN-MEN-TR-3k": 3000, "EN-RW-STANFORD": 2034,
             "EN-RG-65": 65, "EN-MC-30": 30, "EN-MTurk-287": 287}
    for name, n in sizes.items():
        wp = load_dataset(name, data_dir=shared_data / "wordsim")
        assert len(wp) == n, name
        assert wp.name == name


_MSR_LINES = "good better rough JJ_JJR rougher\nyear years law NN_NNS laws\nsee saw eat VB_VBD ate\n"
_MSR_EXPECTED = {"gram-JJ_JJR": [["good", "better", "rough", "rougher"]],
                 "gram-NN_NNS": [["year", "years", "law", "laws"]],
                 "gram-VB_VBD": [["see", "saw", "eat", "ate"]]}


def _sections(q):
    return {k: np.asarray(v).tolist() for k, v in q.sections.items()}


def test_msr_registry_name_and_files_load_like_the_other_analogy_sets(tmp_path, monkeypatch):
    """The registry's msr-analogy (format "msr": a b c TAG d) used to be refused by load_dataset."""
    monkeypatch.setenv("EMBGEO_DATA", str(tmp_path / "cache"))
    placed = data.cache_path("msr-analogy")  # placed by hand, trusted on first use: no download
    placed.parent.mkdir(parents=True, exist_ok=True)
    placed.write_text(_MSR_LINES, encoding="utf8")
    data.fetch("msr-analogy", verify=False)
    for name in ("msr-analogy", "msr", "MSR"):
        q = load_dataset(name)
        assert isinstance(q, AnalogyQuestions) and q.name == "msr-analogy"
        assert _sections(q) == _MSR_EXPECTED
    assert _sections(load_dataset("msr", lowercase=True)) == _MSR_EXPECTED
    # a file by path is recognised by its TAG column; MSR's test_set folder by its file names
    f = _write(tmp_path, "EN-MSR.txt", _MSR_LINES)
    assert _sections(load_dataset(f)) == _MSR_EXPECTED
    d = tmp_path / "test_set"
    d.mkdir()
    (d / "word_relationship.questions").write_text("good better rough\nyear years law\n", encoding="utf8")
    (d / "word_relationship.answers").write_text("JJ_JJR rougher\nNN_NNS laws\n", encoding="utf8")
    for src in (d, d / "word_relationship.questions"):
        assert _sections(load_dataset(src)) == {k: v for k, v in _MSR_EXPECTED.items() if k != "gram-VB_VBD"}
    # an analogy evaluation takes the name too
    assert isinstance(data.as_dataset("msr", "analogy"), AnalogyQuestions)
    # three columns are still word pairs
    assert isinstance(load_dataset(_write(tmp_path, "p.txt", "a b 1\n")), WordPairs)
    with pytest.raises(ValueError, match="format must be one of"):
        load_dataset(f, format="csv")
    assert isinstance(load_dataset(f, format="msr"), AnalogyQuestions)


# ------------------------------------------------------------------ one error format, one package
def _semeval_bad_gold(tmp_path):
    root = tmp_path / "semeval"
    root.mkdir()
    (root / "Phase1Questions-1a.txt").write_text("x\nhot:cold\n", encoding="utf8")
    (root / "Phase2Answers-1a.txt").write_text(
        "header\nhot:cold\tup:down\tbig:small\twet:dry\thot:cold\tup:down\tR\n", encoding="utf8")
    (root / "GoldRatings-1a.txt").write_text('10.0 "hot:cold"\nnot a rating line\n', encoding="utf8")
    return root, root / "GoldRatings-1a.txt"


@pytest.mark.parametrize("reader, text, line", [
    (data.read_word_pairs, "a b 1\nc d\n", 2),
    (data.read_analogies, ": s\na b c\n", 2),
    (data.read_msr_analogies, "a b c d\n\na b c\n", 3),
    (data.read_dictionary, "a b\nc d e\n", 2),
    (data.read_compounds, "\t".join(["x"] * 10 + ["1.5", "x", "x"]) + "\nx\ty\n", 2),
    ("semeval", None, 2),
])
def test_every_reader_names_file_and_line_in_one_format(tmp_path, reader, text, line):
    """A malformed line is a FormatError (a ValueError) whose message starts ``path, line N:``."""
    if reader == "semeval":
        root, path = _semeval_bad_gold(tmp_path)
        call = lambda: data.read_semeval2012(root)  # noqa: E731
    else:
        path = _write(tmp_path, "bad.txt", text)
        call = lambda: reader(path)  # noqa: E731
    with pytest.raises(data.FormatError) as info:
        call()
    assert isinstance(info.value, ValueError) and info.value.line == line
    assert str(info.value).startswith(f"{path}, line {line}: ")


def test_a_file_that_is_not_text_is_a_format_error_naming_the_line(tmp_path):
    p = tmp_path / "latin1.txt"
    p.write_bytes("# a comment\r\nchat cat 1\r\ncaf\xe9 cafe 2\n".encode("latin-1"))
    for read in (read_word_pairs, data.read_dictionary):
        with pytest.raises(data.FormatError, match=r"latin1\.txt, line 3: not UTF-8 text: bytes b'\\xe9'") as info:
            read(p)
        assert info.value.line == 3
    q = tmp_path / "latin1-analogy.txt"
    q.write_bytes(b": capitals\nathens greece paris france\nberlin germany caf\xe9 x\n")
    with pytest.raises(data.FormatError, match=r"latin1-analogy\.txt, line 3: not UTF-8 text"):
        data.read_analogies(q)
    p.write_bytes("caf\xe9 cafe\n".encode("latin-1"))
    assert data.read_dictionary(p, encoding="latin-1") == [("café", "cafe")]


def test_read_compounds_lives_in_data(tmp_path):
    from embgeo import fuzzy

    assert not hasattr(fuzzy, "read_compounds")
    p = _write(tmp_path, "compounds.tsv", "\t".join(["x", "x", "x", "fish", "sword", *["x"] * 5, "1.5", "x", "x"]))
    wp = data.read_compounds(p)
    assert (wp.words1, wp.words2, wp.scores.tolist(), wp.name) == (["fish"], ["sword"], [1.5], "compounds")


def test_data_and_io_modules_import_at_the_top_only():
    """No import after the first statement that is not an import (the docstring and __future__ aside)."""
    import ast
    from pathlib import Path

    root = Path(data.__file__).parents[1]
    late = []
    for path in sorted([*(root / "data").glob("*.py"), *(root / "io").glob("*.py")]):
        body = ast.parse(path.read_text(encoding="utf8")).body
        seen_code = False
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if seen_code:
                    late.append(f"{path.name}:{node.lineno}")
            elif isinstance(node, ast.Try) and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in node.body):
                continue  # an optional module (fcntl)
            elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
                seen_code = True
    assert late == []


def test_the_data_package_exports_one_curated_api():
    expected = {
        "WordPairs", "AnalogyQuestions", "SemEvalCategory", "BUILTIN", "load_dataset", "as_dataset", "dataset_path",
        "list_datasets", "read_word_pairs", "read_compounds", "read_analogies", "read_msr_analogies",
        "read_semeval2012", "read_dictionary", "group_dictionary", "split_dictionary",
        "AnalogyPairs", "read_bats", "read_semeval2017",
        "Resource", "KINDS", "UNVERIFIED", "PACKAGED", "registry", "register", "fetch", "cache_dir", "cache_path",
        "cached", "find_local",
        "Categories", "OutlierSets", "EntailmentPairs", "ENTAILMENT_TASKS", "read_categories", "read_outlier_sets",
        "read_entailment",
    }
    assert set(data.__all__) == expected and len(data.__all__) == len(expected)
    assert all(hasattr(data, name) for name in data.__all__)


# ------------------------------------------------------------------ byte-order marks and headers (issue 27)
BOM = "\ufeff"


def test_every_reader_drops_a_byte_order_mark(tmp_path):
    from embgeo.data import read_compounds, read_dictionary, read_msr_analogies
    from embgeo.io import read_glove

    wp = read_word_pairs(_write(tmp_path, "p.txt", BOM + "cat dog 1\nsun moon 2\n"))
    assert wp.words1 == ["cat", "sun"]
    assert load_dataset(_write(tmp_path, "q.txt", BOM + ": s\na b c d\n")).questions.tolist() == [["a", "b", "c", "d"]]
    assert read_dictionary(_write(tmp_path, "d.txt", BOM + "of\tof\nthe\tse\n"))[0] == ("of", "of")
    assert read_msr_analogies(_write(tmp_path, "m.txt", BOM + "a b c JJ_JJR d\n")).questions[0, 0] == "a"
    cols = ["x"] * 13
    cols[3], cols[4], cols[10] = "head", "mod", "2.5"
    assert read_compounds(_write(tmp_path, "c.tsv", BOM + "\t".join(cols) + "\n")).words1 == ["head"]
    vocab = _write(tmp_path, "vocab.txt", BOM + "a 3\nb 2\n")
    vec = _write(tmp_path, "vectors.txt", BOM + "a 1 2 3 4 5 6\nb 1 2 3 4 5 6\n")
    assert read_glove(vec, vocab).words == ["a", "b"]
    assert read_glove(vec).words == ["a", "b"]


@pytest.mark.parametrize("first", ["cat dog high", "cat\tdog\t7,5", "word1 word2 7,5"])
def test_a_bad_score_on_the_first_line_is_an_error_not_a_header(tmp_path, first):
    p = _write(tmp_path, "p.txt", first + "\nsun moon 2\n")
    with pytest.raises(ValueError, match=r"line 1: score .* is not a number"):
        read_word_pairs(p)


@pytest.mark.parametrize("header", ["word1 word2 score", "Word 1\tWord 2\tHuman (mean)", "w1 w2 SimLex999",
                                    "# c\nword_a word_b sim"])
def test_a_header_line_is_skipped(tmp_path, header):
    wp = read_word_pairs(_write(tmp_path, "p.txt", header + "\nsun moon 2\n"))
    assert wp.words1 == ["sun"]


def test_a_nan_gold_score_is_refused_naming_the_pair():
    with pytest.raises(ValueError, match=r"pair 1 \('sun', 'moon'\) is nan"):
        WordPairs(["cat", "sun"], ["dog", "moon"], [1.0, float("nan")])


def test_every_reader_of_words_splits_lines_by_one_rule(tmp_path):
    """A file saved on Windows (a BOM, CRLF) gives the same words to every reader: embgeo.textfile's rule."""
    import embgeo
    from embgeo.textfile import split_lines

    def windows(name, text):
        p = tmp_path / name
        p.write_bytes(b"\xef\xbb\xbf" + text.encode().replace(b"\n", b"\r\n"))
        return p

    assert split_lines("\ufeffcat\r\ndog\rfish\n") == ["cat", "dog", "fish"]
    assert read_word_pairs(windows("p.txt", "cat dog 1\nfish cat 2\n")).words1 == ["cat", "fish"]
    assert data.read_dictionary(windows("d.txt", "cat chat\ndog chien\n")) == [("cat", "chat"), ("dog", "chien")]
    q = data.read_analogies(windows("a.txt", ": s\ncat cats dog dogs\n"))
    assert q.questions.tolist() == [["cat", "cats", "dog", "dogs"]] and q.section_names == ["s"]
    assert data.read_bats(windows("E01 [x].txt", "cat\tcats\ndog\tdogs/doggies\n")).sections["E01 [x]"] == [
        ("cat", ("cats",)), ("dog", ("dogs", "doggies"))]
    assert data.read_categories(windows("c.csv", ",category,word\n0,a,cat\n")).words == ["cat"]
    cache = embgeo.save(embgeo.Embeddings(["cat", "dog"], np.eye(2, dtype=np.float32)), tmp_path / "c.embgeo")
    windows("c.embgeo/vocab.txt", "cat\ndog\n")
    assert embgeo.load(cache).words == ["cat", "dog"]
