"""The session loop as a user runs it: the installed ``lore`` in a throwaway git repository,
manual handoffs, resume, and the Claude Code hooks fed Claude-style JSON on stdin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

LORE = Path(sys.executable).parent / "lore"
CLAUDE_SESSION = "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "T",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "T",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


class User:
    """Runs the installed lore in ``repo`` against a scratch data root."""

    def __init__(self, tmp_path: Path, data_dir: Path, *, commits: int = 1) -> None:
        self.repo = tmp_path / "orders-api"
        self.repo.mkdir()
        self.data = data_dir
        self.git("init", "-q", "-b", "master")
        for n in range(commits):
            (self.repo / "README.md").write_text(f"v{n}\n")
            self.git("add", "README.md")
            self.git("commit", "-q", "-m", f"commit {n}")
        self.env = {
            **os.environ,
            "LORE_DATA_DIR": str(data_dir),
            "NO_COLOR": "1",
        }
        for name in ("LORE_SESSION_ID", "LORE_PROJECT", "LORE_NOW", "LORE_DEBUG"):
            self.env.pop(name, None)

    def git(self, *args: str) -> str:
        return subprocess.run(
            ["git", *args],
            cwd=self.repo,
            env={**os.environ, **GIT_ENV},
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    def lore(
        self, *args: str, stdin: str | None = None, now: str | None = None, **env: str
    ) -> subprocess.CompletedProcess[str]:
        extra = {"LORE_NOW": now} if now else {}
        return subprocess.run(
            [str(LORE), *args],
            cwd=self.repo,
            env={**self.env, **extra, **env},
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def ok(self, *args: str, **kw: Any) -> str:
        done = self.lore(*args, **kw)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def sessions(self) -> list[dict[str, Any]]:
        folder = self.data / "transfer" / "data" / "sessions"
        found = [orjson.loads(p.read_bytes()) for p in folder.glob("*.json")]
        return sorted(found, key=lambda s: s["ended_at"] or "")

    def transcript(self, name: str, request: str, asked_at: str, *files: str) -> Path:
        """A Claude Code transcript: one request, edits of ``files``, one failed command."""

        def entry(kind: str, content: Any, **extra: Any) -> bytes:
            return orjson.dumps(
                {
                    "type": kind,
                    "sessionId": CLAUDE_SESSION,
                    "message": {"role": kind, "content": content},
                    **extra,
                }
            )

        lines = [entry("user", request, timestamp=asked_at)]
        for n, file in enumerate(files):
            edit = {"type": "tool_use", "id": f"e{n}", "name": "Edit", "input": {"file_path": file}}
            lines.append(entry("assistant", [edit]))
            done = {"type": "tool_result", "tool_use_id": f"e{n}", "content": "updated"}
            lines.append(entry("user", [done]))
        run = {"type": "tool_use", "id": "b1", "name": "Bash", "input": {"command": "pytest -q"}}
        lines.append(entry("assistant", [run]))
        failed = {
            "type": "tool_result",
            "tool_use_id": "b1",
            "content": "1 failed",
            "is_error": True,
        }
        lines.append(entry("user", [failed]))
        path = self.repo.parent / name
        path.write_bytes(b"\n".join(lines) + b"\n")
        return path

    def hook(self, event: str, transcript: Path | None, **env: str) -> Any:
        payload = {
            "session_id": CLAUDE_SESSION,
            "cwd": str(self.repo),
            "hook_event_name": event,
        }
        if transcript is not None:
            payload["transcript_path"] = str(transcript)
        name = {"SessionEnd": "session-end", "PreCompact": "pre-compact"}[event]
        return self.lore("hooks", "run", name, stdin=json.dumps(payload), **env)


@pytest.fixture
def user(tmp_path: Path, data_dir: Path) -> User:
    return User(tmp_path, data_dir)


# --- an automatic handoff never buries a manual one's open items -------------------------


def test_session_end_keeps_the_manual_handoffs_open_items(user: User) -> None:
    manual = json.loads(
        user.ok(
            "handoff",
            "Idempotency done.",
            "--next",
            "finish middleware",
            "--blocker",
            "unclear key TTL",
            "--json",
            now="2026-03-04T10:00:00Z",
        )
    )["id"]
    # The user asked for more after the handoff: the SessionEnd hook writes a session.
    src = user.repo / "src" / "orders.py"
    transcript = user.transcript("t.jsonl", "Add a unique index", "2026-03-04T10:05:00Z", str(src))
    done = user.hook("SessionEnd", transcript, LORE_NOW="2026-03-04T10:10:00Z")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    first, auto = user.sessions()
    assert first["id"] == manual
    assert auto["id"] == "session-" + CLAUDE_SESSION.replace("-", "")
    assert (auto["next_steps"], auto["blockers"]) == (["finish middleware"], ["unclear key TTL"])
    assert auto["auto"]["carried_from"] == manual
    resumed = user.ok("resume").splitlines()
    # The note names where the carried items came from, then the transcript's own thread.
    assert resumed[3:7] == [
        "- Next: finish middleware",
        "- Blocker: unclear key TTL",
        f"  (open items carried over from {manual})",
        "- Open thread: `pytest -q` still fails: 1 failed",  # what the session left open
    ]
    # The next session's SessionStart context says the same.
    start = user.lore("hooks", "run", "session-start", stdin=json.dumps({"cwd": str(user.repo)}))
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "- Next: finish middleware\n- Blocker: unclear key TTL" in context
    # A later manual handoff settles them, and says so.
    reply = user.lore("handoff", "Middleware done.", "--next", "deploy", now="2026-03-05T09:00:00Z")
    assert reply.returncode == 0
    assert reply.stdout.count("\n") == 1  # the session line; the note is a message
    assert reply.stderr == (
        f"lore: open items: this handoff's 1 replace the 3 left by {auto['id']} "
        "(--merge keeps them and adds these)\n"
    )
    assert user.sessions()[-1]["next_steps"] == ["deploy"]
    assert "- Blocker:" not in user.ok("resume")


# --- a payload with nothing to say writes nothing -----------------------------------------


@pytest.mark.parametrize(
    ("stdin", "why"),
    [
        ("{}", "the payload on stdin is an empty object"),
        ("not json", "the payload on stdin is not JSON"),
        ("", "no payload on stdin"),
        ('{"session_id": "abc", "cwd": "/"}', "the payload names no transcript_path"),
        ('{"transcript_path": "/nowhere/t.jsonl"}', "no transcript at /nowhere/t.jsonl"),
    ],
)
@pytest.mark.parametrize("event", ["session-end", "pre-compact"])
def test_an_empty_or_bad_payload_writes_nothing(
    user: User, event: str, stdin: str, why: str
) -> None:
    user.ok("handoff", "Real work.", "--next", "keep me")
    before = user.sessions()
    quiet = user.lore("hooks", "run", event, stdin=stdin)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    debug = user.lore("hooks", "run", event, stdin=stdin, LORE_DEBUG="1")
    assert (debug.returncode, debug.stdout) == (0, "")
    assert debug.stderr == f"lore hook {event}: nothing written: {why}\n"
    assert user.sessions() == before
    assert "- Next: keep me" in user.ok("resume")


def test_a_transcript_with_nothing_in_it_writes_nothing(user: User) -> None:
    empty = user.repo.parent / "empty.jsonl"
    empty.write_text('{"type": "summary"}\n')
    done = user.hook("SessionEnd", empty, LORE_DEBUG="1")
    assert done.returncode == 0
    assert done.stderr == (
        f"lore hook session-end: nothing written: the transcript {empty} "
        "shows no request, edit or failed command\n"
    )
    assert user.sessions() == []


# --- what an automatic session records -----------------------------------------------------


def test_an_automatic_session_reads_well_and_records_git(user: User) -> None:
    head = user.git("rev-parse", "HEAD").strip()
    (user.repo / "README.md").write_text("changed\n")
    files = [str(user.repo / "src" / "orders.py"), "/etc/elsewhere.conf"]
    first = user.transcript("a.jsonl", "add a unique index", "2026-03-04T10:00:00Z", *files)
    assert user.hook("PreCompact", first, LORE_NOW="2026-03-04T10:01:00Z").returncode == 0
    (session,) = user.sessions()
    assert session["message"] == (
        'Automatic handoff (PreCompact). First request: "add a unique index". '
        "Edited 2 files: src/orders.py, /etc/elsewhere.conf. "
        "Tests: `pytest -q` failed (1 run, 1 failed). "
        "1 command failed (0 fixed): `pytest -q` (TestFailure). "
        "Open: `pytest -q` still fails: 1 failed."
    )
    assert session["summary"] == (
        'PreCompact: "add a unique index" (2 files edited, 1 command failed)'
    )
    assert session["source"] == "hook"
    assert session["auto"]["files"] == ["src/orders.py", "/etc/elsewhere.conf"]
    git = session["git"]
    assert (git["repo"], git["branch"], git["head"]) == ("orders-api", "master", head)
    assert git["uncommitted"] == ["README.md"]
    # Another Claude session's end: the list tells the two apart.
    second = user.transcript("b.jsonl", "Make the TTL configurable", "2026-03-04T11:00:00Z")
    env = {"LORE_NOW": "2026-03-04T11:01:00Z"}
    payload = {"session_id": "ffff0000-1111", "transcript_path": str(second), "cwd": str(user.repo)}
    user.lore("hooks", "run", "session-end", stdin=json.dumps(payload), **env)
    listed = [line.split("  ", 3)[3] for line in user.ok("sessions", "list").splitlines()]
    assert listed == [
        'SessionEnd: "Make the TTL configurable" (1 command failed)',
        'PreCompact: "add a unique index" (2 files edited, 1 command failed)',
    ]


# --- fork: next steps merge ----------------------------------------------------------------


def test_after_a_fork_next_steps_merge_and_the_reply_says_so(user: User) -> None:
    parent = user.ok("handoff", "Part one.", "--next", "write docs", "-q").strip()
    child = user.ok("resume", "--fork").splitlines()[-1].split()[2]
    reply = user.lore("handoff", "Part two.", "--next", "x")
    assert reply.stdout == f"session {child} handed off (0 records captured)\n"
    assert reply.stderr == (
        f"lore: open items: kept 1 inherited from {parent}, added 1 "
        "(merged; --replace drops the inherited ones)\n"
    )
    assert user.sessions()[-1]["next_steps"] == ["write docs", "x"]


# --- resume: the most important decisions, not the newest ---------------------------------


def test_recent_decisions_are_ranked_by_importance(user: User) -> None:
    key = user.ok(
        "remember",
        "Store idempotency keys in Postgres with a unique index because: one source of "
        "truth vs: redis, memory",
        "--type",
        "architecture",
        "-t",
        "storage",
        "--entities",
        "postgres",
        "-q",
        now="2026-03-01T00:00:00Z",
    ).strip()
    spec = json.loads(user.ok("show", key, "--json"))["spec_quality"]
    assert spec >= 0.85
    topics = [
        "Validate payloads with pydantic models",
        "Return 409 when the key was used with another body",
        "Log request ids in every middleware",
        "Keep migrations in alembic revisions",
        "Run the API under gunicorn with uvicorn workers",
        "Paginate order listings with cursors",
        "Hash keys with sha256 before storing",
        "Expire keys with a nightly job",
        "Serve health checks without touching the database",
    ]
    for n, topic in enumerate(topics):
        user.ok(
            "remember",
            f"{topic} because: reason {n}",
            "--type",
            "implementation",
            "-q",
            now=f"2026-03-0{2 + n % 7}T00:0{n}:00Z",
        )
    bare = user.ok("remember", "Tabs", "-q", now="2026-03-10T00:00:00Z").strip()
    dropped = user.ok(
        "remember", "Cache orders in memory because: fast", "-q", now="2026-03-10T01:00:00Z"
    ).strip()
    user.ok("review", "--resolve", dropped, "--outcome", "abandoned", now="2026-03-10T02:00:00Z")
    data = json.loads(user.ok("resume", "--json", now="2026-03-11T00:00:00Z"))
    ids = [d["id"] for d in data["recent_decisions"]]
    assert len(ids) == 10
    assert ids[0] == key
    assert dropped not in ids and bare not in ids
    text = user.ok("resume", now="2026-03-11T00:00:00Z").splitlines()
    at = text.index("## Recent decisions")
    assert text[at + 1].startswith("- Store idempotency keys in Postgres")


# --- the window of a handoff that opens its own session -----------------------------------


def test_a_first_handoff_covers_records_older_than_a_day(user: User) -> None:
    old = user.ok("observe", "Orders table has no index", "-q", now="2026-03-01T08:00:00Z")
    new = user.ok("observe", "Added the index", "-q", now="2026-03-04T08:00:00Z")
    out = json.loads(user.ok("handoff", "Indexed.", "--json", now="2026-03-04T09:00:00Z"))
    record = out["record"]
    assert record["captured"] == {"observation": [old.strip(), new.strip()]}
    assert record["started_at"] == "2026-03-01T08:00:00.000000Z"
    later = user.ok("observe", "Slow query gone", "-q", now="2026-03-05T08:00:00Z").strip()
    second = json.loads(user.ok("handoff", "Tuned.", "--json", now="2026-03-05T09:00:00Z"))
    assert second["record"]["captured"] == {"observation": [later]}
    assert second["record"]["started_at"] == "2026-03-05T08:00:00.000000Z"


# --- cosmetics -----------------------------------------------------------------------------


def test_resume_text_says_counts_and_sections_in_words(user: User) -> None:
    (user.repo / "README.md").write_text("changed\n")
    head = user.git("rev-parse", "HEAD").strip()[:10]
    user.ok("handoff", "Done.", "--next", "a long next step " * 5, "--next", "another")
    text = user.ok("resume").splitlines()
    assert f"- Git at handoff: master {head}, 1 uncommitted file" in text
    cut = user.ok("resume", "--budget", "12").splitlines()[-1]
    assert cut.startswith("[budget 12 tokens: cut ")
    assert "1 line of git" in cut and "lines of next steps" in cut
    assert "next_steps" not in cut


def test_resume_in_a_repository_without_commits(tmp_path: Path, data_dir: Path) -> None:
    user = User(tmp_path, data_dir, commits=0)
    user.ok("handoff", "Nothing committed yet.")
    assert "- Git at handoff: master (no commits yet)" in user.ok("resume").splitlines()


def test_handoff_quiet_prints_the_id(user: User) -> None:
    sid = user.ok("handoff", "Done.", "-q").strip()
    assert [s["id"] for s in user.sessions()] == [sid]


def test_sessions_takes_json_at_the_group_level(user: User) -> None:
    user.ok("handoff", "One.")
    listed = user.ok("sessions", "list", "--json")
    assert user.ok("sessions", "--json") == listed
    assert json.loads(listed)[0]["summary"] == "One."
    sid = json.loads(listed)[0]["id"]
    assert json.loads(user.ok("sessions", "--json", "show", sid))["id"] == sid
    assert user.ok("sessions", "--project", "orders-api", "--json") == listed
    wrong = user.lore("sessions", "--all", "show", sid)
    assert wrong.returncode == 2
    assert (
        wrong.stderr == "lore: error: --all and --project go after `list` when a command is given\n"
    )


# --- acceptance (qa-i7): a tight hook budget never cuts carried next steps ------------------


def test_a_tight_budget_keeps_the_carried_items_of_an_automatic_handoff(user: User) -> None:
    user.ok(
        "handoff",
        "Idempotency done.",
        "--next",
        "finish middleware",
        "--blocker",
        "unclear key TTL",
        now="2026-03-04T10:00:00Z",
    )
    files = [str(user.repo / "src" / f"module_{n}.py") for n in range(4)]
    ask = "please rework the whole retry layer of the payment client"
    transcript = user.transcript("t.jsonl", ask, "2026-03-04T10:05:00Z", *files)
    assert user.hook("SessionEnd", transcript, LORE_NOW="2026-03-04T10:10:00Z").returncode == 0
    start = user.lore(
        "hooks",
        "run",
        "session-start",
        stdin=json.dumps({"cwd": str(user.repo)}),
        LORE_HOOK_BUDGET="60",
    )
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    lines = context.splitlines()
    # The transcript digest is shown whole; the manual handoff's items are not cut for it.
    assert lines[2].startswith("Automatic handoff (SessionEnd).")
    assert lines[3:5] == ["- Next: finish middleware", "- Blocker: unclear key TTL"]
    assert lines[-1].startswith("[budget 60 tokens: cut ")
    assert "next steps" not in lines[-1] and "blockers" not in lines[-1]


def test_an_automatic_handoff_counts_every_file_it_saw(user: User) -> None:
    files = [str(user.repo / "src" / f"m{n}.py") for n in range(1, 26)]
    transcript = user.transcript("t.jsonl", "big change", "2026-03-04T10:05:00Z", *files)
    assert user.hook("SessionEnd", transcript, LORE_NOW="2026-03-04T10:10:00Z").returncode == 0
    (session,) = user.sessions()
    assert "Edited 25 files: " in session["message"]
    assert " and 17 more. Tests: `pytest -q` failed" in session["message"]
    assert session["summary"] == 'SessionEnd: "big change" (25 files edited, 1 command failed)'


def _noisy_transcript(user: User) -> Path:
    """Claude Code also writes user-role entries nobody typed: meta notes (isMeta), a
    compaction's summary (isCompactSummary), a subagent's prompts (isSidechain) and
    interruption markers. None of them is a request."""

    def said(text: str, at: str, **flags: Any) -> bytes:
        entry = {"type": "user", "message": {"role": "user", "content": text}, "timestamp": at}
        return orjson.dumps({**entry, **flags})

    transcript = user.repo.parent / "t.jsonl"
    transcript.write_bytes(
        b"\n".join(
            [
                said("Add a unique index", "2026-03-04T10:00:00Z"),
                said("Caveat: The messages below were generated by the user while running "
                     "local commands.", "2026-03-04T10:01:00Z", isMeta=True),
                said("This session is being continued from a previous conversation.",
                     "2026-03-04T10:02:00Z", isCompactSummary=True),
                said("Search the repo for index definitions", "2026-03-04T10:03:00Z",
                     isSidechain=True),
                said("[Request interrupted by user]", "2026-03-04T10:04:00Z"),
            ]
        )
        + b"\n"
    )  # fmt: skip
    return transcript


def test_an_automatic_handoff_reads_only_what_the_user_asked(user: User) -> None:
    transcript = _noisy_transcript(user)
    assert user.hook("SessionEnd", transcript, LORE_NOW="2026-03-04T10:10:00Z").returncode == 0
    (session,) = user.sessions()
    assert session["message"] == (
        'Automatic handoff (SessionEnd). First request: "Add a unique index". '
        "Open: unanswered: Add a unique index."
    )
    assert session["auto"]["requests"] == ["Add a unique index"]


def test_a_compaction_after_the_agents_handoff_does_not_bury_it(user: User) -> None:
    user.ok("handoff", "Index added.", "--next", "backfill", now="2026-03-04T10:00:30Z")
    before = user.sessions()
    transcript = _noisy_transcript(user)
    quiet = user.hook("SessionEnd", transcript, LORE_NOW="2026-03-04T10:10:00Z", LORE_DEBUG="1")
    # (then the ingestion of the transcript, which adds failures and candidates only)
    assert "its handoff stays the last\n" in quiet.stderr
    assert user.sessions() == before


def test_sessions_list_says_what_an_open_session_is(user: User) -> None:
    parent = user.ok("handoff", "Part one.", "-q", now="2026-03-04T10:00:00Z").strip()
    user.ok("resume", "--fork", now="2026-03-04T10:01:00Z")
    child = user.sessions()[0]["id"]  # the open one (no ended_at) sorts first
    listed = user.ok("sessions").splitlines()
    assert listed[0] == f"{child}  open     2026-03-04 10:01  (forked from {parent})"
    assert listed[1] == f"{parent}  closed   2026-03-04 10:00  Part one."
