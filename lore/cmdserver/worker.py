"""A command server's worker: the child of a fork that becomes the client's ``lore`` (its
standard streams, working folder, environment and umask), runs the CLI to its end, tells
the server which modules it had to import and which index files it read, and sends the
exit status."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import time
from typing import Any, NoReturn

_INT = 4


def run(
    conn: socket.socket,
    request: Any,
    fds: list[int],
    report: int,
    keep: set[int],
    held: set[str],
) -> NoReturn:
    """Become the client's ``lore`` (in the child of a fork): never returns. ``held``: the
    modules the server had imported (the report names the others)."""
    code = 1
    try:
        _close_all_but(keep)
        _, argv, environ, umask = request
        _take_over(fds, environ, umask)
        # The client learns this pid (to pass signals on) from here, and only from here:
        # a client that has not heard it knows that nothing ran and may run the command
        # itself. A client gone already (the send fails) gets nothing run.
        conn.sendall(b"P" + os.getpid().to_bytes(_INT, "little", signed=True))
        sys.argv = ["lore", *argv]
        code = _run_cli(argv)
    except BaseException:  # the worker must always report and end
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        with contextlib.suppress(BaseException):
            import atexit

            atexit._run_exitfuncs()
        with contextlib.suppress(BaseException):
            from lore.index.held import LOADED
            from lore.index.held import report as index_line

            new = sorted(set(sys.modules) - held)
            new += [index_line(path, root) for path, root in LOADED]
            os.write(report, "\n".join(new).encode("utf-8")[:60000])  # a pipe's room
        with contextlib.suppress(BaseException):
            os.close(report)  # the server knows from here that the command is over
        with contextlib.suppress(BaseException):
            conn.sendall(b"X" + code.to_bytes(_INT, "little", signed=True))
        os._exit(code & 0xFF)


def _close_all_but(keep: set[int]) -> None:
    """Close every descriptor of the server (listener, other clients, pidfds, the lock)
    but the worker's own and the standard three."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return
    for name in names:
        fd = int(name)
        if fd > 2 and fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)


def _take_over(fds: list[int], environ: dict[bytes, bytes], umask: int) -> None:
    """The client's standard streams, working folder, environment and umask; Python's
    default signal handling; standard streams made as Python makes them at start-up."""
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    stdin, stdout, stderr, cwd = fds
    for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
        os.dup2(fd, target)
    os.fchdir(cwd)
    for fd in fds:  # received without close-on-exec: a process started here must not hold them
        os.close(fd)
    os.umask(umask)
    os.environ.clear()
    for name, value in environ.items():
        os.environb[name] = value
    time.tzset()
    _streams()


def _streams() -> None:
    import io

    def text(fd: int, mode: str, like: Any) -> io.TextIOWrapper:
        raw = io.FileIO(fd, mode, closefd=False)
        tty = raw.isatty()
        buffered: Any = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
        return io.TextIOWrapper(
            buffered,
            encoding=like.encoding,
            errors=like.errors,
            line_buffering=tty and mode == "w",
        )

    sys.stdin = sys.__stdin__ = text(0, "r", sys.__stdin__ or sys.stdin)  # type: ignore[misc]
    sys.stdout = sys.__stdout__ = text(1, "w", sys.__stdout__ or sys.stdout)  # type: ignore[misc]
    sys.stderr = sys.__stderr__ = text(2, "w", sys.__stderr__ or sys.stderr)  # type: ignore[misc]
    sys.stderr.reconfigure(line_buffering=True)  # as Python's own stderr


def _run_cli(argv: list[str]) -> int:
    """``lore.cli.main(argv)`` to its end: its exit status, as the interpreter makes it."""
    from lore.cli import main as cli_main
    from lore.process import mark_one_shot

    mark_one_shot()
    try:
        cli_main(argv)
    except SystemExit as exc:
        return _status(exc.code)
    return 0


def _status(code: Any) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    with contextlib.suppress(BaseException):
        print(code, file=sys.stderr)
    return 1
