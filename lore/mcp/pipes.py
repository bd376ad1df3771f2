"""stdin and stdout served by the event loop itself when they are pipes or sockets.

The SDK reads each line of stdin, and writes and flushes each answer, in a worker thread:
three thread hops a call, about 0.4 ms on a small machine. A pipe or a socket can be
watched by the event loop instead (asyncio's pipe transports). While the server runs,
the descriptors it claims point elsewhere (fd 0 at the null device, fd 1 at stderr), as
the SDK does for the streams it claims, so a child process never reads the agent's
requests and stray output never lands on the wire; both are put back on exit.

A terminal or a regular file is left to the SDK's threads (an event loop cannot watch a
file, and a terminal shared with a shell must stay blocking).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import sys
from collections.abc import AsyncIterator
from typing import Any

LINE_LIMIT = sys.maxsize  # no bound on a line, as with the SDK's reader; the screen sizes it


def _watchable(fd: int) -> bool:
    """Whether ``fd`` is a pipe or a socket (what an agent starts a server with)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class Lines:
    """stdin's lines, read by the event loop (``readline`` as the screen calls it)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader

    async def readline(self) -> bytes:
        return await self.reader.readline()


class Out:
    """stdout as the SDK writes it: ``write`` an answer's text, then ``flush``."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    async def write(self, text: str) -> None:
        self.writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self.writer.drain()


def _claim(fd: int, diversion: int) -> int:
    """A private duplicate of ``fd`` (closed in children); ``fd`` then points at
    ``diversion``."""
    import fcntl

    private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    try:
        os.dup2(diversion, fd)
    finally:
        os.close(diversion)
    return private


def _stdout_diversion() -> int:
    try:
        return os.dup(2)
    except OSError:
        return os.open(os.devnull, os.O_WRONLY)


@contextlib.asynccontextmanager
async def claimed() -> AsyncIterator[tuple[Lines | None, Out | None]]:
    """``(stdin's lines, stdout)`` served by the event loop, each None when it is not a
    pipe or a socket (the caller then serves it the SDK's way)."""
    loop = asyncio.get_running_loop()
    restore: list[tuple[int, int]] = []
    closers: list[Any] = []
    lines = out = None
    try:
        if _watchable(0):
            private = _claim(0, os.open(os.devnull, os.O_RDONLY))
            restore.append((0, private))
            reader = asyncio.StreamReader(limit=LINE_LIMIT)
            pipe = os.fdopen(private, "rb", buffering=0, closefd=False)
            incoming, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), pipe
            )
            closers.append(incoming)
            lines = Lines(reader)
        if _watchable(1):
            sys.stdout.flush()
            private = _claim(1, _stdout_diversion())
            restore.append((1, private))
            pipe = os.fdopen(private, "wb", buffering=0, closefd=False)
            outgoing, protocol = await loop.connect_write_pipe(
                asyncio.streams.FlowControlMixin, pipe
            )
            outgoing.set_write_buffer_limits(high=0)  # a flush waits for every byte
            writer = asyncio.StreamWriter(outgoing, protocol, None, loop)
            closers.append(writer)
            out = Out(writer)
        yield lines, out
    finally:
        for closer in reversed(closers):
            closer.close()
            if isinstance(closer, asyncio.StreamWriter):
                with contextlib.suppress(Exception):
                    await closer.wait_closed()
        for fd, private in reversed(restore):
            with contextlib.suppress(OSError):
                os.set_blocking(private, True)  # the transports made it non-blocking
                os.dup2(private, fd)
            with contextlib.suppress(OSError):
                os.close(private)
