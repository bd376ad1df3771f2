"""The Claude Code plugin in plugin/ and its marketplace entry in .claude-plugin/: the
layout and manifest fields Claude Code documents (code.claude.com/docs/en/plugins-reference,
/plugin-marketplaces), hooks that are the ones `lore hooks install` writes, and, where the
`claude` CLI is at hand (on PATH or LORE_TEST_CLAUDE; .ci/run installs it), its own
validator and an install into a throwaway HOME."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import lore
from lore.sessions.hook_events import EVENTS

TOP = Path(__file__).resolve().parent.parent
PLUGIN = TOP / "plugin"
NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")  # kebab-case, as the manifest wants
SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$")
COMMANDS = {"recall", "remember", "handoff", "lore-inbox"}
BIN = str(Path(sys.executable).parent)


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def frontmatter(path: Path) -> dict[str, str]:
    """The ``key: value`` lines between the leading ``---`` fences."""
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n"), path
    head, _, body = text[4:].partition("\n---\n")
    assert body.strip(), f"{path}: no instructions after the frontmatter"
    fields = {}
    for line in head.splitlines():
        key, sep, value = line.partition(":")
        assert sep, f"{path}: {line!r}"
        fields[key.strip()] = value.strip()
    return fields


def test_the_marketplace_lists_the_plugin() -> None:
    market = load(TOP / ".claude-plugin" / "marketplace.json")
    assert set(market) <= {
        "$schema",
        "name",
        "owner",
        "description",
        "version",
        "metadata",
        "plugins",
    }
    assert NAME.match(market["name"])
    assert isinstance(market["owner"], dict) and market["owner"]["name"]
    (entry,) = market["plugins"]
    assert entry["name"] == "lore"
    # A relative source starts with ./ and resolves from the marketplace root (the folder
    # holding .claude-plugin/); it is the plugin's root, which install copies whole.
    assert entry["source"] == "./plugin"
    assert (TOP / entry["source"] / ".claude-plugin" / "plugin.json").is_file()


def test_the_manifest_and_the_standard_layout() -> None:
    manifest = load(PLUGIN / ".claude-plugin" / "plugin.json")
    assert NAME.match(manifest["name"]) and manifest["name"] == "lore"
    assert SEMVER.match(manifest["version"]) and manifest["version"] == lore.__version__
    assert manifest["description"] and manifest["license"] == "MIT"
    # Components sit in the default places, so the manifest needs no path fields.
    assert not {"commands", "agents", "skills", "hooks", "mcpServers"} & set(manifest)
    assert sorted(p.name for p in (PLUGIN / ".claude-plugin").iterdir()) == ["plugin.json"]
    assert {p.stem for p in (PLUGIN / "commands").glob("*.md")} == COMMANDS
    for command in (PLUGIN / "commands").glob("*.md"):
        fields = frontmatter(command)
        assert fields["description"], command
        assert "$ARGUMENTS" in command.read_text(), command
    skill = frontmatter(PLUGIN / "skills" / "lore" / "SKILL.md")
    assert skill["name"] == "lore" and len(skill["description"]) > 100
    assert load(PLUGIN / ".mcp.json") == {
        "mcpServers": {"lore": {"command": "lore", "args": ["mcp"]}}
    }


def test_the_hooks_are_the_ones_lore_installs() -> None:
    hooks = load(PLUGIN / "hooks" / "hooks.json")["hooks"]
    assert list(hooks) == [e.claude for e in EVENTS]
    for event in EVENTS:
        (group,) = hooks[event.claude]
        assert group.get("matcher") == event.matcher
        (entry,) = group["hooks"]
        assert entry == {
            "type": "command",
            "command": f"lore hooks run {event.claude} || true",
            "timeout": 10,
        }


def test_the_skill_and_commands_are_documented() -> None:
    text = (TOP / "docs" / "how-to" / "agents.md").read_text()
    for command in COMMANDS:
        assert f"/lore:{command}" in text, command
    assert "SKILL.md" in text and "claude plugin install lore@lore" in text


def run_hook(
    command: str, payload: dict[str, Any], env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        text=True,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_the_plugin_hooks_run_lore_from_path(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    hooks = load(PLUGIN / "hooks" / "hooks.json")["hooks"]
    start = run_hook(hooks["SessionStart"][0]["hooks"][0]["command"], {"cwd": str(tmp_path)}, env)
    assert start.returncode == 0, start.stderr
    assert json.loads(start.stdout)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    # Without lore on PATH the hook says so on stderr and still exits 0.
    bare = {**env, "PATH": "/nonexistent"}
    gone = run_hook(hooks["Stop"][0]["hooks"][0]["command"], {}, bare)
    assert (gone.returncode, gone.stdout) == (0, "")


def claude_cli() -> str | None:
    return os.environ.get("LORE_TEST_CLAUDE") or shutil.which("claude")


@pytest.mark.skipif(
    claude_cli() is None, reason="the claude CLI is not installed (LORE_TEST_CLAUDE)"
)
def test_claude_validates_and_installs_the_plugin(tmp_path: Path) -> None:
    claude = str(claude_cli())
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [claude, "plugin", *args],
            env=env,
            cwd=tmp_path,
            text=True,
            capture_output=True,
            timeout=120,
            check=False,
        )

    for target in (PLUGIN, TOP):
        checked = cli("validate", "--strict", "--json", str(target))
        report = json.loads(checked.stdout)
        assert checked.returncode == 0 and report["success"] is True, checked.stdout
    added = cli("marketplace", "add", str(TOP))
    assert added.returncode == 0, added.stderr + added.stdout
    installed = cli("install", "lore@lore")
    assert installed.returncode == 0, installed.stderr + installed.stdout
    (record,) = load(home / ".claude" / "plugins" / "installed_plugins.json")["plugins"][
        "lore@lore"
    ]
    root = Path(record["installPath"])
    assert root == home / ".claude" / "plugins" / "cache" / "lore" / "lore" / lore.__version__
    copied = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    expected = sorted(str(p.relative_to(PLUGIN)) for p in PLUGIN.rglob("*") if p.is_file())
    assert copied == expected  # the plugin folder only: no checkout, no .venv, no data
    assert load(home / ".claude" / "settings.json")["enabledPlugins"] == {"lore@lore": True}
    listed = {p["id"]: p for p in json.loads(cli("list", "--json").stdout)}
    assert listed["lore@lore"]["enabled"] is True
    assert listed["lore@lore"]["mcpServers"] == {"lore": {"command": "lore", "args": ["mcp"]}}
    # The installed hooks run this lore on a root of their own.
    hooks = load(root / "hooks" / "hooks.json")["hooks"]
    data = {**env, "LORE_DATA_DIR": str(tmp_path / "data"), "LORE_CACHE_DIR": str(tmp_path / "c")}
    prompt = run_hook(
        hooks["UserPromptSubmit"][0]["hooks"][0]["command"],
        {"session_id": "s1", "prompt": "hello", "cwd": str(tmp_path)},
        data,
    )
    assert (prompt.returncode, prompt.stdout, prompt.stderr) == (0, "", "")
    removed = cli("uninstall", "lore@lore")
    assert removed.returncode == 0, removed.stderr + removed.stdout
    assert (
        "lore@lore" not in load(home / ".claude" / "plugins" / "installed_plugins.json")["plugins"]
    )
