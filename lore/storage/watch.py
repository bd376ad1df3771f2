"""Which names in a set of folders changed since a token (Linux inotify and a journal), so a
reader need not stat every file to see an edit. Kept by long-lived processes and by the
watcher daemon (``lore.index.watchd``); where inotify is missing, every answer is "unknown".
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import Iterable
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
IN_ONLYDIR = 0x01000000
IN_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
IN_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
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
    | IN_ONLYDIR
)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of name)
# Another writer's temporary file or lock sidecar: never a record, and they come and go
# with every write, so the journal does not keep them.
_NOISE = (".tmp", ".lock")
JOURNAL_LIMIT = 200_000  # names remembered; past this, older tokens get "unknown"

Changes = dict[str, "frozenset[str] | None"]  # folder -> changed names (None: anything)


class Watcher:
    """inotify on ``folders``, and a journal of what changed in them.

    ``since(token)`` answers with a new token and, for each folder with news since
    ``token``, the names that changed there (None when anything in it may have: it was
    created, replaced or removed, so the caller lists it again). The whole answer is None
    when the watcher cannot tell (no inotify, a token of another watcher or from before a
    lost event): the caller then checks every file. The kernel queues an event before the
    write that caused it returns, and ``since`` reads the queue to its end first, so a
    change made before the call is always in its answer.
    """

    def __init__(self, folders: Iterable[str]) -> None:
        self.fd = -1
        self.libc: Any = None
        self.gen = f"{os.getpid():x}{os.urandom(4).hex()}"
        self.seq = 0
        self.floor = 0  # tokens older than this cannot be answered
        self.folders = list(dict.fromkeys(folders))
        self.watches: dict[int, str] = {}  # watch descriptor -> folder
        self.state: dict[str, tuple[int, int] | None] = {}  # folder -> its (dev, inode)
        self.names: dict[str, dict[str, int]] = {f: {} for f in self.folders}
        self.whole: dict[str, int] = {}  # folder -> seq when all of it last changed
        self.size = 0
        if not IN_NONBLOCK:
            return
        with contextlib.suppress(OSError, AttributeError, ImportError):
            import ctypes  # only long-lived processes watch: ctypes stays off the CLI

            libc = ctypes.CDLL(None, use_errno=True)  # this process's own C library
            fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
            if fd >= 0:
                self.libc, self.fd = libc, fd
        if self.fd >= 0:
            for folder in self.folders:
                self.state[folder] = self._watch(folder)

    @property
    def available(self) -> bool:
        return self.fd >= 0

    def token(self) -> str:
        return f"{self.gen}.{self.seq}"

    def since(self, token: str | None) -> tuple[str, Changes | None]:
        """(the token to ask with next time, what changed since ``token``)."""
        if self.fd < 0:
            return "", None
        self.drain()
        self._verify()
        now = self.token()
        gen, _, seq = (token or "").partition(".")
        if gen != self.gen or not seq.isdigit() or int(seq) < self.floor:
            return now, None
        after = int(seq)
        out: Changes = {}
        for folder in self.folders:
            if self.whole.get(folder, -1) > after:
                out[folder] = None
                continue
            names = [n for n, s in self.names[folder].items() if s > after]
            if names:
                out[folder] = frozenset(names)
        return now, out

    def fileno(self) -> int:
        return self.fd

    def drain(self) -> None:
        """Read every queued event into the journal."""
        marked = False
        while self.fd >= 0:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                break
            except OSError:
                self.close()
                break
            if not data:
                break
            if not marked:
                self.seq += 1
                marked = True
            self._events(data)
        if self.size > JOURNAL_LIMIT:
            self._forget()

    def _events(self, data: bytes) -> None:
        offset, seq = 0, self.seq
        while offset + _EVENT.size <= len(data):
            wd, mask, _, length = _EVENT.unpack_from(data, offset)
            start = offset + _EVENT.size
            offset = start + length
            if mask & IN_Q_OVERFLOW:  # events were lost: no older token can be answered
                self.floor = seq
                continue
            folder = self.watches.get(wd)
            if folder is None:
                continue
            if mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF):
                # The folder itself went away or moved: _verify watches what is there next.
                self.whole[folder] = seq
                self.watches.pop(wd, None)
                self.state[folder] = None
                continue
            name = data[start:offset].rstrip(b"\0").decode("utf-8", "surrogateescape")
            if not name or name.endswith(_NOISE):
                continue
            known = self.names[folder]
            if name not in known:
                self.size += 1
            known[name] = seq

    def _verify(self) -> None:
        """A folder created, replaced or removed since it was watched (the watch follows
        the old inode, a path's new folder has none) is watched afresh and marked whole."""
        for folder in self.folders:
            try:
                st = os.stat(folder)
                here: tuple[int, int] | None = (st.st_dev, st.st_ino)
            except OSError:
                here = None
            watched = folder in self.watches.values()
            if here != self.state.get(folder) or (here is not None and not watched):
                if here is not None:
                    here = self._watch(folder)
                self.state[folder] = here
                self.seq += 1
                self.whole[folder] = self.seq

    def _watch(self, folder: str) -> tuple[int, int] | None:
        """Watch ``folder``; its (dev, inode), or None when it cannot be watched."""
        for _ in range(3):  # the same folder before and after: the watch is on it
            try:
                before = os.stat(folder)
                wd = self.libc.inotify_add_watch(self.fd, os.fsencode(folder), MASK)
                after = os.stat(folder)
            except OSError:
                return None
            if wd < 0:
                return None  # unreadable: _verify tries again on every call
            self.watches[wd] = folder
            if (before.st_dev, before.st_ino) == (after.st_dev, after.st_ino):
                return (after.st_dev, after.st_ino)
        return None

    def _forget(self) -> None:
        """Drop the journal (too many names): tokens handed out so far get "unknown"."""
        self.seq += 1
        self.floor = self.seq
        self.names = {f: {} for f in self.folders}
        self.whole = {}
        self.size = 0

    def close(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
        self.fd = -1
        self.watches.clear()
