"""The freshness guarantee: a change to a data file, by lore, git or a person's editor
writing in place, is seen by the very next command that reads it, through every derived
file (the index, the timeline's kept answers, the graph snapshot), with the root's watcher
daemon and without one."""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.freshness_scene import DAY, NOW, PROJECT, Scene

LORE = str(Path(sys.executable).with_name("lore"))
READERS: list[tuple[list[str], str]] = [
    (["recall", "{word}"], "check_recall"),
    (["resume"], "check_resume"),
    (["timeline", DAY], "check_timeline"),
    (["graph", "query", "{word}"], "check_graph"),
]


def rounds(scene: Scene, cli: Callable[..., Any]) -> None:
    """Warm every derived file; then for each reader: let time pass (the folders' last
    change an hour ago, as in a real store, so no folder looks freshly changed), read, make
    the three changes and read once more: that read must show them all."""
    for args, _ in READERS:
        cli(*(a.replace("{word}", scene.word) for a in args))
    for args, check in READERS:
        age(scene.root)
        cli(*(a.replace("{word}", scene.word) for a in args))
        word = scene.change()
        doc = cli(*(a.replace("{word}", word) for a in args))
        getattr(scene, check)(doc)


def age(root: Path) -> None:
    then = time.time() - 3600
    for folder in [root, *root.glob("*/data"), *root.glob("*/data/*/")]:
        os.utime(folder, (then, then))


@pytest.fixture
def now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    monkeypatch.setenv("LORE_PROJECT", PROJECT)


def test_every_reader_sees_each_change_without_a_watcher(
    run: Any, data_dir: Path, now: None
) -> None:
    def cli(*args: str) -> Any:
        result = run(*args, "--json")
        assert result.exit_code == 0, result.output
        return orjson.loads(result.stdout)

    scene = Scene(data_dir, cli)
    scene.setup()
    rounds(scene, cli)


def installed(env: dict[str, str]) -> Callable[..., Any]:
    """The installed ``lore`` with ``env``: each call's ``--json`` answer (exit 0 asserted)."""

    def cli(*args: str) -> Any:
        done = subprocess.run(
            [LORE, *args, "--json"], capture_output=True, env=env, stdin=subprocess.DEVNULL,
            timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr.decode()
        return orjson.loads(done.stdout)

    return cli


@pytest.fixture
def daemons(tmp_path: Path) -> Iterator[Path]:
    """The cache folder the CLI uses; the daemons started in it are stopped at the end."""
    cache = tmp_path / "cache"
    yield cache
    for lock in [*cache.glob("*/watch.lock"), *cache.glob("cmdserver/*.lock")]:
        fd = os.open(lock, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            continue  # nobody holds it: that daemon is gone (its pid may be another's now)
        except BlockingIOError:
            pid = int(lock.read_text().strip())
        finally:
            os.close(fd)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


def test_every_reader_sees_each_change_through_the_watcher_daemon(
    data_dir: Path, now: None, daemons: Path
) -> None:
    env = {**os.environ, "LORE_WATCH": "1", "LORE_CACHE_DIR": str(daemons)}

    cli = installed(env)

    scene = Scene(data_dir, cli)
    scene.setup()
    cli("recall", "zebra")  # the first read starts the root's daemon
    deadline = time.monotonic() + 60
    while not list(daemons.glob("*/watch.sock")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(daemons.glob("*/watch.sock")), "no watcher daemon started"
    status = cli("index", "status")
    assert status["watched"] is True
    rounds(scene, cli)
    assert cli("index", "status")["watched"] is True  # every read asked the daemon


def test_every_reader_sees_each_change_through_the_command_server(
    data_dir: Path, now: None, daemons: Path, tmp_path: Path
) -> None:
    """The same rounds with every read a worker of the command server (lore.cmdserver),
    which forks from a process that has been running all along: nothing it holds is read
    as the records' truth."""
    log = tmp_path / "cmdserver.log"
    env = {
        **os.environ,
        "LORE_WATCH": "1",
        "LORE_COMMAND_SERVER": "1",
        "LORE_COMMAND_SERVER_LOG": str(log),
        "LORE_CACHE_DIR": str(daemons),
    }

    cli = installed(env)

    scene = Scene(data_dir, cli)
    scene.setup()
    deadline = time.monotonic() + 60
    while not log.exists() and time.monotonic() < deadline:
        cli("recall", "zebra")  # the first read starts the server; the next ones it serves
        time.sleep(0.05)
    assert log.exists(), "no command server answered"
    served = len(log.read_text().splitlines())
    rounds(scene, cli)
    time.sleep(0.5)  # a command is logged after its client ended
    # every read but the graph's (which the console script runs itself) went to the server
    assert len(log.read_text().splitlines()) - served >= 3 * (len(READERS) - 1)


def test_deletion_creation_and_rename_are_seen_through_the_watcher_daemon(
    data_dir: Path, now: None, daemons: Path
) -> None:
    """A pattern file deleted, brought back by git (a creation), replaced by an editor that
    writes a new file and renames it over the old one, and a second pattern written by hand:
    each seen by the very next recall, resume and timeline, every read answered by the
    daemon (not by checking every file)."""
    env = {**os.environ, "LORE_WATCH": "1", "LORE_CACHE_DIR": str(daemons)}

    cli = installed(env)

    scene = Scene(data_dir, cli)
    scene.setup()
    cli("recall", "zebra")  # the first read starts the root's daemon
    deadline = time.monotonic() + 60
    while not list(daemons.glob("*/watch.sock")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert cli("index", "status")["watched"] is True
    file, text = scene.pattern_file, scene.pattern_file.read_text(encoding="utf-8")

    def seen(names: list[str]) -> None:
        recalled = [r["name"] for r in cli("recall", "caching")["results"] if "name" in r]
        assert sorted(recalled) == sorted(names)
        assert sorted(p["name"] for p in cli("resume")["patterns"]) == sorted(names)
        shown = {r["title"] for r in cli("timeline", DAY)["records"]}
        assert shown & {"Use zebra caching", "Use yak caching", "Use emu caching"} == set(names)

    seen(["Use zebra caching"])
    age(data_dir)
    file.unlink()  # deleted
    seen([])
    scene.git("checkout", "-q", "HEAD", "--", str(file))  # created again, by git
    seen(["Use zebra caching"])
    age(data_dir)
    spare = file.with_name(file.name + ".swp")  # an editor's new file, renamed over the old
    spare.write_text(text.replace("Use zebra caching", "Use yak caching"), encoding="utf-8")
    os.replace(spare, file)
    seen(["Use yak caching"])
    other = file.with_name("pat-" + "e" * 12 + ".yaml")  # a new file written by hand
    other.write_text(
        text.replace(scene.pattern, "pat-" + "e" * 12).replace(
            "Use zebra caching", "Use emu caching"
        ),
        encoding="utf-8",
    )
    seen(["Use yak caching", "Use emu caching"])
    assert cli("index", "status")["watched"] is True
