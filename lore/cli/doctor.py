"""``lore doctor``: validate's report plus the state around the data; ``--repair`` fixes."""

from __future__ import annotations

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option, note
from lore.errors import EXIT_INVALID

pass_app = click.make_pass_decorator(App)


@click.command(name="doctor")
@click.option(
    "--repair",
    is_flag=True,
    help="Move unreadable log lines to <log>.quarantine, remove stale temporary files "
    "and rebuild the derived index and graph. Never deletes a record.",
)
@json_option
@pass_app
def doctor_cmd(app: App, repair: bool, as_json: bool) -> None:
    """Check the data root and its surroundings; exit 4 if an error remains.

    Everything `lore validate` reports, plus: a stale or unreadable derived
    index or graph snapshot, temporary files left by an interrupted write, lock
    files a running process holds (every writer of that file waits for it), and
    quarantine files waiting for a person. --repair moves each log line that is
    not a record (invalid JSON, a git conflict marker, a torn last line, bytes
    that are not UTF-8) into `<log>.quarantine` beside the log, one JSON line
    each with its origin (file, line), reason, text and exact bytes; then it
    removes temporary files older than a minute and rebuilds the index (and the
    graph snapshot, if there is one). Documents that do not parse, duplicate ids
    and dangling references need a person and are only reported.

    \b
    --json: {"ok", "root", "errors", "warnings", "issues": [validate's issues],
    "findings": [{"severity", "code", "path", "message", "fixable"}],
    "repaired": [{"action", "file", "lines", ...}], "counts"}.
    """
    from lore.upkeep.doctor import diagnose
    from lore.upkeep.doctor import repair as fix

    result = fix(app.store) if repair else diagnose(app.store)
    if as_json:
        emit_json(result.to_dict())
    else:
        for done in result.repaired:
            lines = ", ".join(str(n) for n in done["lines"])
            where = f" lines {lines}" if lines else ""
            target = f" -> {done['to']}" if done.get("to") else ""
            note(f"{done['action']} {done['file']}{where}{target}")
        for issue in result.report.issues:
            echo(str(issue))
        for finding in result.findings:
            echo(f"{finding.path}: {finding.severity}: {finding.message} [{finding.code}]")
        if not result.report.issues and not result.findings:
            records = result.report.records
            note(f"data OK ({records} {'record' if records == 1 else 'records'})")
    if not result.ok:
        raise click.exceptions.Exit(EXIT_INVALID)
