"""Bare ``lore``, ``lore help [COMMAND]`` and "did you mean" for a mistyped command.

These run the installed console script, as a user at a shell would.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

LORE = Path(sys.executable).parent / "lore"


def lore(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LORE), *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )


@pytest.mark.parametrize("args", [(), ("help",)], ids=["bare", "help"])
def test_bare_lore_and_lore_help_print_the_help_and_exit_0(args: tuple[str, ...]) -> None:
    result = lore(*args)
    assert result.returncode == 0
    assert result.stderr == ""
    assert result.stdout == lore("--help").stdout
    assert result.stdout.startswith("Usage: lore [OPTIONS] [COMMAND] [ARGS]...\n")
    assert "\nCommands:\n" in result.stdout


def test_lore_help_command_prints_that_commands_help() -> None:
    assert lore("help", "recall").stdout == lore("recall", "--help").stdout
    sub = lore("help", "sessions", "show")
    assert (sub.returncode, sub.stdout) == (0, lore("sessions", "show", "--help").stdout)


@pytest.mark.parametrize(
    ("typo", "suggestion"),
    [
        ("recal", "Did you mean 'recall'?"),
        ("remeber", "Did you mean 'remember' or 'resume'?"),
        ("handof", "Did you mean 'handoff'?"),
    ],
)
def test_a_mistyped_command_gets_did_you_mean(typo: str, suggestion: str) -> None:
    result = lore(typo, "something")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.endswith(f"Error: No such command '{typo}'. {suggestion}\n")
    via_help = lore("help", typo)
    assert via_help.returncode == 2
    assert via_help.stderr.endswith(f"Error: No such command '{typo}'. {suggestion}\n")


def test_an_unknown_command_far_from_every_name_gets_no_guess() -> None:
    result = lore("zzzz")
    assert result.returncode == 2
    assert result.stderr.endswith("Error: No such command 'zzzz'.\n")


def test_unknown_command_with_json_is_a_usage_error_in_json() -> None:
    result = lore("recal", "x", "--json")
    assert result.returncode == 2
    assert '"code":"usage"' in result.stdout.replace(" ", "")
