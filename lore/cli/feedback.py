"""``lore review`` and ``lore promote-failure``: close the feedback loop."""

from __future__ import annotations

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option, note

pass_app = click.make_pass_decorator(App)


@click.command(name="review")
@click.option(
    "--days",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="List pending decisions older than this (0: all).",
)
@click.option("--resolve", "resolve_id", metavar="ID", help="Record the outcome of decision ID.")
@click.option(
    "--outcome",
    type=click.Choice(["successful", "revised", "abandoned"]),
    help="With --resolve: what happened.",
)
@click.option("--lesson", help="With --resolve: the lesson learned.")
@click.option("--force", is_flag=True, help="Resolve a retracted or already-resolved decision.")
@click.option(
    "--allow-secret",
    is_flag=True,
    help="Write even if the lesson looks like it holds a credential.",
)
@json_option
@pass_app
def review_cmd(
    app: App,
    days: int,
    resolve_id: str | None,
    outcome: str | None,
    lesson: str | None,
    force: bool,
    allow_secret: bool,
    as_json: bool,
) -> None:
    """List decisions pending review, or resolve one with --resolve ID --outcome O.

    Resolving appends the outcome (with resolved_at and the lesson). A
    successful decision raises the confidence (+0.1, at most 1) and validations
    of the patterns it vouches for: those it cites (a pat- id in any of its
    fields, or a graph edge between the two) and those learned in its session (a
    shared tag is not enough). An abandoned one is recorded as a LogicError
    failure. The listing prints one decision per line on stdout; the hint goes to
    stderr.

    \b
    Examples:
      lore review --days 0
      lore review --resolve dec-3f9a0c1b2d4e --outcome successful --lesson "worked"
    """
    from lore.usecases.core import review

    doc = review(
        app.store,
        days=days,
        resolve_id=resolve_id,
        outcome=outcome,
        lesson=lesson,
        force=force,
        allow_secret=allow_secret,
    )
    if as_json:
        emit_json(doc)
        return
    if resolve_id is None:
        # stdout holds one decision per line and nothing else: messages go to stderr.
        if not doc["pending"]:
            note(
                f"no decisions pending for more than {days} days"
                if days
                else "no pending decisions"
            )
            return
        for d in doc["pending"]:
            echo(f"{d['id']}  {d['timestamp'][:10]}  {d['decision']}")
        note("resolve with: lore review --resolve ID --outcome successful|revised|abandoned")
        return
    echo(f"decision {doc['id']}: {outcome}")
    for raised in doc["patterns_raised"]:
        echo(f"  pattern {raised['id']}: confidence {raised['from']:g} -> {raised['to']:g}")
    if doc["failure_id"] is not None:
        echo(f"  recorded failure {doc['failure_id']} (LogicError)")


@click.command(name="promote-failure")
@click.argument("error_type", required=False)
@click.option("--fix", help="How to avoid it (kept on the anti-pattern).")
@click.option(
    "--threshold",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Failures needed before a type is promoted.",
)
@json_option
@pass_app
def promote_failure_cmd(
    app: App, error_type: str | None, fix: str | None, threshold: int, as_json: bool
) -> None:
    """Turn recurring failures into a "PITFALL: TYPE" anti-pattern.

    With ERROR_TYPE, promotes that type; without, every type with at least
    --threshold failures. Running it again updates the same anti-pattern
    (counts, symptoms, severity, and --fix if given) instead of adding another.
    `lore resume` shows pitfalls.
    """
    from lore.sessions.review import promote_failures

    promotions = promote_failures(app.store, error_type, fix=fix, threshold=threshold)
    if as_json:
        emit_json(
            {"ok": True, "threshold": threshold, "promoted": [p.to_dict() for p in promotions]}
        )
        return
    if not promotions:
        note(f"no failure type has {threshold} or more failures")
        return
    for p in promotions:
        verb = "created" if p.created else "updated"
        anti = p.anti_pattern
        echo(f"{verb} {anti.id}: {anti.name} ({p.count} failures, {anti.severity})")
