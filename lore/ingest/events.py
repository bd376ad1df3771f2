"""The normalized event stream: what every transcript reader (``claude``, ``codex``,
``gemini``) turns its agent's lines into, and what extraction and the digest read."""

from __future__ import annotations

from typing import Any, NamedTuple

# What a tool call did (``Event.action``).
SHELL, EDIT, READ, OTHER = "shell", "edit", "read", "other"
# How a tool call ended (``Event.status``). Only "error", "timeout" and "interrupted" can
# make a failure: "cancelled" is a call the agent never ran because a sibling call failed,
# "denied" one the user refused (a failure of type UserDeny for a shell command).
OK, ERROR, TIMEOUT, INTERRUPTED, DENIED, CANCELLED = (
    "ok",
    "error",
    "timeout",
    "interrupted",
    "denied",
    "cancelled",
)


class Event(NamedTuple):
    """One thing that happened in a session, with the transcript lines it came from.

    ``kind``: "prompt" (the user typed it), "reply" (the agent's text), "call" (a tool call
    with its result; ``lines`` span the call and the result) or "summary" (a compaction's
    summary of what came before: never a prompt, never a candidate).
    """

    kind: str
    lines: tuple[int, int]
    time: str | None = None
    text: str = ""  # prompt or reply text; for a call, the result's text
    tool: str = ""  # the tool's name as the agent spells it
    action: str = ""  # SHELL, EDIT, READ or OTHER
    command: str = ""  # a shell call's command line
    files: tuple[str, ...] = ()  # the files an edit call changed
    status: str = ""  # OK, ERROR, TIMEOUT, INTERRUPTED, DENIED or CANCELLED
    exit_code: int | None = None
    call_id: str = ""
    note: str = ""  # a shell call's own description of itself (Claude Code's "description")


class Session(NamedTuple):
    """What a reader knows about the session a transcript holds."""

    agent: str  # "claude", "codex" or "gemini"
    id: str | None  # the agent's session id
    cwd: str | None
    side: bool  # a subagent's (sidechain) transcript: failures only, no digest


def text_of(content: Any) -> str:
    """The text parts of a message's content (a string, or a list of typed blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                value = block.get("text")
                if isinstance(value, str) and block.get("type") in (
                    None,
                    "text",
                    "input_text",
                    "output_text",
                ):
                    parts.append(value)
        return "\n".join(parts)
    return ""
