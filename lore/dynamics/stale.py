"""``lore stale``: the records whose files changed, moved or vanished since they were
captured, with the commits that did it, from git's object store (so the answer is right on
any checkout) and the checkout's own files.

A file is *fresh* while the checkout holds the bytes it was captured with (the working
file; in a checkout without one, HEAD's blob). Otherwise it is ``edited`` (HEAD still has
the recorded blob: an uncommitted change), ``changed`` (commits changed it), ``moved``
(git's rename detection followed it to another path) or ``vanished``. The commits listed
are those git's topological order puts after the commit the record was captured at.
Answers are kept per HEAD in the machine-local folder (``lore.dynamics.cache``).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.dynamics.fresh import Blobs
from lore.errors import UsageError
from lore.store.core import Store

MAX_COMMITS = 10  # commits listed per file (the count says how many there were)
MAX_HOPS = 5  # renames followed from a vanished path
ZERO = "0" * 40


@dataclass
class FileState:
    path: str
    state: str  # changed | edited | moved | vanished
    recorded: str | None  # the blob id at capture
    current: str | None  # the blob id now (at moved_to for a moved file); None: gone
    commit: str | None  # the commit the record was captured at
    moved_to: str | None = None
    commits: list[dict[str, Any]] = field(default_factory=list)
    commit_count: int = 0
    added: int | None = None  # lines, the captured content to the current one
    deleted: int | None = None

    @property
    def diffstat(self) -> str:
        """``+12 -4 in 3 commits`` (the counts git cannot give are left out)."""
        words = []
        if self.added is not None and self.deleted is not None:
            words.append(f"+{self.added} -{self.deleted}")
        if self.state == "edited":
            words.append("not committed")
        elif self.commit_count:
            words.append(f"in {self.commit_count} commit{'s' if self.commit_count != 1 else ''}")
        return " ".join(words)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "state": self.state,
            "moved_to": self.moved_to,
            "recorded": self.recorded,
            "current": self.current,
            "commit": self.commit,
            "commits": self.commits,
            "commit_count": self.commit_count,
            "added": self.added,
            "deleted": self.deleted,
            "diffstat": self.diffstat,
        }


@dataclass
class StaleRecord:
    id: str
    kind: str
    title: str
    timestamp: str
    project: str | None
    files: list[FileState]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.kind,
            "title": self.title,
            "timestamp": self.timestamp,
            "project": self.project,
            "files": [f.to_dict() for f in self.files],
        }


@dataclass
class Report:
    repo: str | None
    head: str | None
    anchored: int = 0  # live records with file hashes
    checked: int = 0  # of those, records this checkout can answer for
    stale: list[StaleRecord] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "head": self.head,
            "anchored": self.anchored,
            "checked": self.checked,
            "skipped": self.anchored - self.checked,
            "stale": [s.to_dict() for s in self.stale],
        }


def find(repo_dir: str | Path | None) -> Any:
    """The repository ``--repo DIR`` names (default: the one around the working
    directory); None outside any repository without ``--repo``."""
    from lore.git.info import find_repo

    if repo_dir is None:
        return find_repo()
    where = Path(repo_dir).expanduser()
    if not where.is_dir():
        raise UsageError(f"--repo {repo_dir}: no such directory")
    repo = find_repo(where)
    if repo is None:
        raise UsageError(f"--repo {repo_dir}: not inside a git repository (with a work tree)")
    return repo


def check(
    store: Store, *, repo_dir: str | Path | None = None, ids: list[str] | None = None
) -> Report:
    """Every live record with file hashes (``ids``: only those) checked against the
    repository: the stale ones, newest first."""
    from lore.dynamics import cache
    from lore.git import objects
    from lore.index.persist import open_index

    repo = find(repo_dir)
    idx = open_index(store)
    wanted = set(ids) if ids is not None else None
    docs = [
        (d, anchors)
        for d, anchors in idx.anchors.items()
        if d not in idx.dead
        and (wanted is not None or not idx.hidden[d])
        and (wanted is None or idx.id_of(d) in wanted)
    ]
    top = repo.top if repo is not None else None
    head = objects.rev(top) if top is not None else None
    report = Report(str(top) if top is not None else None, head, anchored=len(docs))
    memo = cache.Memo(store.root.local, top, head)
    known = memo.commits(
        {c for _, anchors in docs for _, _, c in anchors if c}, top
    )  # commits this repository holds
    head_tree = memo.tree() if head else {}
    blobs = Blobs(store.root.local)
    sha256 = False
    if repo is not None:
        from lore.capture.anchors import uses_sha256

        sha256 = uses_sha256(repo.git_dir)
    pending: list[tuple[int, FileState]] = []
    found: dict[int, list[FileState]] = {}
    base = f"{top}{os.sep}" if top is not None else ""
    for d, anchors in docs:
        mine = False
        for path, recorded, commit in anchors:
            absolute = os.path.isabs(path)
            if not absolute and (top is None or (commit is not None and commit not in known)):
                continue  # another repository's file
            mine = True
            current = blobs.blob(
                path if absolute else base + path,  # strings: 5,000 Paths cost
                sha256=sha256 if not absolute else len(recorded or "") == 64,
            )
            if current == recorded:
                continue
            state = _state(path, recorded, current, head_tree, absolute)
            item = FileState(path, state, recorded, current, commit)
            found.setdefault(d, []).append(item)
            if state in ("changed", "moved", "vanished") and not absolute and commit:
                pending.append((d, item))
        report.checked += mine
    blobs.save()
    if pending and top is not None and head is not None:
        _explain(memo, top, head, head_tree, [item for _, item in pending], blobs, sha256)
    memo.save()
    if top is not None:
        _diffstats(top, [f for items in found.values() for f in items])
    for d, items in found.items():
        if not items:
            continue
        record = idx.fetch(store, d)
        report.stale.append(
            StaleRecord(
                record.id, record.kind, record.title, record.timestamp, record.project, items
            )
        )
    report.stale.sort(key=lambda s: (s.timestamp, s.id), reverse=True)
    return report


def _state(
    path: str, recorded: str | None, current: str | None, head_tree: dict[str, str], absolute: bool
) -> str:
    if absolute:
        return "changed" if current is not None else "vanished"
    in_head = head_tree.get(path)
    if current is not None:
        return "edited" if in_head == recorded else "changed"
    if in_head is not None:
        return "edited" if in_head == recorded else "changed"  # deleted, not committed
    return "vanished"  # until the history says it moved


def _explain(
    memo: Any,
    top: Path,
    head: str,
    head_tree: dict[str, str],
    items: list[FileState],
    blobs: Blobs,
    sha256: bool,
) -> None:
    """Fill in the commits of ``items`` and, for a vanished file, where git's rename
    detection says it went (followed through up to MAX_HOPS renames)."""
    from lore.git import objects

    todo = []
    for item in items:
        cached = memo.explained(item)
        if cached is None:
            todo.append(item)
            continue
        item.commits, item.commit_count = cached["commits"], cached["count"]
        item.moved_to = cached["moved_to"]
    if todo:
        history = memo.history(top, head, {i.commit for i in todo if i.commit})
        after = {id(i): history.position(i.commit) for i in todo}
        touched = {id(i): history.touching(i.path, after[id(i)]) for i in todo}
        # Vanished files: where each went, one rename a round (a batch of `git show -M`).
        chase = {id(i): (i.path, after[id(i)]) for i in todo if i.state == "vanished"}
        for _ in range(MAX_HOPS):
            deleting = {
                key: found
                for key, (path, at) in chase.items()
                if (found := history.deleted_by(path, at)) is not None
            }
            if not deleting:
                break
            moves = objects.renames(top, {sha for _, sha in deleting.values()})
            nxt = {}
            by_id = {id(i): i for i in todo}
            for key, (pos, sha) in deleting.items():
                path = chase[key][0]
                new = next((n for o, n, _ in moves.get(sha, ()) if o == path), None)
                if new is None:
                    continue
                item = by_id[key]
                item.moved_to = new
                touched[key] += history.touching(new, pos)
                if new not in head_tree and not (top / new).is_file():
                    nxt[key] = (new, pos)  # renamed again, or deleted since
            chase = nxt
        for item in todo:
            if (
                item.moved_to
                and item.moved_to not in head_tree
                and not (top / item.moved_to).is_file()
            ):
                item.moved_to = None  # followed to a path that vanished too
            found = sorted(set(touched[id(item)]))  # newest first (topological position)
            item.commit_count = len(found)
            item.commits = [history.describe(pos) for pos, _ in found[:MAX_COMMITS]]
            memo.remember(item)
    for item in items:
        if item.moved_to:
            item.state = "moved"
            item.current = blobs.blob(top / item.moved_to, sha256=sha256) or head_tree.get(
                item.moved_to
            )


def _diffstats(top: Path, items: list[FileState]) -> None:
    """Lines added and removed from each captured content to the current one (counted as
    multisets of lines); unknown when git does not hold the captured blob."""
    from lore.git import objects

    wanted = {i.recorded for i in items if i.recorded}
    wanted |= {i.current for i in items if i.current}
    contents = objects.blobs(top, wanted)
    for item in items:
        old = contents.get(item.recorded or "")
        if old is None:
            continue
        if item.current is None:
            new = b""
        else:
            new = contents.get(item.current)  # type: ignore[assignment]
            if new is None:
                try:
                    new = (top / (item.moved_to or item.path)).read_bytes()
                except OSError:
                    continue
        before, after = Counter(old.splitlines()), Counter(new.splitlines())
        item.added = sum((after - before).values())
        item.deleted = sum((before - after).values())
