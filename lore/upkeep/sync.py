"""``lore sync``: commit the data root's pending changes, integrate the remote's, push.

Git is the distributed engine: logs merge by union (``.gitattributes``), documents are
one file per record. This module only sequences git (through ``lore.gitrun``) and
counts, from git's own diffs, how many records came in and went out.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lore.errors import LoreError, UsageError
from lore.gitrun import GitError, out, run
from lore.paths import COMPONENTS
from lore.store import Store

STRATEGIES = ("rebase", "merge")
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's empty tree object


class SyncConflict(LoreError):
    """Git needs a person: the integration stopped on conflicted files (named)."""

    code = "conflict"


@dataclass
class Counts:
    records: int = 0  # new records: creation lines and new documents
    changes: int = 0  # revision lines and changed documents


@dataclass
class SyncResult:
    root: str
    strategy: str
    committed: str | None = None  # the commit made of pending changes
    message: str | None = None
    remote: str | None = None
    received: Counts = field(default_factory=Counts)
    sent: Counts = field(default_factory=Counts)
    pushed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"ok": True, **asdict(self)}


def strategy_from_env() -> str:
    value = os.environ.get("LORE_SYNC_STRATEGY", "").strip() or "rebase"
    if value not in STRATEGIES:
        raise UsageError(f"LORE_SYNC_STRATEGY={value!r}: expected rebase or merge")
    return value


def _paths(root: Path) -> list[str]:
    """What lore owns in the repository: the component folders and its two git files."""
    found = [c for c in COMPONENTS if (root / c).exists()]
    return found + [n for n in (".gitattributes", ".gitignore") if (root / n).exists()]


def count(root: Path, *diff_args: str) -> Counts:
    """Records and changes in ``git diff <diff_args>`` over lore's files."""
    counts = Counts()
    names = run(root, "diff", "--name-status", "--no-renames", *diff_args, "--", *_paths(root))
    for line in names.out.splitlines():
        status, _, path = line.partition("\t")
        if path.endswith((".yaml", ".json")) and "/data/" in path:
            if status == "A":
                counts.records += 1
            elif status == "M":
                counts.changes += 1
    patch = run(
        root, "diff", "--unified=0", "--no-color", "--no-renames", *diff_args, "--", "*.jsonl"
    )
    for line in patch.out.splitlines():
        if not line.startswith("+{"):
            continue
        try:
            obj = json.loads(line[1:])
        except ValueError:
            continue
        if isinstance(obj, dict) and "_op" in obj:
            counts.changes += 1
        elif isinstance(obj, dict):
            counts.records += 1
    return counts


def message_for(counts: Counts) -> str:
    parts = [f"{counts.records} new record{'s' if counts.records != 1 else ''}"]
    if counts.changes:
        parts.append(f"{counts.changes} change{'s' if counts.changes != 1 else ''}")
    return "lore sync: " + ", ".join(parts)


def sync(store: Store, *, strategy: str | None = None, push: bool = True) -> SyncResult:
    root = store.path
    chosen = strategy or strategy_from_env()
    if chosen not in STRATEGIES:
        raise UsageError(f"--strategy must be rebase or merge (got {chosen!r})")
    result = SyncResult(root=str(root), strategy=chosen)
    try:
        top = out(root, "rev-parse", "--show-toplevel")
    except GitError:
        raise UsageError(
            f"{root} is not a git repository: run `lore init --git` there first"
        ) from None
    if Path(top).resolve() != root.resolve():
        raise UsageError(f"the data root {root} is inside the repository {top}, not its top")
    _refuse_unfinished(root)
    _commit_pending(root, result)
    upstream = run(root, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}", check=False)
    if upstream.code != 0:
        remotes = out(root, "remote").split()
        if not remotes:
            return result  # a repository without a remote: committing is all there is
        result.remote = "origin" if "origin" in remotes else remotes[0]
        branch = out(root, "rev-parse", "--abbrev-ref", "HEAD")
        run(root, "fetch", result.remote)
        remote_branch = run(
            root, "rev-parse", "--verify", "-q", f"{result.remote}/{branch}", check=False
        )
        if remote_branch.code == 0:
            run(root, "branch", f"--set-upstream-to={result.remote}/{branch}")
        elif push:
            result.sent = count(root, EMPTY_TREE, "HEAD")
            run(root, "push", "-u", result.remote, branch)
            result.pushed = True
            return result
        else:
            return result
    else:
        result.remote = upstream.out.strip().split("/", 1)[0]
    before = out(root, "rev-parse", "@{u}")
    run(root, "fetch", result.remote)
    after = out(root, "rev-parse", "@{u}")
    result.received = count(root, before, after)
    _integrate(root, chosen)
    result.sent = count(root, "@{u}", "HEAD")
    if push and (result.sent.records or result.sent.changes or _ahead(root)):
        run(root, "push", result.remote, "HEAD")
        result.pushed = True
    return result


def _ahead(root: Path) -> bool:
    return out(root, "rev-list", "--count", "@{u}..HEAD") != "0"


def _refuse_unfinished(root: Path) -> None:
    git_dir = Path(out(root, "rev-parse", "--absolute-git-dir"))
    for name, what in (
        ("MERGE_HEAD", "a merge"),
        ("rebase-merge", "a rebase"),
        ("rebase-apply", "a rebase"),
    ):
        if (git_dir / name).exists():
            conflicted = _conflicted(root)
            raise SyncConflict(
                f"{what} is in progress in {root}; finish or abort it with git first"
                + (f" (conflicted: {', '.join(conflicted)})" if conflicted else ""),
                files=conflicted,
            )


def _commit_pending(root: Path, result: SyncResult) -> None:
    paths = _paths(root)
    if not paths:
        return
    run(root, "add", "-A", "--", *paths)
    staged = run(root, "diff", "--cached", "--quiet", check=False)
    if staged.code == 0:
        return
    has_head = run(root, "rev-parse", "--verify", "-q", "HEAD", check=False).code == 0
    counts = count(root, "--cached", *([] if has_head else [EMPTY_TREE]))
    result.message = message_for(counts)
    run(root, "commit", "-q", "-m", result.message, "--", *paths)
    result.committed = out(root, "rev-parse", "HEAD")


def _conflicted(root: Path) -> list[str]:
    return out(root, "diff", "--name-only", "--diff-filter=U").splitlines()


def _integrate(root: Path, strategy: str) -> None:
    if strategy == "rebase":
        done = run(root, "rebase", "@{u}", check=False)
        abort = ("rebase", "--abort")
    else:
        done = run(root, "merge", "--no-edit", "@{u}", check=False)
        abort = ("merge", "--abort")
    if done.code == 0:
        return
    conflicted = _conflicted(root)
    run(root, *abort, check=False)
    if not conflicted:
        raise GitError(f"git {strategy} failed: {(done.err or done.out).strip()}")
    raise SyncConflict(
        f"git needs a person: {len(conflicted)} file(s) conflict: {', '.join(conflicted)}. "
        f"Nothing was changed (the {strategy} was undone). Run `git pull --{strategy}` in "
        f"{root}, resolve them (`lore validate` names what is still wrong), commit, then "
        "`lore sync` again",
        files=conflicted,
    )
