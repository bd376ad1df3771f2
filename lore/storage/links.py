"""What a path to be written names: a regular file (maybe through a symlink), or something
a replace or an append must not touch (a FIFO, a device, a directory, a link that leaves
the data root).

Writes follow a symlink to the file it names, so the link stays; they never replace a
link, a FIFO or a device with a regular file. Inside the data root (``within``), a link
may not lead out of it: a log linked to ``~/.bashrc`` is refused, not appended to.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from lore.errors import DataError


def inside(path: Path, root: Path) -> bool:
    """Whether ``path`` (resolved) lies under ``root`` (resolved)."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))


def what(mode: int) -> str:
    """A file type in words: "a FIFO", "a character device", "a directory", ..."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def followed(path: Path, within: Path | None = None, *, action: str = "replace") -> Path:
    """The file a write to ``path`` goes to: ``path`` itself, or the file its symlink
    names (which may not exist yet). Raises ``DataError`` (exit 4) when that is not a
    regular file, or when ``within`` is given and the link leads outside it."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return path  # missing (a new file), or unreachable: the write itself says why
    if stat.S_ISLNK(mode):
        target = Path(os.path.realpath(path))
        if within is not None and not inside(target, within):
            raise DataError(
                f"{path} is a symbolic link to {target}, outside the data root {within}: "
                "refusing to write through it (replace the link with the file itself)",
                file=str(path),
            )
        try:
            mode = os.stat(target).st_mode
        except OSError:
            return target  # a dangling link: the write creates the file it names
        path = target
    if not stat.S_ISREG(mode):
        raise DataError(
            f"{path} is {what(mode)}, not a regular file: refusing to {action} it",
            file=str(path),
        )
    return path


def refuse_special(path: Path, mode: int) -> None:
    """An append opened ``path`` and found ``mode``: anything but a regular file is refused."""
    if not stat.S_ISREG(mode):
        raise DataError(
            f"{path} is {what(mode)}, not a regular file: refusing to append to it",
            file=str(path),
        )
