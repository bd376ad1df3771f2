"""``lore.index.bitset``: sets of record numbers as ints, and counting how many of several
sets hold each record, against plain sets and a Counter."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from lore.index import bitset

SIZE = 300
SETS = st.lists(st.sets(st.integers(0, SIZE - 1)), max_size=9)


@given(SETS)
def test_an_int_holds_exactly_the_records_it_was_made_of(sets: list[set[int]]) -> None:
    joined = bitset.of([sorted(s) for s in sets], SIZE)
    assert bitset.members(joined) == sorted(set().union(*sets))
    for one in sets:
        assert bitset.members(bitset.of([one], SIZE)) == sorted(one)


@given(SETS)
def test_each_count_picks_the_records_that_many_sets_hold(sets: list[set[int]]) -> None:
    counts = Counter(d for s in sets for d in s)
    masks = [bitset.of([s], SIZE) for s in sets]
    planes = bitset.counted(masks)
    anywhere = bitset.of(sets, SIZE)
    for count in range(0, len(sets) + 9):  # past the largest count too: nothing there
        want = sorted(d for d, c in counts.items() if c == count)
        assert bitset.members(bitset.exactly(planes, count, anywhere)) == want, count


def test_no_records() -> None:
    assert bitset.of([], 0) == 0
    assert bitset.members(0) == []
    assert bitset.counted([]) == []


@given(st.lists(st.sampled_from([0, 1]), max_size=SIZE))
def test_a_column_of_flags_is_the_records_flagged(flags: list[int]) -> None:
    want = [d for d, f in enumerate(flags) if f]
    for column in (bytes(flags), bytearray(flags), memoryview(bytes(flags))):
        assert bitset.members(bitset.of_flags(column)) == want


def test_members_sparse_in_between_and_dense() -> None:
    """``members`` reads a sparse or dense set byte by byte and one in between as
    digits: each way gives the records, in order."""
    import random

    rng = random.Random(7)
    for size in (9, 100_000):
        for count in (1, 3, size // 70, size // 9, size // 3, size * 3 // 4, size):
            docs = sorted(rng.sample(range(size), count))
            assert bitset.members(bitset.of([docs], size)) == docs, (size, count)
    assert bitset.members(1 << 99_999) == [99_999]
    assert bitset.members((1 << 64) - 1) == list(range(64))
