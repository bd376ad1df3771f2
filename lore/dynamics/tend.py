"""Acting on stale advice (``lore review --stale``): reconfirm a record (a revision that
records its files' hashes as they are now) or supersede it with a new record of its kind.
Retracting is ``lore retract``'s own use case.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lore.capture.anchors import FIELD
from lore.dynamics.stale import FileState, check
from lore.errors import InvalidInputError
from lore.model import Record
from lore.store.core import Store

RECONFIRM_REASON = "reconfirmed: the advice still holds after its files changed"
# Kinds a stale record can be superseded in: those whose status can say so.
SUPERSEDABLE = ("decision", "pattern", "anti-pattern")


def reconfirm(
    store: Store, ids: list[str], *, repo_dir: str | Path | None = None
) -> list[dict[str, Any]]:
    """Record, for each of ``ids``, its files' hashes as they are now (a moved file under
    its new path, a vanished one as absent) and the commit: one revision each, none for a
    record whose files did not change. Every id is checked before anything is written."""
    records: list[Record] = []
    for rid in dict.fromkeys(ids):
        record = store.get(rid)
        hashes = record.extra.get(FIELD)
        if not isinstance(hashes, list) or not hashes:
            raise InvalidInputError(
                f"{rid} was captured without file hashes: there is nothing to reconfirm",
                id=rid,
            )
        records.append(record)
    report = check(store, repo_dir=repo_dir, ids=[r.id for r in records])
    stale = {s.id: {f.path: f for f in s.files} for s in report.stale}
    out = []
    for record in records:
        files = stale.get(record.id, {})
        if not files:
            out.append({"id": record.id, "changed": False, "files": [], "record": record.to_dict()})
            continue
        new = [_now(item, files.get(item.get("path")), report.head) for item in record.extra[FIELD]]
        updated = store.revise(record.id, {FIELD: new}, reason=RECONFIRM_REASON)
        out.append(
            {
                "id": record.id,
                "changed": True,
                "files": [f.to_dict() for f in files.values()],
                "record": updated.to_dict(),
            }
        )
    return out


def _now(item: Any, state: FileState | None, head: str | None) -> Any:
    """A ``file_hashes`` entry as it is now (unchanged when its file did not change)."""
    if state is None or not isinstance(item, dict):
        return item
    absolute = Path(state.path).is_absolute()
    return {
        "path": state.moved_to or state.path,
        "blob": state.current,
        "commit": None if absolute else head,
    }


def supersede(store: Store, record_id: str, text: str, **options: Any) -> dict[str, Any]:
    """Replace a (stale) record with a new one of its kind holding ``text``: a decision
    through ``--supersedes``, a pattern or anti-pattern by marking the old one superseded.
    Returns ``{"old", "new", "record"}``."""
    from lore.capture.core import capture

    old = store.get(record_id)
    if old.kind not in SUPERSEDABLE:
        raise InvalidInputError(
            f"a {old.kind} cannot be superseded; reconfirm it or retract it", id=record_id
        )
    fields: dict[str, Any] = {"supersedes": record_id} if old.kind == "decision" else {}
    tags = [t for t in old.tags if t != old.project]
    made = capture(store, text, kind=old.kind, fields=fields, tags=tags, project=old.project,
                   **options).record  # fmt: skip
    if old.kind != "decision":
        store.revise(record_id, {"status": "superseded", "superseded_by": made.id})
    return {"old": record_id, "new": made.id, "record": made.to_dict()}
