"""Per-record and reference checks of ``lore validate``: schema, ids (duplicates across
files) and every field pointing at another record; the state a validation run collects.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from lore.model import Record, kinds
from lore.store.core import Store
from lore.upkeep.report import ERROR, WARNING, Issue


class Seen(NamedTuple):
    kind: str
    file: str
    line: int | None


class Entry(NamedTuple):
    """A record read, with where its fields were set (for pointing at the right line)."""

    record: Record
    file: str
    line: int | None
    field_lines: dict[str, int]


class RecordChecker:
    """What a run has found so far, and the checks of the records it has read."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.root = store.path
        self.issues: list[Issue] = []
        self.counts = {name: 0 for name in kinds()}
        self.ids: dict[str, Seen] = {}
        self.entries: list[Entry] = []
        self.known: set[Path] = set()
        self.dirs: dict[Path, str] = {}  # document directory -> the suffix lore reads there
        self.checked = 0

    def add(
        self,
        severity: str,
        code: str,
        file: str,
        line: int | None,
        message: str,
        id: str | None = None,
        field: str | None = None,
    ) -> None:
        self.issues.append(Issue(severity, code, file, line or None, message, id, field))

    def rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    # -- records -------------------------------------------------------------------

    def check_record(
        self,
        record: Record,
        rel: str,
        line: int | None,
        field_lines: dict[str, int],
        *,
        revised: bool = False,
    ) -> None:
        """Schema and id checks; ``field_lines`` maps a field to the line that set it
        (for logs, ``revised``: the revision lines; otherwise the key's own line)."""
        kind = record.KIND.name
        self.counts[kind] += 1
        rid = record.id
        for field, message in _problems(record):
            if field != "id" and _retracted(record):
                continue  # withdrawn: kept for history, only its id must still hold
            at = field_lines.get(field, line)
            code = "bad-id" if field == "id" else "schema"
            note = " (set by this revision)" if revised and field in field_lines else ""
            self.add(ERROR, code, rel, at, f"{field} {message}{note}", rid, field)
        seen = self.ids.get(rid)
        if seen is None:
            self.ids[rid] = Seen(kind, rel, line)
        elif seen.file != rel:
            where = seen.file if seen.line is None else f"{seen.file}:{seen.line}"
            message = f"duplicate id {rid}: also a {seen.kind} in {where}"
            self.add(ERROR, "duplicate-id", rel, line, message, rid, "id")
        self.entries.append(Entry(record, rel, line, field_lines))

    def check_references(self) -> None:
        for record, rel, line, field_lines in self.entries:
            if _retracted(record):
                continue  # a withdrawn record's links are not followed
            if record.kind == "edge":
                self.check_relation(record, rel, field_lines.get("relation", line))
            for field, target, kind in _references(record):
                at = field_lines.get(field, line)
                seen = self.ids.get(target)
                if seen is None:
                    code, message = "dangling-reference", f"{field}: no record has id {target}"
                elif kind != "any" and seen.kind != kind:
                    code = "reference-kind"
                    message = f"{field} must point at a {kind}, but {target} is a {seen.kind}"
                else:
                    continue
                self.add(ERROR, code, rel, at, message, record.id, field)

    def check_relation(self, record: Record, rel: str, line: int | None) -> None:
        from lore.graph.rules import relation_or_none

        relation = getattr(record, "relation", None)
        if relation_or_none(relation) is None:
            message = f"relation: {relation!r} is not a graph relation; the graph leaves it out"
            self.add(WARNING, "unknown-relation", rel, line, message, record.id, "relation")


# A hand-written value of a surprising type must not crash the whole check.


def _problems(record: Record) -> list[tuple[str, str]]:
    try:
        return record.problems()
    except Exception as exc:
        return [("record", f"could not be checked ({type(exc).__name__}: {exc})")]


def _retracted(record: Record) -> bool:
    try:
        return record.retracted
    except Exception:
        return False


def _references(record: Record) -> list[tuple[str, str, str]]:
    try:
        return record.references()
    except Exception:
        return []  # the schema check has already reported the odd value
