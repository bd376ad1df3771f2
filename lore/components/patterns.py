"""patterns: what did we learn? Patterns and anti-patterns, one YAML file each.

``patterns/data/patterns/pat-*.yaml`` and ``patterns/data/anti-patterns/anti-*.yaml``:
one file per record, so two clones adding different patterns never conflict, and
hand-written comments survive lore's own updates.
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.model import Dir, Kind, Record, register, text, texts

STATUSES = ("active", "retracted", "superseded")
SEVERITIES = ("low", "medium", "high", "critical")
# Most urgent first (0); goals' priorities use the same four levels.
SEVERITY_RANK = {name: rank for rank, name in enumerate(reversed(SEVERITIES))}


@register
@dataclass(kw_only=True, eq=False, repr=False)  # Record defines both, once
class Pattern(Record):
    KIND = Kind(
        "pattern",
        "pat",
        "patterns",
        Dir("patterns", ".yaml"),
        title="name",
        search=("name", "context", "problem", "solution", "category", "examples", "tags"),
    )

    name: str = text(required=True)
    context: str = ""
    problem: str = ""
    solution: str = ""
    category: str = ""
    origin: str = ""
    confidence: float = 0.5
    validations: int = 0
    examples: list[str] = texts()
    status: str = text("active", choices=STATUSES)

    def problems(self) -> list[tuple[str, str]]:
        found = super().problems()
        if isinstance(self.confidence, (int, float)) and not 0 <= self.confidence <= 1:
            found.append(("confidence", f"must be between 0 and 1 (got {self.confidence})"))
        if isinstance(self.validations, int) and self.validations < 0:
            found.append(("validations", "must not be negative"))
        return found


@register
@dataclass(kw_only=True, eq=False, repr=False)  # Record defines both, once
class AntiPattern(Record):
    KIND = Kind(
        "anti-pattern",
        "anti",
        "patterns",
        Dir("anti-patterns", ".yaml"),
        title="name",
        search=("name", "symptom", "risk", "fix", "category", "tags"),
    )

    name: str = text(required=True)
    symptom: str = ""
    risk: str = ""
    fix: str = ""
    severity: str = text("medium", choices=SEVERITIES)
    category: str = ""
    status: str = text("active", choices=STATUSES)
