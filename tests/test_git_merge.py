"""Two clones of one data root write at the same time, then merge through real git.

The promise of `lore init --git`: no conflicts, no duplicates, nothing lost, and the
merged root validates, lists and recalls every record of both sides.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

Run = Callable[..., Result]


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def lore_json(run: Run, root: Path, *args: str) -> dict | list:
    result = run("--data-dir", str(root), *args, "--json")
    assert result.exit_code == 0, (args, result.stdout, result.stderr)
    return json.loads(result.stdout)


def test_two_clones_write_at_once_and_merge_without_conflicts(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_PROJECT", "shop")
    origin = tmp_path / "origin"
    lore_json(run, origin, "init", "--git")
    # Something both sides will change: a decision each will revise, a pattern.
    shared = lore_json(run, origin, "remember", "Use Redis for sessions because: fast")["id"]
    pattern = lore_json(run, origin, "learn", "Retry flaky calls", "--solution", "backoff")["id"]
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "base")
    a, b = tmp_path / "a", tmp_path / "b"
    git(tmp_path, "clone", "-q", str(origin), str(a))
    git(tmp_path, "clone", "-q", str(origin), str(b))

    mine: dict[str, list[str]] = {"a": [], "b": []}
    for name, root in (("a", a), ("b", b)):
        for n in range(3):
            mine[name].append(lore_json(run, root, "observe", f"{name} noticed {n}")["id"])
            mine[name].append(lore_json(run, root, "fail", "Timeout", f"{name} timeout {n}")["id"])
        mine[name].append(
            lore_json(run, root, "remember", f"Pick {name}-tool for builds because: it is {name}")[
                "id"
            ]
        )
        mine[name].append(lore_json(run, root, "learn", f"{name} lesson", "--solution", "x")["id"])
        mine[name].append(lore_json(run, root, "handoff", f"{name} is done.")["id"])
        lore_json(run, root, "retract", mine[name][6])  # the side's own decision
    # Both sides revise the same shared decision (a line appended on each side).
    lore_json(run, a, "review", "--resolve", shared, "--outcome", "successful")
    lore_json(run, b, "capture", "Redis sessions need a TTL", "--supersedes", shared)

    for root in (a, b):
        git(root, "add", "-A")
        git(root, "commit", "-qm", f"work in {root.name}")
    git(b, "pull", "-q", "--no-rebase", str(a), "HEAD")  # a real merge; a conflict fails
    assert "<<<<<<<" not in "".join(p.read_text() for p in b.rglob("*.jsonl"))
    assert git(b, "status", "--porcelain") == ""  # nothing derived or local left behind

    report = lore_json(run, b, "validate")
    assert report["errors"] == 0, report["issues"]
    exported = run("--data-dir", str(b), "export")
    lines = [json.loads(line) for line in exported.stdout.splitlines()]
    ids = [x["id"] for x in lines if "_op" not in x]  # records, not their history lines
    assert len(ids) == len(set(ids))  # no record twice
    for side in ("a", "b"):
        for rid in mine[side]:
            assert rid in ids, (side, rid)
            if rid.startswith("session-"):
                assert lore_json(run, b, "show", rid)["message"] == f"{side} is done."
    assert pattern in ids
    decision = lore_json(run, b, "show", shared)
    assert decision["outcome"] == "successful"  # a's revision survived the merge
    assert decision["status"] == "superseded"  # and so did b's
    timeouts = lore_json(run, b, "triggers")["triggers"]
    assert [(t["error_type"], t["count"]) for t in timeouts] == [("Timeout", 6)]
    hits = lore_json(run, b, "recall", "noticed")["results"]
    assert sorted(h["content"] for h in hits) == [
        f"{s} noticed {n}" for s in "ab" for n in range(3)
    ]
    listed = [d["id"] for d in lore_json(run, b, "list", "decision")]  # type: ignore[index]
    assert mine["a"][6] not in listed and mine["b"][6] not in listed  # both retractions hold
    assert shared not in listed
