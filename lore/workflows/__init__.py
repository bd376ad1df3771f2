"""Use cases that keep records alive after their capture: one module per component
(journal, inbox, evidence), each a set of plain functions over a ``Store`` that return
the dicts the CLI prints with ``--json`` (and MCP tools return). They never print."""
