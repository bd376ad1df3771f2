"""Every command loads, has ``--help``/``-h``, and its one-liner in LAZY_COMMANDS is its own."""

from __future__ import annotations

from collections.abc import Callable

import click
import pytest
from click.testing import Result

from lore.cli import LAZY_COMMANDS, cli

Run = Callable[..., Result]


def load(name: str) -> click.Command:
    ctx = click.Context(cli)
    command = cli.get_command(ctx, name)
    assert command is not None, name
    return command


@pytest.mark.parametrize("name", list(LAZY_COMMANDS))
def test_command_loads_with_its_name(name: str) -> None:
    command = load(name)
    assert isinstance(command, click.Command)
    assert command.name == name


@pytest.mark.parametrize("name", list(LAZY_COMMANDS))
def test_one_line_help_is_the_docstring_first_line(name: str) -> None:
    command = load(name)
    assert command.help, f"{name} has no help text"
    first = command.help.strip().splitlines()[0].strip()
    assert LAZY_COMMANDS[name][1] == first


@pytest.mark.parametrize("name", list(LAZY_COMMANDS))
def test_command_help_exits_0(run: Run, name: str) -> None:
    for flag in ("--help", "-h"):
        result = run(name, flag)
        assert result.exit_code == 0, (name, flag, result.stderr)
        assert result.stdout.startswith(f"Usage: cli {name} ")
        assert LAZY_COMMANDS[name][1].split()[0] in result.stdout


def test_top_level_help_lists_every_command(run: Run) -> None:
    result = run("--help")
    assert result.exit_code == 0
    listed = result.stdout.split("Commands:\n", 1)[1]
    names = [line.split()[0] for line in listed.splitlines() if line.startswith("  ") and
             not line.startswith("   ")]  # fmt: skip
    assert names == list(LAZY_COMMANDS)
    assert run("-h").stdout == result.stdout


def test_unknown_command_is_not_loaded() -> None:
    assert cli.get_command(click.Context(cli), "bogus") is None
    assert cli.list_commands(click.Context(cli)) == list(LAZY_COMMANDS)
