"""Git is the distributed engine: three clones of a `lore init --git` root capture
hundreds of records and revise shared ones, then pull, merge and push in turn with
`lore sync`; every clone ends with exactly the union, and a real conflict is named."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

Run = Callable[..., Result]


@pytest.fixture
def team(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Run) -> dict[str, Path]:
    for key in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{key}_NAME", "Lore Test")
        monkeypatch.setenv(f"GIT_{key}_EMAIL", "lore@example.org")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    (tmp_path / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    first = tmp_path / "a"
    assert run("--data-dir", str(first), "init", "--git").exit_code == 0
    git(first, "remote", "add", "origin", str(remote))
    shared = seed(run, first)
    assert ok(run, first, "sync")["committed"]["commit"] is not None  # no upstream yet
    git(first, "push", "-q", "-u", "origin", "main")
    clones = {"a": first}
    for name in ("b", "c"):
        git(tmp_path, "clone", "-q", str(remote), str(tmp_path / name))
        clones[name] = tmp_path / name
    (tmp_path / "shared.json").write_text(json.dumps(shared))
    return clones


def git(where: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(where), *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def ok(run: Run, root: Path, *args: str) -> dict:  # type: ignore[type-arg]
    result = run("--data-dir", str(root), *args, "--json")
    assert result.exit_code == 0, (args, result.output)
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def seed(run: Run, root: Path) -> dict[str, list[str]]:
    """Records every clone will later revise."""
    decisions = [
        ok(run, root, "remember", f"Shared decision {i} about caching", "--force")["id"]
        for i in range(6)
    ]
    patterns = [
        ok(run, root, "learn", f"Shared pattern {i}", "--solution", "retry", "--force")["id"]
        for i in range(3)
    ]
    return {"decisions": decisions, "patterns": patterns}


def capture_round(run: Run, root: Path, who: str, n: int, shared: dict[str, list[str]]) -> None:
    tag = os.urandom(3).hex()
    for i in range(n):
        text = f"{who} {tag} item {i}"
        kind = i % 8
        if kind == 0:
            ok(run, root, "remember", f"Decide {text}", "-r", "because", "--force")
        elif kind == 1:
            ok(run, root, "learn", f"Pattern {text}", "--solution", "do it", "--force")
        elif kind == 2:
            ok(run, root, "capture", "--anti-pattern", f"Anti {text}", "--fix", "avoid", "--force")
        elif kind == 3:
            ok(run, root, "fail", "Timeout", f"timed out {text}")
        elif kind == 4:
            ok(run, root, "observe", f"noticed {text}")
        elif kind == 5:
            ok(run, root, "capture", "--evidence", f"measured {text}")
        elif kind == 6:
            ok(run, root, "capture", "--concept", f"Concept {text}")
        else:
            ok(run, root, "handoff", f"handoff {text}", "--next", "continue")
    # revisions of shared records: each clone resolves its own decision, all add lessons
    index = "abc".index(who)
    decision = shared["decisions"][index]
    state = ok(run, root, "show", decision)
    if state["outcome"] == "pending":
        ok(run, root, "review", "--resolve", decision, "--outcome", "successful", "--lesson", who)
    other = shared["decisions"][3 + index]
    if ok(run, root, "show", other)["status"] == "active":
        ok(run, root, "retract", other, "--reason", f"by {who}")


def test_three_clones_converge_on_the_union(
    team: dict[str, Path], run: Run, tmp_path: Path
) -> None:
    shared = json.loads((tmp_path / "shared.json").read_text())
    rounds, per_round = 2, 40
    for _round in range(rounds):
        for who, root in team.items():
            capture_round(run, root, who, per_round, shared)
            reply = ok(run, root, "sync", "--merge" if who == "c" else "--rebase")
            assert reply["committed"]["commit"] is not None
            assert reply["pushed"] is True
            assert reply["sent"]["records"] >= per_round - per_round // 8
    for root in [*team.values(), *team.values()]:  # two passes: everyone has everything
        ok(run, root, "sync")
    exports = {
        who: run("--data-dir", str(root), "export").stdout_bytes for who, root in team.items()
    }
    assert exports["a"] == exports["b"] == exports["c"]
    graphs = {
        who: run("--data-dir", str(root), "graph", "export", "--format", "json").stdout_bytes
        for who, root in team.items()
    }
    assert graphs["a"] == graphs["b"] == graphs["c"]
    assert len(json.loads(graphs["a"])["nodes"]) >= 219
    lines = [json.loads(x) for x in exports["a"].splitlines()]
    ids = [x["id"] for x in lines if "_op" not in x]  # records, not their history lines
    assert len(ids) == len(set(ids))
    captured = rounds * per_round * 3
    handoffs = rounds * 3 * (per_round // 8)
    assert len(ids) == 9 + captured  # every kind is exported, sessions (handoffs) too
    for who, root in team.items():
        report = ok(run, root, "validate")
        assert report["issues"] == [], who
        assert report["counts"]["session"] == handoffs
        tracked = git(root, "ls-files").split()
        assert all(
            p in (".gitattributes", ".gitignore")
            or ("/data/" in p and not p.endswith((".lock", ".tmp")))
            for p in tracked
        ), tracked
        assert git(root, "status", "--porcelain") == ""
    # the shared revisions all arrived: every outcome and retraction, on every clone
    for root in team.values():
        for i in range(3):
            assert ok(run, root, "show", shared["decisions"][i])["outcome"] == "successful"
            assert ok(run, root, "show", shared["decisions"][3 + i])["status"] == "retracted"


def test_two_clones_editing_one_document_field_conflict_and_validate_names_it(
    team: dict[str, Path], run: Run, tmp_path: Path
) -> None:
    shared = json.loads((tmp_path / "shared.json").read_text())
    pattern = shared["patterns"][0]
    for who in ("b", "c"):
        file = team[who] / "patterns" / "data" / "patterns" / f"{pattern}.yaml"
        file.write_text(file.read_text().replace("solution: retry", f"solution: {who} way"))
    assert ok(run, team["b"], "sync")["pushed"] is True
    head = git(team["c"], "rev-parse", "HEAD")
    result = run("--data-dir", str(team["c"]), "sync", "--json")
    assert result.exit_code == 8
    reply = json.loads(result.stdout)
    assert reply["code"] == "conflict"
    assert reply["files"] == [f"patterns/data/patterns/{pattern}.yaml"]
    # refused cleanly: c's own commit made, nothing half-merged
    assert git(team["c"], "status", "--porcelain") == ""
    assert git(team["c"], "rev-parse", "HEAD") != head  # its pending edit was committed
    # a person pulls by hand: git reports the conflict, validate names it until resolved
    pull = subprocess.run(
        ["git", "-C", str(team["c"]), "pull", "--no-rebase", "-q"], capture_output=True, text=True
    )
    assert pull.returncode != 0
    report = run("--data-dir", str(team["c"]), "validate", "--json")
    assert report.exit_code == 4
    issues = json.loads(report.stdout)["issues"]
    assert {(i["file"], i["code"]) for i in issues} == {
        (f"patterns/data/patterns/{pattern}.yaml", "conflict-marker")
    }
