"""Issue 7, capture: stdin `-`, wrong-kind flags, per-kind --help, error types, retract of
every log kind, the Rule of Three hint and promote-failure's answer for an unknown type."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]
ROOT = Path(__file__).resolve().parents[2]
LORE = Path(sys.executable).parent / "lore"


def ok(result: Result) -> Any:
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def files(data_dir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(data_dir)): p.read_bytes() for p in data_dir.rglob("*.json*")} | {
        str(p.relative_to(data_dir)): p.read_bytes() for p in data_dir.rglob("*.yaml")
    }


def shell(script: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run ``script`` under sh with the installed lore first on PATH, as a user would."""
    environ = {k: v for k, v in os.environ.items() if k != "LORE_STDIN_TIMEOUT"}
    environ.update(
        PATH=f"{LORE.parent}{os.pathsep}{environ.get('PATH', '')}",
        LORE_DATA_DIR=str(tmp_path / "root"),
        **env,
    )
    return subprocess.run(
        ["sh", "-c", script], capture_output=True, text=True, env=environ, timeout=60
    )


# --- stdin ---------------------------------------------------------------------------


@pytest.mark.skipif(not LORE.exists(), reason="needs the installed lore (.venv/bin/lore)")
def test_dash_waits_for_a_producer_slower_than_the_stdin_timeout(tmp_path: Path) -> None:
    done = shell(
        "(sleep 1; echo boom) | lore fail NonZeroExit - --tool pytest --json",
        tmp_path,
        LORE_STDIN_TIMEOUT="0.3",
    )
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)["record"]
    assert (record["error_type"], record["error_message"], record["tool"]) == (
        "NonZeroExit",
        "boom",
        "pytest",
    )
    log = tmp_path / "root" / "failures" / "data" / "failures.jsonl"
    assert [json.loads(line)["id"] for line in log.read_text().splitlines()] == [record["id"]]


@pytest.mark.skipif(not LORE.exists(), reason="needs the installed lore (.venv/bin/lore)")
def test_implicit_stdin_keeps_its_guard_and_names_the_way_out(tmp_path: Path) -> None:
    # The producer writes only once lore has given up (however slowly a loaded machine
    # starts it); a lore that kept waiting would never see it give up: a hang, caught by
    # shell()'s timeout.
    done = shell(
        "(until [ -e gave-up ]; do sleep 0.05; done; echo boom) 2>/dev/null"
        " | { lore fail NonZeroExit --tool pytest; status=$?; touch gave-up; exit $status; }",
        tmp_path,
        LORE_STDIN_TIMEOUT="0.3",
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "lore: error: no message given: stdin is open but nothing arrived within 0.3s; "
        "pass - as the message to wait for the pipe to close, or raise LORE_STDIN_TIMEOUT\n"
    )
    assert not (tmp_path / "root" / "failures" / "data" / "failures.jsonl").exists()


PIPED_CAPTURE = re.compile(r"\|\s*lore\s+(capture|remember|learn|fail|observe|handoff)\b(.*)")


def _piped_examples() -> list[tuple[str, str]]:
    import click

    from lore.cli import LAZY_COMMANDS, cli

    found = []
    sources = {str(p.relative_to(ROOT)): p.read_text() for p in ROOT.glob("docs/**/*.md")}
    sources["README.md"] = (ROOT / "README.md").read_text()
    for name in LAZY_COMMANDS:
        command = cli.get_command(click.Context(cli), name)
        assert command is not None
        sources[f"lore {name} --help"] = command.help or ""
    for where, text in sources.items():
        for line in text.splitlines():
            match = PIPED_CAPTURE.search(line)
            if match:
                found.append((where, line.strip()))
    return found


def test_every_piped_example_passes_dash() -> None:
    examples = _piped_examples()
    assert examples, "no piped example found: the pattern is wrong"
    without = [
        (where, line)
        for where, line in examples
        if " - " not in PIPED_CAPTURE.search(line).group(2) + " "  # type: ignore[union-attr]
    ]
    assert without == []


# --- flags of other kinds and --help -----------------------------------------------


def test_fail_with_a_pattern_flag_is_a_usage_error_that_writes_nothing(
    run: Run, data_dir: Path
) -> None:
    result = run("fail", "Timeout", "conflicting", "--solution", "retry", "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout) == {
        "ok": False,
        "error": "not a flag of a failure: --solution (pattern); nothing was written",
        "code": "usage",
        "kind": "failure",
    }
    assert files(data_dir) == {}


HEADINGS = re.compile(r"^(\S[^:]*):$", re.MULTILINE)


def _help(run: Run, name: str) -> str:
    result = run(name, "--help")
    assert result.exit_code == 0
    return result.stdout


def _flags(text: str) -> set[str]:
    return set(re.findall(r"^\s+(?:-\w, )?(--[a-z-]+)", text, re.MULTILINE))


COMMON = {"--tag", "--source", "--project", "--force", "--allow-secret", "--quiet", "--json",
          "--help"}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "heading", "own"),
    [
        ("fail", "Failure options", {"--tool", "--step"}),
        (
            "learn",
            "Pattern options",
            {
                "--solution",
                "--problem",
                "--context",
                "--category",
                "--origin",
                "--confidence",
                "--example",
            },
        ),
        (
            "remember",
            "Decision options",
            {
                "--rationale",
                "--alternatives",
                "--type",
                "--files",
                "--entities",
                "--outcome",
                "--lesson",
                "--related",
                "--supersedes",
            },
        ),
        ("observe", None, set()),
    ],
)
def test_shortcut_help_shows_only_its_own_kind(
    run: Run, name: str, heading: str | None, own: set[str]
) -> None:
    text = _help(run, name)
    assert _flags(text) == own | COMMON
    expected = ([heading] if heading else []) + ["Common options"]
    assert HEADINGS.findall(text) == expected


def test_capture_help_groups_flags_by_kind(run: Run) -> None:
    text = _help(run, "capture")
    assert HEADINGS.findall(text) == [
        "Kind options (at most one)",
        "Decision options",
        "Pattern options",
        "Anti-pattern options",
        "Failure options",
        "Evidence options",
        "Concept options",
        "Common options",
    ]
    section = text.split("Failure options:\n", 1)[1].split("\n\n", 1)[0]
    assert _flags(section) == {"--error-type", "--tool", "--step"}
    section = text.split("Evidence options:\n", 1)[1].split("\n\n", 1)[0]
    assert _flags(section) == {"--confidence", "--provenance", "--supports"}


# --- error types -----------------------------------------------------------------------


def test_vocabulary_types_match_in_any_case_and_keep_their_spelling(run: Run) -> None:
    first = ok(run("fail", "NonZeroExit", "a", "--json"))
    second = ok(run("fail", "nonzeroexit", "b", "--json"))
    third = run("fail", "NONZEROEXIT", "c", "--json")
    assert [r["record"]["error_type"] for r in (first, second, ok(third))] == ["NonZeroExit"] * 3
    assert ok(third)["rule_of_three"] == {
        "error_type": "NonZeroExit",
        "count": 3,
        "pitfall": None,
        "pattern": None,
    }
    assert run("fail", "timeout", "d", "-q").stderr == ""  # no warning: a known type


def test_a_new_type_near_a_known_one_is_warned_about(run: Run) -> None:
    ok(run("fail", "FlakyTest", "a", "--json"))
    ok(run("fail", "FlakyTest", "b", "--json"))
    result = run("fail", "FlakyTst", "c", "--json")
    new = ok(result)["id"]
    assert ok(result)["record"]["error_type"] == "FlakyTst"  # recorded as given
    assert result.stderr == (
        "lore: warning: new error type FlakyTst is close to FlakyTest (2 failures): if it is "
        f"the same kind of failure, use that spelling (lore retract {new} undoes this one)\n"
    )
    result = run("fail", "NonZeroExt", "d", "-q")  # near the vocabulary too
    assert "new error type NonZeroExt is close to NonZeroExit:" in result.stderr
    assert run("fail", "FlakyTst", "e", "-q").stderr == ""  # known now: no more warning
    assert run("fail", "Segfault", "f", "-q").stderr == ""  # far from every type


# --- retract every log kind ------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kind", "log"),
    [
        (["fail", "Timeout", "slow"], "failure", "failures/data/failures.jsonl"),
        (["observe", "CI is slow"], "observation", "inbox/data/observations.jsonl"),
        (
            ["capture", "It is faster", "--provenance", "bench"],
            "evidence",
            "evidence/data/evidence.jsonl",
        ),
    ],
)
def test_retract_works_for_every_log_kind(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], kind: str, log: str
) -> None:
    monkeypatch.setenv("LORE_NOW", "2026-03-01T00:00:00.000000Z")
    created = ok(run(*args, "--json"))["record"]
    monkeypatch.setenv("LORE_NOW", "2026-03-02T00:00:00.000000Z")
    reply = ok(run("retract", created["id"], "--reason", "wrong", "--json"))
    record = {
        **created,
        "retracted_at": "2026-03-02T00:00:00.000000Z",
        "retraction_reason": "wrong",
    }
    assert reply == {
        "ok": True,
        "id": created["id"],
        "type": kind,
        "timestamp": created["timestamp"],  # the record's own, as every write reply
        "retracted_at": "2026-03-02T00:00:00.000000Z",
        "record": record,
    }
    lines = [json.loads(line) for line in (data_dir / log).read_text().splitlines()]
    assert lines == [
        created,
        {
            "_op": "revise",
            "id": created["id"],
            "timestamp": "2026-03-02T00:00:00.000000Z",
            "set": {"retracted_at": "2026-03-02T00:00:00.000000Z", "retraction_reason": "wrong"},
        },
    ]
    assert ok(run("list", kind, "--json")) == []
    assert ok(run("list", kind, "--all", "--json")) == [record]
    again = run("retract", created["id"])
    assert (again.exit_code, again.stderr) == (
        4,
        f"lore: error: {created['id']} is already retracted\n",
    )
    assert ok(run("validate", "--json"))["ok"] is True


def test_retracted_failures_leave_the_rule_of_three_and_resume(run: Run) -> None:
    ids = [ok(run("fail", "Timeout", f"t{n}", "--json"))["id"] for n in range(3)]
    assert "Timeout x3" in run("resume").stdout
    ok(run("retract", ids[0], "--json"))
    assert "Timeout x" not in run("resume").stdout
    assert ok(run("resume", "--json"))["recurring_failures"] == []
    data = ok(run("fail", "Timeout", "t3", "--json"))
    assert data["rule_of_three"]["count"] == 3  # t1, t2, t3: the retracted one does not count
    result = run("promote-failure", "Timeout", "--json")
    assert ok(result)["promoted"][0]["count"] == 3


def test_retracted_observations_leave_resume(run: Run) -> None:
    kept = ok(run("observe", "kept note", "--json"))["id"]
    gone = ok(run("observe", "withdrawn note", "--json"))["id"]
    ok(run("retract", gone, "--json"))
    shown = ok(run("resume", "--json"))["reconstructed"]["recent_observations"]
    assert [o["id"] for o in shown] == [kept]


def test_validate_leaves_retracted_records_out(run: Run, data_dir: Path) -> None:
    evidence = ok(run("capture", "Backs it", "--provenance", "log", "--json"))["record"]
    bad = {**evidence, "id": "evi-00000000000b", "supports": ["dec-000000000404"]}
    log = data_dir / "evidence" / "data" / "evidence.jsonl"
    with log.open("a") as out:
        out.write(json.dumps(bad) + "\n")
    report = json.loads(run("validate", "--json").stdout)
    assert [i["code"] for i in report["issues"]] == ["dangling-reference"]
    ok(run("retract", "evi-00000000000b", "--json"))
    assert ok(run("validate", "--json"))["issues"] == []


def test_documents_keep_their_refusal(run: Run) -> None:
    from lore.components.intent import Goal
    from lore.store.core import Store

    store = Store(None)
    store.add([Goal(id="goal-00000000000a", timestamp="2026-03-01T00:00:00Z", title="g")])
    result = run("retract", "goal-00000000000a")
    assert (result.exit_code, result.stderr) == (4, "lore: error: a goal cannot be retracted\n")


# --- Rule of Three hint and promote-failure ----------------------------------------------


def test_rule_of_three_hint_names_the_pitfall_once_one_exists(run: Run) -> None:
    for n in range(3):
        run("fail", "NonZeroExit", f"exit {n}", "-q")
    anti = ok(run("promote-failure", "NonZeroExit", "--json"))["promoted"][0]["id"]
    result = run("fail", "NonZeroExit", "exit 4", "--json")
    assert ok(result)["rule_of_three"] == {
        "error_type": "NonZeroExit",
        "count": 4,
        "pitfall": anti,
        "pattern": None,
    }
    assert result.stderr == (
        f'lore: Rule of Three: 4 failures of type NonZeroExit, already named: {anti} "PITFALL: '
        'NonZeroExit" (lore promote-failure NonZeroExit updates it)\n'
    )
    assert "Name it" not in result.stderr
    run("index", "rebuild")  # the same answer from a warm index
    result = run("fail", "NonZeroExit", "exit 5", "--json")
    assert ok(result)["rule_of_three"]["pitfall"] == anti


def test_promote_failure_of_a_type_without_failures_lists_close_types(run: Run) -> None:
    for error_type in ("NonZeroExit", "NonZeroExit", "NonZeroExt", "Timeout"):
        run("fail", error_type, "x", "-q")
    result = run("promote-failure", "NonZeroExi", "--json")
    assert result.exit_code == 4
    assert json.loads(result.stdout) == {
        "ok": False,
        "error": "no failure has error type NonZeroExi; close types: NonZeroExit (2), "
        "NonZeroExt (1)",
        "code": "invalid",
        "error_type": "NonZeroExi",
        "count": 0,
        "close": ["NonZeroExit", "NonZeroExt"],
    }
    result = run("promote-failure", "Bogus")
    assert (result.exit_code, result.stderr) == (
        4,
        "lore: error: no failure has error type Bogus; the most frequent types: "
        "NonZeroExit (2), NonZeroExt (1), Timeout (1)\n",
    )
    assert "--threshold" not in result.stderr
    assert not list(Path(os.environ["LORE_DATA_DIR"]).rglob("anti-*.yaml"))


# --- acceptance (qa-i7): a shared flag's help speaks of the kind it is listed under ---------


def test_confidence_help_is_the_one_of_its_kind() -> None:
    lore = str(Path(sys.executable).parent / "lore")

    def help_of(*args: str) -> str:
        done = subprocess.run([lore, *args, "--help"], capture_output=True, text=True, check=True)
        return " ".join(done.stdout.split())

    learn = help_of("learn")
    assert "--confidence TEXT How sure it works, 0-1 (default 0.5)." in learn
    assert "evidence" not in learn
    capture = help_of("capture")
    assert capture.count("--confidence TEXT How sure it works, 0-1 (default 0.5).") == 1
    assert (
        capture.count(
            "--confidence TEXT One of preliminary, confirmed, contested, superseded "
            "(default preliminary)."
        )
        == 1
    )
