"""The graph snapshot: the projection of every record, built, kept fresh and stored.

The snapshot lives beside the search index in the machine-local directory (never in
the data root). It learns what changed from the index (records added or killed since
the snapshot was taken) instead of reading the files again; only the two files the
index does not cover (curated edges, the project registry) are fingerprinted here.
Each record owns the nodes and edges it projects, so a changed record is replaced
alone; an edge waits, unseen, until both its ends exist.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from lore.graph import rules
from lore.paths import DataRoot
from lore.store.core import Store

SNAPSHOT_SCHEMA = 6  # bump when the projection rules change: older snapshots are rebuilt
MAGIC = b"LOREGRAPH\x00"
SAVE_AFTER = 500  # records changed since the stored snapshot before it is rewritten
OWN_KINDS = ("edge", "project")  # kinds the index does not hold: fingerprinted here
Progress = Callable[[int, int], None]


def snapshot_path(root: DataRoot) -> Path:
    return root.index_file.parent / "graph.bin"


def _header() -> bytes:
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return MAGIC + f"{SNAPSHOT_SCHEMA} {version}\n".encode()


def _digest(ids: list[str]) -> bytes:
    try:
        from _blake2 import blake2b
    except ImportError:  # a Python built without it
        from hashlib import blake2b

    return blake2b("\n".join(ids).encode("utf-8"), digest_size=16).digest()


def _fingerprint(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


class Snapshot:
    """A ``networkx.MultiDiGraph`` (edge key = relation) and who owns what in it."""

    def __init__(self, root: str) -> None:
        import networkx as nx

        self.root = root
        self.graph = nx.MultiDiGraph()
        self.owned: dict[str, tuple[str | None, tuple[str, ...], tuple[rules.Edge, ...]]] = {}
        self.concepts: dict[str, tuple[str, ...]] = {}  # concept id -> names it answers to
        self.names: dict[str, set[str]] = {}  # concept name -> concept ids
        self.record_keys: set[str] = set()
        self.synth_refs: dict[str, int] = {}
        self.synth_attrs: dict[str, dict[str, Any]] = {}
        self.edge_refs: dict[rules.Edge, int] = {}
        self.by_end: dict[str, set[rules.Edge]] = {}
        self.kind_owners: dict[str, set[str]] = {k: set() for k in OWN_KINDS}
        self.mark: dict[str, Any] = {}
        self.changed = False
        self.applied = 0  # records put or removed since the stored snapshot
        self.full = False  # rebuilt from every record in this refresh

    def __getstate__(self) -> dict[str, Any]:
        # What one command did to the snapshot is not part of the stored snapshot.
        state = {**self.__dict__, "changed": False, "applied": 0, "full": False}
        state.pop("index", None)
        return state

    def fetch(self, store: Store, key: str) -> Any:
        """The record behind a record node, read from its own lines or file (None if gone)."""
        index = getattr(self, "index", None)
        if index is not None:
            doc = index.find_ids({key}).get(key)
            if doc is not None:
                return index.fetch(store, doc)
        return store.find(key[len(rules.PROJECT) :] if key.startswith(rules.PROJECT) else key)

    # -- assembling ------------------------------------------------------------------

    def resolve(self, end: str) -> str | None:
        if end.startswith(rules.CONCEPT_NAME):
            found = self.names.get(end[len(rules.CONCEPT_NAME) :])
            return min(found) if found else None
        return end

    def _materialize(self, edge: rules.Edge) -> None:
        src, dst = self.resolve(edge[0]), self.resolve(edge[1])
        graph = self.graph
        if src and dst and src != dst and src in graph and dst in graph:
            graph.add_edge(src, dst, key=edge[2], relation=edge[2])

    def _touch(self, keys: Iterable[str]) -> None:
        for key in keys:
            for edge in sorted(self.by_end.get(key, ())):
                self._materialize(edge)

    def put(self, kind: str, data: dict[str, Any], title_field: str) -> None:
        """Add or replace one record's part of the graph."""
        key, attrs, synth, edges = rules.project(kind, data, title_field)
        owner = key if key is not None else data.get("id")
        if not isinstance(owner, str) or not owner:
            return
        names = rules.concept_names(data) if kind == "concept" and key is not None else []
        self.remove(owner)  # its old names now resolve without it (their edges follow)
        before = self._resolutions(names)
        touched: list[str] = []
        graph = self.graph
        if key is not None:
            if key in graph:
                graph.nodes[key].clear()
            graph.add_node(key, **attrs)
            self.record_keys.add(key)
            touched.append(key)
        for skey, sattrs in synth:
            self.synth_refs[skey] = self.synth_refs.get(skey, 0) + 1
            self.synth_attrs.setdefault(skey, sattrs)
            if skey not in graph:
                graph.add_node(skey, **sattrs)
                touched.append(skey)
        if kind == "concept" and key is not None:
            self.concepts[key] = tuple(names)
            for name in names:
                self.names.setdefault(name, set()).add(key)
                touched.append(rules.CONCEPT_NAME + name)
        for edge in edges:
            count = self.edge_refs.get(edge, 0)
            self.edge_refs[edge] = count + 1
            if not count:
                self.by_end.setdefault(edge[0], set()).add(edge)
                self.by_end.setdefault(edge[1], set()).add(edge)
                self._materialize(edge)
        self.owned[owner] = (key, tuple(s for s, _ in synth), tuple(edges))
        if kind in self.kind_owners:
            self.kind_owners[kind].add(owner)
        self._moved(before)
        self._touch(touched)
        self.changed = True
        self.applied += 1

    def _resolutions(self, names: Iterable[str]) -> dict[str, str | None]:
        return {name: self.resolve(rules.CONCEPT_NAME + name) for name in names}

    def _moved(self, before: dict[str, str | None]) -> None:
        """A name now resolving to another concept: its edges leave the old one (as in a
        rebuild, where they only ever reach the concept the name resolves to)."""
        graph = self.graph
        for name, old in before.items():
            end = rules.CONCEPT_NAME + name
            if old is None or old not in graph or self.resolve(end) == old:
                continue
            for edge in sorted(self.by_end.get(end, ())):
                src = old if edge[0] == end else self.resolve(edge[0])
                dst = old if edge[1] == end else self.resolve(edge[1])
                live = src and dst and graph.has_edge(src, dst, key=edge[2])
                if live and not self._asserted(str(src), str(dst), edge[2]):
                    graph.remove_edge(src, dst, key=edge[2])

    def _asserted(self, src: str, dst: str, relation: str) -> bool:
        """Whether a live edge (as now resolved) is (src, dst, relation)."""
        candidates = self.by_end.get(src, set()) | self.by_end.get(dst, set())
        return any(
            edge[2] == relation and (self.resolve(edge[0]), self.resolve(edge[1])) == (src, dst)
            for edge in candidates
        )

    def remove(self, owner: str) -> None:
        """Take one record's part out of the graph (edges others assert stay waiting)."""
        entry = self.owned.pop(owner, None)
        if entry is None:
            return
        key, synth, edges = entry
        graph = self.graph
        for edge in edges:
            count = self.edge_refs[edge] - 1
            if count:
                self.edge_refs[edge] = count
                continue
            del self.edge_refs[edge]
            for end in edge[:2]:
                waiting = self.by_end.get(end)
                if waiting is not None:
                    waiting.discard(edge)
                    if not waiting:
                        del self.by_end[end]
            src, dst = self.resolve(edge[0]), self.resolve(edge[1])
            if src and dst and graph.has_edge(src, dst, key=edge[2]):
                graph.remove_edge(src, dst, key=edge[2])
        touched: list[str] = []
        if key is not None:
            self.record_keys.discard(key)
            for name in self.concepts.pop(key, ()):
                ids = self.names.get(name)
                if ids is not None:
                    ids.discard(key)
                    if not ids:
                        del self.names[name]
                touched.append(rules.CONCEPT_NAME + name)
            if self.synth_refs.get(key):  # still named by others (a project): keep it plain
                graph.nodes[key].clear()
                graph.add_node(key, **self.synth_attrs[key])
            elif key in graph:
                graph.remove_node(key)
        for skey in synth:
            count = self.synth_refs[skey] - 1
            if count:
                self.synth_refs[skey] = count
                continue
            del self.synth_refs[skey]
            del self.synth_attrs[skey]
            if skey not in self.record_keys and skey in graph:
                graph.remove_node(skey)
        for kind_set in self.kind_owners.values():
            kind_set.discard(owner)
        self._touch(touched)
        self.changed = True

    # -- following the files ---------------------------------------------------------

    def refresh(self, store: Store, progress: Progress | None = None) -> bool:
        """Bring the snapshot up to date with the files; True if anything changed."""
        from lore.index.persist import open_index

        self.changed = False
        self.full = False
        index = self.index = open_index(store)
        mark = self.mark
        n = len(index.kinds)
        old_n = mark.get("n", -1)
        old_dead: frozenset[int] = mark.get("dead", frozenset())
        ids = index.ids
        if (
            old_n < 0
            or mark.get("build") != index.build
            or n < old_n
            or not old_dead <= index.dead
            or _digest(ids[:old_n]) != mark.get("digest")
        ):
            self._load_all(store, index, progress)
        elif n > old_n or index.dead != old_dead:
            dead = index.dead
            upserted: set[str] = set()
            for doc in range(old_n, n):
                if doc in dead:
                    continue
                record = index.fetch(store, doc)
                self.put(record.kind, record.to_dict(), record.KIND.title)
                upserted.add(record.id)
            for doc in sorted(dead - old_dead):
                rid = ids[doc]
                if rid not in upserted:
                    self.remove(rid)
        # Fingerprints taken before reading: a write in between is seen next time.
        fps = {k: _fingerprint(store.location(k)) for k in OWN_KINDS}
        for kind, fp in fps.items():
            if "fp" not in mark or mark["fp"].get(kind) != fp:
                self._reload_kind(store, kind)
        moved = mark.get("n") != n or mark.get("build") != index.build or mark.get("fp") != fps
        if self.changed or moved:
            self.mark = {
                "n": n,
                "build": index.build,
                "dead": frozenset(index.dead),
                "digest": _digest(ids[:n]),
                "fp": fps,
            }
            self.changed = True
        return self.changed

    def _load_all(self, store: Store, index: Any, progress: Progress | None) -> None:
        """Everything the index holds, from its documents and log lines."""
        self.full = True
        for owner in [o for o in self.owned if not any(o in s for s in self.kind_owners.values())]:
            self.remove(owner)
        from lore.model import kind_class
        from lore.storage.jsonl import gc_paused

        done, total = 0, index.size
        for kind in index_kinds():
            cls = kind_class(kind)
            with gc_paused():  # every object made here lives on: collecting frees nothing
                for record in store.records(cls, hidden=True):
                    self.put(kind, record.to_dict(), cls.KIND.title)
                    done += 1
                    if progress is not None and done % 2000 == 0:
                        progress(done, total)
        if progress is not None:
            progress(total, total)

    def _reload_kind(self, store: Store, kind: str) -> None:
        from lore.model import kind_class

        for owner in sorted(self.kind_owners[kind]):
            self.remove(owner)
        cls = kind_class(kind)
        for record in store.records(cls, hidden=True):
            self.put(kind, record.to_dict(), cls.KIND.title)
        self.changed = True


def index_kinds() -> tuple[str, ...]:
    from lore.index.columns import SEARCH_KINDS

    return SEARCH_KINDS


# --- the file -------------------------------------------------------------------------


def load(root: DataRoot, *, one_shot: bool = False) -> Snapshot | None:
    """The stored snapshot, or None when missing, unreadable, of another format or root.

    ``one_shot``: the process ends soon (a CLI command). The million objects just read
    are then frozen out of the cyclic collector's sight (``gc.freeze``): otherwise its
    next pass walks them all, a third of a second on a 100,000-record graph. A
    long-running caller (a server) leaves it False, or reloads would never be freed.
    """
    header = _header()
    from lore.storage.jsonl import gc_paused

    try:
        with open(snapshot_path(root), "rb") as handle, gc_paused():
            if handle.read(len(header)) != header:
                return None
            snapshot = pickle.load(handle)
            if one_shot:
                import gc

                gc.freeze()
    except (
        OSError,
        EOFError,
        ImportError,
        pickle.UnpicklingError,
        AttributeError,
        ValueError,
        TypeError,
    ):
        return None
    if not isinstance(snapshot, Snapshot) or snapshot.root != str(root.path):
        return None
    return snapshot


def save(snapshot: Snapshot, root: DataRoot) -> bool:
    """Write the snapshot atomically; best effort (a read-only cache only costs speed)."""
    from lore.storage.atomic import atomic_write

    try:
        atomic_write(
            snapshot_path(root),
            _header() + pickle.dumps(snapshot, protocol=pickle.HIGHEST_PROTOCOL),
        )
    except OSError:
        return False
    snapshot.changed, snapshot.applied = False, 0
    return True


def open_graph(
    store: Store,
    progress: Progress | None = None,
    *,
    one_shot: bool = False,
    kept: Snapshot | None = None,
) -> Snapshot:
    """The snapshot (``kept``: the one a long-lived process holds), up to date with the files.

    A few changed records are applied in memory only: rewriting a 100,000-record
    snapshot costs more than replaying them from the index next time. It is saved
    after a full build, or once ``SAVE_AFTER`` records have changed since it was.
    ``one_shot``: see ``load``.
    """
    snapshot = kept if kept is not None else load(store.root, one_shot=one_shot)
    if snapshot is None:
        snapshot = Snapshot(str(store.path))
    if snapshot.refresh(store, progress) and (snapshot.full or snapshot.applied >= SAVE_AFTER):
        save(snapshot, store.root)
    return snapshot


def rebuild(store: Store, progress: Progress | None = None) -> Snapshot:
    """Build the snapshot from nothing but the files, and save it."""
    snapshot = Snapshot(str(store.path))
    snapshot.refresh(store, progress)
    save(snapshot, store.root)
    return snapshot
