"""The recall history: how often each id was among recall's results on this machine, in the
machine-local directory. Each recall appends one line of ids to ``recall-counts.log`` (one
small write, never a rewrite); once the log passes FOLD_BYTES it is folded into the counts
kept in ``recall-counts.json``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

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
    """How often each id was among recall's results on this machine."""
    counts = _folded(counts_path(root))
    log = log_path(root)
    for path in (log.with_name(f".{LOG_FILE}.folding"), log):  # (a fold in progress)
        for line in _lines(path):
            for rid in line.split():
                counts[rid] = counts.get(rid, 0) + 1
    return counts


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
