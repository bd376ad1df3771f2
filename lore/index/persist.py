"""The index file: its format (``dumps``/``loads``), and loading, saving, opening
(brought up to date), rebuilding and describing it.
"""

from __future__ import annotations

import marshal
import sys
from pathlib import Path
from typing import Any

from lore.index.columns import _ARRAYS, SEARCH_KINDS
from lore.index.refresh import Refreshable
from lore.paths import DataRoot
from lore.store.core import Store

INDEX_SCHEMA = 22
MAGIC = b"LOREIDX\x00"


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
        chunks: list[bytes] = []
        vocab: dict[str, tuple[int, int]] = {}
        offset = 0
        for term in self.vocabulary():
            column = self.fresh.get(term)
            if column is not None:
                data = column.tobytes()
            else:
                start, size = self.vocab[term]
                data = bytes(self.blob[start : start + size])
            if data:
                vocab[term] = (offset, len(data))
                chunks.append(data)
                offset += len(data)
        columns: list[bytes] = []
        regions: dict[str, tuple[int, int]] = {}
        at = 0
        for name, data in (
            ("vocab", marshal.dumps(vocab)),
            ("entities", marshal.dumps({k: _packed(v) for k, v in self.entities.items()})),
            ("cites", marshal.dumps(self.cites)),
            ("anchors", self.packed_anchors()),
            ("titles", "\n".join(self.titles).encode("utf-8")),
            *self._packed_ids().items(),
            ("kinds", bytes(self.kinds)),
            ("hidden", bytes(self.hidden)),
            ("flags", bytes(self.flags)),
            ("asks", bytes(self.asks)),
            ("anch", bytes(self.anch)),
            *((name, getattr(self, name).tobytes()) for name in _ARRAYS),
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
            "group_counts": self._live_groups(),
            "blanket": sorted(self.blanket_contexts()),
            "projects": self.projects,
            "groups": self.groups,
            "sessions": self.sessions,
            "contexts": self.contexts,
            "revs": self.revs,
            "files": self.files,
            "replaced": self.replaced,
            "facts": self.facts,
            "pins": self.pins,
            "cit_max": self.cit_max,
            "tags": {k: v if isinstance(v, bytes) else v.tobytes() for k, v in self.tags.items()},
            "blob": offset,
            "dead": self.dead,
            "build": self.build,
        }
        packed = marshal.dumps(meta)
        head = [_header(), len(packed).to_bytes(8, "little"), packed]
        return b"".join([*head, *columns, *chunks])

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
            index._ids, index._ids_text = None, column("ids")
            index._ids_at = column("ids_at", "I")  # type: ignore[assignment]
            index._group_counts = meta["group_counts"]
            index._blanket = set(meta["blanket"])
            index.kinds = column("kinds")  # type: ignore[assignment]
            index.hidden = column("hidden")  # type: ignore[assignment]
            index.flags = column("flags")  # type: ignore[assignment]
            index.asks = column("asks")  # type: ignore[assignment]
            index.anch = column("anch")  # type: ignore[assignment]
            for name, code in _ARRAYS.items():
                setattr(index, name, column(name, code))
            for name in (
                "projects",
                "groups",
                "sessions",
                "contexts",
                "revs",
                "files",
                "replaced",
                "facts",
                "pins",
                "cit_max",
                "tags",
            ):
                setattr(index, name, meta[name])
            index.dead = meta["dead"]
            index.build = meta["build"]
            index.blob = view[base + meta["columns"] :]
            index._vocab, index._vocab_raw = None, column("vocab")
            index._entities, index._entities_raw = None, column("entities")
            index._cites, index._cites_raw = None, column("cites")
            index._anchors, index._anchors_raw = None, column("anchors")
            index.cit_valid = True
            index._titles, index._titles_raw = None, column("titles")
            index._frozen = True
            n = len(index.kinds)
            columns = (*_ARRAYS, "hidden", "flags", "asks", "anch", "_ids_at")
            if not all(len(getattr(index, c)) == n for c in columns):
                return None
            if len(index.blob) != meta["blob"]:  # truncated, or a stray write
                return None
            if n and bytes(index._titles_raw).count(b"\n") != n - 1:
                return None
            if len(index._group_counts) != len(index.groups):
                return None
        except (EOFError, ValueError, TypeError, KeyError, AttributeError):
            return None
        return index


# --- opening ----------------------------------------------------------------------------


def load(root: DataRoot) -> Index | None:
    """The stored index, or None if missing, unreadable or of another format."""
    import mmap

    try:
        with open(index_path(root), "rb") as handle:
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
        if store.kept is None:
            save(index, store.root)
        else:
            store.kept["dirty"] = True
    return index


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
        fresh = probe is not None and not probe.refresh(store)
    return {
        "path": str(path),
        "exists": path.is_file(),
        "readable": stored is not None,
        "fresh": fresh,
        "schema": INDEX_SCHEMA,
        "records": stored.size if stored is not None else 0,
        "terms": len(stored.vocabulary()) if stored is not None else 0,
        "bytes": path.stat().st_size if path.is_file() else 0,
        "kinds": counts,
    }
