"""``lore recall`` (alias ``search``) and its modes, the shortcuts ``context``, ``brief``,
``failures`` and ``triggers``, and ``lore index rebuild|status``.

Flags and rendering only; ranking and the modes are ``lore.recall``'s job.
"""

from __future__ import annotations

from typing import Any

import click

from lore.cli._app import App
from lore.cli._output import echo, emit_json, json_option, note, style
from lore.errors import UsageError

pass_app = click.make_pass_decorator(App)
LIMIT_HELP = "At most N results (default 10; 0: all)."
SINCE_HELP = "Only records since a time: 2026-05-12, 2026-05, 2026-W19, 7d, yesterday, last week..."
UNTIL_HELP = "Only records before the end of a time (same forms; 7d: older than 7 days)."


def _here(project: str | None) -> str | None:
    from lore.capture import detect_project

    return detect_project(project)


def _query(words: tuple[str, ...]) -> str:
    return " ".join(words).strip()


def _title(item: dict[str, Any]) -> str:
    from lore.model import kind_class

    value = item.get(kind_class(item["type"]).KIND.title)
    text = value if isinstance(value, str) else "" if value is None else str(value)
    return " ".join(text.split())


def _line(item: dict[str, Any], *, score: bool = False) -> str:
    head = f"{item['score']:.2f}  " if score and "score" in item else ""
    return f"{head}{item['type']} {item['id']}  {_title(item)}"


def _section(name: str, items: list[dict[str, Any]], count: int | None = None) -> None:
    shown = f" ({count})" if count is not None else f" ({len(items)})"
    echo(f"## {name}{shown}")
    for item in items:
        echo(f"- {_line(item, score=True)}")
    if not items:
        echo("  (none)")


@click.command(name="recall")
@click.argument("query", nargs=-1)
@click.option("--kind", "kinds", multiple=True, help="Only this kind (repeatable; plurals work).")
@click.option("--project", help="Only this project's records; alone: the project's context.")
@click.option("--tag", "tags", multiple=True, help="Only records with this tag (repeatable: all).")
@click.option("--since", help=SINCE_HELP)
@click.option("--until", help=UNTIL_HELP)
@click.option("--limit", "-n", type=click.IntRange(min=0), default=10, help=LIMIT_HELP)
@click.option("--all", "show_all", is_flag=True, help="Include retracted and superseded records.")
@click.option("--explain", is_flag=True, help="Show every score component of each result.")
@click.option("--patterns", "as_patterns", is_flag=True, help="Mode: patterns and anti-patterns.")
@click.option("--failures", "as_failures", is_flag=True, help="Mode: failures, newest first.")
@click.option("--type", "error_type", help="With --failures: only this error type.")
@click.option("--triggers", "as_triggers", is_flag=True, help="Mode: recurring error types.")
@click.option(
    "--threshold", type=click.IntRange(min=1), default=None, help="With --triggers (default 3)."
)
@click.option("--brief", "as_brief", is_flag=True, help="Mode: a briefing on the topic QUERY.")
@click.option(
    "--graph-depth",
    type=click.IntRange(0, 3),
    default=0,
    help="Also list records within N graph edges of each hit (0-3).",
)
@click.option("--deep", is_flag=True, help="Rank by personalized PageRank seeded from the hits.")
@json_option
@pass_app
def recall_cmd(
    app: App,
    query: tuple[str, ...],
    kinds: tuple[str, ...],
    project: str | None,
    tags: tuple[str, ...],
    since: str | None,
    until: str | None,
    limit: int,
    show_all: bool,
    explain: bool,
    as_patterns: bool,
    as_failures: bool,
    error_type: str | None,
    as_triggers: bool,
    threshold: int | None,
    as_brief: bool,
    graph_depth: int,
    deep: bool,
    as_json: bool,
) -> None:
    """Search every kind of record for QUERY, best match first.

    QUERY is any text, quoted or not: a few keywords or a whole question. Any
    matching word counts and ranking decides; stop words are dropped, word forms
    ("caching" finds "cache") and typos ("postgress") still match. Ranking blends
    text relevance (BM25, titles weigh more), recency, importance (outcome,
    confidence, severity, recurrence), the current project and how often a
    record was recalled before; --explain shows each part.

    A time inside QUERY ("what did we decide last week about caching", "in May
    2026", "since 2026-W19") is not matched as text: records of that window
    rank higher, and --explain names it. --since and --until filter by time:
    an ISO date or date-time, a month 2026-05, a year, an ISO week 2026-W19,
    an age (12h, 7d, 2w, 3m, 1y), today, yesterday, this/last week|month|year,
    or a month name.

    Modes are flags that use QUERY when given: --patterns [QUERY] (patterns and
    anti-patterns for a situation; without QUERY the project's best), --failures
    [QUERY] [--type T], --triggers [--threshold N], --brief QUERY (decisions,
    patterns, failures and contradictions on a topic), and --project P with no
    QUERY (the project's context).

    With --json: {"query", "window", "results": [{"id", "type", "score",
    "timestamp", ...fields}]}, where "window" is the query's time window
    ({"text", "since", "until"}) or null, "type" is the record's kind and a
    decision's own type is "decision_type".

    \b
    Examples:
      lore recall why did we pick postgres
      lore recall --kind decision --since 2w "cache invalidation" --explain
      lore recall what did we decide last week about caching
      lore recall deploy --since 2026-05 --until 2026-W21
      lore recall --brief auth
      lore recall --deep "session store" --explain
    """
    text = _query(query)
    modes = [
        name
        for name, on in (
            ("--patterns", as_patterns),
            ("--failures", as_failures),
            ("--triggers", as_triggers),
            ("--brief", as_brief),
        )
        if on
    ]
    if len(modes) > 1:
        raise UsageError(f"choose one mode: {' and '.join(modes)} cannot be combined")
    if (deep or graph_depth) and modes:
        raise UsageError("--deep and --graph-depth go with a plain QUERY, not a mode")
    if error_type and not as_failures:
        raise UsageError("--type goes with --failures")
    if threshold is not None and not as_triggers:
        raise UsageError("--threshold goes with --triggers")
    if as_patterns:
        _patterns(app, text, project, limit, as_json)
    elif as_failures:
        _failures(app, error_type, text, project, since, limit, as_json)
    elif as_triggers:
        _triggers(app, threshold or 3, project, as_json)
    elif as_brief:
        if not text:
            raise UsageError("--brief needs a topic: lore recall --brief TOPIC")
        _brief(app, text, project, limit, as_json)
    elif not text and project and not (kinds or tags or since or until):
        _context(app, project, limit, as_json)
    elif not text:
        raise UsageError("nothing to recall: give a QUERY (or a mode: --patterns, --failures, ...)")
    elif deep or graph_depth:
        _graph_recall(app, text, kinds, project, tags, (since, until), limit, show_all, explain,
                      as_json, graph_depth, deep)  # fmt: skip
    else:
        _recall(app, text, kinds, project, tags, (since, until), limit, show_all, explain, as_json)


search_cmd = click.Command(
    name="search",
    callback=recall_cmd.callback,
    params=recall_cmd.params,
    help=recall_cmd.help,
    short_help=recall_cmd.short_help,
)


def _recall(
    app: App,
    text: str,
    kinds: tuple[str, ...],
    project: str | None,
    tags: tuple[str, ...],
    period: tuple[str | None, str | None],
    limit: int,
    show_all: bool,
    explain: bool,
    as_json: bool,
) -> None:
    from lore.recall import query_window, recall

    since, until = period
    found = recall(
        app.store,
        text,
        kinds=kinds,
        project=project,
        tags=tags,
        since=since,
        until=until,
        limit=limit,
        show_hidden=show_all,
        here=_here(project),
    )
    window = query_window(text)
    if as_json:
        results = [h.to_dict(explain=explain) for h in found]
        emit_json(
            {"query": text, "window": window.to_dict() if window else None, "results": results}
        )
        return
    if explain and window is not None:
        note(f"time window {window.describe()} (its records rank higher)")
    if not found:
        from lore.search import query_terms

        if not query_terms(text):
            note(f"nothing to search for: {text!r} holds only stop words or one-letter words")
        else:
            note(f"no matches for {text!r}")
        return
    for hit in found:
        item = hit.to_dict()
        title = hit.title or _title(item)  # paths in it relative to the repository
        head = style(f"{item['type']} {item['id']}", bold=True)
        echo(f"{item['score']:.2f}  {head}  {title}")
        if hit.snippet:
            echo(style(f"      {hit.snippet}", dim=True))
        if explain:
            parts = ", ".join(f"{k} {v:.3f}" for k, v in hit.parts.items() if k != "score")
            echo(f"      [{parts}]")


def _graph_recall(
    app: App,
    text: str,
    kinds: tuple[str, ...],
    project: str | None,
    tags: tuple[str, ...],
    period: tuple[str | None, str | None],
    limit: int,
    show_all: bool,
    explain: bool,
    as_json: bool,
    depth: int,
    deep: bool,
) -> None:
    """--deep / --graph-depth: recall through the knowledge graph (``lore.graph.recall``)."""
    from lore.cli.graph import one_shot
    from lore.graph.recall import graph_recall
    from lore.recall import query_window

    since, until = period

    found, via = graph_recall(
        app.store,
        text,
        deep=deep,
        depth=depth,
        limit=limit,
        kinds=kinds,
        project=project,
        tags=tags,
        since=since,
        until=until,
        show_hidden=show_all,
        here=_here(project),
        one_shot=one_shot(),
    )
    window = query_window(text)
    if as_json:
        results = []
        for hit in found:
            item = hit.to_dict(explain=explain)
            if explain and hit.record.id in via:
                item["explain"]["via"] = via[hit.record.id]
            results.append(item)
        emit_json(
            {"query": text, "window": window.to_dict() if window else None, "results": results}
        )
        return
    if not found:
        note(f"no matches for {text!r}")
    for hit in found:
        echo(_line(hit.to_dict(), score=True))
        if explain:
            parts = ", ".join(f"{k} {v:.3f}" for k, v in hit.parts.items() if k != "score")
            echo(f"      [{parts}]")
            for step in via.get(hit.record.id, ()):
                echo(f"      via {step}")


def _patterns(app: App, text: str, project: str | None, limit: int, as_json: bool) -> None:
    """``recall --patterns`` and ``lore suggest``: one use case, one rendering."""
    from lore.usecases.patterns import suggest

    doc = suggest(app.store, text or None, project=_here(project), limit=limit)
    if as_json:
        emit_json(doc)
        return
    _section("Patterns", doc["patterns"])
    _section("Anti-patterns", doc["anti_patterns"])


def _failures(
    app: App,
    error_type: str | None,
    text: str,
    project: str | None,
    since: str | None,
    limit: int,
    as_json: bool,
) -> None:
    from lore.recall import failures

    doc = failures(
        app.store,
        error_type=error_type,
        query=text or None,
        project=project,
        since=since,
        limit=limit,
    )
    if as_json:
        emit_json(doc)
        return
    if not doc["failures"]:
        note("no failures")
        return
    echo("counts: " + ", ".join(f"{k} {v}" for k, v in doc["counts"].items()))
    for item in doc["failures"]:
        when = item["timestamp"][:16].replace("T", " ")
        echo(f"{when}  {item['id']}  {item['error_type']}: {_title(item)}")


def _triggers(app: App, threshold: int, project: str | None, as_json: bool) -> None:
    from lore.recall import triggers

    doc = triggers(app.store, threshold=threshold, project=project)
    if as_json:
        emit_json(doc)
        return
    if not doc["triggers"]:
        note(f"no error type has {threshold} or more failures")
        return
    for t in doc["triggers"]:
        pitfall = f" (see {t['pitfall']})" if t.get("pitfall") else ""
        echo(f"{t['error_type']} x{t['count']}  last {t['last_seen'][:10]}")
        echo(f"      {' '.join(str(t['last_message']).split())}{pitfall}")


def _context(app: App, project: str, limit: int, as_json: bool) -> None:
    from lore.recall import context

    doc = context(app.store, project, limit=limit)
    if as_json:
        emit_json(doc)
        return
    echo(f"# {project}")
    for entry in doc["registry"]:
        echo(" ".join(str(entry.get("description") or "").split()) or "(registered)")
    for name, key in (
        ("Recent decisions", "decisions"),
        ("Patterns", "patterns"),
        ("Recent failures", "failures"),
        ("Active goals", "goals"),
    ):
        _section(name, doc[key])


def _brief(app: App, topic: str, project: str | None, limit: int, as_json: bool) -> None:
    from lore.recall import brief

    doc = brief(app.store, topic, project=project, here=_here(project), limit=limit)
    if as_json:
        emit_json(doc)
        return
    echo(f"# Brief: {topic}")
    for name, key in (
        ("Decisions", "decisions"),
        ("Patterns", "patterns"),
        ("Failures", "failures"),
    ):
        _section(name, doc[key]["items"], doc[key]["count"])
    echo(f"## Contradictions ({doc['contradictions']['count']})")
    for item in doc["contradictions"]["items"]:
        echo(f"- {item['a']} vs {item['b']}: {item['reason']}")
    if not doc["contradictions"]["items"]:
        echo("  (none)")


# --- shortcuts ----------------------------------------------------------------------------


@click.command(name="context")
@click.argument("project")
@click.option("--limit", "-n", type=click.IntRange(min=0), default=10, help=LIMIT_HELP)
@json_option
@pass_app
def context_cmd(app: App, project: str, limit: int, as_json: bool) -> None:
    """Show PROJECT's context: registry entry, decisions, patterns, failures, goals.

    Same as `lore recall --project PROJECT`. With --json: {"project", "registry",
    "decisions", "patterns", "failures", "goals"}, each section a list of records.
    """
    _context(app, project, limit, as_json)


@click.command(name="brief")
@click.argument("topic", nargs=-1, required=True)
@click.option("--project", help="Only this project's records.")
@click.option("--limit", "-n", type=click.IntRange(min=0), default=10, help=LIMIT_HELP)
@json_option
@pass_app
def brief_cmd(
    app: App, topic: tuple[str, ...], project: str | None, limit: int, as_json: bool
) -> None:
    """Brief on TOPIC: its decisions, patterns, failures and contradictions.

    Same as `lore recall --brief TOPIC`. Contradictions are pairs of active
    decisions on the topic that share an entity (or two title words) while their
    outcomes differ and one of them was revised or abandoned. With --json:
    {"topic", "decisions", "patterns", "failures", "contradictions"}, each
    section {"count", "items"}.
    """
    _brief(app, _query(topic), project, limit, as_json)


@click.command(name="failures")
@click.argument("query", nargs=-1)
@click.option("--type", "error_type", help="Only failures of this error type.")
@click.option("--project", help="Only this project's failures.")
@click.option("--since", help=SINCE_HELP)
@click.option("--limit", "-n", type=click.IntRange(min=0), default=10, help=LIMIT_HELP)
@json_option
@pass_app
def failures_cmd(
    app: App,
    query: tuple[str, ...],
    error_type: str | None,
    project: str | None,
    since: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """List failures newest first, with counts per error type.

    Same as `lore recall --failures [QUERY]`: QUERY, if given, keeps the failures
    that match it. With --json: {"type", "counts": {error_type: n}, "failures": [...]}.
    """
    _failures(app, error_type, _query(query), project, since, limit, as_json)


@click.command(name="triggers")
@click.option("--threshold", type=click.IntRange(min=1), default=3, help="Minimum failures.")
@click.option("--project", help="Only this project's failures (and project-less ones).")
@json_option
@pass_app
def triggers_cmd(app: App, threshold: int, project: str | None, as_json: bool) -> None:
    """List error types with --threshold or more failures (default 3).

    Same as `lore recall --triggers`. With --json: {"threshold", "triggers":
    [{"error_type", "count", "last_seen", "last_message", "pitfall"}]}.
    """
    _triggers(app, threshold, project, as_json)


# --- the index ----------------------------------------------------------------------------


@click.group(name="index")
def index_cmd() -> None:
    """Manage the derived search index (it lives outside the data root)."""


@index_cmd.command(name="rebuild")
@json_option
@pass_app
def index_rebuild_cmd(app: App, as_json: bool) -> None:
    """Rebuild the search index from the data files alone."""
    import time

    from lore.index import index_path, rebuild

    started = time.perf_counter()
    idx = rebuild(app.store)
    seconds = round(time.perf_counter() - started, 3)
    path = str(index_path(app.store.root))
    if as_json:
        emit_json(
            {
                "ok": True,
                "path": path,
                "records": idx.size,
                "terms": len(idx.vocabulary()),
                "seconds": seconds,
            }
        )
        return
    terms = len(idx.vocabulary())
    echo(f"index rebuilt: {idx.size} records, {terms} terms in {seconds:g}s ({path})")


@index_cmd.command(name="status")
@json_option
@pass_app
def index_status_cmd(app: App, as_json: bool) -> None:
    """Say where the index is, what it holds and whether it is up to date."""
    from lore.index import status

    doc = status(app.store)
    if as_json:
        emit_json(doc)
        return
    state = "fresh" if doc["fresh"] else "stale (the next recall refreshes it)"
    if not doc["exists"]:
        state = "not built yet (the next recall builds it)"
    echo(f"index: {doc['path']}")
    echo(f"state: {state}")
    echo(f"records: {doc['records']}, terms: {doc['terms']}, bytes: {doc['bytes']}")
    for kind, count in doc["kinds"].items():
        echo(f"  {kind}: {count}")
