"""``lore init`` and ``lore paths``: set up and locate the data root."""

from __future__ import annotations

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option, note

pass_app = click.make_pass_decorator(App)


@click.command(name="init")
@click.option("--git", "use_git", is_flag=True, help="Also make the root a git repository.")
@json_option
@pass_app
def init_cmd(app: App, use_git: bool, as_json: bool) -> None:
    """Create <root>/<component>/data/ for all nine components.

    Safe to run again: nothing that exists is changed. With --git the root also
    becomes a git repository with a .gitattributes that merges the append-only
    JSONL files by union and a .gitignore for lore's derived and machine-local
    files (existing files get only the lines they lack).
    """
    from lore.usecases.admin import init

    result = init(app.store, git=use_git)
    if as_json:
        emit_json({"ok": True, **result})
        return
    echo(f"data root: {result['root']}")
    for path in result["created"]:
        echo(f"  created {path}")
    if not result["created"]:
        echo("  nothing to create: already initialised")


@click.command(name="paths")
@click.option(
    "--move-to",
    "move_to",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=str),
    default=None,
    help="Move the data root to DIR (new or empty): copy, verify, then switch.",
)
@json_option
@pass_app
def paths_cmd(app: App, move_to: str | None, as_json: bool) -> None:
    """Print the resolved data root and every component's data directory.

    The root is the first of: --data-dir, LORE_DATA_DIR, $XDG_DATA_HOME/lore
    (default ~/.local/share/lore). A checkout's components/ is the root only when
    chosen that way (LORE_DATA_DIR=/path/to/lore/components), or while it still
    holds data written before the user data home was the default (every command
    then warns until it is moved).

    --move-to DIR moves the root, losing nothing: it holds the root's lock (writers
    wait), copies every data file into a temporary directory beside DIR, compares
    each copy with its original, renames it to DIR and leaves .lore-moved in the old
    root, so every later command (and --data-dir or LORE_DATA_DIR still naming the
    old path) uses DIR. DIR must be new or empty. An interrupted move leaves the
    root as it was. The old copy is kept; delete it once you are sure.

    \b
    Examples:
      lore paths --json
      lore paths --move-to ~/.local/share/lore
    """
    from lore.usecases.admin import move_root, paths

    if move_to is not None:
        moved = move_root(app.store, move_to)
        if as_json:
            emit_json(moved)
            return
        for left in moved["removed"]:
            note(f"removed {left}, the partial copy an interrupted move left")
        echo(f"moved {moved['files']} files from {moved['from']} to {moved['to']}")
        note(_after_move(moved["to"]))
        return
    result = paths(app.store)
    if as_json:
        emit_json(result)
        return
    echo(f"root: {result['root']}  ({result['source']})")
    for name, path in result["components"].items():
        echo(f"  {name:<9} {path}")


def _after_move(target: str) -> str:
    import os

    from lore.paths import default_root

    kept = "the old copy is kept (lore no longer reads it); delete it once you are sure"
    if target == str(default_root()):
        env = (
            " (unset LORE_DATA_DIR if it names the old root)"
            if os.environ.get("LORE_DATA_DIR")
            else ""
        )
        return f"lore now uses {target}, the default data root{env}; {kept}"
    return (
        f"lore follows the move to {target}; to name it directly add "
        f"`export LORE_DATA_DIR={target}` to your shell profile; {kept}"
    )


@click.command(name="help", context_settings={"ignore_unknown_options": True})
@click.argument("command", nargs=-1)
@click.pass_context
def help_cmd(ctx: click.Context, command: tuple[str, ...]) -> None:
    """Show the help of lore or of COMMAND (e.g. lore help recall).

    `lore help` prints the same text as `lore --help`; `lore help sessions show`
    the help of a subcommand. An unknown command is a usage error (exit 2) that
    names the closest commands.
    """
    from lore.cli import unknown_command_message

    top = ctx.find_root()
    target: click.Command = top.command
    target_ctx = top
    for name in command:
        if not isinstance(target, click.Group):
            raise click.UsageError(f"{target_ctx.command_path} has no subcommand {name!r}.")
        sub = target.get_command(target_ctx, name)
        if sub is None:
            if target is top.command:
                raise click.UsageError(unknown_command_message(name))
            raise click.UsageError(f"No such command {target_ctx.command_path} {name!r}.")
        target_ctx = click.Context(sub, info_name=name, parent=target_ctx)
        target = sub
    echo(target.get_help(target_ctx).rstrip("\n"))
