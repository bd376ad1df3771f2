"""The timeline digest's fast paths give what the plain rankings give: the weightiest and
newest records of a period in time order, and the records in time order from the index."""

from __future__ import annotations

import random
from array import array
from types import SimpleNamespace

import pytest

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


@pytest.mark.parametrize(("stretches", "bits"), [(True, False), (False, False), (False, True)])
def test_top_names_are_those_of_counting_each_parts_records(
    monkeypatch: pytest.MonkeyPatch, stretches: bool, bits: bool
) -> None:
    """Each part's (and the whole's) top entities and tags equal a plain count over the
    part's records, whatever their spread: dense or sparse, runs or scattered; counted
    through the runs of one part (``stretches``), record by record, or with the tags'
    records as bit sets kept on the index (``bits``, ``lore.index.tagbits``)."""
    from collections import Counter

    from lore.index import bitset

    if not stretches:
        monkeypatch.setattr(digest, "MAX_STRETCHES", -1)

    rng = random.Random(23)
    names = [f"n{i}" for i in range(12)]
    for round_ in range(300):
        n = rng.randrange(1, 400)
        held = {name: sorted(rng.sample(range(n), rng.randrange(min(n, 60) + 1))) for name in names}
        shape = round_ % 3
        if shape == 0:  # a dense stretch
            lo = rng.randrange(n)
            docs = list(range(lo, min(n, lo + rng.randrange(1, 200))))
        elif shape == 1:  # scattered
            docs = sorted(rng.sample(range(n), rng.randrange(1, n + 1)))
        else:  # a few runs far apart
            docs = sorted({d for _ in range(3) for d in range(rng.randrange(n))[-20:]})
        if not docs:
            continue
        rng.shuffle(docs)  # time order is not record order
        parts = rng.randrange(1, 6)
        cuts = [0, *sorted(rng.randrange(len(docs) + 1) for _ in range(parts - 1)), len(docs)]
        stored = (lambda v: array("I", v).tobytes()) if round_ % 2 else (lambda v: array("I", v))
        packed = {k: stored(v) for k, v in held.items()}
        idx = SimpleNamespace(
            kinds=bytearray(n),
            entities=packed,
            tags=dict(packed),
            posting=lambda table, name, held=held: array("I", held[name]),
            tagbits={k: bitset.of([v], n) for k, v in held.items()} if bits else None,
        )
        whole = parts if parts != 1 else None
        found = digest._names(idx, docs, cuts, whole)

        def top(records: list[int], held: dict[str, list[int]] = held) -> list[dict[str, object]]:
            mine = set(records)
            counts = Counter({k: sum(d in mine for d in v) for k, v in held.items()})
            ranked = sorted((-c, k) for k, c in counts.items() if c >= 2)
            return [{"name": k, "count": -c} for c, k in ranked[: digest.TOP_NAMES]]

        for table in ("entities", "tags"):
            for p in range(parts):
                assert found[table][p] == top(docs[cuts[p] : cuts[p + 1]]), (round_, table, p)
            if whole is not None:
                assert found[table][whole] == top(docs), (round_, table)
