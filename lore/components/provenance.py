"""The ``provenance`` field of what ``lore ingest`` writes (failures, observations,
sessions): where in an agent's transcript a record comes from, and its shape check."""

from __future__ import annotations

from dataclasses import field
from typing import Any


def provenance_field() -> Any:
    """``{"transcript": absolute path, "session": the agent's session id or None, "lines":
    [first, last]}`` (1-based) or None; ``to_dict()`` leaves it out while None, so records
    made any other way keep their shape."""
    return field(default=None, metadata={"omit_none": True, "shape": problem})


def problem(value: Any) -> str | None:
    """What is wrong with a ``provenance`` value (None: nothing, or no value)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return "must be an object {transcript, session, lines} or null"
    if not isinstance(value.get("transcript"), str) or not value["transcript"].startswith("/"):
        return "transcript must be an absolute path"
    if not isinstance(value.get("session"), (str, type(None))):
        return "session must be a string or null"
    lines = value.get("lines")
    ints = isinstance(lines, list) and len(lines) == 2 and all(type(n) is int for n in lines)
    if not (ints and 1 <= lines[0] <= lines[1]):  # type: ignore[index]
        return "lines must be [first, last]: line numbers from 1, first <= last"
    return None
