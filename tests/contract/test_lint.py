"""The checks AGENTS.md asks for (mypy, ruff check, ruff format, lint-imports) run as part
of the suite. ``./install.sh --test`` (what CI runs) installs them; each is skipped when its
tool is not installed (a bare ``pip install -e .``).
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
        pytest.skip(f"{tool} is not installed (./install.sh --test installs it)")
    command = [sys.executable, "-m", tool, *args]
    if tool == "importlinter":  # no `python -m`: its console script, beside this python
        command = [str(Path(sys.executable).with_name("lint-imports")), *args]
    proc = subprocess.run(
        command,
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


def test_lint_imports() -> None:
    """The layering contracts in pyproject.toml (``[tool.importlinter]``) are kept."""
    _run("importlinter", "--no-cache")
