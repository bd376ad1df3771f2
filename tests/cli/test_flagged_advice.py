"""Flagged patterns are advice under a warning: ``suggest``, ``resume`` and the SessionStart
context show the flag and its reason and rank a flagged pattern below every unflagged one."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]
NOW = "2026-03-10T12:00:00.000000Z"


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    monkeypatch.setenv("LORE_PROJECT", "shop")


def ok_json(run: Run, *args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def flagged(run: Run) -> tuple[str, str]:
    """A pattern flagged incorrect that matches "retry HTTP calls" best, and a plain one."""
    bad = ok_json(
        run,
        "learn",
        "Retry failed HTTP calls with exponential backoff",
        "--solution",
        "wrap HTTP calls in a retry loop",
    )["id"]
    good = ok_json(run, "learn", "Cache HTTP responses", "--solution", "cache every retry")["id"]
    flag = run("patterns", "flag", bad, "--type", "incorrect", "--reason", "hides outages")
    assert flag.exit_code == 0, flag.stderr
    return bad, good


def test_suggest_ranks_flagged_advice_last_with_its_flag(
    run: Run, flagged: tuple[str, str]
) -> None:
    bad, good = flagged
    doc = ok_json(run, "suggest", "retry", "HTTP", "calls")
    assert [p["id"] for p in doc["patterns"]] == [good, bad]
    # The flagged one matches better: only the flag puts it second.
    assert doc["patterns"][1]["score"] > doc["patterns"][0]["score"]
    assert doc["patterns"][0]["flagged"] is None
    assert doc["patterns"][1]["flagged"] == {
        "type": "incorrect",
        "reason": "hides outages",
        "count": 1,
    }
    text = run("suggest", "retry", "HTTP", "calls").stdout.splitlines()
    assert text[1].endswith(f"pattern {good}  Cache HTTP responses")
    assert text[2].endswith(
        f"pattern {bad}  Retry failed HTTP calls with exponential backoff"
        "  [flagged incorrect: hides outages]"
    )
    # Without a situation (the project's best) the same rule holds.
    assert [p["id"] for p in ok_json(run, "suggest")["patterns"]] == [good, bad]
    assert [p["id"] for p in ok_json(run, "recall", "--patterns", "retry")["patterns"]] == [
        good,
        bad,
    ]


def test_resume_and_session_start_show_the_flag_below_unflagged(
    run: Run, flagged: tuple[str, str]
) -> None:
    bad, good = flagged
    # Validated twice: more trusted than the plain one, and still listed after it.
    for _ in range(3):
        assert run("patterns", "validate", bad).exit_code == 0
    doc = ok_json(run, "resume")
    assert [p["id"] for p in doc["patterns"]] == [good, bad]
    assert doc["patterns"][1]["confidence"] > doc["patterns"][0]["confidence"]
    assert doc["patterns"][1]["flagged"] == {
        "type": "incorrect",
        "reason": "hides outages",
        "count": 1,
    }
    assert doc["patterns"][0]["flagged"] is None
    text = run("resume").stdout.splitlines()
    start = text.index("## Patterns")
    assert text[start + 1 : start + 3] == [
        f"- Cache HTTP responses: cache every retry ({good}, confidence 0.5)",
        "- Retry failed HTTP calls with exponential backoff: wrap HTTP calls in a retry loop"
        f" ({bad}, confidence 0.65; flagged incorrect: hides outages)",
    ]
    hook = run("hooks", "run", "session-start", input="{}")
    assert hook.exit_code == 0, hook.stderr
    context = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"({bad}, confidence 0.65; flagged incorrect: hides outages)" in context
    assert context.index(good) < context.index(bad)


def test_a_second_flag_counts_and_the_latest_reason_shows(
    run: Run, flagged: tuple[str, str]
) -> None:
    bad, _ = flagged
    assert run("patterns", "flag", bad, "--type", "obsolete", "--reason", "HTTP/3").exit_code == 0
    doc = ok_json(run, "suggest", "retry")
    assert doc["patterns"][-1]["flagged"] == {"type": "obsolete", "reason": "HTTP/3", "count": 2}
    assert "[flagged obsolete: HTTP/3, 2 flags]" in run("suggest", "retry").stdout
