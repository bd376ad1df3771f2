"""PostToolUseFailure (and PostToolUse carrying a failure): the failed command recorded at
once, by ``lore ingest``'s rules and under its id, so a later ingestion of the transcript
meets the same record; the Rule of Three told in the session at a type's third failure.
PreCompact, Stop and SessionEnd ingest the transcript from its watermark."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import Result

from lore.ingest.ids import record_id
from lore.ingest.shell import key

Run = Callable[..., Result]
SESSION = "0f4c2a1e-9b8d-4c7e-a6f5-3d2c1b0a9e8f"
LORE_SESSION = "session-" + SESSION.replace("-", "")
FIXTURES = Path(__file__).parent.parent / "fixtures" / "hooks"
PYTEST_OUTPUT = (
    "Exit code 1\n"
    "============================= test session starts ==============================\n"
    "collected 4 items\n\ntests/test_client.py ...F                                    [100%]\n\n"
    "FAILED tests/test_client.py::test_retry - AssertionError: assert 2 == 3\n"
    "========================= 1 failed, 3 passed in 0.21s ========================="
)


@pytest.fixture(autouse=True)
def hook_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_SESSION_ID", "")
    monkeypatch.delenv("LORE_HOOKS_PAUSE", raising=False)


def failing(command: str, output: str = PYTEST_OUTPUT, session: str = SESSION) -> dict[str, Any]:
    """A PostToolUseFailure payload as Claude Code sends it (code.claude.com/docs/en/hooks)."""
    return {
        "session_id": session,
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": os.getcwd(),
        "permission_mode": "default",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Run the tests"},
        "tool_use_id": "toolu_01ABC",
        "error": output,
        "is_interrupt": False,
    }


def hook(run: Run, payload: dict[str, Any], event: str = "post-tool-use-failure") -> Any:
    result = run("hooks", "run", event, input=json.dumps(payload))
    assert (result.exit_code, result.stderr) == (0, "")
    if not result.stdout:
        return None
    out = json.loads(result.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == payload["hook_event_name"]
    return out["hookSpecificOutput"]["additionalContext"]


def failures(data_dir: Path) -> list[dict[str, Any]]:
    from lore.store.core import Store

    return [r.to_dict() for r in Store(data_dir).records("failure")]


def test_a_failing_test_command_writes_one_failure(run: Run, data_dir: Path) -> None:
    command = "pytest -q tests/test_client.py"
    assert hook(run, failing(command)) is None  # the first failure: nothing to tell yet
    (record,) = failures(data_dir)
    assert record["id"] == record_id("fail", f"claude:{SESSION}", key(command))
    assert {k: record[k] for k in ("error_type", "tool", "source", "session_id")} == {
        "error_type": "TestFailure",
        "tool": command,
        "source": "hook",
        "session_id": LORE_SESSION,
    }
    assert record["error_message"] == "1 failed, 3 passed in 0.21s"
    assert (record["exit_code"], record["occurrences"]) == (1, 1)
    # The same command failing again counts on the same record.
    assert hook(run, failing(command)) is None
    (again,) = failures(data_dir)
    assert (again["id"], again["occurrences"]) == (record["id"], 2)


def test_the_third_failure_of_a_type_tells_the_rule_of_three_once(run: Run, data_dir: Path) -> None:
    assert hook(run, failing("pytest -q tests/test_a.py")) is None
    assert hook(run, failing("pytest -q tests/test_b.py")) is None
    told = hook(run, failing("pytest -q tests/test_a.py"))
    assert told == (
        "lore: Rule of Three: 3rd failure of type TestFailure in this session (2 in lore). "
        "Stop retrying the same way.\n"
        "No PITFALL names it yet: if these failures share a cause, record the fix "
        '(lore promote-failure TestFailure --fix "...") so the next session is warned.'
    )
    assert hook(run, failing("pytest -q tests/test_c.py")) is None  # told once per session
    assert len(failures(data_dir)) == 3
    # Another session counts its own.
    other = "9e8f7d6c-5b4a-3f2e-1d0c-abcdef012345"
    for _ in range(2):
        assert hook(run, failing("pytest -q tests/test_a.py", session=other)) is None
    assert "3rd failure of type TestFailure" in hook(run, failing("pytest", session=other))


def test_the_rule_of_three_names_the_pitfall(run: Run) -> None:
    run("fail", "TestFailure", "flaky fixture", "--tool", "pytest")
    promoted = run(
        "promote-failure",
        "TestFailure",
        "--threshold",
        "1",
        "--fix",
        "pytest -p no:randomly",
        "--json",
    )
    assert promoted.exit_code == 0, promoted.stderr
    pitfall = json.loads(promoted.stdout)["promoted"][0]["id"]
    for n in range(3):
        told = hook(run, failing(f"pytest -q tests/test_{n}.py"))
    assert (
        told.splitlines()[1]
        == f'Known: {pitfall} "PITFALL: TestFailure". Fix: pytest -p no:randomly'
    )


def test_a_failure_whose_first_write_failed_is_recorded_by_the_next(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first write timed out (a `lore sync` held the root's lock): the session's state
    # counted the command all the same, and the repeats then only tried to raise the
    # occurrences of a record that did not exist, so nothing was ever recorded.
    import lore.capture.core as capture_core
    from lore.errors import LockTimeoutError

    real = capture_core.capture
    calls = []

    def busy_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs.get("record_id"))
        if len(calls) == 1:
            raise LockTimeoutError("lore sync is running git there")
        return real(*args, **kwargs)

    monkeypatch.setattr(capture_core, "capture", busy_once)
    command = "pytest -q tests/test_client.py"
    assert hook(run, failing(command)) is None
    assert failures(data_dir) == []
    assert hook(run, failing(command)) is None
    (record,) = failures(data_dir)
    assert (record["tool"], record["occurrences"]) == (command, 2)
    told = hook(run, failing(command))
    assert told.startswith(
        "lore: Rule of Three: 3rd failure of type TestFailure in this session (1 in lore)."
    )
    (record,) = failures(data_dir)
    assert record["occurrences"] == 3


def test_the_rule_of_three_never_counts_in_lore_what_lore_does_not_hold(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lore.capture.core as capture_core
    from lore.errors import LockTimeoutError

    def busy(*args: Any, **kwargs: Any) -> Any:
        raise LockTimeoutError("lore sync is running git there")

    monkeypatch.setattr(capture_core, "capture", busy)
    for n in range(2):
        assert hook(run, failing(f"pytest -q tests/test_{n}.py")) is None
    told = hook(run, failing("pytest -q tests/test_2.py"))
    assert told.startswith(  # before: "(3 in lore)", with nothing in lore
        "lore: Rule of Three: 3rd failure of type TestFailure in this session (0 in lore)."
    )
    assert failures(data_dir) == []


def test_paused_the_failure_is_recorded_but_nothing_told(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_HOOKS_PAUSE", "1")
    for n in range(3):
        assert hook(run, failing(f"pytest tests/test_{n}.py")) is None
    assert len(failures(data_dir)) == 3


def test_what_is_not_a_failure_writes_nothing(run: Run, data_dir: Path) -> None:
    # A search that found nothing, a cancelled sibling call, and successful commands.
    assert hook(run, failing("grep -rn needle src", output="Exit code 1")) is None
    sibling = "<tool_use_error>Sibling tool call errored</tool_use_error>"
    assert hook(run, failing("pytest -q", output=sibling)) is None
    for line in (FIXTURES / "claude-payloads.jsonl").read_text().splitlines():
        payload = json.loads(line)
        if payload["hook_event_name"] == "PostToolUse":
            assert hook(run, payload, "PostToolUse") is None
    assert failures(data_dir) == []


def test_an_interrupted_command_in_a_post_tool_use_result_is_a_failure(
    run: Run, data_dir: Path
) -> None:
    payload = {
        "session_id": SESSION,
        "cwd": os.getcwd(),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "npm run build", "description": "Build"},
        "tool_response": {
            "stdout": "building...",
            "stderr": "",
            "interrupted": True,
            "isImage": False,
        },
    }
    assert hook(run, payload, "post-tool-use") is None
    (record,) = failures(data_dir)
    assert (record["error_type"], record["tool"]) == ("Interrupted", "npm run build")


def transcript_lines(command: str) -> list[dict[str, Any]]:
    """A Claude Code transcript where ``command`` failed (its tool_use and tool_result)."""
    base = {"sessionId": SESSION, "cwd": os.getcwd(), "version": "2.1.31", "isSidechain": False}
    return [
        {**base, "type": "user", "uuid": "u1", "timestamp": "2026-11-20T10:00:00.000Z",
         "message": {"role": "user", "content": "Fix the retry test please"}},
        {**base, "type": "assistant", "uuid": "a1", "timestamp": "2026-11-20T10:00:05.000Z",
         "message": {"role": "assistant", "content": [
             {"type": "tool_use", "id": "toolu_01ABC", "name": "Bash",
              "input": {"command": command, "description": "Run the tests"}}]}},
        {**base, "type": "user", "uuid": "u2", "timestamp": "2026-11-20T10:00:09.000Z",
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "toolu_01ABC", "is_error": True,
              "content": PYTEST_OUTPUT}]},
         "toolUseResult": "Error: " + PYTEST_OUTPUT},
    ]  # fmt: skip


def test_the_hook_and_a_later_ingestion_meet_in_one_record(
    run: Run, data_dir: Path, tmp_path: Path
) -> None:
    command = "pytest -q tests/test_client.py"
    transcript = tmp_path / f"{SESSION}.jsonl"
    transcript.write_text(
        "".join(orjson.dumps(x).decode() + "\n" for x in transcript_lines(command))
    )
    assert hook(run, {**failing(command), "transcript_path": str(transcript)}) is None
    stop = {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": os.getcwd(),
        "hook_event_name": "Stop",
    }
    assert hook(run, stop, "stop") is None
    (record,) = failures(data_dir)
    assert record["occurrences"] == 1  # the hook's count and the transcript's agree
    assert record["provenance"] == {
        "transcript": str(transcript),
        "session": SESSION,
        "lines": [2, 3],
    }
    again = run("ingest", str(transcript), "--json")
    assert again.exit_code == 0, again.stderr
    assert json.loads(again.stdout)["totals"]["failures_new"] == 0
    assert len(failures(data_dir)) == 1


def test_a_subagent_failure_meets_the_ingestion_of_its_subagent_file(
    run: Run, data_dir: Path, tmp_path: Path
) -> None:
    # Inside a subagent Claude Code's hook payload carries the parent's session_id and
    # the subagent's agent_id; `lore ingest` reads the subagent's own file
    # (<session>/subagents/agent-<agent_id>.jsonl) under a scope of its own. Lines 1-3
    # of claude-subagent.jsonl, with the Read that failed turned into a failing command.
    source = FIXTURES.parent.parent / "ingest" / "fixtures" / "claude-subagent.jsonl"
    lines = [orjson.loads(x) for x in source.read_bytes().splitlines()[:3]]
    session, agent = lines[0]["sessionId"], lines[0]["agentId"]
    command = "mix test test/spotter_web/live/session_live_test.exs"
    lines[1]["message"]["content"][0].update(
        name="Bash", input={"command": command, "description": "Run the tests"}
    )
    lines[2]["message"]["content"][0]["content"] = PYTEST_OUTPUT
    folder = tmp_path / session / "subagents"
    folder.mkdir(parents=True)
    transcript = folder / f"agent-{agent}.jsonl"
    transcript.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    payload = {**failing(command, session=session), "agent_id": agent, "agent_type": "Explore"}
    assert hook(run, payload) is None
    ingested = run("ingest", str(transcript), "--json")
    assert ingested.exit_code == 0, ingested.stderr
    (record,) = failures(data_dir)  # before: a second record, under the subagent's scope
    assert record["id"] == record_id("fail", f"claude:{session}:agent-{agent}", key(command))
    assert (record["occurrences"], record["provenance"]["lines"]) == (1, [2, 3])


def test_a_big_backlog_is_ingested_by_a_detached_process(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess as subprocess_mod

    from lore.sessions import hook_ingest

    transcript = tmp_path / "big.jsonl"
    transcript.write_text(
        "".join(orjson.dumps(x).decode() + "\n" for x in transcript_lines("make"))
    )
    monkeypatch.setattr(hook_ingest, "DETACH_BYTES", 100)
    started: list[tuple[list[str], dict[str, Any]]] = []
    monkeypatch.setattr(subprocess_mod, "Popen", lambda args, **kw: started.append((args, kw)))
    stop = {"session_id": SESSION, "transcript_path": str(transcript), "hook_event_name": "Stop"}
    assert hook(run, stop, "stop") is None
    ((args, options),) = started
    assert args[-3:] == ["ingest", "--no-new-session", str(transcript)]
    assert options["start_new_session"] is True
