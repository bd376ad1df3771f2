"""Resources ``lore://resume`` and ``lore://record/{id}``, and the prompt ``start-session``."""

from __future__ import annotations

from typing import Any

from lore.errors import LoreError, NotFoundError
from lore.mcp.state import store


def _resource_error(exc: LoreError) -> Exception:
    """lore's error as the SDK's resource error (a JSON-RPC error with lore's message)."""
    from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

    kind = ResourceNotFoundError if isinstance(exc, NotFoundError) else ResourceError
    return kind(f"{exc.message} (code {exc.code})")


def resume_text() -> str:
    """The resume text, as `lore resume` prints it."""
    from lore.usecases.core import resume

    try:
        return resume(store())[0]
    except LoreError as exc:
        raise _resource_error(exc) from None


def record_json(id: str) -> str:
    """One record as stored (`lore show ID --json`)."""
    from lore.mcp._tool import dumps
    from lore.usecases.core import show

    try:
        return dumps(show(store(), id))
    except LoreError as exc:
        raise _resource_error(exc) from None


def start_session(project: str | None = None) -> str:
    """Start a session: what the last one left, and how to keep lore up to date."""
    from lore.usecases.core import resume

    text = resume(store(), project=project)[0]
    return (
        "Here is what lore remembers from the previous sessions of this project.\n\n"
        f"{text}\n\n"
        "While you work: call `recall` before deciding anything the project may already "
        "have decided; `remember` each decision with its rationale; `learn` what worked; "
        "`fail` what failed. At the end, call `handoff` with what is done and what is next."
    )


def register(server: Any) -> None:
    server.resource(
        "lore://resume",
        name="resume",
        title="Resume the last session",
        description=resume_text.__doc__,
        mime_type="text/plain",
    )(resume_text)
    server.resource(
        "lore://record/{id}",
        name="record",
        title="A record by id",
        description=record_json.__doc__,
        mime_type="application/json",
    )(record_json)
    server.prompt(name="start-session", title="Start a session with lore")(start_session)
