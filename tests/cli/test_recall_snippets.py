"""Recall's snippets mark the query's own words (and their forms), never the companions term
associations match on the query's behalf."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from click.testing import Result

Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", "2026-03-01T00:00:00Z")


def ok(run: Run, *args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_companions_are_matched_but_not_marked(run: Run) -> None:
    for i in range(20):  # keep "dunning" and "email" rare enough to have associates
        ok(run, "observe", f"standup notes {i}: reviewed the backlog", "-q")
    first = ok(run, "remember", "Run dunning nightly", "-r", "the dunning run emailed overdue")
    second = ok(run, "remember", "Send dunning at nine", "-r", "dunning emails go out at nine")
    bridged = ok(run, "remember", "Fix the reminder", "-r", "the reminder email has a typo", "-q")
    assert first and second
    lines = ok(run, "recall", "dunning").splitlines()
    # "email" keeps company with "dunning": the reminder is found through it...
    assert lines[4].endswith(f"decision {bridged.strip()}  Fix the reminder")
    # ...and no snippet marks it, as the query never said it.
    assert lines[5] == "      the reminder email has a typo"
    assert "      the »dunning« run emailed overdue" in lines
    assert "      »dunning« emails go out at nine" in lines
    assert not any("»email" in line for line in lines)
    # A typo still marks the word it stands for.
    assert "      the »dunning« run emailed overdue" in ok(run, "recall", "duning").splitlines()
