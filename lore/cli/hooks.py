"""``lore hooks``: install, remove and run the Claude Code hooks.

``hooks run EVENT`` is what the installed hooks call. It always exits 0 within
about a second, whatever state the data root is in: a hook never blocks the agent.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

import click

from lore.cli._app import App, this_lore
from lore.cli._options import help_when_alone
from lore.cli._output import echo, emit_json, json_option

pass_app = click.make_pass_decorator(App)

HOOK_SECONDS = 0.9
HOOK_BUDGET = 1500  # tokens of resume context a session starts with (LORE_HOOK_BUDGET)


def _settings_path(settings: str | None) -> Path:
    if settings:
        return Path(settings).expanduser()
    return Path.home() / ".claude" / "settings.json"


@click.group(name="hooks", invoke_without_command=True)
@click.pass_context
def hooks_cmd(ctx: click.Context) -> None:
    """Install or remove the Claude Code hooks (and run them)."""
    help_when_alone(ctx)


@hooks_cmd.command(name="install")
@click.option("--claude", is_flag=True, required=True, help="Install the Claude Code hooks.")
@click.option("--settings", help="Settings JSON to edit (default: ~/.claude/settings.json).")
@json_option
def hooks_install_cmd(claude: bool, settings: str | None, as_json: bool) -> None:
    """Add SessionStart, PreCompact and SessionEnd hooks to a Claude Code settings file.

    SessionStart injects `lore resume` as context; PreCompact and SessionEnd
    write an automatic handoff built from the transcript (last requests, files
    touched, failed commands) without any model, carrying the last handoff's
    open items over. Idempotent; the file is backed up before any change; other
    hooks and settings are left as they are.
    """
    from lore.sessions.hooks import install

    result = install(_settings_path(settings), this_lore())
    if as_json:
        emit_json({"ok": True, **result})
        return
    if result["added"]:
        echo(f"added {', '.join(result['added'])} hooks to {result['settings']}")
        if result["backup"]:
            echo(f"backup: {result['backup']}")
    else:
        echo(f"lore hooks already installed in {result['settings']}")


@hooks_cmd.command(name="uninstall")
@click.option("--claude", is_flag=True, default=True, help="Remove the Claude Code hooks.")
@click.option("--settings", help="Settings JSON to edit (default: ~/.claude/settings.json).")
@json_option
def hooks_uninstall_cmd(claude: bool, settings: str | None, as_json: bool) -> None:
    """Remove exactly the hooks `lore hooks install` added."""
    from lore.sessions.hooks import uninstall

    result = uninstall(_settings_path(settings))
    if as_json:
        emit_json({"ok": True, **result})
        return
    if result["removed"]:
        echo(f"removed {', '.join(result['removed'])} hooks from {result['settings']}")
    else:
        echo(f"no lore hooks in {result['settings']}")


class _OutOfTime(BaseException):
    pass


HOOK_EVENTS = ("session-start", "pre-compact", "session-end")


@hooks_cmd.command(name="run")
@click.argument("event", metavar="session-start|pre-compact|session-end")
@click.pass_context
def hooks_run_cmd(ctx: click.Context, event: str) -> None:
    """Run one hook (called by Claude Code with the hook's JSON on stdin). Always exits 0.

    Hooks fail open: an unknown EVENT, like any failure, does nothing and exits 0.
    pre-compact and session-end write nothing for an empty, non-JSON or `{}`
    payload, a missing transcript or one that shows nothing; LORE_DEBUG=1 says
    why on stderr.
    """
    import signal

    if event not in HOOK_EVENTS:
        if os.environ.get("LORE_DEBUG"):
            click.echo(
                f"lore hook {event}: unknown event (expected one of {', '.join(HOOK_EVENTS)})",
                err=True,
            )
        ctx.exit(0)

    def out_of_time(_signum: int, _frame: Any) -> None:
        raise _OutOfTime

    previous: Any = None
    try:
        previous = signal.signal(signal.SIGALRM, out_of_time)
        signal.setitimer(signal.ITIMER_REAL, HOOK_SECONDS)
    except (ValueError, OSError):  # not the main thread (in-process tests)
        pass
    try:
        payload, problem = _read_payload()
        output = _run(ctx.obj, event, payload, problem)
        signal.setitimer(signal.ITIMER_REAL, 0)
        if output is not None:
            emit_json(output)
    except BaseException as exc:
        with contextlib.suppress(ValueError, OSError):
            signal.setitimer(signal.ITIMER_REAL, 0)
        if os.environ.get("LORE_DEBUG"):
            click.echo(f"lore hook {event}: {type(exc).__name__}: {exc}", err=True)
        if isinstance(exc, _OutOfTime):
            _warm_up_in_background(ctx.obj)
    finally:
        if previous is not None:  # run in-process (tests, embedding): leave no handler behind
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(signal.SIGALRM, previous)
    ctx.exit(0)


def _warm_up_in_background(app: App) -> None:
    """Build the search index in a detached process after a hook ran out of time.

    On a big store the first index build takes seconds; killed at the hook's deadline,
    it would never be saved and every later hook would time out the same way. The
    detached `lore index rebuild` outlives the hook, so the next one finds it warm.
    """
    import subprocess

    with contextlib.suppress(Exception):
        root = str(app.root.path)
        subprocess.Popen(
            [sys.executable, "-m", "lore", "--data-dir", root, "index", "rebuild"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # not killed with the hook's process group
            close_fds=True,
        )


def _read_payload() -> tuple[dict[str, Any], str | None]:
    """The hook's JSON object from stdin, and what is wrong with it (None: nothing)."""
    import select

    import orjson

    try:
        try:
            ready = bool(select.select([sys.stdin.fileno()], [], [], 0.2)[0])
        except (OSError, ValueError):
            ready = True  # not a real file (an in-process caller's buffer): read it as is
        raw = sys.stdin.buffer.read() if ready else b""
    except (OSError, ValueError, AttributeError):
        raw = b""
    if not raw.strip():
        return {}, "no payload on stdin"
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {}, "the payload on stdin is not JSON"
    if not isinstance(data, dict):
        return {}, "the payload on stdin is not a JSON object"
    if not data:
        return {}, "the payload on stdin is an empty object"
    return data, None


def _debug(event: str, message: str) -> None:
    if os.environ.get("LORE_DEBUG"):
        click.echo(f"lore hook {event}: {message}", err=True)


def _session_id(payload: dict[str, Any]) -> str | None:
    """The agent's session as lore's (``lore.ingest.ids``: the session record ``lore
    ingest`` writes for the same transcript is this one)."""
    from lore.ingest.ids import session_record_id

    raw = str(payload.get("session_id") or "")
    return (
        session_record_id(raw) if sum(c in "0123456789abcdef" for c in raw.lower()) >= 8 else None
    )


def _run(
    app: App, event: str, payload: dict[str, Any], problem: str | None
) -> dict[str, Any] | None:
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and os.path.isdir(cwd):
        os.chdir(cwd)
    from lore.capture.build import detect_project

    if event == "session-start":  # needs nothing from the payload: a bad one still resumes
        from lore.sessions.resume import resume
        from lore.sessions.resume_text import render

        project = detect_project(None)
        try:
            budget = int(os.environ.get("LORE_HOOK_BUDGET", HOOK_BUDGET))
        except ValueError:
            budget = HOOK_BUDGET
        text, _ = render(resume(app.store, project=project), budget=budget)
        return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
    if problem is not None:  # fail open: write nothing, exit 0
        _debug(event, f"nothing written: {problem}")
        return None
    from lore.sessions.hooks import auto_handoff

    session_id = _session_id(payload)
    if session_id and not os.environ.get("LORE_SESSION_ID"):
        os.environ["LORE_SESSION_ID"] = session_id
    name = "PreCompact" if event == "pre-compact" else "SessionEnd"
    session, said = auto_handoff(app.store, name, payload, project=detect_project(None))
    _debug(event, said if session is not None else f"nothing written: {said}")
    return None
