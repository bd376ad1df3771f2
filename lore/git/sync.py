"""``lore sync``: commit what lore wrote in a git data root, pull, push, and count the records.

Git is the distributed engine: logs merge by union (``lore init --git``), documents are
one file per record. This use case only drives git (through ``lore.git.run``) and reads
its diffs to say how many records went each way; it never edits a data file itself.
Whenever git changes files it holds the root's lock exclusively, so no write another
lore process acknowledges can be overwritten or left half-committed; it commits only
lore's own files, never a log that lost lines, and finishes a sync that was killed.
A merge git cannot finish is aborted, so the clone is left as it was before the pull.
"""

from __future__ import annotations

import socket
from collections import Counter
from pathlib import Path
from typing import Any

from lore.errors import ConflictError, DataError, LoreError, UsageError
from lore.git.files import ensure_attributes, lost_lines, own_files
from lore.git.run import git, reason

MODES = ("merge", "rebase")
_PUSH_TRIES = 3


def sync(
    root: Path,
    *,
    mode: str | None = None,
    push: bool = True,
    message: str | None = None,
    allow_secret: bool = False,
) -> dict[str, Any]:
    """Commit pending changes, pull (merge or rebase) and push; what moved each way.

    A commit ``message`` passes the secrets gate first (``allow_secret`` skips it): git
    keeps it in every clone's history.
    """
    if message is not None:
        from lore.secrets.gate import gate

        gate({"message": message}, allow_secret=allow_secret)
    _check_repository(root)
    mode = mode or git(root, "config", "--get", "lore.syncMode", check=False).out.strip() or "merge"
    if mode not in MODES:
        raise UsageError(
            f"sync mode {mode!r} is not one of {', '.join(MODES)} (git config lore.syncMode)"
        )
    with _holding(root):
        recovered = _recover(root)
        ensure_attributes(root)
        committed = _commit(root, message)
    found = git(
        root, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}", check=False
    )
    upstream = found.out.strip() if found.code == 0 else ""
    result: dict[str, Any] = {
        "ok": True,
        "root": str(root),
        "mode": mode,
        "upstream": upstream or None,
        "committed": committed,
        "received": _empty(),
        "sent": _empty(),
        "pulled": False,
        "pushed": False,
    }
    if recovered:
        result["recovered"] = recovered
    if not upstream:
        missing = _configured_upstream(root)
        if missing:
            result["missing_upstream"] = missing
        return result
    remote, _, branch = upstream.partition("/")
    for _ in range(_PUSH_TRIES):
        git(root, "fetch", "-q", remote)  # changes no file of the work tree: no lock
        received = count_changes(root, "HEAD...@{upstream}")
        _add(result["received"], received)
        behind = int(git(root, "rev-list", "--count", "HEAD..@{upstream}").out)
        if behind:
            with _holding(root):
                # Records written since the first commit go in first: git merges and
                # rebases only a clean work tree, and these must not be lost to it.
                _fold_commit(result["committed"], _commit(root, message))
                _integrate(root, mode)
            result["pulled"] = True
        ahead = int(git(root, "rev-list", "--count", "@{upstream}..HEAD").out)
        if not push or not ahead:
            break
        sent = count_changes(root, "@{upstream}...HEAD")
        pushed = git(root, "push", "-q", remote, f"HEAD:{branch}", check=False)
        if pushed.code == 0:
            result["sent"] = sent
            result["pushed"] = True
            break
        if "rejected" not in pushed.err and "fetch first" not in pushed.err:
            raise LoreError(f"git push failed: {reason(pushed)}")
    else:
        raise LoreError(
            f"git push was rejected {_PUSH_TRIES} times: others keep pushing; run lore sync again"
        )
    return result


def _configured_upstream(root: Path) -> str | None:
    """``REMOTE/BRANCH`` when the current branch names an upstream that does not exist
    (yet): what ``git clone`` of an empty repository configures."""
    branch = git(root, "symbolic-ref", "-q", "--short", "HEAD", check=False).out.strip()
    if not branch:
        return None
    remote = git(root, "config", "--get", f"branch.{branch}.remote", check=False).out.strip()
    merge = git(root, "config", "--get", f"branch.{branch}.merge", check=False).out.strip()
    if not remote or not merge:
        return None
    return f"{remote}/{merge.removeprefix('refs/heads/')}"


def _holding(root: Path) -> Any:
    """The root's lock, exclusively: every lore writer waits while git changes files."""
    from lore.storage.lock import root_locked

    return root_locked(root, exclusive=True, why="lore sync is running git there")


def _check_repository(root: Path) -> None:
    if not root.is_dir():
        raise LoreError(f"the data root {root} does not exist; run lore init --git")
    top = git(root, "rev-parse", "--show-toplevel", check=False)
    if top.code != 0 or Path(top.out.strip()).resolve() != root.resolve():
        raise LoreError(
            f"the data root {root} is not a git repository of its own; "
            "run `lore init --git` there (and add a remote) to share it"
        )


def _recover(root: Path) -> str | None:
    """Finish what a killed ``lore sync`` left (the caller holds the root's lock).

    Its merge or rebase is aborted: while it stood unfinished lore refused every write
    (``lore.store.guard``), and everything written before it was committed first, so
    the abort gives back that commit with every record. A merge or rebase someone
    started by hand is theirs to finish: refused, with the way that loses nothing.
    Returns what was recovered ("merge" or "rebase"), if anything.
    """
    from lore.store.guard import SYNC_MARKER, git_dir, unfinished, unfinished_message

    where = git_dir(root)
    marker = where / SYNC_MARKER if where is not None else None
    busy = unfinished(root)
    if busy is not None and not busy[1]:
        raise ConflictError(unfinished_message(root, busy[0], False), files=_unmerged(root))
    if marker is not None and marker.exists():
        _clear_stale_lock(where)  # a killed sync's git may have left its index lock
    if busy is not None:
        operation = busy[0]
        aborted = git(root, operation, "--abort", check=False)
        if aborted.code != 0 and unfinished(root) is not None:
            raise LoreError(f"git {operation} --abort failed: {reason(aborted)}")
    if marker is not None and marker.exists():
        marker.unlink()
        return busy[0] if busy is not None else None
    if _unmerged(root):
        files = _unmerged(root)
        raise ConflictError(
            f"{', '.join(files)} {'is' if len(files) == 1 else 'are'} unmerged in git's index; "
            "edit each file, `git add` it and `git commit`, then `lore validate` and lore sync",
            files=files,
        )
    return None


def _clear_stale_lock(where: Path | None) -> None:
    """Remove the ``index.lock`` a killed sync's git left behind, so the abort can run.

    The caller holds the root's exclusive lock, so the sync that was killed is gone; on
    Linux its git died with it (``git(..., tied=True)``), so the lock is stale. Elsewhere
    its git may still be finishing: wait for it, and if the lock stays, say what to do.
    """
    from lore.git.run import DIES_WITH_LORE

    lock = where / "index.lock" if where is not None else None
    if lock is None or not lock.exists():
        return
    if DIES_WITH_LORE:
        lock.unlink(missing_ok=True)
        return
    import time

    deadline = time.monotonic() + 30
    while lock.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    if lock.exists():
        raise LoreError(
            f"{lock} is still there 30 s after the interrupted lore sync: if no git "
            "process is running in this clone, delete that file and run lore sync again"
        )


def _unmerged(root: Path) -> list[str]:
    out = git(root, "diff", "--name-only", "--diff-filter=U", "-z").out
    return sorted({name for name in out.split("\0") if name})


def _commit(root: Path, message: str | None) -> dict[str, Any]:
    has_head = git(root, "rev-parse", "-q", "--verify", "HEAD", check=False).code == 0
    files = own_files(root)
    if not files:
        return {"commit": None, **_empty()}
    if has_head:
        lost = lost_lines(root)
        if lost:
            what = ", ".join(
                f"{path} ({n} record{'s' if n != 1 else ''})" for path, n in lost.items()
            )
            raise DataError(
                f"refusing to commit: {what} lost lines it held at the last commit, which "
                "would delete those records for every clone; see what is missing with "
                f"`git -C {root} diff HEAD -- <file>` and put it back (`git -C {root} "
                "checkout HEAD -- <file>` restores the committed file; then add the "
                "lines written since). If the removal is intended, commit it yourself "
                "with git",
                files=sorted(lost),
            )
    literal = [f":(literal){name}" for name in files]
    git(root, "add", "-A", "--", *literal)
    staged = git(root, "diff", "--cached", "--name-only").out.strip()
    if not staged:
        return {"commit": None, **_empty()}
    counts = count_changes(root, "--cached") if has_head else _count_files(root)
    text = message or _message(counts)
    done = git(root, "commit", "-q", "-m", text, "--", *literal, check=False)
    if done.code != 0:
        detail = (done.err or done.out).strip()
        if "identity" in detail or "user.email" in detail:
            raise LoreError(
                f"git has no identity to commit with: set one, e.g. git -C {root} config "
                f"user.name 'Your Name' && git -C {root} config user.email you@example.com"
            )
        raise LoreError(f"git commit failed: {reason(done)}")
    sha = git(root, "rev-parse", "HEAD").out.strip()
    return {"commit": sha, **counts}


def _fold_commit(into: dict[str, Any], more: dict[str, Any]) -> None:
    """A second commit of the same sync, counted with the first."""
    if more["commit"] is None:
        return
    into["commit"] = more["commit"]
    _add(into, more)


def _integrate(root: Path, mode: str) -> None:
    """Merge or rebase onto the upstream (the caller holds the root's lock).

    A marker in the git directory says a lore sync is inside git's merge or rebase, so
    a sync killed there is recognised (and writes refused) until ``_recover`` runs.
    """
    from lore.store.guard import SYNC_MARKER, git_dir

    where = git_dir(root)
    marker = where / SYNC_MARKER if where is not None else None
    if marker is not None:
        marker.write_text(f"{mode}\n", encoding="utf-8")
    from lore.git import mergedoc, mergemap

    # projects.yaml merges by entry (lore.git.mergemap), a goal by field and criterion
    # (lore.git.mergedoc)
    drivers = [*mergemap.driver_config(), *mergedoc.driver_config()]
    if mode == "merge":
        done = git(
            root, *drivers, "merge", "-q", "--no-edit", "@{upstream}", check=False, tied=True
        )
        abort = ("merge", "--abort")
    else:
        done = git(root, *drivers, "rebase", "-q", "@{upstream}", check=False, tied=True)
        abort = ("rebase", "--abort")
    try:
        if done.code == 0:
            return
        files = _unmerged(root)
        git(root, *abort, check=False)
    finally:
        if marker is not None:
            marker.unlink(missing_ok=True)
    if not files:
        raise LoreError(f"git {mode} failed: {reason(done)}")
    pull, finish = (
        ("git pull --rebase", "git rebase --continue")
        if mode == "rebase"
        else ("git pull --no-rebase", "git commit")
    )
    raise ConflictError(
        f"git cannot {mode} by itself: {', '.join(files)} changed on both sides. "
        f"Nothing was lost: your commit stays as it was. Resolve by hand: `{pull}` in "
        f"{root}, edit each file, `git add` it, finish with `{finish}` (lore writes "
        "nothing until then), run `lore validate`, then `lore sync`",
        files=files,
    )


# --- counting records in a diff ----------------------------------------------------


def _locations() -> list[tuple[str, str, str]]:
    """(path prefix relative to the root, kind, shape) for every kind's file or folder."""
    from lore.model import Dir, Log, kinds

    out = []
    for name, cls in kinds().items():
        spec = cls.KIND
        base = f"{spec.component}/data/"
        storage = spec.storage
        if isinstance(storage, Log):
            out.append((base + storage.file, name, "log"))
        elif isinstance(storage, Dir):
            out.append((base + storage.dir + "/", name, "doc"))
        else:
            out.append((base + storage.file, name, "map"))
    return out


def _kind_of(path: str, locations: list[tuple[str, str, str]]) -> tuple[str, str] | None:
    for prefix, kind, shape in locations:
        if path == prefix or (shape == "doc" and path.startswith(prefix)):
            return kind, shape
    return None


def count_changes(root: Path, *revs: str) -> dict[str, Any]:
    """Records and revisions added between two revisions (``A...B``) or in the index."""
    import orjson

    locations = _locations()
    records: Counter[str] = Counter()
    revisions: Counter[str] = Counter()
    status = git(root, "diff", "--name-status", "--no-renames", "-z", *revs).out.split("\0")
    pairs = iter(status)
    for flag in pairs:
        path = next(pairs, "")
        if not flag:
            continue
        found = _kind_of(path, locations)
        if found is None or found[1] == "log":
            continue
        kind, shape = found
        if flag == "A" and shape == "doc":
            records[kind] += 1
        elif flag in ("A", "M"):
            revisions[kind] += 1
    current: tuple[str, str] | None = None
    for line in git(root, "diff", "-U0", "--no-color", "--no-renames", *revs).out.splitlines():
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else ""
            current = _kind_of(path, locations)
        elif line.startswith("+") and current and current[1] == "log":
            try:
                obj = orjson.loads(line[1:])
            except orjson.JSONDecodeError:
                continue
            if isinstance(obj, dict) and "_op" in obj:
                revisions[current[0]] += 1
            elif isinstance(obj, dict):
                records[current[0]] += 1
    return _shape(records, revisions)


def _count_files(root: Path) -> dict[str, Any]:
    """The first commit of a root: every staged line and document is new."""
    import orjson

    locations = _locations()
    records: Counter[str] = Counter()
    revisions: Counter[str] = Counter()
    empty_tree = git(root, "hash-object", "-t", "tree", "/dev/null").out.strip()
    names = git(root, "diff", "--cached", "--name-only", "-z", empty_tree).out
    for path in names.split("\0"):
        found = _kind_of(path, locations)
        if not found:
            continue
        kind, shape = found
        if shape != "log":
            records[kind] += 1
            continue
        for raw in (root / path).read_bytes().splitlines():
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            (revisions if isinstance(obj, dict) and "_op" in obj else records)[kind] += 1
    return _shape(records, revisions)


def _shape(records: Counter[str], revisions: Counter[str]) -> dict[str, Any]:
    return {
        "records": sum(records.values()),
        "revisions": sum(revisions.values()),
        "kinds": {k: records[k] for k in sorted(records)},
    }


def _empty() -> dict[str, Any]:
    return {"records": 0, "revisions": 0, "kinds": {}}


def _add(into: dict[str, Any], more: dict[str, Any]) -> None:
    into["records"] += more["records"]
    into["revisions"] += more["revisions"]
    for kind, n in more["kinds"].items():
        into["kinds"][kind] = into["kinds"].get(kind, 0) + n


def describe(counts: dict[str, Any]) -> str:
    """``3 records (decision 2, failure 1), 1 revision``: for messages and commit subjects."""
    n, r = counts["records"], counts["revisions"]
    text = f"{n} record{'' if n == 1 else 's'}"
    if counts["kinds"]:
        text += " (" + ", ".join(f"{k} {v}" for k, v in counts["kinds"].items()) + ")"
    if r:
        text += f", {r} revision{'' if r == 1 else 's'}"
    return text


def _message(counts: dict[str, Any]) -> str:
    return f"lore sync: {describe(counts)} from {socket.gethostname()}"
