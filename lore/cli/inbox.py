"""``lore inbox``: triage observations (list by status, promote, discard). Flags and
rendering only; the use cases are ``lore.usecases.inbox``."""

from __future__ import annotations

from typing import Any, cast

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option, note, report_read_issues, warn
from lore.cli.capture import GroupedCommand, _fields, common_options, field_options

pass_app = click.make_pass_decorator(App)
PROMOTE_TARGETS = ("decision", "pattern", "evidence")


def observation_line(o: dict[str, Any]) -> str:
    """``<id>  <date>  <status>  <content>`` (one line, the first 100 characters)."""
    text = " ".join(str(o.get("content", "")).split())
    extra = ""
    if o.get("retracted_at"):
        why = o.get("retraction_reason")
        extra = f"  [retracted{': ' + str(why) if why else ''}]"
    elif o.get("status") == "promoted" and o.get("promoted_to"):
        extra = f"  -> {o['promoted_to']}"
    elif o.get("status") == "discarded" and o.get("discard_reason"):
        extra = f"  ({o['discard_reason']})"
    when = str(o.get("timestamp", ""))[:10]
    return f"{o['id']}  {when}  {o.get('status', ''):<9}  {text[:100]}{extra}"


@click.group(name="inbox", invoke_without_command=True)
@click.option(
    "--status",
    default="raw",
    show_default=True,
    help="raw, promoted, discarded, or all (retracted ones too).",
)
@click.option(
    "--all", "everything", is_flag=True, help="Every observation: the same as --status all."
)
@json_option
@click.pass_context
def inbox_cmd(ctx: click.Context, status: str, everything: bool, as_json: bool) -> None:
    """Triage observations: list them (default: the raw ones), promote or discard one.

    The listing is one line each, newest first: id, date, status, content (a promoted
    one shows its target, a discarded one its reason). A retracted observation is
    listed only with --status all, marked [retracted]. With --json: an array of
    observation records.
    """
    if ctx.invoked_subcommand is not None:
        return
    from lore.usecases.inbox import list_observations

    app = ctx.ensure_object(App)
    if everything:
        status = "all"
    found = list_observations(app.store, status=status)
    report_read_issues(app.store)
    if as_json:
        emit_json(found)
        return
    if not found:
        note(f"no {'' if status == 'all' else status + ' '}observations")
    for o in found:
        echo(observation_line(o))


@inbox_cmd.command(
    name="promote",
    cls=GroupedCommand,
    short_help="Turn an observation into a decision, pattern or evidence.",
)
@click.argument("observation_id")
@click.option(
    "--to",
    "to",
    required=True,
    type=click.Choice(PROMOTE_TARGETS),
    help="The kind of record to make.",
)
@click.option("--text", "text", help="The new record's text (default: the observation's).")
@field_options(only=PROMOTE_TARGETS)
@common_options
@pass_app
def promote_cmd(app: App, observation_id: str, to: str, text: str | None, **kwargs: Any) -> None:
    """Turn raw observation OBSERVATION_ID into a decision, pattern or evidence.

    The new record is captured like any other (the target's flags apply, e.g.
    --rationale, --solution, --supports; the secrets gate and the near-duplicate
    check run) and gets derived_from OBSERVATION_ID; the observation becomes
    promoted, with promoted_to. Promoting twice is refused (exit 4, naming the first
    target). With --json: {"ok", "id", "promoted_to", "observation", "target",
    "warnings"}.
    """
    from lore.usecases.inbox import promote

    as_json, quiet = kwargs.pop("as_json"), kwargs.pop("quiet")
    result = promote(
        app.store,
        observation_id,
        to,
        text=text,
        fields=_fields(kwargs),
        tags=kwargs["tags"],
        project=kwargs["project"],
        source=kwargs["source"],
        force=kwargs["force"],
        allow_secret=kwargs["allow_secret"],
    )
    for message in result["warnings"]:
        warn(message)
    if as_json:
        emit_json(result)
    elif quiet:
        echo(result["promoted_to"])
    else:
        echo(f"promoted {result['id']} to {to} {result['promoted_to']}")


cast(GroupedCommand, promote_cmd).kinds = PROMOTE_TARGETS


@inbox_cmd.command(name="discard", short_help="Set an observation aside, with a reason.")
@click.argument("observation_id")
@click.option("--reason", required=True, help="Why it is not worth keeping.")
@click.option(
    "--allow-secret", is_flag=True, help="Write even if the text looks like it holds a credential."
)
@json_option
@pass_app
def discard_cmd(
    app: App, observation_id: str, reason: str, allow_secret: bool, as_json: bool
) -> None:
    """Mark raw observation OBSERVATION_ID discarded, keeping --reason.

    With --json: the capture reply with the updated observation.
    """
    from lore.usecases.inbox import discard

    result = discard(app.store, observation_id, reason=reason, allow_secret=allow_secret)
    if as_json:
        emit_json(result)
    else:
        echo(f"discarded {result['id']}")
