"""The command line: python -m embgeo evaluate (embgeo.cli, embgeo.evaluate.cli)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import embgeo
from embgeo import cli
from embgeo.evaluate import evaluate

WORDS = [f"w{i}" for i in range(60)]


@pytest.fixture
def files(tmp_path, rng):
    """A small word2vec text file (written by gensim), a pair file and an analogy file."""
    e = embgeo.Embeddings(WORDS, rng.standard_normal((60, 12)).astype(np.float32))
    emb = tmp_path / "small.vec"
    e.to_gensim().save_word2vec_format(str(emb), binary=False)
    pairs = tmp_path / "data" / "toy-pairs.txt"
    pairs.parent.mkdir()
    pairs.write_text("".join(f"{WORDS[i]}\t{WORDS[(7 * i) % 60]}\t{i % 5}\n" for i in range(30)) + "W1\tzzz\t1\n",
                     encoding="utf8")
    quest = tmp_path / "data" / "toy-q.txt"
    quest.write_text(": s1\n" + "".join(" ".join(WORDS[i:i + 4]) + "\n" for i in range(0, 40, 4))
                     + ": s2\n" + "".join(" ".join(WORDS[i:i + 4]) + "\n" for i in range(1, 41, 5)), encoding="utf8")
    return e, emb, pairs, quest


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_evaluate_prints_the_table(files, capsys):
    e, emb, pairs, quest = files
    code, out, err = run(capsys, "evaluate", "--embeddings", str(emb), "--datasets", str(pairs), str(quest), "--quiet")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"{emb}: 60 words, dim 12"
    assert lines[1].split() == ["dataset", "task", "measure", "n", "coverage", "spearman", "pearson", "accuracy"]
    assert lines[3].split()[:5] == ["toy-pairs", "similarity", "cosine", "30", "96.8%"]
    assert lines[4].split()[:5] == ["toy-q", "analogy", "3cosadd", "18", "100.0%"]


def test_json_output_equals_the_library_report(files, capsys):
    e, emb, pairs, quest = files
    code, out, err = run(capsys, "evaluate", "-e", str(emb), "-d", str(pairs), str(quest), "--json", "-q",
                         "--measures", "cosine,dot", "--analogy", "3cosadd", "3cosmul", "--lowercase")
    assert code == 0, err
    got = json.loads(out)
    ref = evaluate(e, [pairs, quest], ["cosine", "dot"], analogy_methods=["3cosadd", "3cosmul"], lowercase=True)
    assert got["rows"] == json.loads(json.dumps(ref.to_records()))
    assert [r["measure"] for r in got["rows"]] == ["cosine", "dot", "3cosadd", "3cosmul"]


def test_markdown_sections_and_dataset_directories(files, capsys):
    e, emb, pairs, quest = files
    code, out, err = run(capsys, "evaluate", "-e", str(emb), "-d", str(pairs.parent), "--markdown", "--sections", "-q")
    assert code == 0, err
    assert "| toy-pairs | similarity | cosine |" in out and "| toy-q/s2 | analogy | 3cosadd |" in out


def test_dataset_names_are_looked_up_in_the_data_dir(files, capsys):
    e, emb, pairs, quest = files
    code, out, err = run(capsys, "evaluate", "-e", str(emb), "-d", "TOY-PAIRS", "--data-dir", str(pairs.parent), "-q")
    assert code == 0, err
    assert "toy-pairs" in out


def test_fuzzy_measures_from_the_command_line(files, capsys):
    pytest.importorskip("embgeo.fuzzy")
    e, emb, pairs, quest = files
    code, out, err = run(capsys, "evaluate", "-e", str(emb), "-d", str(pairs), "-q", "--json",
                         "--measures",
                         "cosine,fuzzy-cross-entropy,fuzzy-cross-entropy-rev,fuzzy-kl,fuzzy-kl-rev,fuzzy-jaccard")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [r["measure"] for r in rows] == ["cosine", "fuzzy-cross-entropy", "fuzzy-cross-entropy-rev", "fuzzy-kl",
                                            "fuzzy-kl-rev", "fuzzy-jaccard"]
    assert all(-1 <= r["spearman"] <= 1 for r in rows)


@pytest.mark.parametrize("argv, message", [
    (["-d", "nosuchset"], "unknown dataset 'nosuchset'"),
    (["-d", "missing/file.txt"], "dataset file not found"),
    (["-e", "missing/vectors.vec"], "embeddings file not found"),
    (["--measures", "cosine,fuzzy-xx"], "unknown measure 'fuzzy-xx'"),
    (["--analogy", "3cosfoo"], "unknown analogy method '3cosfoo'"),
    (["--restrict-vocab", "2"], "--restrict-vocab must be at least 4"),
])
def test_bad_input_exits_nonzero_with_one_line(files, capsys, argv, message):
    e, emb, pairs, quest = files
    base = ["evaluate", "-q"] + ([] if "-e" in argv else ["-e", str(emb)])
    code, out, err = run(capsys, *base, *argv)
    assert code == 1
    assert err.startswith("embgeo evaluate: error: ") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert out == ""


def test_malformed_files_exit_nonzero_with_one_line(files, capsys, tmp_path):
    e, emb, pairs, quest = files
    bad = tmp_path / "bad.txt"
    bad.write_text("a b 1\nc d\n", encoding="utf8")
    code, out, err = run(capsys, "evaluate", "-e", str(emb), "-d", str(bad))
    assert code == 1 and "bad.txt, line 2" in err and len(err.strip().splitlines()) == 1
    vec = tmp_path / "bad.vec"
    vec.write_text("2 3\na 1 2 3\nb 1 x 3\n", encoding="utf8")
    code, out, err = run(capsys, "evaluate", "-e", str(vec), "-d", str(pairs))
    assert code == 1 and err.startswith("embgeo evaluate: error: ") and len(err.strip().splitlines()) == 1


def test_debug_shows_the_exception(files):
    with pytest.raises(FileNotFoundError):
        cli.main(["--debug", "evaluate", "-d", "nosuchset"])
    with pytest.raises(FileNotFoundError):  # also after the command
        cli.main(["evaluate", "-d", "nosuchset", "--debug"])


def test_unknown_dataset_names_the_command_line_flag(capsys, monkeypatch):
    monkeypatch.delenv("EMBGEO_DATA", raising=False)
    code, out, err = run(capsys, "evaluate", "-q", "-d", "nosuchset")
    assert code == 1 and "pass --data-dir DIR" in err and len(err.strip().splitlines()) == 1


def _one_line_error(code, err, expect=1):
    assert code == expect, err
    assert err.startswith("embgeo evaluate: error: ")
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_no_covered_pairs_and_bad_arguments_are_one_line(files, capsys, tmp_path):
    e, emb, pairs, quest = files
    nocov = tmp_path / "nocov.txt"
    nocov.write_text("zz\tyy\t1\nqq\tww\t2\n", encoding="utf8")
    code, out, err = run(capsys, "evaluate", "-q", "-e", str(emb), "-d", str(nocov))
    _one_line_error(code, err)
    code, out, err = run(capsys, "evaluate", "--limit", "many")
    _one_line_error(code, err, expect=2)
    assert "--limit: invalid int value: 'many'" in err
    code, out, err = run(capsys, "evaluate", "--no-such-flag")
    _one_line_error(code, err, expect=2)


@pytest.mark.parametrize("content, match", [
    (b"3 4\nthe 0.1 0.2 0.x3 0.4\ncat 0.5 0.6 0.7 0.8\ndog 0.9 1.0 1.1 1.2\n", "line 2: value 3 is not a number"),
    (b"3 0\n", "line 1: the header 'N D' says 3 words of 0 dimensions"),
    (b"3 4\n", "the header says 3 words of 4 dimensions but no vectors follow it"),
    (b"\x1f\x8b\x08\x00\x00\x00", "gzip"),
    (b"2 2\na 1 2\n", "the header says 2 words but the file ends after 1"),
])
def test_bad_embeddings_files_are_one_line(files, capsys, tmp_path, content, match):
    e, emb, pairs, quest = files
    bad = tmp_path / "bad.vec"
    bad.write_bytes(content)
    code, out, err = run(capsys, "evaluate", "-q", "-e", str(bad), "-d", str(pairs))
    _one_line_error(code, err)
    assert match in err and "bad.vec" in err


def test_truncated_gzip_embeddings_are_one_line(files, capsys, tmp_path):
    e, emb, pairs, quest = files
    gz = tmp_path / "small.vec.gz"
    embgeo.save(e, gz)
    gz.write_bytes(gz.read_bytes()[:-20])
    code, out, err = run(capsys, "evaluate", "-q", "-e", str(gz), "-d", str(pairs))
    _one_line_error(code, err)
    assert "small.vec.gz: the gzip data are truncated" in err


def test_usage_errors_help_and_unknown_commands(capsys):
    assert run(capsys, "evaluate", "--restrict-vocab", "many")[0] == 2
    code, out, err = run(capsys, "frobnicate")
    assert code == 2 and "unknown command 'frobnicate'" in err
    code, out, err = run(capsys, "--help")
    assert code == 0 and "evaluate" in out and "bli" in out
    code, out, err = run(capsys, "evaluate", "--help")
    assert code == 0 and "--restrict-vocab" in out
    assert run(capsys)[0] == 2


def test_missing_command_module_is_a_clear_message(capsys, monkeypatch):
    monkeypatch.setitem(cli.COMMANDS, "ghost", "embgeo.no_such_module")
    code, out, err = run(capsys, "ghost")
    assert code == 1 and "command 'ghost' is not available: cannot import embgeo.no_such_module" in err
    monkeypatch.setitem(cli.COMMANDS, "half", "embgeo.errors")
    code, out, err = run(capsys, "half")
    assert code == 1 and "does not define add_arguments() and run()" in err


def test_every_registered_command_has_the_protocol():
    for name, mod in cli.COMMANDS.items():
        try:
            m = __import__(mod, fromlist=["run"])
        except ImportError:
            continue  # reported by main() as "not available"
        assert callable(m.add_arguments) and callable(m.run), name


def test_glove_end_to_end_with_python_m(glove_package):
    """The main job on the embedded default (analogy restricted to 30k words to stay fast)."""
    env = dict(os.environ, EMBGEO_QUIET="1")
    proc = subprocess.run([sys.executable, "-m", "embgeo", "evaluate", "--restrict-vocab", "30000", "--json"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = {r["dataset"]: r for r in json.loads(proc.stdout)["rows"]}
    assert rows["wordsim353"]["spearman"] == pytest.approx(0.503, abs=2e-3)
    assert rows["simlex999"]["spearman"] == pytest.approx(0.265, abs=2e-3)
    # gensim's evaluate_word_analogies(restrict_vocab=30000) on the same vectors: 7393 / 14877
    assert rows["google-analogy"]["n"] == 14877
    assert rows["google-analogy"]["accuracy"] == pytest.approx(7393 / 14877)


@pytest.mark.parametrize("error", [RuntimeError("a bug"), MemoryError()])
def test_bugs_and_exhaustion_keep_their_traceback(monkeypatch, error):
    """A RuntimeError or MemoryError is not a user's mistake: it propagates instead of one line."""
    from embgeo.evaluate import cli as evaluate_cli

    def fail(args):
        raise error

    monkeypatch.setattr(evaluate_cli, "run", fail)
    with pytest.raises(type(error)):
        cli.main(["evaluate"])


# ---------------------------------------------------------------- a newcomer's mistakes, one line each
def test_no_command_names_the_commands_not_argparse_internals(capsys):
    code, out, err = run(capsys)
    assert code == 2
    assert "no command given" in err and "neighbors" in err
    assert "args" not in err.replace("arguments", "")


def test_bli_help_explains_retrieval_recipe_and_vocabulary_defaults(capsys):
    code, out, err = run(capsys, "bli", "--help")
    assert code == 0
    text = " ".join(out.split()).replace("- ", "-")  # argparse wraps at hyphens
    assert "csls (cross-domain similarity local scaling" in text and "isf (inverted softmax" in text
    assert "rcsls" in text and "muse" in text
    assert "--src-vocab N keep the first N source words" in text and "default: 200000" in text
    assert "--tgt-vocab N keep the first N target words (default: 200000)" in text
    assert run(capsys, "bli", "--src", "x", "--tgt", "y", "--train", "z", "--recipe", "nonsense")[0] == 2


@pytest.fixture
def bli_files(tmp_path, rng):
    """A 60-word 'source', its rotated copy as 'target' and a dictionary pairing them."""
    X = rng.standard_normal((60, 8)).astype(np.float32)
    Q, _ = np.linalg.qr(rng.standard_normal((8, 8)))
    src, tgt = tmp_path / "src.vec", tmp_path / "tgt.vec"
    embgeo.save(embgeo.Embeddings(WORDS, X), src)
    embgeo.save(embgeo.Embeddings([w + "_t" for w in WORDS], (X @ Q).astype(np.float32)), tgt)
    d = tmp_path / "dict.tsv"
    d.write_text("".join(f"{w}\t{w}_t\n" for w in WORDS), encoding="utf-8")
    return src, tgt, d


def test_bli_says_when_it_keeps_only_part_of_the_source(bli_files, capsys):
    src, tgt, d = bli_files
    code, out, err = run(capsys, "bli", "--src", str(src), "--tgt", str(tgt), "--train", str(d),
                         "--src-vocab", "50", "--retrieval", "nn")
    assert code == 0, err
    assert f"keeping the first 50 words of {src} (--src-vocab 50)" in err
    assert "(50x8)" in out
    code, out, err = run(capsys, "bli", "--src", str(src), "--tgt", str(tgt), "--train", str(d), "--retrieval", "nn")
    assert code == 0 and "keeping" not in err  # 60 words, all kept


def test_bli_holdout_out_of_range_names_the_option(bli_files, capsys):
    src, tgt, d = bli_files
    code, out, err = run(capsys, "bli", "--src", str(src), "--tgt", str(tgt), "--train", str(d), "--holdout", "1.5")
    assert code == 1
    assert "--holdout must be between 0 and 1" in err and "test_size" not in err and "Traceback" not in err


def test_a_file_that_is_not_embeddings_names_the_expected_format(capsys, tmp_path):
    notes = tmp_path / "README.md"
    notes.write_text("# embgeo\n\nThe geometry of word embeddings.\n", encoding="utf-8")
    code, out, err = run(capsys, "evaluate", "--embeddings", str(notes), "-q")
    assert code == 1 and len(err.splitlines()) == 1
    assert "README.md, line 1" in err and "expected word vectors" in err and "word2vec" in err


def test_evaluate_data_dir_that_does_not_exist(capsys, tmp_path):
    code, out, err = run(capsys, "evaluate", "--data-dir", str(tmp_path / "nonexistent"), "-q")
    assert code == 1
    assert f"--data-dir {tmp_path / 'nonexistent'}: no such directory" in err


def test_neighbors_command(files, capsys):
    e, emb, pairs, quest = files
    code, out, err = run(capsys, "neighbors", "w3", "w5", "-k", "4", "--embeddings", str(emb))
    assert code == 0, err
    scores, ids = e.neighbors(["w3", "w5"], k=4)
    lines = out.splitlines()
    assert lines[0] == "w3" and lines[5] == "w5"
    assert [ln.split()[1] for ln in lines[1:5]] == e.words_at(ids[0])
    assert [float(ln.split()[2]) for ln in lines[1:5]] == pytest.approx(scores[0].tolist(), abs=1e-4)
    code, out, err = run(capsys, "neighbors", "w3", "-k", "2", "-e", str(emb), "--json")
    assert [n for n, _ in json.loads(out)["w3"]] == e.words_at(ids[0, :2])
    code, out, err = run(capsys, "neighbors", "nope", "-e", str(emb))
    assert code == 1 and "'nope'" in err and "Traceback" not in err
    assert run(capsys, "neighbors", "w3", "-k", "0", "-e", str(emb))[0] == 2  # a usage error: -k is positive
    assert run(capsys, "neighbors", "-e", str(emb))[0] == 2  # no word
    # --metric offers the criteria table's names: a hubness reduction runs, a misspelling is a usage error
    code, out, err = run(capsys, "neighbors", "w3", "-k", "2", "-e", str(emb), "--metric", "ls", "--json")
    assert code == 0, err
    assert [n for n, _ in json.loads(out)["w3"]] == e.words_at(e.neighbors("w3", k=2, metric="ls")[1][0])
    code, out, err = run(capsys, "neighbors", "w3", "-e", str(emb), "--metric", "lss")
    assert code == 2 and "'ls'" in err and "Traceback" not in err


# ------------------------------------------------------------------ embgeo bias
BIAS_VECTORS = os.path.join(os.path.dirname(__file__), "data", "bias", "wefe_vectors.txt")


def test_bias_prints_the_weat_table_with_intervals_and_p_values(capsys):
    code, out, err = run(capsys, "bias", "-e", BIAS_VECTORS, "--queries", "weat6", "weat8", "--ci",
                         "--n-resamples", "199", "--random-state", "0", "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [r["dataset"] for r in rows] == ["weat6", "weat8"]
    assert all(r["p_method"] == "exact" and r["low"] <= r["score"] <= r["high"] for r in rows)
    from embgeo.evaluate import bias

    assert rows[0]["score"] == pytest.approx(bias.weat(embgeo.load(BIAS_VECTORS), query="weat6").score)


def test_bias_reads_a_json_query_and_writes_a_forest_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    q = tmp_path / "gender.json"
    q.write_text(json.dumps({"targets": [["math", "algebra", "geometry"], ["poetry", "art", "dance"]],
                             "attributes": [["he", "him", "his"], ["she", "her", "hers"]], "name": "mine"}))
    plot = tmp_path / "forest.png"
    code, out, err = run(capsys, "bias", "-e", BIAS_VECTORS, "--queries", str(q), "weat7", "-m", "weat,mac", "--ci", "0.9",
                         "--n-resamples", "99", "--plot", str(plot))
    assert code == 0, err
    assert "mine" in out and "weat7" in out and "mac" in out
    assert plot.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("argv, message", [
    (["--queries", "weat11"], "unknown bias query 'weat11'"),
    (["-m", "weat,weet"], "unknown bias measure 'weet'; did you mean 'weat'?"),
    (["--queries", "weat1", "--min-coverage", "1"], "set 'flowers' of query 'weat1' covers 92%"),
    (["--queries", "weat1", "--oov", "raise"], "word 'hyacinth' is not in the vocabulary"),
    (["--queries", "weat1", "--plot", "x.png"], "--plot draws the intervals: add --ci"),
    (["--queries", "nofile.json"], "No such file or directory: nofile.json"),
    (["--queries", "weat6", "-m", "ripa"], "RIPA takes 1 attribute sets, got 2"),
    (["--queries", "weat6", "--ci", "1.5"], "--ci is a confidence level between 0 and 1, got 1.5"),
    (["--queries", "weat6", "--n-permutations", "0"], "--n-permutations must be positive"),
])
def test_bias_user_mistakes_are_one_line(capsys, argv, message):
    code, out, err = run(capsys, "bias", "-e", BIAS_VECTORS, *argv)
    assert code == 1, err
    assert err.startswith("embgeo bias: error: ") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


# ---------------------------------------------------------------- one interface across the commands
def test_every_command_takes_quiet_json_and_debug(capsys):
    for name in cli.COMMANDS:
        code, out, err = run(capsys, name, "--help")
        assert code == 0, (name, err)
        for option in ("--quiet", "--json", "--debug"):
            assert option in out, (name, option)


def test_bli_and_map_spell_source_and_target_alike(capsys):
    helps = {name: run(capsys, name, "--help")[1] for name in ("bli", "map")}
    for name, text in helps.items():
        for option in ("--src ", "--tgt ", "--src-vocab", "--tgt-vocab"):
            assert option in text, (name, option)
        assert "TRG" not in text and "--source " not in text and "--target " not in text, name


def test_datasets_and_bli_print_json(bli_files, capsys):
    code, out, err = run(capsys, "datasets", "--kind", "dictionary", "--json")
    assert code == 0, err
    listing = json.loads(out)
    assert listing["resources"] and {r["kind"] for r in listing["resources"]} == {"dictionary"}
    assert set(listing["resources"][0]) == {"name", "kind", "bytes", "checksum", "cached_at"}
    src, tgt, d = bli_files
    code, out, err = run(capsys, "bli", "--src", str(src), "--tgt", str(tgt), "--train", str(d), "--retrieval", "nn",
                         "csls", "--json", "--quiet")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [r["retrieval"] for r in rows] == ["nn", "csls"] and rows[0]["P@1"] == 1.0


@pytest.mark.parametrize("argv, expect, message", [
    (["evaluate", "--measures", "cosin"], 1, "unknown measure 'cosin'; did you mean 'cosine'"),
    (["evaluate", "-d", "wordsim35"], 1, "unknown dataset 'wordsim35' (did you mean 'wordsim353'"),
    (["compare", "a.vec", "b.vec", "--measure", "fuzy-kl"], 1, "did you mean 'fuzzy-kl'"),
    (["bli", "--src", "a", "--tgt", "b", "--train", "c", "--recipe", "supervsied"], 2,
     "unknown recipe 'supervsied'; did you mean 'supervised'"),
    (["bli", "--src", "a", "--tgt", "b", "--train", "c", "--retrieval", "csl"], 2, "did you mean 'csls'"),
    (["map", "--src", "a", "--tgt", "b", "--src-out", "c", "--tgt-out", "d", "--recipe", "unsupervized"], 2,
     "did you mean 'unsupervised'"),
    (["datasets", "--kind", "dictionry"], 2, "unknown kind 'dictionry'; did you mean 'dictionary'"),
    (["datasets", "--fetch", "simlex-99"], 1, "did you mean simlex-999"),
    (["evalute"], 2, "unknown command 'evalute'; did you mean 'evaluate'"),
])
def test_a_misspelt_name_is_answered_with_the_nearest(capsys, monkeypatch, argv, expect, message):
    monkeypatch.delenv("EMBGEO_DATA", raising=False)
    code, out, err = run(capsys, *argv)
    assert code == expect, err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_hints_name_the_command_not_the_python_call(capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("EMBGEO_DATA", raising=False)
    code, out, err = run(capsys, "evaluate", "-d", "nosuchset", "-q")
    assert code == 1 and "see python -m embgeo datasets)" in err and "registry()" not in err
    code, out, err = run(capsys, "bli", "--src", "a.vec", "--tgt", "b.vec", "--train", str(tmp_path / "en-fi.tsv"))
    assert code == 1 and "python -m embgeo datasets --fetch xling-de-fi-train-5k" in err and "fetch(" not in err
    assert cli.cli_hints("embgeo.data.registry('vectors')") == "python -m embgeo datasets --kind vectors"


def _vectors_files(tmp_path, rng):
    """The same 30 x 6 vectors as word2vec text, headerless (GloVe) text, gzipped text and word2vec binary."""
    e = embgeo.Embeddings(WORDS[:30], rng.standard_normal((30, 6)).astype(np.float32))
    paths = [tmp_path / "v.vec", tmp_path / "v.glove.txt", tmp_path / "v.vec.gz", tmp_path / "v.bin"]
    embgeo.save(e, paths[0])
    embgeo.save(e, paths[1], format="glove")
    embgeo.save(e, paths[2])
    embgeo.save(e, paths[3])
    return paths


def test_a_vectors_file_where_a_dictionary_or_dataset_belongs_says_so(bli_files, capsys, tmp_path, rng):
    src, tgt, d = bli_files
    for vec in _vectors_files(tmp_path, rng):
        for argv, option, expected in [
            (["bli", "--src", src, "--tgt", tgt, "--train", vec], "--train", "not a dictionary of word pairs"),
            (["bli", "--src", src, "--tgt", tgt, "--train", d, "--test", vec], "--test", "not a dictionary"),
            (["map", "--src", src, "--tgt", tgt, "--src-out", tmp_path / "a.vec", "--tgt-out", tmp_path / "b.vec",
              "--train", d, "--validation", vec], "--validation", "not a dictionary"),
            (["evaluate", "-e", src, "-d", vec], "--datasets", "not a dataset"),
            (["compare", src, tgt, "-d", vec], "--datasets", "not a dataset"),
        ]:
            code, out, err = run(capsys, *map(str, argv), "-q")
            assert code == 1, (argv, err)
            assert f"{option} {vec} looks like a word-vectors file" in err and expected in err, err
            assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "a.vec").exists()


def test_dictionaries_and_datasets_are_not_taken_for_vectors(tmp_path):
    numerals = tmp_path / "numerals.txt"          # a first line of two numbers is not a header here
    numerals.write_text("1 1\n2 2\nthree kolme\n", encoding="utf-8")
    simlex = tmp_path / "simlex.txt"              # a word, a word, a letter and seven numbers
    simlex.write_text("word1\tword2\tPOS\tSimLex999\tconc(w1)\tconc(w2)\tconcQ\tAssoc(USF)\tSimAssoc333\tSD\n"
                      "old\tnew\tA\t1.58\t2.72\t2.81\t2\t7.25\t1\t0.41\n", encoding="utf-8")
    ws = tmp_path / "ws.txt"
    ws.write_text("tiger cat 7.35\ntiger tiger 10\n", encoding="utf-8")
    for f in (numerals, simlex, ws):
        cli.check_not_vectors(f, "--train", "a dictionary")


USER_MISTAKES = [
    ["evaluate", "-e", "{src}", "-d", "{src}"],
    ["evaluate", "-e", "{tmp}/nothing.vec"],
    ["evaluate", "-e", "{src}", "--measures", "cosin"],
    ["evaluate", "-e", "{src}", "--ci", "2"],
    ["compare", "{src}", "{tmp}/nothing.vec", "-d", "{dict}"],
    ["neighbors", "zzz", "-e", "{src}"],
    ["neighbors", "w1", "-e", "{dict}"],
    ["datasets", "--fetch", "no-such-resource"],
    ["bli", "--src", "{src}", "--tgt", "{tgt}", "--train", "{src}"],
    ["bli", "--src", "{src}", "--tgt", "{tgt}", "--train", "{tmp}/nothing.tsv"],
    ["bli", "--src", "{src}", "--tgt", "{tgt}", "--train", "{dict}", "--pca", "abc"],
    ["bli", "--src", "{src}", "--tgt", "{tgt}", "--train", "{dict}", "--source-size", "0"],
    ["bli", "--src", "{src}", "--tgt", "{dict}", "--train", "{dict}"],
    ["map", "--src", "{src}", "--tgt", "{tgt}", "--src-out", "{tmp}/a.vec", "--tgt-out", "{tmp}/b.vec"],
    ["map", "--src", "{src}", "--tgt", "{tgt}", "--src-out", "{src}", "--tgt-out", "{tmp}/b.vec", "--train", "{dict}"],
    ["map", "--src", "{src}", "--tgt", "{tgt}", "--src-out", "{tmp}/a.vec", "--tgt-out", "{tmp}/b.vec",
     "--train", "{dict}", "--max-iter", "-1"],
]


@pytest.mark.parametrize("argv", USER_MISTAKES, ids=lambda a: " ".join(a[:1] + a[-2:]))
def test_a_users_mistake_is_one_line_never_a_traceback(bli_files, capsys, tmp_path, monkeypatch, argv):
    monkeypatch.delenv("EMBGEO_DATA", raising=False)
    src, tgt, d = bli_files
    argv = [a.format(src=src, tgt=tgt, dict=d, tmp=tmp_path) for a in argv]
    code, out, err = run(capsys, *argv, "-q")
    assert code in (1, 2), err
    assert err.startswith(f"embgeo {argv[0]}: error: ") and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and out == ""


def test_the_installed_entry_point_prints_no_traceback(bli_files, tmp_path):
    """``python -m embgeo`` itself, in a fresh process: the mistakes above end in one line there too."""
    src, tgt, d = bli_files
    env = dict(os.environ, EMBGEO_QUIET="1")
    for argv in (["bli", "--src", str(src), "--tgt", str(tgt), "--train", str(src)],
                 ["evaluate", "-e", str(tmp_path / "nothing.vec")]):
        proc = subprocess.run([sys.executable, "-m", "embgeo", *argv], capture_output=True, text=True, env=env,
                              timeout=300)
        assert proc.returncode == 1, proc.stderr
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
