"""Writing one benchmark's section into docs/benchmarks.md: the text between its two
markers is replaced, or the section is appended when the markers are not there yet."""

from __future__ import annotations

from pathlib import Path


def write_section(doc: Path, section: str, begin: str, end: str) -> None:
    """Replace the part of ``doc`` from ``begin`` to ``end`` with ``section`` (which holds
    both markers), or append ``section``."""
    section = section.rstrip("\n") + "\n"
    text = doc.read_text(encoding="utf-8") if doc.exists() else "# Benchmarks\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        tail = rest.split(end, 1)[1].lstrip("\n")
        text = head + section + ("\n" + tail if tail else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    doc.write_text(text, encoding="utf-8")
