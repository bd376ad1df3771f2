"""``lore engram sync|promote``: flags and rendering; the bridge is ``lore.bridges``'."""

from __future__ import annotations

import click

from lore.cli._app import App
from lore.cli._options import SINCE_HELP, help_when_alone
from lore.cli._output import echo, emit_json, json_option, note

pass_app = click.make_pass_decorator(App)
DB_HELP = "Engram's database (default: $CLAUDE_MEMORY_DB, else ~/.claude/memory.sqlite)."


@click.group(name="engram", invoke_without_command=True)
@click.pass_context
def engram_cmd(ctx: click.Context) -> None:
    """Bridge to Engram's memory database: sync shadows of lore's records, promote memories.

    Engram (an MCP memory server) keeps memories in SQLite. `lore engram sync`
    writes lore's durable records there as "shadow" memories its recall sees;
    `lore engram promote` copies an Engram memory into lore as an observation;
    `lore recall --routed` asks both. Optional and fail-soft: without the
    database, each says so and exits 0. lore never changes Engram's schema or
    triggers, and never changes or deletes a memory it did not write.
    """
    help_when_alone(ctx)


@engram_cmd.command(name="sync")
@click.option("--since", help=SINCE_HELP)
@click.option(
    "--kind",
    "-k",
    "kinds",
    multiple=True,
    metavar="KIND",
    help="Only decision, pattern (anti-patterns too), failure or session (repeatable).",
)
@click.option("--dry-run", is_flag=True, help="Count what would change; write nothing.")
@click.option("--db", help=DB_HELP)
@json_option
@pass_app
def sync_cmd(
    app: App,
    since: str | None,
    kinds: tuple[str, ...],
    dry_run: bool,
    db: str | None,
    as_json: bool,
) -> None:
    """Write and update shadows of lore's records in Engram's database.

    A shadow is a memory with project "lore", source "lore-bridge", an empty
    embedding and content "[lore:<id>] <text> <!-- hash:... -->": active
    decisions (topic lore-decisions, importance 3, 0 when abandoned), patterns
    and anti-patterns (lore-patterns, 3), error types with 3 or more failures
    (lore-failures, 2) and closed sessions with a handoff (lore-sessions, 2).
    The hash tells a changed shadow, which is updated in place; a record hidden
    since keeps its shadow at importance 0; nothing is deleted. Graph edges
    between shadowed records become Edge rows. All of it is one transaction.

    \b
    Examples:
      lore engram sync --dry-run
      lore engram sync --since 7d --kind decision
    """
    from lore.bridges import engram
    from lore.bridges.engram_sync import sync

    result = sync(app.store, db=db, since=since, kinds=kinds, dry_run=dry_run)
    if not result.found:
        note(engram.missing_message(engram.path(db)))
    if as_json:
        emit_json(result.to_dict())
        return
    if not result.found:
        return
    doc = result.to_dict()
    verb = "would write" if dry_run else "wrote"
    for kind, counts in doc["by_kind"].items():
        echo(
            f"  {kind:<9} {counts['inserted']:>5} new  {counts['updated']:>5} updated  "
            f"{counts['unchanged']:>5} unchanged"
        )
    edges = doc["edges"]
    tail = f", {edges['inserted']} edges" if not dry_run else ""
    echo(
        f"{verb} {doc['inserted']} new and {doc['updated']} updated shadows in {doc['db']}"
        f"{tail}" + (" (dry run: nothing written)" if dry_run else "")
    )


@engram_cmd.command(name="promote")
@click.argument("ids", nargs=-1, required=True, metavar="ID...")
@click.option(
    "--allow-secret", is_flag=True, help="Promote even text that looks like a credential."
)
@click.option("--db", help=DB_HELP)
@json_option
@pass_app
def promote_cmd(
    app: App, ids: tuple[str, ...], allow_secret: bool, db: str | None, as_json: bool
) -> None:
    """Copy Engram memories (by their id) into lore as observations.

    Each goes through capture (the secrets gate included) as an observation with
    source "engram", tagged "engram" and its topic, at the memory's own time,
    linked back by "engram_id" (its topic and project kept as engram_topic and
    engram_project). A memory already promoted is not promoted again; lore's own
    shadows are refused. Every id is checked before anything is written.

    \b
    Example:
      lore engram promote 42 57
    """
    from lore.bridges import engram
    from lore.bridges.engram_promote import promote

    doc = promote(app.store, ids, db=db, allow_secret=allow_secret)
    if not doc["found"]:
        note(engram.missing_message(engram.path(db)))
    if as_json:
        emit_json(doc)
        return
    for item in doc["promoted"]:
        if item["created"]:
            echo(f"promoted memory {item['engram_id']} to observation {item['id']}")
        else:
            echo(f"memory {item['engram_id']} was already promoted: {item['id']}")
