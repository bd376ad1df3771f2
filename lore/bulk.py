"""Bulk import and export of records as JSONL: one ``{"kind": ..., ...fields}`` per line.

Import checks every line with capture's own build/check (schema, secrets, enrichment)
before writing anything, then stores all good records in one ``Store.add`` call.
Export writes each record's latest state so that importing it reproduces the store.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from lore.capture import (
    CAPTURE_KINDS,
    DEDUPE_KINDS,
    TEXT_FIELD,
    build,
    check,
    detect_project,
    normalize,
)
from lore.capture import split_list as _split
from lore.errors import DataError, InvalidInputError, LoreError, SecretError, UsageError
from lore.model import Record, kind_class
from lore.store import Store

# The kinds import accepts and export writes, in export order.
KINDS: tuple[str, ...] = CAPTURE_KINDS
# Keys of a line that are not record fields or are set through build()'s own arguments.
_CONTROL = frozenset({"kind", "id", "timestamp", "tags", "project", "source", "session_id"})
# After the prefix: letters, digits, '-' and '_' only, so a document id is a safe file name.
_ID_TAIL = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,79}")
CHUNK = 2000  # lines per unit of work (and per progress callback)
# Records per locked write. Between two writes an interrupted import stops cleanly, so a
# signal costs at most this many records of waiting, never a half-written batch.
WRITE_CHUNK = 2000
PARALLEL_MIN_LINES = 20_000  # below this, forking workers costs more than it saves
MAX_WORKERS = 4

Progress = Callable[[str, int, int], None]  # (phase "check" | "write", done, total)


@dataclass
class ImportResult:
    """What an import did (or, with ``dry_run``, would do); see ``to_dict`` for the JSON."""

    imported: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    skipped_existing: int = 0
    skipped_duplicate: int = 0
    invalid: list[dict[str, Any]] = field(default_factory=list)  # {"line": n, "error": ...}
    ids: list[str] = field(default_factory=list)
    dry_run: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` document, keys in the contract's order: ok, dry_run, imported,
        by_kind, skipped_existing, skipped_duplicate, invalid, ids."""
        data = dataclasses.asdict(self)
        return {"ok": True, "dry_run": data.pop("dry_run"), **data}


class _LineError(Exception):
    """One line's problem; becomes ``{"line": n, "error": message}``."""


# --- import ------------------------------------------------------------------------------


def import_records(
    store: Store,
    lines_or_path: str | os.PathLike[str] | bytes | Iterable[str | bytes | dict[str, Any]],
    *,
    skip_invalid: bool = False,
    force: bool = False,
    allow_secret: bool = False,
    dry_run: bool = False,
    progress: Progress | None = None,
    stop: Callable[[], bool] | None = None,
) -> ImportResult:
    """Check every line, then store the good records in one write.

    ``lines_or_path``: a path (str or PathLike), the file's bytes, or an iterable
    of lines (str, bytes, or already parsed dicts). Any invalid line raises
    ``InvalidInputError`` (details: ``invalid=[{"line", "error"}]``) and nothing is
    written, unless ``skip_invalid``. Duplicates are skipped, never errors:
    a line whose ``id`` is already stored counts as ``skipped_existing``; an id
    repeated with the same content in the file, or an active decision, pattern or
    anti-pattern whose normalized title equals an active stored one (or, for a
    line without an id, an earlier line's), counts as ``skipped_duplicate``
    (``force`` keeps title duplicates).

    Records are written in batches of ``WRITE_CHUNK``, each one locked append per log.
    ``stop`` is asked before each batch: once it returns True the import ends with
    ``InterruptedByUser`` (exit 130) saying how many records were written; running the
    same import again skips those (their ids are stored) and writes the rest.
    """
    rows = list(_numbered(lines_or_path))
    result = ImportResult(dry_run=dry_run)
    existing = _Existing(store)
    # The working directory's project, found once: a line without "project" gets it.
    context = _Context(existing, detect_project(), allow_secret)
    seen_ids: dict[str, tuple[int, Any]] = {}
    seen_titles: set[tuple[str, str]] = set()
    records: list[Record] = []
    with closing(_checked(rows, context, progress)) as checked:  # closing: stop the workers
        lines = list(zip(rows, checked))
    for (number, raw), (kind, record_id, outcome) in lines:
        if outcome is None:
            result.skipped_existing += 1
            continue
        if record_id is not None and record_id in seen_ids:
            first, first_raw = seen_ids[record_id]
            if first_raw == raw or _canonical(first_raw) == _canonical(raw):
                result.skipped_duplicate += 1
            else:
                error = f"id {record_id} is already used on line {first}"
                result.invalid.append({"line": number, "error": error})
            continue
        if isinstance(outcome, str):
            result.invalid.append({"line": number, "error": outcome})
            continue
        record: Record = outcome
        if record_id is not None:
            seen_ids[record_id] = (number, raw)
        if kind in DEDUPE_KINDS and not force and not record.hidden:
            title = (kind, normalize(record.title))
            if title[1] in existing.titles(kind) or (record_id is None and title in seen_titles):
                result.skipped_duplicate += 1
                continue
            seen_titles.add(title)
        records.append(record)
    total = len(rows)
    if result.invalid and not skip_invalid:
        raise InvalidInputError(_failure_message(result.invalid, total), invalid=result.invalid)
    for record in records:
        result.by_kind[record.kind] = result.by_kind.get(record.kind, 0) + 1
        result.ids.append(record.id)
    result.by_kind = {k: result.by_kind[k] for k in KINDS if k in result.by_kind}
    result.imported = len(records)
    if records and not dry_run:
        _write(store, records, existing, progress, stop)
    return result


def _write(
    store: Store,
    records: list[Record],
    existing: _Existing,
    progress: Progress | None,
    stop: Callable[[], bool] | None,
) -> None:
    """Store ``records`` batch by batch, stopping cleanly between batches when asked."""
    from functools import partial

    from lore.errors import InterruptedByUser

    total = len(records)
    if progress is not None:
        progress("write", 0, total)
    written = 0
    for start in range(0, total, WRITE_CHUNK):
        if stop is not None and stop():
            raise InterruptedByUser(
                f"import interrupted: wrote {written} of {total} records; run the same "
                "import again to finish it (records already stored are skipped)",
                written=written,
                total=total,
                ids=[r.id for r in records[:written]],
            )
        batch = records[start : start + WRITE_CHUNK]
        store.add(
            batch,
            guard=partial(existing.recheck, batch),
            progress=None if progress is None else partial(_report, progress, written, total),
        )
        written += len(batch)


def _report(progress: Progress, before: int, total: int, done: int) -> None:
    progress("write", before + done, total)


# (kind, id, outcome): the Record, an error message, or None for an id already stored
# (skipped unchecked). None, not a sentinel object: it must survive pickling by workers.
Checked = tuple[str | None, str | None, Record | str | None]


@dataclass
class _Context:
    existing: _Existing
    project: str | None  # the working directory's, for lines without one
    allow_secret: bool


def _check_line(raw: bytes | str | dict[str, Any], context: _Context) -> Checked:
    """One line as ``(kind, id, outcome)``; kind and id are None when unreadable."""
    kind = record_id = None
    try:
        obj = _parse(raw)
        kind = _kind(obj)
        record_id = _record_id(obj, kind)
        if record_id is not None and record_id in context.existing.ids(kind):
            return kind, record_id, None
        return kind, record_id, _record(kind, obj, record_id, context)
    except _LineError as exc:
        return kind, record_id, str(exc)


def _checked(
    rows: list[tuple[int, Any]], context: _Context, progress: Progress | None
) -> Generator[Checked, None, None]:
    """Every row checked, in order; a big import is checked by forked worker processes.

    Checking a line (build + check) is CPU-bound and independent of other lines.
    Fork only on Linux and only from a process with no other thread (forking a
    threaded process can deadlock); workers inherit ``context`` at fork.
    """
    global _WORKER_CONTEXT
    import threading

    total, done = len(rows), 0
    chunks = [rows[i : i + CHUNK] for i in range(0, total, CHUNK)]
    workers = min(len(os.sched_getaffinity(0)), MAX_WORKERS) if _CAN_FORK else 1
    if total < PARALLEL_MIN_LINES or workers < 2 or threading.active_count() > 1:
        results: Iterable[list[Checked]] = ([_check_line(r, context) for _, r in c] for c in chunks)
        pool = None
    else:
        import multiprocessing

        for kind in KINDS:  # read here once; the workers share the sets
            context.existing.ids(kind)
        _WORKER_CONTEXT = context
        pool = multiprocessing.get_context("fork").Pool(workers, initializer=_worker_init)
        results = pool.imap(_check_chunk, chunks)
    try:
        for checked in results:
            done += len(checked)
            if progress is not None:
                progress("check", done, total)
            yield from checked
    finally:
        _WORKER_CONTEXT = None
        if pool is not None:
            pool.terminate()


_CAN_FORK = sys.platform.startswith("linux") and hasattr(os, "sched_getaffinity")
_WORKER_CONTEXT: _Context | None = None


def _worker_init() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # The parent's SIGTERM handler (an import stops between batches) must not survive
    # the fork: Pool.terminate() ends its workers with SIGTERM and waits for them.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _check_chunk(chunk: list[tuple[int, Any]]) -> list[Checked]:
    assert _WORKER_CONTEXT is not None
    return [_check_line(raw, _WORKER_CONTEXT) for _, raw in chunk]


def _record(kind: str, obj: dict[str, Any], record_id: str | None, context: _Context) -> Record:
    """The record one import line describes, built and checked exactly like a capture.

    Fields the line carries win over capture's enrichment (verbatim; a comma
    string is accepted for a list field, and null means the default). Fields it
    leaves out get capture's values: a new id, the time now, the working
    directory's project (and its tag) and git commit, a decision's entities and
    spec quality, and inline ``because:``/``vs:`` parsing (only when the line has
    neither ``rationale`` nor ``alternatives``). A line is never attached to the
    current session. Unknown keys are kept in ``extra``.
    """
    spec = _spec(kind)
    cwd = context.project
    given: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in obj.items():
        if key in _CONTROL:
            continue
        if key == "message" and kind == "failure" and "error_message" not in obj:
            key = "error_message"
        if key in spec.types:
            given[key] = value
        elif key == "extra" and isinstance(value, dict):
            extra.update(value)
        else:
            extra[key] = value
    text = given.pop(spec.text_field, None)
    if text is not None and not isinstance(text, str):
        raise _LineError(f"{spec.text_field} must be a string")
    timestamp = obj.get("timestamp")
    if timestamp is not None and not isinstance(timestamp, str):
        raise _LineError("timestamp must be a string")
    line_project = obj.get("project")
    tags = obj.get("tags")
    source = obj.get("source")
    # build() gets what it derives or normalises values from; the rest is set after it.
    fields = {k: given[k] for k in spec.build_keys & given.keys() if _buildable(given[k], spec, k)}
    try:
        captured = build(
            kind,
            text or "",
            fields,
            tags=_split(tags) if isinstance(tags, str) else (),
            project=line_project if isinstance(line_project, str) and line_project else cwd,
            source=source if isinstance(source, str) else None,
            session_id=None,
            timestamp=timestamp,  # build() rewrites it in canonical form
            record_id=record_id,
        )
    except LoreError as exc:
        raise _LineError(_without_kind(exc.message, kind)) from None
    except (ValueError, TypeError) as exc:  # the timestamp's parsing raises these
        if timestamp is None:
            raise _LineError(f"cannot build the record: {exc}") from exc
        raise _LineError(f"timestamp is not an ISO-8601 time ({timestamp!r})") from None
    record = captured.record
    # The line wins: overwrite what build() derived or defaulted with what was given.
    for key, value in given.items():
        if value is None and key not in spec.nullable:
            continue  # null means "the default" for a field that cannot be null
        if isinstance(value, str):
            if key in spec.lists:
                # A comma string is a list, except examples: each is a sentence (as capture).
                value = [value] if key == "examples" else _split(value)
            elif key == "confidence":
                continue  # build() parsed it (pattern: a number; evidence: a lower-case level)
        setattr(record, key, value)
    if text is not None:
        if kind != "decision":
            setattr(record, spec.text_field, text)  # verbatim: build() stripped it
        elif "rationale" in given or "alternatives" in given:
            # Explicit fields: no inline because:/vs: parsing of the text.
            record.decision = text  # type: ignore[attr-defined]
            if "rationale" not in given:
                record.rationale = ""  # type: ignore[attr-defined]
            if "alternatives" not in given:
                record.alternatives = []  # type: ignore[attr-defined]
        elif record.decision == text.strip():  # type: ignore[attr-defined]
            record.decision = text  # type: ignore[attr-defined]
    if "project" in obj:  # the line's project (even null) and its tags, exactly
        record.project = line_project
        if "tags" not in obj:
            record.tags = [line_project] if isinstance(line_project, str) and line_project else []
    if "tags" in obj:
        record.tags = _split(tags) if isinstance(tags, str) else tags if tags is not None else []
        cwd_project = record.project if "project" not in obj else None
        if cwd_project and isinstance(record.tags, list) and cwd_project not in record.tags:
            record.tags = [*record.tags, cwd_project]  # as capture tags the cwd's project
    if source is not None:
        record.source = source
    if "session_id" in obj:
        record.session_id = obj["session_id"]
    if kind == "decision" and "spec_quality" not in given:
        from lore.components.journal import spec_quality

        with suppress(AttributeError, TypeError):  # a badly typed field: check() names it
            record.spec_quality = spec_quality(record)  # type: ignore[arg-type,attr-defined]
    record.extra = extra
    try:
        check(record, allow_secret=context.allow_secret)
    except SecretError as exc:
        raise _LineError(_secret_message(record, exc)) from None
    except InvalidInputError as exc:
        raise _LineError(_without_kind(exc.message, kind)) from None
    return record


def _without_kind(message: str, kind: str) -> str:
    """capture's "decision rationale must be ..." as "rationale must be ..." (the line says)."""
    prefix = f"{kind} "
    return message[len(prefix) :] if message.startswith(prefix) else message


def _numbered(source: Any) -> Iterator[tuple[int, bytes | str | dict[str, Any]]]:
    """``(line_number, line)`` for every non-blank line of a path, bytes or iterable."""
    if isinstance(source, (str, os.PathLike)):
        source = Path(source).read_bytes()
    if isinstance(source, bytes):
        if source.startswith(b"\xef\xbb\xbf"):
            source = source[3:]
        source = source.split(b"\n")
    for number, line in enumerate(source, 1):
        if isinstance(line, dict) or line.strip():
            yield number, line


def _parse(raw: bytes | str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise _LineError(f"invalid JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise _LineError(f"expected a JSON object, got {type(obj).__name__}")
    return obj


_KIND_NAMES = {name: name for name in KINDS}


def _kind(obj: dict[str, Any]) -> str:
    value = obj.get("kind")
    known = _KIND_NAMES.get(value)  # type: ignore[arg-type]
    if known is not None:
        return known
    if not isinstance(value, str) or not value.strip():
        raise _LineError(f"kind is required (one of {', '.join(KINDS)})")
    try:
        name = kind_class(value).KIND.name
    except UsageError:
        raise _LineError(f"unknown kind {value!r} (expected one of {', '.join(KINDS)})") from None
    if name not in KINDS:
        raise _LineError(f"cannot import a {name} (import takes {', '.join(KINDS)})")
    return name


def _record_id(obj: dict[str, Any], kind: str) -> str | None:
    value = obj.get("id")
    if value is None:
        return None
    prefix = _spec(kind).prefix
    if (
        not isinstance(value, str)
        or not value.startswith(f"{prefix}-")
        or not _ID_TAIL.fullmatch(value[len(prefix) + 1 :])
    ):
        raise _LineError(
            f"id must be '{prefix}-' then letters, digits, '-' or '_' (got {value!r}); "
            "leave it out to get a new id"
        )
    return value


def _canonical(raw: bytes | str | dict[str, Any]) -> bytes:
    """A (parseable) line's content, whatever its key order and spacing."""
    return orjson.dumps(_parse(raw), option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


@dataclass(frozen=True)
class _Spec:
    """What import needs to know about one kind, worked out once."""

    cls: type[Record]
    prefix: str
    text_field: str
    types: dict[str, str]  # field -> annotation ("list[str]"), as the model checks them
    lists: frozenset[str]
    nullable: frozenset[str]
    build_keys: frozenset[str]


# Per kind, the fields build() derives other values from or normalises.
_BUILD_KEYS = {
    "decision": frozenset({"rationale", "alternatives", "entities", "files"}),
    "pattern": frozenset({"confidence", "examples"}),
    "evidence": frozenset({"confidence", "supports"}),
    "concept": frozenset({"aliases"}),
}
_SPECS: dict[str, _Spec] = {}


def _spec(kind: str) -> _Spec:
    spec = _SPECS.get(kind)
    if spec is None:
        cls = kind_class(kind)
        types = {f.name: str(f.type) for f in dataclasses.fields(cls) if f.name != "extra"}
        spec = _SPECS[kind] = _Spec(
            cls=cls,
            prefix=cls.KIND.prefix or kind,
            text_field=TEXT_FIELD[kind],
            types=types,
            lists=frozenset(k for k, t in types.items() if t == "list[str]"),
            nullable=frozenset(k for k, t in types.items() if "None" in t),
            build_keys=_BUILD_KEYS.get(kind, frozenset()),
        )
    return spec


def _buildable(value: Any, spec: _Spec, key: str) -> bool:
    """Whether build() can take ``value`` safely; anything else is set verbatim after it."""
    if key in spec.lists:
        return isinstance(value, str) or (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        )
    if key == "confidence":
        return isinstance(value, (str, int, float)) and not isinstance(value, bool)
    return isinstance(value, str)


def _secret_message(record: Record, exc: SecretError) -> str:
    findings = exc.details.get("findings") or [
        {"field": exc.details.get("field"), "rule": exc.details.get("secret"), "kind": "secret"}
    ]
    first = findings[0]
    more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
    return (
        f"{record.kind} {first['field']} looks like it holds a {first['kind']} "
        f"(rule {first['rule']}){more}; pass --allow-secret if it is not a real credential"
    )


def _failure_message(invalid: list[dict[str, Any]], total: int) -> str:
    count = len(invalid)
    lines = f"{'line' if total == 1 else 'lines'} {'is' if count == 1 else 'are'}"
    return (
        f"{count} of {total} {lines} invalid; nothing was imported "
        "(fix them, or pass --skip-invalid to import the valid lines)"
    )


class _Existing:
    """Ids and active titles already in the store, read once per kind."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._ids: dict[str, set[str]] = {}
        self._titles: dict[str, set[str]] = {}
        self._offsets: dict[str, int] = {}  # log kind -> bytes already checked
        self.written = 0  # records of this import stored so far

    def ids(self, kind: str) -> set[str]:
        found = self._ids.get(kind)
        if found is None:
            found = self._ids[kind] = {r.id for r in self.store.records(kind, hidden=True)}
        return found

    def titles(self, kind: str) -> set[str]:
        found = self._titles.get(kind)
        if found is None:
            records = self.store.records(kind)
            found = self._titles[kind] = {normalize(r.title) for r in records}
        return found

    def recheck(self, records: list[Record]) -> None:
        """Under the write locks: did another writer store one of these ids meanwhile?

        A log is read whole once, then only from where the previous check left it (the
        import's own earlier batch and whatever others appended since), so checking
        batch after batch stays linear in the size of the import.
        """
        for kind in {r.kind for r in records} & self._ids.keys():
            now = self._stored_ids(kind)
            if now != self._ids[kind]:
                clash = sorted(r.id for r in records if r.kind == kind and r.id in now)
                if clash:
                    done = (
                        "nothing was imported"
                        if not self.written
                        else (f"the {self.written} records before it are stored")
                    )
                    raise DataError(
                        f"another writer stored {clash[0]} while this import ran; {done}; "
                        "run it again (stored ids are skipped)",
                        id=clash[0],
                    )
        self.written += len(records)
        for record in records:  # about to be written: known from now on
            self._ids.setdefault(record.kind, set()).add(record.id)

    def _stored_ids(self, kind: str) -> set[str]:
        from lore.model import Log
        from lore.storage import jsonl

        cls = kind_class(kind)
        path = self.store.location(cls)
        offset = self._offsets.get(kind)
        if not isinstance(cls.KIND.storage, Log) or offset is None or not path.is_file():
            ids = {r.id for r in self.store.records(kind, hidden=True)}
            if isinstance(cls.KIND.storage, Log) and path.is_file():
                self._offsets[kind] = path.stat().st_size
            return ids
        with open(path, "rb") as handle:
            handle.seek(offset)
            tail = handle.read()
        self._offsets[kind] = offset + len(tail)
        rows, _ = jsonl.parse(tail, str(path))
        fresh = {obj["id"] for _, obj in rows if isinstance(obj.get("id"), str)}
        return self._ids[kind] | fresh


# --- export ------------------------------------------------------------------------------


def export_records(
    store: Store, kinds: Iterable[str] | None = None, include_hidden: bool = True
) -> Iterator[dict[str, Any]]:
    """Every record of ``kinds`` (default: all importable) as ``{"kind": ..., **to_dict()}``.

    Kinds come in a fixed order (decision, pattern, anti-pattern, failure,
    observation, evidence, concept), each kind's records oldest first, each in its
    latest (folded) state; revision history is not carried.
    """
    for kind in export_kinds(kinds):
        found = store.records(kind, hidden=include_hidden)
        for record in sorted(found, key=lambda r: str(r.timestamp or "")):
            data = record.to_dict()
            data.pop("kind", None)  # an extra key called "kind" cannot survive import
            yield {"kind": kind, **data}


def export_kinds(kinds: Iterable[str] | None = None) -> list[str]:
    """The importable kinds named in ``kinds`` (singular or plural), in export order."""
    if kinds is None:
        return list(KINDS)
    wanted = set()
    for name in kinds:
        canonical = kind_class(name).KIND.name
        if canonical not in KINDS:
            raise UsageError(f"cannot export {name}: export writes {', '.join(KINDS)}")
        wanted.add(canonical)
    return [k for k in KINDS if k in wanted]


def dumps_line(obj: dict[str, Any]) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS) + b"\n"
