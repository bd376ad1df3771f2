"""graph: what relates to this? Concepts and asserted edges, both append-only JSONL.

``graph/data/concepts.jsonl`` and ``graph/data/edges.jsonl`` are truth; the
NetworkX projection built from every kind's references is derived and never
committed (it comes in a later issue).
"""

from __future__ import annotations

from dataclasses import dataclass

from lore.model import Kind, Log, Record, register, text, texts

STATUSES = ("active", "retracted", "superseded")


@register
@dataclass(kw_only=True, eq=False, repr=False)  # Record defines both, once
class Concept(Record):
    KIND = Kind(
        "concept",
        "concept",
        "graph",
        Log("concepts.jsonl"),
        title="name",
        search=("name", "description", "aliases", "tags"),
    )

    name: str = text(required=True)
    description: str = ""
    aliases: list[str] = texts()
    related: list[str] = texts(ref="any")
    status: str = text("active", choices=STATUSES)


@register
@dataclass(kw_only=True, eq=False, repr=False)  # Record defines both, once
class Edge(Record):
    KIND = Kind(
        "edge",
        "edge",
        "graph",
        Log("edges.jsonl"),
        title="relation",
        search=("relation",),
    )

    src: str = text(required=True)
    dst: str = text(required=True)
    relation: str = text("relates_to", required=True)
    status: str = text("active", choices=STATUSES)

    def references(self) -> list[tuple[str, str, str]]:
        ends = (("src", self.src), ("dst", self.dst))
        return [(name, end, "any") for name, end in ends if isinstance(end, str) and end]
