"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): ``session_meta``,
``response_item`` (messages, function and custom tool calls, their outputs), ``event_msg``
(the user's prompts, turn aborts) and ``compacted`` lines, turned into events.

A call's exit code is read from its output, in whichever form the Codex version wrote it:
``{"output", "metadata": {"exit_code"}}`` (``shell``), ``Exit code: N`` (freeform shell) or
``Process exited with code N`` (``exec_command``). No exit code (a redacted or still running
command) is not a failure. ``apply_patch`` (a custom tool, a function or a shell command)
is an edit of the files its patch names.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

import orjson

from lore.ingest.events import (
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

AGENT = "codex"
SHELL_CALLS = frozenset({"shell", "container.exec", "local_shell", "exec_command", "shell_command"})
READ_CALLS = frozenset({"read_file", "list_dir", "grep_files", "view_image", "web_search"})
RESPONSE_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
    }
)
LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
EXIT_CODE = re.compile(r"^(?:Exit code:|Process exited with code) (-?\d+)\s*$", re.MULTILINE)
PATCH_FILE = re.compile(
    r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M
)


def looks_like(obj: Any) -> bool:
    """Whether a parsed line is a Codex rollout's (the current or the older bare form)."""
    if not isinstance(obj, dict):
        return False
    if obj.get("type") in LINE_TYPES and "payload" in obj:
        return True
    return obj.get("type") in RESPONSE_TYPES or obj.get("record_type") == "state"


def patch_files(patch: str) -> tuple[str, ...]:
    """The files an ``apply_patch`` patch adds, updates, deletes or moves to."""
    found: list[str] = []
    for match in PATCH_FILE.finditer(patch):
        name = match.group(1) or match.group(2)
        if name and name not in found:
            found.append(name)
    return tuple(found)


class Reader:
    """Codex rollout lines to events; ``state()`` is what a later run needs to continue."""

    agent = AGENT

    def __init__(self, state: dict[str, Any] | None = None) -> None:
        state = state or {}
        self.pending: dict[str, list[Any]] = dict(state.get("pending") or {})
        self.id: str | None = state.get("session")
        self.cwd: str | None = state.get("cwd")
        self.ends: dict[str, int] = dict(state.get("ends") or {})

    def state(self) -> dict[str, Any]:
        return {"pending": self.pending, "session": self.id, "cwd": self.cwd, "ends": self.ends}

    def session(self) -> Session:
        return Session(AGENT, self.id, self.cwd, False)

    def feed(self, obj: Any, line: int) -> list[Event] | None:
        if not isinstance(obj, dict):
            return None
        when = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        kind = obj.get("type")
        payload = obj.get("payload")
        if kind not in LINE_TYPES or not isinstance(payload, dict):
            if line == 1 and isinstance(obj.get("id"), str) and "timestamp" in obj and not kind:
                self.id = obj["id"]  # the older form's first line: the session
                return []
            if kind in RESPONSE_TYPES:
                return self._item(obj, line, when)
            return [] if obj.get("record_type") == "state" else None
        if kind == "session_meta":
            self.id = payload.get("id") if isinstance(payload.get("id"), str) else self.id
            self.cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else self.cwd
            return []
        if kind == "turn_context":
            if self.cwd is None and isinstance(payload.get("cwd"), str):
                self.cwd = payload["cwd"]  # where the session started
            return []
        if kind == "compacted":
            return [Event("summary", (line, line), when, str(payload.get("message") or ""))]
        if kind == "event_msg":
            return self._event(payload, line, when)
        return self._item(payload, line, when)

    def _event(self, payload: dict[str, Any], line: int, when: str | None) -> list[Event]:
        kind = payload.get("type")
        if kind == "user_message":
            text = payload.get("message")
            if isinstance(text, str) and text.strip() and not text.lstrip().startswith("<"):
                return [Event("prompt", (line, line), when, text.strip())]
        elif kind == "exec_command_end" and isinstance(payload.get("exit_code"), int):
            if str(payload.get("call_id")) in self.pending:
                self.ends[str(payload["call_id"])] = payload["exit_code"]
        elif kind == "turn_aborted":
            events = []
            for call_id, (first, name, given) in list(self.pending.items()):
                if given.get("command"):
                    events.append(
                        _call(call_id, first, line, when, name, given, INTERRUPTED, None, "")
                    )
                    del self.pending[call_id]
            return events
        return []

    def _item(self, item: dict[str, Any], line: int, when: str | None) -> list[Event]:
        kind = item.get("type")
        if kind == "message":
            if item.get("role") == "assistant":
                text = text_of(item.get("content")).strip()
                if text:
                    return [Event("reply", (line, line), when, text)]
            return []
        call_id = str(item.get("call_id") or item.get("id") or "")
        if kind in ("function_call", "custom_tool_call", "local_shell_call") and call_id:
            self.pending[call_id] = [line, str(item.get("name") or kind), _given(item)]
            return []
        if kind in ("function_call_output", "custom_tool_call_output"):
            call = self.pending.pop(call_id, None)
            if call is None:
                return []
            first, name, given = call
            status, code, text = _outcome(item.get("output"), self.ends.pop(call_id, None))
            return [_call(call_id, first, line, when, name, given, status, code, text)]
        return []


def _given(item: dict[str, Any]) -> dict[str, Any]:
    """The command or the patched files of a call (kept small: saved between runs)."""
    name = item.get("name")
    if item.get("type") == "local_shell_call":
        action: dict[str, Any] = item["action"] if isinstance(item.get("action"), dict) else {}
        return _shell(action.get("command"))
    if item.get("type") == "custom_tool_call":
        raw = item.get("input")
        return (
            {"files": list(patch_files(raw))}
            if name == "apply_patch" and isinstance(raw, str)
            else {}
        )
    try:
        args = orjson.loads(item.get("arguments") or "{}")
    except (orjson.JSONDecodeError, TypeError):
        return {}
    if not isinstance(args, dict):
        return {}
    if name == "apply_patch" and isinstance(args.get("input"), str):
        return {"files": list(patch_files(args["input"]))}
    if name in SHELL_CALLS:
        return _shell(args.get("cmd") if name == "exec_command" else args.get("command"))
    return {}


def _shell(command: Any) -> dict[str, Any]:
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        if command and command[0] == "apply_patch" and len(command) > 1:
            return {"files": list(patch_files(command[1]))}
        shell = len(command) >= 3 and command[0].rsplit("/", 1)[-1] in ("bash", "zsh", "sh")
        if shell and command[1] in ("-lc", "-c"):
            return {"command": command[2]}
        return {"command": shlex.join(command)}
    if isinstance(command, str):
        if command.startswith("apply_patch"):
            return {"files": list(patch_files(command))}
        return {"command": command}
    return {}


def _call(
    call_id: str,
    first: int,
    line: int,
    when: str | None,
    name: str,
    given: dict[str, Any],
    status: str,
    code: int | None,
    text: str,
) -> Event:
    if "files" in given:
        action, command, files = EDIT, "", tuple(given["files"])
    elif "command" in given:
        action, command, files = SHELL, given["command"], ()
    else:
        action, command, files = (READ if name in READ_CALLS else OTHER), "", ()
    return Event(
        "call", (first, line), when, text, name, action, command, files, status, code, call_id
    )


def _outcome(output: Any, ended: int | None) -> tuple[str, int | None, str]:
    """How a call ended, its exit code and its output text."""
    if isinstance(output, dict):
        output = output.get("content") if "content" in output else orjson.dumps(output).decode()
    text = (
        text_of(output) if isinstance(output, list) else output if isinstance(output, str) else ""
    )
    code: int | None = ended
    if text.startswith("{"):
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError:
            data = None
        if isinstance(data, dict) and "output" in data:
            meta: dict[str, Any] = (
                data["metadata"] if isinstance(data.get("metadata"), dict) else {}
            )
            text = str(data.get("output") or "")
            if isinstance(meta.get("exit_code"), int):
                code = meta["exit_code"]
    head = text[:400]
    match = EXIT_CODE.search(head)
    if match:
        code = int(match.group(1))
        if "\nOutput:\n" in text:
            text = text.split("\nOutput:\n", 1)[1]
    lowered = head.lower()
    if "rejected by user" in lowered or "declined by user" in lowered:
        return DENIED, code, text
    if text.strip().lower() in ("aborted", "aborted by user"):
        return INTERRUPTED, code, text
    if "timed out" in lowered and code in (None, 124):
        return TIMEOUT, code, text
    if "apply_patch verification failed" in lowered or lowered.startswith("failed to apply patch"):
        return ERROR, code, text
    if code is None or code == 0:
        return OK, code, text
    return ERROR, code, text


def hook_event(payload: dict[str, Any]) -> Event | None:
    """The call a Codex PostToolUse hook payload describes: Claude Code's keys, with
    ``tool_input.command`` the command and ``tool_response`` the output text the model saw
    (codex-rs ``post_tool_use_response``), which says the exit code as a rollout's does."""
    name, given = payload.get("tool_name"), payload.get("tool_input")
    if not isinstance(name, str) or not isinstance(given, dict):
        return None
    status, code, text = _outcome(payload.get("tool_response"), None)
    call_id = str(payload.get("tool_use_id") or "")
    return _call(call_id, 1, 1, None, name, _shell(given.get("command")), status, code, text)
