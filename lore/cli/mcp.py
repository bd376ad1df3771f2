"""``lore mcp`` (run the MCP server on stdio) and ``lore mcp install|uninstall`` (add or
remove lore's entry in Claude Code's, Codex's or Cursor's MCP configuration).

The MCP SDK is imported only when the server runs; without the ``[mcp]`` extra, ``lore
mcp`` prints the command that installs it and exits 2.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from lore.cli._app import App, this_lore
from lore.cli._output import echo, emit_json, json_option, note
from lore.errors import UsageError

pass_app = click.make_pass_decorator(App)


def _sdk_missing() -> UsageError | None:
    from lore.mcp import SDK_REQUIREMENT, sdk_installed

    if not sdk_installed():
        return UsageError(
            "lore mcp needs the MCP SDK (the [mcp] extra), which is not installed; "
            f"install it with:\n  {sys.executable} -m pip install '{SDK_REQUIREMENT}'"
        )
    return None


def _mcp_help() -> str:
    """The help of `lore mcp`, naming every tool, resource and prompt the server offers."""
    from lore.mcp import PROMPTS, RESOURCES, TOOL_NAMES

    return (
        "Run lore as an MCP server on stdio (for coding agents).\n\n"
        f"Tools ({len(TOOL_NAMES)}): {', '.join(TOOL_NAMES)}; resources "
        f"{' and '.join(RESOURCES)}; the prompt{'s' if len(PROMPTS) != 1 else ''} "
        f"{', '.join(PROMPTS)}. Each tool returns what the matching command's --json "
        "prints. The server runs until the client closes stdin. Set it up in an agent "
        "with `lore mcp install --claude|--codex|--cursor`."
    )


@click.group(name="mcp", invoke_without_command=True, help=_mcp_help())
@click.pass_context
def mcp_cmd(ctx: click.Context) -> None:
    if ctx.invoked_subcommand is not None:
        return
    error = _sdk_missing()
    if error is not None:
        raise error
    if sys.stdin.isatty():
        note(
            "lore mcp speaks the MCP protocol on stdin/stdout and is meant to be started by "
            "an agent (see lore mcp install --help); Ctrl-C stops it"
        )
    from lore.mcp.server import serve

    app: App = ctx.find_object(App)  # type: ignore[assignment]
    serve(app.data_dir)


def _agent(claude: bool, codex: bool, cursor: bool) -> str:
    chosen = [name for name, on in (("claude", claude), ("codex", codex), ("cursor", cursor)) if on]
    if len(chosen) != 1:
        raise UsageError("choose one agent: --claude, --codex or --cursor")
    return chosen[0]


def _project_dir() -> Path:
    from lore.capture.build import _repo

    repo = _repo()
    return Path(repo.top) if repo is not None else Path.cwd()


def agent_options(fn: Any) -> Any:
    for option in reversed(
        [
            click.option("--claude", is_flag=True, help="Claude Code (.mcp.json, ~/.claude.json)."),
            click.option("--codex", is_flag=True, help="Codex CLI (config.toml)."),
            click.option("--cursor", is_flag=True, help="Cursor (.cursor/mcp.json)."),
            click.option(
                "--scope",
                type=click.Choice(["user", "project"]),
                default="user",
                show_default=True,
                help="user: your configuration; project: the repository's (shared) one.",
            ),
            json_option,
        ]
    ):
        fn = option(fn)
    return fn


@mcp_cmd.command(name="install")
@agent_options
@click.option("--print", "show", is_flag=True, help="Print the entry instead of writing it.")
@pass_app
def mcp_install_cmd(
    app: App, claude: bool, codex: bool, cursor: bool, scope: str, as_json: bool, show: bool
) -> None:
    """Add lore's MCP server to an agent's configuration (idempotent).

    The entry runs the absolute path of this lore with `mcp` (and --data-dir DIR
    when the root was chosen by --data-dir or LORE_DATA_DIR). Every other
    server, setting and (in config.toml) comment is kept; a changed file is
    backed up first. Files: Claude Code .mcp.json (project) or ~/.claude.json
    (user); Codex .codex/config.toml (project) or ~/.codex/config.toml (user,
    $CODEX_HOME); Cursor .cursor/mcp.json (project) or ~/.cursor/mcp.json
    (user). The project is the git repository around the working directory, or
    the working directory.
    """
    from lore.mcp import agents
    from lore.sessions.agents import config_file

    agent = _agent(claude, codex, cursor)
    path = config_file(agent, scope, _project_dir())
    server = agents.entry(agent, this_lore(), app.chosen_root)
    if show:
        if as_json:
            emit_json({"agent": agent, "scope": scope, "file": str(path), "entry": server})
            return
        note(f"add this to {path}:")
        echo(agents.snippet(agent, server).rstrip("\n"))
        return
    result = agents.install(agent, path, server)
    if as_json:
        emit_json({"ok": True, "agent": agent, "scope": scope, **result, "entry": server})
        return
    verb = "added lore to" if result["changed"] else "lore is already in"
    echo(f"{verb} {path}")
    if agent == "claude" and scope == "project":
        note("Claude Code asks before it uses a project's .mcp.json servers")


@mcp_cmd.command(name="uninstall")
@agent_options
def mcp_uninstall_cmd(claude: bool, codex: bool, cursor: bool, scope: str, as_json: bool) -> None:
    """Remove lore's MCP server from an agent's configuration (nothing else)."""
    from lore.mcp import agents
    from lore.sessions.agents import config_file

    agent = _agent(claude, codex, cursor)
    path = config_file(agent, scope, _project_dir())
    result = agents.uninstall(agent, path)
    if as_json:
        emit_json({"ok": True, "agent": agent, "scope": scope, **result})
        return
    echo(f"removed lore from {path}" if result["removed"] else f"lore is not in {path}")
