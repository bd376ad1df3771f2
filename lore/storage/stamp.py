"""A cheap change detector for a data file or a folder of documents: what every cache of
the store (and of its events logs) compares before it trusts what it read."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def stamp(path: Path) -> Any:
    """A cheap change detector for a file or a directory of files."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if path.is_dir():  # documents may be edited in place: look at every file
        found = []
        with os.scandir(path) as entries:
            for e in entries:
                # Dot files are another writer's temporary file or lock sidecar: they
                # come and go at any moment, and no record lives in them.
                if e.name.startswith("."):
                    continue
                try:
                    info = e.stat()
                except FileNotFoundError:  # removed while we looked: not there
                    continue
                # The inode too: an atomic replace within one coarse mtime tick keeps
                # the size.
                found.append((e.name, e.inode(), info.st_mtime_ns, info.st_size))
        return tuple(sorted(found))
    return (st.st_mtime_ns, st.st_size, st.st_ino)
