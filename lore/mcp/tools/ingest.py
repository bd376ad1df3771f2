"""Tool ``ingest``: learn from agent session transcripts (``lore ingest``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from lore.mcp._tool import Doc, tool
from lore.mcp.state import store


@tool("ingest", title="Learn from agent session transcripts")
def ingest(
    paths: Annotated[
        list[str],
        Field(
            description="Transcript files or folders; empty: the agents' own session folders "
            "for the current repository."
        ),
    ] = [],  # noqa: B006
    agent: Annotated[
        Literal["claude", "codex", "gemini"] | None,
        Field(description="Only this agent's sessions (with paths: the format they must have)."),
    ] = None,
    since: Annotated[
        str | None, Field(description="Only what happened from this time on (2d, 2026-05-01).")
    ] = None,
    dry_run: Annotated[
        bool, Field(description="Report what would be written; write nothing.")
    ] = False,
    all: Annotated[
        bool, Field(description="Every project's sessions, not only this repository's.")
    ] = False,
) -> Doc:
    """Read Claude Code, Codex and Gemini CLI session transcripts and record what they
    show: each failed shell command as a failure (repeats counted, marked resolved when
    the command later succeeds), sentences that state a decision, a correction or a
    convention as raw inbox observations tagged `candidate` (confirm them with inbox
    promote), and a digest of each session. Call it at the end of a session, or before
    `resume` to catch up. Each file is read from where the last call stopped: calling it
    again writes nothing twice. Returns the same as `lore ingest --json`: {"dry_run",
    "repository", "files": [{"transcript", "agent", "session", "read", "lines",
    "failures": {"new", "updated"}, "resolved", "candidates", "session_record", ...}],
    "totals", "rule_of_three"}."""
    from lore.ingest.usecase import ingest as run

    return run(store(), list(paths), agent=agent, since=since, dry_run=dry_run, everything=all)
