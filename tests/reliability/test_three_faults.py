"""The three faults of issue 10: handoff texts pass the secrets gate, fine-grained GitHub
tokens are refused, and a failed append or document write leaves nothing partial."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.sessions.hooks import digest_transcript
from lore.storage import atomic, jsonl

Run = Callable[..., Result]

AWS = "AKIAZ7QW3RTY5UIO2PLK"
FINE_GRAINED = (
    "github_pat_11AAVZ3PQ0Xp9mK2LrT8wYqH_"
    "7sJfN4bVcZ1eR6tU9iO3pA5sD8fG2hJ4kL7zX0cV3bN6mQ9wE2rT5yU8iO1pXyZ"
)


def session_files(data_dir: Path) -> list[Path]:
    folder = data_dir / "transfer" / "data" / "sessions"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ([f"key is {AWS}"], "message"),
        (["done", "--next", f"rotate {AWS}"], "next_steps[0]"),
        (["done", "--blocker", "ok", "--blocker", f"token {FINE_GRAINED}"], "blockers[1]"),
        (["done", "--question", f"is {AWS} live?"], "questions[0]"),
        (["done", "--thread", "password=Hunter2!xyz9"], "threads[0]"),
    ],
)
def test_handoff_refuses_a_secret_in_any_of_its_texts(
    run: Run, data_dir: Path, args: list[str], field: str
) -> None:
    result = run("handoff", *args, "--json")
    assert result.exit_code == 7
    reply = json.loads(result.stdout)
    assert reply["code"] == "secret"
    assert reply["field"] == field
    assert reply["error"].startswith(f"refusing to write: {field} looks like it holds ")
    assert session_files(data_dir) == []  # nothing written, not even an open session


def test_handoff_allow_secret_is_the_only_way_past(run: Run, data_dir: Path) -> None:
    result = run("handoff", f"key is {AWS}", "--allow-secret", "--json")
    assert result.exit_code == 0, result.output
    (file,) = session_files(data_dir)
    assert json.loads(file.read_text())["message"] == f"key is {AWS}"


def test_automatic_handoff_texts_are_masked_before_the_gate(tmp_path: Path) -> None:
    command = f"curl -H 'Authorization: Bearer {FINE_GRAINED}' https://x"
    entries = [
        {"type": "user", "message": {"role": "user", "content": f"use {AWS} please"}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": command}}
                ],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "is_error": True,
                        "content": "Exit code 7",
                    }
                ],
            },
        },
    ]
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(json.dumps(e) + "\n" for e in entries))
    digest = digest_transcript(transcript)
    assert digest.requests == ["use [REDACTED:aws-access-key] please"]
    assert "github_pat_" not in digest.failed[0]
    assert "[REDACTED:github-token]" in digest.failed[0]


def test_hook_handoff_from_a_transcript_with_a_secret_writes_it_masked(
    run: Run, data_dir: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "t.jsonl"
    entry = {
        "type": "user",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {"content": f"deploy with {FINE_GRAINED}"},
    }
    transcript.write_text(json.dumps(entry) + "\n")
    payload = json.dumps({"session_id": "abcdef0123456789", "transcript_path": str(transcript)})
    result = run("hooks", "run", "session-end", input=payload)
    assert result.exit_code == 0
    (file,) = session_files(data_dir)
    text = file.read_text()
    assert "github_pat_" not in text
    assert "[REDACTED:github-token]" in text


@pytest.mark.parametrize(
    "token",
    [
        FINE_GRAINED,
        "github_pat_11ABCDEFG0aBcDeFgHiJkLm_"
        + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0PpOoNnMmLlKkJjIiHhGgFfEeDdCcBbA1",
    ],
)
@pytest.mark.parametrize("command", ["capture", "remember", "observe"])
def test_fine_grained_github_token_is_refused(
    run: Run, data_dir: Path, token: str, command: str
) -> None:
    result = run(command, f"CI pushes with {token}", "--json")
    assert result.exit_code == 7, result.output
    assert json.loads(result.stdout)["secret"] == "github-token"
    assert not any(p.is_file() and p.stat().st_size for p in data_dir.rglob("*.jsonl"))


# --- a failed append or document write leaves nothing partial -------------------------------


def _fail_after(limit: int) -> Callable[..., int]:
    """An ``os.write`` that writes ``limit`` bytes, then fails as a full disk does."""
    real = os.write
    state = {"left": limit}

    def write(fd: int, data: Any) -> int:
        if state["left"] <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        chunk = bytes(data[: state["left"]])
        state["left"] -= len(chunk)
        return real(fd, chunk)

    return write


def test_failed_append_cuts_the_file_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "log.jsonl"
    jsonl.append(log, [{"id": "a", "n": 1}])
    before = log.read_bytes()
    with monkeypatch.context() as patch:  # not undo(): that would undo the isolation too
        patch.setattr(jsonl.os, "write", _fail_after(7))
        with pytest.raises(OSError) as info:
            jsonl.append(log, [{"id": "b", "text": "x" * 100}])
    assert info.value.errno == errno.ENOSPC
    assert log.read_bytes() == before
    jsonl.append(log, [{"id": "c"}])
    rows, issues = jsonl.read(log)
    assert [obj["id"] for _, obj in rows] == ["a", "c"]
    assert issues == []


def test_failed_fsync_also_cuts_the_file_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(b'{"id":"a"}\n{"id":"torn')  # a torn tail: the append adds a newline first
    before = log.read_bytes()

    def broken(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(jsonl.os, "fsync", broken)
    with pytest.raises(OSError):
        jsonl.append(log, [{"id": "b"}])
    assert log.read_bytes() == before


def test_failed_document_write_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = tmp_path / "docs" / "pat-1.yaml"
    atomic.atomic_write(doc, b"name: old\n")

    class Full:
        def __init__(self, fd: int, mode: str) -> None:
            self.fd = fd

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            os.close(self.fd)

        def write(self, data: bytes) -> int:
            os.write(self.fd, data[:3])
            raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(atomic.os, "fdopen", Full)
        with pytest.raises(OSError):
            atomic.atomic_write(doc, b"name: new and much longer\n")
        with pytest.raises(OSError):
            atomic.atomic_write(tmp_path / "docs" / "pat-2.yaml", b"name: x\n", exclusive=True)
    assert doc.read_bytes() == b"name: old\n"
    assert sorted(p.name for p in doc.parent.iterdir()) == ["pat-1.yaml"]


def test_capture_on_a_full_disk_exits_1_and_leaves_the_log_as_it_was(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run("observe", "first note").exit_code == 0
    log = data_dir / "inbox" / "data" / "observations.jsonl"
    before = log.read_bytes()
    with monkeypatch.context() as patch:
        patch.setattr(jsonl.os, "write", _fail_after(5))
        result = run("observe", "second note", "--json")
    assert result.exit_code == 1
    reply = json.loads(result.stdout)
    assert reply["ok"] is False
    assert "No space left on device" in reply["error"]
    assert log.read_bytes() == before
    assert run("validate").exit_code == 0
