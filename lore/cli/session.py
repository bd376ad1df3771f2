"""Session lifecycle commands: handoff, resume, sessions and transfer."""

from __future__ import annotations

from typing import Any

import click

from lore.cli._app import App
from lore.cli._options import help_when_alone
from lore.cli._output import echo, emit_json, json_option, note, read_text

pass_app = click.make_pass_decorator(App)


def _project(explicit: str | None) -> str | None:
    from lore.capture.build import detect_project

    return detect_project(explicit)


@click.command(name="handoff")
@click.argument("message", required=False)
@click.option("--next", "next_steps", multiple=True, help="A next step (repeatable).")
@click.option("--blocker", "blockers", multiple=True, help="A blocker (repeatable).")
@click.option("--question", "questions", multiple=True, help="An open question (repeatable).")
@click.option("--thread", "threads", multiple=True, help="An open thread (repeatable).")
@click.option(
    "--replace",
    is_flag=True,
    help="In a forked session: drop the inherited open items instead of adding to them.",
)
@click.option(
    "--merge",
    is_flag=True,
    help="Keep the last handoff's open items and add these (default: these replace them).",
)
@click.option("--project", help="Project name (default: the git repository's name).")
@click.option(
    "--allow-secret", is_flag=True, help="Write even if the text looks like it holds a credential."
)
@click.option("--quiet", "-q", is_flag=True, help="Print only the session's id.")
@json_option
@pass_app
def handoff_cmd(
    app: App,
    message: str | None,
    next_steps: tuple[str, ...],
    blockers: tuple[str, ...],
    questions: tuple[str, ...],
    threads: tuple[str, ...],
    replace: bool,
    merge: bool,
    project: str | None,
    allow_secret: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """End the current session with MESSAGE for the next one ("-" reads stdin).

    Writes the session as one JSON file: the message, its first sentence as the
    summary, next steps, blockers, questions, open threads, the git state of the
    working directory's repository, and the ids of the decisions, patterns,
    failures and observations captured during the session. Needs no set-up: with
    no open session it creates one covering everything since the last handoff.

    Open items: the lists given here are the open items, settling the last
    handoff's (--merge keeps those and adds these); in a session started by `lore
    resume --fork` they are added to the inherited ones (merged), unless --replace.
    A line on stderr says which happened (also with -q and --json).

    \b
    Example:
      lore handoff "Parser done; tests green." --next "wire the CLI" --blocker "CI quota"
    """
    from lore.usecases.core import handoff

    body = read_text(message, what="handoff message")
    written = handoff(
        app.store,
        body,
        project=project,
        next_steps=next_steps,
        blockers=blockers,
        questions=questions,
        threads=threads,
        replace=replace,
        merge=merge,
        allow_secret=allow_secret,
    )
    if as_json:
        emit_json(written.doc)
    elif quiet:
        echo(written.record.id)
    else:
        captured = sum(len(v) for v in written.doc["record"]["captured"].values())
        echo(f"session {written.record.id} handed off ({_count(captured, 'record')} captured)")
    said = _open_items_note(written.doc["open_items"], merge=merge)
    if said:  # a message, on stderr: also with -q and --json, so a script sees it
        note(said)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _open_items_note(report: dict[str, Any], *, merge: bool = False) -> str | None:
    """What happened to the open items the session inherited or the last handoff left."""
    how, origin = report.get("how"), report.get("from")
    inherited, added = report.get("inherited", 0), report.get("added", 0)
    if how == "merged" and not merge:
        return (
            f"open items: kept {inherited} inherited from {origin}, added {added} "
            "(merged; --replace drops the inherited ones)"
        )
    if how == "merged":
        return f"open items: kept the {inherited} left by {origin}, added {added} (merged)"
    if how == "replaced":
        return f"open items: replaced the {inherited} inherited from {origin} with {added}"
    if how == "settled":
        return (
            f"open items: this handoff's {added} replace the {inherited} left by {origin} "
            "(--merge keeps them and adds these)"
        )
    return None


@click.command(name="resume")
@click.argument("session_id", required=False)
@click.option("--fork", is_flag=True, help="Start a child session that inherits open items.")
@click.option("--project", help="Project name (default: the git repository's name).")
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=None,
    help="Cap the text at about this many tokens, cutting the least useful lines first.",
)
@json_option
@pass_app
def resume_cmd(
    app: App,
    session_id: str | None,
    fork: bool,
    project: str | None,
    budget: int | None,
    as_json: bool,
) -> None:
    """Print what the last session left, most useful first.

    The last handoff (message, next steps, blockers, questions, open threads,
    git state), the most important recent decisions (type, outcome, spec
    quality, recency, recall count), relevant patterns and pitfalls, recurring
    failures (Rule of Three), open goals and decisions pending review. Read-only
    unless --fork, which starts a child session inheriting the open items. With
    no session at all, rebuilds context from recent records and git history.
    """
    from lore.usecases.core import resume

    text, data = resume(app.store, session_id=session_id, project=project, fork=fork, budget=budget)
    if as_json:
        emit_json(data)
        return
    echo(text)


@click.group(name="sessions", invoke_without_command=True)
@click.option("--all", "show_all", is_flag=True, help="Include archived sessions (the list).")
@click.option("--project", help="Only this project's sessions (the list).")
@json_option
@click.pass_context
def sessions_cmd(ctx: click.Context, show_all: bool, project: str | None, as_json: bool) -> None:
    """List and show sessions (default: list).

    The list's options work here too: `lore sessions --json` is `lore sessions
    list --json`, and `lore sessions --json show ID` prints the session as JSON.
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(sessions_list_cmd, show_all=show_all, project=project, as_json=as_json)
    elif show_all or project:
        from lore.errors import UsageError

        raise UsageError("--all and --project go after `list` when a command is given")


def _json_wanted(as_json: bool) -> bool:
    """--json given on the command or on its group (`lore sessions --json show ID`)."""
    return as_json or bool(click.get_current_context().meta.get("lore.json"))


@sessions_cmd.command(name="list")
@click.option("--all", "show_all", is_flag=True, help="Include archived sessions.")
@click.option("--project", help="Only this project's sessions.")
@json_option
@pass_app
def sessions_list_cmd(
    app: App, show_all: bool = False, project: str | None = None, as_json: bool = False
) -> None:
    """List sessions, newest first."""
    from lore.usecases.records import list_records

    as_json = _json_wanted(as_json)
    sessions = list_records(app.store, "session", hidden=show_all, project=project)
    if as_json:
        emit_json([s.to_dict() for s in sessions])
        return
    if not sessions:
        note("no sessions")
        return
    for s in sessions:
        when = (s.ended_at or s.timestamp or "")[:16].replace("T", " ")  # type: ignore[attr-defined]
        summary = s.summary or _unsummarised(s)  # type: ignore[attr-defined]
        echo(f"{s.id}  {s.status:<8} {when}  {summary}".rstrip())  # type: ignore[attr-defined]


def _unsummarised(session: Any) -> str:
    """What the list says of a session not handed off yet (it has no summary)."""
    if session.status != "open":
        return ""
    return f"(forked from {session.parent})" if session.parent else "(not handed off yet)"


@sessions_cmd.command(name="show")
@click.argument("session_id")
@json_option
@click.pass_context
def sessions_show_cmd(ctx: click.Context, session_id: str, as_json: bool) -> None:
    """Show one session (same as `lore show SESSION_ID`)."""
    from lore.cli.records import show_cmd

    ctx.invoke(show_cmd, record_id=session_id, history=False, as_json=_json_wanted(as_json))


@click.group(name="transfer", invoke_without_command=True)
@click.pass_context
def transfer_cmd(ctx: click.Context) -> None:
    """Housekeeping for sessions."""
    help_when_alone(ctx)


@transfer_cmd.command(name="prune")
@click.option(
    "--days",
    type=click.IntRange(min=0),
    default=30,
    show_default=True,
    help="Only sessions older than this.",
)
@click.option("--dry-run", is_flag=True, help="List what would be archived; change nothing.")
@json_option
@pass_app
def transfer_prune_cmd(app: App, days: int, dry_run: bool, as_json: bool) -> None:
    """Archive (never delete) old sessions that hold nothing."""
    from lore.components.transfer import prune

    pruned = prune(app.store, days=days, dry_run=dry_run)
    if as_json:
        emit_json({"ok": True, "dry_run": dry_run, "archived": [s.id for s in pruned]})
        return
    verb = "would archive" if dry_run else "archived"
    echo(f"{verb} {len(pruned)} empty session{'s' if len(pruned) != 1 else ''}")
    for s in pruned:
        echo(f"  {s.id}")
