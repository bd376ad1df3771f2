"""The Engram bridge against a database built from Engram's schema (LORE_CONTRACT.md,
``lore engram``), triggers included: sync, update, promote and routed recall; Engram's
own rows, schema and triggers never change."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.bridges import engram
from lore.bridges.routed import classify
from lore.store.core import Store

Run = Callable[..., Result]
COLUMNS = "importance, accessCount, createdAt, lastAccessedAt, project, embedding, source, topic,"
COLUMNS += " expiresAt, content"
SCHEMA = """
CREATE TABLE Memory(id INTEGER PRIMARY KEY AUTOINCREMENT, importance INTEGER NOT NULL,
  accessCount INTEGER NOT NULL, createdAt REAL NOT NULL, lastAccessedAt REAL NOT NULL,
  project TEXT NOT NULL, embedding BLOB NOT NULL, source TEXT NOT NULL, topic TEXT NOT NULL,
  expiresAt REAL NOT NULL, content TEXT NOT NULL);
CREATE TABLE Edge(id INTEGER PRIMARY KEY AUTOINCREMENT, createdAt REAL NOT NULL,
  relation TEXT NOT NULL, targetId INTEGER NOT NULL, sourceId INTEGER NOT NULL);
CREATE TABLE AuditLog(id INTEGER PRIMARY KEY, tableName TEXT, operation TEXT, rowId INTEGER);
CREATE TABLE MemoryText(rowid INTEGER PRIMARY KEY, content TEXT);
-- Engram's audit triggers call a function it registers at run time.
CREATE TRIGGER memory_audit_insert AFTER INSERT ON Memory WHEN (sync_disabled() = 0)
BEGIN INSERT INTO AuditLog(tableName, operation, rowId) VALUES ('Memory', 'INSERT', new.id); END;
CREATE TRIGGER memory_audit_update AFTER UPDATE ON Memory WHEN (sync_disabled() = 0)
BEGIN INSERT INTO AuditLog(tableName, operation, rowId) VALUES ('Memory', 'UPDATE', new.id); END;
CREATE TRIGGER edge_audit_insert AFTER INSERT ON Edge WHEN (sync_disabled() = 0)
BEGIN INSERT INTO AuditLog(tableName, operation, rowId) VALUES ('Edge', 'INSERT', new.id); END;
-- A full-text trigger needs no function: it fires for every write.
CREATE TRIGGER memory_text_insert AFTER INSERT ON Memory
BEGIN INSERT INTO MemoryText(rowid, content) VALUES (new.id, new.content); END;
"""
# Engram's own memories: importance, accessCount, createdAt, project, source, topic,
# expiresAt, content
OWN = [
    (
        4,
        7,
        1784300000.0,
        "orders-api",
        "claude",
        "debugging",
        0.0,
        "Was working on the refund rounding bug in calc.py with Sam",
    ),
    (
        2,
        0,
        1784200000.0,
        "orders-api",
        "claude",
        "preferences",
        0.0,
        "Sam prefers small pull requests and integer cents everywhere",
    ),
    (
        3,
        1,
        1784100000.0,
        "orders-api",
        "claude",
        "debugging",
        1000.0,
        "Expired note about the refund rounding bug",
    ),
]


def build(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    conn.create_function("sync_disabled", 0, lambda: 0)  # Engram's own writes are audited
    for row in OWN:
        conn.execute(
            "INSERT INTO Memory (importance, accessCount, createdAt, lastAccessedAt, project,"
            " embedding, source, topic, expiresAt, content) VALUES (?, ?, ?, ?, ?, x'0102', ?, ?,"
            " ?, ?)",
            (row[0], row[1], row[2], row[2], *row[3:]),
        )
    conn.execute("INSERT INTO Edge (createdAt, relation, targetId, sourceId) VALUES (1, 'x', 2, 1)")
    conn.commit()
    conn.close()
    return path


def open_db(path: Path) -> sqlite3.Connection:
    """A connection as Engram has one: its trigger functions registered."""
    conn = sqlite3.connect(path)
    conn.create_function("sync_disabled", 0, lambda: 0)
    return conn


def snapshot(path: Path) -> dict[str, Any]:
    """The schema, Engram's own rows and everything Engram's triggers wrote."""
    conn = sqlite3.connect(path)
    try:
        return {
            "schema": conn.execute(
                "SELECT type, name, sql FROM sqlite_master ORDER BY name"
            ).fetchall(),
            "own": conn.execute("SELECT * FROM Memory WHERE source != 'lore-bridge'").fetchall(),
            "own_edges": conn.execute("SELECT * FROM Edge WHERE id = 1").fetchall(),
            "audit": conn.execute("SELECT * FROM AuditLog").fetchall(),
        }
    finally:
        conn.close()


def shadows(path: Path) -> dict[str, tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT content, id, importance, accessCount, createdAt, project, embedding, source,"
            " topic, expiresAt FROM Memory WHERE source = 'lore-bridge'"
        ).fetchall()
    finally:
        conn.close()
    return {r[0].split("]")[0][6:]: r for r in rows}


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = build(tmp_path / "memory.sqlite")
    monkeypatch.setenv("CLAUDE_MEMORY_DB", str(path))
    return path


def _json(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


def _records(run: Run) -> dict[str, str]:
    """A decision pair (related), a pattern, three failures of one type, a handoff."""
    ids = {}
    env = {"LORE_NOW": "2026-07-13T10:00:00Z"}
    ids["old"] = _json(
        run("remember", "Use Redis for the catalog cache", "-r", "fast reads", "--json", env=env)
    )["id"]
    ids["new"] = _json(
        run(
            "remember",
            "Keep integer cents for money",
            "-r",
            "no float errors",
            "--related",
            ids["old"],
            "--json",
            env=env,
        )
    )["id"]
    ids["pattern"] = _json(
        run(
            "learn",
            "Idempotency keys for webhooks",
            "--problem",
            "replays",
            "--solution",
            "unique table",
            "--json",
            env=env,
        )
    )["id"]
    for n in range(3):
        run("fail", "Timeout", f"stripe-mock did not start ({n})", env=env)
    ids["session"] = _json(
        run(
            "handoff",
            "Cents done. Next: outbox.",
            "--next",
            "outbox",
            "--json",
            env={"LORE_NOW": "2026-07-13T18:00:00Z"},
        )
    )["id"]
    return ids


def test_sync_writes_shadows_and_leaves_engram_alone(run: Run, db: Path, store: Store) -> None:
    ids = _records(run)
    before = snapshot(db)
    doc = _json(run("engram", "sync", "--json"))
    assert (doc["found"], doc["dry_run"]) == (True, False)
    assert (doc["inserted"], doc["updated"], doc["unchanged"]) == (5, 0, 0)
    assert doc["by_kind"] == {
        "decision": {"inserted": 2, "updated": 0, "unchanged": 0},
        "pattern": {"inserted": 1, "updated": 0, "unchanged": 0},
        "failure": {"inserted": 1, "updated": 0, "unchanged": 0},
        "session": {"inserted": 1, "updated": 0, "unchanged": 0},
    }
    rows = shadows(db)
    assert set(rows) == {
        ids["old"],
        ids["new"],
        ids["pattern"],
        "error-type:Timeout",
        ids["session"],
    }
    body = f"[lore:{ids['new']}] Keep integer cents for money. Why: no float errors"
    content, _, importance, access, created, project, embedding, source, topic, expires = rows[
        ids["new"]
    ]
    assert content == f"{body} <!-- hash:{engram.digest(body)} -->"
    assert (importance, access, project, embedding, source, topic, expires) == (
        3,
        0,
        "lore",
        b"",
        "lore-bridge",
        "lore-decisions",
        0.0,
    )
    assert created == 1783936800.0  # the record's own time, 2026-07-13T10:00:00Z
    assert rows["error-type:Timeout"][0].startswith(
        "[lore:error-type:Timeout] Timeout x3: stripe-mock did not start (2) <!-- hash:"
    )
    assert (rows["error-type:Timeout"][2], rows["error-type:Timeout"][8]) == (2, "lore-failures")
    assert rows[ids["session"]][0].startswith(
        f"[lore:{ids['session']}] Cents done. Next: outbox <!-- hash:"
    )
    assert rows[ids["pattern"]][0].startswith(
        f"[lore:{ids['pattern']}] Idempotency keys for webhooks: replays -> unique table <!--"
    )
    # Schema, triggers, Engram's own rows and its audit trail are exactly as before: the
    # sync_disabled()-guarded triggers skipped lore's writes, the full-text one fired.
    assert snapshot(db) == before
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM MemoryText").fetchone() == (3 + 5,)
    edges = conn.execute("SELECT relation, sourceId, targetId FROM Edge WHERE id > 1").fetchall()
    memory = {name: rows[ids[name]][1] for name in ("old", "new", "pattern", "session")}
    assert sorted(edges) == sorted(
        [  # lore's graph edges between two shadowed records
            ("relates_to", memory["new"], memory["old"]),
            ("produces", memory["session"], memory["old"]),
            ("produces", memory["session"], memory["new"]),
            ("produces", memory["session"], memory["pattern"]),
        ]
    )
    assert doc["edges"] == {"inserted": 4, "existing": 0}
    again = _json(run("engram", "sync", "--json"))
    assert (again["inserted"], again["updated"], again["unchanged"]) == (0, 0, 5)
    assert again["edges"] == {"inserted": 0, "existing": 4} and again["shadows"] == []
    assert conn.execute("SELECT count(*) FROM Memory").fetchone() == (3 + 5,)


def test_sync_updates_a_changed_shadow_in_place(run: Run, db: Path) -> None:
    ids = _records(run)
    run("engram", "sync")
    conn = open_db(db)
    conn.execute(
        "UPDATE Memory SET accessCount = 9 WHERE content LIKE ?", (f"[lore:{ids['new']}]%",)
    )
    conn.commit()
    memory_id = shadows(db)[ids["new"]][1]
    assert (
        run("journal", "update", ids["new"], "--rationale", "float dollars lost cents").exit_code
        == 0
    )
    assert run("review", "--resolve", ids["old"], "--outcome", "abandoned").exit_code == 0
    doc = _json(run("engram", "sync", "--json"))
    assert (doc["inserted"], doc["updated"], doc["unchanged"]) == (0, 2, 3)
    assert {(s["id"], s["action"]) for s in doc["shadows"]} == {
        (ids["new"], "updated"),
        (ids["old"], "updated"),
    }
    rows = shadows(db)
    assert rows[ids["new"]][1] == memory_id and rows[ids["new"]][3] == 9  # same row, count kept
    assert "Why: float dollars lost cents <!-- hash:" in rows[ids["new"]][0]
    assert rows[ids["old"]][2] == 0  # abandoned: importance 0
    assert run("retract", ids["new"]).exit_code == 0
    assert run("engram", "sync").exit_code == 0
    assert shadows(db)[ids["new"]][2] == 0  # hidden since: kept, at importance 0


def test_dry_run_kind_and_since(run: Run, db: Path) -> None:
    ids = _records(run)
    before = db.read_bytes()
    dry = _json(run("engram", "sync", "--dry-run", "--kind", "decisions", "--json"))
    assert dry["dry_run"] is True and dry["inserted"] == 2 and list(dry["by_kind"]) == ["decision"]
    assert db.read_bytes() == before
    text = run("engram", "sync", "--dry-run")
    assert text.stdout.rstrip().endswith("(dry run: nothing written)")
    late = _json(run("engram", "sync", "--since", "2026-07-13T12:00:00Z", "--json"))
    assert late["inserted"] == 1 and set(shadows(db)) == {ids["session"]}
    bad = run("engram", "sync", "--kind", "goal")
    assert (
        bad.exit_code == 2 and "engram sync takes decision, pattern, failure, session" in bad.stderr
    )


def test_a_missing_database_is_a_message_and_exit_0(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "nope.sqlite"
    monkeypatch.setenv("CLAUDE_MEMORY_DB", str(missing))
    result = run("engram", "sync")
    assert result.exit_code == 0 and result.stdout == ""
    assert f"lore: no Engram database at {missing}" in result.stderr
    doc = _json(run("engram", "sync", "--json"))
    assert (doc["found"], doc["inserted"]) == (False, 0)
    assert _json(run("engram", "promote", "3", "--json"))["promoted"] == []
    assert not missing.exists()


def test_a_foreign_or_busy_database_writes_nothing(
    run: Run, db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t(x)").connection.commit()
    result = run("engram", "sync", "--db", str(other))
    assert (
        result.exit_code == 4
        and "is not an Engram database: it has no Memory table" in result.stderr
    )
    _records(run)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # Engram is writing
    before = snapshot(db)
    monkeypatch.setenv("LORE_LOCK_TIMEOUT", "0.2")
    busy = run("engram", "sync", "--json")
    assert busy.exit_code == 5 and json.loads(busy.stdout)["code"] == "lock_timeout"
    holder.execute("ROLLBACK")
    assert snapshot(db) == before and shadows(db) == {}


def test_a_trigger_calling_an_unknown_function_stops_the_sync_whole(run: Run, db: Path) -> None:
    _records(run)
    conn = sqlite3.connect(db)
    conn.execute(
        "CREATE TRIGGER memory_vec AFTER INSERT ON Memory"
        " BEGIN INSERT INTO AuditLog(tableName) VALUES (embed_text(new.content)); END"
    )
    conn.commit()
    before = snapshot(db)
    result = run("engram", "sync")
    assert result.exit_code == 4
    assert "calls a function lore does not provide (no such function: embed_text)" in result.stderr
    assert snapshot(db) == before and shadows(db) == {}  # rolled back: nothing written


def test_promote_copies_a_memory_through_the_capture_path(run: Run, db: Path, store: Store) -> None:
    before = snapshot(db)
    doc = _json(run("engram", "promote", "1", "--json"))
    assert doc["promoted"][0]["engram_id"] == 1 and doc["promoted"][0]["created"] is True
    record = store.get(doc["promoted"][0]["id"]).to_dict()
    assert record["content"] == "Was working on the refund rounding bug in calc.py with Sam"
    assert (record["status"], record["source"], record["tags"]) == (
        "raw",
        "engram",
        ["engram", "debugging"],
    )
    assert record["timestamp"] == "2026-07-17T14:53:20.000000Z"  # the memory's createdAt
    assert (record["engram_id"], record["engram_topic"], record["engram_project"]) == (
        1,
        "debugging",
        "orders-api",
    )
    again = run("engram", "promote", "1")
    assert again.stdout == f"memory 1 was already promoted: {record['id']}\n"
    assert len(store.records("observation")) == 1
    assert snapshot(db) == before  # only read
    missing = run("engram", "promote", "2", "99")
    assert missing.exit_code == 3 and "no Engram memory with id 99" in missing.stderr
    assert len(store.records("observation")) == 1  # 2 was not promoted either


def test_promote_refuses_shadows_and_secrets(run: Run, db: Path, store: Store) -> None:
    _records(run)
    run("engram", "sync")
    shadow = min(row[1] for row in shadows(db).values())
    refused = run("engram", "promote", str(shadow))
    assert refused.exit_code == 4 and "is lore's own shadow" in refused.stderr
    conn = open_db(db)
    conn.execute(
        f"INSERT INTO Memory ({COLUMNS}) VALUES (1, 0, 1, 1, 'p', x'', 'claude', 't', 0, ?)",
        ("deploy token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",),
    )
    conn.commit()
    secret_id = conn.execute("SELECT max(id) FROM Memory").fetchone()[0]
    secret = run("engram", "promote", str(secret_id))
    assert secret.exit_code == 7 and store.records("observation") == []
    assert run("engram", "promote", "x1").exit_code == 2


@pytest.mark.parametrize(
    ("query", "route"),
    [
        ("what was I working on", "engram-first"),
        ("where was I with the refund bug", "engram-first"),
        ("why did we choose integer cents", "lore-first"),
        ("pitfalls of retry decorators", "lore-first"),
        ("what failed yesterday", "lore-first"),
        ("what happened yesterday", "engram-first"),
        ("refund rounding", "both"),
    ],
)
def test_classify(query: str, route: str) -> None:
    assert classify(query)[0] == route


def test_routed_recall_merges_both_stores_marked(run: Run, db: Path) -> None:
    ids = _records(run)
    run("engram", "sync")  # lore's shadows are never answered from Engram's side
    doc = _json(run("recall", "--routed", "what was I working on: refund rounding", "--json"))
    assert (doc["route"], doc["why"]) == ("engram-first", "working on")
    assert doc["engram"] == {"db": str(db), "found": True, "error": None}
    assert [(r["store"], r["id"]) for r in doc["results"]][:1] == [("engram", "engram:1")]
    assert doc["results"][0]["item"]["topic"] == "debugging"
    assert "engram:3" not in [r["id"] for r in doc["results"]]  # expired
    lore_first = _json(run("recall", "--routed", "why integer cents", "--json"))
    stores = [r["store"] for r in lore_first["results"]]
    assert lore_first["route"] == "lore-first" and stores == ["lore", "lore", "engram"]
    assert lore_first["results"][0]["id"] == ids["new"]
    assert lore_first["results"][-1]["id"] == "engram:2"
    assert all(not r["title"].startswith("[lore:") for r in lore_first["results"])
    text = run("recall", "--routed", "why integer cents")
    assert text.stdout.splitlines()[2].endswith(
        "engram  memory 2  Sam prefers small pull requests and integer cents everywhere"
    )
    assert "lore: route: lore-first ('why')" in text.stderr
    combined = run("recall", "--routed", "--brief", "cents")
    assert combined.exit_code == 2


def test_a_promoted_memory_is_answered_once_by_lore(run: Run, db: Path) -> None:
    """Once promoted, a memory is lore's record too: routed recall answers it once, from
    lore (as it does for lore's shadows), not as two results with the same text."""
    promoted = _json(run("engram", "promote", "1", "--json"))["promoted"][0]["id"]
    doc = _json(run("recall", "--routed", "what was I working on: refund rounding", "--json"))
    found = [(r["store"], r["id"]) for r in doc["results"]]
    assert ("lore", promoted) in found
    assert "engram:1" not in [r["id"] for r in doc["results"]]


def test_routed_recall_without_engram_is_lore_alone(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _records(run)
    monkeypatch.setenv("CLAUDE_MEMORY_DB", str(tmp_path / "none.sqlite"))
    doc = _json(run("recall", "--routed", "integer cents", "--json"))
    assert doc["engram"]["found"] is False and doc["route"] == "both"
    assert {r["store"] for r in doc["results"]} == {"lore"}
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t(x)").connection.commit()
    monkeypatch.setenv("CLAUDE_MEMORY_DB", str(other))
    broken = run("recall", "--routed", "integer cents")
    assert broken.exit_code == 0 and "lore    decision" in broken.stdout
    assert "lore: Engram not asked: " in broken.stderr and "not an Engram database" in broken.stderr


def test_a_bash_bridge_shadow_is_taken_over_not_duplicated(run: Run, db: Path) -> None:
    ids = _records(run)
    conn = sqlite3.connect(db)
    conn.create_function("sync_disabled", 0, lambda: 1)
    conn.execute(
        f"INSERT INTO Memory ({COLUMNS}) VALUES (2, 4, 1, 1, 'lore', x'', 'lore-bridge',"
        " 'lore-sessions', 0, ?)",
        (f"[lore:sess-{ids['session']}] old summary",),
    )
    conn.commit()
    doc = _json(run("engram", "sync", "--kind", "session", "--json"))
    assert doc["by_kind"]["session"] == {"inserted": 0, "updated": 1, "unchanged": 0}
    rows = shadows(db)
    assert list(rows) == [ids["session"]] and rows[ids["session"]][3] == 4
