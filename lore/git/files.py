"""Which files of a git data root are lore's own (what ``lore sync`` may commit), and which
records a working log lost since the last commit (what it must refuse to commit).
"""

from __future__ import annotations

from pathlib import Path

from lore.git.run import git

GITATTRIBUTES_LINES = (
    "# lore: append-only logs merge by union; lore de-duplicates identical lines on read",
    "*.jsonl merge=union",
    "# lore: lore sync merges the registry by project (a plain git pull merges it as text)",
    "registry/data/projects.yaml merge=lore-map",
    "# lore: lore sync merges a goal by field and criterion (a plain git pull: as text)",
    "intent/data/goals/*.yaml merge=lore-doc",
)


def ensure_lines(path: Path, lines: tuple[str, ...]) -> bool:
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


def ensure_attributes(root: Path) -> None:
    """A root made by an older ``lore init --git`` gets the registry's and the goals' merge
    lines."""
    path = root / ".gitattributes"
    try:
        made_by_lore = "*.jsonl merge=union" in path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    if made_by_lore:
        ensure_lines(path, GITATTRIBUTES_LINES[2:])


def own_files(root: Path) -> list[str]:
    """lore's own changed files under ``root`` (relative, for ``git add``): the kinds'
    logs, maps and documents, ``.gitattributes``, ``.gitignore`` and the ``.gitkeep``
    files. Locks, temporary and quarantine files and anything else are left alone."""
    out = git(root, "status", "--porcelain", "-z", "--untracked-files=all", "--no-renames").out
    wanted = _own_patterns()
    changed = []
    for entry in out.split("\0"):
        if len(entry) > 3 and _is_own(entry[3:], wanted):
            changed.append(entry[3:])
    return sorted(set(changed))


def _own_patterns() -> tuple[set[str], list[tuple[str, str]]]:
    from lore.model import Dir, kinds
    from lore.paths import COMPONENTS

    exact = {".gitattributes", ".gitignore"} | {f"{c}/data/.gitkeep" for c in COMPONENTS}
    folders = []
    for cls in kinds().values():
        storage = cls.KIND.storage
        base = f"{cls.KIND.component}/data/"
        if isinstance(storage, Dir):
            folders.append((base + storage.dir + "/", storage.suffix))
            if storage.events:
                exact.add(base + storage.events)
        else:
            exact.add(base + storage.file)
    return exact, folders


def _is_own(path: str, wanted: tuple[set[str], list[tuple[str, str]]]) -> bool:
    exact, folders = wanted
    if path in exact:
        return True
    for folder, suffix in folders:
        if path.startswith(folder):
            name = path[len(folder) :]
            return "/" not in name and not name.startswith(".") and name.endswith(suffix)
    return False


def lost_lines(root: Path) -> dict[str, int]:
    """Per log, how many records it held at HEAD that its working copy no longer holds.

    Only whole JSON objects count: a torn line or a conflict marker that ``lore doctor
    --repair`` moved to quarantine is not a record. A line that is still present
    elsewhere in the file (a duplicate, a reordering) is not lost either.
    """
    import orjson

    from lore.model import Dir, Log, kinds

    logs = []
    for cls in kinds().values():
        storage = cls.KIND.storage
        if isinstance(storage, Log):
            logs.append(f"{cls.KIND.component}/data/{storage.file}")
        elif isinstance(storage, Dir) and storage.events:
            logs.append(f"{cls.KIND.component}/data/{storage.events}")
    diff = git(root, "diff", "-U0", "--no-color", "--no-renames", "HEAD", "--", *logs).out
    removed: dict[str, list[bytes]] = {}
    current = ""
    for line in diff.splitlines():
        if line.startswith("--- "):
            current = line[6:] if line.startswith("--- a/") else ""
        elif line.startswith("-") and current and not line.startswith("---"):
            removed.setdefault(current, []).append(line[1:].encode("utf-8"))
    lost: dict[str, int] = {}
    for path, lines in removed.items():
        try:
            now = set((root / path).read_bytes().splitlines())
        except OSError:
            now = set()
        count = 0
        for raw in lines:
            if raw in now:
                continue
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                count += 1
        if count:
            lost[path] = count
    return lost
