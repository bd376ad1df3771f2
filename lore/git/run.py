"""The one place lore runs ``git`` for writing work (``lore sync``): argument lists, never a shell.

Read-only look-ups on the capture path read ``.git`` directly (``lore.git.info``);
everything that commits, fetches, merges or pushes goes through :func:`git` here.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import NamedTuple

from lore.errors import LoreError


class Done(NamedTuple):
    code: int
    out: str
    err: str


def git(root: Path, *args: str, check: bool = True, timeout: float = 120) -> Done:
    """Run ``git -C root ARGS...``; raise LoreError naming the command when it fails."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            stdin=subprocess.DEVNULL,
            env=env,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError:
        raise LoreError("git is not installed; lore sync needs it") from None
    except subprocess.TimeoutExpired:
        raise LoreError(f"git {args[0]} did not finish within {timeout:.0f} s") from None
    result = Done(done.returncode, done.stdout, done.stderr)
    if check and result.code != 0:
        raise LoreError(f"git {args[0]} failed: {reason(result)}", git_exit=result.code)
    return result


def reason(done: Done) -> str:
    """git's own reason: its first ``fatal:``/``error:`` line with the indented lines that
    follow it (the files it names), else its last line."""
    raw = (done.err or done.out).splitlines()
    for index, line in enumerate(raw):
        text = line.strip()
        if text.startswith(("fatal:", "error:")):
            found = text.split(":", 1)[1].strip()
            names = []
            for follow in raw[index + 1 :]:
                if not follow[:1].isspace() or not follow.strip():
                    break
                names.append(follow.strip())
            if names:
                found = f"{found.rstrip(':')}: {', '.join(names)}"
            return found
    lines = [line.strip() for line in raw if line.strip()]
    return lines[-1] if lines else f"exit {done.code}"
