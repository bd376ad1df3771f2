"""The one place lore runs ``git`` for writing work (``lore sync``): argument lists, never a shell.

Read-only look-ups on the capture path read ``.git`` directly (``lore.git.info``);
everything that commits, fetches, merges or pushes goes through :func:`git` here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

from lore.errors import LoreError


class Done(NamedTuple):
    code: int
    out: str
    err: str


def _die_with_parent() -> None:  # runs in the child, between fork and exec
    import ctypes

    # PR_SET_PDEATHSIG (1): the kernel sends SIGKILL (9) to git when lore dies.
    ctypes.CDLL(None, use_errno=True).prctl(1, 9)


DIES_WITH_LORE = sys.platform.startswith("linux")


def git(
    root: Path, *args: str, check: bool = True, timeout: float = 120, tied: bool = False
) -> Done:
    """Run ``git -C root ARGS...``; raise LoreError naming the command when it fails.

    ``tied``: git dies with this process (Linux), so a killed ``lore sync`` never leaves a
    git of its own running: whatever lock it left (``index.lock``) is then known stale."""
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
            preexec_fn=_die_with_parent if tied and DIES_WITH_LORE else None,
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
