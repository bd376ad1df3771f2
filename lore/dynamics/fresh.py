"""The quick staleness answer resume, recall and prompt injection use: does a file a record
names still hold the bytes it was captured with, in the checkout at hand? No git process:
each file's blob id is kept in the machine-local folder, keyed by its size, mtime and
inode, so an edit (or a checkout that rewrote it) is seen and an unchanged file is never
read twice. ``lore stale`` (``lore.dynamics.stale``) gives the full answer from git.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from lore.capture.anchors import blob_id, uses_sha256
from lore.dynamics.tally import write_cache

CACHE = "blobs.json"
MAX_ENTRIES = 50_000  # files remembered; beyond that the cache starts again


class Blobs:
    """Blob ids of files, remembered by (size, mtime_ns, inode) in ``<local>/dynamics/``."""

    def __init__(self, local: Path) -> None:
        self.path = local / "dynamics" / CACHE
        self._table: dict[str, list[Any]] | None = None
        self.changed = False

    @property
    def table(self) -> dict[str, list[Any]]:
        if self._table is None:
            try:
                data = orjson.loads(self.path.read_bytes())
            except (OSError, orjson.JSONDecodeError):
                data = None
            self._table = data if isinstance(data, dict) else {}
        return self._table

    def blob(self, path: Path | str, *, sha256: bool = False) -> str | None:
        """The blob id of the file at ``path`` now; None when there is no such file."""
        from lore.capture.anchors import MAX_BYTES

        try:
            st = os.stat(path)
        except OSError:
            return None
        if not _regular(st.st_mode) or st.st_size > MAX_BYTES:
            return None
        key = str(path)
        stamp = [st.st_size, st.st_mtime_ns, st.st_ino, "sha256" if sha256 else "sha1"]
        cached = self.table.get(key)
        if isinstance(cached, list) and len(cached) == 5 and cached[:4] == stamp:
            return str(cached[4])
        try:
            with open(path, "rb") as handle:
                blob = blob_id(handle.read(), sha256=sha256)
        except OSError:
            return None
        if len(self.table) >= MAX_ENTRIES:
            self.table.clear()
        self.table[key] = [*stamp, blob]
        self.changed = True
        return blob

    def save(self) -> None:
        """Write the table back if it moved on (best effort: it is only a cache)."""
        if not self.changed or self._table is None:
            return
        write_cache(self.path, orjson.dumps(self._table))
        self.changed = False


def _regular(mode: int) -> bool:
    import stat

    return stat.S_ISREG(mode)


class Checker:
    """Answers "is this record stale?" for records of one project in one checkout.

    ``project``: records of another project are never checked against this checkout
    (their ``src/db.py`` is another file); a record with no project is. Paths recorded
    relative to a repository are looked up under ``repo`` (default: the repository
    around the working directory); absolute paths (files outside any repository) as
    they are.
    """

    def __init__(self, local: Path, *, project: str | None = None, repo: Any = False) -> None:
        if repo is False:
            from lore.git.info import find_repo

            repo = find_repo()
        self.repo = repo
        self.project = project
        self.blobs = Blobs(local)
        self._sha256: bool | None = None

    @property
    def sha256(self) -> bool:
        if self._sha256 is None:
            self._sha256 = self.repo is not None and uses_sha256(self.repo.git_dir)
        return self._sha256

    def applies(self, project: str | None) -> bool:
        """Whether records of ``project`` are checked here."""
        return not project or not self.project or project == self.project

    def changed(self, anchors: Iterable[Any]) -> list[str]:
        """The recorded paths whose file no longer holds the recorded bytes (changed,
        moved away or gone); paths this checkout cannot answer for are left out."""
        out = []
        for entry in anchors:
            path, blob = _entry(entry)
            if not path:
                continue
            where = Path(path)
            if not where.is_absolute():
                if self.repo is None:
                    continue
                where = self.repo.top / path
                now = self.blobs.blob(where, sha256=self.sha256)
            else:
                now = self.blobs.blob(where, sha256=len(blob or "") == 64)
            if now != blob:
                out.append(path)
        return out

    def stale(self, anchors: Iterable[Any], project: str | None = None) -> bool:
        return self.applies(project) and bool(self.changed(anchors))

    def record_stale(self, record: Any) -> list[str]:
        """The stale paths of a record (its ``file_hashes``); empty when fresh or unchecked."""
        anchors = record.extra.get("file_hashes") if hasattr(record, "extra") else None
        if not isinstance(anchors, list) or not self.applies(record.project):
            return []
        return self.changed(anchors)

    def save(self) -> None:
        self.blobs.save()


def _entry(entry: Any) -> tuple[str | None, str | None]:
    """(path, blob) of a ``file_hashes`` item (a dict) or an index anchor (a tuple)."""
    if isinstance(entry, dict):
        path, blob = entry.get("path"), entry.get("blob")
    elif isinstance(entry, (tuple, list)) and len(entry) >= 2:
        path, blob = entry[0], entry[1]
    else:
        return None, None
    return (path if isinstance(path, str) else None), (blob if isinstance(blob, str) else None)


def is_stale(store: Any, record: Any, *, project: str | None = None) -> list[str]:
    """The one call for a single record (prompt injection): its stale paths in the
    checkout around the working directory, empty when fresh or not checkable here."""
    checker = Checker(store.root.local, project=project)
    try:
        return checker.record_stale(record)
    finally:
        checker.save()
