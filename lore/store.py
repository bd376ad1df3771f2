"""The record store: maps each kind onto its file(s) and folds revisions into state.

``Store`` is the only module that knows the on-disk layout. Logs are append-only:
a change is a revision line ``{"_op": "revise", "id", "timestamp", "set": {...}}``
and every reader folds lines the same way (creation line first, then revisions in
timestamp order, later wins; identical lines from a union merge count once).
Documents are replaced atomically under a sidecar lock.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from lore import clock
from lore.errors import DataError, InvalidInputError, NotFoundError
from lore.model import Dir, Log, Map, R, Record, class_for_id, kind_class, kinds
from lore.paths import COMPONENTS, DataRoot, resolve_root
from lore.storage import jsonl
from lore.storage.atomic import atomic_write
from lore.storage.jsonl import ReadIssue
from lore.storage.lock import locked

REVISE = "revise"


class Store:
    """All records under one data root."""

    def __init__(self, root: DataRoot | Path | str | None = None) -> None:
        if isinstance(root, DataRoot):
            self.root = root
        else:
            self.root = resolve_root(root)
        self.issues: list[ReadIssue] = []
        self._cache: dict[str, tuple[Any, dict[str, Record]]] = {}

    # -- layout --------------------------------------------------------------------

    @property
    def path(self) -> Path:
        return self.root.path

    def data_dir(self, component: str) -> Path:
        return self.root.component_dir(component)

    def location(self, kind: str | type[Record]) -> Path:
        """The file (log, map) or directory (one file per record) holding ``kind``."""
        cls = kind_class(kind) if isinstance(kind, str) else kind
        storage = cls.KIND.storage
        base = self.data_dir(cls.KIND.component)
        if isinstance(storage, Dir):
            return base / storage.dir
        return base / storage.file

    def init(self) -> list[Path]:
        """Create every component's ``data/`` directory; returns the ones created."""
        created = []
        for name in COMPONENTS:
            path = self.data_dir(name)
            if not path.is_dir():
                path.mkdir(parents=True, exist_ok=True)
                created.append(path)
        return created

    # -- reading -------------------------------------------------------------------

    def records(self, kind: str | type[Record], *, hidden: bool = False) -> list[Record]:
        """Current state of every record of ``kind``, oldest first."""
        cls = kind_class(kind) if isinstance(kind, str) else kind
        found = list(self._load(cls).values())
        return found if hidden else [r for r in found if not r.hidden]

    def of(self, cls: type[R], *, hidden: bool = False) -> list[R]:
        """Typed form of :meth:`records` for code that knows the class."""
        return self.records(cls, hidden=hidden)  # type: ignore[return-value]

    def all_records(self, *, hidden: bool = False) -> list[Record]:
        out: list[Record] = []
        for cls in kinds().values():
            out.extend(self.records(cls, hidden=hidden))
        return out

    def get(self, record_id: str) -> Record:
        cls = class_for_id(record_id)
        candidates = [cls] if cls else [kind_class("project")]
        for candidate in candidates:
            record = self._load(candidate).get(record_id)
            if record is not None:
                return record
        raise NotFoundError(f"no record with id {record_id!r}", id=record_id)

    def find(self, record_id: str) -> Record | None:
        try:
            return self.get(record_id)
        except NotFoundError:
            return None

    def _load(self, cls: type[Record]) -> dict[str, Record]:
        location = self.location(cls)
        stamp = _stamp(location)
        cached = self._cache.get(cls.KIND.name)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        storage = cls.KIND.storage
        if isinstance(storage, Log):
            records = self._load_log(cls, location)
        elif isinstance(storage, Dir):
            records = self._load_dir(cls, location, storage)
        else:
            records = self._load_map(cls, location, storage)
        self._cache[cls.KIND.name] = (stamp, records)
        return records

    def _load_log(self, cls: type[Record], path: Path) -> dict[str, Record]:
        rows, issues = jsonl.read(path)
        self.issues.extend(issues)
        states, _ = fold(rows, str(path), self.issues)
        return {rid: cls.from_dict(data) for rid, data in states.items()}

    def _load_dir(self, cls: type[Record], path: Path, storage: Dir) -> dict[str, Record]:
        out: dict[str, Record] = {}
        if not path.is_dir():
            return out
        for file in sorted(path.glob(f"*{storage.suffix}")):
            try:
                data = read_document(file)
            except DataError as exc:
                self.issues.append(
                    ReadIssue(str(file), int(exc.details.get("line") or 0), exc.message, "parse")
                )
                continue
            record = cls.from_dict(data)
            if not record.id:
                record.id = file.name[: -len(storage.suffix)]
            out[record.id] = record
        return dict(sorted(out.items(), key=lambda item: item[1].timestamp or ""))

    def _load_map(self, cls: type[Record], path: Path, storage: Map) -> dict[str, Record]:
        out: dict[str, Record] = {}
        if not path.is_file():
            return out
        from lore.storage import yamlio

        try:
            doc = yamlio.to_plain(yamlio.load(path)) or {}
        except DataError as exc:
            self.issues.append(
                ReadIssue(str(path), int(exc.details.get("line") or 0), exc.message, "parse")
            )
            return out
        entries = doc.get(storage.key) if isinstance(doc, dict) else None
        if not isinstance(entries, dict):
            return out
        for name, entry in entries.items():
            data = dict(entry) if isinstance(entry, dict) else {}
            data.setdefault("name", name)
            data.setdefault("id", name)
            out[str(name)] = cls.from_dict(data)
        return out

    # -- writing -------------------------------------------------------------------

    def add(self, records: Iterable[Record], *, guard: Callable[[], None] | None = None) -> None:
        """Store new records: one locked write per log file, one new file per document.

        ``guard`` runs while every target is locked, just before the write, so a
        check it makes (a duplicate search) cannot race another writer.
        """
        records = list(records)
        by_log: dict[Path, list[dict[str, Any]]] = defaultdict(list)
        targets = sorted({self.location(type(r)) for r in records})
        with ExitStack() as stack:
            for target in targets:
                stack.enter_context(locked(target))
            if guard is not None:
                guard()
            for record in records:
                storage = record.KIND.storage
                location = self.location(type(record))
                if isinstance(storage, Log):
                    by_log[location].append(record.to_dict())
                elif isinstance(storage, Dir):
                    file = location / f"{record.id}{storage.suffix}"
                    try:
                        atomic_write(file, dump_document(file, record.to_dict()), exclusive=True)
                    except FileExistsError:
                        raise InvalidInputError(
                            f"{file} already exists; refusing to overwrite record {record.id}",
                            id=record.id,
                        ) from None
                else:
                    self._put_map_entry(location, storage, record, new=True)
            for path, objs in by_log.items():
                jsonl.append(path, objs, lock=False)
        for record in records:
            self._cache.pop(record.kind, None)

    def revise(
        self, record_id: str, changes: dict[str, Any], *, reason: str | None = None
    ) -> Record:
        """Change fields of an existing record (an appended revision for logs)."""
        record = self.get(record_id)
        cls = type(record)
        candidate = cls.from_dict({**record.to_dict(), **changes})
        bad = [p for p in candidate.problems() if p[0] in changes]
        if bad:
            field, message = bad[0]
            raise InvalidInputError(f"{field} {message}", field=field, id=record_id)
        storage = cls.KIND.storage
        location = self.location(cls)
        if isinstance(storage, Log):
            line: dict[str, Any] = {
                "_op": REVISE,
                "id": record_id,
                "timestamp": clock.now(),
                "set": changes,
            }
            if reason:
                line["reason"] = reason
            jsonl.append(location, [line])
        elif isinstance(storage, Dir):
            self._update_document(location / f"{record_id}{storage.suffix}", changes)
        else:
            with locked(location):
                self._put_map_entry(location, storage, candidate, new=False, changes=changes)
        self._cache.pop(cls.KIND.name, None)
        return self.get(record_id)

    def _update_document(self, file: Path, changes: dict[str, Any]) -> None:
        with locked(file):
            if file.suffix == ".json":
                data = read_document(file)
                data.update(changes)
                atomic_write(file, dump_document(file, data))
                return
            from lore.storage import yamlio

            doc = yamlio.load(file)
            if not isinstance(doc, dict):
                raise DataError(f"{file}: expected a mapping at the top level", file=str(file))
            for key, value in changes.items():
                doc[key] = value
            atomic_write(file, yamlio.dumps(doc))

    def _put_map_entry(
        self,
        path: Path,
        storage: Map,
        record: Record,
        *,
        new: bool,
        changes: dict[str, Any] | None = None,
    ) -> None:
        """Insert or change one entry of a map document; the caller holds the lock."""
        from lore.storage import yamlio

        doc = yamlio.load(path) if path.is_file() else None
        if doc is None:
            doc = yamlio.loads(f"{storage.key}: {{}}\n", str(path))
        if not isinstance(doc, dict):
            raise DataError(f"{path}: expected a mapping at the top level", file=str(path))
        entries = doc.get(storage.key)
        if entries is None:
            doc[storage.key] = entries = yamlio.loads("{}", str(path))
        name = record.title
        if new and name in entries:
            raise InvalidInputError(f"{path}: {name!r} already exists", id=name)
        if new:
            data = record.to_dict()
            data.pop("id", None)
            data.pop("name", None)
            entries[name] = data
        else:
            for key, value in (changes or {}).items():
                entries[name][key] = value
        atomic_write(path, yamlio.dumps(doc))


# --- helpers shared with validate/import -----------------------------------------------


def fold(
    rows: list[tuple[int, dict[str, Any]]], name: str, issues: list[ReadIssue] | None = None
) -> tuple[dict[str, dict[str, Any]], list[ReadIssue]]:
    """Fold creation and revision lines into each record's latest state.

    Identical lines (a union merge of two clones) count once. A second, different
    creation line for an id keeps the first and is reported; so is a revision
    whose id has no creation line.
    """
    found = issues if issues is not None else []
    states: dict[str, dict[str, Any]] = {}
    first_seen: dict[str, bytes] = {}
    revisions: dict[str, list[tuple[str, int, dict[str, Any]]]] = defaultdict(list)
    seen_revisions: set[bytes] = set()
    for number, obj in rows:
        rid = obj.get("id")
        if not isinstance(rid, str) or not rid:
            found.append(ReadIssue(name, number, "record has no id", "schema"))
            continue
        if obj.get("_op") == REVISE:
            key = jsonl.dumps(obj)
            if key in seen_revisions:
                continue
            seen_revisions.add(key)
            changes = obj.get("set")
            if not isinstance(changes, dict):
                found.append(ReadIssue(name, number, "revision has no 'set' object", "schema"))
                continue
            revisions[rid].append((str(obj.get("timestamp") or ""), number, changes))
            continue
        if rid in states:
            if jsonl.dumps(obj) != first_seen[rid]:
                found.append(
                    ReadIssue(name, number, f"duplicate id {rid} (first line kept)", "duplicate-id")
                )
            continue
        states[rid] = dict(obj)
        first_seen[rid] = jsonl.dumps(obj)
    for rid, changes_list in revisions.items():
        state = states.get(rid)
        if state is None:
            line = changes_list[0][1]
            found.append(
                ReadIssue(name, line, f"revision for unknown id {rid}", "dangling-revision")
            )
            continue
        for _, _, changes in sorted(changes_list, key=lambda item: (item[0], item[1])):
            state.update(changes)
    return states, found


def _stamp(path: Path) -> Any:
    """A cheap change detector for a file or a directory of files."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    if path.is_dir():  # documents may be edited in place: look at every file
        with os.scandir(path) as entries:
            return tuple(sorted((e.name, e.stat().st_mtime_ns, e.stat().st_size) for e in entries))
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def read_document(file: Path) -> dict[str, Any]:
    """One record document (YAML or JSON) as a plain dict."""
    if file.suffix == ".json":
        import orjson

        try:
            data = orjson.loads(file.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise DataError(f"{file}: invalid JSON: {exc}", file=str(file)) from None
    else:
        from lore.storage import yamlio

        data = yamlio.to_plain(yamlio.load(file))
    if not isinstance(data, dict):
        raise DataError(f"{file}: expected a mapping at the top level", file=str(file))
    return data


def dump_document(file: Path, data: dict[str, Any]) -> bytes:
    if file.suffix == ".json":
        import orjson

        return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
    from lore.storage import yamlio

    return yamlio.dumps(data)
