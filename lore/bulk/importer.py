"""Bulk import (``lore import``): every JSONL line checked before anything is written, then
the good records stored; one line's checks: ``lore.bulk.lines``, the batch writer:
``lore.bulk.write``, export: ``lore.bulk.export`` (all importable from here)."""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lore.bulk.lines import ALL_KINDS, Checked, LineContext, canonical, check_line
from lore.bulk.write import Existing, Progress, write_batches
from lore.capture.build import detect_project
from lore.capture.checks import DEDUPE_KINDS, normalize
from lore.errors import InvalidInputError
from lore.model import Record
from lore.store.core import Store

CHUNK = 2000  # lines per unit of work (and per progress callback)
# Records per locked write. Between two writes an interrupted import stops cleanly, so a
# signal costs at most this many records of waiting, never a half-written batch.
WRITE_CHUNK = 2000
PARALLEL_MIN_LINES = 20_000  # below this, forking workers costs more than it saves
MAX_WORKERS = 4


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
    history: int = 0  # revision and event lines written (or, dry, to write)
    skipped_history: int = 0  # history lines the logs already held

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` document, keys in the contract's order: ok, dry_run, imported,
        by_kind, skipped_existing, skipped_duplicate, invalid, ids, history,
        skipped_history."""
        data = dataclasses.asdict(self)
        return {"ok": True, "dry_run": data.pop("dry_run"), **data}


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
    kinds: tuple[str, ...] = ALL_KINDS,
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

    ``kinds``: the kinds lines may have (default: every kind, as ``lore import`` takes
    them; another importer may narrow them).
    """
    from lore.bulk import history

    rows, past = [], []
    for number, raw in _numbered(lines_or_path):
        parsed = history.is_history(raw)
        if parsed is None:
            rows.append((number, raw))
        else:
            past.append((number, parsed))
    later = history.changes_by_id(past)
    result = ImportResult(dry_run=dry_run)
    existing = Existing(store)
    # The working directory's project, found once: a line without "project" gets it.
    context = LineContext(existing, detect_project(), allow_secret, kinds)
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
            if first_raw == raw or canonical(first_raw) == canonical(raw):
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
        if kind in DEDUPE_KINDS and not force and not _ends_hidden(record, later):
            title = (kind, normalize(record.title))
            if title[1] in existing.titles(kind) or (record_id is None and title in seen_titles):
                result.skipped_duplicate += 1
                continue
            seen_titles.add(title)
        records.append(record)
    pending, bad = history.check(
        store, past, {r.id: r for r in records}, allow_secret or context.allow_secret
    )
    result.invalid = sorted([*result.invalid, *bad], key=lambda item: item["line"])
    result.history, result.skipped_history = pending.count, pending.skipped
    total = len(rows) + len(past)
    if result.invalid and not skip_invalid:
        raise InvalidInputError(_failure_message(result.invalid, total), invalid=result.invalid)
    for record in records:
        result.by_kind[record.kind] = result.by_kind.get(record.kind, 0) + 1
        result.ids.append(record.id)
    result.by_kind = {k: result.by_kind[k] for k in kinds if k in result.by_kind}
    result.imported = len(records)
    if records and not dry_run:
        write_batches(store, records, existing, progress, stop, WRITE_CHUNK)
    if pending.count and not dry_run:
        history.write(store, pending)  # after the records they revise
    return result


def _ends_hidden(record: Record, later: dict[str, list[dict[str, Any]]]) -> bool:
    """Whether ``record`` is hidden once the file's own revisions of it are applied (a
    decision exported with the revision that superseded it is no active duplicate)."""
    changes = later.get(record.id)
    if not changes:
        return record.hidden
    state = record.to_dict()
    for change in changes:
        state.update(change)
    return type(record).from_dict(state).hidden


def _checked(
    rows: list[tuple[int, Any]], context: LineContext, progress: Progress | None
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
        results: Iterable[list[Checked]] = ([check_line(r, context) for _, r in c] for c in chunks)
        pool = None
    else:
        import multiprocessing

        for kind in context.kinds:  # read here once; the workers share the sets
            context.existing.ids(kind)
        _WORKER_CONTEXT = context
        # Workers are born with SIGTERM and SIGINT blocked, and unblock them only once
        # _worker_init has put the default handlers back: a SIGTERM from terminate()
        # that reached a worker still holding the parent's handler (an import stops
        # between batches) was swallowed, and terminate() waited for it forever.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
        try:
            pool = multiprocessing.get_context("fork").Pool(workers, initializer=_worker_init)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
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
_WORKER_CONTEXT: LineContext | None = None
_STOPS = {signal.SIGTERM, signal.SIGINT}


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # The parent's SIGTERM handler (an import stops between batches) must not survive
    # the fork: Pool.terminate() ends its workers with SIGTERM and waits for them.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)  # blocked at fork (see _checked)


def _check_chunk(chunk: list[tuple[int, Any]]) -> list[Checked]:
    assert _WORKER_CONTEXT is not None
    return [check_line(raw, _WORKER_CONTEXT) for _, raw in chunk]


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


def _failure_message(invalid: list[dict[str, Any]], total: int) -> str:
    count = len(invalid)
    lines = f"{'line' if total == 1 else 'lines'} {'is' if count == 1 else 'are'}"
    return (
        f"{count} of {total} {lines} invalid; nothing was imported "
        "(fix them, or pass --skip-invalid to import the valid lines)"
    )
