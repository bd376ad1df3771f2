"""Use cases of the component commands: plain functions over a ``Store`` that return the
dicts the ``--json`` output shows. The CLI and the MCP server both call them; the domain
rules they apply live in ``lore/components/``.
"""

from __future__ import annotations
