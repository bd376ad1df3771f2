"""The projection rules: which nodes and edges one record contributes to the graph.

One table (``RULES``, documented in LORE_CONTRACT.md §3.13) maps record fields to
edges; ``project`` applies it to one stored record (a dict) and needs no other
record, so a changed record's part of the graph can be recomputed alone. Plain
Python: no networkx here.
"""

from __future__ import annotations

import re
from typing import Any

from lore.errors import UsageError

# Node types, as the `type` attribute of every node.
NODE_TYPES = (
    "decision",
    "pattern",
    "anti-pattern",
    "concept",
    "lesson",
    "failure",
    "error-type",
    "observation",
    "evidence",
    "goal",
    "session",
    "project",
    "file",
)
# Keys of nodes that are not records (records are keyed by their id).
FILE, PROJECT, ERROR_TYPE, LESSON = "file:", "project:", "error-type:", "lesson:"
CONCEPT_NAME = "@concept:"  # an end resolved to the concept of that name (or alias)

# The documented relation vocabulary: derived ones first, then the curated extras.
RELATIONS = {
    "references": "a decision names a file or a concept (files, entities)",
    "relates_to": "a loose link (related_decisions, goal related/projects, concept related)",
    "supersedes": "a newer record replaces an older one",
    "learned_from": "a lesson comes from a decision",
    "produces": "a session produced a record captured in it",
    "hosts": "a project hosts a session",
    "part_of": "a file belongs to a project",
    "depends_on": "a goal or project needs another first",
    "promoted_to": "an observation or error type became a record (a PITFALL, a tagged pattern)",
    "supports": "evidence backs a record",
    "contradicts": "two decisions disagree",
    "instance_of": "a failure is an instance of its error type",
    "inverted_to": "a pattern has an 'Avoid:' anti-pattern",
    "derived_from": "a record was made from another (a fork's parent session too)",
    "grounds": "a record grounds a concept",
    "causes": "curated: one thing causes another",
    "fixes": "curated: one thing fixes another",
    "blocks": "curated: one thing blocks another",
    "implements": "curated: one thing implements another",
    "uses": "curated: one thing uses another",
    "example_of": "curated: one thing is an example of another",
}
_VARIANTS = {
    "related_to": "relates_to",
    "related": "relates_to",
    "relates": "relates_to",
    "relate": "relates_to",
    "reference": "references",
    "refs": "references",
    "mentions": "references",
    "supersede": "supersedes",
    "replaces": "supersedes",
    "contradict": "contradicts",
    "conflicts_with": "contradicts",
    "support": "supports",
    "depends": "depends_on",
    "depend_on": "depends_on",
    "requires": "depends_on",
    "ground": "grounds",
    "grounded_in": "grounds",
    "derives_from": "derived_from",
    "instance": "instance_of",
    "is_instance_of": "instance_of",
    "cause": "causes",
    "fix": "fixes",
    "block": "blocks",
    "implement": "implements",
    "use": "uses",
    "example": "example_of",
}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_FILE_EXT = re.compile(
    r"\.(py|pyi|js|jsx|ts|tsx|mjs|cjs|json|jsonl|yaml|yml|toml|ini|cfg|md|rst|txt|sh|bash|"
    r"rs|go|c|h|cc|cpp|hpp|java|kt|rb|php|cs|swift|sql|html|css|scss|lock|conf|xml|proto)$"
)
_PITFALL = re.compile(r"^\s*PITFALL:\s*(\S+)", re.IGNORECASE)

Edge = tuple[str, str, str]  # (from, to, relation); ends are node keys or CONCEPT_NAME keys


def normalize_relation(name: str) -> str:
    """``relatesTo``, ``related-to``, ``Related To`` -> ``relates_to``; UsageError if unknown."""
    key = _CAMEL.sub("_", name.strip())
    key = re.sub(r"[\s\-]+", "_", key).lower()
    key = _VARIANTS.get(key, key)
    if key not in RELATIONS:
        raise UsageError(
            f"unknown relation {name!r}; expected one of {', '.join(RELATIONS)}",
            relation=name,
        )
    return key


def relation_or_none(name: Any) -> str | None:
    if not isinstance(name, str):
        return None
    try:
        return normalize_relation(name)
    except UsageError:
        return None


def project_key(name: str) -> str:
    return PROJECT + name


def file_key(path: str, project: str = "") -> str:
    """``file:PATH``; an absolute path under a directory named ``project`` (its
    repository, which the project is named after) is keyed relative to that directory."""
    clean = path.strip()
    while clean.startswith("./"):
        clean = clean[2:]
    parts = clean.split("/")
    if clean.startswith("/") and project and project in parts[:-1]:
        clean = "/".join(parts[parts.index(project) + 1 :])
    return FILE + clean


def end_key(end: str) -> str:
    """A curated edge's end as a node key: a record id stays, anything else names a project."""
    from lore.model import class_for_id

    if end.startswith((PROJECT, FILE, ERROR_TYPE, LESSON)) or class_for_id(end) is not None:
        return end
    return project_key(end)


def is_file(entity: str) -> bool:
    text = entity.strip()
    return bool(text) and " " not in text and ("/" in text or bool(_FILE_EXT.search(text)))


def _ids(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v]
    return []


def _names(value: Any) -> list[str]:
    return [v.strip() for v in _ids(value) if v.strip()]


def label_of(kind: str, data: dict[str, Any], title_field: str) -> str:
    value = data.get(title_field)
    text = " ".join(value.split()) if isinstance(value, str) else ""
    if kind == "edge":
        text = f"{data.get('src')} {data.get('relation')} {data.get('dst')}"
    return text if len(text) <= 80 else text[:79].rstrip() + "…"


def error_type_of(data: dict[str, Any]) -> str | None:
    """A PITFALL anti-pattern's error type: its ``error_type``, else parsed from its name."""
    value = data.get("error_type")
    if isinstance(value, str) and value.strip():
        return value.strip()
    match = _PITFALL.match(data.get("name") or "") if isinstance(data.get("name"), str) else None
    return match.group(1) if match else None


def project(
    kind: str, data: dict[str, Any], title_field: str
) -> tuple[str | None, dict[str, Any], list[tuple[str, dict[str, Any]]], list[Edge]]:
    """One record's contribution: (its node key, its attributes, the non-record nodes it
    names, the edges it asserts). Edge ends that are not present when the graph is
    assembled are dropped there (no dangling edges), so this needs no other record."""
    rid = data.get("id")
    if kind == "project":
        rid = data.get("name") or rid
    if not isinstance(rid, str) or not rid:
        return None, {}, [], []
    status = data.get("status")
    attrs: dict[str, Any] = {"type": kind, "label": label_of(kind, data, title_field)}
    if isinstance(status, str):
        attrs["status"] = status
    legacy = data.get("legacy_id")  # an imported record's original id (graph NODE takes it)
    if isinstance(legacy, str) and legacy:
        attrs["legacy_id"] = legacy
    synth: list[tuple[str, dict[str, Any]]] = []
    edges: list[Edge] = []

    def named(key: str, type_: str, label: str) -> str:
        synth.append((key, {"type": type_, "label": label}))
        return key

    def proj(name: str) -> str:
        return named(project_key(name), "project", name)

    if kind == "edge":  # a curated edge is not a node: it asserts one edge
        relation = relation_or_none(data.get("relation"))
        src, dst = data.get("src"), data.get("dst")
        ends = isinstance(src, str) and src and isinstance(dst, str) and dst
        if status in (None, "active") and relation and ends:
            edges.append((end_key(str(src)), end_key(str(dst)), relation))
        return None, {}, [], edges
    if withdrawn(kind, data):
        return None, {}, [], []
    key = project_key(rid) if kind == "project" else rid
    session = data.get("session_id")
    if isinstance(session, str) and session and kind != "session":
        edges.append((session, key, "produces"))
    for target in _ids(data.get("derived_from")):
        edges.append((key, target, "derived_from"))
    if kind == "decision":
        record_project = data.get("project") if isinstance(data.get("project"), str) else ""
        files = [f for f in _names(data.get("files"))]
        entities = _names(data.get("entities"))
        files += [e for e in entities if is_file(e) and e not in files]
        for path in files:
            fkey = file_key(path, record_project or "")
            node = named(fkey, "file", fkey[len(FILE) :])
            edges.append((key, node, "references"))
            if record_project:
                edges.append((node, proj(record_project), "part_of"))
        for entity in entities:  # "Node.js" may be a concept as well as a file name
            if not is_file(entity) or "/" not in entity:
                edges.append((key, CONCEPT_NAME + entity.lower(), "references"))
        for target in _ids(data.get("related_decisions")):
            edges.append((key, target, "relates_to"))
        for target in _ids(data.get("supersedes")):
            edges.append((key, target, "supersedes"))
        for target in _ids(data.get("superseded_by")):
            edges.append((target, key, "supersedes"))
        for target in _ids(data.get("contradicts")):
            edges.append((key, target, "contradicts"))
        lesson = data.get("lesson_learned")
        if isinstance(lesson, str) and lesson.strip():
            text = " ".join(lesson.split())
            node = named(LESSON + rid, "lesson", text if len(text) <= 80 else text[:79] + "…")
            edges.append((node, key, "learned_from"))
    elif kind == "session":
        if isinstance(data.get("project"), str) and data["project"]:
            edges.append((proj(data["project"]), key, "hosts"))
        captured = data.get("captured")
        if isinstance(captured, dict):
            for ids in captured.values():
                edges.extend((key, target, "produces") for target in _ids(ids))
        for target in _ids(data.get("parent")):
            edges.append((key, target, "derived_from"))
    elif kind == "observation":
        for target in _ids(data.get("promoted_to")):
            edges.append((key, target, "promoted_to"))
    elif kind == "evidence":
        for target in _ids(data.get("supports")):
            edges.append((key, target, "supports"))
    elif kind == "failure":
        error = data.get("error_type")
        if isinstance(error, str) and error.strip():
            node = named(ERROR_TYPE + error.strip(), "error-type", error.strip())
            edges.append((key, node, "instance_of"))
    elif kind == "pattern":
        for target in _ids(data.get("inverted_to")):
            edges.append((key, target, "inverted_to"))
        edges.extend(_named_error_types(key, data, None))
    elif kind == "anti-pattern":
        for target in _ids(data.get("inverted_from")):
            edges.append((target, key, "inverted_to"))
        error = error_type_of(data)
        if error:
            node = named(ERROR_TYPE + error, "error-type", error)
            edges.append((node, key, "promoted_to"))
        edges.extend(_named_error_types(key, data, error))
    elif kind == "goal":
        for target in _ids(data.get("depends_on")):
            edges.append((key, target, "depends_on"))
        for name in _names(data.get("projects")):
            edges.append((key, proj(name), "relates_to"))
        for target in _ids(data.get("related")):
            edges.append((key, target, "relates_to"))
    elif kind == "project":
        for name in _names(data.get("depends_on")):
            edges.append((key, proj(name), "depends_on"))
    elif kind == "concept":
        for target in _ids(data.get("related")):
            edges.append((key, target, "relates_to"))
    return key, attrs, synth, edges


def _named_error_types(key: str, data: dict[str, Any], own: str | None) -> list[Edge]:
    """``error-type:T promoted_to`` a pattern or anti-pattern tagged ``T`` (``lore learn ...
    --tags T`` names a recurring failure type, as a PITFALL does). The error type's node
    comes from the failures of that type: with none, the edge waits and is not shown."""
    tags = data.get("tags")
    names = {t.strip() for t in tags if isinstance(t, str) and t.strip()} if tags else set()
    return [(ERROR_TYPE + t, key, "promoted_to") for t in sorted(names - {own or ""})]


def withdrawn(kind: str, data: dict[str, Any]) -> bool:
    """A retracted record (status ``retracted``, or a ``retracted_at``) or a discarded
    observation: no longer knowledge, so neither a node nor the end of an edge."""
    if data.get("status") == "retracted" or data.get("retracted_at"):
        return True
    return kind == "observation" and data.get("status") == "discarded"


def concept_names(data: dict[str, Any]) -> list[str]:
    """The lower-cased name and aliases a concept answers to (for ``references`` edges)."""
    return sorted({n.lower() for n in [*_names(data.get("name")), *_names(data.get("aliases"))]})
