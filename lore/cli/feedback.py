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
    help="Write even if the lesson (or a new text) looks like it holds a credential.",
)
@click.option(
    "--stale",
    is_flag=True,
    help="Walk the records whose files changed (lore stale): reconfirm, supersede, retract.",
)
@click.option(
    "--reconfirm",
    is_flag=True,
    help="With --stale: reconfirm the records ID... without a prompt.",
)
@click.option("--repo", metavar="DIR", help="With --stale: the git repository to check against.")
@click.argument("ids", nargs=-1, metavar="[ID]...")
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
    stale: bool,
    reconfirm: bool,
    repo: str | None,
    ids: tuple[str, ...],
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

    With --stale: the records whose files changed since they were captured (lore
    stale), one at a time, each answered on stdin: r reconfirm (a revision
    recording the files' hashes as they are now), s supersede (a new record of
    its kind, text on the next line), t retract (a reason on the next line), n
    next, q quit; the walk ends at the end of the input. --reconfirm ID...
    reconfirms without a prompt; --json lists them as `lore stale --json` does
    (with --reconfirm: {"ok", "reconfirmed": [{"id", "changed", "files",
    "record"}]}).

    \b
    Examples:
      lore review --days 0
      lore review --resolve dec-3f9a0c1b2d4e --outcome successful --lesson "worked"
      lore review --stale --reconfirm dec-3f9a0c1b2d4e
    """
    if stale:
        if resolve_id or outcome or lesson:
            raise click.UsageError("--stale does not go with --resolve, --outcome or --lesson")
        _review_stale(app, list(ids), reconfirm, repo, allow_secret, as_json)
        return
    if reconfirm or repo or ids:
        raise click.UsageError("--reconfirm, --repo and IDs go with --stale")
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


def _review_stale(
    app: App, ids: list[str], reconfirm: bool, repo: str | None, allow_secret: bool, as_json: bool
) -> None:
    from lore.cli.dynamics import file_line, stale_lines
    from lore.usecases import dynamics

    if reconfirm:
        if not ids:
            raise click.UsageError("--reconfirm needs the ids of the records to reconfirm")
        doc = dynamics.reconfirm(app.store, ids, repo=repo)
        if as_json:
            emit_json(doc)
            return
        for item in doc["reconfirmed"]:
            echo(f"reconfirmed {item['id']}" if item["changed"] else f"{item['id']}: fresh")
        return
    if ids:
        raise click.UsageError("IDs go with --reconfirm")
    doc = dynamics.stale(app.store, repo=repo)
    if as_json:
        emit_json(doc)
        return
    if not doc["stale"]:
        note(f"nothing stale: {doc['checked']} records with file hashes checked")
        return
    import sys

    def ask(prompt: str) -> str | None:
        click.echo(prompt, err=True, nl=False)
        line = sys.stdin.readline()
        if not sys.stdin.isatty():  # a piped answer: shown, so the transcript reads well
            click.echo(line.strip() if line else "(end of input)", err=True)
        return None if not line else line.strip()

    done = 0
    for item in doc["stale"]:
        echo(stale_lines({"stale": [item]})[0])
        for f in item["files"]:
            echo(file_line(f))
        while True:
            answer = ask("[r]econfirm, [s]upersede, re[t]ract, [n]ext, [q]uit? ")
            if answer is None or answer.lower() in ("q", "quit"):
                note(f"stopped; {done} changed")
                return
            choice = answer.lower()[:1]
            if choice == "r":
                dynamics.reconfirm(app.store, [item["id"]], repo=repo)
                echo(f"reconfirmed {item['id']}")
            elif choice == "s":
                text = ask("new text: ")
                if not text:
                    note("no text: nothing superseded")
                    continue
                made = dynamics.supersede(app.store, item["id"], text, allow_secret=allow_secret)
                echo(f"superseded {item['id']} by {made['new']}")
            elif choice == "t":
                from lore.usecases.core import retract

                why = ask("reason (optional): ")
                retract(app.store, item["id"], reason=why or None, allow_secret=allow_secret)
                echo(f"retracted {item['id']}")
            elif choice == "n":
                break
            else:
                note("answer r, s, t, n or q")
                continue
            done += 1
            break
    note(f"done; {done} changed")


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
