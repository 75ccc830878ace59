"""Argument normalisation shared by the searches: exclusion_csr against a naive set construction."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from embgeo.validation import exclusion_csr

PROPERTY = settings(max_examples=60, deadline=None, derandomize=True)


def naive_csr(rows, n_database, offset=None):
    """One Python set per query: the rows ≥ 0, shifted into the shard (and kept inside it) with ``offset``."""
    sets = []
    for row in rows:
        cols = {c for c in row if c >= 0}
        if offset is not None:
            cols = {c - offset for c in cols if 0 <= c - offset < n_database}
        sets.append(sorted(cols))
    ptr = np.cumsum([0] + [len(s) for s in sets])
    return ptr.tolist(), [c for s in sets for c in s]


@st.composite
def exclusions(draw, n_database, max_col):
    q = draw(st.integers(1, 6))
    return draw(st.lists(st.lists(st.integers(-2, max_col), max_size=5), min_size=q, max_size=q))


@PROPERTY
@given(data=st.data(), n_database=st.integers(1, 12))
def test_exclusion_csr_equals_a_naive_set_construction_in_every_input_form(data, n_database):
    rows = data.draw(exclusions(n_database, n_database - 1))
    want = naive_csr(rows, n_database)
    q = len(rows)
    width = max(len(r) for r in rows)
    padded = np.array([r + [-1] * (width - len(r)) for r in rows], dtype=np.int64).reshape(q, width)
    forms = [rows, [np.array(r, dtype=np.int32) for r in rows], padded]
    if all(len(r) == 1 for r in rows):  # one row each: a flat list of ints or a (q,) array
        forms += [[r[0] for r in rows], padded[:, 0].copy()]
    for form in forms:
        ptr, idx = exclusion_csr(form, q, n_database)
        assert (ptr.tolist(), idx.tolist()) == want
        assert ptr.dtype == idx.dtype == np.int64


@PROPERTY
@given(data=st.data(), n_database=st.integers(1, 8), offset=st.integers(0, 6))
def test_exclusion_csr_with_an_offset_keeps_the_shards_rows_only(data, n_database, offset):
    rows = data.draw(exclusions(n_database, offset + n_database + 3))  # rows beyond the shard too
    ptr, idx = exclusion_csr(rows, len(rows), n_database, offset=offset)
    assert (ptr.tolist(), idx.tolist()) == naive_csr(rows, n_database, offset)


@PROPERTY
@given(data=st.data(), n_database=st.integers(1, 8))
def test_exclusion_csr_refuses_a_row_outside_the_database(data, n_database):
    rows = data.draw(exclusions(n_database, n_database - 1))
    bad = data.draw(st.integers(n_database, n_database + 5))
    rows[data.draw(st.integers(0, len(rows) - 1))].append(bad)
    with pytest.raises(ValueError, match=f"holds row {max(c for r in rows for c in r)} but the database has"):
        exclusion_csr(rows, len(rows), n_database)
