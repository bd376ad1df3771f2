"""``lore handoff``, ``lore resume``, ``lore sessions`` and ``lore transfer prune`` end to end."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import Result

from lore.components.intent import Goal
from lore.components.transfer import Session
from lore.store.core import Store

Run = Callable[..., Result]
NOW = "2026-03-04T05:06:07.000000Z"
COMMIT_DATE = "2026-01-02T03:04:05+00:00"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "T",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "T",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_AUTHOR_DATE": COMMIT_DATE,
    "GIT_COMMITTER_DATE": COMMIT_DATE,
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def make_repo(path: Path, *subjects: str) -> Path:
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    for n, subject in enumerate(subjects or ("first commit",)):
        (path / "README.md").write_text(f"version {n}\n")
        git(path, "add", "README.md")
        git(path, "commit", "-q", "-m", subject)
    return path


def sessions_dir(data_dir: Path) -> Path:
    return data_dir / "transfer" / "data" / "sessions"


def session_on_disk(data_dir: Path, session_id: str) -> dict[str, Any]:
    return orjson.loads((sessions_dir(data_dir) / f"{session_id}.json").read_bytes())


def new_id(run: Run, *args: str, env: dict[str, str] | None = None) -> str:
    result = run(*args, "-q", env=env)
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


def ok_json(run: Run, *args: str, env: dict[str, str] | None = None) -> Any:
    result = run(*args, "--json", env=env)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def tree(*roots: Path) -> dict[str, str]:
    """Every file (content hash) and directory under ``roots``."""
    out: dict[str, str] = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                out[str(path)] = "dir"
    return out


# --- handoff ------------------------------------------------------------------------


def test_handoff_in_a_git_repo_writes_the_whole_session(
    run: Run, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "proj", "first commit", "second commit")
    (repo / "README.md").write_text("changed\n")
    (repo / "notes é.txt").write_text("untracked, with a space and non-ASCII\n")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("LORE_NOW", NOW)
    dec = new_id(run, "remember", "Use rsync for deploys because: resumable")
    pat = new_id(run, "learn", "Retry flaky calls", "--solution", "backoff")
    fail = new_id(run, "fail", "Timeout", "pytest timed out")
    obs = new_id(run, "observe", "CI is slow on Mondays")
    new_id(run, "observe", "Not this project", "--project", "elsewhere")
    new_id(run, "observe", "Another agent's", env={"LORE_SESSION_ID": "session-other"})
    out = ok_json(
        run,
        "handoff",
        "Parser done; tests green. Next: the CLI.",
        "--next",
        "wire the CLI",
        "--next",
        "write docs",
        "--blocker",
        "CI quota",
        "--question",
        "keep v1 format?",
        "--thread",
        "perf of fold()",
    )
    sid = out["id"]
    assert [p.name for p in sessions_dir(data_dir).glob("*.json")] == [f"{sid}.json"]
    record = session_on_disk(data_dir, sid)
    head = git(repo, "rev-parse", "HEAD").strip()
    first, second = git(repo, "log", "--format=%h").split()[::-1]
    assert record == {
        "id": sid,
        "timestamp": NOW,
        "status": "closed",
        "started_at": NOW,  # its first record
        "ended_at": NOW,
        "message": "Parser done; tests green. Next: the CLI.",
        "summary": "Parser done; tests green.",
        "next_steps": ["wire the CLI", "write docs"],
        "blockers": ["CI quota"],
        "questions": ["keep v1 format?"],
        "threads": ["perf of fold()"],
        "git": {
            "repo": "proj",
            "path": str(repo.resolve()),
            "branch": "main",
            "head": head,
            "uncommitted": ["README.md", "notes é.txt"],
            "last_commits": [
                {"sha": second, "date": COMMIT_DATE, "subject": "second commit"},
                {"sha": first, "date": COMMIT_DATE, "subject": "first commit"},
            ],
        },
        "captured": {
            "decision": [dec],
            "pattern": [pat],
            "failure": [fail],
            "observation": [obs],
        },
        "parent": None,
        "session_id": None,
        "project": "proj",
        "source": "manual",
        "tags": ["proj"],
        "v": 1,
    }
    assert list(record) == [n for n in Session.field_names() if n != "provenance"]  # unset
    assert out == {
        "ok": True,
        "id": sid,
        "type": "session",
        "timestamp": NOW,
        "record": record,
        "open_items": {"how": "new", "from": None, "inherited": 0, "added": 5},
    }


def test_handoff_outside_a_repo_has_no_git_block(run: Run, data_dir: Path) -> None:
    obs = new_id(run, "observe", "Noted")
    result = run("handoff", "All done.")
    assert result.exit_code == 0, result.stderr
    (file,) = sessions_dir(data_dir).glob("*.json")
    record = orjson.loads(file.read_bytes())
    assert result.stdout == f"session {record['id']} handed off (1 record captured)\n"
    assert record["git"] is None
    assert record["project"] is None
    assert record["tags"] == []
    assert record["captured"] == {"observation": [obs]}
    assert (record["summary"], record["next_steps"], record["blockers"]) == ("All done.", [], [])


def test_handoff_reads_the_message_from_stdin(run: Run, data_dir: Path) -> None:
    result = run("handoff", "-", "--json", input="From stdin. Second.\n")
    assert result.exit_code == 0, result.stderr
    record = json.loads(result.stdout)["record"]
    assert (record["message"], record["summary"]) == ("From stdin. Second.", "From stdin.")


def test_handoff_without_a_message_is_a_usage_error(run: Run, data_dir: Path) -> None:
    result = run("handoff", "")
    assert result.exit_code == 2
    assert result.stderr == "lore: error: a handoff needs a message\n"
    assert not sessions_dir(data_dir).exists()


def test_captures_under_lore_session_id_go_to_that_session(run: Run, data_dir: Path) -> None:
    env = {"LORE_SESSION_ID": "session-agent-a"}
    dec = new_id(run, "remember", "Cache with SQLite", env=env)
    fail = new_id(run, "fail", "NonZeroExit", "make exited 2", env=env)
    assert ok_json(run, "show", dec)["session_id"] == "session-agent-a"
    out = ok_json(run, "handoff", "A is done.", env=env)
    assert out["id"] == "session-agent-a"
    assert session_on_disk(data_dir, "session-agent-a")["captured"] == {
        "decision": [dec],
        "failure": [fail],
    }


def test_parallel_agents_do_not_mix_their_records(run: Run, data_dir: Path) -> None:
    a = {"LORE_SESSION_ID": "session-agent-a"}
    b = {"LORE_SESSION_ID": "session-agent-b"}
    a1 = new_id(run, "observe", "a sees one thing", env=a)
    b1 = new_id(run, "observe", "b sees another", env=b)
    a2 = new_id(run, "remember", "A decides to use rsync", env=a)
    b2 = new_id(run, "learn", "B learns to retry", env=b)
    assert ok_json(run, "handoff", "B done.", env=b)["record"]["captured"] == {
        "pattern": [b2],
        "observation": [b1],
    }
    assert ok_json(run, "handoff", "A done.", env=a)["record"]["captured"] == {
        "decision": [a2],
        "observation": [a1],
    }
    assert sorted(p.name for p in sessions_dir(data_dir).glob("*.json")) == [
        "session-agent-a.json",
        "session-agent-b.json",
    ]


@pytest.mark.parametrize("command", [["observe", "x"], ["handoff", "Done."], ["resume", "--fork"]])
def test_bad_lore_session_id_is_a_usage_error(run: Run, data_dir: Path, command: list[str]) -> None:
    result = run(*command, "--json", env={"LORE_SESSION_ID": "my session"})
    assert result.exit_code == 2
    message = (
        "LORE_SESSION_ID='my session' is not a session id "
        "(expected 'session-' then lowercase letters, digits or '-')"
    )
    assert result.stderr == f"lore: error: {message}\n"
    assert json.loads(result.stdout) == {"ok": False, "error": message, "code": "usage"}
    assert not (data_dir / "inbox").exists()
    assert not sessions_dir(data_dir).exists()


# --- fork ---------------------------------------------------------------------------


def first_handoff(run: Run) -> str:
    return ok_json(
        run,
        "handoff",
        "First part done.",
        "--next",
        "n1",
        "--blocker",
        "b1",
        "--question",
        "q1",
        "--thread",
        "t1",
    )["id"]


def test_fork_starts_a_child_that_inherits_and_hands_it_on(run: Run, data_dir: Path) -> None:
    parent = first_handoff(run)
    result = run("resume", "--fork")
    assert result.exit_code == 0, result.stderr
    child = result.stdout.splitlines()[-1].split()[2]
    assert result.stdout.splitlines()[-1] == f"Started session {child} (forked from {parent})."
    record = session_on_disk(data_dir, child)
    assert (record["status"], record["parent"]) == ("open", parent)
    assert (record["next_steps"], record["blockers"]) == (["n1"], ["b1"])
    assert (record["questions"], record["threads"]) == (["q1"], ["t1"])
    obs = new_id(run, "observe", "During the fork")
    assert ok_json(run, "show", obs)["session_id"] == child
    reply = run("handoff", "Second part done.", "--next", "n2")
    assert reply.stdout == f"session {child} handed off (1 record captured)\n"
    assert reply.stderr == (
        f"lore: open items: kept 4 inherited from {parent}, added 1 "
        "(merged; --replace drops the inherited ones)\n"
    )
    closed = session_on_disk(data_dir, child)
    assert closed["parent"] == parent
    assert closed["next_steps"] == ["n1", "n2"]  # merged: the inherited step stays
    assert (closed["blockers"], closed["questions"], closed["threads"]) == (["b1"], ["q1"], ["t1"])
    assert closed["captured"] == {"observation": [obs]}
    # --replace: the handoff's lists are the open items, the inherited ones are dropped.
    grandchild = run("resume", "--fork").stdout.splitlines()[-1].split()[2]
    out = ok_json(run, "handoff", "Third part done.", "--next", "n3", "--replace")
    assert out["open_items"] == {"how": "replaced", "from": child, "inherited": 5, "added": 1}
    record = out["record"]
    assert (record["id"], record["next_steps"], record["blockers"]) == (grandchild, ["n3"], [])


def test_fork_under_lore_session_id_uses_that_id(run: Run, data_dir: Path) -> None:
    parent = first_handoff(run)
    env = {"LORE_SESSION_ID": "session-agent-a"}
    out = ok_json(run, "resume", "--fork", env=env)
    assert out["fork"] == {"id": "session-agent-a", "parent": parent}
    obs = new_id(run, "observe", "agent a works", env=env)
    closed = ok_json(run, "handoff", "Agent A done.", env=env)["record"]
    assert (closed["id"], closed["parent"], closed["next_steps"]) == (
        "session-agent-a",
        parent,
        ["n1"],
    )
    assert closed["captured"] == {"observation": [obs]}
    again = run("resume", "--fork", env=env)
    assert again.exit_code == 2
    assert "LORE_SESSION_ID=session-agent-a already names a session" in again.stderr
    assert len(list(sessions_dir(data_dir).glob("*.json"))) == 2


def test_fork_of_a_named_session(run: Run, data_dir: Path) -> None:
    older = first_handoff(run)
    ok_json(run, "handoff", "Later, with nothing open.")
    out = ok_json(run, "resume", older, "--fork")
    assert out["session"]["id"] == older
    assert session_on_disk(data_dir, out["fork"]["id"])["next_steps"] == ["n1"]


# --- resume -------------------------------------------------------------------------


def test_resume_is_read_only(
    run: Run, data_dir: Path, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "proj")
    monkeypatch.chdir(repo)
    new_id(run, "remember", "Use SQLite because: simple")
    new_id(run, "learn", "Retry", "--solution", "backoff")
    for n in range(3):
        new_id(run, "fail", "Timeout", f"timed out {n}")
    ok_json(run, "promote-failure")
    sid = first_handoff(run)
    ok_json(run, "resume", "--fork")  # leaves an open session and its pointer
    local = store.root.local
    assert (local / "state").is_dir()
    run("index", "rebuild")  # the derived search index may be refreshed by any read
    before = tree(data_dir, local)
    for args in (
        [],
        ["--json"],
        ["--budget", "5"],
        [sid],
        ["--project", "elsewhere"],
        ["--project", "elsewhere", "--json"],
    ):
        result = run("resume", *args)
        assert result.exit_code == 0, (args, result.stderr)
    monkeypatch.chdir(tmp_path / "work")
    assert run("resume", "--json").exit_code == 0
    assert tree(data_dir, local) == before
    # --fork is the one exception: one new session file and the pointer move.
    child = ok_json(run, "resume", "--fork")["fork"]["id"]
    after = tree(data_dir, local)
    changed = {k for k in after if before.get(k) != after[k]}
    assert changed == {
        str(sessions_dir(data_dir) / f"{child}.json"),
        str(local / "state" / "open-session._"),
    }


def test_resume_text_sections_in_order(
    run: Run, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_PROJECT", "proj")
    monkeypatch.setenv("LORE_NOW", "2026-01-01T00:00:00.000000Z")
    old = new_id(run, "remember", "Adopt ruff for linting because: fast")
    monkeypatch.setenv("LORE_NOW", NOW)
    dec = new_id(run, "remember", "Use SQLite for the cache because: zero setup")
    pat = new_id(run, "learn", "Retry flaky calls", "--solution", "3 tries with backoff")
    for n in range(3):
        at = f"2026-03-04T05:0{n}:00.000000Z"
        new_id(run, "fail", "Timeout", f"pytest timed out {n}", env={"LORE_NOW": at})
    anti = ok_json(run, "promote-failure", "Timeout", "--fix", "run with -n 2")["promoted"][0]["id"]
    store.add(
        [
            Goal(
                id="goal-000000000001",
                timestamp=NOW,
                title="Ship 1.0",
                project="proj",
                criteria=[{"text": "docs", "met": True}, {"text": "tests", "met": False}],
            )
        ]
    )
    sid = ok_json(
        run,
        "handoff",
        "Cache layer done. Retries next.",
        "--next",
        "add retries",
        "--blocker",
        "CI slow",
        "--question",
        "which backoff?",
        "--thread",
        "flaky test_sync",
    )["id"]
    result = run("resume")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        "lore resume — proj",
        f"## Last handoff ({sid}, 2026-03-04 05:06 UTC)",
        "Cache layer done. Retries next.",
        "- Next: add retries",
        "- Blocker: CI slow",
        "- Question: which backoff?",
        "- Open thread: flaky test_sync",
        "## Recent decisions",
        f"- Use SQLite for the cache — because zero setup ({dec}, pending)",
        f"- Adopt ruff for linting — because fast ({old}, pending, review due)",
        "## Patterns",
        f"- Retry flaky calls: 3 tries with backoff ({pat}, confidence 0.5)",
        "## Pitfalls",
        f"- PITFALL: Timeout — fix: run with -n 2 ({anti}, medium)",
        "## Recurring failures (Rule of Three)",
        f'- Timeout x3: last "pytest timed out 2", see {anti}',
        "## Open goals",
        "- Ship 1.0 [1/2 criteria] (goal-000000000001)",
        "## Decisions pending review (1)",
        "- listed under Recent decisions (review due)",  # not a second time
    ]


def test_resume_json_shape(run: Run, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_PROJECT", "proj")
    monkeypatch.setenv("LORE_NOW", NOW)
    dec = new_id(run, "remember", "Use SQLite because: simple", "--type", "architecture")
    pat = new_id(run, "learn", "Retry", "--solution", "backoff")
    for n in range(3):
        new_id(run, "fail", "Timeout", f"timed out {n}")
    sid = ok_json(run, "handoff", "Done. Really.", "--next", "n1")["id"]
    data = ok_json(run, "resume", "--budget", "30")
    # Same timestamps: which of the three is "last" is not defined; it is one of them.
    last_message = data["recurring_failures"][0]["last_message"]
    assert last_message in {f"timed out {n}" for n in range(3)}
    assert data == {
        "project": "proj",
        "session": {
            "id": sid,
            "status": "closed",
            "started_at": NOW,
            "ended_at": NOW,
            "message": "Done. Really.",
            "summary": "Done.",
            "next_steps": ["n1"],
            "blockers": [],
            "questions": [],
            "threads": [],
            "git": None,
            "parent": None,
            "project": "proj",
            "source": "manual",
            "carried_from": None,
        },
        "reconstructed": None,
        "recent_decisions": [
            {
                "id": dec,
                "timestamp": NOW,
                "decision": "Use SQLite",
                "rationale": "simple",
                "outcome": "pending",
                "type": "architecture",
                "review_due": False,
            }
        ],
        "patterns": [
            {
                "id": pat,
                "name": "Retry",
                "solution": "backoff",
                "confidence": 0.5,
                "validations": 0,
                "flagged": None,
            }
        ],
        "pitfalls": [],
        "recurring_failures": [
            {
                "error_type": "Timeout",
                "count": 3,
                "last_seen": NOW,
                "last_message": last_message,
                "pitfall": None,
                "pattern": None,
            }
        ],
        "goals": [],
        "goals_count": 0,
        "pending_review": [],
        "pending_review_count": 0,
        "fork": None,
        "tending": {"conflicts": 0, "proposals": None},
        "cut": ["1 line of patterns", "1 line of recurring failures", "1 line of recent decisions"],
    }


def test_resume_with_no_session_rebuilds_from_records_and_git(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "proj", "first commit", "add the parser")
    (repo / "wip.py").write_text("x = 1\n")
    monkeypatch.chdir(repo)
    obs = new_id(run, "observe", "CI cache is cold on Mondays")
    dec = new_id(run, "remember", "Keep the parser pure")
    result = run("resume")
    assert result.exit_code == 0, result.stderr
    second, first = git(repo, "log", "--format=%h").split()
    assert result.stdout.splitlines() == [
        "lore resume — proj",
        "## No handoff yet",
        "Context rebuilt from recent records and git history.",
        f"- commit {second} add the parser",
        f"- commit {first} first commit",
        "- uncommitted: wip.py",
        f"- noticed: CI cache is cold on Mondays ({obs})",
        "## Recent decisions",
        f"- Keep the parser pure ({dec}, pending)",
    ]
    data = ok_json(run, "resume")
    assert data["session"] is None
    rebuilt = data["reconstructed"]
    assert rebuilt["note"] == "no handoff yet: context rebuilt from recent records and git history"
    assert rebuilt["git"]["uncommitted"] == ["wip.py"]
    assert [c["subject"] for c in rebuilt["git"]["last_commits"]] == [
        "add the parser",
        "first commit",
    ]
    when = ok_json(run, "show", obs)["timestamp"]
    assert rebuilt["recent_observations"] == [
        {"id": obs, "timestamp": when, "content": "CI cache is cold on Mondays"}
    ]


def test_resume_with_nothing_at_all(run: Run, data_dir: Path) -> None:
    result = run("resume")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        "lore resume\n## No handoff yet\nContext rebuilt from recent records and git history.\n"
    )
    assert not data_dir.exists()


def test_resume_a_named_session(run: Run) -> None:
    first = ok_json(run, "handoff", "First.", "--next", "n1")["id"]
    ok_json(run, "handoff", "Second.")
    assert ok_json(run, "resume")["session"]["message"] == "Second."
    named = ok_json(run, "resume", first)["session"]
    assert (named["id"], named["message"], named["next_steps"]) == (first, "First.", ["n1"])


def test_resume_of_a_record_that_is_not_a_session(run: Run) -> None:
    dec = new_id(run, "remember", "Not a session")
    result = run("resume", dec)
    assert result.exit_code == 2
    assert result.stderr == f"lore: error: {dec} is a decision, not a session\n"


def test_resume_of_an_unknown_session(run: Run) -> None:
    result = run("resume", "session-000000000000", "--json")
    assert result.exit_code == 3
    assert json.loads(result.stdout)["code"] == "not_found"
    assert result.stderr == "lore: error: no record with id 'session-000000000000'\n"


# --- sessions and prune -------------------------------------------------------------


def test_sessions_list_and_show(run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", "2026-03-01T10:00:00.000000Z")
    a = ok_json(run, "handoff", "First one. Detail.")["id"]
    monkeypatch.setenv("LORE_NOW", "2026-03-02T11:30:00.000000Z")
    b = ok_json(run, "handoff", "Second one.")["id"]
    listed = run("sessions", "list")
    assert listed.stdout.splitlines() == [
        f"{b}  closed   2026-03-02 11:30  Second one.",
        f"{a}  closed   2026-03-01 10:00  First one.",
    ]
    assert run("sessions").stdout == listed.stdout
    assert [s["id"] for s in ok_json(run, "sessions", "list")] == [b, a]
    assert ok_json(run, "sessions", "show", a) == session_on_disk(data_dir, a)
    missing = run("sessions", "show", "session-000000000000")
    assert missing.exit_code == 3


@pytest.mark.usefixtures("empty_root")
def test_sessions_list_when_there_are_none(run: Run) -> None:
    result = run("sessions", "list")
    assert (result.stdout, result.stderr) == ("", "lore: no sessions\n")
    assert ok_json(run, "sessions", "list") == []


def test_prune_dry_run_then_for_real(run: Run, data_dir: Path, store: Store) -> None:
    old = "2025-01-01T00:00:00.000000Z"
    store.add([Session(id="session-empty0", timestamp=old, status="closed", ended_at=old)])
    kept = ok_json(run, "handoff", "Has a message.")["id"]
    file = sessions_dir(data_dir) / "session-empty0.json"
    before = file.read_bytes()
    dry = run("transfer", "prune", "--dry-run")
    assert dry.stdout == "would archive 1 empty session\n  session-empty0\n"
    assert file.read_bytes() == before
    assert ok_json(run, "transfer", "prune", "--dry-run") == {
        "ok": True,
        "dry_run": True,
        "archived": ["session-empty0"],
    }
    assert ok_json(run, "transfer", "prune") == {
        "ok": True,
        "dry_run": False,
        "archived": ["session-empty0"],
    }
    assert file.is_file()
    assert orjson.loads(file.read_bytes())["status"] == "archived"
    assert [s["id"] for s in ok_json(run, "sessions", "list")] == [kept]
    assert [s["id"] for s in ok_json(run, "sessions", "list", "--all")] == [
        kept,
        "session-empty0",
    ]
    assert run("transfer", "prune").stdout == "archived 0 empty sessions\n"


def test_resume_of_an_observation_says_an(run: Run) -> None:
    obs = new_id(run, "observe", "Not a session either")
    result = run("resume", obs)
    assert result.exit_code == 2
    assert result.stderr == f"lore: error: {obs} is an observation, not a session\n"


def test_handoff_needs_no_writable_local_directory(
    run: Run, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("LORE_CACHE_DIR", str(blocker))  # nothing can be created under it
    result = run("handoff", "Done for today.", "--json")
    assert result.exit_code == 0, result.stderr
    folder = data_dir / "transfer" / "data" / "sessions"
    [stored] = [json.loads(p.read_text()) for p in folder.glob("*.json")]
    assert (stored["status"], stored["message"]) == ("closed", "Done for today.")
