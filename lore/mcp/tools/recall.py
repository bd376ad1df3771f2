"""Tool ``recall``: ranked search over every kind of record, and its modes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from lore.mcp._tool import Doc, tool
from lore.mcp.state import store

TIME_HELP = (
    "a time: an ISO date or date-time, a month 2026-05, an ISO week 2026-W19, an age like 7d,"
    " 2w, 3m, or words: today, yesterday, last week, last month, a month name"
)


@tool("recall", title="Recall what lore knows", read_only=True)
def recall(
    query: Annotated[
        str, Field(description="Keywords or a whole question (optional in some modes).")
    ] = "",
    kinds: Annotated[
        list[str],
        Field(
            description="Only these kinds: decision, pattern, anti-pattern, failure, "
            "observation, evidence, goal, session, concept (plurals work)."
        ),
    ] = [],  # noqa: B006
    project: Annotated[str | None, Field(description="Only this project's records.")] = None,
    tags: Annotated[list[str], Field(description="Only records with all these tags.")] = [],  # noqa: B006
    since: Annotated[str | None, Field(description=f"Only records since {TIME_HELP}.")] = None,
    until: Annotated[
        str | None, Field(description=f"Only records before {TIME_HELP} (a date: its end).")
    ] = None,
    limit: Annotated[int, Field(ge=0, description="At most this many results (0: all).")] = 10,
    mode: Annotated[
        Literal["patterns", "failures", "triggers", "brief"] | None,
        Field(
            description="patterns: patterns and anti-patterns for the situation in "
            "`query`; failures: failures newest first with counts per type; triggers: error "
            "types that recur; brief: decisions, patterns, failures and contradictions on the "
            "topic `query`. Default: ranked search."
        ),
    ] = None,
    error_type: Annotated[
        str | None, Field(description="With mode failures: only this error type.")
    ] = None,
    threshold: Annotated[
        int | None, Field(ge=1, description="With mode triggers: minimum failures (3).")
    ] = None,
    show_all: Annotated[
        bool, Field(description="Include retracted and superseded records.")
    ] = False,
    explain: Annotated[bool, Field(description="Add each result's score components.")] = False,
    deep: Annotated[
        bool,
        Field(
            description="Rank through the knowledge graph (personalized PageRank seeded "
            "from the text hits): finds related records that share no words with the query."
        ),
    ] = False,
    graph_depth: Annotated[
        int, Field(ge=0, le=3, description="Also return records within N graph edges of each hit.")
    ] = 0,
    compact: Annotated[
        bool,
        Field(
            description="Return only each result's id, type, title and score (a plain "
            "query, no mode); read the one you need with the `show` tool."
        ),
    ] = False,
) -> Doc:
    """Search lore's memory before deciding or repeating work: "why did we pick X", "how do
    we deploy", "has this error happened before". Any matching word counts, word forms and
    typos match, ranking blends relevance, recency, importance and the current project.
    A time in the query ("last week", "in May 2026", "2 days ago") ranks that window's
    records higher; a kind it names ("what failed", "decisions") ranks that kind higher,
    and alone lists that kind's records (in the window). Returns the same as `lore recall
    --json`: {"query", "window" (the query's time window or null), "kinds" (the kinds it
    names), "results": [{"id", "type" (the kind), "score", "timestamp", ...every stored
    field}]}; the modes return their own documents
    (patterns: {"query", "project", "patterns", "anti_patterns"}; failures: {"type",
    "counts", "failures"}; triggers: {"threshold", "triggers"}; brief: {"topic",
    "decisions", "patterns", "failures", "contradictions"}; a `project` with no query:
    the project's context). With `compact`: {"query", "window", "results": [{"id", "type",
    "title", "score"}]}, to keep the context small: search, then `show` one. Read-only."""
    from lore.usecases.core import compact as cut
    from lore.usecases.core import recall as run

    found = run(
        store(),
        query,
        mode=mode,
        kinds=kinds,
        project=project,
        tags=tags,
        since=since,
        until=until,
        limit=limit,
        show_all=show_all,
        explain=explain,
        error_type=error_type,
        threshold=threshold,
        deep=deep,
        graph_depth=graph_depth,
    )
    return cut(found) if compact else found.doc
