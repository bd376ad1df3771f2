"""The contradiction check capture runs for a new decision: active decisions (of the same
project, when both have one) that name at least two of its entities (files, backticked
terms) without being near-duplicates of it.

Capture calls it under the log's lock (like the duplicate check) and only for a decision
with two entities or more; with a warm index the candidates come from the index's
postings and only they are read, so a big journal is never read whole.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from lore.components.journal import CONTRADICTION_MIN_SHARED, Decision, shared_entities
from lore.model import Record
from lore.store.core import Store


def find_contradictions(
    store: Store, record: Record, *, ignore: Iterable[str] = ()
) -> list[tuple[Record, list[str]]]:
    """``(decision, shared entities)`` for every active decision ``record`` contradicts,
    oldest first. ``ignore``: ids that do not count (the decision it supersedes)."""
    mine = [e for e in getattr(record, "entities", []) if isinstance(e, str)]
    if len(mine) < CONTRADICTION_MIN_SHARED:
        return []
    skip = {record.id, *ignore}
    candidates = _from_index(store, mine)
    if candidates is None:
        lowered = {e.lower() for e in mine}

        def may_share(state: dict[str, Any]) -> bool:
            theirs = state.get("entities")
            if not isinstance(theirs, list):
                return True  # the record's own default decides; checked below
            hits = {e.lower() for e in theirs if isinstance(e, str)} & lowered
            return len(hits) >= CONTRADICTION_MIN_SHARED

        candidates = store.matching(Decision, may_share)
    from lore.capture.checks import closest, normalize

    target = normalize(record.title)
    found: list[tuple[Record, list[str]]] = []
    for other in candidates:
        if other.id in skip or getattr(other, "status", "active") != "active":
            continue
        if record.project and other.project and other.project != record.project:
            continue  # another project's src/cache.py is another file
        shared = shared_entities(mine, getattr(other, "entities", []))
        if len(shared) < CONTRADICTION_MIN_SHARED:
            continue
        if target and closest(target, [normalize(other.title)]) is not None:
            continue  # a near-duplicate restates it; it does not contradict it
        found.append((other, shared))
    found.sort(key=lambda item: (str(item[0].timestamp), item[0].id))
    return found


def _from_index(store: Store, entities: list[str]) -> list[Record] | None:
    """The active decisions whose indexed text holds every term of at least two of
    ``entities``, read from their own lines; None without a warm index (or when an
    entity has no index terms, so the index cannot narrow the search)."""
    from lore.capture.checks import warm_index
    from lore.index import analyze
    from lore.index.columns import SEARCH_KINDS

    per_entity = [analyze.query_terms(e) for e in entities]
    if any(not terms for terms in per_entity):
        return None
    index = warm_index(store, "decision")
    if index is None:
        return None
    counts: Counter[int] = Counter()
    for terms in per_entity:
        counts.update(index.holding(terms))
    chosen = [d for d, n in counts.items() if n >= CONTRADICTION_MIN_SHARED]
    # Of those, the live decisions shown (as ``docs("decision")``, without making a set
    # of every decision).
    code = SEARCH_KINDS.index("decision")
    kinds, hidden, dead = index.kinds, index.hidden, index.dead
    chosen = sorted(d for d in chosen if kinds[d] == code and not hidden[d] and d not in dead)
    return [index.fetch(store, d) for d in chosen]


def contradiction_edges(record: Record) -> list[Record]:
    """A ``contradicts`` edge (new -> old) per id in ``record.contradicts`` (not stored)."""
    from lore import clock
    from lore.components.graph import Edge

    return [
        Edge(
            id=clock.new_id("edge"),
            timestamp=record.timestamp,
            src=record.id,
            dst=old,
            relation="contradicts",
            project=record.project,
            session_id=record.session_id,
            source="capture",
        )
        for old in getattr(record, "contradicts", [])
    ]
