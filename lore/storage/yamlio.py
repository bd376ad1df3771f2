"""The one configured round-trip YAML: keeps comments, key order and unknown keys.

ruamel.yaml is imported lazily, on first use, so commands that never touch YAML
never pay for it.
"""

from __future__ import annotations

import io
import re
from datetime import date, datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

from lore.errors import DataError

# Characters outside YAML's printable set, plus the ones some readers take as line
# breaks or a byte-order mark, and a carriage return (a block scalar turns it into \n).
_NEEDS_ESCAPES = re.compile(
    "[^\t\n\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029\ufeff]"
)


@lru_cache(maxsize=1)
def _yaml() -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.representer import RoundTripRepresenter

    class Representer(RoundTripRepresenter):
        def represent_scalar(
            self, tag: Any, value: Any, style: Any = None, anchor: Any = None
        ) -> Any:
            # ruamel writes these raw in the style a hand-edited value had (its
            # 'quotes' or |block are kept on update) and then cannot read them back
            # (NEL folds into a space, controls are refused): only "\escapes" survive.
            if isinstance(value, str) and _NEEDS_ESCAPES.search(value):
                style = '"'
            return super().represent_scalar(tag, value, style, anchor)

    yaml = YAML(typ="rt")
    yaml.Representer = Representer
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 100
    yaml.preserve_quotes = True
    yaml.allow_unicode = True
    return yaml


def loads(text: str, name: str) -> Any:
    """Parse YAML text; a syntax error becomes a ``DataError`` naming file and line."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    if any(line.startswith(("<<<<<<<", ">>>>>>>")) for line in text.splitlines()):
        line = next(
            i
            for i, text_line in enumerate(text.splitlines(), 1)
            if text_line.startswith(("<<<<<<<", ">>>>>>>"))
        )
        raise DataError(f"{name}:{line}: git conflict marker", file=name, line=line)
    try:
        tree = _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 0
        problem = exc.problem or exc.context or "invalid YAML"
        raise DataError(f"{name}:{line}: invalid YAML: {problem}", file=name, line=line) from None
    except YAMLError as exc:
        raise DataError(f"{name}: invalid YAML: {exc}", file=name) from None
    if "*" in text and _expanded_size(tree) > MAX_VALUES:
        raise DataError(
            f"{name}: aliases expand this document beyond {MAX_VALUES:,} values "
            "(a 'billion laughs' document?); not read",
            file=name,
        )
    return tree


MAX_VALUES = 1_000_000  # values a document may expand to through aliases


def _expanded_size(tree: Any) -> int:
    """How many values ``tree`` holds once every alias is expanded (computed without
    expanding: each shared container is measured once). A recursive alias counts as
    too many."""
    sizes: dict[int, int] = {}
    busy: set[int] = set()

    def size(node: Any) -> int:
        if not isinstance(node, (dict, list)):
            return 1
        key = id(node)
        known = sizes.get(key)
        if known is not None:
            return known
        if key in busy:
            return MAX_VALUES + 1  # a container that holds itself
        busy.add(key)
        items = node.values() if isinstance(node, dict) else node
        total = 1
        for item in items:
            total += size(item)
            if total > MAX_VALUES:
                break
        busy.discard(key)
        sizes[key] = total
        return total

    return size(tree)


def load(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text ({exc})", file=str(path)) from None
    return loads(text, str(path))


def dumps(data: Any) -> bytes:
    buf = io.StringIO()
    _yaml().dump(data, buf)
    return buf.getvalue().encode("utf-8")


def to_plain(value: Any) -> Any:
    """ruamel's round-trip containers and scalars as plain Python (for models and JSON).

    Hand-written YAML may hold unquoted timestamps or dates; they come back as
    lore's canonical ISO strings.
    """
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        # An anchored ``&a true`` loads as ruamel's ScalarBoolean, an int subclass.
        return bool(value) if type(value).__name__ == "ScalarBoolean" else int(value)
    if isinstance(value, float):
        return float(value)
    # A tagged value (`!!python/object:...`, `!vault ...`) is never constructed: its
    # text is kept as plain text.
    return str(getattr(value, "value", value))
