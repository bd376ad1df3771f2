"""patterns: what did we learn? Patterns and anti-patterns, one YAML file each, and the
rules that move a pattern's confidence (validate, flag) and invert a harmful one.

``patterns/data/patterns/pat-*.yaml`` and ``patterns/data/anti-patterns/anti-*.yaml``:
one file per record, so two clones adding different patterns never conflict, and
hand-written comments survive lore's own updates. Validations and flags are events in
``patterns/data/pattern-events.jsonl`` (union-merged, so two clones validating at once
both count), folded into the pattern's document on every read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lore.model import HIDDEN_STATUSES, Dir, Kind, Record, ref, register, text, texts

EVENTS_FILE = "pattern-events.jsonl"
EVENT_TYPES = ("validate", "flag")
STATUSES = ("active", "retracted", "superseded", "deprecated", "archived")
ANTI_STATUSES = ("active", "retracted", "superseded", "archived")
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
        Dir("patterns", ".yaml", events=EVENTS_FILE),
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
    # Each flag: {"timestamp", "type" (one of FLAG_TYPES), "reason"}.
    flags: list[dict[str, Any]] = field(default_factory=list)
    inverted_to: str | None = ref("anti-pattern")

    @property
    def hidden(self) -> bool:
        # A deprecated (inverted) pattern is never suggested again.
        return self.status in HIDDEN_STATUSES or self.status == "deprecated"

    EVENT_TYPES = EVENT_TYPES

    @classmethod
    def fold_events(cls, state: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
        """The document's ``validations``, ``confidence`` and ``flags`` (what lore wrote
        there before events existed, or by hand) with every validation and flag event
        applied in time order; a deprecated pattern's confidence stays 0."""
        return apply_events(state, events)

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
    status: str = text("active", choices=ANTI_STATUSES)
    inverted_from: str | None = ref("pattern")


# --- confidence and inversion rules -------------------------------------------------

VALIDATION_STEP = 0.1  # what one validation (or a successful linked decision) adds
FLAG_TYPES = ("harmful", "obsolete", "incorrect")
# What one flag of each type takes off a pattern's confidence.
FLAG_PENALTY = {"harmful": 0.2, "incorrect": 0.15, "obsolete": 0.1}
INVERSION_THRESHOLD = 3  # harmful flags that invert a pattern
AVOID_PREFIX = "Avoid: "


def validated(confidence: float) -> float:
    """Confidence after one validation: ``+VALIDATION_STEP``, at most 1.0.

    Rounded to 6 places: drops float noise (0.7 + 0.1) yet keeps the step exact.
    """
    return round(min(1.0, float(confidence) + VALIDATION_STEP), 6)


def flagged(confidence: float, flag_type: str) -> float:
    """Confidence after one flag of ``flag_type``: ``-FLAG_PENALTY[type]``, at least 0."""
    return round(max(0.0, float(confidence) - FLAG_PENALTY[flag_type]), 6)


def _number(value: Any, default: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return float(value)


def apply_events(state: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """See ``Pattern.fold_events``; events of an unknown type are skipped (validate names
    them). Hand-edited values of the wrong type read as the defaults."""
    if not events and state.get("status") != "deprecated":
        return state
    out = dict(state)
    confidence = _number(out.get("confidence"), 0.5)
    validations = int(_number(out.get("validations"), 0))
    flags = [f for f in out.get("flags") or [] if isinstance(f, dict)]
    for event in events:
        kind = event.get("type")
        if kind == "validate":
            validations += 1
            confidence = validated(min(max(confidence, 0.0), 1.0))
        elif kind == "flag" and event.get("flag") in FLAG_TYPES:
            flag_type = str(event["flag"])
            flags.append(
                {
                    "timestamp": event.get("timestamp"),
                    "type": flag_type,
                    "reason": event.get("reason", ""),
                }
            )
            confidence = flagged(min(max(confidence, 0.0), 1.0), flag_type)
    if events:
        out.update(confidence=confidence, validations=validations, flags=flags)
    if out.get("status") == "deprecated":
        out["confidence"] = 0.0
    return out


class AlreadyDone(Exception):
    """A validation ``by`` a given decision that the pattern already holds."""


def validation_event(
    pattern_id: str, state: dict[str, Any], events: list[dict[str, Any]], by: str | None
) -> dict[str, Any]:
    """The ``validate`` event for a pattern in ``state`` (its events so far: ``events``).

    Only an active pattern is validated (``ValueError`` says why not); a validation
    ``by`` a decision that already validated it raises ``AlreadyDone``, so a review run
    again never counts twice.
    """
    status = state.get("status", "active")
    if status != "active":
        raise ValueError(f"{pattern_id} is {status}; only an active pattern can be validated")
    if by is not None and any(e.get("type") == "validate" and e.get("by") == by for e in events):
        raise AlreadyDone(by)
    return {"type": "validate", "by": by} if by is not None else {"type": "validate"}


def harmful_count(flags: list[Any]) -> int:
    return sum(1 for f in flags if isinstance(f, dict) and f.get("type") == "harmful")


def should_invert(state: dict[str, Any]) -> bool:
    """A pattern inverts once it holds INVERSION_THRESHOLD harmful flags and has no
    inversion yet (``inverted_to`` set means it already happened: never twice)."""
    flags = state.get("flags")
    return (
        not state.get("inverted_to")
        and isinstance(flags, list)
        and harmful_count(flags) >= INVERSION_THRESHOLD
    )


def flag_summary(flags: Any) -> dict[str, Any] | None:
    """A flagged pattern's warning: its latest flag's ``type`` and ``reason`` and how many
    flags it holds (``count``); None for a pattern without flags. Flagged advice is shown
    with this and ranked below every unflagged pattern (suggest, resume, context)."""
    found = [f for f in flags if isinstance(f, dict)] if isinstance(flags, list) else []
    if not found:
        return None
    latest = found[-1]
    return {
        "type": str(latest.get("type") or ""),
        "reason": str(latest.get("reason") or ""),
        "count": len(found),
    }


def flag_text(summary: dict[str, Any] | None) -> str:
    """``flagged incorrect: <reason>`` (and ``, 2 flags`` when there are more), or ``""``."""
    if not summary:
        return ""
    more = f", {summary['count']} flags" if summary.get("count", 1) > 1 else ""
    reason = f": {summary['reason']}" if summary.get("reason") else ""
    return f"flagged {summary['type']}{reason}{more}"


def advice_order(patterns: list[Any]) -> list[Any]:
    """``patterns`` (records, in their ranked order) with the flagged ones moved below the
    unflagged ones, each group keeping its order."""
    return sorted(patterns, key=lambda p: flag_summary(getattr(p, "flags", None)) is not None)


def inversion_name(name: str) -> str:
    return f"{AVOID_PREFIX}{name}"


def inversion_fields(state: dict[str, Any]) -> dict[str, Any]:
    """The ``Avoid: NAME`` anti-pattern's fields, from the pattern's state and its flags."""
    reasons = [
        str(f.get("reason", "")).strip()
        for f in state.get("flags") or []
        if isinstance(f, dict) and f.get("type") == "harmful"
    ]
    solution = str(state.get("solution") or "").strip()
    return {
        "name": inversion_name(str(state.get("name", ""))),
        "symptom": f"Applying it: {solution}" if solution else "Applying it",
        "risk": "; ".join(dict.fromkeys(r for r in reasons if r)),
        "fix": f"Stop applying it; {state.get('id')} says why it was deprecated",
        "severity": "high",
        "category": str(state.get("category") or ""),
        "inverted_from": state.get("id"),
    }
