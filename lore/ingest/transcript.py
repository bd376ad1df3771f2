"""Reading a transcript file: which agent wrote it (``sniff``), and its new complete lines
from a byte offset on, each handed to that agent's reader. A damaged or unknown line is
skipped and counted, never fatal; a line still being written (no newline yet) is left for
the next run. The older Gemini CLI form is one JSON document, read whole."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from lore.errors import InvalidInputError
from lore.ingest.events import Event
from lore.ingest.ids import digest

AGENTS = ("claude", "codex", "gemini")  # each one's reader is lore.ingest.<agent>


def reader_module(agent: str) -> Any:
    """``lore.ingest.<agent>``, imported on first use: a hook reads one agent's transcript."""
    from importlib import import_module

    return import_module(f"lore.ingest.{agent}")


class _Readers(Mapping[str, Any]):
    """Agent -> its ``Reader`` class (its module imported when asked for)."""

    def __getitem__(self, agent: str) -> Any:
        if agent not in AGENTS:
            raise KeyError(agent)
        return reader_module(agent).Reader

    def __iter__(self) -> Iterator[str]:
        return iter(AGENTS)

    def __len__(self) -> int:
        return len(AGENTS)


READERS: Mapping[str, Any] = _Readers()
NAMES = {"claude": "Claude Code transcript", "codex": "Codex rollout", "gemini": "Gemini CLI chat"}
SNIFF_BYTES = 256 * 1024
SNIFF_LINES = 30
CHUNK = 4 * 1024 * 1024
MAX_DOCUMENT = 256 * 1024 * 1024
BOM = b"\xef\xbb\xbf"


def sniff(path: Path) -> tuple[str, bool] | None:
    """``(agent, whole_document)`` for a transcript, None for an empty file; raises
    InvalidInputError (exit 4) naming the file when it is none of the three formats."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError as exc:
        raise InvalidInputError(
            f"{path}: cannot read it ({exc.strerror})", file=str(path)
        ) from None
    head = head.removeprefix(BOM)
    if not head.strip():
        return None
    seen = ""
    parsed = False
    for number, raw in enumerate(head.splitlines()[:SNIFF_LINES], 1):
        if not raw.strip():
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            seen = seen or f"line {number} is not JSON"
            continue
        parsed = True
        for agent in ("claude", "codex"):
            if reader_module(agent).looks_like(obj):
                return agent, False
        gemini = reader_module("gemini")
        if gemini.looks_like(obj) or gemini.is_message(obj):
            return "gemini", isinstance(obj, dict) and isinstance(obj.get("messages"), list)
        seen = seen or f"line {number} is {_shape(obj)}"
    if not parsed and head.lstrip().startswith(b"{") and path.stat().st_size <= MAX_DOCUMENT:
        try:
            data = orjson.loads(path.read_bytes().removeprefix(BOM))
        except orjson.JSONDecodeError:
            data = None
        if reader_module("gemini").looks_like(data):
            return "gemini", True
        seen = f"a JSON document of another kind ({_shape(data)})" if data is not None else seen
    raise InvalidInputError(
        f"{path}: not a Claude Code, Codex or Gemini CLI transcript ({seen or 'no JSON lines'})",
        file=str(path),
    )


def _shape(obj: Any) -> str:
    if isinstance(obj, dict):
        keys = ", ".join(list(obj)[:4])
        return f"an object with {keys}" if keys else "an empty object"
    return f"a JSON {type(obj).__name__}"


class Read(NamedTuple):
    """What one pass over a transcript gave."""

    events: list[Event]
    offset: int  # bytes consumed
    line: int  # lines consumed
    last: list[Any]  # [offset of the last line read, its hash]
    skipped: list[int]  # damaged or unknown lines (their numbers)


def read(path: Path, reader: Any, *, offset: int = 0, line: int = 0, whole: bool = False) -> Read:
    """The events of the complete lines after ``offset`` (``line`` lines before it)."""
    if whole:
        return _document(path, reader)
    events: list[Event] = []
    skipped: list[int] = []
    last: list[Any] = []
    with open(path, "rb") as handle:
        if offset == 0 and handle.read(len(BOM)) == BOM:
            offset = len(BOM)  # an editor's byte-order mark: the first line starts after it
        handle.seek(offset)
        rest = b""
        while True:
            chunk = handle.read(CHUNK)
            if not chunk:
                break
            data = rest + chunk
            end = data.rfind(b"\n")
            if end < 0:
                rest = data
                continue
            rest = data[end + 1 :]
            start = 0
            for raw in data[: end + 1].split(b"\n")[:-1]:
                line += 1
                here = offset + start
                start += len(raw) + 1
                last = [here, digest(raw.decode("utf-8", "replace"))]
                if not raw.strip():
                    continue
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    skipped.append(line)
                    continue
                found = reader.feed(obj, line)
                if found is None:
                    skipped.append(line)
                else:
                    events.extend(found)
            offset += end + 1
        if rest.strip():  # no newline after it: a line still being written, unless complete
            try:
                obj = orjson.loads(rest)
            except orjson.JSONDecodeError:
                obj = None
            if isinstance(obj, dict):
                line += 1
                last = [offset, digest(rest.decode("utf-8", "replace"))]
                found = reader.feed(obj, line)
                events.extend(found or [])
                skipped.extend([] if found is not None else [line])
                offset += len(rest)
    return Read(events, offset, line, last, skipped)


def _document(path: Path, reader: Any) -> Read:
    whole = path.read_bytes()
    raw = whole.removeprefix(BOM)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return Read([], len(whole), raw.count(b"\n"), [], [1])  # being rewritten: next run
    text = raw.decode("utf-8", "replace")
    events = reader.document(data, text) if isinstance(data, dict) else []
    return Read(events, len(whole), raw.count(b"\n"), [0, digest(text)], [])


def line_hash(path: Path, start: int, end: int) -> str | None:
    """The hash of the bytes ``[start, end)`` without their newline, None if unreadable."""
    try:
        with open(path, "rb") as handle:
            handle.seek(start)
            raw = handle.read(end - start)
    except OSError:
        return None
    return digest(raw.rstrip(b"\n").decode("utf-8", "replace"))
