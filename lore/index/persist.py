"""The index file: its format (``dumps``/``loads``), and loading, saving, opening
(brought up to date), rebuilding and describing it.
"""

from __future__ import annotations

import marshal
import sys
from array import array
from pathlib import Path
from typing import Any

from lore.index.aggregates import Aggregates
from lore.index.columns import _ARRAYS, SEARCH_KINDS
from lore.index.orders import build as build_orders
from lore.index.packed import Packed
from lore.index.refresh import Refreshable
from lore.index.vocab import Vocab
from lore.index.vocab import pack as pack_vocab
from lore.paths import DataRoot
from lore.store.core import Store

# 23: lore.dynamics' columns (pins, citations, file hashes) in the lazily read format;
# every index written before (18 on the speed branch, 22 on main) is rebuilt.
INDEX_SCHEMA = 23
# Attributes marshalled in regions of their own and read on first use (resume never reads
# the tags, recall never the facts).
LAZY = (
    "projects",
    "groups",
    "sessions",
    "contexts",
    "revs",
    "files",
    "replaced",
    "facts",
    "tags",
    "dead",
    "pins",
    "cites",
)
MAGIC = b"LOREIDX\x00"
# Records re-indexed since the file was written before a read rewrites the file: until
# then each read re-applies those few changes in memory (cheaper than rewriting tens of
# megabytes after every capture).
SAVE_AFTER = 64


def _packed(value: Any) -> bytes:
    return (
        value
        if isinstance(value, bytes)
        else bytes(value)
        if isinstance(value, memoryview)
        else value.tobytes()
    )


def index_path(root: DataRoot) -> Path:
    return root.index_file


def _header() -> bytes:
    # marshal's format belongs to one Python version: a different one means a rebuild.
    # The terms depend on the stemmer: an index written with the other one is rebuilt.
    from lore.index.analyze import stemmer

    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return MAGIC + f"{INDEX_SCHEMA} {version} {sys.byteorder} {stemmer()}\n".encode()


class Index(Refreshable):
    """The search index: columns and postings, kept fresh, stored in one file.

    On disk: a header, the marshalled metadata, then every term's postings packed in
    one blob that a query reads term by term (memory-mapped), never as a whole.
    """

    def dumps(self) -> bytes:
        if not self.cit_valid:
            self.count_citations()
        else:  # kept up to date record by record; a count that went down left the bound
            self.cit_max = max(self.cit, default=0)
        chunks: list[bytes] = []
        entries: list[tuple[str, int, int, int, int]] = []
        offset = 0
        dl = self.dl
        for term in self.vocabulary():
            column = self.fresh.get(term)
            if column is not None:
                data = column.tobytes()
            else:
                where = self.vocab.get(term)
                data = bytes(self.blob[where[0] : where[0] + where[1]]) if where else b""
            added = self.more.get(term)
            if added is not None:
                data += added.tobytes()
            if data:
                postings = array("I")
                postings.frombytes(data)
                bounds = (max(postings[1::2]), min(map(dl.__getitem__, postings[0::2])))
                entries.append((term, offset, len(data), *bounds))
                chunks.append(data)
                offset += len(data)
        columns: list[bytes] = []
        regions: dict[str, tuple[int, int]] = {}
        at = 0
        by_id, by_time = build_orders(self)
        for name, data in (
            ("id_order", by_id),
            ("time_order", by_time),
            *pack_vocab(entries).items(),
            ("entities", marshal.dumps({k: _packed(v) for k, v in self.entities.items()})),
            ("anchors", self.packed_anchors()),
            *zip(("ids", "ids_at"), self._ids.tobytes()),
            *zip(("titles", "titles_at"), self._titles.tobytes()),
            ("kinds", bytes(self.kinds)),
            ("hidden", bytes(self.hidden)),
            ("flags", bytes(self.flags)),
            ("asks", bytes(self.asks)),
            ("nb", bytes(self.nb)),
            ("anch", bytes(self.anch)),
            *((name, getattr(self, name).tobytes()) for name in _ARRAYS),
            *((f"lazy:{name}", self._marshalled(name)) for name in LAZY),
        ):
            regions[name] = (at, len(data))
            pad = -len(data) % 8  # keep every column 8-byte aligned for memoryview.cast
            columns.append(data + b"\0" * pad)
            at += len(data) + pad
        meta = {
            "root": self.root,
            "sources": self.sources,
            "layout": self.layout,
            "regions": regions,
            "columns": at,
            "aggregates": self.aggregates().state(),
            "ordered": len(self.kinds),
            "blanket": sorted(self.blanket_contexts()),
            "cit_max": self.cit_max,
            "blob": offset,
            "build": self.build,
        }
        packed = marshal.dumps(meta)
        head = [_header(), len(packed).to_bytes(8, "little"), packed]
        return b"".join([*head, *columns, *chunks])

    def _marshalled(self, name: str) -> bytes:
        """A lazy attribute as stored: its bytes as read when it was never used."""
        raw = self._lazy.get(name)
        if raw is not None:
            return bytes(raw)
        value = getattr(self, name)
        if name == "tags":
            value = {k: _packed(v) for k, v in value.items()}
        return marshal.dumps(value)

    @classmethod
    def loads(cls, data: Any, root: str) -> Index | None:
        """An index from ``dumps`` output (bytes or a memory map), or None if unusable.

        The columns stay views into ``data`` (nothing is copied: a memory-mapped index
        costs only the pages a command touches) until the first change thaws them.
        """
        header = _header()
        start = len(header) + 8
        if len(data) < start or bytes(data[: len(header)]) != header:
            return None
        size = int.from_bytes(data[len(header) : start], "little")
        try:
            meta = marshal.loads(data[start : start + size])
            if meta["root"] != root:
                return None
            view = memoryview(data)
            base = start + size
            regions = meta["regions"]

            def column(name: str, code: str = "B") -> memoryview:
                offset, length = regions[name]
                if base + offset + length > len(data):
                    raise ValueError("truncated index")
                return view[base + offset : base + offset + length].cast(code)  # type: ignore[call-overload]

            index = cls(root)
            index.sources = meta["sources"]
            index.layout = meta["layout"]
            index._ids = Packed(column("ids"), column("ids_at", "I"))
            index._agg = Aggregates.from_state(meta["aggregates"])
            index._id_order = column("id_order", "I")
            index._time_order = column("time_order", "I")
            index._ordered = meta["ordered"]
            index._blanket = set(meta["blanket"])
            index.kinds = column("kinds")  # type: ignore[assignment]
            index.hidden = column("hidden")  # type: ignore[assignment]
            index.flags = column("flags")  # type: ignore[assignment]
            index.asks = column("asks")  # type: ignore[assignment]
            index.nb = column("nb")  # type: ignore[assignment]
            index.anch = column("anch")  # type: ignore[assignment]
            for name, code in _ARRAYS.items():
                setattr(index, name, column(name, code))
            for name in LAZY:
                del index.__dict__[name]  # read from the file on first use
                index._lazy[name] = column(f"lazy:{name}")
            index.cit_max = meta["cit_max"]
            index.build = meta["build"]
            index.blob = view[base + meta["columns"] :]
            index._vocab = Vocab(
                Packed(column("vocab"), column("vocab_at", "I")),
                column("vocab_off", "Q"),
                column("vocab_size", "I"),
                column("vocab_maxtf", "I"),
                column("vocab_mindl", "I"),
            )
            index._entities, index._entities_raw = None, column("entities")
            index._anchors, index._anchors_raw = None, column("anchors")
            index.cit_valid = True
            index._titles = Packed(column("titles"), column("titles_at", "I"))
            index._frozen = True
            n = len(index.kinds)
            columns = (*_ARRAYS, "hidden", "flags", "asks", "nb", "anch")
            if not all(len(getattr(index, c)) == n for c in columns):
                return None
            if len(index._ids) != n or len(index._titles) != n:
                return None
            if len(index._id_order) != n or len(index._time_order) != n or index._ordered != n:
                return None
            if len(index.blob) != meta["blob"]:  # truncated, or a stray write
                return None
        except (EOFError, ValueError, TypeError, KeyError, AttributeError):
            return None
        return index


# --- opening ----------------------------------------------------------------------------


def load(root: DataRoot) -> Index | None:
    """The stored index, or None if missing, unreadable or of another format."""
    import mmap

    from lore.index import held

    path = str(index_path(root))
    if (path, str(root.path)) not in held.LOADED:
        held.LOADED.append((path, str(root.path)))
    if held.HELD:  # a worker of the command server: its parent may hold this very file
        taken = held.take(path)
        if taken is not None:
            return taken
    try:
        with open(path, "rb") as handle:
            data: Any = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # missing, unreadable, or empty (mmap refuses 0 bytes)
        return None
    return Index.loads(data, str(root.path))


def save(index: Index, root: DataRoot) -> bool:
    """Write the index atomically; best effort (a read-only cache only costs speed)."""
    from lore.storage.atomic import atomic_write

    try:
        atomic_write(index_path(root), index.dumps())
    except OSError:
        return False
    index.changed = False
    index.edits = 0
    return True


def _stored(store: Store) -> Index | None:
    """The stored index, or the one ``store.kept`` holds from an earlier call."""
    kept = store.kept
    if kept is None:
        return load(store.root)
    if kept.get("index") is None:
        kept["index"] = load(store.root)
    index: Index | None = kept["index"]
    return index


def current(store: Store, kinds: tuple[str, ...]) -> Index | None:
    """The stored index with ``kinds`` brought up to date in memory only, or None when
    there is none yet: for a writer's quick question (a count), which must neither pay
    for a first build nor rewrite the whole index file after its own small append.
    (Writers reach it through ``lore.capture.warm_index``, which skips importing this
    module when there is no index file.)"""
    index = _stored(store)
    if index is not None and index.refresh(store, kinds) and store.kept is not None:
        store.kept["dirty"] = True
    return index


def open_index(store: Store) -> Index:
    """The index, brought up to date with the files (and saved if that changed it; a kept
    index is saved only by ``save_kept``, so a long-lived process's queries stay fast)."""
    index = _stored(store)
    if index is None:
        index = Index(str(store.path))
        index.refresh(store)
        save(index, store.root)
        if store.kept is not None:
            store.kept["index"] = index
    elif index.refresh(store):
        if store.kept is not None:
            store.kept["dirty"] = True
        elif index.edits >= SAVE_AFTER or index.resynced:
            save(index, store.root)
    return index


def settle(store: Store, index: Index) -> None:
    """Write ``index`` if it holds changes its file does not (a reader that keeps record
    numbers, the graph snapshot, must find the same numbers next time)."""
    if index.edits and save(index, store.root) and store.kept is not None:
        store.kept["dirty"] = False


def state(store: Store, index: Index) -> list[Any]:
    """What the index holds, as a key for answers derived from it: the file's (size,
    mtime, inode), plus a digest of the files' states when changes were applied in
    memory since (the same files always give the same index)."""
    try:
        st = index_path(store.root).stat()
    except OSError:
        return []
    stamp: list[Any] = [st.st_size, st.st_mtime_ns, st.st_ino]
    if index.edits:
        from lore.index.refresh import _digest

        stamp.append(_digest(marshal.dumps(index.sources)).hex())
    return stamp


def save_kept(store: Store) -> bool:
    """Save the index ``store.kept`` holds, if it moved on since it was read or saved."""
    kept = store.kept or {}
    index = kept.get("index")
    if index is None or not kept.get("dirty"):
        return False
    index.refresh(store)
    kept["dirty"] = False
    return save(index, store.root)


def rebuild(store: Store) -> Index:
    """Build the index from nothing but the files, and save it. Asked for explicitly, so
    an index that cannot be saved (a read-only cache) is an ``OSError`` naming the path,
    never a success that saved nothing."""
    from lore.storage.atomic import atomic_write

    index = Index(str(store.path))
    index.refresh(store)
    atomic_write(index_path(store.root), index.dumps())
    index.changed = False
    return index


def status(store: Store) -> dict[str, Any]:
    """What the stored index holds and whether the files have moved on since (read-only)."""
    path = index_path(store.root)
    stored = load(store.root)
    counts: dict[str, int] = {}
    fresh = False
    if stored is not None:
        for doc, code in enumerate(stored.kinds):
            if doc not in stored.dead:
                counts[SEARCH_KINDS[code]] = counts.get(SEARCH_KINDS[code], 0) + 1
        probe = load(store.root)  # refreshing changes it in memory only
        if probe is not None:
            probe.refresh(store)
        fresh = probe is not None and not probe.edits
    from lore.index.watch import ask, enabled

    return {
        "path": str(path),
        "exists": path.is_file(),
        "readable": stored is not None,
        "fresh": fresh,
        "watched": enabled() and bool(ask(store.root, None, spawn=False)[0]),
        "schema": INDEX_SCHEMA,
        "records": stored.size if stored is not None else 0,
        "terms": len(stored.vocabulary()) if stored is not None else 0,
        "bytes": path.stat().st_size if path.is_file() else 0,
        "kinds": counts,
    }
