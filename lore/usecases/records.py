"""Use cases on records of any kind: list them, read a log record's stored history, retract
one (a revision, through the secrets gate). The CLI, the MCP server and ``lore.api`` call them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lore.model import Log, Record, class_for_id, kind_class
from lore.storage import jsonl
from lore.store.core import REVISE, Store


def list_records(
    store: Store,
    kind: str | None,
    *,
    hidden: bool = False,
    tags: Sequence[str] = (),
    project: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: int = 0,
) -> list[Record]:
    """Records of ``kind`` (None: every kind), newest first, filtered by tags (all must
    match), project and time (``since``/``until``: the expressions of ``lore.timeexpr``,
    as ``journal list`` takes them). A kind whose one file cannot be read at all is a
    ``DataError`` (exit 4), never an empty list."""
    from lore import clock, timeexpr
    from lore.model import kinds

    since_epoch = timeexpr.since(since)
    until_epoch = timeexpr.until(until)
    classes = [kind_class(kind)] if kind is not None else list(kinds().values())
    records = [r for cls in classes for r in store.readable(cls) if hidden or not r.hidden]
    if tags:
        wanted = set(tags)
        records = [r for r in records if wanted <= set(r.tags)]
    if project:
        records = [r for r in records if r.project == project or project in r.tags]
    if since_epoch is not None:
        records = [r for r in records if clock.epoch(r.timestamp) >= since_epoch]
    if until_epoch is not None:
        records = [r for r in records if clock.epoch(r.timestamp) < until_epoch]
    records = sorted(records, key=lambda r: str(r.timestamp or ""), reverse=True)
    return records[:limit] if limit else records


def record_history(store: Store, record_id: str) -> list[dict[str, Any]]:
    """The stored lines behind a log record: its creation line, then its revisions."""
    cls = class_for_id(record_id)
    if cls is None or not isinstance(cls.KIND.storage, Log):
        return []
    from lore.store.fold import _order_key

    try:
        raw = store.location(cls).read_bytes()
    except OSError:  # no log yet, or one lore cannot read (validate reports it)
        return []
    # Only lines that spell the id can be its lines: parse those alone (a 20,000-line
    # log costs a byte search instead of 20,000 JSON parses). Ids are plain ASCII,
    # which JSON writers (lore's included) do not escape.
    needle = record_id.encode("utf-8")
    mine = b"\n".join(line for line in raw.split(b"\n") if needle in line)
    rows, _ = jsonl.parse(mine + b"\n", str(store.location(cls)))
    lines: list[dict[str, Any]] = []
    seen: set[bytes] = set()
    for _, obj in rows:
        key = jsonl.dumps(obj)
        if obj.get("id") == record_id and key not in seen:  # union-merge twins count once
            seen.add(key)
            lines.append(obj)
    creation = [obj for obj in lines if obj.get("_op") != REVISE][:1]
    ordered = sorted(
        enumerate(obj for obj in lines if obj.get("_op") == REVISE),
        key=lambda item: (_order_key(item[1].get("timestamp")), item[0]),
    )
    return creation + [obj for _, obj in ordered]


def article(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def retract(
    store: Store, record_id: str, *, reason: str | None = None, allow_secret: bool = False
) -> tuple[Record, str]:
    """Withdraw a record; returns it and the retraction time (``retracted_at``).

    Every kind stored in a log can be retracted (an appended revision line), and the
    documents whose ``status`` allows ``retracted`` (patterns, anti-patterns: edited
    in place, atomically). The change sets ``retracted_at`` and, given a reason,
    ``retraction_reason``; kinds with such a status also get ``status: retracted``.
    """
    from lore import clock
    from lore.errors import InvalidInputError
    from lore.model import retracts_by_status
    from lore.secrets.gate import gate

    if reason:
        gate({"reason": reason}, allow_secret=allow_secret)
    record = store.get(record_id)
    cls = type(record)
    by_status = retracts_by_status(cls)
    if not by_status and not isinstance(cls.KIND.storage, Log):
        raise InvalidInputError(f"{article(record.kind)} cannot be retracted", id=record_id)
    when = clock.now()

    def change(state: dict[str, Any]) -> dict[str, Any]:
        if cls.from_dict(state).retracted:
            raise InvalidInputError(f"{record_id} is already retracted", id=record_id)
        changes: dict[str, Any] = {"status": "retracted"} if by_status else {}
        changes["retracted_at"] = when
        if reason:
            changes["retraction_reason"] = reason
        return changes

    # The reason is in the change itself (retraction_reason), not repeated on the line.
    updated = store.update(record_id, change)
    return updated, when
