"""lore as an MCP server (``lore mcp``): thin adapters from MCP tools, resources and a prompt
to the use cases the CLI calls (``lore.usecases``, ``lore.api``). The MCP SDK (the ``[mcp]``
extra) is imported only under this package, and only by ``server`` and the tool modules.
"""

from __future__ import annotations

SDK_REQUIREMENT = "mcp>=2.3,<3"

# What the server offers, in the order it registers them, for `lore mcp --help` (which
# must not import the SDK or the tool modules). tests/mcpserver checks these against what
# the running server lists, so the help cannot drift from the server.
TOOL_NAMES = (
    "resume",
    "handoff",
    "recall",
    "remember",
    "learn",
    "fail",
    "observe",
    "capture",
    "show",
    "list",
    "review",
    "journal_update",
    "goal_update",
    "graph_neighbors",
    "timeline",
    "inbox",
    "ingest",
    "stale",
    "consolidate",
    "archive",
    "pin",
)
RESOURCES = ("lore://resume", "lore://record/{id}")
PROMPTS = ("start-session",)


def sdk_installed() -> bool:
    """Whether the MCP SDK (with the server API lore uses) can be imported."""
    try:
        import mcp.server.mcpserver  # noqa: F401
    except ImportError:
        return False
    return True
