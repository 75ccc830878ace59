"""Progress output: a bar on a terminal, one line per task in a log, nothing when silenced."""
import io

import pytest

from embgeo import progress


class _Log(io.StringIO):
    def isatty(self):
        return False


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


def test_a_terminal_gets_tqdm(monkeypatch):
    class _Tty(io.StringIO):
        def isatty(self):
            return True

    bar = progress.progress_bar(range(3), desc="x", progress=True, file=_Tty())
    assert type(bar).__module__.startswith("tqdm")
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
    e.neighbors(["w1"], 3, backend="faiss", kind="hnsw", M=4, ef_construction=8, progress=True)
    assert "FAISS hnsw index: 3/3 block in" in log_everything.getvalue()  # 10k rows a block
    e.top(100).neighbors(["w1"], 3, backend="faiss", kind="hnsw", progress=False)
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
