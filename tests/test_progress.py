"""Progress output: a bar on a terminal, one line per task in a log, nothing when silenced."""
import io

import pytest

from embgeo import progress


class _Log(io.StringIO):
    def isatty(self):
        return False


class _Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def slow_clock(monkeypatch):
    """Every task seems to take 2 s, past the 1 s delay after which progress is shown."""
    ticks = iter(range(0, 10_000, 2))
    monkeypatch.setattr(progress.time, "perf_counter", lambda: float(next(ticks)))


def test_a_log_gets_one_line_per_task_not_carriage_returns(slow_clock):
    log = _Log()
    for _ in progress.progress_bar(range(500), desc="top-k", unit="block", progress=True, file=log):
        pass
    bar = progress.progress_bar(total=3, desc="meta: Riemannian CG", progress=True, file=log)
    for i in range(3):
        bar.update(1)
        bar.set_postfix(cost=f"{10 - i}")
    bar.close()
    bar.close()  # closing twice writes once
    text = log.getvalue()
    assert "\r" not in text and "\x1b" not in text
    assert text.splitlines() == ["top-k: 500/500 block in 2.0 s", "meta: Riemannian CG: 3/3 it in 2.0 s (cost=8)"]


def test_a_quick_task_prints_nothing_and_silenced_progress_nothing_at_all():
    log = _Log()
    for _ in progress.progress_bar(range(5), desc="quick", progress=True, file=log):
        pass
    for _ in progress.progress_bar(range(5), desc="off", progress=False, file=log):
        pass
    assert log.getvalue() == ""


def test_a_terminal_gets_tqdm():
    from tqdm.std import tqdm

    bar = progress.progress_bar(range(3), desc="x", progress=True, file=_Tty())
    assert isinstance(bar, tqdm) and bar.leave
    bar.close()


@pytest.fixture
def no_delay(monkeypatch):
    """Every bar shows from its first update (tqdm's delay and minimum redraw interval both 0)."""
    monkeypatch.setattr(progress, "_DELAY", 0.0)


def _last_line(text):
    return text.replace("\r", "\n").strip().splitlines()[-1]


def test_a_bar_ends_at_its_final_count_even_when_the_work_ends_early(no_delay):
    tty = _Tty()
    with progress.progress_bar(total=100, desc="self-learning", progress=True, file=tty) as bar:
        for _ in range(7):  # converged after 7 of at most 100 rounds
            bar.update(1)
    assert bar.disable  # closed
    assert _last_line(tty.getvalue()).startswith("self-learning: 100%|") and "| 7/7 [" in tty.getvalue()
    tty = _Tty()
    for _ in progress.progress_bar(range(118), desc="CSLS", progress=True, file=tty):
        pass
    assert "| 118/118 [" in _last_line(tty.getvalue())


def test_a_bar_that_an_exception_stops_closes_where_it_stopped(no_delay):
    tty = _Tty()
    with pytest.raises(KeyError):
        with progress.progress_bar(total=118, desc="CSLS", progress=True, file=tty) as bar:
            bar.update(7)
            raise KeyError("boom")
    assert bar.disable and "| 7/118 [" in _last_line(tty.getvalue())

    tty = _Tty()

    def loop():
        for i in progress.progress_bar(range(118), desc="CSLS", progress=True, file=tty):
            if i == 7:
                raise KeyError("boom")

    with pytest.raises(KeyError) as err:
        loop()
    # the traceback (kept by the caller, as a notebook keeps its last one) holds the frame, yet the bar closed
    assert err.value and "| 7/118 [" in _last_line(tty.getvalue())


def test_work_under_a_second_draws_no_bar():
    tty = _Tty()
    with progress.progress_bar(total=5, desc="quick", progress=True, file=tty) as bar:
        bar.update(5)
    for _ in progress.progress_bar(range(5), desc="quick", progress=True, file=tty):
        pass
    assert tty.getvalue() == ""


@pytest.fixture
def in_notebook(monkeypatch):
    """The process looks like a Jupyter kernel to embgeo (IPython's display prints, outside a kernel)."""
    pytest.importorskip("IPython")
    monkeypatch.setattr(progress, "_in_notebook", lambda: True)


def test_a_notebook_gets_the_widget_whose_saved_output_is_its_final_state(in_notebook, no_delay, capsys):
    pytest.importorskip("ipywidgets")
    from tqdm.notebook import tqdm

    with progress.progress_bar(total=118, desc="CSLS", progress=True) as bar:
        assert isinstance(bar, tqdm)
        bar.mininterval = 0  # redraw at every update, as a long task does
        bar.update(7)  # first displayed here, at 6 %
        bar.update(111)
    shown = capsys.readouterr().out.strip().splitlines()
    # outside a kernel IPython prints what it would send: the display at 7/118, then its update
    assert len(shown) == 2 and "| 7/118 [" in shown[0] and "| 118/118 [" in shown[1]


def test_a_quick_task_in_a_notebook_displays_nothing(in_notebook, capsys):
    pytest.importorskip("ipywidgets")
    for _ in progress.progress_bar(range(5), desc="quick", progress=True):
        pass
    assert capsys.readouterr().out == ""


def test_a_notebook_without_ipywidgets_gets_the_text_bar_on_stderr(in_notebook, monkeypatch):
    import tqdm.notebook
    from tqdm.std import tqdm as text_tqdm

    monkeypatch.setattr(tqdm.notebook, "IProgress", None)
    bar = progress.progress_bar(range(3), desc="x", progress=True)
    assert isinstance(bar, text_tqdm) and not isinstance(bar, tqdm.notebook.tqdm) and bar.fp is not None
    bar.close()


@pytest.fixture
def log_everything(monkeypatch, capsys):
    """stderr is captured (not a terminal, as in a log) and every task counts as long."""
    monkeypatch.setattr(progress, "_DELAY", 0.0)

    class Err:
        def getvalue(self):
            Err.text = getattr(Err, "text", "") + capsys.readouterr().err
            return Err.text

    return Err()


def test_faiss_hnsw_build_reports_its_progress(log_everything, rng):
    pytest.importorskip("faiss")
    import numpy as np

    import embgeo

    e = embgeo.Embeddings([f"w{i}" for i in range(20_001)], rng.standard_normal((20_001, 4)).astype(np.float32))
    e.neighbors(["w1"], 3, backend=embgeo.neighbors.Faiss("hnsw", M=4, ef_construction=8), progress=True)
    assert "FAISS hnsw index: 3/3 block in" in log_everything.getvalue()  # 10k rows a block
    e.top(100).neighbors(["w1"], 3, backend=embgeo.neighbors.Faiss("hnsw"), progress=False)
    assert log_everything.getvalue().count("FAISS") == 1


def test_meta_embedding_fit_reports_its_progress(log_everything, rng):
    pytest.importorskip("pymanopt")
    import numpy as np

    from embgeo.meta import GeometricMetaEmbedding

    A, B = rng.standard_normal((60, 5)), rng.standard_normal((60, 4))
    GeometricMetaEmbedding(max_iter=5, progress=True).fit([A, B])
    text = log_everything.getvalue()
    assert "meta: Gram blocks" in text and "meta: Riemannian CG: " in text and "cost=" in text
    assert "\r" not in text


def test_isotropy_table_reports_its_progress(log_everything, rng):
    import numpy as np

    import embgeo
    from embgeo.diagnostics import isotropy_table

    e = embgeo.Embeddings([f"w{i}" for i in range(300)], rng.standard_normal((300, 8)).astype(np.float32))
    isotropy_table(e, ["all_but_the_top", "similarity_order"], progress=True)
    assert "isotropy table: 3/3 row in" in log_everything.getvalue()


def test_rcsls_reports_its_progress(log_everything, rng):
    import numpy as np

    from embgeo.crosslingual.rcsls import rcsls

    X = rng.standard_normal((60, 4)).astype(np.float32)
    rcsls(X, X, np.arange(40), np.arange(40), csls_knn=3, n_epochs=2, progress=True)
    assert "RCSLS: 3/3 step in" in log_everything.getvalue()


def test_an_experiment_grid_reports_its_progress(log_everything):
    from embgeo.distributed import map_grid

    assert map_grid(lambda a, b: a * b, {"a": [1, 2], "b": [10, 20]}, local=True, progress=True) == [10, 20, 20, 40]
    assert "grid: 4/4 call in" in log_everything.getvalue()
