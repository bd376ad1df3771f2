"""What a session captured answers ``journal list --session``; resume's pending-review
section says its true count and does not list the recent decisions a second time."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]
# Distinct enough that no two decisions are near-duplicates.
WORDS = (
    "",
    "use postgres for orders",
    "cache carts in redis",
    "ship invoices as pdf",
    "queue emails with celery",
    "log json to stdout",
    "pin every dependency",
    "run migrations on deploy",
    "sign webhook payloads",
    "keep secrets in vault",
    "split the monolith by billing",
    "serve images from a cdn",
    "rate limit the public api",
    "trace requests with opentelemetry",
    "store uploads in s3",
    "page on call through pagerduty",
    "test contracts with pact",
    "build containers with buildkit",
)


def ok(run: Run, *args: str, env: dict[str, str] | None = None) -> Result:
    result = run(*args, env=env)
    assert result.exit_code == 0, result.stderr
    return result


def ok_json(run: Run, *args: str, env: dict[str, str] | None = None) -> Any:
    return json.loads(ok(run, *args, "--json", env=env).stdout)


def test_journal_list_session_uses_what_the_session_captured(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_NOW", "2026-03-10T12:00:00Z")
    before = ok(run, "remember", "Use Postgres for orders", "-q").stdout.strip()
    ok(run, "handoff", "first session")
    monkeypatch.setenv("LORE_NOW", "2026-03-11T12:00:00Z")
    # No fork: these are stored with session_id null, and the handoff names them.
    first = ok(run, "remember", "Use Redis for the cart", "-q").stdout.strip()
    monkeypatch.setenv("LORE_NOW", "2026-03-11T13:00:00Z")
    second = ok(run, "remember", "Keep invoices immutable", "-q").stdout.strip()
    ok(run, "fail", "Timeout", "the cart test hung")
    session = ok_json(run, "handoff", "second session")["id"]
    stored = [
        (d["id"], d["session_id"]) for d in ok_json(run, "journal", "list") if d["id"] != before
    ]
    assert stored == [(second, None), (first, None)]
    shown = ok_json(run, "sessions", "show", session)
    assert shown["captured"]["decision"] == [first, second]
    found = ok_json(run, "journal", "list", "--session", session)
    assert [d["id"] for d in found] == [second, first]
    text = ok(run, "journal", "list", "--session", session).stdout
    assert first in text and second in text and before not in text
    # A session id no record names still filters by session_id (nothing here).
    assert ok_json(run, "journal", "list", "--session", "session-0123456789ab") == []


def test_resume_pending_review_true_count_and_no_repeats(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = []
    for day in range(1, 7):  # six pending decisions, all older than three days
        monkeypatch.setenv("LORE_NOW", f"2026-03-0{day}T10:00:00Z")
        made = ok(run, "remember", f"Decision {WORDS[day]}", "-q")
        ids.append(made.stdout.strip())
    monkeypatch.setenv("LORE_NOW", "2026-03-20T10:00:00Z")
    doc = ok_json(run, "resume")
    assert doc["pending_review_count"] == 6
    assert {d["id"] for d in doc["recent_decisions"]} == set(ids)
    assert all(d["review_due"] for d in doc["recent_decisions"])
    text = ok(run, "resume").stdout.splitlines()
    head = text.index("## Decisions pending review (6)")
    # Not one of them is listed a second time: the section says where they are.
    assert text[head + 1 :] == ["- all 6 are listed under Recent decisions (review due)"]
    assert sum(line.endswith(", pending, review due)") for line in text[:head]) == 6


def test_resume_pending_review_lists_the_rest_and_says_how_many_more(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = []
    for day in range(1, 10):  # nine old pending decisions, naming their choices
        monkeypatch.setenv("LORE_NOW", f"2026-02-0{day}T10:00:00Z")
        made = ok(run, "remember", f"Old {WORDS[day]}", "-q")
        old.append(made.stdout.strip())
    for day in range(1, 9):  # eight newer architecture decisions, resolved successful
        monkeypatch.setenv("LORE_NOW", f"2026-03-0{day}T10:00:00Z")
        new = ok(
            run, "remember", f"Architecture {WORDS[day + 9]}", "--type",
            "architecture", "-q",
        ).stdout.strip()  # fmt: skip
        ok(run, "review", "--resolve", new, "--outcome", "successful")
    monkeypatch.setenv("LORE_NOW", "2026-03-20T10:00:00Z")
    doc = ok_json(run, "resume")
    assert doc["pending_review_count"] == 9
    above = [d["id"] for d in doc["recent_decisions"] if d["review_due"]]
    assert len(above) == 2  # ten recent decisions: the eight resolved and two pending
    text = ok(run, "resume").stdout.splitlines()
    head = text.index("## Decisions pending review (9)")
    review = text[head + 1 :]
    listed = [i for i in old if any(i in line for line in review)]
    assert len(listed) == 5 and not set(listed) & set(above)
    assert review[5:] == [
        "- … and 2 more (lore review lists them all)",
        "- 2 more listed under Recent decisions (review due)",
    ]
