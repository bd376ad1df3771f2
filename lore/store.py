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
from lore.storage.atomic import atomic_write, fsync_dir
from lore.storage.jsonl import ReadIssue
from lore.storage.lock import locked

REVISE = "revise"


PROGRESS_EVERY = 500  # records between progress calls of a bulk add


class Store:
    """All records under one data root."""

    def __init__(self, root: DataRoot | Path | str | None = None) -> None:
        if isinstance(root, DataRoot):
            self.root = root
        else:
            self.root = resolve_root(root)
        self.issues: list[ReadIssue] = []
        self._cache: dict[str, tuple[Any, dict[str, Record]]] = {}
        self._kind_issues: dict[str, list[ReadIssue]] = {}
        # Derived data a long-lived process (``lore mcp``) keeps between calls: set to a
        # dict to keep the search index in memory (refreshed from the files on each use).
        self.kept: dict[str, Any] | None = None

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

    def matching(
        self, kind: str | type[Record], keep: Callable[[dict[str, Any]], bool]
    ) -> list[Record]:
        """:meth:`records` (hidden ones included) pre-filtered on their stored state.

        ``keep`` sees each record's latest state (the dict :meth:`Record.from_dict`
        gets) and must return True for every record the caller could want: it is a
        cheap first cut, not the final test, and callers check the records it lets
        through. Only those are built, so asking a 100,000-line log for the few
        records that matter skips building the rest. Kinds that are not logs, and
        logs already loaded, are returned whole. Read issues are not recorded here
        (:meth:`records` reports them).
        """
        cls = kind_class(kind) if isinstance(kind, str) else kind
        storage = cls.KIND.storage
        location = self.location(cls)
        cached = self._cache.get(cls.KIND.name)
        if not isinstance(storage, Log) or (cached is not None and cached[0] == _stamp(location)):
            return self.records(cls, hidden=True)
        with jsonl.gc_paused():
            rows, _ = jsonl.read(location)
            states, _ = fold(rows, str(location))
            return [cls.from_dict(data) for data in states.values() if keep(data)]

    def get(self, record_id: str) -> Record:
        cls = class_for_id(record_id)
        if cls is not None and isinstance(cls.KIND.storage, Dir):
            # A document is found by its file name, without parsing its whole directory.
            found = self._read_one(cls, record_id)
            if found is not None:
                return found
        # Projects are keyed by free-form names, so "pat-tools" may be a project.
        project = kind_class("project")
        candidates = [cls, project] if cls and cls is not project else [project]
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
        before = len(self.issues)
        if isinstance(storage, Log):
            records = self._load_log(cls, location)
        elif isinstance(storage, Dir):
            records = self._load_dir(cls, location, storage)
        else:
            records = self._load_map(cls, location, storage)
        # A reload replaces this kind's issues: the same bad line is reported once.
        stale = {id(issue) for issue in self._kind_issues.get(cls.KIND.name, ())}
        self._kind_issues[cls.KIND.name] = self.issues[before:]
        if stale:
            self.issues[:] = [issue for issue in self.issues if id(issue) not in stale]
        self._cache[cls.KIND.name] = (stamp, records)
        return records

    def _load_log(self, cls: type[Record], path: Path) -> dict[str, Record]:
        with jsonl.gc_paused():  # a record per line, all kept: collections free nothing
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
                data = read_fast(file)
            except DataError as exc:
                self.issues.append(_data_issue(file, exc))
                continue
            record = cls.from_dict(data)
            if not record.id:
                record.id = file.name[: -len(storage.suffix)]
            if not isinstance(record.id, str):  # hand-written `id: 123` must not break listing
                self.issues.append(
                    ReadIssue(str(file), 0, f"id must be a string (got {record.id!r})", "schema")
                )
                continue
            out[record.id] = record
        return dict(sorted(out.items(), key=lambda item: _sort_time(item[1])))

    def _load_map(self, cls: type[Record], path: Path, storage: Map) -> dict[str, Record]:
        out: dict[str, Record] = {}
        if not path.is_file():
            return out
        from lore.storage import yamlio

        try:
            doc = yamlio.to_plain(yamlio.load(path)) or {}
        except DataError as exc:
            self.issues.append(_data_issue(path, exc))
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

    def add(
        self,
        records: Iterable[Record],
        *,
        guard: Callable[[], None] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """Store new records: one locked write per log file, one new file per document.

        ``guard`` runs while every target is locked, just before the write, so a
        check it makes (a duplicate search) cannot race another writer. ``progress``
        is told how many records are written so far (a bulk import draws a bar).
        """
        records = list(records)
        by_log: dict[Path, list[dict[str, Any]]] = defaultdict(list)
        # One location per class, not per record: a bulk import adds 100,000 at once.
        locations = {cls: self.location(cls) for cls in {type(r) for r in records}}
        targets = sorted(set(locations.values()))
        written: set[Path] = set()  # document folders, each made durable once at the end
        with ExitStack() as stack:
            for target in targets:
                stack.enter_context(locked(target))
            if guard is not None:
                guard()
            done = 0
            for record in records:
                storage = record.KIND.storage
                location = locations[type(record)]
                done += 1
                if progress is not None and done % PROGRESS_EVERY == 0:
                    progress(done)
                if isinstance(storage, Log):
                    by_log[location].append(record.to_dict())
                elif isinstance(storage, Dir):
                    file = location / f"{record.id}{storage.suffix}"
                    written.add(location)
                    try:
                        data = dump_document(file, record.to_dict())
                        atomic_write(file, data, exclusive=True, sync_dir=False)
                    except FileExistsError:
                        raise InvalidInputError(
                            f"{file} already exists; refusing to overwrite record {record.id}",
                            id=record.id,
                        ) from None
                else:
                    self._put_map_entry(location, storage, record, new=True)
            for path, objs in by_log.items():
                jsonl.append(path, objs, lock=False)
            if progress is not None:
                progress(done)
            for folder in written:  # one fsync makes every new name in it durable
                fsync_dir(folder)
        for kind in {r.kind for r in records}:
            self._cache.pop(kind, None)

    def revise(
        self, record_id: str, changes: dict[str, Any], *, reason: str | None = None
    ) -> Record:
        """Change fields of an existing record (an appended revision for logs)."""
        return self.update(record_id, lambda _state: changes, reason=reason)

    def update(
        self,
        record_id: str,
        fn: Callable[[dict[str, Any]], dict[str, Any] | None],
        *,
        reason: str | None = None,
    ) -> Record:
        """Read-modify-write one record: ``fn(state) -> changes`` runs under its lock.

        ``state`` is the record's ``to_dict()`` read while the lock is held, so a
        change computed from it (``validations + 1``) cannot be lost to another
        writer. Empty changes write nothing. ``fn`` must not write to the store itself
        (the lock is not re-entrant).
        """
        cls = class_for_id(record_id)
        document = cls is not None and isinstance(cls.KIND.storage, Dir)
        if cls is None or not (document and self._document(cls, record_id).is_file()):
            # (a document is found by its file name, without parsing its whole directory)
            cls = type(self.get(record_id))
        storage = cls.KIND.storage
        location = self.location(cls)
        target = self._document(cls, record_id)
        with locked(target):
            record, tree = self._reread(cls, record_id, target)
            changes = fn(record.to_dict())
            if changes:
                if changes.get("id", record_id) != record_id:
                    raise InvalidInputError("id cannot be changed", field="id", id=record_id)
                candidate = cls.from_dict({**record.to_dict(), **changes})
                bad = [p for p in candidate.problems() if p[0] in changes]
                if bad:
                    field, message = bad[0]
                    raise InvalidInputError(f"{field} {message}", field=field, id=record_id)
                if isinstance(storage, Log):
                    line: dict[str, Any] = {
                        "_op": REVISE,
                        "id": record_id,
                        "timestamp": clock.now(),
                        "set": changes,
                    }
                    if reason:
                        line["reason"] = reason
                    jsonl.append(location, [line], lock=False)
                elif isinstance(storage, Dir):
                    self._update_document(target, changes, tree)
                    record = _document_record(cls, record_id, target, tree)
                else:
                    self._put_map_entry(
                        location, storage, candidate, new=False, changes=changes, key=record_id
                    )
        self._cache.pop(cls.KIND.name, None)
        # A document's new state is the tree just written: no directory re-read needed.
        return record if isinstance(storage, Dir) else self.get(record_id)

    def _read_one(self, cls: type[Record], record_id: str) -> Record | None:
        """The document ``<id><suffix>``, if it exists and holds that record."""
        file = self._document(cls, record_id)
        try:
            record = cls.from_dict(read_fast(file))
        except (OSError, DataError):
            return None  # missing or unreadable: the full load reports it properly
        record.id = record.id or record_id
        return record if record.id == record_id else None

    def _document(self, cls: type[Record], record_id: str) -> Path:
        """The file of a one-document-per-record kind (for other kinds, their file)."""
        storage = cls.KIND.storage
        if isinstance(storage, Dir):
            return self.location(cls) / f"{record_id}{storage.suffix}"
        return self.location(cls)

    def _reread(self, cls: type[Record], record_id: str, target: Path) -> tuple[Record, Any]:
        """The record's current state, read afresh (the caller holds its lock).

        For a document, also the parsed tree that changes are written into (parsed once).
        """
        if isinstance(cls.KIND.storage, Dir):
            try:
                tree = _load_tree(target)
            except FileNotFoundError:
                raise NotFoundError(f"no record with id {record_id!r}", id=record_id) from None
            return _document_record(cls, record_id, target, tree), tree
        if not isinstance(cls.KIND.storage, Log):
            # A replaced map file can keep its size and mtime; appends always grow a log.
            self._cache.pop(cls.KIND.name, None)
        record = self._load(cls).get(record_id)
        if record is None:
            raise NotFoundError(f"no record with id {record_id!r}", id=record_id)
        return record, None

    def _update_document(self, file: Path, changes: dict[str, Any], tree: Any) -> None:
        """Set ``changes`` in a document's parsed ``tree`` (comments kept) and write it."""
        for key, value in changes.items():
            merge_value(tree, key, value)
        if file.suffix == ".json":
            atomic_write(file, dump_document(file, tree))
            return
        from lore.storage import yamlio

        atomic_write(file, yamlio.dumps(tree))

    def _put_map_entry(
        self,
        path: Path,
        storage: Map,
        record: Record,
        *,
        new: bool,
        changes: dict[str, Any] | None = None,
        key: str | None = None,
    ) -> None:
        """Insert or change one entry of a map document; the caller holds the lock.

        A change finds its entry by ``key`` (the record's id, its name in the map).
        """
        from lore.storage import yamlio

        doc = yamlio.load(path) if path.is_file() else None
        if doc is None:
            doc = yamlio.loads(f"{storage.key}: {{}}\n", str(path))
        if not isinstance(doc, dict):
            raise DataError(f"{path}: expected a mapping at the top level", file=str(path))
        entries = doc.get(storage.key)
        if entries is None:
            doc[storage.key] = entries = yamlio.loads("{}", str(path))
        name = record.title if new or key is None else key
        if new and name in entries:
            raise InvalidInputError(f"{path}: {name!r} already exists", id=name)
        if new:
            # A hand-edited file: write what the entry says, not every default.
            data = {
                k: v
                for k, v in record.to_dict().items()
                if k not in ("id", "name")
                and v not in (None, "", [], {})
                and (k, v) not in (("source", "manual"), ("v", 1))
            }
            yamlio.append_key(entries, name, data)
        else:
            changes = changes or {}
            if changes.get("name", name) != name:
                raise InvalidInputError(
                    f"{name!r} is keyed by its name in {path}; rename it by editing that file",
                    field="name",
                    id=name,
                )
            if not isinstance(entries.get(name), dict):  # a bare "name:" line
                entries[name] = {}
            for field, value in changes.items():
                merge_value(entries[name], field, value)
        atomic_write(path, yamlio.dumps(doc))

    def remove_entry(self, kind: str | type[Record], key: str) -> Record:
        """Delete the entry ``key`` of a map document (a registry project), under its lock;
        the rest of the file (comments, order, unknown keys) stays as it was."""
        cls = kind_class(kind) if isinstance(kind, str) else kind
        storage = cls.KIND.storage
        if not isinstance(storage, Map):
            raise InvalidInputError(
                f"{cls.KIND.name} records cannot be removed", kind=cls.KIND.name
            )
        path = self.location(cls)
        from lore.storage import yamlio

        with locked(path):
            self._cache.pop(cls.KIND.name, None)
            record = self._load(cls).get(key)
            if record is None:
                raise NotFoundError(f"no {cls.KIND.name} named {key!r}", id=key)
            doc = yamlio.load(path)
            yamlio.delete_key(doc, doc[storage.key], key)
            atomic_write(path, yamlio.dumps(doc))
        self._cache.pop(cls.KIND.name, None)
        return record


# --- helpers shared with validate/import -----------------------------------------------


def merge_value(tree: Any, key: Any, value: Any) -> None:
    """Set ``tree[key] = value``, changing a parsed document in place where it can: a
    mapping or a list that only changed or grew keeps the comments inside it, and a
    value that did not change keeps its hand-written style."""
    try:
        old = tree[key]
    except (KeyError, IndexError, TypeError):
        if isinstance(tree, dict) and hasattr(tree, "ca"):  # a new key of a parsed map
            from lore.storage import yamlio

            yamlio.append_key(tree, key, value)  # before the comments that ended it
        else:
            tree[key] = value
        return
    if isinstance(old, dict) and isinstance(value, dict):
        for gone in [k for k in old if k not in value]:
            del old[gone]
        for k, v in value.items():
            merge_value(old, k, v)
    elif isinstance(old, list) and isinstance(value, list) and len(old) <= len(value):
        for i, v in enumerate(value):
            if i < len(old):
                merge_value(old, i, v)
            else:
                old.append(v)
    elif old != value or isinstance(old, bool) != isinstance(value, bool):  # (True == 1)
        tree[key] = value


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
    # Each id's creation line as read: serialized only when the id turns up again,
    # so a log without repeated ids is never re-encoded (that is a third of a read).
    first_seen: dict[str, dict[str, Any]] = {}
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
            revisions[rid].append((_order_key(obj.get("timestamp")), number, changes))
            continue
        if rid in states:
            if jsonl.dumps(obj) != jsonl.dumps(first_seen[rid]):
                found.append(
                    ReadIssue(name, number, f"duplicate id {rid} (first line kept)", "duplicate-id")
                )
            continue
        states[rid] = dict(obj)
        first_seen[rid] = obj
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


def _data_issue(file: Path, exc: DataError) -> ReadIssue:
    """A document that cannot be read, as an issue (its message without the location)."""
    line = int(exc.details.get("line") or 0)
    message = exc.message
    for prefix in (f"{file}:{line}: ", f"{file}: "):
        message = message.removeprefix(prefix)
    code = "conflict-marker" if message == "git conflict marker" else "parse"
    return ReadIssue(str(file), line, message, code)


def _sort_time(record: Record) -> str:
    return record.timestamp if isinstance(record.timestamp, str) else ""


def _order_key(timestamp: Any) -> str:
    """A revision's timestamp in canonical form, so ``...00Z`` sorts after ``...00.5Z``."""
    text = str(timestamp or "")
    try:
        return clock.normalize_timestamp(text)
    except (ValueError, TypeError):
        return text


def _stamp(path: Path) -> Any:
    """A cheap change detector for a file or a directory of files."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if path.is_dir():  # documents may be edited in place: look at every file
        with os.scandir(path) as entries:
            # The inode too: an atomic replace within one coarse mtime tick keeps the size.
            return tuple(
                sorted((e.name, e.inode(), e.stat().st_mtime_ns, e.stat().st_size) for e in entries)
            )
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def read_fast(file: Path) -> dict[str, Any]:
    """``read_document(file)``, faster for the documents lore writes itself."""
    if file.suffix == ".yaml":
        from lore.storage.fastyaml import Unsure, flat_yaml

        try:
            return flat_yaml(file.read_text(encoding="utf-8"))
        except (Unsure, UnicodeDecodeError, OSError):
            pass
    return read_document(file)


def read_document(file: Path) -> dict[str, Any]:
    """One record document (YAML or JSON) as a plain dict."""
    return _plain_document(file, _load_tree(file))


def _load_tree(file: Path) -> Any:
    """A document as parsed: plain JSON data, or ruamel's round-trip tree for YAML."""
    if file.suffix == ".json":
        import orjson

        try:
            return orjson.loads(file.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise DataError(f"{file}: invalid JSON: {exc}", file=str(file)) from None
    from lore.storage import yamlio

    return yamlio.load(file)


def _document_record(cls: type[Record], record_id: str, file: Path, tree: Any) -> Record:
    record = cls.from_dict(_plain_document(file, tree))
    record.id = record.id or record_id
    return record


def _plain_document(file: Path, tree: Any) -> dict[str, Any]:
    if file.suffix == ".json":
        data = tree
    else:
        from lore.storage import yamlio

        data = yamlio.to_plain(tree)
    if not isinstance(data, dict):
        raise DataError(f"{file}: expected a mapping at the top level", file=str(file))
    return data


def dump_document(file: Path, data: dict[str, Any]) -> bytes:
    if file.suffix == ".json":
        import orjson

        return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
    from lore.storage.fastyaml import flat_dump

    text = flat_dump(data)  # what ruamel would write, without ruamel (or None)
    if text is not None:
        return text.encode("utf-8")
    from lore.storage import yamlio

    return yamlio.dumps(data)
