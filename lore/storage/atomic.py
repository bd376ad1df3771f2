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


def atomic_write(path: Path, data: bytes, *, exclusive: bool = False) -> None:
    """Replace ``path`` with ``data`` atomically.

    With ``exclusive`` the write fails with ``FileExistsError`` if ``path`` exists
    (a hard link is used instead of a rename, so the check and the write are one step).
    """
    # Imported here: tempfile pulls in shutil, random and the compression modules,
    # and appending to a log (the usual capture) never replaces a whole file.
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        if exclusive:
            os.link(tmp, path)
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)
