"""Gemini CLI chats (``~/.gemini/tmp/<project>/chats/session-*.json`` or ``.jsonl``): the
older form is one JSON document ``{sessionId, projectHash, messages: [...]}``, the newer one
a metadata line, then one message record a line (re-written whole as it changes,
``$set``/``$rewindTo`` lines between). Both turn into events; a message or tool call is
read once (its id is remembered), and only once its tool calls have finished.
"""

from __future__ import annotations

import re
from bisect import bisect_right
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

AGENT = "gemini"
SHELL_TOOLS = frozenset({"run_shell_command"})
EDIT_TOOLS = frozenset({"write_file", "replace", "edit"})
READ_TOOLS = frozenset(
    {"read_file", "read_many_files", "list_directory", "glob", "search_file_content", "grep"}
)
FINISHED = frozenset({"success", "error", "cancelled"})
EXIT = re.compile(r"^Exit Code: (-?\d+)\s*$", re.MULTILINE)
TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"\s*:?|[\[\]{}]')
# The shell tool's own report lines around a command's output (not the output itself).
REPORT = re.compile(
    r"^(?:Error: \(none\)|Exit Code: .*|Signal: .*|Background PIDs: .*|Process Group PGID: .*)$\n?",
    re.MULTILINE,
)


def looks_like(obj: Any) -> bool:
    """Whether a parsed document (or the first line of the newer form) is a Gemini chat."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("sessionId"), str)
        and (isinstance(obj.get("messages"), list) or "projectHash" in obj or "startTime" in obj)
    )


def is_message(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("id"), str)
        and obj.get("type") in ("user", "gemini", "info", "error", "warning")
    )


class Reader:
    """Gemini CLI messages to events; ``state()`` is what a later run needs to continue."""

    agent = AGENT

    def __init__(self, state: dict[str, Any] | None = None) -> None:
        state = state or {}
        self.id: str | None = state.get("session")
        self.cwd: str | None = state.get("cwd")
        self.done: set[str] = set(state.get("done") or ())

    def state(self) -> dict[str, Any]:
        return {"session": self.id, "cwd": self.cwd, "done": sorted(self.done)}

    def session(self) -> Session:
        return Session(AGENT, self.id, self.cwd, False)

    def feed(self, obj: Any, line: int) -> list[Event] | None:
        """One line of the newer (JSONL) form."""
        if isinstance(obj, dict) and ("$set" in obj or "$rewindTo" in obj):
            return []
        if looks_like(obj):
            self._meta(obj)
            return []
        if is_message(obj):
            return self.message(obj, (line, line), [])
        return None

    def document(self, data: dict[str, Any], raw: str) -> list[Event]:
        """The older form: the whole document, with each message's lines found in ``raw``."""
        self._meta(data)
        spans = message_spans(raw)
        events: list[Event] = []
        for n, message in enumerate(data.get("messages") or []):
            if not is_message(message):
                continue
            lines, calls = spans[n] if n < len(spans) else ((1, 1), [])
            events.extend(self.message(message, lines, calls))
        return events

    def _meta(self, obj: dict[str, Any]) -> None:
        self.id = obj.get("sessionId") if isinstance(obj.get("sessionId"), str) else self.id
        dirs = obj.get("directories")
        if isinstance(dirs, list) and dirs and isinstance(dirs[0], str):
            self.cwd = dirs[0]

    def message(
        self, message: dict[str, Any], lines: tuple[int, int], calls: list[tuple[int, int]]
    ) -> list[Event]:
        when = message.get("timestamp") if isinstance(message.get("timestamp"), str) else None
        events: list[Event] = []
        key = message["id"]
        tool_calls = message.get("toolCalls") if message.get("type") == "gemini" else None
        if isinstance(tool_calls, list):
            for n, call in enumerate(tool_calls):
                if not isinstance(call, dict) or call.get("status") not in FINISHED:
                    continue
                call_key = f"{key}/{call.get('id') or n}"
                if call_key in self.done:
                    continue
                self.done.add(call_key)
                events.append(_call(call, calls[n] if n < len(calls) else lines, when))
        if key in self.done or message.get("type") not in ("user", "gemini"):
            return events
        text = text_of(message.get("content")).strip()
        if not text:
            return events
        self.done.add(key)
        if message["type"] == "user":
            if not text.startswith(("/", "<")):  # a slash command, a wrapper
                events.insert(0, Event("prompt", lines, when, text))
        else:
            events.insert(0, Event("reply", lines, when, text))
        return events


def _call(call: dict[str, Any], lines: tuple[int, int], when: str | None) -> Event:
    name = str(call.get("name") or "")
    args: dict[str, Any] = call["args"] if isinstance(call.get("args"), dict) else {}
    text = _result_text(call.get("result"))
    code = None
    match = EXIT.search(text)
    if match:
        code = int(match.group(1))
    lowered = text[:400].lower()
    status = {"success": OK, "error": ERROR}.get(str(call.get("status")), CANCELLED)
    if "exceeded the timeout" in lowered:
        status = TIMEOUT
    elif "cancelled by user" in lowered:
        status = INTERRUPTED
    elif status == CANCELLED:
        status = DENIED  # the user declined the call (Gemini CLI never cancels siblings)
    elif code not in (None, 0):
        status = ERROR
    files: tuple[str, ...] = ()
    if name in SHELL_TOOLS:
        action, command = SHELL, str(args.get("command") or "")
    elif name in EDIT_TOOLS:
        path = args.get("file_path") or args.get("absolute_path")
        action, command = EDIT, ""
        files = (path,) if isinstance(path, str) else ()
    else:
        action, command = (READ if name in READ_TOOLS else OTHER), ""
    if text.startswith("Command: ") and "\nOutput: " in text:
        text = REPORT.sub("", text.split("\nOutput: ", 1)[1]).removeprefix("(empty)").strip()
    return Event(
        "call", lines, when, text, name, action, command, files, status, code,
        str(call.get("id") or ""), str(args.get("description") or ""),
    )  # fmt: skip


def _result_text(result: Any) -> str:
    """The output text of a Gemini tool call's ``functionResponse`` parts."""
    if not isinstance(result, list):
        return text_of(result)
    parts = []
    for part in result:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            value = body.get("output", body.get("error", ""))
            parts.append(value if isinstance(value, str) else str(value))
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            parts.append(part["text"])
    return "\n".join(parts)


def message_spans(raw: str) -> list[tuple[tuple[int, int], list[tuple[int, int]]]]:
    """Per element of the top-level ``messages`` array: its first and last line in ``raw``,
    and those of each element of its ``toolCalls`` array (1-based lines)."""
    starts = [0] + [m.end() for m in re.finditer("\n", raw)]

    def line(offset: int) -> int:
        return bisect_right(starts, offset)

    spans: list[tuple[tuple[int, int], list[tuple[int, int]]]] = []
    depth = 0
    keys: dict[int, str] = {}  # depth -> the key whose value opens there
    pending_key = ""
    message_start = call_start = -1
    calls: list[tuple[int, int]] = []
    for match in TOKEN.finditer(raw):
        token = match.group()
        if token[0] == '"':
            pending_key = token.rstrip()[1:-2] if token.rstrip().endswith(":") else ""
            continue
        if token in "[{":
            depth += 1
            keys[depth] = pending_key
            pending_key = ""
            if token == "{" and depth == 3 and keys.get(2) == "messages":
                message_start, calls = match.start(), []
            elif token == "{" and depth == 5 and keys.get(4) == "toolCalls" and message_start >= 0:
                call_start = match.start()
            continue
        if token == "}" and depth == 5 and call_start >= 0 and keys.get(4) == "toolCalls":
            calls.append((line(call_start), line(match.start())))
            call_start = -1
        elif token == "}" and depth == 3 and message_start >= 0 and keys.get(2) == "messages":
            spans.append(((line(message_start), line(match.start())), calls))
            message_start = -1
        depth -= 1
    return spans


def hook_event(payload: dict[str, Any]) -> Event | None:
    """The call a Gemini CLI AfterTool hook payload describes: ``tool_input`` the call's
    arguments and ``tool_response`` ``{llmContent, returnDisplay, error}``, where
    ``llmContent`` is the report a chat file keeps as the call's output."""
    name, args = payload.get("tool_name"), payload.get("tool_input")
    response = payload.get("tool_response")
    if not isinstance(name, str) or not isinstance(args, dict):
        return None
    found = response if isinstance(response, dict) else {"llmContent": response}
    text = _result_text(found.get("llmContent"))
    error = found.get("error")
    message = error.get("message") if isinstance(error, dict) else error
    if isinstance(message, str) and message.strip() and message not in text:
        text = f"{text}\n{message}".strip()
    call = {
        "id": payload.get("tool_use_id") or "",
        "name": name,
        "args": args,
        "result": text,
        "status": "error" if error else "success",
    }
    return _call(call, (1, 1), None)
