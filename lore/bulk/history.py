"""The history lines of an import: a logged record's revisions (``"_op": "revise"``) and a
pattern's events (``"_op": "event"``), as ``lore export`` writes them. Each is checked
(kind, id, shape, time, the secrets gate, the state it leaves), appended as given after the
records are written, and skipped when the log already holds it, so an import run again
(or after an interruption) finishes without writing anything twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from lore.errors import LoreError, SecretError
from lore.model import Dir, Log, Record, kind_class
from lore.storage import jsonl
from lore.store.core import Store
from lore.store.events import events_path
from lore.store.fold import REVISE

EVENT = "event"
OPS = (REVISE, EVENT)


def is_history(raw: bytes | str | dict[str, Any]) -> dict[str, Any] | None:
    """The parsed line when it is a history line (it has ``_op``), else None (cheaply)."""
    if isinstance(raw, dict):
        return raw if "_op" in raw else None
    text = raw if isinstance(raw, bytes) else raw.encode("utf-8")
    if b'"_op"' not in text:
        return None
    try:
        obj = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) and "_op" in obj else None


@dataclass
class Pending:
    """History lines checked and waiting to be written, per file, in file order."""

    lines: dict[Path, list[dict[str, Any]]] = field(default_factory=dict)
    count: int = 0
    skipped: int = 0  # already in the log


def changes_by_id(rows: Iterable[tuple[int, dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Each record's revision ``set``s in the file, for deciding a record's final state
    (whether it ends hidden) before its title is compared with stored ones."""
    out: dict[str, list[dict[str, Any]]] = {}
    for _, obj in rows:
        if obj.get("_op") == REVISE and isinstance(obj.get("set"), dict):
            out.setdefault(str(obj.get("id")), []).append(obj["set"])
    return out


def check(
    store: Store,
    rows: list[tuple[int, dict[str, Any]]],
    records: dict[str, Record],
    allow_secret: bool,
) -> tuple[Pending, list[dict[str, Any]]]:
    """Check every history line; what to write, and the invalid lines (``{"line", "error"}``).

    ``records``: the records this import writes, by id (a revision may follow its
    record in the same file).
    """
    pending = Pending()
    invalid: list[dict[str, Any]] = []
    present: dict[Path, set[bytes]] = {}
    states: dict[str, dict[str, Any]] = {}
    for number, obj in rows:
        try:
            path, line = _check_line(store, obj, records, states, allow_secret)
        except _Invalid as exc:
            invalid.append({"line": number, "error": str(exc)})
            continue
        if path not in present:
            present[path] = {jsonl.dumps(o) for _, o in jsonl.read(path)[0]}
        key = jsonl.dumps(line)
        if key in present[path]:
            pending.skipped += 1
            continue
        present[path].add(key)
        pending.lines.setdefault(path, []).append(line)
        pending.count += 1
    return pending, invalid


class _Invalid(Exception):
    pass


def _check_line(
    store: Store,
    obj: dict[str, Any],
    records: dict[str, Record],
    states: dict[str, dict[str, Any]],
    allow_secret: bool,
) -> tuple[Path, dict[str, Any]]:
    from lore.clock import parse_timestamp
    from lore.secrets.gate import gate

    op, kind, rid = obj.get("_op"), obj.get("kind"), obj.get("id")
    if op not in OPS:
        raise _Invalid(f"unknown _op {op!r} (a history line is 'revise' or 'event')")
    try:
        cls = kind_class(kind) if isinstance(kind, str) else None
    except LoreError:
        cls = None
    if cls is None:
        raise _Invalid(f"unknown kind {kind!r}")
    storage = cls.KIND.storage
    line = {k: v for k, v in obj.items() if k != "kind" and not (op == EVENT and k == "_op")}
    if not isinstance(rid, str) or not rid.startswith(f"{cls.KIND.prefix}-"):
        raise _Invalid(f"a {op} line needs the id of a {cls.KIND.name}")
    stamp = obj.get("timestamp")
    try:
        parse_timestamp(stamp)  # type: ignore[arg-type]
    except (ValueError, TypeError, AttributeError):
        raise _Invalid(f"timestamp is not an ISO-8601 time ({stamp!r})") from None
    if op == REVISE:
        if not isinstance(storage, Log):
            raise _Invalid(f"a {cls.KIND.name} keeps no revision lines")
        changes = obj.get("set")
        if not isinstance(changes, dict) or changes.get("id", rid) != rid:
            raise _Invalid("a revision needs a 'set' object that does not change the id")
        texts = {k: v for k, v in changes.items() if isinstance(v, (str, list))}
        if isinstance(obj.get("reason"), str):
            texts["reason"] = obj["reason"]
        path = store.location(cls)
    else:
        if not isinstance(storage, Dir) or not storage.events:
            raise _Invalid(f"a {cls.KIND.name} keeps no events")
        if obj.get("type") not in getattr(cls, "EVENT_TYPES", ()):
            raise _Invalid(f"unknown event type {obj.get('type')!r}")
        if not isinstance(obj.get("event"), str):
            raise _Invalid("an event line needs its 'event' id")
        texts = {k: v for k, v in line.items() if k == "reason" and isinstance(v, str)}
        changes = {}
        path = events_path(store.location(cls), storage)  # type: ignore[assignment]
    state = _state(store, rid, records, states)
    if state is None:
        raise _Invalid(f"{op} line for {rid}, which is neither stored nor in this file")
    if texts:
        try:
            gate(texts, allow_secret=allow_secret)
        except SecretError as exc:
            raise _Invalid(
                f"{exc.message}; pass --allow-secret if it is not a credential"
            ) from None
    if changes:
        after = {**state, **changes}
        bad = [p for p in cls.from_dict(after).problems() if p[0] in changes]
        if bad:
            raise _Invalid(f"{bad[0][0]} {bad[0][1]}")
        states[rid] = after
    return path, line


def _state(
    store: Store, rid: str, records: dict[str, Record], states: dict[str, dict[str, Any]]
) -> dict[str, Any] | None:
    if rid in states:
        return states[rid]
    record = records.get(rid) or store.find(rid)
    if record is None:
        return None
    states[rid] = record.to_dict()
    return states[rid]


def write(store: Store, pending: Pending) -> None:
    """Append the pending lines, one locked append per file; lines another writer stored
    meanwhile are not written again."""
    from lore.storage.lock import locked

    with store.writing():
        for path, lines in pending.lines.items():
            with locked(path):
                there = {jsonl.dumps(o) for _, o in jsonl.read(path)[0]}
                fresh = [line for line in lines if jsonl.dumps(line) not in there]
                jsonl.append(path, fresh, lock=False, within=store.path)
    store._cache.clear()  # the logs changed: the next read folds the new lines in
