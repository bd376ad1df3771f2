"""What every component use case shares: fetching a record of one kind, the write reply,
and passing a change through the one secrets gate before it is written."""

from __future__ import annotations

from typing import Any

from lore.errors import NotFoundError
from lore.model import Record
from lore.store.core import Store


def get_kind(store: Store, record_id: str, kind: str) -> Record:
    """The record ``record_id``, which must be a ``kind`` (else: not found, exit 3)."""
    record = store.find(record_id)
    if record is None or record.kind != kind:
        other = f" ({record_id} is {article(record.kind)})" if record is not None else ""
        raise NotFoundError(f"no {kind} with id {record_id!r}{other}", id=record_id)
    return record


def article(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def reply(record: Record, **more: Any) -> dict[str, Any]:
    """The write reply every capture-like command prints with ``--json``."""
    out: dict[str, Any] = {
        "ok": True,
        "id": record.id,
        "type": record.kind,
        "timestamp": record.timestamp,
        "record": record.to_dict(),
    }
    out.update(more)
    return out


def gate(changes: dict[str, Any], *, allow_secret: bool = False) -> None:
    """The secrets gate for what a revision writes (capture's ``gate``, exit 7);
    the store checks the changed fields against the schema itself."""
    if not allow_secret:
        from lore.capture.checks import gate as refuse

        refuse(changes)
