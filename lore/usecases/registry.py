"""Registry use cases: add (or update), list, show, remove, validate projects, and a
project's context bundle (as data and as Markdown for an agent).

Each returns the dict its ``--json`` output prints. ``registry/data/projects.yaml`` is
changed one entry at a time under its lock, keeping the rest of the file as written.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lore import clock
from lore.components.failures import RULE_OF_THREE, Failure
from lore.components.intent import OPEN_STATUSES, Goal
from lore.components.journal import Decision
from lore.components.patterns import (
    SEVERITY_RANK,
    AntiPattern,
    Pattern,
    advice_order,
    flag_summary,
    flag_text,
)
from lore.components.registry import Project, cycle_through, problems, resolve_path, stored_path
from lore.errors import InvalidInputError, NotFoundError, UsageError
from lore.model import Record
from lore.store.core import Store

CONTEXT_LIMIT = 10


def _projects(store: Store) -> dict[str, Project]:
    return {p.name: p for p in store.of(Project)}


def get_project(store: Store, name: str) -> Project:
    found = _projects(store).get(name)
    if found is None:
        raise NotFoundError(f"no project named {name!r} in the registry", id=name)
    return found


WORKSPACE_VARIABLE = "LORE_WORKSPACE"


def path_base(store: Store) -> Path:
    """What a relative project ``path`` is relative to on this machine (LORE_CONTRACT.md
    §3.10): ``$LORE_WORKSPACE`` when set (the folder this machine keeps its checkouts
    in), else the top of the git repository that holds the registry file, else the
    data root."""
    import os

    configured = os.environ.get(WORKSPACE_VARIABLE)
    if configured:
        return Path(os.path.expanduser(configured)).absolute()
    from lore.git.info import find_repo

    repo = find_repo(store.location(Project).parent)
    return repo.top if repo is not None else store.path


def local_path(store: Store, path: str) -> str:
    """A stored project ``path`` as this machine reads it (absolute)."""
    return str(resolve_path(path, path_base(store))) if path else ""


def _names(values: Sequence[str] | None) -> list[str]:
    from lore.capture.build import split_list

    return split_list(list(values or ()))


def add_project(
    store: Store,
    name: str,
    *,
    path: str | None = None,
    description: str | None = None,
    tags: Sequence[str] | None = None,
    depends_on: Sequence[str] | None = None,
    allow_secret: bool = False,
) -> dict[str, Any]:
    """Register ``name``, or update the fields given when it is registered already
    (``tags`` and ``depends_on`` replace the lists). A dependency on itself or one that
    closes a cycle is refused."""
    from lore.capture.checks import gate

    name = (name or "").strip()
    if not name:
        raise UsageError("a project needs a name")
    changes: dict[str, Any] = {}
    if path is not None:
        changes["path"] = stored_path(path, path_base(store))
    if description is not None:
        changes["description"] = description
    if tags:
        changes["tags"] = _names(tags)
    if depends_on:
        changes["depends_on"] = _names(depends_on)
    if not allow_secret:  # every text this writes: the name (a key of the file) too
        gate({"name": name, **changes})
    graph = {n: list(p.depends_on) for n, p in _projects(store).items()}
    graph[name] = list(changes.get("depends_on", graph.get(name, [])))
    for dep in graph[name]:
        cycle = cycle_through(graph, name, dep)
        if cycle is not None:
            raise InvalidInputError("dependency cycle: " + " -> ".join(cycle), id=name, cycle=cycle)
    existing = _projects(store).get(name)
    if existing is None:
        project = Project(id=name, timestamp=clock.now(), name=name, **changes)
        bad = project.problems()
        if bad:
            raise InvalidInputError(f"project {bad[0][0]} {bad[0][1]}", field=bad[0][0])
        store.add([project])
        record: Record = get_project(store, name)
        created = True
    else:
        record = store.revise(name, changes) if changes else existing
        created = False
    return {"ok": True, "id": name, "created": created, "record": record.to_dict()}


def list_projects(store: Store) -> list[dict[str, Any]]:
    """Every registered project, in the file's order (``DataError`` when the registry
    file cannot be read: never an empty list for a file that holds projects)."""
    return [p.to_dict() for p in store.readable(Project)]


def show_project(store: Store, name: str) -> dict[str, Any]:
    return get_project(store, name).to_dict()


def remove_project(store: Store, name: str) -> dict[str, Any]:
    """Remove ``name``'s entry; ``dependents`` names the projects that still depend on it."""
    removed = store.remove_entry(Project, name)
    dependents = [p.name for p in store.of(Project) if name in p.depends_on]
    return {"ok": True, "id": name, "record": removed.to_dict(), "dependents": dependents}


def read_issues(store: Store) -> list[str]:
    """Why ``projects.yaml`` could not be read (``file:line: message``), if it could not."""
    store.of(Project)
    where = str(store.location(Project))
    return [str(issue) for issue in store.issues if issue.file == where]


def validate_registry(store: Store) -> dict[str, Any]:
    """A file that does not parse, unknown dependencies, dependency cycles and paths
    that do not exist."""
    projects = store.of(Project)
    issues = [
        {"severity": "error", "code": "parse", "project": None, "message": message}
        for message in read_issues(store)
    ]
    issues += problems(projects, base=path_base(store))
    errors = sum(1 for issue in issues if issue["severity"] == "error")
    return {
        "ok": not errors,
        "projects": len(projects),
        "errors": errors,
        "warnings": len(issues) - errors,
        "issues": issues,
    }


def _belongs(record: Record, name: str) -> bool:
    return record.project == name or name in record.tags


def context(store: Store, name: str, *, limit: int = CONTEXT_LIMIT) -> dict[str, Any]:
    """What an agent needs to work on ``name``: its entry, dependencies, recent decisions,
    patterns and anti-patterns, open goals and recurring failures."""
    from lore.recall.core import result_dict

    try:
        project = get_project(store, name)
    except NotFoundError as exc:
        # The records of an unregistered project are still there: say where to read them.
        raise NotFoundError(
            f"{exc.message}; `lore context {name}` shows the records of a project "
            "whether or not it is registered (`lore registry add` registers it)",
            id=name,
        ) from None
    registered = _projects(store)
    cut = slice(0, limit or None)
    decisions = [d for d in store.of(Decision) if _belongs(d, name)]
    decisions.sort(key=lambda d: (d.timestamp, d.id), reverse=True)
    pats = [p for p in store.of(Pattern) if _belongs(p, name)]
    pats.sort(key=lambda p: (p.confidence, p.validations, p.timestamp), reverse=True)
    pats = advice_order(pats)  # flagged advice last
    antis = [a for a in store.of(AntiPattern) if _belongs(a, name)]
    antis.sort(key=lambda a: (SEVERITY_RANK.get(a.severity, 9), a.timestamp))
    goals = [
        g
        for g in store.of(Goal)
        if g.status in OPEN_STATUSES and (name in g.projects or _belongs(g, name))
    ]
    goals.sort(key=lambda g: (SEVERITY_RANK.get(g.priority, 9), g.timestamp))
    return {
        "project": project.to_dict(),
        "local_path": local_path(store, project.path) if isinstance(project.path, str) else "",
        "dependencies": [
            {
                "name": dep,
                "registered": dep in registered,
                "description": registered[dep].description if dep in registered else "",
                "path": registered[dep].path if dep in registered else "",
            }
            for dep in project.depends_on
        ],
        "decisions": [result_dict(d) for d in decisions[cut]],
        "patterns": [result_dict(p) for p in pats[cut]],
        "anti_patterns": [result_dict(a) for a in antis[cut]],
        "goals": [{**result_dict(g), "completion": g.completion} for g in goals[cut]],
        "recurring_failures": _recurring(store, name),
    }


def _recurring(store: Store, name: str) -> list[dict[str, Any]]:
    groups: dict[str, list[Failure]] = {}
    for failure in store.of(Failure):
        if _belongs(failure, name):
            groups.setdefault(failure.error_type, []).append(failure)
    out: list[dict[str, Any]] = []
    for error_type, items in groups.items():
        if len(items) < RULE_OF_THREE:
            continue
        last = max(reversed(items), key=lambda f: f.timestamp)  # ties: the later line
        out.append(
            {
                "error_type": error_type,
                "count": len(items),
                "last_seen": last.timestamp,
                "last_message": last.error_message.splitlines()[0] if last.error_message else "",
            }
        )
    out.sort(key=lambda f: (-f["count"], f["error_type"]))
    return out


def render_context(doc: dict[str, Any]) -> str:
    """The context bundle as Markdown, one section each, "(none)" for an empty one."""
    project = doc["project"]
    lines = [f"# Project {project['name']}", ""]
    if project.get("description"):
        lines += [project["description"], ""]
    if project.get("path"):
        here = doc.get("local_path") or project["path"]
        shown = project["path"] if here == project["path"] else f"{project['path']} ({here})"
        lines += [f"Path: {shown}", ""]

    def section(title: str, items: list[str]) -> None:
        lines.append(f"## {title}")
        lines.extend(items or ["(none)"])
        lines.append("")

    section(
        "Dependencies",
        [
            f"- {d['name']}"
            + (f": {d['description']}" if d["description"] else "")
            + ("" if d["registered"] else " (not registered)")
            for d in doc["dependencies"]
        ],
    )
    section(
        "Recent decisions",
        [
            f"- {d['decision']} ({d['id']}, {d['outcome']})"
            + (f": {d['rationale']}" if d.get("rationale") else "")
            for d in doc["decisions"]
        ],
    )
    section(
        "Patterns",
        [
            f"- {p['name']}"
            + (f": {p['solution']}" if p.get("solution") else "")
            + f" ({p['id']}, confidence {p['confidence']:g}"
            + (f"; {flag_text(flag_summary(p.get('flags')))})" if p.get("flags") else ")")
            for p in doc["patterns"]
        ]
        + [
            f"- Watch for: {a['name']}"
            + (f"; fix: {a['fix']}" if a.get("fix") else "")
            + f" ({a['id']}, {a['severity']})"
            for a in doc["anti_patterns"]
        ],
    )
    section(
        "Open goals",
        [
            f"- {g['title']} [{g['status']}, {g['completion']} criteria met] ({g['id']})"
            for g in doc["goals"]
        ],
    )
    section(
        "Recurring failures",
        [
            f'- {f["error_type"]} x{f["count"]}: last "{f["last_message"]}"'
            for f in doc["recurring_failures"]
        ],
    )
    return "\n".join(lines).rstrip() + "\n"
