"""The stdio transport of ``lore mcp``: the SDK's, with every incoming line screened first,
so that a line the SDK would drop in silence gets a JSON-RPC error and no client waits for
ever: bytes that are not UTF-8 and lines that are not JSON (or nest deeper than JSON
parsers go) get a parse error, a batch gets one error per request it holds (batches are
not supported), a message nested absurdly deep an invalid-request error. The answer goes
out through the SDK's own writer, so it never tears another message.

When stdin and stdout are pipes or sockets (as an agent starts the server), the event loop
reads and writes them itself (``lore.mcp.pipes``) instead of handing every line to a worker
thread, the SDK's default: three thread hops a call fewer. A terminal or a file keeps the
thread.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import orjson

MAX_DEPTH = 64  # no MCP message nests this deep; deeper ones are refused, not walked
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')


def screen(line: bytes) -> tuple[str | None, list[Any]]:
    """``(text for the SDK, None to drop)`` and the JSON-RPC errors to answer with."""
    from mcp_types import INVALID_REQUEST, PARSE_ERROR

    from lore.storage.jsonl import too_deep

    if not line.strip():
        return None, []
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [_error(_guess_id(line), PARSE_ERROR, f"not UTF-8 text (byte {exc.start})")]
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        return None, [_error(_guess_id(line), PARSE_ERROR, f"not JSON: {exc}")]
    if isinstance(obj, list):
        ids = [m.get("id") for m in obj if isinstance(m, dict) and _valid_id(m.get("id"))]
        message = "batch requests are not supported: send one JSON-RPC message per line"
        return None, [_error(rid, INVALID_REQUEST, message) for rid in ids or [None]]
    if too_deep(obj, MAX_DEPTH):
        rid = obj.get("id") if isinstance(obj, dict) and _valid_id(obj.get("id")) else None
        return None, [_error(rid, INVALID_REQUEST, f"nested more than {MAX_DEPTH} levels deep")]
    return text, []


def _valid_id(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _guess_id(line: bytes) -> Any:
    """The request's id when the line names one near its start (so that client gets its
    answer even when the rest cannot be read), else None."""
    found = _ID.search(line[:4096])
    if found is None:
        return None
    try:
        value = orjson.loads(found.group(1))
    except orjson.JSONDecodeError:
        return None
    return value if _valid_id(value) else None


def _error(rid: Any, code: int, message: str) -> Any:
    from mcp_types import ErrorData, JSONRPCError

    return JSONRPCError(jsonrpc="2.0", id=rid, error=ErrorData(code=code, message=message))


class _Screened:
    """The lines of stdin the SDK reads, screened; the errors go to ``answers``."""

    def __init__(self, stdin: Any, answers: Any) -> None:
        self.stdin = stdin
        self.answers = answers

    def __aiter__(self) -> _Screened:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self.stdin.readline()
            if not line:
                await self.answers.aclose()
                raise StopAsyncIteration
            text, errors = screen(line)
            for error in errors:
                await self.answers.send(error)
            if text is not None:
                return text


async def run(server: Any) -> None:
    """Serve ``server`` (an ``MCPServer``) on this process's stdin and stdout."""
    import anyio
    from mcp.server.stdio import stdio_server

    from lore.mcp import pipes

    answers_in, answers_out = anyio.create_memory_object_stream[Any](100)
    lowlevel = server._lowlevel_server
    async with pipes.claimed() as (lines, stdout):
        stdin: Any = lines if lines is not None else anyio.wrap_file(sys.stdin.buffer)
        screened = _Screened(stdin, answers_in)
        await _serve(lowlevel, stdio_server(stdin=screened, stdout=stdout), answers_out)  # type: ignore[arg-type]


async def _serve(lowlevel: Any, transport: Any, answers_out: Any) -> None:
    import anyio
    from mcp.shared.message import SessionMessage

    async with transport as (read_stream, write_stream):

        async def answer() -> None:
            async with answers_out:
                async for error in answers_out:
                    await write_stream.send(SessionMessage(error))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(answer)
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
            tasks.cancel_scope.cancel()
