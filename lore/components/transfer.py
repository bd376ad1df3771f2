"""transfer: what's next? Sessions, one JSON file each under ``transfer/data/sessions/``.

Models and storage only for now; handoff and resume come later.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lore.model import Dir, Kind, Record, ref, register, text, texts

STATUSES = ("open", "closed", "archived")


@register
@dataclass(kw_only=True)
class Session(Record):
    KIND = Kind(
        "session",
        "session",
        "transfer",
        Dir("sessions", ".json"),
        title="summary",
        search=("message", "next_steps", "blockers", "questions", "threads", "tags"),
    )

    status: str = text("open", choices=STATUSES)
    ended_at: str | None = None
    message: str = ""
    summary: str = ""
    next_steps: list[str] = texts()
    blockers: list[str] = texts()
    questions: list[str] = texts()
    threads: list[str] = texts()
    git: dict[str, Any] | None = None
    # Ids captured during the session, by kind: {"decision": [...], ...}.
    captured: dict[str, Any] = field(default_factory=dict)
    parent: str | None = ref("session")

    @property
    def hidden(self) -> bool:
        return self.status == "archived"
