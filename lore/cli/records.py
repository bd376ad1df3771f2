"""``lore show ID`` and ``lore list KIND``: read any record, in its latest state."""

from __future__ import annotations

from typing import Any

import click

from lore.cli._app import App
from lore.cli._options import (
    SINCE_HELP,
    TAG_FILTER_HELP,
    UNTIL_HELP,
    limit_option,
    split_values,
    tag_option,
)
from lore.cli._output import (
    console,
    echo,
    emit_json,
    is_terminal,
    json_option,
    note,
    style,
    warn,
)

pass_app = click.make_pass_decorator(App)


def _report_issues(app: App) -> None:
    for issue in app.store.issues:
        warn(str(issue))


def _render_value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) if not isinstance(v, dict) else _render_dict(v) for v in value)
    if isinstance(value, dict):
        return _render_dict(value)
    return str(value)


def _render_dict(value: dict[str, Any]) -> str:
    import orjson

    return orjson.dumps(value).decode()


@click.command(name="show")
@click.argument("record_id")
@click.option(
    "--history", is_flag=True, help="Also list the revisions that made the current state."
)
@click.option(
    "--source", is_flag=True, help="Also print the transcript lines an ingested record came from."
)
@json_option
@pass_app
def show_cmd(app: App, record_id: str, history: bool, source: bool, as_json: bool) -> None:
    """Print the record with id RECORD_ID (any kind) in its latest state.

    RECORD_ID may also be the legacy_id of a record imported from bash-lore.
    With --json, prints the record exactly as stored, revisions folded in
    (with --history: {"record": ..., "history": [...]}). Evidence that supports
    the record is listed after it (--json: an "evidence" array of evidence records,
    present only when there is some). With --source, a record `lore ingest` wrote
    is followed by the transcript lines its provenance names, readable (--json: a
    "source_lines" object); a record without provenance is refused (exit 4), a transcript
    that is gone (or now shorter than the lines named) is exit 3.
    """
    from lore.errors import NotFoundError
    from lore.usecases.core import show

    try:
        doc = show(app.store, record_id, history=history, source=source)
    except NotFoundError:
        _report_issues(app)  # an unreadable file may be why it is not found
        raise
    _report_issues(app)
    if as_json:
        emit_json(doc)
        return
    evidence = doc.get("evidence", [])
    skip = ("evidence", "source_lines")
    data = doc["record"] if history else {k: v for k, v in doc.items() if k not in skip}
    kind = app.store.get(data["id"]).kind  # its own id: RECORD_ID may be a legacy_id
    render_record(data, kind, evidence, as_json=False, history=doc["history"] if history else None)
    if source:
        render_source(doc["source_lines"])


def render_source(found: dict[str, Any]) -> None:
    """``source:`` then each transcript entry: its line, who, and its text indented."""
    first, last = found["lines"]
    echo(f"source: {found['transcript']} lines {first}-{last} (session {found.get('session')})")
    for entry in found["entries"]:
        text = entry["text"].splitlines() or [""]
        echo(f"  {entry['line']:>6}  {entry['who']}: {text[0]}")
        for rest in text[1:]:
            echo(f"          {rest}")


def render_record(
    data: dict[str, Any],
    kind: str,
    evidence: list[dict[str, Any]],
    *,
    as_json: bool,
    history: list[dict[str, Any]] | None = None,
) -> None:
    """A record as ``lore show`` prints it, followed by the evidence that backs it."""
    if as_json:
        out: dict[str, Any] = {"record": data, "history": history} if history is not None else data
        if evidence:
            out = {**out, "evidence": evidence}
        emit_json(out)
        return
    echo(f"{kind} {data.get('id')}")
    for key, value in data.items():
        if key == "id" or value in (None, "", [], {}):
            continue
        first, *rest = _render_value(value).split("\n")
        echo(f"  {key}: {first}")
        for more in rest:  # indented under the value, never read as another field
            echo(f"    {more}")
    if history:
        echo("history:")
        for line in history:
            why = f"  ({line['reason']})" if line.get("reason") else ""
            echo(f"  {line.get('timestamp', '')}  {_render_value(line.get('set', line))}{why}")
    render_evidence(evidence)


def render_evidence(evidence: list[dict[str, Any]]) -> None:
    """The ``evidence:`` lines after a shown record (nothing when there is none)."""
    if evidence:
        echo("evidence:")
        for item in evidence:
            content = " ".join(str(item.get("content", "")).split())
            echo(f"  {item['id']}  [{item.get('confidence')}]  {content}")


@click.command(name="list")
@click.argument("kind", required=False)
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Include hidden records (retracted, superseded, deprecated, discarded).",
)
@tag_option(TAG_FILTER_HELP)
@click.option("--project", help="Only records of this project.")
@click.option("--since", help=SINCE_HELP)
@click.option("--until", help=UNTIL_HELP)
@limit_option(0, "At most N (0: all).")
@json_option
@pass_app
def list_cmd(
    app: App,
    kind: str | None,
    show_all: bool,
    tags: tuple[str, ...],
    project: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """List records of KIND, newest first.

    KIND is one of decision, pattern, anti-pattern, failure, observation,
    evidence, goal, session, project, concept, edge (plurals work too); without
    KIND, records of every kind. On a terminal: a table (id, when, title; without
    KIND also the kind). To a pipe or file: one record per line,
    "ID<TAB>YYYY-MM-DD HH:MM<TAB>TITLE" (without KIND:
    "ID<TAB>YYYY-MM-DD HH:MM<TAB>KIND<TAB>TITLE"), no header, never wrapped (the
    title's whitespace collapsed to single spaces; FORCE_COLOR makes the id bold).
    Nothing found: stdout stays empty and stderr says so. With --json, prints an
    array of records exactly as stored (without KIND each one starts with its
    "kind", as `lore export` writes them).
    """
    from lore.model import kind_class
    from lore.usecases.records import list_records

    records = list_records(
        app.store,
        kind,
        hidden=show_all,
        tags=split_values(tags),
        project=project,
        since=since,
        until=until,
        limit=limit,
    )
    _report_issues(app)
    every = kind is None
    if as_json:
        if every:
            emit_json([{"kind": r.kind, **r.to_dict()} for r in records])
        else:
            emit_json([r.to_dict() for r in records])
        return
    if not records:
        note(f"no {kind_class(kind).KIND.name + ' ' if kind else ''}records")
        return
    if not is_terminal():
        # A pipe or file: one record per line, tab-separated, never wrapped or padded.
        for record in records:
            when = record.timestamp[:16].replace("T", " ")
            title = " ".join(record.title.split())
            middle = f"\t{record.kind}" if every else ""
            echo(f"{style(record.id, bold=True)}\t{when}{middle}\t{title}")
        return
    from rich.table import Table

    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("id", no_wrap=True)
    table.add_column("when", no_wrap=True)
    if every:
        table.add_column("kind", no_wrap=True)
    table.add_column("title" if every else records[0].KIND.title)
    for record in records:
        when = record.timestamp[:16].replace("T", " ")
        cells = [record.id, when, record.kind] if every else [record.id, when]
        table.add_row(*cells, record.title)
    console().print(table)
