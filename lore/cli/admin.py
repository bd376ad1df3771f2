"""``lore init`` and ``lore paths``: set up and locate the data root."""

from __future__ import annotations

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option

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
    from lore.api import init

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
@json_option
@pass_app
def paths_cmd(app: App, as_json: bool) -> None:
    """Print the resolved data root and every component's data directory.

    The root is the first of: --data-dir, LORE_DATA_DIR, the source checkout's
    components/ (when lore runs from a checkout), $XDG_DATA_HOME/lore
    (default ~/.local/share/lore).
    """
    from lore.api import paths

    result = paths(app.store)
    if as_json:
        emit_json(result)
        return
    echo(f"root: {result['root']}  ({result['source']})")
    for name, path in result["components"].items():
        echo(f"  {name:<9} {path}")
