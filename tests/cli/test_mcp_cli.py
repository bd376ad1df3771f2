"""``lore mcp`` without the SDK, the core CLI never importing it, and ``lore mcp
install|uninstall`` for Claude Code, Codex and Cursor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Run = Callable[..., Any]


def test_without_the_sdk_lore_mcp_says_how_to_install_it(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp now raises ImportError
    monkeypatch.setitem(sys.modules, "mcp.server", None)
    monkeypatch.setitem(sys.modules, "mcp.server.mcpserver", None)
    result = run("mcp")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "lore: error: lore mcp needs the MCP SDK (the [mcp] extra), which is not installed; "
        f"install it with:\n  {sys.executable} -m pip install 'mcp>=2.3,<3'\n"
    )


def test_the_core_cli_never_imports_the_sdk(tmp_path: Path) -> None:
    script = """
import json, sys
import lore.cli
seen = {}
for label, args in (("--help", ["--help"]), ("capture", ["capture", "a note", "-q"]),
                    ("resume", ["resume"]), ("mcp --help", ["mcp", "--help"]),
                    ("install --print", ["mcp", "install", "--cursor", "--print"])):
    try:
        lore.cli.main(args)
    except SystemExit as exc:
        assert exc.code in (0, None), (label, exc.code)
    seen[label] = sorted({n.split(".")[0] for n in sys.modules} & {"mcp", "pydantic", "anyio"})
sys.stderr.write(json.dumps(seen) + "\\n")
"""
    env = {**os.environ, "LORE_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stderr.strip().splitlines()[-1])
    assert seen == {
        "--help": [],
        "capture": [],
        "resume": [],
        "mcp --help": [],
        "install --print": [],
    }


def _lore() -> str:
    return str(Path(sys.executable).with_name("lore"))  # the lore beside this Python


@pytest.fixture(autouse=True)
def default_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the agents' files: no root is chosen (install writes none);
    the tests that choose one say so."""
    monkeypatch.delenv("LORE_DATA_DIR", raising=False)


def test_install_keeps_a_root_chosen_by_lore_data_dir(
    run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("LORE_DATA_DIR", str(tmp_path / "chosen"))
    assert run("mcp", "install", "--cursor").exit_code == 0
    written = json.loads((Path.home() / ".cursor" / "mcp.json").read_text())
    args = ["--data-dir", str(tmp_path / "chosen"), "mcp"]
    assert written == {"mcpServers": {"lore": {"command": _lore(), "args": args}}}


def test_install_claude_project_then_user(run: Run, tmp_path: Path) -> None:
    project = Path.cwd() / ".mcp.json"
    project.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}, "keep": 1}))
    result = run("mcp", "install", "--claude", "--scope", "project", "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    entry = {"type": "stdio", "command": _lore(), "args": ["mcp"]}
    assert doc == {
        "ok": True,
        "agent": "claude",
        "scope": "project",
        "file": str(project),
        "changed": True,
        "backup": doc["backup"],
        "entry": entry,
    }
    assert Path(doc["backup"]).is_file()
    assert json.loads(project.read_text()) == {
        "mcpServers": {"other": {"command": "x"}, "lore": entry},
        "keep": 1,
    }
    again = json.loads(run("mcp", "install", "--claude", "--scope", "project", "--json").stdout)
    assert again["changed"] is False and again["backup"] is None
    user = Path.home() / ".claude.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"numStartups": 3, "projects": {"/x": {"mcpServers": {}}}}))
    assert run("mcp", "install", "--claude").stdout == f"added lore to {user}\n"
    data = json.loads(user.read_text())
    assert data == {
        "numStartups": 3,
        "projects": {"/x": {"mcpServers": {}}},
        "mcpServers": {"lore": entry},
    }
    assert run("mcp", "uninstall", "--claude").stdout == f"removed lore from {user}\n"
    assert json.loads(user.read_text())["mcpServers"] == {}
    assert run("mcp", "uninstall", "--claude").stdout == f"lore is not in {user}\n"


def test_install_keeps_the_users_own_keys_in_lores_entry(run: Run) -> None:
    path = Path.cwd() / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text(
        json.dumps(
            {"mcpServers": {"lore": {"command": "/old/lore", "args": [], "env": {"A": "1"}}}}
        )
    )
    assert run("mcp", "install", "--cursor", "--scope", "project").exit_code == 0
    assert json.loads(path.read_text())["mcpServers"]["lore"] == {
        "command": _lore(),
        "args": ["mcp"],
        "env": {"A": "1"},
    }
    home = Path.home() / ".cursor" / "mcp.json"
    assert run("mcp", "install", "--cursor", "--data-dir", "x").exit_code == 2  # after the group
    assert run("--data-dir", "/srv/lore", "mcp", "install", "--cursor").exit_code == 0
    assert json.loads(home.read_text()) == {
        "mcpServers": {"lore": {"command": _lore(), "args": ["--data-dir", "/srv/lore", "mcp"]}}
    }


CODEX = """\
# my codex settings
model = "o4-mini"  # the fast one

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[mcp_servers.lore]
# keep this comment
command = "/old/lore"
startup_timeout_sec = 20

[profiles.fast]
model = "o4-mini"
"""


def test_install_codex_edits_only_lores_table(run: Run) -> None:
    config = Path.home() / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(CODEX)
    result = json.loads(run("mcp", "install", "--codex", "--json").stdout)
    assert result["changed"] is True and result["file"] == str(config)
    assert Path(result["backup"]).read_text() == CODEX
    assert config.read_text() == CODEX.replace(
        'command = "/old/lore"\n', f'command = "{_lore()}"\nargs = ["mcp"]\n'
    )
    assert json.loads(run("mcp", "install", "--codex", "--json").stdout)["changed"] is False
    assert run("mcp", "uninstall", "--codex").exit_code == 0
    assert config.read_text() == (
        '# my codex settings\nmodel = "o4-mini"  # the fast one\n\n[mcp_servers.docs]\n'
        'command = "npx"\nargs = ["-y", "docs-mcp"]\n\n[profiles.fast]\nmodel = "o4-mini"\n'
    )


def test_uninstall_codex_leaves_the_rest_of_the_file_as_it_was(run: Run) -> None:
    config = Path.home() / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    rest = 'model = "o4-mini"\n\n\n# three blank lines above, kept\n[profiles.x]\nmodel = "y"\n\n'
    config.write_text(rest)
    assert run("mcp", "install", "--codex").exit_code == 0
    assert (
        config.read_text() == rest + f'[mcp_servers.lore]\ncommand = "{_lore()}"\nargs = ["mcp"]\n'
    )
    assert run("mcp", "uninstall", "--codex").exit_code == 0
    assert config.read_text() == rest.rstrip("\n") + "\n"


def test_install_codex_into_a_new_file_and_codex_home(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    assert run("mcp", "install", "--codex").exit_code == 0
    text = (tmp_path / "codex" / "config.toml").read_text()
    assert text == f'[mcp_servers.lore]\ncommand = "{_lore()}"\nargs = ["mcp"]\n'
    import tomllib

    assert tomllib.loads(text) == {"mcp_servers": {"lore": {"command": _lore(), "args": ["mcp"]}}}


def test_install_codex_refuses_an_entry_it_cannot_edit(run: Run) -> None:
    config = Path.home() / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[mcp_servers]\nlore = { command = "x" }\n')
    result = run("mcp", "install", "--codex", "--json")
    assert result.exit_code == 4
    assert json.loads(result.stdout)["code"] == "invalid"
    assert config.read_text() == '[mcp_servers]\nlore = { command = "x" }\n'


def test_print_shows_the_snippet_and_writes_nothing(run: Run) -> None:
    result = run("mcp", "install", "--codex", "--print")
    assert result.exit_code == 0
    assert result.stdout == f'[mcp_servers.lore]\ncommand = "{_lore()}"\nargs = ["mcp"]\n'
    assert "add this to" in result.stderr
    shown = run("mcp", "install", "--claude", "--scope", "project", "--print")
    assert json.loads(shown.stdout) == {
        "mcpServers": {"lore": {"type": "stdio", "command": _lore(), "args": ["mcp"]}}
    }
    assert not (Path.home() / ".codex").exists() and not (Path.cwd() / ".mcp.json").exists()


def test_one_agent_at_a_time(run: Run) -> None:
    for args in ([], ["--claude", "--codex"]):
        result = run("mcp", "install", *args)
        assert result.exit_code == 2
        assert "choose one agent: --claude, --codex or --cursor" in result.stderr
    assert run("mcp", "install", "--claude", "--scope", "global").exit_code == 2


def test_a_broken_json_file_is_left_alone(run: Run) -> None:
    path = Path.cwd() / ".mcp.json"
    path.write_text("{not json")
    result = run("mcp", "install", "--claude", "--scope", "project", "--json")
    assert result.exit_code == 4 and json.loads(result.stdout)["code"] == "invalid"
    assert path.read_text() == "{not json"


def test_install_writes_the_lore_that_runs_not_another_on_path(tmp_path: Path) -> None:
    """The entry names this lore (the one with the [mcp] extra), even when an older or
    other `lore` comes first on PATH."""
    other = tmp_path / "bin"
    other.mkdir()
    (other / "lore").write_text("#!/bin/sh\nexit 1\n")
    (other / "lore").chmod(0o755)
    this = str(Path(sys.executable).with_name("lore"))
    env = {**os.environ, "PATH": f"{other}{os.pathsep}{os.environ['PATH']}"}
    env["HOME"] = str(tmp_path)
    out = subprocess.run(
        [this, "mcp", "install", "--cursor", "--print", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    )
    assert json.loads(out.stdout)["entry"] == {"command": this, "args": ["mcp"]}


def test_install_codex_replaces_a_value_written_over_several_lines(run: Run) -> None:
    """A formatter's multi-line array (or a multi-line string) is one value: replaced whole,
    not line by line (which left its tail behind and broke the file)."""
    config = Path.home() / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        '[mcp_servers.lore]\ncommand = """\n/old/lore"""\nargs = [\n  "--data-dir",  # old\n'
        '  "/x]",\n]\ntool_timeout_sec = 5\n\n[other]\nx = 1\n'
    )
    assert run("mcp", "install", "--codex").exit_code == 0
    assert config.read_text() == (
        f'[mcp_servers.lore]\ncommand = "{_lore()}"\nargs = ["mcp"]\ntool_timeout_sec = 5\n'
        "\n[other]\nx = 1\n"
    )


def test_mcp_help_names_every_tool_resource_and_prompt(run: Run) -> None:
    from lore.mcp import PROMPTS, RESOURCES, TOOL_NAMES

    text = " ".join(run("mcp", "--help").stdout.split()).replace("start- session", "start-session")
    assert f"Tools (21): {', '.join(TOOL_NAMES)}; resources {' and '.join(RESOURCES)};" in text
    assert f"the prompt {PROMPTS[0]}." in text
    assert len(TOOL_NAMES) == len(set(TOOL_NAMES)) == 21
