"""What changed in a data root's folders since a token, for the index's refresh: asked of
the process's own watcher (a long-lived process keeps one in ``store.kept``) or of the
root's watcher daemon (``lore.index.watchd``; the console script starts it when absent).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lore.model import Dir, kinds
from lore.paths import DataRoot
from lore.process import one_shot, spawn_detached
from lore.storage import localsock
from lore.store.core import Store

if TYPE_CHECKING:
    from lore.storage.watch import Changes, Watcher

SOCKET = "watch.sock"
LOCK = "watch.lock"
OFF = "watch.off"  # the daemon could not watch this root: not started again for a while
OFF_SECONDS = 3600.0
TIMEOUT = 2.0  # seconds to wait for the daemon's answer before checking every file


def enabled() -> bool:
    """``LORE_WATCH=0`` turns watching off: every read then checks every file."""
    return os.environ.get("LORE_WATCH", "").strip().lower() not in ("0", "off", "no", "false")


def folders(store: Store) -> list[str]:
    """Every folder holding records: each document kind's own, each log's and map's."""
    out = []
    for cls in kinds().values():
        where = store.location(cls)
        out.append(str(where if isinstance(cls.KIND.storage, Dir) else where.parent))
    return sorted(set(out))


def kept_watcher(store: Store) -> Watcher | None:
    """A watcher for a long-lived process to keep (None when watching is off)."""
    from lore.storage.watch import Watcher

    return Watcher(folders(store)) if enabled() else None


def changes(store: Store, token: str | None) -> tuple[str, Changes | None]:
    """(a token for next time, what changed since ``token``: folder -> names, None for a
    whole folder), or ("", None) when nobody can tell: then the caller checks every file."""
    if not enabled():
        return "", None
    kept = store.kept
    if kept is not None:
        watcher = kept.get("watch")
        return watcher.since(token) if watcher is not None else ("", None)
    return ask(store.root, token)


def ask(root: DataRoot, token: str | None, *, spawn: bool = True) -> tuple[str, Changes | None]:
    """The root's watcher daemon's answer; with ``spawn``, starts one (console script
    only) when none runs."""
    import _socket

    import orjson

    local = root.local
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(TIMEOUT)
    dir_fd = -1
    try:
        try:
            address, dir_fd = localsock.address(str(local), SOCKET)
            sock.connect(address)
        except (FileNotFoundError, ConnectionRefusedError):  # no daemon (or no folder yet)
            if spawn:
                start(root)
            return "", None
        sock.sendall(b"since " + (token or "-").encode("utf-8", "replace") + b"\n")
        chunks = []
        while True:
            data = sock.recv(262144)
            if not data:
                break
            chunks.append(data)
        reply = orjson.loads(b"".join(chunks))
    except (OSError, ValueError):  # no daemon, a slow one, a garbled answer: check it all
        return "", None
    finally:
        sock.close()
        if dir_fd >= 0:
            os.close(dir_fd)
    return _parse(reply)


def _parse(reply: Any) -> tuple[str, Changes | None]:
    if not isinstance(reply, dict) or not isinstance(reply.get("token"), str):
        return "", None
    found = reply.get("changes")
    if not isinstance(found, dict):
        return reply["token"], None
    out: Changes = {}
    for folder, names in found.items():
        out[folder] = frozenset(names) if isinstance(names, list) else None
    return reply["token"], out


def start(root: DataRoot) -> bool:
    """Start the root's watcher daemon in the background (a new session, no terminal), if
    this is the ``lore`` console script on Linux, watching is on, and no daemon is starting
    or gave up on this root lately. The caller checks every file this time."""
    if not one_shot() or not sys.platform.startswith("linux"):
        return False
    if not enabled():
        return False
    local = root.local
    try:
        st = os.stat(local / OFF)
        if st.st_mtime > _now() - OFF_SECONDS:
            return False
    except OSError:
        pass
    if _starting(local):
        return False
    code = "from lore.index.watchd import main; main()"
    return spawn_detached([sys.executable, "-I", "-c", code, str(root.path), str(local)])


def _starting(local: Path) -> bool:
    """Whether a daemon holds the root's lock (it is starting, or serving)."""
    import fcntl

    try:
        fd = os.open(local / LOCK, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _now() -> float:
    import time

    return time.time()
