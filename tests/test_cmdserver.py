"""The command server (lore.cmdserver): a command it runs answers exactly as the console
script does by itself (stdout, stderr, exit status, files), with the client's streams,
working folder, environment and umask; signals and a killed client end the worker; code
that changed on disk is never run; the console script runs the command itself when there
is no server, and LORE_COMMAND_SERVER=0 turns it off."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from lore.cmdserver.client import COMMANDS, command_of

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not hasattr(os, "pidfd_open"),
    reason="the command server needs Linux pidfds",
)

LORE = str(Path(sys.executable).with_name("lore"))
NOW = "2026-03-04T05:06:07Z"


class Served:
    """The installed ``lore`` with a command server of its own (a cache folder per test)."""

    def __init__(self, tmp: Path) -> None:
        self.cache = tmp / "cache"
        self.log = tmp / "server.log"
        self.env = {
            **os.environ,
            "LORE_COMMAND_SERVER": "1",
            "LORE_CACHE_DIR": str(self.cache),
            "LORE_COMMAND_SERVER_LOG": str(self.log),
            "LORE_NOW": NOW,
        }

    def run(self, *args: str, served: bool = True, **kw: Any) -> subprocess.CompletedProcess[bytes]:
        env = {**self.env, **kw.pop("env", {})}
        if not served:
            env["LORE_COMMAND_SERVER"] = "0"
        kw.setdefault("stdin", subprocess.DEVNULL)
        return subprocess.run([LORE, *args], capture_output=True, env=env, timeout=60, **kw)

    def lines(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def start(self) -> None:
        """Run one command (it starts the server) and wait until the server listens."""
        self.run("list", "goals")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            before = len(self.lines())
            self.run("list", "goals")
            if len(self.lines()) > before:
                return
            time.sleep(0.1)
        raise AssertionError("no command server answered")

    def pids(self) -> list[int]:
        out = []
        for lock in self.cache.glob("cmdserver/*.lock"):
            fd = os.open(lock, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                out.append(int(lock.read_text().strip()))
            finally:
                os.close(fd)
        return out

    def stop(self) -> None:
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    server = Served(tmp_path)
    yield server
    server.stop()


def test_the_frequent_commands_are_the_ones_served() -> None:
    assert command_of(["recall", "x"]) == "recall"
    assert command_of(["--data-dir", "d", "capture", "x"]) == "capture"
    assert command_of(["--data-dir=d", "resume"]) == "resume"
    assert command_of(["mcp"]) is None
    assert command_of(["hooks", "run"]) is None
    assert command_of(["--version"]) is None
    assert command_of([]) is None
    assert {"resume", "capture", "remember", "fail", "recall", "timeline"} <= COMMANDS
    from lore.cli import LAZY_COMMANDS

    assert set(COMMANDS) <= set(LAZY_COMMANDS)


def scenario(run: Any, root: Path) -> list[tuple[int, bytes, bytes]]:
    """A session's commands against ``root``: what each printed and how it ended."""
    steps = [
        ("capture", "Chose SQLite for the cache because: one file", "--json"),
        ("remember", "Use orjson for the logs because: speed vs: json", "-q"),
        ("learn", "Retry the flaky upload", "--solution", "back off and retry"),
        ("fail", "NonZeroExit", "pytest exited 1 in tests/test_io.py"),
        ("observe", "The CI cache is cold on Mondays"),
        ("recall", "SQLite cache"),
        ("recall", "SQLite", "--json"),
        ("recall", "zzzz-nothing-matches"),
        ("resume",),
        ("resume", "--json"),
        ("timeline",),
        ("list", "decisions"),
        ("show", "dec-000000000000"),
        ("recall", "--no-such-option"),
        ("capture", "--help"),
        ("handoff", "Stopped after the cache work"),
    ]
    out = []
    for step in steps:
        done = run("--data-dir", str(root), *step)
        stdout = done.stdout
        for word in (b"dec-", b"pat-", b"fail-", b"obs-", b"session-"):
            stdout = _mask_ids(stdout, word)
        out.append((done.returncode, stdout, _mask_ids(done.stderr, b"session-")))
    return out


def _mask_ids(text: bytes, prefix: bytes) -> bytes:
    """Record ids are random: the same command makes a different one each time."""
    import re

    return re.sub(re.escape(prefix) + rb"[0-9a-f]{12}", prefix + b"ID", text)


def test_a_served_session_answers_as_the_console_script_does(
    served: Served, tmp_path: Path
) -> None:
    served.start()
    before = len(served.lines())
    by_server = scenario(served.run, tmp_path / "a")
    _wait_for(lambda: len(served.lines()) - before == 16)  # the server ran every step
    alone = scenario(lambda *a: served.run(*a, served=False), tmp_path / "b")
    for step, (mine, theirs) in enumerate(zip(by_server, alone)):
        assert mine == theirs, f"step {step}"
    codes = [code for code, _, _ in by_server]
    assert codes == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 0, 0]
    # the same records on disk, line for line (ids aside)
    for path in sorted((tmp_path / "a").rglob("*.jsonl")):
        twin = tmp_path / "b" / path.relative_to(tmp_path / "a")
        assert len(path.read_bytes().splitlines()) == len(twin.read_bytes().splitlines())


def test_the_worker_has_the_clients_stdin_folder_environment_and_umask(
    served: Served, tmp_path: Path
) -> None:
    served.start()
    work = tmp_path / "elsewhere"
    work.mkdir()
    before = len(served.lines())
    done = served.run(
        "--data-dir",
        "rel-root",  # relative: to the client's working folder
        "capture",
        "-",
        "--json",
        input=b"Piped from stdin: the deploy needs VPN",
        stdin=None,
        cwd=work,
        env={"LORE_NOW": "2026-05-06T07:08:09Z", "LORE_PROJECT": "atlas"},
        preexec_fn=lambda: os.umask(0o077),
    )
    assert done.returncode == 0, done.stderr
    record = orjson.loads(done.stdout)["record"]
    assert record["content"] == "Piped from stdin: the deploy needs VPN"
    assert record["timestamp"] == "2026-05-06T07:08:09.000000Z"
    assert record["project"] == "atlas"
    files = [p for p in (work / "rel-root").rglob("*.jsonl") if p.stat().st_size]
    assert files, "nothing written under the client's working folder"
    assert {oct(p.stat().st_mode & 0o777) for p in files} == {oct(0o600)}
    _wait_for(lambda: len(served.lines()) == before + 1)


def test_exit_status_and_streams_are_the_commands(served: Served, tmp_path: Path) -> None:
    served.start()
    before = len(served.lines())
    done = served.run("--data-dir", str(tmp_path / "r"), "show", "dec-000000000000", "--json")
    assert done.returncode == 3
    assert orjson.loads(done.stdout)["ok"] is False
    done = served.run("--data-dir", str(tmp_path / "r"), "recall", "--bogus")
    assert done.returncode == 2
    assert b"No such option" in done.stderr and done.stdout == b""
    _wait_for(lambda: len(served.lines()) == before + 2)
    assert [line.split()[3:5] for line in served.lines()[-2:]] == [
        ["exit", "3"],
        ["exit", "2"],
    ]


def test_a_signal_to_the_client_reaches_the_worker(served: Served, tmp_path: Path) -> None:
    """``capture -`` waits on stdin; SIGTERM to the client ends the worker, and the client
    ends by the same signal; nothing was recorded."""
    served.start()
    root = tmp_path / "r"
    env = {**served.env, "LORE_STDIN_TIMEOUT": "60"}
    _wait_for(lambda: not _workers(served))  # start()'s last worker has ended
    proc = subprocess.Popen(
        [LORE, "--data-dir", str(root), "capture", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    _wait_for_worker(served, set())
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)  # stdin still open: the worker cannot have ended on its own
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGTERM, err
    _wait_for(lambda: "signal 15" in served.lines()[-1])
    assert not any(p.stat().st_size for p in root.rglob("*.jsonl"))


def test_a_killed_client_takes_its_worker_with_it(served: Served, tmp_path: Path) -> None:
    served.start()
    root = tmp_path / "r"
    env = {**served.env, "LORE_STDIN_TIMEOUT": "60"}
    _wait_for(lambda: not _workers(served))
    proc = subprocess.Popen(
        [LORE, "--data-dir", str(root), "capture", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    _wait_for_worker(served, set())
    proc.kill()
    proc.wait(timeout=30)
    _wait_for(lambda: "signal 9" in served.lines()[-1])
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.close()
    proc.stdout.close()
    assert not any(p.stat().st_size for p in root.rglob("*.jsonl"))


def _workers(served: Served) -> set[str]:
    [pid] = served.pids()
    return set(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())


def _wait_for_worker(served: Served, before: set[str]) -> None:
    """Until the server has a new worker running (a child process of the server) that
    waits on its stdin."""

    def waiting() -> bool:
        for child in _workers(served) - before:
            stat = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
            if stat[0] == "S":  # asleep: reading the pipe
                return True
        return False

    _wait_for(waiting)


def _wait_for(check: Any) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(IndexError, FileNotFoundError):
            if check():
                return
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_concurrent_captures_through_one_server(served: Served, tmp_path: Path) -> None:
    served.start()
    root = tmp_path / "r"
    procs = [
        subprocess.Popen(
            [LORE, "--data-dir", str(root), "observe", f"Concurrent observation number {i}"],
            env=served.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        for i in range(8)
    ]
    assert [p.communicate(timeout=60) and p.returncode for p in procs] == [0] * 8
    done = served.run("--data-dir", str(root), "list", "observations", "--json")
    texts = sorted(r["content"] for r in orjson.loads(done.stdout))
    assert texts == sorted(f"Concurrent observation number {i}" for i in range(8))


def test_off_means_no_server(tmp_path: Path) -> None:
    server = Served(tmp_path)
    for _ in range(3):
        assert server.run("list", "goals", served=False).returncode == 0
    time.sleep(0.3)
    assert not list(server.cache.glob("cmdserver/*.sock"))
    assert server.lines() == []


def test_a_dead_servers_socket_is_replaced(served: Served) -> None:
    served.start()
    [pid] = served.pids()
    os.kill(pid, signal.SIGKILL)
    _wait_for(lambda: not Path(f"/proc/{pid}").exists() or _zombie(pid))
    assert list(served.cache.glob("cmdserver/*.sock"))  # left behind by the killed server
    done = served.run("list", "goals", "--json")  # runs by itself, starts a new server
    assert done.returncode == 0 and orjson.loads(done.stdout) == []
    served.start()
    assert served.pids() and served.pids() != [pid]


def _zombie(pid: int) -> bool:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"


def test_code_changed_on_disk_is_never_run(tmp_path: Path) -> None:
    """A copy of lore, run as a console script: after one of its files changes, the old
    server refuses (and goes away), and the command runs on the new code."""
    import lore

    copy = tmp_path / "site"
    shutil.copytree(
        Path(lore.__file__).parent, copy / "lore", ignore=shutil.ignore_patterns("__pycache__")
    )
    script = tmp_path / "bin" / "lore"
    script.parent.mkdir()
    script.write_text(
        f"#!{sys.executable}\nimport sys\nfrom lore.launch import main\nsys.exit(main())\n"
    )
    script.chmod(0o755)
    server = Served(tmp_path)
    env = {**server.env, "PYTHONPATH": str(copy)}

    def run() -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(script), "--data-dir", str(tmp_path / "r"), "list", "goals"],
            capture_output=True,
            env=env,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )

    try:
        run()
        _wait_for(lambda: run() and len(server.lines()) >= 1)
        time.sleep(0.5)  # the server logs a command after its client ended
        served_before = len(server.lines())
        [old] = server.pids()
        messages = copy / "lore" / "cli" / "records.py"
        text = messages.read_text()
        messages.write_text(text + "\n# changed\n")
        done = run()
        assert done.returncode == 0
        time.sleep(0.5)
        assert len(server.lines()) == served_before  # refused: it ran in the console script
        _wait_for(lambda: not Path(f"/proc/{old}").exists() or _zombie(old))
    finally:
        server.stop()


def test_every_warm_up_names_a_function_that_runs() -> None:
    """The server's warm-up list (lore.cmdserver.code.WARM) stays in step with the modules
    it names: each entry is a function that runs without arguments."""
    from importlib import import_module

    from lore.cmdserver.code import WARM

    for module, function in WARM:
        getattr(import_module(module), function)()


def test_the_server_knows_its_own_socket_file(tmp_path: Path) -> None:
    """The server's periodic look (is the socket file still mine?) compares the file's
    identity as bound, not the socket's descriptor (whose inode is the socket's own): it
    must say yes while the file is there, and no once another server bound its own."""
    from lore.cmdserver.server import Server
    from lore.storage.localsock import identity, listen

    listener = listen(str(tmp_path), "k.sock", 0o177)
    server = object.__new__(Server)
    server.where, server.key, server.mine = tmp_path, "k", identity(str(tmp_path / "k.sock"))
    try:
        assert server._socket_is_ours()
        other = listen(str(tmp_path), "k.sock", 0o177)  # unlinks the file and binds a new one
        assert not server._socket_is_ours()
        other.close()
    finally:
        listener.close()


def test_a_malformed_request_is_dropped_and_the_server_goes_on(
    served: Served, tmp_path: Path
) -> None:
    """Bytes that are not a request (another program, another protocol, a request too big)
    get no answer but a closed connection; the server serves the next command, and nothing
    was written."""
    import socket

    from lore.storage.localsock import address

    served.start()
    before = len(served.lines())
    where = served.cache / "cmdserver"
    [sock_file] = where.glob("*.sock")  # the one server of this test's cache
    for junk in (b"GET / HTTP/1.0\r\n\r\n", (1 << 30).to_bytes(4, "little") + b"x", b"\x00"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            target, fd = address(str(where), sock_file.name)
            try:
                sock.connect(target)
            finally:
                if fd >= 0:
                    os.close(fd)
            sock.sendall(junk)
            sock.shutdown(socket.SHUT_WR)
            assert sock.recv(64) == b""  # dropped: no pid, no status
    root = tmp_path / "r"
    done = served.run("--data-dir", str(root), "list", "goals", "--json")
    assert done.returncode == 0 and orjson.loads(done.stdout) == []
    _wait_for(lambda: len(served.lines()) == before + 1)  # served by the same server
    assert not root.exists() or not any(p.stat().st_size for p in root.rglob("*.jsonl"))


def test_unset_means_a_server(tmp_path: Path) -> None:
    """On by default: with LORE_COMMAND_SERVER unset a server starts and serves."""
    server = Served(tmp_path)
    server.env.pop("LORE_COMMAND_SERVER")
    try:
        server.start()  # (it raises when no server answers)
        assert server.lines()[-1].split()[2:5] == ["list", "exit", "0"]
    finally:
        server.stop()


class _Descheduled:
    """The client's socket, with the client descheduled right after its request went
    out: meanwhile ``peer`` (the server and a quick worker) answers and goes away."""

    def __init__(self, sock: Any, peer: Any) -> None:
        self.sock, self.peer = sock, peer

    def sendmsg(self, *args: Any) -> int:
        sent = self.sock.sendmsg(*args)
        self.peer()
        return int(sent)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sock, name)


def _hand_over_with(peer_answers: bytes) -> tuple[int | None, bytes]:
    """``client._hand_over`` against a peer that reads the request, answers
    ``peer_answers`` and closes, all before the client goes on: (what it returned, the
    request the peer read)."""
    import socket

    from lore.cmdserver import client

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    got: list[bytes] = []

    def peer() -> None:
        data, fds, _flags, _addr = socket.recv_fds(theirs, 1 << 20, 4)
        for fd in fds:
            os.close(fd)
        got.append(data)
        theirs.sendall(peer_answers)
        theirs.close()

    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    handlers[signal.SIGQUIT] = signal.getsignal(signal.SIGQUIT)
    try:
        answer = client._hand_over(_Descheduled(ours, peer), ["list", "goals"])
    finally:
        ours.close()
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    return answer, got[0]


def _message(tag: bytes, value: int) -> bytes:
    return tag + value.to_bytes(4, "little", signed=True)


def test_a_command_over_before_the_client_goes_on_is_not_run_again() -> None:
    """The race that made a served command's output come twice under a heavy load: the
    worker ran and ended, the server closed, and only then did the client go on. The
    client must take the exit status, never run the command itself (None)."""
    answer, request = _hand_over_with(_message(b"P", 4242) + _message(b"X", 3))
    assert answer == 3
    assert request[4:] and int.from_bytes(request[:4], "little") == len(request) - 4


def test_a_client_that_heard_nothing_runs_the_command_itself() -> None:
    """No P (the worker says it before it runs anything): nothing ran, the console
    script runs the command (None)."""
    assert _hand_over_with(b"")[0] is None
    assert _hand_over_with(_message(b"N", 0))[0] is None
