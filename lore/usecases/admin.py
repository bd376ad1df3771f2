"""Use cases of the root itself: where every file lives (``lore paths``), moving the root
(``lore paths --move-to``) and scaffolding a root (``lore init``, with ``--git`` a
repository whose logs merge by union).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lore.model import Dir
from lore.paths import COMPONENTS
from lore.store.core import Store

GITIGNORE_LINES = (
    "# lore: derived and machine-local files (never the truth, never committed)",
    "*.lock",
    "*.tmp",
)


def paths(store: Store) -> dict[str, Any]:
    from lore.model import kinds

    files = {}
    for name, cls in kinds().items():
        location = store.location(cls)
        storage = cls.KIND.storage
        files[name] = (
            str(location / f"<id>{storage.suffix}") if isinstance(storage, Dir) else str(location)
        )
    return {
        "root": str(store.path),
        "source": store.root.source,
        "local": str(store.root.local),
        "components": {name: str(store.data_dir(name)) for name in COMPONENTS},
        "files": files,
    }


def init(store: Store, *, git: bool = False) -> dict[str, Any]:
    """Scaffold every component's data directory (and, with ``git``, a repository)."""
    created = [str(p) for p in store.init()]
    result: dict[str, Any] = {"root": str(store.path), "created": created, "git": None}
    if git:
        result["git"] = _init_git(store.path, created)
    return result


def _init_git(root: Path, created: list[str]) -> dict[str, Any]:

    from lore.errors import LoreError

    is_repo = (root / ".git").exists()
    if not is_repo:
        from lore.git.run import git, reason

        try:
            done = git(root, "init", "-q", check=False)
        except LoreError:  # not installed (or hung): the one message init gives
            raise LoreError("git is not installed; cannot run `lore init --git`") from None
        if done.code != 0:
            raise LoreError(f"git init failed: {reason(done)}")
    changed = []
    from lore.git.files import GITATTRIBUTES_LINES

    for name, lines in ((".gitattributes", GITATTRIBUTES_LINES), (".gitignore", GITIGNORE_LINES)):
        if _ensure_lines(root / name, lines):
            changed.append(name)
            created.append(str(root / name))
    # Keep empty data directories in git so a fresh clone has the layout.
    for component in COMPONENTS:
        keep = root / component / "data" / ".gitkeep"
        if not keep.exists():
            keep.touch()
    return {"initialized": not is_repo, "updated": changed}


def _ensure_lines(path: Path, lines: Sequence[str]) -> bool:
    from lore.git.files import ensure_lines

    return ensure_lines(path, tuple(lines))


def move_root(store: Store, target: str | Path) -> dict[str, Any]:
    """Move the data root to ``target``: copy, prove the copy, then switch.

    Holds the root's lock exclusively throughout, so no write lands in the old root
    meanwhile (writers wait, or time out with exit 5). The copy is made beside the
    target under a temporary name, compared byte for byte with the source, and only
    then renamed into place; ``.lore-moved`` left in the old root then sends every
    later command (and every writer that waited) to the new one. An interrupted move
    leaves the source as it was and no target; the partial copy of one killed outright
    (``.<target>.lore-moving-*``) is removed by the next move to that target. The old
    copy is never deleted.
    """
    import glob
    import shutil

    from lore.errors import InvalidInputError, LoreError, NotFoundError, UsageError
    from lore.paths import MOVED_MARKER, checkout_components, holds_data
    from lore.storage.atomic import atomic_write, fsync_dir
    from lore.storage.lock import ROOT_LOCK, root_locked
    from lore.storage.tree import copy_tree, first_difference

    source = store.path
    dest = Path(target).expanduser().absolute()
    if not source.is_dir():
        raise NotFoundError(f"nothing to move: the data root {source} does not exist")
    if dest == source or dest.resolve().is_relative_to(source.resolve()):
        raise UsageError(f"cannot move the data root {source} into itself ({dest})")
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise InvalidInputError(
            f"{dest} is not an empty directory; move the data root to a new or empty one",
            path=str(dest),
        )
    is_checkout = source == checkout_components()

    def skip(rel: Path) -> bool:
        parts = rel.parts
        if parts[0] == ".git":
            return False
        if len(parts) == 1 and parts[0] in (ROOT_LOCK, MOVED_MARKER):
            return True
        if is_checkout and (parts[0] not in COMPONENTS or (len(parts) > 1 and parts[1] != "data")):
            return True  # the checkout's own files (README.md): not data
        name = parts[-1]
        return name.startswith(".") and name.endswith((".lock", ".tmp"))

    with root_locked(source, exclusive=True, why="lore paths --move-to is copying it"):
        if not holds_data(source) and not (source / ".git").exists():
            raise LoreError(f"nothing to move: the data root {source} holds no records")
        dest.parent.mkdir(parents=True, exist_ok=True)
        # A move killed outright (SIGKILL, a power cut) ran no cleanup: its partial copy,
        # as big as the root, would stay hidden beside the target for good.
        removed = []
        for left in sorted(dest.parent.glob(f".{glob.escape(dest.name)}.lore-moving-*")):
            if left.is_dir() and not left.is_symlink():
                shutil.rmtree(left, ignore_errors=True)
                removed.append(str(left))
        staging = dest.parent / f".{dest.name}.lore-moving-{os.urandom(4).hex()}"
        try:
            copied = copy_tree(source, staging, skip)
            wrong = first_difference(source, staging, copied)
            if wrong is not None:
                raise LoreError(
                    f"the copy of {source / wrong} differs from the original; nothing was "
                    "moved (the data root is unchanged)",
                    path=str(source / wrong),
                )
            if dest.exists():
                dest.rmdir()  # empty (checked above)
            os.rename(staging, dest)
            fsync_dir(dest.parent)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        atomic_write(source / MOVED_MARKER, f"{dest}\n".encode())
    files = [rel for rel in copied if (dest / rel).is_file() and not (dest / rel).is_symlink()]
    return {
        "ok": True,
        "from": str(source),
        "to": str(dest),
        "files": len(files),
        "bytes": sum((dest / rel).stat().st_size for rel in files),
        "removed": removed,
    }
