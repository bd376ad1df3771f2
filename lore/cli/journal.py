"""``lore journal ...``: work with decisions after their capture (list, show, query, stats,
update, learn, link, retract, supersede, export). Flags and rendering only; the use
cases are ``lore.usecases.journal`` and ``lore.usecases.journal_export``.
"""

from __future__ import annotations

from typing import Any

import click

from lore.cli._app import App
from lore.cli._options import (
    SINCE_HELP,
    TAG_FILTER_HELP,
    UNTIL_HELP,
    AliasOption,
    limit_option,
    split_values,
    tag_option,
)
from lore.cli._output import echo, emit_json, json_option, note, read_text, report_read_issues
from lore.errors import UsageError

pass_app = click.make_pass_decorator(App)
SECRET_HELP = "Write even if the text looks like it holds a credential."


def decision_line(d: dict[str, Any]) -> str:
    """``<id>  <date>  <outcome>  <decision>`` (one line, the decision's first 100 characters)."""
    text = " ".join(str(d.get("decision", "")).split())
    status = "" if d.get("status") == "active" else f" [{d.get('status')}]"
    when = str(d.get("timestamp", ""))[:10]
    return f"{d['id']}  {when}  {d.get('outcome', ''):<10}  {text[:100]}{status}"


def _changed(reply: dict[str, Any], verb: str) -> None:
    fields = ", ".join(reply.get("changed", []))
    if fields:
        echo(f"{verb} decision {reply['id']}: {fields}")
    else:
        echo(f"decision {reply['id']}: nothing changed")


@click.group(name="journal", invoke_without_command=True)
@json_option
@click.pass_context
def journal_cmd(ctx: click.Context, as_json: bool) -> None:
    """Work with decisions: list, query, update, link, supersede, export (default: list)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_cmd, as_json=as_json)


@journal_cmd.command(name="list", short_help="List decisions newest first (filters combine).")
@limit_option(0, "At most N (0: all).", cls=AliasOption, hidden_aliases=("--recent",))
@click.option("--type", "type_", help="Only this type (architecture, tooling, ...).")
@click.option("--outcome", help="Only this outcome (pending|successful|revised|abandoned).")
@tag_option(TAG_FILTER_HELP)
@click.option("--project", help="Only this project's decisions.")
@click.option("--session", help="Only decisions captured in this session id.")
@click.option("--since", help=SINCE_HELP)
@click.option("--until", help=UNTIL_HELP)
@click.option("--all", "show_all", is_flag=True, help="Include retracted and superseded ones.")
@json_option
@pass_app
def list_cmd(
    app: App,
    limit: int,
    type_: str | None,
    outcome: str | None,
    tags: tuple[str, ...],
    project: str | None,
    session: str | None,
    since: str | None,
    until: str | None,
    show_all: bool,
    as_json: bool,
) -> None:
    """List decisions newest first, in their latest state; filters combine.

    One line each: id, date, outcome, decision (retracted and superseded ones, shown
    with --all, end with their status). With --json: an array of decision records.
    """
    from lore.usecases.journal import list_decisions

    found = list_decisions(
        app.store,
        recent=limit,
        type=type_,
        outcome=outcome,
        tags=split_values(tags),
        project=project,
        session=session,
        since=since,
        until=until,
        show_all=show_all,
    )
    report_read_issues(app.store)
    if as_json:
        emit_json(found)
        return
    if not found:
        note("no decisions")
    for d in found:
        echo(decision_line(d))


@journal_cmd.command(name="show", short_help="Print one decision, with the evidence behind it.")
@click.argument("decision_id")
@json_option
@pass_app
def show_cmd(app: App, decision_id: str, as_json: bool) -> None:
    """Print decision DECISION_ID in its latest state (as `lore show` does).

    With --json: the record, plus "evidence" when evidence backs it (see `lore show`).
    """
    from lore.cli.records import render_record
    from lore.usecases.evidence import backing
    from lore.usecases.journal import decision

    record = decision(app.store, decision_id)
    render_record(record.to_dict(), record.kind, backing(app.store, record.id), as_json=as_json)


@journal_cmd.command(name="query", short_help="Search decisions, best match first.")
@click.argument("query", nargs=-1, required=True)
@click.option("--project", help="Only this project's decisions.")
@limit_option(10, "At most N (0: all).")
@click.option("--all", "show_all", is_flag=True, help="Include retracted and superseded ones.")
@json_option
@pass_app
def query_cmd(
    app: App, query: tuple[str, ...], project: str | None, limit: int, show_all: bool, as_json: bool
) -> None:
    """Search decisions for QUERY, best first (`lore recall --kind decision`).

    With --json: {"query", "results": [...]}, the shape `lore recall --json` prints.
    """
    from lore.cli.recall import _line
    from lore.usecases.journal import query as search

    found = search(app.store, " ".join(query), project=project, limit=limit, show_all=show_all)
    if as_json:
        emit_json(found)
        return
    if not found["results"]:
        note(f"no decisions match {found['query']!r}")
    for item in found["results"]:
        echo(_line(item, score=True))


@journal_cmd.command(name="stats", short_help="Count decisions by type, outcome and status.")
@json_option
@pass_app
def stats_cmd(app: App, as_json: bool) -> None:
    """Count decisions by type, outcome and status (hidden ones included).

    With --json: {"total", "by_type": {...}, "by_outcome": {...}, "by_status": {...}}.
    """
    from lore.usecases.journal import stats

    found = stats(app.store)
    report_read_issues(app.store)
    if as_json:
        emit_json(found)
        return
    echo(f"total: {found['total']}")
    for key in ("by_type", "by_outcome", "by_status"):
        counts = ", ".join(f"{k} {v}" for k, v in found[key].items() if v)
        echo(f"{key.replace('_', ' ')}: {counts or '-'}")


@journal_cmd.command(
    name="update", short_help="Change outcome, rationale, lesson, tags, type or files."
)
@click.argument("decision_id")
@click.option("--outcome", help="pending|successful|revised|abandoned.")
@click.option("--rationale", "-r", help="A new rationale.")
@click.option("--lesson", help="The lesson learned.")
@tag_option("Replace the tags (comma-separated, repeatable).")
@click.option("--type", "type_", help="A new type (architecture, tooling, ...).")
@click.option(
    "--files", "-f", "files", multiple=True, help="Replace the files (comma-separated, repeatable)."
)
@click.option(
    "--add-file", "add_files", multiple=True, help="Add a file (comma-separated, repeatable)."
)
@click.option("--allow-secret", is_flag=True, help=SECRET_HELP)
@json_option
@pass_app
def update_cmd(
    app: App,
    decision_id: str,
    outcome: str | None,
    rationale: str | None,
    lesson: str | None,
    tags: tuple[str, ...],
    type_: str | None,
    files: tuple[str, ...],
    add_files: tuple[str, ...],
    allow_secret: bool,
    as_json: bool,
) -> None:
    """Change a decision's outcome, rationale, lesson, tags, type or files in one revision.

    Only fields that differ are written; the project's own tag survives --tag.
    --files replaces the files, --add-file adds to them; either way each file also
    joins the entities (as at capture; entities are never removed).
    With --json: the capture reply plus "changed" (the fields written).
    """
    from lore.usecases.journal import update

    result = update(
        app.store,
        decision_id,
        outcome=outcome,
        rationale=rationale,
        lesson=lesson,
        tags=list(tags) if tags else None,
        type=type_,
        files=list(files) if files else None,
        add_files=list(add_files),
        allow_secret=allow_secret,
    )
    if as_json:
        emit_json(result)
    else:
        _changed(result, "updated")


@journal_cmd.command(name="learn", short_help="Record the lesson a decision taught.")
@click.argument("decision_id")
@click.argument("lesson")
@click.option("--allow-secret", is_flag=True, help=SECRET_HELP)
@json_option
@pass_app
def learn_cmd(app: App, decision_id: str, lesson: str, allow_secret: bool, as_json: bool) -> None:
    """Record the LESSON decision DECISION_ID taught (its lesson_learned; "-" reads
    it from stdin).

    With --json: the reply of `lore journal update`.
    """
    from lore.usecases.journal import learn

    lesson = read_text(lesson, what="lesson")
    result = learn(app.store, decision_id, lesson, allow_secret=allow_secret)
    if as_json:
        emit_json(result)
    else:
        _changed(result, "updated")


@journal_cmd.command(name="link", short_help="Relate two decisions (both ways).")
@click.argument("a")
@click.argument("b")
@json_option
@pass_app
def link_cmd(app: App, a: str, b: str, as_json: bool) -> None:
    """Relate decisions A and B: each lists the other in related_decisions.

    Linking twice changes nothing. With --json: {"ok", "ids": [A, B], "changed":
    [ids that gained the link], "records": [A's, B's]}.
    """
    from lore.usecases.journal import link

    result = link(app.store, a, b)
    if as_json:
        emit_json(result)
    elif result["changed"]:
        echo(f"linked {result['ids'][0]} <-> {result['ids'][1]}")
    else:
        echo(f"{result['ids'][0]} and {result['ids'][1]} were already linked")


@journal_cmd.command(name="retract", short_help="Withdraw a decision.")
@click.argument("decision_id")
@click.option("--reason", help="Why it is withdrawn (kept with the revision).")
@click.option("--allow-secret", is_flag=True, help=SECRET_HELP)
@json_option
@pass_app
def retract_cmd(
    app: App, decision_id: str, reason: str | None, allow_secret: bool, as_json: bool
) -> None:
    """Withdraw a decision: it stays on disk but leaves default listings.

    Refused when it is already retracted. With --json: the capture reply.
    """
    from lore.usecases.journal import retract

    result = retract(app.store, decision_id, reason=reason, allow_secret=allow_secret)
    if as_json:
        emit_json(result)
    else:
        echo(f"retracted decision {result['id']}")


@journal_cmd.command(name="supersede", short_help="Mark a decision replaced by another.")
@click.argument("old")
@click.option("--by", "new", required=True, help="The decision that replaces OLD.")
@json_option
@pass_app
def supersede_cmd(app: App, old: str, new: str, as_json: bool) -> None:
    """Mark decision OLD replaced by --by NEW (OLD leaves default listings).

    OLD gets status superseded and superseded_by NEW; NEW gains OLD in supersedes.
    With --json: {"ok", "id": OLD, "changed": [ids], "old": {...}, "new": {...}}.
    """
    from lore.usecases.journal import supersede

    result = supersede(app.store, old, new)
    if as_json:
        emit_json(result)
    elif result["changed"]:
        echo(f"{result['old']['id']} superseded by {result['new']['id']}")
    else:
        echo(f"{result['old']['id']} was already superseded by {result['new']['id']}")


@journal_cmd.command(name="export", short_help="Export decisions as JSON, Markdown or ADR files.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "markdown", "adr"]),
    default="json",
    show_default=True,
    help="json: an array; markdown: one document; adr: one file per decision.",
)
@click.option("--output", "-o", help="File to write (json, markdown) or directory (adr).")
@json_option
@pass_app
def export_cmd(app: App, fmt: str, output: str | None, as_json: bool) -> None:
    """Export every decision (hidden ones too), oldest first.

    Without --output, json and markdown go to stdout. --format adr writes one
    architecture decision record per decision into the --output directory, named
    like adr-tools and log4brains (0001-use-redis-for-caching.md); a re-run rewrites
    the same files (each carries its decision's id) and numbers new decisions on.
    With --json (needs --output): {"ok", "format", "exported", "file"} or, for adr,
    {"ok", "format", "directory", "exported", "created", "updated", "unchanged"}.
    """
    from lore.usecases.journal_export import export

    if as_json and output is None and fmt != "adr":
        raise UsageError("--json describes a written export: give --output")
    result = export(app.store, fmt, output)
    if "content" in result:
        click.echo(result["content"], nl=False)
    elif as_json:
        emit_json(result)
    elif fmt == "adr":
        note(
            f"exported {result['exported']} decisions to {result['directory']}: "
            f"{len(result['created'])} created, {len(result['updated'])} updated, "
            f"{len(result['unchanged'])} unchanged"
        )
    else:
        note(f"exported {result['exported']} decisions to {result['file']}")
