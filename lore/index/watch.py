"""Change notification for the document folders (Linux inotify), so a long-lived process
(``lore mcp``) can skip the stat per document when nothing in a folder changed since its
last full check. Anywhere inotify is missing or fails, every check is a full one.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import struct
from typing import Any

# <sys/inotify.h>
IN_MODIFY = 0x002
IN_ATTRIB = 0x004
IN_CLOSE_WRITE = 0x008
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC
MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of name)


class FolderWatch:
    """Which watched folders may have changed since their last full check.

    ``quiet(path)`` is True only when ``path`` was watched before its last full check and
    no event arrived since; it then stays quiet until the next event. A folder that is
    not quiet is marked checked by ``quiet`` itself (before the caller's check runs), so
    an event during that check is seen next time.
    """

    def __init__(self) -> None:
        self.fd = -1
        self.libc: Any = None
        self.paths: dict[str, int] = {}  # folder -> watch descriptor
        self.folders: dict[int, str] = {}
        self.dirty: set[str] = set()
        name = ctypes.util.find_library("c")
        if not name or not hasattr(os, "O_NONBLOCK"):
            return
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(name, use_errno=True)
            fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
            if fd >= 0:
                self.libc, self.fd = libc, fd

    def quiet(self, path: str) -> bool:
        if self.fd < 0:
            return False
        self._drain()
        if path not in self.paths:
            wd = self.libc.inotify_add_watch(self.fd, os.fsencode(path), MASK)
            if wd < 0:
                return False  # missing or unreadable: check it in full every time
            self.paths[path], self.folders[wd] = wd, path
            return False  # watched from now on: this check must be a full one
        if path in self.dirty:
            self.dirty.discard(path)
            return False
        return True

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                self.close()
                return
            if not data:
                return
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _, length = _EVENT.unpack_from(data, offset)
                offset += _EVENT.size + length
                if mask & IN_Q_OVERFLOW:  # events were lost: trust nothing
                    self.dirty.update(self.paths)
                    continue
                path = self.folders.get(wd)
                if path is None:
                    continue
                self.dirty.add(path)
                if mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF):
                    # The folder itself went away or moved: watch whatever is there next.
                    self.folders.pop(wd, None)
                    self.paths.pop(path, None)
                    with contextlib.suppress(OSError):
                        self.libc.inotify_rm_watch(self.fd, wd)

    def close(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
        self.fd = -1
        self.paths.clear()
        self.folders.clear()
