"""``lore evidence ...``: add, list, show, update and count evidence. Flags and rendering
only; the use cases are ``lore.usecases.evidence``."""

from __future__ import annotations

from typing import Any

import click

from lore.cli._app import App
from lore.cli._options import tag_option
from lore.cli._output import echo, emit_json, json_option, note, report_read_issues

pass_app = click.make_pass_decorator(App)
LEVELS = "preliminary|confirmed|contested|superseded"


def evidence_line(e: dict[str, Any]) -> str:
    """``<id>  <date>  <confidence>  <content>`` (one line, the first 100 characters)."""
    text = " ".join(str(e.get("content", "")).split())
    supports = f"  (supports {', '.join(e['supports'])})" if e.get("supports") else ""
    when = str(e.get("timestamp", ""))[:10]
    return f"{e['id']}  {when}  {e.get('confidence', ''):<11}  {text[:100]}{supports}"


@click.group(name="evidence", invoke_without_command=True)
@json_option
@click.pass_context
def evidence_cmd(ctx: click.Context, as_json: bool) -> None:
    """Record and weigh evidence: add, list, show, update, stats (default: list)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_cmd, as_json=as_json)


@evidence_cmd.command(name="add", short_help="Record a piece of evidence.")
@click.argument("text", required=False)
@click.option("--source", help="Where this came from (default: manual).")
@click.option("--provenance", help="Where the evidence comes from (URL, command, log).")
@click.option("--confidence", help=f"{LEVELS} (default preliminary).")
@click.option("--supports", multiple=True, help="An id it backs (comma-separated, repeatable).")
@tag_option()
@click.option("--project", help="Project name (default: the git repository's name).")
@click.option("--force", is_flag=True, help="Record even if a near-duplicate exists.")
@click.option(
    "--allow-secret", is_flag=True, help="Write even if the text looks like it holds a credential."
)
@click.option("--quiet", "-q", is_flag=True, help="Print only the new id.")
@json_option
@pass_app
def add_cmd(
    app: App,
    text: str | None,
    source: str | None,
    provenance: str | None,
    confidence: str | None,
    supports: tuple[str, ...],
    tags: tuple[str, ...],
    project: str | None,
    force: bool,
    allow_secret: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """Record TEXT as evidence ("-" or piped stdin reads it).

    Every --supports id must exist (exit 3). With --json: the capture reply.
    """
    from lore.cli._output import read_text
    from lore.usecases.evidence import add

    result = add(
        app.store,
        read_text(text),
        source=source,
        provenance=provenance,
        confidence=confidence,
        supports=supports,
        tags=tags,
        project=project,
        force=force,
        allow_secret=allow_secret,
    )
    if as_json:
        emit_json(result)
    elif quiet:
        echo(result["id"])
    else:
        content = " ".join(str(result["record"]["content"]).split())
        echo(f"evidence {result['id']}: {content[:72]}{'…' if len(content) > 72 else ''}")


@evidence_cmd.command(name="list", short_help="List evidence newest first.")
@click.option("--confidence", help=f"Only this level: {LEVELS}.")
@click.option("--all", "show_all", is_flag=True, help="Include superseded evidence.")
@json_option
@pass_app
def list_cmd(app: App, confidence: str | None, show_all: bool, as_json: bool) -> None:
    """List evidence newest first (superseded evidence only with --all or asked for).

    One line each: id, date, confidence, content, the ids it supports. With --json:
    an array of evidence records.
    """
    from lore.usecases.evidence import list_evidence

    found = list_evidence(app.store, confidence=confidence, show_all=show_all)
    report_read_issues(app.store)
    if as_json:
        emit_json(found)
        return
    if not found:
        note("no evidence")
    for e in found:
        echo(evidence_line(e))


@evidence_cmd.command(name="show", short_help="Print one piece of evidence.")
@click.argument("evidence_id")
@json_option
@pass_app
def show_cmd(app: App, evidence_id: str, as_json: bool) -> None:
    """Print evidence EVIDENCE_ID in its latest state (--json: the record, as `lore show`)."""
    from lore.cli.records import render_record
    from lore.usecases.evidence import backing, show

    data = show(app.store, evidence_id)
    render_record(data, "evidence", backing(app.store, evidence_id), as_json=as_json)


@evidence_cmd.command(name="update", short_help="Change how firm a piece of evidence is.")
@click.argument("evidence_id")
@click.option("--confidence", required=True, help=f"The new level: {LEVELS}.")
@json_option
@pass_app
def update_cmd(app: App, evidence_id: str, confidence: str, as_json: bool) -> None:
    """Change how firm evidence EVIDENCE_ID is (one appended revision).

    With --json: the capture reply plus "changed" (the fields written).
    """
    from lore.usecases.evidence import update

    result = update(app.store, evidence_id, confidence=confidence)
    if as_json:
        emit_json(result)
    elif result["changed"]:
        echo(f"updated evidence {result['id']}: confidence {result['record']['confidence']}")
    else:
        echo(f"evidence {result['id']}: nothing changed")


@evidence_cmd.command(name="stats", short_help="Count evidence by confidence.")
@json_option
@pass_app
def stats_cmd(app: App, as_json: bool) -> None:
    """Count evidence by confidence.

    With --json: {"total", "preliminary", "confirmed", "contested", "superseded"}.
    """
    from lore.usecases.evidence import stats

    found = stats(app.store)
    report_read_issues(app.store)
    if as_json:
        emit_json(found)
        return
    echo("  ".join(f"{k} {v}" for k, v in found.items()))
