"""The capture shortcuts: ``remember``, ``learn``, ``fail`` and ``observe``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

NOW = "2026-03-04T05:06:07.123456Z"
Run = Callable[..., Result]
COMMON = {"session_id": None, "project": None, "source": "manual", "tags": [], "v": 1}


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)


def ok(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert result.stdout.count("\n") == 1
    data = json.loads(result.stdout)
    assert data["ok"] is True
    return data  # type: ignore[no-any-return]


def log(data_dir: Path, path: str) -> list[dict[str, Any]]:
    file = data_dir / path
    return [json.loads(line) for line in file.read_text("utf-8").splitlines()]


def snapshot(root: Path) -> dict[str, bytes]:
    if not root.exists():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


# --- remember ------------------------------------------------------------------------


def test_remember_inline_rationale_and_alternatives(run: Run, data_dir: Path) -> None:
    data = ok(run("remember", "Store sessions as JSON because: merge-safe vs: sqlite, one yaml",
                  "--json"))  # fmt: skip
    assert data["type"] == "decision"
    assert data["record"] == {
        "id": data["id"],
        "timestamp": NOW,
        "decision": "Store sessions as JSON",
        "rationale": "merge-safe",
        "alternatives": ["sqlite", "one yaml"],
        "outcome": "pending",
        "type": "other",
        "entities": [],
        "files": [],
        "lesson_learned": "",
        "related_decisions": [],
        "git_commit": None,
        "status": "active",
        "superseded_by": None,
        "spec_quality": 0.5,
        "supersedes": [],
        "contradicts": [],
        "derived_from": None,
        **COMMON,
    }
    assert log(data_dir, "journal/data/decisions.jsonl") == [data["record"]]


def test_remember_flags_win_over_inline_text(run: Run, data_dir: Path) -> None:
    data = ok(run("remember", "Use X because: inline vs: p, q", "-r", "flag", "-a", "r",
                  "--json"))  # fmt: skip
    record = data["record"]
    assert (record["decision"], record["rationale"], record["alternatives"]) == (
        "Use X",
        "flag",
        ["r"],
    )
    # a flag for one part leaves the other inline part in place
    data = ok(run("remember", "Use Y because: inline vs: p, q", "-r", "flag", "--json"))
    assert (data["record"]["rationale"], data["record"]["alternatives"]) == ("flag", ["p", "q"])


def test_remember_entities_from_text_and_flags(run: Run) -> None:
    data = ok(
        run(
            "remember",
            "Move `Store` from src/a.py, to ./lib/b.py; see https://x.org/c/d.py and "
            "README.md (v1.2.3, 2024-01-02) in ~/notes",
            "-e",
            "storage",
            "-f",
            "pyproject.toml",
            "--json",
        )
    )
    record = data["record"]
    assert record["entities"] == [
        "storage",
        "pyproject.toml",
        "Store",
        "src/a.py",
        "./lib/b.py",
        "README.md",
        "~/notes",
    ]
    assert record["files"] == ["pyproject.toml"]


@pytest.mark.parametrize(
    ("args", "quality"),
    [
        (["Use X"], 0.0),
        (["Use X because: fast"], 0.3),
        (["Use X because: fast vs: Y"], 0.5),
        (["Use X in src/x.py because: fast vs: Y"], 0.65),
        (["Use X because: fast vs: Y", "--type", "tooling"], 0.6),
        (["Use X", "-t", "infra"], 0.1),
        (["Use X", "-t", "web", "--project", "web"], 0.0),
        (["We will use X for every new service"], 0.15),
        (
            ["We will use X for every new service because: y vs: z", "-e", "svc",
             "--type", "architecture", "-t", "infra"],
            1.0,
        ),
    ],
)  # fmt: skip
def test_remember_spec_quality(run: Run, args: list[str], quality: float) -> None:
    data = ok(run("remember", *args, "--json"))
    assert data["record"]["spec_quality"] == quality


def test_remember_rejects_kind_flags(run: Run, data_dir: Path) -> None:
    result = run("remember", "Use X", "--pattern")
    assert result.exit_code == 2
    assert "No such option '--pattern'" in result.stderr
    assert snapshot(data_dir) == {}


# --- learn ---------------------------------------------------------------------------


def test_learn_writes_one_yaml_document(run: Run, data_dir: Path) -> None:
    data = ok(
        run(
            "learn",
            "Retry on 429",
            "--solution",
            "backoff: 3 tries",
            "--problem",
            "rate limits",
            "--context",
            "HTTP",
            "--category",
            "network",
            "--origin",
            "incident",
            "--confidence",
            "0.7",
            "--example",
            "a, b",
            "--example",
            "c",
            "-t",
            "http",
            "--json",
        )
    )
    assert data["type"] == "pattern"
    pattern_id = data["id"]
    files = list((data_dir / "patterns/data/patterns").iterdir())
    assert [f.name for f in files] == [f"{pattern_id}.yaml"]
    assert files[0].read_text("utf-8") == (
        f"id: {pattern_id}\n"
        f"timestamp: '{NOW}'\n"
        "name: Retry on 429\n"
        "context: HTTP\n"
        "problem: rate limits\n"
        "solution: 'backoff: 3 tries'\n"
        "category: network\n"
        "origin: incident\n"
        "confidence: 0.7\n"
        "validations: 0\n"
        "examples:\n"
        "  - a, b\n"
        "  - c\n"
        "status: active\n"
        "flags: []\n"
        "inverted_to:\n"
        "session_id:\n"
        "project:\n"
        "source: manual\n"
        "tags:\n"
        "  - http\n"
        "v: 1\n"
    )
    shown = run("show", pattern_id, "--json")
    assert json.loads(shown.stdout) == data["record"]


def test_learn_refuses_decision_flags(run: Run, data_dir: Path) -> None:
    result = run("learn", "Retry on 429", "-r", "why", "--outcome", "successful", "-q")
    assert result.exit_code == 2
    assert result.stderr == (
        "lore: error: not a flag of a pattern: --outcome (decision), --rationale (decision); "
        "nothing was written\n"
    )
    assert not [p for p in data_dir.rglob("*") if p.is_file()]


# --- observe -------------------------------------------------------------------------


def test_observe(run: Run, data_dir: Path) -> None:
    data = ok(run("observe", "Docs build takes 4 minutes", "-t", "ci", "--source", "hook",
                  "--json"))  # fmt: skip
    assert data["record"] == {
        "id": data["id"],
        "timestamp": NOW,
        "content": "Docs build takes 4 minutes",
        "status": "raw",
        "promoted_to": None,
        "discard_reason": "",
        **{**COMMON, "source": "hook", "tags": ["ci"]},
    }
    assert log(data_dir, "inbox/data/observations.jsonl") == [data["record"]]


# --- fail ----------------------------------------------------------------------------


def test_fail(run: Run, data_dir: Path) -> None:
    data = ok(run("fail", "NonZeroExit", "npm test exited 1", "--tool", "npm", "--step", "test",
                  "-t", "ci", "--json"))  # fmt: skip
    assert data["record"] == {
        "id": data["id"],
        "timestamp": NOW,
        "error_type": "NonZeroExit",
        "error_message": "npm test exited 1",
        "tool": "npm",
        "step": "test",
        **{**COMMON, "tags": ["ci"]},
    }
    assert "rule_of_three" not in data
    assert log(data_dir, "failures/data/failures.jsonl") == [data["record"]]


def test_fail_message_from_stdin(run: Run, data_dir: Path) -> None:
    data = ok(run("fail", "Timeout", "-", "--json", input="pytest hung\nafter 10 min\n"))
    assert data["record"]["error_message"] == "pytest hung\nafter 10 min"
    data = ok(run("fail", "Timeout", "--json", input="piped message"))
    assert data["record"]["error_message"] == "piped message"


def test_fail_needs_a_message(run: Run, data_dir: Path) -> None:
    result = run("fail", "Timeout", "--json", input="")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"] == "nothing to capture: the text is empty"
    result = run("fail")
    assert result.exit_code == 2
    assert "Missing argument 'ERROR_TYPE'" in result.stderr
    assert snapshot(data_dir) == {}


def test_fail_has_no_error_type_option(run: Run, data_dir: Path) -> None:
    result = run("fail", "Timeout", "x", "--error-type", "Other")
    assert result.exit_code == 2
    assert "No such option '--error-type'" in result.stderr
    assert snapshot(data_dir) == {}


@pytest.mark.parametrize("error_type", ["not valid", "9Lives", "a" * 81, "x/y"])
def test_fail_error_type_must_be_an_identifier(run: Run, data_dir: Path, error_type: str) -> None:
    result = run("fail", error_type, "msg", "--json")
    assert result.exit_code == 4
    data = json.loads(result.stdout)
    assert (data["code"], data["field"], data["kind"]) == ("invalid", "error_type", "failure")
    assert snapshot(data_dir) == {}


RULE = (
    "lore: Rule of Three: {n} failures of type Timeout. "
    'Name it: lore promote-failure Timeout --fix "..." (a PITFALL anti-pattern), '
    'or lore learn "..." --solution "..." --tags Timeout (a pattern)\n'
)


def test_rule_of_three(run: Run, data_dir: Path) -> None:
    ok(run("fail", "Timeout", "one", "--json"))
    ok(run("fail", "Other", "unrelated", "--json"))
    for n, message in ((2, "two"), (3, "three"), (4, "four")):
        result = run("fail", "Timeout", message, "--json")
        data = ok(result)
        if n < 3:
            assert "rule_of_three" not in data
            assert result.stderr == ""
        else:
            assert list(data) == ["ok", "id", "type", "timestamp", "record", "rule_of_three"]
            assert data["rule_of_three"] == {
                "error_type": "Timeout",
                "count": n,
                "pitfall": None,
                "pattern": None,
            }
            assert result.stderr == RULE.format(n=n)
    # human output: the note is on stderr, never on stdout
    result = run("fail", "Timeout", "five")
    assert result.exit_code == 0
    assert result.stdout.startswith("failure fail-") and "Rule of Three" not in result.stdout
    assert result.stderr == RULE.format(n=5)
    # the other type stays below the threshold
    result = run("fail", "Other", "again", "-q")
    assert result.stderr == ""


@pytest.mark.parametrize("warm", [False, True], ids=["log", "index"])
def test_rule_of_three_counts_the_same_with_or_without_an_index(run: Run, warm: bool) -> None:
    from lore.index.persist import index_path
    from lore.store.core import Store

    ok(run("fail", "Flaky", "t1", "--json"))
    if warm:
        ok(run("index", "rebuild", "--json"))
    ok(run("fail", "flaky", "other case: another type", "--json"))
    data = ok(run("fail", "Flaky", "t2", "--json"))
    assert "rule_of_three" not in data  # 2 Flaky ("flaky" is another type: not in the vocabulary)
    data = ok(run("fail", "Flaky", "t3", "--json"))
    assert data["rule_of_three"] == {
        "error_type": "Flaky",
        "count": 3,
        "pitfall": None,
        "pattern": None,
    }
    root = Store(None).root
    assert index_path(root).exists() is warm  # fail itself never builds the index


def test_rule_of_three_via_capture(run: Run) -> None:
    for _ in range(2):
        assert run("capture", "x", "--error-type", "Timeout", "-q").stderr == ""
    result = run("capture", "x", "--error-type", "Timeout", "-q")
    assert result.stderr == RULE.format(n=3)


COMMON_OPTIONS = {"tags", "source", "project", "force", "allow_secret", "quiet", "as_json"}


@pytest.mark.parametrize("name", ["capture", "remember", "learn", "observe", "fail"])
def test_shortcuts_parse_the_same_flags_as_capture(name: str) -> None:
    import click

    from lore.cli import cli
    from lore.cli.capture import FIELD_NAMES, KIND_FLAGS

    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    options = {p.name for p in command.params if isinstance(p, click.Option)}
    fields = set(FIELD_NAMES) - ({"error_type"} if name == "fail" else set())
    kinds = set(KIND_FLAGS) if name == "capture" else set()
    assert options == fields | COMMON_OPTIONS | kinds


@pytest.mark.parametrize(
    ("command", "kind"),
    [("remember", "decision"), ("learn", "pattern"), ("observe", "observation")],
)
def test_shortcut_refuses_flags_of_other_kinds(
    run: Run, data_dir: Path, command: str, kind: str
) -> None:
    result = run(command, "Some text", "--tool", "npm", "--alias", "a", "-q")
    assert result.exit_code == 2
    assert result.stdout == ""
    article = "an" if kind[0] in "aeiou" else "a"
    assert result.stderr == (
        f"lore: error: not a flag of {article} {kind}: --alias (concept), --tool (failure); "
        "nothing was written\n"
    )
    assert not [p for p in data_dir.rglob("*") if p.is_file()]
