"""Bringing the index up to date with the files: appended or rewritten logs, and
document folders (a stat per file; a settled folder skips its listing).
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from array import array
from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

from lore.errors import LoreError
from lore.index.columns import SEARCH_KINDS, _unpack
from lore.index.write import Writable
from lore.model import Dir, Record, kind_class
from lore.storage.jsonl import BOM
from lore.store.coerce import read
from lore.store.core import Store
from lore.store.documents import read_fast
from lore.store.events import read_events, with_events
from lore.store.fold import REVISE, fold

TAIL_BYTES = 4096  # an appended log is trusted when the bytes before the old end are unchanged
COMPACT_MIN_DEAD = 1000
COMPACT_DEAD_SHARE = 0.25


class Refreshable(Writable):
    """The columns, kept in step with the files they were read from."""

    # During one refresh of a kind that keeps an events log (patterns): its events, and
    # the log's (size, mtime, inode) to remember.
    _events: dict[str, list[dict[str, Any]]] | None = None
    _events_stamp: tuple[int, int, int] | None = None

    def refresh(self, store: Store, kinds: tuple[str, ...] = SEARCH_KINDS) -> bool:
        """Bring the index up to date with the files (of ``kinds``: each kind's freshness
        is tracked on its own); True if anything changed."""
        self.changed = False
        # A long-lived process may watch the document folders (lore.index.watch): a folder
        # with no event since its last full check needs no stat per document.
        watch = store.kept.get("watch") if store.kept is not None else None
        for kind in kinds:
            where = self.layout.get(kind)
            if where is None:  # a new index: ask the kind where its records live
                cls = kind_class(kind)
                storage = cls.KIND.storage
                suffix = storage.suffix if isinstance(storage, Dir) else ""
                where = self.layout[kind] = (str(store.location(cls)), suffix)
            path, suffix = where
            # Known locations: a kind's module is imported only if its files changed.
            if suffix:
                events = self._events_changed(kind, Path(path))
                if not events and watch is not None and kind in self.sources and watch.quiet(path):
                    continue
                self._refresh_dir(kind, Path(path), suffix)
                self._events = self._events_stamp = None
            else:
                self._refresh_log(kind, Path(path))
        dead = len(self.dead)
        if dead >= COMPACT_MIN_DEAD and dead > COMPACT_DEAD_SHARE * len(self.kinds):
            self.compact()
        return self.changed

    # -- logs --

    def _refresh_log(self, kind: str, path: Path) -> None:
        source = self.sources.get(kind)
        try:
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode):  # a directory (or worse) where the log should
                raise FileNotFoundError  # be: no records to search; the store reports it
        except (FileNotFoundError, NotADirectoryError):
            if source is None or source.get("fp") is not None:
                self._kill_kind(kind)
                self.sources[kind] = {"fp": None}
                self.changed = True
            return
        fp = (st.st_size, st.st_mtime_ns, st.st_ino)
        if source is not None and source.get("fp") == fp:
            return
        if source is not None and source.get("fp"):
            try:
                if self._append_log(kind_class(kind), path, source, fp):
                    return
            except (OSError, ValueError, KeyError):  # the file moved under us: read it all
                pass
        self._reload_log(kind_class(kind), path)

    def _reload_log(self, cls: type[Record], path: Path) -> None:
        kind = cls.KIND.name
        self._kill_kind(kind)
        with open(path, "rb") as handle:
            data = handle.read()
            st = os.fstat(handle.fileno())
        rows = _rows(data, 0)
        states, _ = fold([(offset, obj) for offset, _, obj in rows], str(path))
        spans, revisions = _spans(rows)
        for rid, state in states.items():
            self._add(read(cls, state), spans[rid], revisions.pop(rid, []))
        self.sources[kind] = _log_source(data, st, len(data), revisions)
        self.changed = True

    def _append_log(
        self, cls: type[Record], path: Path, source: dict[str, Any], fp: tuple[int, int, int]
    ) -> bool:
        """Index only the lines appended since last time; False when that is not safe."""
        old_size, _, old_ino = source["fp"]
        if fp[2] != old_ino or fp[0] <= old_size or not source.get("nl"):
            return False
        with open(path, "rb") as handle:
            start = max(0, old_size - TAIL_BYTES)
            handle.seek(start)
            before = handle.read(old_size - start)
            if _digest(before) != source.get("tail"):
                return False
            data = handle.read()
            st = os.fstat(handle.fileno())
        if not data.endswith(b"\n"):
            return False  # a write in progress or a torn line: read it all, carefully
        rows = _rows(data, old_size)
        dangling = {k: list(v) for k, v in source.get("dangling", {}).items()}
        known = self.find_ids({obj["id"] for _, _, obj in rows if isinstance(obj.get("id"), str)})
        creations: dict[str, tuple[int, int]] = {}
        touched: set[str] = set()
        for offset, length, obj in rows:
            rid = obj.get("id")
            if not isinstance(rid, str) or not rid:
                continue
            if obj.get("_op") == REVISE:
                dangling.setdefault(rid, []).append((offset, length))
                touched.add(rid)
            elif rid not in creations and rid not in known:
                creations[rid] = (offset, length)
        kind = cls.KIND.name
        for rid in touched:
            doc = known.get(rid)
            if doc is not None and self.kind_of(doc) == kind:
                spans = [(self.off[doc], self.ln[doc]), *self.revs.get(doc, ()), *dangling.pop(rid)]
                self._kill(doc)
                self._add_spans(cls, path, rid, spans, data, old_size)
        for rid, span in creations.items():
            self._add_spans(cls, path, rid, [span, *dangling.pop(rid, [])], data, old_size)
        self.sources[kind] = _log_source(before + data, st, old_size + len(data), dangling)
        self.changed = True
        return True

    def _add_spans(
        self,
        cls: type[Record],
        path: Path,
        rid: str,
        spans: list[tuple[int, int]],
        data: bytes,
        base: int,
    ) -> None:
        """Index one record from its lines (``data`` holds those at ``base`` and after)."""
        rows = []
        with open(path, "rb") as handle:
            for offset, length in spans:
                if offset >= base:
                    line = data[offset - base : offset - base + length]
                else:
                    handle.seek(offset)
                    line = handle.read(length)
                rows.append((offset, orjson.loads(line)))
        states, _ = fold(rows, str(path))
        if rid in states:
            self._add(read(cls, states[rid]), spans[0], list(spans[1:]))

    # -- documents --

    def _refresh_dir(self, kind: str, path: Path, suffix: str) -> None:
        """Re-read the documents whose (size, mtime, inode) moved; drop deleted ones.

        The names are kept in directory order, so an unchanged directory costs one
        listing and one stat per file (the stat calls are most of a warm query's time).
        """
        source = self.sources.get(kind) or {"names": "", "fps": b"", "docs": b""}
        names: list[str] = source["names"].split("\n") if source["names"] else []
        fps = _unpack(source["fps"], "q")
        with _Listing(path) as listing:
            here = listing.fingerprint()
            listed_at = time.time_ns()
            if here is not None and here == source.get("dir"):
                # No entry was added, removed or renamed since the last listing: the
                # names stand, and only a file rewritten in place can have changed.
                if listing.unchanged(names, fps):
                    return
                listed = names
            else:
                listed = [n for n in listing.names() if n.endswith(suffix)]
                if listed == names and listing.unchanged(names, fps):
                    settled = _settled(here, listed_at)
                    if settled != source.get("dir"):
                        source["dir"] = settled
                        self.changed = True
                    return
            docs = _unpack(source["docs"], "i")
            old = {name: (tuple(fps[3 * k : 3 * k + 3]), docs[k]) for k, name in enumerate(names)}
            new_names, new_fps, new_docs = [], array("q"), array("i")
            for name in listed:
                st = listing.stat(name)
                if st is None or not stat.S_ISREG(st.st_mode):
                    continue
                fp = (st.st_size, st.st_mtime_ns, st.st_ino)
                previous = old.pop(name, None)
                if previous is not None and previous[0] == fp:
                    doc = previous[1]
                else:
                    self._kill(previous[1] if previous is not None else -1)
                    doc = self._add_document(kind_class(kind), path / name)
                new_names.append(name)
                new_fps.extend(fp)
                new_docs.append(doc)
        for _, doc in old.values():
            self._kill(doc)
        self.sources[kind] = {
            "names": "\n".join(new_names),
            "fps": new_fps.tobytes(),
            "docs": new_docs.tobytes(),
            "dir": _settled(here, listed_at),
        }
        if self._events_stamp is not None:
            self.sources[kind]["events"] = self._events_stamp
        self.changed = True

    def _events_changed(self, kind: str, folder: Path) -> bool:
        """For a kind that keeps an events log beside its folder (patterns): whether the
        log changed since the last refresh. If it did, every document of the kind is read
        again (its state folds those events in); the log's events are loaded for that."""
        cls = kind_class(kind)
        storage = cls.KIND.storage
        if not isinstance(storage, Dir) or not storage.events:
            return False
        path = folder.parent / storage.events
        try:
            st = os.stat(path)
            stamp: tuple[int, int, int] | None = (st.st_size, st.st_mtime_ns, st.st_ino)
        except OSError:
            stamp = None
        self._events_stamp = stamp
        source = self.sources.get(kind)
        if source is not None and tuple(source.get("events") or ()) == tuple(stamp or ()):
            return False
        self._events = read_events(path)
        if source is None:
            return False
        # Fingerprints that match nothing: every document is read again.
        source["fps"] = bytes(len(source.get("fps") or b""))
        source["events"] = stamp
        return True

    def _add_document(self, cls: type[Record], file: Path) -> int:
        try:
            record = read(cls, read_fast(file))
        except (OSError, ValueError, LoreError):  # unreadable: validate reports it, we skip it
            return -1
        suffix = cls.KIND.storage.suffix  # type: ignore[union-attr]
        record.id = record.id or file.name[: -len(suffix)]
        if self._events is None and cls.KIND.storage.events:  # type: ignore[union-attr]
            self._events = read_events(file.parent.parent / cls.KIND.storage.events)  # type: ignore[union-attr]
        if self._events:
            record = with_events(cls, record, self._events)
        doc = self._add(record, (-1, 0), [])
        if doc >= 0 and file.name != f"{record.id}{suffix}":
            self.files[doc] = file.name
        return doc


class _Listing:
    """A directory's file names and their stat results (relative to an open directory
    descriptor where the platform allows: cheaper than a path lookup per file)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> _Listing:
        if os.stat in os.supports_dir_fd and os.listdir in os.supports_fd:
            with contextlib.suppress(OSError):
                self.fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        return self

    def __exit__(self, *_: Any) -> None:
        if self.fd >= 0:
            os.close(self.fd)

    def fingerprint(self) -> tuple[int, int] | None:
        """The directory's (mtime, inode): its mtime moves whenever an entry is added,
        removed or renamed (not when a file is rewritten in place: hence the stat per
        file). None when the directory cannot be read."""
        try:
            st = os.fstat(self.fd) if self.fd >= 0 else os.stat(self.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_ino)

    def names(self) -> list[str]:
        try:
            return os.listdir(self.fd if self.fd >= 0 else self.path)
        except (FileNotFoundError, NotADirectoryError):
            return []

    def stat(self, name: str) -> os.stat_result | None:
        try:
            if self.fd >= 0:
                return os.stat(name, dir_fd=self.fd)
            return os.stat(self.path / name)
        except OSError:
            return None

    def unchanged(self, names: list[str], fps: array) -> bool:
        """Every file still has the (size, mtime, inode) recorded in ``fps``.

        This loop is most of a warm query's time (one stat per document), so it is kept
        tight: the stat call is made inline, with the directory descriptor when there is one.
        """
        if self.fd < 0:
            stat_at: Any = lambda name: os.stat(self.path / name)  # noqa: E731
        else:
            fd, plain = self.fd, os.stat
            stat_at = lambda name: plain(name, dir_fd=fd)  # noqa: E731
        j = 0
        try:
            for name in names:
                st = stat_at(name)
                if st.st_mtime_ns != fps[j + 1] or st.st_size != fps[j] or st.st_ino != fps[j + 2]:
                    return False
                j += 3
        except OSError:
            return False
        return True


SETTLE_NS = 2_000_000_000  # a directory changed this recently may change again unseen


def _settled(fingerprint: tuple[int, int] | None, listed_at: int) -> tuple[int, int] | None:
    """The directory fingerprint to trust next time, or None when it is too fresh.

    File times tick coarsely: an entry added in the same tick as the listing, just
    after it, would leave the mtime unchanged. A directory whose last change is well
    before the listing gets a new mtime from any later change.
    """
    if fingerprint is None or fingerprint[0] > listed_at - SETTLE_NS:
        return None
    return fingerprint


def _digest(data: bytes) -> bytes:
    # Only when a log changed. _blake2 directly: hashlib would load OpenSSL (2 ms).
    try:
        from _blake2 import blake2b
    except ImportError:  # a Python built without it
        from hashlib import blake2b

    return blake2b(data, digest_size=16).digest()


def _rows(data: bytes, base: int) -> list[tuple[int, int, dict[str, Any]]]:
    """Parseable JSON-object lines as (byte offset, length, object); the rest is skipped
    exactly as the store's reader skips it."""
    rows = []
    loads = orjson.loads
    pos = base
    if base == 0 and data.startswith(BOM):  # a byte-order mark an editor put first
        data, pos = data[len(BOM) :], len(BOM)
    for line in data.split(b"\n"):
        length = len(line)
        if length and not line.isspace():
            try:
                obj = loads(line)
            except orjson.JSONDecodeError:
                obj = None
            if isinstance(obj, dict):
                rows.append((pos, length, obj))
        pos += length + 1
    return rows


def _spans(
    rows: list[tuple[int, int, dict[str, Any]]],
) -> tuple[dict[str, tuple[int, int]], dict[str, list[tuple[int, int]]]]:
    """Each id's creation line and revision lines, as (offset, length)."""
    creation: dict[str, tuple[int, int]] = {}
    revisions: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for offset, length, obj in rows:
        rid = obj.get("id")
        if not isinstance(rid, str) or not rid:
            continue
        if obj.get("_op") == REVISE:
            revisions[rid].append((offset, length))
        elif rid not in creation:
            creation[rid] = (offset, length)
    return creation, dict(revisions)


def _log_source(
    content_tail: bytes, st: os.stat_result, size: int, dangling: dict[str, Any]
) -> dict[str, Any]:
    # A size that disagrees with fstat means the file grew while we read: an impossible
    # mtime makes the next refresh look again.
    mtime = st.st_mtime_ns if st.st_size == size else -1
    return {
        "fp": (size, mtime, st.st_ino),
        "tail": _digest(content_tail[-TAIL_BYTES:] if size else b""),
        "nl": size == 0 or content_tail.endswith(b"\n"),
        "dangling": dangling,
    }
