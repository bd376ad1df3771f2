"""Goal use cases: create, list, show and update goals.

Each returns the dict its ``--json`` output prints (the MCP ``goal_update`` tool returns
the same). Statuses, criteria ids, completion and the cycle rule are
``lore.components.intent``'s; every change to a goal is one atomic document update that
keeps the file's hand edits.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

from lore import clock
from lore.components.intent import (
    LEGACY_STATUSES,
    OPEN_STATUSES,
    PRIORITIES,
    STATUSES,
    Goal,
    dependency_path,
    next_criterion_id,
    parse_deadline,
    with_ids,
)
from lore.components.patterns import SEVERITY_RANK
from lore.errors import DuplicateError, InvalidInputError, NotFoundError, UsageError
from lore.storage.lock import locked
from lore.store.core import Store


def goal_dict(goal: Goal) -> dict[str, Any]:
    """A goal as the goal commands print it: the record, then ``completion`` ("met/total")."""
    return {**goal.to_dict(), "completion": goal.completion}


def _choice(value: str | None, allowed: Sequence[str], flag: str) -> str | None:
    if value is None:
        return None
    value = LEGACY_STATUSES.get(value, value) if flag == "--status" else value
    if value not in allowed:
        raise InvalidInputError(
            f"{flag} must be one of {', '.join(allowed)} (got {value!r})", field=flag[2:]
        )
    return value


def _deadline(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        parse_deadline(value)
    except ValueError as exc:
        raise InvalidInputError(f"--deadline {exc}", field="deadline") from None
    return value


def _texts(values: Sequence[str] | None, flag: str) -> list[str]:
    out = []
    for value in values or ():
        value = value.strip()
        if not value:
            raise UsageError(f"{flag} must not be empty")
        out.append(value)
    return out


def get_goal(store: Store, goal_id: str) -> Goal:
    """The goal ``goal_id``: exit 3 when no record has that id, 4 when it is not a goal."""
    record = store.get(goal_id)
    if not isinstance(record, Goal):
        article = "an" if record.kind[0] in "aeiou" else "a"
        raise InvalidInputError(f"{goal_id} is {article} {record.kind}, not a goal", id=goal_id)
    return record


def create_goal(
    store: Store,
    title: str,
    *,
    description: str | None = None,
    priority: str | None = None,
    deadline: str | None = None,
    projects: Sequence[str] = (),
    tags: Sequence[str] = (),
    criteria: Sequence[str] = (),
    force: bool = False,
    allow_secret: bool = False,
) -> dict[str, Any]:
    """A new active goal (secrets gate, near-duplicate check); the capture reply shape."""
    from lore.capture.build import current_session_id, detect_project, split_list
    from lore.capture.checks import check, find_duplicate

    title = (title or "").strip()
    if not title:
        raise UsageError("a goal needs a name")
    names = split_list(list(projects))
    project = names[0] if names else detect_project(None)
    all_tags = split_list(list(tags))
    if project and project not in all_tags:
        all_tags.append(project)
    goal = Goal(
        id=clock.new_id("goal"),
        timestamp=clock.now(),
        session_id=current_session_id(store, project),
        project=project,
        tags=all_tags,
        title=title,
        description=(description or "").strip(),
        priority=_choice(priority, PRIORITIES, "--priority") or "medium",
        deadline=_deadline(deadline),
        criteria=[
            {"id": f"sc-{n}", "text": text, "met": False}
            for n, text in enumerate(_texts(criteria, "--criterion"), 1)
        ],
        projects=names,
    )
    check(goal, allow_secret=allow_secret)

    def guard() -> None:
        # A completed or cancelled goal may be taken up again under the same name.
        closed = [g.id for g in store.of(Goal) if g.status not in OPEN_STATUSES]
        duplicate = None if force else find_duplicate(store, goal, ignore=closed)
        if duplicate is not None:
            raise DuplicateError(
                f"a near-duplicate goal already exists: {duplicate.id} "
                f"({duplicate.title[:80]!r}); pass --force to record it anyway",
                existing_id=duplicate.id,
            )

    store.add([goal], guard=guard)
    return {
        "ok": True,
        "id": goal.id,
        "type": "goal",
        "timestamp": goal.timestamp,
        "record": goal.to_dict(),
        "completion": goal.completion,
    }


def list_goals(
    store: Store, *, status: str | None = None, priority: str | None = None
) -> list[dict[str, Any]]:
    """Goals by priority (critical first), then deadline (soonest first, none last), then
    age; filtered by status and priority (old status names work as their new ones)."""
    if status is not None:
        status = LEGACY_STATUSES.get(status, status)
        if status not in STATUSES:
            raise UsageError(f"--status must be one of {', '.join(STATUSES)} (got {status!r})")
    if priority is not None and priority not in PRIORITIES:
        raise UsageError(f"--priority must be one of {', '.join(PRIORITIES)} (got {priority!r})")
    goals = [
        g
        for g in store.of(Goal)
        if (status is None or g.status == status) and (priority is None or g.priority == priority)
    ]
    goals.sort(
        key=lambda g: (
            SEVERITY_RANK.get(g.priority, 9),
            g.deadline if isinstance(g.deadline, str) and g.deadline else "9999",
            g.timestamp,
        )
    )
    return [goal_dict(g) for g in goals]


def show_goal(store: Store, goal_id: str) -> dict[str, Any]:
    return goal_dict(get_goal(store, goal_id))


def update_goal(
    store: Store,
    goal_id: str,
    *,
    status: str | None = None,
    priority: str | None = None,
    deadline: str | None = None,
    description: str | None = None,
    add_criteria: Sequence[str] = (),
    met: Sequence[str] = (),
    depends_on: Sequence[str] = (),
    allow_secret: bool = False,
) -> dict[str, Any]:
    """Change a goal in one atomic update under its lock; refuses (changing nothing) a bad
    value, an unknown criterion or goal, and a dependency that would close a cycle."""
    from lore.capture.checks import gate

    status = _choice(status, STATUSES, "--status")
    priority = _choice(priority, PRIORITIES, "--priority")
    deadline = _deadline(deadline)
    new_criteria = _texts(add_criteria, "--add-criterion")
    if not allow_secret:
        gate({f"criteria[{i}]": text for i, text in enumerate(new_criteria)})
        if description:
            gate({"description": description})
    if not any(
        (status, priority, deadline, description is not None, new_criteria, met, depends_on)
    ):
        raise UsageError("nothing to update: give at least one change (see --help)")
    get_goal(store, goal_id)

    def change(state: dict[str, Any]) -> dict[str, Any]:
        changes: dict[str, Any] = {}
        for key, value in (("status", status), ("priority", priority), ("deadline", deadline)):
            if value is not None and state.get(key) != value:
                changes[key] = value
        if description is not None and state.get("description") != description:
            changes["description"] = description
        criteria = [dict(c) for c in state.get("criteria") or [] if isinstance(c, dict)]
        before = [dict(c) for c in criteria]
        criteria = with_ids(criteria)
        for text in new_criteria:  # first, so --met may name a criterion added here
            criteria.append({"id": next_criterion_id(criteria), "text": text, "met": False})
        for wanted in met:
            criteria[_criterion(goal_id, criteria, wanted)]["met"] = True
        if criteria != before:
            changes["criteria"] = criteria
        current = [d for d in state.get("depends_on") or [] if isinstance(d, str)]
        added = [d for d in deps if d not in current]
        if added:
            changes["depends_on"] = current + added
        return changes

    # A new dependency is checked and written under the goals' folder lock (which every
    # such update and every new goal takes), so two updates cannot close a cycle together.
    with store.writing(), locked(store.location(Goal)) if depends_on else nullcontext():
        deps = _dependencies(store, goal_id, depends_on)
        record = store.update(goal_id, change)
    assert isinstance(record, Goal)
    return {
        "ok": True,
        "id": record.id,
        "completion": record.completion,
        "record": record.to_dict(),
    }


def _criterion(goal_id: str, criteria: list[dict[str, Any]], wanted: str) -> int:
    """Where the criterion ``wanted`` names is: by its id, else by its exact text (so a
    criterion added in the same command, whose id is random, can be met at once)."""
    ids = [c["id"] for c in criteria]
    if wanted in ids:
        return ids.index(wanted)
    same = [i for i, c in enumerate(criteria) if str(c.get("text", "")).strip() == wanted.strip()]
    if len(same) == 1:
        return same[0]
    if same:
        raise InvalidInputError(
            f"{len(same)} criteria of {goal_id} read {wanted!r}: name one by its id "
            f"({', '.join(ids[i] for i in same)})",
            id=wanted,
        )
    known = ", ".join(ids) or "none"
    raise NotFoundError(f"{goal_id} has no criterion {wanted!r} (criteria: {known})", id=wanted)


def _dependencies(store: Store, goal_id: str, wanted: Sequence[str]) -> list[str]:
    """The goals ``goal_id`` is to depend on, each checked: it exists (3), it is a goal (4),
    and depending on it closes no cycle (4)."""
    out: list[str] = []
    if not wanted:
        return out
    graph = {g.id: [d for d in g.depends_on if isinstance(d, str)] for g in store.of(Goal)}
    for dep in wanted:
        dep = dep.strip()
        get_goal(store, dep)
        path = dependency_path(lambda n: graph.get(n, ()), dep, goal_id)
        if path is not None:
            cycle = " -> ".join([goal_id, *path])
            raise InvalidInputError(
                f"dependency cycle: {cycle}", id=goal_id, cycle=[goal_id, *path]
            )
        if dep not in out:
            out.append(dep)
            graph.setdefault(goal_id, []).append(dep)
    return out
