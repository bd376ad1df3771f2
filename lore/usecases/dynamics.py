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


def consolidate(
    store: Store,
    *,
    kinds: list[str] | tuple[str, ...] = (),
    since: str | None = None,
    archive_after: str | None = None,
) -> dict[str, Any]:
    """``lore consolidate``: every proposal (never applied here)."""
    from lore.dynamics import proposals as p

    found = p.gather(
        store, kinds=kinds, since=since, archive_after=archive_after or p.ARCHIVE_AFTER
    )
    if not kinds and since is None and archive_after is None:
        from lore.dynamics.tally import remember, state_key
        from lore.index.persist import open_index

        remember(store, len(found), state_key(open_index(store)))
    counts = {kind: sum(1 for x in found if x.kind == kind) for kind in p.KINDS}
    return {"total": len(found), "counts": counts, "proposals": [x.to_dict() for x in found]}


def apply_proposals(
    store: Store,
    wanted: list[str] | tuple[str, ...] = (),
    *,
    apply_all: bool = False,
    kinds: list[str] | tuple[str, ...] = (),
    since: str | None = None,
    archive_after: str | None = None,
    dry_run: bool = False,
) -> dict[str, Any]:
    """``lore consolidate --apply ID[:CHOICE]...`` or ``--apply-all --kind K``: the proposals
    worked out afresh, the ones asked for applied in turn; every id is checked first.
    ``dry_run``: what each would change, nothing written."""
    from lore.dynamics import proposals as p
    from lore.dynamics.apply import apply, preview
    from lore.errors import NotFoundError, UsageError

    if apply_all and wanted:
        raise UsageError("--apply ID... and --apply-all exclude each other")
    if apply_all and not kinds:
        raise UsageError("--apply-all needs --kind K (a proposal kind or a record kind)")
    found = p.gather(
        store, kinds=kinds, since=since, archive_after=archive_after or p.ARCHIVE_AFTER
    )
    by_id = {x.id: x for x in found}
    todo: list[tuple[p.Proposal, str | None]] = []
    if apply_all:
        todo = [(x, None) for x in found]
    for item in dict.fromkeys(wanted):
        pid, sep, picked = item.partition(":")
        if pid not in by_id:
            raise NotFoundError(
                f"no proposal {pid!r} (now); lore consolidate lists the current ones", id=pid
            )
        todo.append((by_id[pid], picked if sep else None))
    for proposal, choice in todo:  # every choice checked before anything is written
        if choice is not None and (
            proposal.action != "settle" or choice not in {str(c) for c in proposal.choices}
        ):
            from lore.errors import InvalidInputError

            options = ", ".join(str(c) for c in proposal.choices) or "nothing (not a settlement)"
            raise InvalidInputError(
                f"{proposal.id}: choose one of {options} (got {choice!r})", id=proposal.id
            )
    if dry_run:
        return {
            "ok": True,
            "dry_run": True,
            "applied": [preview(store, proposal, choice) for proposal, choice in todo],
        }
    applied = []
    for proposal, choice in todo:
        if proposal.action == "promote":
            from lore.sessions.review import promote_failures

            error_type = proposal.detail["error_type"]
            [done] = promote_failures(store, error_type)
            applied.append(
                {
                    "id": proposal.id,
                    "kind": proposal.kind,
                    "action": proposal.action,
                    "created": done.anti_pattern.id if done.created else None,
                    "changes": [
                        {
                            "id": done.anti_pattern.id,
                            "change": f"{'created' if done.created else 'updated'} "
                            f"{done.anti_pattern.name} ({done.count} failures)",
                        }
                    ],
                }
            )
            continue
        applied.append(apply(store, proposal, choice))
    full = not kinds and since is None and archive_after is None
    _recount(store, len(found), len(todo), full=full)
    return {"ok": True, "dry_run": False, "applied": applied}


def _recount(store: Store, found: int, applied: int, *, full: bool) -> None:
    """Keep resume's tending line true after an apply: a full run's proposals less
    those applied, as of now; after a filtered run, the last full run's count less those
    applied, still dated by that run (the proposals left out were not looked at)."""
    from lore.dynamics.tally import remember, remembered, state_key
    from lore.index.persist import open_index

    if full:
        remember(store, max(0, found - applied), state_key(open_index(store)))
        return
    last = remembered(store)
    if last is not None and isinstance(last.get("count"), int):
        remember(store, max(0, last["count"] - applied), last.get("key"), at=last.get("at"))
