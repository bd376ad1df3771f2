"""Append-only JSONL: locked single-write appends and tolerant, honest reads.

An append is one ``os.write`` of whole lines under the sidecar lock, then fsync; a
failed append cuts the file back to its previous length.
A read never fails on bad lines: it yields the good ones and reports each bad one
with its file and line number; nothing on disk is ever dropped or rewritten.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from lore.storage.links import followed, refuse_special
from lore.storage.lock import locked

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

CONFLICT_MARKERS = (b"<<<<<<<", b"=======", b">>>>>>>", b"|||||||")
BOM = b"\xef\xbb\xbf"  # a UTF-8 byte-order mark: some editors write one; it is not data


class ReadIssue(NamedTuple):
    """A line that could not be read: where it is and why.

    (A NamedTuple rather than a frozen dataclass: dataclasses cost start-up time.)
    """

    file: str
    line: int
    message: str
    code: str  # "torn-line", "parse", "conflict-marker", "not-object"
    severity: str = "error"  # "error" or "warning"

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off the cyclic garbage collector while many long-lived objects are built.

    Reading a log makes a dict per line and keeps them all: every collection the
    allocations trigger walks the growing heap and frees nothing, which is more than
    half the time of reading a 20,000-line log. Nests; restores the previous state.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


MAX_DEPTH = 100  # containers inside containers: deeper data is refused, never walked


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` nests lists and objects more than ``limit`` levels deep (walked
    without recursion, so no depth can crash the check itself)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj)


def encode_lines(objs: Iterable[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(obj) + b"\n" for obj in objs)


def append(
    path: Path,
    objs: Iterable[dict[str, Any]],
    *,
    lock: bool = True,
    timeout: float | None = None,
    within: Path | None = None,
) -> None:
    """Append records as lines, all in one write, under the file's lock.

    ``lock=False`` is for a caller that already holds the lock (a guarded add). A log
    that is a symlink is followed only to a regular file inside ``within`` (the data
    root, when given); a FIFO, a device or a link out of the root raises ``DataError``.
    """
    data = encode_lines(objs)
    if not data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(path, timeout) if lock else nullcontext():
        fd = _open_log(path, within)
        try:
            info = os.fstat(fd)
            refuse_special(path, info.st_mode)
            size = info.st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                # A torn last line (crash mid-write, hand edit): start on a fresh
                # line so the new record is not glued onto the fragment.
                data = b"\n" + data
            try:
                view = memoryview(data)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                os.fsync(fd)
            except BaseException as exc:
                # A full disk (ENOSPC), an I/O error or an interrupt mid-write: cut the
                # file back to where it was, so no partial line outlives the failure.
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, size)
                if isinstance(exc, OSError) and not exc.filename:  # say which file
                    raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
                raise
        finally:
            os.close(fd)


def _open_log(path: Path, within: Path | None) -> int:
    """The log's descriptor, for appending. O_NOFOLLOW costs nothing on the usual regular
    file; only a symlink (ELOOP) is looked at and followed if it may be."""
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT
    try:
        return os.open(path, flags | _NOFOLLOW, 0o644)
    except OSError as exc:
        if not _NOFOLLOW or exc.errno != errno.ELOOP:
            raise
    return os.open(followed(path, within, action="append to"), flags, 0o644)


def read(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], list[ReadIssue]]:
    """All parseable objects as ``(line_number, obj)`` plus the issues found."""
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    except OSError as exc:  # a directory where the log should be, no permission
        why = exc.strerror or str(exc)
        return [], [ReadIssue(str(path), 0, f"cannot read: {why}", "unreadable")]
    return parse(raw, str(path))


def parse(raw: bytes, name: str) -> tuple[list[tuple[int, dict[str, Any]]], list[ReadIssue]]:
    with gc_paused():
        return _parse(raw, name)


def _parse(raw: bytes, name: str) -> tuple[list[tuple[int, dict[str, Any]]], list[ReadIssue]]:
    rows: list[tuple[int, dict[str, Any]]] = []
    issues: list[ReadIssue] = []
    if raw.startswith(BOM):  # the first record is read, not hidden behind the mark
        raw = raw[len(BOM) :]
    lines = raw.split(b"\n")
    torn_tail = bool(lines) and lines[-1] != b""
    last = len(lines)
    loads = orjson.loads
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = loads(line)
        except orjson.JSONDecodeError as exc:
            if line.startswith(CONFLICT_MARKERS):
                issues.append(ReadIssue(name, number, "git conflict marker", "conflict-marker"))
            elif number == last and torn_tail:
                issues.append(
                    ReadIssue(
                        name,
                        number,
                        "incomplete last line (torn write?) skipped",
                        "torn-line",
                        "warning",
                    )
                )
            else:
                issues.append(ReadIssue(name, number, f"invalid JSON: {exc}", "parse"))
            continue
        if not isinstance(obj, dict):
            issues.append(ReadIssue(name, number, "line is not a JSON object", "not-object"))
            continue
        # Only a line with many brackets can nest deeply: the rest skip the walk.
        if line.count(b"[") + line.count(b"{") > MAX_DEPTH and too_deep(obj):
            message = f"nested more than {MAX_DEPTH} levels deep; not read"
            issues.append(ReadIssue(name, number, message, "parse"))
            continue
        rows.append((number, obj))
    return rows, issues


def lines_with_id(path: Path, record_id: str) -> list[tuple[int, dict[str, Any]]]:
    """The objects of the lines whose ``id`` is ``record_id`` (its creation line and its
    revisions), as ``(byte offset, obj)`` in file order, found without parsing the rest
    of the log: one record's few lines in a 100,000-line log cost a search of its bytes.
    A line :func:`read` would skip is skipped; an unreadable log holds none."""
    try:
        raw = path.read_bytes()
    except OSError:
        return []
    needle = orjson.dumps(record_id)  # the id as a JSON string, quotes included
    found: list[tuple[int, dict[str, Any]]] = []
    at = raw.find(needle)
    while at >= 0:
        start = raw.rfind(b"\n", 0, at) + 1
        end = raw.find(b"\n", at)
        end = len(raw) if end < 0 else end
        line = raw[start:end]
        try:
            obj = orjson.loads(line[len(BOM) :] if start == 0 and line.startswith(BOM) else line)
        except orjson.JSONDecodeError:
            obj = None
        deep = line.count(b"[") + line.count(b"{") > MAX_DEPTH and too_deep(obj)
        if isinstance(obj, dict) and obj.get("id") == record_id and not deep:
            found.append((start, obj))
        at = raw.find(needle, end)
    return found


def iter_objects(path: Path) -> Iterator[dict[str, Any]]:
    rows, _ = read(path)
    for _, obj in rows:
        yield obj
