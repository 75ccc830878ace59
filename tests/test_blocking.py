"""embgeo.blocking: what the row blocks guarantee, whatever the formula that cuts them."""
from hypothesis import given
from hypothesis import strategies as st

from embgeo.blocking import block_rows, row_blocks


@given(n=st.integers(0, 5000), rows=st.integers(1, 700), least=st.integers(1, 300))
def test_row_blocks_cover_every_row_once_within_the_height_the_budget_allows(n, rows, least):
    blocks = row_blocks(n, rows, least)
    # every row once, in order, no empty block
    assert [r for start, stop in blocks for r in range(start, stop)] == list(range(n))
    lengths = [stop - start for start, stop in blocks]
    assert all(length > 0 for length in lengths)
    if not blocks:
        return
    assert max(lengths) - min(lengths) <= 1  # even
    assert min(lengths) >= min(least, n)  # a search keeping its top `least` finds them in every block
    if max(lengths) <= rows:  # within the budget's height, and no block more than needed
        assert (len(blocks) - 1) * rows < n
    else:  # taller only where the fewest blocks of at most `rows` would be shorter than `least` ...
        fewest = -(-n // rows)
        assert n // fewest < least
        assert n // (len(blocks) + 1) < least  # ... and then as many blocks as `least` allows


def test_row_blocks_of_a_short_range_is_one_block():
    assert row_blocks(5, 2, least=8) == [(0, 5)]
    assert row_blocks(0, 2) == []


@given(n_columns=st.integers(1, 10**6), itemsize=st.sampled_from([1, 2, 4, 8]), budget=st.integers(1, 2**30))
def test_block_rows_is_the_most_rows_the_memory_budget_holds(n_columns, itemsize, budget):
    rows = block_rows(n_columns, itemsize, budget)
    row_bytes = n_columns * itemsize
    assert rows >= 1  # one row always fits, by fiat
    assert rows == 1 or rows * row_bytes <= budget
    assert (rows + 1) * row_bytes > budget
