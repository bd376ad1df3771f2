"""``lore doctor`` says when the hooks, an MCP entry or the plugin run lore on another
data root than the CLI (``agent-root``): memory would split silently between two roots."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.sessions.agents import root_of

Run = Callable[..., Result]


def agent_findings(result: Result) -> list[dict[str, Any]]:
    doc = json.loads(result.stdout)
    return [f for f in doc["findings"] if f["code"] == "agent-root"]


def test_nothing_installed_nothing_said(run: Run) -> None:
    assert agent_findings(run("doctor", "--json")) == []


def test_hooks_and_mcp_on_the_same_root_are_fine(run: Run, data_dir: Path) -> None:
    assert run("hooks", "install", "--claude").exit_code == 0
    assert run("mcp", "install", "--claude").exit_code == 0
    assert run("mcp", "install", "--codex").exit_code == 0
    assert agent_findings(run("doctor", "--json")) == []


def test_each_integration_on_another_root_is_named(
    run: Run, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other root"
    assert run("--data-dir", str(other), "hooks", "install", "--claude").exit_code == 0
    assert run("--data-dir", str(other), "mcp", "install", "--cursor").exit_code == 0
    project = Path.cwd() / ".mcp.json"
    project.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "lore": {
                        "command": "lore",
                        "args": ["mcp"],
                        "env": {"LORE_DATA_DIR": str(other)},
                    }
                }
            }
        )
    )
    settings = Path.home() / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["enabledPlugins"] = {"lore@lore": True, "other@x": True}
    settings.write_text(json.dumps(data))
    monkeypatch.delenv("LORE_DATA_DIR")  # the plugin names no root: it runs on the default
    result = run("--data-dir", str(data_dir), "doctor", "--json")
    found = agent_findings(result)
    assert result.exit_code == 0  # warnings: the data itself is fine
    assert [(f["path"], f["severity"]) for f in found] == [
        (str(settings), "warning"),
        (str(settings), "warning"),
        (str(project), "warning"),
        (str(Path.home() / ".cursor" / "mcp.json"), "warning"),
    ]
    hooks, plugin, mcp_project, mcp_user = (f["message"] for f in found)
    assert hooks.startswith(
        "hooks SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure, PreCompact, "
        f"Stop, SessionEnd run lore on {other} (named there), not on {data_dir}"
    )
    assert plugin.startswith("plugin lore@lore runs lore on ")
    assert "(the default: it names no root)" in plugin
    assert mcp_project.startswith(f"MCP server lore runs lore on {other} (named there)")
    assert mcp_user.startswith(f"MCP server lore runs lore on {other} (named there)")
    twice = [f for f in json.loads(result.stdout)["findings"] if f["code"] == "agent-hooks-twice"]
    assert [f["path"] for f in twice] == [str(settings)]
    assert "every event runs lore twice" in twice[0]["message"]
    text = run("--data-dir", str(data_dir), "doctor")
    assert f"{settings}: warning: hooks SessionStart" in text.stdout
    assert "[agent-root]" in text.stdout


def test_the_settings_env_names_the_root_of_hooks_and_plugin(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Path.home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        json.dumps({"env": {"LORE_DATA_DIR": str(data_dir)}, "enabledPlugins": {"lore@lore": True}})
    )
    monkeypatch.delenv("LORE_DATA_DIR")
    assert agent_findings(run("--data-dir", str(data_dir), "doctor", "--json")) == []


def test_issue_15_hooks_without_a_root_while_the_cli_names_one(
    run: Run, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hooks an older lore wrote without --data-dir, and a CLI run with it: split roots."""
    settings = Path.home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    command = {"type": "command", "command": "/usr/bin/lore hooks run session-end"}
    settings.write_text(json.dumps({"hooks": {"SessionEnd": [{"hooks": [command]}]}}))
    monkeypatch.delenv("LORE_DATA_DIR")
    found = agent_findings(run("--data-dir", str(data_dir), "doctor", "--json"))
    assert len(found) == 1 and found[0]["message"].startswith("hooks SessionEnd run lore on ")
    assert str(data_dir) not in found[0]["message"].split(" (")[0]


def test_each_finding_says_how_to_point_that_integration_at_this_root(
    run: Run, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other"
    for agent in ("--codex", "--gemini"):
        assert run("--data-dir", str(other), "hooks", "install", agent).exit_code == 0
    assert (
        run("--data-dir", str(other), "mcp", "install", "--cursor", "--scope", "project")
    ).exit_code == 0
    settings = Path.home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"enabledPlugins": {"lore@lore": True}}))
    monkeypatch.delenv("LORE_DATA_DIR")
    result = run("--data-dir", str(data_dir), "doctor", "--json")
    fixes = {f["path"]: f["message"].split(": memory would split between the two roots; ")
             for f in agent_findings(result)}  # fmt: skip
    codex, gemini = Path.home() / ".codex/hooks.json", Path.home() / ".gemini/settings.json"
    assert fixes == {
        str(settings): [
            f"plugin lore@lore runs lore on {Path.home()}/.local/share/lore (the default: it "
            f"names no root), not on {data_dir}",
            f'point it at this root: set "LORE_DATA_DIR": "{data_dir}" under "env" in {settings}',
        ],
        str(codex): [
            f"hooks SessionStart, UserPromptSubmit, PostToolUse, PreCompact, Stop run lore on "
            f"{other} (named there), not on {data_dir}",
            f"point it at this root: lore --data-dir {data_dir} hooks install --codex",
        ],
        str(gemini): [
            f"hooks SessionStart, BeforeAgent, AfterTool, PreCompress, AfterAgent, SessionEnd "
            f"run lore on {other} (named there), not on {data_dir}",
            f"point it at this root: lore --data-dir {data_dir} hooks install --gemini",
        ],
        str(Path.cwd() / ".cursor" / "mcp.json"): [
            f"MCP server lore runs lore on {other} (named there), not on {data_dir}",
            f"point it at this root: lore --data-dir {data_dir} mcp install --cursor "
            "--scope project",
        ],
    }


def test_the_hooks_are_checked_without_tomllib(
    run: Run, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Python 3.10 has no tomllib: reading Codex's config.toml must not hide every finding.
    import sys

    other = tmp_path / "other"
    assert run("--data-dir", str(other), "hooks", "install", "--claude").exit_code == 0
    monkeypatch.setitem(sys.modules, "tomllib", None)  # import tomllib raises ImportError
    found = agent_findings(run("--data-dir", str(data_dir), "doctor", "--json"))
    assert [f["path"] for f in found] == [str(Path.home() / ".claude" / "settings.json")]


@pytest.mark.parametrize(
    ("argv", "env", "expected"),
    [
        (["lore", "--data-dir", "/a", "mcp"], None, ("/a", True)),
        (["lore", "--data-dir=/b", "hooks", "run", "stop"], None, ("/b", True)),
        (["LORE_DATA_DIR=/c", "lore", "hooks", "run", "stop"], None, ("/c", True)),
        (["lore", "mcp"], {"LORE_DATA_DIR": "/d"}, ("/d", True)),
        (["lore", "mcp"], {"OTHER": "1"}, ("/default", False)),
    ],
)
def test_root_of(argv: list[str], env: Any, expected: tuple[str, bool]) -> None:
    root, named = root_of(argv, env, Path("/default"))
    assert (str(root), named) == expected
