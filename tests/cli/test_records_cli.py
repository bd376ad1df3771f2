"""``lore show``, ``lore list`` and ``lore retract``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.store.core import Store

Run = Callable[..., Result]
T1, T2, T3 = (f"2026-03-0{d}T10:00:00.000000Z" for d in (1, 2, 3))


def snapshot(root: Path) -> dict[str, bytes]:
    if not root.exists():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def new(run: Run, *args: str, at: str | None = None) -> dict[str, Any]:
    """Capture and return the record (at a given time, if asked)."""
    env = {"LORE_NOW": at} if at else None
    result = run(*args, "--json", env=env)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)["record"]  # type: ignore[no-any-return]


def listed(run: Run, *args: str) -> list[str]:
    result = run("list", *args, "--json")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("\n") == 1
    return [r["id"] for r in json.loads(result.stdout)]


# --- show ----------------------------------------------------------------------------


def test_show_human_output_prints_text_literally(run: Run) -> None:
    record = new(run, "observe", "[red]x[/red] and [bold]y", "-t", "ui", at=T1)
    result = run("show", record["id"])
    assert result.exit_code == 0
    assert result.stdout == (
        f"observation {record['id']}\n"
        f"  timestamp: {T1}\n"
        "  content: [red]x[/red] and [bold]y\n"
        "  status: raw\n"
        "  source: manual\n"
        "  tags: ui\n"
        "  v: 1\n"
    )
    assert result.stderr == ""
    assert "\x1b" not in result.stdout


def test_show_indents_the_lines_of_a_multi_line_value(run: Run) -> None:
    """A value's later lines are indented under it: an observation holding
    ``  before: 420 ms`` must not read as a field of the record."""
    record = new(run, "observe", "Latency (p95):\n  before: 420 ms\n  after: 180 ms", at=T1)
    result = run("show", record["id"])
    assert result.exit_code == 0
    assert result.stdout == (
        f"observation {record['id']}\n"
        f"  timestamp: {T1}\n"
        "  content: Latency (p95):\n"
        "      before: 420 ms\n"
        "      after: 180 ms\n"
        "  status: raw\n"
        "  source: manual\n"
        "  v: 1\n"
    )


def test_show_json_is_the_record(run: Run, data_dir: Path) -> None:
    record = new(run, "remember", "Use X", "-a", "y,z")
    result = run("show", record["id"], "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == record
    line = (data_dir / "journal/data/decisions.jsonl").read_text()
    assert result.stdout == line


def test_show_pattern_from_its_document(run: Run) -> None:
    record = new(run, "learn", "Retry on 429", "--solution", "backoff")
    result = run("show", record["id"], "--json")
    assert json.loads(result.stdout) == record
    history = json.loads(run("show", record["id"], "--history", "--json").stdout)
    assert history == {"record": record, "history": []}


def test_show_unknown_id(run: Run) -> None:
    for record_id in ("dec-000000000000", "nothing", "pat-ffffffffffff"):
        result = run("show", record_id)
        assert result.exit_code == 3
        assert result.stdout == ""
        assert result.stderr == f"lore: error: no record with id '{record_id}'\n"
        result = run("show", record_id, "--json")
        assert json.loads(result.stdout) == {
            "ok": False,
            "error": f"no record with id '{record_id}'",
            "code": "not_found",
            "id": record_id,
        }


def test_show_warns_about_bad_lines(run: Run, data_dir: Path) -> None:
    record = new(run, "observe", "fine")
    path = data_dir / "inbox/data/observations.jsonl"
    with path.open("a") as handle:
        handle.write("{not json\n")
        handle.write(json.dumps({"id": "obs-000000000009", "content": "later"}) + "\n")
    result = run("show", record["id"], "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == record
    assert result.stderr.startswith(f"lore: warning: {path}:2: ")


# --- retract -------------------------------------------------------------------------


def test_retract_decision(run: Run, data_dir: Path) -> None:
    keep = new(run, "remember", "Use black", at=T1)
    record = new(run, "remember", "Use ruff", at=T2)
    assert listed(run, "decisions") == [record["id"], keep["id"]]
    result = run("retract", record["id"], "--reason", "changed our mind", env={"LORE_NOW": T3})
    assert result.exit_code == 0
    assert result.stdout == f"retracted decision {record['id']}\n"
    assert listed(run, "decisions") == [keep["id"]]
    assert listed(run, "decisions", "--all") == [record["id"], keep["id"]]
    shown = json.loads(run("show", record["id"], "--json").stdout)
    assert shown == {
        **record,
        "status": "retracted",
        "retracted_at": T3,
        "retraction_reason": "changed our mind",
    }
    revision = {
        "_op": "revise",
        "id": record["id"],
        "timestamp": T3,
        "set": {"status": "retracted", "retracted_at": T3, "retraction_reason": "changed our mind"},
        "was": {"status": "active"},
    }
    history = json.loads(run("show", record["id"], "--history", "--json").stdout)
    assert history == {"record": shown, "history": [record, revision]}
    lines = (data_dir / "journal/data/decisions.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == [keep, record, revision]
    human = run("show", record["id"], "--history").stdout
    assert "  status: retracted\n" in human
    assert human.endswith(f'history:\n  {T2}  {json.dumps(record, separators=(",", ":"))}\n'
                          f'  {T3}  {{"status":"retracted","retracted_at":"{T3}",'
                          '"retraction_reason":"changed our mind"}\n')  # fmt: skip


def test_retract_twice_is_invalid(run: Run, data_dir: Path) -> None:
    record = new(run, "remember", "Use ruff")
    assert run("retract", record["id"]).exit_code == 0
    before = snapshot(data_dir)
    result = run("retract", record["id"], "--json")
    assert result.exit_code == 4
    assert json.loads(result.stdout) == {
        "ok": False,
        "error": f"{record['id']} is already retracted",
        "code": "invalid",
        "id": record["id"],
    }
    assert result.stderr == f"lore: error: {record['id']} is already retracted\n"
    assert snapshot(data_dir) == before


def test_retract_pattern_edits_its_document(run: Run, data_dir: Path) -> None:
    record = new(run, "learn", "Retry on 429", at=T1)
    path = data_dir / "patterns/data/patterns" / f"{record['id']}.yaml"
    text = path.read_text()
    result = run("retract", record["id"], "--json", env={"LORE_NOW": T2})
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    updated = {**record, "status": "retracted", "retracted_at": T2}
    assert data == {
        "ok": True,
        "id": record["id"],
        "type": "pattern",
        "timestamp": T1,  # the record's own (issue 8)
        "retracted_at": T2,
        "record": updated,
    }
    expected = text.replace("status: active\n", "status: retracted\n")
    assert path.read_text() == expected + f"retracted_at: '{T2}'\n"
    assert listed(run, "patterns") == []
    assert listed(run, "patterns", "--all") == [record["id"]]


@pytest.mark.parametrize(
    ("args", "kind"),
    [
        (["capture", "--anti-pattern", "Sleep in tests"], "anti-pattern"),
        (["capture", "--concept", "Idempotency"], "concept"),
    ],
)
def test_retract_other_kinds_with_a_status(run: Run, args: list[str], kind: str) -> None:
    record = new(run, *args)
    result = run("retract", record["id"], "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert (data["type"], data["record"]["status"]) == (kind, "retracted")
    assert listed(run, kind) == []


@pytest.mark.parametrize(
    ("args", "kind"),
    [
        (["observe", "x"], "observation"),
        (["fail", "Timeout", "x"], "failure"),
        (["capture", "x", "--evidence"], "evidence"),
    ],
)
def test_retract_log_kinds_without_a_retracted_status(
    run: Run, data_dir: Path, args: list[str], kind: str
) -> None:
    """issue 7: every append-only log kind can be withdrawn (retracted_at marks it)."""
    record = new(run, *args)
    result = run("retract", record["id"], "--json", env={"LORE_NOW": T3})
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["record"] == {**record, "retracted_at": T3}
    assert listed(run, kind) == []


def test_retract_unknown_id(run: Run, data_dir: Path) -> None:
    result = run("retract", "dec-000000000000", "--json")
    assert result.exit_code == 3
    assert json.loads(result.stdout)["code"] == "not_found"
    assert snapshot(data_dir) == {}


# --- list ----------------------------------------------------------------------------

CAPTURE_ARGS = {
    "decision": ["remember", "Use X"],
    "pattern": ["learn", "Retry"],
    "anti-pattern": ["capture", "--anti-pattern", "Sleep"],
    "failure": ["fail", "Timeout", "x"],
    "observation": ["observe", "x"],
    "evidence": ["capture", "--evidence", "x"],
    "concept": ["capture", "--concept", "x"],
}
NAMES = {
    "decision": ["decision", "decisions", "Decisions"],
    "pattern": ["pattern", "patterns"],
    "anti-pattern": ["anti-pattern", "anti-patterns", "antipatterns", "anti_pattern"],
    "failure": ["failure", "failures"],
    "observation": ["observation", "observations"],
    "evidence": ["evidence", "evidences"],
    "concept": ["concept", "concepts"],
}


@pytest.mark.parametrize("kind", list(CAPTURE_ARGS))
def test_list_every_capturable_kind(run: Run, kind: str) -> None:
    record = new(run, *CAPTURE_ARGS[kind])
    others = [new(run, *args) for k, args in CAPTURE_ARGS.items() if k != kind]
    assert record["id"] not in {o["id"] for o in others}
    for name in NAMES[kind]:
        assert listed(run, name) == [record["id"]], name


@pytest.mark.parametrize(
    "name", ["goal", "goals", "session", "sessions", "project", "projects", "edge", "edges"]
)
@pytest.mark.usefixtures("empty_root")
def test_list_other_kinds_empty(run: Run, name: str) -> None:
    assert listed(run, name) == []
    result = run("list", name)
    singular = name[:-1] if name.endswith("s") else name
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == f"lore: no {singular} records\n"


def test_list_newest_first_with_filters(run: Run) -> None:
    a = new(run, "observe", "a", "-t", "x", "--project", "web", at=T1)
    b = new(run, "observe", "b", "-t", "x,y", at=T3)
    c = new(run, "observe", "c", "-t", "y", "--project", "api", at=T2)
    assert listed(run, "observations") == [b["id"], c["id"], a["id"]]
    assert listed(run, "observations", "--tag", "x") == [b["id"], a["id"]]
    assert listed(run, "observations", "--tag", "x", "--tag", "y") == [b["id"]]
    assert listed(run, "observations", "--tag", "nope") == []
    assert listed(run, "observations", "--project", "web") == [a["id"]]
    assert listed(run, "observations", "--project", "y") == [b["id"], c["id"]]  # tag y
    assert listed(run, "observations", "--limit", "2") == [b["id"], c["id"]]
    assert listed(run, "observations", "-n", "1", "--tag", "y") == [b["id"]]
    assert listed(run, "observations", "-n", "0") == [b["id"], c["id"], a["id"]]


def test_list_json_records_are_the_stored_records(run: Run) -> None:
    one = new(run, "remember", "Use X", "-r", "why", at=T1)
    two = new(run, "remember", "Use Y", at=T2)
    result = run("list", "decisions", "--json")
    assert json.loads(result.stdout) == [two, one]


def test_list_human_table(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    from lore.cli import records

    record = new(run, "observe", "[red]x[/red] literal", at=T1)
    monkeypatch.setattr(records, "is_terminal", lambda: True)
    result = run("list", "observations")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["id", "when", "content"]
    assert lines[1].split() == [record["id"], "2026-03-01", "10:00", "[red]x[/red]", "literal"]
    assert "\x1b" not in result.stdout


def test_list_no_color_even_when_forced(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    from lore.cli import _output, records

    new(run, "observe", "x")
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setattr(_output, "_console", None)
    forced = run("list", "observations").stdout  # to a pipe
    assert "\x1b[" in forced  # FORCE_COLOR alone styles the id
    monkeypatch.setattr(records, "is_terminal", lambda: True)
    monkeypatch.setattr(_output, "_console", None)
    assert "\x1b[" in run("list", "observations").stdout  # and the table's header
    monkeypatch.setattr(_output, "_console", None)
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b" not in run("list", "observations").stdout
    monkeypatch.setattr(_output, "_console", None)


def test_list_unknown_kind(run: Run) -> None:
    result = run("list", "bogus")
    assert result.exit_code == 2
    assert result.stderr.startswith("lore: error: unknown record kind 'bogus'; expected one of")
    result = run("list", "bogus", "--json")
    assert json.loads(result.stdout)["code"] == "usage"


def test_list_negative_limit_is_a_usage_error(run: Run) -> None:
    result = run("list", "decisions", "--limit", "-1")
    assert result.exit_code == 2
    assert "Invalid value for '--limit' / '-n'" in result.stderr


def test_list_reads_records_written_by_the_store(run: Run, store: Store) -> None:
    from lore.capture.core import capture

    record = capture(store, "via the API", allow_secret=True).record
    assert listed(run, "observations") == [record.id]
