"""``lore sync``: commit, integrate and push the data root's git repository."""

from __future__ import annotations

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option

pass_app = click.make_pass_decorator(App)


@click.command(name="sync")
@click.option(
    "--strategy",
    type=click.Choice(["rebase", "merge"]),
    default=None,
    help="How to integrate the remote's commits (default: LORE_SYNC_STRATEGY, else rebase).",
)
@click.option("--no-push", is_flag=True, help="Commit and integrate, but do not push.")
@json_option
@pass_app
def sync_cmd(app: App, strategy: str | None, no_push: bool, as_json: bool) -> None:
    """Commit the data root's changes, pull the remote's and push; report what moved.

    In a data root made with `lore init --git`: stages and commits lore's own
    files (the component folders, .gitattributes, .gitignore) with a generated
    message ("lore sync: 3 new records, 1 change"), fetches, integrates the
    upstream branch by rebase or merge (logs merge by union, so two clones that
    both captured never conflict), and pushes. Records received and sent are
    counted from git's diffs. When git needs a person (two clones changed the
    same field of the same document), the rebase or merge is undone, nothing
    changes, and the conflicted files are named (exit 1, code "conflict").

    \b
    Examples:
      lore sync
      lore sync --strategy merge --json
    """
    from lore.upkeep.sync import sync

    result = sync(app.store, strategy=strategy, push=not no_push)
    if as_json:
        emit_json(result.to_dict())
        return
    if result.committed:
        echo(f"committed {result.committed[:12]}: {result.message}")
    if result.remote is None:
        echo("no remote: changes committed locally only")
        return
    got, sent = result.received, result.sent
    echo(f"received {got.records} records, {got.changes} changes from {result.remote}")
    verb = "sent" if result.pushed else "not pushed"
    echo(f"{verb} {sent.records} records, {sent.changes} changes")
