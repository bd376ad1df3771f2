"""evidence: what supports this? Evidence in ``evidence/data/evidence.jsonl``."""

from __future__ import annotations

from dataclasses import dataclass

from lore.model import Kind, Log, Record, ref, register, text, texts

CONFIDENCES = ("preliminary", "confirmed", "contested", "superseded")


@register
@dataclass(kw_only=True, eq=False, repr=False)  # Record defines both, once
class Evidence(Record):
    KIND = Kind(
        "evidence",
        "evi",
        "evidence",
        Log("evidence.jsonl"),
        title="content",
        search=("content", "provenance", "tags"),
    )
    DIVERGENT = ("confidence", "status", "pinned")

    content: str = text(required=True)
    provenance: str = ""
    confidence: str = text("preliminary", choices=CONFIDENCES)
    supports: list[str] = texts(ref="any")
    derived_from: str | None = ref("observation")

    @property
    def hidden(self) -> bool:
        return self.confidence == "superseded" or super().hidden


def check_confidence(value: str | None) -> str | None:
    """A confidence level, normalized (stripped, lower-case); anything else is refused."""
    if value is None:
        return None
    cleaned = value.strip().lower()
    if cleaned not in CONFIDENCES:
        from lore.errors import InvalidInputError

        raise InvalidInputError(
            f"evidence confidence must be one of {', '.join(CONFIDENCES)} (got {value!r})",
            field="confidence",
        )
    return cleaned
