"""The ``provenance`` field of ingested records: where in an agent's transcript a record
comes from (``{"transcript", "session", "lines": [first, last]}``), and its shape check."""

from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import Any


def provenance_field() -> Any:
    """A record field holding a provenance object or None; ``to_dict()`` leaves it out while
    it is None, so records made any other way keep their shape."""
    return field(default=None, metadata={"omit_none": True, "shape": "provenance"})


def make(transcript: str, session: str | None, first: int, last: int) -> dict[str, Any]:
    return {"transcript": transcript, "session": session, "lines": [first, last]}


def problem_of(value: Any) -> str | None:
    """What is wrong with a ``provenance`` value, or None when it is well formed (or None)."""
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


_SPECIAL: dict[type, tuple[tuple[str, ...], frozenset[str]]] = {}


def special_fields(cls: type) -> tuple[tuple[str, ...], frozenset[str]]:
    """A record class's fields ``to_dict()`` leaves out while None, and those with a
    documented shape (``provenance``); worked out once per class."""
    cached = _SPECIAL.get(cls)
    if cached is None:
        fields = dataclasses.fields(cls)
        omitted = tuple(f.name for f in fields if f.metadata.get("omit_none"))
        shaped = frozenset(f.name for f in fields if "shape" in f.metadata)
        cached = _SPECIAL[cls] = (omitted, shaped)
    return cached
