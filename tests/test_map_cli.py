"""python -m embgeo map (embgeo.crosslingual.cli): map two files, write both spaces."""
from __future__ import annotations

import json

import numpy as np
import pytest

import embgeo
from embgeo import cli
from embgeo.crosslingual import RECIPE_HELP, RECIPES, Mapper
from embgeo.evaluate import bli


@pytest.fixture
def pair(tmp_path, rng):
    """A source space, a rotated copy under other names (the 'target'), and a dictionary file."""
    n, d = 300, 10
    X = rng.standard_normal((n, d)).astype(np.float32)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    src = embgeo.Embeddings([f"w{i}" for i in range(n)], X)
    tgt = embgeo.Embeddings([f"w{i}_xx" for i in range(n)], (X @ Q).astype(np.float32))
    embgeo.save(src, tmp_path / "src.vec")
    embgeo.save(tgt, tmp_path / "tgt.vec")
    train = tmp_path / "train.txt"
    train.write_text("".join(f"w{i} w{i}_xx\n" for i in range(150)), encoding="utf-8")
    val = tmp_path / "val.txt"
    val.write_text("".join(f"w{i} w{i}_xx\n" for i in range(150, 200)), encoding="utf-8")
    return tmp_path, src, tgt, train, val


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("recipe,ext", [("supervised", ".vec"), ("orthogonal", ".vec.gz"), ("muse", ".npy")])
def test_map_writes_both_spaces_as_the_library_maps_them(pair, capsys, recipe, ext):
    d, src, tgt, train, _ = pair
    so, to = d / f"src.out{ext}", d / f"tgt.out{ext}"
    code, out, err = run(capsys, "map", "--src", d / "src.vec", "--tgt", d / "tgt.vec", "--src-out", so, "--tgt-out", to,
                         "--recipe", recipe, "--train", train)
    assert code == 0, err
    assert f"wrote {so}" in err and f"wrote {to}" in err
    xs, zt = embgeo.load(so), embgeo.load(to)
    m = Mapper.from_recipe(recipe, progress=False)
    ref_s, ref_t = m.fit_transform(src, tgt, embgeo.data.read_dictionary(train))
    assert xs.words == src.words and zt.words == tgt.words
    np.testing.assert_array_equal(xs.vectors, ref_s.vectors)     # text is written exactly (shortest float32)
    np.testing.assert_array_equal(zt.vectors, ref_t.vectors)
    test = [(f"w{i}", f"w{i}_xx") for i in range(200, 300)]
    assert bli(xs, zt, test).p_at(1) == 1.0


def test_map_self_learning_with_validation_reports_it(pair, capsys):
    d, src, tgt, train, val = pair
    argv = ["map", "--src", d / "src.vec", "--tgt", d / "tgt.vec", "--src-out", d / "a.vec", "--tgt-out", d / "b.vec",
            "--recipe", "semi_supervised", "--train", train, "--validation", val, "--max-iter", "2",
            "--src-vocab", "250"]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert "2 self-learning iterations" in err and "validation P@1 100.00%" in err
    assert len(embgeo.load(d / "a.vec")) == 250 and len(embgeo.load(d / "b.vec")) == 300
    # --json: the same summary on standard output; --quiet: nothing on standard error
    code, out, err = run(capsys, *argv, "--json", "--quiet")
    assert code == 0 and err == ""
    summary = json.loads(out)
    assert summary["self_learning_iterations"] == 2 and summary["validation_p@1"] == 1.0
    assert summary["src_out"] == {"path": str(d / "a.vec"), "words": 250, "dim": 10}
    assert summary["tgt_out"]["words"] == 300 and summary["recipe"] == "semi_supervised"


@pytest.mark.parametrize("outs,message", [
    (("src.vec", "b.vec"), "--src-out .*src.vec is the input --src: it would be overwritten"),
    (("a.vec", "src.vec"), "--tgt-out .*src.vec is the input --src"),
    (("a.vec", "tgt.vec"), "--tgt-out .*tgt.vec is the input --tgt"),
    (("a.vec", "./a.vec"), "--src-out and --tgt-out are the same file"),
    (("a.vec", "nodir/b.vec"), "no such directory"),
    (("a.vec", "b.unknown"), "cannot tell the format from the name 'b.unknown'"),
])
def test_colliding_or_bad_outputs_are_one_line_errors_before_anything_is_written(pair, capsys, monkeypatch, outs,
                                                                                 message):
    import re

    d, *_ , train, _ = pair
    monkeypatch.chdir(d)
    before = (d / "src.vec").read_bytes(), (d / "tgt.vec").read_bytes()
    code, out, err = run(capsys, "map", "--src", "src.vec", "--tgt", "tgt.vec", "--src-out", outs[0], "--tgt-out", outs[1],
                         "--train", train, "-q")
    assert code == 1
    assert err.startswith("embgeo map: error: ") and len(err.strip().splitlines()) == 1, err
    assert re.search(message, err), err
    assert "Traceback" not in err
    assert ((d / "src.vec").read_bytes(), (d / "tgt.vec").read_bytes()) == before
    assert not (d / "a.vec").exists() and not (d / "b.vec").exists()


def test_a_recipe_that_needs_a_seed_says_so(pair, capsys):
    d, *_, train, _ = pair
    spaces = ["--src", d / "src.vec", "--tgt", d / "tgt.vec", "--src-out", d / "a.vec", "--tgt-out", d / "b.vec"]
    code, out, err = run(capsys, "map", *spaces, "--recipe", "rcsls")
    assert code == 1 and "recipe 'rcsls' needs a seed dictionary: pass --train" in err
    # a seedless recipe says it does not use one, --quiet or not (acl2017's numeral seed finds no numeral here: exit 1)
    code, out, err = run(capsys, "map", *spaces, "--recipe", "acl2017", "--train", train, "-q")
    assert "--train is not used" in err and "no numeral" in err and code == 1


def test_help_explains_every_recipe_in_one_line(capsys):
    for command in ("map", "bli"):
        code, out, err = run(capsys, command, "--help")
        assert code == 0
        listing = out.split("recipes (--recipe):")[1]
        for name in RECIPES:
            line = next(li for li in listing.splitlines() if li.strip().startswith(name + " "))
            assert RECIPE_HELP[name].split()[0] in line, (command, name)
    assert set(RECIPE_HELP) == set(RECIPES)
