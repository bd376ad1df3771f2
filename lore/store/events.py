"""Event logs beside document folders (``Dir.events``): reading them grouped by record, in
the order every reader applies them (timestamp, then line), folding them into a
document's state, and appending one under the document's lock. Identical lines (a union
merge of two clones) count once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from lore import clock
from lore.errors import InvalidInputError
from lore.model import Dir, Record, class_for_id
from lore.storage import jsonl
from lore.storage.jsonl import ReadIssue
from lore.storage.lock import locked
from lore.store.coerce import read
from lore.store.fold import _order_key

# The store is passed in (typed Any): lore.store.core imports this module, never the reverse.
Store = Any

EventsByRecord = dict[str, list[dict[str, Any]]]


def events_path(location: Path, storage: Dir) -> Path | None:
    """The events log of a document folder at ``location``, if its kind keeps one."""
    return location.parent / storage.events if storage.events else None


def read_events(path: Path, issues: list[ReadIssue] | None = None) -> EventsByRecord:
    """Every record's events, oldest first; unreadable lines go to ``issues``."""
    rows, problems = jsonl.read(path)
    if issues is not None:
        issues.extend(problems)
    seen: set[bytes] = set()
    keyed: dict[str, list[tuple[str, int, dict[str, Any]]]] = {}
    for number, obj in rows:
        rid = obj.get("id")
        if not isinstance(rid, str) or not rid:
            if issues is not None:
                issues.append(ReadIssue(str(path), number, "event has no record id", "schema"))
            continue
        key = jsonl.dumps(obj)
        if key in seen:
            continue
        seen.add(key)
        keyed.setdefault(rid, []).append((_order_key(obj.get("timestamp")), number, obj))
    return {
        rid: [obj for _, _, obj in sorted(items, key=lambda item: (item[0], item[1]))]
        for rid, items in keyed.items()
    }


def with_events(cls: type[Record], record: Record, events: EventsByRecord) -> Record:
    """``record`` with its events folded in (the record itself when it has none)."""
    mine = events.get(record.id)
    state = record.to_dict()
    folded = cls.fold_events(state, mine or [])
    if folded is state:
        return record
    return read(cls, folded)


def folded(store: Store, cls: type[Record], record: Record) -> Record:
    """A document's record with its events folded in (for kinds that keep events)."""
    storage = cls.KIND.storage
    if not isinstance(storage, Dir) or not storage.events:
        return record
    return with_events(cls, record, _events_of(store, cls, storage))


def _events_of(store: Store, cls: type[Record], storage: Dir) -> EventsByRecord:
    """The kind's events log, read again only when it changed (cached on the store)."""
    from lore.storage.stamp import stamp as _stamp

    path = events_path(store.location(cls), storage)
    if path is None:
        return {}
    stamp = _stamp(path)
    cached = store._events_cache.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    found = read_events(path)
    store._events_cache[path] = (stamp, found)
    return found


def events_of(store: Store, record_id: str) -> list[dict[str, Any]]:
    """The events of the document ``record_id``, oldest first (none for other kinds)."""
    cls = class_for_id(record_id)
    storage = cls.KIND.storage if cls is not None else None
    if cls is None or not isinstance(storage, Dir) or not storage.events:
        return []
    return _events_of(store, cls, storage).get(record_id, [])


def append_event(
    store: Store,
    record_id: str,
    make: Callable[[dict[str, Any]], dict[str, Any]],
    then: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
) -> Record:
    """Append one event for the document ``record_id`` to its kind's events log.

    Under the document's lock, ``make(state)`` sees the record's current state (its
    events folded in) and returns the event's own fields (or raises to refuse);
    ``then(state)``, given the state with the new event, may return changes for the
    document itself, written under the same lock. Returns the new state.
    """
    from lore.store.documents import document_record, update_document

    cls = class_for_id(record_id)
    storage = cls.KIND.storage if cls is not None else None
    if cls is None or not isinstance(storage, Dir) or not storage.events:
        raise InvalidInputError(f"{record_id} keeps no events", id=record_id)
    target = store._document(cls, record_id)
    log = events_path(store.location(cls), storage)
    assert log is not None
    with store.writing(), locked(target):
        record, tree = store._reread(cls, record_id, target)
        event = {"id": record_id, "timestamp": clock.now(), **make(record.to_dict())}
        event.setdefault("event", clock.new_id("ev"))
        jsonl.append(log, [event], within=store.path)
        record = with_events(cls, record, {record_id: [event]})
        changes = then(record.to_dict()) if then is not None else None
        if changes:
            update_document(target, changes, tree, within=store.path)
            record = folded(store, cls, document_record(cls, record_id, target, tree))
    store._cache.pop(cls.KIND.name, None)
    return record
