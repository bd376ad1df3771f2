"""Reading a bash-lore data root's files as written, quirks included: JSONL stores whose
updates are full copies (the last line per id wins), yq/awk-written YAML lists read entry
by entry when the whole file does not parse, front matter that is not valid YAML.

Pure reading: every odd line or entry becomes a ``Skip`` (file, line, reason), never an
exception; nothing here writes anything.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, NamedTuple

from lore.errors import DataError


class Item(NamedTuple):
    """One entry read from the root: where it is and its fields as written."""

    file: str  # relative to the bash-lore root
    line: int | None
    data: dict[str, Any]


class Skip(NamedTuple):
    """A line, entry or file that was not imported, and why (and the kind it would have been)."""

    file: str
    line: int | None
    reason: str
    kind: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "reason": self.reason}


class Reader:
    """Reads files under one bash-lore root, collecting what it had to skip."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.skipped: list[Skip] = []
        self.kind: str | None = None  # what the caller is reading: its skips are of this kind

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def skip(self, file: str, line: int | None, reason: str) -> None:
        self.skipped.append(Skip(file, line, reason, self.kind))

    def _text(self, path: Path) -> str | None:
        try:
            return path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            self.skip(self.rel(path), None, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        except OSError as exc:
            self.skip(self.rel(path), None, f"cannot be read ({exc.strerror or exc})")
        return None

    # -- JSONL ---------------------------------------------------------------------

    def lines(self, path: Path) -> list[Item]:
        """Every JSON object line of a JSONL file; odd lines (one that is not UTF-8 too)
        are skipped and reported, the others read."""
        if not path.is_file():
            return []
        try:
            data = path.read_bytes()
        except OSError as exc:
            self.skip(self.rel(path), None, f"cannot be read ({exc.strerror or exc})")
            return []
        rel = self.rel(path)
        out: list[Item] = []
        for number, line in enumerate(data.split(b"\n"), 1):
            try:
                raw = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                self.skip(rel, number, f"not UTF-8 text ({exc.reason} at column {exc.start + 1})")
                continue
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except ValueError as exc:
                self.skip(rel, number, f"invalid JSON ({_json_problem(exc)})")
                continue
            if not isinstance(obj, dict):
                self.skip(rel, number, f"not a JSON object ({type(obj).__name__})")
                continue
            out.append(Item(rel, number, obj))
        return out

    def versions(self, path: Path) -> list[Item]:
        """A bash-lore store's records: updates append a full copy under the same id, so
        the last line per id is the record (kept at the position its id first appeared)."""
        latest: dict[str, Item] = {}
        for item in self.lines(path):
            rid = item.data.get("id")
            if not isinstance(rid, str) or not rid.strip():
                self.skip(item.file, item.line, "no id")
                continue
            latest[rid] = item  # a dict keeps the first position, the last value
        return list(latest.values())

    # -- YAML ----------------------------------------------------------------------

    def yaml_list(self, path: Path, section: str) -> list[Item]:
        """The entries of the top-level list ``section:`` of a YAML file.

        The whole file is parsed first; when it does not parse (awk and hand-built
        entries are not always valid YAML), each entry is parsed on its own, leniently
        when it must be, and only the entries that still cannot be read are skipped.
        """
        text = self._text(path) if path.is_file() else None
        if text is None:
            return []
        rel = self.rel(path)
        try:
            tree = _loads(text, rel)
        except DataError:
            return self._entries(rel, text, section)
        if tree is None:
            return []
        if not isinstance(tree, dict):
            self.skip(rel, None, "not a YAML mapping")
            return []
        from lore.storage.yamlio import to_plain

        entries = tree.get(section)
        if entries is None:
            return []
        if not isinstance(entries, list):
            self.skip(rel, _key_line(tree, section), f"{section} is not a list")
            return []
        out: list[Item] = []
        for i, entry in enumerate(entries):
            line = _item_line(entries, i)
            if not isinstance(entry, dict):
                self.skip(rel, line, f"{section} entry is not a mapping")
                continue
            out.append(Item(rel, line, to_plain(entry)))
        return out

    def _entries(self, rel: str, text: str, section: str) -> list[Item]:
        lines = text.split("\n")
        start = next((i for i, line in enumerate(lines) if line.rstrip() == f"{section}:"), None)
        if start is None:
            self.skip(rel, None, f"does not parse as YAML and has no '{section}:' list")
            return []
        blocks: list[tuple[int, list[str]]] = []
        indent: str | None = None
        for i in range(start + 1, len(lines)):
            line = lines[i]
            if line and not line[0].isspace() and not line.startswith(("-", "#")):
                break  # the next top-level key
            stripped = line.lstrip(" ")
            if stripped.startswith("- ") and (
                indent is None or line[: len(line) - len(stripped)] == indent
            ):
                indent = line[: len(line) - len(stripped)]
                blocks.append((i + 1, [indent + "  " + stripped[2:]]))
            elif blocks:
                blocks[-1][1].append(line)
        out: list[Item] = []
        for number, block in blocks:
            body = _dedent(block)
            data = self.mapping(rel, number, body)
            if data is not None:
                out.append(Item(rel, number, data))
        return out

    def mapping(self, rel: str, line: int | None, text: str) -> dict[str, Any] | None:
        """A YAML mapping read strictly, else leniently (flat keys, scalars, lists)."""
        from lore.storage.yamlio import to_plain

        try:
            tree = _loads(text, rel)
            if isinstance(tree, dict):
                return to_plain(tree)
            problem = "not a mapping"
        except DataError as exc:
            problem = exc.message.split("invalid YAML: ", 1)[-1]
            line = line if line is not None else exc.details.get("line") or None
        try:
            return lenient_mapping(text)
        except ValueError as exc:
            self.skip(rel, line, f"does not parse as YAML ({problem}; {exc})")
            return None

    def yaml_doc(self, path: Path) -> Item | None:
        text = self._text(path)
        if text is None:
            return None
        rel = self.rel(path)
        data = self.mapping(rel, None, text)
        return None if data is None else Item(rel, None, data)

    def yaml_map(self, path: Path) -> dict[str, Any] | None:
        """A whole YAML mapping (registry files); a file that does not parse is skipped."""
        text = self._text(path) if path.is_file() else None
        if text is None:
            return None
        rel = self.rel(path)
        try:
            tree = _loads(text, rel)
        except DataError as exc:
            self.skip(rel, exc.details.get("line") or None, exc.message.split(": ", 1)[-1])
            return None
        from lore.storage.yamlio import to_plain

        if tree is None:
            return {}
        if not isinstance(tree, dict):
            self.skip(rel, None, "not a YAML mapping")
            return None
        return to_plain(tree)

    # -- documents -----------------------------------------------------------------

    def json_doc(self, path: Path) -> Item | None:
        text = self._text(path)
        if text is None:
            return None
        rel = self.rel(path)
        try:
            data = json.loads(text)
        except ValueError as exc:
            self.skip(rel, getattr(exc, "lineno", None), f"invalid JSON ({_json_problem(exc)})")
            return None
        if not isinstance(data, dict):
            self.skip(rel, None, "not a JSON object")
            return None
        return Item(rel, None, data)

    def front_matter(self, path: Path) -> Item | None:
        """A Markdown file's ``---`` front matter (read leniently: ``title: A: B`` happens)
        and its body as ``body``."""
        text = self._text(path)
        if text is None:
            return None
        rel = self.rel(path)
        lines = text.split("\n")
        end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
        if not lines or lines[0].rstrip() != "---" or end is None:
            self.skip(rel, 1, "no --- front matter")
            return None
        data = self.mapping(rel, 2, "\n".join(lines[1:end]))
        if data is None:
            return None
        data["body"] = "\n".join(lines[end + 1 :]).strip()
        return Item(rel, None, data)


def _loads(text: str, name: str) -> Any:
    from lore.storage.yamlio import loads

    return loads(text, name)


def _json_problem(exc: ValueError) -> str:
    message, column = getattr(exc, "msg", None), getattr(exc, "colno", None)
    if not message or not column:
        return str(exc)
    return (
        f"{message} column {column}" if message.endswith(" at") else f"{message} at column {column}"
    )


def _item_line(seq: Any, index: int) -> int | None:
    try:
        return int(seq.lc.item(index)[0]) + 1
    except (AttributeError, KeyError, TypeError, IndexError):
        return None


def _key_line(mapping: Any, key: str) -> int | None:
    try:
        return int(mapping.lc.key(key)[0]) + 1
    except (AttributeError, KeyError, TypeError, IndexError):
        return None


def _dedent(block: list[str]) -> str:
    while block and not block[-1].strip():
        block = block[:-1]
    widths = [len(line) - len(line.lstrip(" ")) for line in block if line.strip()]
    cut = min(widths) if widths else 0
    return "\n".join(line[cut:] for line in block)


# --- the lenient reader -----------------------------------------------------------------
# For entries that are not YAML: flat ``key: value`` lines (the value is everything after
# the first ": ", so a title holding ": " reads whole), double-quoted values with
# unescaped quotes inside, flow lists ``[a, b]``, block lists of scalars and |/> blocks.

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*):(?:[ \t]+(.*))?")
_NUMBER = re.compile(r"-?\d+(\.\d+)?")


def lenient_mapping(text: str) -> dict[str, Any]:
    """``text`` as a flat mapping; ``ValueError`` names the first line it cannot read."""
    lines = text.split("\n")
    out: dict[str, Any] = {}
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY.fullmatch(line)
        if match is None:
            raise ValueError(f"line {i} is not 'key: value': {line.strip()[:60]!r}")
        key, value = match.group(1), (match.group(2) or "").strip()
        block: list[str] = []
        while i < len(lines) and (lines[i].startswith((" ", "\t", "- ")) or not lines[i].strip()):
            block.append(lines[i].rstrip())
            i += 1
        while block and not block[-1].strip():
            block.pop()
        out[key] = _lenient_value(value, block, i - len(block))
    if not out:
        raise ValueError("no 'key: value' line")
    return out


def _lenient_value(value: str, block: list[str], first: int) -> Any:
    if value in ("|", "|-", "|+", ">", ">-", ">+"):
        body = _dedent(block)
        return body.replace("\n", " ") if value.startswith(">") else body
    if not value:
        if not block:
            return None
        items = [b.strip() for b in block if b.strip()]
        if not all(item.startswith("- ") or item == "-" for item in items):
            raise ValueError(f"line {first}: nested values need valid YAML")
        values = [_scalar(item[2:].strip()) for item in items]
        if any(isinstance(v, str) and _KEY.fullmatch(v) and ": " in v for v in values):
            raise ValueError(f"line {first}: a list of mappings needs valid YAML")
        return values
    if any(b.strip().startswith("- ") for b in block):
        raise ValueError(f"line {first}: a list item after a value")
    if block:  # a plain scalar folded over several lines
        value = " ".join([value, *(b.strip() for b in block)])
    if value.startswith(("[", "{")) and not value.endswith(("]", "}")):
        raise ValueError(f"line {first - 1}: an unclosed {value[0]}")
    if value.startswith("[") and value.endswith("]"):
        inner = value[1:-1].strip()
        return [_scalar(part.strip()) for part in inner.split(",")] if inner else []
    if value == "{}":
        return {}
    return _scalar(value)


def _scalar(value: str) -> Any:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            return json.loads(value)
        except ValueError:  # quotes inside left unescaped: keep what is between the outer ones
            return value[1:-1].replace('\\"', '"')
    if len(value) >= 2 and value[0] == value[-1] == "'":
        return value[1:-1].replace("''", "'")
    if value in ("null", "~", ""):
        return None
    if value in ("true", "false"):
        return value == "true"
    if _NUMBER.fullmatch(value):
        return float(value) if "." in value else int(value)
    return value
