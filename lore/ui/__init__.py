"""``lore ui``: a local web app over the same use cases as the CLI and the MCP server.

A face, like ``lore.cli`` and ``lore.mcp``: ``server`` serves it on loopback only,
``routes`` maps each request to the use case its command calls (returning that command's
``--json`` document), ``queues`` lists what needs a person; ``static/`` is the front end.
"""

from __future__ import annotations
