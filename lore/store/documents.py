"""Record documents and map files: reading, dumping and changing them in place.

YAML and JSON documents (one file per record) and map files (the registry) are read
into plain data and changed keeping hand edits: comments, key order, unknown keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lore.errors import DataError, InvalidInputError
from lore.model import Dir, Map, Record
from lore.storage.atomic import atomic_write
from lore.storage.jsonl import ReadIssue
from lore.store.coerce import issue_text, read, stored


def merge_value(tree: Any, key: Any, value: Any) -> None:
    """Set ``tree[key] = value``, changing a parsed document in place where it can: a
    mapping or a list that only changed or grew keeps the comments inside it, and a
    value that did not change keeps its hand-written style."""
    try:
        old = tree[key]
    except (KeyError, IndexError, TypeError):
        if isinstance(tree, dict) and hasattr(tree, "ca"):  # a new key of a parsed map
            from lore.storage import yamlio

            yamlio.append_key(tree, key, value)  # before the comments that ended it
        else:
            tree[key] = value
        return
    if isinstance(old, dict) and isinstance(value, dict):
        for gone in [k for k in old if k not in value]:
            del old[gone]
        for k, v in value.items():
            merge_value(old, k, v)
    elif isinstance(old, list) and isinstance(value, list) and len(old) <= len(value):
        for i, v in enumerate(value):
            if i < len(old):
                merge_value(old, i, v)
            else:
                old.append(v)
    elif old != value or isinstance(old, bool) != isinstance(value, bool):  # (True == 1)
        tree[key] = value


def load_dir(
    cls: type[Record], path: Path, storage: Dir, issues: list[ReadIssue]
) -> dict[str, Record]:
    """Every document of a one-file-per-record kind, oldest first; unreadable ones go to
    ``issues``."""
    out: dict[str, Record] = {}
    if not path.is_dir():
        return out
    for file in sorted(path.glob(f"*{storage.suffix}")):
        try:
            data = read_fast(file)
        except DataError as exc:
            issues.append(data_issue(file, exc))
            continue
        record, wrong = stored(cls, data)
        if not record.id:
            record.id = file.name[: -len(storage.suffix)]
        if wrong:
            issues.append(ReadIssue(str(file), 0, issue_text(record, wrong), "schema", "warning"))
        if not isinstance(record.id, str):  # hand-written `id: 123` must not break listing
            issues.append(
                ReadIssue(str(file), 0, f"id must be a string (got {record.id!r})", "schema")
            )
            continue
        out[record.id] = record
    return dict(sorted(out.items(), key=lambda item: sort_time(item[1])))


def load_map(
    cls: type[Record], path: Path, storage: Map, issues: list[ReadIssue]
) -> dict[str, Record]:
    """Every entry of a map document (keyed by name); an unreadable file goes to ``issues``."""
    out: dict[str, Record] = {}
    if not path.is_file():
        return out
    from lore.storage import yamlio

    try:
        doc = yamlio.to_plain(yamlio.load(path)) or {}
    except DataError as exc:
        issues.append(data_issue(path, exc))
        return out
    entries = doc.get(storage.key) if isinstance(doc, dict) else None
    if entries is None and (doc == {} or (isinstance(doc, dict) and storage.key in doc)):
        return out  # an empty file, or "projects:" with nothing under it yet
    if not isinstance(entries, dict):
        shape = f"'{storage.key}:' must map names to entries"
        issues.append(ReadIssue(str(path), 0, shape, "parse"))
        return out
    for name, entry in entries.items():
        data = dict(entry) if isinstance(entry, dict) else {}
        data.setdefault("name", str(name))
        data.setdefault("id", str(name))
        record, wrong = stored(cls, data)
        if wrong:
            issues.append(ReadIssue(str(path), 0, issue_text(record, wrong), "schema", "warning"))
        out[str(name)] = record
    return out


def update_document(
    file: Path, changes: dict[str, Any], tree: Any, *, within: Path | None = None
) -> None:
    """Set ``changes`` in a document's parsed ``tree`` (comments kept) and write it
    (``within``: the data root a symlinked document may not lead out of)."""
    for key, value in changes.items():
        merge_value(tree, key, value)
    if file.suffix == ".json":
        atomic_write(file, dump_document(file, tree), within=within)
        return
    from lore.storage import yamlio

    atomic_write(file, yamlio.dumps_checked(tree, str(file)), within=within)


def put_map_entry(
    path: Path,
    storage: Map,
    record: Record,
    *,
    new: bool,
    changes: dict[str, Any] | None = None,
    key: str | None = None,
    within: Path | None = None,
) -> None:
    """Insert or change one entry of a map document; the caller holds the lock.

    A change finds its entry by ``key`` (the record's id, its name in the map).
    """
    from lore.storage import yamlio

    doc = yamlio.load(path) if path.is_file() else None
    if doc is None:
        doc = yamlio.loads(f"{storage.key}: {{}}\n", str(path))
    if not isinstance(doc, dict):
        raise DataError(f"{path}: expected a mapping at the top level", file=str(path))
    entries = doc.get(storage.key)
    if entries is None:
        doc[storage.key] = entries = yamlio.loads("{}", str(path))
    if not isinstance(entries, dict):
        raise DataError(
            f"{path}: '{storage.key}:' must map names to entries (it is "
            f"{'a list' if isinstance(entries, list) else 'not a mapping'}); fix the file, "
            "nothing was written",
            file=str(path),
        )
    name = record.title if new or key is None else key
    if new and name in entries:
        raise InvalidInputError(f"{path}: {name!r} already exists", id=name)
    if new:
        # A hand-edited file: write what the entry says, not every default (a key of
        # its own, even empty, is what the entry says: kept).
        fields = set(record.field_names())
        data = {
            k: v
            for k, v in record.to_dict().items()
            if k not in ("id", "name")
            and (k not in fields or v not in (None, "", [], {}))
            and (k, v) not in (("source", "manual"), ("v", 1))
        }
        yamlio.append_key(entries, name, data)
    else:
        changes = changes or {}
        if changes.get("name", name) != name:
            raise InvalidInputError(
                f"{name!r} is keyed by its name in {path}; rename it by editing that file",
                field="name",
                id=name,
            )
        if not isinstance(entries.get(name), dict):  # a bare "name:" line
            entries[name] = {}
        for field, value in changes.items():
            merge_value(entries[name], field, value)
    atomic_write(path, yamlio.dumps_checked(doc, str(path)), within=within)


def delete_map_entry(path: Path, storage: Map, key: str, *, within: Path | None = None) -> None:
    """Delete the entry ``key`` of a map document; the caller holds the lock. The rest of
    the file (comments, order, unknown keys) stays as it was."""
    from lore.storage import yamlio

    doc = yamlio.load(path)
    yamlio.delete_key(doc, doc[storage.key], key)
    atomic_write(path, yamlio.dumps_checked(doc, str(path)), within=within)


def data_issue(file: Path, exc: DataError) -> ReadIssue:
    """A document that cannot be read, as an issue (its message without the location)."""
    line = int(exc.details.get("line") or 0)
    message = exc.message
    for prefix in (f"{file}:{line}: ", f"{file}: "):
        message = message.removeprefix(prefix)
    code = "conflict-marker" if message == "git conflict marker" else "parse"
    return ReadIssue(str(file), line, message, code)


def sort_time(record: Record) -> str:
    return record.timestamp if isinstance(record.timestamp, str) else ""


def read_fast(file: Path) -> dict[str, Any]:
    """``read_document(file)``, faster for the documents lore writes itself."""
    if file.suffix == ".yaml":
        from lore.storage.fastyaml import Unsure, flat_yaml

        try:
            return flat_yaml(file.read_text(encoding="utf-8"))
        except (Unsure, UnicodeDecodeError, OSError):
            pass
    return read_document(file)


def read_document(file: Path) -> dict[str, Any]:
    """One record document (YAML or JSON) as a plain dict."""
    return _plain_document(file, load_tree(file))


def load_tree(file: Path) -> Any:
    """A document as parsed: plain JSON data, or ruamel's round-trip tree for YAML."""
    if file.suffix == ".json":
        import orjson

        from lore.storage.jsonl import MAX_DEPTH, too_deep

        try:
            data = orjson.loads(file.read_bytes().removeprefix(b"\xef\xbb\xbf"))
        except orjson.JSONDecodeError as exc:
            raise DataError(f"{file}: invalid JSON: {exc}", file=str(file)) from None
        if too_deep(data):
            raise DataError(
                f"{file}: nested more than {MAX_DEPTH} levels deep; not read", file=str(file)
            )
        return data
    from lore.storage import yamlio

    return yamlio.load(file)


def document_record(cls: type[Record], record_id: str, file: Path, tree: Any) -> Record:
    record = read(cls, _plain_document(file, tree))
    record.id = record.id or record_id
    return record


def _plain_document(file: Path, tree: Any) -> dict[str, Any]:
    if file.suffix == ".json":
        data = tree
    else:
        from lore.storage import yamlio

        data = yamlio.to_plain(tree)
    if not isinstance(data, dict):
        raise DataError(f"{file}: expected a mapping at the top level", file=str(file))
    return data


def dump_document(file: Path, data: dict[str, Any]) -> bytes:
    if file.suffix == ".json":
        import orjson

        return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
    from lore.storage.fastyaml import flat_dump

    text = flat_dump(data)  # what ruamel would write, without ruamel (or None)
    if text is not None:
        return text.encode("utf-8")
    from lore.storage import yamlio

    return yamlio.dumps_checked(data, str(file))
