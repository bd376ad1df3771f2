"""Questions name kinds and times: "what failed yesterday", "what broke yesterday",
"decisions in november", "what did we decide about postgres". A kind named narrows a
question that says nothing else and boosts one that does; relative times are read,
calendar words lore cannot know ("last sprint") are not."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

from lore.timeexpr import in_query, parse, period
from tests.cli.test_session_answers import WORDS

Run = Callable[..., Result]
NOW = "2026-01-15T09:00:00Z"  # a Thursday


def ok(run: Run, *args: str, at: str | None = None) -> str:
    result = run(*args, env={"LORE_NOW": at} if at else None)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def ids(run: Run, *query: str) -> list[str]:
    found = json.loads(ok(run, "recall", *query, "--json"))
    return [r["id"] for r in found["results"]]


@pytest.fixture
def store(run: Run, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Ten November decisions, a November failure whose text says "decisions", a
    decision ten days old that says "broke", and yesterday's failure."""
    november = [
        ok(run, "remember", f"Choose to {WORDS[n]}", "-q", at=f"2025-11-{n + 1:02d}T10:00:00Z")
        for n in range(1, 11)
    ]
    old_failure = ok(
        run, "fail", "Timeout", "the decisions review timed out", "-q", at="2025-11-20T10:00:00Z"
    )
    broke = ok(
        run, "remember", "Rewrite the parser: the old one broke on unicode", "-q",
        at="2026-01-05T10:00:00Z",
    )  # fmt: skip
    failure = ok(
        run, "fail", "ConnectionRefused", "postgres refused the migration", "-q",
        at="2026-01-14T15:00:00Z",
    )  # fmt: skip
    monkeypatch.setenv("LORE_NOW", NOW)
    return {
        "november": [i.strip() for i in november],
        "old_failure": old_failure.strip(),
        "broke": broke.strip(),
        "failure": failure.strip(),
    }


def test_what_failed_or_broke_yesterday_is_yesterdays_failure(
    run: Run, store: dict[str, Any]
) -> None:
    assert ids(run, "what", "failed", "yesterday") == [store["failure"]]
    # "broke" asks for failures: the decision that says "broke" is not one.
    assert ids(run, "what", "broke", "yesterday") == [store["failure"]]
    doc = json.loads(ok(run, "recall", "what broke yesterday", "--json", "--explain"))
    assert doc["kinds"] == ["failure"]
    assert doc["window"] == {
        "text": "yesterday",
        "since": "2026-01-14T00:00:00Z",
        "until": "2026-01-15T00:00:00Z",
    }
    assert doc["results"][0]["explain"]["kind"] == 1.0
    said = run("recall", "what failed yesterday", "--explain").stderr
    assert (
        "lore: the query asks for failures (they rank higher; alone, only they are listed)" in said
    )
    # Nothing failed the day before: said so, not "no matches".
    empty = run("recall", "what", "failed", "2", "days", "ago")
    assert (empty.exit_code, empty.stdout) == (0, "")
    assert empty.stderr == "lore: no failures in '2 days ago'\n"


def test_decisions_in_november_lists_the_decisions(run: Run, store: dict[str, Any]) -> None:
    found = ids(run, "decisions", "in", "november")
    assert set(found) == set(store["november"])  # not the failure that says "decisions"
    assert ids(run, "decisions", "in", "november", "--limit", "3") == found[:3]
    assert ids(run, "what", "did", "we", "decide", "in", "november") == found


def test_a_named_kind_boosts_a_question_with_other_words(run: Run, store: dict[str, Any]) -> None:
    postgres = store["november"][0]  # "Choose to use postgres for orders"
    # Each kind named comes first when both kinds match the other words.
    assert ids(run, "what", "did", "we", "decide", "about", "postgres") == [
        postgres,
        store["failure"],
    ]
    assert ids(run, "what", "failed", "with", "postgres") == [store["failure"], postgres]
    # An explicit --kind keeps the kind words it covers out of the text too.
    assert ids(run, "--kind", "failure", "what", "failed", "yesterday") == [store["failure"]]


def test_a_kind_the_store_does_not_hold_stays_a_word(run: Run) -> None:
    said = ok(run, "observe", "she decided to move to Berlin", "-q").strip()
    ok(run, "observe", "the weather in Berlin was fine", "-q")
    assert ids(run, "why", "did", "she", "decide", "to", "move")[0] == said
    assert json.loads(ok(run, "recall", "decided", "--json"))["kinds"] == []


@pytest.mark.parametrize(
    ("text", "since", "until"),
    [
        ("2 days ago", "2026-01-13T00:00:00Z", "2026-01-14T00:00:00Z"),
        ("a week ago", "2026-01-05T00:00:00Z", "2026-01-12T00:00:00Z"),
        ("3 months ago", "2025-10-01T00:00:00Z", "2025-11-01T00:00:00Z"),
        ("a year ago", "2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"),
        ("monday", "2026-01-12T00:00:00Z", "2026-01-13T00:00:00Z"),
        ("on monday", "2026-01-12T00:00:00Z", "2026-01-13T00:00:00Z"),
        ("thursday", "2026-01-15T00:00:00Z", "2026-01-16T00:00:00Z"),
        ("last thursday", "2026-01-08T00:00:00Z", "2026-01-09T00:00:00Z"),
        ("this morning", "2026-01-15T00:00:00Z", "2026-01-15T12:00:00Z"),
        ("this afternoon", "2026-01-15T12:00:00Z", "2026-01-15T18:00:00Z"),
        ("yesterday evening", "2026-01-14T18:00:00Z", "2026-01-15T00:00:00Z"),
        ("last night", "2026-01-14T18:00:00Z", "2026-01-15T06:00:00Z"),
        ("tonight", "2026-01-15T18:00:00Z", "2026-01-16T00:00:00Z"),
    ],
)
def test_relative_phrases(
    monkeypatch: pytest.MonkeyPatch, text: str, since: str, until: str
) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    window, rest = in_query(f"what broke {text} in the api")
    assert window is not None and (window.to_dict()["since"], window.to_dict()["until"]) == (
        since,
        until,
    )
    assert rest == "what broke in the api"
    assert parse(text.removeprefix("on ")).to_dict()["since"] == since  # --since reads it too


def test_calendar_words_lore_cannot_know_are_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    for text in ("what broke last sprint", "after the meeting", "before the release"):
        assert in_query(text) == (None, text)
    assert period("monday").label == "2026-01-12"  # a weekday is a day for the timeline


def test_since_takes_the_new_phrases(run: Run, store: dict[str, Any]) -> None:
    assert ids(run, "postgres", "--since", "2 days ago") == [store["failure"]]
    assert ids(run, "postgres", "--since", "this morning") == []
    bad = run("recall", "postgres", "--since", "last sprint")
    assert bad.exit_code == 2 and "2 days ago" in bad.stderr


def test_a_dated_time_wins_over_a_relative_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    # "last friday" counts back from the date the question gives, not from now.
    window, rest = in_query("what did we ship last friday, on 23 January 2025")
    assert window is not None and window.to_dict() == {
        "text": "on 23 January 2025",
        "since": "2025-01-23T00:00:00Z",
        "until": "2025-01-24T00:00:00Z",
    }
    assert rest == "what did we ship last friday,"
    window, _ = in_query("what broke on monday and tuesday")
    assert window is not None and window.text == "on monday"  # no date: the first
