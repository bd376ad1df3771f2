"""A session's digest, from its ``SessionState``: the first substantive request, the files
edited (relative to the repository), commits, test runs and their final state, what failed
and whether it was fixed, and the open items. The message and summary it writes serve
both the session record of ``lore ingest`` and the hooks' automatic handoff."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.ingest.clean import safe
from lore.ingest.session import SessionState

AGENT_NAMES = {"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}
FILES_SAID = 8
SAID = 3  # commits, test commands and failures named in the message
MAX_FILES = 20  # files kept in the digest (the count says how many in all)
SENTENCE_ENDS = (".", "!", "?", "…")


@dataclass
class Digest:
    """What a session did, masked and ready to store."""

    agent: str = ""
    first_request: str = ""
    requests: list[str] = field(default_factory=list)
    last_request_at: str | None = None
    files: list[str] = field(default_factory=list)
    files_total: int = 0
    commits: list[dict[str, str]] = field(default_factory=list)
    tests: list[dict[str, Any]] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    open: list[str] = field(default_factory=list)
    started: str | None = None
    ended: str | None = None

    @property
    def failed(self) -> list[str]:
        """The failed commands, oldest first (the automatic handoff's ``failed_commands``)."""
        return [f["command"] for f in self.failures]

    @property
    def empty(self) -> bool:
        return not (self.requests or self.files or self.failures or self.commits or self.tests)

    def clauses(self) -> list[str]:
        parts = []
        if self.first_request:
            parts.append(f"First request: {_quoted(self.first_request, 160)}")
        last = self.requests[-1] if self.requests else ""
        if last and last != self.first_request:
            parts.append(f"Last request: {_quoted(last, 160)}")
        if self.files:
            shown = ", ".join(self.files[:FILES_SAID])
            more = self.files_total - FILES_SAID
            parts.append(
                f"Edited {_count(self.files_total, 'file')}: {shown}"
                + (f" and {more} more." if more > 0 else ".")
            )
        if self.commits:
            said = "; ".join(
                f"{c['sha'][:7]} {_cut(c['subject'], 72)}" for c in self.commits[-SAID:]
            )
            last = f", the last {SAID}" if len(self.commits) > SAID else ""
            parts.append(f"{_count(len(self.commits), 'commit')}{last}: {said}.")
        if self.tests:
            said = "; ".join(
                f"`{_cut(t['command'], 60)}` {t['last']} "
                f"({_count(t['runs'], 'run')}, {t['failed']} failed)"
                for t in self.tests[-SAID:]
            )
            parts.append(f"Tests: {said}.")
        if self.failures:
            fixed = sum(1 for f in self.failures if f["fixed"])
            worst = sorted(
                self.failures,
                key=lambda f: (f["fixed"], f["error_type"] == "UserDeny", -f["count"]),
            )[:SAID]
            said = "; ".join(
                f"`{_cut(f['command'], 60)}` ({f['error_type']}{', fixed' if f['fixed'] else ''})"
                for f in worst
            )
            parts.append(f"{_count(len(self.failures), 'command')} failed ({fixed} fixed): {said}.")
        if self.open:
            said = "; ".join(_cut(o, 120).rstrip(".") for o in self.open[:SAID])
            parts.append(f"Open: {said}.")
        return parts

    def message(self, lead: str) -> str:
        return " ".join([lead, *self.clauses()])

    def summary(self, lead: str, *, last: bool = False) -> str:
        """``<lead>: "<request>" (<n> files edited, <n> commits, <n> commands failed)``
        (``last``: the last request rather than the first)."""
        counts = []
        if self.files_total:
            counts.append(f"{_count(self.files_total, 'file')} edited")
        if self.commits:
            counts.append(_count(len(self.commits), "commit"))
        if self.failures:
            counts.append(f"{_count(len(self.failures), 'command')} failed")
        said = ", ".join(counts)
        request = (self.requests[-1] if last and self.requests else "") or self.first_request
        if not request:
            return f"{lead}: {said}" if said else lead
        return f'{lead}: "{_cut(request, 80)}"' + (f" ({said})" if said else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "first_request": self.first_request,
            "files": self.files,
            "files_total": self.files_total,
            "commits": self.commits,
            "tests": self.tests,
            "failures": self.failures,
            "open": self.open,
            "started": self.started,
            "ended": self.ended,
        }


def digest_of(
    state: SessionState,
    agent: str,
    *,
    base: Path | None = None,
    cwd: str | None = None,
    ids: dict[str, str] | None = None,
) -> Digest:
    """The digest of ``state``; ``base``: the directory edited files are named relative to
    (``cwd``: what a relative name is relative to); ``ids``: the failure record of each
    failed command, when they were written."""
    files = [safe(relative(name, base, cwd), 500) for name in state.edits]
    files = list(dict.fromkeys(files))
    failures = [
        {
            "command": safe(key, 300),
            "error_type": entry["error_type"],
            "count": entry["count"],
            "fixed": bool(entry.get("resolved")),
            **({"id": ids[key]} if ids and key in ids else {}),
        }
        for key, entry in state.failures.items()
    ]
    return Digest(
        agent=agent,
        first_request=safe(state.first_request[0], 500) if state.first_request else "",
        requests=[safe(r, 500) for r in state.requests],
        last_request_at=state.last_request_at,
        files=files[-MAX_FILES:],
        files_total=len(files),
        commits=[{"sha": sha, "subject": safe(subject, 200)} for sha, subject in state.commits],
        tests=[{**run, "command": safe(run["command"], 300)} for run in state.tests.values()],
        failures=failures,
        open=[safe(item, 300) for item in state.open_items()],
        started=state.start,
        ended=state.end,
    )


def relative(name: str, base: Path | None, cwd: str | None = None) -> str:
    """``name`` (relative to ``cwd`` when not absolute) relative to ``base`` when it is
    inside it; paths elsewhere stay as they are."""
    path = Path(name)
    if not path.is_absolute():
        if not cwd:
            return path.as_posix()
        path = Path(cwd) / path
    if base is None:
        return name
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return name


def _quoted(text: str, limit: int) -> str:
    """``"text".``, or ``"text."`` when the text ends a sentence itself (one full stop)."""
    said = _cut(text, limit)
    return f'"{said}"' + ("" if said.rstrip().endswith(SENTENCE_ENDS) else ".")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
