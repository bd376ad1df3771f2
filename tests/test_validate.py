"""lore validate: every check, the exact report shape, exit codes, and no file ever touched."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import Result

from lore.cli import LAZY_COMMANDS
from lore.errors import EXIT_INVALID
from lore.model import kind_class, kinds
from lore.store.core import Store
from lore.upkeep.report import CODES, Report
from lore.upkeep.validate import validate

T0 = "2024-01-01T00:00:00.000000Z"
T1 = "2024-02-01T00:00:00.000000Z"
DEC = "journal/data/decisions.jsonl"
FAIL = "failures/data/failures.jsonl"
PROJECTS = "registry/data/projects.yaml"

Run = Callable[..., Result]


def write(data_dir: Path, rel: str, content: str | bytes) -> Path:
    path = data_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def line(**obj: Any) -> str:
    return orjson.dumps(obj).decode() + "\n"


def decision(rid: str, **fields: Any) -> str:
    return line(id=rid, timestamp=T0, decision=f"decision {rid}", **fields)


def revise(rid: str, timestamp: str = T1, **changes: Any) -> str:
    return line(_op="revise", id=rid, timestamp=timestamp, set=changes)


def issue(
    code: str,
    file: str,
    line: int | None,
    message: str,
    *,
    id: str | None = None,
    field: str | None = None,
    severity: str = "error",
) -> dict[str, Any]:
    return {
        "severity": severity,
        "code": code,
        "file": file,
        "line": line,
        "id": id,
        "field": field,
        "message": message,
    }


def check(run: Run, code: int = EXIT_INVALID) -> dict[str, Any]:
    """``lore validate --json``: asserts the exit code, returns the report."""
    result = run("validate", "--json")
    assert result.exit_code == code, result.stdout + result.stderr
    assert result.stderr == ""
    report = orjson.loads(result.stdout)
    assert report["errors"] == sum(1 for i in report["issues"] if i["severity"] == "error")
    assert report["warnings"] == sum(1 for i in report["issues"] if i["severity"] == "warning")
    assert report["ok"] is (report["errors"] == 0)
    return report


def hashes(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def all_kinds(store: Store) -> None:
    """One valid record of every kind, each reference pointing where it should."""
    make = {name: kind_class(name) for name in kinds()}
    store.add(
        [
            make["decision"](id="dec-000000000001", timestamp=T0, decision="use a"),
            make["decision"](
                id="dec-000000000002",
                timestamp=T0,
                decision="use b",
                related_decisions=["dec-000000000001"],
            ),
            make["pattern"](id="pat-000000000001", timestamp=T0, name="retry"),
            make["anti-pattern"](id="anti-000000000001", timestamp=T0, name="sleep"),
            make["failure"](
                id="fail-000000000001", timestamp=T0, error_type="Timeout", error_message="slow"
            ),
            make["observation"](id="obs-000000000001", timestamp=T0, content="hm"),
            make["evidence"](
                id="evi-000000000001", timestamp=T0, content="ok", supports=["dec-000000000001"]
            ),
            make["goal"](
                id="goal-000000000001", timestamp=T0, title="ship", related=["pat-000000000001"]
            ),
            make["session"](id="session-000000000001", timestamp=T0),
            make["session"](id="session-000000000002", timestamp=T0, parent="session-000000000001"),
            make["project"](id="demo", name="demo", timestamp=T0),
            make["concept"](
                id="concept-000000000001", timestamp=T0, name="cache", related=["demo"]
            ),
            make["edge"](
                id="edge-000000000001",
                timestamp=T0,
                src="concept-000000000001",
                dst="fail-000000000001",
            ),
        ]
    )


ALL_COUNTS = {
    "decision": 2,
    "pattern": 1,
    "anti-pattern": 1,
    "failure": 1,
    "observation": 1,
    "evidence": 1,
    "goal": 1,
    "session": 2,
    "project": 1,
    "concept": 1,
    "edge": 1,
}


# --- clean data ---------------------------------------------------------------------


def test_the_command_is_registered_with_its_docstring_line() -> None:
    from lore.cli.validate import validate_cmd

    assert validate_cmd.name == "validate"
    assert (validate_cmd.help or "").splitlines()[0] == LAZY_COMMANDS["validate"][1]


def test_a_root_that_does_not_exist_yet_is_clean(run: Run, data_dir: Path) -> None:
    report = check(run, 0)
    assert report == {
        "ok": True,
        "root": str(data_dir),
        "errors": 0,
        "warnings": 0,
        "issues": [],
        "counts": dict.fromkeys(kinds(), 0),
    }
    assert not data_dir.exists()


def test_a_store_holding_every_kind_is_clean(run: Run, store: Store, data_dir: Path) -> None:
    all_kinds(store)
    store.revise("dec-000000000001", {"outcome": "successful"})
    store.revise("goal-000000000001", {"status": "achieved"})
    store.revise("demo", {"description": "the demo"})
    store.revise("session-000000000002", {"status": "closed"})
    assert set(ALL_COUNTS) == set(kinds())
    assert check(run, 0) == {
        "ok": True,
        "root": str(data_dir),
        "errors": 0,
        "warnings": 0,
        "issues": [],
        "counts": ALL_COUNTS,
    }
    result = run("validate")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == "lore: data OK (13 records)\n"


def test_retracted_records_are_still_counted_and_reference_targets(run: Run, store: Store) -> None:
    all_kinds(store)
    store.revise("dec-000000000001", {"status": "retracted"})
    assert check(run, 0)["counts"] == ALL_COUNTS


def test_lock_tmp_gitkeep_and_cache_files_are_ignored(
    run: Run, store: Store, data_dir: Path
) -> None:
    all_kinds(store)  # leaves sidecar .<name>.lock files behind
    assert list(data_dir.rglob("*.lock"))
    write(data_dir, "journal/data/.gitkeep", "")
    write(data_dir, "patterns/data/patterns/.pat-x.yaml.abc123.tmp", "half")
    write(data_dir, "graph/data/.lore-cache/graph.pickle", b"\x80\x04")
    assert check(run, 0)["issues"] == []


def test_validate_never_changes_a_file(run: Run, store: Store, data_dir: Path) -> None:
    all_kinds(store)
    write(data_dir, DEC, b'<<<<<<< ours\n{"id": "dec-1"\n\xff\n{"torn')
    write(data_dir, "intent/data/goals/goal-x.yaml", "title: [\n")
    write(data_dir, "journal/data/notes.txt", "stray")
    before = hashes(data_dir)
    check(run)
    run("validate")
    validate(Store(data_dir))
    assert hashes(data_dir) == before  # same files (no new lock or cache), same bytes


def test_python_api_returns_the_same_report(store: Store, data_dir: Path) -> None:
    from lore import api

    assert api.validate is validate
    write(data_dir, DEC, decision("dec-000000000001", outcome="bogus"))
    report = api.validate(store)
    assert isinstance(report, Report)
    assert not report.ok
    assert (report.errors, report.warnings, report.records) == (1, 0, 1)
    assert report.to_dict()["issues"][0]["field"] == "outcome"


def test_every_code_is_documented_in_the_module_docstring() -> None:
    assert set(CODES) == {
        "parse",
        "conflict-marker",
        "torn-line",
        "not-utf8",
        "unreadable",
        "schema",
        "bad-id",
        "duplicate-id",
        "id-mismatch",
        "dangling-reference",
        "reference-kind",
        "dangling-revision",
        "duplicate-line",
        "unknown-file",
        "unknown-relation",
        "divergent-value",
    }
    assert all(CODES.values())


# --- parse errors -------------------------------------------------------------------


def test_a_bad_jsonl_line_is_a_parse_error_at_its_line(run: Run, data_dir: Path) -> None:
    write(data_dir, DEC, decision("dec-000000000001") + "{not json}\n" + "[1, 2]\n")
    report = check(run)
    [bad, not_object] = report["issues"]
    assert bad["message"].startswith("invalid JSON: ")
    assert bad["message"].endswith("(column 2)")
    assert bad == issue("parse", DEC, 2, bad["message"])
    assert not_object == issue("parse", DEC, 3, "line is not a JSON object")
    assert report["counts"]["decision"] == 1


def test_a_torn_last_line_is_only_a_warning(run: Run, data_dir: Path) -> None:
    write(data_dir, DEC, decision("dec-000000000001") + '{"id": "dec-0000000')
    report = check(run, 0)
    assert report["ok"] is True
    assert report["issues"] == [
        issue(
            "torn-line",
            DEC,
            2,
            "incomplete last line (torn write?) skipped",
            severity="warning",
        )
    ]


def test_a_bad_yaml_document_is_a_parse_error_with_its_line(run: Run, data_dir: Path) -> None:
    rel = "patterns/data/patterns/pat-000000000001.yaml"
    write(data_dir, rel, f"id: pat-000000000001\ntimestamp: {T0}\nname: [retry\n")
    [found] = check(run)["issues"]
    assert found["message"].startswith("invalid YAML: ")
    assert found == issue("parse", rel, 4, found["message"])


def test_a_yaml_duplicate_key_is_a_parse_error(run: Run, data_dir: Path) -> None:
    rel = "intent/data/goals/goal-000000000001.yaml"
    write(data_dir, rel, f"timestamp: {T0}\ntitle: a\ntitle: b\n")
    [found] = check(run)["issues"]
    assert (found["code"], found["line"]) == ("parse", 3)
    assert "duplicate key" in found["message"]


def test_a_bad_json_document_is_a_parse_error_with_its_line(run: Run, data_dir: Path) -> None:
    rel = "transfer/data/sessions/session-000000000001.json"
    write(data_dir, rel, '{\n  "id": "session-000000000001",\n}\n')
    [found] = check(run)["issues"]
    # orjson places a trailing comma's error on the comma's line.
    assert found == issue("parse", rel, 2, "invalid JSON: trailing comma is not allowed")


@pytest.mark.parametrize(
    "content", ["- a list\n", "just text\n", ""], ids=["list", "scalar", "empty"]
)
def test_a_document_must_be_a_mapping(run: Run, data_dir: Path, content: str) -> None:
    rel = "patterns/data/anti-patterns/anti-000000000001.yaml"
    write(data_dir, rel, content)
    assert check(run)["issues"] == [
        issue("parse", rel, None, "expected a mapping at the top level")
    ]


def test_projects_yaml_shape_errors(run: Run, data_dir: Path) -> None:
    write(data_dir, PROJECTS, "projects:\n  - demo\n")
    assert check(run)["issues"] == [
        issue("schema", PROJECTS, 1, "'projects' must map names to entries", field="projects")
    ]
    write(data_dir, PROJECTS, "other: 1\n")
    assert check(run)["issues"] == [
        issue("schema", PROJECTS, None, "no 'projects:' mapping", field="projects")
    ]
    write(data_dir, PROJECTS, f"projects:\n  demo:\n    timestamp: {T0}\n  bad: 3\n")
    assert check(run)["issues"] == [
        issue("schema", PROJECTS, 4, "entry 'bad' must be a mapping", id="bad")
    ]


def test_an_empty_projects_file_is_fine(run: Run, data_dir: Path) -> None:
    write(data_dir, PROJECTS, "")
    check(run, 0)
    write(data_dir, PROJECTS, "projects:\n")
    check(run, 0)


# --- conflict markers ---------------------------------------------------------------


def test_conflict_markers_in_a_log_are_reported_line_by_line(run: Run, data_dir: Path) -> None:
    write(
        data_dir,
        DEC,
        decision("dec-000000000001")
        + "<<<<<<< HEAD\n"
        + decision("dec-000000000002", rationale="ours")
        + "=======\n"
        + decision("dec-000000000002", rationale="theirs")
        + ">>>>>>> feature\n",
    )
    report = check(run)
    assert report["issues"] == [
        issue("conflict-marker", DEC, 2, "git conflict marker"),
        issue("conflict-marker", DEC, 4, "git conflict marker"),
        issue(
            "duplicate-id",
            DEC,
            5,
            "duplicate id dec-000000000002: line 3 has a different record",
            id="dec-000000000002",
            field="id",
        ),
        issue("conflict-marker", DEC, 6, "git conflict marker"),
    ]
    assert report["counts"]["decision"] == 2


@pytest.mark.parametrize(
    "rel",
    [
        "intent/data/goals/goal-000000000001.yaml",
        "transfer/data/sessions/session-000000000001.json",
        PROJECTS,
    ],
)
def test_conflict_markers_in_documents_are_reported_line_by_line(
    run: Run, data_dir: Path, rel: str
) -> None:
    write(
        data_dir,
        rel,
        "<<<<<<< HEAD\ntitle: a\n||||||| base\ntitle: o\n=======\ntitle: b\n>>>>>>> x\n",
    )
    report = check(run)
    assert report["issues"] == [
        issue("conflict-marker", rel, n, "git conflict marker") for n in (1, 3, 5, 7)
    ]


def test_a_conflicted_document_still_exists_for_references(run: Run, data_dir: Path) -> None:
    write(data_dir, "intent/data/goals/goal-000000000001.yaml", "<<<<<<< HEAD\n>>>>>>> x\n")
    write(data_dir, DEC, decision("dec-000000000001"))
    write(
        data_dir,
        "evidence/data/evidence.jsonl",
        line(id="evi-000000000001", timestamp=T0, content="c", supports=["goal-000000000001"]),
    )
    codes = [i["code"] for i in check(run)["issues"]]
    assert codes == ["conflict-marker", "conflict-marker"]  # no dangling reference


# --- encoding -----------------------------------------------------------------------


def test_a_non_utf8_log_line_is_reported_and_the_rest_read(run: Run, data_dir: Path) -> None:
    raw = (
        decision("dec-000000000001").encode()
        + b'{"id": "dec-000000000002", "decision": "caf\xe9"}\n'
        + b"\x00\x00\x00\n"
        + decision("dec-000000000003").encode()
    )
    write(data_dir, DEC, raw)
    report = check(run)
    assert report["issues"] == [
        issue("not-utf8", DEC, 2, "not UTF-8 text; line skipped"),
        issue("not-utf8", DEC, 3, "binary data (NUL bytes); line skipped"),
    ]
    assert report["counts"]["decision"] == 2


def test_a_binary_log_is_one_issue(run: Run, data_dir: Path) -> None:
    write(data_dir, DEC, bytes(range(256)) * 4)
    assert check(run)["issues"] == [
        issue("not-utf8", DEC, 1, "binary or non-UTF-8 file; nothing read")
    ]


@pytest.mark.parametrize(
    ("content", "line_no", "message"),
    [
        (b"title: ok\nname: caf\xe9\n", 2, "not UTF-8 text; file not read"),
        (b"title: ok\n\x00\x01\x02", 2, "binary data (NUL bytes); file not read"),
    ],
)
def test_a_non_utf8_document_is_not_read(
    run: Run, data_dir: Path, content: bytes, line_no: int, message: str
) -> None:
    rel = "intent/data/goals/goal-000000000001.yaml"
    write(data_dir, rel, content)
    report = check(run)
    assert report["issues"] == [issue("not-utf8", rel, line_no, message)]
    assert report["counts"]["goal"] == 0


# --- schema -------------------------------------------------------------------------


def test_schema_violations_name_the_record_field_and_line(run: Run, data_dir: Path) -> None:
    write(
        data_dir,
        DEC,
        decision("dec-000000000001")
        + line(id="dec-000000000002", timestamp="yesterday", decision="  ", tags="x"),
    )
    assert check(run)["issues"] == [
        issue(
            "schema",
            DEC,
            2,
            "tags must be a list of strings",
            id="dec-000000000002",
            field="tags",
        ),
        issue(
            "schema",
            DEC,
            2,
            "decision is required and must not be empty",
            id="dec-000000000002",
            field="decision",
        ),
        issue(
            "schema",
            DEC,
            2,
            "timestamp is not an ISO-8601 time ('yesterday')",
            id="dec-000000000002",
            field="timestamp",
        ),
    ]


def test_a_yaml_schema_violation_points_at_the_keys_line(run: Run, data_dir: Path) -> None:
    rel = "patterns/data/patterns/pat-000000000001.yaml"
    write(data_dir, rel, f"# retry\nname: retry\ntimestamp: {T0}\nconfidence: 3\n")
    assert check(run)["issues"] == [
        issue(
            "schema",
            rel,
            4,
            "confidence must be between 0 and 1 (got 3)",
            id="pat-000000000001",
            field="confidence",
        )
    ]


def test_a_project_schema_violation_points_at_its_line(run: Run, data_dir: Path) -> None:
    write(data_dir, PROJECTS, f"projects:\n  demo:\n    timestamp: {T0}\n    status: gone\n")
    assert check(run)["issues"] == [
        issue(
            "schema",
            PROJECTS,
            4,
            "status must be one of active, paused, archived (got 'gone')",
            id="demo",
            field="status",
        )
    ]


def test_a_revision_that_makes_a_record_invalid_is_reported_at_its_line(
    run: Run, data_dir: Path
) -> None:
    write(
        data_dir,
        DEC,
        decision("dec-000000000001")
        + revise("dec-000000000001", outcome="great")
        + revise("dec-000000000001", "2024-03-01T00:00:00Z", rationale="fine"),
    )
    assert check(run)["issues"] == [
        issue(
            "schema",
            DEC,
            2,
            "outcome must be one of pending, successful, revised, abandoned (got 'great')"
            " (set by this revision)",
            id="dec-000000000001",
            field="outcome",
        )
    ]


def test_revisions_apply_in_timestamp_order_not_line_order(run: Run, data_dir: Path) -> None:
    # The bad value (line 2) is older than the fix (line 3): the record is valid now.
    write(
        data_dir,
        DEC,
        decision("dec-000000000001")
        + revise("dec-000000000001", "2024-03-01T00:00:00.5Z", outcome="successful")
        + revise("dec-000000000001", "2024-03-01T00:00:00Z", outcome="great")
        + revise("dec-000000000001", "2024-02-01T00:00:00Z", type="odd"),
    )
    assert check(run)["issues"] == [
        issue(
            "schema",
            DEC,
            4,
            "type must be one of architecture, implementation, naming, tooling, process, "
            "bugfix, refactor, other (got 'odd') (set by this revision)",
            id="dec-000000000001",
            field="type",
        )
    ]


def test_malformed_revision_lines(run: Run, data_dir: Path) -> None:
    write(
        data_dir,
        DEC,
        decision("dec-000000000001")
        + line(_op="revise", id="dec-000000000001", timestamp=T1)
        + line(_op="revise", id="dec-000000000001", timestamp=T1, set=["x"])
        + line(_op="revise", id="dec-000000000001", set={"rationale": "r"})
        + revise("dec-000000000001", id="dec-000000000002")
        + line(_op="delete", id="dec-000000000001", timestamp=T1),
    )
    assert check(run)["issues"] == [
        issue(
            "schema",
            DEC,
            2,
            "revision has no 'set' object",
            id="dec-000000000001",
            field="set",
        ),
        issue(
            "schema",
            DEC,
            3,
            "revision has no 'set' object",
            id="dec-000000000001",
            field="set",
        ),
        issue(
            "schema",
            DEC,
            4,
            "revision has no valid timestamp (applied before dated ones)",
            id="dec-000000000001",
            field="timestamp",
            severity="warning",
        ),
        issue(
            "schema",
            DEC,
            5,
            "a revision cannot change the id",
            id="dec-000000000001",
            field="id",
        ),
        issue(
            "schema",
            DEC,
            6,
            "unknown _op 'delete' (read as a new record)",
            id="dec-000000000001",
            field="_op",
        ),
        issue(
            "duplicate-id",
            DEC,
            6,
            "duplicate id dec-000000000001: line 1 has a different record",
            id="dec-000000000001",
            field="id",
        ),
    ]


# --- ids ----------------------------------------------------------------------------


def test_an_id_with_the_wrong_prefix_is_a_bad_id(run: Run, data_dir: Path) -> None:
    write(
        data_dir,
        FAIL,
        line(id="dec-000000000001", timestamp=T0, error_type="Timeout", error_message="m"),
    )
    assert check(run)["issues"] == [
        issue(
            "bad-id",
            FAIL,
            1,
            "id must start with 'fail-'",
            id="dec-000000000001",
            field="id",
        )
    ]


def test_a_line_without_an_id_is_a_bad_id(run: Run, data_dir: Path) -> None:
    write(data_dir, DEC, line(timestamp=T0, decision="d") + line(id=7, decision="d"))
    assert check(run)["issues"] == [
        issue("bad-id", DEC, 1, "record has no id", field="id"),
        issue("bad-id", DEC, 2, "record has no id", field="id"),
    ]


def test_a_non_string_document_id_is_a_bad_id(run: Run, data_dir: Path) -> None:
    rel = "intent/data/goals/goal-000000000001.yaml"
    write(data_dir, rel, f"id: 12\ntimestamp: {T0}\ntitle: t\n")
    report = check(run)
    assert report["issues"] == [issue("bad-id", rel, 1, "id must be a string (got 12)", field="id")]
    assert report["counts"]["goal"] == 1


def test_a_second_different_creation_line_is_a_duplicate_id(run: Run, data_dir: Path) -> None:
    write(
        data_dir,
        DEC,
        decision("dec-000000000001") + decision("dec-000000000001", rationale="other"),
    )
    report = check(run)
    assert report["issues"] == [
        issue(
            "duplicate-id",
            DEC,
            2,
            "duplicate id dec-000000000001: line 1 has a different record",
            id="dec-000000000001",
            field="id",
        )
    ]
    assert report["counts"]["decision"] == 1


def test_one_id_in_two_files_is_a_duplicate_id(run: Run, data_dir: Path) -> None:
    write(data_dir, DEC, decision("dec-000000000001"))
    write(data_dir, PROJECTS, f"projects:\n  dec-000000000001:\n    timestamp: {T0}\n")
    assert check(run)["issues"] == [
        issue(
            "duplicate-id",
            PROJECTS,
            2,
            f"duplicate id dec-000000000001: also a decision in {DEC}:1",
            id="dec-000000000001",
            field="id",
        )
    ]


def test_a_document_named_for_another_id_is_an_id_mismatch(run: Run, data_dir: Path) -> None:
    goals = "intent/data/goals"
    write(data_dir, f"{goals}/goal-000000000001.yaml", f"timestamp: {T0}\ntitle: a\n")
    write(
        data_dir,
        f"{goals}/goal-000000000002.yaml",
        f"timestamp: {T0}\ntitle: b\nid: goal-000000000001\n",
    )
    assert check(run)["issues"] == [
        issue(
            "duplicate-id",
            f"{goals}/goal-000000000002.yaml",
            None,
            f"duplicate id goal-000000000001: also a goal in {goals}/goal-000000000001.yaml",
            id="goal-000000000001",
            field="id",
        ),
        issue(
            "id-mismatch",
            f"{goals}/goal-000000000002.yaml",
            3,
            "file name says goal-000000000002 but the id inside is goal-000000000001",
            id="goal-000000000001",
            field="id",
        ),
    ]


def test_a_project_whose_name_is_not_its_key_is_an_id_mismatch(run: Run, data_dir: Path) -> None:
    write(data_dir, PROJECTS, f"projects:\n  demo:\n    name: other\n    timestamp: {T0}\n")
    assert check(run)["issues"] == [
        issue(
            "id-mismatch",
            PROJECTS,
            3,
            "entry 'demo' has name 'other'; the key is its name",
            id="demo",
            field="name",
        )
    ]


# --- references ---------------------------------------------------------------------


def test_references_to_missing_ids_dangle(run: Run, data_dir: Path) -> None:
    write(
        data_dir,
        DEC,
        decision("dec-000000000001", related_decisions=["dec-000000000404"])
        + revise("dec-000000000001", superseded_by="dec-000000000405"),
    )
    write(
        data_dir,
        "graph/data/edges.jsonl",
        line(id="edge-000000000001", timestamp=T0, src="dec-000000000001", dst="nowhere"),
    )
    assert check(run)["issues"] == [
        issue(
            "dangling-reference",
            "graph/data/edges.jsonl",
            1,
            "dst: no record has id nowhere",
            id="edge-000000000001",
            field="dst",
        ),
        issue(
            "dangling-reference",
            DEC,
            1,
            "related_decisions: no record has id dec-000000000404",
            id="dec-000000000001",
            field="related_decisions",
        ),
        issue(
            "dangling-reference",
            DEC,
            2,
            "superseded_by: no record has id dec-000000000405",
            id="dec-000000000001",
            field="superseded_by",
        ),
    ]


def test_a_session_capturing_a_missing_record_dangles(run: Run, data_dir: Path) -> None:
    # the graph drops the session's `produces` edge to it, so validate must report it
    write(data_dir, DEC, decision("dec-000000000001"))
    session = {
        "id": "session-000000000001",
        "timestamp": T0,
        "status": "closed",
        "captured": {"decision": ["dec-000000000001", "dec-000000000404"]},
    }
    rel = "transfer/data/sessions/session-000000000001.json"
    write(data_dir, rel, orjson.dumps(session).decode())
    assert check(run)["issues"] == [
        issue(
            "dangling-reference",
            rel,
            None,
            "captured: no record has id dec-000000000404",
            id="session-000000000001",
            field="captured",
        )
    ]


def test_a_reference_to_the_wrong_kind_is_reported(run: Run, data_dir: Path) -> None:
    write(
        data_dir,
        FAIL,
        line(id="fail-000000000001", timestamp=T0, error_type="Timeout", error_message="m"),
    )
    write(data_dir, DEC, decision("dec-000000000001", related_decisions=["fail-000000000001"]))
    write(
        data_dir,
        "evidence/data/evidence.jsonl",
        line(id="evi-000000000001", timestamp=T0, content="c", supports=["fail-000000000001"]),
    )
    assert check(run)["issues"] == [
        issue(
            "reference-kind",
            DEC,
            1,
            "related_decisions must point at a decision, but fail-000000000001 is a failure",
            id="dec-000000000001",
            field="related_decisions",
        )
    ]


def test_a_revision_for_an_unknown_id_dangles(run: Run, data_dir: Path) -> None:
    write(
        data_dir,
        DEC,
        decision("dec-000000000001") + revise("dec-000000000404", outcome="successful"),
    )
    assert check(run)["issues"] == [
        issue(
            "dangling-revision",
            DEC,
            2,
            "revision for unknown id dec-000000000404",
            id="dec-000000000404",
        )
    ]


# --- harmless oddities --------------------------------------------------------------


def test_identical_duplicate_lines_are_a_warning_and_count_once(run: Run, data_dir: Path) -> None:
    text = decision("dec-000000000001") + revise("dec-000000000001", outcome="successful")
    write(data_dir, DEC, text + text)
    report = check(run, 0)
    assert report["issues"] == [
        issue("duplicate-line", DEC, 3, "identical to line 1 (read once)", severity="warning"),
        issue("duplicate-line", DEC, 4, "identical to line 2 (read once)", severity="warning"),
    ]
    assert report["counts"]["decision"] == 1


def test_files_lore_does_not_read_are_warnings(run: Run, data_dir: Path) -> None:
    write(data_dir, "journal/data/notes.txt", "stray")
    write(data_dir, "intent/data/goals/goal-000000000001.yml", "title: t\n")
    write(data_dir, "graph/data/old/edges.jsonl", "")
    write(data_dir, "elsewhere/notes.txt", "outside every component: not checked")
    report = check(run, 0)
    assert report["issues"] == [
        issue(
            "unknown-file",
            "graph/data/old/edges.jsonl",
            None,
            "lore does not read this file",
            severity="warning",
        ),
        issue(
            "unknown-file",
            "intent/data/goals/goal-000000000001.yml",
            None,
            "lore does not read this file (it reads only *.yaml files here)",
            severity="warning",
        ),
        issue(
            "unknown-file",
            "journal/data/notes.txt",
            None,
            "lore does not read this file",
            severity="warning",
        ),
    ]


# --- human output -------------------------------------------------------------------


def test_human_output_one_line_per_issue_sorted_then_a_summary(run: Run, data_dir: Path) -> None:
    write(data_dir, "journal/data/notes.txt", "stray")
    write(
        data_dir,
        DEC,
        decision("dec-000000000001", outcome="bogus") + "<<<<<<< HEAD\n" + '{"id": "dec-',
    )
    write(data_dir, "intent/data/goals/goal-000000000001.yaml", "title: [\n")
    result = run("validate")
    assert result.exit_code == EXIT_INVALID
    assert result.stdout.splitlines() == [
        "intent/data/goals/goal-000000000001.yaml:2: error: "
        "invalid YAML: expected the node content, but found '<stream end>' [parse]",
        f"{DEC}:1: error: outcome must be one of pending, successful, revised, abandoned"
        " (got 'bogus') [schema]",
        f"{DEC}:2: error: git conflict marker [conflict-marker]",
        f"{DEC}:3: warning: incomplete last line (torn write?) skipped [torn-line]",
        "journal/data/notes.txt: warning: lore does not read this file [unknown-file]",
        "3 errors, 2 warnings in 3 files (1 record)",
    ]
    assert result.stderr == ""


def test_only_warnings_exit_zero_with_a_summary(run: Run, data_dir: Path) -> None:
    write(data_dir, DEC, decision("dec-000000000001") + '{"id"')
    result = run("validate")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "0 errors, 1 warning in 1 file (1 record)"


def test_a_file_that_cannot_be_read_is_reported(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Permissions cannot stop root (tests may run as root), so fail the read itself.
    target = write(data_dir, DEC, decision("dec-000000000001"))
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self == target:
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    assert check(run)["issues"] == [
        issue("unreadable", DEC, None, "cannot read: Permission denied")
    ]
