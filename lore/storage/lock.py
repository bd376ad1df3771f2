"""Exclusive advisory locks on sidecar ``.<name>.lock`` files, with a timeout.

Writers lock a sidecar rather than the data file itself: ``os.replace`` swaps the
inode of a replaced file, so a lock held on the old inode would stop nobody.
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


@contextmanager
def locked(path: Path, timeout: float | None = None) -> Iterator[None]:
    """Hold an exclusive lock for writing ``path`` (waits up to ``timeout`` seconds)."""
    limit = _timeout() if timeout is None else timeout
    sidecar = lock_path(path)
    sidecar.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(sidecar, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + limit
        delay = 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeoutError(
                        f"timed out after {limit:g}s waiting for the lock on {path} "
                        f"(held by another lore process; lock file {sidecar})",
                        file=str(path),
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock
