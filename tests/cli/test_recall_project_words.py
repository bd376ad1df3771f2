"""Issue 7, recall ranking: a project's name (and a tag all its records carry) filters and
boosts, never matches; snippets show paths relative to the repository, whole components."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

import lore.capture.build

Run = Callable[..., Result]
TOPICS = ["idempotency middleware", "retry budget", "database index", "order totals",
          "refund workflow", "queue consumer", "cache warmup", "schema migration",
          "invoice numbering", "webhook signature", "rate limiter", "audit log"]  # fmt: skip


def new(run: Run, *args: str) -> str:
    result = run(*args, "-q")
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


def recall(run: Run, *args: str) -> list[dict[str, Any]]:
    result = run("recall", *args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)["results"]


@pytest.fixture
def orders_api(run: Run, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("LORE_PROJECT", "orders-api")
    ids = {topic: new(run, "remember", f"Settle the {topic} design") for topic in TOPICS}
    ids["keys"] = new(run, "remember", "Rotate API keys every month", "-t", "security")
    ids["failure"] = new(run, "fail", "Timeout", "payment provider slow")
    return ids


def test_the_project_name_is_not_matched_text(run: Run, orders_api: dict[str, str]) -> None:
    found = recall(run, "api", "-n", "0")
    assert [r["id"] for r in found] == [orders_api["keys"]]
    # "orders" is in the project's name too: only the record that says it ("order") matches
    found = recall(run, "orders", "-n", "0")
    assert [r["id"] for r in found] == [orders_api["order totals"]]


def test_the_project_still_filters_and_boosts(
    run: Run, orders_api: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_PROJECT", "billing")
    other = new(run, "remember", "Rotate API keys every quarter")
    found = recall(run, "rotate", "keys", "--explain")
    assert [r["id"] for r in found] == [other, orders_api["keys"]]  # billing: the boost
    assert [r["explain"]["project"] for r in found] == [1.0, 0.0]
    found = recall(run, "rotate", "keys", "--project", "orders-api")
    assert [r["id"] for r in found] == [orders_api["keys"]]  # the filter


def test_a_tag_every_record_of_a_project_carries_is_not_matched_text(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_PROJECT", "svc")
    plain = [
        new(run, "remember", f"Settle the {topic} design", "-t", "http") for topic in TOPICS[:4]
    ]
    said = new(run, "remember", "Use HTTP keep-alive for upstreams", "-t", "http")
    assert [r["id"] for r in recall(run, "http", "-n", "0")] == [said]
    # the tag still filters
    found = recall(run, "settle", "--tag", "http", "-n", "0")
    assert sorted(r["id"] for r in found) == sorted(plain)
    # a tag only some records carry is still matched text
    monkeypatch.setenv("LORE_PROJECT", "web")
    tagged = new(run, "remember", "Prefer server rendering", "-t", "frontend")
    new(run, "remember", "Pin the bundler version")
    new(run, "remember", "Split the CSS per route")
    assert [r["id"] for r in recall(run, "frontend")] == [tagged]


def test_snippets_show_relative_paths_and_mark_whole_components(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "work" / "orders-api"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    monkeypatch.chdir(repo)
    lore.capture.build._repo_at.cache_clear()
    path = f"{os.path.realpath(repo)}/tests/test_orders.py"
    obs = new(run, "observe", f"Flaky when run alone: {path} needs the fixture")
    dec = new(run, "remember", "Fix the flaky fixture", "-f", path)
    result = run("recall", "test", "orders")
    assert result.exit_code == 0, result.stderr
    lines = [line.split("  ", 1)[1] for line in result.stdout.splitlines()]
    assert lines == [
        f"observation {obs}  Flaky when run alone: tests/test_orders.py needs the fixture",
        f"decision {dec}  Fix the flaky fixture",
        "    »tests«/»test_orders.py«",
    ]
    found = recall(run, "test", "orders")  # the records themselves are unchanged
    assert found[0]["content"] == f"Flaky when run alone: {path} needs the fixture"
    assert found[1]["files"] == [path]
