"""registry: what exists? Projects in the hand-editable ``registry/data/projects.yaml``.

The file maps project names to entries; comments and key order written by hand
survive every update lore makes. Models and storage only for now.
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.model import Kind, Map, Record, register, text

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

    @property
    def hidden(self) -> bool:
        return False
