"""The server's one store, opened on first use and kept for the life of the process.

The store re-reads a file whenever its size, mtime or inode moved, and the search index it
keeps in memory is refreshed from the files before each query, so what other processes
write (the CLI, hooks, a git pull) is seen by the next call. No lock outlives a call.
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
        from lore.index.watch import FolderWatch

        _store = Store(_data_dir)
        # Keep the search index in memory between calls, and watch the document folders
        # so an unchanged one costs no stat per document.
        _store.kept = {"watch": FolderWatch()}
    return _store


def close() -> None:
    """Save the kept index if it moved on (best effort), stop watching."""
    global _store
    if _store is None or _store.kept is None:
        return
    from lore.index.persist import save_kept

    save_kept(_store)
    _store.kept["watch"].close()
    _store = None
