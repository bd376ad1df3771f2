"""The use history: how often each id was recalled or injected on this machine, and when it
was last (``usage.json`` in the machine-local directory; the activation model reads it).

Machine-local by design: a use is a fact of the machine that saw it, so it is never
written into the data root, never committed, and two clones never merge (or conflict on)
each other's counts. An older ``recall-counts.json`` is read once, as recalls.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import orjson

from lore.paths import DataRoot

USAGE_FILE = "usage.json"
COUNTS_FILE = "recall-counts.json"  # before usage.json: {id: recalls}
HOW = ("recalled", "injected")


class Use:
    """One id's use here. (A plain class, not a NamedTuple: making one costs start-up
    time, and resume and recall load this module.)"""

    __slots__ = ("injected", "last", "recalled")

    def __init__(self, recalled: int, injected: int, last: float) -> None:
        self.recalled = recalled
        self.injected = injected
        self.last = last  # epoch seconds of the last use (0: unknown)

    @property
    def total(self) -> int:
        return self.recalled + self.injected

    def as_list(self) -> list[Any]:
        return [self.recalled, self.injected, self.last]


def usage_path(root: DataRoot) -> Path:
    return root.local / USAGE_FILE


def counts_path(root: DataRoot) -> Path:
    return root.local / COUNTS_FILE


def usage(root: DataRoot) -> dict[str, Use]:
    """Every id used on this machine: recalls, injections and the last use."""
    try:
        data = orjson.loads(usage_path(root).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        data = None
    if not isinstance(data, dict):
        return {rid: Use(n, 0, 0.0) for rid, n in _old_counts(root).items()}
    out: dict[str, Use] = {}
    for rid, value in data.items():
        if (
            isinstance(value, list)
            and len(value) == 3
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        ):
            out[rid] = Use(int(value[0]), int(value[1]), float(value[2]))
    return out


def _old_counts(root: DataRoot) -> dict[str, int]:
    try:
        data = orjson.loads(counts_path(root).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}


def recall_counts(root: DataRoot) -> dict[str, int]:
    """How often each id was used (recalled or injected) on this machine."""
    return {rid: use.total for rid, use in usage(root).items()}


def note_recalled(root: DataRoot, ids: list[str]) -> bool:
    """Count ``ids`` as recalled once more, now; best effort, never raises."""
    return note_used(root, ids, "recalled")


def note_used(root: DataRoot, ids: list[str], how: str = "recalled") -> bool:
    """Count ``ids`` as used once more (``how``: recalled or injected), now; best effort,
    never raises. Prompt injection calls it with ``injected``.

    Replaced atomically (temp file and rename) but not fsynced: a crash can at worst lose
    some history, which reads back as empty.
    """
    if not ids:
        return True
    import tempfile

    from lore import clock

    path = usage_path(root)
    try:
        when = clock.now_datetime().timestamp()
        table = usage(root)
        for rid in ids:
            old = table.get(rid, Use(0, 0, 0.0))
            table[rid] = Use(
                old.recalled + (how != "injected"), old.injected + (how == "injected"), when
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(orjson.dumps({k: v.as_list() for k, v in table.items()}))
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except Exception:  # history is a nicety: it must never fail a recall
        return False
    return True
