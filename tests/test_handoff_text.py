"""The automatic handoff's text and how resume prints a handoff: punctuation, where the
carried-over note goes, which thread a small budget cuts, and whose git state a resume of
another project shows."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from lore.sessions.hooks import Digest
from lore.sessions.resume import ResumeBundle
from lore.sessions.resume_text import render

Run = Callable[..., Result]
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]


@pytest.mark.parametrize(
    ("request_text", "said"),
    [
        ("Fix the order.", 'Last request: "Fix the order." Edited 1 file: a.py.'),
        ("why is it slow?", 'Last request: "why is it slow?" Edited 1 file: a.py.'),
        ("add an index", 'Last request: "add an index". Edited 1 file: a.py.'),
    ],
)
def test_the_last_request_is_punctuated_once(request_text: str, said: str) -> None:
    digest = Digest(requests=[request_text], files=["a.py"], files_total=1)
    assert digest.message("Automatic handoff (SessionEnd).") == (
        f"Automatic handoff (SessionEnd). {said}"
    )


def _bundle(threads: list[str], own: list[str], carried_from: str | None) -> ResumeBundle:
    session = {
        "id": "session-000000000002",
        "ended_at": "2026-03-02T10:00:00.000000Z",
        "message": "Automatic handoff (SessionEnd).",
        "next_steps": ["finish the middleware"],
        "blockers": [],
        "questions": [],
        "threads": threads,
        "git": None,
        "carried_from": carried_from,
    }
    return ResumeBundle(project="shop", session=session, reconstructed=None, own_threads=own)


def test_the_carried_over_note_follows_the_carried_items_not_the_transcripts() -> None:
    bundle = _bundle(
        ["unclear key TTL", "add a unique index", "rerun the migration"],
        ["add a unique index", "rerun the migration"],
        "session-000000000001",
    )
    text, _ = render(bundle)
    assert text.splitlines()[3:] == [
        "- Next: finish the middleware",
        "- Open thread: unclear key TTL",
        "  (open items carried over from session-000000000001)",
        "- Open thread: add a unique index",
        "- Open thread: rerun the migration",
    ]


def test_a_small_budget_cuts_the_oldest_thread_first() -> None:
    threads = ["oldest request", "middle request", "newest request"]
    bundle = _bundle(threads, threads, None)
    full, _ = render(bundle)
    size = (len(full) + 3) // 4
    text, cut = render(bundle, budget=size - 1)
    lines = text.splitlines()
    assert "- Open thread: oldest request" not in lines
    assert "- Open thread: newest request" in lines
    assert "- Open thread: middle request" in lines
    assert cut == ["1 line of open threads"]


def _repo(path: Path, subject: str) -> None:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    (path / "README").write_text("x\n")
    subprocess.run([*GIT, "-C", str(path), "add", "README"], check=True)
    subprocess.run([*GIT, "-C", str(path), "commit", "-q", "-m", subject], check=True)


def _git(run: Run, *args: str) -> object:
    result = run("resume", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["reconstructed"]["git"]


def test_resume_of_another_project_never_shows_this_repositorys_commits(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _repo(tmp_path / "webshop", "webshop: first commit")
    _repo(tmp_path / "billing", "billing: first commit")
    monkeypatch.chdir(tmp_path / "webshop")
    here = _git(run)
    assert [c["subject"] for c in here["last_commits"]] == ["webshop: first commit"]  # type: ignore[index]
    assert _git(run, "--project", "webshop") == here
    assert _git(run, "--project", "billing") is None  # not registered: no git at all
    text = run("resume", "--project", "billing").stdout
    assert "webshop: first commit" not in text
    # Registered with a path: resume reads that repository.
    assert run("registry", "add", "billing", "--path", str(tmp_path / "billing")).exit_code == 0
    there = _git(run, "--project", "billing")
    assert [c["subject"] for c in there["last_commits"]] == ["billing: first commit"]  # type: ignore[index]
