"""Secrets that reached the data root past the gate (issue 15): paths that skipped it
(handoff --project, the handoff's git snapshot, import ids, key names and git_commit,
sync -m, doctor's quarantine files), hook handoffs that cut a key before masking it, a
redaction marker read as a password, a key echoed in a usage error.

Every fake credential is assembled at runtime from harmless pieces.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

Run = Callable[..., Result]

CHARS = "R8mN2kQ7vX4pL9sT3wY6bC1dF5gH0jK8mN2qZ7xVa3Ee9Uu4Oo1Ii6Bb5Cc7Dd2"
GITHUB = "ghp" + "_" + CHARS[:36]
AWS = "AKIA" + "Z7Q4M2XKP9LW3RTB"
BODY = [(CHARS[i:] + CHARS[:i]) for i in range(8)]  # eight 64-character key lines
PEM = "\n".join(["-----BEGIN " + "RSA PRIVATE KEY-----", *BODY, "-----END RSA PRIVATE KEY-----"])

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture(autouse=True)
def identity(monkeypatch: pytest.MonkeyPatch) -> None:
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "t")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "t@example.com")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def every_file(data_dir: Path) -> str:
    """Everything the data root holds, as one text."""
    return "\n".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in sorted(data_dir.rglob("*"))
        if p.is_file()
    )


def session_docs(data_dir: Path) -> list[dict]:
    folder = data_dir / "transfer" / "data" / "sessions"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def scan(run: Run, *args: str) -> tuple[int, dict]:
    result = run("scan", "--json", *args)
    return result.exit_code, json.loads(result.stdout)


# --- paths outside the gate ---------------------------------------------------------------


def test_handoff_project_passes_the_gate(run: Run, data_dir: Path) -> None:
    result = run("handoff", "done for today", "--project", GITHUB, "--json")
    assert result.exit_code == 7, result.output
    reply = json.loads(result.stdout)
    assert (reply["code"], reply["field"], reply["secret"]) == ("secret", "project", "github-token")
    assert session_docs(data_dir) == []
    assert GITHUB not in every_file(data_dir)


@needs_git
def test_the_handoffs_git_snapshot_is_masked(run: Run, data_dir: Path, tmp_path: Path) -> None:
    repo = tmp_path / "work"
    git(repo, "init", "-q", "-b", f"fix-{GITHUB}")
    (repo / "a.txt").write_text("a\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-qm", f"rotate {AWS}")
    (repo / f"notes-{GITHUB}.txt").write_text("x\n")  # uncommitted, its name a token
    result = run("handoff", "done for today", "--json")
    assert result.exit_code == 0, result.output
    (doc,) = session_docs(data_dir)
    snapshot = doc["git"]
    assert snapshot["branch"] == "fix-[REDACTED:github-token]"
    assert snapshot["last_commits"][0]["subject"] == "rotate [REDACTED:aws-access-key]"
    assert snapshot["uncommitted"] == ["notes-[REDACTED:github-token].txt"]
    text = every_file(data_dir)
    assert GITHUB not in text and AWS not in text
    assert scan(run)[0] == 0


def _import_line(run: Run, tmp_path: Path, **fields: object) -> Result:
    line = {
        "kind": "decision",
        "id": "dec-0123456789ab",
        "timestamp": "2026-01-02T03:04:05Z",
        "decision": "Use SQLite for the cache",
        "rationale": "no server to run",
        **fields,
    }
    file = tmp_path / "in.jsonl"
    file.write_text(json.dumps(line) + "\n")
    return run("import", str(file), "--json")


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"id": f"dec-{GITHUB}"}, "id"),
        ({"git_commit": GITHUB}, "git_commit"),
        ({GITHUB: "a value"}, "<key [REDACTED:github-token]>"),
        ({"extra": {"note": "x", GITHUB: "a value"}}, "<key [REDACTED:github-token]>"),
    ],
    ids=["id", "git_commit", "key name", "nested key name"],
)
def test_import_scans_ids_git_commit_and_key_names(
    run: Run, data_dir: Path, tmp_path: Path, fields: dict, field: str
) -> None:
    result = _import_line(run, tmp_path, **fields)
    assert result.exit_code == 4, result.output
    reply = json.loads(result.stdout)
    (invalid,) = reply["invalid"]
    assert invalid["line"] == 1
    assert f"decision {field} looks like it holds a GitHub token" in invalid["error"]
    assert GITHUB not in result.output  # the message names the key masked
    assert GITHUB not in every_file(data_dir)


def test_an_import_line_without_secrets_still_imports(
    run: Run, data_dir: Path, tmp_path: Path
) -> None:
    result = _import_line(run, tmp_path, git_commit="3f9a0c1b2d4e5f60718293a4b5c6d7e8f9012345")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["imported"] == 1


@needs_git
def test_sync_message_passes_the_gate(run: Run, data_dir: Path) -> None:
    assert run("init", "--git").exit_code == 0
    git(data_dir, "add", "-A")
    git(data_dir, "commit", "-qm", "lore: data root")
    assert run("observe", "the CI cache is cold on Mondays").exit_code == 0
    before = git(data_dir, "rev-list", "--count", "HEAD")
    result = run("sync", "-m", f"sync with {GITHUB}", "--json")
    assert result.exit_code == 7, result.output
    assert json.loads(result.stdout)["field"] == "message"
    assert git(data_dir, "rev-list", "--count", "HEAD") == before
    assert GITHUB not in git(data_dir, "log", "--format=%B")
    allowed = run("sync", "-m", "weekly sync", "--json")
    assert allowed.exit_code == 0, allowed.output
    assert git(data_dir, "log", "-1", "--format=%s").strip() == "weekly sync"


def test_scan_sees_the_lines_doctor_quarantined(run: Run, data_dir: Path) -> None:
    assert run("observe", "the CI cache is cold on Mondays").exit_code == 0
    log = data_dir / "inbox" / "data" / "observations.jsonl"
    good = log.read_text()
    with log.open("a") as handle:  # a hand edit gone wrong, with a key in it
        handle.write('{"id": "obs-broken", "content": "key ' + AWS + '"\n')
        handle.write(good)
    assert run("doctor", "--repair").exit_code == 0
    quarantine = log.with_name(log.name + ".quarantine")
    assert AWS in quarantine.read_text()
    assert AWS not in log.read_text()
    code, report = scan(run)
    assert code == 7
    (finding,) = report["findings"]
    assert finding["file"] == "inbox/data/observations.jsonl.quarantine"
    assert (finding["line"], finding["field"], finding["rule"]) == (1, "text", "aws-access-key")
    code, report = scan(run, "--redact")
    assert code == 0
    entry = json.loads(quarantine.read_text().splitlines()[0])
    assert entry["text"] == '{"id": "obs-broken", "content": "key [REDACTED:aws-access-key]"'
    assert entry["redacted"] == "lore scan --redact"
    assert (entry["file"], entry["line"], entry["code"]) == (
        "inbox/data/observations.jsonl",
        2,
        "parse",
    )
    assert AWS not in every_file(data_dir)
    assert scan(run)[0] == 0


def test_scan_reports_a_secret_id_masked_and_leaves_it(run: Run, data_dir: Path) -> None:
    log = data_dir / "inbox" / "data" / "observations.jsonl"
    log.parent.mkdir(parents=True)
    record = {"id": f"obs-{GITHUB}", "timestamp": "2026-01-02T03:04:05Z", "content": "x"}
    log.write_text(json.dumps(record) + "\n")
    result = run("scan")
    assert result.exit_code == 7
    assert GITHUB not in result.output
    assert "obs-[REDACTED:github-token] id: GitHub token" in result.stdout
    assert run("scan", "--redact").exit_code == 7  # an id is not something a revision changes


# --- automatic handoffs: mask first, cut after; a marker is not a secret -------------------


def _hook(run: Run, tmp_path: Path, request: str) -> Result:
    transcript = tmp_path / "t.jsonl"
    entry = {
        "type": "user",
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {"content": request},
    }
    transcript.write_text(json.dumps(entry) + "\n")
    payload = json.dumps({"session_id": "abcdef0123456789", "transcript_path": str(transcript)})
    return run("hooks", "run", "session-end", input=payload)


def test_a_pasted_private_key_is_masked_whole_before_the_cut(
    run: Run, data_dir: Path, tmp_path: Path
) -> None:
    result = _hook(run, tmp_path, f"use this key:\n{PEM}\nand deploy")
    assert result.exit_code == 0
    (doc,) = session_docs(data_dir)
    assert doc["auto"]["requests"] == ["use this key: [REDACTED:private-key] and deploy"]
    text = every_file(data_dir)
    assert not [line for line in BODY if line[:20] in text]
    assert scan(run)[0] == 0


def test_a_long_request_is_cut_after_masking_never_inside_a_marker(
    run: Run, data_dir: Path, tmp_path: Path
) -> None:
    result = _hook(run, tmp_path, "x" * 280 + f" {GITHUB} tail")
    assert result.exit_code == 0
    (doc,) = session_docs(data_dir)
    (request,) = doc["auto"]["requests"]
    assert request == "x" * 280  # the marker would end past 300: cut before it
    assert GITHUB[:8] not in every_file(data_dir)


def test_a_token_in_a_url_is_masked_and_the_handoff_written(
    run: Run, data_dir: Path, tmp_path: Path
) -> None:
    result = _hook(run, tmp_path, f"git clone https://{GITHUB}@github.com/org/repo.git")
    assert result.exit_code == 0
    (doc,) = session_docs(data_dir)
    assert doc["auto"]["requests"] == [
        "git clone https://[REDACTED:github-token]@github.com/org/repo.git"
    ]
    assert scan(run)[0] == 0


def test_scan_passes_right_after_scan_redact(run: Run, data_dir: Path) -> None:
    text = f"mirror with https://{GITHUB}@github.com/org/repo.git and postgres://app:" + (
        "S3cr3t-Pa55@db/app"
    )
    assert run("observe", text, "--allow-secret").exit_code == 0
    code, report = scan(run)
    assert code == 7
    assert [f["rule"] for f in report["findings"]] == ["github-token", "url-credentials"]
    assert scan(run, "--redact")[0] == 0
    code, report = scan(run)
    assert code == 0, report
    assert [f["current"] for f in report["findings"]] == [False, False]


# --- a key on the command line is not echoed back ------------------------------------------


@pytest.mark.parametrize("as_json", [False, True])
def test_a_key_passed_as_an_argument_is_masked_in_the_usage_error(
    as_json: bool, capfd: pytest.CaptureFixture[str]
) -> None:
    from lore.cli import main

    args = ["remember", "the deploy key", PEM] + (["--json"] if as_json else [])
    with pytest.raises(SystemExit) as exit_:
        main(args)
    assert exit_.value.code == 2
    out, err = capfd.readouterr()
    assert "No such option '[REDACTED:private-key]'" in out + err
    assert not [line for line in BODY if line[:20] in out + err]
