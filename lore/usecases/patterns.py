"""Pattern use cases: list, show, warn, validate, flag (with inversion) and suggest.

Each returns the dict its ``--json`` output prints. The confidence and inversion rules
are ``lore.components.patterns``'; this module only composes store calls around them.
"""

from __future__ import annotations

from typing import Any

from lore import clock
from lore.components.patterns import (
    FLAG_TYPES,
    SEVERITIES,
    SEVERITY_RANK,
    AntiPattern,
    Pattern,
    advice_order,
    flag_summary,
    harmful_count,
    inversion_fields,
    should_invert,
    validation_event,
)
from lore.errors import InvalidInputError, UsageError
from lore.model import Record
from lore.store.core import Store
from lore.store.events import append_event

LIST_TYPES = ("patterns", "anti-patterns", "all")
DEFAULT_LIMIT = 10


def _item(record: Record) -> dict[str, Any]:
    from lore.recall.core import result_dict

    return result_dict(record)


def _pattern_like(store: Store, record_id: str, *, anti: bool = True) -> Record:
    """The pattern (or, with ``anti``, anti-pattern) ``record_id``: exit 3 if there is no
    such record, exit 4 if it is another kind."""
    record = store.get(record_id)
    wanted = (Pattern, AntiPattern) if anti else (Pattern,)
    if not isinstance(record, wanted):
        what = "a pattern or an anti-pattern" if anti else "a pattern"
        article = "an" if record.kind[0] in "aeiou" else "a"
        raise InvalidInputError(
            f"{record_id} is {article} {record.kind}, not {what}", id=record_id, kind=record.kind
        )
    return record


def list_patterns(
    store: Store, *, type: str = "all", category: str | None = None, show_all: bool = False
) -> list[dict[str, Any]]:
    """Patterns (most confident first), then anti-patterns (most severe first).

    ``show_all`` includes retracted, superseded and deprecated ones.
    """
    if type not in LIST_TYPES:
        raise UsageError(f"--type must be one of {', '.join(LIST_TYPES)} (got {type!r})")
    out: list[Record] = []
    if type in ("patterns", "all"):
        pats = store.of(Pattern, hidden=show_all)
        pats.sort(key=lambda p: (p.confidence, p.validations, p.timestamp), reverse=True)
        out.extend(pats)
    if type in ("anti-patterns", "all"):
        antis = store.of(AntiPattern, hidden=show_all)
        antis.sort(key=lambda a: a.timestamp, reverse=True)
        antis.sort(key=lambda a: SEVERITY_RANK.get(a.severity, 9))
        out.extend(antis)
    if category is not None:
        wanted = category.casefold()
        out = [r for r in out if str(getattr(r, "category", "")).casefold() == wanted]
    return [_item(r) for r in out]


def show_pattern(store: Store, record_id: str) -> dict[str, Any]:
    """One pattern or anti-pattern in its latest state (the record object)."""
    return _pattern_like(store, record_id).to_dict()


def warn(
    store: Store,
    name: str,
    *,
    symptom: str,
    fix: str,
    risk: str | None = None,
    severity: str | None = None,
    category: str | None = None,
    tags: list[str] | tuple[str, ...] = (),
    project: str | None = None,
    force: bool = False,
    allow_secret: bool = False,
) -> dict[str, Any]:
    """Create an anti-pattern through capture (schema, secrets gate, near-duplicates)."""
    from lore.capture.core import capture

    if severity is not None and severity not in SEVERITIES:
        raise InvalidInputError(
            f"--severity must be one of {', '.join(SEVERITIES)} (got {severity!r})",
            field="severity",
        )
    for flag, value in (("--symptom", symptom), ("--fix", fix)):
        if not value or not value.strip():
            raise UsageError(f"{flag} must not be empty")
    fields = {"symptom": symptom, "fix": fix, "risk": risk, "severity": severity}
    if category:
        fields["category"] = category
    captured = capture(
        store,
        name,
        kind="anti-pattern",
        fields=fields,
        tags=tags,
        project=project,
        force=force,
        allow_secret=allow_secret,
    )
    record = captured.record
    return {
        "ok": True,
        "id": record.id,
        "type": record.kind,
        "timestamp": record.timestamp,
        "record": record.to_dict(),
        "warnings": captured.warnings,
    }


def validate_pattern(store: Store, pattern_id: str) -> dict[str, Any]:
    """Add a validation: a ``validate`` event in the patterns' events log (``validations +
    1`` and confidence by ``validated()`` on read), appended under the pattern's lock; two
    clones validating at once both count once merged. Only an active pattern can be
    validated."""
    _pattern_like(store, pattern_id, anti=False)
    seen: dict[str, Any] = {}

    def event(state: dict[str, Any]) -> dict[str, Any]:
        seen["from"] = state.get("confidence")
        try:
            return validation_event(pattern_id, state, [], None)
        except ValueError as exc:
            raise InvalidInputError(
                str(exc), id=pattern_id, status=state.get("status", "active")
            ) from None

    record = append_event(store, pattern_id, event)
    return {
        "ok": True,
        "id": record.id,
        "from": seen["from"],
        "to": record.confidence,  # type: ignore[attr-defined]
        "validations": record.validations,  # type: ignore[attr-defined]
        "record": record.to_dict(),
    }


def flag_pattern(
    store: Store,
    pattern_id: str,
    *,
    reason: str,
    type: str = "harmful",
    allow_secret: bool = False,
) -> dict[str, Any]:
    """Record a flag (a ``flag`` event: it lowers the confidence by ``flagged()`` on read).
    The flag that brings the harmful count to the threshold inverts the pattern: it
    creates (or adopts) one ``Avoid: NAME`` anti-pattern and deprecates the pattern, all
    under the pattern's lock, so concurrent flaggers never make two. A pattern that holds
    enough harmful flags but was never inverted (a flagger killed half way, or flags from
    two clones) is inverted by the next flag."""
    from lore.capture.checks import gate

    if type not in FLAG_TYPES:
        raise InvalidInputError(
            f"--type must be one of {', '.join(FLAG_TYPES)} (got {type!r})", field="type"
        )
    reason = (reason or "").strip()
    if not reason:
        raise UsageError("--reason must not be empty")
    if not allow_secret:
        gate({"reason": reason})
    _pattern_like(store, pattern_id, anti=False)
    seen: dict[str, Any] = {"inverted": False}

    def event(state: dict[str, Any]) -> dict[str, Any]:
        seen["from"] = state.get("confidence")
        return {"type": "flag", "flag": type, "reason": reason}

    def invert(state: dict[str, Any]) -> dict[str, Any] | None:
        if not should_invert(state):
            return None
        anti = _inversion(store, state, allow_secret=allow_secret)
        seen["inverted"] = True
        return {"status": "deprecated", "inverted_to": anti.id}

    record = append_event(store, pattern_id, event, then=invert)
    flags = record.flags  # type: ignore[attr-defined]
    return {
        "ok": True,
        "id": record.id,
        "flag": flags[-1] if flags else None,
        "from": seen["from"],
        "to": record.confidence,  # type: ignore[attr-defined]
        "harmful_flags": harmful_count(flags),
        "inverted": seen["inverted"],
        "inverted_to": record.inverted_to,  # type: ignore[attr-defined]
        "record": record.to_dict(),
    }


def _inversion(store: Store, state: dict[str, Any], *, allow_secret: bool = False) -> Record:
    """Create the ``Avoid: NAME`` anti-pattern, or adopt an active one of that name (a
    crash between its creation and the pattern's update must not make a second one).

    The caller holds the pattern's lock; this takes the anti-patterns' own lock.
    """
    from lore.capture.build import current_session_id
    from lore.capture.checks import check, find_duplicate

    fields = inversion_fields(state)
    project = state.get("project") if isinstance(state.get("project"), str) else None
    record = AntiPattern(
        id=clock.new_id("anti"),
        timestamp=clock.now(),
        session_id=current_session_id(store, project),
        project=project,
        source="flag",
        tags=[t for t in state.get("tags") or [] if isinstance(t, str)],
        **fields,
    )
    check(record, allow_secret=allow_secret)
    found: dict[str, Record] = {}

    def adopt() -> None:
        existing = find_duplicate(store, record)
        if existing is not None:
            found["existing"] = existing
            raise _Adopt

    try:
        store.add([record], guard=adopt)
    except _Adopt:
        existing = found["existing"]
        if not getattr(existing, "inverted_from", None):
            return store.revise(existing.id, {"inverted_from": state["id"]})
        return existing
    return record


class _Adopt(Exception):
    """Raised by the add guard when an ``Avoid: NAME`` anti-pattern already exists."""


def suggest(
    store: Store, context: str | None, *, project: str | None, limit: int = DEFAULT_LIMIT
) -> dict[str, Any]:
    """The patterns that fit a situation (``context``), ranked by recall, plus the
    anti-patterns to watch for; without a context, the project's most confident patterns
    and most severe anti-patterns. Deprecated patterns never appear (they are hidden);
    a flagged pattern comes after every unflagged one and carries ``flagged`` (its latest
    flag's type and reason, ``lore.components.patterns.flag_summary``; null when unflagged).

    ``lore suggest`` and ``lore recall --patterns`` both print this.
    """
    from lore.recall.core import recall, result_dict
    from lore.recall.modes import belongs

    if context and context.strip():
        found = recall(
            store, context, kinds=("pattern", "anti-pattern"), here=project, limit=0, remember=False
        )
        hits = {id(h.record): h for h in found}
        ordered = advice_order([h.record for h in found if h.record.kind == "pattern"])
        pats = [_advice(hits[id(p)].to_dict(), p) for p in ordered]
        antis = [h.to_dict() for h in found if h.record.kind == "anti-pattern"]
    else:
        ps = [p for p in store.of(Pattern) if belongs(p, project, unowned=True)]
        ps.sort(key=lambda p: (p.confidence, p.validations, p.timestamp), reverse=True)
        ans = [a for a in store.of(AntiPattern) if belongs(a, project, unowned=True)]
        ans.sort(key=lambda a: a.timestamp, reverse=True)
        ans.sort(key=lambda a: SEVERITY_RANK.get(a.severity, 9))
        pats = [_advice(result_dict(p), p) for p in advice_order(ps)]
        antis = [result_dict(a) for a in ans]
    cut = slice(0, limit or None)
    return {
        "query": context or None,
        "project": project,
        "patterns": pats[cut],
        "anti_patterns": antis[cut],
    }


def _advice(item: dict[str, Any], pattern: Record) -> dict[str, Any]:
    """A suggested pattern's result object with ``flagged`` added."""
    item["flagged"] = flag_summary(getattr(pattern, "flags", None))
    return item
