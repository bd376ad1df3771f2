"""``--until`` on ``lore recall`` and ``lore failures``: only records before a time."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from lore.timeexpr import FORMS

Run = Callable[..., Any]


def _at(run: Run, when: str, *args: str) -> str:
    result = run(*args, "-q", env={"LORE_NOW": when})
    assert result.exit_code == 0, result.stderr
    return str(result.stdout.strip())


def test_until_keeps_records_before_the_time(run: Run) -> None:
    old = _at(run, "2026-05-01T10:00:00Z", "observe", "the cache warmed slowly")
    mid = _at(run, "2026-05-03T23:59:00Z", "observe", "the cache warmed again")
    new = _at(run, "2026-05-04T00:00:00Z", "observe", "the cache warmed at last")
    now = {"LORE_NOW": "2026-05-10T00:00:00Z"}

    def ids(*args: str) -> list[str]:
        result = run("recall", "cache warmed", "--json", *args, env=now)
        assert result.exit_code == 0, result.stderr
        return sorted(r["id"] for r in json.loads(result.stdout)["results"])

    assert ids() == sorted([old, mid, new])
    assert ids("--until", "2026-05-03") == sorted([old, mid])  # a date: through its end
    assert ids("--until", "2026-05-03T12:00:00Z") == [old]
    assert ids("--until", "7d") == [old]  # before 2026-05-03T00:00
    assert ids("--until", "6d") == sorted([old, mid])  # before 2026-05-04T00:00, exclusive
    assert ids("--since", "2026-05-02", "--until", "2026-05-03") == [mid]
    bad = run("recall", "cache", "--until", "someday", "--json", env=now)
    assert bad.exit_code == 2
    assert json.loads(bad.stdout)["error"] == (
        f"--until 'someday': not a time lore can read; use {FORMS}"
    )


def test_failures_until(run: Run) -> None:
    first = _at(run, "2026-05-01T10:00:00Z", "fail", "Timeout", "hung once")
    _at(run, "2026-05-05T10:00:00Z", "fail", "Timeout", "hung twice")
    result = run("failures", "--until", "2026-05-02", "--json")
    doc = json.loads(result.stdout)
    assert doc["counts"] == {"Timeout": 1}
    assert [f["id"] for f in doc["failures"]] == [first]
    same = run("recall", "--failures", "--until", "2026-05-02", "--json")
    assert json.loads(same.stdout) == doc
