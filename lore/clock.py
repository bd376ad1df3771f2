"""The only sources of time and randomness: timestamps and record ids.

Tests freeze these through ``LORE_NOW`` or monkeypatching; nothing else in lore
calls ``datetime.now``, and ``os.urandom`` elsewhere only names temporary files.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

ID_HEX_CHARS = 12  # 48 random bits: collision-free across clones without coordination


def now() -> str:
    """Current UTC time as ISO-8601 with microseconds and a ``Z`` suffix."""
    fixed = os.environ.get("LORE_NOW")
    if fixed:
        try:
            return normalize_timestamp(fixed)
        except (ValueError, TypeError):
            from lore.errors import UsageError

            raise UsageError(
                f"LORE_NOW={fixed!r} is not an ISO-8601 time (e.g. 2026-01-02T03:04:05Z)"
            ) from None
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def now_datetime() -> datetime:
    """:func:`now` as an aware datetime (honours ``LORE_NOW`` too)."""
    return parse_timestamp(now())


def new_id(prefix: str) -> str:
    """``prefix-`` plus 48 bits of random lowercase hex, e.g. ``dec-3f9a0c1b2d4e``."""
    # os.urandom is what secrets.token_hex reads; importing ``secrets`` (hmac,
    # hashlib, random, base64) would add milliseconds to every capture's start-up.
    return f"{prefix}-{os.urandom(ID_HEX_CHARS // 2).hex()}"


def epoch(value: object) -> float:
    """Seconds since 1970 of an ISO-8601 timestamp; 0.0 for anything that is not one."""
    if not isinstance(value, str):
        return 0.0
    try:
        return parse_timestamp(value).timestamp()
    except ValueError:
        return 0.0


def parse_timestamp(value: str) -> datetime:
    """Parse an ISO-8601 timestamp (``Z`` or offset, date only allowed) into aware UTC."""
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def normalize_timestamp(value: str) -> str:
    """Any accepted ISO-8601 form rewritten as lore's canonical UTC ``…Z`` form."""
    return parse_timestamp(value).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
