"""lore.storage.lock: sidecar flocks that time out with exit code 5 and survive os.replace."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from lore.errors import EXIT_LOCK_TIMEOUT, LockTimeoutError
from lore.storage import jsonl
from lore.storage.lock import lock_path, locked

FORK = multiprocessing.get_context("fork")


def _hold(path: str, ready: Any, release: Any) -> None:
    with locked(Path(path), timeout=60):
        ready.set()
        release.wait(120)  # the test sets it; the bound only ends a child the test forgot


@contextmanager
def held_by_child(path: Path) -> Iterator[multiprocessing.process.BaseProcess]:
    """A child process holding the lock on ``path`` until the block ends."""
    ready, release = FORK.Event(), FORK.Event()
    child = FORK.Process(target=_hold, args=(str(path), ready, release))
    child.start()
    try:
        assert ready.wait(60), "child never took the lock"
        yield child
    finally:
        release.set()
        child.join(60)
    assert child.exitcode == 0


def test_sidecar_is_dot_name_dot_lock(tmp_path: Path) -> None:
    data = tmp_path / "journal" / "data" / "decisions.jsonl"

    assert lock_path(data) == tmp_path / "journal" / "data" / ".decisions.jsonl.lock"
    with locked(data, timeout=1):
        assert lock_path(data).is_file()
        assert not data.exists()  # locking never creates the data file
    assert sorted(p.name for p in data.parent.iterdir()) == [".decisions.jsonl.lock"]


class Clock:
    """lore.storage.lock's ``time``, made exact: only its own sleeps move the clock, so how
    long it waited does not depend on how loaded the machine is."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        time.sleep(0)  # let the holder run


def test_second_holder_times_out_with_exit_code_5_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lore.storage.lock

    data = tmp_path / "decisions.jsonl"
    clock = Clock()
    with held_by_child(data), monkeypatch.context() as patch:
        patch.setattr(lore.storage.lock, "time", clock)
        with pytest.raises(LockTimeoutError) as caught, locked(data, timeout=0.2):
            pytest.fail("the lock was taken twice")

    error = caught.value
    # It tried again and again, backing off up to 0.05 s between tries, and gave up at the
    # first try past its 0.2 s: not before, and not a whole back-off step after.
    waited = sum(clock.sleeps)
    assert 0.2 <= waited < 0.2 + 0.05
    assert clock.sleeps[:3] == [0.001, 0.002, 0.004] and max(clock.sleeps) == 0.05
    assert error.exit_code == EXIT_LOCK_TIMEOUT == 5
    assert error.code == "lock_timeout"
    assert str(data) in error.message
    assert str(lock_path(data)) in error.message
    assert error.message.startswith("timed out after 0.2s waiting for the lock on ")
    assert error.details == {"file": str(data)}
    assert error.to_dict() == {
        "ok": False,
        "error": error.message,
        "code": "lock_timeout",
        "file": str(data),
    }


def test_lock_timeout_env_is_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_LOCK_TIMEOUT", "0.1")
    data = tmp_path / "x.jsonl"
    with held_by_child(data), pytest.raises(LockTimeoutError, match=r"after 0\.1s"):
        jsonl.append(data, [{"id": "never"}])
    assert not data.exists()


def test_lock_is_free_again_after_the_holder_exits(tmp_path: Path) -> None:
    data = tmp_path / "x.jsonl"
    with held_by_child(data):
        pass
    with locked(data, timeout=0):  # one try: no wait at all for a free lock
        pass


def test_lock_is_released_when_the_block_raises(tmp_path: Path) -> None:
    data = tmp_path / "x.jsonl"
    with pytest.raises(RuntimeError), locked(data, timeout=0.5):
        raise RuntimeError("boom")
    with locked(data, timeout=0.1):
        pass


def test_locking_survives_the_data_file_being_replaced(tmp_path: Path) -> None:
    data = tmp_path / "patterns.yaml"
    data.write_text("old: 1\n")
    with held_by_child(data):
        replacement = tmp_path / "tmp.yaml"
        replacement.write_text("new: 2\n")
        before = data.stat().st_ino
        os.replace(replacement, data)
        assert data.stat().st_ino != before  # a new inode: a lock on the data file would vanish
        with pytest.raises(LockTimeoutError), locked(data, timeout=0.1):
            pytest.fail("the lock was lost when the file was replaced")
    assert data.read_text() == "new: 2\n"
