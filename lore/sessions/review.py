"""The feedback loop: resolve pending decisions and promote recurring failures.

``review`` closes a decision with an outcome (appended, never rewritten);
a successful one raises the confidence of the patterns linked to it, an
abandoned one is recorded as a LogicError failure. ``promote_failure`` turns a
failure type that reached the Rule of Three into one ``PITFALL: TYPE``
anti-pattern, updated in place on later runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from lore import clock
from lore.components.failures import RULE_OF_THREE, Failure, canonical_type, near_types
from lore.components.graph import Edge
from lore.components.journal import Decision
from lore.components.patterns import AntiPattern, Pattern
from lore.errors import InvalidInputError, UsageError
from lore.store.core import Store

RESOLVED_OUTCOMES = ("successful", "revised", "abandoned")
PITFALL_PREFIX = "PITFALL: "
MAX_FAILURE_IDS = 20  # newest failure ids kept on a pitfall


def pending(store: Store, *, days: int = 3) -> list[Decision]:
    """Active decisions still pending after ``days`` days (0: all), oldest first."""
    cutoff = clock.parse_timestamp(clock.now()) - timedelta(days=days)
    stamp = cutoff.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    found = [
        d
        for d in store.of(Decision)
        if d.outcome == "pending" and (days == 0 or d.timestamp <= stamp)
    ]
    return sorted(found, key=lambda d: d.timestamp)


@dataclass
class Resolution:
    decision: Decision
    raised: list[dict[str, Any]] = field(default_factory=list)  # patterns whose confidence rose
    failure: Failure | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": True,
            "id": self.decision.id,
            "outcome": self.decision.outcome,
            "record": self.decision.to_dict(),
            "patterns_raised": self.raised,
            "failure_id": self.failure.id if self.failure else None,
        }


def linked_patterns(store: Store, decision: Decision) -> list[Pattern]:
    """The patterns a decision's success vouches for: those it cites (a pattern id in
    any of its fields, or an asserted edge between the two) and those learned in its
    session. A shared tag or topic is not enough: it would raise unrelated patterns."""
    cited = set(_PATTERN_ID.findall(" ".join(_strings(decision.to_dict()))))
    for edge in store.of(Edge):
        if decision.id in (edge.src, edge.dst):
            cited.update((edge.src, edge.dst))
    session = decision.session_id if isinstance(decision.session_id, str) else None
    return [
        pattern
        for pattern in store.of(Pattern)
        if pattern.id in cited or (session is not None and pattern.session_id == session)
    ]


_PATTERN_ID = re.compile(r"\bpat-[0-9a-f]+\b")


def _strings(value: Any) -> list[str]:
    """Every string in a record's fields, nested ones included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def resolve(
    store: Store,
    decision_id: str,
    *,
    outcome: str,
    lesson: str | None = None,
    force: bool = False,
    allow_secret: bool = False,
) -> Resolution:
    if outcome not in RESOLVED_OUTCOMES:
        raise UsageError(f"--outcome must be one of {', '.join(RESOLVED_OUTCOMES)}")
    if lesson:
        from lore.secrets.gate import gate

        gate({"lesson_learned": lesson}, allow_secret=allow_secret)
    decision = store.get(decision_id)
    if not isinstance(decision, Decision):
        article = "an" if decision.kind[0] in "aeiou" else "a"
        raise InvalidInputError(f"{decision_id} is {article} {decision.kind}, not a decision")
    if not force:
        if decision.status != "active":
            raise InvalidInputError(
                f"{decision_id} is {decision.status}; pass --force to resolve it anyway"
            )
        if decision.outcome != "pending":
            raise InvalidInputError(
                f"{decision_id} is already resolved ({decision.outcome}); "
                "pass --force to resolve it again"
            )
    # Whatever the outcome brings with it is written first and is idempotent; the outcome
    # itself last. A review stopped half way (a lock timeout, a kill) leaves the decision
    # pending, and running it again finishes it without counting anything twice.
    raised: list[dict[str, Any]] = []
    failure: Failure | None = None
    if outcome == "successful":
        for pattern in linked_patterns(store, decision):
            step = raise_pattern(store, pattern.id, by=decision_id)
            if step is not None:
                raised.append(step)
    elif outcome == "abandoned":
        failure = _abandoned_failure(store, decision, lesson)
    changes: dict[str, Any] = {"outcome": outcome, "resolved_at": clock.now()}
    if lesson:
        changes["lesson_learned"] = lesson
    updated = store.revise(decision_id, changes)
    assert isinstance(updated, Decision)
    return Resolution(updated, raised, failure)


def raise_pattern(store: Store, pattern_id: str, *, by: str) -> dict[str, Any] | None:
    """One validation of ``pattern_id`` by the decision ``by`` (the same rule as `lore
    patterns validate`), under the pattern's lock; None when that decision already
    raised it, or the pattern is no longer active."""
    from lore.components.patterns import AlreadyDone, validation_event
    from lore.store.events import append_event, events_of

    seen: dict[str, Any] = {}

    def event(state: dict[str, Any]) -> dict[str, Any]:
        seen["from"] = state.get("confidence")
        return validation_event(pattern_id, state, events_of(store, pattern_id), by)

    try:
        record = append_event(store, pattern_id, event)
    except (AlreadyDone, ValueError):
        return None
    return {"id": pattern_id, "from": seen["from"], "to": record.confidence}  # type: ignore[attr-defined]


def _abandoned_failure(store: Store, decision: Decision, lesson: str | None) -> Failure:
    """The LogicError failure an abandoned decision is recorded as: the one a review of
    it already wrote, if any (a review run again), else a new one."""
    for failure in store.of(Failure):
        if failure.source == "review" and decision.id in failure.tags:
            return failure
    from lore.capture.core import capture

    message = f"Decision abandoned: {decision.decision}"
    if lesson:
        message += f" (lesson: {lesson})"
    captured = capture(
        store,
        message,
        kind="failure",
        fields={"error_type": "LogicError", "step": "review"},
        tags=[t for t in decision.tags if t != decision.project] + [decision.id],
        project=decision.project,
        source="review",
        allow_secret=True,  # the decision and the lesson have both passed the gate
    )
    return captured.record  # type: ignore[return-value]


def _severity(count: int) -> str:
    if count >= 10:
        return "critical"
    if count >= 5:
        return "high"
    return "medium"


@dataclass
class Promotion:
    error_type: str
    count: int
    anti_pattern: AntiPattern
    created: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "error_type": self.error_type,
            "count": self.count,
            "created": self.created,
            "id": self.anti_pattern.id,
            "record": self.anti_pattern.to_dict(),
        }


def promote_failures(
    store: Store,
    error_type: str | None = None,
    *,
    fix: str | None = None,
    threshold: int = RULE_OF_THREE,
) -> list[Promotion]:
    """Create or update ``PITFALL: TYPE`` anti-patterns for recurring failure types."""
    failures = store.of(Failure)
    by_type: dict[str, list[Failure]] = {}
    for failure in failures:
        by_type.setdefault(failure.error_type, []).append(failure)
    if error_type is not None:
        error_type = canonical_type(error_type.strip())
        count = len(by_type.get(error_type, []))
        if count == 0:
            near = near_types(error_type, by_type)[:5]
            common = sorted(by_type, key=lambda t: (-len(by_type[t]), t))[:5]
            shown = ", ".join(f"{t} ({len(by_type[t])})" for t in near or common)
            hint = (
                f"; close types: {shown}"
                if near
                else (f"; the most frequent types: {shown}" if by_type else "; no failures yet")
            )
            raise InvalidInputError(
                f"no failure has error type {error_type}{hint}",
                error_type=error_type,
                count=0,
                close=near,
            )
        if count < threshold:
            raise InvalidInputError(
                f"{error_type} has {count} failure{'s' if count != 1 else ''}, fewer than the "
                f"threshold of {threshold}; lower it with --threshold",
                error_type=error_type,
                count=count,
            )
        types = [error_type]
    else:
        types = sorted(t for t, items in by_type.items() if len(items) >= threshold)
    existing = {a.name: a for a in store.of(AntiPattern, hidden=True)}
    out = []
    for name in types:
        items = sorted(by_type[name], key=lambda f: f.timestamp, reverse=True)
        symptom = "; ".join(dict.fromkeys(f.error_message.splitlines()[0][:120] for f in items[:3]))
        tools = sorted({f.tool for f in items if f.tool})
        risk = f"{len(items)} failures of type {name}" + (
            f" (tools: {', '.join(tools)})" if tools else ""
        )
        fields = {
            "symptom": symptom,
            "risk": risk,
            "severity": _severity(len(items)),
            "category": "failure",
            "failure_count": len(items),
            "failure_ids": [f.id for f in items[:MAX_FAILURE_IDS]],
        }
        if fix:
            fields["fix"] = fix
        title = f"{PITFALL_PREFIX}{name}"
        current = existing.get(title)
        if current is not None:
            changes = {
                k: v for k, v in fields.items() if getattr(current, k, current.extra.get(k)) != v
            }
            if current.status != "active":
                changes["status"] = "active"
            updated = store.revise(current.id, changes) if changes else current
            assert isinstance(updated, AntiPattern)
            out.append(Promotion(name, len(items), updated, created=False))
            continue
        anti = AntiPattern(
            id=clock.new_id("anti"),
            timestamp=clock.now(),
            name=title,
            symptom=symptom,
            risk=risk,
            fix=fix or "",
            severity=_severity(len(items)),
            category="failure",
            tags=sorted({name} | {f.project for f in items if f.project}),
            source="promote-failure",
        )
        anti.extra = {
            "failure_count": len(items),
            "failure_ids": [f.id for f in items[:MAX_FAILURE_IDS]],
        }
        store.add([anti])
        out.append(Promotion(name, len(items), anti, created=True))
    return out
