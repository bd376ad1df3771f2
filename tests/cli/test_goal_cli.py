"""``lore goal ...``: exact documents, criteria ids, completion, cycles, refusals, hand edits."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.components.intent import Goal, dependency_path, next_criterion_id, with_ids
from lore.store.documents import read_document

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


def goal_file(data_dir: Path, goal_id: str) -> Path:
    return data_dir / "intent" / "data" / "goals" / f"{goal_id}.yaml"


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def create(run: Run, name: str, *args: str) -> str:
    return str(ok_json(run, "goal", "create", name, *args)["id"])


# --- rules ----------------------------------------------------------------------------


def test_criteria_ids_and_legacy_statuses() -> None:
    assert with_ids([{"text": "a"}, {"id": "sc-1", "text": "b"}, {"text": "c"}]) == [
        {"id": "sc-2", "text": "a"},  # position 1 is taken by the explicit sc-1
        {"id": "sc-1", "text": "b"},
        {"id": "sc-3", "text": "c"},
    ]
    added = next_criterion_id([{"id": "sc-1"}, {"id": "sc-7"}])
    assert re.fullmatch(r"sc-[0-9a-f]{6}", added)  # random: two clones never give one twice
    # Ids that repeat (two clones each added sc-3 before ids were random) each get a name.
    assert with_ids([{"id": "sc-3", "text": "a"}, {"id": "sc-3", "text": "b"}, {"id": "sc-3"}]) == [
        {"id": "sc-3", "text": "a"},
        {"id": "sc-3-2", "text": "b"},
        {"id": "sc-3-3"},
    ]
    for old, new in (("achieved", "completed"), ("paused", "blocked"), ("abandoned", "cancelled")):
        goal = Goal.from_dict({"id": "goal-1", "timestamp": NOW, "title": "t", "status": old})
        assert goal.status == new
        assert goal.problems() == []
    graph = {"a": ["b"], "b": ["c"], "c": []}
    assert dependency_path(lambda n: graph[n], "a", "c") == ["a", "b", "c"]
    assert dependency_path(lambda n: graph[n], "c", "a") is None


# --- create, list, show -----------------------------------------------------------------


def test_create_writes_the_goal_document(run: Run, data_dir: Path) -> None:
    reply = ok_json(
        run, "goal", "create", "Ship v1", "--description", "first release", "--priority", "high",
        "--deadline", "2026-12-31", "--project", "shop", "--project", "api", "--tag", "release",
        "--criterion", "tests green", "--criterion", "docs reviewed",
    )  # fmt: skip
    gid = reply["id"]
    assert list(reply) == ["ok", "id", "type", "timestamp", "record", "completion"]
    assert (reply["type"], reply["timestamp"], reply["completion"]) == ("goal", NOW, "0/2")
    assert (
        read_document(goal_file(data_dir, gid))
        == reply["record"]
        == {
            "id": gid,
            "timestamp": NOW,
            "title": "Ship v1",
            "description": "first release",
            "status": "active",
            "priority": "high",
            "criteria": [
                {"id": "sc-1", "text": "tests green", "met": False},
                {"id": "sc-2", "text": "docs reviewed", "met": False},
            ],
            "deadline": "2026-12-31",
            "depends_on": [],
            "projects": ["shop", "api"],
            "related": [],
            "session_id": None,
            "project": "shop",
            "source": "manual",
            "tags": ["release", "shop"],
            "v": 1,
        }
    )
    assert run("goal", "create", "Docs").stdout.startswith("goal goal-")


def test_create_refusals_change_nothing(run: Run, data_dir: Path) -> None:
    create(run, "Ship v1")
    before = snapshot(data_dir)
    assert run("goal", "create", "ship  V1").exit_code == 6
    assert json.loads(run("goal", "create", "ship v1", "--json").stdout)["existing_id"]
    bad_priority = run("goal", "create", "Other", "--priority", "urgent")
    assert bad_priority.exit_code == 4
    assert "--priority must be one of low, medium, high, critical" in bad_priority.stderr
    for deadline in ("2026-02-30", "31/12/2026", "tomorrow"):
        bad_date = run("goal", "create", "Other", "--deadline", deadline, "--json")
        assert bad_date.exit_code == 4
        assert json.loads(bad_date.stdout)["code"] == "invalid"
    secret = run("goal", "create", "Rotate", "--description", "AKIA" + "QZ7XJ4K2LMNOPQRS")
    assert secret.exit_code == 7
    assert run("goal", "create", "Other", "--criterion", " ").exit_code == 2
    assert snapshot(data_dir) == before


def test_a_closed_goal_is_no_duplicate(run: Run) -> None:
    old = create(run, "Ship v1")
    ok_json(run, "goal", "update", old, "--status", "cancelled")
    again = ok_json(run, "goal", "create", "Ship v1")
    assert again["id"] != old
    assert run("goal", "create", "Ship V1").exit_code == 6  # the new one is open
    assert run("goal", "create", "Ship V1", "--force").exit_code == 0


def test_list_orders_filters_and_shows_completion(run: Run) -> None:
    low = create(run, "Tidy", "--priority", "low")
    late = create(run, "Ship", "--priority", "high", "--deadline", "2026-12-01", "--criterion", "a")
    soon = create(run, "Fix", "--priority", "high", "--deadline", "2026-04-01")
    ok_json(run, "goal", "update", late, "--met", "sc-1", "--add-criterion", "b")
    ok_json(run, "goal", "update", low, "--status", "blocked")
    result = run("goal")
    assert result.exit_code == 0
    assert result.stdout == (
        f"{soon}  active     high        0/0  2026-04-01  Fix\n"
        f"{late}  active     high        1/2  2026-12-01  Ship\n"
        f"{low}  blocked    low         0/0  -           Tidy\n"
    )
    items = ok_json(run, "goal", "list", "--priority", "high")
    assert [(g["id"], g["completion"]) for g in items] == [(soon, "0/0"), (late, "1/2")]
    assert list(items[0])[-1] == "completion"
    assert [g["id"] for g in ok_json(run, "goal", "--json")] == [soon, late, low]
    assert [g["id"] for g in ok_json(run, "goal", "list", "--status", "paused")] == [low]
    bad = run("goal", "list", "--status", "done")
    assert bad.exit_code == 2
    assert "--status must be one of draft, active, blocked, completed, cancelled" in bad.stderr


def test_show_text_and_json(run: Run) -> None:
    gid = create(run, "Ship", "--criterion", "tests", "--criterion", "docs")
    ok_json(run, "goal", "update", gid, "--met", "sc-2")
    doc = ok_json(run, "goal", "show", gid)
    assert doc == {**ok_json(run, "show", gid), "completion": "1/2"}
    assert json.loads(run("goal", "--json", "show", gid).stdout) == doc  # the group's --json
    assert run("goal", "show", gid).stdout == (
        f"goal {gid}: Ship\n"
        "  status: active   priority: medium\n"
        "  completion: 1/2 criteria met\n"
        "    [ ] sc-1  tests\n"
        "    [x] sc-2  docs\n"
        "  tags: shop\n"
    )
    assert run("goal", "show", "goal-000000000000").exit_code == 3
    decision = ok_json(run, "remember", "Use Redis")["id"]
    assert run("goal", "show", decision).exit_code == 4


# --- update -----------------------------------------------------------------------------


def test_update_changes_every_field_in_one_write(run: Run, data_dir: Path) -> None:
    other = create(run, "Write docs")
    gid = create(run, "Ship", "--criterion", "tests")
    reply = ok_json(
        run, "goal", "update", gid, "--status", "blocked", "--priority", "critical",
        "--deadline", "2026-06-30", "--description", "waiting on docs", "--met", "sc-1",
        "--add-criterion", "notes", "--add-criterion", "tag", "--depends-on", other,
    )  # fmt: skip
    assert list(reply) == ["ok", "id", "completion", "record"]
    assert reply["completion"] == "1/3"
    record = read_document(goal_file(data_dir, gid))
    assert record == reply["record"]
    assert {k: record[k] for k in ("status", "priority", "deadline", "description")} == {
        "status": "blocked",
        "priority": "critical",
        "deadline": "2026-06-30",
        "description": "waiting on docs",
    }
    ids = [c["id"] for c in record["criteria"]]
    assert record["criteria"] == [
        {"id": "sc-1", "text": "tests", "met": True},
        {"id": ids[1], "text": "notes", "met": False},
        {"id": ids[2], "text": "tag", "met": False},
    ]
    assert all(re.fullmatch(r"sc-[0-9a-f]{6}", i) for i in ids[1:]) and ids[1] != ids[2]
    assert record["depends_on"] == [other]
    again = ok_json(run, "goal", "update", gid, "--depends-on", other, "--status", "completed")
    assert again["record"]["depends_on"] == [other]  # idempotent
    text = run("goal", "update", gid, "--status", "active")
    assert text.stdout == f"goal {gid}: active, 1/3 criteria met (Ship)\n"


def test_update_refusals_change_nothing(run: Run, data_dir: Path) -> None:
    a = create(run, "A goal")
    b = create(run, "B goal")
    c = create(run, "C goal", "--criterion", "x")
    ok_json(run, "goal", "update", a, "--depends-on", b)
    ok_json(run, "goal", "update", b, "--depends-on", c)
    before = snapshot(data_dir)
    cycle = run("goal", "update", c, "--depends-on", a, "--json")
    assert cycle.exit_code == 4
    error = json.loads(cycle.stdout)
    assert error["error"] == f"dependency cycle: {c} -> {a} -> {b} -> {c}"
    assert error["cycle"] == [c, a, b, c]
    assert run("goal", "update", a, "--depends-on", a).exit_code == 4
    assert run("goal", "update", "goal-000000000000", "--status", "active").exit_code == 3
    assert run("goal", "update", a, "--depends-on", "goal-000000000000").exit_code == 3
    decision = ok_json(run, "remember", "Use Redis")["id"]
    before = snapshot(data_dir)
    assert run("goal", "update", a, "--depends-on", decision).exit_code == 4
    unknown = run("goal", "update", c, "--met", "sc-2", "--status", "completed")
    assert unknown.exit_code == 3
    assert f"{c} has no criterion 'sc-2' (criteria: sc-1)" in unknown.stderr
    assert run("goal", "update", c, "--status", "finished").exit_code == 4
    assert run("goal", "update", c, "--deadline", "2026-13-01").exit_code == 4
    assert run("goal", "update", c).exit_code == 2  # nothing to update
    secret = run("goal", "update", c, "--add-criterion", "password=" + "hunter2real")
    assert secret.exit_code == 7
    assert snapshot(data_dir) == before


HAND_EDITED = """\
# Goal for the launch (edited by hand)
id: goal-0123456789ab
timestamp: '2026-01-01T00:00:00.000000Z'
title: Launch   # the big one
status: achieved
priority: high
owner: alice
criteria:
  # the first one matters most
  - text: checkout works
    met: false
  - text: emails sent   # marketing
    met: false
"""


def test_hand_edits_survive_every_update(run: Run, data_dir: Path) -> None:
    path = goal_file(data_dir, "goal-0123456789ab")
    path.parent.mkdir(parents=True)
    path.write_text(HAND_EDITED, encoding="utf-8")
    doc = ok_json(run, "goal", "show", "goal-0123456789ab")
    assert doc["status"] == "completed"  # the old word reads as the new one
    assert doc["completion"] == "0/2"
    assert [c["id"] for c in doc["criteria"]] == ["sc-1", "sc-2"]
    ok_json(run, "goal", "update", "goal-0123456789ab", "--met", "sc-2")
    added = ok_json(run, "goal", "update", "goal-0123456789ab", "--add-criterion", "press release")
    new_id = added["record"]["criteria"][-1]["id"]
    ok_json(run, "goal", "update", "goal-0123456789ab", "--priority", "critical")
    other = create(run, "Other")
    ok_json(run, "goal", "update", "goal-0123456789ab", "--depends-on", other)
    assert path.read_text(encoding="utf-8") == (
        "# Goal for the launch (edited by hand)\n"
        "id: goal-0123456789ab\n"
        "timestamp: '2026-01-01T00:00:00.000000Z'\n"
        "title: Launch   # the big one\n"
        "status: achieved\n"
        "priority: critical\n"
        "owner: alice\n"
        "criteria:\n"
        "  # the first one matters most\n"
        "  - text: checkout works\n"
        "    met: false\n"
        "    id: sc-1\n"
        "  - text: emails sent   # marketing\n"
        "    met: true\n"
        "    id: sc-2\n"
        f"  - id: {new_id}\n"
        "    text: press release\n"
        "    met: false\n"
        f"depends_on:\n  - {other}\n"
    )
    shown = ok_json(run, "goal", "show", "goal-0123456789ab")
    assert (shown["status"], shown["completion"], shown["owner"]) == ("completed", "1/3", "alice")


def test_resume_shows_completion(run: Run) -> None:
    gid = create(run, "Ship", "--criterion", "a", "--criterion", "b")
    ok_json(run, "goal", "update", gid, "--met", "sc-1")
    goals = ok_json(run, "resume")["goals"]
    assert goals == [
        {
            "id": gid,
            "title": "Ship",
            "priority": "medium",
            "criteria_met": 1,
            "criteria_total": 2,
            "completion": "1/2",
        }
    ]
    assert f"- Ship [1/2 criteria] ({gid})" in run("resume").stdout.splitlines()


def test_concurrent_updates_never_close_a_cycle(run: Run, data_dir: Path) -> None:
    import multiprocessing

    from lore.errors import InvalidInputError
    from lore.store.core import Store
    from lore.usecases.goals import update_goal

    a, b = create(run, "A goal"), create(run, "B goal")
    fork = multiprocessing.get_context("fork")
    barrier = fork.Barrier(2)
    results = fork.Queue()

    def depend(goal: str, on: str) -> None:
        barrier.wait(10)
        try:
            update_goal(Store(data_dir), goal, depends_on=[on])
            results.put("ok")
        except InvalidInputError:
            results.put("cycle")

    workers = [fork.Process(target=depend, args=pair) for pair in ((a, b), (b, a))]
    for w in workers:
        w.start()
    for w in workers:
        w.join(30)
    assert sorted(results.get(timeout=5) for _ in workers) == ["cycle", "ok"]
    deps = [ok_json(run, "goal", "show", g)["depends_on"] for g in (a, b)]
    assert sorted(deps) == [[], [a]] or sorted(deps) == [[], [b]]


def test_met_may_name_a_criterion_added_by_the_same_update(run: Run) -> None:
    goal = create(run, "Ship it", "--criterion", "tests pass")
    reply = ok_json(
        run, "goal", "update", goal, "--add-criterion", "docs written", "--met", "docs written"
    )
    assert reply["completion"] == "1/2"
    added = reply["record"]["criteria"][1]["id"]
    assert reply["record"]["criteria"] == [
        {"id": "sc-1", "text": "tests pass", "met": False},
        {"id": added, "text": "docs written", "met": True},
    ]
    twice = ok_json(run, "goal", "update", goal, "--add-criterion", "tests pass")["record"]
    refused = run("goal", "update", goal, "--met", "tests pass")
    assert refused.exit_code == 4
    assert refused.stderr == (
        f"lore: error: 2 criteria of {goal} read 'tests pass': name one by its id "
        f"(sc-1, {twice['criteria'][2]['id']})\n"
    )


def test_a_new_key_goes_before_the_comments_that_end_the_file(run: Run, data_dir: Path) -> None:
    goal = create(run, "Ship it")
    path = goal_file(data_dir, goal)
    text = path.read_text(encoding="utf-8").replace("deadline:\n", "")
    path.write_text(text + "# the end\n", encoding="utf-8")
    ok_json(run, "goal", "update", goal, "--deadline", "2027-02-02")
    assert path.read_text(encoding="utf-8") == text + "deadline: '2027-02-02'\n# the end\n"
