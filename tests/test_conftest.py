"""The suite's own conventions: a test that reads GloVe or ../shared/data is marked slow by its fixture."""
from types import SimpleNamespace

import numpy as np
import pytest

from conftest import SLOW_FIXTURES, pytest_collection_modifyitems


class _Item(SimpleNamespace):
    def add_marker(self, marker):
        self.markers.append(marker.name)


def test_the_hook_marks_items_by_their_fixtures_only():
    items = [_Item(fixturenames=["rng", name], markers=[]) for name in sorted(SLOW_FIXTURES)]
    items += [_Item(fixturenames=["rng", "tmp_path"], markers=[]), _Item(markers=[])]  # the last: a doctest
    pytest_collection_modifyitems(None, items)
    assert [item.markers for item in items] == [["slow"]] * len(SLOW_FIXTURES) + [[], []]


def test_a_test_without_real_data_is_not_slow(request, small_embeddings):
    assert request.node.get_closest_marker("slow") is None


@pytest.fixture
def shared_subfolder(shared_data):
    return shared_data / "vectors"


def test_a_fixture_built_on_shared_data_marks_its_test_slow(request, shared_subfolder):
    assert request.node.get_closest_marker("slow") is not None


def test_glove_marks_its_test_slow(request, glove_package):
    assert request.node.get_closest_marker("slow") is not None


def test_the_default_run_keeps_slow_tests(pytestconfig):
    """The README's ``python -m pytest -q`` runs them: the marker selects, it does not deselect by default."""
    assert "slow" not in " ".join(pytestconfig.getini("addopts"))


def test_a_deprecation_warned_from_embgeo_code_is_an_error():
    """pyproject's ``error::DeprecationWarning:embgeo``: embgeo's code (docstring examples included, which
    run in their module's namespace) never calls a deprecated API; a test calling one on purpose says so
    with ``pytest.warns``/``pytest.deprecated_call``."""
    code = "import warnings\nwarnings.warn('old', DeprecationWarning)"
    with pytest.raises(DeprecationWarning, match="old"):
        exec(code, {"__name__": "embgeo.somewhere"})
    with pytest.deprecated_call(match="old"):
        exec(code, {"__name__": "embgeo.somewhere"})


def test_traced_memory_sees_numpy_buffers_with_the_collector_paused():
    import gc

    from conftest import traced_memory

    with traced_memory() as trace:
        assert not gc.isenabled()
        a = np.ones(100_000)
        assert trace.peak >= a.nbytes > trace.peak - 64 * 1024
        del a
        trace.reset_peak()
        assert trace.peak < 64 * 1024
    assert gc.isenabled()


def test_the_mypy_and_docs_build_tests_are_marked_slow():
    """``-m "not slow"`` leaves out the runs of mypy and of the site build (half a minute each, cold)."""
    import test_docs
    import test_typing

    assert test_typing.pytestmark.name == "slow"
    assert "slow" in [m.name for m in test_docs.test_mkdocs_build_strict.pytestmark]
