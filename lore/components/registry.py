"""registry: what exists? Projects in the hand-editable ``registry/data/projects.yaml``, the
checks on them (unknown dependencies, dependency cycles, missing paths) and where a
project's ``path`` points on this machine.

The file maps project names to entries; comments, key order and unknown keys written by
hand survive every update lore makes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lore.components.intent import dependency_path
from lore.model import Kind, Map, Record, register, text, texts

STATUSES = ("active", "paused", "archived")


@register
@dataclass(kw_only=True, eq=False, repr=False)  # Record defines both, once
class Project(Record):
    KIND = Kind(
        "project",
        None,
        "registry",
        Map("projects.yaml", key="projects"),
        title="name",
        search=("name", "description", "tags"),
    )

    name: str = text(required=True)
    description: str = ""
    path: str = ""
    repo: str = ""
    status: str = text("active", choices=STATUSES)
    depends_on: list[str] = texts()  # project names

    @property
    def hidden(self) -> bool:
        return False


def cycle_through(graph: dict[str, list[str]], name: str, dep: str) -> list[str] | None:
    """The cycle ``name -> dep -> ... -> name`` that depending on ``dep`` would close."""
    path = dependency_path(lambda n: graph.get(n, ()), dep, name)
    return None if path is None else [name, *path]


def cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """Every dependency cycle once, each starting at its smallest name."""
    found: dict[frozenset[str], list[str]] = {}
    for name in sorted(graph):
        for dep in graph[name]:
            cycle = cycle_through(graph, name, dep)
            if cycle is None:
                continue
            ring = cycle[:-1]
            start = ring.index(min(ring))
            found.setdefault(frozenset(ring), [*ring[start:], *ring[:start], ring[start]])
    return sorted(found.values())


def resolve_path(path: str, base: Path) -> Path:
    """A stored ``path`` on this machine: ``~`` expands, a relative one joins ``base``."""
    where = Path(os.path.expanduser(path))
    return where if where.is_absolute() else base / where


def stored_path(given: str, base: Path, *, cwd: Path | None = None) -> str:
    """How ``registry add --path GIVEN`` is stored, so that every clone reads it alike:
    GIVEN is taken from the working directory (``~`` kept as written), then written
    relative to ``base`` when it lies inside it, as ``~/...`` when it lies in the home
    directory, and absolute otherwise."""
    text = given.strip()
    if not text or text.startswith("~"):
        return text
    where = Path(os.path.normpath((cwd or Path.cwd()) / text))
    for folder, prefix in ((base, ""), (Path.home(), "~")):
        try:
            inside = where.relative_to(os.path.normpath(folder)).as_posix()
        except ValueError:
            continue
        if not prefix:
            return inside
        return prefix if inside == "." else f"{prefix}/{inside}"
    return where.as_posix()


def problems(projects: Iterable[Project], *, base: Path) -> list[dict[str, Any]]:
    """What is wrong in the registry: ``{"severity", "code", "project", "message"}`` each.
    Errors: ``unknown-dependency`` and ``dependency-cycle``; a warning:
    ``missing-path`` (a path that does not exist on this machine, which a teammate's
    checkout elsewhere may still have). A relative ``path`` is taken from ``base``
    (``lore.usecases.registry.path_base``); ``~`` expands.
    """
    items = list(projects)
    graph = {p.name: [d for d in p.depends_on if isinstance(d, str)] for p in items}
    out: list[dict[str, Any]] = []
    for p in items:
        for dep in graph[p.name]:
            if dep not in graph:
                out.append(
                    _issue("unknown-dependency", p.name, f"depends on {dep!r}, not registered")
                )
        if isinstance(p.path, str) and p.path:
            where = resolve_path(p.path, base)
            if not where.exists():
                full = "" if str(where) == p.path else f" ({where})"
                message = f"path {p.path} does not exist on this machine{full}"
                out.append(_issue("missing-path", p.name, message, severity="warning"))
    for cycle in cycles(graph):
        out.append(_issue("dependency-cycle", cycle[0], "dependency cycle: " + " -> ".join(cycle)))
    return out


def _issue(code: str, project: str, message: str, *, severity: str = "error") -> dict[str, Any]:
    return {"severity": severity, "code": code, "project": project, "message": message}
