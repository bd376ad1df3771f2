"""The UserPromptSubmit hook's use case: the memories relevant to a prompt
(``lore.recall.prompt``) as a short context with their ids, each record once per agent
session (``lore.sessions.hook_state``), nothing while injection is paused. The prompt is
read, never stored: only the ids injected are kept, machine-local."""

from __future__ import annotations

import re
from typing import Any

from lore.sessions import hook_state
from lore.store.core import Store

HEADER = "lore: memories that may matter for this prompt (`lore show ID` reads one):"
MAX_LINE = 240  # characters of one record's line
_PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.DOTALL | re.IGNORECASE)


def prompt_context(
    store: Store,
    payload: dict[str, Any],
    *,
    project: str | None,
    lore_session: str | None,
) -> tuple[str | None, str]:
    """The context to inject for the payload's prompt, or None; and why (for LORE_DEBUG)."""
    from lore.recall.prompt import relevant

    session = payload.get("session_id")
    if not isinstance(session, str) or not session.strip():
        return None, "the payload names no session_id (nothing would stop a repeat)"
    prompt = payload.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        return None, "the payload holds no prompt"
    local = store.root.local
    state = hook_state.load(local, session)
    if hook_state.is_paused(state):
        return None, "injection is paused for this session"
    done = set(state.get("injected") or [])
    found = relevant(
        store,
        _PRIVATE.sub(" ", prompt),
        project=project,
        exclude=done,
        session=lore_session,
    )
    if not found:
        return None, "nothing relevant enough"
    with hook_state.updating(local, session) as fresh:
        already = list(fresh.get("injected") or [])
        found = [f for f in found if f.id not in already]  # another hook was quicker
        fresh["injected"] = [*already, *(f.id for f in found)]
    if not found:
        return None, "nothing relevant enough"
    from lore.index.history import note_used

    note_used(store.root, [f.id for f in found], "injected")  # the activation model's use
    lines = [HEADER, *(_line(f) for f in found)]
    return "\n".join(lines), f"injected {', '.join(f.id for f in found)}"


def _line(found: Any) -> str:
    record, kind = found.record, found.kind
    why = {
        "named": f"names {found.detail}",
        "error type": f"error type {found.detail}",
        "topic": f"about {found.detail}",
    }[found.reason]
    if kind == "anti-pattern":
        fix = _text(getattr(record, "fix", ""))
        body = f"{_text(record.name)}" + (f". Fix: {fix}" if fix else "")
    elif kind == "pattern":
        solution = _text(getattr(record, "solution", ""))
        body = f'pattern "{_text(record.name)}"' + (f": {solution}" if solution else "")
    elif kind == "decision":
        outcome = getattr(record, "outcome", None)
        rationale = _text(getattr(record, "rationale", ""))
        body = f"decision{f' ({outcome})' if outcome else ''}: {_text(record.decision)}"
        body += f"; because {rationale}" if rationale else ""
    elif kind == "goal":
        body = f"open goal: {_text(record.title)}"
    else:
        day = str(record.timestamp)[:10]
        fixed = _fixed(record.extra.get("resolved"))
        body = f"{record.error_type} failure on {day}{fixed}: {_text(record.error_message)}"
        tool = _text(getattr(record, "tool", ""))
        body += f" (`{tool}`)" if tool else ""
    stale = getattr(found, "stale", ())
    if stale:  # advice whose files changed since it was captured may no longer hold
        why += f"; stale: {', '.join(stale)} changed since"
    head, tail = f"- {found.id} ", f" [{why}]"
    room = max(40, MAX_LINE - len(head) - len(tail))
    if len(body) > room:
        body = body[: room - 1].rstrip() + "…"
    return head + body + tail


def _fixed(resolved: Any) -> str:
    """What a failure that its session later fixed says so (ingestion's ``resolved``): an
    agent told of it must not take it for a failure still open."""
    if not isinstance(resolved, dict):
        return ""
    files = [f for f in resolved.get("likely_fix") or [] if isinstance(f, str)]
    shown = ", ".join(files[:2]) + (f" and {len(files) - 2} more" if len(files) > 2 else "")
    return ", fixed then" + (f" (likely by editing {shown})" if files else "")


def _text(value: Any) -> str:
    return " ".join(value.split()) if isinstance(value, str) else ""
