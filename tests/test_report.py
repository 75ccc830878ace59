"""Report.to_frame: a pandas DataFrame when pandas is there, a clear ImportError when it is not."""
import builtins
import math

import pytest

from embgeo.evaluate import Report


@pytest.fixture
def report():
    return Report([{"dataset": "ws", "n": 353, "spearman": 0.5033},
                   {"dataset": "simlex", "n": 999, "spearman": float("nan"), "accuracy": 0.25}], title="t")


def test_to_frame_has_the_records_cells(report):
    pytest.importorskip("pandas")
    frame = report.to_frame()
    assert list(frame.columns) == ["dataset", "n", "spearman", "accuracy"]
    assert frame["dataset"].tolist() == ["ws", "simlex"] and frame["n"].tolist() == [353, 999]
    assert frame["spearman"][0] == 0.5033 and math.isnan(frame["spearman"][1])
    assert math.isnan(frame["accuracy"][0]) and frame["accuracy"][1] == 0.25


def test_to_frame_without_pandas_says_what_to_install(report, monkeypatch):
    real_import = builtins.__import__

    def no_pandas(name, *args, **kwargs):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("No module named 'pandas'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pandas)
    with pytest.raises(ImportError, match=r"needs pandas.*to_records\(\)"):
        report.to_frame()
    assert report.to_records()[0]["n"] == 353  # the pandas-free path still works
