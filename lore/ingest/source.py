"""``lore show ID --source``: the transcript lines a record's provenance names, read again
and made readable (who said what, which tool was called with what, what came back), with
credentials masked and private text left out. Nothing is re-extracted."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import orjson

from lore.errors import InvalidInputError, NotFoundError
from lore.ingest.clean import plain, strip_private
from lore.ingest.events import text_of

MAX_LINES = 40  # of one entry's text
MAX_CHARS = 4000


def expand(record: dict[str, Any]) -> dict[str, Any]:
    """``{"transcript", "session", "lines", "entries": [{"line", "who", "text"}]}``."""
    found = record.get("provenance")
    if not isinstance(found, dict) or not isinstance(found.get("lines"), list):
        raise InvalidInputError(
            f"{record.get('id')} has no provenance: it was not ingested from a transcript",
            id=record.get("id"),
        )
    path = Path(str(found.get("transcript")))
    first, last = found["lines"]
    try:
        raw = path.read_bytes().removeprefix(b"\xef\xbb\xbf")  # an editor's byte-order mark
    except OSError as exc:
        raise NotFoundError(
            f"{path}: cannot read the transcript ({exc.strerror or exc}); it was moved or deleted",
            file=str(path),
        ) from None
    count = len(raw.splitlines())
    if first > count:  # the lines are gone: say so, never an empty "source:"
        raise NotFoundError(
            f"{path}: the transcript has {count} line{'' if count == 1 else 's'} now, not "
            f"lines {first}-{last}: it was truncated or replaced since it was ingested",
            file=str(path),
        )
    if path.suffix == ".json" and raw.lstrip().startswith(b"{"):
        entries = _document(raw.decode("utf-8", "replace"), first, last)
    else:
        entries = []
        for number, line in enumerate(raw.split(b"\n")[first - 1 : last], first):
            entries.extend(
                {"line": number, "who": who, "text": _clip(text)} for who, text in _line(line)
            )
    return {**found, "entries": entries}


def _line(raw: bytes) -> list[tuple[str, str]]:
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return [("unreadable", raw.decode("utf-8", "replace")[:200])]
    if not isinstance(obj, dict):
        return [("unknown", "")]
    if isinstance(obj.get("message"), dict):  # Claude Code
        return _claude(obj)
    if "payload" in obj and isinstance(obj["payload"], dict):  # Codex
        return _codex(obj["payload"], str(obj.get("type")))
    if "toolCalls" in obj or obj.get("type") in ("user", "gemini"):  # Gemini CLI (JSONL)
        return _gemini(obj)
    return [(str(obj.get("type") or "other"), "")]


def _claude(obj: dict[str, Any]) -> list[tuple[str, str]]:
    role = str(obj.get("type"))
    content = obj["message"].get("content")
    if isinstance(content, str):
        return [("summary" if obj.get("isCompactSummary") else role, content)]
    out: list[tuple[str, str]] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            out.append((role, str(block.get("text") or "")))
        elif kind == "tool_use":
            out.append(("call", _call(str(block.get("name")), block.get("input"))))
        elif kind == "tool_result":
            who = "result (error)" if block.get("is_error") else "result"
            out.append((who, text_of(block.get("content"))))
    return out


def _codex(payload: dict[str, Any], line_type: str) -> list[tuple[str, str]]:
    kind = payload.get("type")
    if kind == "user_message":
        return [("user", str(payload.get("message") or ""))]
    if kind == "message":
        return [(str(payload.get("role")), text_of(payload.get("content")))]
    if kind in ("function_call", "custom_tool_call", "local_shell_call"):
        given: Any = payload.get("arguments") or payload.get("input") or payload.get("action")
        if isinstance(given, str) and given.startswith("{"):
            with contextlib.suppress(orjson.JSONDecodeError):
                given = orjson.loads(given)
        return [("call", _call(str(payload.get("name") or kind), given))]
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = payload.get("output")
        return [("result", output if isinstance(output, str) else text_of(output))]
    if line_type == "compacted":
        return [("summary", str(payload.get("message") or ""))]
    return [(str(kind or line_type), "")]


def _gemini(message: dict[str, Any]) -> list[tuple[str, str]]:
    out = [(str(message.get("type")), text_of(message.get("content")))]
    for call in message.get("toolCalls") or []:
        if isinstance(call, dict):
            out.append(("call", _call(str(call.get("name")), call.get("args"))))
            from lore.ingest.gemini import _result_text

            out.append((f"result ({call.get('status')})", _result_text(call.get("result"))))
    return out


def _document(text: str, first: int, last: int) -> list[dict[str, Any]]:
    """A Gemini CLI document: the messages whose lines meet ``[first, last]``."""
    from lore.ingest.gemini import message_spans

    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return []
    entries: list[dict[str, Any]] = []
    for (lines, _calls), message in zip(message_spans(text), data.get("messages") or []):
        if lines[1] < first or lines[0] > last or not isinstance(message, dict):
            continue
        entries.extend(
            {"line": lines[0], "who": who, "text": _clip(t)} for who, t in _gemini(message)
        )
    return entries


def _call(name: str, given: Any) -> str:
    if isinstance(given, dict):
        for key in ("command", "cmd", "file_path", "path", "pattern", "query"):
            value = given.get(key)
            if isinstance(value, list):
                value = " ".join(str(v) for v in value)
            if isinstance(value, str) and value:
                return f"{name}: {value}"
        return f"{name}: {orjson.dumps(given).decode()[:300]}"
    return f"{name}: {str(given)[:300]}" if given else name


def _clip(text: str) -> str:
    """Private text out, credentials masked, colour codes dropped, long output cut."""
    from lore.secrets.gate import redact

    text = redact(plain(strip_private(text))).strip()
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        text = "\n".join(lines[:MAX_LINES]) + f"\n… ({len(lines) - MAX_LINES} more lines)"
    if len(text) <= MAX_CHARS:
        return text
    cut = text[:MAX_CHARS]
    opened = cut.rfind("[REDACTED:")
    return (cut[:opened] if opened >= 0 and "]" not in cut[opened:] else cut) + "…"
