"""The Python API: what the CLI does, callable in-process by hooks and other tools.

Functions here compose the store, capture, bulk and validate modules and return
data; they never print. ``import lore`` re-exports them lazily. The ``*_doc`` use cases
return a command's ``--json`` document: the CLI and the MCP server (``lore.mcp``) both call them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lore.model import Dir, Log, Record, class_for_id, kind_class
from lore.paths import COMPONENTS
from lore.storage import jsonl
from lore.store import REVISE, Store

GITATTRIBUTES_LINES = (
    "# lore: append-only logs merge by union; lore de-duplicates identical lines on read",
    "*.jsonl merge=union",
)
GITIGNORE_LINES = (
    "# lore: derived and machine-local files (never the truth, never committed)",
    "*.lock",
    "*.tmp",
)


def open_store(data_dir: str | Path | None = None) -> Store:
    """A store on the resolved data root (same rules as the CLI)."""
    return Store(data_dir)


def capture(text: str, *, store: Store | None = None, **options: Any) -> Record:
    """Record ``text``; keyword options as :func:`lore.capture.capture` takes them."""
    from lore.capture import capture as _capture

    return _capture(store or open_store(), text, **options).record


def get(record_id: str, *, store: Store | None = None) -> Record:
    return (store or open_store()).get(record_id)


def list_records(
    store: Store,
    kind: str,
    *,
    hidden: bool = False,
    tags: Sequence[str] = (),
    project: str | None = None,
    limit: int = 0,
) -> list[Record]:
    """Records of ``kind``, newest first, filtered by tags (all must match) and project."""
    records = store.records(kind_class(kind), hidden=hidden)
    if tags:
        wanted = set(tags)
        records = [r for r in records if wanted <= set(r.tags)]
    if project:
        records = [r for r in records if r.project == project or project in r.tags]
    records = sorted(records, key=lambda r: str(r.timestamp or ""), reverse=True)
    return records[:limit] if limit else records


def record_history(store: Store, record_id: str) -> list[dict[str, Any]]:
    """The stored lines behind a log record: its creation line, then its revisions."""
    cls = class_for_id(record_id)
    if cls is None or not isinstance(cls.KIND.storage, Log):
        return []
    from lore.store import _order_key

    try:
        raw = store.location(cls).read_bytes()
    except OSError:  # no log yet, or one lore cannot read (validate reports it)
        return []
    # Only lines that spell the id can be its lines: parse those alone (a 20,000-line
    # log costs a byte search instead of 20,000 JSON parses). Ids are plain ASCII,
    # which JSON writers (lore's included) do not escape.
    needle = record_id.encode("utf-8")
    mine = b"\n".join(line for line in raw.split(b"\n") if needle in line)
    rows, _ = jsonl.parse(mine + b"\n", str(store.location(cls)))
    lines: list[dict[str, Any]] = []
    seen: set[bytes] = set()
    for _, obj in rows:
        key = jsonl.dumps(obj)
        if obj.get("id") == record_id and key not in seen:  # union-merge twins count once
            seen.add(key)
            lines.append(obj)
    creation = [obj for obj in lines if obj.get("_op") != REVISE][:1]
    ordered = sorted(
        enumerate(obj for obj in lines if obj.get("_op") == REVISE),
        key=lambda item: (_order_key(item[1].get("timestamp")), item[0]),
    )
    return creation + [obj for _, obj in ordered]


def article(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def retract(
    store: Store, record_id: str, *, reason: str | None = None, allow_secret: bool = False
) -> tuple[Record, str]:
    """Withdraw a record; returns it and the retraction time (``retracted_at``).

    Every kind stored in a log can be retracted (an appended revision line), and the
    documents whose ``status`` allows ``retracted`` (patterns, anti-patterns: edited
    in place, atomically). The change sets ``retracted_at`` and, given a reason,
    ``retraction_reason``; kinds with such a status also get ``status: retracted``.
    """
    from lore import clock
    from lore.errors import InvalidInputError
    from lore.model import retracts_by_status
    from lore.secrets import gate

    if reason:
        gate({"reason": reason}, allow_secret=allow_secret)
    record = store.get(record_id)
    cls = type(record)
    by_status = retracts_by_status(cls)
    if not by_status and not isinstance(cls.KIND.storage, Log):
        raise InvalidInputError(f"{article(record.kind)} cannot be retracted", id=record_id)
    when = clock.now()

    def change(state: dict[str, Any]) -> dict[str, Any]:
        if cls.from_dict(state).retracted:
            raise InvalidInputError(f"{record_id} is already retracted", id=record_id)
        changes: dict[str, Any] = {"status": "retracted"} if by_status else {}
        changes["retracted_at"] = when
        if reason:
            changes["retraction_reason"] = reason
        return changes

    # The reason is in the change itself (retraction_reason), not repeated on the line.
    updated = store.update(record_id, change)
    return updated, when


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
        from lore.gitrun import git, reason

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


def __getattr__(name: str) -> Any:
    # Bulk and validation live in their own modules; re-exported lazily.
    if name in ("import_records", "export_records"):
        from lore import bulk

        return getattr(bulk, name)
    if name == "validate":
        from lore.validate import validate

        return validate
    raise AttributeError(name)
