"""Per-file checks of ``lore validate``: every data file read as raw bytes (no locks, no
caches) and checked as text, JSONL log, YAML/JSON document or map, plus unknown files.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from lore.errors import DataError
from lore.model import Dir, Log, Record, kinds
from lore.paths import COMPONENTS
from lore.storage import jsonl
from lore.store.fold import REVISE, _order_key, fold
from lore.upkeep.report import ERROR, IGNORED_DIRS, IGNORED_NAMES, IGNORED_SUFFIXES, WARNING
from lore.upkeep.validate_records import RecordChecker, Seen

# Git writes markers at column 0: 7 characters, then a space and a label (or nothing).
_MARKER = re.compile(r"^(?:<{7}|>{7}|\|{7})(?: |$)|^={7}$")


class Checker(RecordChecker):
    """One validation run: ``run()`` reads every data file under the root."""

    def run(self) -> None:
        for cls in kinds().values():
            location = self.store.location(cls)
            storage = cls.KIND.storage
            if location.exists() and location.is_dir() != isinstance(storage, Dir):
                want = "a directory" if isinstance(storage, Dir) else "a file"
                message = f"cannot read: expected {want} here; nothing read"
                self.add(ERROR, "unreadable", self.rel(location), None, message)
                continue
            if isinstance(storage, Dir):
                self.dirs[location] = storage.suffix
                if location.is_dir():
                    for file in sorted(location.glob(f"*{storage.suffix}")):
                        if file.is_file():
                            self.known.add(file)
                            self.check_document(cls, file, storage.suffix)
                if storage.events and (location.parent / storage.events).is_file():
                    self.known.add(location.parent / storage.events)
                    self.check_events(cls, location, location.parent / storage.events)
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
        lines: dict[str, list[tuple[str, int, dict[str, Any]]]] = defaultdict(list)  # whole
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
                    lines[rid].append((_order_key(obj.get("timestamp")), number, obj))
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
            if len(lines[rid]) >= 2 and cls.DIVERGENT:
                self.check_divergence(cls, rid, lines[rid], rel)

    def check_divergence(
        self, cls: type[Record], rid: str, lines: list[tuple[str, int, dict[str, Any]]], rel: str
    ) -> None:
        """A field two clones set differently, neither seeing the other (``lore.dynamics.
        conflicts``): a warning naming both values, at the later revision's line."""
        from lore.dynamics.conflicts import divergences

        for found in divergences(cls, rid, lines):
            self.add(WARNING, "divergent-value", rel, found.second.line, found.message(), rid,
                     found.field)  # fmt: skip

    def check_events(self, cls: type[Record], folder: Path, path: Path) -> None:
        """An events log beside a document folder: each line a JSON object naming a record
        of the folder and an event type the kind knows."""
        raw = self.read(path)
        if raw is None:
            return
        rel = self.rel(path)
        rows, read_issues = jsonl.parse(raw, rel)
        for issue in read_issues:
            code = "parse" if issue.code == "not-object" else issue.code
            self.add(issue.severity, code, rel, issue.line, issue.message)
        known = getattr(cls, "EVENT_TYPES", ())
        suffix = cls.KIND.storage.suffix  # type: ignore[union-attr]
        first_line: dict[bytes, int] = {}
        for number, obj in rows:
            key = jsonl.dumps(obj)
            if key in first_line:
                message = f"identical to line {first_line[key]} (read once)"
                self.add(WARNING, "duplicate-line", rel, number, message)
                continue
            first_line[key] = number
            rid = obj.get("id")
            if not isinstance(rid, str) or not rid:
                self.add(ERROR, "bad-id", rel, number, "event has no record id", None, "id")
                continue
            if obj.get("type") not in known:
                message = f"unknown event type {obj.get('type')!r} (skipped on read)"
                self.add(WARNING, "schema", rel, number, message, rid, "type")
            if not (folder / f"{rid}{suffix}").is_file():
                message = f"event for unknown {cls.KIND.name} {rid}"
                self.add(ERROR, "dangling-revision", rel, number, message, rid)

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
            self.ids.setdefault(stem, Seen(cls.KIND.name, rel, None))
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
                data = orjson.loads(text.removeprefix("\ufeff"))  # a byte-order mark: not data
            except orjson.JSONDecodeError as exc:
                self.add(ERROR, "parse", rel, exc.lineno, f"invalid JSON: {exc.msg}")
                return None
            if jsonl.too_deep(data):
                message = f"nested more than {jsonl.MAX_DEPTH} levels deep; not read"
                self.add(ERROR, "parse", rel, None, message)
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
