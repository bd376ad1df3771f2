"""``lore registry ...``: add, list, show, remove and validate projects, and a project's
context bundle. Parses and renders only (``lore.usecases.registry`` does the work).
"""

from __future__ import annotations

import click

from lore.cli._app import App
from lore.cli._options import tag_option
from lore.cli._output import echo, emit_json, json_option, note, wants_json, warn
from lore.errors import EXIT_INVALID

pass_app = click.make_pass_decorator(App)


@click.group(name="registry", invoke_without_command=True)
@json_option
@click.pass_context
def registry_cmd(ctx: click.Context, as_json: bool) -> None:
    """Register projects and bundle their context (default: list)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(registry_list_cmd, as_json=as_json)


@registry_cmd.command(name="add")
@click.argument("name")
@click.option(
    "--path",
    help="Where it lives (taken from here; stored relative to $LORE_WORKSPACE, the "
    "registry's repository or ~).",
)
@click.option("--description", help="What it is.")
@tag_option("Tags (comma-separated, repeatable; replaces the tags).")
@click.option(
    "--depends-on",
    "depends_on",
    multiple=True,
    help="A project it depends on (repeatable; replaces the list).",
)
@click.option(
    "--allow-secret", is_flag=True, help="Write even if the text looks like it holds a credential."
)
@json_option
@pass_app
def registry_add_cmd(
    app: App,
    name: str,
    path: str | None,
    description: str | None,
    tags: tuple[str, ...],
    depends_on: tuple[str, ...],
    allow_secret: bool,
    as_json: bool,
) -> None:
    """Register project NAME, or update the fields given if NAME is registered.

    Writes one entry of registry/data/projects.yaml; the rest of the file
    (comments, order, unknown keys) stays as it was. A dependency that closes a
    cycle is refused. --path is taken from the working directory and stored so
    that every clone reads it alike: relative to $LORE_WORKSPACE if set (else to
    the top of the git repository holding the registry, else the data root) when
    inside it, else as ~/... under the home directory, else absolute.
    With --json: {"ok", "id", "created", "record"}.

    \b
    Example:
      lore registry add webshop --path ~/src/webshop --depends-on payments
    """
    as_json = wants_json(as_json)
    from lore.usecases.registry import add_project

    reply = add_project(
        app.store,
        name,
        path=path,
        description=description,
        tags=tags,
        depends_on=depends_on,
        allow_secret=allow_secret,
    )
    if as_json:
        emit_json(reply)
        return
    echo(f"project {name} {'added' if reply['created'] else 'updated'}")


@registry_cmd.command(name="list")
@json_option
@pass_app
def registry_list_cmd(app: App, as_json: bool = False) -> None:
    """List registered projects: `<name>  <path>  <description>` each.

    With --json: an array of project records.
    """
    as_json = wants_json(as_json)
    from lore.usecases.registry import list_projects, read_issues

    projects = list_projects(app.store)
    for problem in read_issues(app.store):
        warn(problem)
    if as_json:
        emit_json(projects)
        return
    if not projects:
        note("no projects registered (add one: lore registry add NAME)")
        return
    for p in projects:
        echo(f"{p['name']}  {p.get('path') or '-'}  {p.get('description') or ''}".rstrip())


@registry_cmd.command(name="show")
@click.argument("name")
@json_option
@pass_app
def registry_show_cmd(app: App, name: str, as_json: bool) -> None:
    """Show the registered project NAME (--json: its record)."""
    as_json = wants_json(as_json)
    from lore.cli.patterns import show_record
    from lore.usecases.registry import show_project

    data = show_project(app.store, name)
    if as_json:
        emit_json(data)
        return
    show_record(data, "project")


@registry_cmd.command(name="remove")
@click.argument("name")
@json_option
@pass_app
def registry_remove_cmd(app: App, name: str, as_json: bool) -> None:
    """Remove project NAME from the registry (its records stay).

    With --json: {"ok", "id", "record", "dependents"}; dependents are projects
    that still depend on NAME.
    """
    as_json = wants_json(as_json)
    from lore.usecases.registry import remove_project

    reply = remove_project(app.store, name)
    if as_json:
        emit_json(reply)
        return
    echo(f"project {name} removed")
    if reply["dependents"]:
        warn(f"still depended on by: {', '.join(reply['dependents'])}")


@registry_cmd.command(name="context")
@click.argument("name")
@click.option(
    "--limit", "-n", type=click.IntRange(min=0), default=10, help="At most N per section."
)
@json_option
@pass_app
def registry_context_cmd(app: App, name: str, limit: int, as_json: bool) -> None:
    """Print a Markdown bundle for an agent working on project NAME.

    Its description, dependencies, recent decisions, patterns and anti-patterns,
    open goals (draft, active, blocked) and recurring failures. With --json:
    {"project", "dependencies", "decisions", "patterns", "anti_patterns", "goals",
    "recurring_failures"}.
    """
    as_json = wants_json(as_json)
    from lore.usecases.registry import context, render_context

    doc = context(app.store, name, limit=limit)
    if as_json:
        emit_json(doc)
        return
    click.echo(render_context(doc), nl=False)


@registry_cmd.command(name="validate")
@json_option
@pass_app
def registry_validate_cmd(app: App, as_json: bool) -> None:
    """Check the registry: unknown dependencies, dependency cycles, missing paths.

    Exit 4 when there is any error. A path missing on this machine is a warning
    (a teammate's checkout may live elsewhere): a relative path is taken from
    $LORE_WORKSPACE, else from the top of the git repository holding the registry,
    else from the data root. With --json: {"ok", "projects", "errors", "warnings",
    "issues": [{"severity", "code", "project", "message"}]}.
    """
    as_json = wants_json(as_json)
    from lore.usecases.registry import validate_registry

    report = validate_registry(app.store)
    if as_json:
        emit_json(report)
    else:
        for issue in report["issues"]:
            where = f"{issue['project']}: " if issue["project"] is not None else ""
            echo(f"{issue['severity']}: {where}{issue['message']} [{issue['code']}]")
        n, e, w = report["projects"], report["errors"], report["warnings"]
        counts = f"{n} project{'s' if n != 1 else ''}, {e} error{'s' if e != 1 else ''}"
        note(counts + (f", {w} warning{'s' if w != 1 else ''}" if w else ""))
    if report["errors"]:
        raise click.exceptions.Exit(EXIT_INVALID)
