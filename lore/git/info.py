"""What lore can tell about the git repository around a directory, without running git.

Reads ``.git`` directly (HEAD, loose refs, packed-refs, worktree ``gitdir:`` files),
so a capture inside a repository costs a few file reads, not a subprocess.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple


class Repo(NamedTuple):  # not a frozen dataclass: those cost capture start-up time
    top: Path  # the working tree's top-level directory
    git_dir: Path  # this worktree's git directory
    common_dir: Path  # where refs live (differs from git_dir in a linked worktree)

    @property
    def name(self) -> str:
        """The project's name: the repository's directory, and for a linked worktree
        (``git worktree add``) its main repository's, so every worktree of one project
        shares its memory. A bare main repository ``x.git`` names ``x``."""
        if self.common_dir != self.git_dir:
            if self.common_dir.name == ".git":
                return self.common_dir.parent.name
            return self.common_dir.name.removesuffix(".git") or self.top.name
        return self.top.name

    def head(self) -> str | None:
        """The commit HEAD points at, or None (no commits yet, unreadable)."""
        try:
            head = (self.git_dir / "HEAD").read_text().strip()
        except OSError:
            return None
        if not head.startswith("ref:"):
            return head or None
        return self.resolve_ref(head[4:].strip())

    def branch(self) -> str | None:
        try:
            head = (self.git_dir / "HEAD").read_text().strip()
        except OSError:
            return None
        if head.startswith("ref: refs/heads/"):
            return head[len("ref: refs/heads/") :]
        return None

    def resolve_ref(self, ref: str) -> str | None:
        for base in (self.git_dir, self.common_dir):
            try:
                value = (base / ref).read_text().strip()
            except OSError:
                continue
            if value.startswith("ref:"):
                return self.resolve_ref(value[4:].strip())
            return value or None
        try:
            packed = (self.common_dir / "packed-refs").read_text()
        except OSError:
            return None
        for line in packed.splitlines():
            sha, _, name = line.partition(" ")
            if name.strip() == ref:
                return sha
        return None


def find_repo(start: Path | None = None) -> Repo | None:
    """The repository containing ``start`` (default: the current directory), if any."""
    try:
        here = (start or Path.cwd()).resolve()
    except OSError:
        return None
    for directory in (here, *here.parents):
        dot_git = directory / ".git"
        if dot_git.is_dir():
            return Repo(directory, dot_git, _common_dir(dot_git))
        if dot_git.is_file():
            try:
                content = dot_git.read_text().strip()
            except OSError:
                return None
            if content.startswith("gitdir:"):
                git_dir = Path(content[7:].strip())
                if not git_dir.is_absolute():
                    git_dir = (directory / git_dir).resolve()
                return Repo(directory, git_dir, _common_dir(git_dir))
    return None


def _common_dir(git_dir: Path) -> Path:
    try:
        common = (git_dir / "commondir").read_text().strip()
    except OSError:
        return git_dir
    path = Path(common)
    return path if path.is_absolute() else (git_dir / path).resolve()


def snapshot(
    start: Path | None = None, *, commits: int = 5, timeout: float = 5.0
) -> dict[str, object] | None:
    """Branch, HEAD, uncommitted files and the last commits of the repository, if any.

    Runs ``git`` (only handoff and resume call this; it is not on the capture path).
    Returns None outside a repository; fields git cannot answer (or not within
    ``timeout`` seconds a call) are left empty.
    """
    import os
    import subprocess

    repo = find_repo(start)
    if repo is None:
        return None
    # No index.lock: resume is read-only and must not make the user's own git fail.
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}

    def git(*args: str) -> str:
        try:
            done = subprocess.run(
                ["git", "-C", str(repo.top), *args],
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                env=env,
                timeout=timeout,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return ""
        return done.stdout if done.returncode == 0 else ""

    # -z: paths as they are (not C-quoted when they hold spaces or non-ASCII).
    status = git("status", "--porcelain=v1", "-z", "--untracked-files=normal")
    uncommitted = []
    fields = iter(status.split("\0"))
    for entry in fields:
        if len(entry) < 4:
            continue
        uncommitted.append(entry[3:])
        if set(entry[:2]) & {"R", "C"}:  # a rename or copy: the original path follows
            next(fields, None)
    log = git("log", f"-{commits}", "--format=%h%x09%cI%x09%s")
    last = []
    for line in log.splitlines():
        sha, _, rest = line.partition("\t")
        when, _, subject = rest.partition("\t")
        last.append({"sha": sha, "date": when, "subject": subject})
    return {
        "repo": repo.name,
        "path": str(repo.top),
        "branch": repo.branch(),
        "head": repo.head(),
        "uncommitted": uncommitted,
        "last_commits": last,
    }
