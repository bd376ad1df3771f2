"""The one place lore runs ``git``: argument lists only (never a shell string), no prompts.

``run`` returns git's output or raises ``GitError`` with git's own message; callers
that expect a non-zero exit (a merge conflict) pass ``check=False``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import NamedTuple

from lore.errors import LoreError


class GitError(LoreError):
    """git is missing, or a git command failed; the message is git's."""

    code = "git"


class Done(NamedTuple):
    code: int
    out: str
    err: str


def run(root: Path, *args: str, check: bool = True, timeout: float = 120) -> Done:
    """``git -C root <args>``; output decoded as UTF-8 (bad bytes replaced)."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_MERGE_AUTOEDIT": "no", "LC_ALL": "C"}
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=env,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took longer than {timeout:g}s; stopped") from None
    result = Done(done.returncode, done.stdout, done.stderr)
    if check and done.returncode != 0:
        message = (done.stderr or done.stdout).strip().splitlines()
        raise GitError(f"git {args[0]} failed: {message[-1] if message else done.returncode}")
    return result


def out(root: Path, *args: str) -> str:
    """The stripped output of a git command that must succeed."""
    return run(root, *args).out.strip()
