"""embgeo.blocking: how rows are cut into blocks."""
from hypothesis import given
from hypothesis import strategies as st

from embgeo.blocking import row_blocks


@given(n=st.integers(0, 5000), rows=st.integers(1, 700), least=st.integers(1, 300))
def test_row_blocks_cover_the_rows_evenly_and_respect_the_least_length(n, rows, least):
    blocks = row_blocks(n, rows, least)
    if n == 0:
        assert blocks == []
        return
    assert [b for b in blocks if b[1] <= b[0]] == []
    # consecutive, from 0 to n
    assert [s for s, _ in blocks] == [0] + [e for _, e in blocks[:-1]]
    assert blocks[-1][1] == n
    lengths = [e - s for s, e in blocks]
    assert max(lengths) - min(lengths) <= 1
    assert min(lengths) >= min(least, n)
    # as few blocks as the height allows, unless a block would be shorter than `least`
    assert len(blocks) == max(1, min(-(-n // rows), n // least))
    assert max(lengths) <= rows or len(blocks) == max(1, n // least)


def test_row_blocks_of_a_short_range_is_one_block():
    assert row_blocks(5, 2, least=8) == [(0, 5)]
    assert row_blocks(0, 2) == []
