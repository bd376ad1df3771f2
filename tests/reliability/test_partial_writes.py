"""Issue 15: a command that changes several records either changes them all or none, or
running it again finishes it. Each case makes one of the writes fail (a lock another
process holds, exit 5) and checks what is on disk, then runs the command again."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.storage.lock import locked

Run = Callable[..., Result]
OLD = "Keep sessions in `redis` via src/cache.py"
NEW = "Move sessions out of `redis` and delete src/cache.py"


@pytest.fixture(autouse=True)
def quick_locks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_LOCK_TIMEOUT", "0.2")


def ok(run: Run, *args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, (args, result.stderr)
    return json.loads(result.stdout)


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


@contextmanager
def held(path: Path) -> Iterator[None]:
    """Another writer holds the lock of ``path`` (a second descriptor: flock says no)."""
    with locked(path):
        yield


def test_a_capture_and_its_contradiction_edge_are_one_write(run: Run, data_dir: Path) -> None:
    old = ok(run, "remember", OLD)["id"]
    before = tree(data_dir)
    with held(data_dir / "graph" / "data" / "edges.jsonl"):
        stopped = run("remember", NEW)
    assert stopped.exit_code == 5
    assert tree(data_dir) == before  # no decision without its edge
    new = ok(run, "remember", NEW)
    assert new["contradicts"] == [old]
    [edge] = ok(run, "list", "edges")
    assert (edge["src"], edge["dst"], edge["relation"]) == (new["id"], old, "contradicts")


def test_concepts_promote_writes_the_concept_with_its_edges_or_nothing(
    run: Run, data_dir: Path
) -> None:
    a = ok(run, "remember", "Cache pages in Redis")["id"]
    b = ok(run, "remember", "Cache sessions in Redis")["id"]
    before = tree(data_dir)
    with held(data_dir / "graph" / "data" / "edges.jsonl"):
        stopped = run("concepts", "promote", "Caching", "--members", f"{a},{b}")
    assert stopped.exit_code == 5
    assert tree(data_dir) == before  # no concept without its grounds edges
    done = ok(run, "concepts", "promote", "Caching", "--members", f"{a},{b}")
    assert done["created"] is True
    assert sorted(e["src"] for e in done["edges"]) == sorted([a, b])


def test_inbox_promote_stopped_half_way_is_finished_by_running_it_again(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    obs = ok(run, "observe", "Use uv for installs")["id"]
    from lore.errors import LockTimeoutError
    from lore.store.core import Store

    real = Store.update
    calls: list[str] = []

    def stopped_on_the_observation(self: Store, record_id: str, *args: Any, **kw: Any) -> Any:
        calls.append(record_id)
        if record_id == obs and len(calls) == 1:
            raise LockTimeoutError("timed out waiting for the lock (test)")
        return real(self, record_id, *args, **kw)

    monkeypatch.setattr(Store, "update", stopped_on_the_observation)
    stopped = run("inbox", "promote", obs, "--to", "decision")
    assert stopped.exit_code == 5
    [decision] = ok(run, "list", "decisions")  # written; the observation is still raw
    assert ok(run, "show", obs)["status"] == "raw"
    again = ok(run, "inbox", "promote", obs, "--to", "decision")  # no --force needed
    assert again["promoted_to"] == decision["id"]
    assert again["warnings"] == [f"reused {decision['id']}, made from {obs} by an earlier promote"]
    assert [d["id"] for d in ok(run, "list", "decisions")] == [decision["id"]]  # one target
    assert ok(run, "show", obs)["promoted_to"] == decision["id"]


def test_a_review_stopped_by_a_pattern_lock_is_finished_by_running_it_again(
    run: Run, data_dir: Path
) -> None:
    pattern = ok(run, "learn", "Cache by key", "--solution", "hash it")["id"]
    decision = ok(run, "remember", "Cache responses", "-r", f"per {pattern}")["id"]
    doc = data_dir / "patterns" / "data" / "patterns" / f"{pattern}.yaml"
    with held(doc):
        stopped = run("review", "--resolve", decision, "--outcome", "successful")
    assert stopped.exit_code == 5
    assert ok(run, "show", decision)["outcome"] == "pending"  # not half resolved
    done = ok(run, "review", "--resolve", decision, "--outcome", "successful")
    assert done["patterns_raised"] == [{"id": pattern, "from": 0.5, "to": 0.6}]
    assert ok(run, "show", pattern)["validations"] == 1


def test_resume_fork_with_an_unwritable_cache_leaves_no_orphan_session(
    run: Run, data_dir: Path, tmp_path: Path
) -> None:
    ok(run, "handoff", "First session", "--next", "go on")
    before = sorted((data_dir / "transfer" / "data" / "sessions").iterdir())
    blocker = tmp_path / "cache-file"
    blocker.write_text("not a directory")
    for _ in range(2):
        result = run("resume", "--fork", env={"LORE_CACHE_DIR": str(blocker / "lore")})
        assert result.exit_code == 1
        assert "Not a directory" in result.stderr and str(blocker) in result.stderr
    assert sorted((data_dir / "transfer" / "data" / "sessions").iterdir()) == before
