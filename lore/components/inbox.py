"""inbox: what did we notice? Raw observations in ``inbox/data/observations.jsonl``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lore.components.provenance import provenance_field
from lore.model import Kind, Log, Record, ref, register, text

STATUSES = ("raw", "promoted", "discarded", "archived")


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
    promoted_to: str | None = ref("any")
    discard_reason: str = ""
    provenance: dict[str, Any] | None = provenance_field()

    @property
    def hidden(self) -> bool:
        # A discarded observation was judged wrong or useless: not a live result either.
        return self.status == "discarded" or super().hidden


PROMOTE_TO = ("decision", "pattern", "evidence")
# What `lore ingest` tags an observation it found in a transcript with (beside "decision",
# "preference" or "pattern"): a candidate for promotion. Its promotion does not carry it.
CANDIDATE_TAG = "candidate"


def check_status(value: str | None) -> str | None:
    """A triage status, normalized; ``all`` means every status (None)."""
    if value is None or value.strip().lower() == "all":
        return None
    cleaned = value.strip().lower()
    if cleaned not in STATUSES:
        from lore.errors import InvalidInputError

        raise InvalidInputError(
            f"observation status must be one of {', '.join(STATUSES)} or all (got {value!r})",
            field="status",
        )
    return cleaned


def check_triage(observation: Observation) -> None:
    """Only a raw observation can be promoted or discarded; say what happened to it."""
    from lore.errors import InvalidInputError

    if observation.status == "promoted":
        raise InvalidInputError(
            f"{observation.id} was already promoted to {observation.promoted_to}",
            id=observation.id,
            promoted_to=observation.promoted_to,
        )
    if observation.status == "discarded":
        why = f" ({observation.discard_reason})" if observation.discard_reason else ""
        raise InvalidInputError(f"{observation.id} was discarded{why}", id=observation.id)
