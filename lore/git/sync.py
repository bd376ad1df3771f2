"""``lore sync``: commit what lore wrote in a git data root, pull, push, and count the records.

Git is the distributed engine: logs merge by union (``lore init --git``), documents are
one file per record. This use case only drives git (through ``lore.git.run``) and reads
its diffs to say how many records went each way; it never edits a data file itself.
A merge git cannot finish is aborted, so the clone is left as it was before the pull.
"""

from __future__ import annotations

import socket
from collections import Counter
from pathlib import Path
from typing import Any

from lore.errors import ConflictError, LoreError, UsageError
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
    _refuse_unfinished(root)
    committed = _commit(root, message)
    upstream = git(
        root, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}", check=False
    ).out.strip()
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
    if not upstream:
        return result
    remote, _, branch = upstream.partition("/")
    for _ in range(_PUSH_TRIES):
        git(root, "fetch", "-q", remote)
        received = count_changes(root, "HEAD...@{upstream}")
        _add(result["received"], received)
        behind = int(git(root, "rev-list", "--count", "HEAD..@{upstream}").out)
        if behind:
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


def _check_repository(root: Path) -> None:
    if not root.is_dir():
        raise LoreError(f"the data root {root} does not exist; run lore init --git")
    top = git(root, "rev-parse", "--show-toplevel", check=False)
    if top.code != 0 or Path(top.out.strip()).resolve() != root.resolve():
        raise LoreError(
            f"the data root {root} is not a git repository of its own; "
            "run `lore init --git` there (and add a remote) to share it"
        )


def _refuse_unfinished(root: Path) -> None:
    unmerged = _unmerged(root)
    git_dir = Path(git(root, "rev-parse", "--absolute-git-dir").out.strip())
    busy = [n for n in ("MERGE_HEAD", "rebase-merge", "rebase-apply") if (git_dir / n).exists()]
    if unmerged or busy:
        raise ConflictError(
            "git needs a person first: a merge or rebase is unfinished"
            + (f" in {', '.join(unmerged)}" if unmerged else "")
            + "; resolve it (or abort it), commit, run `lore validate`, then lore sync again",
            files=unmerged,
        )


def _unmerged(root: Path) -> list[str]:
    out = git(root, "diff", "--name-only", "--diff-filter=U", "-z").out
    return sorted({name for name in out.split("\0") if name})


def _commit(root: Path, message: str | None) -> dict[str, Any]:
    git(root, "add", "-A", "--", ".")
    staged = git(root, "diff", "--cached", "--name-only").out.strip()
    counts = _empty()
    if not staged:
        return {"commit": None, **counts}
    has_head = git(root, "rev-parse", "-q", "--verify", "HEAD", check=False).code == 0
    counts = count_changes(root, "--cached") if has_head else _count_files(root)
    text = message or _message(counts)
    done = git(root, "commit", "-q", "-m", text, check=False)
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


def _integrate(root: Path, mode: str) -> None:
    if mode == "merge":
        done = git(root, "merge", "-q", "--no-edit", "@{upstream}", check=False)
        abort = ("merge", "--abort")
    else:
        done = git(root, "rebase", "-q", "@{upstream}", check=False)
        abort = ("rebase", "--abort")
    if done.code == 0:
        return
    files = _unmerged(root)
    git(root, *abort, check=False)
    if not files:
        raise LoreError(f"git {mode} failed: {reason(done)}")
    raise ConflictError(
        f"git cannot {mode} by itself: {', '.join(files)} changed on both sides. "
        f"Nothing was lost: your commit stays as it was. Resolve by hand: `git pull"
        f"{' --rebase' if mode == 'rebase' else ''}` in {root}, edit each file, `git add` it, "
        "finish the merge, run `lore validate`, then `lore sync`",
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
