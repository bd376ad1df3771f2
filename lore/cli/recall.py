"""``lore recall`` (alias ``search``) and its modes, the shortcuts ``context``, ``brief``,
``failures`` and ``triggers``, and ``lore index rebuild|status``.

Flags and rendering only; ranking and the modes are ``lore.recall``'s job.
"""

from __future__ import annotations

from typing import Any

import click

from lore.cli._app import App
from lore.cli._options import (
    SINCE_HELP,
    TAG_FILTER_HELP,
    UNTIL_HELP,
    error_type_filter_option,
    help_when_alone,
    kind_filter_option,
    limit_option,
    split_values,
    tag_option,
)
from lore.cli._output import echo, emit_json, json_option, note, style
from lore.errors import UsageError

pass_app = click.make_pass_decorator(App)
LIMIT_HELP = "At most N results (default 10; 0: all)."


def _query(words: tuple[str, ...]) -> str:
    return " ".join(words).strip()


def _title(item: dict[str, Any]) -> str:
    from lore.model import kind_class

    value = item.get(kind_class(item["type"]).KIND.title)
    text = value if isinstance(value, str) else "" if value is None else str(value)
    return " ".join(text.split())


def _line(item: dict[str, Any], *, score: bool = False) -> str:
    head = f"{item['score']:.2f}  " if score and "score" in item else ""
    mark = marker(item)
    return f"{head}{item['type']} {item['id']}  {_title(item)}{'  ' + mark if mark else ''}"


def marker(item: dict[str, Any]) -> str:
    """What a result's state says about trusting it, in brackets (``""`` for none): a
    pattern's flag and reason, a record retracted, superseded, deprecated, discarded or
    archived, an observation promoted to another record."""
    from lore.components.patterns import flag_summary, flag_text

    notes = []
    status = item.get("status")
    if item.get("retracted_at") or status == "retracted":
        notes.append("retracted")
    elif status == "superseded":
        by = item.get("superseded_by")
        notes.append(f"superseded by {by}" if by else "superseded")
    elif status == "deprecated":
        by = item.get("inverted_to")
        notes.append(f"deprecated, see {by}" if by else "deprecated")
    elif status == "discarded" and item.get("type") == "observation":
        why = item.get("discard_reason")
        notes.append(f"discarded: {why}" if why else "discarded")
    elif status == "promoted" and item.get("type") == "observation":
        notes.append(f"promoted to {item.get('promoted_to')}")
    elif status == "archived":
        when = str(item.get("archived_at") or "")[:10]
        notes.append(f"archived {when}" if when else "archived")
    if item.get("type") == "pattern":
        flagged = item.get("flagged") if "flagged" in item else flag_summary(item.get("flags"))
        if flagged:
            notes.append(flag_text(flagged))
    return f"[{'; '.join(notes)}]" if notes else ""


def _section(name: str, items: list[dict[str, Any]], count: int | None = None) -> None:
    shown = f" ({count})" if count is not None else f" ({len(items)})"
    echo(f"## {name}{shown}")
    for item in items:
        echo(f"- {_line(item, score=True)}")
    if not items:
        echo("  (none)")


@click.command(name="recall")
@click.argument("query", nargs=-1)
@kind_filter_option()
@click.option("--project", help="Only this project's records; alone: the project's context.")
@tag_option(TAG_FILTER_HELP)
@click.option("--since", help=SINCE_HELP)
@click.option("--until", help=UNTIL_HELP)
@limit_option(10, LIMIT_HELP)
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Include hidden records (retracted, superseded, deprecated, discarded).",
)
@click.option("--explain", is_flag=True, help="Show every score component of each result.")
@click.option("--patterns", "as_patterns", is_flag=True, help="Mode: patterns and anti-patterns.")
@click.option("--failures", "as_failures", is_flag=True, help="Mode: failures, newest first.")
@error_type_filter_option("With --failures: only this error type.")
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
@click.option(
    "--routed",
    is_flag=True,
    help="Also ask Engram's memory database; merge both, each result marked with its store.",
)
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
    routed: bool,
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
    [QUERY] [--error-type T], --triggers [--threshold N], --brief QUERY (decisions,
    patterns, failures and contradictions on a topic), and --project P with no
    QUERY (the project's context).

    With --json: {"query", "window", "results": [{"id", "type", "score",
    "timestamp", ...fields}]}, where "window" is the query's time window
    ({"text", "since", "until"}) or null, "type" is the record's kind and a
    decision's own type is "decision_type".

    --routed also asks Engram ($CLAUDE_MEMORY_DB): Engram first for what you
    were doing ("what was I working on", "last session"), lore first for
    decisions, patterns and failures, else both in turn; each result says which
    store it came from (--json: {"query", "route", "why", "engram", "results":
    [{"store", "id", "type", "score", "title", "timestamp", "item"}]}).

    \b
    Examples:
      lore recall why did we pick postgres
      lore recall --kind decision --since 2w "cache invalidation" --explain
      lore recall what did we decide last week about caching
      lore recall deploy --since 2026-05 --until 2026-W21
      lore recall --brief auth
      lore recall --deep "session store" --explain
      lore recall --routed what was I working on yesterday
    """
    modes = [
        name
        for name, on in (
            ("patterns", as_patterns),
            ("failures", as_failures),
            ("triggers", as_triggers),
            ("brief", as_brief),
        )
        if on
    ]
    if len(modes) > 1:
        flags = " and ".join(f"--{m}" for m in modes)
        raise UsageError(f"choose one mode: {flags} cannot be combined")
    if routed:
        if modes or deep or graph_depth or explain:
            raise UsageError(
                "--routed goes with a plain QUERY (no mode, --deep, --graph-depth or --explain)"
            )
        from lore.cli.routed import routed_recall

        routed_recall(
            app,
            _query(query),
            as_json,
            kinds=kinds,
            project=project,
            tags=tags,
            since=since,
            until=until,
            limit=limit,
            show_all=show_all,
        )
        return
    _show(
        app,
        _query(query),
        as_json,
        mode=modes[0] if modes else None,
        kinds=kinds,
        project=project,
        tags=split_values(tags),
        since=since,
        until=until,
        limit=limit,
        show_all=show_all,
        explain=explain,
        error_type=error_type,
        threshold=threshold,
        deep=deep,
        graph_depth=graph_depth,
    )


search_cmd = click.Command(
    name="search",
    callback=recall_cmd.callback,
    params=recall_cmd.params,
    help=recall_cmd.help,
    short_help=recall_cmd.short_help,
)


def _show(app: App, text: str, as_json: bool, **options: Any) -> None:
    """Run ``lore.usecases.core.recall`` and print its document, or render it as text."""
    from lore.usecases.core import recall

    result = recall(app.store, text, **options)
    if as_json:
        emit_json(result.doc)
        return
    window = result.doc.get("window") if result.mode in ("search", "graph") else None
    named = result.doc.get("kinds") if result.mode in ("search", "graph") else None
    if window and options.get("explain"):
        from lore.timeexpr import describe

        note(f"time window {describe(window)} (its records rank higher)")
    if named and options.get("explain"):
        from lore.recall.intent import plural

        asked = " and ".join(plural(k) for k in named)
        note(f"the query asks for {asked} (they rank higher; alone, only they are listed)")
    render = {
        "search": lambda: _recall(text, result.hits, bool(options.get("explain")), named),
        "graph": lambda: _render_graph(text, result.hits, result.via, bool(options.get("explain"))),
        "patterns": lambda: _render_patterns(result.doc),
        "failures": lambda: _failures(result.doc),
        "triggers": lambda: _triggers(result.doc),
        "context": lambda: _context(result.doc),
        "brief": lambda: _brief(result.doc),
    }
    render[result.mode]()


def _recall(text: str, found: list[Any], explain: bool, named: list[str] | None) -> None:
    if not found:
        from lore.index.analyze import query_terms
        from lore.timeexpr import in_query

        window, words = in_query(text)
        if named:
            from lore.recall.intent import kinds_in, plural

            if not query_terms(kinds_in(words, named.__contains__)[1]):
                asked = " or ".join(plural(k) for k in named)
                when = f" in {window.text!r}" if window is not None else ""
                note(f"no {asked}{when}")
                return
        if window is not None and not query_terms(words):
            note(
                f"nothing to search for in {text!r} besides the time {window.text!r}"
                " (lore timeline shows what happened when)"
            )
        elif not query_terms(text):
            note(f"nothing to search for: {text!r} holds only stop words or one-letter words")
        else:
            note(f"no matches for {text!r}")
        return
    for hit in found:
        item = hit.to_dict()
        title = hit.title or _title(item)  # paths in it relative to the repository
        head = style(f"{item['type']} {item['id']}", bold=True)
        mark = marker(item)
        echo(f"{item['score']:.2f}  {head}  {title}{'  ' + mark if mark else ''}")
        if hit.stale:
            echo(style(f"      [stale: {', '.join(hit.stale)} changed since]", fg="yellow"))
        if hit.snippet:
            echo(style(f"      {hit.snippet}", dim=True))
        if explain:
            parts = ", ".join(f"{k} {v:.3f}" for k, v in hit.parts.items() if k != "score")
            echo(f"      [{parts}]")


def _render_graph(text: str, found: list[Any], via: dict[str, list[str]], explain: bool) -> None:
    """--deep / --graph-depth: the hits recall found through the knowledge graph."""
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
    _show(app, text, as_json, mode="patterns", project=project, limit=limit)


def _render_patterns(doc: dict[str, Any]) -> None:
    _section("Patterns", doc["patterns"])
    _section("Anti-patterns", doc["anti_patterns"])


def _failures(doc: dict[str, Any]) -> None:
    if not doc["failures"]:
        note("no failures")
        return
    echo("counts: " + ", ".join(f"{k} {v}" for k, v in doc["counts"].items()))
    for item in doc["failures"]:
        when = item["timestamp"][:16].replace("T", " ")
        echo(f"{when}  {item['id']}  {item['error_type']}: {_title(item)}")


def _triggers(doc: dict[str, Any]) -> None:
    if not doc["triggers"]:
        note(f"no error type has {doc['threshold']} or more failures")
        return
    for t in doc["triggers"]:
        pitfall = f" (see {t['pitfall']})" if t.get("pitfall") else ""
        echo(f"{t['error_type']} x{t['count']}  last {t['last_seen'][:10]}")
        echo(f"      {' '.join(str(t['last_message']).split())}{pitfall}")


def _context(doc: dict[str, Any]) -> None:
    echo(f"# {doc['project']}")
    for entry in doc["registry"]:
        echo(" ".join(str(entry.get("description") or "").split()) or "(registered)")
    for name, key in (
        ("Recent decisions", "decisions"),
        ("Patterns", "patterns"),
        ("Recent failures", "failures"),
        ("Active goals", "goals"),
    ):
        _section(name, doc[key])


def _brief(doc: dict[str, Any]) -> None:
    echo(f"# Brief: {doc['topic']}")
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
@limit_option(10, LIMIT_HELP)
@json_option
@pass_app
def context_cmd(app: App, project: str, limit: int, as_json: bool) -> None:
    """Show PROJECT's context: registry entry, decisions, patterns, failures, goals.

    Same as `lore recall --project PROJECT`. With --json: {"project", "registry",
    "decisions", "patterns", "failures", "goals"}, each section a list of records.
    """
    from lore.usecases.core import recall

    doc = recall(app.store, project=project, limit=limit).doc
    if as_json:
        emit_json(doc)
        return
    _context(doc)


@click.command(name="brief")
@click.argument("topic", nargs=-1, required=True)
@click.option("--project", help="Only this project's records.")
@limit_option(10, LIMIT_HELP)
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
    _show(app, _query(topic), as_json, mode="brief", project=project, limit=limit)


@click.command(name="failures")
@click.argument("query", nargs=-1)
@error_type_filter_option("Only failures of this error type.")
@click.option("--project", help="Only this project's failures.")
@click.option("--since", help=SINCE_HELP)
@click.option("--until", help=UNTIL_HELP)
@limit_option(10, LIMIT_HELP)
@json_option
@pass_app
def failures_cmd(
    app: App,
    query: tuple[str, ...],
    error_type: str | None,
    project: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """List failures newest first, with counts per error type.

    Same as `lore recall --failures [QUERY]`: QUERY, if given, keeps the failures
    that match it. With --json: {"type", "counts": {error_type: n}, "failures": [...]}.
    """
    _show(
        app,
        _query(query),
        as_json,
        mode="failures",
        error_type=error_type,
        project=project,
        since=since,
        until=until,
        limit=limit,
    )


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
    _show(app, "", as_json, mode="triggers", threshold=threshold, project=project)


# --- the index ----------------------------------------------------------------------------


@click.group(name="index", invoke_without_command=True)
@click.pass_context
def index_cmd(ctx: click.Context) -> None:
    """Manage the derived search index (it lives outside the data root)."""
    help_when_alone(ctx)


@index_cmd.command(name="rebuild")
@json_option
@pass_app
def index_rebuild_cmd(app: App, as_json: bool) -> None:
    """Rebuild the search index from the data files alone."""
    import time

    from lore.index.persist import index_path, rebuild

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
    from lore.index.persist import status

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
    watcher = "running" if doc["watched"] else "none (each read checks every file)"
    echo(f"watcher: {watcher}")
    for kind, count in doc["kinds"].items():
        echo(f"  {kind}: {count}")
