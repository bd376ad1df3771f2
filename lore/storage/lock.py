"""Exclusive advisory locks on sidecar ``.<name>.lock`` files, with a timeout.

Writers lock a sidecar rather than the data file itself: ``os.replace`` swaps the
inode of a replaced file, so a lock held on the old inode would stop nobody. Every writer
also holds the root's ``.lore.lock`` shared; ``lore sync`` and a move hold it exclusively.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lore.errors import LockTimeoutError

DEFAULT_TIMEOUT = 10.0


def lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


def _timeout() -> float:
    raw = os.environ.get("LORE_LOCK_TIMEOUT")
    try:
        return float(raw) if raw else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT


ROOT_LOCK = ".lore.lock"


@contextmanager
def locked(path: Path, timeout: float | None = None) -> Iterator[None]:
    """Hold an exclusive lock for writing ``path`` (waits up to ``timeout`` seconds)."""
    sidecar = lock_path(path)
    what = f"the lock on {path} (held by another lore process; lock file {sidecar})"
    with _flocked(sidecar, fcntl.LOCK_EX, timeout, what, str(path)):
        yield


@contextmanager
def root_locked(
    root: Path, *, exclusive: bool, timeout: float | None = None, why: str = ""
) -> Iterator[None]:
    """Hold the root's lock: shared by every writer, exclusive for whoever must see the
    whole root still (``lore sync`` running git, a move copying it)."""
    sidecar = root / ROOT_LOCK
    what = f"the data root {root} ({why or 'another lore process holds it'}; lock file {sidecar})"
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    with _flocked(sidecar, mode, timeout, what, str(root)):
        yield


@contextmanager
def _flocked(
    sidecar: Path, mode: int, timeout: float | None, what: str, file: str
) -> Iterator[None]:
    limit = _timeout() if timeout is None else timeout
    sidecar.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(sidecar, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        deadline = time.monotonic() + limit
        delay = 0.001
        while True:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeoutError(
                        f"timed out after {limit:g}s waiting for {what}", file=file
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock
