"""Agent integration: Claude Code hook settings and transcript-based automatic handoffs.

``install``/``uninstall`` edit a Claude Code settings JSON (backup first, only our
entries touched). ``digest_transcript`` reads a Claude Code transcript (JSONL) and
extracts, without any model, the last user requests, the files touched and the
commands that failed, for the automatic handoff written by PreCompact/SessionEnd.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from lore import clock
from lore.errors import InvalidInputError
from lore.storage.atomic import atomic_write

EVENTS = {
    "SessionStart": "session-start",
    "PreCompact": "pre-compact",
    "SessionEnd": "session-end",
}
MARKER = "hooks run"  # every command we install contains "<lore> hooks run <event>"
EDIT_TOOLS = {"Edit", "Write", "MultiEdit", "NotebookEdit"}
MAX_REQUESTS = 3
MAX_REQUEST_CHARS = 300  # a request kept in an automatic handoff, on one line
MAX_COMMAND_CHARS = 200  # a failed command, likewise
MAX_FILES = 20
MAX_FAILED = 5
MAX_FILES_SAID = 8  # files named in the message (``auto.files`` keeps the last MAX_FILES)
MAX_SUMMARY_REQUEST = 80
GIT_SECONDS = 0.25  # each git call of an automatic handoff: the hook has 0.9 s in all


def hook_command(lore_bin: str, event: str) -> str:
    return f"{shlex.quote(lore_bin)} {MARKER} {event}"


def load_settings(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    raw = path.read_bytes()
    if not raw.strip():
        return {}
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InvalidInputError(
            f"{path}: not valid JSON ({exc}); fix it first", file=str(path)
        ) from None
    if not isinstance(data, dict):
        raise InvalidInputError(f"{path}: expected a JSON object at the top level", file=str(path))
    return data


def _ours(entry: Any, commands: set[str]) -> bool:
    return (
        isinstance(entry, dict)
        and entry.get("type") == "command"
        and entry.get("command") in commands
    )


def install(settings: Path, lore_bin: str) -> dict[str, Any]:
    """Add lore's three hooks; idempotent; backs the file up before changing it."""
    data = load_settings(settings)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InvalidInputError(f"{settings}: 'hooks' is not an object", file=str(settings))
    added = []
    for event, name in EVENTS.items():
        command = hook_command(lore_bin, name)
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InvalidInputError(f"{settings}: hooks.{event} is not a list", file=str(settings))
        present = any(
            _ours(h, {command})
            for g in groups
            if isinstance(g, dict)
            for h in (g.get("hooks") or [])
        )
        if present:
            continue
        groups.append({"hooks": [{"type": "command", "command": command, "timeout": 10}]})
        added.append(event)
    backup = write_settings(settings, data) if added else None
    return {"settings": str(settings), "added": added, "backup": backup}


def uninstall(settings: Path, lore_bin: str | None = None) -> dict[str, Any]:
    """Remove exactly the hook entries lore added (any lore path), nothing else."""
    data = load_settings(settings)
    hooks = data.get("hooks")
    removed = []
    if isinstance(hooks, dict):
        for event, name in EVENTS.items():
            groups = hooks.get(event)
            if not isinstance(groups, list):
                continue
            kept_groups = []
            touched = False
            for group in groups:
                entries = group.get("hooks") if isinstance(group, dict) else None
                if not isinstance(entries, list):
                    kept_groups.append(group)
                    continue
                kept = [
                    h
                    for h in entries
                    if not (
                        isinstance(h, dict)
                        and isinstance(h.get("command"), str)
                        and h["command"].endswith(f" {MARKER} {name}")
                    )
                ]
                if len(kept) == len(entries):
                    kept_groups.append(group)  # not ours, even when empty: left as it is
                    continue
                touched = True
                if kept:
                    kept_groups.append({**group, "hooks": kept})
            if not touched:
                continue
            removed.append(event)
            # Only a structure we emptied goes away with our entries.
            if kept_groups:
                hooks[event] = kept_groups
            else:
                hooks.pop(event, None)
        if removed and not hooks:
            data.pop("hooks", None)
    backup = write_settings(settings, data) if removed else None
    return {"settings": str(settings), "removed": removed, "backup": backup}


def write_settings(path: Path, data: dict[str, Any]) -> str | None:
    """Back ``path`` up in a new file (never over an older backup), then replace it.

    A symlinked settings file (kept in a dotfiles repo) is written through, not
    replaced by a copy; the backup and the new file keep the original's permissions
    (settings may hold tokens under ``env``).
    """
    import os
    import stat

    target = path.resolve() if path.is_symlink() else path
    backup = None
    mode = None
    if target.exists():
        original = target.read_bytes()
        mode = stat.S_IMODE(target.stat().st_mode)
        stamp = clock.now().replace(":", "").replace("-", "")[:15]
        for n in range(1000):
            backup_path = path.with_name(f"{path.name}.lore-backup-{stamp}{f'-{n}' if n else ''}")
            try:
                fd = os.open(backup_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            except FileExistsError:
                continue  # an install and an uninstall within one second
            with os.fdopen(fd, "wb") as handle:
                handle.write(original)
            os.chmod(backup_path, mode)
            backup = str(backup_path)
            break
    atomic_write(target, orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    if mode is not None:
        os.chmod(target, mode)
    return backup


# --- transcripts ----------------------------------------------------------------------


SENTENCE_ENDS = (".", "!", "?", "…")


@dataclass
class Digest:
    requests: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    last_request_at: str | None = None  # the transcript's time of the last user request
    files_cut: int = 0  # files and failed commands seen but left off the capped lists
    failed_cut: int = 0

    @property
    def files_total(self) -> int:
        return len(self.files) + self.files_cut

    @property
    def failed_total(self) -> int:
        return len(self.failed) + self.failed_cut

    @property
    def empty(self) -> bool:
        return not (self.requests or self.files or self.failed)

    def message(self, event: str) -> str:
        """One sentence per clause: the event, the last request, the files, the failures."""
        parts = [f"Automatic handoff ({event})."]
        if self.requests:
            # A request that ends a sentence itself needs no full stop after its quote:
            # 'Last request: "Fix the order." Touched ...', not '"Fix the order.". Touched'.
            request = self.requests[-1]
            stop = "" if request.rstrip().endswith(SENTENCE_ENDS) else "."
            parts.append(f'Last request: "{request}"{stop}')
        if self.files:
            shown = ", ".join(self.files[:MAX_FILES_SAID])
            more = self.files_total - MAX_FILES_SAID
            parts.append(
                f"Touched {_count(self.files_total, 'file')}: {shown}"
                + (f" and {more} more." if more > 0 else ".")
            )
        if self.failed:
            parts.append(
                f"{_count(self.failed_total, 'command')} failed, last: `{self.failed[-1]}`."
            )
        return " ".join(parts)

    def summary(self, event: str) -> str:
        """What tells this automatic handoff from the others: its last request and counts."""
        counts = []
        if self.files:
            counts.append(f"{_count(self.files_total, 'file')} touched")
        if self.failed:
            counts.append(f"{_count(self.failed_total, 'command')} failed")
        said = ", ".join(counts)
        if not self.requests:
            return f"{event}: {said}"
        request = self.requests[-1]
        if len(request) > MAX_SUMMARY_REQUEST:
            request = request[: MAX_SUMMARY_REQUEST - 1].rstrip() + "…"
        return f'{event}: "{request}"' + (f" ({said})" if said else "")

    def relative_to(self, top: Path) -> None:
        """Files inside the repository ``top`` as paths relative to it (others stay)."""
        out = []
        for name in self.files:
            path = Path(name)
            if path.is_relative_to(top):
                name = path.relative_to(top).as_posix()
            if name not in out:
                out.append(name)
        self.files = out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            c.get("text", "") for c in content if isinstance(c, dict) and c.get("type") == "text"
        )
    return ""


def _typed(entry: dict[str, Any], text: str) -> bool:
    """Whether a user entry's text is something the user asked: not a command or system
    wrapper (``<...>``), an interruption marker, a meta note, a compaction's summary or
    a subagent's prompt (entries Claude Code writes in the user's role)."""
    if not text or text.startswith(("<", "[Request interrupted")):
        return False
    return not any(entry.get(flag) for flag in ("isMeta", "isCompactSummary", "isSidechain"))


def digest_transcript(path: Path, *, max_bytes: int = 8 * 1024 * 1024) -> Digest:
    """What happened in a Claude Code transcript, read from its last ``max_bytes``."""
    digest = Digest()
    try:
        with open(path, "rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - max_bytes))
            raw = handle.read()
    except OSError:
        return digest
    commands: dict[str, str] = {}
    for line in raw.splitlines():
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue  # the first line may be cut by the seek
        if not isinstance(entry, dict):
            continue
        message = entry.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if entry.get("type") == "user":
            if isinstance(content, list):
                for block in content:
                    if not isinstance(block, dict) or block.get("type") != "tool_result":
                        continue
                    if block.get("is_error") and block.get("tool_use_id") in commands:
                        digest.failed.append(commands[block["tool_use_id"]])
            text = _text_of(content).strip()
            if _typed(entry, text):
                digest.requests.append(text)  # masked, then cut, by scrub()
                when = entry.get("timestamp")
                digest.last_request_at = when if isinstance(when, str) else None
        elif entry.get("type") == "assistant" and isinstance(content, list):
            for block in content:
                if not isinstance(block, dict) or block.get("type") != "tool_use":
                    continue
                given = block.get("input")
                tool_input = given if isinstance(given, dict) else {}
                if block.get("name") in EDIT_TOOLS:
                    file = tool_input.get("file_path") or tool_input.get("notebook_path")
                    if isinstance(file, str) and file not in digest.files:
                        digest.files.append(file)
                elif block.get("name") == "Bash" and isinstance(tool_input.get("command"), str):
                    commands[str(block.get("id"))] = tool_input["command"]
    digest.files_cut = max(0, len(digest.files) - MAX_FILES)
    digest.failed_cut = max(0, len(digest.failed) - MAX_FAILED)
    digest.requests = digest.requests[-MAX_REQUESTS:]
    digest.files = digest.files[-MAX_FILES:]
    digest.failed = digest.failed[-MAX_FAILED:]
    return scrub(digest)


def scrub(digest: Digest) -> Digest:
    """The digest with every credential replaced by ``[REDACTED:<rule>]``, then each
    request and command on one line and cut to its length (MAX_REQUEST_CHARS,
    MAX_COMMAND_CHARS).

    An automatic handoff has nobody to ask for ``--allow-secret``: what the secrets gate
    would refuse in a transcript (a token pasted into a prompt or a command) is masked,
    so the handoff is still written and passes the gate. Masking comes first: a cut or a
    collapsed line break would leave part of a key that no rule recognises any more
    (the body lines of a pasted private key without its header).
    """
    from lore.secrets.gate import redact

    digest.requests = [_clip(redact(t), MAX_REQUEST_CHARS) for t in digest.requests]
    digest.files = [redact(t) for t in digest.files]
    digest.failed = [_clip(redact(t), MAX_COMMAND_CHARS) for t in digest.failed]
    return digest


def _clip(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters, never ending inside a
    redaction marker (a cut marker would read as text that lost its secret)."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[:limit]
    opened = cut.rfind("[REDACTED:")
    if opened >= 0 and "]" not in cut[opened:]:
        cut = cut[:opened].rstrip()
    return cut


def agent_handed_off(previous: Any, digest: Digest) -> bool:
    """Whether the agent wrote its own handoff after the user's last request.

    Then an automatic handoff (PreCompact, SessionEnd) must not become the "last
    handoff" and bury the agent's note under a transcript digest.
    """
    if previous is None or "auto" in previous.extra or not digest.last_request_at:
        return False
    try:
        asked = clock.normalize_timestamp(digest.last_request_at)
    except (ValueError, TypeError):
        return False
    return (previous.ended_at or "") >= asked


def auto_handoff(
    store: Any, event: str, payload: dict[str, Any], *, project: str | None
) -> tuple[Any, str]:
    """Write the automatic handoff a PreCompact or SessionEnd payload calls for.

    Returns the closed session, or None and why nothing was written: no transcript, a
    transcript that shows nothing, or the agent's own handoff came after the last
    request. The handoff carries the last handoff's open items over (see
    ``transfer.handoff``), so it never buries a manual one's next steps and blockers.
    """
    from lore.git.info import find_repo, snapshot
    from lore.sessions.handoff import handoff, last_handoff

    transcript = payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript.strip():
        return None, "the payload names no transcript_path"
    path = Path(transcript)
    if not path.is_file():
        return None, f"no transcript at {transcript}"
    digest = digest_transcript(path)
    if digest.empty:
        return None, f"the transcript {transcript} shows no request, edit or failed command"
    if agent_handed_off(last_handoff(store, project), digest):
        return None, "the agent handed off after the last request: its handoff stays the last"
    repo = find_repo()
    if repo is not None:
        digest.relative_to(repo.top)
    session = handoff(
        store,
        digest.message(event),
        project=project,
        threads=digest.requests,
        git=snapshot(timeout=GIT_SECONDS),
        source="hook",
        summary=digest.summary(event),
        carry=True,
        extra={
            "auto": {
                "event": event,
                "requests": digest.requests,
                "files": digest.files,
                "failed_commands": digest.failed,
            }
        },
    )
    return session, f"wrote {session.id}"
