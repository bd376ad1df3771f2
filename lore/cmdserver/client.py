"""The console script's side of the command server: hand one command to the server, with
this process's standard streams, working folder, environment and umask, and end as the
command ended. It imports nothing but the interpreter's built-in modules (and lore's two small
modules that need only those: lore.process, lore.storage.localsock), so a command
the server runs costs this process little more than starting Python.

``run`` answers None when nothing ran (no server, a server of other code, a refusal):
the caller then runs the command itself, exactly as without a server.
"""

from __future__ import annotations

import os
import sys

PROTOCOL = 1
# The commands agents and scripts run most, each short: the server runs these. Any other
# command (the MCP server, the UI, hooks, sync, imports...) runs in the console script.
COMMANDS = frozenset(
    {
        "resume", "capture", "remember", "learn", "fail", "observe", "handoff", "recall",
        "search", "context", "brief", "failures", "triggers", "timeline", "show", "list",
        "suggest", "patterns", "journal", "goal", "inbox", "stale", "review",
    }
)  # fmt: skip
OFF_SECONDS = 3600.0  # after a server could not run here, clients do not start another
_INT = 4


def enabled() -> bool:
    """On Linux with pidfds (the server waits on its workers through them), for the
    console script run without interpreter options, unless ``LORE_COMMAND_SERVER`` is 0,
    off, no or false."""
    setting = os.environ.get("LORE_COMMAND_SERVER", "").strip().lower()
    return (
        setting not in ("0", "off", "no", "false")
        and sys.platform.startswith("linux")
        and hasattr(os, "pidfd_open")
        # the console script as installed: no interpreter options (``python -X ... -m lore``)
        and len(getattr(sys, "orig_argv", ())) - len(sys.argv) == 1
    )


def command_of(argv: list[str]) -> str | None:
    """The command of ``lore [--data-dir DIR] COMMAND ...`` when the server runs it."""
    at = 0
    if argv[:1] == ["--data-dir"]:
        at = 2
    elif argv[:1] and argv[0].startswith("--data-dir="):
        at = 1
    name = argv[at] if len(argv) > at else None
    return name if name in COMMANDS else None


def folder() -> str:
    """Where servers listen: ``cmdserver`` in lore's machine-local folder (the base of
    ``lore.paths.local_dir``: ``$LORE_CACHE_DIR``, else ``$XDG_CACHE_HOME/lore``)."""
    base = os.environ.get("LORE_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "lore")
    return os.path.join(os.path.abspath(os.path.expanduser(base)), "cmdserver")


def key() -> str:
    """What a server must share with this process to run its commands as it would: the
    interpreter and its flags, lore's installed folder, and the environment variables read
    once at Python's start-up (``PYTHON*``, the locale). A server started with others
    listens elsewhere."""
    try:
        from _sha1 import sha1
    except ImportError:  # an interpreter without it
        from hashlib import sha1
    env = sorted(
        (k, v)
        for k, v in os.environ.items()
        if k.startswith(("PYTHON", "LC_")) or k in ("LANG", "LANGUAGE")
    )
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    seen = repr((PROTOCOL, sys.executable, sys.version, tuple(sys.flags), here, env))
    return sha1(seen.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def run(argv: list[str]) -> int | None:
    """Run ``lore ARGV`` in the server; its exit status, or None when nothing ran."""
    if command_of(argv) is None or not enabled():
        return None
    import _socket

    where, name = folder(), key()
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        try:
            _connect(sock, where, name)
        except OSError:  # no server yet (or a dead one's socket): start one for next time
            start(where, name)
            return None
        return _hand_over(sock, argv)
    finally:
        sock.close()


def _connect(sock: object, where: str, name: str) -> None:
    from lore.storage.localsock import address

    path, fd = address(where, name + ".sock")
    try:
        sock.connect(path)  # type: ignore[attr-defined]
    finally:
        if fd >= 0:
            os.close(fd)


def _hand_over(sock: object, argv: list[str]) -> int | None:
    """Send the request (standard streams and working folder as descriptors), then wait
    for the worker's end, passing on the signals this process receives.

    Once the whole request is sent, the command may run at any moment, and may even be
    over (worker and server gone) before this process is scheduled again: from then on
    nothing may answer None (the console script would run the command a second time).
    A send of the empty rest, on a socket whose peer is gone, fails with EPIPE: that was
    how, under a heavy load, a command's output came twice."""
    import _socket
    import marshal

    try:
        cwd = os.open(".", os.O_PATH | os.O_DIRECTORY)
    except OSError:  # a working folder that is gone: let the console script say so
        return None
    try:
        umask = os.umask(0o022)
        os.umask(umask)
        payload = marshal.dumps((PROTOCOL, argv, dict(os.environb), umask))
        data = len(payload).to_bytes(_INT, "little") + payload
        fds = b"".join(fd.to_bytes(_INT, sys.byteorder, signed=True) for fd in (0, 1, 2, cwd))
        try:
            sent = sock.sendmsg(  # type: ignore[attr-defined]
                [data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)]
            )
            if sent < len(data):  # (never a send of nothing: see above)
                sock.sendall(data[sent:])  # type: ignore[attr-defined]
        except OSError:  # a closed standard stream, a server gone before the whole request
            return None
    finally:
        os.close(cwd)
    return _wait(sock)


def _wait(sock: object) -> int | None:
    import _signal

    worker: list[int] = []
    pending: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        if worker:
            try:  # noqa: SIM105 - contextlib would cost this process its import
                os.kill(worker[0], signum)
            except OSError:
                pass
        else:
            pending.append(signum)

    for signum in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP, _signal.SIGQUIT):
        _signal.signal(signum, forward)
    buffer = b""
    while True:
        try:
            data = sock.recv(64)  # type: ignore[attr-defined]
        except OSError:
            data = b""
        if not data:
            break
        buffer += data
        while len(buffer) >= 1 + _INT:
            tag, value = buffer[:1], int.from_bytes(buffer[1 : 1 + _INT], "little", signed=True)
            buffer = buffer[1 + _INT :]
            if tag == b"N":  # refused before anything ran (a server of older code)
                return None
            if tag == b"P":
                worker.append(value)
                for signum in pending:
                    forward(signum, None)
            elif tag == b"X":
                return value
            elif tag == b"S":  # the worker was killed by a signal: end the same way
                _signal.signal(value, _signal.SIG_DFL)
                os.kill(os.getpid(), value)
                return 128 + value
    if not worker:  # (the worker says P before it runs anything)
        return None  # the server went away before it started the command
    os.write(2, b"lore: the command server's worker ended without an exit status\n")
    return 1


def start(where: str, name: str) -> bool:
    """Start a server in the background (a new session, no terminal) for next time, unless
    one could not run here lately."""
    try:
        if os.stat(os.path.join(where, name + ".off")).st_mtime > _now() - OFF_SECONDS:
            return False
    except OSError:
        pass
    # -c puts the working folder first on sys.path: the server must not import from it.
    code = "import sys; del sys.path[0]; from lore.cmdserver.server import main; main()"
    from lore.process import spawn_detached

    return spawn_detached([sys.executable, "-c", code, where, name])


def _now() -> float:
    import time

    return time.time()
