"""``lore hooks``: install, remove, run and pause the agent hooks.

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
from lore.cli._output import echo, emit_json, json_option, note

pass_app = click.make_pass_decorator(App)

HOOK_BUDGET = 1500  # tokens of resume context a session starts with (LORE_HOOK_BUDGET)


def _agent(claude: bool, codex: bool, gemini: bool) -> str:
    from lore.errors import UsageError

    chosen = [n for n, on in (("claude", claude), ("codex", codex), ("gemini", gemini)) if on]
    if len(chosen) != 1:
        raise UsageError("name one agent: --claude, --codex or --gemini")
    return chosen[0]


def _settings_path(agent: str, scope: str, settings: str | None) -> Path:
    if settings:
        return Path(settings).expanduser()
    from lore.capture.build import _repo
    from lore.sessions.agents import hooks_file

    repo = _repo()
    return hooks_file(agent, scope, Path(repo.top) if repo is not None else Path.cwd())


def agent_options(fn: Any) -> Any:
    for option in reversed(
        [
            click.option("--claude", is_flag=True, help="Claude Code (settings.json)."),
            click.option("--codex", is_flag=True, help="Codex CLI (hooks.json)."),
            click.option("--gemini", is_flag=True, help="Gemini CLI (settings.json)."),
            click.option(
                "--scope",
                type=click.Choice(["user", "project"]),
                default="user",
                show_default=True,
                help="The user's file or the project's.",
            ),
            click.option("--settings", help="The file to edit instead (any agent's format)."),
            json_option,
        ]
    ):
        fn = option(fn)
    return fn


@click.group(name="hooks", invoke_without_command=True)
@click.pass_context
def hooks_cmd(ctx: click.Context) -> None:
    """Install, remove, run and pause the agent hooks."""
    help_when_alone(ctx)


@hooks_cmd.command(name="install")
@agent_options
@pass_app
def hooks_install_cmd(
    app: App,
    claude: bool,
    codex: bool,
    gemini: bool,
    scope: str,
    settings: str | None,
    as_json: bool,
) -> None:
    """Add lore's hooks to an agent's settings (idempotent).

    SessionStart injects `lore resume` as context; UserPromptSubmit injects
    the memories relevant to each prompt (ids, each record once per session);
    PostToolUse and PostToolUseFailure (shell commands) record a failed
    command at once and tell the agent when its type reaches the Rule of
    Three; PreCompact, Stop and SessionEnd ingest the session's transcript from
    its watermark (PreCompact and SessionEnd also write an automatic handoff).
    Codex CLI and Gemini CLI get the events they have, under their names. Each
    hook runs this lore, with --data-dir DIR when the root was chosen by
    --data-dir or LORE_DATA_DIR. An older lore entry for an event is replaced;
    the file is backed up before any change; other hooks and settings are left
    as they are. Files: Claude Code ~/.claude/settings.json (project:
    .claude/settings.json), Codex ~/.codex/hooks.json ($CODEX_HOME; project:
    .codex/hooks.json), Gemini CLI ~/.gemini/settings.json (project:
    .gemini/settings.json).
    """
    from lore.sessions.hooks import install

    agent = _agent(claude, codex, gemini)
    path = _settings_path(agent, scope, settings)
    result = install(path, this_lore(), app.chosen_root, agent)
    if as_json:
        emit_json({"ok": True, "agent": agent, **result})
        return
    for verb, events in (("added", result["added"]), ("updated", result["updated"])):
        if events:
            echo(f"{verb} {', '.join(events)} hooks in {result['settings']}")
    if result["backup"]:
        echo(f"backup: {result['backup']}")
    if not result["added"] and not result["updated"]:
        echo(f"lore hooks already installed in {result['settings']}")
    if agent == "codex" and result["added"]:
        note("Codex asks you to review and trust new hooks before it runs them")
    if agent == "gemini" and result["added"]:
        note("Gemini CLI runs hooks only with its hooks system on (/settings: Enable Hooks)")


@hooks_cmd.command(name="uninstall")
@agent_options
def hooks_uninstall_cmd(
    claude: bool, codex: bool, gemini: bool, scope: str, settings: str | None, as_json: bool
) -> None:
    """Remove exactly the hooks `lore hooks install` added (default: Claude Code's)."""
    from lore.sessions.hooks import uninstall

    agent = _agent(claude or not (codex or gemini), codex, gemini)
    result = uninstall(_settings_path(agent, scope, settings), agent)
    if as_json:
        emit_json({"ok": True, "agent": agent, **result})
        return
    if result["removed"]:
        echo(f"removed {', '.join(result['removed'])} hooks from {result['settings']}")
    else:
        echo(f"no lore hooks in {result['settings']}")


class _OutOfTime(BaseException):
    pass


@hooks_cmd.command(name="run")
@click.argument("event", required=False, metavar="EVENT")
@click.pass_context
def hooks_run_cmd(ctx: click.Context, event: str | None) -> None:
    """Run one hook (called by the agent with the hook's JSON on stdin). Always exits 0.

    EVENT is spelt as Claude Code does (SessionStart, UserPromptSubmit,
    PostToolUse, PostToolUseFailure, PreCompact, Stop, SessionEnd) or as lore's
    commands do (session-start, user-prompt-submit, ...); without it, the
    payload's hook_event_name says. Hooks fail open: an unknown EVENT, like any
    failure, does nothing and exits 0; LORE_DEBUG=1 says why on stderr.
    """
    import signal

    from lore.sessions.hook_events import NAMES, hook_seconds, normalize

    def out_of_time(_signum: int, _frame: Any) -> None:
        raise _OutOfTime

    previous: Any = None
    try:
        previous = signal.signal(signal.SIGALRM, out_of_time)
        signal.setitimer(signal.ITIMER_REAL, hook_seconds())
    except (ValueError, OSError):  # not the main thread (in-process tests)
        pass
    name = event or "?"
    try:
        payload, problem = _read_payload()
        known = normalize(event if event else payload.get("hook_event_name"))
        if known is None:
            _debug(name, f"unknown event (expected one of {', '.join(NAMES)})")
        else:
            name = known.name
            output = _run(ctx.obj, known.name, payload, problem)
            signal.setitimer(signal.ITIMER_REAL, 0)
            if output is not None:
                emit_json(output)
    except BaseException as exc:
        with contextlib.suppress(ValueError, OSError):
            signal.setitimer(signal.ITIMER_REAL, 0)
        _debug(name, f"{type(exc).__name__}: {exc}")
        if isinstance(exc, _OutOfTime):
            _warm_up_in_background(ctx.obj)
    finally:
        with contextlib.suppress(ValueError, OSError):
            signal.setitimer(signal.ITIMER_REAL, 0)
        if previous is not None:  # run in-process (tests, embedding): leave no handler behind
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(signal.SIGALRM, previous)
    ctx.exit(0)


WARMING_SECONDS = 300  # a warm-up started this recently is still running (or done)


def _warm_up_in_background(app: App) -> None:
    """Build the search index in a detached process after a hook ran out of time.

    On a big store the first index build takes seconds; killed at the hook's deadline,
    it would never be saved and every later hook would time out the same way. The
    detached `lore index rebuild` outlives the hook, so the next one finds it warm. Only
    when there is no index file yet (a hook that ran out of time beside a saved index was
    slowed by the machine, and a rebuild would only load it more), and at most one every
    WARMING_SECONDS (a marker in the index's folder), however many hooks time out.
    """
    import subprocess
    import time

    from lore.index.persist import index_path

    with contextlib.suppress(Exception):
        index = index_path(app.root)
        if index.exists():
            return
        marker = index.with_name(".warming")
        marker.parent.mkdir(parents=True, exist_ok=True)
        try:
            if time.time() - marker.stat().st_mtime < WARMING_SECONDS:
                return
        except FileNotFoundError:
            pass
        marker.touch()
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


def _context(event: str, payload: dict[str, Any], text: str) -> dict[str, Any]:
    """The hook's answer: ``additionalContext`` under the event's name as the agent spelt
    it in the payload (Gemini CLI's ``BeforeAgent``), else as Claude Code spells it."""
    from lore.sessions.hook_events import BY_NAME, normalize

    said = payload.get("hook_event_name")
    name = said if normalize(said) is BY_NAME[event] else BY_NAME[event].claude
    return {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}


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
        _note_session(app, payload)
        return _context(event, payload, text)
    if problem is not None:  # fail open: write nothing, exit 0
        _debug(event, f"nothing written: {problem}")
        return None
    session_id = _session_id(payload)
    if session_id and not os.environ.get("LORE_SESSION_ID"):
        os.environ["LORE_SESSION_ID"] = session_id
    _note_session(app, payload)
    if event == "user-prompt-submit":
        from lore.sessions.inject import prompt_context

        found, said = prompt_context(
            app.store, payload, project=detect_project(None), lore_session=session_id
        )
        _debug(event, said)
        return _context(event, payload, found) if found else None
    if event in ("post-tool-use", "post-tool-use-failure"):
        from lore.sessions.hook_capture import record_failure

        told, said = record_failure(
            app.store, payload, project=detect_project(None), lore_session=session_id
        )
        _debug(event, said)
        return _context(event, payload, told) if told else None
    from lore.sessions.hook_ingest import ingest_transcript

    if event != "stop":  # the handoff first: ingestion then adds to the session's record
        from lore.sessions.hooks import auto_handoff

        name = "PreCompact" if event == "pre-compact" else "SessionEnd"
        session, said = auto_handoff(app.store, name, payload, project=detect_project(None))
        _debug(event, said if session is not None else f"nothing written: {said}")
    ingested, said = ingest_transcript(app.store, payload)
    if ingested or event == "stop":  # else the handoff above said why nothing was read
        _debug(event, said)
    return None


def _note_session(app: App, payload: dict[str, Any]) -> None:
    """Remember the agent session the hooks saw last (``lore hooks pause`` acts on it)."""
    from lore.sessions.hook_state import note_last

    session, cwd = payload.get("session_id"), payload.get("cwd")
    if isinstance(session, str) and session.strip():
        with contextlib.suppress(OSError):
            note_last(app.root.local, session, cwd if isinstance(cwd, str) else None)


# --- pause --------------------------------------------------------------------------------


def _pause_target(app: App, session: str | None) -> str:
    from lore.errors import NotFoundError
    from lore.sessions.hook_state import last_session

    chosen = session or last_session(app.root.local)
    if not chosen:
        raise NotFoundError(
            "no agent session has run lore's hooks on this root yet: name one with --agent-session"
        )
    return chosen


@hooks_cmd.command(name="pause")
@click.option(
    "--agent-session",
    "session",
    help="The agent's own session id (default: the last one the hooks saw).",
)
@json_option
@pass_app
def hooks_pause_cmd(app: App, session: str | None, as_json: bool) -> None:
    """Stop injecting memories into an agent session (prompts and failures).

    Capture goes on; only the context lore adds to prompts and failed commands
    stops, until `lore hooks unpause`. LORE_HOOKS_PAUSE=1 in the agent's
    environment does the same for every session it runs.
    """
    from lore.sessions.hook_state import set_paused

    chosen = _pause_target(app, session)
    changed = set_paused(app.root.local, chosen, True)
    if as_json:
        emit_json({"ok": True, "session": chosen, "paused": True, "changed": changed})
        return
    echo(f"injection paused for session {chosen}" + ("" if changed else " (already)"))


@hooks_cmd.command(name="unpause")
@click.option(
    "--agent-session",
    "session",
    help="The agent's own session id (default: the last one the hooks saw).",
)
@json_option
@pass_app
def hooks_unpause_cmd(app: App, session: str | None, as_json: bool) -> None:
    """Inject memories into an agent session again after `lore hooks pause`."""
    from lore.sessions.hook_state import set_paused

    chosen = _pause_target(app, session)
    changed = set_paused(app.root.local, chosen, False)
    if as_json:
        emit_json({"ok": True, "session": chosen, "paused": False, "changed": changed})
        return
    echo(f"injection resumed for session {chosen}" + ("" if changed else " (was not paused)"))
