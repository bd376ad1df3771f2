"""Shared fixtures: every test gets its own data root and never touches real data.

The guard at the end of this file moves the whole session into a folder of its own and
fails the run when a test writes the real HOME, XDG folders or temp directory.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from lore.store.core import Store


@pytest.fixture(autouse=True)
def isolation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox_guard: None) -> Path:
    data = tmp_path / "data"
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("LORE_DATA_DIR", str(data))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("LORE_STDIN_TIMEOUT", "0.2")
    # No watcher daemon per test (each would outlive it): reads check every file. The
    # freshness tests turn it on and stop the daemons they start.
    monkeypatch.setenv("LORE_WATCH", "0")
    # Nor a command server (lore.cmdserver): tests/test_cmdserver.py starts its own.
    monkeypatch.setenv("LORE_COMMAND_SERVER", "0")
    # A hook's 0.9 s deadline is for an agent's machine (bench/hooks.py measures it); on a
    # test machine shared with other work it would cut hooks short at random. The tests of
    # the deadline set their own.
    monkeypatch.setenv("LORE_HOOK_SECONDS", "30")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    for name in (
        "LORE_SESSION_ID",
        "LORE_PROJECT",
        "LORE_NOW",
        "XDG_DATA_HOME",
        "XDG_CACHE_HOME",
        "LORE_CACHE_DIR",
        "LORE_DEBUG",
        "CLAUDE_CONFIG_DIR",  # the agents' own folders (lore ingest): never the real ones
        "CODEX_HOME",
        "GEMINI_CLI_HOME",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(work)
    build = importlib.import_module("lore.capture.build")
    build._repo_at.cache_clear()
    build._head_at.cache_clear()
    return data


@pytest.fixture
def data_dir(isolation: Path) -> Path:
    return isolation


@pytest.fixture
def empty_root(data_dir: Path) -> Path:
    """The data root made and empty, as install.sh or `lore init` leave it (a read from a
    root that does not exist also warns on stderr)."""
    data_dir.mkdir(exist_ok=True)
    return data_dir


@pytest.fixture
def store(data_dir: Path) -> Store:
    return Store(data_dir)


@pytest.fixture
def run() -> Callable[..., Result]:
    """Invoke the CLI in-process: run("capture", "text", "--json", input="...")."""
    from lore.cli import cli

    runner = CliRunner()

    def invoke(
        *args: str, input: str | bytes | None = None, env: dict[str, str] | None = None
    ) -> Result:
        return runner.invoke(cli, list(args), input=input, env=env, catch_exceptions=False)

    return invoke


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


os.environ.setdefault("LORE_LOCK_TIMEOUT", "10")

# Compiled once, not in every process: where PYTHONDONTWRITEBYTECODE is set, each pytest
# process (one per core) would rewrite and compile every test module again on every run,
# and each of the hundreds of `lore` processes the tests start would compile lore's
# modules again. So the suite keeps pytest's rewritten test modules (this process writes
# bytecode) and compiles lore once before the tests start (pytest_configure); both go to
# the __pycache__ folders a default Python writes anyway, which git ignores.
sys.dont_write_bytecode = False


# --- The sandbox guard: no test touches the real HOME, XDG folders or temp directory ---
#
# At start-up the session moves into a fresh folder of its own (the sandbox): HOME,
# TMPDIR (so pytest's tmp_path and every tempfile) and the XDG folders point inside it,
# so a test that escapes the isolation above (``monkeypatch.undo()`` undoes it too)
# lands in the session's HOME, never the user's. Three checks catch such a test:
# - an audit hook sees every write this process makes (open for writing, mkdir, rename,
#   remove, symlink, chmod, ...) and records each one under the real HOME, the real XDG
#   folders or the real temp directory (outside the sandbox, pytest's basetemp, this
#   checkout and the venv);
# - after each test, the session's HOME must still be empty, and nothing new may sit at
#   the top of the session's temp folder beside pytest's own (a subprocess, which the
#   audit hook does not see, that ignored its test's tmp_path);
# - each finding fails its test (an error at teardown), and any finding fails the run.
# An audit hook cannot be removed, and the sandbox is nobody else's folder, so other
# processes using /tmp or ~/.cache/lore meanwhile can neither hide a leak nor fake one.
#
# Under pytest-xdist (the default, see pytest_cmdline_main below) the controller makes
# the sandbox and hands each worker its real folders and the sandbox's path; a worker
# gets a HOME and TMPDIR of its own in <sandbox>/workers/<id>, its tmp_path lives in the
# basetemp the controller gave it, and everything else in the sandbox, another worker's
# folders included, counts as outside. Each worker reports its findings to the controller,
# which fails the run and lists them.

GUARD: dict[str, Any] = {"test": "<start-up>", "leaks": [], "zones": (), "allowed": ()}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# event -> (indexes of the path arguments it writes, index of its dir_fd argument)
_WRITE_EVENTS: dict[str, tuple[tuple[int, ...], int | None]] = {
    "open": ((0,), None),
    "os.mkdir": ((0,), 2),
    "os.rename": ((0, 1), 2),
    "os.remove": ((0,), 1),
    "os.rmdir": ((0,), 1),
    "os.symlink": ((1,), 2),
    "os.link": ((1,), None),
    "os.truncate": ((0,), None),
    "os.chmod": ((0,), 2),
    "os.chown": ((0,), 3),
    "os.utime": ((0,), 4),
    "os.mkfifo": ((0,), 2),
    "os.mknod": ((0,), 3),
    "shutil.rmtree": ((0,), 1),
}


def _within(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def _absolute(path: Any, dir_fd: Any) -> str | None:
    if isinstance(path, int) or path is None:
        return None  # an open descriptor: its own open was checked
    try:
        text = os.fsdecode(os.fspath(path))
    except TypeError:
        return None
    if not os.path.isabs(text):
        base = os.getcwd()
        if isinstance(dir_fd, int) and dir_fd >= 0:
            try:
                base = os.readlink(f"/proc/self/fd/{dir_fd}")
            except OSError:
                return None
        text = os.path.join(base, text)
    return os.path.normpath(text)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    spec = _WRITE_EVENTS.get(event)
    if spec is None:
        return
    if event == "open" and not (
        len(args) > 2 and isinstance(args[2], int) and args[2] & _WRITE_FLAGS
    ):
        return
    indexes, fd_at = spec
    dir_fd = args[fd_at] if fd_at is not None and len(args) > fd_at else None
    for index in indexes:
        path = _absolute(args[index], dir_fd) if index < len(args) else None
        if path is None or _within(path, GUARD["allowed"]):
            continue
        if _within(path, GUARD["zones"]) or _within(os.path.realpath(path), GUARD["zones"]):
            GUARD["leaks"].append(f"{GUARD['test']}: {event} {path}")


def _entries(folder: Path) -> set[str]:
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def _cores() -> int:
    """The cores this process may run on (its affinity, as a container or taskset sees it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Run the tests on every core (pytest-xdist), one worker per core; one core, an
    explicit ``-n``, ``-p no:xdist``, ``--pdb``, ``--trace`` or ``-s`` runs them serially here."""
    if not config.pluginmanager.has_plugin("xdist") or hasattr(config, "workerinput"):
        return
    if config.option.numprocesses is not None or config.getoption("tx", None):
        return  # the caller chose (-n 0 is serial)
    if (
        config.getoption("usepdb", False)
        or config.getoption("trace", False)
        or config.getoption("capture", None) == "no"
        or config.getoption("collectonly", False)
    ):
        return
    cores = _cores()
    if cores > 1:
        config.option.numprocesses = cores


def _compile_lore() -> None:
    """Compile lore's modules that are not yet (see sys.dont_write_bytecode above)."""
    import compileall

    import lore

    compileall.compile_dir(os.path.dirname(lore.__file__), quiet=1)


def pytest_configure(config: pytest.Config) -> None:
    import tempfile

    names = ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME")
    worker: dict[str, Any] = getattr(config, "workerinput", {})
    handed: dict[str, Any] | None = worker.get("lore_guard")
    if handed is not None:  # an xdist worker: the controller's sandbox is not ours
        zones = set(handed["zones"]) | {handed["sandbox"]}
        sandbox = Path(handed["sandbox"]) / "workers" / worker["workerid"]
        sandbox.mkdir(parents=True)
    else:
        real_tmp = tempfile.gettempdir()
        zones = {os.path.expanduser("~"), real_tmp, "/tmp", "/var/tmp"}
        zones |= {os.environ[name] for name in names if os.environ.get(name)}
        # Where a developer keeps the npm packages of the Mermaid parser test (AGENTS.md),
        # found before HOME moves: the test only reads it.
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
        os.environ.setdefault(
            "LORE_TEST_NODE_MODULES", os.path.join(cache, "lore-dev", "npm", "node_modules")
        )
        sandbox = Path(tempfile.mkdtemp(prefix="lore-tests-", dir=real_tmp)).resolve()
        _compile_lore()
    (sandbox / "home").mkdir()
    (sandbox / "tmp").mkdir()
    os.environ["HOME"] = str(sandbox / "home")
    os.environ["TMPDIR"] = str(sandbox / "tmp")
    for name in names:
        os.environ.pop(name, None)
    tempfile.tempdir = None  # gettempdir(), and so pytest's tmp_path, now answer the sandbox
    allowed = {str(sandbox), str(config.rootpath), sys.prefix}
    if config.option.basetemp:  # given by xdist to its workers, or by --basetemp
        allowed.add(os.path.abspath(config.option.basetemp))
    GUARD["sandbox"] = sandbox
    GUARD["zones"] = tuple(sorted(zones | {os.path.realpath(z) for z in zones}))
    GUARD["allowed"] = tuple(sorted(allowed | {os.path.realpath(a) for a in allowed}))
    sys.addaudithook(_audit)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist, on the controller: hand a starting worker the real folders and the sandbox."""
    node.workerinput["lore_guard"] = {
        "zones": list(GUARD["zones"]),
        "sandbox": str(GUARD["sandbox"]),
    }


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """xdist, on the controller: a finished worker's findings count for the run."""
    GUARD["leaks"].extend(getattr(node, "workeroutput", {}).get("lore_guard_leaks", []))


@pytest.fixture(autouse=True)
def sandbox_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail the test (at teardown) that wrote outside its own folders."""
    import shutil

    sandbox: Path = GUARD["sandbox"]
    before = _entries(sandbox / "tmp")
    known = len(GUARD["leaks"])
    GUARD["test"] = request.node.nodeid
    yield
    GUARD["test"] = "<between tests>"
    for name in sorted(_entries(sandbox / "home")):
        GUARD["leaks"].append(f"{request.node.nodeid}: wrote the session's HOME: {name}")
        shutil.rmtree(sandbox / "home" / name, ignore_errors=True)  # the next test starts clean
        (sandbox / "home" / name).unlink(missing_ok=True)
    after = _entries(sandbox / "tmp")
    for name in sorted(after - before):
        if not name.startswith("pytest-of-"):
            GUARD["leaks"].append(f"{request.node.nodeid}: left {sandbox / 'tmp' / name}")
    if len(GUARD["leaks"]) > known:
        pytest.fail("wrote outside its sandbox:\n" + "\n".join(GUARD["leaks"][known:]))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    import shutil

    if hasattr(session.config, "workeroutput"):  # an xdist worker: the controller decides
        session.config.workeroutput["lore_guard_leaks"] = list(GUARD["leaks"])
        return
    if GUARD["leaks"]:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    elif exitstatus == 0 and "sandbox" in GUARD:
        shutil.rmtree(GUARD["sandbox"], ignore_errors=True)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if GUARD["leaks"]:
        terminalreporter.section("writes outside the test sandbox", sep="=", red=True)
        for leak in GUARD["leaks"]:
            terminalreporter.write_line(leak)
    elif "sandbox" in GUARD and GUARD["sandbox"].exists():
        terminalreporter.write_line(f"test sandbox kept for inspection: {GUARD['sandbox']}")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop the background processes the run's commands started under its sandbox (a
    command server, a watcher daemon: tests that build an environment of their own may
    leave them on), so that no test outlives the run."""
    import contextlib
    import signal

    sandbox = GUARD.get("sandbox")
    if sandbox is None or hasattr(config, "workerinput"):
        return  # (a worker's sandbox is inside the controller's: it sweeps once for all)
    marker = str(sandbox).encode()
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except OSError:
            continue
        daemon = b"lore.cmdserver.server" in cmdline or b"lore.index.watchd" in cmdline
        if daemon and marker in cmdline:
            with contextlib.suppress(OSError):
                os.kill(int(pid), signal.SIGTERM)
