"""Copying a directory tree and proving the copy: what a move of the data root is made of.

Regular files are copied with their bytes and mode and fsynced, symbolic links as links
(never followed); the check compares every file's bytes and every link's target.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from lore.storage.atomic import fsync_dir

Skip = Callable[[Path], bool]  # a path relative to the tree's top: leave it out?


def copy_tree(src: Path, dst: Path, skip: Skip) -> list[Path]:
    """Copy ``src`` into the new directory ``dst``; the relative paths of the files and
    links copied, in walk order. Directories are made durable once they are complete."""
    copied: list[Path] = []
    dst.mkdir(parents=False, exist_ok=False)
    for top, dirs, files in os.walk(src, followlinks=False):
        here = Path(top)
        rel_top = here.relative_to(src)
        out = dst / rel_top
        keep_dirs = []
        for name in sorted(dirs):
            rel = rel_top / name
            if skip(rel):
                continue
            if (here / name).is_symlink():  # os.walk lists a link to a directory here
                os.symlink(os.readlink(here / name), out / name)
                copied.append(rel)
                continue
            (out / name).mkdir()
            shutil.copystat(here / name, out / name, follow_symlinks=False)
            keep_dirs.append(name)
        dirs[:] = keep_dirs
        for name in sorted(files):
            rel = rel_top / name
            if skip(rel):
                continue
            source = here / name
            if source.is_symlink():
                os.symlink(os.readlink(source), out / name)
            elif source.is_file():
                _copy_file(source, out / name)
            else:
                continue  # a FIFO or a socket: nothing lore wrote
            copied.append(rel)
        fsync_dir(out)
    return copied


def _copy_file(source: Path, target: Path) -> None:
    with open(source, "rb") as reader, open(target, "xb") as writer:
        shutil.copyfileobj(reader, writer, 1 << 20)
        writer.flush()
        os.fsync(writer.fileno())
    shutil.copystat(source, target)


def first_difference(src: Path, dst: Path, files: list[Path]) -> Path | None:
    """The first of ``files`` whose copy under ``dst`` differs from ``src``'s (bytes, or a
    link's target), else None."""
    for rel in files:
        a, b = src / rel, dst / rel
        if a.is_symlink() or b.is_symlink():
            if not (a.is_symlink() and b.is_symlink()) or os.readlink(a) != os.readlink(b):
                return rel
            continue
        try:
            if not _same_bytes(a, b):
                return rel
        except OSError:
            return rel
    return None


def _same_bytes(a: Path, b: Path) -> bool:
    if a.stat().st_size != b.stat().st_size:
        return False
    with open(a, "rb") as left, open(b, "rb") as right:
        while True:
            x, y = left.read(1 << 20), right.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True
