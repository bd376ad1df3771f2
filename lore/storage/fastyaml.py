"""A fast reader for the YAML documents lore writes itself (a strict subset of YAML).

``flat_yaml`` returns exactly what ruamel would, or raises ``Unsure`` and lets the
caller fall back to the full round-trip loader. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Any

# ruamel's round-trip loader takes ~10 ms a document: a cold build over thousands of
# patterns would take minutes. Documents lore writes use a tiny subset of YAML (a flat
# mapping of plain or quoted scalars, ``[]``, and block lists of scalars), which this
# reads directly; anything else (comments, nesting, escapes, dates, unusual numbers) is
# left to ``read_document``, so the result is always what the store itself would read.

_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: (.*))?")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")
_SPECIAL_START = tuple("[]{}#&*!|>%@`,?:-+.0123456789~")
_ODD_CHARS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")
_AMBIGUOUS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~", ""})
# YAML 1.1's booleans, plain strings in YAML 1.2 as ruamel reads them (any case): ruamel
# writes ``solution: y`` so, and reads it back as "y".
_STRINGS_IN_1_2 = frozenset({"yes", "no", "on", "off", "y", "n"})


class Unsure(Exception):
    """The fast reader declines: let ruamel read this document."""


def flat_yaml(text: str) -> dict[str, Any]:
    if _ODD_CHARS.search(text) or text.startswith(("%", "---")):
        raise Unsure
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out: dict[str, Any] = {}
    i = 0
    while i < len(lines):
        match = _KEY_LINE.fullmatch(lines[i].rstrip(" "))
        if match is None or match.group(1) in out or match.group(1).lower() in _AMBIGUOUS:
            raise Unsure
        key, value = match.group(1), (match.group(2) or "").strip(" ")
        i += 1
        block = []
        while i < len(lines) and lines[i].startswith(" "):
            block.append(lines[i].rstrip(" "))
            i += 1
        if value:
            rest = [b.strip(" ") for b in block]
            if any(not r or r.startswith(("- ", "#")) for r in rest):
                raise Unsure
            out[key] = _scalar(" ".join([value, *rest]), rest)
        elif not block:
            out[key] = None
        else:
            out[key] = _items(block)
    if not out:
        raise Unsure
    return out


def _items(block: list[str]) -> list[Any]:
    """A block list: of scalars, or of flat one-line ``key: value`` mappings (criteria)."""
    items: list[list[str]] = []
    for line in block:
        if line.startswith("  - ") and line[4:5] != " ":  # (extra spaces move a mapping)
            items.append([line[4:]])
        elif line.startswith("    ") and items and not line.lstrip(" ").startswith(("- ", "#")):
            mapping = _KEY_LINE.fullmatch(items[-1][0]) is not None
            items[-1].append(line[4:] if mapping else line.strip(" "))
        else:
            raise Unsure  # a nested mapping, a blank line, odd indentation
    return [
        _mapping(parts) if _KEY_LINE.fullmatch(parts[0]) else _scalar(" ".join(parts), parts[1:])
        for parts in items
    ]


def _mapping(lines: list[str]) -> dict[str, Any]:
    """One list item that is a flat mapping, each ``key: value`` on a line of its own."""
    out: dict[str, Any] = {}
    for line in lines:
        match = _KEY_LINE.fullmatch(line)
        if match is None or not match.group(2) or match.group(1) in out:
            raise Unsure  # a nested value, a continued line, a repeated key
        if match.group(1).lower() in _AMBIGUOUS:
            raise Unsure
        out[match.group(1)] = _scalar(match.group(2).strip(" "), [])
    return out


def _scalar(value: str, continued: list[str]) -> Any:
    if value in ("[]", "{}") and not continued:
        return [] if value == "[]" else {}
    if value.startswith("'"):
        inner = value[1:-1] if len(value) > 1 and value.endswith("'") else None
        if inner is None or "'" in inner.replace("''", ""):
            raise Unsure
        return inner.replace("''", "'")
    if value.startswith('"'):
        inner = value[1:-1] if len(value) > 1 and value.endswith('"') else None
        if inner is None or '"' in inner or "\\" in inner:
            raise Unsure
        return inner
    if not continued:
        if value == "null":
            return None
        if value in ("true", "false"):
            return value == "true"
        if _INT.fullmatch(value):
            return int(value)
        if _FLOAT.fullmatch(value):
            return float(value)
        if value.lower() in _STRINGS_IN_1_2:
            return value
    if (
        value.startswith(_SPECIAL_START)
        or value.lower() in _AMBIGUOUS
        or ": " in value
        or " #" in value
        or value.endswith(":")
    ):
        raise Unsure
    return value


# --- the writer ---------------------------------------------------------------------
#
# The mirror of ``flat_yaml``: a new document lore writes is usually a flat mapping of
# short plain strings, numbers, nulls and lists of strings. ``flat_dump`` writes those
# byte for byte as ruamel (configured as in ``yamlio``) would, in a fraction of the
# time and without importing ruamel; anything it is not sure of (long or multi-line
# text, numbers-as-strings, reserved words, nesting) it declines, and ruamel writes.

WIDTH_LIMIT = 90  # ruamel folds lines longer than its width (100): stay well below
_DUMP_KEY = re.compile(r"[a-z_][a-z0-9_]*")
_PLAIN_FLOAT = re.compile(r"-?[0-9]+\.[0-9]+")
_QUOTED_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z")
_LEAD_QUOTED = frozenset("#&*!|>%@`[{,'\"")  # a plain scalar cannot start with these
_RESERVED = frozenset({"null", "true", "false", "yes", "no", "on", "off", "y", "n", "~"})


def flat_dump(data: Any) -> str | None:
    """``data`` as ruamel would write it, or None when this writer is not sure."""
    if type(data) is not dict or not data:
        return None
    lines: list[str] = []
    for key, value in data.items():
        if not isinstance(key, str) or not _DUMP_KEY.fullmatch(key):
            return None
        head = f"{key}:"
        if value is None:
            lines.append(head)
        elif isinstance(value, list):
            if not value:
                lines.append(f"{head} []")
                continue
            lines.append(head)
            for item in value:
                text = _dump_scalar(item, 4)
                if text is None:
                    return None
                lines.append(f"  - {text}")
        else:
            text = _dump_scalar(value, len(head) + 1)
            if text is None:
                return None
            lines.append(f"{head} {text}")
    return "\n".join(lines) + "\n"


def _dump_scalar(value: Any, column: int) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        return text if _PLAIN_FLOAT.fullmatch(text) else None
    if not isinstance(value, str):
        return None
    if value == "":
        return "''"
    if column + len(value) + 2 > WIDTH_LIMIT or not _simple_text(value):
        return None
    if _QUOTED_TIMESTAMP.fullmatch(value):
        return f"'{value}'"  # it would read back as a timestamp
    if not value[0].isalpha() or value.lower() in _RESERVED or "#" in value:
        return None
    if ": " in value or value.endswith(":"):
        # Single quotes, as ruamel picks them (with a quote inside it picks double ones).
        return None if "'" in value else f"'{value}'"
    if ":" in value:
        return None
    return value


def _simple_text(value: str) -> bool:
    """One line of printable text without edge spaces or characters ruamel escapes."""
    if value != value.strip(" ") or value[0] in _LEAD_QUOTED:
        return False
    return all((" " <= c <= "~") or (c.isalpha() and c.isprintable()) for c in value)
