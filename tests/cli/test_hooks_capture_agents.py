"""The capture hooks of Codex CLI (PostToolUse) and Gemini CLI (AfterTool): a failed shell
command in their own payload shapes is recorded at once, under the id ``lore ingest``
derives from that agent's session file, so the hook and a later ingestion (the Stop /
AfterAgent hook) meet in one record.

Codex's ``tool_response`` for Bash is the output text the model saw (codex-rs
``ExecCommandToolOutput::post_tool_use_response``: ``Exit code: N`` or ``Process exited
with code N`` first); Gemini CLI's is ``{llmContent, returnDisplay, error}``
(geminicli.com/docs/hooks/reference, AfterTool), ``llmContent`` the shell tool's report
that its chat file keeps as the call's output.
"""

from __future__ import annotations

import copy
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
FIXTURES = Path(__file__).parent.parent / "ingest" / "fixtures"
CODEX_SESSION = "019c8a59-e9dd-71f0-9ae3-4079fe9726a9"  # codex-redacted.jsonl's session_meta
GEMINI_SESSION = "f7633853-6663-4dbb-bbf4-6159afa29df8"  # gemini-session.json's sessionId
CODEX_OUTPUT = (
    "Chunk ID: 3fa9\nWall time: 4.2 seconds\nProcess exited with code 1\n"
    "Original token count: 58\nOutput:\nFAIL src/app.test.ts\nTests: 1 failed, 1 passed"
)
GEMINI_OUTPUT = (
    "Command: npm test\nDirectory: (root)\nOutput: FAIL src/app.test.ts\n"
    "Tests: 1 failed, 1 passed\nError: (none)\nExit Code: 1\nSignal: 0\n"
    "Background PIDs: (none)\nProcess Group PGID: 26593"
)


@pytest.fixture(autouse=True)
def hook_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_SESSION_ID", "")
    monkeypatch.delenv("LORE_HOOKS_PAUSE", raising=False)


def hook(run: Run, payload: dict[str, Any], event: str) -> Any:
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


def codex_payload(command: str, output: str, transcript: Path | None = None) -> dict[str, Any]:
    """A Codex PostToolUse payload (codex-rs hooks/schema post-tool-use.command.input)."""
    return {
        "session_id": CODEX_SESSION,
        "transcript_path": str(transcript) if transcript else None,
        "cwd": os.getcwd(),
        "hook_event_name": "PostToolUse",
        "model": "gpt-5.3-codex",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": output,
        "tool_use_id": "call_1",
        "turn_id": "019c8a5a-0000-7000-8000-000000000001",
    }


def gemini_payload(command: str, output: str, transcript: Path | None = None) -> dict[str, Any]:
    """A Gemini CLI AfterTool payload (geminicli.com/docs/hooks/reference)."""
    return {
        "session_id": GEMINI_SESSION,
        "transcript_path": str(transcript) if transcript else "/nonexistent/session.json",
        "cwd": os.getcwd(),
        "hook_event_name": "AfterTool",
        "timestamp": "2026-01-15T20:52:01.626Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": "Run the tests."},
        "tool_response": {"llmContent": output, "returnDisplay": "FAIL src/app.test.ts"},
    }


def test_a_codex_post_tool_use_with_a_failed_command_writes_one_failure(
    run: Run, data_dir: Path
) -> None:
    assert hook(run, codex_payload("npm test", CODEX_OUTPUT), "post-tool-use") is None
    (record,) = failures(data_dir)
    assert record["id"] == record_id("fail", f"codex:{CODEX_SESSION}", key("npm test"))
    assert (record["error_type"], record["tool"], record["exit_code"]) == (
        "TestFailure",
        "npm test",
        1,
    )
    assert record["error_message"] == "Tests: 1 failed, 1 passed"
    # A command that succeeded, and one still running, are no failures.
    ok = "Chunk ID: 1\nWall time: 0.2 seconds\nProcess exited with code 0\nOutput:\nok"
    assert hook(run, codex_payload("npm run lint", ok), "post-tool-use") is None
    running = "Chunk ID: 1\nWall time: 10.0 seconds\nProcess running with session ID 7\nOutput:\n"
    assert hook(run, codex_payload("npm run dev", running), "post-tool-use") is None
    assert len(failures(data_dir)) == 1


def test_a_gemini_after_tool_with_a_failed_command_writes_one_failure(
    run: Run, data_dir: Path
) -> None:
    assert hook(run, gemini_payload("npm test", GEMINI_OUTPUT), "post-tool-use") is None
    (record,) = failures(data_dir)
    assert record["id"] == record_id("fail", f"gemini:{GEMINI_SESSION}", key("npm test"))
    assert (record["error_type"], record["tool"], record["exit_code"]) == (
        "TestFailure",
        "npm test",
        1,
    )
    assert record["step"] == "Run the tests."
    ok = GEMINI_OUTPUT.replace("Exit Code: 1", "Exit Code: 0")
    assert hook(run, gemini_payload("ls docs", ok), "post-tool-use") is None
    assert len(failures(data_dir)) == 1


def test_a_gemini_third_failure_answers_under_after_tool(run: Run) -> None:
    for n in range(2):
        assert hook(run, gemini_payload(f"npm test -- {n}", GEMINI_OUTPUT), "AfterTool") is None
    told = hook(run, gemini_payload("npm test -- 2", GEMINI_OUTPUT), "AfterTool")
    assert told.startswith("lore: Rule of Three: 3rd failure of type TestFailure")


def codex_rollout(path: Path, command: str, output: str) -> None:
    """A rollout whose one call is ``command`` failing: its session_meta line, and a function
    call and output on the structure of codex-redacted.jsonl lines 5-6."""
    lines = (FIXTURES / "codex-redacted.jsonl").read_bytes().splitlines()
    call, result = orjson.loads(lines[4]), orjson.loads(lines[5])
    arguments = orjson.dumps({"cmd": command, "workdir": os.getcwd()}).decode()
    call["payload"].update(name="exec_command", arguments=arguments, call_id="call_1")
    result["payload"].update(output=output, call_id="call_1")
    path.write_bytes(b"\n".join([lines[0], orjson.dumps(call), orjson.dumps(result)]) + b"\n")


def gemini_chat(path: Path, command: str, output: str) -> None:
    """gemini-session.json with its first shell call made ``command`` failing."""
    document = orjson.loads((FIXTURES / "gemini-session.json").read_bytes())
    changed = copy.deepcopy(document)
    call = changed["messages"][2]["toolCalls"][0]
    assert call["name"] == "run_shell_command"
    call["args"]["command"] = command
    call["result"][0]["functionResponse"]["response"]["output"] = output
    path.write_bytes(orjson.dumps(changed, option=orjson.OPT_INDENT_2))


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_the_hook_and_the_stop_ingestion_meet_in_one_record(
    run: Run, data_dir: Path, tmp_path: Path, agent: str
) -> None:
    if agent == "codex":
        transcript = tmp_path / f"rollout-2026-02-23T12-54-34-{CODEX_SESSION}.jsonl"
        codex_rollout(transcript, "npm test", CODEX_OUTPUT)
        payload, stop = codex_payload("npm test", CODEX_OUTPUT, transcript), "Stop"
    else:
        transcript = tmp_path / "session-2026-01-15T20-51-f7633853.json"
        gemini_chat(transcript, "npm test", GEMINI_OUTPUT)
        payload, stop = gemini_payload("npm test", GEMINI_OUTPUT, transcript), "AfterAgent"
    assert hook(run, payload, "post-tool-use") is None
    end = {k: payload[k] for k in ("session_id", "transcript_path", "cwd")}
    assert hook(run, {**end, "hook_event_name": stop}, "stop") is None
    (record,) = failures(data_dir)
    assert record["occurrences"] == 1
    assert record["provenance"]["transcript"] == str(transcript)
    assert record["source"] == "hook"
