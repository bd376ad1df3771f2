"""``lore import --from bash-lore DIR``: a data root of the bash implementation read whole,
mapped record by record (``lore.bashlore_map``, ``lore.bashlore_docs``, the graph's curated
edges by ``lore.bashlore_graph``) and stored through ``lore import``'s own path
(``lore.bulk``: every line checked, the secrets gate, the batch writer). Odd lines and
entries are reported with file and line and skipped; a second run imports nothing new.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.bulk.bashlore_map import Mapper, Odd
from lore.bulk.bashlore_read import Item, Reader
from lore.errors import UsageError
from lore.store.core import Store

# Every kind an import can make, in the report's order.
KINDS = (
    "decision",
    "pattern",
    "anti-pattern",
    "failure",
    "observation",
    "evidence",
    "goal",
    "session",
    "concept",
    "edge",
    "project",
)
# Files (relative to the root) a bash-lore root has; a directory with none is not one.
MARKERS = (
    "journal/data/decisions.jsonl",
    "patterns/data/patterns.yaml",
    "failures/data/failures.jsonl",
    "inbox/data/signals.jsonl",
    "transfer/data/sessions",
    "intent/data/goals",
    "graph/data/graph.json",
)
REGISTRY = ("metadata.yaml", "clusters.yaml", "relationships.yaml", "contracts.yaml")
_SILENT = (".gitkeep", ".DS_Store")


@dataclass
class BashImport:
    """What an import of a bash-lore root did (or would do); ``to_dict`` is its JSON."""

    root: str
    dry_run: bool
    kinds: dict[str, dict[str, int]] = field(default_factory=dict)
    skipped: list[dict[str, Any]] = field(
        default_factory=list
    )  # {"file", "line", "kind", "reason"}
    ignored: list[dict[str, Any]] = field(default_factory=list)  # {"file", "reason"}
    notes: list[dict[str, Any]] = field(default_factory=list)  # {"file", "line", "note"}
    derived_edges: int = 0
    ids: list[str] = field(default_factory=list)

    @property
    def imported(self) -> int:
        return sum(k["imported"] for k in self.kinds.values())

    @property
    def existing(self) -> int:
        return sum(k["existing"] for k in self.kinds.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": True,
            "from": "bash-lore",
            "root": self.root,
            "dry_run": self.dry_run,
            "imported": self.imported,
            "skipped_existing": self.existing,
            "by_kind": {k: v["imported"] for k, v in self.kinds.items() if v["imported"]},
            "kinds": self.kinds,
            "skipped": self.skipped,
            "ignored": self.ignored,
            "notes": self.notes,
            "derived_edges": self.derived_edges,
            "ids": self.ids,
        }


def import_bash_lore(
    store: Store,
    directory: str | os.PathLike[str],
    *,
    dry_run: bool = False,
    allow_secret: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> BashImport:
    """Import every record of the bash-lore data root ``directory`` into ``store``.

    Records keep their ids (a bash id that does not fit lore's id rules gets a stable
    derived id and is kept in ``legacy_id``), so records already imported are skipped,
    never changed. Records are matched by id only, never by title: the root's own
    records are all kept, as its links need them.
    """
    root = _root(store, directory)
    reader = Reader(root)
    m = Mapper(_stored_ids(store))
    report = BashImport(str(root), dry_run, {k: _counts() for k in KINDS})
    lines, origins = _map(reader, m, report)
    from lore.bulk.importer import import_records
    from lore.bulk.lines import KINDS as CAPTURE_KINDS
    from lore.bulk.lines import WHOLE_KINDS

    result = import_records(
        store,
        lines,
        skip_invalid=True,  # an odd record is reported and skipped, never fatal
        force=True,  # matched by id: the root's records are all kept
        allow_secret=allow_secret,
        dry_run=dry_run,
        progress=progress,
        stop=stop,
        kinds=CAPTURE_KINDS + WHOLE_KINDS,
    )
    refused: dict[int, str] = {item["line"]: item["error"] for item in result.invalid}
    imported = set(result.ids)
    for number, (line, origin) in enumerate(zip(lines, origins), 1):
        counts = report.kinds[line["kind"]]
        counts["found"] += 1
        if number in refused:
            counts["skipped"] += 1
            _skip(report, origin.file, origin.line, line["kind"], refused[number])
        elif line["id"] in imported:
            counts["imported"] += 1
        else:
            counts["existing"] += 1
    report.ids = result.ids
    report.notes = m.notes
    report.skipped.sort(key=lambda s: (s["file"], s["line"] or 0))
    return report


def _root(store: Store, directory: str | os.PathLike[str]) -> Path:
    root = Path(directory).expanduser()
    if root.exists() and not root.is_dir():
        raise UsageError(
            f"{directory} is a file, not a directory: give the directory LORE_DATA_DIR "
            "pointed at (the one holding journal/data/, patterns/data/, ...)"
        )
    if not root.is_dir():
        raise UsageError(f"no such directory: {directory}")
    root = root.absolute()
    if not any((root / marker).exists() for marker in MARKERS):
        raise UsageError(
            f"{directory} is not a bash-lore data root: it has none of "
            f"{', '.join(MARKERS)} (give the directory LORE_DATA_DIR pointed at)"
        )
    if root.resolve() == store.path.resolve():
        raise UsageError(f"{directory} is this lore's own data root")
    return root


def _counts() -> dict[str, int]:
    return {"found": 0, "imported": 0, "existing": 0, "skipped": 0}


def _stored_ids(store: Store) -> set[str]:
    """Every id (and project name) already in the store: links may point at them."""
    from lore.model import kinds

    return {r.id for cls in kinds().values() for r in store.records(cls, hidden=True)}


def _skip(report: BashImport, file: str, line: int | None, kind: str | None, reason: str) -> None:
    report.skipped.append({"file": file, "line": line, "kind": kind, "reason": reason})


def _map(reader: Reader, m: Mapper, report: BashImport) -> tuple[list[dict[str, Any]], list[Item]]:
    """Every entry of the root as an import line (with where it came from), in the order:
    journal, patterns, failures, inbox, evidence, intent, transfer, concepts, registry,
    graph edges."""
    from lore.bulk import bashlore_docs as docs
    from lore.bulk import bashlore_graph as graph

    root = reader.root

    def read(kind: str | None, fn: Callable[..., Any], *args: Any) -> Any:
        reader.kind = kind  # what the reader skips is reported as this kind
        return fn(*args)

    patterns = root / "patterns/data/patterns.yaml"
    inbox = root / "inbox/data"
    sources: list[tuple[str, Callable[[Item], dict[str, Any] | str], list[Item]]] = [
        (
            "decision",
            m.decision,
            read("decision", reader.versions, root / "journal/data/decisions.jsonl"),
        ),
        ("pattern", m.pattern, read("pattern", reader.yaml_list, patterns, "patterns")),
        (
            "anti-pattern",
            m.anti_pattern,
            read("anti-pattern", reader.yaml_list, patterns, "anti_patterns"),
        ),
        (
            "failure",
            m.failure,
            read("failure", reader.versions, root / "failures/data/failures.jsonl"),
        ),
        (
            "observation",
            m.observation,
            read("observation", reader.versions, inbox / "signals.jsonl")
            + read("observation", reader.versions, inbox / "observations.jsonl"),
        ),
        (
            "evidence",
            m.evidence,
            read("evidence", reader.versions, root / "evidence/data/evidence.jsonl"),
        ),
        (
            "goal",
            lambda i: docs.goal(m, i),
            read("goal", _docs, reader, root / "intent/data/goals", ".yaml"),
        ),
        ("session", lambda i: docs.session(m, i), read("session", _sessions, reader, report)),
        (
            "concept",
            lambda i: docs.concept(m, i),
            read("concept", reader.yaml_list, root / "patterns/data/concepts.yaml", "concepts"),
        ),
    ]
    entries = read("decision", _entries, reader, sources[0][2], report)
    sources.insert(1, ("decision", m.entry_decision, entries))
    registry = read("project", _registry, reader, report)
    sources.append(
        ("project", lambda i: docs.project(m, i), docs.projects(registry, "registry/data"))
    )
    for kind, _, items in sources:  # every id first: links may point forwards
        for item in items:
            original = item.data.get("id") if kind != "project" else item.data.get("name")
            if kind == "decision" and item.file.endswith(".md"):
                original = item.file
            if isinstance(original, str) and original:
                m.assign(kind, original)
    lines: list[dict[str, Any]] = []
    origins: list[Item] = []
    concepts: list[tuple[Item, dict[str, Any]]] = []
    sessions: list[tuple[Item, dict[str, Any]]] = []
    for kind, fn, items in sources:
        for item in items:
            try:
                mapped = fn(item)
            except Odd as exc:
                mapped = str(exc)
            if isinstance(mapped, str):
                report.kinds[kind]["found"] += 1
                report.kinds[kind]["skipped"] += 1
                _skip(report, item.file, item.line, kind, mapped)
                continue
            lines.append(mapped)
            origins.append(item)
            if kind == "concept":
                concepts.append((item, mapped))
            if kind == "session":
                sessions.append((item, mapped))
    flags = read(None, reader.lines, root / "patterns/data/flags.jsonl")
    for item, reason in docs.link(m, lines, flags):
        _skip(report, item.file, item.line, None, reason)
    named = docs.titles(lines)
    for item, line in sessions:
        docs.capture_lists(m, item, line, named)
    for edge in graph.grounding(m, concepts):
        lines.append(edge)
        origins.append(next(i for i, c in concepts if c["id"] == edge["dst"]))
    graph_file = root / "graph/data/graph.json"
    found = read("edge", reader.json_doc, graph_file) if graph_file.is_file() else None
    if found is not None:
        g = graph.Graph(m, found, graph_file.read_text(encoding="utf-8"), lines)
        g.run()
        for number, reason in g.skipped:
            _skip(report, found.file, number, "edge", reason)
        lines.extend(g.new)
        origins.extend(found for _ in g.new)
        report.derived_edges = g.derived
    for skip in reader.skipped:
        _skip(report, skip.file, skip.line, skip.kind, skip.reason)
    _ignored(reader, report)
    return lines, origins


def _docs(reader: Reader, folder: Path, suffix: str) -> list[Item]:
    out = []
    for path in sorted(folder.glob(f"*{suffix}")) if folder.is_dir() else []:
        item = reader.yaml_doc(path) if suffix == ".yaml" else reader.json_doc(path)
        if item is not None:
            out.append(item)
    return out


def _sessions(reader: Reader, report: BashImport) -> list[Item]:
    """Session documents; a ``.compressed.json`` copy is read only when its original is gone."""
    folder = reader.root / "transfer/data/sessions"
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if path.name.endswith(".compressed.json"):
            original = path.with_name(path.name.replace(".compressed.json", ".json"))
            if original.is_file():
                reason = f"a compressed copy of {original.name}, which is read instead"
                report.ignored.append({"file": reader.rel(path), "reason": reason})
                continue
        item = reader.json_doc(path)
        if item is not None:
            out.append(item)
    return out


def _entries(reader: Reader, decisions: list[Item], report: BashImport) -> list[Item]:
    """Journal entries (Markdown) that no decision line mirrors; the others are ignored."""
    from lore.clock import normalize_timestamp

    def when(value: Any) -> str | None:
        try:
            return normalize_timestamp(value) if isinstance(value, str) else None
        except ValueError:
            return None

    seen = {
        (str(d.data.get("decision", "")).strip(), when(d.data.get("timestamp"))): d
        for d in decisions
    }
    folder = reader.root / "journal/data/entries"
    out = []
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        item = reader.front_matter(path)
        if item is None:
            continue
        key = (str(item.data.get("title", "")).strip(), when(item.data.get("created")))
        if key in seen:
            reason = f"the Markdown copy of decision {seen[key].data['id']}"
            report.ignored.append({"file": item.file, "reason": reason})
        else:
            out.append(item)
    return out


def _registry(reader: Reader, report: BashImport) -> dict[str, dict[str, Any]]:
    """The registry's YAML files; what lore has no record for is reported as skipped."""
    out: dict[str, dict[str, Any]] = {}
    for name in REGISTRY:
        data = reader.yaml_map(reader.root / "registry/data" / name)
        if data is not None:
            out[name] = data
    rel = "registry/data/"
    for name in (
        (out.get("contracts.yaml", {}).get("contracts") or {})
        if isinstance(out.get("contracts.yaml", {}).get("contracts"), dict)
        else ()
    ):
        reason = f"contract {name!r}: lore has no record kind for interface contracts"
        _skip(report, rel + "contracts.yaml", None, None, reason)
    relationships = out.get("relationships.yaml", {})
    for key in ("shared", "integrations", "pattern_sharing"):
        if relationships.get(key):
            reason = f"{key}: lore's registry keeps dependencies only (depends_on)"
            _skip(report, rel + "relationships.yaml", None, None, reason)
    return out


def _ignored(reader: Reader, report: BashImport) -> None:
    """Files the import does not read, each said once: derived indexes, session pointers,
    backups, and anything a bash-lore root does not normally hold."""
    read = {
        "journal/data/decisions.jsonl",
        "patterns/data/patterns.yaml",
        "patterns/data/concepts.yaml",
        "patterns/data/flags.jsonl",
        "failures/data/failures.jsonl",
        "inbox/data/signals.jsonl",
        "inbox/data/observations.jsonl",
        "evidence/data/evidence.jsonl",
        "graph/data/graph.json",
        *(f"registry/data/{n}" for n in REGISTRY),
    }
    said = {i["file"] for i in report.ignored}
    index = 0
    for folder, _, files in os.walk(reader.root):
        for name in sorted(files):
            rel = reader.rel(Path(folder) / name)
            if rel in read or rel in said or name in _SILENT or name.endswith(".lock"):
                continue
            if rel.startswith("journal/data/index/") and name.endswith(".idx"):
                index += 1
            elif (
                rel.startswith(("intent/data/goals/", "transfer/data/sessions/"))
                and (name.endswith((".yaml", ".json")))
            ) or (rel.startswith("journal/data/entries/") and name.endswith(".md")):
                continue
            elif name == ".current_session":
                reason = "bash-lore's session pointer; lore keeps the open session per machine"
                report.ignored.append({"file": rel, "reason": reason})
            elif name.endswith(".bak"):
                report.ignored.append({"file": rel, "reason": "a backup; not read"})
            else:
                report.ignored.append({"file": rel, "reason": "not a file bash-lore writes"})
    if index:
        reason = f"{index} index files: bash-lore's derived lookups (lore keeps its own index)"
        report.ignored.append({"file": "journal/data/index/", "reason": reason})
    report.ignored.sort(key=lambda i: i["file"])
