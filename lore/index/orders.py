"""Two orders of the records, sorted when the index file is written and read from it as they
are: by id (a few ids are found by binary search, not by a dictionary of 100,000 ids) and
by time (the newest records of a kind are found from the end, not by sorting them all).
Records added since the file was written (``idx._ordered`` and after) are searched apart.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any


def build(idx: Any) -> tuple[bytes, bytes]:
    """(records by id, records by time) of every record, as ``array('I')`` bytes."""
    n = len(idx.kinds)
    text = bytes(idx._ids.text)
    ids = text.split(b"\n") if n else []
    by_id = array("I", sorted(range(n), key=ids.__getitem__))
    ts = idx.ts
    by_time = array("I", sorted(range(n), key=ts.__getitem__))  # stable: ties by record
    return by_id.tobytes(), by_time.tobytes()


def find(idx: Any, wanted: set[str]) -> dict[str, int]:
    """The live record number of each id in ``wanted`` (the last live one of an id)."""
    order, covered = idx._id_order, idx._ordered
    text, at = idx._ids.text, idx._ids.at
    total = len(at)
    dead = idx.dead

    def key(doc: int) -> bytes:
        end = at[doc + 1] - 1 if doc + 1 < total else len(text)
        return bytes(text[at[doc] : end])

    found: dict[str, int] = {}
    later = {}
    if covered < total:  # records added since the file was written: few
        later = {idx.id_of(d): d for d in range(covered, total) if d not in dead}
    for rid in wanted:
        needle = rid.encode("utf-8")
        lo, hi = 0, len(order)
        while lo < hi:
            mid = (lo + hi) // 2
            if key(order[mid]) < needle:
                lo = mid + 1
            else:
                hi = mid
        best = -1
        while lo < len(order) and key(order[lo]) == needle:
            doc = order[lo]
            if doc not in dead and doc > best:
                best = doc
            lo += 1
        if rid in later:
            best = max(best, later[rid])
        if best >= 0:
            found[rid] = best
    return found


def newest(idx: Any, kind_code: int) -> Iterator[int]:
    """Live records of one kind, newest first (equal times: the later record first)."""
    order, covered = idx._time_order, idx._ordered
    kinds, ts, dead = idx.kinds, idx.ts, idx.dead
    later = sorted(
        (d for d in range(covered, len(kinds)) if kinds[d] == kind_code and d not in dead),
        key=lambda d: (ts[d], d),
        reverse=True,
    )
    k = 0
    for i in range(len(order) - 1, -1, -1):
        doc = order[i]
        if kinds[doc] != kind_code or doc in dead:
            continue
        while k < len(later) and (ts[later[k]], later[k]) > (ts[doc], doc):
            yield later[k]
            k += 1
        yield doc
    yield from later[k:]


def by_time(idx: Any, low: float, high: float) -> list[int]:
    """Every record (dead and hidden ones too) with ``low <= time < high``, in time order
    (equal times: by record number): a slice of the stored order found by bisection,
    and the few records added since the file was written put in their places."""
    from bisect import bisect_left, insort_right

    order, covered = idx._time_order, idx._ordered
    ts, n = idx.ts, len(idx.kinds)
    when = ts.__getitem__
    if order is None:  # an index not written yet (or renumbered): sort them
        order, covered = sorted(range(n), key=when), n
    found = order[bisect_left(order, low, key=when) : bisect_left(order, high, key=when)]
    found = found.tolist() if isinstance(found, memoryview) else list(found)
    for doc in range(covered, n):  # ascending: one inserted after another of its time
        if low <= ts[doc] < high:
            insort_right(found, doc, key=when)
    return found
