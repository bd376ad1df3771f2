"""``lore hooks``: install/uninstall from the command line, and running each hook.

A hook never blocks the agent: every ``hooks run`` exits 0 quickly whatever the data
root looks like. Those checks run in a real subprocess (startup time counts).
"""

from __future__ import annotations

import json
import os
import resource
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import Result

from lore.cli._app import this_lore
from lore.ingest.ids import record_id

Run = Callable[..., Result]
CLAUDE_SESSION = "0f4c2a1e-9b8d-4c7e-a6f5-3d2c1b0a9e8f"
SESSION_ID = "session-" + CLAUDE_SESSION.replace("-", "")


@pytest.fixture(autouse=True)
def hook_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # The hook exports the payload's session id; let monkeypatch undo that afterwards.
    monkeypatch.setenv("LORE_SESSION_ID", "")


def sessions(data_dir: Path) -> list[dict[str, Any]]:
    folder = data_dir / "transfer" / "data" / "sessions"
    return [orjson.loads(p.read_bytes()) for p in sorted(folder.glob("*.json"))]


# --- install / uninstall --------------------------------------------------------------


ALL = (
    "SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure, PreCompact, Stop, SessionEnd"
)


def test_install_and_uninstall_from_the_cli(run: Run, tmp_path: Path, data_dir: Path) -> None:
    settings = tmp_path / "settings.json"
    original = '{"model": "opus", "hooks": {"Stop": [{"hooks": []}]}}'
    settings.write_text(original)
    result = run("hooks", "install", "--claude", "--settings", str(settings), "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data == {
        "ok": True,
        "agent": "claude",
        "settings": str(settings),
        "added": ALL.split(", "),
        "updated": [],
        "backup": data["backup"],
    }
    assert Path(data["backup"]).read_text() == original
    hooks = orjson.loads(settings.read_bytes())["hooks"]
    lore_bin = this_lore()
    assert os.path.isabs(lore_bin)
    # LORE_DATA_DIR chose the root: the hooks run on it, whatever their environment.
    root = shlex.quote(str(data_dir))
    assert hooks["SessionStart"][0]["hooks"][0] == {
        "type": "command",
        "command": f"{shlex.quote(lore_bin)} --data-dir {root} hooks run session-start",
        "timeout": 10,
    }
    assert hooks["PostToolUseFailure"][0]["matcher"] == "Bash"
    again = run("hooks", "install", "--claude", "--settings", str(settings))
    assert again.stdout == f"lore hooks already installed in {settings}\n"
    removed = run("hooks", "uninstall", "--settings", str(settings))
    assert removed.stdout == f"removed {ALL} hooks from {settings}\n"
    assert orjson.loads(settings.read_bytes()) == json.loads(original)
    assert run("hooks", "uninstall", "--settings", str(settings)).stdout == (
        f"no lore hooks in {settings}\n"
    )


def test_install_defaults_to_the_user_settings(run: Run) -> None:
    result = run("hooks", "install", "--claude")
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    assert result.stdout == f"added {ALL} hooks in {settings}\n"
    assert list(orjson.loads(settings.read_bytes())["hooks"]) == ALL.split(", ")


def test_data_dir_given_to_lore_is_kept_in_the_hooks(tmp_path: Path) -> None:
    """Issue 15: `lore --data-dir DIR hooks install` wrote hooks that ran on the default
    root. Run the command it writes, as Claude Code does (a shell, no LORE_DATA_DIR)."""
    chosen, settings = tmp_path / "chosen root", tmp_path / "settings.json"
    env = {k: v for k, v in os.environ.items() if k != "LORE_DATA_DIR"}
    this = str(Path(sys.executable).with_name("lore"))
    subprocess.run(
        [
            this,
            "--data-dir",
            str(chosen),
            "hooks",
            "install",
            "--claude",
            "--settings",
            str(settings),
        ],
        env=env,
        capture_output=True,
        check=True,
    )
    group = orjson.loads(settings.read_bytes())["hooks"]["PreCompact"][0]
    command = group["hooks"][0]["command"]
    assert (
        command
        == f"{shlex.quote(this)} --data-dir {shlex.quote(str(chosen))} hooks run pre-compact"
    )
    transcript = tmp_path / "t.jsonl"
    line = {"type": "user", "sessionId": CLAUDE_SESSION, "message": {"content": "Add retries"}}
    transcript.write_text(json.dumps(line) + "\n")
    payload = {
        "session_id": CLAUDE_SESSION,
        "transcript_path": str(transcript),
        "cwd": str(tmp_path),
    }
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        text=True,
        env=env,
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert [s["id"] for s in sessions(chosen)] == [SESSION_ID]


def test_install_needs_one_agent(run: Run, tmp_path: Path) -> None:
    for flags in ([], ["--claude", "--codex"]):
        result = run("hooks", "install", *flags, "--settings", str(tmp_path / "s.json"))
        assert result.exit_code == 2
        assert result.stderr == "lore: error: name one agent: --claude, --codex or --gemini\n"
    assert not (tmp_path / "s.json").exists()


def test_install_codex_and_gemini_hooks(run: Run, data_dir: Path) -> None:
    """Codex reads Claude Code's format from hooks.json; Gemini CLI its own names, a
    name per hook and milliseconds (developers.openai.com/codex/hooks,
    geminicli.com/docs/hooks)."""
    lore_bin, root = shlex.quote(this_lore()), shlex.quote(str(data_dir))
    codex = run("hooks", "install", "--codex", "--json")
    assert codex.exit_code == 0, codex.stderr
    path = Path.home() / ".codex" / "hooks.json"
    assert json.loads(codex.stdout)["settings"] == str(path)
    hooks = orjson.loads(path.read_bytes())["hooks"]
    assert list(hooks) == ["SessionStart", "UserPromptSubmit", "PostToolUse", "PreCompact", "Stop"]
    assert hooks["PostToolUse"] == [
        {
            "matcher": "Bash",
            "hooks": [
                {
                    "type": "command",
                    "command": f"{lore_bin} --data-dir {root} hooks run post-tool-use",
                    "timeout": 10,
                }
            ],
        }
    ]
    gemini = run("hooks", "install", "--gemini")
    assert "Enable Hooks" in gemini.stderr
    hooks = orjson.loads((Path.home() / ".gemini" / "settings.json").read_bytes())["hooks"]
    assert list(hooks) == [
        "SessionStart",
        "BeforeAgent",
        "AfterTool",
        "PreCompress",
        "AfterAgent",
        "SessionEnd",
    ]
    assert hooks["AfterTool"][0]["matcher"] == "run_shell_command"
    assert hooks["BeforeAgent"][0]["hooks"] == [
        {
            "name": "lore-user-prompt-submit",
            "type": "command",
            "command": f"{lore_bin} --data-dir {root} hooks run user-prompt-submit",
            "timeout": 10000,
        }
    ]
    assert run("hooks", "install", "--gemini").stdout.startswith("lore hooks already installed")
    removed = run("hooks", "uninstall", "--gemini")
    assert removed.stdout.startswith("removed SessionStart, BeforeAgent, AfterTool")
    assert run("hooks", "uninstall", "--codex", "--json").exit_code == 0
    assert orjson.loads(path.read_bytes()) == {}


def test_gemini_gets_its_own_event_name_back(run: Run) -> None:
    payload = {"session_id": CLAUDE_SESSION, "hook_event_name": "SessionStart", "source": "startup"}
    out = json.loads(run("hooks", "run", "session-start", input=json.dumps(payload)).stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    payload = {"session_id": CLAUDE_SESSION, "hook_event_name": "BeforeAgent", "prompt": "hi"}
    run("remember", "Greet users with hi in the CLI banner")
    result = run(
        "hooks",
        "run",
        "BeforeAgent",
        input=json.dumps({**payload, "prompt": "the CLI banner should greet users"}),
    )
    assert json.loads(result.stdout)["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"


def test_install_into_malformed_json_is_refused(run: Run, tmp_path: Path) -> None:
    (tmp_path / "claude").mkdir()
    settings = tmp_path / "claude" / "settings.json"
    settings.write_text('{"hooks": ')
    result = run("hooks", "install", "--claude", "--settings", str(settings), "--json")
    assert result.exit_code == 4
    assert json.loads(result.stdout)["code"] == "invalid"
    assert result.stderr.startswith(f"lore: error: {settings}: not valid JSON")
    assert settings.read_text() == '{"hooks": '
    assert [p.name for p in settings.parent.iterdir()] == ["settings.json"]


# --- running the hooks in-process -------------------------------------------------------


def test_session_start_emits_the_resume_as_context(run: Run, tmp_path: Path) -> None:
    handed = run("handoff", "Cache layer done. Retries next.", "--next", "add retries")
    assert handed.exit_code == 0
    expected = run("resume").stdout.rstrip("\n")
    payload = {
        "session_id": CLAUDE_SESSION,
        "transcript_path": str(tmp_path / "none.jsonl"),
        "cwd": str(tmp_path / "work"),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    result = run("hooks", "run", "session-start", input=json.dumps(payload))
    assert result.exit_code == 0
    assert result.stderr == ""
    assert json.loads(result.stdout) == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": expected}
    }
    assert "Cache layer done. Retries next.\n- Next: add retries" in expected


def test_session_start_resumes_the_project_of_the_payloads_cwd(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", "2026-03-01T00:00:00.000000Z")
    run("handoff", "Work on proj.", "--project", "proj")
    monkeypatch.setenv("LORE_NOW", "2026-03-02T00:00:00.000000Z")
    run("handoff", "Work elsewhere.", "--project", "other")
    repo = tmp_path / "proj"
    (repo / ".git").mkdir(parents=True)  # all lore needs to see a repository named proj
    result = run("hooks", "run", "session-start", input=json.dumps({"cwd": str(repo)}))
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.splitlines()[0] == "lore resume — proj"
    assert context.splitlines()[2] == "Work on proj."


def test_session_start_without_a_payload(run: Run) -> None:
    result = run("hooks", "run", "session-start", input="")
    assert result.exit_code == 0
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("lore resume\n## No handoff yet")


def transcript(tmp_path: Path) -> Path:
    def entry(kind: str, content: Any, **extra: Any) -> bytes:
        return orjson.dumps(
            {
                "type": kind,
                "sessionId": CLAUDE_SESSION,
                "message": {"role": kind, "content": content},
                **extra,
            }
        )

    def use(tool_id: str, name: str, **given: Any) -> dict[str, Any]:
        return {"type": "tool_use", "id": tool_id, "name": name, "input": given}

    def result(tool_id: str, error: bool) -> dict[str, Any]:
        return {"type": "tool_result", "tool_use_id": tool_id, "content": "x", "is_error": error}

    lines = [
        entry("user", "Add retries to the HTTP client", timestamp="2026-03-04T05:00:00.000Z"),
        entry("assistant", [use("t1", "Edit", file_path="/repo/client.py")]),
        entry("user", [result("t1", False)]),
        entry("assistant", [use("t2", "Bash", command="pytest -x tests")]),
        entry("user", [result("t2", True)]),
        entry("assistant", [use("t3", "Write", file_path="/repo/tests/test_retry.py")]),
        entry("user", [result("t3", False)]),
        entry("assistant", [use("t4", "Bash", command="ruff check .")]),
        entry("user", [result("t4", False)]),
        entry(
            "user",
            [{"type": "text", "text": "Make the backoff exponential"}],
            timestamp="2026-03-04T05:10:00.000Z",
        ),
    ]
    path = tmp_path / "transcript.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def payload(tmp_path: Path, event: str) -> str:
    return json.dumps(
        {
            "session_id": CLAUDE_SESSION,
            "transcript_path": str(transcript(tmp_path)),
            "cwd": str(tmp_path / "work"),
            "hook_event_name": event,
        }
    )


def test_pre_compact_writes_an_automatic_handoff(
    run: Run, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", "2026-03-04T05:11:00.000000Z")
    result = run("hooks", "run", "pre-compact", input=payload(tmp_path, "PreCompact"))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    (record,) = sessions(data_dir)
    message = (
        'Automatic handoff (PreCompact). First request: "Add retries to the HTTP client". '
        'Last request: "Make the backoff exponential". '
        "Edited 2 files: /repo/client.py, /repo/tests/test_retry.py. "
        "Tests: `pytest -x tests` failed (1 run, 1 failed). "
        "1 command failed (0 fixed): `pytest -x tests` (TestFailure). "
        "Open: unanswered: Make the backoff exponential; `pytest -x tests` still fails: x."
    )
    assert record["id"] == SESSION_ID
    assert (record["status"], record["message"], record["source"]) == ("closed", message, "hook")
    assert record["summary"] == (
        'PreCompact: "Make the backoff exponential" (2 files edited, 1 command failed)'
    )
    # Open items, not requests: a request is a thread only while nothing answered it.
    assert record["threads"] == [
        "unanswered: Make the backoff exponential",
        "`pytest -x tests` still fails: x",
    ]
    assert record["auto"] == {
        "event": "PreCompact",
        "requests": ["Add retries to the HTTP client", "Make the backoff exponential"],
        "files": ["/repo/client.py", "/repo/tests/test_retry.py"],
        "failed_commands": ["pytest -x tests"],
        "threads": ["unanswered: Make the backoff exponential", "`pytest -x tests` still fails: x"],
    }
    assert record["digest"]["first_request"] == "Add retries to the HTTP client"
    # The hook's ingestion recorded the failure; the digest names its id.
    (failure,) = record["digest"]["failures"]
    assert failure == {
        "command": "pytest -x tests",
        "error_type": "TestFailure",
        "count": 1,
        "fixed": False,
        "id": record_id("fail", f"claude:{CLAUDE_SESSION}", "pytest -x tests"),
    }
    # The end of the same Claude session re-closes the same lore session.
    monkeypatch.setenv("LORE_NOW", "2026-03-04T05:20:00.000000Z")
    run("hooks", "run", "session-end", input=payload(tmp_path, "SessionEnd"))
    (record,) = sessions(data_dir)
    assert (record["id"], record["auto"]["event"]) == (SESSION_ID, "SessionEnd")
    assert record["ended_at"] == "2026-03-04T05:20:00.000000Z"
    resumed = run("resume").stdout
    assert "Automatic handoff (SessionEnd). First request:" in resumed
    assert "- Open thread: unanswered: Make the backoff exponential" in resumed


def test_session_end_does_not_bury_the_agents_own_handoff(
    run: Run, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", "2026-03-04T05:15:00.000000Z")  # after the last request
    own = json.loads(run("handoff", "Backoff done. Ship it.", "--json").stdout)["record"]
    monkeypatch.setenv("LORE_NOW", "2026-03-04T05:20:00.000000Z")
    result = run("hooks", "run", "session-end", input=payload(tmp_path, "SessionEnd"))
    assert (result.exit_code, result.stdout) == (0, "")
    assert sessions(data_dir) == [own]
    assert "Backoff done. Ship it." in run("resume").stdout


def test_a_handoff_before_the_last_request_is_superseded(
    run: Run, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", "2026-03-04T05:05:00.000000Z")  # before the last request
    run("handoff", "Retries done.")
    monkeypatch.setenv("LORE_NOW", "2026-03-04T05:20:00.000000Z")
    run("hooks", "run", "session-end", input=payload(tmp_path, "SessionEnd"))
    assert {s["summary"] for s in sessions(data_dir)} == {
        "Retries done.",
        'SessionEnd: "Make the backoff exponential" (2 files edited, 1 command failed)',
    }
    assert run("resume").stdout.splitlines()[2].startswith("Automatic handoff (SessionEnd).")


# --- every hook exits 0, fast, whatever happens ---------------------------------------------


def corrupt_root(root: Path) -> Path:
    files = {
        "journal/data/decisions.jsonl": b'{"id": "dec-1", "decision": \n<<<<<<< HEAD\n\x00\xff\n',
        "failures/data/failures.jsonl": b"not json at all\n[1, 2]\n",
        "patterns/data/patterns/pat-000000000001.yaml": b"name: [unclosed\n  - : :\n",
        "patterns/data/anti-patterns/anti-000000000001.yaml": b"- a list\n- not a map\n",
        "transfer/data/sessions/session-0000000000aa.json": b'{"id": "session-0000000000aa", ',
        "intent/data/goals/goal-000000000001.yaml": b"title: 3\ncriteria: nope\n",
        "registry/data/projects.yaml": b"projects: [\n",
        "inbox/data/observations.jsonl": b'{"id": 5, "timestamp": []}\n',
    }
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return root


# The hook's 0.9 s alarm is measured in bench/hooks.py; a test, which may share the
# machine with others, checks what no load can blur: the hook's own work (its CPU time,
# process start included) stays under WORK seconds, and it waits on nothing (a lock wait
# would take LORE_LOCK_TIMEOUT, 60 s here) for HANG seconds of wall clock.
WORK, HANG = 1.5, 10.0


def run_hook(event: str, data: str, stdin: bytes, tmp_path: Path) -> tuple[float, float, Any]:
    """Run the hook as the agent does: (wall seconds, CPU seconds, the finished process)."""
    env = {**os.environ, "LORE_DATA_DIR": data, "HOME": str(tmp_path / "home")}
    env["LORE_LOCK_TIMEOUT"] = "60"
    env.pop("LORE_SESSION_ID", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "lore", "hooks", "run", event],
        input=stdin,
        env=env,
        cwd=tmp_path / "work",
        capture_output=True,
        timeout=60,
        check=False,
    )
    elapsed = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return elapsed, cpu, done


def check_quiet_success(event: str, elapsed: float, cpu: float, done: Any) -> None:
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    assert cpu < WORK, f"{event} worked {cpu:.2f}s"
    assert elapsed < HANG, f"{event} took {elapsed:.2f}s"
    if done.stdout:  # only session-start prints, and then exactly the hook's JSON
        assert event == "session-start"
        out = json.loads(done.stdout)
        assert list(out) == ["hookSpecificOutput"]
        assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        assert isinstance(out["hookSpecificOutput"]["additionalContext"], str)


@pytest.mark.parametrize("state", ["missing", "under-a-file", "unreadable", "corrupt"])
@pytest.mark.parametrize("event", ["session-start", "pre-compact", "session-end"])
def test_hooks_never_fail_whatever_the_data_root(tmp_path: Path, state: str, event: str) -> None:
    if state == "missing":
        data = tmp_path / "nowhere" / "data"
    elif state == "under-a-file":  # cannot be created, even by root
        (tmp_path / "a-file").write_text("x")
        data = tmp_path / "a-file" / "data"
    elif state == "unreadable":
        if os.geteuid() == 0:
            pytest.skip("root reads and writes a chmod 000 directory anyway")
        data = tmp_path / "locked"
        data.mkdir()
        data.chmod(0o000)
    else:
        data = corrupt_root(tmp_path / "corrupt")
    stdin = json.dumps(
        {"session_id": CLAUDE_SESSION, "transcript_path": str(tmp_path / "t.jsonl"), "cwd": "/"}
    ).encode()
    try:
        elapsed, cpu, done = run_hook(event, str(data), stdin, tmp_path)
    finally:
        if state == "unreadable":
            data.chmod(0o700)
    check_quiet_success(event, elapsed, cpu, done)
    if event == "session-start" and state in ("missing", "corrupt"):
        assert done.stdout  # nothing or garbage to read: the agent still gets its context


@pytest.mark.parametrize(
    ("event", "stdin"),
    [("session-start", b""), ("pre-compact", b"this is not JSON"), ("session-end", b"[1, 2]")],
)
def test_hooks_never_fail_whatever_the_stdin(
    tmp_path: Path, data_dir: Path, event: str, stdin: bytes
) -> None:
    elapsed, cpu, done = run_hook(event, str(data_dir), stdin, tmp_path)
    check_quiet_success(event, elapsed, cpu, done)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (None, 0.9),
        ("", 0.9),
        ("2.5", 2.5),
        ("30", 30.0),
        ("0", 0.9),
        ("-1", 0.9),
        ("inf", 0.9),
        ("nan", 0.9),
        ("soon", 0.9),
    ],
)
def test_lore_hook_seconds_sets_the_deadline_or_is_ignored(
    monkeypatch: pytest.MonkeyPatch, value: str | None, seconds: float
) -> None:
    from lore.sessions.hook_events import hook_seconds

    if value is None:
        monkeypatch.delenv("LORE_HOOK_SECONDS")
    else:
        monkeypatch.setenv("LORE_HOOK_SECONDS", value)
    assert hook_seconds() == seconds


def test_a_hook_out_of_time_warms_the_index_in_a_detached_process(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess as subprocess_mod

    import lore.sessions.resume

    run("observe", "something")
    monkeypatch.setenv("LORE_HOOK_SECONDS", "0.05")

    def slow(*_: Any, **__: Any) -> Any:
        time.sleep(2)  # a cold index build on a big store

    started: list[tuple[list[str], dict[str, Any]]] = []
    monkeypatch.setattr(lore.sessions.resume, "resume", slow)
    monkeypatch.setattr(subprocess_mod, "Popen", lambda args, **kw: started.append((args, kw)))
    result = run("hooks", "run", "session-start", input="{}")
    assert (result.exit_code, result.stdout) == (0, "")
    assert len(started) == 1
    args, options = started[0]
    assert args == [sys.executable, "-m", "lore", "--data-dir", str(data_dir), "index", "rebuild"]
    assert options["start_new_session"] is True
    assert options["stdout"] is subprocess_mod.DEVNULL


def test_a_hook_out_of_time_beside_an_index_starts_no_rebuild(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook slowed by a loaded machine must not add full rebuilds to the load; and of
    many hooks out of time at once, one starts the warm-up."""
    import subprocess as subprocess_mod

    import lore.sessions.resume

    monkeypatch.setenv("LORE_HOOK_SECONDS", "0.05")
    monkeypatch.setattr(lore.sessions.resume, "resume", lambda *_, **__: time.sleep(2))
    started: list[Any] = []
    monkeypatch.setattr(subprocess_mod, "Popen", lambda args, **kw: started.append(args))
    for _ in range(3):
        assert run("hooks", "run", "session-start", input="{}").exit_code == 0
    assert len(started) == 1  # no index yet: one warm-up, not three
    assert run("recall", "anything").exit_code in (0, 3)  # builds and saves the index
    from lore.index.persist import index_path
    from lore.paths import resolve_root

    assert index_path(resolve_root(str(data_dir))).exists()
    index_path(resolve_root(str(data_dir))).with_name(".warming").unlink()
    assert run("hooks", "run", "session-start", input="{}").exit_code == 0
    assert len(started) == 1  # an index exists: the hook was only slow


def test_a_hook_in_time_starts_nothing(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess as subprocess_mod

    started: list[Any] = []
    monkeypatch.setattr(subprocess_mod, "Popen", lambda *a, **kw: started.append(a))
    result = run("hooks", "run", "session-start", input="{}")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert started == []


def test_hooks_install_writes_the_lore_that_runs_not_another_on_path(tmp_path: Path) -> None:
    import subprocess
    import sys

    other = tmp_path / "otherbin"
    other.mkdir()
    (other / "lore").write_text("#!/bin/sh\nexit 1\n")
    (other / "lore").chmod(0o755)
    this = str(Path(sys.executable).with_name("lore"))
    settings = tmp_path / "settings.json"
    env = {**os.environ, "PATH": f"{other}{os.pathsep}{os.environ['PATH']}"}
    env.pop("LORE_DATA_DIR")  # no root chosen: the hooks name none
    subprocess.run(
        [this, "hooks", "install", "--claude", "--settings", str(settings)],
        capture_output=True,
        env=env,
        check=True,
    )
    command = orjson.loads(settings.read_bytes())["hooks"]["SessionStart"][0]["hooks"][0]
    assert command["command"] == f"{shlex.quote(this)} hooks run session-start"
