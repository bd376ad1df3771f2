"""Atomic whole-file replacement: temp file in the same directory, fsync, rename.

A reader sees either the old file or the new one, never a torn mix, and a crash
leaves at worst a stray ``.tmp`` file, never a half-written document. A symlink is
followed (the file it names is replaced, the link stays); a FIFO, a device or a
directory is never replaced (``write_output`` streams into a FIFO or a device).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from lore.storage.links import followed, what


def fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write(
    path: Path,
    data: bytes,
    *,
    exclusive: bool = False,
    sync_dir: bool = True,
    durable: bool = True,
    within: Path | None = None,
) -> None:
    """Replace ``path`` with ``data`` atomically.

    With ``exclusive`` the write fails with ``FileExistsError`` if ``path`` exists
    (a hard link is used instead of a rename, so the check and the write are one step).
    ``sync_dir=False`` leaves the directory's fsync (which makes the new name durable)
    to the caller: a batch of new files needs it once, not once per file. ``durable=False``
    skips every fsync, for machine-local state that is cheap to lose (a crash may leave the
    old file or an empty one, still never a torn mix), written by the hooks. A symlink
    is followed: the file it names is replaced (``within``: only a file under that
    directory, the data root); anything but a regular file raises ``DataError``.
    """
    if not exclusive:
        path = followed(path, within)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temp_file(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
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
    if sync_dir and durable:
        fsync_dir(path.parent)


def write_output(path: Path, data: bytes) -> None:
    """Write an export to ``path``: streamed into a FIFO or a character device (``-o
    /dev/stdout``, a pipe, a terminal), else atomically into the regular file it names
    (through a symlink: the file the link points to; the link stays).

    A directory, a block device or a socket raises ``DataError``.
    """
    try:
        mode = os.stat(path).st_mode  # through every link: what the name reaches
    except OSError:
        mode = None  # a new file, or unreachable: the write itself says why
    real = os.path.realpath(path)
    if mode is not None and (
        stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or real.startswith(("/proc/", "/dev/fd/"))
    ):
        # /dev/stdout is a link to the process's own descriptor: write through it, never
        # replace what it names (a file the shell opened with >>, a terminal, a pipe).
        if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISREG(mode)):
            from lore.errors import DataError

            raise DataError(f"{path} is {what(mode)}: refusing to write to it", file=str(path))
        with open(path, "ab" if stat.S_ISREG(mode) else "wb") as handle:
            handle.write(data)
        return
    atomic_write(path, data)


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
