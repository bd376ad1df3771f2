"""``lore sync``: commit, pull and push a git data root, and say what moved."""

from __future__ import annotations

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option, note

pass_app = click.make_pass_decorator(App)


@click.command(name="sync")
@click.option(
    "--rebase",
    "mode",
    flag_value="rebase",
    default=None,
    help="Pull with rebase (default: merge, or git config lore.syncMode).",
)
@click.option("--merge", "mode", flag_value="merge", help="Pull with a merge commit.")
@click.option("--no-push", is_flag=True, help="Commit and pull only.")
@click.option("-m", "--message", help="Commit message (default: generated from the counts).")
@click.option(
    "--allow-secret",
    is_flag=True,
    help="Skip the secrets gate for the commit message (only for text that is not a real "
    "credential).",
)
@json_option
@pass_app
def sync_cmd(
    app: App,
    mode: str | None,
    no_push: bool,
    message: str | None,
    allow_secret: bool,
    as_json: bool,
) -> None:
    """Commit lore's changes in a git data root, pull, push; report what moved.

    The data root must be a git repository of its own (`lore init --git`, then a
    remote and an upstream branch). lore commits everything pending under the root
    with a generated message, fetches, merges (or rebases) the upstream branch,
    which the union merge of the logs makes conflict-free for records, and pushes.
    Without an upstream it only commits. When git cannot merge by itself (a
    document changed on both sides), lore aborts the merge, names the files and
    exits 8: your commit is kept and nothing is lost.

    \b
    Text: one line each for committed, received and sent records.
    --json: {"ok", "root", "mode", "upstream", "committed": {"commit", "records",
    "revisions", "kinds"}, "received": {...}, "sent": {...}, "pulled", "pushed"}.
    """
    from lore.git.sync import describe, sync

    result = sync(
        app.store.path, mode=mode, push=not no_push, message=message, allow_secret=allow_secret
    )
    if as_json:
        emit_json(result)
        return
    committed = result["committed"]
    if committed["commit"]:
        echo(f"committed {committed['commit'][:10]}: {describe(committed)}")
    else:
        echo("committed nothing: no pending changes")
    if result["upstream"] is None:
        missing = result.get("missing_upstream")
        if missing:
            remote, _, branch = missing.partition("/")
            note(
                f"the upstream branch {missing} does not exist yet (an empty remote?): "
                f"committed locally only; `git push -u {remote} {branch}` creates it"
            )
        else:
            note("no upstream branch: committed locally only (git push -u REMOTE BRANCH sets one)")
        return
    echo(f"received {describe(result['received'])} from {result['upstream']}")
    if result["pushed"]:
        echo(f"sent {describe(result['sent'])} to {result['upstream']}")
    elif no_push:
        echo("sent nothing: --no-push")
    else:
        echo(f"sent nothing: {result['upstream']} already has every commit")
