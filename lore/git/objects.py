"""Read-only questions to git's object store (``lore stale``): which commits exist, the
blobs of a commit's tree, blob contents, the history of changes and git's own rename
detection. Argument lists, never a shell; ``GIT_OPTIONAL_LOCKS=0`` so a read never takes
the index lock from the user's own git.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from lore.errors import LoreError

TIMEOUT = 120.0


def _env() -> dict[str, str]:
    return {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}


def run(top: Path, *args: str, data: bytes | None = None) -> bytes:
    """``git -C top ARGS`` and its output; LoreError (naming the command) when it fails."""
    try:
        done = subprocess.run(
            ["git", "-C", str(top), *args],
            input=data,
            capture_output=True,
            env=_env(),
            timeout=TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise LoreError("git is not installed; lore stale needs it") from None
    except subprocess.TimeoutExpired:
        raise LoreError(f"git {args[0]} did not finish within {TIMEOUT:.0f} s") from None
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise LoreError(f"git {args[0]} failed: {why[-1] if why else done.returncode}")
    return done.stdout


def rev(top: Path, name: str = "HEAD") -> str | None:
    """The commit ``name`` resolves to, or None (no commits yet)."""
    try:
        return run(top, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}").decode().strip()
    except LoreError:
        return None


def is_bare(top: Path) -> bool:
    return run(top, "rev-parse", "--is-bare-repository").strip() == b"true"


def existing(top: Path, names: Iterable[str]) -> set[str]:
    """Which of ``names`` (object ids) the repository holds as commits."""
    wanted = sorted({n for n in names if n})
    if not wanted:
        return set()
    out = run(top, "cat-file", "--batch-check", data="\n".join(wanted).encode() + b"\n")
    found = set()
    for line in out.decode("utf-8", "replace").splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1] == "commit":
            found.add(parts[0])
    return found


def tree(top: Path, commit: str) -> dict[str, str]:
    """Every file of ``commit``'s tree: path -> blob id."""
    out = run(top, "ls-tree", "-r", "-z", "--full-tree", commit)
    found: dict[str, str] = {}
    for entry in out.split(b"\0"):
        head, _, path = entry.partition(b"\t")
        parts = head.split()
        if len(parts) == 3 and parts[1] == b"blob":
            found[path.decode("utf-8", "surrogateescape")] = parts[2].decode()
    return found


def blobs(top: Path, ids: Iterable[str]) -> dict[str, bytes]:
    """The contents of the blobs ``ids`` (those the repository holds)."""
    wanted = sorted({i for i in ids if i})
    if not wanted:
        return {}
    out = run(top, "cat-file", "--batch", data="\n".join(wanted).encode() + b"\n")
    found: dict[str, bytes] = {}
    at = 0
    while at < len(out):
        end = out.index(b"\n", at)
        head = out[at:end].split()
        at = end + 1
        if len(head) < 3 or head[1] == b"missing":
            continue
        size = int(head[2])
        if head[1] == b"blob":
            found[head[0].decode()] = out[at : at + size]
        at += size + 1
    return found


class Change(NamedTuple):
    status: str  # A, M, D, T (no renames: a rename is a D and an A)
    path: str


class Commit(NamedTuple):
    sha: str
    time: int
    subject: str
    changes: list[Change]


def history(top: Path, head: str) -> Iterator[Commit]:
    """The commits reachable from ``head`` in topological order (every commit before its
    parents) with the files each changed, read as git writes them: stop iterating to stop
    git."""
    proc = subprocess.Popen(
        ["git", "-C", str(top), "log", "--topo-order", "--no-renames", "--name-status",
         "-z", "--format=%x01%H%x09%ct%x09%s", head],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(),
    )  # fmt: skip
    assert proc.stdout is not None
    try:
        yield from _parse(_chunks(proc.stdout))
    finally:
        proc.stdout.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def _chunks(stream: object) -> Iterator[bytes]:
    read = stream.read  # type: ignore[attr-defined]
    while True:
        block = read(1 << 16)
        if not block:
            return
        yield block


def _parse(chunks: Iterator[bytes]) -> Iterator[Commit]:
    """``git log --name-status -z --format=%x01...`` as commits: each record starts with \\x01."""
    buffer = b""
    for block in chunks:
        buffer += block
        parts = buffer.split(b"\x01")
        buffer = parts.pop()
        for part in parts:
            if part:
                yield _commit(part)
    if buffer:
        yield _commit(buffer)


def _commit(raw: bytes) -> Commit:
    """One commit: ``<sha>\\t<time>\\t<subject>\\n`` then ``<status>\\0<path>\\0`` per file."""
    head, _, body = raw.partition(b"\n")
    sha, _, rest = head.rstrip(b"\0").partition(b"\t")
    when, _, subject = rest.partition(b"\t")
    fields = body.lstrip(b"\n").split(b"\0")
    changes = [
        Change(chr(fields[i][0]), fields[i + 1].decode("utf-8", "surrogateescape"))
        for i in range(0, len(fields) - 1, 2)
        if fields[i]
    ]
    return Commit(sha.decode(), int(when or 0), subject.decode("utf-8", "replace"), changes)


def renames(top: Path, commits: Iterable[str]) -> dict[str, list[tuple[str, str, int]]]:
    """git's rename detection in ``commits``: commit -> [(old path, new path, similarity %)]."""
    wanted = sorted(set(commits))
    if not wanted:
        return {}
    out = run(top, "show", "-M", "--name-status", "-z", "--format=%x01%H", *wanted)
    found: dict[str, list[tuple[str, str, int]]] = {}
    for part in out.split(b"\x01"):
        if not part:
            continue
        sha, _, body = part.partition(b"\n")
        fields = body.strip(b"\n\0").split(b"\0")
        items: list[tuple[str, str, int]] = []
        i = 0
        while i < len(fields):
            status = fields[i].strip()
            if status.startswith(b"R") and i + 2 < len(fields):
                similarity = int(status[1:] or 100)
                old = fields[i + 1].decode("utf-8", "surrogateescape")
                new = fields[i + 2].decode("utf-8", "surrogateescape")
                items.append((old, new, similarity))
                i += 3
            elif status[:1] in (b"C",):
                i += 3
            else:
                i += 2
        found[sha.rstrip(b"\0").decode().strip()] = items
    return found
