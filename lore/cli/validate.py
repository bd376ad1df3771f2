"""``lore validate``: print the data check's report and exit 4 when it found an error."""

from __future__ import annotations

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option, note
from lore.errors import EXIT_INVALID

pass_app = click.make_pass_decorator(App)


@click.command(name="validate")
@json_option
@pass_app
def validate_cmd(app: App, as_json: bool) -> None:
    """Check every data file; exit 4 if anything is wrong.

    Reads every log, document and map under the data root and never changes a
    file. Errors: lines or documents that do not parse, git conflict markers,
    bytes that are not UTF-8, records that break their kind's rules, bad or
    duplicate ids, documents whose file name is not their id, references and
    revisions pointing at ids that do not exist. Warnings (exit 0): a torn last
    line, a line repeated by a union merge, a file lore does not read.

    \b
    Text: one `path:line: error: message [code]` line per issue on stdout, then
    a summary; when clean, `lore: data OK (N records)` on stderr.
    --json: {"ok", "root", "errors", "warnings", "issues": [{"severity", "code",
    "file", "line", "id", "field", "message"}], "counts": {kind: records}}.
    """
    from lore.upkeep.validate import validate

    report = validate(app.store)
    if as_json:
        emit_json(report.to_dict())
    elif report.issues:
        for issue in report.issues:
            echo(str(issue))
        echo(report.summary())
    else:
        note(f"data OK ({report.records} {'record' if report.records == 1 else 'records'})")
    if not report.ok:
        raise click.exceptions.Exit(EXIT_INVALID)
