"""Inbox use cases (``lore inbox ...``): list observations by triage status, promote one
into a decision, pattern or evidence (through capture, so the secrets gate and the
near-duplicate check apply), or discard it. Each returns what ``--json`` prints."""

from __future__ import annotations

from typing import Any

from lore.components.inbox import (
    CANDIDATE_TAG,
    PROMOTE_TO,
    Observation,
    check_status,
    check_triage,
)
from lore.errors import InvalidInputError, UsageError
from lore.model import kind_class
from lore.store.core import Store
from lore.usecases.common import gate, get_kind, reply


def list_observations(
    store: Store, *, status: str | None = "raw", tags: list[str] | tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """Observations newest first in their latest state; ``status`` None or ``all``: every one,
    retracted ones included (each keeps its ``retracted_at``). A retracted observation was
    withdrawn: no other status lists it. ``tags``: only those holding every one of them."""
    wanted = check_status(status)
    found = [
        o
        for o in store.of(Observation, hidden=True)
        if (not wanted or (o.status == wanted and not o.retracted))
        and all(t in o.tags for t in tags)
    ]
    found.sort(key=lambda o: (str(o.timestamp), o.id), reverse=True)
    return [o.to_dict() for o in found]


def promote(
    store: Store,
    observation_id: str,
    to: str,
    *,
    text: str | None = None,
    fields: dict[str, Any] | None = None,
    tags: tuple[str, ...] | list[str] = (),
    project: str | None = None,
    source: str | None = None,
    force: bool = False,
    allow_secret: bool = False,
) -> dict[str, Any]:
    """Turn a raw observation into a ``to`` record (its text, unless ``text`` is given):
    the target gets ``derived_from``, the observation ``status: promoted`` and
    ``promoted_to``. Refused (exit 4) when it was promoted (naming the first target)
    or discarded before. A promote stopped between the two writes (the target is there,
    the observation still raw) is finished by running it again: the target derived
    from the observation is found and reused, never made twice."""
    from lore.capture.core import capture

    kind = to.strip().lower()
    if kind not in PROMOTE_TO:
        raise UsageError(f"--to must be one of {', '.join(PROMOTE_TO)} (got {to!r})")
    observation = get_kind(store, observation_id, "observation")
    assert isinstance(observation, Observation)
    check_triage(observation)
    values = dict(fields or {})
    declared = "derived_from" in kind_class(kind).field_names()
    if declared:
        values["derived_from"] = observation.id
    target = _earlier_target(store, kind, observation.id)
    warnings: list[str] = []
    if target is None:
        captured = capture(
            store,
            text if text and text.strip() else observation.content,
            kind=kind,
            fields=values,
            tags=[*(t for t in observation.tags if t != CANDIDATE_TAG), *tags],
            project=project or observation.project,
            source=source,
            force=force,
            allow_secret=allow_secret,
        )
        target, warnings = captured.record, captured.warnings
    else:
        warnings.append(f"reused {target.id}, made from {observation.id} by an earlier promote")
    if (target.to_dict().get("derived_from")) != observation.id:
        # A kind whose schema does not name the link yet keeps it as an extra key.
        target = store.revise(target.id, {"derived_from": observation.id})

    def mark(state: dict[str, Any]) -> dict[str, Any]:
        check_triage(Observation.from_dict(state))  # a concurrent promote got there first
        return {"status": "promoted", "promoted_to": target.id}

    try:
        updated = store.update(observation.id, mark)
    except InvalidInputError:
        # Another promote (or a discard) won the race: withdraw the record made here, so
        # the observation leads to one target only, and say what happened to it.
        from lore.usecases.records import retract

        retract(store, target.id, reason=f"{observation.id} was triaged by another writer")
        raise
    return {
        "ok": True,
        "id": observation.id,
        "promoted_to": target.id,
        "observation": updated.to_dict(),
        "target": target.to_dict(),
        "warnings": warnings,
    }


def _earlier_target(store: Store, kind: str, observation_id: str) -> Any:
    """A live ``kind`` record made from ``observation_id`` (a promote that stopped before it
    marked the observation), if there is one."""
    found = store.matching(kind, lambda state: state.get("derived_from") == observation_id)
    live = [r for r in found if not r.hidden and r.to_dict().get("derived_from") == observation_id]
    return live[0] if live else None


def discard(
    store: Store, observation_id: str, *, reason: str, allow_secret: bool = False
) -> dict[str, Any]:
    """Mark a raw observation discarded, keeping ``reason`` as ``discard_reason``."""
    if not reason or not reason.strip():
        raise UsageError("a discard needs --reason")
    observation = get_kind(store, observation_id, "observation")
    changes = {"status": "discarded", "discard_reason": reason.strip()}

    def mark(state: dict[str, Any]) -> dict[str, Any]:
        current = Observation.from_dict(state)
        check_triage(current)
        gate(changes, allow_secret=allow_secret)
        return changes

    return reply(store.update(observation.id, mark))
