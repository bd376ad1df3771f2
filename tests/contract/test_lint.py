"""The checks AGENTS.md asks for (mypy, ruff check, ruff format) run as part of the suite.

Each is skipped when its tool is not installed: ``./install.sh --test`` (what CI runs)
installs only pytest and hypothesis; ``./install.sh --dev`` adds ruff and mypy.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(tool: str, *args: str) -> None:
    """Run ``python -m <tool> <args>`` from the checkout; fail with its output."""
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is not installed (./install.sh --dev installs it)")
    proc = subprocess.run(
        [sys.executable, "-m", tool, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, (
        f"{tool} {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}"
    )


def test_mypy() -> None:
    """``mypy lore`` (config in pyproject.toml) reports no errors.

    Cold (no ``.mypy_cache``, as in a fresh clone) it takes about 2 s; warm, a fraction
    of a second. It runs whenever mypy is installed.
    """
    _run("mypy", "lore")


def test_ruff_check() -> None:
    _run("ruff", "check", "lore", "tests")


def test_ruff_format() -> None:
    _run("ruff", "format", "--check", "lore", "tests")
