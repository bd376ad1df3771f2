"""What ``lore stale`` learns from git, kept per repository and HEAD in the machine-local
folder (``<local>/dynamics/stale-<repo>.json``): which commits exist, HEAD's tree, and the
commits and renames behind each file that changed. A new commit (another HEAD) starts it
again; edits to the working files are seen through ``lore.dynamics.fresh``'s blob cache.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from lore.dynamics.tally import write_cache

SCHEMA = 1


class History:
    """The commits reachable from HEAD, newest first (topological order), read from git
    only as far back as the oldest commit a record was captured at."""

    def __init__(self, top: Path, head: str, anchors: set[str]) -> None:
        from lore.git import objects

        self.commits: list[tuple[str, int, str]] = []
        self.described: dict[int, dict[str, Any]] = {}
        self.pos: dict[str, int] = {}
        self.paths: dict[str, list[tuple[int, str]]] = {}  # path -> [(position, status)]
        missing = set(anchors)
        for commit in objects.history(top, head):
            at = len(self.commits)
            self.commits.append((commit.sha, commit.time, commit.subject))
            self.pos[commit.sha] = at
            for change in commit.changes:
                self.paths.setdefault(change.path, []).append((at, change.status))
            missing.discard(commit.sha)
            if not missing:
                break

    def position(self, commit: str | None) -> int:
        """Where ``commit`` stands (commits before it came after it); a commit HEAD does
        not reach counts as older than every commit read."""
        return self.pos.get(commit or "", len(self.commits))

    def touching(self, path: str, after: int) -> list[tuple[int, str]]:
        return [(p, s) for p, s in self.paths.get(path, ()) if p < after]

    def deleted_by(self, path: str, after: int) -> tuple[int, str] | None:
        """The newest commit after position ``after`` that deleted ``path``."""
        for p, status in self.paths.get(path, ()):
            if p < after and status == "D":
                return p, self.commits[p][0]
        return None

    def describe(self, at: int) -> dict[str, Any]:
        """{"sha", "date", "subject"} of the commit at ``at`` (made once: files share them)."""
        found = self.described.get(at)
        if found is None:
            import time

            sha, when, subject = self.commits[at]
            date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when))
            found = self.described[at] = {"sha": sha, "date": date, "subject": subject}
        return found


class Memo:
    """The cache of one repository at one HEAD."""

    def __init__(self, local: Path, top: Path | None, head: str | None) -> None:
        self.top, self.head = top, head
        self.path: Path | None = None
        self.data: dict[str, Any] = {}
        self.changed = False
        self._history: History | None = None
        if top is None:
            return
        try:
            from _sha1 import sha1
        except ImportError:
            from hashlib import sha1
        name = sha1(str(top).encode("utf-8")).hexdigest()[:12]
        self.path = local / "dynamics" / f"stale-{name}.json"
        try:
            data = orjson.loads(self.path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            data = None
        if isinstance(data, dict) and data.get("schema") == SCHEMA and data.get("head") == head:
            self.data = data
        else:
            self.data = {"schema": SCHEMA, "head": head, "commits": {}, "explained": {}}

    def commits(self, wanted: set[str], top: Path | None) -> set[str]:
        """The commits of ``wanted`` this repository holds."""
        if top is None or not wanted:
            return set()
        table: dict[str, bool] = self.data["commits"]
        unknown = wanted - table.keys()
        if unknown:
            from lore.git import objects

            present = objects.existing(top, unknown)
            table.update({c: c in present for c in unknown})
            self.changed = True
        return {c for c in wanted if table.get(c)}

    def tree(self) -> dict[str, str]:
        """HEAD's tree: path -> blob id."""
        found = self.data.get("tree")
        if not isinstance(found, dict):
            from lore.git import objects

            assert self.top is not None and self.head is not None
            found = self.data["tree"] = objects.tree(self.top, self.head)
            self.changed = True
        return found

    def history(self, top: Path, head: str, anchors: set[str]) -> History:
        if self._history is None:
            self._history = _Lazy(top, head, anchors)  # type: ignore[assignment]
        assert self._history is not None
        return self._history

    @staticmethod
    def key(item: Any) -> str:
        return f"{item.path}\0{item.recorded}\0{item.commit}"

    def explained(self, item: Any) -> dict[str, Any] | None:
        found = self.data["explained"].get(self.key(item))
        return found if isinstance(found, dict) else None

    def remember(self, item: Any) -> None:
        self.data["explained"][self.key(item)] = {
            "commits": item.commits,
            "count": item.commit_count,
            "moved_to": item.moved_to,
        }
        self.changed = True

    def save(self) -> None:
        if self.changed and self.path is not None:
            write_cache(self.path, orjson.dumps(self.data))
            self.changed = False


class _Lazy:
    """A History read from git on first use (a run whose answers are all cached never
    starts ``git log``)."""

    def __init__(self, top: Path, head: str, anchors: set[str]) -> None:
        self.args = (top, head, anchors)
        self.real: History | None = None

    def __getattr__(self, name: str) -> Any:
        if self.real is None:
            self.real = History(*self.args)
        return getattr(self.real, name)
