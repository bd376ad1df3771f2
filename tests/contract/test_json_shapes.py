"""The ``--json`` shapes of LORE_CONTRACT.md §8: keys, their order and their types."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
ID = re.compile(r"^[a-z]+-[0-9a-f]{12}$")
TAIL = ["session_id", "project", "source", "tags", "v"]
# On-disk and --json key order per kind (§3).
KEYS = {
    "decision": ["decision", "rationale", "alternatives", "outcome", "type", "entities", "files",
                 "lesson_learned", "related_decisions", "git_commit", "status", "superseded_by",
                 "spec_quality", "supersedes", "contradicts", "derived_from"],
    "pattern": ["name", "context", "problem", "solution", "category", "origin", "confidence",
                "validations", "examples", "status", "flags", "inverted_to"],
    "anti-pattern": ["name", "symptom", "risk", "fix", "severity", "category", "status",
                     "inverted_from"],
    "failure": ["error_type", "error_message", "tool", "step"],
    "observation": ["content", "status", "promoted_to", "discard_reason"],
    "evidence": ["content", "provenance", "confidence", "supports", "derived_from"],
    "concept": ["name", "description", "aliases", "related", "status"],
}  # fmt: skip
CAPTURES = {
    "decision": ["remember", "Use X"],
    "pattern": ["learn", "Retry"],
    "anti-pattern": ["capture", "--anti-pattern", "Sleep"],
    "failure": ["fail", "Timeout", "hung"],
    "observation": ["observe", "slow"],
    "evidence": ["capture", "--evidence", "bench"],
    "concept": ["capture", "--concept", "Idempotency"],
}


def document(result: Result) -> Any:
    """The one JSON document on stdout (one line, newline-terminated)."""
    out = result.stdout
    assert out.endswith("\n") and "\n" not in out[:-1], out
    return json.loads(out)


def check_record(record: dict[str, Any], kind: str) -> None:
    assert list(record) == ["id", "timestamp", *KEYS[kind], *TAIL]
    assert ID.match(record["id"]), record["id"]
    assert TIMESTAMP.match(record["timestamp"])
    assert record["v"] == 1
    assert isinstance(record["tags"], list)
    assert record["source"] == "manual"


@pytest.mark.parametrize("kind", list(CAPTURES))
def test_capture_shape(run: Run, kind: str) -> None:
    result = run(*CAPTURES[kind], "--json")
    assert result.exit_code == 0
    data = document(result)
    assert list(data) == ["ok", "id", "type", "timestamp", "record"]
    assert data["ok"] is True
    assert data["type"] == kind
    assert data["id"] == data["record"]["id"]
    assert data["timestamp"] == data["record"]["timestamp"]
    check_record(data["record"], kind)


def test_capture_shape_with_rule_of_three(run: Run) -> None:
    for _ in range(2):
        run("fail", "Timeout", "hung", "-q")
    data = document(run("fail", "Timeout", "hung", "--json"))
    assert list(data) == ["ok", "id", "type", "timestamp", "record", "rule_of_three"]
    assert data["rule_of_three"] == {
        "error_type": "Timeout",
        "count": 3,
        "pitfall": None,
        "pattern": None,
    }


def test_retract_shape(run: Run) -> None:
    created = document(run("remember", "Use X", "--json"))
    data = document(run("retract", created["id"], "--json"))
    assert list(data) == ["ok", "id", "type", "timestamp", "retracted_at", "record"]
    assert (data["ok"], data["id"], data["type"]) == (True, created["id"], "decision")
    # issue 8: the record's own time, as in every other write reply; the retraction's apart
    assert data["timestamp"] == created["timestamp"] == data["record"]["timestamp"]
    assert data["retracted_at"] == data["record"]["retracted_at"]
    assert data["retracted_at"] > data["timestamp"]
    check_record({k: v for k, v in data["record"].items() if k != "retracted_at"}, "decision")
    assert data["record"]["status"] == "retracted"
    assert "retraction_reason" not in data["record"]  # none given


@pytest.mark.parametrize(
    ("args", "kind"),
    [
        (["remember", "Use Y"], "decision"),
        (["learn", "Retry on 429"], "pattern"),
        (["capture", "God object", "--anti-pattern"], "anti-pattern"),
        (["fail", "Timeout", "slow"], "failure"),
        (["observe", "noted"], "observation"),
    ],
)
def test_retract_sets_both_keys_on_every_kind(run: Run, args: list[str], kind: str) -> None:
    """issue 8: retraction_reason and retracted_at, for logs and documents alike."""
    created = document(run(*args, "--json"))
    data = document(run("retract", created["id"], "--reason", "wrong", "--json"))
    assert data["type"] == kind
    assert data["record"]["retraction_reason"] == "wrong"
    assert data["record"]["retracted_at"] == data["retracted_at"]
    assert document(run("show", created["id"], "--json")) == data["record"]


def test_show_and_list_shapes(run: Run) -> None:
    ids = {kind: document(run(*args, "--json"))["id"] for kind, args in CAPTURES.items()}
    for kind, record_id in ids.items():
        shown = document(run("show", record_id, "--json"))
        check_record(shown, kind)
        both = document(run("show", record_id, "--history", "--json"))
        assert list(both) == ["record", "history"]
        assert both["record"] == shown
        assert isinstance(both["history"], list)
        listed = document(run("list", kind, "--json"))
        assert isinstance(listed, list) and [r["id"] for r in listed] == [record_id]
        check_record(listed[0], kind)
    assert document(run("list", "goals", "--json")) == []


def test_show_history_shape_for_a_log(run: Run) -> None:
    created = document(run("remember", "Use X", "--json"))
    run("retract", created["id"], "--reason", "why")
    history = document(run("show", created["id"], "--history", "--json"))["history"]
    assert history[0] == created["record"]
    assert list(history[1]) == ["_op", "id", "timestamp", "set", "was"]
    assert history[1]["_op"] == "revise"
    assert set(history[1]["set"]) == {"status", "retracted_at", "retraction_reason"}


def test_init_shape(run: Run, data_dir: Path) -> None:
    data = document(run("init", "--json"))
    assert list(data) == ["ok", "root", "created", "git"]
    assert data["ok"] is True and data["git"] is None
    assert data["root"] == str(data_dir)
    assert all(isinstance(p, str) for p in data["created"]) and len(data["created"]) == 9


def test_paths_shape(run: Run) -> None:
    data = document(run("paths", "--json"))
    assert list(data) == ["root", "source", "local", "components", "files"]
    assert data["source"] in ("option", "env", "checkout", "xdg")
    assert list(data["components"]) == [
        "journal",
        "patterns",
        "failures",
        "inbox",
        "intent",
        "transfer",
        "registry",
        "evidence",
        "graph",
    ]
    assert sorted(data["files"]) == sorted([*KEYS, "goal", "session", "project", "edge"])


ERROR_CASES = [
    (["capture", ""], "usage", []),
    (["show", "dec-000000000000"], "not_found", ["id"]),
    (["capture", "x", "--outcome", "bogus"], "invalid", ["field", "kind"]),
    (["capture", "x", "--confidence", "5"], "invalid", ["field", "kind"]),
    (["observe", "key AKIA" + "QZ7XJ4K2LMNOPQRS"], "secret", ["field", "secret", "findings"]),
]


@pytest.mark.parametrize(("args", "code", "details"), ERROR_CASES)
def test_error_shape(run: Run, args: list[str], code: str, details: list[str]) -> None:
    result = run(*args, "--json")
    assert result.exit_code != 0
    data = document(result)
    assert list(data) == ["ok", "error", "code", *details]
    assert data["ok"] is False
    assert data["code"] == code
    assert isinstance(data["error"], str) and data["error"]
    assert result.stderr.endswith(f"lore: error: {data['error']}\n")
    if code == "secret":
        assert [list(f) for f in data["findings"]] == [["field", "rule", "kind"]]


def test_duplicate_error_shape(run: Run) -> None:
    first = document(run("remember", "Use X", "--json"))
    data = document(run("remember", "use x", "--json"))
    assert list(data) == ["ok", "error", "code", "existing_id"]
    assert (data["code"], data["existing_id"]) == ("duplicate", first["id"])
