"""Per-transcript watermarks in the machine-local directory (``<local>/ingest/``, never the
data root): the file's identity (device, inode), its size and mtime, the byte offset and
line count read so far, the offset and hash of the last line read, and the reader's and
the session's state. A later run reads only what is new; a file that was replaced (another
inode), truncated (shorter than the offset) or rewritten (the last line's hash differs) is
read from the start, and stable record ids keep that from writing anything twice."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson

from lore.ingest.ids import digest
from lore.storage.atomic import atomic_write

VERSION = 1


def folder(local: Path) -> Path:
    return local / "ingest"


def location(local: Path, transcript: Path) -> Path:
    return folder(local) / f"{digest(str(transcript))[:24]}.json"


def load(file: Path) -> dict[str, Any] | None:
    """The watermark in ``file``, or None (none yet, unreadable, or of another version)."""
    try:
        data = orjson.loads(file.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return data if isinstance(data, dict) and data.get("v") == VERSION else None


def save(file: Path, data: dict[str, Any]) -> None:
    atomic_write(file, orjson.dumps({**data, "v": VERSION}))


def identity(stat: os.stat_result) -> dict[str, int]:
    return {
        "dev": stat.st_dev,
        "ino": stat.st_ino,
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
    }


def unchanged(mark: dict[str, Any] | None, stat: os.stat_result) -> bool:
    """Whether the file is exactly as the watermark left it (no read needed at all)."""
    return mark is not None and all(mark.get(k) == v for k, v in identity(stat).items())


def continues(mark: dict[str, Any] | None, stat: os.stat_result, check: Any) -> bool:
    """Whether reading can go on from the watermark: same file, not shorter, and the last
    line read still reads the same (``check(start, end)`` gives that line's hash now)."""
    if mark is None or mark.get("dev") != stat.st_dev or mark.get("ino") != stat.st_ino:
        return False
    offset = int(mark.get("offset") or 0)
    if stat.st_size < offset:
        return False
    last = mark.get("last") or []
    if len(last) != 2 or mark.get("whole"):
        return not mark.get("whole") and offset == 0
    return bool(check(int(last[0]), offset) == last[1])
