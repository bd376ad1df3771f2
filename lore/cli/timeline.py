"""``lore timeline``: records by year, month, ISO week and day. Flags and rendering only;
the counting and the digests are ``lore.timeline``'s job."""

from __future__ import annotations

from typing import Any

import click

from lore.cli._app import App
from lore.cli._options import kind_filter_option
from lore.cli._output import echo, emit_json, json_option, note, style

pass_app = click.make_pass_decorator(App)


@click.command(name="timeline")
@click.argument("period", nargs=-1)
@click.option("--project", help="Only this project's records (its own or tagged).")
@click.option(
    "-n",
    "--limit",
    type=int,
    default=None,
    help="A day lists its first N records (default 200; 0: all); counts stay whole.",
)
@kind_filter_option()
@json_option
@pass_app
def timeline_cmd(
    app: App,
    period: tuple[str, ...],
    project: str | None,
    limit: int | None,
    kinds: tuple[str, ...],
    as_json: bool,
) -> None:
    """Count records by year, month, ISO week and day, each period with a digest.

    With no PERIOD, the years; a year (2026) lists its months, a month
    (2026-05, "may 2026", "last month") its ISO weeks, cut to the month so
    their counts add up to it; a week (2026-W19, "this week") its days; a day
    (2026-05-12, today, yesterday) its records with ids, the first 200 unless
    --limit says otherwise (0: all). Every period shows
    its count per kind and a digest: the entities and tags most of its
    records share, and the records that matter most there (decisions with
    their outcome, recurring failures, new patterns, handoffs), each with its
    id. Retracted and superseded records are not counted.

    With --json: {"period", "level", "lists", "since", "until", "project",
    "kinds", "total", "counts", "digest": {"entities", "tags", "highlights"},
    "periods": [{"period", "since", "until", "total", "counts", "digest"}]}
    ("limit" and "records": [...] instead of "periods" for a day).

    \b
    Examples:
      lore timeline
      lore timeline 2026-05 --kind decision
      lore timeline last week --project api
    """
    from lore.clock import parse_timestamp
    from lore.timeline.core import DAY_LIMIT, timeline

    doc = timeline(
        app.store,
        " ".join(period) or None,
        project=project,
        kinds=kinds,
        limit=DAY_LIMIT if limit is None else limit,
    )
    if as_json:
        emit_json(doc)
        return
    title = doc["period"] or "all time"
    echo(f"{title}: {_counts(doc)}")
    _digest(doc["digest"], "  ")
    for item in doc.get("periods", []):
        if not item["total"]:
            continue
        echo(f"{item['period']}: {_counts(item)}")
        _digest(item["digest"], "    ")
    for item in doc.get("records", []):
        when = parse_timestamp(item["timestamp"]).strftime("%H:%M")  # UTC, as the day is
        echo(f"{when}  {item['type']} {item['id']}  {_label(item)}")
    if "records" in doc and len(doc["records"]) < doc["total"]:
        more = doc["total"] - len(doc["records"])
        note(f"{more:,} more record(s) that day: --limit 0 lists them all")
    if not doc["total"]:
        note(f"no records in {title}")


def _counts(item: dict[str, Any]) -> str:
    kinds = ", ".join(f"{kind} {n}" for kind, n in item["counts"].items())
    n = item["total"]
    return f"{n} record{'' if n == 1 else 's'}" + (f" ({kinds})" if kinds else "")


def _label(item: dict[str, Any]) -> str:
    extra = ""
    if item.get("outcome"):
        extra = f" [{item['outcome']}]"
    elif item.get("error_type"):
        count = f" x{item['count']}" if item.get("count") else ""
        extra = f" [{item['error_type']}{count}]"
    return f"{item['title']}{extra}"


def _digest(digest: dict[str, Any], pad: str) -> None:
    for key in ("entities", "tags"):
        if digest[key]:
            names = ", ".join(f"{n['name']} ({n['count']})" for n in digest[key])
            echo(style(f"{pad}{key}: {names}", dim=True))
    for item in digest["highlights"]:
        echo(f"{pad}- {item['why']}: {item['id']}  {_label(item)}")
