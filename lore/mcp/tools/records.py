"""Tools that write one record (``remember``, ``learn``, ``fail``, ``observe``, ``capture``)
and read them back (``show``, ``list``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from lore.mcp._tool import Answer, Doc, tool
from lore.mcp.state import store

SOURCE = "mcp"  # where records written through these tools say they came from
Text = Annotated[str, Field(description="The record's text.")]
Tags = Annotated[list[str], Field(description="Tags (the project is added on its own).")]
Project = Annotated[
    str | None,
    Field(description="Project name (default: LORE_PROJECT, else the git repository's name)."),
]
Force = Annotated[bool, Field(description="Record even if a near-duplicate exists.")]
AllowSecret = Annotated[
    bool,
    Field(
        description="Write even though the text looks like a credential (only if it is not one)."
    ),
]


def _capture(text: str, kind: str | None, fields: dict[str, Any], **options: Any) -> Answer:
    """The capture document, after the warnings the CLI prints on stderr (if any)."""
    from lore.usecases.core import capture

    options.setdefault("source", SOURCE)
    written = capture(store(), text, kind=kind, fields=fields, **options)
    return Answer(written.doc, "\n".join(f"lore: warning: {w}" for w in written.warnings))


@tool("remember", title="Record a decision")
def remember(
    text: Annotated[str, Field(description='The decision; "X because: why vs: a, b" works.')],
    rationale: Annotated[str | None, Field(description="Why.")] = None,
    alternatives: Annotated[list[str], Field(description="Options not taken.")] = [],  # noqa: B006
    type: Annotated[
        str | None,
        Field(
            description="architecture, implementation, naming, tooling, process, bugfix, "
            "refactor or other."
        ),
    ] = None,
    files: Annotated[list[str], Field(description="Files it touches.")] = [],  # noqa: B006
    entities: Annotated[list[str], Field(description="Things it touches.")] = [],  # noqa: B006
    supersedes: Annotated[
        str | None, Field(description="The id of a decision this one replaces.")
    ] = None,
    tags: Tags = [],  # noqa: B006
    project: Project = None,
    force: Force = False,
    allow_secret: AllowSecret = False,
) -> Answer:
    """Record a decision as soon as it is made (a choice of tool, design, approach), with
    why and what was rejected, so the next session does not re-argue it. Refused as a
    near-duplicate of an existing decision unless `force`.
    Returns the same as `lore capture --json`:
    {"ok", "id", "type" (the kind), "timestamp", "record"}."""
    fields = {
        "rationale": rationale,
        "alternatives": alternatives,
        "type": type,
        "files": files,
        "entities": entities,
        "supersedes": supersedes,
    }
    return _capture(
        text,
        "decision",
        fields,
        tags=tags,
        project=project,
        force=force,
        allow_secret=allow_secret,
    )


@tool("learn", title="Record a pattern")
def learn(
    text: Annotated[str, Field(description="The pattern's name: the lesson in a line.")],
    solution: Annotated[str | None, Field(description="What works.")] = None,
    problem: Annotated[str | None, Field(description="The problem it solves.")] = None,
    context: Annotated[str | None, Field(description="When it applies.")] = None,
    category: Annotated[str | None, Field(description="A category.")] = None,
    confidence: Annotated[float | None, Field(ge=0, le=1, description="0 to 1.")] = None,
    examples: Annotated[list[str], Field(description="Examples.")] = [],  # noqa: B006
    tags: Tags = [],  # noqa: B006
    project: Project = None,
    force: Force = False,
    allow_secret: AllowSecret = False,
) -> Answer:
    """Record a pattern: a lesson that worked and should be reused (how to fix, test,
    deploy something here). `recall` with mode patterns finds it later.
    Returns the same as `lore capture --json`:
    {"ok", "id", "type" (the kind), "timestamp", "record"}."""
    fields = {
        "solution": solution,
        "problem": problem,
        "context": context,
        "category": category,
        "confidence": confidence,
        "examples": examples,
    }
    return _capture(
        text,
        "pattern",
        fields,
        tags=tags,
        project=project,
        force=force,
        allow_secret=allow_secret,
    )


@tool("fail", title="Record a failure")
def fail(
    error_type: Annotated[
        str,
        Field(
            description="The kind of failure: UserDeny, HardDeny, NonZeroExit, Timeout, "
            "ToolError, LogicError, PermissionError, EnvironmentError, UserError (or your own)."
        ),
    ],
    message: Annotated[str, Field(description="What failed, with the error text.")],
    tool: Annotated[str | None, Field(description="The tool or command that failed.")] = None,
    step: Annotated[str | None, Field(description="The step of the work.")] = None,
    tags: Tags = [],  # noqa: B006
    project: Project = None,
    allow_secret: AllowSecret = False,
) -> Answer:
    """Record a failure when a command, test or approach fails, so recurring ones are
    spotted. When its error type reaches three failures the result also carries
    "rule_of_three": {"error_type", "count", "pitfall", "pattern"}: time to name it, with
    `learn` (a pattern tagged with the error type) or `lore promote-failure` (a PITFALL);
    when `pitfall` or `pattern` names one already, read that record.
    Returns the same as `lore capture --json`:
    {"ok", "id", "type" (the kind), "timestamp", "record"}."""
    fields = {"error_type": error_type, "tool": tool, "step": step}
    return _capture(
        message, "failure", fields, tags=tags, project=project, allow_secret=allow_secret
    )


@tool("observe", title="Record an observation")
def observe(
    text: Text,
    tags: Tags = [],  # noqa: B006
    project: Project = None,
    allow_secret: AllowSecret = False,
) -> Answer:
    """Record a raw observation (something noticed, not yet a decision or a lesson) for
    later triage. Returns the same as `lore capture --json`:
    {"ok", "id", "type" (the kind), "timestamp", "record"}."""
    return _capture(text, "observation", {}, tags=tags, project=project, allow_secret=allow_secret)


@tool("capture", title="Record any kind of record")
def capture(
    text: Text,
    kind: Annotated[
        Literal[
            "decision", "pattern", "anti-pattern", "failure", "observation", "evidence", "concept"
        ]
        | None,
        Field(description="The kind (default: chosen from the fields, else observation)."),
    ] = None,
    fields: Annotated[
        dict[str, Any],
        Field(
            description="The kind's fields by name, as `lore capture` flags name them: "
            "failure error_type, tool, step; pattern solution, problem, context, category, "
            "origin, confidence, examples; anti-pattern symptom, risk, fix, severity; evidence "
            "provenance, supports, confidence (a level); decision rationale, alternatives, type, "
            "files, entities, outcome, lesson_learned, related_decisions, supersedes; concept "
            "description, aliases."
        ),
    ] = {},  # noqa: B006
    tags: Tags = [],  # noqa: B006
    project: Project = None,
    source: Annotated[str | None, Field(description="Where it came from (default: mcp).")] = None,
    force: Force = False,
    allow_secret: AllowSecret = False,
) -> Answer:
    """Record any kind of record with its fields: the general form of remember, learn,
    fail and observe, and the only one for anti-patterns, evidence and concepts.
    Returns the same as `lore capture --json`:
    {"ok", "id", "type" (the kind), "timestamp", "record"}."""
    options: dict[str, Any] = {"tags": tags, "project": project, "force": force}
    if source:
        options["source"] = source
    return _capture(text, kind, dict(fields), allow_secret=allow_secret, **options)


@tool("show", title="Show a record", read_only=True)
def show(
    id: Annotated[str, Field(description="The record's id (any kind).")],
    history: Annotated[
        bool, Field(description="Also return the stored lines behind its current state.")
    ] = False,
    source: Annotated[
        bool,
        Field(description="Also return the transcript lines an ingested record came from."),
    ] = False,
) -> Doc:
    """One record, any kind, in its latest state, exactly as stored (the same as `lore
    show --json`); with `history`: {"record", "history": [creation line, revisions]};
    with `source`, a record `ingest` wrote also gets "source_lines": {"transcript", "session",
    "lines", "entries": [{"line", "who", "text"}]}: what was said and run there."""
    from lore.usecases.core import show as run

    return run(store(), id, history=history, source=source)


@tool("list", title="List records of a kind", read_only=True)
def list_(
    kind: Annotated[
        str,
        Field(
            description="decision, pattern, anti-pattern, failure, observation, evidence, "
            "goal, session, project, concept or edge (plurals work)."
        ),
    ],
    tags: Annotated[list[str], Field(description="Only records with all these tags.")] = [],  # noqa: B006
    project: Annotated[str | None, Field(description="Only this project's records.")] = None,
    limit: Annotated[int, Field(ge=0, description="At most this many (0: all).")] = 20,
    show_all: Annotated[
        bool, Field(description="Include retracted and superseded records.")
    ] = False,
) -> list[Doc]:
    """Records of one kind, newest first, exactly as stored: the same array as `lore list
    KIND --json` (as structured content: {"result": [...]})."""
    from lore.usecases.records import list_records

    records = list_records(store(), kind, hidden=show_all, tags=tags, project=project, limit=limit)
    return [r.to_dict() for r in records]
