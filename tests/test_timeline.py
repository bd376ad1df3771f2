"""``lore timeline``: counts per kind by year, month, ISO week and day that add up level by
level, the digest of each period, filters, errors and the answer kept beside the index."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.store.core import Store

Run = Callable[..., Result]
NOW = "2026-02-10T12:00:00Z"
RECORDS = [
    # 2025-12-30 (a Tuesday) is in ISO week 2026-W01, which straddles the two years
    {"kind": "decision", "id": "dec-a", "timestamp": "2025-12-30T09:00:00Z",
     "decision": "Adopt Redis for the session cache", "outcome": "successful",
     "entities": ["redis"], "tags": ["infra"], "project": "api"},
    {"kind": "failure", "id": "fail-a", "timestamp": "2025-12-30T10:00:00Z",
     "error_type": "Timeout", "error_message": "redis timed out", "tags": ["infra"],
     "project": "api"},
    {"kind": "observation", "id": "obs-a", "timestamp": "2025-11-02T10:00:00Z",
     "content": "Latency doubles at noon", "project": "web"},
    {"kind": "failure", "id": "fail-b", "timestamp": "2026-01-02T08:00:00Z",
     "error_type": "Timeout", "error_message": "redis timed out again", "tags": ["infra"],
     "project": "api"},
    {"kind": "failure", "id": "fail-c", "timestamp": "2026-01-02T09:00:00Z",
     "error_type": "Timeout", "error_message": "redis timed out a third time",
     "tags": ["infra"], "project": "api"},
    {"kind": "decision", "id": "dec-b", "timestamp": "2026-01-02T11:00:00Z",
     "decision": "Drop memcached", "outcome": "abandoned", "entities": ["redis", "memcached"],
     "project": "api"},
    {"kind": "pattern", "id": "pat-a", "timestamp": "2026-01-20T11:00:00Z",
     "name": "Retry with jitter", "solution": "back off", "confidence": 0.8, "project": "api"},
    {"kind": "decision", "id": "dec-c", "timestamp": "2026-02-01T11:00:00Z",
     "decision": "Pin the Redis client", "outcome": "pending", "entities": ["redis"],
     "project": "web"},
    {"kind": "decision", "id": "dec-x", "timestamp": "2026-02-02T11:00:00Z",
     "decision": "Retracted soon", "project": "web"},
]  # fmt: skip


@pytest.fixture
def loaded(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    feed = "".join(json.dumps(r) + "\n" for r in RECORDS)
    assert run("import", "-", input=feed).exit_code == 0
    assert run("retract", "dec-x").exit_code == 0


def doc(run: Run, *args: str) -> Any:
    result = run("timeline", *args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_counts_add_up_level_by_level(run: Run, loaded: None) -> None:
    top = doc(run)
    assert (top["level"], top["lists"], top["total"]) == ("all", "years", 8)  # dec-x retracted
    assert top["counts"] == {"decision": 3, "pattern": 1, "failure": 3, "observation": 1}
    assert [(y["period"], y["total"]) for y in top["periods"]] == [("2025", 3), ("2026", 5)]
    checked = Counter[str]()

    def adds_up(node: dict[str, Any]) -> None:
        parts = node.get("periods")
        if parts is None:  # a day: its records
            assert len(node["records"]) == node["total"]
            assert Counter(r["type"] for r in node["records"]) == node["counts"]
            checked["day"] += 1
            return
        assert sum(p["total"] for p in parts) == node["total"]
        assert sum((Counter(p["counts"]) for p in parts), Counter()) == node["counts"]
        checked[node["level"]] += 1
        for part in parts:
            if part["total"]:
                child = doc(run, part["period"])
                if node["level"] == "month":  # a week cut to the month: the full week's days
                    days = [
                        d for d in child["periods"] if node["since"] <= d["since"] < node["until"]
                    ]
                    assert sum(d["total"] for d in days) == part["total"]
                else:
                    assert child["total"] == part["total"]
                    assert child["counts"] == part["counts"]
                adds_up(child)

    adds_up(top)
    assert checked == {"all": 1, "year": 2, "month": 4, "week": 5, "day": 7}


def test_a_week_that_straddles_two_years(run: Run, loaded: None) -> None:
    week = doc(run, "2026-W01")
    assert (week["since"], week["until"]) == ("2025-12-29T00:00:00Z", "2026-01-05T00:00:00Z")
    assert [(d["period"], d["total"]) for d in week["periods"] if d["total"]] == [
        ("2025-12-30", 2),
        ("2026-01-02", 3),
    ]
    december = doc(run, "2025-12")
    assert [(w["period"], w["since"][:10], w["total"]) for w in december["periods"]][-1] == (
        "2026-W01",
        "2025-12-29",
        2,  # only December's part of the week
    )


def test_a_day_lists_its_records_and_digest(run: Run, loaded: None) -> None:
    day = doc(run, "2026-01-02")
    assert (day["level"], day["lists"], day["total"]) == ("day", "records", 3)
    assert [(r["id"], r["type"], r["title"]) for r in day["records"]] == [
        ("fail-b", "failure", "redis timed out again"),
        ("fail-c", "failure", "redis timed out a third time"),
        ("dec-b", "decision", "Drop memcached"),
    ]
    assert day["digest"] == {
        "entities": [],  # one record mentions them: not a topic
        "tags": [{"name": "infra", "count": 2}],
        "highlights": [
            {"id": "dec-b", "type": "decision", "why": "decision",
             "timestamp": "2026-01-02T11:00:00.000000Z", "title": "Drop memcached",
             "outcome": "abandoned"},
            {"id": "fail-c", "type": "failure", "why": "recurring failure",
             "timestamp": "2026-01-02T09:00:00.000000Z", "title": "redis timed out a third time",
             "error_type": "Timeout", "count": 2},
        ],
    }  # fmt: skip


def test_a_day_lists_its_first_records_up_to_the_limit(run: Run, loaded: None) -> None:
    """A day of an import can hold tens of thousands of records: it lists the first 200
    unless --limit says otherwise; its counts and digest stay whole."""
    whole = doc(run, "2026-01-02")
    assert whole["limit"] == 200
    cut = doc(run, "2026-01-02", "--limit", "2")
    assert cut["limit"] == 2 and cut["records"] == whole["records"][:2]
    assert (cut["total"], cut["counts"], cut["digest"]) == (
        whole["total"], whole["counts"], whole["digest"]
    )  # fmt: skip
    assert doc(run, "2026-01-02", "-n", "0")["records"] == whole["records"]
    text = run("timeline", "2026-01-02", "-n", "2")
    assert text.exit_code == 0
    assert "  failure fail-b  " in text.stdout and "  failure fail-c  " in text.stdout
    assert "  decision dec-b  " not in text.stdout  # the third record of the day: cut
    assert text.stderr == "lore: 1 more record(s) that day: --limit 0 lists them all\n"
    bad = run("timeline", "2026-01-02", "--limit", "-1")
    assert (bad.exit_code, bad.stderr) == (
        2,
        "lore: error: --limit must be 0 (all) or more, not -1\n",
    )


def test_the_digest_of_a_year_and_of_all_time(run: Run, loaded: None) -> None:
    year = doc(run, "2026")
    assert year["digest"]["entities"] == [{"name": "redis", "count": 2}]
    whys = [(h["why"], h["id"]) for h in year["digest"]["highlights"]]
    assert whys == [
        ("decision", "dec-c"),  # pending (0.6) weighs more than abandoned (0.1)
        ("decision", "dec-b"),
        ("recurring failure", "fail-c"),
        ("new pattern", "pat-a"),
    ]
    top = doc(run)
    assert top["digest"]["entities"] == [{"name": "redis", "count": 3}]
    assert top["digest"]["tags"] == [  # import tags a record with its project when untagged
        {"name": "infra", "count": 4},
        {"name": "api", "count": 2},
        {"name": "web", "count": 2},
    ]
    assert [h["count"] for h in top["digest"]["highlights"] if "count" in h] == [3]


def test_filters(run: Run, loaded: None) -> None:
    assert doc(run, "--kind", "decisions")["counts"] == {"decision": 3}
    web = doc(run, "--project", "web")
    assert (web["project"], web["total"], web["counts"]) == (
        "web",
        2,
        {"decision": 1, "observation": 1},
    )
    assert doc(run, "2024")["total"] == 0


def test_text_output(run: Run, loaded: None) -> None:
    result = run("timeline", "2026-01-02")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "2026-01-02: 3 records (decision 1, failure 2)",
        "  tags: infra (2)",
        "  - decision: dec-b  Drop memcached [abandoned]",
        "  - recurring failure: fail-c  redis timed out a third time [Timeout x2]",
        "08:00  failure fail-b  redis timed out again [Timeout]",
        "09:00  failure fail-c  redis timed out a third time [Timeout]",
        "11:00  decision dec-b  Drop memcached [abandoned]",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("7d",), "timeline '7d': not a period lore can read"),
        (("2026-13",), "timeline '2026-13'"),
        (("--kind", "edge"), "timeline does not count edges; it counts decision, pattern"),
        (("last", "fortnight"), "timeline 'last fortnight': not a period lore can read"),
    ],
)
def test_usage_errors(run: Run, args: tuple[str, ...], message: str) -> None:
    result = run("timeline", *args)
    assert (result.exit_code, result.stdout) == (2, "")
    assert message in result.stderr


def test_a_period_of_several_words_needs_no_quotes(run: Run, loaded: None) -> None:
    # as the help's example writes it: lore timeline last week --project api
    assert doc(run, "last", "month", "--project", "api") == doc(run, "2026-01", "--project", "api")
    assert doc(run, "dec", "30", "2025")["records"] == doc(run, "2025-12-30")["records"]
    assert doc(run, "this", "week")["period"] == "2026-W07"


def test_a_day_shows_hand_written_times_in_utc(run: Run, data_dir: Path) -> None:
    # hand-written files may use an offset or a date alone (§2); a day is a UTC day
    feed = "".join(
        json.dumps({"kind": "observation", "content": text, "timestamp": NOW}) + "\n"
        for text in ("kafka lag at midnight", "kafka lag all day")
    )
    assert run("import", "-", input=feed).exit_code == 0
    path = data_dir / "inbox" / "data" / "observations.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[0]["timestamp"], lines[1]["timestamp"] = "2026-01-01T00:30:00+02:00", "2025-12-31"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run("timeline", "2025-12-31")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-2:] == [
        f"00:00  observation {lines[1]['id']}  kafka lag all day",
        f"22:30  observation {lines[0]['id']}  kafka lag at midnight",
    ]
    assert doc(run, "2026-01-01")["total"] == 0


def test_a_new_record_is_counted_at_once(run: Run, loaded: None) -> None:
    assert doc(run, "2026-02")["total"] == 1
    assert doc(run, "2026-02")["total"] == 1  # the kept answer
    result = run("observe", "Cache hit rate fell", env={"LORE_NOW": "2026-02-05T10:00:00Z"})
    assert result.exit_code == 0
    assert doc(run, "2026-02")["counts"] == {"decision": 1, "observation": 1}


@pytest.mark.usefixtures("empty_root")
def test_an_empty_root_and_a_single_year(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = doc(run)
    assert (empty["total"], empty["counts"], empty["periods"]) == (0, {}, [])
    assert empty["digest"] == {"entities": [], "tags": [], "highlights": []}
    result = run("timeline")
    assert (result.exit_code, result.stdout) == (0, "all time: 0 records\n")
    assert result.stderr == "lore: no records in all time\n"
    monkeypatch.setenv("LORE_NOW", NOW)
    assert run("observe", "Only one year here").exit_code == 0
    top = doc(run)
    assert [(y["period"], y["total"]) for y in top["periods"]] == [("2026", 1)]
    assert (top["total"], top["counts"]) == (1, {"observation": 1})


def test_random_counts_add_up_over_three_years(
    run: Run, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seeded random store over three years (with records on the instants around year,
    month and ISO-week boundaries): at every level each period's counts are its records'
    (counted from the import file) and the sum of the periods it lists."""
    import random
    from datetime import datetime, timedelta, timezone

    from lore.timeline.core import timeline

    monkeypatch.setenv("LORE_NOW", "2026-05-20T12:00:00Z")
    rng = random.Random(12)
    start = datetime(2023, 6, 1, tzinfo=timezone.utc)
    edges = ["2024-12-29T23:59:59Z", "2024-12-30T00:00:00Z", "2025-12-31T23:59:59Z",
             "2026-01-01T00:00:00Z", "2026-01-04T23:59:59Z", "2026-04-30T23:59:59Z"]  # fmt: skip
    lines, times = [], []
    for i in range(400):
        when = start + timedelta(seconds=rng.random() * 3 * 365 * 86400)
        stamp = edges[i] if i < len(edges) else when.strftime("%Y-%m-%dT%H:%M:%SZ")
        kind = rng.choice(["decision", "failure", "observation"])
        text = {"decision": "decision", "failure": "error_message", "observation": "content"}
        rec = {"kind": kind, "timestamp": stamp, text[kind]: f"item {i} about topic {i % 7}"}
        if kind == "failure":
            rec["error_type"] = rng.choice(["Timeout", "KeyError"])
        lines.append(json.dumps(rec) + "\n")
        times.append((datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp(), kind))
    assert run("import", "--force", "-", input="".join(lines)).exit_code == 0

    def expected(since: str | None, until: str | None) -> dict[str, int]:
        low = datetime.fromisoformat(since.replace("Z", "+00:00")).timestamp() if since else 0
        high = datetime.fromisoformat(until.replace("Z", "+00:00")).timestamp() if until else 1e12
        return dict(Counter(k for t, k in times if low <= t < high))

    walked: Counter[str] = Counter()

    def walk(period: str | None) -> None:
        found = timeline(store, period)
        walked[found["level"]] += 1
        assert found["counts"] == expected(found["since"], found["until"]), period
        assert found["total"] == sum(found["counts"].values())
        if found["level"] == "day":
            assert Counter(r["type"] for r in found["records"]) == found["counts"]
            return
        parts = found["periods"]
        assert sum((Counter(p["counts"]) for p in parts), Counter()) == found["counts"], period
        for part in parts:
            if part["total"]:
                walk(part["period"])

    walk(None)
    assert walked["year"] == 4 and walked["month"] == 36 and walked["day"] > 300


def test_one_record_is_counted_in_the_singular(run: Any) -> None:
    assert run("observe", "just one thing").exit_code == 0
    shown = run("timeline")
    assert shown.exit_code == 0
    assert shown.stdout.splitlines()[0] == "all time: 1 record (observation 1)"


def test_all_time_over_more_than_254_years_counts_every_record(run: Any) -> None:
    """Hundreds of parts (a hand-written year 1971 beside 2300) take the dict path."""
    lines = [
        {"kind": "observation", "content": f"note {i}", "tags": ["old"], "timestamp": ts}
        for i, ts in enumerate(
            ["1971-03-01T00:00:00Z", "1971-04-01T00:00:00Z", "2300-01-05T00:00:00Z"]
        )
    ]
    jsonl = "".join(json.dumps(line) + "\n" for line in lines)
    assert run("import", "-", input=jsonl).exit_code == 0
    doc = json.loads(run("timeline", "--json").stdout)
    assert doc["total"] == 3
    years = {p["period"]: p["total"] for p in doc["periods"] if p["total"]}
    assert years == {"1971": 2, "2300": 1}
    assert len(doc["periods"]) == 2300 - 1971 + 1
    assert doc["digest"]["tags"] == [{"name": "old", "count": 3}]
    old = next(p for p in doc["periods"] if p["period"] == "1971")
    assert old["digest"]["tags"] == [{"name": "old", "count": 2}]


def test_a_long_lived_process_sees_new_records(run: Run, data_dir: Path) -> None:
    """A server keeps its index in memory (``Store.kept``) and saves it only when it
    exits: the answers kept beside the index file must not outlive the index's changes."""
    from lore.index.watch import folders
    from lore.storage.watch import Watcher
    from lore.timeline.core import timeline

    assert run("remember", "use postgres for the queue", "-q").exit_code == 0
    server = Store(data_dir)
    server.kept = {"watch": Watcher(folders(server))}
    try:
        assert timeline(server)["total"] == 1
        assert run("remember", "we chose redis for caching", "-q").exit_code == 0
        assert timeline(server)["total"] == 2
        assert run("remember", "kafka carries the audit events", "-q").exit_code == 0
        assert timeline(server)["total"] == 3
        # a one-shot command after the server's changes still sees everything
        assert json.loads(run("timeline", "--json").stdout)["total"] == 3
    finally:
        server.kept["watch"].close()
