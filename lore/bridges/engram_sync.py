"""``lore engram sync``: lore's durable records as shadow memories in Engram, so that its
per-turn recall sees them; graph edges between shadowed records as Engram ``Edge`` rows.

Shadowed: active decisions (importance 3, 0 when abandoned), active patterns and
anti-patterns (3), error types with 3 or more active failures (2) and closed sessions
with a handoff (2). A record hidden since its shadow was written keeps its shadow at
importance 0. A shadow is rewritten only when its content hash or importance changed;
nothing is ever deleted.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from lore import clock
from lore.bridges import engram
from lore.errors import UsageError
from lore.model import Record
from lore.store.core import Store

KINDS = ("decision", "pattern", "failure", "session")
_ALIASES = {
    "decisions": "decision",
    "patterns": "pattern",
    "anti-pattern": "pattern",
    "anti-patterns": "pattern",
    "failures": "failure",
    "sessions": "session",
}
RECURRING = 3  # failures of one type that make it worth a shadow (the Rule of Three)


class Shadow(NamedTuple):
    """The memory lore wants Engram to hold for one record (or one error type)."""

    key: str  # the record id, or error-type:NAME
    kind: str  # decision, pattern, failure or session (its topic)
    text: str
    importance: int
    created: float  # Unix seconds
    live: bool  # False: only an existing shadow is updated (the record is hidden now)

    @property
    def content(self) -> str:
        return engram.content(self.key, self.text)


@dataclass
class SyncResult:
    db: str
    found: bool
    dry_run: bool
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=lambda: {"inserted": 0, "existing": 0})
    shadows: list[dict[str, Any]] = field(default_factory=list)  # {"id", "memory_id", "action"}

    def to_dict(self) -> dict[str, Any]:
        total = {a: sum(c[a] for c in self.counts.values()) for a in _ACTIONS}
        return {
            "ok": True,
            "db": self.db,
            "found": self.found,
            "dry_run": self.dry_run,
            **total,
            "by_kind": self.counts,
            "edges": self.edges,
            "shadows": self.shadows,
        }


_ACTIONS = ("inserted", "updated", "unchanged")


def kinds_of(names: Sequence[str]) -> tuple[str, ...]:
    out = []
    for name in names:
        kind = _ALIASES.get(name.strip().lower(), name.strip().lower())
        if kind not in KINDS:
            raise UsageError(f"--kind {name!r}: engram sync takes {', '.join(KINDS)}")
        out.append(kind)
    return tuple(dict.fromkeys(out)) or KINDS


def sync(
    store: Store,
    *,
    db: str | None = None,
    since: str | None = None,
    kinds: Sequence[str] = (),
    dry_run: bool = False,
) -> SyncResult:
    """Write and update lore's shadows in Engram's database (see the module docstring)."""
    from lore import timeexpr

    chosen = kinds_of(kinds)
    cutoff = timeexpr.since(since)
    where = engram.path(db)
    result = SyncResult(str(where), where.is_file(), dry_run, {k: _zero() for k in chosen})
    if not result.found:
        return result
    wanted = [s for s in shadows_of(store, chosen) if cutoff is None or s.created >= cutoff]
    with engram.connect(where, write=not dry_run) as conn:
        have = engram.shadows(conn)
        now = clock.now_datetime().timestamp()
        for shadow in wanted:
            existing = have.get(shadow.key) or have.get(_bash_key(shadow))
            action, memory_id = _put(conn, shadow, existing, now, dry_run)
            if action is None:
                continue
            result.counts[shadow.kind][action] += 1
            if action != "unchanged":
                result.shadows.append(
                    {
                        "id": shadow.key,
                        "memory_id": memory_id,
                        "kind": shadow.kind,
                        "action": action,
                    }
                )
        if not dry_run and engram.has_edges(conn):
            result.edges = _edges(store, conn, now)
    return result


def _zero() -> dict[str, int]:
    return dict.fromkeys(_ACTIONS, 0)


def _put(
    conn: sqlite3.Connection,
    shadow: Shadow,
    existing: engram.Memory | None,
    now: float,
    dry_run: bool,
) -> tuple[str | None, int | None]:
    """Insert or update one shadow; ``(action, memory id)``, action None when nothing
    applies (a hidden record that never had a shadow)."""
    topic = engram.TOPICS[shadow.kind]
    if existing is None:
        if not shadow.live:
            return None, None
        if dry_run:
            return "inserted", None
        cursor = conn.execute(
            "INSERT INTO Memory (importance, accessCount, createdAt, lastAccessedAt, project,"
            " embedding, source, topic, expiresAt, content) VALUES (?, 0, ?, ?, ?, ?, ?, ?, 0, ?)",
            (
                shadow.importance,
                shadow.created,
                now,
                engram.PROJECT,
                b"",
                engram.SOURCE,
                topic,
                shadow.content,
            ),
        )
        return "inserted", cursor.lastrowid
    same = engram.stored_hash(existing.content) == engram.stored_hash(shadow.content)
    if same and existing.importance == shadow.importance and existing.topic == topic:
        return "unchanged", existing.id
    if not dry_run:  # only lore's own row, and only what lore decides: text and importance
        conn.execute(
            "UPDATE Memory SET content = ?, importance = ?, topic = ? WHERE id = ? AND source = ?",
            (shadow.content, shadow.importance, topic, existing.id, engram.SOURCE),
        )
    return "updated", existing.id


def _bash_key(shadow: Shadow) -> str:
    """The key the bash implementation's bridge gave the same shadow: its rows are updated
    (and take lore's key) rather than duplicated."""
    if shadow.kind == "session":
        return f"sess-{shadow.key}"
    if shadow.kind == "failure":
        import re

        name = shadow.key.removeprefix("error-type:").lower()
        return "trigger-" + re.sub(r"[^a-z0-9]", "-", name).rstrip("-")
    return shadow.key


def shadows_of(store: Store, kinds: Iterable[str]) -> list[Shadow]:
    """Every shadow lore wants for ``kinds``, oldest first."""
    out: list[Shadow] = []
    for kind in kinds:
        if kind == "decision":
            out.extend(_decision(r) for r in store.records("decision", hidden=True))
        elif kind == "pattern":
            out.extend(_pattern(r) for r in store.records("pattern", hidden=True))
            out.extend(_pattern(r) for r in store.records("anti-pattern", hidden=True))
        elif kind == "failure":
            out.extend(_failures(store.records("failure")))
        else:
            out.extend(s for s in map(_session, store.records("session", hidden=True)) if s)
    return sorted(out, key=lambda s: (s.created, s.key))


def _when(record: Record, value: Any = None) -> float:
    return clock.epoch(value or record.timestamp)


def _decision(record: Record) -> Shadow:
    d = record.to_dict()
    text = _joined(d["decision"], f"Why: {d['rationale']}" if d.get("rationale") else "")
    importance = 0 if record.hidden or d.get("outcome") == "abandoned" else 3
    return Shadow(record.id, "decision", text, importance, _when(record), not record.hidden)


def _pattern(record: Record) -> Shadow:
    d = record.to_dict()
    if record.kind == "pattern":
        parts = [d.get("problem"), d.get("solution")]
        text = d["name"] + (": " + " -> ".join(p for p in parts if p) if any(parts) else "")
    else:
        fix = f" -> fix: {d['fix']}" if d.get("fix") else ""
        text = d["name"] + (f": {d['symptom']}" if d.get("symptom") else "") + fix
    importance = 0 if record.hidden else 3
    return Shadow(record.id, "pattern", text, importance, _when(record), not record.hidden)


def _failures(failures: list[Record]) -> list[Shadow]:
    groups: dict[str, list[Record]] = {}
    for record in failures:
        groups.setdefault(str(getattr(record, "error_type", "")), []).append(record)
    out = []
    for error_type, group in groups.items():
        if len(group) < RECURRING or not error_type:
            continue
        last = sorted(group, key=lambda r: r.timestamp)[-1]  # ties: the last written
        message = str(getattr(last, "error_message", "")).strip().splitlines()
        text = f"{error_type} x{len(group)}" + (f": {message[0]}" if message else "")
        out.append(Shadow(f"error-type:{error_type}", "failure", text, 2, _when(last), True))
    return out


def _session(record: Record) -> Shadow | None:
    d = record.to_dict()
    body = d.get("summary") or d.get("message")
    if d.get("status") != "closed" or not body:
        return None
    steps = "; ".join(d.get("next_steps") or [])
    text = _joined(body, f"Next: {steps}" if steps else "")
    return Shadow(record.id, "session", text, 2, _when(record, d.get("ended_at")), True)


def _joined(text: str, more: str) -> str:
    """``text. more`` (one full stop between them), or ``text`` alone."""
    return f"{text.rstrip(' .')}. {more}" if more else text


def _edges(store: Store, conn: sqlite3.Connection, now: float) -> dict[str, int]:
    """Graph edges (lore's projection) between two shadowed records as ``Edge`` rows, each
    once per (source, target, relation)."""
    from lore.graph.snapshot import open_graph

    ids = {k: m.id for k, m in engram.shadows(conn).items()}
    counts = {"inserted": 0, "existing": 0}
    if len(ids) < 2:
        return counts
    graph = open_graph(store).graph
    present = set(conn.execute("SELECT sourceId, targetId, relation FROM Edge").fetchall())
    for u, v, relation in sorted(graph.edges(keys=True)):
        if u not in ids or v not in ids or ids[u] == ids[v]:
            continue
        row = (ids[u], ids[v], relation)
        if row in present:
            counts["existing"] += 1
            continue
        conn.execute(
            "INSERT INTO Edge (createdAt, relation, targetId, sourceId) VALUES (?, ?, ?, ?)",
            (now, relation, ids[v], ids[u]),
        )
        present.add(row)
        counts["inserted"] += 1
    return counts
