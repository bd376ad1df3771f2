"""The recall history: how often each id was among recall's results on this machine, in the
machine-local directory. Each recall appends one line of ids to ``recall-counts.log`` (one
small write, never a rewrite); once the log passes FOLD_BYTES it is folded into the counts
kept in ``recall-counts.json``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import orjson

from lore.paths import DataRoot

COUNTS_FILE = "recall-counts.json"
LOG_FILE = "recall-counts.log"
FOLD_BYTES = 64 * 1024  # the log is folded into the counts once it is this long


def counts_path(root: DataRoot) -> Path:
    return root.local / COUNTS_FILE


def log_path(root: DataRoot) -> Path:
    return root.local / LOG_FILE


def recall_counts(root: DataRoot) -> dict[str, int]:
    """How often each id was among recall's results on this machine (the caller only reads
    it: a long-lived process gets the same dictionary back, brought up to date).

    A process keeps what it read: while the counts file and a fold's leftover are as they
    were and the log only grew, only the lines appended since are read (a warm ``lore
    mcp`` recall does not parse the whole log again)."""
    path, log = counts_path(root), log_path(root)
    folding = log.with_name(f".{LOG_FILE}.folding")
    key = (_stamp(path), _stamp(folding))
    now = _stamp(log)
    kept = _KEPT.get(str(log))
    if kept is not None and kept[0] == key and now is not None and kept[1] is not None:
        (ino, size), counts = kept[1], kept[2]
        if now[0] == ino and now[1] >= size:
            if now[1] > size:
                size += _count(log, size, counts)
                _KEPT[str(log)] = (key, (ino, size), counts)
            return counts
    counts = _folded(path)
    for line in _lines(folding):  # (a fold in progress)
        for rid in line.split():
            counts[rid] = counts.get(rid, 0) + 1
    read = _count(log, 0, counts) if now is not None else 0
    _KEPT[str(log)] = (key, (now[0], read) if now is not None else None, counts)
    return counts


# A process's last reading of a root's history: (the counts file's and a fold's leftover's
# stamps, (the log's inode, how many of its bytes were counted)), the counts.
_KEPT: dict[str, tuple[Any, tuple[int, int] | None, dict[str, int]]] = {}


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _count(path: Path, start: int, counts: dict[str, int]) -> int:
    """Add the ids of ``path``'s whole lines from byte ``start`` on; how many bytes that was
    (a line still being written is left for next time)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(start)
            data = handle.read()
    except OSError:
        return 0
    end = data.rfind(b"\n") + 1
    for line in data[:end].decode("utf-8", "replace").splitlines():
        for rid in line.split():
            counts[rid] = counts.get(rid, 0) + 1
    return end


def note_recalled(root: DataRoot, ids: list[str]) -> bool:
    """Count ``ids`` as recalled once more: one appended line. Best effort, never raises
    (a history that cannot be written only loses the nicety)."""
    line = " ".join(rid for rid in ids if rid and not any(c.isspace() for c in rid))
    if not line:
        return True
    path = log_path(root)
    try:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except FileNotFoundError:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line + "\n").encode("utf-8"))  # one write: lines never interleave
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > FOLD_BYTES:
            fold(root)
    except Exception:  # history is a nicety: it must never fail a recall
        return False
    return True


def fold(root: DataRoot) -> None:
    """Move the log's counts into ``recall-counts.json`` (under a lock, the log renamed
    first, so lines appended meanwhile go to a new log and are never lost)."""
    from lore.storage.atomic import atomic_write
    from lore.storage.lock import locked

    log, path = log_path(root), counts_path(root)
    folding = log.with_name(f".{LOG_FILE}.folding")
    with locked(path, timeout=0.5):
        if not folding.exists():
            try:
                os.replace(log, folding)
            except FileNotFoundError:
                return
        counts = _folded(path)
        for line in _lines(folding):
            for rid in line.split():
                counts[rid] = counts.get(rid, 0) + 1
        atomic_write(path, orjson.dumps(counts, option=orjson.OPT_SORT_KEYS), sync_dir=False)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(folding)


def _folded(path: Path) -> dict[str, int]:
    try:
        data = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}


def _lines(path: Path) -> list[str]:
    try:
        text = path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return []
    return text.splitlines()
