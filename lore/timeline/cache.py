"""The timeline's answer cache: answers kept beside the search index for as long as the
index file does not change (best effort: a cache only saves time; derived, machine-local).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import orjson

from lore.store.core import Store

CACHE_VERSION = 1
CACHE_ENTRIES = 16  # answers kept beside the index (for its current state only)


def key(store: Store, period: str | None, project: str | None, wanted: list[str]) -> list[Any]:
    """The cache key of one question, stamped with the index file's state."""
    return [CACHE_VERSION, _index_stamp(store), period, project, wanted]


def _cache_file(store: Store) -> Path:
    return store.root.index_file.with_name("timeline.json")


def _index_stamp(store: Store) -> list[int]:
    """The index file's (size, mtime, inode): it changes whenever the index does. Empty
    (nothing kept, nothing reused) while a long-lived process's index (``Store.kept``)
    holds changes its file does not have yet: that file is saved only when it exits."""
    if store.kept is not None and store.kept.get("dirty"):
        return []
    try:
        st = os.stat(store.root.index_file)
    except OSError:
        return []
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def cached(store: Store, key: list[Any]) -> dict[str, Any] | None:
    """The answer kept for ``key`` when the index has not changed since (else None)."""
    try:
        entries = orjson.loads(_cache_file(store).read_bytes())
    except (OSError, ValueError):
        return None
    if not key[1] or not isinstance(entries, list):
        return None
    for entry in entries:
        if isinstance(entry, list) and len(entry) == 2 and entry[0] == key:
            return entry[1] if isinstance(entry[1], dict) else None
    return None


def keep(store: Store, key: list[Any], doc: dict[str, Any]) -> None:
    """Keep ``doc`` for ``key`` beside the index (best effort: a cache only saves time).
    Answers for an older index are dropped; at most CACHE_ENTRIES are kept."""
    from lore.storage.atomic import atomic_write

    if not key[1]:
        return
    try:
        entries = orjson.loads(_cache_file(store).read_bytes())
    except (OSError, ValueError):
        entries = []
    if not isinstance(entries, list):
        entries = []
    kept = [e for e in entries if isinstance(e, list) and e and e[0][:2] == key[:2] != e[0]]
    data = orjson.dumps([[key, doc], *kept[: CACHE_ENTRIES - 1]])
    with contextlib.suppress(OSError):
        atomic_write(_cache_file(store), data, sync_dir=False)
