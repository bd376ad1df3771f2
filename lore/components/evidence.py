"""evidence: what supports this? Evidence in ``evidence/data/evidence.jsonl``."""

from __future__ import annotations

from dataclasses import dataclass

from lore.model import Kind, Log, Record, register, text, texts

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

    content: str = text(required=True)
    provenance: str = ""
    confidence: str = text("preliminary", choices=CONFIDENCES)
    supports: list[str] = texts(ref="any")

    @property
    def hidden(self) -> bool:
        return self.confidence == "superseded" or super().hidden
