"""``lore mcp`` over pipes (served by the event loop), a file or a mix: every answer
arrives whole, and while serving, fd 0 and fd 1 no longer carry the wire."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.mcpserver.conftest import INITIALIZE, INITIALIZED, LORE

pytest.importorskip("mcp", reason="the MCP SDK (the [mcp] extra) is not installed")

BIG = " ".join(f"word{i % 997} and more" for i in range(5_500))  # about 190 KB of answer


def _requests(*calls: tuple[int, str, dict[str, Any]]) -> bytes:
    lines: list[dict[str, Any]] = [INITIALIZE, INITIALIZED]
    for rid, name, arguments in calls:
        lines.append(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            }
        )
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _answers(raw: bytes) -> dict[Any, Any]:
    return {m.get("id"): m for m in map(json.loads, raw.splitlines())}


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "LORE_DATA_DIR": str(tmp_path / "data"), "NO_COLOR": "1"}


def _serve(tmp_path: Path, stdout: Any = subprocess.PIPE, stderr: Any = subprocess.DEVNULL) -> Any:
    """``lore mcp`` reading requests from a pipe."""
    return subprocess.Popen(
        [LORE, "mcp"], stdin=subprocess.PIPE, stdout=stdout, stderr=stderr, env=_env(tmp_path)
    )


def test_a_large_answer_arrives_whole_through_pipes(tmp_path: Path) -> None:
    with _serve(tmp_path) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        calls = (2, "observe", {"text": BIG}), (3, "list", {"kind": "observation"})
        proc.stdin.write(_requests(*calls))
        proc.stdin.flush()
        answers: dict[Any, Any] = {}
        while 3 not in answers:
            line = proc.stdout.readline()
            assert line.endswith(b"\n"), "an answer was cut short"
            message = json.loads(line)
            answers[message.get("id")] = message
        proc.stdin.close()
        assert proc.stdout.read() == b""
        proc.wait(timeout=30)
    assert proc.returncode == 0
    assert len(json.dumps(answers[2])) > 2 * len(BIG)  # the text and the structured copy
    assert answers[2]["result"]["structuredContent"]["record"]["content"] == BIG
    (listed,) = answers[3]["result"]["structuredContent"]["result"]
    assert listed["id"] == answers[2]["result"]["structuredContent"]["record"]["id"]


def test_requests_from_a_file_and_answers_into_a_file(tmp_path: Path) -> None:
    """Neither end a pipe: the SDK's threads serve them (an event loop cannot watch a
    file). The requests end at the end of the file, so the server reads EOF at once."""
    requests = tmp_path / "requests.jsonl"
    requests.write_bytes(_requests())
    answers_file = tmp_path / "answers.jsonl"
    with requests.open("rb") as stdin, answers_file.open("wb") as stdout:
        done = subprocess.run(
            [LORE, "mcp"], stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, env=_env(tmp_path)
        )
    assert done.returncode == 0, done.stderr
    assert _answers(answers_file.read_bytes())[1]["result"]["serverInfo"]["name"] == "lore"


def test_requests_from_a_pipe_and_answers_into_a_file(tmp_path: Path) -> None:
    answers_file = tmp_path / "answers.jsonl"
    with answers_file.open("wb") as stdout, _serve(tmp_path, stdout=stdout) as proc:
        assert proc.stdin is not None
        proc.stdin.write(_requests((2, "observe", {"text": "into a file"})))
        proc.stdin.flush()
        for _ in range(300):  # the answer comes while stdin is still open
            if b'"id":2' in answers_file.read_bytes():
                break
            time.sleep(0.05)
        proc.stdin.close()
        proc.wait(timeout=30)
    assert proc.returncode == 0
    record = _answers(answers_file.read_bytes())[2]["result"]["structuredContent"]["record"]
    assert record["content"] == "into a file"


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_while_serving_fd_0_is_the_null_device_and_fd_1_is_stderr(tmp_path: Path) -> None:
    """A child process of the server cannot read the agent's requests, and stray output
    goes to stderr, not onto the wire."""
    stderr = tmp_path / "stderr.txt"
    with stderr.open("wb") as err, _serve(tmp_path, stderr=err) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(_requests())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1  # serving now
        fds = Path(f"/proc/{proc.pid}/fd")
        assert os.readlink(fds / "0") == os.devnull
        assert os.readlink(fds / "1") == str(stderr)
        proc.stdin.close()
        proc.wait(timeout=30)
    assert proc.returncode == 0
