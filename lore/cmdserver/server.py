"""The command server: one background process per installation (and interpreter set-up)
that imports lore's CLI once, then forks a worker for each command a client hands it.

A worker (``lore.cmdserver.worker``) takes over the client's standard streams, working
folder, environment and umask, runs ``lore.cli.main`` as the console script would, and
sends its exit status back over
the client's connection. The server waits on each worker through a pidfd: a worker killed
by a signal is reported as such, and a client that goes away (killed) takes its worker
with it, as a ``lore`` process of its own would have gone. The data files are read fresh
by every worker, through the same freshness checks as any command; what the server keeps
is code and index files as a head start, never records.

Workers tell the server which modules they had to import on top of what it holds, and
which index files they read; the server imports those modules between requests and holds
those indexes (``lore.index.held``: read and made growable once, taken by a worker only
while the file is unchanged), so each command soon finds all it needs.

The server refuses (and exits) as soon as lore's code on disk differs from what it
imported (an upgrade, an edit), so a command never runs old code. It exits when idle for
IDLE_SECONDS, when its socket goes away, or on SIGTERM; one runs per key, holding
``<key>.lock``.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any

from lore.cmdserver.client import PROTOCOL, command_of
from lore.cmdserver.code import code_folders, fingerprint, preload
from lore.cmdserver.worker import run
from lore.process import LongLived
from lore.storage import localsock
from lore.storage.localsock import identity

IDLE_SECONDS = 900.0
CHECK_SECONDS = 30.0  # how often an idle server looks for its socket
REQUEST_SECONDS = 1.0  # a client that has not sent its request by then is dropped
MAX_REQUEST = 1 << 20
_INT = 4


def main(argv: list[str] | None = None) -> int:
    """``FOLDER KEY``: serve on FOLDER/KEY.sock."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        return 2
    where, key = Path(args[0]), args[1]
    with contextlib.suppress(OSError):
        os.chdir("/")
    try:
        lock = localsock.take_lock(str(where), f"{key}.lock", 0o700)
    except OSError:
        return 1
    if lock is None:
        return 0  # another server has this key
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (OSError, AttributeError):
        _give_up(where, key)
        return 0
    with LongLived():  # what every worker inherits, never scanned by its collections
        preloaded = preload()
    try:
        listener = localsock.listen(str(where), f"{key}.sock", 0o177)
    except OSError:
        _give_up(where, key)
        return 0
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(0))
    path = where / f"{key}.sock"
    mine = identity(str(path))  # the socket file as bound: another server's replaces it
    try:
        Server(where, key, listener, lock, preloaded, mine).serve()
    except Exception:  # a bug: say so where the next look at the folder finds it
        import traceback

        with contextlib.suppress(OSError):
            (where / f"{key}.log").write_text(traceback.format_exc(), encoding="utf-8")
        raise
    finally:
        _unlink_if_ours(path, mine)
        listener.close()
    return 0


def _give_up(where: Path, key: str) -> None:
    """Leave a marker so clients run commands themselves for a while (OFF_SECONDS)."""
    with contextlib.suppress(OSError):
        (where / f"{key}.off").write_text(f"no command server here (pid {os.getpid()})\n")


def _unlink_if_ours(path: Path, mine: tuple[int, int] | None) -> None:
    """Remove the socket file if it is still this server's (a newer server may have its own)."""
    if mine is not None and identity(str(path)) == mine:
        with contextlib.suppress(OSError):
            path.unlink()


class Server:
    """The accept loop: requests, workers (by pidfd) and their clients' connections."""

    def __init__(
        self,
        where: Path,
        key: str,
        listener: socket.socket,
        lock: int,
        modules: set[str],
        mine: tuple[int, int] | None,
    ) -> None:
        self.where = where
        self.key = key
        self.mine = mine  # the socket file's identity as bound
        self.listener = listener
        self.lock = lock
        self.modules = modules  # imported in this process: workers inherit them
        self.code = fingerprint()
        # Between two looks at every file (about a millisecond), a watcher of the code's
        # folders says whether anything there changed at all (microseconds).
        from lore.storage.watch import Watcher

        self.code_watch = Watcher(code_folders())
        self.code_token = self.code_watch.since(None)[0]
        self.poll = select.poll()
        self.poll.register(listener, select.POLLIN)
        self.clients: dict[int, socket.socket] = {}  # connection fd -> connection
        self.workers: dict[int, tuple[int, int, socket.socket, int, str]] = {}
        # pidfd -> (pid, connection fd, connection, fd of the worker's module report, command)
        self.last = time.monotonic()
        self.closing = False

    def serve(self) -> None:
        checked = time.monotonic()
        while True:
            if self.closing and not self.workers:
                return
            events = self.poll.poll(CHECK_SECONDS * 1000)
            now = time.monotonic()
            for fd, _event in events:
                if fd == self.listener.fileno() and not self.closing:
                    self._accept()
                elif fd in self.workers:
                    self._reap(fd)
                elif fd in self.clients:
                    self._client_gone(fd)
            if self.workers:
                self.last = now
            elif now - self.last > IDLE_SECONDS:
                return
            if now - checked > CHECK_SECONDS:
                checked = now
                if not self._socket_is_ours():
                    return

    def _socket_is_ours(self) -> bool:
        here = identity(str(self.where / f"{self.key}.sock"))
        return self.mine is not None and here == self.mine

    def _accept(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        fds: list[int] = []
        try:
            conn.settimeout(REQUEST_SECONDS)
            request, fds = self._request(conn)
            if request is None:
                conn.close()
                return
            if self._code_changed():  # lore changed on disk: nothing old may run
                self._stop_listening()
                with contextlib.suppress(OSError):
                    conn.sendall(b"N" + (0).to_bytes(_INT, "little"))
                conn.close()
                return
            conn.settimeout(None)
            self._fork(conn, request, fds)
        except (OSError, ValueError, EOFError, TypeError):
            conn.close()
        finally:
            for fd in fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.last = time.monotonic()

    def _code_changed(self) -> bool:
        """Whether lore's code on disk differs from what this process imported."""
        if self.code_watch.available:
            self.code_token, changes = self.code_watch.since(self.code_token)
            if changes is not None and not changes:
                return False  # not a name in those folders changed since the last look
        return fingerprint() != self.code

    def _request(self, conn: socket.socket) -> tuple[Any, list[int]]:
        """(protocol, argv, environment, umask) and the four descriptors, or None for a
        client that is not this user, or speaks another protocol."""
        import marshal

        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        if struct.unpack("3i", creds)[1] != os.getuid():
            return None, []
        data, fds, _flags, _addr = socket.recv_fds(conn, 65536, 4)
        while len(data) < _INT:
            more = conn.recv(65536)
            if not more:
                return None, fds
            data += more
        size = int.from_bytes(data[:_INT], "little")
        if size > MAX_REQUEST:
            return None, fds
        while len(data) < _INT + size:
            more = conn.recv(65536)
            if not more:
                return None, fds
            data += more
        request = marshal.loads(data[_INT : _INT + size])
        if len(fds) != 4 or not isinstance(request, tuple) or request[0] != PROTOCOL:
            return None, fds
        return request, fds

    def _fork(self, conn: socket.socket, request: Any, fds: list[int]) -> None:
        report_r, report_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker
            os.close(report_r)
            keep = {conn.fileno(), report_w, *fds}
            run(conn, request, fds, report_w, keep, self.modules)
        os.close(report_w)
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            os.waitpid(pid, 0)  # cannot happen on a kernel that passed the start-up check
            os.close(report_r)
            conn.close()
            return
        self.workers[pidfd] = (pid, conn.fileno(), conn, report_r, command_of(request[1]) or "")
        self.clients[conn.fileno()] = conn
        self.poll.register(pidfd, select.POLLIN)
        self.poll.register(conn, select.POLLIN | select.POLLHUP)

    def _reap(self, pidfd: int) -> None:
        pid, conn_fd, conn, report, command = self.workers.pop(pidfd)
        self.poll.unregister(pidfd)
        os.close(pidfd)
        try:
            _, status, usage = os.wait4(pid, 0)
        except ChildProcessError:
            status, usage = 0, None
        _log(pid, command, status, usage)
        if os.WIFSIGNALED(status) and conn_fd in self.clients:
            with contextlib.suppress(OSError):
                conn.sendall(b"S" + os.WTERMSIG(status).to_bytes(_INT, "little", signed=True))
        if self.clients.pop(conn_fd, None) is not None:
            self.poll.unregister(conn_fd)
        conn.close()
        self._learn(report)

    def _client_gone(self, conn_fd: int) -> None:
        """The client's end closed (it was killed) while its worker runs: end the worker
        as the client's own process would have ended."""
        conn = self.clients.pop(conn_fd)
        self.poll.unregister(conn_fd)
        with contextlib.suppress(OSError):
            if conn.recv(1):
                return  # a client does not speak after its request: ignore it
        for pid, fd, _conn, report, _command in self.workers.values():
            if fd == conn_fd and not _closed(report):  # (closed: the command is over)
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    def _learn(self, report: int) -> None:
        """Import what the worker had to import (its report), for the next ones."""
        chunks = []
        with contextlib.suppress(OSError):
            while True:
                chunk = os.read(report, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
        os.close(report)
        from lore.index.held import reported

        names = [n for n in b"".join(chunks).decode("utf-8", "replace").split("\n") if n]
        indexes = [found for found in map(reported, names) if found is not None]
        modules = [n for n in names if not n.startswith("index:")]
        fresh = [n for n in modules if n not in sys.modules and n.partition(".")[0] != "__main__"]
        if not indexes and not fresh:
            return
        from importlib import import_module

        with LongLived():  # out of the collector's sight: a worker's collections never copy it
            if indexes:
                from lore.index.held import hold, refresh
                from lore.index.persist import Index

                for path, root, moved in indexes:
                    with contextlib.suppress(Exception):
                        # The next workers take it growable and, when the last one had
                        # something to apply to it, up to date with the files.
                        if hold(path, root, Index.loads) and moved:
                            refresh(path, root)
            for name in fresh:
                with contextlib.suppress(BaseException):
                    import_module(name)
        self.modules = set(sys.modules)

    def _stop_listening(self) -> None:
        """Old code: take no more requests (clients start a new server), finish the rest."""
        self.closing = True
        with contextlib.suppress(KeyError, ValueError):
            self.poll.unregister(self.listener)
        _unlink_if_ours(self.where / f"{self.key}.sock", self.mine)
        with contextlib.suppress(OSError):
            os.close(self.lock)  # the next server may start now


def _closed(fd: int) -> bool:
    """Whether the other end of the pipe ``fd`` reads from was closed."""
    poll = select.poll()
    poll.register(fd, select.POLLIN)
    return any(event & select.POLLHUP for _, event in poll.poll(0))


def _log(pid: int, command: str, status: int, usage: Any) -> None:
    """With ``LORE_COMMAND_SERVER_LOG`` (in the server's environment: the one of the command
    that started it), one line per command: time, worker pid, command name (never its
    arguments), exit status or signal, the worker's page faults (minor, major) and its CPU
    time in ms (user, system), last on the line."""
    path = os.environ.get("LORE_COMMAND_SERVER_LOG")
    if not path:
        return
    end = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {status >> 8}"
    cpu = f"{usage.ru_utime * 1000:.2f} {usage.ru_stime * 1000:.2f}" if usage else "- -"
    faults = f"{usage.ru_minflt} {usage.ru_majflt}" if usage else "- -"
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
    with contextlib.suppress(OSError), open(path, "a", encoding="utf-8") as log:
        log.write(f"{stamp} {pid} {command or '-'} {end} faults {faults} cpu {cpu}\n")
