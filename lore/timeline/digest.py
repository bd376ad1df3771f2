"""A timeline period's counts per kind and digest (top entities and tags, the records that
matter most), worked out over the index's columns in passes that run at C speed.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import compress, islice, repeat
from operator import neg, sub
from typing import Any

from lore.index import bitset
from lore.index.columns import SEARCH_KINDS, gather
from lore.index.persist import Index
from lore.store.core import Store

TOP_NAMES = 3  # entities and tags a digest names
TOP_RECORDS = 2  # records a digest names per highlight (decisions, failures, ...)
MAX_STRETCHES = 4096  # runs of records counted by bisection (see _stretches)
RECURRING = 2  # failures of one error type within a period that make it recurring
_DECISION, _FAILURE, _PATTERN, _SESSION = (
    SEARCH_KINDS.index(k) for k in ("decision", "failure", "pattern", "session")
)
_CHOSEN = (_DECISION, _FAILURE, _PATTERN, _SESSION)
_ONLY = {k: bytes(int(i == k) for i in range(256)) for k in _CHOSEN}  # translate: k -> 1


def summaries(store: Store, idx: Index, docs: list[int], cuts: list[int]) -> list[dict[str, Any]]:
    """Total, counts per kind and digest of each part (part ``p``: ``docs[cuts[p] :
    cuts[p + 1]]``; ``docs`` in time order, equal times by record), then of all of them
    together (only when there is not exactly one part: then the part is the whole). The
    whole's highlights come from the parts' own (the best of a union is among the best of
    each part), so no record is ranked twice."""
    kinds, ts, imp, grp, flags = bytes(idx.kinds), idx.ts, idx.imp, idx.grp, idx.flags
    parts = len(cuts) - 1
    whole = parts if parts != 1 else None
    codes = bytes(gather(kinds, docs))  # each record's kind, in ``docs`` order
    counts: list[list[int]] = []
    best: list[dict[int, list[int]]] = []
    types: list[tuple[Counter[int], dict[int, int]]] = []
    for p in range(parts):
        lo, hi = cuts[p], cuts[p + 1]
        mine, held = docs[lo:hi], codes[lo:hi]
        counts.append([held.count(k) for k in range(len(SEARCH_KINDS))])
        pick = {k: list(compress(mine, held.translate(_ONLY[k]))) for k in _CHOSEN}
        # failures per error type, and the latest of each (the last in time order)
        fails = pick[_FAILURE]
        errors = list(gather(grp, fails))
        types.append((Counter(errors), dict(zip(errors, fails))))
        handoffs = list(compress(pick[_SESSION], map(flags.__getitem__, pick[_SESSION])))
        best.append(
            {
                _DECISION: _weightiest_timed(imp, ts, pick[_DECISION]),
                _PATTERN: _weightiest_timed(imp, ts, pick[_PATTERN]),
                _SESSION: _newest_timed(ts, handoffs),
            }
        )
    if whole is not None:
        counts.append([sum(c[k] for c in counts) for k in range(len(SEARCH_KINDS))])
        union = {k: [d for b in best for d in b[k]] for k in (_DECISION, _PATTERN, _SESSION)}
        best.append(
            {
                _DECISION: _weightiest(imp, ts, union[_DECISION]),
                _PATTERN: _weightiest(imp, ts, union[_PATTERN]),
                _SESSION: _newest(ts, union[_SESSION]),
            }
        )
        all_types: Counter[int] = Counter()
        all_latest: dict[int, int] = {}
        for per_type, latest in types:  # parts are disjoint in time: no ties between them
            all_types.update(per_type)
            for g, d in latest.items():
                if g not in all_latest or ts[d] >= ts[all_latest[g]]:
                    all_latest[g] = d
        types.append((all_types, all_latest))
    names = _names(idx, docs, cuts, whole)
    chosen: list[list[tuple[int, str]]] = []  # per part: (record, why it is a highlight)
    for p in range(parts if whole is None else parts + 1):
        per_type, latest = types[p]
        recurring = heapq.nsmallest(
            TOP_RECORDS,
            [d for g, d in latest.items() if per_type[g] >= RECURRING],
            key=lambda d: (-per_type[grp[d]], -ts[d], d),
        )
        chosen.append(
            [(d, "decision") for d in best[p][_DECISION]]
            + [(d, "recurring failure") for d in recurring]
            + [(d, "new pattern") for d in best[p][_PATTERN]]
            + [(d, "handoff") for d in best[p][_SESSION]]
        )
    every = list(dict.fromkeys(d for part in chosen for d, _ in part))
    read = dict(zip(every, idx.fetch_many(store, every)))  # each log opened once
    out = []
    for p, part in enumerate(chosen):
        by_kind = {SEARCH_KINDS[k]: n for k, n in enumerate(counts[p]) if n}
        highlights = []
        for d, why in part:
            shown = line_of(read[d], why)
            if why == "recurring failure":
                shown["count"] = types[p][0][grp[d]]
            highlights.append(shown)
        digest = {table: names[table][p] for table in names} | {"highlights": highlights}
        out.append({"total": sum(by_kind.values()), "counts": by_kind, "digest": digest})
    return out


def _two(keys: Callable[[], Iterator[tuple[Any, ...]]]) -> list[tuple[Any, ...]]:
    """The TOP_RECORDS (two) largest of distinct keys, largest first: two passes of
    ``max``, at C speed (``keys`` makes the iterator afresh)."""
    first = max(keys(), default=None)
    if first is None:
        return []
    second = max(filter(first.__gt__, keys()), default=None)
    return [first] if second is None else [first, second]


def _weightiest(imp: Any, ts: Any, docs: list[int]) -> list[int]:
    """The TOP_RECORDS that weigh most (importance, then the newest, then the first)."""
    keys = lambda: zip(map(imp.__getitem__, docs), map(ts.__getitem__, docs), map(neg, docs))  # noqa: E731
    return [-key[2] for key in _two(keys)]


def _newest(ts: Any, docs: list[int]) -> list[int]:
    """The TOP_RECORDS newest (equal times: the first record first)."""
    return [-key[1] for key in _two(lambda: zip(map(ts.__getitem__, docs), map(neg, docs)))]


def _weightiest_timed(imp: Any, ts: Any, docs: list[int]) -> list[int]:
    """``_weightiest`` of ``docs`` in time order (equal times: by record): the records of
    the highest importance (then the next) kept in that order, their newest at the end."""
    imps = list(gather(imp, docs))
    out: list[int] = []
    below = float("inf")
    while len(out) < TOP_RECORDS:
        top = max(filter(below.__gt__, imps), default=None)
        if top is None:
            break
        out += _newest_timed(ts, list(compress(docs, map(top.__eq__, imps))))
        below = top
    return out[:TOP_RECORDS]


def _newest_timed(ts: Any, docs: list[int]) -> list[int]:
    """``_newest`` of ``docs`` in time order (equal times: by record): from the end, each
    time's records first to last."""
    out: list[int] = []
    end = len(docs)
    while end and len(out) < TOP_RECORDS:
        start, when = end - 1, ts[docs[end - 1]]
        while start and ts[docs[start - 1]] == when:
            start -= 1
        out += docs[start:end][: TOP_RECORDS - len(out)]
        end = start
    return out


def _names(
    idx: Index, docs: list[int], cuts: list[int], whole: int | None
) -> dict[str, list[list[dict[str, Any]]]]:
    """The top entities and tags of each part (and of the whole)."""
    parts = len(cuts) - 1
    part_of: Any
    stretches = None
    if parts < 255:  # each record's part as a byte (255: none)
        part_of = bytearray(b"\xff") * len(idx.kinds)
        for p in range(parts):
            for d in islice(docs, cuts[p], cuts[p + 1]):  # (a plain loop is the fastest)
                part_of[d] = p
        stretches = _stretches(part_of)
    else:
        part_of = {}
        for p in range(parts):
            part_of.update(zip(docs[cuts[p] : cuts[p + 1]], repeat(p)))
    runs = None
    if isinstance(part_of, bytearray) and docs:  # the first and last record of any part
        first, last = len(part_of) - len(part_of.lstrip(b"\xff")), len(part_of.rstrip(b"\xff")) - 1
        if last - first < 2 * len(docs):
            runs = [(first, last)]  # dense: what ``_runs`` gives, without sorting them
    if runs is None:
        runs = _runs(sorted(docs))
    out = {"entities": _top(idx, "entities", part_of, runs, stretches, parts, whole)}
    bits = getattr(idx, "tagbits", None)  # kept by a long-lived or held index
    if bits is not None and stretches is None and isinstance(part_of, bytearray):
        out["tags"] = _top_by_bits(bits, part_of, parts, whole)
    else:
        out["tags"] = _top(idx, "tags", part_of, runs, stretches, parts, whole)
    return out


def _stretches(part_of: bytearray) -> tuple[list[int], list[int], bytes] | None:
    """The runs of consecutive records in one part each (first, end, part), when they are
    few (a period's records mostly follow one another): a name's count in a part is then
    a difference of two bisections of its postings per run. None when there are many."""
    changes = len(part_of) - 1
    if changes > 0:
        a = int.from_bytes(part_of[1:], "little") ^ int.from_bytes(part_of[:-1], "little")
        changes -= a.to_bytes(changes, "little").count(0)  # bytes unlike the one before
    if changes > MAX_STRETCHES:
        return None
    import re

    found = list(re.finditer(rb"([\x00-\xfe])\1*", part_of))
    return [m.start() for m in found], [m.end() for m in found], bytes(m[0][0] for m in found)


def _top(
    idx: Index,
    table: str,
    part_of: Any,
    runs: list[tuple[int, int]],
    stretches: tuple[list[int], list[int], bytes] | None,
    parts: int,
    whole: int | None,
) -> list[list[dict[str, Any]]]:
    """Per part (and for ``whole``, all parts), the TOP_NAMES entities or tags held by the
    most of its records (at least two: a one-off is not a topic), most first, then by name."""
    found: list[list[tuple[int, str]]] = [[] for _ in range(parts + 1)]
    as_bytes = isinstance(part_of, bytearray)  # see _names
    code = part_of.__getitem__ if as_bytes else part_of.get
    for name, value in getattr(idx, table).items():
        if len(value) < (8 if isinstance(value, (bytes, memoryview)) else 2):
            continue  # held by one record at most (4 bytes per record)
        column = idx.posting(table, name)  # record numbers, ascending
        per_part: Counter[int | None] = Counter()
        if stretches is not None and 4 * len(stretches[2]) < len(column):
            firsts, ends, owners = stretches
            lows = map(bisect_left, repeat(column), firsts)
            for owner, held in zip(owners, map(sub, map(bisect_left, repeat(column), ends), lows)):
                if held:
                    per_part[owner] += held
        else:
            for lo, hi in runs:  # only the stretches of the postings the records are in
                piece = column[bisect_left(column, lo) : bisect_right(column, hi)]
                if as_bytes:
                    held_by = bytes(gather(part_of, piece))  # each record's part
                    for byte in set(held_by):
                        if byte != 255:
                            per_part[byte] += held_by.count(byte)
                else:
                    per_part.update(map(code, piece))
        per_part.pop(None, None)
        for part, count in per_part.items():
            if part is not None and count >= 2:
                found[part].append((-count, name))
        total = sum(per_part.values())
        if whole is not None and total >= 2:
            found[whole].append((-total, name))
    return _ranked(found)


def _top_by_bits(
    bits: dict[Any, int], part_of: bytearray, parts: int, whole: int | None
) -> list[list[dict[str, Any]]]:
    """``_top`` of the tags from each one's records as a bit set (``lore.index.tagbits``):
    its count in a part is the bit count of its records and the part's."""
    masks = [
        bitset.of_flags(part_of.translate(bytes(int(i == p) for i in range(256))))
        for p in range(parts)
    ]
    found: list[list[tuple[int, str]]] = [[] for _ in range(parts + 1)]
    for name, records in bits.items():
        total = 0
        for part, mask in enumerate(masks):
            count = (records & mask).bit_count()
            total += count
            if count >= 2:
                found[part].append((-count, name))
        if whole is not None and total >= 2:
            found[whole].append((-total, name))
    return _ranked(found)


def _ranked(found: list[list[tuple[int, str]]]) -> list[list[dict[str, Any]]]:
    """Each part's TOP_NAMES (most held first, then by name), from (-count, name) pairs."""
    return [
        [{"name": name, "count": -count} for count, name in heapq.nsmallest(TOP_NAMES, f)]
        for f in found
    ]


def _runs(docs: list[int], gap: int = 64) -> list[tuple[int, int]]:
    """``docs`` (ascending) as the few (first, last) stretches they cluster in: records are
    indexed in capture order, so a period's records sit in a few runs per kind."""
    if not docs or docs[-1] - docs[0] < 2 * len(docs):
        return [(docs[0], docs[-1])] if docs else []  # dense: one stretch costs little more
    out: list[tuple[int, int]] = []
    for d in docs:
        if out and d - out[-1][1] <= gap:
            out[-1] = (out[-1][0], d)
        else:
            out.append((d, d))
    return out


def line_of(record: Any, why: str | None = None) -> dict[str, Any]:
    """One record as a timeline names it: id, kind, time and title (a decision's outcome,
    a failure's error type); ``why`` says which highlight it is."""
    out: dict[str, Any] = {"id": record.id, "type": record.kind}
    if why:
        out["why"] = why
    out["timestamp"] = record.timestamp
    out["title"] = " ".join(record.title.split())
    if record.kind == "decision":
        out["outcome"] = getattr(record, "outcome", None)
    elif record.kind == "failure":
        out["error_type"] = getattr(record, "error_type", None)
    return out
