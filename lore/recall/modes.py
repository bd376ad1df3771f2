"""Recall's modes over the same index and ranking: a type's failures, the error types past
the Rule of Three, a project's context, and a brief on a topic (with contradictions between
its decisions). Returns data; never prints. Plain ranked search is ``lore.recall``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from lore import clock
from lore.components.failures import Failure
from lore.components.intent import Goal
from lore.components.patterns import SEVERITY_RANK, Pattern, advice_order
from lore.index import analyze
from lore.index.persist import open_index
from lore.model import Record
from lore.recall.core import DEFAULT_LIMIT, Hit, hits, parse_since, parse_until, rank, result_dict
from lore.store.core import Store

CONTRADICTION_POOL = 50  # a brief looks for contradictions among this many best decisions
CONTRADICTION_SHARED_TERMS = 2
SETTLED_AGAINST = frozenset({"revised", "abandoned"})


def belongs(record: Record, project: str | None, *, unowned: bool = False) -> bool:
    """``record`` is of ``project`` (its own or tagged); ``unowned`` adds project-less ones."""
    if not project or record.project == project or project in record.tags:
        return True
    return unowned and not record.project


def failures(
    store: Store,
    *,
    error_type: str | None = None,
    query: str | None = None,
    project: str | None = None,
    since: str | None = None,
    limit: int = DEFAULT_LIMIT,
    until: str | None = None,
) -> dict[str, Any]:
    """Failures newest first (of one type, matching ``query``), with counts per type."""
    found = [f for f in store.of(Failure) if belongs(f, project)]
    if error_type:
        found = [f for f in found if f.error_type == error_type]
    since_epoch = parse_since(since)
    if since_epoch is not None:
        found = [f for f in found if clock.epoch(f.timestamp) >= since_epoch]
    until_epoch = parse_until(until)
    if until_epoch is not None:
        found = [f for f in found if clock.epoch(f.timestamp) < until_epoch]
    if query and query.strip():
        result = rank(store, query, kinds=("failure",))
        ids = {result.index.id_of(r.doc) for r in result.ranked}
        found = [f for f in found if f.id in ids]
    found.sort(key=lambda f: (f.timestamp, f.id), reverse=True)
    counts = Counter(str(f.error_type) for f in found)
    return {
        "type": error_type,
        "counts": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        "failures": [result_dict(f) for f in found[: limit or None]],
    }


def triggers(store: Store, *, threshold: int = 3, project: str | None = None) -> dict[str, Any]:
    """Error types with ``threshold`` or more failures (the Rule of Three)."""
    from lore.capture.failure_rules import recurring_failures

    found = recurring_failures(store, project=project, threshold=threshold)
    return {"threshold": threshold, "triggers": found}


def context(store: Store, project: str, *, limit: int = DEFAULT_LIMIT) -> dict[str, Any]:
    """Everything about one project: its registry entry, recent decisions, best patterns,
    recent failures and active goals."""
    cut = slice(0, limit or None)
    registry = [p for p in store.records("project") if p.title == project or p.id == project]
    decisions = [d for d in store.records("decision") if belongs(d, project)]
    decisions.sort(key=lambda d: (d.timestamp, d.id), reverse=True)
    pats = [p for p in store.of(Pattern) if belongs(p, project)]
    pats.sort(key=lambda p: (p.confidence, p.validations, p.timestamp), reverse=True)
    pats = advice_order(pats)  # flagged advice last
    fails = [f for f in store.of(Failure) if belongs(f, project)]
    fails.sort(key=lambda f: (f.timestamp, f.id), reverse=True)
    goals = [g for g in store.of(Goal) if belongs(g, project) and g.status == "active"]
    goals.sort(key=lambda g: g.timestamp, reverse=True)
    goals.sort(key=lambda g: SEVERITY_RANK.get(g.priority, 9))
    return {
        "project": project,
        "registry": [result_dict(p) for p in registry],
        "decisions": [result_dict(d) for d in decisions[cut]],
        "patterns": [result_dict(p) for p in pats[cut]],
        "failures": [result_dict(f) for f in fails[cut]],
        "goals": [result_dict(g) for g in goals[cut]],
    }


def brief(
    store: Store,
    topic: str,
    *,
    project: str | None = None,
    here: str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> dict[str, Any]:
    """Decisions, patterns, failures and contradictions on ``topic``, each with its count."""
    idx = open_index(store)
    out: dict[str, Any] = {"topic": topic}
    pool: list[Hit] = []
    for section, kinds in (
        ("decisions", ("decision",)),
        ("patterns", ("pattern", "anti-pattern")),
        ("failures", ("failure",)),
    ):
        wanted = max(limit, CONTRADICTION_POOL) if limit and section == "decisions" else limit
        result = rank(
            store, topic, kinds=kinds, project=project, here=here, limit=wanted, index=idx
        )
        found = hits(store, idx, result.ranked[: wanted or None], result.matched)
        items = [h.to_dict() for h in found[: limit or None]]
        out[section] = {"count": result.total, "items": items}
        if section == "decisions":
            pool = found[:CONTRADICTION_POOL]
    pairs = contradictions([h.record for h in pool], topic)
    out["contradictions"] = {"count": len(pairs), "items": pairs[: limit or None]}
    return out


def contradictions(decisions: list[Record], topic: str) -> list[dict[str, Any]]:
    """Pairs of active decisions on a topic that overlap but disagree.

    Two decisions overlap when they share an entity (case-insensitive), or at least
    CONTRADICTION_SHARED_TERMS terms of their decision text besides the topic's own.
    They disagree when their outcomes differ and at least one was revised or abandoned
    (a successful and an abandoned choice about the same thing; a pending one and a
    revised one), or when capture recorded one as contradicting the other (its
    ``contradicts`` field). Pairs come in the order of the decisions given (best first).
    """
    topic_terms = set(analyze.query_terms(topic))
    active = [d for d in decisions if getattr(d, "status", "active") == "active"]
    found = []
    for i, a in enumerate(active):
        for b in active[i + 1 :]:
            oa, ob = getattr(a, "outcome", ""), getattr(b, "outcome", "")
            recorded = b.id in _ids(a, "contradicts") or a.id in _ids(b, "contradicts")
            if not recorded and (oa == ob or not ({oa, ob} & SETTLED_AGAINST)):
                continue
            shared = sorted({e.lower() for e in _entities(a)} & {e.lower() for e in _entities(b)})
            why = "entities"
            if recorded:
                found.append(
                    {
                        "a": a.id,
                        "b": b.id,
                        "outcomes": [oa, ob],
                        "shared": shared,
                        "reason": f"recorded at capture: both name {', '.join(shared)}",
                    }
                )
                continue
            if not shared:
                ta = set(analyze.query_terms(a.title)) - topic_terms
                tb = set(analyze.query_terms(b.title)) - topic_terms
                shared = sorted(ta & tb)
                why = "terms"
                if len(shared) < CONTRADICTION_SHARED_TERMS:
                    continue
            found.append(
                {
                    "a": a.id,
                    "b": b.id,
                    "outcomes": [oa, ob],
                    "shared": shared,
                    "reason": f"share {why} {', '.join(shared)} but were {oa} vs {ob}",
                }
            )
    return found


def _ids(record: Record, field: str) -> list[str]:
    value = getattr(record, field, None)
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _entities(record: Record) -> list[str]:
    value = getattr(record, "entities", [])
    return [e for e in value if isinstance(e, str)] if isinstance(value, list) else []
