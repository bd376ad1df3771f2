"""The timeline digest's fast paths give what the plain rankings give: the weightiest and
newest records of a period in time order, and the records in time order from the index."""

from __future__ import annotations

import random
from array import array
from types import SimpleNamespace

from lore.index import orders
from lore.timeline import digest


def _timed(rng: random.Random, n: int) -> tuple[array, array, list[int]]:
    ts = array("d", [float(rng.randrange(6)) for _ in range(n)])  # many equal times
    imp = array("f", [rng.choice((0.5, 1.0, 2.0)) for _ in range(n)])  # many equal weights
    docs = sorted(rng.sample(range(n), rng.randrange(n + 1)), key=lambda d: (ts[d], d))
    return ts, imp, docs


def test_the_timed_rankings_match_the_plain_ones() -> None:
    rng = random.Random(19)
    for _ in range(400):
        ts, imp, docs = _timed(rng, rng.randrange(1, 12))
        expected = sorted(docs, key=lambda d: (-imp[d], -ts[d], d))[:2]
        assert digest._weightiest_timed(imp, ts, docs) == expected
        assert digest._weightiest(imp, ts, docs) == expected
        newest = sorted(docs, key=lambda d: (-ts[d], d))[:2]
        assert digest._newest_timed(ts, docs) == newest
        assert digest._newest(ts, docs) == newest


def test_records_by_time_include_those_added_since_the_file() -> None:
    rng = random.Random(7)
    for _ in range(100):
        n = rng.randrange(1, 30)
        ts = array("d", [float(rng.randrange(5)) for _ in range(n)])
        covered = rng.randrange(n + 1)
        order = sorted(range(covered), key=ts.__getitem__)
        idx = SimpleNamespace(
            _time_order=memoryview(array("I", order)).cast("B").cast("I"),
            _ordered=covered,
            ts=ts,
            kinds=bytearray(n),
        )
        low, high = sorted((float(rng.randrange(6)), float(rng.randrange(6))))
        expected = sorted((d for d in range(n) if low <= ts[d] < high), key=lambda d: (ts[d], d))
        assert orders.by_time(idx, low, high) == expected
        idx._time_order = None  # an index not written yet
        assert orders.by_time(idx, low, high) == expected


def test_stretches_are_the_runs_of_one_part() -> None:
    part_of = bytearray(b"\xff\x00\x00\x01\xff\xff\x01\x01\x00")
    assert digest._stretches(part_of) == ([1, 3, 6, 8], [3, 4, 8, 9], b"\x00\x01\x01\x00")
    assert digest._stretches(bytearray()) == ([], [], b"")
    many = bytearray(b"\x00\x01") * (digest.MAX_STRETCHES + 1)
    assert digest._stretches(many) is None  # counted record by record instead
