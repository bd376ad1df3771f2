"""The timeline: records counted per kind by year, month, ISO week and day, each period with
a short deterministic digest (top entities and tags, the records that matter most).

Derived from the search index (refreshed like it, so capture pays nothing for it); a digest
reads only the few records it names. Answers are kept beside the index for as long as it does
not change. Returns data; never prints.
"""

from __future__ import annotations

from bisect import bisect_left
from datetime import datetime, timezone
from itertools import compress, filterfalse
from typing import Any

from lore import timeexpr
from lore.index import orders
from lore.index.columns import SEARCH_KINDS, gather
from lore.index.persist import Index, open_index
from lore.recall.core import searchable_kinds
from lore.store.core import Store
from lore.timeexpr import Period
from lore.timeline import cache
from lore.timeline.digest import line_of, summaries

LISTS = {None: "years", "year": "months", "month": "weeks", "week": "days", "day": "records"}
_SHOWN = bytes([1] + [0] * 255)  # translate: a hidden flag 0 -> 1 (shown), others -> 0
DAY_LIMIT = 200  # records a day lists unless asked for more (0: all); its counts stay whole


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
    if idx.tagbits is None:
        from lore.process import one_shot

        if not one_shot():  # a long-lived process: each tag's records as bits, kept
            from lore.index import tagbits

            tagbits.build(idx)
    ts = idx.ts
    if span is None:  # (``docs`` are in time order)
        years = range(_year(ts[docs[0]]), _year(ts[docs[-1]]) + 1) if docs else range(0)
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
        out.update(summaries(store, idx, docs, [0, len(docs)])[0])
        out["limit"] = limit
        listed = docs[:limit] if limit else docs
        out["records"] = [line_of(r) for r in idx.fetch_many(store, listed)]
        return out
    # The parts follow one another in time: each is a stretch of ``docs``.
    when = ts.__getitem__
    cuts = [0, *(bisect_left(docs, p.start.timestamp(), key=when) for p in parts[1:]), len(docs)]
    found = summaries(store, idx, docs, cuts)
    whole = found[-1] if len(parts) != 1 else found[0]
    out.update(whole)
    out["periods"] = [
        {"period": p.label, "since": _iso(p.start), "until": _iso(p.end)} | summary
        for p, summary in zip(parts, found)
    ]
    return out


def _year(epoch: float) -> int:
    return datetime.fromtimestamp(epoch, timezone.utc).year


def _iso(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def _select(idx: Index, span: Period | None, project: str | None, wanted: set[int]) -> list[int]:
    """The live, shown records inside ``span`` (dated ones only) that pass the filters, in
    time order (equal times: by record number)."""
    low = span.start.timestamp() if span else 1e-9  # an undated record has time 0
    high = span.end.timestamp() if span else float("inf")
    found = orders.by_time(idx, low, high)
    hidden = bytes(idx.hidden)
    if hidden.count(0) != len(hidden):  # some are hidden (retracted, superseded)
        shown = hidden.translate(_SHOWN)
        found = list(compress(found, gather(shown, found)))
    if idx.dead:
        found = list(filterfalse(idx.dead.__contains__, found))
    if wanted and len(wanted) < len(SEARCH_KINDS):  # every kind wanted: nothing to drop
        table = bytes(int(k in wanted) for k in range(256))
        keep = bytes(idx.kinds).translate(table)
        found = list(compress(found, map(keep.__getitem__, found)))
    if project:
        code = idx.project_code(project)
        tagged = set(idx.posting("tags", project))
        proj = idx.proj
        found = [d for d in found if proj[d] == code or d in tagged]
    return found
