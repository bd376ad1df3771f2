"""The use history: how often each id was recalled or injected on this machine, and when it
was last (the activation model reads it). Each use appends one line to ``usage.log`` (one
small write, never a rewrite); once the log passes FOLD_BYTES it is folded into the summary,
``usage.json``, both in the machine-local directory.

Machine-local by design: a use is a fact of the machine that saw it, so it is never
written into the data root, never committed, and two clones never merge (or conflict on)
each other's counts. An older ``recall-counts.json`` is read once, as recalls.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import orjson

from lore.paths import DataRoot

USAGE_FILE = "usage.json"  # the summary: {id: [recalled, injected, last use]}
LOG_FILE = "usage.log"  # one line a use: "r|i <epoch seconds> <id> <id> ..."
COUNTS_FILE = "recall-counts.json"  # before usage.json: {id: recalls}
FOLD_BYTES = 64 * 1024  # the log is folded into the summary once it is this long
HOW = ("recalled", "injected")
_TAG = {"recalled": "r", "injected": "i"}


class Use:
    """One id's use here. (A plain class, not a NamedTuple: making one costs start-up
    time, and resume and recall load this module.)"""

    __slots__ = ("injected", "last", "recalled")

    def __init__(self, recalled: int, injected: int, last: float) -> None:
        self.recalled = recalled
        self.injected = injected
        self.last = last  # epoch seconds of the last use (0: unknown)

    @property
    def total(self) -> int:
        return self.recalled + self.injected

    def as_list(self) -> list[Any]:
        return [self.recalled, self.injected, self.last]


def usage_path(root: DataRoot) -> Path:
    return root.local / USAGE_FILE


def log_path(root: DataRoot) -> Path:
    return root.local / LOG_FILE


def counts_path(root: DataRoot) -> Path:
    return root.local / COUNTS_FILE


def usage(root: DataRoot) -> dict[str, Use]:
    """Every id used on this machine: recalls, injections and the last use (the caller only
    reads it: a long-lived process gets the same dictionary back, brought up to date).

    A process keeps what it read: while the summary and a fold's leftover are as they were
    and the log only grew, only the lines appended since are read (a warm ``lore mcp``
    recall does not parse the whole log again)."""
    path, log = usage_path(root), log_path(root)
    folding = log.with_name(f".{LOG_FILE}.folding")
    key = (_stamp(path), _stamp(folding), _stamp(counts_path(root)))
    now = _stamp(log)
    kept = _KEPT.get(str(log))
    if kept is not None and kept[0] == key and now is not None and kept[1] is not None:
        (ino, size), table = kept[1], kept[2]
        if now[0] == ino and now[1] >= size:
            if now[1] > size:
                touched: set[str] = set()
                size += _read_log(log, size, table, touched)
                top = _TOP.get(id(table))
                if top is not None and touched:  # counts only grow: the most used moves up
                    _TOP[id(table)] = max(top, *(table[rid].total for rid in touched))
                _KEPT[str(log)] = (key, (ino, size), table)
            return table
    table = _summary(root)
    _read_log(folding, 0, table)  # (a fold in progress)
    read = _read_log(log, 0, table) if now is not None else 0
    old = _KEPT.get(str(log))
    if old is not None:
        _TOP.pop(id(old[2]), None)
    _KEPT[str(log)] = (key, (now[0], read) if now is not None else None, table)
    return table


def most_used(root: DataRoot, table: dict[str, Use] | None = None) -> int:
    """The largest use count (recalled and injected) of any id here (0: none), kept with
    the process's reading of the history, so a long-lived process does not go through
    every id for it on every query. ``table``: ``usage(root)``, if read already."""
    if table is None:
        table = usage(root)
    top = _TOP.get(id(table))
    if top is None:
        top = _TOP[id(table)] = max((u.total for u in table.values()), default=0)
    return top


# A process's last reading of a root's history: (the summary's, a fold's leftover's and the
# old counts' stamps), (the log's inode, how many of its bytes were read), the table.
_KEPT: dict[str, tuple[Any, tuple[int, int] | None, dict[str, Use]]] = {}
_TOP: dict[int, int] = {}  # id of a kept table -> its largest use count (``most_used``)


def recall_counts(root: DataRoot) -> dict[str, int]:
    """How often each id was used (recalled or injected) on this machine."""
    return {rid: use.total for rid, use in usage(root).items()}


def note_recalled(root: DataRoot, ids: list[str]) -> bool:
    """Count ``ids`` as recalled once more, now; best effort, never raises."""
    return note_used(root, ids, "recalled")


def note_used(root: DataRoot, ids: list[str], how: str = "recalled") -> bool:
    """Count ``ids`` as used once more (``how``: recalled or injected), now: one appended
    line. Best effort, never raises (a history that cannot be written only loses the
    nicety). Prompt injection calls it with ``injected``."""
    kept = [rid for rid in ids if rid and not any(c.isspace() for c in rid)]
    if not kept:
        return True
    from lore import clock

    path = log_path(root)
    try:
        when = clock.now_datetime().timestamp()
        line = f"{_TAG['injected' if how == 'injected' else 'recalled']} {when!r} {' '.join(kept)}"
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
    """Move the log's uses into ``usage.json`` (under a lock, the log renamed first, so
    lines appended meanwhile go to a new log and are never lost)."""
    from lore.storage.atomic import atomic_write
    from lore.storage.lock import locked

    log, path = log_path(root), usage_path(root)
    folding = log.with_name(f".{LOG_FILE}.folding")
    with locked(path, timeout=0.5):
        if not folding.exists():
            try:
                os.replace(log, folding)
            except FileNotFoundError:
                return
        table = _summary(root)
        _read_log(folding, 0, table)
        data = {k: v.as_list() for k, v in table.items()}
        atomic_write(path, orjson.dumps(data, option=orjson.OPT_SORT_KEYS), sync_dir=False)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(folding)


def _summary(root: DataRoot) -> dict[str, Use]:
    """``usage.json`` as a table (a fresh one); without it, the older recall counts."""
    try:
        data = orjson.loads(usage_path(root).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        data = None
    if not isinstance(data, dict):
        return {rid: Use(n, 0, 0.0) for rid, n in _old_counts(root).items()}
    out: dict[str, Use] = {}
    for rid, value in data.items():
        if (
            isinstance(value, list)
            and len(value) == 3
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        ):
            out[rid] = Use(int(value[0]), int(value[1]), float(value[2]))
    return out


def _old_counts(root: DataRoot) -> dict[str, int]:
    try:
        data = orjson.loads(counts_path(root).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}


def _read_log(
    path: Path, start: int, table: dict[str, Use], touched: set[str] | None = None
) -> int:
    """Add the uses of ``path``'s whole lines from byte ``start`` on to ``table`` (the ids
    added to ``touched``, if given); how many bytes that was (a line still being written is
    left for next time). A line that does not parse is skipped."""
    try:
        with open(path, "rb") as handle:
            handle.seek(start)
            data = handle.read()
    except OSError:
        return 0
    end = data.rfind(b"\n") + 1
    for line in data[:end].decode("utf-8", "replace").splitlines():
        words = line.split()
        if len(words) < 3 or words[0] not in ("r", "i"):
            continue
        try:
            when = float(words[1])
        except ValueError:
            continue
        injected = words[0] == "i"
        if touched is not None:
            touched.update(words[2:])
        for rid in words[2:]:
            use = table.get(rid)
            if use is None:
                table[rid] = Use(0 if injected else 1, 1 if injected else 0, when)
            else:
                use.recalled += not injected
                use.injected += injected
                use.last = max(use.last, when)
    return end


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)
