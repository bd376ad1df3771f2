"""``lore import`` and ``lore export`` end to end: output, exit codes, files, round trips."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import Result

from lore.bulk.importer import import_records
from lore.capture.core import capture
from lore.store.core import Store

Run = Callable[..., Result]
SECRET = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
DEC = {
    "kind": "decision",
    "id": "dec-0123456789ab",
    "timestamp": "2024-05-06T07:08:09.101112Z",
    "decision": "Use orjson",
    "rationale": "fast",
}
FAIL = {
    "kind": "failure",
    "id": "fail-0123456789ab",
    "timestamp": "2024-05-06T07:08:10Z",
    "error_type": "Timeout",
    "message": "took 10m",
}


def jsonl(*objs: dict[str, Any] | bytes) -> str:
    return "".join((o if isinstance(o, bytes) else orjson.dumps(o)).decode() + "\n" for o in objs)


def snapshot(root: Path) -> dict[str, bytes]:
    if not root.exists():
        return {}
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text(jsonl(DEC, FAIL), encoding="utf-8")
    return path


# --- import -------------------------------------------------------------------------------


def test_import_prints_a_summary(run: Run, source: Path, store: Store) -> None:
    result = run("import", str(source))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "imported 2 records (decision 1, failure 1)\n"
    assert result.stderr == ""  # no progress bar when stderr is not a terminal
    assert store.get("fail-0123456789ab").to_dict()["timestamp"] == "2024-05-06T07:08:10.000000Z"
    again = run("import", str(source))
    assert again.stdout == "imported 0 records; skipped 2 existing\n"


def test_import_json_shape(run: Run, source: Path) -> None:
    result = run("import", str(source), "--json")
    assert result.exit_code == 0
    assert orjson.loads(result.stdout) == {
        "ok": True,
        "dry_run": False,
        "imported": 2,
        "by_kind": {"decision": 1, "failure": 1},
        "skipped_existing": 0,
        "skipped_duplicate": 0,
        "invalid": [],
        "ids": ["dec-0123456789ab", "fail-0123456789ab"],
        "history": 0,
        "skipped_history": 0,
    }


def test_import_json_keys_come_in_a_fixed_order(run: Run, source: Path) -> None:
    result = run("import", str(source), "--json", "--dry-run")
    assert list(orjson.loads(result.stdout)) == [  # the contract's order (§8)
        "ok",
        "dry_run",
        "imported",
        "by_kind",
        "skipped_existing",
        "skipped_duplicate",
        "invalid",
        "ids",
        "history",
        "skipped_history",
    ]


def test_progress_bar_only_on_a_terminal_and_never_with_json(
    run: Run, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lore.cli import bulk as cli_bulk

    calls: list[tuple[str, int, int]] = []

    class Recorder(cli_bulk._Bar):
        def __call__(self, phase: str, done: int, total: int) -> None:
            calls.append((phase, done, total))
            super().__call__(phase, done, total)

    monkeypatch.setattr(cli_bulk, "_Bar", Recorder)
    assert run("import", str(source), "--dry-run").exit_code == 0
    assert calls == []  # stderr is not a terminal
    monkeypatch.setattr(cli_bulk, "_is_terminal", lambda stream: True)
    assert run("import", str(source), "--json", "--dry-run").exit_code == 0
    assert calls == []
    result = run("import", str(source))
    assert result.stdout == "imported 2 records (decision 1, failure 1)\n"
    assert calls == [("check", 2, 2), ("write", 0, 2), ("write", 2, 2)]


def test_import_reads_stdin(run: Run, store: Store) -> None:
    result = run("import", "-", input=jsonl({"kind": "observation", "content": "piped ✓"}))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "imported 1 record (observation 1)\n"
    assert [r.content for r in store.records("observation")] == ["piped ✓"]  # type: ignore[attr-defined]


BAD_LINES = [
    DEC,
    b'{"kind": "decision", "rationale": "no text"}',
    b"not json",
    b'{"kind": "foo"}',
    b'{"kind": "decision", "decision": "x", "outcome": "great"}',
    orjson.dumps({"kind": "observation", "content": f"token={SECRET}"}),
]
BAD_REPORT = [
    {"line": 2, "error": "decision is required and must not be empty"},
    {
        "line": 3,
        "error": "invalid JSON: invalid literal, expected 'null': line 1 column 1 (char 0)",
    },
    {
        "line": 4,
        "error": "unknown kind 'foo' (expected one of decision, pattern, anti-pattern, "
        "failure, observation, evidence, concept, edge, goal, session, project)",
    },
    {
        "line": 5,
        "error": "outcome must be one of pending, successful, revised, abandoned (got 'great')",
    },
    {
        "line": 6,
        "error": "observation content looks like it holds a GitHub token (rule github-token); "
        "pass --allow-secret if it is not a real credential",
    },
]
BAD_MESSAGE = (
    "5 of 6 lines are invalid; nothing was imported "
    "(fix them, or pass --skip-invalid to import the valid lines)"
)


@pytest.fixture
def bad_file(tmp_path: Path) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_text(jsonl(*BAD_LINES), encoding="utf-8")
    return path


def test_invalid_lines_write_nothing_and_exit_4(
    run: Run, bad_file: Path, data_dir: Path, store: Store
) -> None:
    import_records(store, [orjson.dumps({"kind": "observation", "content": "before"})])
    before = snapshot(data_dir)
    result = run("import", str(bad_file), "--json")
    assert result.exit_code == 4
    assert orjson.loads(result.stdout) == {
        "ok": False,
        "error": BAD_MESSAGE,
        "code": "invalid",
        "invalid": BAD_REPORT,
    }
    assert snapshot(data_dir) == before
    human = run("import", str(bad_file))
    assert human.exit_code == 4
    assert human.stdout == ""
    assert human.stderr.splitlines() == [
        *(f"lore: warning: line {i['line']}: {i['error']}" for i in BAD_REPORT),
        f"lore: error: {BAD_MESSAGE}",
    ]
    assert snapshot(data_dir) == before


def test_a_bad_line_alone_creates_no_file(run: Run, tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text(jsonl(DEC, {"kind": "failure", "error_type": "bad type!", "message": "m"}))
    result = run("import", str(path))
    assert result.exit_code == 4
    assert "line 2: error_type must be an identifier" in result.stderr
    assert not data_dir.exists()


def test_skip_invalid_imports_the_rest(run: Run, bad_file: Path, store: Store) -> None:
    result = run("import", str(bad_file), "--skip-invalid")
    assert result.exit_code == 0
    assert result.stdout == "imported 1 record (decision 1); skipped 5 invalid lines\n"
    assert result.stderr.splitlines() == [
        f"lore: warning: line {i['line']}: {i['error']}" for i in BAD_REPORT
    ]
    assert [r.id for r in store.records("decision")] == ["dec-0123456789ab"]
    as_json = run("import", str(bad_file), "--skip-invalid", "--json")
    assert orjson.loads(as_json.stdout) == {
        "ok": True,
        "dry_run": False,
        "imported": 0,
        "by_kind": {},
        "skipped_existing": 1,
        "skipped_duplicate": 0,
        "invalid": BAD_REPORT,
        "ids": [],
        "history": 0,
        "skipped_history": 0,
    }


def test_allow_secret(run: Run, tmp_path: Path, store: Store) -> None:
    path = tmp_path / "secret.jsonl"
    path.write_text(jsonl({"kind": "observation", "content": SECRET}))
    assert run("import", str(path)).exit_code == 4
    assert run("import", str(path), "--allow-secret").exit_code == 0
    assert [r.content for r in store.records("observation")] == [SECRET]  # type: ignore[attr-defined]


def test_dry_run_writes_nothing(run: Run, source: Path, data_dir: Path) -> None:
    result = run("import", str(source), "--dry-run")
    assert result.exit_code == 0
    assert result.stdout == (
        "would import 2 records (decision 1, failure 1) (dry run: nothing written)\n"
    )
    assert not data_dir.exists()


def test_duplicates_are_reported_and_force_keeps_them(
    run: Run, tmp_path: Path, store: Store
) -> None:
    capture(store, "Use uv", kind="decision")
    path = tmp_path / "dup.jsonl"
    path.write_text(jsonl({"kind": "decision", "decision": "use UV"}))
    result = run("import", str(path))
    assert result.stdout == "imported 0 records; skipped 1 duplicate\n"
    forced = run("import", str(path), "--force", "--json")
    assert orjson.loads(forced.stdout)["imported"] == 1


def test_missing_file_is_a_usage_error(run: Run, tmp_path: Path) -> None:
    result = run("import", str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 2
    assert "no such file" in result.stderr


# --- export -------------------------------------------------------------------------------


def populate(store: Store) -> None:
    """All seven kinds with awkward text, a revised, a retracted and a superseded record."""
    decision = capture(
        store, "Use orjson because: speed ✓ vs: json, ujson", kind="decision", tags=["perf"]
    ).record
    store.revise(decision.id, {"outcome": "successful", "lesson_learned": "3×\nfaster"})
    newer = capture(store, "Use orjson everywhere", kind="decision", fields={"type": "tooling"})
    store.revise(decision.id, {"status": "superseded", "superseded_by": newer.record.id})
    capture(
        store,
        "Retry 日本語 \"quoted\" 'single'",
        kind="pattern",
        fields={"solution": "backoff\n  then\u2028give up", "examples": ["a, b"], "confidence": 1},
    )
    anti = capture(store, "Sleep in tests 🎉", kind="anti-pattern", fields={"symptom": "yes"})
    store.revise(anti.record.id, {"status": "retracted"})
    capture(store, "pytest\nexit 1\ttab", kind="failure", fields={"error_type": "NonZeroExit"})
    capture(store, "cold cache \u2028 on Mondays \x00", kind="observation")
    capture(store, "bench", kind="evidence", fields={"confidence": "confirmed"})
    capture(store, "Data root", kind="concept", fields={"aliases": ["root", "base"]})
    extra = {"kind": "observation", "content": "with extras", "note": {"n": [1, None, 2.5]}}
    import_records(store, [orjson.dumps(extra)])


def test_round_trip_is_byte_identical(run: Run, store: Store, tmp_path: Path) -> None:
    populate(store)
    first = tmp_path / "first.jsonl"
    assert run("export", "-o", str(first)).exit_code == 0
    lines = [orjson.loads(x) for x in first.read_bytes().splitlines()]
    assert [(x["kind"], x.get("_op")) for x in lines] == [
        ("decision", None),
        ("decision", "revise"),
        ("decision", "revise"),
        ("decision", None),
        ("pattern", None),
        ("anti-pattern", None),
        ("failure", None),
        ("observation", None),
        ("observation", None),
        ("evidence", None),
        ("concept", None),
    ]
    assert lines[0]["outcome"] == "pending" and lines[0]["status"] == "active"  # as created
    assert lines[2]["set"] == {"status": "superseded", "superseded_by": lines[3]["id"]}
    assert lines[8]["note"] == {"n": [1, None, 2.5]}
    other = tmp_path / "other"
    imported = run("--data-dir", str(other), "import", str(first))
    assert imported.stdout.startswith("imported 9 records"), imported.stderr
    assert imported.stdout.endswith(" and 2 history lines\n")
    second = run("--data-dir", str(other), "export")
    assert second.exit_code == 0
    assert second.stdout_bytes == first.read_bytes()
    copy = Store(other)
    assert [r.to_dict() for r in copy.all_records(hidden=True)] == [
        r.to_dict() for r in store.all_records(hidden=True)
    ]
    again = run("--data-dir", str(other), "import", str(first))
    assert again.stdout == (
        "imported 0 records; skipped 9 existing, 2 history lines already stored\n"
    )


def test_export_to_stdout(run: Run, source: Path) -> None:
    run("import", str(source))
    result = run("export")
    assert result.exit_code == 0
    assert [orjson.loads(x)["id"] for x in result.stdout.splitlines()] == [
        "dec-0123456789ab",
        "fail-0123456789ab",
    ]
    assert result.stderr == ""


def test_export_kind_filter_and_active(run: Run, store: Store) -> None:
    populate(store)
    only = run("export", "--kind", "failures", "-k", "concept")
    assert [orjson.loads(x)["kind"] for x in only.stdout.splitlines()] == ["failure", "concept"]
    active = run("export", "--active", "--kind", "decision", "--kind", "anti-pattern")
    assert [orjson.loads(x)["decision"] for x in active.stdout.splitlines()] == [
        "Use orjson everywhere"
    ]
    goals = run("export", "--kind", "goal")  # every kind exports (an empty one: nothing)
    assert (goals.exit_code, goals.stdout) == (0, "")
    bad = run("export", "--kind", "nope")
    assert bad.exit_code == 2


def test_export_to_a_file(run: Run, source: Path, tmp_path: Path) -> None:
    run("import", str(source))
    out = tmp_path / "out.jsonl"
    out.write_text("old content\n")
    result = run("export", "-o", str(out))
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == f"lore: exported 2 records (decision 1, failure 1) to {out}\n"
    assert [orjson.loads(x)["kind"] for x in out.read_bytes().splitlines()] == [
        "decision",
        "failure",
    ]
    as_json = run("export", "-o", str(out), "--json", "--kind", "failure")
    assert orjson.loads(as_json.stdout) == {
        "ok": True,
        "file": str(out),
        "exported": 1,
        "by_kind": {"failure": 1},
        "history": 0,
    }
    assert len(out.read_bytes().splitlines()) == 1
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_export_json_needs_a_file(run: Run) -> None:
    result = run("export", "--json")
    assert result.exit_code == 2
    assert orjson.loads(result.stdout)["code"] == "usage"


def test_export_of_an_empty_root(run: Run, data_dir: Path) -> None:
    result = run("export")
    assert (result.exit_code, result.stdout) == (0, "")
    assert not data_dir.exists()
