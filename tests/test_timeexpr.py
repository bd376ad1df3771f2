"""``lore.timeexpr``: the one parser of time expressions (recall's --since/--until, the time
words inside a query, the timeline's periods), table-driven."""

from __future__ import annotations

import itertools
import json
from datetime import datetime, timezone
from typing import Any

import pytest

from lore import timeexpr
from lore.errors import UsageError


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(timezone.utc)


def window(text: str, now: str) -> tuple[str | None, str | None]:
    found = timeexpr.parse(text, now=at(now)).to_dict()
    return found["since"], found["until"]


MID_MAY = "2026-05-14T10:00:00Z"  # a Thursday of ISO week 2026-W20


@pytest.mark.parametrize(
    ("text", "now", "since", "until"),
    [
        # ISO dates, date-times, months, years
        ("2026-05-12", MID_MAY, "2026-05-12T00:00:00Z", "2026-05-13T00:00:00Z"),
        ("2026-12-31", MID_MAY, "2026-12-31T00:00:00Z", "2027-01-01T00:00:00Z"),
        ("2026-05-12T14:30:00Z", MID_MAY, "2026-05-12T14:30:00Z", None),
        ("2026-05", MID_MAY, "2026-05-01T00:00:00Z", "2026-06-01T00:00:00Z"),
        ("2026-12", MID_MAY, "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"),
        ("2024-02", MID_MAY, "2024-02-01T00:00:00Z", "2024-03-01T00:00:00Z"),
        ("2026", MID_MAY, "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"),
        # ISO weeks, including weeks that straddle two years
        ("2026-W19", MID_MAY, "2026-05-04T00:00:00Z", "2026-05-11T00:00:00Z"),
        ("2026-w01", MID_MAY, "2025-12-29T00:00:00Z", "2026-01-05T00:00:00Z"),
        ("2020-W53", MID_MAY, "2020-12-28T00:00:00Z", "2021-01-04T00:00:00Z"),
        ("2021-W01", MID_MAY, "2021-01-04T00:00:00Z", "2021-01-11T00:00:00Z"),
        ("2027-W01", MID_MAY, "2027-01-04T00:00:00Z", "2027-01-11T00:00:00Z"),
        # ages, back from now
        ("12h", MID_MAY, "2026-05-13T22:00:00Z", MID_MAY),
        ("7d", MID_MAY, "2026-05-07T10:00:00Z", MID_MAY),
        ("2w", MID_MAY, "2026-04-30T10:00:00Z", MID_MAY),
        ("3m", MID_MAY, "2026-02-14T10:00:00Z", MID_MAY),
        ("3m", "2026-05-31T00:00:00Z", "2026-02-28T00:00:00Z", "2026-05-31T00:00:00Z"),
        ("1y", "2024-02-29T00:00:00Z", "2023-02-28T00:00:00Z", "2024-02-29T00:00:00Z"),
        ("last 7 days", MID_MAY, "2026-05-07T10:00:00Z", MID_MAY),
        # words
        ("today", MID_MAY, "2026-05-14T00:00:00Z", "2026-05-15T00:00:00Z"),
        ("yesterday", MID_MAY, "2026-05-13T00:00:00Z", "2026-05-14T00:00:00Z"),
        ("yesterday", "2026-01-01T08:00:00Z", "2025-12-31T00:00:00Z", "2026-01-01T00:00:00Z"),
        ("this week", MID_MAY, "2026-05-11T00:00:00Z", "2026-05-18T00:00:00Z"),
        ("last week", MID_MAY, "2026-05-04T00:00:00Z", "2026-05-11T00:00:00Z"),
        ("last week", "2026-01-02T00:00:00Z", "2025-12-22T00:00:00Z", "2025-12-29T00:00:00Z"),
        ("this month", MID_MAY, "2026-05-01T00:00:00Z", "2026-06-01T00:00:00Z"),
        ("last month", MID_MAY, "2026-04-01T00:00:00Z", "2026-05-01T00:00:00Z"),
        ("last month", "2026-01-15T00:00:00Z", "2025-12-01T00:00:00Z", "2026-01-01T00:00:00Z"),
        ("last month", "2026-03-31T00:00:00Z", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"),
        ("last year", MID_MAY, "2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"),
        # month names: the latest such month that is not in the future
        ("may", MID_MAY, "2026-05-01T00:00:00Z", "2026-06-01T00:00:00Z"),
        ("December", MID_MAY, "2025-12-01T00:00:00Z", "2026-01-01T00:00:00Z"),
        ("sept", MID_MAY, "2025-09-01T00:00:00Z", "2025-10-01T00:00:00Z"),
        ("May 2026", MID_MAY, "2026-05-01T00:00:00Z", "2026-06-01T00:00:00Z"),
        ("12 may 2026", MID_MAY, "2026-05-12T00:00:00Z", "2026-05-13T00:00:00Z"),
        ("May 12, 2026", MID_MAY, "2026-05-12T00:00:00Z", "2026-05-13T00:00:00Z"),
    ],
)
def test_forms(text: str, now: str, since: str, until: str | None) -> None:
    assert window(text, now) == (since, until)


@pytest.mark.parametrize(
    "text", ["the day after the meeting", "2026-13", "2026-00", "2026-W54", "2026-W00", "soon", ""]
)
def test_an_unreadable_time_lists_the_forms(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        timeexpr.parse(text, flag="--since")
    assert str(caught.value).startswith(f"--since {text!r}: not a time lore can read; use ")
    assert timeexpr.FORMS in str(caught.value)
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(
    ("text", "since", "until"),
    [
        ("2026-05", "2026-05-01T00:00:00Z", "2026-06-01T00:00:00Z"),  # until: the end of May
        ("7d", "2026-05-07T10:00:00Z", "2026-05-07T10:00:00Z"),  # until 7d: older than 7 days
        ("2026-05-12T14:30:00Z", "2026-05-12T14:30:00Z", "2026-05-12T14:30:00Z"),
        ("last week", "2026-05-04T00:00:00Z", "2026-05-11T00:00:00Z"),
    ],
)
def test_since_and_until_bounds(text: str, since: str, until: str) -> None:
    now = at(MID_MAY)
    assert timeexpr.since(text, now=now) == at(since).timestamp()
    assert timeexpr.until(text, now=now) == at(until).timestamp()
    assert timeexpr.since(None) is None and timeexpr.until("  ") is None


def test_lore_now_is_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", "2026-01-01T08:00:00Z")
    assert timeexpr.parse("yesterday").to_dict()["since"] == "2025-12-31T00:00:00Z"


@pytest.mark.parametrize(
    ("query", "text", "since", "until", "rest"),
    [
        (
            "what did we decide last week about caching",
            "last week",
            "2026-05-04T00:00:00Z",
            "2026-05-11T00:00:00Z",
            "what did we decide about caching",
        ),
        (
            "deploys in May 2026",
            "in May 2026",
            "2026-05-01T00:00:00Z",
            "2026-06-01T00:00:00Z",
            "deploys",
        ),
        ("errors since 2026-W19", "since 2026-W19", "2026-05-04T00:00:00Z", None, "errors"),
        (
            "what we tried before 2026-05",
            "before 2026-05",
            None,
            "2026-05-01T00:00:00Z",
            "what we tried",
        ),
        ("redis after 2026-05-12", "after 2026-05-12", "2026-05-13T00:00:00Z", None, "redis"),
        ("shipped by 2026-05", "by 2026-05", None, "2026-06-01T00:00:00Z", "shipped"),
        ("cache till may", "till may", None, "2026-06-01T00:00:00Z", "cache"),
        (
            "outages during 2025",
            "during 2025",
            "2025-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z",
            "outages",
        ),
        (
            "cache yesterday?",
            "yesterday",
            "2026-05-13T00:00:00Z",
            "2026-05-14T00:00:00Z",
            "cache ?",
        ),
    ],
)
def test_a_time_inside_a_query(
    query: str, text: str, since: str | None, until: str | None, rest: str
) -> None:
    found, words = timeexpr.in_query(query, now=at(MID_MAY))
    assert found is not None
    assert (found.text, found.to_dict()["since"], found.to_dict()["until"]) == (text, since, until)
    assert words == rest


@pytest.mark.parametrize(
    "query",
    [
        "what may we cache",  # "may" the verb
        "march the migration forward",
        "handle over 2000 requests",  # a number, not a year
        "why 2026 planning",  # a bare year needs "in", "during", "since", ...
        "done by may",  # "by" shapes a window but does not make a bare month name a time
        "the day after the meeting",
    ],
)
def test_words_that_only_look_like_times_stay_words(query: str) -> None:
    assert timeexpr.in_query(query, now=at(MID_MAY)) == (None, query)


@pytest.mark.parametrize(
    ("text", "level", "label", "children"),
    [
        ("2026", "year", "2026", 12),
        ("2026-05", "month", "2026-05", 5),  # W18 (cut to May 1-3) .. W22
        ("last month", "month", "2026-04", 5),
        ("2026-W19", "week", "2026-W19", 7),
        ("2026-w01", "week", "2026-W01", 7),
        ("2026-05-12", "day", "2026-05-12", 0),
        ("yesterday", "day", "2026-05-13", 0),
    ],
)
def test_timeline_periods(text: str, level: str, label: str, children: int) -> None:
    span = timeexpr.period(text, now=at(MID_MAY))
    assert (span.level, span.label) == (level, label)
    parts = timeexpr.children(span)
    assert len(parts) == children
    if parts:  # the parts tile the period exactly
        assert parts[0].start == span.start and parts[-1].end == span.end
        assert all(a.end == b.start for a, b in itertools.pairwise(parts))


def test_a_month_lists_its_weeks_cut_to_the_month() -> None:
    span = timeexpr.period("2026-01")
    assert [(p.label, p.start.day, p.end.day) for p in timeexpr.children(span)] == [
        ("2026-W01", 1, 5),  # ISO week 1 of 2026 began on 2025-12-29
        ("2026-W02", 5, 12),
        ("2026-W03", 12, 19),
        ("2026-W04", 19, 26),
        ("2026-W05", 26, 1),
    ]


@pytest.mark.parametrize("text", ["7d", "last 7 days", "2026-05-12T10:00Z", "soon", "2026-13"])
def test_a_timeline_period_is_a_calendar_period(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        timeexpr.period(text)
    assert timeexpr.TIMELINE_FORMS in str(caught.value)


def test_lore_now_is_canonical_and_checked(run: Any) -> None:
    """§2: LORE_NOW is rewritten to the canonical form; a value that is not a time is exit 2."""
    made = run("observe", "the clock is frozen", "--json", env={"LORE_NOW": "2026-05-20"})
    assert made.exit_code == 0
    assert json.loads(made.stdout)["timestamp"] == "2026-05-20T00:00:00.000000Z"
    bad = run("timeline", "today", env={"LORE_NOW": "soon"})
    assert (bad.exit_code, bad.stdout) == (2, "")
    assert bad.stderr == (
        "lore: error: LORE_NOW='soon' is not an ISO-8601 time (e.g. 2026-01-02T03:04:05Z)\n"
    )
