"""``lore concepts propose|promote``: concepts from clusters of similar records.

Flags and rendering only: the proposals and records are ``lore.graph.curate``'s job.
"""

from __future__ import annotations

import click

from lore.cli._app import App
from lore.cli._options import AliasOption
from lore.cli._output import echo, emit_json, json_option, note
from lore.cli.graph import ALLOW_SECRET, concepts_list_cmd

pass_app = click.make_pass_decorator(App)


@click.group(name="concepts", invoke_without_command=True)
@json_option
@click.pass_context
def concepts_cmd(ctx: click.Context, as_json: bool) -> None:
    """List concepts, propose new ones from clusters of similar records, promote them.

    Alone: `lore concepts list` (the concepts, with the records that ground and
    reference them; `lore graph concepts` prints the same).
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(concepts_list_cmd, as_json=as_json)


concepts_cmd.add_command(concepts_list_cmd, name="list")


@concepts_cmd.command(name="propose")
@click.option("--min-size", type=click.IntRange(min=2), default=2, show_default=True)
@click.option("--limit", "-n", type=click.IntRange(min=0), default=20, show_default=True)
@json_option
@pass_app
def propose_cmd(app: App, min_size: int, limit: int, as_json: bool) -> None:
    """Suggest concepts from clusters of similar decisions and patterns (writes nothing)."""
    from lore.graph.curate import propose

    doc = propose(app.store, min_size=min_size, limit=limit)
    if as_json:
        emit_json(doc)
        return
    for p in doc["proposals"]:
        echo(f"{p['name']}  ({len(p['members'])}): {','.join(p['members'])}")
    if not doc["proposals"]:
        note("no clusters to propose")


@concepts_cmd.command(name="promote")
@click.argument("name")
@click.option("--members", required=True, help="Comma-separated ids of the grounding records.")
@click.option(
    "--description",
    cls=AliasOption,
    hidden_aliases=("--definition",),
    default="",
    help="What the concept means (a new concept).",
)
@ALLOW_SECRET
@json_option
@pass_app
def promote_cmd(
    app: App, name: str, members: str, description: str, allow_secret: bool, as_json: bool
) -> None:
    """Record the concept NAME and a grounds edge from each of --members."""
    from lore.graph.curate import promote

    doc = promote(
        app.store, name, members.split(","), definition=description, allow_secret=allow_secret
    )
    if as_json:
        emit_json(doc)
        return
    echo(f"{doc['concept']['id']}  {len(doc['edges'])} grounds edge(s)")
