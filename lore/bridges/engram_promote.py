"""``lore engram promote ID...``: Engram memories copied into lore as observations, through
the capture path (secrets gate included), each linked back by ``engram_id``. Engram's
database is only read; a memory already promoted is not promoted twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from lore.bridges import engram
from lore.errors import InvalidInputError, NotFoundError, UsageError
from lore.store.core import Store

FIELD = "engram_id"


def promote(
    store: Store,
    ids: Sequence[str | int],
    *,
    db: str | None = None,
    allow_secret: bool = False,
) -> dict[str, Any]:
    """Promote the memories ``ids``; every id is checked before anything is written."""
    where = engram.path(db)
    numbers = [_number(i) for i in ids]
    if not numbers:
        raise UsageError("give the id of at least one Engram memory")
    doc: dict[str, Any] = {"ok": True, "db": str(where), "found": where.is_file(), "promoted": []}
    if not doc["found"]:
        return doc
    with engram.connect(where, write=False) as conn:
        rows = {
            m.id: m
            for m in engram.memories(
                conn, f"WHERE id IN ({', '.join('?' * len(numbers))})", tuple(numbers)
            )
        }
    for number in numbers:
        memory = rows.get(number)
        if memory is None:
            raise NotFoundError(f"no Engram memory with id {number} in {where}", id=number)
        if memory.source == engram.SOURCE:
            raise InvalidInputError(
                f"memory {number} is lore's own shadow of {engram.plain(memory.content)[:60]!r}; "
                "it is already in lore",
                id=number,
            )
        if not memory.content.strip():
            raise InvalidInputError(f"memory {number} has no content", id=number)
    done = promoted(store)
    for number in dict.fromkeys(numbers):
        memory = rows[number]
        if number in done:
            doc["promoted"].append({"engram_id": number, "id": done[number], "created": False})
            continue
        record_id = _capture(store, memory, allow_secret)
        done[number] = record_id
        doc["promoted"].append({"engram_id": number, "id": record_id, "created": True})
    return doc


def promoted(store: Store) -> dict[int, str]:
    """Engram memory id -> the observation it was promoted to."""
    found = store.matching("observation", lambda data: isinstance(data.get(FIELD), int))
    return {
        r.extra[FIELD]: r.id
        for r in sorted(found, key=lambda r: r.timestamp)
        if isinstance(r.extra.get(FIELD), int)
    }


def _capture(store: Store, memory: engram.Memory, allow_secret: bool) -> str:
    from lore.capture.core import capture

    created = datetime.fromtimestamp(memory.createdAt, timezone.utc) if memory.createdAt else None
    extra = {FIELD: memory.id, "engram_topic": memory.topic, "engram_project": memory.project}
    captured = capture(
        store,
        memory.content,
        kind="observation",
        tags=[t for t in ("engram", memory.topic) if t],
        source="engram",
        allow_secret=allow_secret,
        timestamp=created.isoformat() if created else None,
        extra={k: v for k, v in extra.items() if v not in (None, "")},
    )
    return captured.record.id


def _number(value: str | int) -> int:
    try:
        number = int(str(value).strip().removeprefix("engram:"))
    except ValueError:
        raise UsageError(f"{value!r} is not an Engram memory id (a number)") from None
    if number < 1:
        raise UsageError(f"{value!r} is not an Engram memory id (a number)")
    return number
