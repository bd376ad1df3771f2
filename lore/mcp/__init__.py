"""lore as an MCP server (``lore mcp``): thin adapters from MCP tools, resources and a prompt
to the use cases the CLI calls (``lore.usecases``, ``lore.api``). The MCP SDK (the ``[mcp]``
extra) is imported only under this package, and only by ``server`` and the tool modules.
"""

from __future__ import annotations

SDK_REQUIREMENT = "mcp>=2.3,<3"
