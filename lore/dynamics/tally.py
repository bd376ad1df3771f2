"""What ``lore resume``'s tending lines read, cheaply: the count the last full ``lore
consolidate`` found (kept in the local directory) and the state it was found in."""

from __future__ import annotations

from typing import Any

from lore import clock
from lore.store.core import Store

CACHE = "proposals.json"


def remember(store: Store, count: int, key: Any) -> None:
    """Keep how many proposals a full run found, for ``lore resume``'s line."""
    import orjson

    from lore.dynamics.fresh import write_cache

    data = {"key": key, "count": count, "at": clock.now()}
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
