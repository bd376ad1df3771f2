"""``lore graph ...``: rebuild, read, export and curate the knowledge graph.

Flags and rendering only: the graph itself is ``lore.graph``'s job.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from lore.cli._app import App
from lore.cli._options import AliasOption, help_when_alone
from lore.cli._output import echo, emit_json, json_option, note

pass_app = click.make_pass_decorator(App)
HTML_COMFORT = 5000  # nodes (each with its record) inlined in one page; more gets a hint
ALLOW_SECRET = click.option(
    "--allow-secret", is_flag=True, help="Write even if the text looks like it holds a secret."
)


def one_shot() -> bool:
    """True under the ``lore`` console script (``lore.process``): a process that ends after
    this command. An in-process caller (tests, a program using lore.cli) is not one."""
    from lore.process import one_shot as console

    return console()


def _snapshot(app: App) -> Any:
    from lore.graph.snapshot import open_graph

    return open_graph(app.store, one_shot=one_shot())


# Statuses of records that are no live advice: a graph view still shows them (the graph
# keeps the history) with the status in brackets.
NOT_LIVE = frozenset({"superseded", "archived", "promoted", "deprecated"})


def _node_line(node: dict[str, Any], extra: str = "") -> str:
    status = node.get("status")
    mark = f"  [{status}]" if status in NOT_LIVE else ""
    return f"{node['type']} {node['id']}  {node.get('label', '')}{mark}{extra}".rstrip()


def _nodes(doc: list[dict[str, Any]], empty: str, fmt: Any = None) -> None:
    if not doc:
        note(empty)
    for node in doc:
        echo(fmt(node) if fmt else _node_line(node))


@click.group(name="graph", invoke_without_command=True)
@click.pass_context
def graph_cmd(ctx: click.Context) -> None:
    """Query, export and curate the knowledge graph derived from every record.

    The graph is a projection of the files (never a store): records are nodes,
    their fields are edges (LORE_CONTRACT.md §3.13). It lives beside the search
    index, outside the data root, and every command refreshes it first, so a
    record captured a moment ago is already in it.
    """
    help_when_alone(ctx)


class _Bar:
    """A progress bar on stderr for a big rebuild (a terminal only)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.progress = Progress(
            TextColumn("projecting records"),
            BarColumn(),
            MofNCompleteColumn(),
            console=Console(stderr=True, markup=False, highlight=False),
            transient=True,
        )
        self.task: Any = None

    def __enter__(self) -> _Bar:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.__exit__(*exc)

    def __call__(self, done: int, total: int) -> None:
        if self.task is None:
            self.task = self.progress.add_task("graph", total=total)
        self.progress.update(self.task, completed=done, total=total)


@graph_cmd.command(name="rebuild")
@json_option
@pass_app
def rebuild_cmd(app: App, as_json: bool) -> None:
    """Build the graph from nothing but the files; print counts per node and edge type.

    With --json: the same document as `lore graph stats --json`.
    """
    from contextlib import nullcontext

    from lore.graph.queries import stats
    from lore.graph.snapshot import rebuild

    bar: Any = _Bar() if sys.stderr.isatty() and not as_json else nullcontext(None)
    with bar as progress:
        snapshot = rebuild(app.store, progress)
    _stats(stats(snapshot), as_json)


def _stats(doc: dict[str, Any], as_json: bool) -> None:
    if as_json:
        emit_json(doc)
        return
    echo(f"{doc['nodes']} nodes, {doc['edges']} edges, {doc['components']} components")
    echo("nodes: " + (", ".join(f"{k} {v}" for k, v in doc["node_types"].items()) or "none"))
    echo("edges: " + (", ".join(f"{k} {v}" for k, v in doc["relations"].items()) or "none"))
    echo(f"orphans: {doc['orphans']}")


@graph_cmd.command(name="stats")
@json_option
@pass_app
def stats_cmd(app: App, as_json: bool) -> None:
    """Count the graph's nodes and edges by type, its components and orphans."""
    from lore.graph.queries import stats

    _stats(stats(_snapshot(app)), as_json)


@graph_cmd.command(name="show")
@click.argument("node")
@json_option
@pass_app
def show_cmd(app: App, node: str, as_json: bool) -> None:
    """Show NODE (a record id, project, file or error type) and all its edges."""
    from lore.graph.queries import show

    doc = show(_snapshot(app), app.store, node)
    if as_json:
        emit_json(doc)
        return
    echo(_node_line(doc["node"]))
    for edge in doc["edges"]:
        echo(f"  {edge['from']} --{edge['relation']}--> {edge['to']}")


@graph_cmd.command(name="neighbors")
@click.argument("node")
@click.option("--relation", help="Only edges of this relation.")
@click.option(
    "--direction",
    type=click.Choice(["in", "out", "both"]),
    default="both",
    show_default=True,
    help="Edges leaving NODE (out), arriving (in) or both.",
)
@json_option
@pass_app
def neighbors_cmd(app: App, node: str, relation: str | None, direction: str, as_json: bool) -> None:
    """List the nodes one edge away from NODE."""
    from lore.graph.queries import neighbors

    doc = neighbors(_snapshot(app), node, relation=relation, direction=direction)
    if as_json:
        emit_json(doc)
        return
    arrows = {"out": "-->", "in": "<--"}
    _nodes(
        doc["neighbors"],
        f"{doc['id']} has no neighbours",
        lambda n: f"{arrows[n['direction']]} {n['relation']:<12} {_node_line(n)}",
    )


@graph_cmd.command(name="related")
@click.argument("node")
@click.option("--hops", type=click.IntRange(1, 3), default=2, show_default=True)
@json_option
@pass_app
def related_cmd(app: App, node: str, hops: int, as_json: bool) -> None:
    """List the nodes within --hops edges of NODE, nearest first.

    A hub (a node with far more edges than most: a busy session, a project) is listed
    but not walked through, so it does not bring in everything it touches.
    """
    from lore.graph.queries import related

    doc = related(_snapshot(app), node, hops)
    if as_json:
        emit_json(doc)
        return
    _nodes(doc["nodes"], "nothing related", lambda n: f"{n['distance']}  {_node_line(n)}")
    if doc["hubs"]:
        hubs = ", ".join(f"{h['id']} ({h['degree']} edges)" for h in doc["hubs"])
        note(f"not walked through hubs: {hubs}")


@graph_cmd.command(name="path")
@click.argument("start")
@click.argument("end")
@json_option
@pass_app
def path_cmd(app: App, start: str, end: str, as_json: bool) -> None:
    """Show the shortest chain of edges between START and END (exit 3 if none)."""
    from lore.graph.queries import path

    doc = path(_snapshot(app), start, end)
    if as_json:
        emit_json(doc)
        return
    for edge in doc["edges"]:
        echo(f"{edge['from']} --{edge['relation']}--> {edge['to']}")


@graph_cmd.command(name="query")
@click.argument("text", nargs=-1, required=True)
@click.option("--limit", "-n", type=click.IntRange(min=0), default=50, show_default=True)
@json_option
@pass_app
def query_cmd(app: App, text: tuple[str, ...], limit: int, as_json: bool) -> None:
    """List the nodes whose label or id contains TEXT (case-insensitive)."""
    from lore.graph.queries import query

    doc = query(_snapshot(app), " ".join(text), limit=limit)
    if as_json:
        emit_json(doc)
        return
    _nodes(doc["nodes"], "no node matches")


@graph_cmd.command(name="orphans")
@click.option("--limit", "-n", type=click.IntRange(min=0), default=0, help="At most N (0: all).")
@json_option
@pass_app
def orphans_cmd(app: App, limit: int, as_json: bool) -> None:
    """List the records linked to nothing."""
    from lore.graph.queries import orphans

    doc = orphans(_snapshot(app), limit=limit)
    if as_json:
        emit_json(doc)
        return
    _nodes(doc["nodes"], "no orphans")


@graph_cmd.command(name="concepts")
@json_option
@pass_app
def concepts_list_cmd(app: App, as_json: bool) -> None:
    """List the concepts with the records that ground and reference them."""
    from lore.graph.queries import concepts

    doc = concepts(_snapshot(app))
    if as_json:
        emit_json(doc)
        return
    for c in doc["concepts"]:
        echo(_node_line(c))
        echo(f"  grounded by: {', '.join(c['grounded_by']) or '-'}")
        echo(f"  referenced by: {', '.join(c['referenced_by']) or '-'}")
    if not doc["concepts"]:
        note("no concepts")


@graph_cmd.command(name="hubs")
@click.option("--limit", "-n", type=click.IntRange(min=0), default=10, show_default=True)
@click.option("--by", type=click.Choice(["degree", "pagerank"]), default="degree")
@json_option
@pass_app
def hubs_cmd(app: App, limit: int, by: str, as_json: bool) -> None:
    """List the most connected records (by degree, or by PageRank)."""
    from lore.graph.queries import hubs

    doc = hubs(_snapshot(app), limit=limit, by=by)
    if as_json:
        emit_json(doc)
        return
    _nodes(doc["hubs"], "no records", lambda n: f"{n['degree']:>5}  {_node_line(n)}")


@graph_cmd.command(name="export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "graphml", "dot", "mermaid", "html"]),
    default="json",
    show_default=True,
)
@click.option("--focus", help="Only the neighbourhood of this node.")
@click.option("--hops", type=click.IntRange(1, 3), default=1, show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to a file.")
@pass_app
def export_cmd(app: App, fmt: str, focus: str | None, hops: int, output: str | None) -> None:
    """Write the graph as node-link JSON, GraphML, DOT, Mermaid or one HTML page.

    JSON is NetworkX node-link data (edges under "edges"); GraphML opens in Gephi
    and yEd; the HTML page (no network needed) grows a neighbourhood click by
    click from the most connected record, as `lore ui` does.
    """
    from lore.graph.export import render, subgraph

    graph = subgraph(_snapshot(app), focus, hops)
    records = None
    if fmt == "html":
        if graph.number_of_nodes() > HTML_COMFORT:
            note(
                f"{graph.number_of_nodes()} nodes make a large page (each record is inlined); "
                "--focus ID --hops N exports one neighbourhood, and lore ui browses them all"
            )
        records = {}
        for key in graph.nodes:
            found = app.store.find(key) if not key.startswith(("file:", "lesson:")) else None
            if found is not None:
                records[key] = found.to_dict()
    text = render(graph, fmt, records)
    if output:
        from pathlib import Path

        from lore.storage.atomic import write_output

        write_output(Path(output), text.encode("utf-8"))
        note(f"wrote {graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges to {output}")
        return
    sys.stdout.write(text)


@graph_cmd.group(name="add", invoke_without_command=True)
@click.pass_context
def add_cmd(ctx: click.Context) -> None:
    """Add a curated node to the graph (a record in graph/data/)."""
    help_when_alone(ctx)


@add_cmd.command(name="concept")
@click.argument("name")
@click.option(
    "--description",
    cls=AliasOption,
    hidden_aliases=("--definition",),
    default="",
    help="What the concept means.",
)
@click.option("--alias", "aliases", multiple=True, help="Another name (repeatable).")
@ALLOW_SECRET
@json_option
@pass_app
def add_concept_cmd(
    app: App,
    name: str,
    description: str,
    aliases: tuple[str, ...],
    allow_secret: bool,
    as_json: bool,
) -> None:
    """Record the concept NAME (exit 6 if a concept has that name already)."""
    from lore.graph.curate import add_concept

    concept = add_concept(
        app.store, name, definition=description, aliases=list(aliases), allow_secret=allow_secret
    )
    if as_json:
        emit_json(concept.to_dict())
        return
    echo(concept.id)


@graph_cmd.command(name="link")
@click.argument("start")
@click.argument("end")
@click.option(
    "--relation",
    cls=AliasOption,
    hidden_aliases=("-r",),
    required=True,
    help="One of the documented relations.",
)
@ALLOW_SECRET
@json_option
@pass_app
def link_cmd(
    app: App, start: str, end: str, relation: str, allow_secret: bool, as_json: bool
) -> None:
    """Record the curated edge START --relation--> END (both must exist)."""
    from lore.graph.curate import link

    edge = link(app.store, start, end, relation, allow_secret=allow_secret)
    if as_json:
        emit_json(edge.to_dict())
        return
    echo(edge.id)


@graph_cmd.command(name="unlink")
@click.argument("start")
@click.argument("end")
@click.option(
    "--relation",
    cls=AliasOption,
    hidden_aliases=("-r",),
    required=True,
    help="The relation of the edge to retract.",
)
@json_option
@pass_app
def unlink_cmd(app: App, start: str, end: str, relation: str, as_json: bool) -> None:
    """Retract the curated edge START --relation--> END (an appended revision)."""
    from lore.graph.curate import unlink

    edges = unlink(app.store, start, end, relation)
    if as_json:
        emit_json({"retracted": [e.id for e in edges]})
        return
    for edge in edges:
        echo(f"retracted {edge.id}")
