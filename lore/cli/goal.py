"""``lore goal ...``: create, list, show and update goals.

Parses and renders only: the rules are in ``lore.usecases.goals`` and
``lore.components.intent``.
"""

from __future__ import annotations

from typing import Any

import click

from lore.cli._app import App
from lore.cli._options import tag_option
from lore.cli._output import echo, emit_json, json_option, note, report_read_issues, wants_json

pass_app = click.make_pass_decorator(App)

STATUS_HELP = "draft, active, blocked, completed or cancelled."
PRIORITY_HELP = "critical, high, medium or low."


def _line(goal: dict[str, Any]) -> str:
    deadline = goal.get("deadline") or "-"
    return (
        f"{goal['id']}  {goal['status']:<9}  {goal['priority']:<8}  {goal['completion']:>5}  "
        f"{deadline:<10}  {goal['title']}"
    )


def _show(goal: dict[str, Any]) -> None:
    echo(f"goal {goal['id']}: {goal['title']}")
    echo(f"  status: {goal['status']}   priority: {goal['priority']}")
    if goal.get("deadline"):
        echo(f"  deadline: {goal['deadline']}")
    if goal.get("description"):
        echo(f"  description: {goal['description']}")
    criteria = goal.get("criteria") or []
    echo(f"  completion: {goal['completion']} criteria met")
    for c in criteria:
        echo(f"    [{'x' if c.get('met') is True else ' '}] {c.get('id')}  {c.get('text', '')}")
    for key in ("depends_on", "projects", "related", "tags"):
        if goal.get(key):
            echo(f"  {key}: {', '.join(str(v) for v in goal[key])}")


@click.group(name="goal", invoke_without_command=True)
@json_option
@click.pass_context
def goal_cmd(ctx: click.Context, as_json: bool) -> None:
    """Create, list, show and update goals (default: list)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(goal_list_cmd, as_json=as_json)


@goal_cmd.command(name="create")
@click.argument("name")
@click.option("--description", help="More detail.")
@click.option("--priority", help=f"{PRIORITY_HELP} Default: medium.")
@click.option("--deadline", help="A date, YYYY-MM-DD.")
@click.option("--project", "projects", multiple=True, help="A project it serves (repeatable).")
@tag_option()
@click.option("--criterion", "criteria", multiple=True, help="A success criterion (repeatable).")
@click.option("--force", is_flag=True, help="Create it even if a near-duplicate goal exists.")
@click.option(
    "--allow-secret", is_flag=True, help="Write even if the text looks like it holds a credential."
)
@click.option("--quiet", "-q", is_flag=True, help="Print only the new id.")
@json_option
@pass_app
def goal_create_cmd(
    app: App,
    name: str,
    description: str | None,
    priority: str | None,
    deadline: str | None,
    projects: tuple[str, ...],
    tags: tuple[str, ...],
    criteria: tuple[str, ...],
    force: bool,
    allow_secret: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """Create an active goal NAME; its criteria get the ids sc-1, sc-2, ...

    With --json: {"ok", "id", "type": "goal", "timestamp", "record", "completion"}.

    \b
    Example:
      lore goal create "Ship v1" --priority high --deadline 2026-12-31 \\
        --criterion "all tests green" --criterion "docs reviewed"
    """
    as_json = wants_json(as_json)
    from lore.usecases.goals import create_goal

    reply = create_goal(
        app.store,
        name,
        description=description,
        priority=priority,
        deadline=deadline,
        projects=projects,
        tags=tags,
        criteria=criteria,
        force=force,
        allow_secret=allow_secret,
    )
    if as_json:
        emit_json(reply)
    elif quiet:
        echo(reply["id"])
    else:
        echo(f"goal {reply['id']}: {reply['record']['title']} ({reply['completion']} criteria met)")


@goal_cmd.command(name="list")
@click.option("--status", help=STATUS_HELP)
@click.option("--priority", help=PRIORITY_HELP)
@json_option
@pass_app
def goal_list_cmd(
    app: App, status: str | None = None, priority: str | None = None, as_json: bool = False
) -> None:
    """List goals, most urgent first (priority, then deadline).

    One line each: `<id>  <status>  <priority>  <met/total>  <deadline>  <title>`.
    With --json: an array of goal records, each with "completion" ("met/total").
    """
    as_json = wants_json(as_json)
    from lore.usecases.goals import list_goals

    goals = list_goals(app.store, status=status, priority=priority)
    report_read_issues(app.store)
    if as_json:
        emit_json(goals)
        return
    if not goals:
        note("no goals")
        return
    for goal in goals:
        echo(_line(goal))


@goal_cmd.command(name="show")
@click.argument("goal_id")
@json_option
@pass_app
def goal_show_cmd(app: App, goal_id: str, as_json: bool) -> None:
    """Show the goal GOAL_ID with its criteria and completion.

    With --json: the goal record with "completion" ("met/total").
    """
    as_json = wants_json(as_json)
    from lore.usecases.goals import show_goal

    goal = show_goal(app.store, goal_id)
    if as_json:
        emit_json(goal)
        return
    _show(goal)


@goal_cmd.command(name="update")
@click.argument("goal_id")
@click.option("--status", help=STATUS_HELP)
@click.option("--priority", help=PRIORITY_HELP)
@click.option("--deadline", help="A date, YYYY-MM-DD.")
@click.option("--description", help="Replace the description.")
@click.option(
    "--add-criterion", "add_criteria", multiple=True, help="A new criterion (repeatable)."
)
@click.option(
    "--met",
    "met",
    multiple=True,
    help="Mark a criterion met, by its id (sc-...) or its exact text (repeatable).",
)
@click.option(
    "--depends-on", "depends_on", multiple=True, help="A goal this one waits for (repeatable)."
)
@click.option(
    "--allow-secret", is_flag=True, help="Write even if the text looks like it holds a credential."
)
@json_option
@pass_app
def goal_update_cmd(
    app: App,
    goal_id: str,
    status: str | None,
    priority: str | None,
    deadline: str | None,
    description: str | None,
    add_criteria: tuple[str, ...],
    met: tuple[str, ...],
    depends_on: tuple[str, ...],
    allow_secret: bool,
    as_json: bool,
) -> None:
    """Change the goal GOAL_ID in one atomic update that keeps the file's hand edits.

    A criterion added here gets the id sc- and 6 random hex digits (two clones adding
    criteria to one goal never give two the same id); --met takes an id or a
    criterion's exact text, so one added in the same command can be met at once.

    A bad value, an unknown criterion or goal, or a dependency that would close a
    cycle is refused and changes nothing. With --json: {"ok", "id", "completion",
    "record"}.

    \b
    Example:
      lore goal update goal-1a2b3c4d5e6f --met sc-1 --add-criterion "release notes"
    """
    as_json = wants_json(as_json)
    from lore.usecases.goals import update_goal

    reply = update_goal(
        app.store,
        goal_id,
        status=status,
        priority=priority,
        deadline=deadline,
        description=description,
        add_criteria=add_criteria,
        met=met,
        depends_on=depends_on,
        allow_secret=allow_secret,
    )
    if as_json:
        emit_json(reply)
        return
    record = reply["record"]
    echo(
        f"goal {reply['id']}: {record['status']}, {reply['completion']} criteria met"
        f" ({record['title']})"
    )
