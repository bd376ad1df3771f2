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
    if (
        value.startswith(_SPECIAL_START)
        or value.lower() in _AMBIGUOUS
        or ": " in value
        or " #" in value
        or value.endswith(":")
    ):
        raise Unsure
    return value
