"""Curated graph records: concepts and edges written to ``graph/data/`` (append-only),
and concept proposals from clusters of similar decisions and patterns.

Every write passes the capture path's checks (schema, secrets gate); ends of an edge
must exist; relations are normalised against ``rules.RELATIONS``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from lore import clock
from lore.errors import DuplicateError, InvalidInputError, NotFoundError, UsageError
from lore.graph import rules
from lore.index import analyze
from lore.model import Record
from lore.store.core import Store

PROPOSE_POOL = 2000  # newest decisions and patterns considered by `concepts propose`
SIMILARITY = 70  # rapidfuzz token_set_ratio at or above which two records cluster


def _check(record: Record, allow_secret: bool) -> None:
    from lore.capture.checks import check

    check(record, allow_secret=allow_secret)


def _concepts(store: Store) -> list[Record]:
    return store.records("concept")


def find_concept(store: Store, name: str) -> Record | None:
    """The active concept called ``name`` (or with it as an alias), case-insensitive."""
    wanted = name.strip().lower()
    for concept in _concepts(store):
        names = rules.concept_names(concept.to_dict())
        if wanted in names:
            return concept
    return None


def add_concept(
    store: Store,
    name: str,
    *,
    definition: str = "",
    aliases: list[str] | None = None,
    allow_secret: bool = False,
) -> Record:
    concept = new_concept(store, name, definition=definition, aliases=aliases)
    _check(concept, allow_secret)
    store.add([concept])
    return concept


def new_concept(
    store: Store, name: str, *, definition: str = "", aliases: list[str] | None = None
) -> Record:
    """The concept ``name`` (not stored); a duplicate name is refused."""
    from lore.components.graph import Concept

    name = " ".join(name.split())
    if not name:
        raise InvalidInputError("a concept needs a name", field="name")
    existing = find_concept(store, name)
    if existing is not None:
        raise DuplicateError(
            f"concept {name!r} already exists as {existing.id}", id=existing.id, field="name"
        )
    concept = Concept(
        id=clock.new_id("concept"),
        timestamp=clock.now(),
        name=name,
        description=definition.strip(),
        aliases=list(aliases or []),
    )
    return concept


def _project_name(text: str) -> str:
    """A project's node key (``project:NAME``, as the graph shows it) as its name."""
    return text[len(rules.PROJECT) :] if text.startswith(rules.PROJECT) else text


def _end(store: Store, text: str, which: str) -> str:
    text = _project_name(text)
    found = store.find(text)
    if found is None:
        raise NotFoundError(f"{which} {text!r}: no record or project has that id", id=text)
    return text


def _active_edges(store: Store, src: str, dst: str, relation: str) -> list[Record]:
    found = []
    for edge in store.records("edge"):
        data = edge.to_dict()
        same_ends = data.get("src") == src and data.get("dst") == dst
        if same_ends and rules.relation_or_none(data.get("relation")) == relation:
            found.append(edge)
    return found


def link(store: Store, src: str, dst: str, relation: str, *, allow_secret: bool = False) -> Record:
    """Record a curated edge ``src --relation--> dst``; both ends must exist."""
    from lore.components.graph import Edge

    rel = rules.normalize_relation(relation)
    src, dst = _end(store, src, "FROM"), _end(store, dst, "TO")
    if src == dst:
        raise UsageError("an edge needs two different ends")
    existing = _active_edges(store, src, dst, rel)
    if existing:
        raise DuplicateError(
            f"{src} {rel} {dst} is already recorded as {existing[0].id}", id=existing[0].id
        )
    edge = Edge(id=clock.new_id("edge"), timestamp=clock.now(), src=src, dst=dst, relation=rel)
    _check(edge, allow_secret)
    store.add([edge])
    return edge


def unlink(store: Store, src: str, dst: str, relation: str) -> list[Record]:
    """Retract the curated edges ``src --relation--> dst`` (an appended revision each)."""
    rel = rules.normalize_relation(relation)
    src, dst = _project_name(src), _project_name(dst)
    found = _active_edges(store, src, dst, rel)
    if not found:
        raise NotFoundError(
            f"no curated edge {src} {rel} {dst} (edges derived from record fields change "
            "with the records)",
            id=src,
        )
    return [store.revise(edge.id, {"status": "retracted"}, reason="unlinked") for edge in found]


def promote(
    store: Store,
    name: str,
    members: list[str],
    *,
    definition: str = "",
    allow_secret: bool = False,
) -> dict[str, Any]:
    """Record the concept ``name`` (or reuse it) and a ``grounds`` edge from each member."""
    from lore.components.graph import Edge

    members = [m.strip() for m in members if m.strip()]
    if not members:
        raise UsageError("--members needs at least one record id")
    for member in members:
        _end(store, member, "member")
    concept = find_concept(store, name)
    created = concept is None
    if concept is None:  # stored below, in one write with its edges
        concept = new_concept(store, name, definition=definition)
        _check(concept, allow_secret)
    edges = []
    for member in dict.fromkeys(members):
        if _active_edges(store, member, concept.id, "grounds"):
            continue
        edge = Edge(
            id=clock.new_id("edge"),
            timestamp=clock.now(),
            src=member,
            dst=concept.id,
            relation="grounds",
        )
        _check(edge, allow_secret)
        edges.append(edge)
    if created or edges:  # the concept and its edges together, or nothing
        store.add([concept, *edges] if created else edges)
    return {
        "concept": concept.to_dict(),
        "created": created,
        "edges": [e.to_dict() for e in edges],
    }


def propose(store: Store, *, min_size: int = 2, limit: int = 20) -> dict[str, Any]:
    """Clusters of similar decisions and patterns that no concept names yet.

    Two records cluster when they share an entity or their texts are similar
    (rapidfuzz token_set_ratio >= SIMILARITY). Deterministic: same files, same answer.
    """
    from rapidfuzz import fuzz, process

    pool: list[Record] = []
    for kind in ("decision", "pattern"):
        pool.extend(store.records(kind))
    pool.sort(key=lambda r: (r.timestamp, r.id), reverse=True)
    pool = sorted(pool[:PROPOSE_POOL], key=lambda r: r.id)
    texts = [analyze.normalize(r.title) for r in pool]
    parent = list(range(len(pool)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(a: int, b: int) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    by_entity: dict[str, int] = {}
    for i, record in enumerate(pool):
        for entity in _entities(record):
            if entity in by_entity:
                join(by_entity[entity], i)
            else:
                by_entity[entity] = i
    for i, text in enumerate(texts):
        if not text:
            continue
        near = process.extract(
            text, texts, scorer=fuzz.token_set_ratio, score_cutoff=SIMILARITY, limit=None
        )
        for _, _, j in near:
            if j > i and texts[j]:
                join(i, j)
    groups: dict[int, list[int]] = {}
    for i in range(len(pool)):
        groups.setdefault(root(i), []).append(i)
    named = {n for c in _concepts(store) for n in rules.concept_names(c.to_dict())}
    proposals = []
    for members in groups.values():
        if len(members) < min_size:
            continue
        records = [pool[i] for i in members]
        entities = Counter(e for r in records for e in _entities(r))
        shared = [e for e, c in sorted(entities.items(), key=lambda x: (-x[1], x[0])) if c > 1]
        words = Counter(t for r in records for t in set(analyze.terms(r.title)) if len(t) > 3)
        common = [w for w, c in sorted(words.items(), key=lambda x: (-x[1], x[0])) if c > 1]
        name = shared[0] if shared else (" ".join(common[:2]) if common else records[0].title)
        if name.lower() in named:
            continue
        proposals.append(
            {
                "name": name,
                "members": [r.id for r in records],
                "shared_entities": shared,
                "shared_words": common[:5],
            }
        )
    proposals.sort(key=lambda p: (-len(p["members"]), p["name"]))
    return {"proposals": proposals[:limit] if limit else proposals}


def _entities(record: Record) -> list[str]:
    value = getattr(record, "entities", None)
    return (
        sorted({e.strip().lower() for e in value if isinstance(e, str) and e.strip()})
        if isinstance(value, list)
        else []
    )
