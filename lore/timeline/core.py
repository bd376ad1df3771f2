"""The timeline: records counted per kind by year, month, ISO week and day, each period with
a short deterministic digest (top entities and tags, the records that matter most).

Derived from the search index (refreshed like it, so capture pays nothing for it); a digest
reads only the few records it names. Answers are kept beside the index for as long as it does
not change. Returns data; never prints.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections import Counter
from datetime import datetime, timezone
from itertools import compress
from typing import Any

from lore import timeexpr
from lore.index.columns import SEARCH_KINDS
from lore.index.persist import Index, open_index
from lore.recall.core import searchable_kinds
from lore.store.core import Store
from lore.timeexpr import Period
from lore.timeline import cache

_NOT = bytes([1] + [0] * 255)  # translate table: 0 -> 1, anything else -> 0
LISTS = {None: "years", "year": "months", "month": "weeks", "week": "days", "day": "records"}
TOP_NAMES = 3  # entities and tags a digest names
TOP_RECORDS = 2  # records a digest names per highlight (decisions, failures, ...)
DAY_LIMIT = 200  # records a day lists unless asked for more (0: all); its counts stay whole
RECURRING = 2  # failures of one error type within a period that make it recurring
_DECISION, _FAILURE, _PATTERN, _SESSION = (
    SEARCH_KINDS.index(k) for k in ("decision", "failure", "pattern", "session")
)


def timeline(
    store: Store,
    period: str | None = None,
    *,
    project: str | None = None,
    kinds: tuple[str, ...] | list[str] = (),
    limit: int = DAY_LIMIT,
) -> dict[str, Any]:
    """Counts per kind and a digest for ``period`` (None: all time) and each period in it:
    all time lists its years, a year its months, a month its ISO weeks (cut to the month),
    a week its days, a day its records (the first ``limit`` of them, 0: all; ``total``
    still counts every one). Only shown records (not retracted or superseded), of
    ``project`` (its own or tagged) and of ``kinds`` when given."""
    from lore.errors import UsageError

    if limit < 0:
        raise UsageError(f"--limit must be 0 (all) or more, not {limit}")
    wanted = searchable_kinds(list(kinds), refused="timeline does not count")
    span = timeexpr.period(period) if period else None
    idx = open_index(store)
    key = cache.key(store, idx, span.label if span else None, project, wanted)
    if span is not None and span.level == "day":
        key.append(limit)
    cached = cache.cached(store, key)
    if cached is not None:
        return cached
    doc = _build(store, idx, span, project, wanted, limit)
    cache.keep(store, key, doc)
    return doc


def _build(
    store: Store,
    idx: Index,
    span: Period | None,
    project: str | None,
    wanted: list[str],
    limit: int = DAY_LIMIT,
) -> dict[str, Any]:
    docs = _select(idx, span, project, {SEARCH_KINDS.index(k) for k in wanted})
    ts = idx.ts
    times = list(map(ts.__getitem__, docs))
    if span is None:
        first, last = (min(times), max(times)) if docs else (0.0, 0.0)
        years = range(_year(first), _year(last) + 1) if docs else range(0)
        parts = [timeexpr.year_period(y) for y in years]
    else:
        parts = timeexpr.children(span)
    out: dict[str, Any] = {
        "period": span.label if span else None,
        "level": span.level if span else "all",
        "lists": LISTS[span.level if span else None],
        "since": _iso(span.start) if span else None,
        "until": _iso(span.end) if span else None,
        "project": project,
        "kinds": wanted,
    }
    if span is not None and span.level == "day":
        out.update(_summaries(store, idx, docs, [0] * len(docs), 1)[0])
        listed = sorted(docs, key=lambda d: (ts[d], d))
        out["limit"] = limit
        out["records"] = [_line(store, idx, d) for d in (listed[:limit] if limit else listed)]
        return out
    bounds = [p.start.timestamp() for p in parts]
    where = [bisect_right(bounds, t) - 1 for t in times]
    found = _summaries(store, idx, docs, where, len(parts))
    summaries, whole = found[: len(parts)], found[-1] if len(parts) != 1 else found[0]
    out.update(whole)
    out["periods"] = [
        {"period": p.label, "since": _iso(p.start), "until": _iso(p.end)} | summary
        for p, summary in zip(parts, summaries)
    ]
    return out


def _year(epoch: float) -> int:
    return datetime.fromtimestamp(epoch, timezone.utc).year


def _iso(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def _select(idx: Index, span: Period | None, project: str | None, wanted: set[int]) -> list[int]:
    """The live, shown records inside ``span`` (dated ones only) that pass the filters."""
    ts, kinds, hidden, dead = idx.ts, idx.kinds, idx.hidden, idx.dead
    low = span.start.timestamp() if span else 1e-9  # an undated record has time 0
    high = span.end.timestamp() if span else float("inf")
    shown = bytes(hidden).translate(_NOT)  # 1 for a shown record: C speed, then the times
    found = [d for d in compress(range(len(kinds)), shown) if low <= ts[d] < high]
    if dead:
        found = [d for d in found if d not in dead]
    if wanted and len(wanted) < len(SEARCH_KINDS):  # every kind wanted: nothing to drop
        found = [d for d in found if kinds[d] in wanted]
    if project:
        code = idx.project_code(project)
        tagged = set(idx.posting("tags", project))
        proj = idx.proj
        found = [d for d in found if proj[d] == code or d in tagged]
    return found


def _summaries(
    store: Store, idx: Index, docs: list[int], where: list[int], parts: int
) -> list[dict[str, Any]]:
    """Total, counts per kind and digest of each part (``where[i]``: the part of
    ``docs[i]``), then of all of them together (only when there is not exactly one part:
    then the part is the whole). The whole's highlights come from the parts' own (the
    best of a union is among the best of each part), so no record is ranked twice."""
    kinds, ts, grp, flags = idx.kinds, idx.ts, idx.grp, idx.flags
    whole = parts if parts != 1 else None
    # One pass: each part's records by kind (their counts, and the candidates the digest
    # picks from), and each record's part for the entity and tag counts.
    width = len(SEARCH_KINDS)
    groups: list[list[int]] = [[] for _ in range(parts * width)]
    part_of: Any
    if parts < 255:
        part_of = bytearray(b"\xff") * len(kinds)
        for d, p in zip(docs, where):
            groups[p * width + kinds[d]].append(d)
            part_of[d] = p
    else:
        part_of = dict(zip(docs, where))
        for d, p in zip(docs, where):
            groups[p * width + kinds[d]].append(d)
    counts: Counter[tuple[int, int]] = Counter()
    for i, found in enumerate(groups):
        if found:
            counts[divmod(i, width)] = len(found)
    chosen = (_DECISION, _FAILURE, _PATTERN, _SESSION)
    pick = [{k: groups[p * width + k] for k in chosen} for p in range(parts)]
    if whole is not None:
        for (_, k), n in list(counts.items()):
            counts[whole, k] += n
    runs = _runs(docs)
    names = {table: _top(idx, table, part_of, runs, parts, whole) for table in ("entities", "tags")}
    # Each part's candidates (their union is the whole's): best decisions and patterns,
    # failures per error type with the latest of each, the newest handoffs.
    best: list[dict[int, list[int]]] = []
    types: list[tuple[Counter[int], dict[int, int]]] = []
    for p in range(parts):
        candidates = pick[p]
        per_type = Counter(map(grp.__getitem__, candidates[_FAILURE]))
        latest: dict[int, int] = {}
        for d in candidates[_FAILURE]:
            g = grp[d]
            if g not in latest or ts[d] >= ts[latest[g]]:
                latest[g] = d
        types.append((per_type, latest))
        handoffs = [d for d in candidates[_SESSION] if flags[d]]
        best.append(
            {
                _DECISION: _best(idx, candidates[_DECISION]),
                _PATTERN: _best(idx, candidates[_PATTERN]),
                _SESSION: heapq.nsmallest(TOP_RECORDS, handoffs, key=lambda d: (-ts[d], d)),
            }
        )
    if whole is not None:
        union = {k: [d for b in best for d in b[k]] for k in (_DECISION, _PATTERN, _SESSION)}
        best.append(
            {
                _DECISION: _best(idx, union[_DECISION]),
                _PATTERN: _best(idx, union[_PATTERN]),
                _SESSION: heapq.nsmallest(TOP_RECORDS, union[_SESSION], key=lambda d: (-ts[d], d)),
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
    out = []
    for p in range(parts if whole is None else parts + 1):
        by_kind = {SEARCH_KINDS[k]: counts[p, k] for k in range(len(SEARCH_KINDS)) if counts[p, k]}
        highlights = [_line(store, idx, d, "decision") for d in best[p][_DECISION]]
        per_type, latest = types[p]
        recurring = heapq.nsmallest(
            TOP_RECORDS,
            [d for g, d in latest.items() if per_type[g] >= RECURRING],
            key=lambda d: (-per_type[grp[d]], -ts[d], d),
        )
        for d in recurring:
            line = _line(store, idx, d, "recurring failure")
            line["count"] = per_type[grp[d]]
            highlights.append(line)
        highlights += [_line(store, idx, d, "new pattern") for d in best[p][_PATTERN]]
        highlights += [_line(store, idx, d, "handoff") for d in best[p][_SESSION]]
        digest = {table: names[table][p] for table in names} | {"highlights": highlights}
        out.append({"total": sum(by_kind.values()), "counts": by_kind, "digest": digest})
    return out


def _best(idx: Index, docs: list[int]) -> list[int]:
    """The TOP_RECORDS that weigh most (importance, then the newest)."""
    imp, ts = idx.imp, idx.ts
    return heapq.nsmallest(TOP_RECORDS, docs, key=lambda d: (-imp[d], -ts[d], d))


def _top(
    idx: Index,
    table: str,
    part_of: Any,
    runs: list[tuple[int, int]],
    parts: int,
    whole: int | None,
) -> list[list[dict[str, Any]]]:
    """Per part (and for ``whole``, all parts), the TOP_NAMES entities or tags held by the
    most of its records (at least two: a one-off is not a topic), most first, then by name."""
    found: list[list[tuple[int, str]]] = [[] for _ in range(parts + 1)]
    as_bytes = isinstance(part_of, bytearray)  # see _summaries
    code = part_of.__getitem__ if as_bytes else part_of.get
    for name, value in getattr(idx, table).items():
        if len(value) < (8 if isinstance(value, (bytes, memoryview)) else 2):
            continue  # held by one record at most (4 bytes per record)
        column = idx.posting(table, name)  # record numbers, ascending
        per_part: Counter[int | None] = Counter()
        for lo, hi in runs:  # only the stretches of the postings the period's records are in
            stretch = map(code, column[bisect_left(column, lo) : bisect_right(column, hi)])
            if as_bytes:
                held = bytes(stretch)
                for byte in set(held):
                    if byte != 255:
                        per_part[byte] += held.count(byte)
            else:
                per_part.update(stretch)
        per_part.pop(None, None)
        for part, count in per_part.items():
            if part is not None and count >= 2:
                found[part].append((-count, name))
        total = sum(per_part.values())
        if whole is not None and total >= 2:
            found[whole].append((-total, name))
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


def _line(store: Store, idx: Index, doc: int, why: str | None = None) -> dict[str, Any]:
    """One record as a timeline names it: id, kind, time and title (a decision's outcome,
    a failure's error type); ``why`` says which highlight it is."""
    record = idx.fetch(store, doc)
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
