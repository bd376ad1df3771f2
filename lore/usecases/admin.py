"""Use cases of the root itself: where every file lives (``lore paths``) and scaffolding a
root (``lore init``, with ``--git`` a repository whose logs merge by union).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lore.model import Dir
from lore.paths import COMPONENTS
from lore.store.core import Store

GITATTRIBUTES_LINES = (
    "# lore: append-only logs merge by union; lore de-duplicates identical lines on read",
    "*.jsonl merge=union",
)
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
    """Append the lines ``path`` lacks (creating it); True if anything was written."""
    from lore.storage.atomic import atomic_write

    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    present = {line.strip() for line in existing.splitlines()}
    missing = [line for line in lines if line.strip() not in present]
    if not missing:
        return False
    prefix = existing if not existing or existing.endswith("\n") else existing + "\n"
    atomic_write(path, (prefix + "\n".join(missing) + "\n").encode("utf-8"))
    return True
