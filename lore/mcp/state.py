"""The server's one store, opened on first use and kept for the life of the process.

The server watches the root's folders (``lore.index.watch``): the store's cache and the
search index it keeps in memory read again, before each call, the files that changed, so
what other processes write (the CLI, hooks, a git pull, an editor) is seen by the next
call. No lock outlives a call.
"""

from __future__ import annotations

from lore.store.core import Store

_data_dir: str | None = None
_store: Store | None = None


def configure(data_dir: str | None) -> None:
    global _data_dir, _store
    _data_dir, _store = data_dir, None


def store() -> Store:
    global _store
    if _store is None:
        from lore.index.watch import kept_watcher

        _store = Store(_data_dir)
        # Keep the search index in memory between calls, and watch the root's folders so
        # a call reads again only the files that changed (no stat per document).
        _store.kept = {"watch": kept_watcher(_store)}
    return _store


def close() -> None:
    """Save the kept index if it moved on (best effort), stop watching."""
    global _store
    if _store is None or _store.kept is None:
        return
    from lore.index.persist import save_kept

    save_kept(_store)
    watcher = _store.kept.get("watch")
    if watcher is not None:
        watcher.close()
    _store = None
