"""The guard every write to a root passes first: the root's lock held shared (so
``lore sync`` and a move, which hold it exclusively, never run beside a write), and no
write into a root that was moved away or whose git is in the middle of a merge or rebase.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lore.errors import ConflictError, LoreError
from lore.paths import moved_to
from lore.storage.lock import root_locked

# Written into the git directory by `lore sync` before it merges or rebases, removed
# when that is over: found later, it means a sync was interrupted there.
SYNC_MARKER = "lore-sync-unfinished"
_IN_PROGRESS = (("MERGE_HEAD", "merge"), ("rebase-merge", "rebase"), ("rebase-apply", "rebase"))


def git_dir(root: Path) -> Path | None:
    """``root``'s own git directory (``.git``, or where a ``.git`` file points), if any."""
    dot = root / ".git"
    if dot.is_dir():
        return dot
    if not dot.is_file():
        return None
    try:
        text = dot.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return target if target.is_absolute() else (root / target)


def unfinished(root: Path) -> tuple[str, bool] | None:
    """``(operation, by_lore)`` when git is in the middle of a merge or rebase in ``root``
    (``by_lore``: an interrupted ``lore sync`` started it), else None."""
    where = git_dir(root)
    if where is None:
        return None
    for name, what in _IN_PROGRESS:
        if os.path.exists(where / name):
            return what, (where / SYNC_MARKER).exists()
    return None


def unfinished_message(root: Path, operation: str, by_lore: bool) -> str:
    """Why writes are refused, and the one safe way out."""
    if by_lore:
        return (
            f"a lore sync was interrupted in the middle of a git {operation} in {root}; "
            "lore writes nothing until it is finished: run `lore sync`, which puts the "
            "clone back as it was before that sync (every record stays) and syncs again"
        )
    finish = "git commit" if operation == "merge" else "git rebase --continue"
    return (
        f"git is in the middle of a {operation} in {root}; lore writes nothing until it "
        f"is finished: edit each conflicted file, `git add` it, then `{finish}` "
        "(lore wrote nothing since it began), then `lore validate`"
    )


def check_writable(root: Path) -> None:
    """Raise unless a write into ``root`` may go ahead now (the caller holds its lock)."""
    target = moved_to(root)
    if target is not None:
        raise LoreError(
            f"the data root {root} was moved to {target} (lore paths --move-to) while "
            f"this command ran; nothing was written: run it again (it uses {target})",
            moved_to=str(target),
        )
    busy = unfinished(root)
    if busy is not None:
        raise ConflictError(unfinished_message(root, *busy), files=[])


@contextmanager
def writing(root: Path) -> Iterator[None]:
    """Hold ``root``'s lock shared and check that a write may go ahead."""
    with root_locked(root, exclusive=False, why="lore sync or a move is running there"):
        check_writable(root)
        yield
