"""registry: what exists? Projects in the hand-editable ``registry/data/projects.yaml``, and
the checks on them (unknown dependencies, dependency cycles, missing paths).

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


def problems(projects: Iterable[Project], *, cwd: Path | None = None) -> list[dict[str, Any]]:
    """Errors in the registry: ``{"severity", "code", "project", "message"}`` each, with
    codes ``unknown-dependency``, ``dependency-cycle`` and ``missing-path``.

    A relative ``path`` is taken from ``cwd`` (the working directory); ``~`` expands.
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
            where = Path(os.path.expanduser(p.path))
            if not where.is_absolute():
                where = (cwd or Path.cwd()) / where
            if not where.exists():
                out.append(_issue("missing-path", p.name, f"path {p.path} does not exist"))
    for cycle in cycles(graph):
        out.append(_issue("dependency-cycle", cycle[0], "dependency cycle: " + " -> ".join(cycle)))
    return out


def _issue(code: str, project: str, message: str) -> dict[str, Any]:
    return {"severity": "error", "code": code, "project": project, "message": message}
