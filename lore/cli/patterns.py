"""``lore patterns ...`` (list, show, warn, validate, flag) and ``lore suggest``.

Parses and renders only: every rule is in ``lore.usecases.patterns`` and
``lore.components.patterns``.
"""

from __future__ import annotations

from typing import Any

import click

from lore.cli._app import App
from lore.cli._options import tag_option
from lore.cli._output import (
    echo,
    emit_json,
    json_option,
    note,
    report_read_issues,
    wants_json,
    warn,
)

pass_app = click.make_pass_decorator(App)


def show_record(data: dict[str, Any], kind: str) -> None:
    """A record as `lore show` prints it: its kind and id, then one line per set field."""
    from lore.cli.records import _render_value

    echo(f"{kind} {data['id']}")
    for key, value in data.items():
        if key == "id" or value in (None, "", [], {}):
            continue
        if isinstance(value, list) and all(isinstance(v, dict) for v in value):
            echo(f"  {key}:")  # flags, criteria: one line each
            for item in value:
                echo(f"    - {'  '.join(str(v) for v in item.values())}")
            continue
        echo(f"  {key}: {_render_value(value)}")


def _line(item: dict[str, Any]) -> str:
    if item["type"] == "pattern":
        measure = f"{float(item.get('confidence') or 0):.2f}"
    else:
        measure = str(item.get("severity", ""))
    status = item.get("status", "active")
    tail = "" if status == "active" else f"  [{status}]"
    # "anti-" ids are one longer than "pat-" ids: pad so the columns line up.
    return f"{item['id']:<17}  {measure:<8}  {item.get('name', '')}{tail}"


@click.group(name="patterns", invoke_without_command=True)
@json_option
@click.pass_context
def patterns_cmd(ctx: click.Context, as_json: bool) -> None:
    """Work with patterns and anti-patterns (default: list)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(patterns_list_cmd, as_json=as_json)


@patterns_cmd.command(name="list")
@click.option(
    "--type",
    "kind",
    default="all",
    show_default=True,
    help="patterns, anti-patterns or all.",
)
@click.option("--category", help="Only this category (case-insensitive).")
@click.option("--all", "show_all", is_flag=True, help="Include retracted and deprecated ones.")
@json_option
@pass_app
def patterns_list_cmd(
    app: App,
    kind: str = "all",
    category: str | None = None,
    show_all: bool = False,
    as_json: bool = False,
) -> None:
    """List patterns (most confident first), then anti-patterns (most severe first).

    One line each: `<id>  <confidence or severity>  <name>`, with `[<status>]` after
    a pattern that is not active (with --all). With --json: an array of
    {"id", "type", ...every stored field}, "type" being pattern or anti-pattern.
    """
    as_json = wants_json(as_json)
    from lore.usecases.patterns import list_patterns

    items = list_patterns(app.store, type=kind, category=category, show_all=show_all)
    report_read_issues(app.store)
    if as_json:
        emit_json(items)
        return
    if not items:
        note("no patterns")
        return
    for item in items:
        echo(_line(item))


@patterns_cmd.command(name="show")
@click.argument("record_id")
@json_option
@pass_app
def patterns_show_cmd(app: App, record_id: str, as_json: bool) -> None:
    """Show the pattern or anti-pattern RECORD_ID and the evidence that backs it (--json:
    the record, with an "evidence" array when there is some)."""
    as_json = wants_json(as_json)
    from lore.cli.records import render_evidence
    from lore.usecases.evidence import backing
    from lore.usecases.patterns import show_pattern

    data = show_pattern(app.store, record_id)
    evidence = backing(app.store, str(data["id"]))
    if as_json:
        emit_json({**data, "evidence": evidence} if evidence else data)
        return
    show_record(data, "pattern" if record_id.startswith("pat-") else "anti-pattern")
    render_evidence(evidence)


@patterns_cmd.command(name="warn")
@click.argument("name")
@click.option("--symptom", required=True, help="How it shows (required).")
@click.option("--fix", required=True, help="How to get out of it (required).")
@click.option("--risk", help="What it costs.")
@click.option("--severity", help="low, medium (default), high or critical.")
@click.option("--category", help="A category.")
@tag_option()
@click.option("--project", help="Project name (default: the git repository's name).")
@click.option("--force", is_flag=True, help="Record even if a near-duplicate exists.")
@click.option(
    "--allow-secret", is_flag=True, help="Write even if the text looks like it holds a credential."
)
@click.option("--quiet", "-q", is_flag=True, help="Print only the new id.")
@json_option
@pass_app
def patterns_warn_cmd(
    app: App,
    name: str,
    symptom: str,
    fix: str,
    risk: str | None,
    severity: str | None,
    category: str | None,
    tags: tuple[str, ...],
    project: str | None,
    force: bool,
    allow_secret: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """Record an anti-pattern NAME: what to avoid, how it shows and how to get out.

    Goes through the same checks as `lore capture` (secrets gate, near-duplicates).
    With --json: the capture shape {"ok", "id", "type", "timestamp", "record",
    "warnings"}.

    \b
    Example:
      lore patterns warn "Sleep-based waits in tests" --symptom "flaky CI" \\
        --fix "wait for the condition" --severity high
    """
    as_json = wants_json(as_json)
    from lore.usecases.patterns import warn as warn_use_case

    reply = warn_use_case(
        app.store,
        name,
        symptom=symptom,
        fix=fix,
        risk=risk,
        severity=severity,
        category=category,
        tags=tags,
        project=project,
        force=force,
        allow_secret=allow_secret,
    )
    for message in reply["warnings"]:
        warn(message)
    if as_json:
        emit_json(reply)
    elif quiet:
        echo(reply["id"])
    else:
        echo(f"anti-pattern {reply['id']}: {reply['record']['name']}")


@patterns_cmd.command(name="validate")
@click.argument("pattern_id")
@json_option
@pass_app
def patterns_validate_cmd(app: App, pattern_id: str, as_json: bool) -> None:
    """Record that PATTERN_ID worked again: confidence +0.1 (at most 1), validations +1.

    With --json: {"ok", "id", "from", "to", "validations", "record"}.
    """
    as_json = wants_json(as_json)
    from lore.usecases.patterns import validate_pattern

    reply = validate_pattern(app.store, pattern_id)
    if as_json:
        emit_json(reply)
        return
    echo(
        f"pattern {reply['id']}: confidence {reply['from']:g} -> {reply['to']:g} "
        f"({reply['validations']} validation{'s' if reply['validations'] != 1 else ''})"
    )


@patterns_cmd.command(name="flag")
@click.argument("pattern_id")
@click.option("--reason", required=True, help="Why it is wrong (required).")
@click.option(
    "--type",
    "flag_type",
    default="harmful",
    show_default=True,
    help="harmful (-0.2), incorrect (-0.15) or obsolete (-0.1).",
)
@click.option(
    "--allow-secret",
    is_flag=True,
    help="Write even if the reason looks like it holds a credential.",
)
@json_option
@pass_app
def patterns_flag_cmd(
    app: App, pattern_id: str, reason: str, flag_type: str, allow_secret: bool, as_json: bool
) -> None:
    """Flag PATTERN_ID as harmful, obsolete or incorrect: its confidence drops.

    The third harmful flag inverts it: lore creates one "Avoid: NAME" anti-pattern
    (never a second, however many flags follow) and marks the pattern deprecated
    with confidence 0; it is never suggested again. With --json: {"ok", "id",
    "flag", "from", "to", "harmful_flags", "inverted", "inverted_to", "record"}.
    """
    as_json = wants_json(as_json)
    from lore.usecases.patterns import flag_pattern

    reply = flag_pattern(
        app.store, pattern_id, reason=reason, type=flag_type, allow_secret=allow_secret
    )
    if as_json:
        emit_json(reply)
        return
    echo(
        f"pattern {reply['id']}: flagged {flag_type}, confidence {reply['from']:g} -> "
        f"{reply['to']:g} ({reply['harmful_flags']} harmful)"
    )
    if reply["inverted"]:
        note(f"inverted: {reply['id']} is deprecated; avoid it: {reply['inverted_to']}")


@click.command(name="suggest")
@click.argument("context", nargs=-1)
@click.option("--project", help="Prefer this project's patterns (default: the current one).")
@click.option("--limit", "-n", type=click.IntRange(min=0), default=10, help="At most N (0: all).")
@json_option
@pass_app
def suggest_cmd(
    app: App, context: tuple[str, ...], project: str | None, limit: int, as_json: bool
) -> None:
    """Suggest the patterns that fit CONTEXT, and the anti-patterns to watch for.

    Ranked as recall ranks them; without CONTEXT, the project's most confident
    patterns and most severe anti-patterns. Deprecated patterns never appear. Same
    as `lore recall --patterns CONTEXT`. With --json: {"query", "project",
    "patterns": [results], "anti_patterns": [results]}.

    \b
    Example:
      lore suggest flaky integration tests
    """
    as_json = wants_json(as_json)
    from lore.cli.recall import _patterns

    _patterns(app, " ".join(context).strip(), project, limit, as_json)
