"""Capture (the use case): route, build, check and store one new record; the building and
routing rules live in ``lore.capture.build``, the checks (schema, secrets, near-duplicates)
in ``lore.capture.checks``, and both stay importable from here."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lore.capture.anchors import KINDS, anchor
from lore.capture.build import (
    Captured,
    _head_at,
    build,
    current_session_id,
    detect_project,
    route,
)
from lore.capture.checks import (
    check,
    check_references,
    exists,
    find_duplicate,
)
from lore.errors import DuplicateError, InvalidInputError, UsageError
from lore.store.core import Store


def capture(
    store: Store,
    text: str,
    *,
    kind: str | None = None,
    fields: dict[str, Any] | None = None,
    tags: Sequence[str] = (),
    project: str | None = None,
    source: str | None = None,
    force: bool = False,
    allow_secret: bool = False,
    timestamp: str | None = None,
    record_id: str | None = None,
    session_id: bool | str | None = True,
    provenance: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    files_in: Path | bool = True,
) -> Captured:
    """Route, build, check and store one record; returns it with any warnings.

    ``extra``: keys stored with the record beyond its fields (a link back to where it came
    from, such as ``engram_id``); they pass the secrets gate with the rest. What lore passes
    for a record nobody typed (``lore ingest``): ``record_id`` (a stable id, refused with
    exit 6 when a record already has it), ``session_id`` (True: the current session, as for
    any capture) and ``provenance``; they pass the same checks as the rest of the record.
    ``files_in``: the folder the files a record names are looked up in for their hashes
    (True: the working directory; False: none, the record keeps no hashes)."""
    _head_at.cache_clear()  # HEAD may have moved since the last capture in this process
    fields = dict(fields or {})
    if not text or not text.strip():
        raise UsageError("nothing to capture: the text is empty")
    name = route(kind, fields)
    if name == "failure" and isinstance(fields.get("error_type"), str):
        from lore.components.failures import canonical_type

        fields["error_type"] = canonical_type(fields["error_type"].strip())
    captured = build(
        name,
        text,
        fields,
        tags=tags,
        project=project,
        source=source,
        session_id=(
            current_session_id(store, detect_project(project)) if session_id is True else session_id
        )
        or None,
        timestamp=timestamp,
        record_id=record_id,
    )
    record = captured.record
    if provenance is not None:
        record.provenance = provenance  # type: ignore[attr-defined]
    if extra:
        record.extra.update(extra)
    if record.KIND.name in KINDS and files_in is not False:
        # the hashes of the files it names (lore.dynamics checks them later)
        anchor(record, cwd=None if files_in is True else files_in)
    check(record, allow_secret=allow_secret)
    check_references(store, record)
    if name == "failure":
        from lore.capture.failure_rules import type_warnings

        captured.warnings.extend(type_warnings(store, record))
    supersedes = fields.get("supersedes") if name == "decision" else None
    if supersedes:
        old = store.get(supersedes)
        if old.kind != "decision":
            raise InvalidInputError(f"--supersedes needs a decision id, got {old.kind} {old.id}")
        record.supersedes = [supersedes]  # type: ignore[attr-defined]
    # Only a decision naming two entities can contradict one (lore.capture.contradictions).
    contradicting = name == "decision" and len(record.entities) >= 2  # type: ignore[attr-defined]

    def guard() -> list[Any]:
        if record_id is not None and exists(store, name, record_id):
            raise DuplicateError(f"a record {record_id} already exists", existing_id=record_id)
        if not force:
            # The decision being superseded is meant to read alike: it is not a duplicate.
            duplicate = find_duplicate(store, record, ignore=[supersedes] if supersedes else [])
            if duplicate is not None:
                raise DuplicateError(
                    f"a near-duplicate {record.kind} already exists: {duplicate.id} "
                    f"({duplicate.title[:80]!r}); pass --force to record it anyway",
                    existing_id=duplicate.id,
                )
        if contradicting:
            from lore.capture.contradictions import find_contradictions

            found = find_contradictions(store, record, ignore=[supersedes] if supersedes else [])
            record.contradicts = [r.id for r, _ in found]  # type: ignore[attr-defined]
            captured.warnings.extend(
                f"contradicts {r.id} ({r.title[:60]!r}): both name {', '.join(shared)}; "
                f"if it replaces it: lore journal supersede {r.id} --by {record.id}"
                for r, shared in found
            )
            from lore.capture.contradictions import contradiction_edges

            return contradiction_edges(record)  # written with the decision, in one call
        return []

    also: list[Any] = []
    if contradicting:
        from lore.components.graph import Edge

        also.append(Edge)
    store.add([record], guard=guard, also=also)
    if supersedes:
        store.revise(supersedes, {"status": "superseded", "superseded_by": record.id})
    return captured
