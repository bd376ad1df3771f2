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
    return cut(cleaned, limit) if limit else cleaned


def cut(text: str, limit: int, mark: str = "…") -> str:
    """``text`` (already masked) at most ``limit`` characters, ``mark`` ending a cut one;
    never cut inside a redaction marker (a cut marker reads as text that lost its secret)."""
    if len(text) <= limit:
        return text
    kept = text[: limit - len(mark)]
    opened = kept.rfind("[REDACTED:")
    if opened >= 0 and "]" not in kept[opened:]:
        kept = kept[:opened]
    return kept.rstrip() + mark


def plain(text: str) -> str:
    """Terminal colour codes removed (command output)."""
    return ANSI.sub("", text) if "\x1b" in text else text
