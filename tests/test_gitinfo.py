"""lore.git.info: reading .git without git, and the snapshot a handoff records."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from lore.git.info import find_repo, snapshot

DATE = "2026-01-02T03:04:05+00:00"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "T",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "T",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_AUTHOR_DATE": DATE,
    "GIT_COMMITTER_DATE": DATE,
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def commit(repo: Path, name: str, content: str, message: str) -> str:
    (repo / name).write_text(content)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return path


def test_no_repository(tmp_path: Path) -> None:
    assert find_repo(tmp_path / "work") is None
    assert snapshot(tmp_path / "work") is None


def test_find_repo_from_a_subdirectory(repo: Path) -> None:
    sha = commit(repo, "a.txt", "a\n", "first")
    (repo / "src" / "deep").mkdir(parents=True)
    found = find_repo(repo / "src" / "deep")
    assert found is not None
    assert (found.top, found.git_dir, found.common_dir) == (repo, repo / ".git", repo / ".git")
    assert (found.name, found.branch(), found.head()) == ("proj", "main", sha)


def test_a_repository_without_commits(repo: Path) -> None:
    (repo / "new.txt").write_text("x")
    found = find_repo(repo)
    assert found is not None
    assert (found.branch(), found.head()) == ("main", None)
    assert snapshot(repo) == {
        "repo": "proj",
        "path": str(repo),
        "branch": "main",
        "head": None,
        "uncommitted": ["new.txt"],
        "last_commits": [],
    }


def test_detached_head_and_packed_refs(repo: Path) -> None:
    first = commit(repo, "a.txt", "a\n", "first")
    second = commit(repo, "a.txt", "b\n", "second")
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    found = find_repo(repo)
    assert found is not None
    assert (found.branch(), found.head()) == ("main", second)
    git(repo, "checkout", "-q", "--detach", first)
    assert (found.branch(), found.head()) == (None, first)


def test_a_linked_worktree(repo: Path, tmp_path: Path) -> None:
    sha = commit(repo, "a.txt", "a\n", "first")
    git(repo, "worktree", "add", "-q", "-b", "feature", str(tmp_path / "wt"))
    found = find_repo(tmp_path / "wt")
    assert found is not None
    assert found.top == tmp_path / "wt"
    assert found.git_dir == repo / ".git" / "worktrees" / "wt"
    assert found.common_dir == repo / ".git"
    assert (found.branch(), found.head()) == ("feature", sha)
    # The project is the main repository's, so every worktree shares one memory.
    assert (found.name, find_repo(repo).name) == (repo.name, repo.name)  # type: ignore[union-attr]


def test_a_worktree_of_a_bare_repository_is_named_for_it(repo: Path, tmp_path: Path) -> None:
    commit(repo, "a.txt", "a\n", "first")
    git(tmp_path, "clone", "-q", "--bare", str(repo), "orders.git")
    git(tmp_path / "orders.git", "worktree", "add", "-q", str(tmp_path / "w1"))
    found = find_repo(tmp_path / "w1")
    assert found is not None and found.name == "orders"


def test_captures_in_a_linked_worktree_get_the_main_repositorys_project(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lore.capture.build import _repo_at, detect_project

    commit(repo, "a.txt", "a\n", "first")
    git(repo, "worktree", "add", "-q", "-b", "wt-2", str(tmp_path / "wt-2"))
    monkeypatch.chdir(tmp_path / "wt-2")
    _repo_at.cache_clear()
    assert detect_project() == repo.name


def test_a_gitdir_file_with_a_relative_path(repo: Path, tmp_path: Path) -> None:
    sha = commit(repo, "a.txt", "a\n", "first")
    other = tmp_path / "checkout"
    other.mkdir()
    (other / ".git").write_text("gitdir: ../proj/.git\n")
    found = find_repo(other)
    assert found is not None
    assert (found.top, found.git_dir, found.head()) == (other, repo / ".git", sha)


def test_snapshot_lists_changes_exactly(repo: Path) -> None:
    commit(repo, "README.md", "one\n", "first commit")
    commit(repo, "old name.txt", "x\n", "second commit")
    head = commit(repo, "README.md", "three\n", "third commit")
    git(repo, "mv", "old name.txt", "new name.txt")  # a rename: only its new name
    (repo / "README.md").write_text("changed\n")
    (repo / "notes é.txt").write_text("not quoted, not escaped\n")
    (repo / "sub").mkdir()
    (repo / "sub" / "x.txt").write_text("x")
    shas = git(repo, "log", "--format=%h").split()
    assert snapshot(repo / "sub", commits=2) == {
        "repo": "proj",
        "path": str(repo),
        "branch": "main",
        "head": head,
        "uncommitted": ["README.md", "new name.txt", "notes é.txt", "sub/"],
        "last_commits": [
            {"sha": shas[0], "date": DATE, "subject": "third commit"},
            {"sha": shas[1], "date": DATE, "subject": "second commit"},
        ],
    }


def test_snapshot_does_not_rewrite_the_index(repo: Path) -> None:
    commit(repo, "a.txt", "a\n", "first")
    index = repo / ".git" / "index"
    before = index.read_bytes()
    os.utime(repo / "a.txt", (1_600_000_000, 1_600_000_000))  # stale stat info: git would refresh
    snap = snapshot(repo)
    assert snap is not None and snap["uncommitted"] == []
    assert index.read_bytes() == before
    assert not (repo / ".git" / "index.lock").exists()
