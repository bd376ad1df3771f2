"""The derived search index (build, load, refresh, rebuild) and the recall history.

Both live in the machine-local folder ``store.root.local`` (never in the data root, never
committed). The index is fingerprinted against every source file, so a change is visible
to the next query; deleting it, or a corrupt or old-format file, just means a rebuild.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import stat
import sys
import time
from array import array
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import orjson

from lore import search
from lore.errors import LoreError
from lore.model import Dir, Log, Record, kind_class
from lore.paths import DataRoot
from lore.store import REVISE, Store, fold, read_fast

INDEX_SCHEMA = 9
MAGIC = b"LOREIDX\x00"
SEARCH_KINDS = (
    "decision",
    "pattern",
    "anti-pattern",
    "failure",
    "observation",
    "evidence",
    "goal",
    "session",
    "concept",
)
DEDUPE_KINDS = ("decision", "pattern", "anti-pattern")  # as lore.capture checks them
TAIL_BYTES = 4096  # an appended log is trusted when the bytes before the old end are unchanged
COMPACT_MIN_DEAD = 1000
COMPACT_DEAD_SHARE = 0.25
COUNTS_FILE = "recall-counts.json"

# Per-record columns and their array typecodes: time (epoch seconds), project code,
# static importance, weighted length, the creation line's byte offset and length (logs;
# -1 for documents), the failure group (error type) code and the session_id code.
_ARRAYS = {
    "ts": "d",
    "proj": "I",
    "imp": "f",
    "dl": "I",
    "off": "q",
    "ln": "I",
    "grp": "I",
    "sess": "I",
}


def index_path(root: DataRoot) -> Path:
    return root.index_file


def _header() -> bytes:
    # marshal's format belongs to one Python version: a different one means a rebuild.
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return MAGIC + f"{INDEX_SCHEMA} {version} {sys.byteorder}\n".encode()


def _digest(data: bytes) -> bytes:
    # Only when a log changed. _blake2 directly: hashlib would load OpenSSL (2 ms).
    try:
        from _blake2 import blake2b
    except ImportError:  # a Python built without it
        from hashlib import blake2b

    return blake2b(data, digest_size=16).digest()


def _unpack(data: Any, code: str = "I") -> array:
    """A growable array of ``code`` items from bytes, a memoryview or an array."""
    column = array(code)
    if isinstance(data, memoryview) and data.format != "B":
        data = data.cast("B")  # a typed view of the file: frombytes wants plain bytes
    column.frombytes(data)
    return column


class Index:
    """Per-record metadata in columns, and term -> (record, weighted count) postings.

    On disk: a header, the marshalled metadata, then every term's postings packed in
    one blob that a query reads term by term (memory-mapped), never as a whole.
    """

    def __init__(self, root: str) -> None:
        self.root = root
        self.sources: dict[str, dict[str, Any]] = {}
        self.layout: dict[str, tuple[str, str]] = {}  # kind -> (its file or folder, suffix)
        self._ids: list[str] | None = []  # None: not split from _ids_text yet
        self._ids_text: Any = b""  # UTF-8, one id a line (a view into the file once loaded)
        self._ids_at = array("I")  # the byte offset where each id starts in _ids_text
        self._frozen = False  # columns are read-only views until _thaw
        self._titles: list[str] | None = []  # normalized titles of DEDUPE_KINDS, else ""
        self._titles_raw: Any = b""  # the same, packed one a line (read on first use)
        self.kinds = bytearray()
        self.hidden = bytearray()
        self.flags = bytearray()  # 1: a pending decision, an active goal, a closed session
        self.ts = array("d")
        self.proj = array("I")
        self.imp = array("f")
        self.dl = array("I")
        self.off = array("q")
        self.ln = array("I")
        self.grp = array("I")
        self.sess = array("I")
        self.projects: list[str | None] = [None]
        self.groups: list[str] = [""]
        self.sessions: list[str | None] = [None]
        self.revs: dict[int, list[tuple[int, int]]] = {}
        self.files: dict[int, str] = {}  # documents whose file name is not <id><suffix>
        self.replaced: dict[int, str] = {}
        self.facts: dict[int, tuple[Any, ...]] = {}  # what resume sorts and filters by
        self.tags: dict[str, Any] = {}
        self._vocab: dict[str, tuple[int, int]] | None = {}  # term -> (offset, bytes) in blob
        self._vocab_raw: Any = None  # the marshalled vocabulary, read on first use
        self.blob: Any = b""
        self.fresh: dict[str, array] = {}  # postings changed since the blob was written
        self.dead: set[int] = set()
        self._terms: list[str] | None = None
        self._codes: dict[str, dict[Any, int]] = {}
        self._by_id: dict[str, int] | None = None
        self._group_counts: list[int] | None = None
        self._docs: dict[tuple[str, bool, bool], list[int]] = {}  # docs() answers
        self._kind_bytes: bytes | None = None  # the kinds column as bytes, for docs()
        self.changed = False

    # -- persistence -------------------------------------------------------------------

    def dumps(self) -> bytes:
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
            ("titles", "\n".join(self.titles).encode("utf-8")),
            *self._packed_ids().items(),
            ("kinds", bytes(self.kinds)),
            ("hidden", bytes(self.hidden)),
            ("flags", bytes(self.flags)),
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
            "projects": self.projects,
            "groups": self.groups,
            "sessions": self.sessions,
            "revs": self.revs,
            "files": self.files,
            "replaced": self.replaced,
            "facts": self.facts,
            "tags": {k: v if isinstance(v, bytes) else v.tobytes() for k, v in self.tags.items()},
            "blob": offset,
            "dead": self.dead,
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
            index.kinds = column("kinds")  # type: ignore[assignment]
            index.hidden = column("hidden")  # type: ignore[assignment]
            index.flags = column("flags")  # type: ignore[assignment]
            for name, code in _ARRAYS.items():
                setattr(index, name, column(name, code))
            for name in (
                "projects",
                "groups",
                "sessions",
                "revs",
                "files",
                "replaced",
                "facts",
                "tags",
            ):
                setattr(index, name, meta[name])
            index.dead = meta["dead"]
            index.blob = view[base + meta["columns"] :]
            index._vocab, index._vocab_raw = None, column("vocab")
            index._titles, index._titles_raw = None, column("titles")
            index._frozen = True
            n = len(index.kinds)
            columns = (*_ARRAYS, "hidden", "flags", "_ids_at")
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

    def _thaw(self) -> None:
        """Copy the memory-mapped columns into growable arrays, before the first change."""
        self._frozen = False
        self.kinds = bytearray(self.kinds)
        self.hidden = bytearray(self.hidden)
        self.flags = bytearray(self.flags)
        for name, code in _ARRAYS.items():
            setattr(self, name, _unpack(getattr(self, name), code))
        self._ids_at = _unpack(self._ids_at)
        self._ids_text = bytes(self._ids_text)

    # -- reading -----------------------------------------------------------------------

    @property
    def ids(self) -> list[str]:
        """Every record's id, by record number (split from one string on first use)."""
        if self._ids is None:
            text = bytes(self._ids_text).decode("utf-8")
            self._ids = text.split("\n") if text else []
        return self._ids

    @ids.setter
    def ids(self, value: list[str]) -> None:
        self._ids = value

    def id_of(self, doc: int) -> str:
        """One record's id, without splitting them all."""
        if self._ids is not None:
            return self._ids[doc]
        start = self._ids_at[doc]
        end = self._ids_at[doc + 1] - 1 if doc + 1 < len(self._ids_at) else len(self._ids_text)
        return bytes(self._ids_text[start:end]).decode("utf-8")

    def _packed_ids(self) -> dict[str, bytes]:
        """The ids as one UTF-8 text and the byte offset where each starts."""
        if self._ids is None:
            return {"ids": bytes(self._ids_text), "ids_at": bytes(self._ids_at)}
        encoded = [rid.encode("utf-8") for rid in self._ids]
        starts, at = array("I"), 0
        for rid in encoded:
            starts.append(at)
            at += len(rid) + 1
        return {"ids": b"\n".join(encoded), "ids_at": starts.tobytes()}

    def _live_groups(self) -> list[int]:
        if self._group_counts is None:
            counts = [0] * len(self.groups)
            for group, count in Counter(self.grp).items():
                counts[group] = count
            for doc in self.dead:
                counts[self.grp[doc]] -= 1
            self._group_counts = counts
        return self._group_counts

    def group_count(self, group: int) -> int:
        """How many live failures share the group (error type) ``group``."""
        return self._live_groups()[group]

    @property
    def size(self) -> int:
        return len(self.kinds) - len(self.dead)

    def total_length(self) -> int:
        return sum(self.dl) - sum(self.dl[d] for d in self.dead)

    @property
    def titles(self) -> list[str]:
        """Each record's title as the near-duplicate check compares it (``""`` for kinds
        it does not check), by record number; split from the file on first use."""
        if self._titles is None:
            raw = bytes(self._titles_raw).decode("utf-8")
            self._titles = raw.split("\n") if len(self.kinds) else []
        return self._titles

    @property
    def vocab(self) -> dict[str, tuple[int, int]]:
        """Term -> (offset, size) of its postings in the blob (unmarshalled on first use:
        resume never needs it)."""
        if self._vocab is None:
            self._vocab = marshal.loads(self._vocab_raw)
        return self._vocab

    @vocab.setter
    def vocab(self, value: dict[str, tuple[int, int]]) -> None:
        self._vocab = value

    def vocabulary(self) -> list[str]:
        """Every term, sorted."""
        if self._terms is None:
            if self.fresh and not self.fresh.keys() <= self.vocab.keys():
                self._terms = sorted(self.vocab.keys() | self.fresh.keys())
            else:
                self._terms = list(self.vocab)  # written in sorted order
        return self._terms

    def postings_of(self, term: str) -> array | None:
        """``array('I')`` of alternating record number and weighted term count."""
        column = self.fresh.get(term)
        if column is not None:
            return column
        where = self.vocab.get(term)
        if where is None:
            return None
        return _unpack(self.blob[where[0] : where[0] + where[1]])

    def tagged(self, tag: str) -> set[int]:
        value = self.tags.get(tag)
        if value is None:
            return set()
        return set(_unpack(value) if isinstance(value, bytes) else value) - self.dead

    def code(self, table: str, name: Any) -> int:
        """The code of ``name`` in ``projects`` or ``groups`` (-1 if absent)."""
        codes = self._codes.get(table)
        if codes is None:
            codes = self._codes[table] = {p: i for i, p in enumerate(getattr(self, table))}
        return codes.get(name, -1)

    def _intern(self, table: str, name: Any) -> int:
        found = self.code(table, name)
        if found < 0:
            values = getattr(self, table)
            found = len(values)
            values.append(name)
            self._codes[table][name] = found
        return found

    def project_code(self, name: str | None) -> int:
        return self.code("projects", name)

    def group_of(self, doc: int) -> str:
        return self.groups[self.grp[doc]]

    def by_id(self) -> dict[str, int]:
        if self._by_id is None:
            dead = self.dead
            self._by_id = {rid: i for i, rid in enumerate(self.ids) if i not in dead}
        return self._by_id

    def find_ids(self, wanted: set[str]) -> dict[str, int]:
        """The live record number of each id in ``wanted`` that the index holds.

        A few ids (the lines one capture appended) are searched for in the packed id
        text; splitting all of them into a dictionary costs tens of milliseconds on a
        big index. Many ids, or an index already split, use the dictionary.
        """
        if self._ids is not None or self._by_id is not None or len(wanted) > 16:
            by_id = self.by_id()
            return {rid: by_id[rid] for rid in wanted if rid in by_id}
        from bisect import bisect_left

        text = b"\n" + bytes(self._ids_text) + b"\n"  # id k sits after text[_ids_at[k]]
        starts, dead = self._ids_at, self.dead
        found: dict[str, int] = {}
        for rid in wanted:
            needle = b"\n" + rid.encode("utf-8") + b"\n"
            at = text.find(needle)
            while at >= 0:
                doc = bisect_left(starts, at)
                if doc < len(starts) and starts[doc] == at and doc not in dead:
                    found[rid] = doc  # the last live one wins, as in by_id()
                at = text.find(needle, at + 1)
        return found

    def kind_of(self, doc: int) -> str:
        return SEARCH_KINDS[self.kinds[doc]]

    def docs(self, kind: str, *, flagged: bool = False, hidden: bool = False) -> list[int]:
        """The live, shown records of ``kind``, in index order (``hidden``: hidden ones
        too); ``flagged``: only those whose flag is set (see ``_flag``). Byte masks keep
        this at C speed."""
        cached = self._docs.get((kind, flagged, hidden))
        if cached is not None:
            return list(cached)
        from itertools import compress

        kinds = self._kind_bytes
        if kinds is None:
            kinds = self._kind_bytes = bytes(self.kinds)
        code = SEARCH_KINDS.index(kind)
        # A kind's records sit mostly together (a log is indexed in one run): scan its span.
        lo, hi = kinds.find(code), kinds.rfind(code) + 1
        found: list[int] = []
        if lo >= 0:
            table = bytearray(256)
            table[code] = 1
            mask = int.from_bytes(kinds[lo:hi].translate(table), "little")
            if not hidden:
                mask &= int.from_bytes(bytes(self.hidden[lo:hi]).translate(_NOT), "little")
            if flagged:
                mask &= int.from_bytes(bytes(self.flags[lo:hi]), "little")
            found = list(compress(range(lo, hi), mask.to_bytes(hi - lo, "little")))
        if self.dead:
            dead = self.dead
            found = [d for d in found if d not in dead]
        self._docs[(kind, flagged, hidden)] = found
        return list(found)

    def fetch(self, store: Store, doc: int) -> Record:
        """The full record behind ``doc``, read from its own lines or file only."""
        cls = kind_class(self.kind_of(doc))
        location = store.location(cls)
        record: Record | None = None
        with contextlib.suppress(OSError, ValueError, KeyError, LoreError):
            storage = cls.KIND.storage
            if isinstance(storage, Log):
                spans = [(self.off[doc], self.ln[doc]), *self.revs.get(doc, ())]
                rows = []
                with open(location, "rb") as handle:
                    for offset, length in spans:
                        handle.seek(offset)
                        rows.append((offset, orjson.loads(handle.read(length))))
                states, _ = fold(rows, str(location))
                record = cls.from_dict(states[self.id_of(doc)])
            elif isinstance(storage, Dir):
                name = self.files.get(doc) or self.id_of(doc) + storage.suffix
                record = cls.from_dict(read_fast(location / name))
                record.id = record.id or name[: -len(storage.suffix)]
        if record is None or record.id != self.id_of(doc):
            return store.get(self.id_of(doc))  # the file moved under us: the slow, sure way
        return record

    # -- writing -----------------------------------------------------------------------

    def _add(self, record: Record, span: tuple[int, int], revs: list[tuple[int, int]]) -> int:
        if not isinstance(record.id, str) or not record.id or "\n" in record.id:
            return -1  # the store skips it too, or validate reports it
        if self._frozen:
            self._thaw()
        doc = len(self.kinds)
        kind = record.KIND
        counts: dict[str, int] = defaultdict(int)
        length = 0
        for name in (kind.title, *(f for f in kind.search if f != kind.title)):
            value = getattr(record, name, None)
            weight = search.TITLE_WEIGHT if name == kind.title else 1
            texts = [value] if isinstance(value, str) else value if isinstance(value, list) else ()
            for text in texts:
                if isinstance(text, str):
                    for term in search.terms(text):
                        counts[term] += weight
                        length += weight
        fresh = self.fresh
        for term, count in counts.items():
            column = fresh.get(term)
            if column is None:
                column = fresh[term] = self.postings_of(term) or array("I")
                self._terms = None
            column.extend((doc, count))
        for tag in record.tags if isinstance(record.tags, list) else ():
            if isinstance(tag, str):
                column = self.tags.get(tag)
                if column is None or isinstance(column, bytes):
                    column = self.tags[tag] = _unpack(column or b"")
                column.append(doc)
        self.ids.append(record.id)
        title = getattr(record, kind.title, "") if kind.name in DEDUPE_KINDS else ""
        self.titles.append(search.normalize(title) if isinstance(title, str) else "")
        self.kinds.append(SEARCH_KINDS.index(kind.name))
        self.hidden.append(1 if record.hidden else 0)
        self.flags.append(_flag(record))
        self.ts.append(_epoch(record.timestamp))
        project = record.project if isinstance(record.project, str) else None
        self.proj.append(self._intern("projects", project))
        self.imp.append(search.importance(kind.name, record.__dict__))
        self.dl.append(length)
        self.off.append(span[0])
        self.ln.append(span[1])
        group = getattr(record, "error_type", "") if kind.name == "failure" else ""
        self.grp.append(self._intern("groups", str(group)))
        session_id = record.session_id if isinstance(record.session_id, str) else None
        self.sess.append(self._intern("sessions", session_id))
        if revs:
            self.revs[doc] = revs
        replaced_by = getattr(record, "superseded_by", None)
        if record.hidden and isinstance(replaced_by, str) and replaced_by:
            self.replaced[doc] = replaced_by
        facts = _facts(record)
        if facts is not None:
            self.facts[doc] = facts
        if self._by_id is not None:
            self._by_id[record.id] = doc
        self._group_counts = None
        self._docs = {}
        self._kind_bytes = None
        self.changed = True
        return doc

    def _kill(self, doc: int) -> None:
        if doc < 0 or doc in self.dead:
            return
        self.dead.add(doc)
        self._group_counts = None
        self._docs = {}
        self._kind_bytes = None
        if self._by_id is not None and self._by_id.get(self.id_of(doc)) == doc:
            del self._by_id[self.id_of(doc)]
        self.changed = True

    def _kill_kind(self, kind: str) -> None:
        code = SEARCH_KINDS.index(kind)
        for doc, value in enumerate(self.kinds):
            if value == code:
                self._kill(doc)

    def refresh(self, store: Store, kinds: tuple[str, ...] = SEARCH_KINDS) -> bool:
        """Bring the index up to date with the files (of ``kinds``: each kind's freshness
        is tracked on its own); True if anything changed."""
        self.changed = False
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
                self._refresh_dir(kind, Path(path), suffix)
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
        except FileNotFoundError:
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
            self._add(cls.from_dict(state), spans[rid], revisions.pop(rid, []))
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
            self._add(cls.from_dict(states[rid]), spans[0], list(spans[1:]))

    # -- documents --

    def _refresh_dir(self, kind: str, path: Path, suffix: str) -> None:
        """Re-read the documents whose (size, mtime, inode) moved; drop deleted ones.

        The names are kept in directory order, so an unchanged directory costs one
        listing and one stat per file (the stat calls are most of a warm query's time).
        """
        source = self.sources.get(kind) or {"names": "", "fps": b"", "docs": b""}
        names: list[str] = source["names"].split("\n") if source["names"] else []
        with _Listing(path) as listing:
            here = listing.fingerprint()
            # Same fingerprint: no entry was added, removed or renamed since the listing.
            settled = here is not None and here == source.get("dir")
            if settled and listing.unchanged(names, _unpack(source["fps"], "q")):
                return
            listed_at = time.time_ns()
            listed = [n for n in listing.names() if n.endswith(suffix)]
            if listed == names and listing.unchanged(names, _unpack(source["fps"], "q")):
                source["dir"] = _settled(here, listed_at)
                self.changed = self.changed or source.get("dir") is not None
                return
            fps, docs = _unpack(source["fps"], "q"), _unpack(source["docs"], "i")
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
        self.changed = True

    def _add_document(self, cls: type[Record], file: Path) -> int:
        try:
            record = cls.from_dict(read_fast(file))
        except (OSError, ValueError, LoreError):  # unreadable: validate reports it, we skip it
            return -1
        suffix = cls.KIND.storage.suffix  # type: ignore[union-attr]
        record.id = record.id or file.name[: -len(suffix)]
        doc = self._add(record, (-1, 0), [])
        if doc >= 0 and file.name != f"{record.id}{suffix}":
            self.files[doc] = file.name
        return doc

    # -- maintenance --

    def compact(self) -> None:
        """Drop dead records and renumber the rest (no data file is re-read)."""
        keep = [d for d in range(len(self.kinds)) if d not in self.dead]
        remap = array("i", [-1]) * len(self.kinds)
        for new, old in enumerate(keep):
            remap[old] = new
        self.ids = [self.ids[d] for d in keep]
        self._titles = [self.titles[d] for d in keep]
        self.kinds = bytearray(self.kinds[d] for d in keep)
        self.hidden = bytearray(self.hidden[d] for d in keep)
        self.flags = bytearray(self.flags[d] for d in keep)
        for name, code in _ARRAYS.items():
            column = getattr(self, name)
            setattr(self, name, array(code, (column[d] for d in keep)))
        for name in ("revs", "files", "replaced", "facts"):
            mapping = getattr(self, name)
            setattr(self, name, {remap[d]: v for d, v in mapping.items() if remap[d] >= 0})
        fresh: dict[str, array] = {}
        for term in self.vocabulary():
            column = self.postings_of(term)
            assert column is not None
            kept = array("I")
            for i in range(0, len(column), 2):
                if remap[column[i]] >= 0:
                    kept.append(remap[column[i]])
                    kept.append(column[i + 1])
            if kept:
                fresh[term] = kept
        self.fresh, self.vocab, self.blob = fresh, {}, b""
        tags: dict[str, Any] = {}
        for tag, value in self.tags.items():
            column = _unpack(value) if isinstance(value, bytes) else value
            kept = array("I", (remap[d] for d in column if remap[d] >= 0))
            if kept:
                tags[tag] = kept
        self.tags = tags
        for source in self.sources.values():
            if "docs" in source:
                docs = _unpack(source["docs"], "i")
                source["docs"] = array("i", (remap[d] if d >= 0 else -1 for d in docs)).tobytes()
        self.dead = set()
        self._terms = None
        self._by_id = None
        self._group_counts = None
        self._docs = {}
        self._kind_bytes = None
        self.changed = True


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


_NOT = bytes([1] + [0] * 255)  # translate table: 0 -> 1, anything else -> 0


def _flag(record: Record) -> int:
    """1 for what resume looks for among many: a pending decision, an active goal, a
    closed session."""
    kind, state = record.KIND.name, record.__dict__
    if kind == "decision":
        return 1 if state.get("outcome") == "pending" else 0
    if kind == "goal":
        return 1 if state.get("status") == "active" else 0
    if kind == "session":
        return 1 if state.get("status") == "closed" else 0
    return 0


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _facts(record: Record) -> tuple[Any, ...] | None:
    """The few fields ``lore resume`` chooses by, so it reads only the records it shows.

    session: (status, ended_at or timestamp, project or None);
    pattern: (confidence, validations); anti-pattern: (severity, name);
    goal: (status, priority). Only marshal-safe plain values.
    """
    kind = record.KIND.name
    state = record.__dict__
    if kind == "session":
        project = state.get("project")
        ended = _text(state.get("ended_at")) or _text(state.get("timestamp"))
        return (_text(state.get("status")), ended, project if isinstance(project, str) else None)
    if kind == "pattern":
        return (
            search._number(state.get("confidence"), 0.0),
            search._number(state.get("validations"), 0.0),
        )
    if kind == "anti-pattern":
        return (_text(state.get("severity")), _text(state.get("name")))
    if kind == "goal":
        return (_text(state.get("status")), _text(state.get("priority")))
    return None


def _epoch(timestamp: Any) -> float:
    from lore.clock import parse_timestamp

    try:
        return parse_timestamp(timestamp).timestamp()
    except (ValueError, TypeError, AttributeError):
        return 0.0


def _rows(data: bytes, base: int) -> list[tuple[int, int, dict[str, Any]]]:
    """Parseable JSON-object lines as (byte offset, length, object); the rest is skipped
    exactly as the store's reader skips it."""
    rows = []
    loads = orjson.loads
    pos = base
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


def current(store: Store, kinds: tuple[str, ...]) -> Index | None:
    """The stored index with ``kinds`` brought up to date in memory only, or None when
    there is none yet: for a writer's quick question (a count), which must neither pay
    for a first build nor rewrite the whole index file after its own small append.
    (Writers reach it through ``lore.capture.warm_index``, which skips importing this
    module when there is no index file.)"""
    index = load(store.root)
    if index is not None:
        index.refresh(store, kinds)
    return index


def open_index(store: Store) -> Index:
    """The index, brought up to date with the files (and saved if that changed it)."""
    index = load(store.root)
    if index is None:
        index = Index(str(store.path))
        index.refresh(store)
        save(index, store.root)
    elif index.refresh(store):
        save(index, store.root)
    return index


def rebuild(store: Store) -> Index:
    """Build the index from nothing but the files, and save it."""
    index = Index(str(store.path))
    index.refresh(store)
    save(index, store.root)
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


# --- recall history ---------------------------------------------------------------------


def counts_path(root: DataRoot) -> Path:
    return root.local / COUNTS_FILE


def recall_counts(root: DataRoot) -> dict[str, int]:
    """How often each id was among recall's results on this machine."""
    try:
        data = orjson.loads(counts_path(root).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}


def note_recalled(root: DataRoot, ids: list[str]) -> bool:
    """Count ``ids`` as recalled once more; best effort, never raises.

    Replaced atomically (temp file and rename) but not fsynced: a crash can at worst lose
    some history, which reads back as empty.
    """
    if not ids:
        return True
    import tempfile

    path = counts_path(root)
    try:
        counts = recall_counts(root)
        for rid in ids:
            counts[rid] = counts.get(rid, 0) + 1
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(orjson.dumps(counts, option=orjson.OPT_SORT_KEYS))
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except Exception:  # history is a nicety: it must never fail a recall
        return False
    return True
