"""The transcript readers on real lines (tests/ingest/fixtures, see its README): what each
agent's lines turn into, line numbers included; sniffing; damaged and unknown lines."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from lore.errors import InvalidInputError
from lore.ingest import codex, transcript
from lore.ingest.events import Event
from lore.ingest.extract import failure_of

FIXTURES = Path(__file__).parent / "fixtures"


def events(name: str | Path) -> tuple[list[Event], Any, transcript.Read]:
    path = name if isinstance(name, Path) else FIXTURES / name
    found = transcript.sniff(path)
    assert found is not None
    agent, whole = found
    reader = transcript.READERS[agent]()
    read = transcript.read(path, reader, whole=whole)
    return read.events, reader, read


def brief(event: Event) -> tuple[Any, ...]:
    return (event.kind, event.lines, event.tool, event.status, event.exit_code, event.command[:30])


def test_claude_code_lines_become_prompts_replies_and_paired_calls() -> None:
    found, reader, read = events("claude-medgemma.jsonl")
    assert (read.line, read.skipped, read.offset) == (
        34,
        [],
        (FIXTURES / "claude-medgemma.jsonl").stat().st_size,
    )
    session = reader.session()
    assert (session.agent, session.id, session.side) == (
        "claude",
        "ea6cc712-3363-4960-bd06-f2266321ef7f",
        False,
    )
    assert (
        session.cwd
        == "/Users/noahdolevelixir/Code/medgemma-hackathon/services/protocol-processor-service"
    )
    assert [brief(e) for e in found] == [
        ("prompt", (2, 2), "", "", None, ""),
        ("summary", (3, 3), "", "", None, ""),  # the compaction's summary: not a prompt
        ("prompt", (4, 4), "", "", None, ""),
        ("call", (5, 6), "Bash", "error", 1, "uv run ruff check . 2>&1"),
        ("call", (7, 8), "Bash", "cancelled", None, "uv run mypy src/ 2>&1"),  # a sibling
        ("call", (9, 10), "Bash", "cancelled", None, "uv run pytest tests/ -x --tb=s"),
        ("call", (11, 12), "Bash", "error", 1, "git ls-files --error-unmatch t"),
        ("call", (13, 14), "Bash", "error", 1, "head -5 tests/test_phase3b_unk"),
        ("call", (15, 16), "Bash", "ok", None, "git commit -m \"$(cat <<'EOF'\nf"),
        ("call", (17, 18), "Bash", "error", 1, "uv run ruff check . 2>&1"),
        ("call", (19, 20), "Bash", "cancelled", None, "uv run pytest tests/ -x --tb=s"),
        ("reply", (21, 21), "", "", None, ""),
        ("call", (22, 24), "Read", "ok", None, ""),
        ("call", (25, 27), "Edit", "ok", None, ""),
        ("call", (28, 29), "Bash", "ok", None, "uv run ruff check . 2>&1"),
        ("call", (30, 34), "Bash", "ok", None, "uv run pytest tests/ -x --tb=s"),
    ]
    assert found[0].text.startswith("No no, no mocking. Let's test for real.")
    assert found[3].time == "2026-02-19T20:34:18.462Z"  # the result's line
    assert found[13].files == (
        "/Users/noahdolevelixir/Code/medgemma-hackathon/services/protocol-processor-service/"
        "src/protocol_processor/nodes/ordinal_resolve.py",
    )


def test_a_refused_call_carries_the_users_words_as_a_prompt() -> None:
    found, _, _ = events("claude-entire.jsonl")
    assert [brief(e) for e in found] == [
        ("prompt", (1, 1), "", "", None, ""),
        ("call", (2, 3), "Bash", "error", 3, "golangci-lint run --new-from-r"),
        ("call", (4, 5), "Bash", "ok", None, "git commit -m \"$(cat <<'EOF'\nf"),
        ("call", (6, 7), "Bash", "denied", None, "git push"),
        ("prompt", (7, 7), "", "", None, ""),
        ("call", (8, 9), "Bash", "denied", None, "git checkout gtrrz-victor/rest"),
    ]  # line 10, "[Request interrupted by user for tool use]", is no prompt
    assert found[4].text == "what does lint say now?"


def test_a_subagent_file_is_a_side_session_with_no_prompt() -> None:
    found, reader, _ = events("claude-subagent.jsonl")
    assert reader.session().side is True
    assert [(e.kind, e.status) for e in found] == [
        ("call", "error"),
        ("call", "cancelled"),
        ("call", "cancelled"),
        ("call", "cancelled"),
    ]
    assert [failure_of(e) for e in found] == [None] * 4  # not shell commands


def test_codex_rollout_lines() -> None:
    found, reader, read = events("codex-redacted.jsonl")
    assert (reader.session().id, reader.session().cwd) == (
        "019c8a59-e9dd-71f0-9ae3-4079fe9726a9",
        "/redacted/path/59b923df4d",
    )
    assert read.skipped == []
    assert [(e.kind, e.lines, e.tool, e.action, e.status) for e in found] == [
        ("prompt", (2, 2), "", "", ""),
        ("reply", (4, 4), "", "", ""),
        # the publisher redacted the arguments and the output: no command, no exit code
        ("call", (5, 6), "exec_command", "other", "ok"),
        ("call", (7, 8), "apply_patch", "edit", "ok"),
    ]
    found, reader, _ = events("codex-sample.jsonl")
    assert [(e.kind, e.lines) for e in found] == [("prompt", (5, 5))]
    assert found[0].text.startswith("can you analyse the MD files in this directory")


def codex_call(
    name: str, arguments: dict[str, Any], output: Any, call_id: str = "call_1"
) -> list[bytes]:
    """A function call and its output, on the structure of codex-redacted.jsonl lines 5-6
    (whose text the publisher redacted), with the output in a form Codex writes."""
    lines = (FIXTURES / "codex-redacted.jsonl").read_bytes().splitlines()
    call, result = orjson.loads(lines[4]), orjson.loads(lines[5])
    call["payload"].update(name=name, arguments=orjson.dumps(arguments).decode(), call_id=call_id)
    result["payload"].update(output=output, call_id=call_id)
    return [orjson.dumps(call), orjson.dumps(result)]


@pytest.mark.parametrize(
    ("name", "arguments", "output", "expected"),
    [
        (  # exec_command (unified exec, Codex 0.5x and later)
            "exec_command",
            {"cmd": "npm test", "workdir": "/srv/demo"},
            "Chunk ID: 3fa9\nWall time: 4.2 seconds\nProcess exited with code 1\n"
            "Original token count: 58\nOutput:\nFAIL src/app.test.ts\nTests: 1 failed, 1 passed",
            ("npm test", "error", 1, "TestFailure", "Tests: 1 failed, 1 passed"),
        ),
        (  # shell, JSON output with metadata (Codex 0.2x-0.4x)
            "shell",
            {"command": ["bash", "-lc", "cargo build"], "workdir": "/srv"},
            orjson.dumps(
                {"output": "error[E0425]: cannot find value `x`", "metadata": {"exit_code": 101}}
            ).decode(),
            ("cargo build", "error", 101, "BuildError", "error[E0425]: cannot find value `x`"),
        ),
        (  # the freeform shell output
            "shell_command",
            {"command": "git push"},
            "Exit code: 128\nWall time: 0.3 seconds\nOutput:\nfatal: no upstream",
            ("git push", "error", 128, "GitError", "fatal: no upstream"),
        ),
        (  # rg finding nothing is a no-match, not a failure
            "exec_command",
            {"cmd": "rg -n TODO src"},
            "Chunk ID: 9e87\nWall time: 0.87 seconds\nProcess exited with code 1\n"
            "Original token count: 0\nOutput:\n\n",
            ("rg -n TODO src", "error", 1, None, None),
        ),
        (  # still running (write_stdin continues it): no exit code, no failure
            "exec_command",
            {"cmd": "npm run dev"},
            "Chunk ID: 1\nWall time: 10.0 seconds\nProcess running with session ID 7\n"
            "Output:\nready",
            ("npm run dev", "ok", None, None, None),
        ),
    ],
)
def test_codex_exit_codes_in_every_output_form(
    tmp_path: Path, name: str, arguments: dict[str, Any], output: str, expected: tuple[Any, ...]
) -> None:
    path = tmp_path / "rollout.jsonl"
    head = (FIXTURES / "codex-redacted.jsonl").read_bytes().splitlines()[0]
    path.write_bytes(b"\n".join([head, *codex_call(name, arguments, output)]) + b"\n")
    (event,), _, _ = events(path)
    failed = failure_of(event)
    assert (event.command, event.status, event.exit_code) == expected[:3]
    assert (failed.error_type if failed else None, failed.message if failed else None) == expected[
        3:
    ]


def test_codex_apply_patch_edits_the_files_its_patch_names() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n"
        "*** Add File: docs/x.md\n+x\n*** End Patch"
    )
    assert codex.patch_files(patch) == ("src/app.py", "docs/x.md")
    assert codex._shell(["apply_patch", patch]) == {"files": ["src/app.py", "docs/x.md"]}
    assert codex._shell(["bash", "-lc", "make test"]) == {"command": "make test"}
    assert codex._shell(["ls", "-la", "my dir"]) == {"command": "ls -la 'my dir'"}


def test_gemini_cli_document_messages_and_tool_calls_with_their_lines() -> None:
    found, reader, read = events("gemini-session.json")
    assert reader.session().id == "f7633853-6663-4dbb-bbf4-6159afa29df8"
    assert read.line == 520
    assert [brief(e) for e in found if e.kind != "reply"] == [
        ("prompt", (7, 12), "", "", None, ""),
        ("call", (40, 63), "write_file", "ok", None, ""),
        ("call", (88, 112), "run_shell_command", "ok", 0, "ls -l docs/blue.md"),
        ("call", (137, 161), "run_shell_command", "ok", 0, "git status"),
        ("call", (203, 227), "run_shell_command", "ok", 0, "rm docs/blue.md"),
        ("call", (262, 285), "read_file", "ok", None, ""),
        ("call", (315, 339), "run_shell_command", "ok", 0, 'echo -e "\\n# Red\\n\\nRed is a p'),
        ("call", (364, 387), "read_file", "ok", None, ""),
        ("call", (417, 441), "run_shell_command", "ok", 0, "git status"),
        ("call", (471, 495), "run_shell_command", "ok", 0, "git add docs/color.md"),
    ]
    lines = (FIXTURES / "gemini-session.json").read_text().splitlines()
    assert '"name": "write_file",' in "\n".join(lines[39:63])  # the call's own lines
    assert found[2].files == ("docs/blue.md",)


def test_gemini_cli_jsonl_records_are_read_once_finished(tmp_path: Path) -> None:
    """The newer form: a metadata line, then message records (re-written as they change)."""
    document = orjson.loads((FIXTURES / "gemini-session.json").read_bytes())
    meta = {k: document[k] for k in ("sessionId", "projectHash", "startTime", "lastUpdated")}
    shell = next(
        m
        for m in document["messages"]
        if m.get("toolCalls") and m["toolCalls"][0]["name"] == "run_shell_command"
    )
    running = orjson.loads(orjson.dumps(shell))
    running["toolCalls"][0]["status"] = "executing"
    path = tmp_path / "session-2026-01-15T20-51-f7633853.jsonl"
    records = [meta, document["messages"][0], running, {"$set": {"summary": "x"}}, shell]
    path.write_bytes(b"\n".join(orjson.dumps(r) for r in records) + b"\n")
    found, _, read = events(path)
    assert read.skipped == []
    # the reply once, the shell call only when finished (line 5), never twice
    assert [(e.kind, e.lines) for e in found] == [
        ("prompt", (2, 2)),
        ("reply", (3, 3)),
        ("call", (5, 5)),
    ]


def test_damaged_and_unknown_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    lines = (FIXTURES / "claude-entire.jsonl").read_bytes().splitlines()
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b"\n".join([lines[0], b"{not json", b"[1, 2]", b'{"type": "mystery"}', *lines[1:3]]) + b"\n"
    )
    found, _, read = events(path)
    assert read.skipped == [2, 3, 4]
    assert [(e.kind, e.lines) for e in found] == [("prompt", (1, 1)), ("call", (5, 6))]


def test_a_line_still_being_written_is_left_for_the_next_run(tmp_path: Path) -> None:
    lines = (FIXTURES / "claude-entire.jsonl").read_bytes().splitlines()
    path = tmp_path / "t.jsonl"
    path.write_bytes(lines[0] + b"\n" + lines[1][:50])
    reader = transcript.READERS["claude"]()
    read = transcript.read(path, reader)
    assert (read.line, read.offset) == (1, len(lines[0]) + 1)
    path.write_bytes(lines[0] + b"\n" + lines[1] + b"\n" + lines[2] + b"\n")
    more = transcript.read(path, reader, offset=read.offset, line=read.line)
    assert [(e.kind, e.lines, e.status) for e in more.events] == [("call", (2, 3), "error")]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b'{"a": 1}\n{"b": 2}\n', "line 1 is an object with a"),
        (b"just text\n", "line 1 is not JSON"),
        (
            b'{\n  "name": "package",\n  "version": "1.0.0"\n}\n',
            "a JSON document of another kind (an object with name, version)",
        ),
    ],
)
def test_a_file_of_another_format_is_refused_naming_it(
    tmp_path: Path, content: bytes, said: str
) -> None:
    path = tmp_path / "other.jsonl"
    path.write_bytes(content)
    with pytest.raises(InvalidInputError) as caught:
        transcript.sniff(path)
    assert (
        caught.value.message
        == f"{path}: not a Claude Code, Codex or Gemini CLI transcript ({said})"
    )
    assert caught.value.exit_code == 4


def test_sniffing_each_format(tmp_path: Path) -> None:
    assert transcript.sniff(FIXTURES / "claude-subagent.jsonl") == ("claude", False)
    assert transcript.sniff(FIXTURES / "codex-sample.jsonl") == ("codex", False)
    assert transcript.sniff(FIXTURES / "gemini-session.json") == ("gemini", True)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n")
    assert transcript.sniff(empty) is None
    copy = tmp_path / "renamed.txt"
    shutil.copy(FIXTURES / "claude-entire.jsonl", copy)
    assert transcript.sniff(copy) == ("claude", False)  # by content, not by name
