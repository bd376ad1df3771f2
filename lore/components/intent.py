"""intent: what are we trying to achieve? Goals, one YAML file each under ``intent/data/goals/``.

Models and storage only for now; the goal commands come later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lore.model import Dir, Kind, Record, register, text, texts

STATUSES = ("active", "achieved", "paused", "abandoned")
PRIORITIES = ("low", "medium", "high", "critical")


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
    # Each criterion: {"text": "...", "met": false}.
    criteria: list[dict[str, Any]] = field(default_factory=list)
    deadline: str | None = None
    related: list[str] = texts(ref="any")

    @property
    def criteria_met(self) -> tuple[int, int]:
        met = sum(1 for c in self.criteria if isinstance(c, dict) and c.get("met"))
        return met, len(self.criteria)

    @property
    def hidden(self) -> bool:
        return False
