"""What capturing a decision adds for the journal: the contradiction warning (with and
without a search index), and bracketed inline markers parsed like bare ones."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.components.journal import parse_inline

Run = Callable[..., Result]
NOW = "2026-03-04T05:06:07.123456Z"
OLD = "Keep sessions in `redis` via src/cache.py"
NEW = "Move sessions out of `redis` and delete src/cache.py"


def capture(run: Run, *args: str) -> dict[str, Any]:
    result = run("remember", *args, "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def edges(data_dir: Path) -> list[dict[str, Any]]:
    path = data_dir / "graph/data/edges.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture(params=["files", "index"])
def where(request: pytest.FixtureRequest, run: Run) -> str:
    """Run each case without an index (the log is read) and with a warm one."""
    if request.param == "index":
        assert run("index", "rebuild").exit_code == 0
    return str(request.param)


def test_contradiction_is_warned_replied_stored_and_an_edge(
    run: Run, data_dir: Path, where: str
) -> None:
    old = capture(run, OLD)["id"]
    result = run("remember", NEW, "--json", env={"LORE_NOW": NOW})
    reply = json.loads(result.stdout)
    new = reply["id"]
    assert list(reply) == ["ok", "id", "type", "timestamp", "record", "contradicts"]
    assert reply["contradicts"] == [old]
    assert reply["record"]["contradicts"] == [old]
    assert result.stderr == (
        f"lore: warning: contradicts {old} ({OLD!r}): both name redis, src/cache.py; "
        f"if it replaces it: lore journal supersede {old} --by {new}\n"
    )
    [edge] = edges(data_dir)
    assert edge["id"].startswith("edge-")
    assert {k: v for k, v in edge.items() if k != "id"} == {
        "timestamp": NOW,
        "src": new,
        "dst": old,
        "relation": "contradicts",
        "status": "active",
        "session_id": None,
        "project": None,
        "source": "capture",
        "tags": [],
        "v": 1,
    }


@pytest.mark.parametrize(
    "case", ["one-shared", "retracted", "superseded-target", "near-duplicate", "other-project"]
)
def test_no_contradiction(run: Run, data_dir: Path, where: str, case: str) -> None:
    old = capture(run, OLD, "--project", "web")["id"]
    args = [NEW, "--project", "web"]
    if case == "one-shared":
        args = ["Move sessions out of `redis`"]
    elif case == "retracted":
        run("retract", old)
    elif case == "superseded-target":
        args = [NEW, "--supersedes", old]
    elif case == "near-duplicate":
        args = [OLD + ".", "--force"]
    elif case == "other-project":  # another project's src/cache.py is another file
        args = [NEW, "--project", "api"]
    reply = capture(run, *args)
    assert "contradicts" not in reply
    assert reply["record"]["contradicts"] == []
    assert edges(data_dir) == []


def test_contradiction_needs_entities_on_both_sides(run: Run, where: str) -> None:
    capture(run, "Keep sessions in redis via the cache module")
    assert "contradicts" not in capture(run, NEW)


# --- bracketed inline markers -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Adopt Redis [because: pub/sub invalidation] [vs: Memcached, Postgres]",
        "Adopt Redis [vs: Memcached, Postgres] [because: pub/sub invalidation]",
        "Adopt Redis because: pub/sub invalidation [vs: Memcached, Postgres]",
        "Adopt Redis [because: pub/sub invalidation] vs: Memcached, Postgres",
        "Adopt Redis vs: Memcached, Postgres [because: pub/sub invalidation]",
        "Adopt Redis because: pub/sub invalidation vs: Memcached, Postgres",
        "[because: pub/sub invalidation] Adopt Redis [vs: Memcached,Postgres]",
        "Adopt Redis [ BECAUSE : pub/sub invalidation ] [Vs:Memcached , Postgres ]",
    ],
)
def test_bracketed_and_bare_markers_parse_alike(run: Run, text: str) -> None:
    assert parse_inline(text) == ("Adopt Redis", "pub/sub invalidation", ["Memcached", "Postgres"])
    record = capture(run, text, "--force")["record"]
    assert (record["decision"], record["rationale"], record["alternatives"]) == (
        "Adopt Redis",
        "pub/sub invalidation",
        ["Memcached", "Postgres"],
    )
    assert not any("[" in v or "]" in v for v in [record["decision"], record["rationale"],
                                                   *record["alternatives"]])  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Adopt [Redis] cluster [vs: KeyDB]", ("Adopt [Redis] cluster", "", ["KeyDB"])),
        ("Adopt Redis [because: fast]", ("Adopt Redis", "fast", [])),
        ("A [because: x] [vs: y] B", ("A B", "x", ["y"])),
        ("Line one\n\nline two [vs: z]", ("Line one\n\nline two", "", ["z"])),
        ("Adopt Redis", ("Adopt Redis", "", [])),
        ("Adopt Redis [because: p99 [ms] matters]", ("Adopt Redis", "p99 [ms] matters", [])),
        (
            "Adopt Redis [vs: KeyDB [fork], Memcached]",
            ("Adopt Redis", "", ["KeyDB [fork]", "Memcached"]),
        ),
    ],
)
def test_brackets_only_take_markers(text: str, expected: tuple[str, str, list[str]]) -> None:
    assert parse_inline(text) == expected


def test_brief_shows_a_contradiction_recorded_at_capture(run: Run) -> None:
    old = capture(run, OLD)["id"]
    new = capture(run, NEW)["id"]
    brief = json.loads(run("brief", "sessions", "--json").stdout)
    assert brief["contradictions"] == {
        "count": 1,
        "items": [
            {
                "a": brief["contradictions"]["items"][0]["a"],
                "b": brief["contradictions"]["items"][0]["b"],
                "outcomes": ["pending", "pending"],
                "shared": ["redis", "src/cache.py"],
                "reason": "recorded at capture: both name redis, src/cache.py",
            }
        ],
    }
    assert {brief["contradictions"]["items"][0]["a"], brief["contradictions"]["items"][0]["b"]} == {
        old,
        new,
    }
