"""Issue 15: what two clones create or count at once survives git's merge. Validations and
flags are events in a union-merged log (two clones validating one pattern count twice),
criteria added to a goal get ids that cannot collide (and repeated old ids each get a
name), and a decision's outcome set differently on two clones is named by `lore validate`.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.gitteam import git, isolate_git, lore, team

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate_git(monkeypatch, tmp_path)


def clones(run: Run, tmp_path: Path, n: int = 3) -> list[Path]:
    return team(run, tmp_path, n)


def everywhere(run: Run, roots: list[Path]) -> None:
    for root in [*roots, *roots]:  # twice round: every clone ends with the union
        lore(run, root, "sync")


def test_validations_on_three_clones_all_count(run: Run, tmp_path: Path) -> None:
    roots = clones(run, tmp_path)
    pattern = lore(run, roots[0], "learn", "Retry flaky calls", "--solution", "backoff")["id"]
    everywhere(run, roots)
    for root in roots:  # each clone validates twice before anyone syncs
        lore(run, root, "patterns", "validate", pattern)
        lore(run, root, "patterns", "validate", pattern)
    lore(run, roots[1], "patterns", "flag", pattern, "--reason", "slow", "--type", "obsolete")
    everywhere(run, roots)
    for root in roots:
        shown = lore(run, root, "show", pattern)
        assert shown["validations"] == 6  # the merged document edits kept 2 of 6
        assert shown["confidence"] == 0.9  # 0.5 + 6 x 0.1 (at most 1.0) - 0.1 for the flag
        assert [f["reason"] for f in shown["flags"]] == ["slow"]
        assert lore(run, root, "validate")["errors"] == 0
        assert lore(run, root, "resume")["patterns"][0]["validations"] == 6  # the index too


def test_a_review_raises_a_pattern_once_even_when_run_again(run: Run, tmp_path: Path) -> None:
    root = tmp_path / "solo"
    pattern = lore(run, root, "learn", "Cache by key", "--solution", "hash the key")["id"]
    decision = lore(run, root, "remember", "Cache responses", "-r", f"per {pattern}")["id"]
    first = lore(run, root, "review", "--resolve", decision, "--outcome", "successful")
    assert first["patterns_raised"] == [{"id": pattern, "from": 0.5, "to": 0.6}]
    again = lore(run, root, "review", "--resolve", decision, "--outcome", "successful", "--force")
    assert again["patterns_raised"] == []
    assert lore(run, root, "show", pattern)["validations"] == 1


def test_goal_criteria_added_on_two_clones_never_share_an_id(run: Run, tmp_path: Path) -> None:
    a, b = clones(run, tmp_path, 2)
    goal = lore(run, a, "goal", "create", "Ship v1", "--criterion", "tests green")["id"]
    everywhere(run, [a, b])
    on_a = lore(run, a, "goal", "update", goal, "--add-criterion", "docs")["record"]["criteria"]
    on_b = lore(run, b, "goal", "update", goal, "--add-criterion", "notes")["record"]["criteria"]
    assert on_a[1]["id"] != on_b[1]["id"]  # before: both were sc-2


@pytest.mark.parametrize("first", [["--criterion", "tests green"], []])
def test_goal_criteria_added_on_three_clones_merge_without_a_conflict(
    run: Run, tmp_path: Path, first: list[str]
) -> None:
    a, b, c = clones(run, tmp_path, 3)
    goal = lore(run, a, "goal", "create", "Ship v1", *first)["id"]
    everywhere(run, [a, b, c])
    path = f"intent/data/goals/{goal}.yaml"
    (a / path).write_text("# the release goal\n" + (a / path).read_text())  # a hand edit
    lore(run, a, "goal", "update", goal, "--add-criterion", "docs written")
    lore(run, b, "goal", "update", goal, "--add-criterion", "notes sent")
    lore(run, c, "goal", "update", goal, "--add-criterion", "tag pushed", "--priority", "high")
    if first:
        lore(run, b, "goal", "update", goal, "--met", "tests green")
    everywhere(run, [a, b, c])  # before: git's text merge stopped every sync but the first
    merged = lore(run, a, "goal", "show", goal)["criteria"]
    assert sorted((x["text"], x["met"]) for x in merged) == sorted(
        [("docs written", False), ("notes sent", False), ("tag pushed", False)]
        + ([("tests green", True)] if first else [])
    )
    for root in (a, b, c):
        shown = lore(run, root, "goal", "show", goal)
        assert shown["criteria"] == merged  # the same list, in the same order, everywhere
        assert shown["priority"] == "high"
        assert (root / path).read_text().startswith("# the release goal\n")
        assert lore(run, root, "validate")["errors"] == 0
        assert git(root, "status", "--porcelain") == ""


def test_one_criterion_or_field_changed_two_ways_is_still_a_conflict(
    run: Run, tmp_path: Path
) -> None:
    a, b = clones(run, tmp_path, 2)
    goal = lore(run, a, "goal", "create", "Ship v1")["id"]
    everywhere(run, [a, b])
    lore(run, a, "goal", "update", goal, "--status", "blocked")
    lore(run, b, "goal", "update", goal, "--status", "completed")
    lore(run, a, "sync")
    refused = lore(run, b, "sync", code=8)
    assert refused["files"] == [f"intent/data/goals/{goal}.yaml"]
    assert git(b, "status", "--porcelain") == ""
    assert lore(run, b, "goal", "show", goal)["status"] == "completed"


def test_repeated_criterion_ids_each_get_a_name(run: Run, data_dir: Path) -> None:
    path = data_dir / "intent" / "data" / "goals" / "goal-0123456789ab.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(  # what git made of two clones that each added "sc-2"
        "id: goal-0123456789ab\ntimestamp: '2026-01-01T00:00:00.000000Z'\ntitle: Ship\n"
        "criteria:\n"
        "  - {id: sc-1, text: tests, met: false}\n"
        "  - {id: sc-2, text: docs, met: false}\n"
        "  - {id: sc-2, text: notes, met: false}\n"
    )
    shown = lore(run, data_dir, "goal", "show", "goal-0123456789ab")
    assert [(c["id"], c["text"]) for c in shown["criteria"]] == [
        ("sc-1", "tests"),
        ("sc-2", "docs"),
        ("sc-2-2", "notes"),
    ]
    done = lore(run, data_dir, "goal", "update", "goal-0123456789ab", "--met", "sc-2-2")
    assert [c["met"] for c in done["record"]["criteria"]] == [False, False, True]
    done = lore(run, data_dir, "goal", "update", "goal-0123456789ab", "--met", "sc-2")
    assert [c["met"] for c in done["record"]["criteria"]] == [False, True, True]


def test_an_outcome_set_differently_on_two_clones_is_named_by_validate(
    run: Run, tmp_path: Path
) -> None:
    a, b = clones(run, tmp_path, 2)
    decision = lore(run, a, "remember", "Use SQLite because: one file")["id"]
    everywhere(run, [a, b])
    lore(run, a, "review", "--resolve", decision, "--outcome", "successful")
    lore(run, b, "review", "--resolve", decision, "--outcome", "abandoned")
    everywhere(run, [a, b])
    for root in (a, b):
        report = lore(run, root, "validate")
        assert report["errors"] == 0
        [issue] = [i for i in report["issues"] if i["code"] == "divergent-value"]
        assert (issue["severity"], issue["id"], issue["field"]) == ("warning", decision, "outcome")
        assert "'successful'" in issue["message"] and "'abandoned'" in issue["message"]
        kept = lore(run, root, "show", decision)["outcome"]
        assert issue["message"].endswith(
            f"{kept!r}, the later, is kept: set the one that is right with a new revision"
        )


def test_an_outcome_changed_in_turn_is_not_a_divergence(run: Run, data_dir: Path) -> None:
    decision = lore(run, data_dir, "remember", "Use SQLite because: one file")["id"]
    lore(run, data_dir, "review", "--resolve", decision, "--outcome", "successful")
    lore(run, data_dir, "review", "--resolve", decision, "--outcome", "revised", "--force")
    codes = [i["code"] for i in lore(run, data_dir, "validate")["issues"]]
    assert "divergent-value" not in codes


def test_projects_added_on_two_clones_merge_without_a_conflict(run: Run, tmp_path: Path) -> None:
    a, b = clones(run, tmp_path, 2)
    lore(run, a, "registry", "add", "shared", "--description", "both know it")
    everywhere(run, [a, b])
    projects = a / "registry" / "data" / "projects.yaml"
    projects.write_text("# our projects\n" + projects.read_text())  # a hand edit survives
    lore(run, a, "registry", "add", "billing", "--description", "from a")
    lore(run, b, "registry", "add", "search", "--description", "from b")
    lore(run, b, "registry", "add", "shared", "--description", "b changed it")
    everywhere(run, [a, b])
    for root in (a, b):
        listed = {p["name"]: p["description"] for p in lore(run, root, "registry", "list")}
        assert listed == {"shared": "b changed it", "billing": "from a", "search": "from b"}
        assert (
            (root / "registry" / "data" / "projects.yaml")
            .read_text()
            .startswith("# our projects\n")
        )
        assert lore(run, root, "validate")["errors"] == 0


def test_one_project_changed_two_ways_is_still_a_conflict(run: Run, tmp_path: Path) -> None:
    a, b = clones(run, tmp_path, 2)
    lore(run, a, "registry", "add", "shared", "--description", "first")
    everywhere(run, [a, b])
    lore(run, a, "registry", "add", "shared", "--description", "a says")
    lore(run, b, "registry", "add", "shared", "--description", "b says")
    lore(run, a, "sync")
    refused = lore(run, b, "sync", code=8)
    assert refused["files"] == ["registry/data/projects.yaml"]
    assert git(b, "status", "--porcelain") == ""  # aborted: b as it was
    assert lore(run, b, "registry", "show", "shared")["description"] == "b says"
