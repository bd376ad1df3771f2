"""What ``lore resume``'s tending lines read, cheaply: the count the last full ``lore
consolidate`` found and the count of open conflicts after a merge, each kept in the local
directory with the state it was found in; and the one way dynamics writes a cache file."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from lore import clock
from lore.store.core import Store

CACHE = "proposals.json"
CONFLICTS = "conflicts.json"


def write_cache(path: Path, data: bytes) -> bool:
    """Replace a cache file atomically, without fsync (a crash loses a cache, nothing
    else); best effort, never raises."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except Exception:
        return False
    return True


def remember(store: Store, count: int, key: Any, *, at: str | None = None) -> None:
    """Keep how many proposals a full run found (``at``: when, default now), for ``lore
    resume``'s line."""
    import orjson

    data = {"key": key, "count": count, "at": at or clock.now()}
    write_cache(store.root.local / "dynamics" / CACHE, orjson.dumps(data))


def remembered(store: Store) -> dict[str, Any] | None:
    """What the last full ``lore consolidate`` found: {"key", "count", "at"}, or None."""
    import orjson

    try:
        data = orjson.loads((store.root.local / "dynamics" / CACHE).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def state_key(idx: Any) -> list[Any]:
    """What the proposals depend on: the index's state (every change to a record grows it;
    a compaction draws a new build) and the day (ages cross the cutoff day by day)."""
    return [idx.build, len(idx.kinds), clock.now()[:10]]


def conflict_count(store: Store, idx: Any) -> int:
    """How many open divergences the logs hold (``lore.dynamics.conflicts``): the number
    ``lore resume`` shows, kept keyed by the logs' size, mtime and inode (a merge, a sync or
    any write moves them), worked out from the index when they moved."""
    import orjson

    from lore.store.core import _stamp

    # The logs the index follows (no kind module need be imported to find them).
    logs = sorted((kind, path) for kind, (path, suffix, *_) in idx.layout.items() if not suffix)
    key = orjson.loads(orjson.dumps([[kind, _stamp(Path(path))] for kind, path in logs]))
    path = Path(store.root.local) / "dynamics" / CONFLICTS
    try:
        cached = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        cached = None
    if isinstance(cached, dict) and cached.get("key") == key:
        return int(cached.get("count") or 0)
    from lore.dynamics.conflicts import from_index

    count = len(from_index(store, idx))
    write_cache(path, orjson.dumps({"key": key, "count": count}))
    return count
