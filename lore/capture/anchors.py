"""File hashes at capture: a record that names files keeps, per file, the content hash it
had then (``file_hashes``), so ``lore.dynamics`` can tell later whether its advice is stale.

The hash is git's blob id of the file's bytes (``git hash-object``: the blob id git has for
a tracked, unchanged file, and a hash of the bytes of any other), computed here without a
git process; the commit is the repository's HEAD. Only files that exist are anchored.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

FIELD = "file_hashes"
# Kinds whose records carry advice worth checking against the code (not goals, sessions,
# concepts or edges, which name files only in passing).
KINDS = ("decision", "pattern", "anti-pattern", "failure", "observation", "evidence")
MAX_FILES = 20  # files anchored per record
MAX_BYTES = 16 * 1024 * 1024  # a bigger file is named but not hashed (reading it costs)
# A bare file name counts as a path only with one of these extensions (journal's list).
_EXTENSIONS = frozenset(
    (
        *("py", "pyi", "js", "jsx", "ts", "tsx", "mjs", "cjs", "json", "jsonl", "yaml", "yml"),
        *("toml", "ini", "cfg", "md", "rst", "txt", "sh", "bash", "zsh", "rs", "go", "c", "h"),
        *("cc", "cpp", "hpp", "java", "kt", "rb", "php", "cs", "swift", "sql", "html", "css"),
        *("scss", "lock", "env", "conf", "xml", "proto"),
    )
)
_STRIP = "`'\"()[]{}<>,;!?*"


def named_paths(texts: Iterable[str]) -> list[str]:
    """The words of ``texts`` that look like file paths (a ``/`` in them, or a file name
    with a known extension), in order, once each; ``path:12`` loses its line number.

    Plain string work, no regular expression: this runs on every capture."""
    found: dict[str, None] = {}
    for text in texts:
        if not isinstance(text, str) or ("/" not in text and "." not in text):
            continue
        for word in text.split():
            word = word.strip(_STRIP).rstrip(".:")
            if not word or "://" in word or "@" in word:
                continue
            head, sep, tail = word.rpartition(":")
            if sep and tail.isdigit():
                word = head
            if "/" in word:
                if word.strip("/.~") and not word.replace("/", "").replace(".", "").isdigit():
                    found[word] = None
                continue
            stem, dot, ext = word.rpartition(".")
            if dot and stem and ext.lower() in _EXTENSIONS:
                found[word] = None
    return list(found)


def record_paths(record: Any) -> list[str]:
    """The files a record names: a decision's ``files`` and path-like entities, and the
    paths written in any record's searched text."""
    texts: list[str] = []
    files = getattr(record, "files", None)
    if isinstance(files, list):
        texts.extend(f for f in files if isinstance(f, str))
    entities = getattr(record, "entities", None)
    if isinstance(entities, list):
        texts.extend(e for e in entities if isinstance(e, str) and " " not in e.strip())
    texts.append(record.search_text())
    return named_paths(texts)


def blob_id(data: bytes, *, sha256: bool = False) -> str:
    """git's blob id of ``data`` (``git hash-object``), SHA-1 or SHA-256."""
    header = b"blob %d\0" % len(data)
    if sha256:
        from hashlib import sha256 as new
    else:
        try:
            # The C module behind hashlib.sha1: hashlib itself loads OpenSSL, which
            # costs a capture several milliseconds (lore.paths does the same).
            from _sha1 import sha1 as new  # type: ignore[no-redef]
        except ImportError:  # an interpreter without it
            from hashlib import sha1 as new
    digest = new(header)
    digest.update(data)
    return digest.hexdigest()


def uses_sha256(git_dir: Path) -> bool:
    """Whether the repository's objects are named by SHA-256 (``extensions.objectformat``)."""
    try:
        config = (git_dir / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "objectformat" in config.lower() and "sha256" in config.lower()


def file_blob(path: Path, *, sha256: bool = False) -> str | None:
    """The blob id of the regular file at ``path``; None when it is not one, is too big
    or cannot be read."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_BYTES:
            return None
        return blob_id(path.read_bytes(), sha256=sha256)
    except OSError:
        return None


def locate(name: str, repo: Any, cwd: Path) -> tuple[str, Path] | None:
    """Where ``name`` is: (the path as recorded, the file). Inside the repository a path is
    recorded relative to its top (``/`` separators); elsewhere as an absolute path. The
    working directory is tried first, then the repository's top."""
    expanded = Path(os.path.expanduser(name))
    candidates = [expanded] if expanded.is_absolute() else [cwd / expanded]
    if repo is not None and not expanded.is_absolute():
        candidates.append(repo.top / expanded)
    for candidate in candidates:
        try:
            if not candidate.is_file():
                continue
            full = Path(os.path.abspath(candidate))
        except OSError:
            continue
        if repo is not None:
            try:
                return full.relative_to(repo.top).as_posix(), full
            except ValueError:
                pass
        return str(full), full
    return None


def file_hashes(
    paths: Iterable[str], *, repo: Any = None, head: str | None = None, cwd: Path | None = None
) -> list[dict[str, Any]]:
    """``[{"path", "blob", "commit"}]`` for each of ``paths`` that is a file now (at most
    MAX_FILES); ``commit`` is HEAD (None outside a repository or before its first commit)."""
    here = cwd or Path.cwd()
    sha256 = uses_sha256(repo.git_dir) if repo is not None else False
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for name in paths:
        where = locate(name, repo, here)
        if where is None or where[0] in seen:
            continue
        blob = file_blob(where[1], sha256=sha256)
        if blob is None:
            continue
        seen.add(where[0])
        inside = repo is not None and not Path(where[0]).is_absolute()
        out.append({"path": where[0], "blob": blob, "commit": head if inside else None})
        if len(out) >= MAX_FILES:
            break
    return out


def anchor(record: Any, *, cwd: Path | None = None) -> None:
    """Set ``record.extra["file_hashes"]`` for the files a new record names (kinds in
    KINDS; a record that already carries hashes, or names no existing file, is left as is),
    looked up from ``cwd`` (default: the working directory) and its repository's top."""
    if record.KIND.name not in KINDS or FIELD in record.extra:
        return
    paths = record_paths(record)
    if not paths:
        return
    from lore.capture.build import _head_at, _repo, _repo_at

    try:
        repo = _repo() if cwd is None else _repo_at(str(cwd))
    except OSError:
        repo = None
    head = _head_at(str(repo.top)) if repo is not None else None
    found = file_hashes(paths, repo=repo, head=head, cwd=cwd)
    if found:
        record.extra[FIELD] = found
