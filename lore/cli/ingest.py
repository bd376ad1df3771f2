"""``lore ingest``: agent session transcripts into failures, candidate observations and
session digests (the use case is ``lore.ingest.usecase.ingest``; this only renders)."""

from __future__ import annotations

from typing import Any

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option, note, rule_of_three_note, warn
from lore.cli.recall import SINCE_HELP

pass_app = click.make_pass_decorator(App)


@click.command(name="ingest")
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@click.option(
    "--agent",
    type=click.Choice(["claude", "codex", "gemini"]),
    help="Only this agent's sessions (with PATH: the format PATH must have).",
)
@click.option("--since", help=SINCE_HELP)
@click.option(
    "--dry-run", is_flag=True, help="Read and report; write nothing (no watermark either)."
)
@click.option(
    "--all",
    "everything",
    is_flag=True,
    help="Every project's sessions, not only this repository's.",
)
@click.option(
    "--no-new-session",
    "no_new_session",
    is_flag=True,
    help="Update a session's record when there is one, never make one (what the hooks "
    "run: their automatic handoff is the session's record).",
)
@json_option
@pass_app
def ingest_cmd(
    app: App,
    paths: tuple[str, ...],
    agent: str | None,
    since: str | None,
    dry_run: bool,
    everything: bool,
    no_new_session: bool,
    as_json: bool,
) -> None:
    """Learn from agent sessions: failures, candidates and digests from transcripts.

    Reads Claude Code, Codex and Gemini CLI transcripts and records every failed shell
    command as a failure, sentences that state a decision, a correction or a convention
    as inbox candidates (tagged `candidate`), and a digest of each session. Events before
    --since are passed over for good.

    With no PATH: the agents' own session folders for this repository (with --all: for
    every project). Each file is read from where the last run stopped (a watermark in the
    local directory), so running it again writes nothing twice. A PATH that is not a
    transcript is refused (exit 4) before anything is written. `lore show ID --source`
    prints the transcript lines a record came from.
    """
    from lore.ingest.usecase import ingest

    doc = ingest(
        app.store,
        list(paths),
        agent=agent,
        since=since,
        dry_run=dry_run,
        everything=everything,
        new_session=not no_new_session,
    )
    for report in doc["files"]:
        for item in report.get("withheld") or []:
            warn(f"{report['transcript']}: not written: {item['id']}: {item['reason']}")
    if as_json:
        emit_json(doc)
    else:
        _render(doc, paths)
    for rule in doc["rule_of_three"]:
        rule_of_three_note(rule)


def _render(doc: dict[str, Any], paths: tuple[str, ...]) -> None:
    files = doc["files"]
    verb = "would write" if doc["dry_run"] else "wrote"
    if not files and paths:
        note(
            f"no transcript to read in {', '.join(paths)} "
            "(empty, or no .jsonl or .json transcript in a folder)"
        )
        return
    if not files:
        where = doc["repository"] or "any project"
        note(f"no agent transcripts found for {where}")
        return
    for report in files:
        if report["read"] == "unchanged":
            continue
        said = [f"{report['read']}"]
        if report.get("lines"):
            said.append(f"lines {report['lines'][0]}-{report['lines'][1]}")
        failures = report["failures"]
        counts = [
            f"{len(failures['new'])} new failure{'s' if len(failures['new']) != 1 else ''}",
            f"{len(failures['updated'])} updated",
            f"{len(report['resolved'])} resolved",
            f"{len(report['candidates'])} candidate{'s' if len(report['candidates']) != 1 else ''}",
        ]
        if report.get("session_record"):
            counts.append(f"session {report['session_record']}")
        if report.get("skipped_lines"):
            skipped = report["skipped_lines"]
            counts.append(f"{skipped} line{'s' if skipped != 1 else ''} skipped")
        echo(f"{report['agent']}  {report['transcript']}  ({', '.join(said)}): {', '.join(counts)}")
    totals = doc["totals"]
    read = totals["files"] - totals["unchanged"]
    echo(
        f"{read} transcript{'s' if read != 1 else ''} read, {totals['unchanged']} unchanged; "
        f"{verb} {totals['failures_new']} failures ({totals['failures_updated']} updated, "
        f"{totals['resolved']} resolved), {totals['candidates']} candidates, "
        f"{totals['sessions']} session digests"
    )
