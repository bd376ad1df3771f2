"""The use cases of memory that tends itself (``lore stale``, ``lore review --stale``,
``lore archive``/``unarchive``, ``lore pin``/``unpin``, ``lore consolidate``), each
returning the command's ``--json`` document (LORE_CONTRACT.md §8) for every face."""

from __future__ import annotations

from typing import Any

from lore.store.core import Store


def stale(store: Store, *, repo: str | None = None) -> dict[str, Any]:
    """``lore stale`` (and ``lore review --stale --json``): records whose files changed."""
    from lore.dynamics.stale import check

    return check(store, repo_dir=repo).to_dict()


def reconfirm(store: Store, ids: list[str], *, repo: str | None = None) -> dict[str, Any]:
    """``lore review --stale --reconfirm ID...``: record the files' hashes as they are now."""
    from lore.dynamics.tend import reconfirm as run

    done = run(store, ids, repo_dir=repo)
    return {"ok": True, "reconfirmed": done}


def supersede(store: Store, record_id: str, text: str, **options: Any) -> dict[str, Any]:
    """``lore review --stale``'s supersede: a new record of the kind replaces the old one."""
    from lore.dynamics.tend import supersede as run

    return {"ok": True, **run(store, record_id, text, **options)}


def _brief(record: Any, score: float | None = None) -> dict[str, Any]:
    out = {
        "id": record.id,
        "type": record.kind,
        "title": record.title,
        "timestamp": record.timestamp,
        "status": getattr(record, "status", record.extra.get("status")),
    }
    if score is not None:
        out["activation"] = round(score, 4)
    return out


def archive(
    store: Store,
    ids: list[str] | tuple[str, ...] = (),
    *,
    older_than: str | None = None,
    kinds: list[str] | tuple[str, ...] = (),
    below: float | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """``lore archive``: the records named (``ids``) or selected, archived unless ``dry_run``."""
    from lore.dynamics import archive as a
    from lore.errors import UsageError

    if ids and (older_than or kinds or below is not None):
        raise UsageError("give IDS, or select with --older-than, --kind and --below, not both")
    if ids:
        chosen = [(store.get(rid), None) for rid in dict.fromkeys(ids)]
    else:
        chosen = a.select(store, older_than=older_than, kinds=kinds, below=below)  # type: ignore[assignment]
    records = [r for r, _ in chosen]
    scores = dict((r.id, s) for r, s in chosen)
    if not dry_run:
        records = a.archive(store, records)
    return {
        "ok": True,
        "dry_run": dry_run,
        "count": len(records),
        "archived": [_brief(r, scores.get(r.id)) for r in records],
    }


def unarchive(store: Store, ids: list[str]) -> dict[str, Any]:
    """``lore unarchive ID...``."""
    from lore.dynamics.archive import unarchive as run

    return {"ok": True, "unarchived": [_brief(r) for r in run(store, ids)]}


def pin(store: Store, ids: list[str], *, pinned: bool = True) -> dict[str, Any]:
    """``lore pin ID...`` / ``lore unpin ID...``."""
    from lore.dynamics.archive import pin as run

    records = run(store, ids, pinned=pinned)
    return {"ok": True, "pinned": pinned, "records": [_brief(r) for r in records]}
