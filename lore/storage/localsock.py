"""The Unix sockets lore's background processes listen on (the watcher daemon, the command
server): a socket file in a machine-local folder, reached through the open folder when its
path is too long for a socket address, and known by the file's identity as bound; and the
lock file that makes one process the only one to serve it. Imports nothing at module level
but ``os``: the console script connects through it."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # (True for type checkers; importing typing costs the console script 5 ms)

if TYPE_CHECKING:
    from typing import Any

MAX_ADDRESS = 100  # a Unix socket's path is limited to about 107 bytes


def address(folder: str, name: str) -> tuple[str, int]:
    """The address of FOLDER/NAME, and a descriptor to close once it is used (-1: none): a
    path too long for a socket is reached through the open folder (``/proc/self/fd/N/NAME``)."""
    path = os.path.join(folder, name)
    if len(path.encode()) <= MAX_ADDRESS:
        return path, -1
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    return f"/proc/self/fd/{fd}/{name}", fd


def listen(folder: str, name: str, umask: int) -> Any:
    """A socket listening at FOLDER/NAME (a stale file left by a dead process replaced: the
    caller holds the lock that makes it the only one), made with ``umask``."""
    import contextlib
    import socket

    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(folder, name))
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    where, fd = address(folder, name)
    try:
        old = os.umask(umask)
        try:
            server.bind(where)
        finally:
            os.umask(old)
        server.listen(64)
    except OSError:
        server.close()
        raise
    finally:
        if fd >= 0:
            os.close(fd)
    return server


def identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path``, None if there is none. (A socket's own
    descriptor says nothing of it: ``fstat`` of a socket is the socket, not its file.)"""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def take_lock(folder: str, name: str, mode: int = 0o777) -> int | None:
    """Hold the lock file FOLDER/NAME (the folder made with ``mode`` if need be) for as
    long as this process lives, and write this process's pid in it (who serves: lore
    doctor, the benchmarks): its descriptor, or None when another process holds it.
    OSError when the folder or the file cannot be made."""
    import fcntl

    os.makedirs(folder, mode=mode, exist_ok=True)
    fd = os.open(os.path.join(folder, name), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError:
        pass
    return fd
