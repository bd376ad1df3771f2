"""Handoffs: close the open session with a note, what it captured and what it leaves open
for the next one; the last handoff of a project. Chosen and counted through the derived
index; the Session record and its pure rules live in ``lore.components.transfer``.
"""

from __future__ import annotations

from typing import Any

from lore import clock
from lore.components.transfer import (
    CAPTURED_KINDS,
    Session,
    current_session_id,
    env_session_id,
    handoff_texts,
    set_pointer,
    settle,
    start,
    summarize,
)
from lore.model import kind_class


def last_handoff(store: Any, project: str | None, index: Any = None) -> Session | None:
    """The most recently closed session of ``project``.

    Without a project: the latest of all. A project with no sessions of its own
    falls back to sessions recorded outside any project, never another project's.
    Chosen through the derived index (``index``, or the store's, refreshed), so only
    the chosen session's file is read.
    """
    from lore.index.persist import open_index

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
    from lore.index.persist import open_index
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
    merge: bool = False,
    report: dict[str, Any] | None = None,
    allow_secret: bool = False,
) -> Session:
    """Close the open session (creating one if none is open) with a handoff note.

    Open items (next steps, blockers, questions, threads): a forked session keeps the
    ones it inherited and adds the handoff's (``replace`` drops the inherited ones);
    ``merge`` does the same with the previous handoff's in a session not forked;
    ``carry`` (an automatic handoff) keeps the previous handoff's and adds its own;
    otherwise the handoff's lists are the open items, settling the previous ones.
    ``report``, when given, is filled with what happened to them: ``{"how": "merged",
    "replaced", "carried", "settled" or "new", "from": session id or None, "inherited":
    n, "added": n}``. ``extra`` adds fields of its own (an automatic handoff records
    what it saw); ``summary`` replaces the message's first sentence as the summary.
    Every text passes the secrets gate before anything is written (``allow_secret``
    skips it: ``--allow-secret``), the project's name too; the ``git`` snapshot is
    masked instead (``[REDACTED:<rule>]``).
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
    from lore.secrets.gate import gate, redact_value

    written = {"message": text, **given, **(extra or {})}
    if summary:
        written["summary"] = summary
    if project is not None:
        written["project"] = project
    gate(written, allow_secret=allow_secret)
    # The repository's state (commit subjects, branch and file names) is not text the
    # handoff was given: a credential in it is masked, not refused.
    git = redact_value(git) if git else git
    session_id = current_session_id(store, project)
    session = store.peek(session_id) if session_id else None
    from lore.index.persist import open_index

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
    lists, info = settle(session, previous, given, carry=carry, replace=replace, merge=merge)
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
        set_pointer(store, project, None)
    if report is not None:
        report.update(info)
    return closed
