"""embgeo.evaluate.bli_grid: pairs × methods (× POSTPROC) equal the cells run one by one; resumable; Dask."""
from __future__ import annotations

import numpy as np
import pytest

import embgeo
from embgeo.crosslingual import Mapper
from embgeo.evaluate import BLIGrid, bli, bli_grid
from embgeo.evaluate import _bli_grid


def _pair(rng, n=200, d=8, noise=0.3, tag="xx"):
    X = rng.standard_normal((n, d)).astype(np.float32)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    src = embgeo.Embeddings([f"w{i}" for i in range(n)], X)
    tgt = embgeo.Embeddings([f"w{i}_{tag}" for i in range(n)],
                            (X @ Q + noise * rng.standard_normal((n, d))).astype(np.float32))
    train = [(f"w{i}", f"w{i}_{tag}") for i in range(100)]
    test = [(f"w{i}", f"w{i}_{tag}") for i in range(100, 160)]
    return src, tgt, train, test


@pytest.fixture
def grid_input(rng):
    return {"a-x": _pair(rng, noise=0.2, tag="x"), "a-y": _pair(rng, noise=0.6, tag="y")}


METHODS = {"ortho": "orthogonal", "vecmap": "supervised"}
ALPHAS = [None, (-0.25, 0.15)]


def test_grid_equals_the_cells_run_one_by_one(grid_input):
    g = bli_grid(grid_input, METHODS, postproc=ALPHAS, retrieval=["nn", "csls"], ks=(1, 5), progress=False)
    assert isinstance(g, BLIGrid) and len(g) == 2 * 2 * 2 * 2
    rows = g.to_records()
    assert [(r["pair"], r["method"], r["postproc"], r["retrieval"]) for r in rows[:4]] == [
        ("a-x", "ortho", "none", "nn"), ("a-x", "ortho", "none", "csls"),
        ("a-x", "ortho", "(-0.25, 0.15)", "nn"), ("a-x", "ortho", "(-0.25, 0.15)", "csls")]
    for r in rows:
        src, tgt, train, test = grid_input[r["pair"]]
        alpha = None if r["postproc"] == "none" else (-0.25, 0.15)
        m = Mapper.from_recipe(METHODS[r["method"]], preprocessing__postproc=alpha)
        xs, zt = m.fit_transform(src, tgt, train)
        ref = bli(xs, zt, test, retrieval=r["retrieval"], ks=(1, 5))
        assert (r["P@1"], r["P@5"], r["MRR"]) == (ref.p_at(1), ref.p_at(5), ref.mrr)
    # the noisier pair scores lower, in the pivot too
    pairs, cols, S = g.pivot("P@1", "nn")
    assert pairs == ["a-x", "a-y"] and cols[0] == "ortho none" and S.shape == (2, 4)
    assert np.all(S[0] >= S[1])
    assert "BLI grid: 2 pairs x 2 methods x 2 POSTPROC" in str(g)


def test_without_a_postproc_axis_each_method_keeps_its_own_postproc(grid_input):
    """No axis: a method given with POSTPROC runs with it (its row says which), one without runs without."""
    methods = {"plain": "orthogonal", "post": {"mapping": Mapper.from_recipe("orthogonal").mapping,
                                               "preprocessing__postproc": (-0.25, 0.15)}}
    g = bli_grid({"a-x": grid_input["a-x"]}, methods, retrieval="nn", ks=(1,), progress=False)
    rows = {r["method"]: r for r in g.to_records()}
    assert rows["plain"]["postproc"] == "none" and rows["post"]["postproc"] == "(-0.25, 0.15)"
    src, tgt, train, test = grid_input["a-x"]
    xs, zt = Mapper.from_recipe("orthogonal", preprocessing__postproc=(-0.25, 0.15)).fit_transform(src, tgt, train)
    assert rows["post"]["MRR"] == bli(xs, zt, test, retrieval="nn", ks=(1,)).mrr


def test_grid_resumes_from_its_directory(grid_input, tmp_path, monkeypatch):
    calls = []
    real = _bli_grid._cell

    def counting(*a, **k):
        calls.append(k["pair"] + "/" + k["method"])
        return real(*a, **k)

    monkeypatch.setattr(_bli_grid, "_cell", counting)
    first = bli_grid(grid_input, METHODS, retrieval="csls", directory=tmp_path / "g", progress=False)
    assert len(calls) == 4 and len(list((tmp_path / "g").glob("*.json"))) == 4
    calls.clear()
    again = bli_grid(grid_input, METHODS, retrieval="csls", directory=tmp_path / "g", progress=False)
    assert calls == [] and again.to_records() == first.to_records()
    assert "4 of 4 cells read from" in again.title
    # a lost cell is the only one recomputed
    _bli_grid.cell_path(tmp_path / "g", "a-y", "vecmap", None).unlink()
    third = bli_grid(grid_input, METHODS, retrieval="csls", directory=tmp_path / "g", progress=False)
    assert calls == ["a-y/vecmap"]
    assert [{k: v for k, v in r.items() if k != "fit_seconds"} for r in third.to_records()] == \
        [{k: v for k, v in r.items() if k != "fit_seconds"} for r in first.to_records()]
    # other settings under the same names: refused, not reused
    with pytest.raises(ValueError, match="run with other settings"):
        bli_grid(grid_input, METHODS, retrieval="nn", directory=tmp_path / "g", progress=False)


def test_grid_reads_spaces_and_dictionaries_from_files(grid_input, tmp_path):
    src, tgt, train, test = grid_input["a-x"]
    embgeo.save(src, tmp_path / "s.vec")
    embgeo.save(tgt, tmp_path / "t.vec")
    (tmp_path / "train.txt").write_text("".join(f"{a} {b}\n" for a, b in train), encoding="utf-8")
    (tmp_path / "test.txt").write_text("".join(f"{a} {b}\n" for a, b in test), encoding="utf-8")
    files = {"a-x": {"src": tmp_path / "s.vec", "tgt": str(tmp_path / "t.vec"), "train": tmp_path / "train.txt",
                     "test": tmp_path / "test.txt"}}
    g1 = bli_grid(files, ["orthogonal"], retrieval="nn", progress=False)
    g2 = bli_grid({"a-x": grid_input["a-x"]}, ["orthogonal"], retrieval="nn", progress=False)
    assert g1.to_records()[0]["MRR"] == g2.to_records()[0]["MRR"]


def test_bad_grid_arguments(grid_input):
    with pytest.raises(ValueError, match="unknown recipe 'nope'"):
        bli_grid(grid_input, ["nope"])
    with pytest.raises(ValueError, match="retrieval must be"):
        bli_grid(grid_input, ["orthogonal"], retrieval="cosine")
    with pytest.raises(ValueError, match="lacks test"):
        bli_grid({"p": {"src": 1, "tgt": 2, "train": 3}}, ["orthogonal"])
    with pytest.raises(ValueError, match=r"\(alpha_src, alpha_tgt\) pairs or None"):
        bli_grid(grid_input, ["orthogonal"], postproc=[0.5])


def test_grid_plot(grid_input):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    g = bli_grid(grid_input, METHODS, retrieval=["csls"], progress=False)
    ax = g.plot("P@1")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a-x", "a-y"]
    assert len(ax.texts) == 4


def test_grid_on_dask_equals_the_local_grid(grid_input, tmp_path):
    distributed = pytest.importorskip("distributed")
    local = bli_grid(grid_input, METHODS, retrieval="nn", local=True, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as c, \
            distributed.Client(c) as client:
        remote = bli_grid(grid_input, METHODS, retrieval="nn", client=client, directory=tmp_path / "d")
    strip = lambda g: [{k: v for k, v in r.items() if k != "fit_seconds"} for r in g.to_records()]  # noqa: E731
    assert strip(remote) == strip(local)
    assert len(list((tmp_path / "d").glob("*.json"))) == 4
