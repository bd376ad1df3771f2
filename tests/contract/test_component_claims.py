"""Claims of LORE_CONTRACT.md §6 and §8 about the component commands (journal, inbox,
evidence, patterns, suggest, goal, registry), checked against the CLI: the key order of
every write reply, and the text lines the contract spells out."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]
CAPTURE = ["ok", "id", "type", "timestamp", "record"]


def reply(run: Run, *args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def keys(run: Run, *args: str) -> list[str]:
    return list(reply(run, *args))


def new_id(run: Run, *args: str) -> str:
    return str(reply(run, *args)["id"])


def test_component_reply_shapes_follow_section_8(run: Run, tmp_path: Path) -> None:
    a = new_id(run, "remember", "Adopt Redis for sessions")
    b = new_id(run, "remember", "Adopt Valkey for sessions instead")
    assert keys(run, "journal", "update", a, "--outcome", "revised") == [*CAPTURE, "changed"]
    assert keys(run, "journal", "learn", a, "Licences matter") == [*CAPTURE, "changed"]
    assert keys(run, "journal", "link", a, b) == ["ok", "ids", "changed", "records"]
    assert keys(run, "journal", "supersede", a, "--by", b) == ["ok", "id", "changed", "old", "new"]
    assert keys(run, "journal", "stats") == ["total", "by_type", "by_outcome", "by_status"]
    assert keys(run, "journal", "export", "-o", str(tmp_path / "d.json")) == [
        "ok", "format", "exported", "file"
    ]  # fmt: skip
    assert keys(run, "journal", "export", "--format", "adr", "-o", str(tmp_path / "adr")) == [
        "ok", "format", "directory", "exported", "created", "updated", "unchanged"
    ]  # fmt: skip
    assert keys(run, "journal", "retract", a, "--reason", "replaced") == [
        "ok", "id", "type", "timestamp", "retracted_at", "record"
    ]  # fmt: skip
    obs = new_id(run, "observe", "Sessions vanish on restart")
    assert keys(run, "inbox", "promote", obs, "--to", "evidence") == [
        "ok", "id", "promoted_to", "observation", "target", "warnings"
    ]  # fmt: skip
    assert keys(run, "inbox", "discard", new_id(run, "observe", "noise"), "--reason", "r") == (
        CAPTURE
    )
    evi = new_id(run, "evidence", "add", "p99 is 2 ms")
    assert keys(run, "evidence", "update", evi, "--confidence", "confirmed") == [
        *CAPTURE, "changed"
    ]  # fmt: skip
    assert reply(run, "evidence", "stats") == {
        "total": 2, "preliminary": 1, "confirmed": 1, "contested": 0, "superseded": 0
    }  # fmt: skip
    pat = new_id(run, "learn", "Retry with backoff")
    assert keys(run, "patterns", "validate", pat) == [
        "ok", "id", "from", "to", "validations", "record"
    ]  # fmt: skip
    assert keys(run, "patterns", "flag", pat, "--reason", "r") == [
        "ok", "id", "flag", "from", "to", "harmful_flags", "inverted", "inverted_to", "record"
    ]  # fmt: skip
    warned = ["patterns", "warn", "Global state", "--symptom", "s", "--fix", "f"]
    assert keys(run, *warned) == [*CAPTURE, "warnings"]
    assert keys(run, "goal", "create", "Ship it", "--criterion", "c") == [*CAPTURE, "completion"]
    goal = reply(run, "goal", "list")[0]
    assert list(goal)[-1] == "completion"
    assert keys(run, "goal", "update", goal["id"], "--met", "sc-1") == [
        "ok", "id", "completion", "record"
    ]  # fmt: skip
    assert keys(run, "registry", "add", "shop") == ["ok", "id", "created", "record"]
    assert keys(run, "registry", "validate") == ["ok", "projects", "errors", "warnings", "issues"]
    assert keys(run, "registry", "context", "shop") == [
        "project", "local_path", "dependencies", "decisions", "patterns", "anti_patterns", "goals",
        "recurring_failures",
    ]  # fmt: skip
    assert keys(run, "registry", "remove", "shop") == ["ok", "id", "record", "dependents"]
    assert keys(run, "suggest", "retry") == ["query", "project", "patterns", "anti_patterns"]


def test_validate_text_counts_validations(run: Run) -> None:
    pat = new_id(run, "learn", "Retry with backoff")
    first = run("patterns", "validate", pat).stdout
    assert first == f"pattern {pat}: confidence 0.5 -> 0.6 (1 validation)\n"
    second = run("patterns", "validate", pat).stdout
    assert second == f"pattern {pat}: confidence 0.6 -> 0.7 (2 validations)\n"


def test_suggest_lines_have_a_score_only_when_ranked(run: Run) -> None:
    pat = new_id(run, "learn", "Retry flaky calls with backoff")
    anti = new_id(run, "patterns", "warn", "Global state", "--symptom", "s", "--fix", "f")
    assert run("suggest").stdout == (
        "## Patterns (1)\n"
        f"- pattern {pat}  Retry flaky calls with backoff\n"
        "## Anti-patterns (1)\n"
        f"- anti-pattern {anti}  Global state\n"
    )
    ranked = run("suggest", "retry", "calls").stdout.splitlines()
    assert ranked[0] == "## Patterns (1)"
    score, rest = ranked[1].removeprefix("- ").split("  ", 1)
    assert float(score) > 0 and rest == f"pattern {pat}  Retry flaky calls with backoff"
    assert ranked[2:] == ["## Anti-patterns (0)", "  (none)"]


BROKEN_FILES = {
    "decision": "journal/data/decisions.jsonl",
    "observation": "inbox/data/observations.jsonl",
    "evidence": "evidence/data/evidence.jsonl",
    "pattern": "patterns/data/patterns/pat-000000000bad.yaml",
    "goal": "intent/data/goals/goal-000000000bad.yaml",
}


@pytest.mark.parametrize(
    ("args", "kind"),
    [
        (["journal", "list"], "decision"),
        (["journal", "stats"], "decision"),
        (["inbox"], "observation"),
        (["evidence", "list"], "evidence"),
        (["evidence", "stats"], "evidence"),
        (["patterns", "list"], "pattern"),
        (["goal", "list"], "goal"),
    ],
)
def test_listings_warn_about_what_they_could_not_read(
    run: Run, data_dir: Path, args: list[str], kind: str
) -> None:
    """§5: something skipped is a `lore: warning:` on stderr, as `lore list` says it."""
    new_id(run, "remember", "Adopt Redis")
    new_id(run, "observe", "Redis is fast")
    new_id(run, "evidence", "add", "p99 is 2 ms")
    new_id(run, "learn", "Retry with backoff")
    new_id(run, "goal", "create", "Ship it")
    path = data_dir / BROKEN_FILES[kind]
    with path.open("a", encoding="utf-8") as out:
        out.write('{"broken\n' if path.suffix == ".jsonl" else "name: x\n  bad: [\n")
    for json_flag in ([], ["--json"]):
        result = run(*args, *json_flag)
        assert result.exit_code == 0
        assert f"lore: warning: {path}:" in result.stderr


def test_goal_list_line_layout(run: Run) -> None:
    goal = new_id(run, "goal", "create", "Ship it", "--priority", "high", "--criterion", "c")
    other = new_id(run, "goal", "create", "Write docs", "--deadline", "2027-01-31")
    assert run("goal", "list").stdout == (
        f"{goal}  active     high        0/1  -           Ship it\n"
        f"{other}  active     medium      0/0  2027-01-31  Write docs\n"
    )
