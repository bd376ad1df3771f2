"""Where each agent keeps its sessions, for ``lore ingest`` with no PATH.

- Claude Code: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``, then ``projects/<dir>/`` where
  ``<dir>`` is the project's absolute path with every character other than a letter or a
  digit replaced by ``-`` (``/home/me/my_app`` -> ``-home-me-my-app``); subagent files
  sit under ``<dir>/<session>/subagents/``.
- Codex: ``$CODEX_HOME`` or ``~/.codex``, then ``sessions/YYYY/MM/DD/rollout-*.jsonl``;
  the repository a rollout belongs to is the ``cwd`` of its ``session_meta`` line.
- Gemini CLI: ``$GEMINI_CLI_HOME`` or ``~``, then ``.gemini/tmp/<project>/chats/``, where
  ``<project>`` is the short id ``.gemini/projects.json`` maps the project's path to, or
  (older versions) the SHA-256 hex digest of the path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import orjson

NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")
CWD = re.compile(rb'"cwd"\s*:\s*"((?:[^"\\]|\\.)*)"')


def claude_home() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude").expanduser()


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def gemini_home() -> Path:
    return Path(os.environ.get("GEMINI_CLI_HOME") or Path.home()).expanduser() / ".gemini"


def claude_dir_name(project: Path) -> str:
    return NOT_ALNUM.sub("-", str(project))


def gemini_ids(project: Path) -> list[str]:
    """The ``tmp/`` folder names Gemini CLI may use for ``project``."""
    try:  # the C module behind hashlib.sha256 (hashlib loads OpenSSL: milliseconds)
        from _sha2 import sha256
    except ImportError:
        try:
            from _sha256 import sha256
        except ImportError:  # pragma: no cover
            from hashlib import sha256

    ids = []
    try:
        registry = orjson.loads((gemini_home() / "projects.json").read_bytes())
        short = registry.get("projects", {}).get(str(project))
        if isinstance(short, str):
            ids.append(short)
    except (OSError, orjson.JSONDecodeError, AttributeError):
        pass
    ids.append(sha256(str(project).encode()).hexdigest())
    return ids


def first_cwd(path: Path) -> str | None:
    """The first ``cwd`` a transcript records (read from its first 64 KiB)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(65536)
    except OSError:
        return None
    match = CWD.search(head)
    if not match:
        return None
    try:
        value = orjson.loads(b'"' + match.group(1) + b'"')
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None


def inside(cwd: str | None, top: Path) -> bool:
    if not cwd:
        return False
    path = Path(cwd)
    return path == top or top in path.parents


def transcripts(agent: str | None, top: Path | None) -> Iterator[tuple[Path, str, bool]]:
    """``(file, agent, checked)`` for each session file of ``agent`` (every agent when None)
    belonging to the repository ``top`` (every project when None). ``checked``: whether the
    file is known to belong (else its ``cwd`` must be checked before it is read)."""
    if agent in (None, "claude"):
        yield from _claude(top)
    if agent in (None, "codex"):
        root = codex_home() / "sessions"
        if root.is_dir():
            for file in sorted(root.rglob("rollout-*.jsonl")):
                yield file, "codex", top is None
    if agent in (None, "gemini"):
        root = gemini_home() / "tmp"
        folders = [root / name for name in gemini_ids(top)] if top is not None else _subdirs(root)
        for folder in folders:
            chats = folder / "chats"
            if chats.is_dir():
                for file in sorted(chats.rglob("*.json*")):
                    if file.suffix in (".json", ".jsonl"):
                        yield file, "gemini", True


def _claude(top: Path | None) -> Iterator[tuple[Path, str, bool]]:
    root = claude_home() / "projects"
    if not root.is_dir():
        return
    if top is None:
        folders = [(d, True) for d in _subdirs(root)]
    else:
        name = claude_dir_name(top)
        # Exactly the repository's folder; folders of its subdirectories (and of other
        # paths that encode alike) have their transcripts' cwd checked.
        folders = [
            (d, d.name == name)
            for d in _subdirs(root)
            if d.name == name or d.name.startswith(name + "-")
        ]
    for folder, exact in folders:
        for file in sorted(folder.rglob("*.jsonl")):
            yield file, "claude", exact


def _subdirs(root: Path) -> list[Path]:
    try:
        return sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        return []
