"""The Rule of Three's note names the actions that end it, and each does: a PITFALL
(``promote-failure``) or a pattern tagged with the error type (``learn --tags``). Resume
points from the recurring type to what names it, and the graph links them."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]
ASK = (
    "lore: Rule of Three: {n} failures of type ConnectionRefused. Name it: lore promote-failure"
    ' ConnectionRefused --fix "..." (a PITFALL anti-pattern), or lore learn "..." --solution'
    ' "..." --tags ConnectionRefused (a pattern)\n'
)


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", "2026-03-01T00:00:00Z")


def fail(run: Run, n: int) -> tuple[dict[str, Any], str]:
    result = run("fail", "ConnectionRefused", f"postgres refused connection {n}", "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout), result.stderr


@pytest.mark.parametrize("warm", [False, True], ids=["log", "index"])
def test_the_pattern_the_note_asks_for_ends_the_note(run: Run, warm: bool) -> None:
    for n in (1, 2):
        fail(run, n)
    doc, said = fail(run, 3)
    assert said == ASK.format(n=3)
    learned = run(
        "learn", "Wait for postgres", "--solution", "pg_isready loop", "--tags",
        "ConnectionRefused", "--json",
    )  # fmt: skip
    pattern = json.loads(learned.stdout)["id"]
    if warm:
        assert run("index", "rebuild").exit_code == 0
    doc, said = fail(run, 4)
    assert doc["rule_of_three"] == {
        "error_type": "ConnectionRefused",
        "count": 4,
        "pitfall": None,
        "pattern": pattern,
    }
    assert said == (
        "lore: Rule of Three: 4 failures of type ConnectionRefused, already named: "
        f"pattern {pattern} (tagged ConnectionRefused)\n"
    )
    resumed = json.loads(run("resume", "--json").stdout)
    assert resumed["recurring_failures"][0]["pattern"] == pattern
    assert (
        f'- ConnectionRefused x4: last "postgres refused connection 4", see {pattern}'
        in run("resume").stdout.splitlines()
    )
    links = json.loads(run("graph", "neighbors", "error-type:ConnectionRefused", "--json").stdout)
    assert {"id": pattern, "relation": "promoted_to", "direction": "out"}.items() <= next(
        n for n in links["neighbors"] if n["id"] == pattern
    ).items()


def test_the_pitfall_the_note_asks_for_ends_the_note(run: Run) -> None:
    for n in (1, 2, 3):
        fail(run, n)
    promoted = run("promote-failure", "ConnectionRefused", "--fix", "wait for it", "--json")
    anti = json.loads(promoted.stdout)["promoted"][0]["id"]
    doc, said = fail(run, 4)
    assert doc["rule_of_three"]["pitfall"] == anti
    assert "Name it" not in said and f"already named: {anti}" in said
    assert f"see {anti}" in run("resume").stdout
