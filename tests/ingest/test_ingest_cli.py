"""``lore ingest`` end to end on copies of real transcripts: the records it writes (failures,
candidates, the session digest) with their provenance, idempotence on a second run, a grown,
truncated or replaced file, refusals, dry runs, --since, the agents' own folders, and
``lore show --source``."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from lore.ingest.ids import record_id

FIXTURES = Path(__file__).parent / "fixtures"
MEDGEMMA_SESSION = "ea6cc712-3363-4960-bd06-f2266321ef7f"
CWD = "/Users/noahdolevelixir/Code/medgemma-hackathon/services/protocol-processor-service"


def copy(tmp_path: Path, name: str, to: str = "session.jsonl") -> Path:
    path = tmp_path / to
    shutil.copy(FIXTURES / name, path)
    path.chmod(0o644)
    return path


def ingest(run: Any, *args: str) -> dict[str, Any]:
    result = run("ingest", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def records(run: Any, kind: str) -> list[dict[str, Any]]:
    return sorted(json.loads(run("list", kind, "--json").stdout), key=lambda r: r["id"])


def log_lines(data_dir: Path, rel: str) -> list[dict[str, Any]]:
    path = data_dir / rel
    return [orjson.loads(line) for line in path.read_bytes().splitlines()] if path.exists() else []


def test_failures_candidates_and_digest_from_a_claude_session(
    run: Any, data_dir: Path, tmp_path: Path
) -> None:
    path = copy(tmp_path, "claude-medgemma.jsonl")
    doc = ingest(run, str(path))
    (report,) = doc["files"]
    assert (report["agent"], report["session"], report["read"], report["lines"]) == (
        "claude",
        MEDGEMMA_SESSION,
        "new",
        [1, 34],
    )
    ruff = record_id("fail", f"claude:{MEDGEMMA_SESSION}", "uv run ruff check .")
    head = record_id(
        "fail",
        f"claude:{MEDGEMMA_SESSION}",
        "head -5 tests/test_phase3b_unknown_scales.py tests/test_phase3b_e2e.py",
    )
    assert report["failures"] == {"new": [ruff, head], "updated": []}
    assert report["resolved"] == [ruff]
    assert doc["totals"]["failures_new"] == 2  # siblings cancelled and a no-match: none
    failures = {f["id"]: f for f in records(run, "failure")}
    assert failures[ruff] == {
        "id": ruff,
        "timestamp": "2026-02-19T20:34:18.462000Z",
        "error_type": "LintError",
        "error_message": "Found 2 errors.",
        "tool": "uv run ruff check . 2>&1",
        "step": "Run ruff linter",
        "provenance": {"transcript": str(path), "session": MEDGEMMA_SESSION, "lines": [5, 6]},
        "session_id": "session-ea6cc71233634960bd06f2266321ef7f",
        "project": "protocol-processor-service",
        "source": "ingest",
        "tags": ["protocol-processor-service"],
        "v": 1,
        "exit_code": 1,
        "occurrences": 2,  # failed again at lines 17-18: counted, not a second record
        "resolved": {
            "at": "2026-02-19T20:49:17.684Z",
            "lines": [28, 29],
            "likely_fix": ["src/protocol_processor/nodes/ordinal_resolve.py"],
        },
    }
    assert (failures[head]["error_type"], failures[head]["provenance"]["lines"]) == (
        "MissingFile",
        [13, 14],
    )
    # The provenance lines hold the failed call: the tool_use and its failed tool_result.
    source = path.read_bytes().splitlines()
    call, result = orjson.loads(source[4]), orjson.loads(source[5])
    use = call["message"]["content"][0]
    assert use["input"]["command"] == "uv run ruff check . 2>&1"
    assert result["message"]["content"][0] == {
        **result["message"]["content"][0],
        "tool_use_id": use["id"],
        "is_error": True,
    }
    (candidate,) = records(run, "observation")
    assert (
        candidate["content"],
        candidate["tags"],
        candidate["status"],
        candidate["provenance"]["lines"],
    ) == (
        "No no, no mocking. Let's test for real.",
        ["candidate", "preference", "protocol-processor-service"],
        "raw",
        [2, 2],
    )
    (session,) = records(run, "session")
    assert session["id"] == report["session_record"] == "session-ea6cc71233634960bd06f2266321ef7f"
    assert (session["status"], session["source"], session["provenance"]["lines"]) == (
        "closed",
        "ingest",
        [1, 34],
    )
    digest = session["digest"]
    assert digest["first_request"].startswith(
        "No no, no mocking. Let's test for real. With our medgemma"
    )
    assert digest["files"] == ["src/protocol_processor/nodes/ordinal_resolve.py"]
    assert digest["commits"] == [
        {
            "sha": "c6c4dd8",
            "subject": "feat: add ordinal resolution LangGraph node "
            "with Gemini-powered scale detection",
        }
    ]
    assert digest["tests"] == [
        {
            "command": "uv run pytest tests/ -x --tb=short -q",
            "runs": 1,
            "failed": 0,
            "last": "passed",
        }
    ]
    assert [(f["command"], f["fixed"], f["count"]) for f in digest["failures"]] == [
        ("uv run ruff check .", True, 2),
        ("head -5 tests/test_phase3b_unknown_scales.py tests/test_phase3b_e2e.py", False, 1),
    ]
    assert session["captured"] == {"failure": [ruff, head], "observation": [candidate["id"]]}
    assert session["message"].startswith(
        "Claude Code session of 2026-02-19 (ingested). First request:"
    )
    assert "Edited 1 file: src/protocol_processor/nodes/ordinal_resolve.py." in session["message"]
    assert session["threads"] == []  # nothing left open


def test_a_second_run_reads_nothing_and_writes_nothing(
    run: Any, data_dir: Path, tmp_path: Path
) -> None:
    path = copy(tmp_path, "claude-medgemma.jsonl")
    ingest(run, str(path))
    before = {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()}
    again = ingest(run, str(path))
    assert [f["read"] for f in again["files"]] == ["unchanged"]
    assert again["totals"]["failures_new"] == again["totals"]["candidates"] == 0
    assert {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()} == before


def test_a_grown_file_is_read_from_where_it_stopped(
    run: Any, data_dir: Path, tmp_path: Path
) -> None:
    lines = (FIXTURES / "claude-medgemma.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:5]) + lines[5][:40])  # the ruff result half written
    first = ingest(run, str(path))
    assert first["files"][0]["lines"] == [1, 5]
    assert first["totals"]["failures_new"] == 0  # the call waits for its result
    path.write_bytes(b"".join(lines[:17]))
    second = ingest(run, str(path))
    assert (second["files"][0]["read"], second["files"][0]["lines"]) == ("grown", [6, 17])
    assert second["totals"]["failures_new"] == 2
    path.write_bytes(b"".join(lines))
    third = ingest(run, str(path))
    assert third["files"][0]["lines"] == [18, 34]
    assert (third["totals"]["failures_new"], third["totals"]["failures_updated"]) == (0, 1)
    created = [
        line["id"]
        for line in log_lines(data_dir, "failures/data/failures.jsonl")
        if "_op" not in line
    ]
    assert len(created) == len(set(created)) == 2
    ruff = next(f for f in records(run, "failure") if f["error_type"] == "LintError")
    assert (ruff["occurrences"], ruff["provenance"]["lines"], ruff["resolved"]["lines"]) == (
        2,
        [5, 6],
        [28, 29],
    )
    # The same digest as one run over the whole file.
    (session,) = records(run, "session")
    assert session["digest"]["files"] == ["src/protocol_processor/nodes/ordinal_resolve.py"]


def test_a_line_still_being_written_over_two_runs_keeps_the_place(
    run: Any, data_dir: Path, tmp_path: Path
) -> None:
    """A run that finds only the same half-written line reads nothing and leaves the
    watermark where it was: the next run goes on from there, not from the start."""
    lines = (FIXTURES / "claude-medgemma.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:5]) + lines[5][:40])
    assert ingest(run, str(path))["files"][0]["lines"] == [1, 5]
    before = {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()}
    again = ingest(run, str(path))["files"][0]
    assert (again["read"], again["lines"]) == ("grown", None)
    assert {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file()} == before
    path.write_bytes(b"".join(lines[:17]))
    third = ingest(run, str(path))["files"][0]
    assert (third["read"], third["lines"]) == ("grown", [6, 17])
    assert len(third["failures"]["new"]) == 2


@pytest.mark.parametrize("change", ["replaced", "truncated", "rewritten"])
def test_a_replaced_or_truncated_file_is_read_again_without_duplicates(
    run: Any, data_dir: Path, tmp_path: Path, change: str
) -> None:
    path = copy(tmp_path, "claude-medgemma.jsonl")
    ingest(run, str(path))
    before = log_lines(data_dir, "failures/data/failures.jsonl")
    content = path.read_bytes()
    if change == "replaced":  # a new file (another inode) in its place, as an editor saves
        new = path.with_suffix(".new")
        new.write_bytes(content)
        new.replace(path)
    elif change == "truncated":
        path.write_bytes(b"".join(content.splitlines(keepends=True)[:20]))
    else:  # the same size, the last line read changed
        last = content.splitlines(keepends=True)[-1]
        path.write_bytes(content[: -len(last)] + last.replace(b"passed", b"PASSED"))
    doc = ingest(run, str(path))
    assert doc["files"][0]["read"] == "from start"
    assert doc["totals"]["failures_new"] == doc["totals"]["candidates"] == 0
    assert log_lines(data_dir, "failures/data/failures.jsonl") == before  # counts only grow
    assert len(records(run, "observation")) == 1 and len(records(run, "session")) == 1


def test_other_agents_transcripts(run: Any, tmp_path: Path) -> None:
    gemini = copy(tmp_path, "gemini-session.json", "session-2026-01-15T20-51-f7633853.json")
    doc = ingest(run, str(gemini), str(copy(tmp_path, "codex-sample.jsonl", "rollout.jsonl")))
    assert [(f["agent"], f["session"], f["session_record"]) for f in doc["files"]] == [
        (
            "gemini",
            "f7633853-6663-4dbb-bbf4-6159afa29df8",
            "session-f763385366634dbbbbf46159afa29df8",
        ),
        (
            "codex",
            "019b64e5-57fa-7463-b644-fba7e456f905",
            "session-019b64e557fa7463b644fba7e456f905",
        ),
    ]
    sessions = {s["digest"]["agent"]: s for s in records(run, "session")}
    assert sessions["gemini"]["digest"]["first_request"] == (
        "run an agent that creates a color file inside docs, choose your color"
    )
    assert sessions["gemini"]["digest"]["files"] == ["docs/blue.md"]
    assert sessions["codex"]["threads"] == [
        "unanswered: can you analyse the MD files in this directory and determine if the info "
        "we have is clear enough to start planning the migration?"
    ]
    assert ingest(run, str(gemini))["files"][0]["read"] == "unchanged"


def test_the_format_comes_from_the_content_not_the_name(run: Any, tmp_path: Path) -> None:
    document = copy(tmp_path, "gemini-session.json", "chat.txt")  # a whole JSON document
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    doc = ingest(run, str(document), str(empty))
    assert [(f["agent"], f["lines"]) for f in doc["files"]] == [("gemini", [1, 520])]
    assert doc["totals"]["other_projects"] == 0


def test_a_subagent_file_adds_failures_only(run: Any, tmp_path: Path) -> None:
    doc = ingest(run, str(copy(tmp_path, "claude-subagent.jsonl", "agent-a2898e3.jsonl")))
    assert (doc["files"][0]["session_record"], doc["totals"]["failures_new"]) == (None, 0)
    assert records(run, "session") == []


def test_a_file_of_another_format_is_refused_before_anything_is_written(
    run: Any, data_dir: Path, tmp_path: Path
) -> None:
    good = copy(tmp_path, "claude-entire.jsonl")
    bad = tmp_path / "package.json"
    bad.write_text('{"name": "x", "version": "1.0.0"}\n')
    result = run("ingest", str(good), str(bad))
    assert result.exit_code == 4
    assert result.stderr == (
        f"lore: error: {bad}: not a Claude Code, Codex or Gemini CLI transcript "
        "(line 1 is an object with name, version)\n"
    )
    assert not data_dir.exists() or not any(p.is_file() for p in data_dir.rglob("*"))
    assert not any((tmp_path / "home").rglob("*.json"))  # no watermark either
    wrong = run("ingest", str(good), "--agent", "codex", "--json")
    assert wrong.exit_code == 4
    assert json.loads(wrong.stdout)["error"] == (
        f"{good}: a Claude Code transcript, not a Codex rollout (--agent codex)"
    )
    missing = run("ingest", str(tmp_path / "nope.jsonl"))
    assert (missing.exit_code, missing.stderr) == (
        2,
        f"lore: error: no such file or directory: {tmp_path / 'nope.jsonl'}\n",
    )
    assert run("ingest", "--agent", "claude-code").exit_code == 2


def test_a_dry_run_writes_nothing(run: Any, data_dir: Path, tmp_path: Path) -> None:
    path = copy(tmp_path, "claude-entire.jsonl")
    doc = ingest(run, str(path), "--dry-run")
    assert doc["dry_run"] is True
    assert (doc["totals"]["failures_new"], doc["files"][0]["session_record"]) == (
        3,
        "session-f022dad198964a6cbb910d1efb580b70",
    )
    assert not data_dir.exists() or not any(p.is_file() for p in data_dir.rglob("*"))
    assert ingest(run, str(path))["files"][0]["read"] == "new"  # no watermark was kept


def test_since_skips_what_happened_before(run: Any, tmp_path: Path) -> None:
    path = copy(tmp_path, "claude-medgemma.jsonl")
    doc = ingest(run, str(path), "--since", "2026-02-19T20:40:00Z")
    assert doc["totals"]["failures_new"] == 1  # the second ruff run only (20:48)
    (failure,) = records(run, "failure")
    assert (failure["provenance"]["lines"], failure["occurrences"]) == ([17, 18], 1)
    assert records(run, "observation") == []  # said at 20:26


def test_credentials_are_masked_and_private_text_is_never_stored(
    run: Any, data_dir: Path, tmp_path: Path
) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    lines = (FIXTURES / "claude-entire.jsonl").read_bytes().splitlines()
    prompt = orjson.loads(lines[0])
    prompt["message"]["content"] = (
        f"Never push with <private>my home is 12 Elm St</private> the token {token} again."
    )
    call, result = orjson.loads(lines[1]), orjson.loads(lines[2])
    call["message"]["content"][0]["input"]["command"] = (
        f"gh auth login --with-token {token} --disable-all"
    )
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(x) for x in (prompt, call, result)) + b"\n")
    ingest(run, str(path))
    stored = b"".join(p.read_bytes() for p in data_dir.rglob("*") if p.is_file())
    assert token.encode() not in stored and b"Elm St" not in stored
    (candidate,) = records(run, "observation")
    assert (
        candidate["content"] == "Never push with [private] the token [REDACTED:github-token] again."
    )
    (failure,) = records(run, "failure")
    assert failure["tool"] == "gh auth login --with-token [REDACTED:github-token] --disable-all"
    shown = run("show", failure["id"], "--source").stdout
    assert token not in shown and "[REDACTED:github-token]" in shown


def test_show_source_prints_the_lines_readably(run: Any, tmp_path: Path) -> None:
    path = copy(tmp_path, "claude-entire.jsonl")
    doc = ingest(run, str(path))
    push = next(f for f in records(run, "failure") if f["tool"] == "git push")
    text = run("show", push["id"], "--source").stdout
    assert text.endswith(
        f"source: {path} lines 6-7 (session f022dad1-9896-4a6c-bb91-0d1efb580b70)\n"
        "       6  call: Bash: git push\n"
        "       7  result (error): The user doesn't want to proceed with this tool use. The tool "
        "use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). "
        "To tell you how to proceed, the user said:\n"
        "          what does lint say now?\n"
    )
    shown = json.loads(run("show", push["id"], "--source", "--json").stdout)
    assert shown["id"] == push["id"]
    assert shown["source_lines"] == {
        "transcript": str(path),
        "session": "f022dad1-9896-4a6c-bb91-0d1efb580b70",
        "lines": [6, 7],
        "entries": [
            {"line": 6, "who": "call", "text": "Bash: git push"},
            {
                "line": 7,
                "who": "result (error)",
                "text": shown["source_lines"]["entries"][1]["text"],
            },
        ],
    }
    no_source = run("remember", "Use Postgres for the ledger", "-q").stdout.strip()
    refused = run("show", no_source, "--source")
    assert (refused.exit_code, refused.stderr) == (
        4,
        f"lore: error: {no_source} has no provenance: it was not ingested from a transcript\n",
    )
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:4]))
    cut = run("show", push["id"], "--source")  # truncated since: the lines are not there
    assert (cut.exit_code, cut.stderr) == (
        3,
        f"lore: error: {path}: the transcript has 4 lines now, not lines 6-7: it was "
        "truncated or replaced since it was ingested\n",
    )
    path.unlink()
    gone = run("show", push["id"], "--source")
    assert gone.exit_code == 3 and "cannot read the transcript" in gone.stderr
    assert doc["files"][0]["session_record"] in run("list", "session").stdout


def test_validate_export_and_import_keep_provenance(
    run: Any, data_dir: Path, tmp_path: Path
) -> None:
    ingest(run, str(copy(tmp_path, "claude-medgemma.jsonl")))
    assert run("validate").exit_code == 0
    exported = tmp_path / "export.jsonl"
    assert run("export", "-o", str(exported)).exit_code == 0
    lines = [orjson.loads(line) for line in exported.read_bytes().splitlines()]
    with_provenance = [line for line in lines if "provenance" in line]
    assert {line["kind"] for line in with_provenance} == {"failure", "observation", "session"}
    other = tmp_path / "other"
    assert run("--data-dir", str(other), "import", str(exported)).exit_code == 0
    again = json.loads(run("--data-dir", str(other), "list", "failure", "--json").stdout)
    assert sorted(f["provenance"]["lines"] for f in again) == [[5, 6], [13, 14]]


def test_the_rule_of_three_sees_ingested_failures(run: Any, tmp_path: Path) -> None:
    run("fail", "LintError", "ruff found 3 errors")
    run("fail", "LintError", "mypy found 1 error")
    result = run("ingest", str(copy(tmp_path, "claude-medgemma.jsonl")))
    assert result.exit_code == 0
    assert (
        "lore: Rule of Three: 3 failures of type LintError. Name it: lore promote-failure "
        'LintError --fix "..." (a PITFALL anti-pattern), or lore learn "..." --solution "..." '
        "--tags LintError (a pattern)\n"
    ) in result.stderr


def test_a_hook_handoff_and_ingestion_meet_in_one_session_record(run: Any, tmp_path: Path) -> None:
    path = copy(tmp_path, "claude-entire.jsonl")
    payload = {"session_id": "f022dad1-9896-4a6c-bb91-0d1efb580b70", "transcript_path": str(path)}
    assert run("hooks", "run", "session-end", input=json.dumps(payload)).exit_code == 0
    (hooked,) = records(run, "session")
    ingest(run, str(path))
    (session,) = records(run, "session")
    assert session["id"] == hooked["id"] == "session-f022dad198964a6cbb910d1efb580b70"
    assert session["auto"]["event"] == "SessionEnd"  # the hook's own fields stay
    assert session["digest"]["first_request"] == "why is lint failing on the build?"
    assert session["provenance"]["lines"] == [1, 10]


# --- the agents' own folders ------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    top = tmp_path / "work"
    (top / ".git").mkdir(parents=True, exist_ok=True)
    (top / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return top


def with_cwd(name: str, cwd: Path, tmp_path: Path, to: str) -> Path:
    """A fixture whose recorded working directory is ``cwd`` (the lines otherwise as is)."""
    out = tmp_path / to
    lines = []
    for raw in (FIXTURES / name).read_bytes().splitlines():
        obj = orjson.loads(raw)
        if "cwd" in obj:
            obj["cwd"] = str(cwd)
        if isinstance(obj.get("payload"), dict) and "cwd" in obj["payload"]:
            obj["payload"]["cwd"] = str(cwd)
        lines.append(orjson.dumps(obj))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(b"\n".join(lines) + b"\n")
    return out


def test_with_no_path_the_agents_folders_for_this_repository(
    run: Any, tmp_path: Path, repo: Path
) -> None:
    home = Path(os.environ["HOME"])
    name = "".join(c if c.isalnum() else "-" for c in str(repo))
    ours = home / ".claude" / "projects" / name
    with_cwd("claude-entire.jsonl", repo, ours, "f022dad1.jsonl")
    with_cwd("claude-subagent.jsonl", repo, ours / "f022dad1" / "subagents", "agent-a2898e3.jsonl")
    with_cwd(
        "claude-medgemma.jsonl",
        tmp_path / "elsewhere",
        home / ".claude" / "projects" / "-elsewhere",
        "x.jsonl",
    )
    # a folder whose name starts like ours: read only when its sessions ran inside the repository
    with_cwd(
        "claude-medgemma.jsonl",
        tmp_path / "work-tools",
        home / ".claude" / "projects" / f"{name}-tools",
        "y.jsonl",
    )
    sessions = home / ".codex" / "sessions" / "2025" / "12" / "28"
    with_cwd(
        "codex-sample.jsonl", repo / "sub", sessions, "rollout-2025-12-28T12-18-30-019b64e5.jsonl"
    )
    with_cwd(
        "codex-sample.jsonl",
        tmp_path / "other",
        sessions,
        "rollout-2025-12-28T12-18-31-019b64e6.jsonl",
    )
    chats = home / ".gemini" / "tmp" / hashlib.sha256(str(repo).encode()).hexdigest() / "chats"
    chats.mkdir(parents=True)
    shutil.copy(FIXTURES / "gemini-session.json", chats / "session-2026-01-15T20-51-f7633853.json")
    doc = ingest(run)
    assert doc["repository"] == str(repo)
    assert sorted((Path(f["transcript"]).name, f["agent"]) for f in doc["files"]) == [
        ("agent-a2898e3.jsonl", "claude"),
        ("f022dad1.jsonl", "claude"),
        ("rollout-2025-12-28T12-18-30-019b64e5.jsonl", "codex"),
        ("session-2026-01-15T20-51-f7633853.json", "gemini"),
    ]
    assert doc["totals"]["other_projects"] == 2
    again = ingest(run)
    assert again["totals"]["unchanged"] == 4 and again["totals"]["other_projects"] == 2
    everything = ingest(run, "--all")
    assert everything["repository"] is None
    assert sorted(
        Path(f["transcript"]).name for f in everything["files"] if f["read"] != "unchanged"
    ) == [
        "rollout-2025-12-28T12-18-31-019b64e6.jsonl",
        "x.jsonl",
        "y.jsonl",
    ]
    only = ingest(run, "--agent", "gemini")
    assert [f["agent"] for f in only["files"]] == ["gemini"]


@pytest.mark.usefixtures("empty_root")
def test_nothing_to_ingest_says_so(run: Any, repo: Path) -> None:
    result = run("ingest")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == f"lore: no agent transcripts found for {repo}\n"


def test_a_byte_order_mark_hides_no_line(run: Any, tmp_path: Path) -> None:
    """A transcript saved by an editor with a UTF-8 byte-order mark: its first line is read
    like the others (it was skipped as damaged)."""
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + (FIXTURES / "claude-medgemma.jsonl").read_bytes())
    doc = ingest(run, str(path))
    assert (doc["files"][0]["skipped_lines"], doc["files"][0]["lines"][0]) == (0, 1)
    (session,) = records(run, "session")
    assert session["digest"]["first_request"].startswith("No no, no mocking.")


@pytest.mark.usefixtures("empty_root")
def test_an_empty_path_says_so(run: Any, tmp_path: Path) -> None:
    """A PATH given that holds nothing to read is named (not "for any project", which is
    what --all says)."""
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "folder").mkdir()
    result = run("ingest", str(tmp_path / "empty.jsonl"), str(tmp_path / "folder"))
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == (
        f"lore: no transcript to read in {tmp_path / 'empty.jsonl'}, {tmp_path / 'folder'}"
        " (empty, or no .jsonl or .json transcript in a folder)\n"
    )


def test_a_key_pasted_after_a_long_request_is_masked_before_the_request_is_cut(
    run: Any, data_dir: Path, tmp_path: Path
) -> None:
    body = "\n".join("MIIEowIBAAKCAQEA" + "q" * 48 for _ in range(8))
    key = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    prompt = orjson.loads((FIXTURES / "claude-entire.jsonl").read_bytes().splitlines()[0])
    prompt["message"]["content"] = "please deploy with this key " + "x " * 220 + "\n" + key
    path = tmp_path / "session.jsonl"
    path.write_bytes(orjson.dumps(prompt) + b"\n")
    ingest(run, str(path))
    (session,) = records(run, "session")
    assert session["digest"]["first_request"].endswith("x [REDACTED:private-key]")
    stored = b"".join(p.read_bytes() for p in data_dir.rglob("*") if p.is_file())
    local = b"".join(p.read_bytes() for p in (tmp_path / "home").rglob("*") if p.is_file())
    assert b"qqqq" not in stored and b"qqqq" not in local  # nor in the watermark's state
