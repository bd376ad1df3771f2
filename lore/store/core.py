"""The record store: ``Store`` maps each kind onto its file(s), reads them (cached, folded
into current state) and adds and revises records under locks; the only module that knows
the on-disk layout. Folding: ``lore.store.fold``; documents, maps: ``lore.store.documents``."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
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
from lore.storage.stamp import stamp as _stamp
from lore.store.coerce import issue_text, read, stored
from lore.store.documents import (
    delete_map_entry,
    document_record,
    dump_document,
    load_dir,
    load_map,
    load_tree,
    put_map_entry,
    read_document,
    read_fast,
    update_document,
)
from lore.store.events import events_path, folded, read_events, with_events
from lore.store.fold import REVISE, fold

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
        self._writing = False
        self._events_cache: dict[Path, tuple[Any, dict[str, list[dict[str, Any]]]]] = {}
        self._locations: dict[tuple[Path, Any], Path] = {}

    # -- layout --------------------------------------------------------------------

    @property
    def path(self) -> Path:
        return self.root.path

    def data_dir(self, component: str) -> Path:
        return self.root.component_dir(component)

    def location(self, kind: str | type[Record]) -> Path:
        """The file (log, map) or directory (one file per record) holding ``kind``."""
        found = self._locations.get((self.root.path, kind))
        if found is not None:
            return found
        cls = kind_class(kind) if isinstance(kind, str) else kind
        storage = cls.KIND.storage
        base = self.data_dir(cls.KIND.component)
        found = base / storage.dir if isinstance(storage, Dir) else base / storage.file
        self._locations[(self.root.path, kind)] = found  # (asked for once per record read)
        return found

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

    def readable(self, kind: str | type[Record]) -> list[Record]:
        """:meth:`records` (hidden ones included), or ``DataError`` when the kind's one file
        cannot be read at all (a map that does not parse, a log lore cannot open): a
        listing or an export must never pass that off as an empty store."""
        cls = kind_class(kind) if isinstance(kind, str) else kind
        found = self.records(cls, hidden=True)
        storage = cls.KIND.storage
        if isinstance(storage, Dir):
            return found
        where = str(self.location(cls))
        for issue in self._kind_issues.get(cls.KIND.name, ()):
            whole = isinstance(storage, Map) or issue.code == "unreadable"
            if whole and issue.file == where:
                raise DataError(
                    f"{issue}; no {cls.KIND.name} can be read until it is fixed "
                    "(lore validate names the problem)",
                    file=where,
                    line=issue.line,
                )
        return found

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
            return [read(cls, data) for data in states.values() if keep(data)]

    def get(self, record_id: str) -> Record:
        cls = class_for_id(record_id)
        if cls is not None and isinstance(cls.KIND.storage, Dir):
            if not _SAFE_NAME.fullmatch(record_id):
                cls = None  # never a file name; it may still be a project's name
            else:
                # A document is found by its file name, without parsing its directory.
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
        if cls is not None and isinstance(cls.KIND.storage, Dir):
            self._unreadable(cls, record_id)
        raise NotFoundError(f"no record with id {record_id!r}", id=record_id)

    def _unreadable(self, cls: type[Record], record_id: str) -> None:
        """Raise ``DataError`` when the id's document exists but does not parse: a read
        or a change of it must say why (file and line), never "not found"."""
        file = self._document(cls, record_id)
        if not file.is_file():
            return
        try:
            read_document(file)
        except DataError as exc:
            details = {k: v for k, v in exc.details.items() if k != "id"}
            raise DataError(
                f"{exc.message} (record {record_id} cannot be read or changed until the "
                "file is fixed)",
                id=record_id,
                **details,
            ) from None

    def find(self, record_id: str) -> Record | None:
        try:
            return self.get(record_id)
        except (NotFoundError, DataError):
            return None

    def peek(self, record_id: str) -> Record | None:
        """:meth:`find` without loading a kind, for a few ids on a big store: the record's
        own lines or file only (``lore.store.peek``)."""
        from lore.store.peek import peek

        return peek(self, record_id)

    def _load(self, cls: type[Record]) -> dict[str, Record]:
        location = self.location(cls)
        storage = cls.KIND.storage
        events = events_path(location, storage) if isinstance(storage, Dir) else None
        cached = self._cache.get(cls.KIND.name)
        old = cached[0] if cached is not None else None
        if events is not None and old is not None:
            old = old[0]  # (the folder's stamp, the events log's)
        stamp = self._watched_stamp(cls, location, old) if self.kept else None
        if stamp is None:
            stamp = _stamp(location)
        if events is not None:  # the folder's events log counts too (its own stat)
            stamp = (stamp, _stamp(events))
        if cached is not None and cached[0] == stamp:
            return cached[1]
        before = len(self.issues)
        if isinstance(storage, Log):
            records = self._load_log(cls, location)
        elif isinstance(storage, Dir):
            records = load_dir(cls, location, storage, self.issues)
            if events is not None:
                found = read_events(events, self.issues)
                if found:
                    records = {rid: with_events(cls, r, found) for rid, r in records.items()}
        else:
            records = load_map(cls, location, storage, self.issues)
        # A reload replaces this kind's issues: the same bad line is reported once.
        stale = {id(issue) for issue in self._kind_issues.get(cls.KIND.name, ())}
        self._kind_issues[cls.KIND.name] = self.issues[before:]
        if stale:
            self.issues[:] = [issue for issue in self.issues if id(issue) not in stale]
        self._cache[cls.KIND.name] = (stamp, records)
        return records

    def _watched_stamp(self, cls: type[Record], location: Path, old: Any) -> Any:
        """A long-lived process's watcher (``kept["watch"]``, a ``lore.storage.watch``
        Watcher) vouches for a document folder: its stamp ``old`` when nothing in it
        changed since, else a new one; None for a log or map file, or without a watcher's
        answer."""
        watcher = (self.kept or {}).get("watch")
        if watcher is None or not isinstance(cls.KIND.storage, Dir):
            return None
        known = isinstance(old, tuple) and len(old) == 2 and old[0] == "watched"
        token, news = watcher.since(old[1] if known else None)
        if not token:
            return None
        if known and news is not None and str(location) not in news:
            return old
        return ("watched", token)

    def _load_log(self, cls: type[Record], path: Path) -> dict[str, Record]:
        with jsonl.gc_paused():  # a record per line, all kept: collections free nothing
            rows, issues = jsonl.read(path)
            self.issues.extend(issues)
            states, _ = fold(rows, str(path), self.issues)
            records = {}
            for rid, data in states.items():
                record, wrong = stored(cls, data)
                if wrong:
                    self.issues.append(
                        ReadIssue(str(path), 0, issue_text(record, wrong), "schema", "warning")
                    )
                records[rid] = record
            return records

    # -- writing -------------------------------------------------------------------

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Every write holds this first: the root's lock, shared (``lore sync`` and a move
        hold it exclusively), and the checks of ``lore.store.guard``. Re-entrant."""
        if self._writing:
            yield
            return
        from lore.store.guard import writing

        with writing(self.path):
            self._writing = True
            try:
                yield
            finally:
                self._writing = False

    def add(
        self,
        records: Iterable[Record],
        *,
        guard: Callable[[], Iterable[Record] | None] | None = None,
        progress: Callable[[int], None] | None = None,
        also: Iterable[type[Record]] = (),
    ) -> None:
        """Store new records: one locked write per log file, one new file per document.

        ``guard`` runs while every target is locked, just before the write, so a
        check it makes (a duplicate search) cannot race another writer; the records it
        returns (of the kinds in ``also``, locked with the rest) are written in the same
        call, so a record and what it brings along are stored together or not at all.
        ``progress`` is told how many records are written so far (a bulk import draws a
        bar).
        """
        records = list(records)
        by_log: dict[Path, list[dict[str, Any]]] = defaultdict(list)
        # One location per class, not per record: a bulk import adds 100,000 at once.
        classes = {type(r) for r in records} | set(also)
        locations = {cls: self.location(cls) for cls in classes}
        targets = sorted(set(locations.values()))
        written: set[Path] = set()  # document folders, each made durable once at the end
        with ExitStack() as stack:
            stack.enter_context(self.writing())
            for target in targets:
                stack.enter_context(locked(target))
            if guard is not None:
                extra = list(guard() or ())
                if any(type(r) not in locations for r in extra):
                    raise InvalidInputError("a guard may only add records of the kinds in also")
                records.extend(extra)
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
                    put_map_entry(location, storage, record, new=True, within=self.path)
            for path, objs in by_log.items():
                jsonl.append(path, objs, lock=False, within=self.path)
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
        from lore.store.peek import logged

        guess = class_for_id(record_id)
        # A document is found by its file name, without parsing its whole directory; a
        # logged record by its own lines, without reading its whole log.
        if guess is not None and isinstance(guess.KIND.storage, Dir):
            known = self._document(guess, record_id).is_file()
        else:
            known = guess is not None and logged(self, guess, record_id) is not None
        cls = guess if guess is not None and known else type(self.get(record_id))
        storage = cls.KIND.storage
        location = self.location(cls)
        target = self._document(cls, record_id)
        with self.writing(), locked(target):
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
                    before = record.to_dict()
                    was = {f: before.get(f) for f in cls.DIVERGENT if f in changes}
                    if was:  # what it replaced: lore.dynamics.conflicts tells clones apart
                        line["was"] = was
                    jsonl.append(location, [line], lock=False, within=self.path)
                elif isinstance(storage, Dir):
                    update_document(target, changes, tree, within=self.path)
                    record = folded(self, cls, document_record(cls, record_id, target, tree))
                else:
                    put_map_entry(
                        location,
                        storage,
                        candidate,
                        new=False,
                        changes=changes,
                        key=record_id,
                        within=self.path,
                    )
        self._cache.pop(cls.KIND.name, None)
        if isinstance(storage, Log):  # its lines, the revision just appended among them
            found = logged(self, cls, record_id)
            return found if found is not None else self.get(record_id)
        # A document's new state is the tree just written: no directory re-read needed.
        return record if isinstance(storage, Dir) else self.get(record_id)

    def _read_one(self, cls: type[Record], record_id: str) -> Record | None:
        """The document ``<id><suffix>``, if it exists and holds that record."""
        file = self._document(cls, record_id)
        try:
            record = read(cls, read_fast(file))
        except (OSError, DataError):
            return None  # missing or unreadable: the full load reports it properly
        record.id = record.id or record_id
        return folded(self, cls, record) if record.id == record_id else None

    def _document(self, cls: type[Record], record_id: str) -> Path:
        """The file of a one-document-per-record kind (for other kinds, their file).

        An id that could leave the directory (``../x``, ``a/b``, a NUL byte) names no
        document: it never becomes a path.
        """
        storage = cls.KIND.storage
        if isinstance(storage, Dir):
            if not _SAFE_NAME.fullmatch(record_id):
                raise NotFoundError(f"no record with id {record_id!r}", id=record_id)
            return self.location(cls) / f"{record_id}{storage.suffix}"
        return self.location(cls)

    def _reread(self, cls: type[Record], record_id: str, target: Path) -> tuple[Record, Any]:
        """The record's current state, read afresh (the caller holds its lock).

        For a document, also the parsed tree that changes are written into (parsed once).
        """
        if isinstance(cls.KIND.storage, Dir):
            try:
                tree = load_tree(target)
            except FileNotFoundError:
                raise NotFoundError(f"no record with id {record_id!r}", id=record_id) from None
            return folded(self, cls, document_record(cls, record_id, target, tree)), tree
        if not isinstance(cls.KIND.storage, Log):
            # A replaced map file can keep its size and mtime; appends always grow a log.
            self._cache.pop(cls.KIND.name, None)
            record = self._load(cls).get(record_id)
        else:
            from lore.store.peek import logged

            record = logged(self, cls, record_id)
        if record is None:
            raise NotFoundError(f"no record with id {record_id!r}", id=record_id)
        return record, None

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
        with self.writing(), locked(path):
            self._cache.pop(cls.KIND.name, None)
            record = self._load(cls).get(key)
            if record is None:
                raise NotFoundError(f"no {cls.KIND.name} named {key!r}", id=key)
            delete_map_entry(path, storage, key, within=self.path)
        self._cache.pop(cls.KIND.name, None)
        return record


# A document's id is its file name: letters, digits, "_", "-" and inner dots only.
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,200}(?<!\.)")
