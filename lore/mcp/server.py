"""The MCP server: an ``MCPServer`` with lore's tools, resources and prompt, over stdio.

Arguments the schema refuses (wrong types, unknown tools) come back as ``isError`` results
with lore's usage code, like every other error; the server itself never stops on one.
"""

from __future__ import annotations

import functools
import inspect
from importlib import import_module
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from lore import __version__
from lore.errors import UsageError
from lore.mcp import resources, state
from lore.mcp._tool import TOOLS, adapt, error_result
from lore.mcp.tools import MODULES

INSTRUCTIONS = """\
lore is this project's durable memory: decisions, patterns, failures, observations and
session handoffs in plain files that every session and every agent shares.
Start a task with `resume`. Before deciding something, `recall` what was decided before.
Record as you go: `remember` (a decision and why), `learn` (a pattern that worked), `fail`
(a failure), `observe` (anything else). End with `handoff` (what is done, what is next).
Errors come back as {"ok": false, "error", "code"}; fix the arguments and call again."""


@functools.cache
def _parameters(name: str) -> tuple[str, ...] | None:
    """The arguments tool ``name`` takes (None: no such tool), read once per tool."""
    spec = next((spec for spec in TOOLS if spec.name == name), None)
    return None if spec is None else tuple(inspect.signature(spec.fn).parameters)


def _unknown_arguments(name: str, arguments: dict[str, Any]) -> UsageError | None:
    """Arguments the tool does not take (a misspelt one would be dropped silently)."""
    known = _parameters(name)
    if known is None or not (arguments or {}).keys() - set(known):
        return None
    from difflib import get_close_matches

    unknown = sorted(set(arguments or {}) - set(known))
    close = [m for arg in unknown for m in get_close_matches(arg, known, n=1)]
    hint = f" (did you mean {', '.join(repr(m) for m in close)}?)" if close else ""
    listed = ", ".join(repr(arg) for arg in unknown)
    noun = "argument" if len(unknown) == 1 else "arguments"
    return UsageError(f"{name}: unknown {noun} {listed}{hint}", tool=name)


class LoreServer(MCPServer[Any]):
    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        unknown = _unknown_arguments(name, arguments)
        if unknown is not None:
            return error_result(unknown)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                problems = "; ".join(
                    f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
                    for err in cause.errors()
                )
                return error_result(UsageError(f"{name}: {problems}", tool=name))
            if name not in {spec.name for spec in TOOLS}:
                return error_result(UsageError(f"no tool named {name!r}", tool=name))
            raise


def build(data_dir: str | None = None) -> LoreServer:
    """The server with every tool of ``lore.mcp.tools`` registered."""
    state.configure(data_dir)
    for module in MODULES:
        import_module(f"lore.mcp.tools.{module}")
    from mcp.types import ToolAnnotations

    server = LoreServer(
        name="lore",
        title="lore",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )
    for spec in TOOLS:
        server.add_tool(
            adapt(spec),
            name=spec.name,
            title=spec.title,
            description=" ".join((spec.fn.__doc__ or "").split()),
            annotations=ToolAnnotations(
                title=spec.title,
                read_only_hint=spec.read_only,
                destructive_hint=False if not spec.read_only else None,
                open_world_hint=False,
            ),
        )
    resources.register(server)
    _keep_text(server)
    return server


def serve(data_dir: str | None = None) -> None:
    """Run the server on stdin/stdout until the client closes it."""
    import anyio

    from lore.mcp.stdio import run
    from lore.process import mark_long_lived

    mark_long_lived()
    server = build(data_dir)
    try:
        anyio.run(run, server)
    finally:
        state.close()


def _keep_text(server: LoreServer) -> None:
    """Text arguments stay the text the agent sent. The SDK parses a string argument as
    JSON whenever its type is not exactly ``str`` (for clients that send lists as JSON
    text), so an optional text (``str | None``) lost "null" (read as None) and refused
    '{"a": 1}' (read as an object). Those keep their string; lists and objects are still
    parsed."""
    import types
    import typing

    for spec in TOOLS:
        found = server._tool_manager.get_tool(spec.name)
        if found is None:
            continue
        meta = found.fn_metadata
        texts = set()
        for name, info in meta.arg_model.model_fields.items():
            annotation = info.annotation
            union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
            if annotation is str or (union and str in typing.get_args(annotation)):
                texts.update({name, info.alias} - {None})
        if not texts:
            continue
        original = meta.pre_parse_json

        def pre_parse(
            data: dict[str, Any], original: Any = original, texts: set[Any] = texts
        ) -> dict[str, Any]:
            parsed = dict(original(data))
            for key in texts & data.keys():
                if isinstance(data[key], str):
                    parsed[key] = data[key]
            return parsed

        object.__setattr__(meta, "pre_parse_json", pre_parse)
