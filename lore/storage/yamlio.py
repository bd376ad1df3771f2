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


_UNSAFE_IN_BLOCK = re.compile(r"\t|(^|\n)[ ]|[ ](\n|$)")


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
            elif style in ("|", ">") and isinstance(value, str) and _UNSAFE_IN_BLOCK.search(value):
                # ruamel keeps a hand-written |block or >folded style on update, but
                # writes a line that starts or ends with white space (or holds a tab)
                # so that it reads back changed ("0\n\t" folded comes back "0\n\n\t").
                style = '"'
            return super().represent_scalar(tag, value, style, anchor)

    yaml = YAML(typ="rt")
    yaml.Representer = Representer
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 100
    yaml.preserve_quotes = True
    yaml.allow_unicode = True
    return yaml


def warm() -> None:
    """Build the YAML reader and read one small document, so that ruamel's own first-use
    set-up is done (for ``lore.cmdserver``, once for all its workers)."""
    _yaml().load("warm: [up]\n")


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
    from lore.storage.jsonl import MAX_DEPTH, too_deep

    try:
        tree = _yaml().load(text)
    except RecursionError:  # ruamel builds nested values recursively
        raise DataError(
            f"{name}: nested more than {MAX_DEPTH} levels deep; not read", file=name
        ) from None
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
    if too_deep(tree):  # every reader walks documents recursively: refuse them here
        raise DataError(f"{name}: nested more than {MAX_DEPTH} levels deep; not read", file=name)
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


def dumps(data: Any, width: int | None = None) -> bytes:
    yaml = _yaml()
    buf = io.StringIO()
    if width is None:
        yaml.dump(data, buf)
    else:
        old, yaml.width = yaml.width, width
        try:
            yaml.dump(data, buf)
        finally:
            yaml.width = old
    return buf.getvalue().encode("utf-8")


def dumps_checked(data: Any, name: str) -> bytes:
    """:func:`dumps`, read back before anyone writes it: the text must parse and give the
    same plain data. A long key that ruamel folds onto two lines (which no reader can
    parse) is written again without folding; what still does not read back is refused
    (``DataError``), so a file lore replaces is never one it cannot read."""
    want = to_plain(data)
    for width in (None, 1 << 20):
        text = dumps(data, width)
        try:
            if to_plain(loads(text.decode("utf-8"), name)) == want:
                return text
        except DataError:
            pass
    raise DataError(
        f"{name}: lore would write YAML it cannot read back the same; nothing was written",
        file=name,
    )


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


def _tail_slots(node: Any) -> list[tuple[list[Any], int]]:
    """The comment slots along ``node``'s last entries, outermost first: ruamel keeps the
    comment lines written after a block on the deepest last value inside it."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    slots: list[tuple[list[Any], int]] = []
    while isinstance(node, (CommentedMap, CommentedSeq)) and len(node):
        last = list(node)[-1] if isinstance(node, CommentedMap) else len(node) - 1
        slots.append(
            (
                node.ca.items.setdefault(last, [None, None, None, None]),
                2 if isinstance(node, CommentedMap) else 0,
            )
        )
        node = node[last]
    return slots


def delete_key(doc: Any, mapping: Any, key: Any) -> None:
    """``del mapping[key]``, keeping the comment lines that followed the entry (about the
    next entry, or the end of the file): ruamel stores them on the entry itself, so a
    plain ``del`` would drop them. An inline comment on the entry's own line goes."""
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    own = mapping.ca.items.get(key)
    slots = [*([(own, 2)] if own else []), *_tail_slots(mapping[key])]
    text = "".join(slot[i].value for slot, i in slots if slot[i] is not None)
    keys = list(mapping)
    at = keys.index(key)
    del mapping[key]
    mapping.ca.items.pop(key, None)
    rest = text.split("\n", 1)[1] if "\n" in text else ""
    if not rest.strip():
        return
    if at > 0:  # after the entry before it
        prev = keys[at - 1]
        own_prev = (mapping.ca.items.setdefault(prev, [None, None, None, None]), 2)
        slot, i = [own_prev, *_tail_slots(mapping[prev])][-1]
        if slot[i] is None:
            slot[i] = CommentToken("\n" + rest, CommentMark(0), None)
        else:  # after an inline comment: it keeps its column
            slot[i] = CommentToken(slot[i].value + rest, slot[i].start_mark, None)
    elif at + 1 < len(keys):  # before the entry after it
        slot = mapping.ca.items.setdefault(keys[at + 1], [None, None, None, None])
        slot[1] = [CommentToken(rest, CommentMark(0), None), *(slot[1] or [])]
    else:  # the map is empty now ("{}"): its comments go to the end of the file
        head = mapping.ca.comment[1] if mapping.ca.comment else None
        if head:
            rest = "".join(" " * token.column + token.value for token in head) + rest
            mapping.ca.comment = None
            for parent_key, value in doc.items():  # ruamel also keeps them on the parent
                if value is mapping and parent_key in doc.ca.items:
                    doc.ca.items[parent_key][3] = None
        if doc.ca.comment is None:
            doc.ca.comment = [None, None]
        doc.ca.end = [CommentToken(rest, CommentMark(0), None), *(doc.ca.end or [])]


def append_key(mapping: Any, key: Any, value: Any) -> None:
    """``mapping[key] = value`` as a new last entry, keeping the comment lines that
    followed the old last entry (the end of the file, or what comes after the map)
    after the new one; an inline comment stays on its line."""
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    moved = ""
    if len(mapping):
        last = list(mapping)[-1]
        own = mapping.ca.items.get(last)
        for slot, i in [*([(own, 2)] if own else []), *_tail_slots(mapping[last])]:
            token = slot[i]
            if token is None or "\n" not in token.value:
                continue
            head, tail = token.value.split("\n", 1)
            moved += tail
            slot[i] = CommentToken(head + "\n", token.start_mark, None) if head.strip() else None
    # Never folded: a long key folded onto two lines would not parse back.
    node = loads(dumps({key: value}, 1 << 20).decode("utf-8"), "<new entry>")[key]
    mapping[key] = node
    if moved.strip():
        own_new = (mapping.ca.items.setdefault(key, [None, None, None, None]), 2)
        slot, i = [own_new, *_tail_slots(node)][-1]
        slot[i] = CommentToken("\n" + moved, CommentMark(0), None)
