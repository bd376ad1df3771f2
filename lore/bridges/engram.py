"""Engram's SQLite database (``CLAUDE_MEMORY_DB``): finding it, opening it safely and the
shape of lore's shadow memories in it.

lore never alters Engram's schema or triggers and never touches a row it did not write:
its writes go through one connection that registers the functions Engram's triggers call
(``sync_disabled()``), inside one ``BEGIN IMMEDIATE`` transaction with a busy timeout, so
a running Engram sees all of a sync or none of it.
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from lore.errors import DataError, LockTimeoutError

ENV = "CLAUDE_MEMORY_DB"
DEFAULT = "~/.claude/memory.sqlite"
PROJECT = "lore"  # Memory.project of every shadow
SOURCE = "lore-bridge"  # Memory.source of every shadow: the rows lore owns
TOPICS = {
    "decision": "lore-decisions",
    "pattern": "lore-patterns",
    "failure": "lore-failures",
    "session": "lore-sessions",
}
MEMORY_COLUMNS = (
    "id",
    "importance",
    "accessCount",
    "createdAt",
    "lastAccessedAt",
    "project",
    "embedding",
    "source",
    "topic",
    "expiresAt",
    "content",
)
EDGE_COLUMNS = ("id", "createdAt", "relation", "targetId", "sourceId")
# What the functions Engram registers at run time return on lore's connection. Triggers
# guarded by `sync_disabled() = 0` (Engram's audit and vector triggers) then skip lore's
# writes, as they skip a sync Engram applies; plain triggers (full-text) still fire.
FUNCTIONS: dict[str, tuple[int, Any]] = {"sync_disabled": (0, lambda: 1)}
_HASH = re.compile(r" <!-- hash:([0-9a-f]+) -->$")


def path(explicit: str | None = None) -> Path:
    """The database: ``explicit`` (``--db``), else ``$CLAUDE_MEMORY_DB``, else the default."""
    return Path(explicit or os.environ.get(ENV) or DEFAULT).expanduser()


def missing_message(db: Path) -> str:
    return f"no Engram database at {db} (set {ENV} to use another); nothing to do"


def key(record_id: str) -> str:
    """A shadow's de-duplication key: the start of its content."""
    return f"[lore:{record_id}] "


def content(record_id: str, text: str) -> str:
    """A shadow's content: its key, the text, and the hash that tells a changed shadow."""
    body = key(record_id) + " ".join(text.split())
    return f"{body} <!-- hash:{digest(body)} -->"


def digest(body: str) -> str:
    return hashlib.md5(body.encode("utf-8"), usedforsecurity=False).hexdigest()


def stored_hash(text: str) -> str | None:
    found = _HASH.search(text)
    return found.group(1) if found else None


def plain(text: str) -> str:
    """A shadow's text without its key and hash (what recall shows)."""
    text = _HASH.sub("", text)
    return re.sub(r"^\[lore:[^\]]+\] ", "", text)


class Memory(NamedTuple):
    id: int
    importance: int
    accessCount: int  # Engram's column names
    createdAt: float
    lastAccessedAt: float
    project: str
    source: str
    topic: str
    expiresAt: float
    content: str


_SELECT = (
    "SELECT id, importance, accessCount, createdAt, lastAccessedAt, project, source, topic,"
    " expiresAt, content FROM Memory"
)


def memories(conn: sqlite3.Connection, where: str = "", args: tuple[Any, ...] = ()) -> list[Memory]:
    rows = conn.execute(f"{_SELECT} {where}", args).fetchall()
    return [Memory(*row) for row in rows]


@contextmanager
def connect(db: Path, *, write: bool) -> Iterator[sqlite3.Connection]:
    """A connection to Engram's database, checked to be one.

    ``write``: the whole block is one ``BEGIN IMMEDIATE`` transaction (committed when the
    block ends, rolled back if it raises), waiting up to ``LORE_LOCK_TIMEOUT`` seconds
    (default 10) for Engram to let go of the database; otherwise read-only.
    """
    timeout = _timeout()
    uri = f"{db.absolute().as_uri()}?mode={'rw' if write else 'ro'}"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)
    except sqlite3.Error as exc:
        raise DataError(f"{db}: cannot open Engram's database ({exc})", file=str(db)) from None
    try:
        for name, (args, fn) in FUNCTIONS.items():
            conn.create_function(name, args, fn, deterministic=True)
        _check(conn, db)
        if not write:
            yield conn
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise _busy(db, exc, timeout) from None
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise _busy(db, exc, timeout) from None
        if str(exc).startswith("no such function"):  # a trigger needs one only Engram has
            raise DataError(
                f"{db}: one of Engram's triggers calls a function lore does not provide "
                f"({exc}); nothing was written",
                file=str(db),
            ) from None
        raise DataError(f"{db}: {exc}; nothing was written", file=str(db)) from None
    except sqlite3.DatabaseError as exc:
        raise DataError(f"{db}: {exc}; nothing was written", file=str(db)) from None
    finally:
        conn.close()


def _timeout() -> float:
    raw = os.environ.get("LORE_LOCK_TIMEOUT", "")
    try:
        return max(0.0, float(raw)) if raw else 10.0
    except ValueError:
        return 10.0


def _busy(db: Path, exc: Exception, timeout: float) -> LockTimeoutError:
    return LockTimeoutError(
        f"{db}: Engram's database stayed busy for {timeout:g}s ({exc}); nothing was written",
        file=str(db),
    )


def _check(conn: sqlite3.Connection, db: Path) -> None:
    """Engram's ``Memory`` table must have the columns lore reads and writes."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(Memory)")}
    missing = [c for c in MEMORY_COLUMNS if c not in columns]
    if missing:
        what = "has no Memory table" if not columns else f"Memory lacks {', '.join(missing)}"
        raise DataError(f"{db} is not an Engram database: it {what}", file=str(db))


def has_edges(conn: sqlite3.Connection) -> bool:
    columns = {row[1] for row in conn.execute("PRAGMA table_info(Edge)")}
    return all(c in columns for c in EDGE_COLUMNS)


def shadows(conn: sqlite3.Connection) -> dict[str, Memory]:
    """lore's shadows by record id (or failure key); Engram's own rows are never read here."""
    out: dict[str, Memory] = {}
    for memory in memories(conn, "WHERE source = ? AND project = ? ORDER BY id", (SOURCE, PROJECT)):
        found = re.match(r"\[lore:([^\]]+)\] ", memory.content)
        if found:
            out.setdefault(found.group(1), memory)
    return out
