"""What the agent hooks remember about each agent session, machine-local (``hooks/`` in
the root's local directory, never the data root): the records already injected, failures
counted per error type, the Rule-of-Three types already told, whether injection is paused,
and the session the hooks saw last. Derived and disposable: deleting it only means a
record may be injected once more (so it is written without an fsync, which a hook would
wait for)."""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from lore.storage.atomic import atomic_write
from lore.storage.lock import locked

PAUSE_ENV = "LORE_HOOKS_PAUSE"  # any value but "" or "0": no injection in this session
KEEP_DAYS = 30  # a session's state is dropped once untouched this long
PRUNE_SECONDS = 86400  # the sessions' folder is looked through for old ones at most this often
LOCK_SECONDS = 0.5  # a hook never waits longer for another hook of the same session
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def folder(local: Path) -> Path:
    return Path(local) / "hooks"


def _file(local: Path, session: str) -> Path:
    name = _SAFE.sub("_", session)[:80] or "_"
    return folder(local) / "sessions" / f"{name}.json"


def load(local: Path, session: str) -> dict[str, Any]:
    """The session's state (``{}`` when there is none or it cannot be read)."""
    try:
        data = orjson.loads(_file(local, session).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


@contextlib.contextmanager
def updating(local: Path, session: str) -> Iterator[dict[str, Any]]:
    """The session's state to change in place, written back atomically (under its lock,
    so two hooks of one session never lose each other's change)."""
    path = _file(local, session)
    with locked(path, timeout=LOCK_SECONDS):
        fresh = not path.exists()
        state = load(local, session)
        before = orjson.dumps(state, option=orjson.OPT_SORT_KEYS)
        yield state
        after = orjson.dumps(state, option=orjson.OPT_SORT_KEYS)
        if after != before:
            atomic_write(path, after, durable=False)
    if fresh:
        _prune(path.parent)


def _prune(directory: Path) -> None:
    """Forget sessions untouched for KEEP_DAYS: when a new one starts, at most once every
    PRUNE_SECONDS (a marker's time), so a hook seldom lists the folder of every session."""
    now = time.time()
    marker = directory / ".pruned"
    with contextlib.suppress(OSError):
        if now - marker.stat().st_mtime < PRUNE_SECONDS:
            return
    limit = now - KEEP_DAYS * 86400
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            with contextlib.suppress(OSError):
                if entry.name.endswith(".json") and entry.stat().st_mtime < limit:
                    os.unlink(entry.path)
                    with contextlib.suppress(OSError):
                        os.unlink(os.path.join(directory, f".{entry.name}.lock"))
        marker.touch()


def note_last(local: Path, session: str, cwd: str | None) -> None:
    """Remember the session a hook last ran for (``lore hooks pause`` acts on it)."""
    path = folder(local) / "last.json"
    data = orjson.dumps({"session": session, "cwd": cwd})
    with contextlib.suppress(OSError):
        if path.read_bytes() == data:
            return
    atomic_write(path, data, durable=False)


def last_session(local: Path) -> str | None:
    try:
        data = orjson.loads((folder(local) / "last.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    session = data.get("session") if isinstance(data, dict) else None
    return session if isinstance(session, str) and session else None


def paused_by_env() -> bool:
    return os.environ.get(PAUSE_ENV, "").strip() not in ("", "0")


def is_paused(state: dict[str, Any]) -> bool:
    return paused_by_env() or bool(state.get("paused"))


def set_paused(local: Path, session: str, paused: bool) -> bool:
    """Pause or resume injection for ``session``; whether anything changed."""
    with updating(local, session) as state:
        changed = bool(state.get("paused")) != paused
        if paused:
            state["paused"] = True
        else:
            state.pop("paused", None)
    return changed
