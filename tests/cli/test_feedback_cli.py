"""``lore review`` and ``lore promote-failure``: exact lines appended, refusals, resume shows it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import Result

from lore.store.documents import read_document

Run = Callable[..., Result]
NOW = "2026-03-10T12:00:00.000000Z"
OLD = "2026-03-01T09:00:00.000000Z"


def new_id(run: Run, *args: str, at: str | None = None) -> str:
    result = run(*args, "-q", env={"LORE_NOW": at} if at else None)
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


def ok_json(run: Run, *args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def decisions_file(data_dir: Path) -> Path:
    return data_dir / "journal" / "data" / "decisions.jsonl"


def pattern_file(data_dir: Path, pattern_id: str) -> Path:
    return data_dir / "patterns" / "data" / "patterns" / f"{pattern_id}.yaml"


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)


# --- listing ------------------------------------------------------------------------


def test_review_lists_pending_decisions_by_age(run: Run) -> None:
    old = new_id(run, "remember", "Adopt ruff", at=OLD)
    mid = new_id(run, "remember", "Use SQLite", at="2026-03-05T00:00:00.000000Z")
    new = new_id(run, "remember", "Rename the CLI", at="2026-03-09T00:00:00.000000Z")
    done = new_id(run, "remember", "Drop py3.9", "--outcome", "successful", at=OLD)
    result = run("review")
    assert result.exit_code == 0
    # stdout: one decision per line, nothing else (issue 8); the hint is on stderr
    assert result.stdout == f"{old}  2026-03-01  Adopt ruff\n{mid}  2026-03-05  Use SQLite\n"
    assert result.stderr == (
        "lore: resolve with: lore review --resolve ID --outcome successful|revised|abandoned\n"
    )
    assert [d["id"] for d in ok_json(run, "review", "--days", "0")["pending"]] == [old, mid, new]
    data = ok_json(run, "review", "--days", "6")
    assert list(data) == ["days", "pending"]
    assert data["days"] == 6
    assert [d["id"] for d in data["pending"]] == [old]
    assert data["pending"][0] == ok_json(run, "show", old)
    assert done not in {d["id"] for d in ok_json(run, "review", "--days", "0")["pending"]}


@pytest.mark.usefixtures("empty_root")
def test_review_with_nothing_pending(run: Run) -> None:
    result = run("review")
    assert (result.stdout, result.stderr) == (
        "",
        "lore: no decisions pending for more than 3 days\n",
    )
    result = run("review", "--days", "0")
    assert (result.stdout, result.stderr) == ("", "lore: no pending decisions\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--outcome", "successful"], "--outcome and --lesson go with --resolve ID"),
        (["--lesson", "x"], "--outcome and --lesson go with --resolve ID"),
        (
            ["--resolve", "dec-000000000000"],
            "--resolve needs --outcome successful|revised|abandoned",
        ),
    ],
)
def test_review_usage_errors(run: Run, args: list[str], message: str) -> None:
    result = run("review", *args)
    assert result.exit_code == 2
    assert result.stderr == f"lore: error: {message}\n"


# --- resolve ------------------------------------------------------------------------


def revision(decision_id: str, was: str = "pending", **changes: Any) -> bytes:
    line = {"_op": "revise", "id": decision_id, "timestamp": NOW, "set": changes}
    if "outcome" in changes:  # the value it replaced: `lore validate` tells clones apart
        line["was"] = {"outcome": was}
    return orjson.dumps(line)


def test_resolve_successful_raises_only_linked_patterns(run: Run, data_dir: Path) -> None:
    linked = new_id(run, "learn", "Cache invalidation by key", "-t", "cache", at=OLD)
    capped = new_id(run, "learn", "Warm the cache", "-t", "cache", "--confidence", "0.95")
    unrelated = new_id(run, "learn", "Retry flaky calls", "-t", "cache")  # a shared tag only
    dec = new_id(
        run,
        "remember",
        "Use SQLite for the cache",
        "-r",
        f"{linked} and {capped} say so",
        "-t",
        "cache",
        at=OLD,
    )
    before = pattern_file(data_dir, unrelated).read_bytes()
    data = ok_json(
        run, "review", "--resolve", dec, "--outcome", "successful", "--lesson", "fast enough"
    )
    assert decisions_file(data_dir).read_bytes().splitlines()[-1] == revision(
        dec, outcome="successful", resolved_at=NOW, lesson_learned="fast enough"
    )
    record = ok_json(run, "show", dec)
    assert (record["outcome"], record["resolved_at"], record["lesson_learned"]) == (
        "successful",
        NOW,
        "fast enough",
    )
    assert data == {
        "ok": True,
        "id": dec,
        "outcome": "successful",
        "record": record,
        "patterns_raised": [
            {"id": linked, "from": 0.5, "to": 0.6},
            {"id": capped, "from": 0.95, "to": 1.0},
        ],
        "failure_id": None,
    }
    shown = ok_json(run, "show", linked)
    assert (shown["confidence"], shown["validations"]) == (0.6, 1)
    assert ok_json(run, "show", capped)["confidence"] == 1.0
    assert pattern_file(data_dir, unrelated).read_bytes() == before


def test_resolve_text_output(run: Run) -> None:
    pat = new_id(run, "learn", "Cache by key", "-t", "cache")
    dec = new_id(run, "remember", "Cache responses", "-r", f"see {pat}")
    result = run("review", "--resolve", dec, "--outcome", "successful")
    assert result.stdout == (
        f"decision {dec}: successful\n  pattern {pat}: confidence 0.5 -> 0.6\n"
    )


def test_resolve_revised(run: Run, data_dir: Path) -> None:
    pat = new_id(run, "learn", "Cache by key", "-t", "cache")
    before = pattern_file(data_dir, pat).read_bytes()
    dec = new_id(run, "remember", "Cache responses", "-t", "cache")
    data = ok_json(run, "review", "--resolve", dec, "--outcome", "revised")
    assert decisions_file(data_dir).read_bytes().splitlines()[-1] == revision(
        dec, outcome="revised", resolved_at=NOW
    )
    assert (data["patterns_raised"], data["failure_id"]) == ([], None)
    assert pattern_file(data_dir, pat).read_bytes() == before
    assert not (data_dir / "failures").exists()


def test_resolve_abandoned_records_a_logic_error(run: Run, data_dir: Path) -> None:
    dec = new_id(run, "remember", "Use Redis for sessions", "--project", "web")
    result = run("review", "--resolve", dec, "--outcome", "abandoned", "--lesson", "ops cost")
    assert result.exit_code == 0, result.stderr
    (failure,) = ok_json(run, "list", "failures")
    assert result.stdout == (
        f"decision {dec}: abandoned\n  recorded failure {failure['id']} (LogicError)\n"
    )
    assert decisions_file(data_dir).read_bytes().splitlines()[-1] == revision(
        dec, outcome="abandoned", resolved_at=NOW, lesson_learned="ops cost"
    )
    assert failure == {
        "id": failure["id"],
        "timestamp": NOW,
        "error_type": "LogicError",
        "error_message": "Decision abandoned: Use Redis for sessions (lesson: ops cost)",
        "tool": "",
        "step": "review",
        "session_id": None,
        "project": "web",
        "source": "review",
        "tags": [dec, "web"],
        "v": 1,
    }


def refused(run: Run, data_dir: Path, *args: str) -> Result:
    before = {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()}
    result = run("review", *args, "--json")
    assert result.exit_code == 4
    assert json.loads(result.stdout)["code"] == "invalid"
    assert {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()} == before
    return result


def test_resolve_refusals_change_nothing(run: Run, data_dir: Path) -> None:
    new_id(run, "learn", "Cache by key", "-t", "cache")
    retracted = new_id(run, "remember", "Cache everything", "-t", "cache")
    assert run("retract", retracted).exit_code == 0
    resolved = new_id(run, "remember", "Cache with TTLs", "-t", "cache")
    ok_json(run, "review", "--resolve", resolved, "--outcome", "revised")
    obs = new_id(run, "observe", "not a decision")

    result = refused(run, data_dir, "--resolve", retracted, "--outcome", "successful")
    assert result.stderr == (
        f"lore: error: {retracted} is retracted; pass --force to resolve it anyway\n"
    )
    result = refused(run, data_dir, "--resolve", resolved, "--outcome", "successful")
    assert result.stderr == (
        f"lore: error: {resolved} is already resolved (revised); pass --force to resolve it again\n"
    )
    result = refused(run, data_dir, "--resolve", obs, "--outcome", "successful")
    assert result.stderr == f"lore: error: {obs} is an observation, not a decision\n"
    missing = run("review", "--resolve", "dec-000000000000", "--outcome", "revised")
    assert missing.exit_code == 3


def test_resolve_with_force(run: Run, data_dir: Path) -> None:
    pat = new_id(run, "learn", "Cache by key", "-t", "cache")
    dec = new_id(run, "remember", "Cache everything", "-r", f"per {pat}")
    assert run("retract", dec).exit_code == 0
    data = ok_json(run, "review", "--resolve", dec, "--outcome", "successful", "--force")
    assert data["patterns_raised"] == [{"id": pat, "from": 0.5, "to": 0.6}]
    assert data["record"]["status"] == "retracted"
    data = ok_json(run, "review", "--resolve", dec, "--outcome", "revised", "--force")
    assert data["record"]["outcome"] == "revised"
    assert decisions_file(data_dir).read_bytes().splitlines()[-1] == revision(
        dec, was="successful", outcome="revised", resolved_at=NOW
    )


# --- promote-failure ----------------------------------------------------------------


def test_promote_failure_then_resume_shows_the_pitfall(run: Run, data_dir: Path) -> None:
    for n in range(3):
        new_id(run, "fail", "Timeout", f"pytest timed out {n}", at=f"2026-03-0{n + 1}T00:00:00Z")
    new_id(run, "fail", "NonZeroExit", "make exited 2")
    result = run("promote-failure", "--fix", "run the slow tests with -n 2")
    assert result.exit_code == 0, result.stderr
    (file,) = (data_dir / "patterns" / "data" / "anti-patterns").glob("*.yaml")
    anti = file.stem
    assert result.stdout == f"created {anti}: PITFALL: Timeout (3 failures, medium)\n"
    resume = run("resume").stdout.splitlines()
    assert f"- PITFALL: Timeout — fix: run the slow tests with -n 2 ({anti}, medium)" in resume
    assert f'- Timeout x3: last "pytest timed out 2", see {anti}' in resume
    # Again, with hand-written notes in the file and no --fix: same file, notes and fix kept.
    text = file.read_text().replace(
        "fix: run the slow tests with -n 2\n", "fix: run the slow tests with -n 2  # on CI\n"
    )
    file.write_text("# seen on the CI runners only\n" + text)
    new_id(run, "fail", "Timeout", "pytest timed out 3")
    data = ok_json(run, "promote-failure", "Timeout")
    assert data["threshold"] == 3
    (promoted,) = data["promoted"]
    assert (promoted["id"], promoted["created"], promoted["count"]) == (anti, False, 4)
    assert promoted["record"]["fix"] == "run the slow tests with -n 2"
    assert [p.stem for p in file.parent.glob("*.yaml")] == [anti]
    assert file.read_text().startswith("# seen on the CI runners only\n")
    assert "fix: run the slow tests with -n 2  # on CI\n" in file.read_text()
    assert read_document(file)["failure_count"] == 4


def test_promote_failure_below_the_threshold(run: Run, data_dir: Path) -> None:
    new_id(run, "fail", "Timeout", "once")
    new_id(run, "fail", "Timeout", "twice")
    result = run("promote-failure", "Timeout", "--json")
    assert result.exit_code == 4
    assert json.loads(result.stdout) == {
        "ok": False,
        "error": "Timeout has 2 failures, fewer than the threshold of 3; lower it with --threshold",
        "code": "invalid",
        "error_type": "Timeout",
        "count": 2,
    }
    assert not (data_dir / "patterns").exists()
    nothing = run("promote-failure")
    assert (nothing.stdout, nothing.stderr) == (
        "",
        "lore: no failure type has 3 or more failures\n",
    )
    assert ok_json(run, "promote-failure", "--threshold", "2")["promoted"][0]["count"] == 2
