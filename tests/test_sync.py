"""``lore sync`` and git teamwork: a bare remote, three clones, real git, no person needed.

Every clone writes records of every kind and revises shared ones, then syncs in turn.
Afterwards each holds exactly the union: no conflict, no duplicate, identical exports,
a clean ``lore validate``. A document changed on both sides is the one case git cannot
merge: sync aborts, names it, exits 8, and loses nothing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.gitteam import git, lore, team

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def identity(monkeypatch: pytest.MonkeyPatch) -> None:
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "t")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "t@example.com")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("LORE_PROJECT", "shop")


def bulk(name: str, count: int) -> str:
    """JSONL for `lore import`: `count` records of each log kind and a few documents."""
    lines = []
    for i in range(count):
        stamp = f"2026-11-{1 + i % 20:02d}T10:00:00.000000Z"
        lines += [
            {
                "kind": "decision",
                "decision": f"{name} decision {i}",
                "rationale": "r",
                "timestamp": stamp,
            },
            {
                "kind": "failure",
                "error_type": "Timeout",
                "error_message": f"{name} slow {i}",
                "timestamp": stamp,
            },
            {"kind": "observation", "content": f"{name} noticed {i}", "timestamp": stamp},
            {"kind": "evidence", "content": f"{name} measured {i}", "timestamp": stamp},
            {"kind": "concept", "name": f"{name} concept {i}", "timestamp": stamp},
        ]
        if i % 10 == 0:
            lines += [
                {
                    "kind": "pattern",
                    "name": f"{name} pattern {i}",
                    "solution": "s",
                    "timestamp": stamp,
                },
                {
                    "kind": "anti-pattern",
                    "name": f"{name} pitfall {i}",
                    "fix": "f",
                    "timestamp": stamp,
                },
            ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def export(run: Run, root: Path) -> list[str]:
    result = run("--data-dir", str(root), "export")
    assert result.exit_code == 0, result.stderr
    return sorted(result.stdout.splitlines())


def test_three_clones_sync_in_turn_and_hold_exactly_the_union(run: Run, tmp_path: Path) -> None:
    clones = team(run, tmp_path, 3)
    shared = lore(run, clones[0], "remember", "Use Redis for sessions because: fast")["id"]
    pattern = lore(run, clones[0], "learn", "Retry flaky calls", "--solution", "backoff")["id"]
    lore(run, clones[0], "sync")
    for clone in clones[1:]:
        assert lore(run, clone, "sync")["received"]["records"] == 2

    made: dict[str, int] = {}
    for i, clone in enumerate(clones):
        imported = run("--data-dir", str(clone), "import", "-", "--json", input=bulk(f"c{i}", 40))
        assert imported.exit_code == 0, imported.stderr
        made[clone.name] = json.loads(imported.stdout)["imported"]
        # Revisions of records every clone shares, each clone its own.
        if i == 0:
            lore(run, clone, "review", "--resolve", shared, "--outcome", "successful")
        if i == 1:
            lore(run, clone, "capture", "Sessions in Redis need a TTL", "--supersedes", shared)
        lore(run, clone, "retract", lore(run, clone, "remember", f"c{i} mistake")["id"])
        lore(run, clone, "handoff", f"c{i} is done.")
    assert made == {"c0": 208, "c1": 208, "c2": 208}

    reports = [lore(run, clone, "sync") for clone in clones]
    assert [r["pushed"] for r in reports] == [True, True, True]
    assert [r["pulled"] for r in reports] == [False, True, True]
    # c0 sends its import, its retracted decision and its session; c1 also its new decision.
    assert reports[0]["sent"]["records"] == 208 + 2
    assert reports[1]["sent"]["records"] == 208 + 3
    assert reports[2]["received"]["records"] == 2 * (208 + 2) + 1
    for clone in clones[:2]:  # one more round so the first clones get the later pushes
        lore(run, clone, "sync")

    exports = [export(run, clone) for clone in clones]
    assert exports[0] == exports[1] == exports[2]
    lines = [json.loads(line) for line in exports[0]]
    ids = [x["id"] for x in lines if "_op" not in x]  # records, not their history lines
    # Export holds every kind: the imported records, the three sessions too.
    assert len(ids) == len(set(ids)) == 2 + 3 * (208 + 1) + 1 + 3
    for clone in clones:
        report = lore(run, clone, "validate")
        assert (report["ok"], report["errors"]) == (True, 0), report["issues"][:3]
        assert git(clone, "status", "--porcelain") == ""
        tracked = git(clone, "ls-files").splitlines()
        assert not [p for p in tracked if p.endswith((".lock", ".tmp")) or "index" in p], tracked
        assert not list(clone.rglob("*.jsonl")) or all(
            "<<<<<<<" not in p.read_text() for p in clone.rglob("*.jsonl")
        )
        shown = lore(run, clone, "show", shared)
        assert (shown["outcome"], shown["status"]) == ("successful", "superseded")
        assert lore(run, clone, "show", pattern)["name"] == "Retry flaky calls"


def test_a_document_changed_on_both_sides_is_refused_and_nothing_is_lost(
    run: Run, tmp_path: Path
) -> None:
    a, b = team(run, tmp_path, 2)
    pattern = lore(run, a, "learn", "Retry flaky calls", "--solution", "backoff")["id"]
    lore(run, a, "sync")
    lore(run, b, "sync")
    doc = Path("patterns/data/patterns") / f"{pattern}.yaml"
    for root, fix in ((a, "backoff with jitter"), (b, "backoff, at most 3 tries")):
        text = (root / doc).read_text()
        (root / doc).write_text(text.replace("solution: backoff", f"solution: {fix}"))
    lore(run, a, "sync")
    head_before = git(b, "rev-parse", "HEAD")

    refused = lore(run, b, "sync", code=8)
    assert refused["ok"] is False
    assert refused["code"] == "conflict"
    assert refused["files"] == [str(doc)]
    assert str(doc) in refused["error"]
    # The merge was aborted: b keeps its own commit, its file, and no conflict markers.
    assert git(b, "status", "--porcelain") == ""
    assert git(b, "rev-list", "--count", f"{head_before.strip()}..HEAD") == "1\n"
    assert "solution: backoff, at most 3 tries" in (b / doc).read_text()
    assert lore(run, b, "validate")["ok"] is True

    # The person merges by hand; until it is resolved, lore validate names the file.
    subprocess.run(["git", "pull", "-q", "--no-rebase"], cwd=b, capture_output=True, check=False)
    report = lore(run, b, "validate", code=4)
    assert any(
        i["file"] == str(doc) and i["code"] == "conflict-marker" for i in report["issues"]
    ), report["issues"]
    again = lore(run, b, "sync", code=8)
    assert again["files"] == [str(doc)]
    assert "git is in the middle of a merge" in again["error"]
    assert "abort" not in again["error"]  # no advice that could lose a record
    # While it is unfinished, lore writes nothing (a record would be lost to an abort).
    refused_write = run("--data-dir", str(b), "observe", "mid-merge note", "--json")
    assert refused_write.exit_code == 8
    assert json.loads(refused_write.stdout)["error"].startswith(
        f"git is in the middle of a merge in {b}; lore writes nothing until it is finished"
    )


def test_sync_without_an_upstream_commits_locally(run: Run, tmp_path: Path) -> None:
    root = tmp_path / "solo"
    lore(run, root, "init", "--git")
    lore(run, root, "remember", "Keep it local because: no remote yet")
    lore(run, root, "fail", "Timeout", "slow")
    result = lore(run, root, "sync")
    assert result["upstream"] is None
    assert result["committed"]["records"] == 2
    assert result["committed"]["kinds"] == {"decision": 1, "failure": 1}
    assert result["committed"]["commit"] == git(root, "rev-parse", "HEAD").strip()
    assert git(root, "log", "-1", "--format=%s").startswith(
        "lore sync: 2 records (decision 1, failure 1) from "
    )
    assert lore(run, root, "sync")["committed"]["commit"] is None  # nothing pending


def test_sync_in_a_clone_of_an_empty_remote_commits_and_says_how_to_push(
    run: Run, tmp_path: Path
) -> None:
    # git clone of an empty repository configures an upstream branch that does not exist
    # yet; sync used to pass git's echo of "@{upstream}" on as the remote's name.
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    root = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(root))
    lore(run, root, "remember", "Share it because: the team reads it")
    result = lore(run, root, "sync")
    assert (result["upstream"], result["missing_upstream"]) == (None, "origin/main")
    assert result["committed"]["records"] == 1
    text = run("--data-dir", str(root), "sync")
    assert text.exit_code == 0, text.stderr
    assert (
        "lore: the upstream branch origin/main does not exist yet (an empty remote?): "
        "committed locally only; `git push -u origin main` creates it"
    ) in text.stderr
    git(root, "push", "-q", "-u", "origin", "main")
    lore(run, root, "remember", "Then sync sends because: the branch exists")
    after = lore(run, root, "sync")
    assert (after["upstream"], after["pushed"]) == ("origin/main", True)
    assert "missing_upstream" not in after


def test_sync_outside_a_repository_is_a_clear_error(run: Run, tmp_path: Path) -> None:
    root = tmp_path / "plain"
    lore(run, root, "init")
    result = run("--data-dir", str(root), "sync")
    assert result.exit_code == 1
    assert "is not a git repository of its own; run `lore init --git`" in result.stderr


def test_a_bad_sync_mode_is_a_usage_error(run: Run, tmp_path: Path) -> None:
    root = tmp_path / "solo"
    lore(run, root, "init", "--git")
    git(root, "config", "lore.syncMode", "squash")
    result = run("--data-dir", str(root), "sync")
    assert result.exit_code == 2
    assert "sync mode 'squash' is not one of merge, rebase" in result.stderr
    assert git(root, "status", "--porcelain") != ""  # nothing was committed


def test_rebase_mode_keeps_history_linear(run: Run, tmp_path: Path) -> None:
    a, b = team(run, tmp_path, 2)
    lore(run, a, "observe", "from a")
    lore(run, a, "sync")
    lore(run, b, "observe", "from b")
    result = lore(run, b, "sync", "--rebase")
    assert (result["mode"], result["pulled"], result["pushed"]) == ("rebase", True, True)
    assert git(b, "log", "--merges", "--format=%h") == ""


def test_sync_without_a_git_identity_says_how_to_set_one(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for role in ("AUTHOR", "COMMITTER"):
        for what in ("NAME", "EMAIL"):
            monkeypatch.delenv(f"GIT_{role}_{what}")
    monkeypatch.setenv("EMAIL", "")
    root = tmp_path / "solo"
    lore(run, root, "init", "--git")
    lore(run, root, "observe", "nobody signs this")
    result = run("--data-dir", str(root), "sync")
    if result.exit_code == 0:
        pytest.skip("git found an identity on this machine anyway")
    assert result.exit_code == 1
    assert f"git has no identity to commit with: set one, e.g. git -C {root} config" in (
        result.stderr
    )
