"""``lore recall --routed``: one question asked of lore and of Engram, the answers merged
with the store each came from.

The route (``classify``): a question about what someone was doing ("what was I working
on", "last session", preferences, debugging) asks Engram first; else one about decisions,
patterns or failures ("why did we choose", "pitfalls", "error") asks lore first; else one
about recent time ("yesterday", "today") asks Engram first; anything else takes from both
in turn, lore's best first. Engram is only read; a missing or unreadable Engram
database leaves lore's answer alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from lore.bridges import engram
from lore.errors import LoreError
from lore.store.core import Store

# Checked in this order, on whole words, case-insensitively: phrases about what someone
# was doing, then words naming lore's records, then words about recent time.
ABOUT_WORK = (
    "working on",
    "work on",
    "was i",
    "were we",
    "where was",
    "last session",
    "this session",
    "preference",
    "preferences",
    "prefer",
    "debugging",
    "episode",
)
ABOUT_RECORDS = (
    "decision",
    "decisions",
    "decide",
    "decided",
    "why",
    "rationale",
    "chose",
    "choose",
    "pattern",
    "patterns",
    "anti-pattern",
    "pitfall",
    "pitfalls",
    "failure",
    "failures",
    "fail",
    "failed",
    "error",
    "errors",
    "trigger",
    "triggers",
    "architecture",
    "lesson",
    "lessons",
    "convention",
    "conventions",
)
RECENT = ("recent", "recently", "yesterday", "today", "this morning", "session")
ROUTES = ("lore-first", "engram-first", "both")


def classify(query: str) -> tuple[str, str | None]:
    """``(route, the phrase that chose it)``; ``("both", None)`` when none does."""
    text = " ".join(re.findall(r"[a-z]+(?:-[a-z]+)*", query.lower()))
    order = (("engram-first", ABOUT_WORK), ("lore-first", ABOUT_RECORDS), ("engram-first", RECENT))
    for route, phrases in order:
        for phrase in phrases:
            if re.search(rf"(?<![a-z-]){re.escape(phrase)}(?![a-z-])", text):
                return route, phrase
    return "both", None


def search_engram(
    conn: Any, query: str, *, limit: int, since: float | None, until: float | None, now: float
) -> list[dict[str, Any]]:
    """Engram's own memories (not lore's shadows, not expired) that share words with
    ``query``, best first: score = the share of the query's terms a memory holds
    x (0.8 + 0.04 x its importance, 0-5)."""
    from lore.index import analyze as search

    wanted = set(search.terms(query))
    if not wanted:
        return []
    found = []
    for memory in engram.memories(conn, "WHERE source != ?", (engram.SOURCE,)):
        if memory.expiresAt and memory.expiresAt <= now:
            continue
        if (since is not None and memory.createdAt < since) or (
            until is not None and memory.createdAt >= until
        ):
            continue
        share = len(wanted & set(search.terms(memory.content))) / len(wanted)
        if share:
            importance = max(0, min(5, memory.importance or 0))
            found.append((share * (0.8 + 0.04 * importance), memory))
    found.sort(key=lambda f: (-f[0], -f[1].createdAt, f[1].id))
    return [_memory(m, s) for s, m in (found[:limit] if limit else found)]


def _memory(memory: engram.Memory, score: float) -> dict[str, Any]:
    when = datetime.fromtimestamp(memory.createdAt, timezone.utc) if memory.createdAt else None
    return {
        "store": "engram",
        "id": f"engram:{memory.id}",
        "type": "memory",
        "score": round(score, 4),
        "title": " ".join(memory.content.split())[:200],
        "timestamp": when.strftime("%Y-%m-%dT%H:%M:%S.%fZ") if when else None,
        "item": {
            "id": memory.id,
            "content": memory.content,
            "topic": memory.topic,
            "project": memory.project,
            "importance": memory.importance,
            "accessCount": memory.accessCount,
            "source": memory.source,
        },
    }


def routed(
    store: Store,
    query: str,
    *,
    kinds: Sequence[str] = (),
    project: str | None = None,
    tags: Sequence[str] = (),
    since: str | None = None,
    until: str | None = None,
    limit: int = 10,
    show_all: bool = False,
    db: str | None = None,
) -> dict[str, Any]:
    """Both stores' answers to ``query``, merged in the order its route says."""
    from lore import clock, timeexpr
    from lore.capture.build import detect_project
    from lore.recall.core import recall

    route, why = classify(query)
    hits = recall(
        store,
        query,
        kinds=tuple(kinds),
        project=project,
        tags=tuple(tags),
        since=since,
        until=until,
        limit=limit,
        show_hidden=show_all,
        here=detect_project(project),
    )
    lore_side = [_hit(h.to_dict()) for h in hits]
    where = engram.path(db)
    found = where.is_file()
    engram_side: list[dict[str, Any]] = []
    problem = None
    window = timeexpr.since(since), timeexpr.until(until)
    if found:
        try:
            with engram.connect(where, write=False) as conn:
                engram_side = search_engram(
                    conn,
                    query,
                    limit=limit,
                    since=window[0],
                    until=window[1],
                    now=clock.now_datetime().timestamp(),
                )
        except LoreError as exc:  # fail-soft: lore still answers
            problem = exc.message
    # A memory promoted into lore is lore's record now: lore answers for it, once.
    held = {h["item"].get("engram_id") for h in lore_side}
    engram_side = [m for m in engram_side if m["item"]["id"] not in held]
    results = merge(route, lore_side, engram_side)
    return {
        "query": query,
        "route": route,
        "why": why,
        "engram": {"db": str(where), "found": found, "error": problem},
        "results": results[:limit] if limit else results,
    }


def _hit(item: dict[str, Any]) -> dict[str, Any]:
    from lore.model import kind_class

    title = item.get(kind_class(item["type"]).KIND.title)
    return {
        "store": "lore",
        "id": item["id"],
        "type": item["type"],
        "score": item.get("score"),
        "title": " ".join(title.split()) if isinstance(title, str) else "",
        "timestamp": item.get("timestamp"),
        "item": item,
    }


def merge(
    route: str, lore: list[dict[str, Any]], other: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """lore-first: lore's answers, then Engram's; engram-first: the reverse; both: one from
    each in turn, lore's first."""
    if route == "lore-first":
        return lore + other
    if route == "engram-first":
        return other + lore
    out: list[dict[str, Any]] = []
    for i in range(max(len(lore), len(other))):
        out.extend(side[i] for side in (lore, other) if i < len(side))
    return out
