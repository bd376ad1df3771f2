"""bash-lore's ``graph.json``: which edges someone curated (they become lore edge records)
and which the bash sync scripts derived from records (lore's own projection rebuilds
those, so they are not copied); concepts' ``grounded_by`` as ``grounds`` edges. Pure.
"""

from __future__ import annotations

import json
import re
from typing import Any

from lore.bulk.bashlore_map import SOURCE, Mapper, derived_id, edge_id, mapping, strings, text_of
from lore.bulk.bashlore_read import Item

# (relation, from type, to type) the bash sync scripts write from record fields (graph/
# sync*.sh); "*" is any type. Edges that lore's own projection implies are found by
# implied() instead, whoever wrote them.
BASH_DERIVED = frozenset(
    {
        ("references", "decision", "file"),  # entities and --files (sync.sh)
        ("learned_from", "lesson", "decision"),  # lesson_learned (sync.sh)
        ("learned_from", "pattern", "*"),  # a pattern's origin (sync-patterns.sh)
        ("informs", "pattern", "decision"),  # same-session pairs (sync-patterns.sh)
        ("yields", "decision", "pattern"),  # same-session pairs (sync-patterns.sh)
        ("produces", "session", "*"),  # sync-sessions.sh
        ("hosts", "project", "session"),  # sync-projects.sh
        ("part_of", "*", "project"),  # sync-projects.sh
        ("relates_to", "goal", "*"),  # sync-goals.sh
        ("derived_from", "observation", "*"),  # sync-observations.sh
    }
)
# bash relations lore's vocabulary lacks (kept as legacy_relation on the edge).
RELATIONS = {
    "affects": "relates_to",
    "consumes": "uses",
    "summarized_by": "relates_to",
    "yields": "produces",
    "informs": "relates_to",
    "contains": "part_of",
}
SWAPPED = frozenset({"contains"})  # A contains B is B part_of A
RECORD_NODES = frozenset(
    {
        "decision",
        "pattern",
        "anti-pattern",
        "failure",
        "goal",
        "session",
        "concept",
        "observation",
        "signal",
        "evidence",
        "project",
    }
)


def grounding(m: Mapper, concepts: list[tuple[Item, dict[str, Any]]]) -> list[dict[str, Any]]:
    """A concept's ``grounded_by`` members as ``grounds`` edges (member -> concept), as
    ``lore concepts promote`` records them."""
    out = []
    for item, line in concepts:
        legacy: dict[str, Any] = {}
        for member in m.refs(item, line, legacy, "grounded_by", item.data.get("grounded_by")):
            out.append(_edge(member, "grounds", line["id"], line["timestamp"], {}))
        if legacy:
            line.setdefault("legacy", {}).update(legacy)
    return out


class Graph:
    """Classifies one ``graph.json``'s edges against the records being imported."""

    def __init__(self, m: Mapper, item: Item, text: str, lines: list[dict[str, Any]]) -> None:
        self.m = m
        self.item = item
        self.nodes = mapping(item.data.get("nodes"))
        edges = item.data.get("edges")
        self.edges: list[Any] = edges if isinstance(edges, list) else []
        self.at = _edge_lines(text)
        self.by_id = {line["id"]: line for line in lines}
        self.names: dict[str, str] = {}
        for line in lines:
            if line["kind"] == "concept":
                for name in [line["name"], *line["aliases"]]:
                    self.names.setdefault(name.casefold(), line["id"])
        self.grounded = {(x["src"], x["dst"]) for x in lines if x["kind"] == "edge"}
        self.derived = 0
        self.new: list[dict[str, Any]] = []  # edges, and concepts or projects they need
        self.skipped: list[tuple[int | None, str]] = []

    def run(self) -> None:
        made: set[tuple[str, str, str]] = set()
        for index, edge in enumerate(self.edges):
            line = self.at[index] if index < len(self.at) else None
            if not isinstance(edge, dict) or not all(
                isinstance(edge.get(k), str) for k in ("from", "to", "relation")
            ):
                self.skipped.append((line, "not an edge (from, to and relation)"))
                continue
            self._one(edge, line, made)

    def _one(self, edge: dict[str, Any], line: int | None, made: set[tuple[str, str, str]]) -> None:
        a, b, rel = edge["from"], edge["to"], edge["relation"]
        na, nb = self.nodes.get(a), self.nodes.get(b)
        ta = na.get("type") if isinstance(na, dict) else None
        tb = nb.get("type") if isinstance(nb, dict) else None
        ta, tb = (t if isinstance(t, str) else None for t in (ta, tb))
        if any(r == rel and f in ("*", ta) and t in ("*", tb) for r, f, t in BASH_DERIVED):
            self.derived += 1
            if rel == "references" and isinstance(na, dict) and isinstance(nb, dict):
                self._file_reference(na, nb)
            return
        label = f"{a} {rel} {b}"
        if not isinstance(na, dict) or not isinstance(nb, dict):
            missing = a if not isinstance(na, dict) else b
            self.skipped.append((line, f"edge {label}: {missing} is not a node of graph.json"))
            return
        src, dst = self._record(a, na), self._record(b, nb)
        if src is None or dst is None:
            key, node = (a, na) if src is None else (b, nb)
            what = f"{node.get('type')} {text_of(node.get('name'))!r}".strip()
            self.skipped.append(
                (line, f"edge {label}: {key} ({what}) is not a record lore imports")
            )
            return
        relation = _relation(rel)
        if rel in SWAPPED:
            src, dst = dst, src
        both = edge.get("bidirectional") is True
        if src == dst:
            self.skipped.append((line, f"edge {label}: joins a record to itself"))
            return
        if self._implied(src, relation, dst) or (both and self._implied(dst, relation, src)):
            self.derived += 1
            return
        if (src, relation, dst) in made or (both and (dst, relation, src) in made):
            return  # the other half of a two-way edge
        made.add((src, relation, dst))
        extra: dict[str, Any] = {}
        if relation != rel:
            extra["legacy_relation"] = rel
        for key in ("weight", "updated_at"):
            if key in edge:
                extra[key] = edge[key]
        if both:
            extra["bidirectional"] = True
        status = edge.get("status")
        new = _edge(src, relation, dst, edge.get("created_at"), extra)
        if status not in (None, "active", "retracted", "superseded"):
            new["legacy"] = {"status": status}
        elif status is not None:
            new["status"] = status
        self.new.append(new)

    def _record(self, key: str, node: dict[str, Any]) -> str | None:
        kind, name = node.get("type"), text_of(node.get("name"))
        if not isinstance(kind, str) or kind not in RECORD_NODES:
            return None
        data = mapping(node.get("data"))
        ids = [v for k, v in data.items() if k.endswith("_id") and isinstance(v, str)]
        for candidate in [*ids, name, key]:
            found = self.m.resolve(candidate)
            if found is not None and (found in self.by_id or found in self.m.stored):
                return found
        if kind == "concept" and name:
            return self.names.get(name.casefold()) or self._concept(key, name, node, data)
        if kind == "project" and name:
            return self._project(name, data)
        return None

    def _concept(self, key: str, name: str, node: dict[str, Any], data: dict[str, Any]) -> str:
        """A concept that exists only as a graph node (``graph add concept``)."""
        cid = derived_id("concept", key)
        line = {
            "kind": "concept",
            "id": cid,
            "legacy_id": key,
            "timestamp": node.get("created_at"),
            "name": name,
            "description": text_of(data.get("definition")),
            "aliases": strings(data.get("aka")) + strings(data.get("aliases")),
            "related": [],
            "status": "active",
            "project": None,
            "session_id": None,
            "tags": [],
            "source": SOURCE,
        }
        line.update({k: v for k, v in data.items() if k not in ("definition", "aka", "aliases")})
        self.names[name.casefold()] = cid
        self.by_id[cid] = line
        self.new.append(line)
        return cid

    def _project(self, name: str, data: dict[str, Any]) -> str:
        """A project a curated edge names that the registry does not hold (bash-lore kept
        projects in a workspace file outside its root)."""
        line = {
            "kind": "project",
            "id": name,
            "name": name,
            "timestamp": None,
            "description": text_of(data.get("description")),
            "path": text_of(data.get("path")),
            "project": None,
            "session_id": None,
            "tags": strings(data.get("tags")),
            "source": SOURCE,
        }
        self.by_id[name] = line
        self.new.append(line)
        return name

    def _file_reference(self, na: dict[str, Any], nb: dict[str, Any]) -> None:
        """A decision's file reference lore cannot rebuild from its fields goes into them."""
        data = mapping(nb.get("data"))
        path = data.get("path") if isinstance(data.get("path"), str) else nb.get("name")
        decision = self.by_id.get(self._record("", na) or "")
        if not isinstance(path, str) or decision is None or decision["kind"] != "decision":
            return
        if path not in decision["files"] and path not in decision["entities"]:
            decision["files"].append(path)
            self.m.note(self.item, f"{decision['id']} files: {path} added from graph.json")

    def _implied(self, src: str, relation: str, dst: str) -> bool:
        """Whether lore's projection of the imported records has this edge already."""
        a, b = self.by_id.get(src) or {}, self.by_id.get(dst) or {}
        if relation == "relates_to":
            return any(dst in a.get(k, []) for k in ("related_decisions", "related")) or any(
                src in b.get(k, []) for k in ("related_decisions", "related")
            )
        if relation == "supersedes":
            return b.get("superseded_by") == src or dst in a.get("supersedes", [])
        if relation in ("grounds", "part_of") and b.get("kind") == "concept":
            return (src, dst) in self.grounded
        if relation in ("depends_on", "supports", "contradicts"):
            return dst in a.get(relation, [])
        if relation in ("promoted_to", "derived_from", "inverted_to"):
            return a.get(relation) == dst or (
                relation == "inverted_to" and b.get("inverted_from") == src
            )
        return False


def _relation(name: str) -> str:
    from lore.graph.rules import relation_or_none

    return relation_or_none(RELATIONS.get(name, name)) or "relates_to"


def _edge(src: str, relation: str, dst: str, time: Any, extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "edge",
        "id": edge_id(src, relation, dst),
        "timestamp": time if isinstance(time, str) else None,
        "src": src,
        "dst": dst,
        "relation": relation,
        "status": "active",
        "project": None,
        "session_id": None,
        "tags": [],
        "source": SOURCE,
        **extra,
    }


_EDGES = re.compile(r'^ {0,2}"edges"\s*:\s*\[', re.MULTILINE)


def _edge_lines(text: str) -> list[int]:
    """The line each element of the top-level ``edges`` array starts on (jq's pretty
    JSON); empty when they cannot be found (the edges are then reported without one)."""
    found = _EDGES.search(text)
    if found is None:
        return []
    decoder = json.JSONDecoder()
    pos, line, counted = found.end(), 1, 0
    out: list[int] = []
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            return out
        line += text.count("\n", counted, pos)
        counted = pos
        out.append(line)
        try:
            _, pos = decoder.raw_decode(text, pos)
        except ValueError:
            return out
