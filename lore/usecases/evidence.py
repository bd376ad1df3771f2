"""Evidence use cases (``lore evidence ...``, and the evidence ``lore show`` lists under a
record it backs): add, list, show, update, stats. Each returns what ``--json`` prints."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lore.components.evidence import CONFIDENCES, Evidence, check_confidence
from lore.errors import NotFoundError, UsageError
from lore.store.core import Store
from lore.usecases.common import gate, get_kind, reply


def add(
    store: Store,
    text: str,
    *,
    source: str | None = None,
    provenance: str | None = None,
    confidence: str | None = None,
    supports: Sequence[str] = (),
    tags: Sequence[str] = (),
    project: str | None = None,
    derived_from: str | None = None,
    force: bool = False,
    allow_secret: bool = False,
) -> dict[str, Any]:
    """Capture a piece of evidence (secrets gate included); every ``supports`` id must
    exist (exit 3 names the first that does not)."""
    from lore.capture.build import split_list
    from lore.capture.core import capture

    ids = split_list(list(supports))
    for target in ids:
        if store.find(target) is None:
            raise NotFoundError(f"--supports {target}: no record with id {target!r}", id=target)
    fields: dict[str, Any] = {
        "provenance": provenance,
        "confidence": check_confidence(confidence),
        "supports": ids,
        "derived_from": derived_from,
    }
    captured = capture(
        store,
        text,
        kind="evidence",
        fields=fields,
        tags=tags,
        project=project,
        source=source,
        force=force,
        allow_secret=allow_secret,
    )
    return reply(captured.record)  # no warnings: only evidence fields are passed


def list_evidence(
    store: Store, *, confidence: str | None = None, show_all: bool = False
) -> list[dict[str, Any]]:
    """Evidence newest first; superseded evidence only with ``show_all`` or when asked for
    by ``--confidence superseded``."""
    wanted = check_confidence(confidence)
    hidden = show_all or wanted == "superseded"
    found = [e for e in store.of(Evidence, hidden=hidden) if not wanted or e.confidence == wanted]
    found.sort(key=lambda e: (str(e.timestamp), e.id), reverse=True)
    return [e.to_dict() for e in found]


def show(store: Store, evidence_id: str) -> dict[str, Any]:
    return get_kind(store, evidence_id, "evidence").to_dict()


def update(
    store: Store, evidence_id: str, *, confidence: str | None = None, allow_secret: bool = False
) -> dict[str, Any]:
    """Change how firm a piece of evidence is (one appended revision; ``changed`` names
    the fields written, none when the value is already the stored one)."""
    level = check_confidence(confidence)
    if level is None:
        raise UsageError("nothing to update: give --confidence")
    current = get_kind(store, evidence_id, "evidence")
    changed: list[str] = []

    def change(state: dict[str, Any]) -> dict[str, Any]:
        if state.get("confidence") == level:
            return {}
        changes = {"confidence": level}
        gate(changes, allow_secret=allow_secret)
        changed.extend(changes)
        return changes

    return reply(store.update(current.id, change), changed=changed)


def stats(store: Store) -> dict[str, int]:
    """``{"total", "preliminary", "confirmed", "contested", "superseded"}`` (all evidence)."""
    every = store.of(Evidence, hidden=True)
    out = {"total": len(every)}
    for level in CONFIDENCES:
        out[level] = sum(1 for e in every if e.confidence == level)
    return out


def backing(store: Store, record_id: str) -> list[dict[str, Any]]:
    """The evidence whose ``supports`` names ``record_id``, newest first (all of it:
    superseded evidence shows its confidence)."""

    def names(state: dict[str, Any]) -> bool:
        ids = state.get("supports")
        return isinstance(ids, list) and record_id in ids

    found = [e for e in store.matching(Evidence, names) if record_id in e.supports]  # type: ignore[attr-defined]
    found.sort(key=lambda e: (str(e.timestamp), e.id), reverse=True)
    return [e.to_dict() for e in found]
