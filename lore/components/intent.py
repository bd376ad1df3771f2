"""intent: what are we trying to achieve? Goals, one YAML file each under ``intent/data/goals/``,
and their rules: statuses (old names read as new), criteria ids, completion, dependency cycles.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from lore.model import Dir, Kind, R, Record, register, text, texts

STATUSES = ("draft", "active", "blocked", "completed", "cancelled")
# Contract version 1 before goal commands had active|achieved|paused|abandoned: a goal
# file that still says one of the old words reads as its new equivalent (the file is left
# as written until lore changes that goal's status).
LEGACY_STATUSES = {"achieved": "completed", "paused": "blocked", "abandoned": "cancelled"}
OPEN_STATUSES = ("draft", "active", "blocked")
PRIORITIES = ("low", "medium", "high", "critical")
CRITERION_PREFIX = "sc-"
_CRITERION_ID = re.compile(r"^sc-([1-9][0-9]*)$")
_ANY_CRITERION_ID = re.compile(r"^sc-[0-9a-z][0-9a-z-]*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@register
@dataclass(kw_only=True, eq=False, repr=False)  # Record defines both, once
class Goal(Record):
    KIND = Kind(
        "goal",
        "goal",
        "intent",
        Dir("goals", ".yaml"),
        title="title",
        search=("title", "description", "tags"),
    )

    title: str = text(required=True)
    description: str = ""
    status: str = text("active", choices=STATUSES)
    priority: str = text("medium", choices=PRIORITIES)
    # Each criterion: {"id": "sc-1", "text": "...", "met": false}.
    criteria: list[dict[str, Any]] = field(default_factory=list)
    deadline: str | None = None
    depends_on: list[str] = texts(ref="goal")
    projects: list[str] = texts()
    related: list[str] = texts(ref="any")

    @classmethod
    def from_dict(cls: type[R], data: dict[str, Any]) -> R:
        status = data.get("status")
        if isinstance(status, str) and status in LEGACY_STATUSES:
            data = {**data, "status": LEGACY_STATUSES[status]}
        criteria = data.get("criteria")
        if isinstance(criteria, list) and all(isinstance(c, dict) for c in criteria):
            data = {**data, "criteria": with_ids(criteria)}
        return super().from_dict(data)

    @property
    def criteria_met(self) -> tuple[int, int]:
        return completion(self.criteria)

    @property
    def completion(self) -> str:
        met, total = self.criteria_met
        return f"{met}/{total}"

    @property
    def hidden(self) -> bool:
        return False

    def problems(self) -> list[tuple[str, str]]:
        found = super().problems()
        if self.deadline is not None and isinstance(self.deadline, str):
            try:
                parse_deadline(self.deadline)
            except ValueError as exc:
                found.append(("deadline", str(exc)))
        return found


def completion(criteria: Iterable[Any]) -> tuple[int, int]:
    """Criteria met and criteria in all."""
    items = [c for c in criteria if isinstance(c, dict)]
    return sum(1 for c in items if c.get("met") is True), len(items)


def with_ids(criteria: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Criteria with an ``id`` each, no two alike: kept where present and unique, else the
    next free ``sc-N``.

    Criteria written before ids existed get theirs by position (``sc-1`` first), so
    the same file always gives the same ids. An id that repeats (two clones each added
    ``sc-3`` before added criteria got random ids, and git kept both) reads as
    ``sc-3``, ``sc-3-2``, ``sc-3-3``... in file order, so each can be named.
    """
    used = {_number(c.get("id")) for c in criteria} - {0}
    taken = {c.get("id") for c in criteria if _valid_id(c.get("id"))}
    seen: dict[str, int] = {}
    out = []
    for position, item in enumerate(criteria, 1):
        rid = item.get("id")
        if isinstance(rid, str) and _valid_id(rid):
            count = seen[rid] = seen.get(rid, 0) + 1
            if count == 1:
                out.append(item)
                continue
            while f"{rid}-{count}" in taken:
                count += 1
            taken.add(f"{rid}-{count}")
            out.append({**item, "id": f"{rid}-{count}"})
            continue
        n = position if position not in used else max(used | {0}) + 1
        used.add(n)
        out.append({"id": f"{CRITERION_PREFIX}{n}", **{k: v for k, v in item.items() if k != "id"}})
    return out


def first_criterion_ids(count: int) -> list[str]:
    """A new goal's criteria: ``sc-1``, ``sc-2``, ... (its file is new: no one else has
    added any)."""
    return [f"{CRITERION_PREFIX}{n}" for n in range(1, count + 1)]


def next_criterion_id(criteria: list[dict[str, Any]]) -> str:
    """A criterion added to an existing goal: ``sc-`` and 6 random hex digits, so two
    clones adding criteria to one goal at once never give two the same id."""
    import os

    taken = {c.get("id") for c in criteria}
    while True:
        rid = f"{CRITERION_PREFIX}{os.urandom(3).hex()}"
        if rid not in taken:
            return rid


def _valid_id(value: Any) -> bool:
    return isinstance(value, str) and bool(_ANY_CRITERION_ID.match(value))


def _number(value: Any) -> int:
    match = _CRITERION_ID.match(value) if isinstance(value, str) else None
    return int(match.group(1)) if match else 0


def parse_deadline(value: str) -> date:
    """A deadline: a real calendar date written ``YYYY-MM-DD``; ValueError otherwise."""
    if not isinstance(value, str) or not _DATE.match(value):
        raise ValueError(f"must be a date written YYYY-MM-DD (got {value!r})")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"is not a real date (got {value!r})") from None


def dependency_path(
    depends_on: Callable[[str], Iterable[str]], start: str, target: str
) -> list[str] | None:
    """A chain ``start -> ... -> target`` following ``depends_on``, or None.

    Adding the dependency ``target -> start`` closes a cycle exactly when this finds a
    path; projects (``lore registry validate``) use it too.
    """
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen = {start}
    while stack:
        node, path = stack.pop()
        if node == target:
            return path
        for nxt in depends_on(node):
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return None
