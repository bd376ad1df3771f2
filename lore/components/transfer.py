"""transfer: what's next? The session record and its pure rules: start, fork, the open
items a handoff settles, prune (the handoff itself: ``lore.sessions.handoff``).

One JSON file per session under ``transfer/data/sessions/``. Which session is open
on this machine is machine-local state (``paths.local_dir``, outside the root);
``LORE_SESSION_ID`` overrides it so parallel agents stay apart.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore import clock
from lore.components.provenance import provenance_field
from lore.errors import UsageError
from lore.model import Dir, Kind, Record, ref, register, text, texts

STATUSES = ("open", "closed", "archived")


@register
@dataclass(kw_only=True, eq=False, repr=False)  # Record defines both, once
class Session(Record):
    KIND = Kind(
        "session",
        "session",
        "transfer",
        Dir("sessions", ".json"),
        title="summary",
        search=("message", "next_steps", "blockers", "questions", "threads", "tags"),
    )

    status: str = text("open", choices=STATUSES)
    started_at: str | None = None
    ended_at: str | None = None
    message: str = ""
    summary: str = ""
    next_steps: list[str] = texts()
    blockers: list[str] = texts()
    questions: list[str] = texts()
    threads: list[str] = texts()
    git: dict[str, Any] | None = None
    # Ids captured during the session, by kind: {"decision": [...], ...}.
    captured: dict[str, Any] = field(default_factory=dict)
    parent: str | None = ref("session")
    provenance: dict[str, Any] | None = provenance_field()

    @property
    def hidden(self) -> bool:
        return self.status == "archived"

    def references(self) -> list[tuple[str, str, str]]:
        """``parent`` and every id in ``captured`` (the graph's ``produces`` edges)."""
        ids = self.captured.values() if isinstance(self.captured, dict) else []
        captured = [i for v in ids if isinstance(v, list) for i in v if isinstance(i, str) and i]
        return [*super().references(), *(("captured", i, "any") for i in captured)]


SESSION_ID_RE = re.compile(r"^session-[0-9a-z][0-9a-z-]{3,63}$")
CAPTURED_KINDS = ("decision", "pattern", "failure", "observation")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def summarize(message: str) -> str:
    """The first sentence of ``message`` (at most 200 characters)."""
    first = _SENTENCE_END.split(message.strip(), maxsplit=1)[0].strip()
    first = first.splitlines()[0].strip() if first else ""
    return first if len(first) <= 200 else first[:199].rstrip() + "…"


def _pointer(store: Any, project: str | None) -> Path:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", project or "") or "_"
    return Path(store.root.local) / "state" / f"open-session.{slug}"


def env_session_id() -> str | None:
    value = os.environ.get("LORE_SESSION_ID", "").strip()
    if not value:
        return None
    if not SESSION_ID_RE.match(value):
        raise UsageError(
            f"LORE_SESSION_ID={value!r} is not a session id "
            "(expected 'session-' then lowercase letters, digits or '-')"
        )
    return value


def current_session_id(store: Any, project: str | None) -> str | None:
    """The open session new records belong to: LORE_SESSION_ID, else this machine's pointer."""
    env = env_session_id()
    if env:
        return env
    try:
        value = _pointer(store, project).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not SESSION_ID_RE.match(value):
        return None
    session = store.peek(value)
    return value if session is not None and session.status == "open" else None


def set_pointer(store: Any, project: str | None, session_id: str | None) -> None:
    from lore.storage.atomic import atomic_write

    path = _pointer(store, project)
    if session_id is None:
        # No pointer, or no local directory at all (a read-only or odd cache): nothing
        # points at a session, which is what clearing wants.
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            path.unlink()
        return
    atomic_write(path, (session_id + "\n").encode())


def start(
    store: Any,
    *,
    project: str | None,
    parent: Session | None = None,
    session_id: str | None = None,
    point: bool = True,
) -> Session:
    """Open a new session (a fork inherits the parent's open threads and next steps).

    With ``LORE_SESSION_ID`` set, the new session takes that id: it is the one this
    agent's captures and handoff go to, so a fork under any other id would be orphaned.
    ``point=False`` leaves this machine's open-session pointer alone (a handoff that
    opens a session only to close it at once).
    """
    env = env_session_id()
    if session_id is None and env:
        if store.peek(env) is not None:
            raise UsageError(
                f"LORE_SESSION_ID={env} already names a session; "
                "set a new LORE_SESSION_ID (or unset it) to start another"
            )
        session_id = env
    now = clock.now()
    session = Session(
        id=session_id or clock.new_id("session"),
        timestamp=now,
        started_at=now,
        project=project,
        tags=[project] if project else [],
        status="open",
    )
    if parent is not None:
        session.parent = parent.id
        session.next_steps = list(parent.next_steps)
        session.blockers = list(parent.blockers)
        session.questions = list(parent.questions)
        session.threads = list(parent.threads)
    if not (point and not env):
        store.add([session])
        return session
    # The pointer first: when it cannot be written (a read-only cache), no session is
    # made, rather than an open one nothing points at on every try.
    path = _pointer(store, project)
    try:
        before: str | None = path.read_text(encoding="utf-8").strip() or None
    except OSError:
        before = None
    set_pointer(store, project, session.id)
    try:
        store.add([session])
    except BaseException:
        with contextlib.suppress(OSError):
            set_pointer(store, project, before)
        raise
    return session


OPEN_ITEMS = ("next_steps", "blockers", "questions", "threads")


def handoff_texts(
    message: str, lists: dict[str, list[str] | None]
) -> tuple[str, dict[str, list[str]]]:
    """Every text a handoff stores, cleaned in one place: the message stripped (refused
    when blank), list items stripped, blanks dropped, repeats dropped."""
    if not message or not message.strip():
        raise UsageError("a handoff needs a message")
    return message.strip(), {key: _merge([], lists.get(key) or []) for key in OPEN_ITEMS}


def _merge(first: list[str], then: list[str]) -> list[str]:
    """``first`` then the items of ``then`` not already there (stripped, blanks dropped)."""
    out: list[str] = []
    for item in (*first, *then):
        text = item.strip() if isinstance(item, str) else ""
        if text and text not in out:
            out.append(text)
    return out


def open_items(session: Session) -> dict[str, list[str]]:
    """What ``session`` leaves open: its four lists, less an automatic handoff's own
    requests (those are what the transcript showed, not items anyone left open)."""
    auto = session.extra.get("auto")
    requests = auto.get("requests") if isinstance(auto, dict) else None
    own = set(requests) if isinstance(requests, list) else set()
    items = {key: list(getattr(session, key) or []) for key in OPEN_ITEMS}
    items["threads"] = [t for t in items["threads"] if t not in own]
    return items


def _carried_from(session: Session) -> str | None:
    auto = session.extra.get("auto")
    found = auto.get("carried_from") if isinstance(auto, dict) else None
    return found if isinstance(found, str) else None


def settle(
    session: Session,
    previous: Session | None,
    given: dict[str, list[str]],
    *,
    carry: bool,
    replace: bool,
    merge: bool = False,
) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """The open items a handoff stores, and what happened to the earlier ones (``merge``:
    a handoff that keeps the previous handoff's open items and adds its own, as a
    forked session does with the ones it inherited)."""
    added = sum(map(len, given.values()))
    origin: str | None
    if session.parent:
        inherited = {key: list(getattr(session, key) or []) for key in OPEN_ITEMS}
        origin, how = session.parent, "replaced" if replace else "merged"
    elif previous is not None and (carry or previous.id != session.id):
        inherited = open_items(previous)
        origin = previous.id
        if previous.id == session.id:  # an automatic handoff closing its session again
            origin = _carried_from(previous)
        how = "carried" if carry else "merged" if merge else "settled"
    else:  # the first handoff, or a session handed off again by hand: its lists restate
        inherited, origin, how = {key: [] for key in OPEN_ITEMS}, None, "new"
    count = sum(map(len, inherited.values()))
    info: dict[str, Any] = {"how": how, "from": origin, "inherited": count, "added": added}
    if count == 0:
        info["how"], info["from"] = "new", None
    if how in ("merged", "carried"):
        return {key: _merge(inherited[key], given[key]) for key in OPEN_ITEMS}, info
    return given, info


def prune(store: Any, *, days: int = 30, dry_run: bool = False) -> list[Session]:
    """Archive (never delete) sessions older than ``days`` that hold nothing."""
    from datetime import timedelta

    # clock.now(), not datetime.now(): LORE_NOW must freeze this too.
    cutoff_dt = clock.parse_timestamp(clock.now()) - timedelta(days=days)
    cutoff = cutoff_dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    empty = [
        s
        for s in store.records("session")
        if (s.ended_at or s.timestamp or "") < cutoff
        and s.status != "open"
        and not (s.message or s.next_steps or s.blockers or s.questions or s.threads)
        and not any(s.captured.values() if isinstance(s.captured, dict) else ())
    ]
    if not dry_run:
        for session in empty:
            store.revise(session.id, {"status": "archived"})
    return empty
