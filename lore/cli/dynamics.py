"""``lore stale``, ``lore archive``, ``lore unarchive``, ``lore pin`` and ``lore unpin``: the
flags and the rendering of memory that tends itself (the rules are in ``lore.dynamics``)."""

from __future__ import annotations

from typing import Any

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option, note

pass_app = click.make_pass_decorator(App)

REPO_HELP = "The git repository to check against (default: the one around this directory)."


def file_line(f: dict[str, Any]) -> str:
    """``  src/db.py  changed: +3 -1 in 2 commits (a1b2c3d4 Speed up the pool, ...)``."""
    what = f["state"]
    if f["state"] == "moved":
        what = f"moved to {f['moved_to']}"
    stat = f["diffstat"]
    commits = ", ".join(f"{c['sha'][:8]} {c['subject']}" for c in f["commits"][:3])
    if f["commit_count"] > 3:
        commits += ", ..."
    return (
        f"  {f['path']}  {what}"
        + (f": {stat}" if stat else "")
        + (f" ({commits})" if commits else "")
    )


def stale_lines(doc: dict[str, Any]) -> list[str]:
    lines = []
    for s in doc["stale"]:
        lines.append(f"{s['id']}  {s['timestamp'][:10]}  {' '.join(s['title'].split())[:90]}")
        lines.extend(file_line(f) for f in s["files"])
    return lines


@click.command(name="stale")
@click.option("--repo", metavar="DIR", help=REPO_HELP)
@json_option
@pass_app
def stale_cmd(app: App, repo: str | None, as_json: bool) -> None:
    """List records whose files changed, moved or vanished since they were captured.

    A record that names files (a decision's --files, or paths in any record's text)
    keeps each file's git blob id and the commit at capture. A file is stale when
    the checkout no longer holds those bytes: edited (not committed), changed (with
    the commits that did it and a diffstat), moved (git's rename detection) or
    vanished. The history comes from git's object store, so the answer is right on
    any checkout; records of another repository are skipped. Fix one with `lore
    review --stale` (reconfirm, supersede, retract).

    \b
    Text: each stale record, then one line per file.
    --json: {"repo", "head", "anchored", "checked", "skipped", "stale": [{"id",
    "type", "title", "timestamp", "project", "files": [{"path", "state",
    "moved_to", "recorded", "current", "commit", "commits", "commit_count",
    "added", "deleted", "diffstat"}]}]}.
    """
    from lore.usecases.dynamics import stale

    doc = stale(app.store, repo=repo)
    if as_json:
        emit_json(doc)
        return
    if not doc["stale"]:
        where = f" in {doc['repo']}" if doc["repo"] else ""
        note(f"nothing stale{where}: {doc['checked']} records with file hashes checked")
        return
    for line in stale_lines(doc):
        echo(line)
    note(
        f"{len(doc['stale'])} of {doc['checked']} records are stale; "
        "lore review --stale walks them (reconfirm, supersede, retract)"
    )


def _brief_line(r: dict[str, Any]) -> str:
    score = f"  activation {r['activation']:.2f}" if "activation" in r else ""
    title = " ".join(str(r["title"]).split())[:90]
    return f"{r['id']}  {r['timestamp'][:10]}  {r['type']}{score}  {title}"


@click.command(name="archive")
@click.argument("ids", nargs=-1, metavar="[ID]...")
@click.option(
    "--older-than",
    metavar="AGE",
    help="Records created before this time: 1y, 6m, 90d, 2025-06, ...",
)
@click.option(
    "--kind",
    "-k",
    "kinds",
    multiple=True,
    help="Only this kind (repeatable): decision, pattern, anti-pattern, failure, "
    "observation, evidence.",
)
@click.option(
    "--below",
    type=float,
    metavar="SCORE",
    help="Only records whose activation (0-1, recall --explain shows it) is below SCORE.",
)
@click.option("--dry-run", is_flag=True, help="List what would be archived; change nothing.")
@json_option
@pass_app
def archive_cmd(
    app: App,
    ids: tuple[str, ...],
    older_than: str | None,
    kinds: tuple[str, ...],
    below: float | None,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Move settled records out of the default views (a revision: status archived).

    Either name the records (IDS) or select them: shown records older than
    --older-than, of --kind, with an activation below --below. A selection never
    takes a pinned record or a decision still pending. An archived record stays in
    its file, in exports, in `recall --all` and in the graph's history, with its
    status shown; `lore unarchive ID` brings it back.

    \b
    Examples:
      lore archive --older-than 1y --kind observation --dry-run
      lore archive --older-than 6m --below 0.3
    --json: {"ok", "dry_run", "count", "archived": [{"id", "type", "title",
    "timestamp", "status", "activation"}]}.
    """
    from lore.cli._options import split_values
    from lore.usecases.dynamics import archive

    doc = archive(
        app.store,
        ids,
        older_than=older_than,
        kinds=split_values(kinds),
        below=below,
        dry_run=dry_run,
    )
    if as_json:
        emit_json(doc)
        return
    for r in doc["archived"]:
        echo(_brief_line(r))
    verb = "would archive" if dry_run else "archived"
    note(f"{verb} {doc['count']} record{'s' if doc['count'] != 1 else ''}")


@click.command(name="unarchive")
@click.argument("ids", nargs=-1, required=True, metavar="ID...")
@json_option
@pass_app
def unarchive_cmd(app: App, ids: tuple[str, ...], as_json: bool) -> None:
    """Bring archived records back into the default views, with the status they had.

    --json: {"ok", "unarchived": [{"id", "type", "title", "timestamp", "status"}]}.
    """
    from lore.usecases.dynamics import unarchive

    doc = unarchive(app.store, list(ids))
    if as_json:
        emit_json(doc)
        return
    for r in doc["unarchived"]:
        echo(f"unarchived {r['id']} ({r['status']})")


def _pin(app: App, ids: tuple[str, ...], as_json: bool, pinned: bool) -> None:
    from lore.usecases.dynamics import pin

    doc = pin(app.store, list(ids), pinned=pinned)
    if as_json:
        emit_json(doc)
        return
    for r in doc["records"]:
        echo(f"{'pinned' if pinned else 'unpinned'} {r['id']}")


@click.command(name="pin")
@click.argument("ids", nargs=-1, required=True, metavar="ID...")
@json_option
@pass_app
def pin_cmd(app: App, ids: tuple[str, ...], as_json: bool) -> None:
    """Pin records: their activation never decays (a revision: pinned true).

    A pinned record counts as fresh in recall's ranking, resume and prompt
    injection however old it is, and `lore archive` never selects it.
    --json: {"ok", "pinned": true, "records": [{"id", "type", "title", "timestamp",
    "status"}]}.
    """
    _pin(app, ids, as_json, True)


@click.command(name="unpin")
@click.argument("ids", nargs=-1, required=True, metavar="ID...")
@json_option
@pass_app
def unpin_cmd(app: App, ids: tuple[str, ...], as_json: bool) -> None:
    """Unpin records: their activation decays again with their age.

    --json: {"ok", "pinned": false, "records": [...]} as `lore pin`.
    """
    _pin(app, ids, as_json, False)
