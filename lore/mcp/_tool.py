"""How a tool is declared (``@tool`` on one function) and turned into an MCP tool: the
function returns a command's JSON document; errors become ``isError`` results carrying
lore's message and code, never a crash of the server.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from lore.errors import InvalidInputError, LoreError

MAX_TEXT_CHARS = 100_000  # one text argument; an agent sending more is sending a file


@dataclass(frozen=True)
class ToolSpec:
    fn: Callable[..., Any]
    name: str
    title: str
    read_only: bool


TOOLS: list[ToolSpec] = []
Doc = dict[str, Any]  # a command's --json document (an object)


class Answer(NamedTuple):
    """A document plus text an agent reads first (resume's text, a capture's warnings);
    empty text adds nothing."""

    doc: dict[str, Any]
    text: str


def tool(name: str, *, title: str, read_only: bool = False) -> Callable[[Any], Any]:
    """Declare ``fn`` as the MCP tool ``name``; its docstring is what the agent reads."""

    def declare(fn: Callable[..., Any]) -> Callable[..., Any]:
        TOOLS.append(ToolSpec(fn, name, title, read_only))
        return fn

    return declare


def dumps(doc: Any) -> str:
    import orjson

    return orjson.dumps(doc, option=orjson.OPT_NON_STR_KEYS).decode()


def error_result(error: LoreError) -> Any:
    """``{"ok": false, "error", "code", ...}`` as an ``isError`` tool result."""
    from mcp.types import CallToolResult, TextContent

    doc = error.to_dict()
    return CallToolResult(
        content=[TextContent(type="text", text=dumps(doc))],
        structured_content=doc,
        is_error=True,
    )


def success_result(doc: Any, text: str | None = None) -> Any:
    """The document as JSON text (and as structured content: an array is wrapped in
    ``{"result": [...]}``, as MCP wants an object there); ``text`` comes first if given."""
    from mcp.types import CallToolResult, TextContent

    content: list[Any] = [TextContent(type="text", text=text)] if text else []
    content.append(TextContent(type="text", text=dumps(doc)))
    structured = doc if isinstance(doc, dict) else {"result": doc}
    return CallToolResult(content=content, structured_content=structured)


def _check_sizes(arguments: dict[str, Any]) -> None:
    for name, value in arguments.items():
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, str) and len(item) > MAX_TEXT_CHARS:
                raise InvalidInputError(
                    f"{name} is too long: {len(item):,} characters (at most "
                    f"{MAX_TEXT_CHARS:,} through MCP); record a summary and point at the file",
                    field=name,
                )


def adapt(spec: ToolSpec) -> Callable[..., Any]:
    """An async function with ``spec.fn``'s (resolved) signature that runs it in the event
    loop's thread (calls run one at a time, so the store is never shared between threads)
    and returns an MCP result."""
    fn = spec.fn
    hints = typing.get_type_hints(fn, include_extras=True)
    signature = inspect.signature(fn)
    params = [
        p.replace(annotation=hints.get(p.name, p.annotation)) for p in signature.parameters.values()
    ]
    returns = hints.get("return", Any)
    if returns is Answer:
        returns = dict[str, Any]
    resolved = signature.replace(parameters=params, return_annotation=returns)

    @functools.wraps(fn)
    async def run(**arguments: Any) -> Any:
        try:
            _check_sizes(arguments)
            out = fn(**arguments)
        except LoreError as exc:
            return error_result(exc)
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            return error_result(LoreError(f"{exc.strerror or exc}{where}", path=exc.filename))
        except Exception as exc:  # a bug must not take the server down with it
            error = LoreError(f"internal error: {type(exc).__name__}: {exc}")
            error.code = "internal"
            return error_result(error)
        if isinstance(out, Answer):
            return success_result(out.doc, out.text)
        return success_result(out)

    run.__signature__ = resolved  # type: ignore[attr-defined]
    run.__annotations__ = {**hints}
    del run.__wrapped__  # the SDK must read the resolved signature, not the original's
    return run
