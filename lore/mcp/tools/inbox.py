"""Tool ``inbox``: list observations (the candidates ingestion found among them), promote
one into a decision, pattern or evidence, or discard it."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from lore.mcp._tool import Doc, tool
from lore.mcp.state import store


@tool("inbox", title="Triage observations and candidates")
def inbox(
    action: Annotated[
        Literal["list", "promote", "discard"],
        Field(description="list (read-only), promote one, or discard one."),
    ] = "list",
    id: Annotated[str | None, Field(description="promote, discard: the observation's id.")] = None,
    to: Annotated[
        Literal["decision", "pattern", "evidence"] | None,
        Field(description="promote: the kind of record to make."),
    ] = None,
    text: Annotated[
        str | None,
        Field(description="promote: the new record's text (default: the observation's)."),
    ] = None,
    fields: Annotated[
        dict[str, Any],
        Field(
            description="promote: field values of the new record, named as in `lore capture`'s "
            'flags ({"rationale": "..."} for a decision, {"solution": "..."} for a pattern).'
        ),
    ] = {},  # noqa: B006
    reason: Annotated[str | None, Field(description="discard: why (required).")] = None,
    status: Annotated[
        Literal["raw", "promoted", "discarded", "all"],
        Field(description="list: observations with this status (default raw)."),
    ] = "raw",
    tags: Annotated[
        list[str],
        Field(
            description="list: only observations with all these tags (`candidate`: what "
            "`ingest` found in sessions; with `decision`, `pattern` or `preference`)."
        ),
    ] = [],  # noqa: B006
    limit: Annotated[int, Field(ge=0, description="list: at most this many (0: all).")] = 20,
    force: Annotated[
        bool, Field(description="promote: store it even if it nearly duplicates a record.")
    ] = False,
    allow_secret: Annotated[
        bool, Field(description="Store text the secrets gate would refuse.")
    ] = False,
) -> Doc:
    """The inbox holds raw observations, among them candidates that `ingest` found in agent
    sessions (decisions stated, corrections, conventions: tagged `candidate`). Confirm one
    with `promote` (it becomes a decision, pattern or evidence through the normal capture
    checks, `derived_from` the observation), or `discard` it with a reason. Returns: list
    {"observations": [records as `lore inbox --json` prints them], "total"}; promote {"ok",
    "id", "promoted_to", "observation", "target", "warnings"}; discard the capture shape."""
    from lore.errors import UsageError
    from lore.usecases import inbox as use

    if action == "list":
        found = use.list_observations(store(), status=status, tags=tags)
        return {"observations": found[:limit] if limit else found, "total": len(found)}
    if not id:
        raise UsageError(f"{action} needs the observation's `id`")
    if action == "promote":
        if to is None:
            raise UsageError("promote needs `to`: decision, pattern or evidence")
        return use.promote(
            store(),
            id,
            to,
            text=text,
            fields=fields,
            source="mcp",
            force=force,
            allow_secret=allow_secret,
        )
    if not (reason or "").strip():  # (the use case names the CLI's --reason)
        raise UsageError("discard needs `reason`: why the observation is dropped")
    return use.discard(store(), id, reason=reason or "", allow_secret=allow_secret)
