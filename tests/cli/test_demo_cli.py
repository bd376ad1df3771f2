"""``lore demo``: the whole loop on a throwaway root, each command shown before its output."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from click.testing import Result

from lore.cli import LAZY_COMMANDS
from lore.cli import demo as demo_mod

Run = Callable[..., Result]


@pytest.fixture
def tmpdir_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "system-tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def jsonl(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_demo_keep_plays_the_whole_loop(
    run: Run, tmp_path: Path, tmpdir_used: Path, data_dir: Path
) -> None:
    result = run("demo", "--keep", "kept")  # relative: to the caller's directory
    assert result.exit_code == 0, result.stderr
    kept = tmp_path / "work" / "kept"
    out = result.stdout
    lines = out.splitlines()
    # Each command is printed, then what it printed.
    remember = next(i for i, line in enumerate(lines) if line.startswith("$ lore remember "))
    assert lines[remember - 1] == "# Record a decision with its reason and the options not taken."
    assert lines[remember + 1].startswith("decision dec-")
    assert lines[1] == "$ lore resume"
    assert lines[2:5] == [
        "lore resume — demo",
        "## No handoff yet",
        "Context rebuilt from recent records and git history.",
    ]
    assert (
        "lore: Rule of Three: 3 failures of type Timeout. "
        'Name it: lore promote-failure Timeout --fix "..." (a PITFALL anti-pattern), '
        'or lore learn "..." --solution "..." --tags Timeout (a pattern)'
    ) in lines
    assert "$ lore handoff 'Cache layer done; retries next.'" in out
    assert "## Last handoff (session-" in out
    assert "- PITFALL: Timeout — fix: run the slow tests with -n 2 (anti-" in out
    assert lines[-1] == f"Demo data kept in {kept}. Start for real with: lore init && lore resume"
    for name in ("recall", "triggers"):
        # Commands this version does not register yet are skipped, not failed.
        assert (f"$ lore {name} " in out or f"$ lore {name}\n" in out) == (name in LAZY_COMMANDS)
    assert "internal error" not in out and "Usage:" not in out

    # The records are all there, in DIR; the user's own root and the tmp dir are untouched.
    data = kept
    (decision,) = jsonl(data / "journal" / "data" / "decisions.jsonl")
    assert decision["decision"] == "Use SQLite for the response cache"
    assert decision["alternatives"] == ["redis", "postgres"]
    assert decision["project"] == "demo"
    failures = jsonl(data / "failures" / "data" / "failures.jsonl")
    assert [f["error_type"] for f in failures] == ["Timeout"] * 3
    assert len(list((data / "patterns" / "data" / "patterns").glob("pat-*.yaml"))) == 1
    assert len(list((data / "patterns" / "data" / "anti-patterns").glob("anti-*.yaml"))) == 1
    assert len(jsonl(data / "inbox" / "data" / "observations.jsonl")) == 1
    (session,) = (data / "transfer" / "data" / "sessions").glob("session-*.json")
    record = orjson.loads(session.read_bytes())
    assert (record["status"], record["next_steps"]) == (
        "closed",
        ["add retries to the HTTP client"],
    )
    assert sum(len(ids) for ids in record["captured"].values()) == 6
    assert not data_dir.exists()
    assert list(tmpdir_used.iterdir()) == []


def test_demo_without_keep_leaves_nothing_behind(
    run: Run, tmpdir_used: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three steps are enough to write a root, a cache and a session; cleanup is the point.
    steps = [step for step in demo_mod.STEPS if step[1][0] in ("observe", "handoff")]
    monkeypatch.setattr(demo_mod, "STEPS", [demo_mod.STEPS[0], *steps])
    result = run("demo")
    assert result.exit_code == 0, result.stderr
    assert "$ lore observe 'The test suite takes 40 s on CI'" in result.stdout
    assert "handed off (1 record captured)" in result.stdout
    assert result.stdout.splitlines()[-1] == (
        "Demo data removed. Start for real with: lore init && lore resume"
    )
    assert list(tmpdir_used.iterdir()) == []
    assert not data_dir.exists()


def test_demo_after_init_does_not_ask_for_init_again(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo_mod, "STEPS", [demo_mod.STEPS[0]])
    assert run("init").exit_code == 0  # what install.sh does
    result = run("demo")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[-1] == (
        f"Demo data removed. Your data root ({data_dir}) is ready: start for real with: lore resume"
    )
