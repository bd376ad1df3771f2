"""Issue 15, data at risk: `lore sync` beside writers loses nothing. Sync holds the root's
lock while git changes files (writers wait, or time out with exit 5), commits only lore's
own files and never a log that lost lines, and a sync killed mid-rebase is recovered by
the next one while lore refuses writes in between. Real git clones, real processes."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from tests.gitteam import git, isolate_git, lore, team

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

Run = Callable[..., Result]
LORE = Path(sys.executable).parent / "lore"
FORK = multiprocessing.get_context("fork")


@pytest.fixture(autouse=True)
def identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate_git(monkeypatch, tmp_path)


def ids(root: Path) -> set[str]:
    from lore.store.core import Store

    return {r.id for r in Store(root).all_records(hidden=True)}


# --- writers beside a sync loop -----------------------------------------------------------


WRITES = 6  # acknowledged writes each writer makes at least, however loaded the machine


def _writer(root: str, out: str, until: float, worker: int) -> None:
    """Capture until ``until`` and WRITES acknowledged writes; note each one's id in ``out``."""
    os.environ["LORE_LOCK_TIMEOUT"] = "5"
    from lore.capture.core import capture
    from lore.errors import LoreError
    from lore.store.core import Store

    store = Store(root)
    with open(out, "a", encoding="utf-8") as acked:
        i = written = 0
        while time.monotonic() < until or written < WRITES:
            i += 1
            kind = ("observation", "failure")[i % 2]
            fields = {"error_type": "Timeout"} if kind == "failure" else None
            try:
                done = capture(
                    store,
                    f"w{worker} item {i} {os.urandom(4).hex()}",
                    kind=kind,
                    fields=fields,
                    force=True,
                )
            except LoreError:
                continue  # refused or timed out: never acknowledged, so never owed
            acked.write(done.record.id + "\n")
            acked.flush()
            written += 1


def _syncer(root: str, mode: str, writing: Any) -> None:
    """Sync again and again while the writers write (until ``writing`` is cleared)."""
    os.environ["LORE_LOCK_TIMEOUT"] = "20"
    from lore.errors import LoreError
    from lore.git.sync import sync

    while writing.is_set():
        try:
            sync(Path(root), mode=mode)
        except LoreError:
            time.sleep(0.05)


@pytest.mark.parametrize("mode", ["merge", "rebase"])
def test_records_written_beside_a_sync_loop_are_never_lost(
    run: Run, tmp_path: Path, mode: str
) -> None:
    clones = team(run, tmp_path, 2)
    until = time.monotonic() + 3.0
    writing = FORK.Event()
    writing.set()
    writers, syncers = [], []
    for c, clone in enumerate(clones):
        for w in range(2):
            out = tmp_path / f"acked-{c}-{w}"
            writers.append(FORK.Process(target=_writer, args=(str(clone), str(out), until, w)))
        syncers.append(FORK.Process(target=_syncer, args=(str(clone), mode, writing)))
    for proc in [*writers, *syncers]:
        proc.start()
    for proc in writers:
        proc.join(120)
    writing.clear()
    for proc in syncers:
        proc.join(120)
    for proc in [*writers, *syncers]:
        if proc.exitcode is None:  # a hang: end it, and fail below
            proc.kill()
            proc.join()
    assert [proc.exitcode for proc in [*writers, *syncers]] == [0] * 6
    acked = set()
    for file in tmp_path.glob("acked-*"):
        acked |= set(file.read_text().split())
    assert len(acked) > 20  # the writers did write while the syncs ran
    for clone in [*clones, clones[0]]:  # a, b, a: every clone ends with the union
        lore(run, clone, "sync", f"--{mode}")
    for clone in clones:
        assert acked <= ids(clone), sorted(acked - ids(clone))[:5]
        assert git(clone, "status", "--porcelain", "--untracked-files=no") == ""
        assert lore(run, clone, "validate")["errors"] == 0


def test_a_write_waits_for_sync_and_times_out_with_exit_5(tmp_path: Path) -> None:
    from lore.storage.lock import root_locked

    root = tmp_path / "root"
    root.mkdir()
    env = {**os.environ, "LORE_DATA_DIR": str(root), "LORE_LOCK_TIMEOUT": "0.3"}
    with root_locked(root, exclusive=True, why="lore sync is running git there"):
        done = subprocess.run(
            [sys.executable, "-m", "lore", "observe", "while syncing"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 5
    assert done.stderr.startswith(
        f"lore: error: timed out after 0.3s waiting for the data root {root} (lore sync or a "
        "move is running there; lock file "
    )
    assert not (root / "inbox" / "data" / "observations.jsonl").exists()


# --- what sync commits --------------------------------------------------------------------


def test_sync_commits_only_lores_own_files(run: Run, tmp_path: Path) -> None:
    root = tmp_path / "solo"
    lore(run, root, "init", "--git")
    lore(run, root, "remember", "Keep it local because: no remote yet")
    lore(run, root, "learn", "Retry", "--solution", "backoff")
    (root / "notes.txt").write_text("my own notes\n")
    (root / "journal" / "data" / "decisions.jsonl.quarantine").write_text('{"text": "x"}\n')
    (root / "patterns" / "data" / "patterns" / "draft.txt").write_text("not a pattern\n")
    lore(run, root, "sync")
    tracked = sorted(git(root, "ls-files").split())
    assert "notes.txt" not in tracked
    assert "journal/data/decisions.jsonl.quarantine" not in tracked
    assert "patterns/data/patterns/draft.txt" not in tracked
    assert "journal/data/decisions.jsonl" in tracked
    assert ".gitattributes" in tracked and ".gitignore" in tracked
    assert [p for p in tracked if p.startswith("patterns/data/patterns/pat-")]
    assert ".lore.lock" not in tracked


def test_sync_refuses_to_commit_a_log_that_lost_lines(run: Run, tmp_path: Path) -> None:
    root = tmp_path / "solo"
    lore(run, root, "init", "--git")
    for i in range(3):
        lore(run, root, "observe", f"note {i}")
    lore(run, root, "sync")
    head = git(root, "rev-parse", "HEAD")
    log = root / "inbox" / "data" / "observations.jsonl"
    first_two = log.read_bytes().splitlines(keepends=True)[:2]
    log.write_bytes(b"".join(first_two))  # something rewrote the log and dropped a record
    lore(run, root, "observe", "a new note")
    refused = lore(run, root, "sync", code=4)
    assert refused["files"] == ["inbox/data/observations.jsonl"]
    assert refused["error"].startswith(
        "refusing to commit: inbox/data/observations.jsonl (1 record) lost lines it held at "
        "the last commit, which would delete those records for every clone;"
    )
    assert git(root, "rev-parse", "HEAD") == head


def test_removing_only_unreadable_lines_is_not_a_loss(run: Run, tmp_path: Path) -> None:
    root = tmp_path / "solo"
    lore(run, root, "init", "--git")
    lore(run, root, "observe", "a note")
    log = root / "inbox" / "data" / "observations.jsonl"
    with log.open("ab") as handle:
        handle.write(b'{"id": "obs-torn", "cont\n')
    lore(run, root, "sync")
    assert lore(run, root, "doctor", "--repair")["ok"] is True
    done = lore(run, root, "sync")
    assert done["committed"]["commit"] is not None


# --- a sync killed in the middle of a rebase ------------------------------------------------


@pytest.mark.skipif(not LORE.exists(), reason="needs the installed lore (.venv/bin/lore)")
def test_a_sync_killed_mid_rebase_is_recovered_and_writes_wait_for_it(
    run: Run, tmp_path: Path
) -> None:
    a, b = team(run, tmp_path, 2)
    lore(run, a, "remember", "Use uv because: fast")
    lore(run, a, "sync")
    mine = {lore(run, b, "observe", f"b note {i}")["id"] for i in range(3)}
    # A hook that hangs once git has started the rebase, so the kill lands inside it (and
    # not, on a slow machine, in git writing its index: the hook says when it runs).
    hook = b / ".git" / "hooks" / "post-checkout"
    started = tmp_path / "hook-started"
    hook.write_text(f"#!/bin/sh\n: > '{started}'\nsleep 60\n")
    hook.chmod(0o755)
    env = {**os.environ, "LORE_DATA_DIR": str(b)}
    proc = subprocess.Popen(
        [str(LORE), "sync", "--rebase"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started.exists(), "the rebase never reached the hook"
    assert (b / ".git" / "rebase-merge").exists(), "the rebase never started"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)
    hook.unlink()
    # git may have died holding its index lock (it did, under load): the recovery must
    # clear a lock its own killed sync left, whatever the timing.
    (b / ".git" / "index.lock").touch()

    refused = run("--data-dir", str(b), "observe", "written while the rebase hangs", "--json")
    assert refused.exit_code == 8
    assert json.loads(refused.stdout)["error"] == (
        f"a lore sync was interrupted in the middle of a git rebase in {b}; lore writes "
        "nothing until it is finished: run `lore sync`, which puts the clone back as it was "
        "before that sync (every record stays) and syncs again"
    )
    recovered = lore(run, b, "sync", "--rebase")
    assert recovered["recovered"] == "rebase"
    assert recovered["pushed"] is True
    assert not (b / ".git" / "rebase-merge").exists()
    assert mine <= ids(b)
    after = lore(run, b, "observe", "after the recovery")["id"]
    lore(run, b, "sync")
    lore(run, a, "sync")
    assert mine | {after} <= ids(a)


def test_git_reasons_keep_the_files_git_names() -> None:
    from lore.git.run import Done, reason

    err = (
        "error: Your local changes to the following files would be overwritten by merge:\n"
        "\tjournal/data/decisions.jsonl\n\tinbox/data/observations.jsonl\n"
        "Please commit your changes or stash them before you merge.\nAborting\n"
    )
    assert reason(Done(1, "", err)) == (
        "Your local changes to the following files would be overwritten by merge: "
        "journal/data/decisions.jsonl, inbox/data/observations.jsonl"
    )
