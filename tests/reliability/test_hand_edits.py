"""Issue 15, crashes: hand edits that break a file's shape never crash a read. Every field of
every kind given a value of the wrong type (`timestamp: 12345` or `null` in a log,
`priority: [high]`, `depends_on: 5`, ...), a YAML document nested 400 levels deep, a log path
that is a directory, `projects:` as a list: every read command reports and goes on."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import Result

from lore.model import Dir, Log, kind_class, kinds

Run = Callable[..., Result]
NOW = "2026-03-10T12:00:00.000000Z"


def wrong_values(annotation: str) -> list[Any]:
    """Values of another type than ``annotation`` declares."""
    if annotation.startswith("list"):
        return [5, "text", {"a": 1}, [1, None]]
    if annotation.startswith("dict"):
        return [[1], "text", 5]
    if annotation in ("int", "float", "float | None"):
        return [[1], "high", {"a": 1}, True]
    return [12345, None, [1], {"a": 1}] if annotation == "str" else [[1], 5, {"a": 1}]


def valid(kind: str, n: int) -> dict[str, Any]:
    cls = kind_class(kind)
    prefix = cls.KIND.prefix or "p"
    data: dict[str, Any] = {"id": f"{prefix}-{n:012x}", "timestamp": NOW}
    for f in dataclasses.fields(cls):
        if f.metadata.get("required"):
            data[f.name] = f"{f.name} {n}"
    return data


def damaged(root: Path) -> list[str]:
    """A record of every kind per field and per wrong value; returns one id per kind."""
    n = 0
    shown = []
    entries: dict[str, Any] = {}
    for kind, cls in kinds().items():
        storage = cls.KIND.storage
        lines = []
        for f in dataclasses.fields(cls):
            if f.name in ("extra", "id"):
                continue
            for bad in wrong_values(str(f.type)):
                n += 1
                lines.append({**valid(kind, n), f.name: bad})
        shown.append(lines[0]["id"])
        base = root / cls.KIND.component / "data"
        if isinstance(storage, Log):
            (base / storage.file).parent.mkdir(parents=True, exist_ok=True)
            (base / storage.file).write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
        elif isinstance(storage, Dir):
            folder = base / storage.dir
            folder.mkdir(parents=True, exist_ok=True)
            for x in lines:
                text = orjson.dumps(x).decode()  # JSON is YAML too
                (folder / f"{x['id']}{storage.suffix}").write_text(text)
        else:
            for x in lines:
                entries[f"project {len(entries)}"] = {k: v for k, v in x.items() if k != "id"}
            (base / storage.file).parent.mkdir(parents=True, exist_ok=True)
            (base / storage.file).write_text(json.dumps({"projects": entries}))
    return shown


READS = [
    ("list", "{kind}", "--all", "--json"),
    ("show", "{id}", "--json"),
    ("show", "{id}"),
    ("recall", "name decision text"),
    ("recall", "name decision", "--json"),
    ("brief", "decision"),
    ("context", "text"),
    ("failures",),
    ("triggers",),
    ("resume",),
    ("resume", "--json"),
    ("timeline",),
    ("timeline", "--json"),
    ("journal", "list"),
    ("journal", "stats"),
    ("inbox",),
    ("evidence", "list"),
    ("evidence", "stats"),
    ("sessions", "list"),
    ("review", "--days", "0"),
    ("goal", "list"),
    ("patterns", "list"),
    ("suggest", "retry"),
    ("registry", "list"),
    ("graph", "stats"),
    ("graph", "export", "--format", "json"),
    ("validate",),
    ("doctor",),
    ("export",),
    ("scan",),
]


def test_wrong_types_in_hand_edits_never_crash_a_read(run: Run, data_dir: Path) -> None:
    shown = damaged(data_dir)
    before = {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()}
    for args in READS:
        rounds = (
            [(k, i) for k, i in zip(kinds(), shown)]
            if "{id}" in "".join(args)
            else [(k, "") for k in kinds()]
            if "{kind}" in "".join(args)
            else [("", "")]
        )
        for kind, rid in rounds:
            real = [a.format(kind=kind, id=rid) for a in args]
            result = run(*real)  # an internal error raises here (catch_exceptions=False)
            assert result.exit_code in (0, 1, 3, 4, 7), (real, result.output)
            assert "internal error" not in result.output, real
    validated = run("validate", "--json")
    assert validated.exit_code == 4
    assert json.loads(validated.stdout)["errors"] > 100  # every bad field is named
    assert {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()} == before


def test_updates_of_a_damaged_record_change_only_what_they_say(run: Run, data_dir: Path) -> None:
    goal = data_dir / "intent" / "data" / "goals" / "goal-000000000001.yaml"
    goal.parent.mkdir(parents=True)
    goal.write_text(
        f"id: goal-000000000001\ntimestamp: '{NOW}'\ntitle: Ship\npriority: [high]\n"
        "depends_on: 5\nprojects: 7\ncriteria: [{text: tests}]\n"
    )
    done = run("goal", "update", "goal-000000000001", "--met", "sc-1", "--json")
    assert done.exit_code == 0, done.output
    text = goal.read_text()
    assert "priority: [high]" in text and "depends_on: 5" in text  # left as written
    assert json.loads(done.stdout)["completion"] == "1/1"
    listed = run("goal", "list")
    assert listed.exit_code == 0
    assert "goal-000000000001: priority, depends_on, projects have the wrong type" in (
        listed.stderr
    )


@pytest.mark.parametrize("where", ["intent/data/goals/goal-000000000001.yaml", "projects"])
def test_a_yaml_document_nested_400_levels_deep_is_refused_not_a_crash(
    run: Run, data_dir: Path, where: str
) -> None:
    deep = "[" * 400 + "]" * 400
    if where == "projects":
        path = data_dir / "registry" / "data" / "projects.yaml"
        text = f"projects:\n  deep:\n    description: {deep}\n"
    else:
        path = data_dir / where
        text = f"id: goal-000000000001\ntimestamp: '{NOW}'\ntitle: deep\nx: {deep}\n"
    path.parent.mkdir(parents=True)
    path.write_text(text)  # 800 bytes of brackets
    for args in (("goal", "list"), ("list", "goals"), ("resume",), ("recall", "deep"), ("doctor",)):
        result = run(*args)
        assert "internal error" not in result.output, args
        assert result.exit_code in (0, 4), (args, result.output)
    report = json.loads(run("validate", "--json").stdout)
    [issue] = report["issues"]
    assert (issue["code"], issue["message"]) == (
        "parse",
        "nested more than 100 levels deep; not read",
    )


def test_a_log_path_that_is_a_directory_is_reported_not_a_crash(run: Run, data_dir: Path) -> None:
    assert run("remember", "Use uv because: fast", "-q").exit_code == 0
    (data_dir / "failures" / "data" / "failures.jsonl").mkdir(parents=True)
    (data_dir / "inbox" / "data" / "observations.jsonl").mkdir(parents=True)
    for args in (("recall", "uv"), ("resume",), ("timeline",), ("failures",), ("brief", "uv")):
        result = run(*args)
        assert result.exit_code == 0, (args, result.output)
        assert "Use uv" in result.stdout or args[0] in ("timeline", "failures"), args
    listed = run("list", "failures")
    assert listed.exit_code == 4
    assert "failures.jsonl: cannot read" in listed.stderr
    assert run("validate").exit_code == 4


def test_projects_as_a_list_is_an_error_never_a_crash(run: Run, data_dir: Path) -> None:
    path = data_dir / "registry" / "data" / "projects.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("projects:\n  - billing\n  - search\n")
    listed = run("registry", "list")
    assert listed.exit_code == 4
    assert "'projects:' must map names to entries" in listed.stderr
    added = run("registry", "add", "x")
    assert added.exit_code == 4
    assert added.stderr == (
        f"lore: error: {path}: 'projects:' must map names to entries (it is a list); fix the "
        "file, nothing was written\n"
    )
    assert path.read_text() == "projects:\n  - billing\n  - search\n"


def test_a_byte_order_mark_never_hides_a_first_record(run: Run, data_dir: Path) -> None:
    decision = run("remember", "Use the BOM file", "-q").stdout.strip()
    goal = run("goal", "create", "Ship with a BOM", "-q").stdout.strip()
    session = run("handoff", "Done with the BOM", "-q").stdout.strip()
    files = [
        data_dir / "journal" / "data" / "decisions.jsonl",
        data_dir / "intent" / "data" / "goals" / f"{goal}.yaml",
        data_dir / "transfer" / "data" / "sessions" / f"{session}.json",
    ]
    for file in files:  # as an editor on Windows saves them
        file.write_bytes(b"\xef\xbb\xbf" + file.read_bytes())
    before = {f: f.read_bytes() for f in files}
    assert run("list", "decisions").stdout.startswith(decision)
    assert decision in run("recall", "BOM file").stdout
    assert goal in run("goal", "list").stdout
    assert session in run("sessions", "list").stdout
    assert run("validate").exit_code == 0
    repaired = run("doctor", "--repair", "--json")
    assert [r["action"] for r in json.loads(repaired.stdout)["repaired"]] == ["rebuilt"]
    assert {f: f.read_bytes() for f in files} == before  # nothing quarantined
    assert not list(data_dir.rglob("*.quarantine"))
