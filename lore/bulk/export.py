"""Bulk export: every record of every kind, with its history where lore keeps one, as JSONL
that ``lore import`` reads back into the same files.

A logged record is its creation line followed by its revision lines (``"_op":
"revise"``, as stored); a pattern is its document followed by its events (``"_op":
"event"``); a goal, session, anti-pattern or project is its document (entry) as stored.
Every line carries ``"kind"``. Importing an export into an empty root and exporting that
root again gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from lore.errors import UsageError
from lore.model import Dir, Log, Record, kind_class
from lore.storage import jsonl
from lore.store.core import Store
from lore.store.documents import load_dir, sort_time
from lore.store.events import events_path, read_events
from lore.store.fold import REVISE, _order_key

# Every kind, in export order: what capture makes, then the rest.
EXPORT_KINDS: tuple[str, ...] = (
    "decision",
    "pattern",
    "anti-pattern",
    "failure",
    "observation",
    "evidence",
    "concept",
    "edge",
    "goal",
    "session",
    "project",
)
EVENT = "event"  # the ``_op`` of an exported event line (a pattern's validation or flag)


def export_records(
    store: Store, kinds: Iterable[str] | None = None, include_hidden: bool = True
) -> Iterator[dict[str, Any]]:
    """Every line of an export of ``kinds`` (default: all), in export order.

    Kinds come in ``EXPORT_KINDS`` order, each kind's records oldest first (then in
    file order). ``include_hidden=False`` leaves out records that are hidden in their
    current state (retracted, superseded, ...), with their history.
    """
    for kind in export_kinds(kinds):
        cls = kind_class(kind)
        storage = cls.KIND.storage
        current = {r.id: r for r in store.readable(cls)}  # exit 4 if the file is unreadable
        if isinstance(storage, Log):
            yield from _log_lines(store, cls, current, include_hidden)
        elif isinstance(storage, Dir):
            yield from _document_lines(store, cls, storage, current, include_hidden)
        else:
            for record in current.values():
                if include_hidden or not record.hidden:
                    yield _line(kind, record.to_dict())


def _line(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    data = dict(data)
    data.pop("kind", None)  # an extra key called "kind" cannot survive import
    return {"kind": kind, **data}


def _log_lines(
    store: Store, cls: type[Record], current: dict[str, Record], include_hidden: bool
) -> Iterator[dict[str, Any]]:
    kind = cls.KIND.name
    rows, _ = jsonl.read(store.location(cls))
    creation: dict[str, dict[str, Any]] = {}
    revisions: dict[str, list[tuple[str, int, dict[str, Any]]]] = {}
    seen: set[bytes] = set()
    for number, obj in rows:
        rid = obj.get("id")
        if not isinstance(rid, str) or not rid:
            continue
        if obj.get("_op") == REVISE:
            key = jsonl.dumps(obj)
            if key not in seen and isinstance(obj.get("set"), dict):
                seen.add(key)
                revisions.setdefault(rid, []).append(
                    (_order_key(obj.get("timestamp")), number, obj)
                )
        elif rid not in creation:
            creation[rid] = obj
    records = [cls.from_dict(obj) for obj in creation.values()]
    for record in sorted(records, key=lambda r: str(r.timestamp or "")):
        state = current.get(record.id)
        if not include_hidden and (state is None or state.hidden):
            continue
        yield _line(kind, record.to_dict())
        for _, _, obj in sorted(revisions.get(record.id, ()), key=lambda r: (r[0], r[1])):
            yield {"kind": kind, **{k: v for k, v in obj.items() if k != "kind"}}


def _document_lines(
    store: Store,
    cls: type[Record],
    storage: Dir,
    current: dict[str, Record],
    include_hidden: bool,
) -> Iterator[dict[str, Any]]:
    kind = cls.KIND.name
    location = store.location(cls)
    # The documents as written (a pattern's events are exported as events, not folded in).
    documents = load_dir(cls, location, storage, [])
    path = events_path(location, storage)
    events = read_events(path) if path is not None else {}
    for record in sorted(documents.values(), key=sort_time):
        state = current.get(record.id)
        if not include_hidden and (state is None or state.hidden):
            continue
        yield _line(kind, record.to_dict())
        for event in events.get(record.id, ()):
            yield {"kind": kind, "_op": EVENT, **{k: v for k, v in event.items() if k != "kind"}}


def export_kinds(kinds: Iterable[str] | None = None) -> list[str]:
    """The kinds named in ``kinds`` (singular or plural), in export order."""
    if kinds is None:
        return list(EXPORT_KINDS)
    wanted = set()
    for name in kinds:
        canonical = kind_class(name).KIND.name
        if canonical not in EXPORT_KINDS:  # (every kind is exported: a future one must be too)
            raise UsageError(f"cannot export {name}: export writes {', '.join(EXPORT_KINDS)}")
        wanted.add(canonical)
    return [k for k in EXPORT_KINDS if k in wanted]


def dumps_line(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS) + b"\n"
