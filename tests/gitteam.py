"""Helpers for tests that run lore in git clones: an isolated git identity and config, a
checked `git` call, lore's JSON for a root, and a team of clones sharing one bare remote."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]


def isolate_git(monkeypatch: pytest.MonkeyPatch, config_dir: Path) -> None:
    """Commits by a fixed author, no system or user git config but one in ``config_dir``
    (default branch ``main``)."""
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "t")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "t@example.com")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config_dir / "gitconfig"))
    (config_dir / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n")


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def lore(run: Run, root: Path, *args: str, code: int = 0) -> Any:
    """The JSON document of ``lore --data-dir ROOT ARGS --json`` (exit ``code``)."""
    result = run("--data-dir", str(root), *args, "--json")
    assert result.exit_code == code, (args, result.stdout, result.stderr)
    return json.loads(result.stdout)


def team(run: Run, tmp_path: Path, n: int = 2) -> list[Path]:
    """A bare remote seeded by the first clone's `lore init --git`, and n clones of it."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    first = tmp_path / "c0"
    lore(run, first, "init", "--git")
    git(first, "checkout", "-q", "-b", "main")
    git(first, "add", "-A")
    git(first, "commit", "-qm", "lore: data root")
    git(first, "remote", "add", "origin", str(remote))
    git(first, "push", "-q", "-u", "origin", "main")
    clones = [first]
    for i in range(1, n):
        clone = tmp_path / f"c{i}"
        git(tmp_path, "clone", "-q", str(remote), str(clone))
        clones.append(clone)
    return clones
