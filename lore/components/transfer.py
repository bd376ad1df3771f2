"""transfer: what's next? Sessions and their lifecycle (start, handoff, fork, prune).

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
from lore.errors import UsageError
from lore.model import Dir, Kind, Record, kind_class, ref, register, text, texts
from lore.provenance import provenance_field

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
    session = store.find(value)
    return value if session is not None and session.status == "open" else None


def _set_pointer(store: Any, project: str | None, session_id: str | None) -> None:
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
        if store.find(env) is not None:
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
    store.add([session])
    if point and not env:
        _set_pointer(store, project, session.id)
    return session


def last_handoff(store: Any, project: str | None, index: Any = None) -> Session | None:
    """The most recently closed session of ``project``.

    Without a project: the latest of all. A project with no sessions of its own
    falls back to sessions recorded outside any project, never another project's.
    Chosen through the derived index (``index``, or the store's, refreshed), so only
    the chosen session's file is read.
    """
    from lore.index import open_index

    idx = index or open_index(store)
    facts = idx.facts  # session: (status, ended_at or timestamp, project)
    closed = idx.docs("session", flagged=True)
    if project:
        own = [d for d in closed if facts[d][2] == project]
        closed = own or [d for d in closed if not facts[d][2]]
    if not closed:
        return None
    found = idx.fetch(store, max(closed, key=lambda d: (facts[d][1], d)))
    return found if isinstance(found, Session) else None


def captured_during(
    store: Any,
    session: Session,
    since: str | None,
    index: Any = None,
    *,
    everything: bool = False,
    inclusive: bool = False,
) -> tuple[dict[str, list[str]], str | None]:
    """Ids of records made in ``session``, and the earliest one's timestamp.

    Records tagged with its id, or untagged records of the same project captured after
    ``since`` (at or after it with ``inclusive``; all of them with ``everything``). Read
    from the derived index (``index``, or the store's, refreshed), in the order the store
    lists them (file order for logs, time order for documents)."""
    from lore.index import open_index
    from lore.model import Log

    idx = index or open_index(store)
    own = idx.code("sessions", session.id)
    untagged = idx.code("sessions", None)
    after = clock.parse_timestamp(since).timestamp() if since else None
    if after is None and everything:
        after = float("-inf")
    project = idx.project_code(session.project) if session.project is not None else None
    sess, ts, proj, off = idx.sess, idx.ts, idx.proj, idx.off
    out: dict[str, list[str]] = {}
    earliest: int | None = None
    for kind in CAPTURED_KINDS:
        docs = [
            d
            for d in idx.docs(kind, hidden=True)
            if sess[d] == own
            or (
                sess[d] == untagged
                and after is not None
                and (ts[d] > after or (inclusive and ts[d] == after))
                and (project is None or proj[d] == project)
            )
        ]
        if docs:
            first = min(docs, key=ts.__getitem__)
            earliest = first if earliest is None or ts[first] < ts[earliest] else earliest
        if isinstance(kind_class(kind).KIND.storage, Log):
            docs.sort(key=off.__getitem__)
            ids = [idx.id_of(d) for d in docs]
        else:
            ids = [rid for _, rid in sorted((ts[d], idx.id_of(d)) for d in docs)]
        if ids:
            out[kind] = ids
    found = idx.fetch(store, earliest).timestamp if earliest is not None else None
    return out, found


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


def handoff(
    store: Any,
    message: str,
    *,
    project: str | None,
    next_steps: list[str] | None = None,
    blockers: list[str] | None = None,
    questions: list[str] | None = None,
    threads: list[str] | None = None,
    git: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    source: str = "manual",
    summary: str | None = None,
    carry: bool = False,
    replace: bool = False,
    report: dict[str, Any] | None = None,
    allow_secret: bool = False,
) -> Session:
    """Close the open session (creating one if none is open) with a handoff note.

    Open items (next steps, blockers, questions, threads): a forked session keeps the
    ones it inherited and adds the handoff's (``replace`` drops the inherited ones);
    ``carry`` (an automatic handoff) keeps the previous handoff's and adds its own;
    otherwise the handoff's lists are the open items, settling the previous ones.
    ``report``, when given, is filled with what happened to them: ``{"how": "merged",
    "replaced", "carried", "settled" or "new", "from": session id or None, "inherited":
    n, "added": n}``. ``extra`` adds fields of its own (an automatic handoff records
    what it saw); ``summary`` replaces the message's first sentence as the summary.
    Every text passes the secrets gate before anything is written (``allow_secret``
    skips it: ``--allow-secret``).
    """
    text, given = handoff_texts(
        message,
        {
            "next_steps": next_steps,
            "blockers": blockers,
            "questions": questions,
            "threads": threads,
        },
    )
    from lore.secrets import gate

    written = {"message": text, **given, **(extra or {})}
    if summary:
        written["summary"] = summary
    gate(written, allow_secret=allow_secret)
    session_id = current_session_id(store, project)
    session = store.find(session_id) if session_id else None
    from lore.index import open_index

    index = open_index(store)  # once: the last handoff and the captured ids both need it
    now = clock.now()
    previous = last_handoff(store, project, index)
    if session is None:
        since = previous.ended_at if previous is not None else None
        # Closed at once below: no pointer to write (nor to fail on a read-only cache).
        session = start(store, project=project, session_id=session_id, point=False)
        captured, earliest = captured_during(store, session, since, index, everything=True)
        # The window opens at the first record captured since the previous handoff.
        started = earliest or now
    else:
        started = session.started_at or session.timestamp
        captured, _ = captured_during(store, session, started, index, inclusive=True)
    lists, info = _settle(session, previous, given, carry=carry, replace=replace)
    changes: dict[str, Any] = {
        "status": "closed",
        "started_at": started,
        "ended_at": now,
        "message": text,
        "summary": summary or summarize(text),
        **lists,
        "git": git,
        "captured": captured,
        "source": source,
        **(extra or {}),
    }
    if carry and info["from"] and isinstance(changes.get("auto"), dict):
        changes["auto"] = {**changes["auto"], "carried_from": info["from"]}
    closed = store.revise(session.id, changes)
    if not env_session_id():
        _set_pointer(store, project, None)
    if report is not None:
        report.update(info)
    return closed


def _settle(
    session: Session,
    previous: Session | None,
    given: dict[str, list[str]],
    *,
    carry: bool,
    replace: bool,
) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """The open items a handoff stores, and what happened to the earlier ones."""
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
        how = "carried" if carry else "settled"
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
