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


def masked(text: str) -> str:
    """Private parts dropped and credentials masked; nothing else changed."""
    from lore.secrets.gate import redact

    return redact(strip_private(text))


def safe(text: str, limit: int = 0) -> str:
    """Private parts dropped, credentials masked, then (never before: a cut or a collapsed
    line break can leave a key no rule recognises) whitespace collapsed and the text cut
    to ``limit``, never inside a redaction marker."""
    cleaned = " ".join(masked(text).split())
    if limit and len(cleaned) > limit:
        cut = cleaned[: limit - 1]
        opened = cut.rfind("[REDACTED:")
        if opened >= 0 and "]" not in cut[opened:]:
            cut = cut[:opened]
        cleaned = cut.rstrip() + "…"
    return cleaned


def plain(text: str) -> str:
    """Terminal colour codes removed (command output)."""
    return ANSI.sub("", text) if "\x1b" in text else text
