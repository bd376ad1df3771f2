"""Tool ``review``: decisions pending review, and resolving one with its outcome."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from lore.mcp._tool import Doc, tool
from lore.mcp.state import store


@tool("review", title="Review pending decisions")
def review(
    id: Annotated[
        str | None, Field(description="A decision id to resolve (with `outcome`).")
    ] = None,
    outcome: Annotated[
        Literal["successful", "revised", "abandoned"] | None,
        Field(description="With `id`: what happened to the decision."),
    ] = None,
    lesson: Annotated[str | None, Field(description="With `id`: the lesson learned.")] = None,
    days: Annotated[
        int, Field(ge=0, description="List decisions pending for at least this many days (0: all).")
    ] = 3,
    force: Annotated[
        bool, Field(description="Resolve a retracted or already-resolved decision.")
    ] = False,
) -> Doc:
    """Without `id`: list active decisions whose outcome is still pending after `days`
    days, oldest first ({"days", "pending": [decision records]}); read-only. With `id` and
    `outcome`: record how the decision turned out. A successful one raises the confidence
    of the patterns linked to it, an abandoned one is recorded as a LogicError failure.
    Returns the same as `lore review --resolve --json`: {"ok", "id", "outcome", "record",
    "patterns_raised", "failure_id"}."""
    from lore.usecases.core import review as run

    return run(store(), days=days, resolve_id=id, outcome=outcome, lesson=lesson, force=force)
