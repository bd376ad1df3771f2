"""Where coding agents keep what lore writes into them (Claude Code's hook settings, the
MCP configuration of Claude Code, Codex and Cursor, the Claude Code plugin), and which
data root each of those runs lore on, so ``lore doctor`` can say when the hooks, the MCP
server and the CLI would read and write different roots. Reads only."""

from __future__ import annotations

import contextlib
import os
import shlex
from pathlib import Path
from typing import Any, NamedTuple

from lore.errors import UsageError

AGENTS = ("claude", "codex", "cursor")
SCOPES = ("user", "project")
NAME = "lore"  # the MCP server's name in every agent's configuration
PLUGIN = "lore"  # the Claude Code plugin's name (``lore@<marketplace>`` when enabled)


def config_file(agent: str, scope: str, project_dir: Path) -> Path:
    """Where ``agent`` reads MCP servers for ``scope`` (see docs/how-to/agents.md)."""
    home = Path.home()
    if agent == "claude":
        return project_dir / ".mcp.json" if scope == "project" else home / ".claude.json"
    if agent == "cursor":
        return (project_dir if scope == "project" else home) / ".cursor" / "mcp.json"
    if agent == "codex":
        if scope == "project":
            return project_dir / ".codex" / "config.toml"
        return Path(os.environ.get("CODEX_HOME") or home / ".codex") / "config.toml"
    raise UsageError(f"unknown agent {agent!r}: use one of {', '.join(AGENTS)}")


HOOK_AGENTS = ("claude", "codex", "gemini")


def hooks_file(agent: str, scope: str, project_dir: Path) -> Path:
    """Where ``agent`` reads hooks for ``scope``: Claude Code's and Gemini CLI's
    ``settings.json``, Codex's ``hooks.json`` (see docs/how-to/agents.md)."""
    home = Path.home()
    if agent == "codex":
        if scope == "project":
            return project_dir / ".codex" / "hooks.json"
        return Path(os.environ.get("CODEX_HOME") or home / ".codex") / "hooks.json"
    if agent in ("claude", "gemini"):
        return (project_dir if scope == "project" else home) / f".{agent}" / "settings.json"
    raise UsageError(f"unknown agent {agent!r}: use one of {', '.join(HOOK_AGENTS)}")


class Integration(NamedTuple):
    """One place an agent runs lore from, and the root it runs lore on."""

    file: Path  # the configuration that says so
    what: str  # "hooks SessionStart, Stop", "MCP server lore", "plugin lore@lore"
    root: Path  # the data root lore resolves there
    named: bool  # True: the entry names it (--data-dir, LORE_DATA_DIR); else the default
    redo: str = ""  # how to point it at another root ({root} stands for that root)


def root_of(argv: list[str], env: dict[str, Any] | None, default: Path) -> tuple[Path, bool]:
    """The data root a lore command line (and its environment) runs on: ``--data-dir``
    (``--data-dir=DIR`` too), else ``LORE_DATA_DIR`` (an ``env`` entry or a ``VAR=value``
    word before the program), else ``default``."""
    found: str | None = None
    for n, word in enumerate(argv):
        if word == "--data-dir" and n + 1 < len(argv):
            found = argv[n + 1]
            break
        if word.startswith("--data-dir="):
            found = word.split("=", 1)[1]
            break
    if found is None:
        for word in argv:
            if word.startswith("LORE_DATA_DIR="):
                found = word.split("=", 1)[1]
            elif "=" not in word:
                break
    if found is None and isinstance(env, dict) and isinstance(env.get("LORE_DATA_DIR"), str):
        found = env["LORE_DATA_DIR"]
    if not found:
        return default, False
    return Path(os.path.expanduser(found)).absolute(), True


def integrations(project_dir: Path, default: Path) -> list[Integration]:
    """Every place lore is wired into an agent on this machine for ``project_dir``, with
    the root each runs lore on (``default``: the root lore picks when none is named)."""
    found: list[Integration] = []
    # Every file that can hold lore's hooks: each agent's user and project files, and
    # Claude Code's project-local settings.
    for agent in HOOK_AGENTS:
        for scope in SCOPES:
            redo = f"lore --data-dir {{root}} hooks install --{agent}" + _scoped(scope)
            found.extend(_hooks(hooks_file(agent, scope, project_dir), default, redo))
        if agent == "claude":
            local = project_dir / ".claude" / "settings.local.json"
            redo = f"lore --data-dir {{root}} hooks install --claude --settings {local}"
            found.extend(_hooks(local, default, redo))
    for agent in AGENTS:
        for scope in SCOPES:
            path = config_file(agent, scope, project_dir)
            redo = f"lore --data-dir {{root}} mcp install --{agent}" + _scoped(scope)
            for what, server in _servers(agent, path, project_dir):
                command = server.get("command")
                args = server.get("args")
                argv = [command] if isinstance(command, str) else []
                argv += [a for a in args if isinstance(a, str)] if isinstance(args, list) else []
                root, named = root_of(argv, server.get("env"), default)
                found.append(Integration(path, what, root, named, redo))
    return found


def _scoped(scope: str) -> str:
    return " --scope project" if scope == "project" else ""


def _load_json(path: Path) -> Any:
    import orjson

    with contextlib.suppress(OSError, orjson.JSONDecodeError):
        return orjson.loads(path.read_bytes())
    return None


def _hooks(settings: Path, default: Path, redo: str) -> list[Integration]:
    from lore.sessions.hook_events import NAMES
    from lore.sessions.hooks import is_ours

    data = _load_json(settings)
    if not isinstance(data, dict):
        return []
    out: list[Integration] = []
    # Claude Code gives the settings' "env" to every session, and so to its hooks.
    env = data.get("env") if isinstance(data.get("env"), dict) else None
    hooks = data.get("hooks")
    by_root: dict[tuple[Path, bool], list[str]] = {}
    for theirs, groups in hooks.items() if isinstance(hooks, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            entries = group.get("hooks") if isinstance(group, dict) else None
            for entry in entries if isinstance(entries, list) else ():
                if not any(is_ours(entry, name) for name in NAMES):
                    continue
                with contextlib.suppress(ValueError):
                    key = root_of(shlex.split(entry["command"]), env, default)
                    by_root.setdefault(key, []).append(str(theirs))
    for (root, named), events in by_root.items():
        out.append(Integration(settings, f"hooks {', '.join(events)}", root, named, redo))
    plugins = data.get("enabledPlugins")
    if isinstance(plugins, dict):
        for plugin, enabled in plugins.items():
            if enabled is True and str(plugin).split("@")[0] == PLUGIN:
                # The plugin runs `lore` from PATH: the root is the settings' env's, or none.
                root, named = root_of([], env, default)
                redo = f'set "LORE_DATA_DIR": "{{root}}" under "env" in {settings}'
                out.append(Integration(settings, f"plugin {plugin}", root, named, redo))
    return out


def _servers(agent: str, path: Path, project_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    """lore's MCP entries in one configuration file (``~/.claude.json`` also keeps
    servers per project, under ``projects.<dir>.mcpServers``)."""
    if agent == "codex":
        data = _load_toml(path)
        servers = data.get("mcp_servers") if isinstance(data, dict) else None
        entry = servers.get(NAME) if isinstance(servers, dict) else None
        return [(f"MCP server {NAME}", entry)] if isinstance(entry, dict) else []
    data = _load_json(path)
    if not isinstance(data, dict):
        return []
    out = []
    servers = data.get("mcpServers")
    if isinstance(servers, dict) and isinstance(servers.get(NAME), dict):
        out.append((f"MCP server {NAME}", servers[NAME]))
    projects = data.get("projects")
    mine = projects.get(str(project_dir)) if isinstance(projects, dict) else None
    local = mine.get("mcpServers") if isinstance(mine, dict) else None
    if isinstance(local, dict) and isinstance(local.get(NAME), dict):
        out.append((f"MCP server {NAME} (for {project_dir})", local[NAME]))
    return out


def _load_toml(path: Path) -> Any:
    try:
        import tomllib
    except ImportError:  # Python 3.10: Codex's config cannot be read; the rest still is
        return None
    with contextlib.suppress(OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return tomllib.loads(path.read_text(encoding="utf-8"))
    return None
