"""inbox: what did we notice? Raw observations in ``inbox/data/observations.jsonl``."""

from __future__ import annotations

from dataclasses import dataclass

from lore.model import Kind, Log, Record, register, text

STATUSES = ("raw", "promoted", "discarded")


@register
@dataclass(kw_only=True, eq=False, repr=False)  # Record defines both, once
class Observation(Record):
    KIND = Kind(
        "observation",
        "obs",
        "inbox",
        Log("observations.jsonl"),
        title="content",
        search=("content", "tags"),
    )

    content: str = text(required=True)
    status: str = text("raw", choices=STATUSES)
