"""The watcher daemon: one background process per data root that watches its folders
(``lore.storage.watch``) and tells each short-lived ``lore`` what changed since its token,
over a Unix socket in the root's machine-local folder. Started by ``lore.index.watch.start``.

It exits when idle for IDLE_SECONDS, when the root or its socket goes away, or on SIGTERM.
Only one runs per root: it holds ``watch.lock`` for its whole life.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import sys
import time
from pathlib import Path

import orjson

from lore.index.watch import LOCK, OFF, SOCKET, folders
from lore.storage import localsock
from lore.storage.localsock import identity
from lore.storage.watch import Watcher

LOG = "watch.log"  # why the last daemon stopped, when it was a bug
IDLE_SECONDS = 1800.0
CHECK_SECONDS = 30.0  # how often an idle daemon looks for its root and socket
REQUEST_SECONDS = 1.0  # a client that has not sent its request by then is dropped


def main(argv: list[str] | None = None) -> int:
    """``ROOT LOCAL``: watch the data root ROOT, serving on LOCAL/watch.sock."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        return 2
    root, local = Path(args[0]), Path(args[1])
    with contextlib.suppress(OSError):
        os.chdir("/")
    try:
        lock = localsock.take_lock(str(local), LOCK)
    except OSError:
        return 1
    if lock is None:
        return 0  # another daemon serves this root
    from lore.store.core import Store

    watcher = Watcher(folders(Store(root)))
    if not watcher.available:
        _give_up(local, "inotify is not available")
        return 0
    try:
        server = localsock.listen(str(local), SOCKET, 0o077)
    except OSError as exc:
        _give_up(local, f"cannot listen on {local / SOCKET}: {exc}")
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    mine = identity(str(local / SOCKET))
    try:
        serve(watcher, server, root, local / SOCKET, mine)
    except Exception:  # a bug: say so where the next look at the folder finds it
        import traceback

        with contextlib.suppress(OSError):
            (local / LOG).write_text(traceback.format_exc(), encoding="utf-8")
        raise
    finally:
        if mine is not None and identity(str(local / SOCKET)) == mine:  # still ours
            with contextlib.suppress(OSError):
                os.unlink(local / SOCKET)
        server.close()
        watcher.close()
    return 0


def serve(
    watcher: Watcher,
    server: socket.socket,
    root: Path,
    path: Path,
    mine: tuple[int, int] | None,
) -> None:
    """Answer requests and keep the journal current until idle or orphaned."""
    poller = select.poll()
    poller.register(watcher.fileno(), select.POLLIN)
    poller.register(server.fileno(), select.POLLIN)
    last = time.monotonic()
    while True:
        ready = poller.poll(CHECK_SECONDS * 1000)
        for fd, _ in ready:
            if fd == watcher.fileno():
                watcher.drain()
            else:
                _answer(watcher, server)
                last = time.monotonic()
        if not ready or time.monotonic() - last > CHECK_SECONDS:
            if time.monotonic() - last > IDLE_SECONDS:
                return
            if not root.is_dir() or identity(str(path)) != mine:
                return  # the root is gone, or another daemon took the socket over
        if not watcher.available:
            return


def _answer(watcher: Watcher, server: socket.socket) -> None:
    try:
        conn, _ = server.accept()
    except OSError:
        return
    with conn:
        try:
            conn.settimeout(REQUEST_SECONDS)
            request = b""
            while not request.endswith(b"\n") and len(request) < 4096:
                data = conn.recv(4096)
                if not data:
                    break
                request += data
            verb, _, token = request.decode("utf-8", "replace").strip().partition(" ")
            now, found = watcher.since(token if verb == "since" and token != "-" else None)
            changes = None
            if found is not None:
                changes = {k: sorted(v) if v is not None else None for k, v in found.items()}
            conn.sendall(orjson.dumps({"token": now, "changes": changes}))
        except OSError:
            pass


def _give_up(local: Path, reason: str) -> None:
    """Say why this root is not watched, so clients do not start a daemon every time."""
    with contextlib.suppress(OSError):
        (local / OFF).write_text(reason + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
