"""``lore validate``'s core: check every data file under a root; never writes anything.

Reads raw bytes (no locks, no caches), so a half-finished append shows as a torn
line rather than blocking. Each problem becomes an :class:`Issue` with one of ``CODES``:

- ``parse`` (error): a JSONL line, YAML or JSON document that does not parse, or the wrong shape
- ``conflict-marker`` (error): a git conflict marker line (``<<<<<<<``, ``=======``, ``>>>>>>>``)
- ``torn-line`` (warning): an unterminated, unparseable last JSONL line (an interrupted write)
- ``not-utf8`` (error): bytes that are not UTF-8 text (or NUL bytes: a binary file)
- ``unreadable`` (error): the file exists but cannot be read (permissions)
- ``schema`` (error): a field breaks the kind's rules (``Record.problems()``), or a malformed
  revision line (one without a valid timestamp is only a warning); a retracted record's
  fields and references are not checked, only its id
- ``bad-id`` (error): an id that is missing, not a string, or lacks the kind's prefix
- ``duplicate-id`` (error): two different records with one id (in one log, or across files)
- ``id-mismatch`` (error): a document whose file name (or a project whose key) is not its id
- ``dangling-reference`` (error): a field pointing at an id no record has
- ``reference-kind`` (error): a field pointing at a record of the wrong kind
- ``dangling-revision`` (error): a revision line for an id with no creation line in its log
- ``duplicate-line`` (warning): a line identical to an earlier one (a union merge; read once)
- ``unknown-file`` (warning): a file in a component's data dir that lore does not read
- ``unknown-relation`` (warning): a curated edge whose relation is not in the graph's
  vocabulary (``lore.graph.rules``): the graph leaves it out
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from lore.errors import DataError
from lore.model import Dir, Log, Record, kinds
from lore.paths import COMPONENTS
from lore.storage import jsonl
from lore.store import REVISE, Store, _order_key, fold

ERROR = "error"
WARNING = "warning"

# code -> meaning, read from the list above so the two cannot drift.
CODES: dict[str, str] = {
    code: " ".join(meaning.split())
    for code, meaning in re.findall(
        r"^- ``([a-z0-9-]+)`` \((?:error|warning)\): (.+(?:\n  .+)*)", __doc__ or "", re.MULTILINE
    )
}

IGNORED_DIRS = frozenset({".lore-cache"})
IGNORED_NAMES = frozenset({".gitkeep"})
IGNORED_SUFFIXES = (".lock", ".tmp")  # sidecar locks and atomic-write leftovers

# Git writes markers at column 0: 7 characters, then a space and a label (or nothing).
_MARKER = re.compile(r"^(?:<{7}|>{7}|\|{7})(?: |$)|^={7}$")


@dataclass(frozen=True)
class Issue:
    severity: str  # "error" or "warning"
    code: str  # one of CODES
    file: str  # relative to the data root, with "/"
    line: int | None
    message: str
    id: str | None = None
    field: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "file": self.file,
            "line": self.line,
            "id": self.id,
            "field": self.field,
            "message": self.message,
        }

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.severity}: {self.message} [{self.code}]"


@dataclass
class Report:
    root: str
    issues: list[Issue]
    counts: dict[str, int]  # records per kind (hidden ones included)
    checked: int  # data files read

    @property
    def errors(self) -> int:
        return sum(1 for i in self.issues if i.severity == ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for i in self.issues if i.severity == WARNING)

    @property
    def ok(self) -> bool:
        return self.errors == 0

    @property
    def records(self) -> int:
        return sum(self.counts.values())

    def summary(self) -> str:
        """``N errors, M warnings in K files (X records)``."""
        files = len({i.file for i in self.issues})
        return (
            f"{_plural(self.errors, 'error')}, {_plural(self.warnings, 'warning')} "
            f"in {_plural(files, 'file')} ({_plural(self.records, 'record')})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "root": self.root,
            "errors": self.errors,
            "warnings": self.warnings,
            "issues": [i.to_dict() for i in self.issues],
            "counts": dict(self.counts),
        }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def validate(store: Store | None = None) -> Report:
    """Check every data file under ``store``'s root (default: the resolved root)."""
    checker = _Checker(store if store is not None else Store())
    checker.run()
    issues = sorted(checker.issues, key=lambda i: (i.file, i.line or 0))
    return Report(str(checker.root), issues, checker.counts, checker.checked)


class _Seen(NamedTuple):
    kind: str
    file: str
    line: int | None


class _Entry(NamedTuple):
    """A record read, with where its fields were set (for pointing at the right line)."""

    record: Record
    file: str
    line: int | None
    field_lines: dict[str, int]


class _Checker:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.root = store.path
        self.issues: list[Issue] = []
        self.counts = {name: 0 for name in kinds()}
        self.ids: dict[str, _Seen] = {}
        self.entries: list[_Entry] = []
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

    def run(self) -> None:
        for cls in kinds().values():
            location = self.store.location(cls)
            storage = cls.KIND.storage
            if isinstance(storage, Dir):
                self.dirs[location] = storage.suffix
                if location.is_dir():
                    for file in sorted(location.glob(f"*{storage.suffix}")):
                        if file.is_file():
                            self.known.add(file)
                            self.check_document(cls, file, storage.suffix)
            elif location.is_file():
                self.known.add(location)
                if isinstance(storage, Log):
                    self.check_log(cls, location)
                else:
                    self.check_map(cls, location, storage.key)
        self.check_references()
        self.check_unknown_files()

    # -- reading -------------------------------------------------------------------

    def read(self, path: Path) -> bytes | None:
        self.checked += 1
        try:
            return path.read_bytes()
        except OSError as exc:
            self.add(ERROR, "unreadable", self.rel(path), None, f"cannot read: {exc.strerror}")
            return None

    def decode(self, raw: bytes, rel: str) -> str | None:
        """Document text, or None after reporting why it is not text."""
        if b"\0" in raw:
            line = raw[: raw.index(b"\0")].count(b"\n") + 1
            self.add(ERROR, "not-utf8", rel, line, "binary data (NUL bytes); file not read")
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            self.add(ERROR, "not-utf8", rel, line, "not UTF-8 text; file not read")
            return None

    def markers(self, text: str, rel: str) -> bool:
        found = False
        for number, line in enumerate(text.splitlines(), 1):
            if _MARKER.match(line):
                self.add(ERROR, "conflict-marker", rel, number, "git conflict marker")
                found = True
        return found

    # -- logs ----------------------------------------------------------------------

    def check_log(self, cls: type[Record], path: Path) -> None:
        raw = self.read(path)
        if raw is None:
            return
        rel = self.rel(path)
        rows, read_issues = jsonl.parse(raw, rel)
        bad = _bad_lines(raw)
        if bad and not rows:
            self.add(ERROR, "not-utf8", rel, min(bad), "binary or non-UTF-8 file; nothing read")
            return
        for issue in read_issues:
            code, message = issue.code, issue.message
            if code in ("parse", "not-object") and issue.line in bad:
                code, message = "not-utf8", bad[issue.line]
            elif code == "not-object":
                code = "parse"
            elif code == "parse":  # orjson counts within the line: keep only the column
                message = _JSON_POSITION.sub(r" (column \1)", message)
            self.add(issue.severity, code, rel, issue.line, message)
        first_line: dict[bytes, int] = {}
        creation: dict[str, int] = {}
        revisions: dict[str, list[tuple[str, int, dict[str, Any]]]] = defaultdict(list)
        for number, obj in rows:
            key = jsonl.dumps(obj)
            if key in first_line:
                message = f"identical to line {first_line[key]} (read once)"
                self.add(WARNING, "duplicate-line", rel, number, message)
                continue
            first_line[key] = number
            rid = obj.get("id")
            if not isinstance(rid, str) or not rid:
                continue  # fold reports it
            op = obj.get("_op")
            if op == REVISE:
                changes = obj.get("set")
                if isinstance(changes, dict):
                    self.check_revision(obj, rid, changes, rel, number)
                    revisions[rid].append((_order_key(obj.get("timestamp")), number, changes))
                continue
            if op is not None:
                message = f"unknown _op {op!r} (read as a new record)"
                self.add(ERROR, "schema", rel, number, message, rid, "_op")
            creation.setdefault(rid, number)
        states, fold_issues = fold(rows, rel)
        by_line = dict(rows)
        for issue in fold_issues:
            code, field = issue.code, _FOLD_FIELDS.get(issue.code)
            if "no id" in issue.message:
                code, field = "bad-id", "id"
            rid = by_line.get(issue.line, {}).get("id")
            rid = rid if isinstance(rid, str) and rid else None
            message = issue.message
            if code == "duplicate-id" and rid in creation:
                message = f"duplicate id {rid}: line {creation[rid]} has a different record"
            self.add(issue.severity, code, rel, issue.line, message, rid, field)
        for rid, state in states.items():
            field_lines: dict[str, int] = {}
            # Same order fold applies them: the last revision to set a field owns it.
            for _, number, changes in sorted(revisions[rid], key=lambda r: (r[0], r[1])):
                field_lines.update(dict.fromkeys(changes, number))
            record = cls.from_dict(state)
            self.check_record(record, rel, creation.get(rid), field_lines, revised=True)

    def check_revision(
        self, obj: dict[str, Any], rid: str, changes: dict[str, Any], rel: str, number: int
    ) -> None:
        from lore.clock import parse_timestamp

        stamp = obj.get("timestamp")
        try:
            parse_timestamp(stamp)  # type: ignore[arg-type]
        except (ValueError, TypeError, AttributeError):
            message = "revision has no valid timestamp (applied before dated ones)"
            self.add(WARNING, "schema", rel, number, message, rid, "timestamp")
        if "id" in changes and changes["id"] != rid:
            self.add(ERROR, "schema", rel, number, "a revision cannot change the id", rid, "id")

    # -- documents and maps --------------------------------------------------------

    def check_document(self, cls: type[Record], path: Path, suffix: str) -> None:
        rel = self.rel(path)
        stem = path.name[: -len(suffix)]
        raw = self.read(path)
        text = self.decode(raw, rel) if raw is not None else None
        parsed = None
        if text is not None and not self.markers(text, rel):
            parsed = self.parse_document(text, rel, suffix == ".json")
        if parsed is None:
            # Unread but present: its id still exists, so references to it do not dangle.
            self.ids.setdefault(stem, _Seen(cls.KIND.name, rel, None))
            return
        data, lines = parsed
        raw_id, at = data.get("id"), lines.get("id")
        if raw_id is None or raw_id == "":
            data["id"] = stem  # as Store does: the file name is the id
        elif not isinstance(raw_id, str):
            self.add(ERROR, "bad-id", rel, at, f"id must be a string (got {raw_id!r})", None, "id")
            data["id"] = stem
        elif raw_id != stem:
            message = f"file name says {stem} but the id inside is {raw_id}"
            self.add(ERROR, "id-mismatch", rel, at, message, raw_id, "id")
        self.check_record(cls.from_dict(data), rel, None, lines)

    def parse_document(
        self, text: str, rel: str, is_json: bool
    ) -> tuple[dict[str, Any], dict[str, int]] | None:
        """The document as a plain dict plus each top-level key's line (YAML only)."""
        lines: dict[str, int] = {}
        if is_json:
            import orjson

            try:
                data = orjson.loads(text)
            except orjson.JSONDecodeError as exc:
                self.add(ERROR, "parse", rel, exc.lineno, f"invalid JSON: {exc.msg}")
                return None
        else:
            doc = self.load_yaml(text, rel)
            if doc is _FAILED:
                return None
            lines = _key_lines(doc)
            from lore.storage import yamlio

            data = yamlio.to_plain(doc)
        if not isinstance(data, dict):
            self.add(ERROR, "parse", rel, None, "expected a mapping at the top level")
            return None
        return data, lines

    def load_yaml(self, text: str, rel: str) -> Any:
        from lore.storage import yamlio

        try:
            return yamlio.loads(text, rel)
        except DataError as exc:
            line = exc.details.get("line")
            message = exc.message
            for prefix in (f"{rel}:{line}: ", f"{rel}: "):
                message = message.removeprefix(prefix)
            self.add(ERROR, "parse", rel, line, " ".join(message.split()))
            return _FAILED

    def check_map(self, cls: type[Record], path: Path, key: str) -> None:
        rel = self.rel(path)
        raw = self.read(path)
        text = self.decode(raw, rel) if raw is not None else None
        if text is None or self.markers(text, rel):
            return
        doc = self.load_yaml(text, rel)
        if doc is _FAILED or doc is None:
            return
        if not isinstance(doc, dict):
            self.add(ERROR, "parse", rel, None, "expected a mapping at the top level")
            return
        if key not in doc:
            if doc:
                self.add(ERROR, "schema", rel, None, f"no '{key}:' mapping", None, key)
            return
        entries = doc[key]
        if entries is None:  # "projects:" with nothing under it yet
            return
        if not isinstance(entries, dict):
            message = f"'{key}' must map names to entries"
            self.add(ERROR, "schema", rel, _key_lines(doc).get(key), message, None, key)
            return
        from lore.storage import yamlio

        entry_lines = _key_lines(entries)
        for name, entry in entries.items():
            name = str(name)
            line = entry_lines.get(name)
            if entry is not None and not isinstance(entry, dict):
                self.add(ERROR, "schema", rel, line, f"entry {name!r} must be a mapping", name)
                continue
            data = yamlio.to_plain(entry) if entry is not None else {}
            lines = _key_lines(entry) if entry is not None else {}
            for field in ("id", "name"):
                value = data.setdefault(field, name)
                if value != name:
                    message = f"entry {name!r} has {field} {value!r}; the key is its {field}"
                    self.add(
                        ERROR, "id-mismatch", rel, lines.get(field, line), message, name, field
                    )
                    data[field] = name
            self.check_record(cls.from_dict(data), rel, line, lines)

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
            self.ids[rid] = _Seen(kind, rel, line)
        elif seen.file != rel:
            where = seen.file if seen.line is None else f"{seen.file}:{seen.line}"
            message = f"duplicate id {rid}: also a {seen.kind} in {where}"
            self.add(ERROR, "duplicate-id", rel, line, message, rid, "id")
        self.entries.append(_Entry(record, rel, line, field_lines))

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

    def check_unknown_files(self) -> None:
        for component in COMPONENTS:
            base = self.store.data_dir(component)
            if not base.is_dir():
                continue
            for dirpath, dirnames, filenames in os.walk(base):
                dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS)
                for name in sorted(filenames):
                    path = Path(dirpath) / name
                    if (
                        name in IGNORED_NAMES
                        or name.endswith(IGNORED_SUFFIXES)
                        or path in self.known
                    ):
                        continue
                    suffix = self.dirs.get(path.parent)
                    hint = f" (it reads only *{suffix} files here)" if suffix else ""
                    message = f"lore does not read this file{hint}"
                    self.add(WARNING, "unknown-file", self.rel(path), None, message)


_FAILED = object()
_JSON_POSITION = re.compile(r": line \d+ column (\d+) \(char \d+\)$")
_FOLD_FIELDS = {"duplicate-id": "id", "schema": "set"}


def _bad_lines(raw: bytes) -> dict[int, str]:
    """JSONL line numbers holding NUL bytes or invalid UTF-8, with what is wrong."""
    if b"\0" not in raw:
        try:
            raw.decode("utf-8")
            return {}
        except UnicodeDecodeError:
            pass
    bad: dict[int, str] = {}
    for number, line in enumerate(raw.split(b"\n"), 1):
        if b"\0" in line:
            bad[number] = "binary data (NUL bytes); line skipped"
            continue
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            bad[number] = "not UTF-8 text; line skipped"
    return bad


def _key_lines(node: Any) -> dict[str, int]:
    """1-based line of each key of a ruamel mapping ({} for anything else)."""
    try:
        return {str(k): node.lc.key(k)[0] + 1 for k in node}
    except (AttributeError, KeyError, TypeError):
        return {}


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
