"""Tools over the component commands: ``journal_update``, ``goal_update``, ``graph_neighbors``,
``timeline``.

Each calls the use case its CLI command calls (``lore journal update``, ``lore goal
update``, ``lore graph neighbors``, ``lore timeline``) and returns the same ``--json`` document.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from lore.mcp._tool import Doc, tool
from lore.mcp.state import store


@tool("journal_update", title="Update a decision")
def journal_update(
    id: Annotated[str, Field(description="The decision id (dec-...).")],
    outcome: Annotated[
        Literal["pending", "successful", "revised", "abandoned"] | None,
        Field(description="How the decision turned out."),
    ] = None,
    rationale: Annotated[str | None, Field(description="A new rationale (replaces it).")] = None,
    lesson: Annotated[str | None, Field(description="The lesson learned from it.")] = None,
    tags: Annotated[
        list[str] | None, Field(description="New free tags (replace them; the project tag stays).")
    ] = None,
    type: Annotated[
        Literal[
            "architecture",
            "implementation",
            "naming",
            "tooling",
            "process",
            "bugfix",
            "refactor",
            "other",
        ]
        | None,
        Field(description="The decision's classification."),
    ] = None,
    allow_secret: Annotated[
        bool, Field(description="Write text that looks like a credential anyway.")
    ] = False,
) -> Doc:
    """Change a recorded decision once you know more: its outcome (after it proved out or
    failed), rationale, lesson, tags or type. One appended revision records the whole
    change; history is kept. Returns the same as `lore journal update --json`: {"ok",
    "id", "changed": [field names], "record"}. Unknown id: error `not_found`; a bad value:
    `invalid`."""
    from lore.usecases.journal import update

    return update(
        store(),
        id,
        outcome=outcome,
        rationale=rationale,
        lesson=lesson,
        tags=tags,
        type=type,
        allow_secret=allow_secret,
    )


@tool("goal_update", title="Update a goal")
def goal_update(
    id: Annotated[str, Field(description="The goal id (goal-...).")],
    status: Annotated[
        Literal["draft", "active", "blocked", "completed", "cancelled"] | None,
        Field(description="The goal's new status."),
    ] = None,
    priority: Annotated[
        Literal["critical", "high", "medium", "low"] | None, Field(description="New priority.")
    ] = None,
    deadline: Annotated[str | None, Field(description="New deadline, YYYY-MM-DD.")] = None,
    add_criteria: Annotated[
        list[str] | None, Field(description="Success criteria to add (they get ids sc-N).")
    ] = None,
    met: Annotated[
        list[str] | None, Field(description="Criterion ids now met, e.g. ['sc-1'].")
    ] = None,
    depends_on: Annotated[
        list[str] | None, Field(description="Goal ids this goal depends on (no cycles).")
    ] = None,
    allow_secret: Annotated[
        bool, Field(description="Write text that looks like a credential anyway.")
    ] = False,
) -> Doc:
    """Move a goal forward: mark success criteria met, add criteria, change its status,
    priority or deadline, or record what it depends on. The goal's YAML file keeps its
    hand edits. Returns the same as `lore goal update --json`: the goal with its
    `completion` ("met/total"). Unknown goal or criterion: `not_found`; a dependency
    cycle or bad value: `invalid`."""
    from lore.usecases.goals import update_goal

    return update_goal(
        store(),
        id,
        status=status,
        priority=priority,
        deadline=deadline,
        add_criteria=add_criteria or (),
        met=met or (),
        depends_on=depends_on or (),
        allow_secret=allow_secret,
    )


@tool("graph_neighbors", title="What relates to a record", read_only=True)
def graph_neighbors(
    id: Annotated[
        str,
        Field(description="A record id, or a node key such as project:NAME or file:PATH."),
    ],
    relation: Annotated[
        str | None, Field(description="Only edges of this relation (e.g. supersedes).")
    ] = None,
    direction: Annotated[
        Literal["in", "out", "both"], Field(description="Edges leaving, entering, or both.")
    ] = "both",
) -> Doc:
    """The records one edge away from a record in the knowledge graph: what it
    supersedes or contradicts, the files and project it touches, the evidence behind it,
    the session that produced it. Call it before changing something a decision covers.
    Returns the same as `lore graph neighbors --json`: {"id", "neighbors": [{"id",
    "type", "label", "relation", "direction", ...}]}. Unknown node: `not_found`."""
    from lore.graph.queries import neighbors
    from lore.graph.snapshot import open_graph

    return neighbors(open_graph(store()), id, relation=relation, direction=direction)


@tool("timeline", title="What happened when", read_only=True)
def timeline(
    period: Annotated[
        str | None,
        Field(
            description=(
                "Empty for the years; a year (2026) for its months; a month (2026-05, "
                "'may 2026', 'last month') for its ISO weeks; a week (2026-W19, 'this "
                "week') for its days; a day (2026-05-12, 'yesterday') for its records."
            )
        ),
    ] = None,
    project: Annotated[str | None, Field(description="Only this project's records.")] = None,
    kinds: Annotated[
        list[str] | None, Field(description="Only these kinds (decision, failure, ...).")
    ] = None,
    limit: Annotated[
        int, Field(ge=0, description="A day lists its first N records (0: all).")
    ] = 200,
) -> Doc:
    """Navigate the memory by time: how many records of each kind a period holds and a
    short digest of it (top entities and tags; decisions with their outcome, recurring
    failures, new patterns and handoffs, each with its id). Start with no period and
    drill down; a day lists its records. Returns the same as `lore timeline --json`:
    {"period", "level", "total", "counts", "digest", "periods": [...]} ("limit" and
    "records" for a day). An unreadable period: error `usage`."""
    from lore.timeline.core import timeline as run

    return run(store(), period, project=project, kinds=tuple(kinds or ()), limit=limit)
