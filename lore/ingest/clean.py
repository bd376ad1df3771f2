"""Text from a transcript made safe to store: ``<private>...</private>`` removed, every
credential masked (``lore.secrets.redact``, the gate's own detectors), then cut short.
Masking comes before cutting, so a credential is never half kept."""

from __future__ import annotations

import re

PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.DOTALL | re.IGNORECASE)
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
PRIVATE_MARK = "[private]"


def strip_private(text: str) -> str:
    """``text`` without what the user wrapped in ``<private>`` tags (an unclosed tag hides
    everything after it)."""
    if "<private" not in text and "<PRIVATE" not in text:
        return text
    return PRIVATE.sub(PRIVATE_MARK, text)


def safe(text: str, limit: int = 0) -> str:
    """Private parts dropped, credentials masked, whitespace collapsed, cut to ``limit``."""
    from lore.secrets.gate import redact

    cleaned = " ".join(redact(strip_private(text)).split())
    if limit and len(cleaned) > limit:
        cleaned = cleaned[: limit - 1].rstrip() + "…"
    return cleaned


def plain(text: str) -> str:
    """Terminal colour codes removed (command output)."""
    return ANSI.sub("", text) if "\x1b" in text else text
