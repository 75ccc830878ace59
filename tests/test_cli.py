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
    assert run(capsys, "neighbors", "w3", "-k", "0", "-e", str(emb))[0] == 1
    assert run(capsys, "neighbors", "-e", str(emb))[0] == 2  # no word
