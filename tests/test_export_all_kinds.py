"""Issue 15, data at risk: `lore export` writes every kind, with its history, and `lore
import` restores it exactly. export -> import into an empty root -> export is
byte-identical, and resume, goal list, registry list and the graph read the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]
LORE = Path(sys.executable).parent / "lore"
NOW = "2026-03-10T12:00:00.000000Z"


def ok(run: Run, *args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, (args, result.stderr)
    return json.loads(result.stdout)


def populate(run: Run) -> dict[str, str]:
    """Every kind, with revisions, pattern events, a goal's criteria and a handoff."""
    ids: dict[str, str] = {}
    ids["pattern"] = ok(run, "learn", "Retry flaky calls", "--solution", "backoff")["id"]
    ids["decision"] = ok(run, "remember", "Use SQLite", "-r", f"per {ids['pattern']}")["id"]
    ok(run, "review", "--resolve", ids["decision"], "--outcome", "successful")
    ok(run, "patterns", "flag", ids["pattern"], "--reason", "slow in CI", "--type", "obsolete")
    ok(run, "patterns", "validate", ids["pattern"])
    ids["anti"] = ok(run, "patterns", "warn", "Sleep in tests", "--symptom", "s", "--fix", "f")[
        "id"
    ]
    ids["failure"] = ok(run, "fail", "Timeout", "pytest took 10m")["id"]
    ids["observation"] = ok(run, "observe", "CI cache is cold on Mondays")["id"]
    ok(run, "retract", ids["observation"], "--reason", "not true")
    ids["evidence"] = ok(run, "evidence", "add", "bench: 3x", "--supports", ids["decision"])["id"]
    ids["concept"] = ok(run, "graph", "add", "concept", "Data root", "--definition", "where")["id"]
    ids["edge"] = ok(run, "graph", "link", ids["decision"], ids["concept"], "--relation", "uses")[
        "id"
    ]
    ids["goal"] = ok(run, "goal", "create", "Ship v1", "--criterion", "tests green")["id"]
    ok(run, "goal", "update", ids["goal"], "--add-criterion", "docs", "--met", "docs")
    ok(run, "registry", "add", "billing", "--description", "the billing service")
    ok(run, "registry", "add", "search", "--depends-on", "billing")
    ids["session"] = ok(run, "handoff", "Sync fixed", "--next", "ship it")["id"]
    return ids


@pytest.mark.skipif(not LORE.exists(), reason="needs the installed lore (.venv/bin/lore)")
def test_every_kind_round_trips_exactly(
    run: Run, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    ids = populate(run)
    env = {**os.environ, "LORE_NOW": NOW}

    def lore(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
        done = subprocess.run(
            [str(LORE), "--data-dir", str(root), *args], env=env, capture_output=True, timeout=60
        )
        assert done.returncode == 0, (args, done.stderr)
        return done

    first = lore(data_dir, "export").stdout
    kinds = [(o["kind"], o.get("_op")) for o in map(json.loads, first.splitlines())]
    for kind in ("edge", "goal", "session", "project", "concept", "anti-pattern"):
        assert (kind, None) in kinds, kind
    assert ("decision", "revise") in kinds and ("pattern", "event") in kinds
    backup = tmp_path / "backup.jsonl"
    backup.write_bytes(first)
    empty = tmp_path / "restored"
    lore(empty, "import", str(backup))
    assert lore(empty, "export").stdout == first
    for args in (
        ("resume", "--json"),
        ("goal", "list", "--json"),
        ("registry", "list", "--json"),
        ("graph", "export", "--format", "json"),
        ("show", ids["pattern"], "--json"),
        ("show", ids["decision"], "--json"),
        ("list", "observations", "--all", "--json"),
    ):
        there, here = lore(data_dir, *args).stdout, lore(empty, *args).stdout
        assert here == there.replace(str(data_dir).encode(), str(empty).encode()), args
    pattern = json.loads(lore(empty, "show", ids["pattern"], "--json").stdout)
    assert (pattern["validations"], pattern["confidence"]) == (2, 0.6)  # review + validate


def test_export_kind_takes_every_kind(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    populate(run)
    for kind, plural in (
        ("goal", "goals"),
        ("session", "sessions"),
        ("project", "projects"),
        ("edge", "edges"),
        ("concept", "concepts"),
        ("anti-pattern", "anti-patterns"),
    ):
        for name in (kind, plural):
            result = run("export", "--kind", name)
            assert result.exit_code == 0, result.stderr
            assert {json.loads(x)["kind"] for x in result.stdout.splitlines()} == {kind}


def test_an_interrupted_import_of_history_finishes_when_run_again(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    populate(run)
    backup = tmp_path / "backup.jsonl"
    assert run("export", "-o", str(backup)).exit_code == 0
    other = tmp_path / "other"
    import lore.bulk.history as history

    real = history.write
    monkeypatch.setattr(history, "write", lambda *_: (_ for _ in ()).throw(KeyboardInterrupt))
    stopped = run("--data-dir", str(other), "import", str(backup))
    assert stopped.exit_code != 0  # the records are written, their history is not
    monkeypatch.setattr(history, "write", real)
    again = run("--data-dir", str(other), "import", str(backup), "--json")
    assert again.exit_code == 0, again.stderr
    assert json.loads(again.stdout)["history"] == 5  # review, retraction; 3 pattern events
    assert run("--data-dir", str(other), "export").stdout_bytes == backup.read_bytes()


def test_history_lines_are_checked_like_everything_else(run: Run, tmp_path: Path) -> None:
    decision = ok(run, "remember", "Use SQLite")["id"]
    bad = tmp_path / "bad.jsonl"
    lines = [
        {"kind": "decision", "_op": "revise", "id": "dec-000000000000", "timestamp": NOW,
         "set": {"outcome": "successful"}},
        {"kind": "decision", "_op": "revise", "id": decision, "timestamp": NOW,
         "set": {"outcome": "great"}},
        {"kind": "decision", "_op": "revise", "id": decision, "timestamp": "soon", "set": {}},
        {"kind": "goal", "_op": "revise", "id": "goal-000000000000", "timestamp": NOW,
         "set": {}},
        {"kind": "decision", "_op": "revise", "id": decision, "timestamp": NOW,
         "set": {"lesson_learned": "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}},
    ]  # fmt: skip
    bad.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run("import", str(bad), "--json")
    assert result.exit_code == 4
    errors = [i["error"] for i in json.loads(result.stdout)["invalid"]]
    assert errors[0] == "revise line for dec-000000000000, which is neither stored nor in this file"
    assert errors[1].startswith("outcome must be one of pending, successful")
    assert errors[2] == "timestamp is not an ISO-8601 time ('soon')"
    assert errors[3] == "a goal keeps no revision lines"
    assert "GitHub token" in errors[4]
    assert len(ok(run, "show", decision, "--history")["history"]) == 1  # nothing was written
