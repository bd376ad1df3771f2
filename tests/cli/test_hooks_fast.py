"""The console script's fast path for the agent hooks (``lore.launch``): the installed
command answers without click, as ``lore hooks run`` does; a hook that answers nothing
goes on in a detached process when its work is long or runs out of time; the index a hook
changed in memory is written after the answer, by a detached process; the hooks' own state
is pruned at most daily.

These run the real console script in subprocesses: the detached processes are waited for
(their effect on disk), never timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import Result

from lore.launch import hook_call
from lore.sessions import hook_run

Run = Callable[..., Result]
SESSION = "0f4c2a1e-9b8d-4c7e-a6f5-3d2c1b0a9e8f"
PYTEST_OUTPUT = (
    "Exit code 1\nFAILED tests/test_client.py::test_retry - AssertionError: assert 2 == 3\n"
    "1 failed, 3 passed in 0.21s"
)


@pytest.fixture(autouse=True)
def roomy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_SESSION_ID", "")
    monkeypatch.delenv("LORE_HOOKS_PAUSE", raising=False)


def console(
    *args: str, payload: Any = None, code: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``lore ARGS`` as the console script runs it (``lore.launch``), after ``code`` (set-up
    in the process, such as a slower use case); stderr also says whether click was loaded."""
    script = (
        "import os, sys\n"
        f"{code}\n"
        f"sys.argv = ['lore', *{list(args)!r}]\n"
        "def said():\n"
        "    print('click loaded' if 'click' in sys.modules else 'no click', file=sys.stderr)\n"
        "    sys.stderr.flush()\n"
        "real_exit = os._exit\n"
        "os._exit = lambda code: (said(), real_exit(code))\n"
        "import lore.launch\n"
        "try:\n"
        "    lore.launch.main()\n"
        "finally:\n"
        "    said()\n"
    )
    environ = {k: v for k, v in os.environ.items() if k != "LORE_SESSION_ID"}
    return subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(payload).encode() if payload is not None else b"",
        env={**environ, **(env or {})},
        capture_output=True,
        timeout=60,
        check=False,
    )


def eventually(check: Callable[[], Any], what: str) -> Any:
    """``check()``'s first true answer within a minute (a detached process at work)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"never happened: {what}")


def failing(command: str, session: str = SESSION) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": "/nonexistent/transcript.jsonl",
        "cwd": os.getcwd(),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Run the tests"},
        "tool_use_id": "toolu_01ABC",
        "error": PYTEST_OUTPUT,
    }


def failures(data_dir: Path) -> list[dict[str, Any]]:
    log = data_dir / "failures" / "data" / "failures.jsonl"
    return [orjson.loads(line) for line in log.read_bytes().splitlines()] if log.exists() else []


# --- which calls take the fast path -----------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "call"),
    [
        (["hooks", "run", "SessionStart"], (None, "SessionStart")),
        (["hooks", "run"], (None, None)),
        (["--data-dir", "/x y", "hooks", "run", "stop"], ("/x y", "stop")),
        (["--data-dir=/x", "hooks", "run", "stop"], ("/x", "stop")),
        (["hooks", "run", "--help"], None),
        (["hooks", "run", "stop", "extra"], None),
        (["hooks", "install", "--claude"], None),
        (["--data-dir", "", "hooks", "run", "stop"], None),
        (["--data-dir"], None),
        (["-V"], None),
        ([], None),
    ],
)
def test_only_the_installed_hook_command_takes_the_fast_path(
    argv: list[str], call: tuple[str | None, str | None] | None
) -> None:
    assert hook_call(argv) == call


def test_the_fast_path_answers_as_lore_hooks_run_does_without_click(
    run: Run, data_dir: Path
) -> None:
    run("capture", "PITFALL: Timeout", "--anti-pattern", "--fix", "raise the job timeout")
    run("fail", "Timeout", "deploy job timed out", "--tool", "make deploy")
    prompt = {"prompt": "the Timeout in the deploy job is back", "cwd": os.getcwd()}
    fast = console("hooks", "run", "user-prompt-submit", payload={**prompt, "session_id": "a" * 8})
    assert (fast.returncode, fast.stderr) == (0, b"no click\n")
    slow = run(
        "hooks", "run", "user-prompt-submit", input=json.dumps({**prompt, "session_id": "b"})
    )
    assert slow.exit_code == 0
    assert json.loads(fast.stdout) == json.loads(slow.stdout)
    assert "PITFALL: Timeout" in json.loads(fast.stdout)["hookSpecificOutput"]["additionalContext"]


def test_the_fast_path_records_a_failure_and_says_why_with_lore_debug(data_dir: Path) -> None:
    done = console(
        "hooks", "run", "PostToolUseFailure", payload=failing("pytest -q"), env={"LORE_DEBUG": "1"}
    )
    [written] = failures(data_dir)
    assert (done.returncode, done.stdout) == (0, b"")
    assert (
        done.stderr
        == f"lore hook post-tool-use-failure: wrote {written['id']}\nno click\n".encode()
    )
    assert (written["error_type"], written["tool"], written["occurrences"]) == (
        "TestFailure",
        "pytest -q",
        1,
    )


def test_a_data_dir_that_is_a_file_is_still_clicks_usage_error(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    done = console("--data-dir", str(tmp_path / "a-file"), "hooks", "run", "stop", payload={})
    assert done.returncode == 2
    assert b"is a file" in done.stderr
    assert done.stderr.endswith(b"click loaded\n")


# --- hooks that answer nothing go on detached --------------------------------------------


def transcript(path: Path, padding: int) -> Path:
    """A Claude Code transcript: a request, an edit, a failed ``pytest``, then ``padding``
    bytes of lines that hold nothing (progress lines)."""

    def line(kind: str, content: Any, **extra: Any) -> bytes:
        message = {"role": kind, "content": content}
        return orjson.dumps({"type": kind, "sessionId": SESSION, "message": message, **extra})

    edit = {"type": "tool_use", "id": "e1", "name": "Edit", "input": {"file_path": "app.py"}}
    run = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "pytest -q"}}
    lines = [
        line("user", "make the client retry on timeouts", timestamp="2026-03-04T10:00:00Z"),
        line("assistant", [edit]),
        line("user", [{"type": "tool_result", "tool_use_id": "e1", "content": "updated"}]),
        line("assistant", [run]),
        line(
            "user",
            [{"type": "tool_result", "tool_use_id": "b1", "content": "1 failed", "is_error": True}],
        ),
    ]
    filler = orjson.dumps({"type": "progress", "data": "." * 1000})
    lines += [filler] * (padding // len(filler))
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def handoffs(data_dir: Path) -> list[dict[str, Any]]:
    folder = data_dir / "transfer" / "data" / "sessions"
    found = [orjson.loads(p.read_bytes()) for p in folder.glob("*.json")] if folder.is_dir() else []
    return [s for s in found if "auto" in s]


def test_a_session_end_with_a_long_transcript_lets_the_agent_go_at_once(
    tmp_path: Path, data_dir: Path
) -> None:
    path = transcript(tmp_path / "t.jsonl", padding=hook_run.DIGEST_INLINE_BYTES + 1000)
    payload = {"session_id": SESSION, "transcript_path": str(path), "cwd": os.getcwd()}
    done = console("hooks", "run", "SessionEnd", payload=payload, env={"LORE_DEBUG": "1"})
    assert (done.returncode, done.stdout) == (0, b"")
    # The process the agent waited for said so and ended; its detached copy does the work.
    assert done.stderr == b"lore hook: long work: going on in a detached process\nno click\n"
    [handoff] = eventually(lambda: handoffs(data_dir), "the automatic handoff")
    assert handoff["auto"]["event"] == "SessionEnd"
    assert handoff["auto"]["files"] == ["app.py"]
    eventually(lambda: failures(data_dir), "the ingested failure")


def test_a_short_transcript_is_handed_off_before_the_hook_ends(
    tmp_path: Path, data_dir: Path
) -> None:
    path = transcript(tmp_path / "t.jsonl", padding=0)
    payload = {"session_id": SESSION, "transcript_path": str(path), "cwd": os.getcwd()}
    done = console("hooks", "run", "session-end", payload=payload)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"no click\n")
    [handoff] = handoffs(data_dir)
    assert handoff["auto"]["event"] == "SessionEnd"
    assert [f["tool"] for f in failures(data_dir)] == ["pytest -q"]


def test_a_stop_hook_out_of_time_goes_on_detached_instead_of_giving_up(
    tmp_path: Path, data_dir: Path
) -> None:
    path = transcript(tmp_path / "t.jsonl", padding=0)
    payload = {"session_id": SESSION, "transcript_path": str(path), "cwd": os.getcwd()}
    slower = (
        "import time\n"
        "import lore.sessions.hook_ingest as ingest\n"
        "real = ingest.ingest_transcript\n"
        "def slow(*a, **k):\n"
        "    time.sleep(1)\n"
        "    return real(*a, **k)\n"
        "ingest.ingest_transcript = slow\n"
    )
    done = console(
        "hooks",
        "run",
        "stop",
        payload=payload,
        code=slower,
        env={"LORE_DEBUG": "1", "LORE_HOOK_SECONDS": "0.05"},
    )
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr == b"lore hook: out of time: going on in a detached process\nno click\n"
    [failure] = eventually(lambda: failures(data_dir), "the ingested failure")
    assert (failure["tool"], failure["source"]) == ("pytest -q", "ingest")


def test_a_hook_with_an_answer_still_gives_up_when_out_of_time(data_dir: Path) -> None:
    slower = (
        "import time\n"
        "import lore.sessions.hook_capture as capture\n"
        "capture.record_failure = lambda *a, **k: time.sleep(1)\n"
    )
    done = console(
        "hooks",
        "run",
        "PostToolUseFailure",
        payload=failing("pytest"),
        code=slower,
        env={"LORE_HOOK_SECONDS": "0.05"},
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"no click\n")
    assert failures(data_dir) == []


# --- the index: written after the answer ------------------------------------------------


def test_the_index_a_hook_brought_up_to_date_is_written_after_the_answer(
    run: Run, data_dir: Path
) -> None:
    from lore.index.persist import index_path, status
    from lore.store.core import Store

    store = Store(data_dir)
    run("capture", "PITFALL: Timeout", "--anti-pattern", "--fix", "raise the job timeout")
    assert run("index", "rebuild").exit_code == 0
    saved = index_path(store.root).stat().st_mtime_ns
    run("fail", "Timeout", "deploy job timed out", "--tool", "make deploy")  # the file lags
    assert status(store)["fresh"] is False
    prompt = {"session_id": SESSION, "prompt": "the Timeout is back", "cwd": os.getcwd()}
    done = console("hooks", "run", "UserPromptSubmit", payload=prompt)
    assert done.returncode == 0
    assert "make deploy" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    eventually(lambda: index_path(store.root).stat().st_mtime_ns != saved, "the index written")
    eventually(lambda: status(store)["fresh"], "a fresh index")


def test_lore_hooks_run_in_process_writes_the_index_before_it_ends(
    run: Run, data_dir: Path
) -> None:
    from lore.index.persist import status
    from lore.store.core import Store

    run("capture", "PITFALL: Timeout", "--anti-pattern", "--fix", "raise the job timeout")
    assert run("index", "rebuild").exit_code == 0
    run("fail", "Timeout", "deploy job timed out", "--tool", "make deploy")
    prompt = {"session_id": SESSION, "prompt": "the Timeout is back", "cwd": os.getcwd()}
    assert run("hooks", "run", "user-prompt-submit", input=json.dumps(prompt)).exit_code == 0
    assert status(Store(data_dir))["fresh"] is True


# --- the hooks' own state -----------------------------------------------------------------


def test_old_sessions_state_is_dropped_when_a_session_starts_at_most_daily(tmp_path: Path) -> None:
    from lore.sessions import hook_state

    local = tmp_path / "local"
    folder = hook_state.folder(local) / "sessions"
    folder.mkdir(parents=True)
    month = time.time() - (hook_state.KEEP_DAYS + 1) * 86400

    def old(name: str) -> Path:
        path = folder / f"{name}.json"
        path.write_text("{}")
        os.utime(path, (month, month))
        return path

    first = old("first")
    with hook_state.updating(local, "new-1") as state:
        state["injected"] = ["dec-1"]
    assert not first.exists()
    second = old("second")
    with hook_state.updating(local, "new-2") as state:  # pruned a moment ago: not again
        state["injected"] = ["dec-1"]
    assert second.exists()
    marker = folder / ".pruned"
    yesterday = time.time() - hook_state.PRUNE_SECONDS - 60
    os.utime(marker, (yesterday, yesterday))
    with hook_state.updating(local, "new-2") as state:  # not a new session: no pruning
        state["told"] = ["Timeout"]
    assert second.exists()
    with hook_state.updating(local, "new-3") as state:
        state["injected"] = ["dec-1"]
    assert not second.exists()
    assert sorted(p.name for p in folder.glob("*.json")) == [
        "new-1.json",
        "new-2.json",
        "new-3.json",
    ]
