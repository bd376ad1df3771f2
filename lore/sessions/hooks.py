"""Agent integration: Claude Code hook settings and transcript-based automatic handoffs.

``install``/``uninstall`` edit a Claude Code settings JSON (backup first, only our
entries touched). ``digest_transcript`` reads a transcript's tail and sums it up, without
any model, with ``lore.ingest``'s digest (requests, files edited, commits, tests, failures
and whether they were fixed, open items) for the automatic handoff of PreCompact/SessionEnd.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import orjson

from lore import clock
from lore.errors import InvalidInputError
from lore.ingest.digest import Digest
from lore.storage.atomic import atomic_write

MARKER = "hooks run"  # every command we install contains "<lore> ... hooks run <event>"
MAX_FAILED = 5  # failed commands ``auto.failed_commands`` keeps
MAX_REQUEST_CHARS = 300  # a request in ``auto.requests`` (masked first, then cut)
MAX_COMMAND_CHARS = 200  # a command in ``auto.failed_commands``
GIT_SECONDS = 0.25  # each git call of an automatic handoff, of the hook's 0.9 s (in proportion)
HOOK_TIMEOUT = 10  # seconds Claude Code gives each hook (lore answers within about one)


def hook_command(lore_bin: str, event: str, data_dir: str | None = None) -> str:
    """``<lore> [--data-dir DIR] hooks run <event>``, quoted for a shell."""
    root = f" --data-dir {shlex.quote(data_dir)}" if data_dir else ""
    return f"{shlex.quote(lore_bin)}{root} {MARKER} {event}"


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


def is_ours(entry: Any, name: str) -> bool:
    """Whether a hook entry is one ``install`` wrote for lore's event ``name`` (any lore
    path, any data root)."""
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("command"), str)
        and entry["command"].endswith(f" {MARKER} {name}")
    )


def _groups(settings: Path, hooks: dict[str, Any], event: str) -> list[Any]:
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise InvalidInputError(f"{settings}: hooks.{event} is not a list", file=str(settings))
    return groups


def install(
    settings: Path, lore_bin: str, data_dir: str | None = None, agent: str = "claude"
) -> dict[str, Any]:
    """Add lore's hooks for ``agent`` (``lore.sessions.hook_events.AGENTS``) to its
    settings file; idempotent; an entry of lore's that runs another lore or another data
    root is replaced. Backs the file up before changing it."""
    from lore.sessions.hook_events import AGENTS

    spec = AGENTS[agent]
    data = load_settings(settings)
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InvalidInputError(f"{settings}: 'hooks' is not an object", file=str(settings))
    added: list[str] = []
    updated: list[str] = []
    for theirs, name, matcher in spec.events:
        command = hook_command(lore_bin, name, data_dir)
        groups = _groups(settings, hooks, theirs)
        found = [
            (group, entry)
            for group in groups
            if isinstance(group, dict) and isinstance(group.get("hooks"), list)
            for entry in group["hooks"]
            if is_ours(entry, name)
        ]
        entry: dict[str, Any] = {"name": f"lore-{name}"} if spec.named else {}
        entry.update(type="command", command=command, timeout=spec.timeout)
        if len(found) == 1:
            group, current = found[0]
            if current == entry and group.get("matcher") == matcher:
                continue
        for group, current in found:
            group["hooks"].remove(current)
        # Only a group that held nothing but lore's entries goes away with them.
        groups[:] = [g for g in groups if not any(g is f[0] for f in found) or g["hooks"]]
        ours: dict[str, Any] = {"matcher": matcher} if matcher else {}
        ours["hooks"] = [entry]
        groups.append(ours)
        (updated if found else added).append(theirs)
    changed = added or updated
    backup = write_settings(settings, data) if changed else None
    return {"settings": str(settings), "added": added, "updated": updated, "backup": backup}


def uninstall(settings: Path, agent: str = "claude") -> dict[str, Any]:
    """Remove exactly the hook entries lore added for ``agent`` (any lore path), nothing
    else."""
    from lore.sessions.hook_events import AGENTS

    data = load_settings(settings)
    hooks = data.get("hooks")
    removed = []
    if isinstance(hooks, dict):
        for theirs, name, _ in AGENTS[agent].events:
            groups = hooks.get(theirs)
            if not isinstance(groups, list):
                continue
            kept_groups = []
            touched = False
            for group in groups:
                entries = group.get("hooks") if isinstance(group, dict) else None
                if not isinstance(entries, list):
                    kept_groups.append(group)
                    continue
                kept = [h for h in entries if not is_ours(h, name)]
                if len(kept) == len(entries):
                    kept_groups.append(group)  # not ours, even when empty: left as it is
                    continue
                touched = True
                if kept:
                    kept_groups.append({**group, "hooks": kept})
            if not touched:
                continue
            removed.append(theirs)
            # Only a structure we emptied goes away with our entries.
            if kept_groups:
                hooks[theirs] = kept_groups
            else:
                hooks.pop(theirs, None)
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
# The digest is lore.ingest's (one summariser for the session records `lore ingest`
# writes and for these handoffs); this reads a transcript's tail for it.


def digest_transcript(
    path: Path, *, max_bytes: int = 8 * 1024 * 1024, base: Path | None = None
) -> Digest:
    """What happened in a transcript (Claude Code, Codex or Gemini CLI), read from its last
    ``max_bytes``; edited files relative to ``base``. Masked: an automatic handoff has
    nobody to ask for ``--allow-secret``, so what the secrets gate would refuse in a
    transcript is replaced by ``[REDACTED:<rule>]`` first, and the handoff still passes."""
    from lore.ingest import transcript
    from lore.ingest.digest import digest_of
    from lore.ingest.session import SessionState

    try:
        found = transcript.sniff(path)
        if found is None:
            return Digest()
        agent, whole = found
        reader = transcript.READERS[agent]()
        start = 0 if whole else max(0, path.stat().st_size - max_bytes)
        read = transcript.read(path, reader, offset=start, whole=whole)
    except (OSError, InvalidInputError):
        return Digest()
    state = SessionState()
    for event in read.events:
        state.add(event)
    return digest_of(state, agent, base=base, cwd=reader.session().cwd)


def agent_handed_off(previous: Any, digest: Digest) -> bool:
    """Whether the agent wrote its own handoff after the user's last request.

    Then an automatic handoff (PreCompact, SessionEnd) must not become the "last
    handoff" and bury the agent's note under a transcript digest.
    """
    if previous is None or "auto" in previous.extra or not digest.last_request_at:
        return False
    if previous.source == "ingest":  # the transcript's own digest, not the agent's handoff
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
    from lore.ingest.clean import cut
    from lore.sessions.handoff import handoff, last_handoff
    from lore.sessions.hook_events import HOOK_SECONDS, hook_seconds

    transcript = payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript.strip():
        return None, "the payload names no transcript_path"
    path = Path(transcript)
    if not path.is_file():
        return None, f"no transcript at {transcript}"
    repo = find_repo()
    digest = digest_transcript(path, base=repo.top if repo is not None else None)
    if digest.empty:
        return None, f"the transcript {transcript} shows no request, edit or failed command"
    if agent_handed_off(last_handoff(store, project), digest):
        return None, "the agent handed off after the last request: its handoff stays the last"
    session = handoff(
        store,
        digest.message(f"Automatic handoff ({event})."),
        project=project,
        threads=digest.open,
        git=snapshot(timeout=GIT_SECONDS * hook_seconds() / HOOK_SECONDS),
        source="hook",
        summary=digest.summary(event, last=True),
        carry=True,
        extra={
            "auto": {
                "event": event,
                "requests": [cut(r, MAX_REQUEST_CHARS, "") for r in digest.requests],
                "files": digest.files,
                "failed_commands": [cut(c, MAX_COMMAND_CHARS, "") for c in digest.failed][
                    -MAX_FAILED:
                ],
                "threads": digest.open,  # its own open items (resume lists them apart)
            },
            "digest": digest.to_dict(),
        },
    )
    return session, f"wrote {session.id}"
