"""Folding a log: a change is a revision line ``{"_op": "revise", "id", "timestamp", "set"}``,
and every reader folds lines this same way (creation line first, then revisions in
timestamp order, later wins; identical lines from a union merge count once)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from lore import clock
from lore.storage import jsonl
from lore.storage.jsonl import ReadIssue

REVISE = "revise"


def fold(
    rows: list[tuple[int, dict[str, Any]]], name: str, issues: list[ReadIssue] | None = None
) -> tuple[dict[str, dict[str, Any]], list[ReadIssue]]:
    """Fold creation and revision lines into each record's latest state.

    Identical lines (a union merge of two clones) count once. A second, different
    creation line for an id keeps the first and is reported; so is a revision
    whose id has no creation line.
    """
    found = issues if issues is not None else []
    states: dict[str, dict[str, Any]] = {}
    # Each id's creation line as read: serialized only when the id turns up again,
    # so a log without repeated ids is never re-encoded (that is a third of a read).
    first_seen: dict[str, dict[str, Any]] = {}
    revisions: dict[str, list[tuple[str, int, dict[str, Any]]]] = defaultdict(list)
    seen_revisions: set[bytes] = set()
    for number, obj in rows:
        rid = obj.get("id")
        if not isinstance(rid, str) or not rid:
            found.append(ReadIssue(name, number, "record has no id", "schema"))
            continue
        if obj.get("_op") == REVISE:
            key = jsonl.dumps(obj)
            if key in seen_revisions:
                continue
            seen_revisions.add(key)
            changes = obj.get("set")
            if not isinstance(changes, dict):
                found.append(ReadIssue(name, number, "revision has no 'set' object", "schema"))
                continue
            revisions[rid].append((_order_key(obj.get("timestamp")), number, changes))
            continue
        if rid in states:
            if jsonl.dumps(obj) != jsonl.dumps(first_seen[rid]):
                found.append(
                    ReadIssue(name, number, f"duplicate id {rid} (first line kept)", "duplicate-id")
                )
            continue
        states[rid] = dict(obj)
        first_seen[rid] = obj
    for rid, changes_list in revisions.items():
        state = states.get(rid)
        if state is None:
            line = changes_list[0][1]
            found.append(
                ReadIssue(name, line, f"revision for unknown id {rid}", "dangling-revision")
            )
            continue
        for _, _, changes in sorted(changes_list, key=lambda item: (item[0], item[1])):
            state.update(changes)
    return states, found


def _order_key(timestamp: Any) -> str:
    """A revision's timestamp in canonical form, so ``...00Z`` sorts after ``...00.5Z``."""
    text = str(timestamp or "")
    try:
        return clock.normalize_timestamp(text)
    except (ValueError, TypeError):
        return text
