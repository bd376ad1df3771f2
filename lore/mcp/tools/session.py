"""Tools ``resume`` and ``handoff``: the start and the end of a session."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from lore.mcp._tool import Answer, Doc, tool
from lore.mcp.state import store

Project = Annotated[
    str | None,
    Field(description="Project name (default: LORE_PROJECT, else the git repository's name)."),
]


@tool("resume", title="Resume the last session", read_only=True)
def resume(
    project: Project = None,
    session_id: Annotated[
        str | None, Field(description="A session id to resume (default: the last one).")
    ] = None,
    budget: Annotated[
        int | None, Field(ge=1, description="Cap the text at about this many tokens.")
    ] = None,
) -> Answer:
    """Call this first, at the start of a task: what the last session left (its handoff
    message, next steps, blockers, questions, open threads, git state), recent decisions,
    the most confident patterns, pitfalls, recurring failures, open goals and decisions
    pending review. Returns the text to read, then the same as `lore resume --json`:
    {"project", "session", "reconstructed", "recent_decisions", "patterns", "pitfalls",
    "recurring_failures", "goals", "goals_count", "pending_review",
    "pending_review_count", "fork", "cut"}. Read-only."""
    from lore.usecases.core import resume as run

    text, doc = run(store(), session_id=session_id, project=project, budget=budget)
    return Answer(doc, text)


@tool("handoff", title="Hand off to the next session")
def handoff(
    message: Annotated[str, Field(description="What was done and where things stand.")],
    next: Annotated[list[str], Field(description="Next steps, one per item.")] = [],  # noqa: B006
    blockers: Annotated[list[str], Field(description="What blocks progress.")] = [],  # noqa: B006
    questions: Annotated[list[str], Field(description="Open questions.")] = [],  # noqa: B006
    threads: Annotated[list[str], Field(description="Open threads to pick up.")] = [],  # noqa: B006
    replace: Annotated[
        bool,
        Field(description="In a session started by a fork: drop the inherited open items."),
    ] = False,
    project: Project = None,
    allow_secret: Annotated[
        bool,
        Field(description="Write even though it looks like a credential (if it is not one)."),
    ] = False,
) -> Doc:
    """Call this at the end of a task (or before the context is compacted) to close the
    current session with a note for whoever comes next: `message` first, then next
    steps, blockers, questions and threads. The session also records the git state and
    the ids of every record captured during it. Text that looks like a credential is refused
    unless `allow_secret`. Returns the same as `lore handoff
    --json`: {"ok", "id", "type": "session", "timestamp", "record", "open_items"}
    (`open_items`: whether the lists were merged with inherited ones, replaced or settled)."""
    from lore.usecases.core import handoff as run

    return run(
        store(),
        message,
        project=project,
        next_steps=next,
        blockers=blockers,
        questions=questions,
        threads=threads,
        replace=replace,
        allow_secret=allow_secret,
    ).doc
