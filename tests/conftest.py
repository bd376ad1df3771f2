"""Shared fixtures: every test gets its own data root and never touches real data."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from lore.store.core import Store


@pytest.fixture(autouse=True)
def isolation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "data"
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("LORE_DATA_DIR", str(data))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("LORE_STDIN_TIMEOUT", "0.2")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    for name in (
        "LORE_SESSION_ID",
        "LORE_PROJECT",
        "LORE_NOW",
        "XDG_DATA_HOME",
        "XDG_CACHE_HOME",
        "LORE_CACHE_DIR",
        "LORE_DEBUG",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(work)
    build = importlib.import_module("lore.capture.build")
    build._repo_at.cache_clear()
    build._head_at.cache_clear()
    return data


@pytest.fixture
def data_dir(isolation: Path) -> Path:
    return isolation


@pytest.fixture
def store(data_dir: Path) -> Store:
    return Store(data_dir)


@pytest.fixture
def run() -> Callable[..., Result]:
    """Invoke the CLI in-process: run("capture", "text", "--json", input="...")."""
    from lore.cli import cli

    runner = CliRunner()

    def invoke(
        *args: str, input: str | bytes | None = None, env: dict[str, str] | None = None
    ) -> Result:
        return runner.invoke(cli, list(args), input=input, env=env, catch_exceptions=False)

    return invoke


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


os.environ.setdefault("LORE_LOCK_TIMEOUT", "10")
