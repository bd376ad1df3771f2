"""The journal's use cases (``lore journal ...``): list, show, query, stats, update, learn,
link, retract and supersede decisions. Each returns the dict its ``--json`` prints;
the rules they apply live in ``lore.components.journal``. Export is ``journal_export``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from lore import clock
from lore.components.journal import (
    OUTCOMES,
    STATUSES,
    TYPES,
    Decision,
    check_choice,
    update_changes,
    with_link,
)
from lore.errors import InvalidInputError, UsageError
from lore.model import Record
from lore.store.core import Store
from lore.usecases.common import gate, get_kind, reply


def decision(store: Store, decision_id: str) -> Decision:
    """The decision ``decision_id`` in its latest state (exit 3 when there is none)."""
    found = get_kind(store, decision_id, "decision")
    assert isinstance(found, Decision)
    return found


def list_decisions(
    store: Store,
    *,
    recent: int = 0,
    type: str | None = None,
    outcome: str | None = None,
    tags: Sequence[str] = (),
    project: str | None = None,
    session: str | None = None,
    since: str | None = None,
    show_all: bool = False,
    until: str | None = None,
) -> list[dict[str, Any]]:
    """Decisions newest first, latest state, every filter combined (``recent``: at most N).
    ``session``: the decisions carrying that ``session_id`` and those the session's handoff
    lists as captured. Retracted and superseded ones only with ``show_all``."""
    from lore.recall.core import parse_since, parse_until

    wanted_type = check_choice("type", type, TYPES)
    wanted_outcome = check_choice("outcome", outcome, OUTCOMES)
    since_epoch = parse_since(since)
    until_epoch = parse_until(until)
    in_session = _session_decisions(store, session) if session else set()
    found = []
    for d in store.of(Decision, hidden=show_all):
        if wanted_type and d.type != wanted_type:
            continue
        if wanted_outcome and d.outcome != wanted_outcome:
            continue
        if tags and not set(tags) <= set(d.tags):
            continue
        if project and d.project != project and project not in d.tags:
            continue
        if session and d.session_id != session and d.id not in in_session:
            continue
        if since_epoch is not None and clock.epoch(d.timestamp) < since_epoch:
            continue
        if until_epoch is not None and clock.epoch(d.timestamp) >= until_epoch:
            continue
        found.append(d)
    found.sort(key=lambda d: (str(d.timestamp), d.id), reverse=True)
    return [d.to_dict() for d in found[: recent or None]]


def _session_decisions(store: Store, session_id: str) -> set[str]:
    """The decisions session ``session_id`` says it captured (its ``captured`` ids, which
    also name records written with ``session_id: null`` while it was open)."""
    from lore.components.transfer import Session

    found = store.find(session_id)
    captured = found.captured if isinstance(found, Session) else None
    ids = captured.get("decision") if isinstance(captured, dict) else None
    return {i for i in ids if isinstance(i, str)} if isinstance(ids, list) else set()


def query(
    store: Store,
    text: str,
    *,
    project: str | None = None,
    limit: int = 10,
    show_all: bool = False,
) -> dict[str, Any]:
    """``lore recall`` restricted to decisions: ``{"query", "results"}`` as recall prints."""
    from lore.recall.core import recall

    if not text.strip():
        raise UsageError("nothing to look for: give a QUERY")
    found = recall(
        store, text, kinds=("decision",), project=project, limit=limit, show_hidden=show_all
    )
    return {"query": text, "results": [h.to_dict() for h in found]}


def stats(store: Store) -> dict[str, Any]:
    """Counts of every decision (hidden ones included) by type, outcome and status."""
    every = store.of(Decision, hidden=True)

    def count(field: str, allowed: tuple[str, ...]) -> dict[str, int]:
        seen = Counter(str(getattr(d, field)) for d in every)
        out = {name: seen.pop(name, 0) for name in allowed}
        out.update(sorted(seen.items()))  # values a hand edit left outside the schema
        return out

    return {
        "total": len(every),
        "by_type": count("type", TYPES),
        "by_outcome": count("outcome", OUTCOMES),
        "by_status": count("status", STATUSES),
    }


def update(
    store: Store,
    decision_id: str,
    *,
    outcome: str | None = None,
    rationale: str | None = None,
    lesson: str | None = None,
    tags: Sequence[str] | None = None,
    type: str | None = None,
    files: Sequence[str] | None = None,
    add_files: Sequence[str] = (),
    allow_secret: bool = False,
) -> dict[str, Any]:
    """Change a decision's fields in one appended revision; ``changed`` names them
    (empty, and nothing written, when every value is already the stored one).
    ``tags`` replaces the free tags; the project's own tag stays. ``files`` replaces
    the files, ``add_files`` adds to them; each file also joins the entities."""
    from lore.capture.build import split_list

    new_files = split_list(list(files)) if files is not None else None
    more_files = split_list(list(add_files))
    if (
        all(v is None for v in (outcome, rationale, lesson, tags, type, new_files))
        and not more_files
    ):
        raise UsageError(
            "nothing to update: give --outcome, --rationale, --lesson, --tag, --type, "
            "--files or --add-file"
        )
    current = decision(store, decision_id)
    new_tags: list[str] | None = None
    if tags is not None:
        new_tags = split_list(list(tags))
        if current.project and current.project in current.tags and current.project not in new_tags:
            new_tags.append(current.project)
    # Refuse a bad value before taking the lock (and with nothing written).
    update_changes({}, outcome=outcome, type=type)
    changed: list[str] = []

    def change(state: dict[str, Any]) -> dict[str, Any]:
        changes = update_changes(
            state,
            outcome=outcome,
            rationale=rationale,
            lesson=lesson,
            tags=new_tags,
            type=type,
            files=new_files,
            add_files=more_files,
        )
        if changes:
            gate(changes, allow_secret=allow_secret)
        changed.extend(changes)
        return changes

    record = store.update(current.id, change)
    return reply(record, changed=changed)


def learn(
    store: Store, decision_id: str, lesson: str, *, allow_secret: bool = False
) -> dict[str, Any]:
    """Record the lesson a decision taught (``lesson_learned``)."""
    if not lesson.strip():
        raise UsageError("the lesson is empty")
    return update(store, decision_id, lesson=lesson, allow_secret=allow_secret)


def link(store: Store, a: str, b: str) -> dict[str, Any]:
    """Relate two decisions: each lists the other in ``related_decisions``. Idempotent:
    ``changed`` names the decisions that gained the link (none when both had it)."""
    first, second = decision(store, a), decision(store, b)
    if first.id == second.id:
        raise InvalidInputError(f"cannot link {a} to itself", id=a)
    changed: list[str] = []
    records: list[Record] = []
    for this, other in ((first.id, second.id), (second.id, first.id)):

        def change(state: dict[str, Any], this: str = this, other: str = other) -> dict[str, Any]:
            ids = with_link(state.get("related_decisions"), other)
            if ids is None:
                return {}
            changed.append(this)
            return {"related_decisions": ids}

        records.append(store.update(this, change))
    return {
        "ok": True,
        "ids": [first.id, second.id],
        "changed": changed,
        "records": [r.to_dict() for r in records],
    }


def retract(
    store: Store, decision_id: str, *, reason: str | None = None, allow_secret: bool = False
) -> dict[str, Any]:
    """Withdraw a decision (``lore retract`` for decisions only, the same reply); refused
    when it already is. The reason passes the secrets gate."""
    from lore.usecases.records import retract as withdraw

    decision(store, decision_id)
    if reason:
        gate({"reason": reason}, allow_secret=allow_secret)
    record, when = withdraw(store, decision_id, reason=reason)
    return {
        "ok": True,
        "id": record.id,
        "type": record.kind,
        "timestamp": record.timestamp,
        "retracted_at": when,
        "record": record.to_dict(),
    }


def supersede(store: Store, old_id: str, new_id: str) -> dict[str, Any]:
    """Mark ``old_id`` replaced by ``new_id``: OLD gets ``status: superseded`` and
    ``superseded_by`` (checked and written under the log's lock), then NEW gains OLD in
    ``supersedes``. Repeating it changes nothing."""
    old, new = decision(store, old_id), decision(store, new_id)
    if old.id == new.id:
        raise InvalidInputError(f"a decision cannot supersede itself ({old.id})", id=old.id)
    if new.status != "active":
        raise InvalidInputError(
            f"{new.id} is {new.status}: only an active decision can supersede another",
            id=new.id,
        )
    if old.status == "superseded" and old.superseded_by not in (None, new.id):
        raise InvalidInputError(f"{old.id} is already superseded by {old.superseded_by}", id=old.id)
    if old.status == "retracted":
        raise InvalidInputError(f"{old.id} is retracted: there is nothing to supersede", id=old.id)
    if old.id in new.supersedes and old.superseded_by == new.id:
        return {"ok": True, "id": old.id, "changed": [], "old": old.to_dict(), "new": new.to_dict()}
    changed = []

    def mark_old(state: dict[str, Any]) -> dict[str, Any]:
        # Checked again under the lock: another supersede may have won since the read.
        if state.get("status") == "superseded" and state.get("superseded_by") != new.id:
            by = state.get("superseded_by")
            raise InvalidInputError(f"{old.id} is already superseded by {by}", id=old.id)
        if state.get("status") == "retracted":
            raise InvalidInputError(
                f"{old.id} is retracted: there is nothing to supersede", id=old.id
            )
        if state.get("superseded_by") == new.id and state.get("status") == "superseded":
            return {}
        changed.append(old.id)
        return {"status": "superseded", "superseded_by": new.id}

    def mark_new(state: dict[str, Any]) -> dict[str, Any]:
        ids = with_link(state.get("supersedes"), old.id)
        if ids is None:
            return {}
        changed.append(new.id)
        return {"supersedes": ids}

    # OLD first: its check and mark are one locked step, so of two racing supersedes
    # only the winner goes on to give its NEW a ``supersedes`` link.
    updated_old = store.update(old.id, mark_old)
    updated_new = store.update(new.id, mark_new)
    return {
        "ok": True,
        "id": old.id,
        "changed": changed,
        "old": updated_old.to_dict(),
        "new": updated_new.to_dict(),
    }
