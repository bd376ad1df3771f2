"""The MCP tools, one module per group; importing a module declares its tools (``@tool``).

Adding a tool is one function in one of these modules (or a new module listed in
``MODULES``) that calls the use case the CLI command calls and returns its document::

    @tool("timeline", title="What happened when", read_only=True)
    def timeline(period: Annotated[str | None, Field(description="...")] = None) -> Doc:
        '''What the agent reads: when to call it, what comes back.'''
        from lore.timeline.core import timeline as run

        return run(store(), period)

Arguments are typed (their JSON Schema is derived from the annotations, descriptions
from ``Field``); a ``LoreError`` raised inside becomes a tool error by itself.
"""

from __future__ import annotations

MODULES = ("session", "recall", "records", "review", "components", "inbox", "ingest", "dynamics")
