"""Claude Code transcripts (``~/.claude/projects/<project>/<session>.jsonl``, and the
subagent files under ``<session>/subagents/``): one JSON object a line, turned into events.

A ``tool_use`` block (assistant line) waits in ``pending`` for the ``tool_result`` block
(user line) with its id; the pair becomes one call event spanning both lines.
"""

from __future__ import annotations

import re
from typing import Any

from lore.ingest.events import (
    CANCELLED,
    DENIED,
    EDIT,
    ERROR,
    INTERRUPTED,
    OK,
    OTHER,
    READ,
    SHELL,
    TIMEOUT,
    Event,
    Session,
    text_of,
)

AGENT = "claude"
SHELL_TOOLS = frozenset({"Bash"})
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "Glob", "Grep", "LS", "NotebookRead", "WebFetch", "WebSearch"})
# Line types Claude Code writes that hold nothing to extract (counted as read, not unknown).
QUIET_TYPES = frozenset(
    {"system", "progress", "file-history-snapshot", "queue-operation", "attachment", "result"}
)
EXIT = re.compile(r"^(?:Error: )?Exit code (\d+)")
REJECTED = "The user doesn't want to proceed with this tool use"
SAID = "the user said:\n"


def looks_like(obj: Any, *, strict: bool = True) -> bool:
    """Whether a parsed line is Claude Code's (``strict``: telling formats apart, a line
    type it shares with nothing else must also carry Claude Code's own keys)."""
    if not isinstance(obj, dict):
        return False
    kind = obj.get("type")
    if kind in ("user", "assistant"):
        return isinstance(obj.get("message"), dict)
    if kind == "summary":
        return "leafUuid" in obj or not strict
    if kind in QUIET_TYPES:
        return not strict or any(k in obj for k in ("sessionId", "uuid", "messageId"))
    return False


def is_typed(text: str) -> bool:
    """Whether a user line's text is something the user typed: not a command or system
    wrapper (``<command-name>``, ``<system-reminder>``, ...) nor an interruption marker."""
    return bool(text) and not text.startswith(("<", "[Request interrupted", "Caveat:"))


class Reader:
    """Claude Code lines to events; ``state()`` is what a later run needs to continue."""

    agent = AGENT

    def __init__(self, state: dict[str, Any] | None = None) -> None:
        state = state or {}
        self.pending: dict[str, list[Any]] = dict(state.get("pending") or {})
        self.id: str | None = state.get("session")
        self.cwd: str | None = state.get("cwd")
        self.side: bool = bool(state.get("side"))

    def state(self) -> dict[str, Any]:
        return {"pending": self.pending, "session": self.id, "cwd": self.cwd, "side": self.side}

    def session(self) -> Session:
        return Session(AGENT, self.id, self.cwd, self.side)

    def feed(self, obj: Any, line: int) -> list[Event] | None:
        """The events of one line; None for a line this reader does not know."""
        if not looks_like(obj, strict=False):
            return None
        kind = obj.get("type")
        if self.id is None and isinstance(obj.get("sessionId"), str):
            self.id = obj["sessionId"]
            self.side = bool(obj.get("isSidechain") or obj.get("agentId"))
        if self.cwd is None and isinstance(obj.get("cwd"), str):
            self.cwd = obj["cwd"]  # where the session started (a later `cd` moves it)
        if kind == "summary":
            return [Event("summary", (line, line), None, str(obj.get("summary") or ""))]
        if kind not in ("user", "assistant"):
            return []
        when = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        content = obj["message"].get("content")
        if kind == "assistant":
            return self._assistant(content, line, when, bool(obj.get("isSidechain")))
        return self._user(obj, content, line, when)

    def _assistant(self, content: Any, line: int, when: str | None, side: bool) -> list[Event]:
        events: list[Event] = []
        if not isinstance(content, list):
            return events
        texts = []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                self.pending[block["id"]] = [line, str(block.get("name") or ""), _keep(block)]
        if texts and not side:
            events.append(Event("reply", (line, line), when, "\n".join(texts)))
        return events

    def _user(self, obj: dict[str, Any], content: Any, line: int, when: str | None) -> list[Event]:
        if obj.get("isCompactSummary"):
            return [Event("summary", (line, line), when, text_of(content))]
        events: list[Event] = []
        if isinstance(content, list):
            result = obj.get("toolUseResult")
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    events.extend(self._result(block, result, line, when))
        if obj.get("isMeta") or obj.get("isSidechain"):
            return events  # a skill's or command's expansion, a subagent's task: not typed
        text = text_of(content).strip()
        if is_typed(text):
            events.append(Event("prompt", (line, line), when, text))
        return events

    def _result(
        self, block: dict[str, Any], result: Any, line: int, when: str | None
    ) -> list[Event]:
        call = self.pending.pop(str(block.get("tool_use_id")), None)
        if call is None:
            return []  # its call was before the part of the file that was read
        first, name, given = call
        text = text_of(block.get("content"))
        status, code = _status(block, text, result)
        if name in SHELL_TOOLS:
            action, command, files = SHELL, str(given.get("command") or ""), ()
        elif name in EDIT_TOOLS:
            action, command, files = EDIT, "", tuple(given.get("files") or ())
        else:
            action, command, files = (READ if name in READ_TOOLS else OTHER), "", ()
        events = [
            Event(
                "call",
                (first, line),
                when,
                text,
                name,
                action,
                command,
                files,
                status,
                code,
                str(block.get("tool_use_id")),
                str(given.get("description") or ""),
            )
        ]
        if status == DENIED and SAID in text:  # the user's words when refusing: typed text
            said = text.split(SAID, 1)[1].strip()
            if said:
                events.append(Event("prompt", (line, line), when, said))
        return events


def _keep(block: dict[str, Any]) -> dict[str, Any]:
    """What a pending call needs from its input (kept small: it is saved between runs)."""
    given: dict[str, Any] = block["input"] if isinstance(block.get("input"), dict) else {}
    name = block.get("name")
    if name in SHELL_TOOLS:
        keep = {"command": given.get("command"), "description": given.get("description")}
        return {k: v for k, v in keep.items() if isinstance(v, str)}
    if name in EDIT_TOOLS:
        path = given.get("file_path") or given.get("notebook_path")
        return {"files": [path]} if isinstance(path, str) else {}
    return {}


def _status(block: dict[str, Any], text: str, result: Any) -> tuple[str, int | None]:
    """How the call ended, and its exit code when the result says."""
    head = text[:300]
    said = result if isinstance(result, str) else ""
    if "Sibling tool call errored" in head or said.startswith("Sibling tool call errored"):
        return CANCELLED, None
    if head.startswith(REJECTED) or said == "User rejected tool use":
        return DENIED, None
    if isinstance(result, dict) and result.get("interrupted") is True:
        return INTERRUPTED, None
    if not block.get("is_error"):
        return OK, None
    match = EXIT.match(head)
    if match:
        return ERROR, int(match.group(1))
    if "timed out" in head.lower():
        return TIMEOUT, None
    if "[Request interrupted" in head or "Interrupted by user" in head:
        return INTERRUPTED, None
    return ERROR, None


STATUS_CODE = re.compile(r"(?:Exit code|exit code|status code|exited with code) (-?\d+)")


def hook_event(payload: dict[str, Any]) -> Event | None:
    """The call event a PostToolUse or PostToolUseFailure hook payload describes (its
    ``tool_name``, ``tool_input``, and ``tool_response`` or ``error``/``is_interrupt``)."""
    name = payload.get("tool_name")
    given = payload.get("tool_input")
    if not isinstance(name, str) or not isinstance(given, dict):
        return None
    kept = _keep({"name": name, "input": given})
    call_id = str(payload.get("tool_use_id") or "")
    if payload.get("hook_event_name") == "PostToolUseFailure" or "error" in payload:
        text = str(payload.get("error") or "")
        match = STATUS_CODE.search(text[:200])
        code = int(match.group(1)) if match else None
        if payload.get("is_interrupt") is True:
            status = INTERRUPTED
        elif text.startswith(REJECTED):
            status = DENIED
        elif "Sibling tool call errored" in text[:200]:
            status = CANCELLED
        elif code is None and "timed out" in text[:300].lower():
            status = TIMEOUT
        else:
            status = ERROR
    else:
        response = payload.get("tool_response")
        if isinstance(response, dict):
            text = "\n".join(str(response.get(k) or "") for k in ("stdout", "stderr")).strip()
            status = INTERRUPTED if response.get("interrupted") is True else OK
        else:
            text, status = str(response or ""), OK
        code = None
    action = SHELL if name in SHELL_TOOLS else EDIT if name in EDIT_TOOLS else OTHER
    return Event(
        "call", (1, 1), None, text, name, action, str(kept.get("command") or ""),
        tuple(kept.get("files") or ()), status, code, call_id, str(kept.get("description") or ""),
    )  # fmt: skip
