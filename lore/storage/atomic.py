"""Atomic whole-file replacement: temp file in the same directory, fsync, rename.

A reader sees either the old file or the new one, never a torn mix, and a crash
leaves at worst a stray ``.tmp`` file, never a half-written document.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(
    path: Path, data: bytes, *, exclusive: bool = False, sync_dir: bool = True
) -> None:
    """Replace ``path`` with ``data`` atomically.

    With ``exclusive`` the write fails with ``FileExistsError`` if ``path`` exists
    (a hard link is used instead of a rename, so the check and the write are one step).
    ``sync_dir=False`` leaves the directory's fsync (which makes the new name durable)
    to the caller: a batch of new files needs it once, not once per file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temp_file(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if exclusive:
            os.link(tmp, path)
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and not exc.filename:  # a full disk: say which file
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        raise
    if sync_dir:
        fsync_dir(path.parent)


def _temp_file(path: Path) -> tuple[int, str]:
    """A new ``.<name>.<random>.tmp`` beside ``path``, opened for writing.

    Made with the usual file mode (0666 less the umask), like any file a program
    creates; ``tempfile.mkstemp`` would make it private (0600) and cost an import.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(path.parent, f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")
