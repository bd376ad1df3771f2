"""``lore consolidate``: the proposals that would tend the memory, and applying them (the
rules are in ``lore.dynamics.proposals`` and ``lore.dynamics.apply``)."""

from __future__ import annotations

from typing import Any

import click

from lore.cli._app import App
from lore.cli._options import SINCE_HELP
from lore.cli._output import echo, emit_json, json_option, note

pass_app = click.make_pass_decorator(App)


def proposal_lines(p: dict[str, Any]) -> list[str]:
    lines = [f"{p['id']}  {p['kind']}: {p['summary']}"]
    shown = p["records"][:5]
    for r in shown:
        status = f" [{r['status']}]" if r.get("status") not in (None, "active", "raw") else ""
        lines.append(f"  {r['id']}  {r['timestamp'][:10]}{status}  {r['title'][:80]}")
    if len(p["records"]) > len(shown):
        lines.append(f"  ... and {len(p['records']) - len(shown)} more")
    return lines


@click.command(name="consolidate")
@click.option(
    "--kind",
    "-k",
    "kinds",
    multiple=True,
    help="Only proposals of this kind (duplicate, contradiction, conflict, archive, review) "
    "or about records of this kind (decision, observation, ...); repeatable.",
)
@click.option("--since", help=SINCE_HELP)
@click.option(
    "--archive-after",
    metavar="AGE",
    help="The age past which raw observations are proposed for archiving and patterns "
    "never validated for review (default 30d).",
)
@click.option(
    "--apply",
    "apply_ids",
    multiple=True,
    metavar="ID[:CHOICE]",
    help="Apply these proposals (repeatable); a settlement takes the record or value to "
    "keep after a colon.",
)
@click.option("--apply-all", is_flag=True, help="Apply every proposal of --kind.")
@click.option(
    "--dry-run",
    is_flag=True,
    help="Change nothing (the default without --apply); with --apply, list what each "
    "proposal would change.",
)
@json_option
@pass_app
def consolidate_cmd(
    app: App,
    kinds: tuple[str, ...],
    since: str | None,
    archive_after: str | None,
    apply_ids: tuple[str, ...],
    apply_all: bool,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Propose merges, settlements, archives and reviews that tend the memory.

    Nothing changes without --apply: each proposal is listed with a stable id.
    duplicate: near-duplicate records (title words, shared files and tags) to merge
    into one that supersedes them, keeping their links, evidence and history.
    contradiction: two standing decisions making opposite choices on one subject
    (keep one; default the newer). conflict: a field two clones set differently
    (keep one value; default the one the merge kept). archive: raw observations
    and unconfirmed ingested candidates older than --archive-after. review: patterns
    never validated or flagged (archive them), failure types past the Rule of
    Three with no pattern (promote them to a PITFALL).

    --apply ID (or ID:CHOICE for a settlement) and --apply-all --kind K write
    appended revisions and new records, and print what changed; with --dry-run
    they print what would change and write nothing.

    \b
    Examples:
      lore consolidate
      lore consolidate --kind duplicate --json
      lore consolidate --apply dup-3f9a0c1b2d --apply ctr-0a1b2c3d4e:dec-3f9a0c1b2d4e
      lore consolidate --apply-all --kind archive --dry-run
    --json: {"total", "counts", "proposals": [{"id", "kind", "action", "summary",
    "records": [{"id", "type", "title", "timestamp", "status"}], "choices",
    "default", "detail"}]}; with --apply: {"ok", "dry_run", "applied": [{"id",
    "kind", "action", "created", "changes": [{"id", "change"}]}]}.
    """
    from lore.cli._options import split_values
    from lore.usecases import dynamics

    kinds_list = split_values(kinds)
    if apply_ids or apply_all:
        doc = dynamics.apply_proposals(
            app.store,
            apply_ids,
            apply_all=apply_all,
            kinds=kinds_list,
            since=since,
            archive_after=archive_after,
            dry_run=dry_run,
        )
        if as_json:
            emit_json(doc)
            return
        would = "would " if dry_run else ""
        for item in doc["applied"]:
            echo(f"{item['id']}: {would}{item['action']}")
            for change in item["changes"]:
                echo(f"  {change['id']}  {'would: ' if dry_run else ''}{change['change']}")
        if not doc["applied"]:
            note("nothing to apply")
        elif dry_run:
            note("dry run: nothing was written")
        return
    doc = dynamics.consolidate(
        app.store, kinds=kinds_list, since=since, archive_after=archive_after
    )
    if as_json:
        emit_json(doc)
        return
    if not doc["proposals"]:
        note("nothing to propose: the memory is tidy")
        return
    for p in doc["proposals"]:
        for line in proposal_lines(p):
            echo(line)
    counts = ", ".join(f"{n} {k}" for k, n in doc["counts"].items() if n)
    note(
        f"{doc['total']} proposal{'s' if doc['total'] != 1 else ''} ({counts}); apply with "
        "lore consolidate --apply ID "
        "(ID:CHOICE to settle)"
    )
