"""Stable ids for what ingestion writes: the same session and the same source always give
the same id (lore's form, ``<prefix>-`` and 12 hex digits), so reading a transcript again,
grown, truncated or replaced, never writes a record twice."""

from __future__ import annotations

try:  # the C module behind hashlib.sha1 (hashlib itself loads OpenSSL: milliseconds)
    from _sha1 import sha1
except ImportError:  # pragma: no cover - an interpreter without it
    from hashlib import sha1

from lore.clock import ID_HEX_CHARS


def digest(*parts: str) -> str:
    return sha1("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def record_id(prefix: str, *parts: str) -> str:
    """``<prefix>-<12 hex digits>`` derived from ``parts``."""
    return f"{prefix}-{digest(*parts)[:ID_HEX_CHARS]}"


def session_record_id(agent_session: str | None, fallback: str = "") -> str | None:
    """The lore session an agent's session maps to: ``session-`` and up to 32 hex digits of
    its id (the rule the hooks use, so a hook's handoff and ingestion meet in one record);
    an id with fewer than 8 hex digits is hashed; None when there is nothing to go on."""
    raw = (agent_session or "").lower()
    hexed = "".join(c for c in raw if c in "0123456789abcdef")
    if len(hexed) >= 8:
        return f"session-{hexed[:32]}"
    if raw or fallback:
        return f"session-{digest(raw or fallback)[:32]}"
    return None
