"""The MCP tools, one module per group; importing a module declares its tools (``@tool``).

Adding a tool is one function in one of these modules (or a new module listed in
``MODULES``) that calls the use case the CLI command calls and returns its document.
"""

from __future__ import annotations

MODULES = ("session", "recall", "records", "review")
