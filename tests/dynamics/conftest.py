"""Helpers for the dynamics tests: a real git repository in the test's working directory
(files change, move and vanish between commits), and the CLI's JSON."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from tests.gitteam import isolate_git

Run = Callable[..., Result]

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture(autouse=True)
def git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate_git(monkeypatch, tmp_path)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout.strip()


class Repo:
    """A git repository with helpers to write, move and delete files and commit them."""

    def __init__(self, top: Path) -> None:
        self.top = top
        top.mkdir(parents=True, exist_ok=True)
        git(top, "init", "-q", "-b", "main")

    def write(self, path: str, text: str) -> Path:
        file = self.top / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text)
        return file

    def commit(self, message: str) -> str:
        git(self.top, "add", "-A")
        git(self.top, "commit", "-qm", message)
        return self.head()

    def head(self) -> str:
        return git(self.top, "rev-parse", "HEAD")

    def blob(self, path: str) -> str:
        return git(self.top, "hash-object", path)

    def git(self, *args: str) -> str:
        return git(self.top, *args)


@pytest.fixture
def repo(isolation: Path) -> Repo:
    """A repository at the test's working directory, with three files committed."""
    made = Repo(Path.cwd())
    made.write("src/db.py", "import sqlite3\n\ndef connect():\n    return sqlite3.connect('x')\n")
    made.write("src/old.py", "def helper():\n    return 1\n")
    made.write("src/gone.py", "FLAKY = True\n")
    made.commit("init")
    return made


def lore(run: Run, *args: str, code: int = 0, input: str | None = None) -> Any:
    """The JSON document of ``lore ARGS --json`` (exit ``code``)."""
    result = run(*args, "--json", input=input)
    assert result.exit_code == code, (args, result.stdout, result.stderr)
    return json.loads(result.stdout)
