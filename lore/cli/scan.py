"""``lore scan``: report (and with ``--redact`` mask) credentials stored in the data root."""

from __future__ import annotations

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option, note, warn
from lore.errors import EXIT_SECRET

pass_app = click.make_pass_decorator(App)


@click.command(name="scan")
@click.option(
    "--redact",
    is_flag=True,
    help="Replace each secret with [REDACTED:<rule>]: an appended revision for a logged "
    "record, an atomic rewrite for a document.",
)
@json_option
@pass_app
@click.pass_context
def scan_cmd(ctx: click.Context, app: App, redact: bool, as_json: bool) -> None:
    """Find credentials already stored in the data root; exit 7 if any is found.

    Reads every data file and reports each secret with its file, line, record id,
    field and kind, the secret itself masked (`AKIA…(20 chars)`). A secret that a
    later revision already replaced is listed as history and does not fail the
    scan. --redact masks every current one through the store and reminds you that
    the old text stays in the logs' history lines and in git history, which only
    a history rewrite (git filter-repo) removes.

    \b
    Examples:
      lore scan
      lore scan --redact && git -C "$(lore paths --json | jq -r .root)" commit -am redact
    """
    from lore.upkeep.scan import PURGE_HINT, scan

    result = scan(app.store, redact=redact)
    if as_json:
        emit_json(result.to_dict())
    else:
        for f in result.findings:
            where = f"{f.file}:{f.line}" if f.line else f.file
            state = "" if f.current else " (history only)"
            echo(f"{where}: {f.id or '-'} {f.field or '-'}: {f.kind} {f.secret} [{f.rule}]{state}")
    if result.redacted:
        note(f"redacted secrets in {len(result.redacted)} record(s)")
    found = len(result.current)
    if result.findings and (redact or not found):
        warn(PURGE_HINT)
    if found:
        if not as_json:
            note(f"{found} secret(s) found in {result.files} file(s)")
        ctx.exit(EXIT_SECRET)
    if not as_json and not result.findings:
        note(f"no secrets found in {result.files} file(s)")
