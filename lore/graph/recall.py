"""Recall through the graph: ``--graph-depth N`` adds each text hit's neighbourhood, and
``--deep`` ranks by personalized PageRank seeded from the text hits. Each record the
graph brought in carries ``via``: the chain of edges that led to it from a text hit.
"""

from __future__ import annotations

from typing import Any

from lore.graph.snapshot import Snapshot, open_graph
from lore.store.core import Store

SEED_POOL = 20  # text hits that seed --deep
DEEP_HOPS = 2  # --deep walks the graph this far around the seeds
DEEP_MAX_NODES = 20_000
DECAY = 0.5  # --graph-depth: a neighbour at distance d scores hit * DECAY**d


def _walk(snapshot: Snapshot, seeds: list[str], hops: int) -> dict[str, tuple[int, list[str]]]:
    """Nodes within ``hops`` of the seeds: distance and the edges from the nearest seed.
    A hub (``lore.graph.queries.hub_bar``) is reached, never walked through (a seed that
    is a hub, such as a session whose handoff matched the query, included)."""
    from lore.graph.queries import hub_bar

    graph = snapshot.graph
    bar = hub_bar(snapshot)
    seen: dict[str, tuple[int, list[str]]] = {s: (0, []) for s in seeds if s in graph}
    frontier = [s for s in seeds if s in graph and graph.degree(s) <= bar]
    for depth in range(1, hops + 1):
        nxt = []
        for node in frontier:
            trail = seen[node][1]
            steps = [(v, f"{node} {k} {v}") for _, v, k in graph.out_edges(node, keys=True)]
            steps += [(u, f"{u} {k} {node}") for u, _, k in graph.in_edges(node, keys=True)]
            for other, step in sorted(steps):
                if other not in seen:
                    seen[other] = (depth, [*trail, step])
                    if graph.degree(other) <= bar:
                        nxt.append(other)
                    if len(seen) >= DEEP_MAX_NODES:
                        return seen
        frontier = nxt
    return seen


CONTAINERS = ("session", "project")  # walked through, never an answer unless asked for


def _answer(snapshot: Snapshot, key: str, wanted: set[str] | None) -> bool:
    """Whether the graph may return node ``key``: a record, not a session (unless
    ``wanted`` names sessions) nor a project."""
    if key not in snapshot.record_keys or key.startswith("project:"):
        return False
    kind = snapshot.graph.nodes[key].get("type")
    return kind not in CONTAINERS or (wanted is not None and kind in wanted)


def _record_hit(
    snapshot: Snapshot, store: Store, key: str, score: float, parts: dict[str, float]
) -> Any:
    from lore.recall.core import Hit

    record = snapshot.fetch(store, key)
    return None if record is None else Hit(record, score, parts)


def expand(
    store: Store,
    hits: list[Any],
    depth: int,
    *,
    show_hidden: bool = False,
    one_shot: bool = False,
    kinds: Any = (),
) -> tuple[list[Any], dict[str, list[str]]]:
    """The text hits, then the records within ``depth`` edges of them (best hit first)."""
    if depth <= 0 or not hits:
        return hits, {}
    snapshot = open_graph(store, one_shot=one_shot)
    out = list(hits)
    have = {h.record.id for h in hits}
    via: dict[str, list[str]] = {}
    wanted = _kinds(kinds) if kinds else None
    for hit in hits:
        for key, (distance, trail) in sorted(
            _walk(snapshot, [hit.record.id], depth).items(), key=lambda kv: (kv[1][0], kv[0])
        ):
            if key in have or not _answer(snapshot, key, wanted):
                continue
            score = hit.score * DECAY**distance
            found = _record_hit(
                snapshot, store, key, score, {"graph": score, "distance": float(distance)}
            )
            if found is None or (found.record.hidden and not show_hidden):
                continue
            if wanted is not None and found.record.kind not in wanted:
                continue
            have.add(key)
            via[key] = trail
            out.append(found)
    return out, via


def _deep(
    store: Store,
    query: str,
    *,
    limit: int,
    show_hidden: bool = False,
    one_shot: bool = False,
    **filters: Any,
) -> tuple[list[Any], dict[str, list[str]]]:
    """The ``limit`` best records by personalized PageRank seeded from the text hits."""
    from lore.graph.queries import pagerank
    from lore.recall.core import recall

    seeds = recall(
        store, query, limit=SEED_POOL, show_hidden=show_hidden, remember=False, **filters
    )
    if not seeds:
        return [], {}
    snapshot = open_graph(store, one_shot=one_shot)
    weights = {h.record.id: h.score for h in seeds}
    walked = _walk(snapshot, list(weights), DEEP_HOPS)
    ranks = pagerank(snapshot, weights, nodes=set(walked))
    by_id = {h.record.id: h for h in seeds}
    wanted = filters.get("kinds") or ()
    named = filters["asked"].kinds if filters.get("asked") is not None else []
    asked = _kinds(wanted or named) if wanted or named else None
    order = sorted((k for k in ranks if _answer(snapshot, k, asked)), key=lambda k: (-ranks[k], k))
    out: list[Any] = []
    via: dict[str, list[str]] = {}
    for key in order:
        if limit and len(out) >= limit:
            break
        text = by_id.get(key)
        parts = {"pagerank": ranks[key], "text": text.score if text is not None else 0.0}
        found = text if text is not None else _record_hit(snapshot, store, key, ranks[key], parts)
        if found is None or (found.record.hidden and not show_hidden):
            continue
        if wanted and found.record.kind not in _kinds(wanted):
            continue
        found.score, found.parts = ranks[key], parts
        if text is None:
            via[key] = walked[key][1]
        out.append(found)
    return out, via


def _kinds(names: Any) -> set[str]:
    from lore.recall.core import searchable_kinds

    return set(searchable_kinds(list(names)))


def graph_recall(
    store: Store,
    query: str,
    *,
    deep: bool,
    depth: int,
    limit: int,
    show_hidden: bool = False,
    one_shot: bool = False,
    **filters: Any,
) -> tuple[list[Any], dict[str, list[str]]]:
    """``lore recall --deep`` / ``--graph-depth N``: the hits, and how the graph found them.
    ``one_shot``: the process ends after this (see ``lore.graph.snapshot.load``)."""
    from lore.index.history import note_recalled
    from lore.recall.core import recall

    if deep:
        found, via = _deep(
            store, query, limit=limit, show_hidden=show_hidden, one_shot=one_shot, **filters
        )
        if depth:
            found, more = expand(
                store, found, depth, show_hidden=show_hidden, kinds=filters.get("kinds") or ()
            )
            via.update(more)
    else:
        hits = recall(store, query, limit=limit, show_hidden=show_hidden, remember=False, **filters)
        found, via = expand(
            store,
            hits,
            depth,
            show_hidden=show_hidden,
            one_shot=one_shot,
            kinds=filters.get("kinds") or (),
        )
    note_recalled(store.root, [h.record.id for h in found])
    return found, via
