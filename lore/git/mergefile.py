"""What lore's git merge drivers share (``mergemap`` for the map file, ``mergedoc`` for
goal documents): the ``git -c`` arguments that define a driver, reading the three
versions, git's own text merge of them, and the command line git runs."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def driver_config(module: str, driver: str, name: str) -> list[str]:
    """The ``git -c`` arguments that define ``driver`` (run as ``python -m module``) for one
    git command."""
    import shlex

    command = f"{shlex.quote(sys.executable)} -m {module} %O %A %B %P"
    return ["-c", f"merge.{driver}.name={name}", "-c", f"merge.{driver}.driver={command}"]


def read_three(base: Path, ours: Path, theirs: Path) -> list[Any] | None:
    """The parsed YAML of the three versions (None for an empty one), or None when one
    cannot be read or parsed."""
    from lore.errors import DataError
    from lore.storage import yamlio

    try:
        texts = [p.read_text(encoding="utf-8") for p in (base, ours, theirs)]
        return [
            yamlio.loads(t, str(p)) if t.strip() else None
            for t, p in zip(texts, (base, ours, theirs))
        ]
    except (DataError, OSError, UnicodeDecodeError):
        return None


def text_merge(base: Path, ours: Path, theirs: Path, how: str = "") -> str | None:
    """``git merge-file`` of the three (``how``: "", "--union" or "--ours"), or None when
    it left a conflict."""
    args = ["git", "merge-file", "-p", *([how] if how else [])]
    done = subprocess.run(
        [*args, str(ours), str(base), str(theirs)], capture_output=True, check=False
    )
    if done.returncode != 0:
        return None
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None


def same(x: Any, y: Any) -> bool:
    return bool(x == y and type(x) is type(y))


def replace(mapping: Any, name: str, value: Any) -> None:
    from lore.store.documents import merge_value

    merge_value(mapping, name, value)


def run(argv: list[str], module: str, merge: Callable[[Path, Path, Path], bool]) -> int:
    """A driver's command line, as git runs it: ``BASE OURS THEIRS [PATH]``. What ``merge``
    cannot merge is left to git's own text merge, with its conflict markers, in OURS.
    Exit 0 merged, 1 conflict, 2 usage."""
    if len(argv) < 3:
        print(f"usage: python -m {module} BASE OURS THEIRS [PATH]", file=sys.stderr)
        return 2
    base, ours, theirs = (Path(a) for a in argv[:3])
    if merge(base, ours, theirs):
        return 0
    labels = ["-L", "ours", "-L", "base", "-L", "theirs"]
    done = subprocess.run(
        ["git", "merge-file", *labels, str(ours), str(base), str(theirs)], check=False
    )
    return 0 if done.returncode == 0 else 1
