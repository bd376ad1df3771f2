"""The write path's rules for failures: the error types a store holds, the warning for a
new type close to a known one, the Rule of Three count and the PITFALL that names it.

Imported by capture only for failures; a warm search index answers without reading logs.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from lore.capture.checks import warm_index
from lore.index.view import ProjectView
from lore.model import Record
from lore.store.core import Store


def error_types(store: Store) -> dict[str, int]:
    """Each error type of the active failures and how many have it (a warm index
    answers without reading the log; otherwise records are counted, never built)."""
    index = warm_index(store, "failure")
    if index is not None:
        codes = Counter(map(index.grp.__getitem__, index.docs("failure")))
        return {index.groups[g]: n for g, n in codes.items() if index.groups[g]}
    counts: Counter[str] = Counter()
    seen = False

    def tally(state: dict[str, Any]) -> bool:
        nonlocal seen
        seen = True
        kind = state.get("error_type")
        if isinstance(kind, str) and not state.get("retracted_at"):
            counts[kind] += 1
        return False

    found = store.matching("failure", tally)
    if not seen:  # the log was loaded already: matching() gave the records themselves
        counts.update(str(getattr(r, "error_type", "")) for r in found if not r.hidden)
    return dict(counts)


def type_warnings(store: Store, record: Record) -> list[str]:
    """A warning when a new error type is an edit or two away from a known one."""
    from lore.components.failures import RECOMMENDED_TYPES, near_types

    error_type = getattr(record, "error_type", "")
    if error_type in RECOMMENDED_TYPES:
        return []
    known = error_types(store)
    if error_type in known:
        return []
    near = near_types(error_type, [*known, *RECOMMENDED_TYPES])
    if not near:
        return []
    close = ", ".join(
        f"{t} ({known[t]} failure{'s' if known[t] != 1 else ''})" if t in known else t
        for t in near[:3]
    )
    return [
        f"new error type {error_type} is close to {close}: if it is the same kind of "
        f"failure, use that spelling (lore retract {record.id} undoes this one)"
    ]


def rule_of_three(store: Store, record: Record) -> dict[str, Any] | None:
    """``{"error_type", "count", "pitfall", "pattern"}`` when the new failure's type has
    reached the Rule of Three (active failures only); ``pitfall``: the id of the active
    ``PITFALL: <type>`` anti-pattern that names it, ``pattern``: the active pattern tagged
    with the type (``pattern_for``), each None when there is none. Either one names the
    type, and the capture's Rule of Three note then points to it instead of asking."""
    from lore.components.failures import RULE_OF_THREE

    error_type = str(getattr(record, "error_type", ""))
    index = warm_index(store, "failure")
    if index is not None:  # a warm index counts without reading the log
        group = index.code("groups", error_type)
        count = list(map(index.grp.__getitem__, index.docs("failure"))).count(group)
    else:
        # Only failures stored with this type (or with none: the record's default says)
        # are built; a store holds tens of thousands of failures and each costs time.
        failures = store.matching(
            "failure", lambda s: s.get("error_type", error_type) == error_type
        )
        count = sum(
            1 for f in failures if not f.hidden and getattr(f, "error_type", "") == error_type
        )
    if count < RULE_OF_THREE:
        return None
    return {
        "error_type": error_type,
        "count": count,
        "pitfall": pitfall_for(store, error_type),
        "pattern": pattern_for(store, error_type),
    }


def pitfall_for(store: Store, error_type: str) -> str | None:
    """The id of the active ``PITFALL: <error_type>`` anti-pattern, if one exists."""
    name = f"PITFALL: {error_type}"
    index = warm_index(store, "anti-pattern")
    if index is not None:
        for d in index.docs("anti-pattern"):
            facts = index.facts.get(d)
            if facts and facts[1:2] == (name,):
                return str(index.id_of(d))
        return None
    for anti in store.records("anti-pattern"):
        if anti.title == name or anti.extra.get("error_type") == error_type:
            return anti.id
    return None


def pattern_for(store: Store, error_type: str) -> str | None:
    """The id of the active pattern tagged with ``error_type`` (``lore learn ... --tags
    TYPE``): unflagged before flagged, then the most confident, then the newest."""
    index = warm_index(store, "pattern")
    if index is not None:
        tagged = index.tagged(error_type)
        found = [d for d in index.docs("pattern") if d in tagged]
        return str(index.id_of(max(found, key=_advice_rank(index)))) if found else None
    from lore.components.patterns import Pattern, flag_summary

    mine = [p for p in store.of(Pattern) if error_type in p.tags]
    if not mine:
        return None
    best = max(mine, key=lambda p: (flag_summary(p.flags) is None, p.confidence, str(p.timestamp)))
    return best.id


def _advice_rank(index: Any) -> Any:
    """Sort key of a pattern's record number: unflagged, confidence, time (index facts)."""

    def key(doc: int) -> tuple[Any, ...]:
        fact = index.facts.get(doc, ())
        flagged = len(fact) > 2 and bool(fact[2])
        return (not flagged, fact[0] if fact else 0.0, index.ts[doc], doc)

    return key


def recurring(view: ProjectView, threshold: int) -> list[dict[str, Any]]:
    idx = view.index
    grp, ts = idx.grp, idx.ts
    failures = view.docs("failure")
    counts = Counter(map(grp.__getitem__, failures))
    due = [(group, n) for group, n in counts.most_common() if n >= threshold]
    if not due:
        return []
    latest: dict[int, int] = {}
    wanted = {group for group, _ in due}
    # Newest first; on equal times the later record wins, as in every other list.
    for d in sorted(reversed(failures), key=ts.__getitem__, reverse=True):
        if grp[d] in wanted and grp[d] not in latest:
            latest[grp[d]] = d
            if len(latest) == len(wanted):
                break
    pitfalls: dict[str, str] = {}
    for d in view.docs("anti-pattern", everywhere=True):
        name = view.fact(d)[1:2]
        if name and name[0].startswith("PITFALL: "):
            pitfalls[name[0]] = idx.id_of(d)
    patterns = view.docs("pattern", everywhere=True)
    out = []
    for group, count in due:
        last = view.read(latest[group])
        tagged = idx.tagged(str(last.error_type)) if patterns else set()
        named = [d for d in patterns if d in tagged]
        out.append(
            {
                "error_type": last.error_type,
                "count": count,
                "last_seen": last.timestamp,
                "last_message": last.error_message,
                "pitfall": pitfalls.get(f"PITFALL: {last.error_type}"),
                "pattern": idx.id_of(max(named, key=_advice_rank(idx))) if named else None,
            }
        )
    return out


def recurring_failures(
    store: Store, *, project: str | None = None, threshold: int = 3
) -> list[dict[str, Any]]:
    """Error types with ``threshold`` or more failures (the Rule of Three), most first."""
    return recurring(ProjectView(store, project), threshold)
