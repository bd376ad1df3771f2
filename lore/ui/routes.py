"""The JSON API of ``lore ui``: each route parses its query, calls the use case the CLI
command calls and returns that command's ``--json`` document (LORE_CONTRACT.md §8).

One ``Routes`` per server. The store is not shared between threads, so every call runs
under one lock; the search index and the graph snapshot stay in memory between calls,
refreshed from the files before each (what another process wrote is seen at once).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

from lore.errors import NotFoundError, UsageError
from lore.store.core import Store
from lore.ui import queues

Query = dict[str, list[str]]
MAX_LIMIT = 200


class Reply(NamedTuple):
    doc: Any
    total: int | None = None  # a listing cut to ``limit``: how many there are in all


def _one(q: Query, name: str) -> str | None:
    values = [v for v in q.get(name, []) if v.strip()]
    return values[-1].strip() if values else None


def _many(q: Query, name: str) -> list[str]:
    return [part.strip() for v in q.get(name, []) for part in v.split(",") if part.strip()]


def _flag(q: Query, name: str) -> bool:
    return _one(q, name) in ("1", "true", "yes", "on")


def _number(q: Query, name: str, default: int, low: int = 0, high: int = MAX_LIMIT) -> int:
    text = _one(q, name)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"{name} must be a whole number (got {text!r})") from None
    if not low <= value <= high:
        raise UsageError(f"{name} must be between {low} and {high} (got {value})")
    return value


def _need(q: Query, name: str) -> str:
    value = _one(q, name)
    if value is None:
        raise UsageError(f"give {name}")
    return value


def _cut(items: list[Any], q: Query, default: int = 50) -> tuple[list[Any], int]:
    limit = _number(q, "limit", default, 1)
    offset = _number(q, "offset", 0, 0, 10**9)
    return items[offset : offset + limit], len(items)


class Routes:
    def __init__(self, store: Store, *, read_only: bool = False) -> None:
        from lore.index.watch import kept_watcher

        self.store = store
        self.read_only = read_only
        self.lock = threading.Lock()
        # Keep the search index in memory between calls and watch the root's folders, as
        # lore mcp does (each call reads again only the files that changed).
        store.kept = {"watch": kept_watcher(store)}
        self._graph: Any = None
        self.gets: dict[str, Callable[[Query], Reply]] = {
            "/api/info": self.info,
            "/api/recall": self.recall,
            "/api/show": self.show,
            "/api/timeline": self.timeline,
            "/api/sessions": self.sessions,
            "/api/graph/show": self.graph_show,
            "/api/graph/neighbors": self.graph_neighbors,
            "/api/graph/query": self.graph_query,
            "/api/graph/concepts": self.graph_concepts,
        }

    # --- dispatch ---------------------------------------------------------------------

    def get(self, path: str, q: Query) -> Reply:
        if path.startswith("/api/queue/"):
            name = path.removeprefix("/api/queue/")
            with self.lock:
                return self.queue(name, q)
        route = self.gets.get(path)
        if route is None:
            raise NotFoundError(f"no such page: {path}", id=path)
        with self.lock:
            return route(q)

    def post(self, path: str, body: dict[str, Any]) -> Reply:
        """``/api/queue/<queue>/<action>``: the one kind of write the UI makes."""
        parts = path.removeprefix("/api/queue/").split("/")
        if not path.startswith("/api/queue/") or len(parts) != 2:
            raise NotFoundError(f"no such action: {path}", id=path)
        spec = queues.queue(parts[0])
        action = spec.action(parts[1])
        record_id, inputs = action.inputs(body)
        with self.lock:
            return Reply(action.run(self.store, record_id, inputs))

    def warm(self) -> None:
        """Load the search index and the graph before the first request needs them (best
        effort: a problem here is met again, and reported, by the request that needs it)."""
        from lore.index.persist import open_index

        # A failure here is met again, and reported, by the request that needs it.
        with self.lock, contextlib.suppress(Exception):
            open_index(self.store)
            self._snapshot()

    def close(self) -> None:
        """Save the kept index if it moved on (best effort), stop watching folders."""
        from lore.index.persist import save_kept

        with self.lock:
            kept = self.store.kept
            if kept is None:
                return
            save_kept(self.store)
            if kept.get("watch") is not None:
                kept["watch"].close()
            self.store.kept = None

    # --- reads --------------------------------------------------------------------------

    def info(self, q: Query) -> Reply:
        from lore import __version__
        from lore.graph.export import COLORS
        from lore.graph.rules import NODE_TYPES, RELATIONS
        from lore.index.columns import SEARCH_KINDS
        from lore.model import kind_class

        kinds = [
            {"name": k, "title": kind_class(k).KIND.title, "prefix": kind_class(k).KIND.prefix}
            for k in SEARCH_KINDS
        ]
        return Reply(
            {
                "version": __version__,
                "root": str(self.store.path),
                "read_only": self.read_only,
                "kinds": kinds,
                "node_types": list(NODE_TYPES),
                "relations": dict(RELATIONS),
                "colors": COLORS,
                "queues": [spec.to_dict() for spec in queues.available()],
                "source": _shows_source(),
            }
        )

    def recall(self, q: Query) -> Reply:
        from lore.usecases.core import recall

        found = recall(
            self.store,
            _one(q, "q") or "",
            kinds=_many(q, "kind"),
            project=_one(q, "project"),
            tags=_many(q, "tag"),
            since=_one(q, "since"),
            until=_one(q, "until"),
            limit=_number(q, "limit", 20, 1),
            show_all=_flag(q, "all"),
            explain=True,  # cheap: the parts are computed anyway; the page shows them on demand
        )
        return Reply(found.doc)

    def show(self, q: Query) -> Reply:
        from lore.usecases.core import show

        record_id = _need(q, "id")
        if _flag(q, "source") and _shows_source():
            with_source: Any = show  # `source` exists only in a lore with `show --source`
            return Reply(with_source(self.store, record_id, history=True, source=True))
        return Reply(show(self.store, record_id, history=True))

    def timeline(self, q: Query) -> Reply:
        from lore.timeline.core import DAY_LIMIT, timeline

        limit = _one(q, "limit")
        doc = timeline(
            self.store,
            _one(q, "period"),
            project=_one(q, "project"),
            kinds=_many(q, "kind"),
            limit=int(limit) if limit and limit.isdigit() else DAY_LIMIT,
        )
        return Reply(doc)

    def sessions(self, q: Query) -> Reply:
        from lore.usecases.records import list_records

        found = list_records(
            self.store, "session", hidden=_flag(q, "all"), project=_one(q, "project")
        )
        shown, total = _cut(found, q)
        return Reply([s.to_dict() for s in shown], total)

    def queue(self, name: str, q: Query) -> Reply:
        spec = queues.queue(name)
        doc = spec.listing(self.store, _number(q, "days", 3, 0, 10**6))
        items = doc if spec.items is None else doc[spec.items]
        shown, total = _cut(items, q)
        if spec.items is None:
            return Reply(shown, total)
        return Reply({**doc, spec.items: shown}, total)

    # --- the graph ------------------------------------------------------------------------

    def _snapshot(self) -> Any:
        from lore.graph.snapshot import open_graph

        self._graph = open_graph(self.store, kept=self._graph)
        return self._graph

    def graph_show(self, q: Query) -> Reply:
        from lore.graph.queries import show

        return Reply(show(self._snapshot(), self.store, _need(q, "id")))

    def graph_neighbors(self, q: Query) -> Reply:
        from lore.graph.queries import neighbors

        direction = _one(q, "direction") or "both"
        doc = neighbors(self._snapshot(), _need(q, "id"), relation=_one(q, "relation"),
                        direction=direction)  # fmt: skip
        return Reply(doc)

    def graph_query(self, q: Query) -> Reply:
        from lore.graph.queries import query

        return Reply(query(self._snapshot(), _need(q, "text"), limit=_number(q, "limit", 20, 1)))

    def graph_concepts(self, q: Query) -> Reply:
        from lore.graph.queries import concepts

        return Reply(concepts(self._snapshot()))


def _shows_source() -> bool:
    """Whether ``lore show`` has ``--source`` in this lore (the transcript lines of an
    ingested record): the record page then asks for them."""
    import inspect

    from lore.usecases.core import show

    return "source" in inspect.signature(show).parameters
