"""``lore hooks``: install, remove, run and pause the agent hooks.

``hooks run EVENT`` is what the installed hooks call. It always exits 0 within
about a second, whatever state the data root is in: a hook never blocks the agent.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import click

from lore.cli._app import App, this_lore
from lore.cli._options import help_when_alone
from lore.cli._output import echo, emit_json, json_option, note

pass_app = click.make_pass_decorator(App)


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
    # The installed hooks reach lore.sessions.hook_run through the console script's fast
    # path (lore.launch), without click; this is the same call for every other caller.
    from lore.index.persist import save_kept
    from lore.sessions.hook_events import hook_seconds
    from lore.sessions.hook_run import answer, read_stdin

    app: App = ctx.obj
    output, name, notes = answer(app, event, read_stdin(), seconds=hook_seconds(), keep_index=True)
    with contextlib.suppress(BaseException):
        if output is not None:
            emit_json(output)
        save_kept(app.store)  # after the answer (the console script does it detached)
    if os.environ.get("LORE_DEBUG"):
        for said in notes:
            click.echo(f"lore hook {name}: {said}", err=True)
    ctx.exit(0)


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
