"""Reading the graph: show, neighbours, related, path, label search, stats, orphans,
concepts, hubs and (personalized) PageRank. Every answer is plain data, sorted so the
same graph always gives the same answer.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from typing import Any

from lore.errors import NotFoundError, UsageError
from lore.graph import rules
from lore.graph.snapshot import Snapshot
from lore.store.core import Store

RECORD_TYPES = frozenset(
    {"decision", "pattern", "anti-pattern", "concept", "failure", "observation", "evidence"}
    | {"goal", "session"}
)
DIRECTIONS = ("in", "out", "both")
MAX_HOPS = 3
# A hub: a node with more than HUB_FACTOR times the graph's mean degree, and more than
# HUB_MIN_DEGREE edges (a session that produced many records, a project, a common file).
# Walks (related, export --focus, recall --graph-depth and --deep) list a hub but do not
# pass through it unless they start there; paths pay ln(degree) to cross a node;
# personalized PageRank moves to a neighbour in proportion to 1 / its degree.
HUB_FACTOR = 3.0
HUB_MIN_DEGREE = 5


def node_key(snapshot: Snapshot, text: str) -> str:
    """The node ``text`` names: a record id or node key, else a project, file or error type,
    else the record whose ``legacy_id`` it is."""
    graph = snapshot.graph
    for key in (text, rules.project_key(text), rules.file_key(text), rules.ERROR_TYPE + text):
        if key in graph:
            return key
    legacy = sorted(k for k, attrs in graph.nodes(data=True) if attrs.get("legacy_id") == text)
    if legacy:  # an imported record named by its original id
        return legacy[0]
    raise NotFoundError(
        f"no graph node {text!r} (a record id, project, file or error type)", id=text
    )


def node_dict(snapshot: Snapshot, key: str) -> dict[str, Any]:
    attrs = snapshot.graph.nodes[key]
    return {"id": key, "type": attrs.get("type"), "label": attrs.get("label", ""), **_rest(attrs)}


def _rest(attrs: dict[str, Any]) -> dict[str, Any]:
    return {k: attrs[k] for k in sorted(attrs) if k not in ("type", "label")}


def _edges(snapshot: Snapshot, key: str, direction: str, relation: str | None) -> list[Any]:
    graph = snapshot.graph
    found: list[tuple[str, str, str, str]] = []  # (direction, neighbour, relation, sort)
    if direction in ("out", "both"):
        found += [("out", v, k, v) for _, v, k in graph.out_edges(key, keys=True)]
    if direction in ("in", "both"):
        found += [("in", u, k, u) for u, _, k in graph.in_edges(key, keys=True)]
    if relation is not None:
        found = [f for f in found if f[2] == relation]
    return sorted(found, key=lambda f: (f[2], f[0], f[3]))


def show(snapshot: Snapshot, store: Store, text: str) -> dict[str, Any]:
    key = node_key(snapshot, text)
    record = snapshot.fetch(store, key) if key in snapshot.record_keys else None
    return {
        "node": node_dict(snapshot, key),
        "record": record.to_dict() if record is not None else None,
        "edges": [
            {"from": key, "to": other, "relation": rel}
            if way == "out"
            else {"from": other, "to": key, "relation": rel}
            for way, other, rel, _ in _edges(snapshot, key, "both", None)
        ],
    }


def neighbors(
    snapshot: Snapshot, text: str, *, relation: str | None = None, direction: str = "both"
) -> dict[str, Any]:
    if direction not in DIRECTIONS:
        raise UsageError(f"--direction must be one of {', '.join(DIRECTIONS)}")
    key = node_key(snapshot, text)
    rel = rules.normalize_relation(relation) if relation else None
    return {
        "id": key,
        "neighbors": [
            {**node_dict(snapshot, other), "relation": r, "direction": way}
            for way, other, r, _ in _edges(snapshot, key, direction, rel)
        ],
    }


def hub_bar(snapshot: Snapshot) -> float:
    """The degree above which a node is a hub (see HUB_FACTOR). The mean degree counts
    linked pairs (two relations between the same two nodes count once): read from the
    adjacency's sizes, as ``number_of_edges`` walks every edge (30x slower)."""
    graph = snapshot.graph
    nodes = graph.number_of_nodes()
    succ = getattr(graph, "_succ", None)  # networkx's adjacency dict (node -> neighbours)
    pairs = sum(map(len, succ.values())) if isinstance(succ, dict) else graph.number_of_edges()
    mean = 2.0 * pairs / nodes if nodes else 0.0
    return max(float(HUB_MIN_DEGREE), HUB_FACTOR * mean)


def within(
    snapshot: Snapshot, keys: list[str], hops: int, hubs: set[str] | None = None
) -> dict[str, int]:
    """Every node at most ``hops`` edges (either direction) from ``keys``, with its distance.
    A hub (``hub_bar``) other than a start is reached but not walked through; ``hubs``,
    when given, collects the hubs that were reached and not walked through."""
    graph = snapshot.graph
    bar = hub_bar(snapshot)
    seen = {k: 0 for k in keys}
    frontier = list(keys)
    for depth in range(1, hops + 1):
        nxt = []
        for node in frontier:
            for other in (*graph.successors(node), *graph.predecessors(node)):
                if other not in seen:
                    seen[other] = depth
                    if graph.degree(other) > bar:
                        if hubs is not None and depth < hops:
                            hubs.add(other)
                        continue
                    nxt.append(other)
        frontier = nxt
    return seen


def related(snapshot: Snapshot, text: str, hops: int) -> dict[str, Any]:
    """The nodes within ``hops`` of one, nearest first; ``hubs``: the hubs among them whose
    other neighbours were not followed."""
    if not 1 <= hops <= MAX_HOPS:
        raise UsageError(f"--hops must be between 1 and {MAX_HOPS}")
    key = node_key(snapshot, text)
    hubs: set[str] = set()
    found = within(snapshot, [key], hops, hubs)
    del found[key]
    nodes = sorted(found.items(), key=lambda kv: (kv[1], kv[0]))
    graph = snapshot.graph
    return {
        "id": key,
        "hops": hops,
        "nodes": [{**node_dict(snapshot, k), "distance": d} for k, d in nodes],
        "hubs": [{"id": h, "degree": graph.degree(h)} for h in sorted(hubs)],
    }


def path(snapshot: Snapshot, a: str, b: str) -> dict[str, Any]:
    """The cheapest chain of edges between two nodes, followed in either direction: each
    step costs 1 plus ln(degree) of the node it enters, so a path goes around a hub when
    a route through quieter nodes is not much longer."""
    import math

    import networkx as nx

    src, dst = node_key(snapshot, a), node_key(snapshot, b)
    graph = snapshot.graph
    degree = graph.degree

    def cost(u: str, v: str, _: Any) -> float:
        return 1.0 + math.log(max(degree(v), 1))

    try:
        nodes = nx.shortest_path(graph.to_undirected(as_view=True), src, dst, weight=cost)
    except nx.NetworkXNoPath:
        raise NotFoundError(f"no path between {src} and {dst}", id=dst) from None
    steps = []
    for u, v in pairwise(nodes):
        if graph.has_edge(u, v):
            steps.append({"from": u, "to": v, "relation": min(graph[u][v])})
        else:
            steps.append({"from": v, "to": u, "relation": min(graph[v][u])})
    return {
        "from": src,
        "to": dst,
        "length": len(steps),
        "nodes": [node_dict(snapshot, k) for k in nodes],
        "edges": steps,
    }


def query(snapshot: Snapshot, text: str, *, limit: int = 50) -> dict[str, Any]:
    """Nodes whose label or id contains ``text`` (case-insensitive)."""
    needle = text.strip().lower()
    if not needle:
        raise UsageError("nothing to look for: give some TEXT")
    found = sorted(
        key
        for key, attrs in snapshot.graph.nodes(data=True)
        if needle in str(attrs.get("label", "")).lower() or needle in key.lower()
    )
    shown = found[:limit] if limit else found
    return {"query": text, "total": len(found), "nodes": [node_dict(snapshot, k) for k in shown]}


def stats(snapshot: Snapshot) -> dict[str, Any]:
    import networkx as nx

    graph = snapshot.graph
    types = Counter(attrs.get("type") for _, attrs in graph.nodes(data=True))
    relations = Counter(k for _, _, k in graph.edges(keys=True))
    return {
        "nodes": graph.number_of_nodes(),
        "edges": graph.number_of_edges(),
        "node_types": dict(sorted(types.items())),
        "relations": dict(sorted(relations.items())),
        "components": nx.number_weakly_connected_components(graph) if len(graph) else 0,
        "orphans": len(_orphans(snapshot)),
    }


def _orphans(snapshot: Snapshot) -> list[str]:
    graph = snapshot.graph
    return sorted(k for k in snapshot.record_keys if k in graph and graph.degree(k) == 0)


def orphans(snapshot: Snapshot, *, limit: int = 0) -> dict[str, Any]:
    """Records linked to nothing at all."""
    found = _orphans(snapshot)
    shown = found[:limit] if limit else found
    return {"total": len(found), "nodes": [node_dict(snapshot, k) for k in shown]}


def concepts(snapshot: Snapshot) -> dict[str, Any]:
    """Every concept with the records that ground it and those that reference it."""
    graph = snapshot.graph
    out = []
    for key in sorted(k for k, a in graph.nodes(data=True) if a.get("type") == "concept"):
        by: dict[str, list[str]] = {}
        for u, _, rel in graph.in_edges(key, keys=True):
            by.setdefault(rel, []).append(u)
        out.append(
            {
                **node_dict(snapshot, key),
                "grounded_by": sorted(by.pop("grounds", [])),
                "referenced_by": sorted(u for us in by.values() for u in us),
            }
        )
    return {"concepts": out}


def hubs(snapshot: Snapshot, *, limit: int = 10, by: str = "degree") -> dict[str, Any]:
    """The most connected records (by degree, or by PageRank)."""
    graph = snapshot.graph
    keys = [k for k in snapshot.record_keys if k in graph]
    if by == "pagerank":
        ranks = pagerank(snapshot)
        scored = sorted(keys, key=lambda k: (-ranks.get(k, 0.0), k))
    elif by == "degree":
        scored = sorted(keys, key=lambda k: (-graph.degree(k), k))
    else:
        raise UsageError("--by must be degree or pagerank")
    shown = scored[:limit] if limit else scored
    return {
        "by": by,
        "hubs": [
            {
                **node_dict(snapshot, k),
                "degree": graph.degree(k),
                **({"pagerank": round(ranks[k], 6)} if by == "pagerank" else {}),
            }
            for k in shown
        ],
    }


def pagerank(
    snapshot: Snapshot,
    personalization: dict[str, float] | None = None,
    *,
    nodes: set[str] | None = None,
    alpha: float = 0.85,
    iterations: int = 50,
    tol: float = 1e-9,
) -> dict[str, float]:
    """PageRank by power iteration over the graph read as undirected (links count both
    ways), optionally restricted to ``nodes`` and personalized (restarts at the seeds).
    Personalized, the walk is damped at hubs: it moves from a node to each neighbour in
    proportion to 1 / that neighbour's degree, so a session or project linked to every
    seed does not soak up their rank. Plain Python: networkx's own pagerank needs scipy,
    which lore does not depend on."""
    graph = snapshot.graph
    members = sorted(nodes if nodes is not None else graph.nodes)
    inside = set(members)
    links = {
        n: [m for m in (*graph.successors(n), *graph.predecessors(n)) if m in inside and m != n]
        for n in members
    }
    shares: dict[str, list[float]] = {}
    if personalization:
        degree = graph.degree
        for n, out in links.items():
            weights = [1.0 / max(degree(m), 1) for m in out]
            total = sum(weights)
            shares[n] = [w / total for w in weights] if total else []
    if personalization:
        total = sum(v for k, v in personalization.items() if k in inside) or 1.0
        restart = {k: v / total for k, v in personalization.items() if k in inside}
    else:
        restart = {n: 1.0 / len(members) for n in members} if members else {}
    rank = dict.fromkeys(members, 0.0)
    rank.update(restart)
    for _ in range(iterations):
        nxt = dict.fromkeys(members, 0.0)
        lost = 0.0
        for n, value in rank.items():
            out = links[n]
            if not out:
                lost += value
                continue
            split = shares.get(n)
            if split:
                for m, part in zip(out, split):
                    nxt[m] += alpha * value * part
                continue
            share = alpha * value / len(out)
            for m in out:
                nxt[m] += share
        spread = (1.0 - alpha) + alpha * lost
        for k, w in restart.items():
            nxt[k] += spread * w
        delta = sum(abs(nxt[n] - rank[n]) for n in members)
        rank = nxt
        if delta < tol:
            break
    return rank
