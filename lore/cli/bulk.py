"""``lore import`` and ``lore export``: JSONL in and out; the work is ``lore.bulk``'s.

Renders the import summary (text or JSON), invalid lines on stderr and, on a
terminal, a progress bar on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from types import TracebackType
from typing import Any

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option, note, warn
from lore.errors import InvalidInputError, UsageError

pass_app = click.make_pass_decorator(App)

MAX_REPORTED = 200  # invalid lines printed on stderr; --json lists them all


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _report_invalid(invalid: list[dict[str, Any]]) -> None:
    for item in invalid[:MAX_REPORTED]:
        warn(f"line {item['line']}: {item['error']}")
    if len(invalid) > MAX_REPORTED:
        warn(f"… and {len(invalid) - MAX_REPORTED} more invalid lines (--json lists them all)")


def summary(result: Any) -> str:
    """``imported 120 records (decision 50, failure 70); skipped 3 existing``."""
    verb = "would import" if result.dry_run else "imported"
    text = f"{verb} {_plural(result.imported, 'record')}"
    if result.by_kind:
        text += " (" + ", ".join(f"{k} {n}" for k, n in result.by_kind.items()) + ")"
    if result.history:
        text += f" and {_plural(result.history, 'history line')}"
    skipped = []
    if result.skipped_existing:
        skipped.append(f"{result.skipped_existing} existing")
    if result.skipped_history:
        skipped.append(f"{_plural(result.skipped_history, 'history line')} already stored")
    if result.skipped_duplicate:
        skipped.append(f"{_plural(result.skipped_duplicate, 'duplicate')}")
    if result.invalid:
        skipped.append(f"{_plural(len(result.invalid), 'invalid line')}")
    if skipped:
        text += "; skipped " + ", ".join(skipped)
    if result.dry_run:
        text += " (dry run: nothing written)"
    return text


def _is_terminal(stream: Any) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)())


class _Bar:
    """A rich progress bar on stderr, fed by ``import_records``' progress callback."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=Console(stderr=True, markup=False, highlight=False),
            transient=True,
            # No refresh thread: import may fork workers, and forking a threaded process
            # is unsafe. The bar is redrawn on each callback instead.
            auto_refresh=False,
        )
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> _Bar:
        self.progress.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.progress.__exit__(exc_type, exc, tb)

    def __call__(self, phase: str, done: int, total: int) -> None:
        task = self.tasks.get(phase)
        if task is None:
            label = "checking lines" if phase == "check" else "writing records"
            task = self.tasks[phase] = self.progress.add_task(label, total=total)
        self.progress.update(task, completed=done, total=total)
        self.progress.refresh()


@click.command(name="import")
@click.argument("file", metavar="SOURCE", type=click.Path(allow_dash=True, path_type=str))
@click.option(
    "--from",
    "source_format",
    type=click.Choice(["jsonl", "bash-lore"]),
    default="jsonl",
    show_default=True,
    help="What SOURCE is: a JSONL FILE (- for stdin), or the data root DIR of the bash "
    "implementation of lore.",
)
@click.option(
    "--skip-invalid",
    is_flag=True,
    help="Import the valid lines, report the invalid ones on stderr and exit 0.",
)
@click.option(
    "--force", is_flag=True, help="Also import lines whose title duplicates an active record."
)
@click.option(
    "--allow-secret",
    is_flag=True,
    help="Import even lines that look like they hold a credential.",
)
@click.option("--dry-run", is_flag=True, help="Check and report, but write nothing.")
@json_option
@pass_app
def import_cmd(
    app: App,
    file: str,
    source_format: str,
    skip_invalid: bool,
    force: bool,
    allow_secret: bool,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Import records from a JSONL FILE (or - for stdin), or a bash-lore data root.

    One JSON object per line: {"kind": K, ...fields}. For K one of decision,
    pattern, anti-pattern, failure, observation, evidence, concept: the fields the
    matching capture takes (a failure's text is "error_message" or "message").
    Optional: "id" (kept; it must carry the kind's prefix), "timestamp" (kept,
    rewritten to canonical UTC), "tags" (list or comma string), "project",
    "source", "session_id" and any other field of the kind; unknown keys are
    kept. Fields a line leaves out get capture's defaults (new id, now, the git
    project and commit; never the current session). For K one of edge, goal,
    session, project: the record as `lore export` writes it (a project's id is
    its "name"). History lines, as export writes them, follow their record:
    {"kind": K, "_op": "revise", "id", "timestamp", "set", ...} (a logged
    record's revision) and {"kind": "pattern", "_op": "event", ...} (a
    validation or flag); they are appended as given, once. Every line is checked
    like a capture (schema, secrets).

    Every line is checked before anything is written: one invalid line writes
    nothing and exits 4, unless --skip-invalid. All records are then written at
    once (one locked write per file).

    Never duplicated: a line whose id is already stored is skipped ("existing"),
    and a history line the log already holds is skipped, so importing an export
    twice is harmless (and an interrupted import run again finishes it). Skipped
    as duplicates (unless --force): an active decision, pattern or anti-pattern
    whose normalized title equals an active stored one, or, for a line without an
    id, an earlier line's.

    --from bash-lore DIR reads every component of a data root written by the
    bash implementation of lore (journal, patterns, failures, inbox, evidence,
    intent, transfer, registry, the graph's curated edges) and maps each record
    to lore's, keeping its id (or, when it does not fit lore's id rules, in
    legacy_id), its times and its links. Odd lines are reported (file:line:
    reason) and skipped, never fatal; records already imported are skipped, so
    running it again imports nothing new. --json: counts per kind, skipped lines.

    \b
    Examples:
      lore export -o backup.jsonl && lore --data-dir /new/root import backup.jsonl
      echo '{"kind": "decision", "decision": "Use uv", "rationale": "fast"}' | lore import -
      lore import --from bash-lore ~/.local/share/lore-bash --dry-run
    """
    if source_format == "bash-lore":
        if file == "-" or skip_invalid or force:
            raise UsageError(
                "--from bash-lore takes a directory, and always skips odd lines and keeps "
                "every record (no -, --skip-invalid or --force)"
            )
        _import_bash_lore(app, file, allow_secret=allow_secret, dry_run=dry_run, as_json=as_json)
        return
    from lore.bulk.importer import import_records

    if file == "-":
        # sys.stdin looked up now (click's test runner swaps it); click 8.5 deprecates
        # click.get_binary_stream.
        buffer = getattr(sys.stdin, "buffer", None)
        source: Any = buffer.read() if buffer is not None else sys.stdin.read().encode("utf-8")
    else:
        path = Path(file)
        if not path.exists() or path.is_dir():
            hint = " (a bash-lore data root? add --from bash-lore)" if path.is_dir() else ""
            raise UsageError(f"no such file: {file}{hint}")
        # A file, or anything that reads like one: /dev/null, a FIFO, <(...) (read whole).
        source = path
    show_bar = not as_json and _is_terminal(sys.stderr)
    bar: AbstractContextManager[Any] = _Bar() if show_bar else nullcontext()
    try:
        with bar as progress, _signals_stop() as stop:
            result = import_records(
                app.store,
                source,
                skip_invalid=skip_invalid,
                force=force,
                allow_secret=allow_secret,
                dry_run=dry_run,
                progress=progress,
                stop=stop,
            )
    except InvalidInputError as exc:
        _report_invalid(exc.details.get("invalid") or [])
        raise
    for issue in app.store.issues:
        warn(str(issue))
    _report_invalid(result.invalid)
    if as_json:
        emit_json(result.to_dict())
    else:
        echo(summary(result))


def _import_bash_lore(
    app: App, directory: str, *, allow_secret: bool, dry_run: bool, as_json: bool
) -> None:
    """``lore import --from bash-lore DIR``: the work is ``lore.bashlore``'s."""
    from lore.bulk.bashlore import import_bash_lore

    show_bar = not as_json and _is_terminal(sys.stderr)
    bar: AbstractContextManager[Any] = _Bar() if show_bar else nullcontext()
    with bar as progress, _signals_stop() as stop:
        report = import_bash_lore(
            app.store,
            directory,
            dry_run=dry_run,
            allow_secret=allow_secret,
            progress=progress,
            stop=stop,
        )
    for issue in app.store.issues:
        warn(str(issue))
    for item in report.skipped[:MAX_REPORTED]:
        where = item["file"] if item["line"] is None else f"{item['file']}:{item['line']}"
        warn(f"{where}: {item['reason']}")
    if len(report.skipped) > MAX_REPORTED:
        warn(f"… and {len(report.skipped) - MAX_REPORTED} more skipped (--json lists them all)")
    if as_json:
        emit_json(report.to_dict())
        return
    echo(f"bash-lore root {report.root}")
    for kind, counts in report.kinds.items():
        if counts["found"]:
            line = (
                f"  {kind:<13} {counts['found']:>5} found  {counts['imported']:>5} new  "
                f"{counts['existing']:>5} already imported"
            )
            echo(line + (f"  {counts['skipped']:>5} skipped" if counts["skipped"] else ""))
    if report.ignored:
        note(f"not read: {_plural(len(report.ignored), 'file')} (derived indexes, session "
             "pointers, copies; --json lists them)")  # fmt: skip
    if report.derived_edges:
        note(f"{_plural(report.derived_edges, 'derived graph edge')} not copied: lore's graph "
             "rebuilds them from the records")  # fmt: skip
    verb = "would import" if dry_run else "imported"
    text = f"{verb} {_plural(report.imported, 'record')}"
    by_kind = report.to_dict()["by_kind"]
    if by_kind:
        text += " (" + ", ".join(f"{k} {n}" for k, n in by_kind.items()) + ")"
    text += f"; skipped {report.existing} existing, {len(report.skipped)} odd"
    echo(text + (" (dry run: nothing written)" if dry_run else ""))


@contextmanager
def _signals_stop() -> Iterator[Callable[[], bool]]:
    """While importing, SIGINT and SIGTERM ask the import to stop after its current batch
    (it then reports how far it got and exits 130) instead of killing it mid-batch."""
    import signal

    asked: list[int] = []

    def handler(signum: int, _frame: Any) -> None:
        asked.append(signum)

    previous: dict[int, Any] = {}
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, handler)
    except ValueError:  # not the main thread (an embedding caller): no handlers
        pass
    try:
        yield lambda: bool(asked)
    finally:
        for number, old in previous.items():
            signal.signal(number, old)


def _write_stdout(chunks: list[bytes]) -> None:
    """Write and clear ``chunks`` on stdout as bytes (sys.stdout looked up now)."""
    data = b"".join(chunks)
    chunks.clear()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(data.decode("utf-8"))
    else:
        sys.stdout.flush()
        buffer.write(data)
    sys.stdout.flush()


@click.command(name="export")
@click.option(
    "--kind",
    "-k",
    "kinds",
    multiple=True,
    metavar="KIND",
    help="Only this kind (repeatable; singular or plural). Default: every kind.",
)
@click.option(
    "--all/--active",
    "include_hidden",
    default=True,
    help="--all (default): also retracted and superseded records, so a round trip is "
    "exact. --active: only records shown by default listings.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=str),
    default="-",
    help="Write to FILE (replaced atomically) instead of stdout.",
)
@json_option
@pass_app
def export_cmd(
    app: App, kinds: tuple[str, ...], include_hidden: bool, output: str, as_json: bool
) -> None:
    """Write every record of every kind, with its history, as JSONL `lore import` reads.

    A record is one line, {"kind": K, ...its fields as stored}: a logged record
    (decision, failure, observation, evidence, concept, edge) as it was created,
    followed by its revision lines ({"kind": K, "_op": "revise", ...} as stored);
    a pattern as its file holds it, followed by its validations and flags
    ({"kind": "pattern", "_op": "event", ...}); an anti-pattern, goal, session or
    project as stored. Kinds in the order decision, pattern, anti-pattern,
    failure, observation, evidence, concept, edge, goal, session, project; records
    oldest first. Importing the output into an empty data root reproduces the
    same files' records, and exporting that root gives identical bytes.

    With -o FILE a summary goes to stderr (with --json, as a JSON document on
    stdout: {"ok": true, "file", "exported", "by_kind", "history"}: records, and
    revision and event lines). --json needs -o.

    \b
    Examples:
      lore export > everything.jsonl
      lore export --kind decision --active -o decisions.jsonl
    """
    from lore.bulk.export import dumps_line, export_kinds, export_records

    to_stdout = output == "-"
    if as_json and to_stdout:
        raise UsageError("--json needs -o FILE: without it stdout carries the JSONL itself")
    selected = export_kinds(kinds or None)
    counts: dict[str, int] = {}
    history = 0
    chunks: list[bytes] = []
    for obj in export_records(app.store, selected, include_hidden=include_hidden):
        if "_op" in obj:
            history += 1
        else:
            counts[obj["kind"]] = counts.get(obj["kind"], 0) + 1
        chunks.append(dumps_line(obj))
        if to_stdout and len(chunks) >= 1000:
            _write_stdout(chunks)
    for issue in app.store.issues:
        warn(str(issue))
    if to_stdout:
        _write_stdout(chunks)
        return
    from lore.storage.atomic import write_output

    write_output(Path(output), b"".join(chunks))
    total = sum(counts.values())
    if as_json:
        emit_json(
            {"ok": True, "file": output, "exported": total, "by_kind": counts, "history": history}
        )
    else:
        detail = ", ".join(f"{k} {n}" for k, n in counts.items())
        more = f" and {_plural(history, 'history line')}" if history else ""
        note(
            f"exported {_plural(total, 'record')}{f' ({detail})' if detail else ''}{more} "
            f"to {output}"
        )
