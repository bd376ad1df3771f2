"""``lore capture``: routing, every flag, enrichment, JSON output, refusals and stdin."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.store.documents import read_document

NOW = "2026-03-04T05:06:07.123456Z"
Run = Callable[..., Result]

LOG_FILES = {
    "decision": "journal/data/decisions.jsonl",
    "failure": "failures/data/failures.jsonl",
    "observation": "inbox/data/observations.jsonl",
    "evidence": "evidence/data/evidence.jsonl",
    "concept": "graph/data/concepts.jsonl",
}
DOC_DIRS = {"pattern": "patterns/data/patterns", "anti-pattern": "patterns/data/anti-patterns"}
PREFIXES = {
    "decision": "dec",
    "pattern": "pat",
    "anti-pattern": "anti",
    "failure": "fail",
    "observation": "obs",
    "evidence": "evi",
    "concept": "concept",
}
COMMON = {"session_id": None, "project": None, "source": "manual", "tags": [], "v": 1}
# What a capture of TEXT stores for each kind with no flags (after id and timestamp).
DEFAULTS: dict[str, dict[str, Any]] = {
    "decision": {
        "decision": "TEXT",
        "rationale": "",
        "alternatives": [],
        "outcome": "pending",
        "type": "other",
        "entities": [],
        "files": [],
        "lesson_learned": "",
        "related_decisions": [],
        "git_commit": None,
        "status": "active",
        "superseded_by": None,
        "spec_quality": 0.0,
        "supersedes": [],
        "contradicts": [],
        "derived_from": None,
    },
    "pattern": {
        "name": "TEXT",
        "context": "",
        "problem": "",
        "solution": "",
        "category": "",
        "origin": "",
        "confidence": 0.5,
        "validations": 0,
        "examples": [],
        "status": "active",
        "flags": [],
        "inverted_to": None,
    },
    "anti-pattern": {
        "name": "TEXT",
        "symptom": "",
        "risk": "",
        "fix": "",
        "severity": "medium",
        "category": "",
        "status": "active",
        "inverted_from": None,
    },
    "failure": {"error_type": "", "error_message": "TEXT", "tool": "", "step": ""},
    "observation": {"content": "TEXT", "status": "raw", "promoted_to": None, "discard_reason": ""},
    "evidence": {
        "content": "TEXT",
        "provenance": "",
        "confidence": "preliminary",
        "supports": [],
        "derived_from": None,
    },
    "concept": {
        "name": "TEXT",
        "description": "",
        "aliases": [],
        "related": [],
        "status": "active",
    },
}


def expected(kind: str, record_id: str, text: str, **changes: Any) -> dict[str, Any]:
    """The full stored record, in on-disk key order."""
    own = {k: (text if v == "TEXT" else v) for k, v in DEFAULTS[kind].items()}
    out = {"id": record_id, "timestamp": NOW, **own, **COMMON}
    for key, value in changes.items():
        assert key in out, key
        out[key] = value
    return out


def snapshot(root: Path) -> dict[str, bytes]:
    """Every data file's bytes (lock sidecars are not data)."""
    if not root.exists():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def stored(data_dir: Path, kind: str) -> list[dict[str, Any]]:
    """Every record of ``kind`` as written on disk (log lines or documents)."""
    if kind in LOG_FILES:
        path = data_dir / LOG_FILES[kind]
        rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
        return [row for row in rows if row["id"] not in TARGET_IDS]
    folder = data_dir / DOC_DIRS[kind]
    return [read_document(p) for p in sorted(folder.glob("*.yaml"))]


def one_json(result: Result) -> dict[str, Any]:
    out = result.stdout
    assert out.endswith("\n") and out.count("\n") == 1, out
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def captured(result: Result) -> dict[str, Any]:
    """The record of a successful ``--json`` capture (checks the envelope)."""
    assert result.exit_code == 0, (result.stdout, result.stderr)
    data = one_json(result)
    assert list(data)[:5] == ["ok", "id", "type", "timestamp", "record"]
    assert data["ok"] is True
    assert data["id"] == data["record"]["id"]
    assert data["timestamp"] == data["record"]["timestamp"]
    return data["record"]  # type: ignore[no-any-return]


TARGET_IDS = {"dec-1", "dec-a", "dec-b", "dec-c", "dec-000000000001"}


@pytest.fixture
def targets(data_dir: Path) -> list[str]:
    """Decisions with the ids the reference flags below point at (they must exist)."""
    from lore.components.journal import Decision
    from lore.store.core import Store

    ids = sorted(TARGET_IDS)
    Store(data_dir).add(
        [
            Decision(id=i, timestamp="2026-01-01T00:00:00.000000Z", decision=f"target {i}")
            for i in ids
        ]
    )
    return ids


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)


# --- routing -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(PREFIXES))
def test_kind_flag_makes_that_kind(run: Run, data_dir: Path, kind: str) -> None:
    args = ["capture", "Some text", f"--{kind}", "--json"]
    if kind == "failure":
        args += ["--error-type", "Timeout"]
    record = captured(run(*args))
    assert record["id"].startswith(PREFIXES[kind] + "-")
    changes = {"error_type": "Timeout"} if kind == "failure" else {}
    assert record == expected(kind, record["id"], "Some text", **changes)
    assert stored(data_dir, kind) == [record]


@pytest.mark.parametrize(
    ("args", "kind"),
    [
        (["--error-type", "Timeout", "--tool", "t", "--step", "s"], "failure"),
        (["--risk", "r", "--category", "c", "--severity", "low"], "anti-pattern"),
        (["--problem", "p", "--category", "c", "--confidence", "0.5"], "pattern"),
        (["--supports", "dec-1", "--provenance", "p"], "evidence"),
        (["--lesson", "l", "--type", "tooling"], "decision"),
        (["--description", "d"], "concept"),
        ([], "observation"),
        (["--confidence", "0.8"], "pattern"),
        (["--confidence", "confirmed"], "evidence"),
        (["--confidence", "Contested", "--provenance", "p"], "evidence"),
    ],
)
def test_flags_route(run: Run, args: list[str], kind: str, targets: list[str]) -> None:
    result = run("capture", "Routing text", *args, "--json")
    data = one_json(result)
    if kind != "evidence":  # (evidence's --supports dec-1 does not exist: exit 4)
        assert result.exit_code == 0, result.stderr
    assert data["type"] == kind


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--error-type", "Timeout", "--symptom", "s", "--solution", "s"],
            "not a flag of a failure: --solution (pattern), --symptom (anti-pattern)",
        ),
        (
            ["--problem", "p", "--provenance", "p", "--rationale", "r"],
            "not a flag of a pattern: --provenance (evidence), --rationale (decision)",
        ),
        (
            ["--confidence", "0.8", "--provenance", "p"],
            "not a flag of a pattern: --provenance (evidence)",
        ),
        (
            ["--lesson", "l", "--description", "d"],
            "not a flag of a decision: --description (concept)",
        ),
    ],
)
def test_flags_of_two_families_are_a_usage_error(
    run: Run, data_dir: Path, args: list[str], message: str
) -> None:
    result = run("capture", "Routing text", *args, "--json")
    assert result.exit_code == 2
    assert one_json(result)["error"] == f"{message}; nothing was written"
    assert one_json(result)["code"] == "usage"
    assert snapshot(data_dir) == {}


def test_confidence_number_is_a_pattern_and_level_is_evidence(run: Run, data_dir: Path) -> None:
    pattern = captured(run("capture", "Cache the wheel", "--confidence", "0.8", "--json"))
    assert pattern == expected("pattern", pattern["id"], "Cache the wheel", confidence=0.8)
    assert stored(data_dir, "pattern") == [pattern]
    evidence = captured(run("capture", "It got faster", "--confidence", "Confirmed", "--json"))
    assert evidence == expected("evidence", evidence["id"], "It got faster", confidence="confirmed")
    assert stored(data_dir, "evidence") == [evidence]


def test_two_kind_flags_are_a_usage_error(run: Run, data_dir: Path) -> None:
    result = run("capture", "x", "--decision", "--anti-pattern", "--json")
    assert result.exit_code == 2
    assert one_json(result) == {
        "ok": False,
        "error": "choose one kind, not --decision, --anti-pattern",
        "code": "usage",
    }
    assert result.stderr == "lore: error: choose one kind, not --decision, --anti-pattern\n"
    assert snapshot(data_dir) == {}


def test_flags_of_another_kind_are_a_usage_error(run: Run, data_dir: Path) -> None:
    result = run(
        "capture", "Use X", "--decision", "--solution", "s", "--tool", "t", "-r", "why", "--json"
    )
    assert result.exit_code == 2
    assert result.stderr == (
        "lore: error: not a flag of a decision: --solution (pattern), --tool (failure); "
        "nothing was written\n"
    )
    result = run("capture", "CI is slow", "--observation", "--alias", "a", "-q")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "lore: error: not a flag of an observation: --alias (concept); nothing was written\n"
    )
    assert snapshot(data_dir) == {}


def test_foreign_flag_error_names_every_flag_as_typed(run: Run, data_dir: Path) -> None:
    from lore.cli.capture import FIELD_OPTIONS

    args: list[str] = []
    flags = []
    for decls, _name, _, _ in FIELD_OPTIONS:
        long = next(d for d in decls if d.startswith("--"))
        args += [long, "1"]
        flags.append(long)
    result = run("capture", "x", "--observation", *args, "-q")
    assert result.exit_code == 2, result.stderr
    listed = result.stderr.removeprefix("lore: error: not a flag of an observation: ")
    named = re.findall(r"--[a-z-]+", listed)
    assert named == sorted(flags)
    assert snapshot(data_dir) == {}


def test_read_text_on_a_terminal_never_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    from lore.cli._output import read_text
    from lore.errors import UsageError

    class Terminal:
        def isatty(self) -> bool:
            return True

        def read(self) -> str:  # pragma: no cover - must not be called
            raise AssertionError("read a terminal")

    monkeypatch.setattr(sys, "stdin", Terminal())
    assert read_text("given") == "given"
    with pytest.raises(UsageError) as info:
        read_text(None)
    assert info.value.message == "no text given: pass it as an argument or pipe it on stdin"
    with pytest.raises(UsageError, match=r"^no message given: "):
        read_text(None, what="message")


def test_read_text_silent_pipe_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    import select

    from lore.cli._output import read_text
    from lore.errors import UsageError

    waits: list[float] = []
    real_select = select.select

    def watched(*args: Any) -> Any:  # the real select, its timeout noted
        waits.append(args[3])
        return real_select(*args)

    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "r") as reader:
        monkeypatch.setattr(sys, "stdin", reader)
        monkeypatch.setenv("LORE_STDIN_TIMEOUT", "0.05")
        monkeypatch.setattr(select, "select", watched)
        with pytest.raises(UsageError) as info:
            read_text(None)
        assert waits == [0.05]  # one wait of LORE_STDIN_TIMEOUT, then it gave up
        assert info.value.message == (
            "no text given: stdin is open but nothing arrived within 0.05s; "
            "pass - as the text to wait for the pipe to close, or raise LORE_STDIN_TIMEOUT"
        )
        os.write(write_end, b"late text")
        os.close(write_end)
        assert read_text(None) == "late text"


# --- every field flag ----------------------------------------------------------------

FLAG_CASES = [
    # (args, kind, field, stored value)
    (["--error-type", "Timeout"], "failure", "error_type", "Timeout"),
    (["--error-type", "E", "--tool", "npm"], "failure", "tool", "npm"),
    (["--error-type", "E", "--step", "install"], "failure", "step", "install"),
    (["--solution", "backoff"], "pattern", "solution", "backoff"),
    (["--problem", "429s"], "pattern", "problem", "429s"),
    (["--context", "CI"], "pattern", "context", "CI"),
    (["--category", "net"], "pattern", "category", "net"),
    (["--origin", "incident"], "pattern", "origin", "incident"),
    (["--confidence", "0.25"], "pattern", "confidence", 0.25),
    (["--confidence", "1"], "pattern", "confidence", 1.0),
    (["--example", "a, b", "--example", "c"], "pattern", "examples", ["a, b", "c"]),
    (["--symptom", "flaky"], "anti-pattern", "symptom", "flaky"),
    (["--risk", "slow"], "anti-pattern", "risk", "slow"),
    (["--fix", "poll"], "anti-pattern", "fix", "poll"),
    (["--severity", "critical"], "anti-pattern", "severity", "critical"),
    (["--symptom", "s", "--category", "tests"], "anti-pattern", "category", "tests"),
    (["--provenance", "bench.txt"], "evidence", "provenance", "bench.txt"),
    (["--supports", "dec-a,dec-b", "--supports", "dec-c"], "evidence", "supports",
     ["dec-a", "dec-b", "dec-c"]),
    (["--confidence", "contested"], "evidence", "confidence", "contested"),
    (["--rationale", "fast"], "decision", "rationale", "fast"),
    (["-r", "fast"], "decision", "rationale", "fast"),
    (["--alternatives", "a,b", "-a", "c", "-a", "a"], "decision", "alternatives", ["a", "b", "c"]),
    (["--type", "tooling"], "decision", "type", "tooling"),
    (["--files", "a.py,b.py", "-f", "c.py"], "decision", "files", ["a.py", "b.py", "c.py"]),
    (["--entities", "db, cache", "-e", "queue"], "decision", "entities", ["db", "cache", "queue"]),
    (["--outcome", "successful"], "decision", "outcome", "successful"),
    (["--lesson", "measure first"], "decision", "lesson_learned", "measure first"),
    (["--related", "dec-a,dec-b", "--related", "dec-c"], "decision", "related_decisions",
     ["dec-a", "dec-b", "dec-c"]),
    (["--description", "safe to retry"], "concept", "description", "safe to retry"),
    (["--alias", "idem,i", "--alias", "x"], "concept", "aliases", ["idem", "i", "x"]),
]  # fmt: skip


@pytest.mark.parametrize(("args", "kind", "field", "value"), FLAG_CASES)
def test_field_flag_is_stored(
    run: Run,
    data_dir: Path,
    args: list[str],
    kind: str,
    field: str,
    value: Any,
    targets: list[str],
) -> None:
    record = captured(run("capture", "Flag text", *args, "--json"))
    assert record["id"].startswith(PREFIXES[kind] + "-")
    assert record[field] == value
    on_disk = stored(data_dir, kind)
    assert on_disk == [record]


def test_every_field_flag_is_covered() -> None:
    from lore.cli.capture import FIELD_NAMES

    covered = {case[2] for case in FLAG_CASES} | {"supersedes"}  # supersedes: own tests
    assert set(FIELD_NAMES) == covered


def test_decision_with_every_flag_exact(run: Run, data_dir: Path, targets: list[str]) -> None:
    record = captured(
        run(
            "capture",
            "Use orjson for every JSON file we write",
            "-r",
            "fast and strict",
            "-a",
            "json,ujson",
            "--type",
            "implementation",
            "-f",
            "lore/storage/jsonl.py",
            "-e",
            "serialization",
            "--outcome",
            "successful",
            "--lesson",
            "benchmark first",
            "--related",
            "dec-000000000001",
            "-t",
            "perf",
            "--source",
            "agent",
            "--project",
            "lore",
            "--json",
        )
    )
    assert record == expected(
        "decision",
        record["id"],
        "Use orjson for every JSON file we write",
        rationale="fast and strict",
        alternatives=["json", "ujson"],
        outcome="successful",
        type="implementation",
        entities=["serialization", "lore/storage/jsonl.py"],
        files=["lore/storage/jsonl.py"],
        lesson_learned="benchmark first",
        related_decisions=["dec-000000000001"],
        spec_quality=1.0,
        project="lore",
        source="agent",
        tags=["perf", "lore"],
    )
    line = (data_dir / LOG_FILES["decision"]).read_bytes().splitlines(keepends=True)[-1]
    assert line == json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


# --- tags, project, source, session, git -------------------------------------------------


def test_tags_comma_separated_repeatable_deduplicated(run: Run, data_dir: Path) -> None:
    record = captured(run("observe", "x", "-t", "a, b", "--tags", "b,c", "-t", "a", "--json"))
    assert record["tags"] == ["a", "b", "c"]
    record = captured(run("observe", "y", "-t", "a,web", "--project", "web", "--json"))
    assert (record["tags"], record["project"]) == (["a", "web"], "web")
    record = captured(run("observe", "z", "-t", "a", "--project", "web", "--json"))
    assert (record["tags"], record["project"]) == (["a", "web"], "web")
    assert [r["tags"] for r in stored(data_dir, "observation")] == [
        ["a", "b", "c"],
        ["a", "web"],
        ["a", "web"],
    ]


def test_source_flag(run: Run, data_dir: Path) -> None:
    record = captured(run("observe", "x", "--source", "hook", "--json"))
    assert record["source"] == "hook"
    assert stored(data_dir, "observation")[0]["source"] == "hook"


def test_lore_project_env(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_PROJECT", "envproj")
    record = captured(run("observe", "x", "--json"))
    assert (record["project"], record["tags"]) == ("envproj", ["envproj"])
    record = captured(run("observe", "y", "--project", "flagproj", "--json"))
    assert (record["project"], record["tags"]) == ("flagproj", ["flagproj"])


def test_session_id_from_env(run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_SESSION_ID", "session-agent-42")
    record = captured(run("remember", "Use X", "--json"))
    assert record["session_id"] == "session-agent-42"
    assert stored(data_dir, "decision")[0]["session_id"] == "session-agent-42"


def test_bad_session_id_env_is_a_usage_error(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LORE_SESSION_ID", "Not A Session")
    result = run("observe", "x", "--json")
    assert result.exit_code == 2
    assert one_json(result)["code"] == "usage"
    assert "LORE_SESSION_ID='Not A Session' is not a session id" in result.stderr
    assert snapshot(data_dir) == {}


GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    top = tmp_path / "webshop"
    (top / "src").mkdir(parents=True)
    subprocess.run([*GIT, "init", "-q", str(top)], check=True)
    subprocess.run([*GIT, "-C", str(top), "commit", "-q", "--allow-empty", "-m", "one"], check=True)
    monkeypatch.chdir(top / "src")
    return top


def test_inside_a_git_repo(run: Run, data_dir: Path, repo: Path) -> None:
    head = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert len(head) == 40
    record = captured(run("remember", "Use X", "-t", "a", "--json"))
    assert (record["project"], record["tags"], record["git_commit"]) == (
        "webshop",
        ["a", "webshop"],
        head,
    )
    assert stored(data_dir, "decision") == [record]
    # the project tag alone does not earn the tags part of spec_quality
    assert record["spec_quality"] == 0.1
    obs = captured(run("observe", "x", "--json"))
    assert (obs["project"], obs["tags"]) == ("webshop", ["webshop"])
    assert "git_commit" not in obs
    # --project overrides the repository name
    other = captured(run("remember", "Use Y", "--project", "other", "--json"))
    assert (other["project"], other["tags"], other["git_commit"]) == ("other", ["other"], head)


def test_outside_a_git_repo(run: Run) -> None:
    record = captured(run("remember", "Use X", "--json"))
    assert (record["project"], record["tags"], record["git_commit"]) == (None, [], None)


# --- JSON output and the stored line ---------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["capture", "Some capture"],
        ["remember", "Use X because: y"],
        ["learn", "Retry on 429", "--solution", "backoff"],
        ["fail", "Timeout", "pytest hung"],
        ["observe", "CI is slow"],
        ["capture", "A concept", "--concept"],
        ["capture", "Benchmarks", "--provenance", "bench.txt"],
        ["capture", "Sleep in tests", "--anti-pattern"],
    ],
)
def test_json_record_is_what_show_prints_and_what_is_stored(
    run: Run, data_dir: Path, args: list[str]
) -> None:
    result = run(*args, "--json")
    data = one_json(result)
    assert list(data) == ["ok", "id", "type", "timestamp", "record"]
    record = captured(result)
    assert data["timestamp"] == NOW
    shown = run("show", data["id"], "--json")
    assert shown.exit_code == 0
    assert shown.stdout == json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"
    assert stored(data_dir, data["type"]) == [record]
    if data["type"] in LOG_FILES:  # the stored line is byte for byte the printed record
        raw = (data_dir / LOG_FILES[data["type"]]).read_text("utf-8")
        assert raw == shown.stdout


def test_quiet_prints_only_the_id(run: Run, data_dir: Path) -> None:
    result = run("capture", "x", "-q")
    assert result.exit_code == 0
    (record,) = stored(data_dir, "observation")
    assert result.stdout == record["id"] + "\n"
    assert result.stderr == ""
    result = run("capture", "y", "--quiet", "--json")  # --json wins
    assert one_json(result)["record"]["content"] == "y"


def test_human_output(run: Run, data_dir: Path) -> None:
    text = "word " * 20 + "[red]end[/red]"
    result = run("observe", text)
    assert result.exit_code == 0
    (record,) = stored(data_dir, "observation")
    title = " ".join(text.split())
    assert result.stdout == f"observation {record['id']}: {title[:72]}…\n"
    assert "\x1b" not in result.stdout + result.stderr
    result = run("remember", "Use [bold]X[/bold]\nnow")
    (decision,) = stored(data_dir, "decision")
    assert result.stdout == f"decision {decision['id']}: Use [bold]X[/bold] now\n"


# --- refusals: JSON error, exit code, nothing written ----------------------------------


def test_refusals_write_nothing(run: Run, data_dir: Path) -> None:
    first = captured(run("remember", "Use ruff for linting", "--json"))
    captured(run("learn", "Retry on 429", "--json"))
    before = snapshot(data_dir)
    cases: list[tuple[list[str], int, dict[str, Any]]] = [
        (["capture", ""], 2, {"code": "usage", "error": "nothing to capture: the text is empty"}),
        (["capture", "  \n "], 2, {"code": "usage"}),
        (["capture", "x", "--outcome", "bogus"], 4, {"code": "invalid", "field": "outcome",
                                                      "kind": "decision"}),
        (["capture", "x", "--type", "bogus"], 4, {"code": "invalid", "field": "type"}),
        (["capture", "x", "--severity", "huge"], 4, {"code": "invalid", "field": "severity"}),
        (["capture", "x", "--confidence", "2"], 4, {"code": "invalid", "field": "confidence",
                                                     "kind": "pattern"}),
        (["capture", "x", "--confidence", "high"], 4, {"code": "invalid", "field": "confidence"}),
        (["capture", "x", "--evidence", "--confidence", "0.3"], 4,
         {"code": "invalid", "field": "confidence", "kind": "evidence"}),
        (["capture", "x", "--tool", "npm"], 4, {"code": "invalid", "field": "error_type"}),
        (["fail", "not valid", "x"], 4, {"code": "invalid", "field": "error_type"}),
        (["remember", "use RUFF for linting!"], 6, {"code": "duplicate",
                                                     "existing_id": first["id"]}),
        (["remember", "x", "--supersedes", "dec-000000000000"], 3, {"code": "not_found"}),
        (["show", "dec-000000000000"], 3, {"code": "not_found", "id": "dec-000000000000"}),
    ]  # fmt: skip
    for args, code, subset in cases:
        result = run(*args, "--json")
        assert result.exit_code == code, (args, result.stderr)
        data = one_json(result)
        assert data["ok"] is False
        assert {k: data[k] for k in subset} == subset, args
        assert result.stderr == f"lore: error: {data['error']}\n"
        if "field" in subset:
            assert subset["field"] in data["error"]
        assert snapshot(data_dir) == before, args


def test_invalid_value_messages(run: Run) -> None:
    result = run("capture", "x", "--outcome", "bogus")
    assert result.exit_code == 4
    assert result.stderr == (
        "lore: error: decision outcome must be one of pending, successful, revised, "
        "abandoned (got 'bogus')\n"
    )
    assert result.stdout == ""
    result = run("capture", "x", "--confidence", "2")
    assert result.stderr == "lore: error: pattern confidence must be between 0 and 1 (got '2')\n"


# --- near-duplicates -------------------------------------------------------------------


@pytest.mark.parametrize(
    "again",
    [
        "Use ruff for linting",
        "use RUFF for linting.",
        "Use ruff, for linting!!",
        "for linting use ruff",
        "Use ruff for lintings",
    ],
)
def test_near_duplicate_decision_refused(run: Run, data_dir: Path, again: str) -> None:
    first = captured(run("remember", "Use ruff for linting", "--json"))
    before = snapshot(data_dir)
    result = run("remember", again, "--json")
    assert result.exit_code == 6
    assert one_json(result) == {
        "ok": False,
        "error": f"a near-duplicate decision already exists: {first['id']} "
        "('Use ruff for linting'); pass --force to record it anyway",
        "code": "duplicate",
        "existing_id": first["id"],
    }
    assert snapshot(data_dir) == before
    forced = captured(run("remember", again, "--force", "--json"))
    assert [r["id"] for r in stored(data_dir, "decision")] == [first["id"], forced["id"]]


def test_near_duplicate_pattern_refused(run: Run, data_dir: Path) -> None:
    first = captured(run("learn", "Retry flaky network calls", "--json"))
    result = run("learn", "retry flaky network-calls", "--solution", "x", "--json")
    assert result.exit_code == 6
    assert one_json(result)["existing_id"] == first["id"]
    assert len(stored(data_dir, "pattern")) == 1


def test_different_decisions_are_accepted(run: Run, data_dir: Path) -> None:
    captured(run("remember", "Use ruff for linting", "--json"))
    captured(run("remember", "Use black for formatting", "--json"))
    captured(run("remember", "Use ruff for linting and formatting in CI", "--json"))
    assert len(stored(data_dir, "decision")) == 3


def test_retracted_decision_does_not_block(run: Run, data_dir: Path) -> None:
    first = captured(run("remember", "Use ruff for linting", "--json"))
    assert run("retract", first["id"]).exit_code == 0
    again = captured(run("remember", "Use ruff for linting", "--json"))
    assert again["id"] != first["id"]


# --- supersedes ------------------------------------------------------------------------


def test_supersedes(run: Run, data_dir: Path) -> None:
    old = captured(run("remember", "Use Postgres 14 for the main database", "--json"))
    new = captured(
        run(
            "remember", "Use Postgres 15 for the main database", "--supersedes", old["id"], "--json"
        )
    )
    # The new decision names the one it replaces (and the old one points forward).
    assert (new["supersedes"], new["superseded_by"]) == ([old["id"]], None)
    shown = json.loads(run("show", old["id"], "--json").stdout)
    assert (shown["status"], shown["superseded_by"]) == ("superseded", new["id"])
    lines = (data_dir / LOG_FILES["decision"]).read_text().splitlines()
    assert json.loads(lines[2]) == {
        "_op": "revise",
        "id": old["id"],
        "timestamp": NOW,
        "set": {"status": "superseded", "superseded_by": new["id"]},
        "was": {"status": "active"},
    }
    listed = json.loads(run("list", "decisions", "--json").stdout)
    assert [r["id"] for r in listed] == [new["id"]]


def test_supersedes_another_kind_is_invalid(run: Run, data_dir: Path) -> None:
    obs = captured(run("observe", "x", "--json"))
    before = snapshot(data_dir)
    result = run("remember", "Use X", "--supersedes", obs["id"], "--json")
    assert result.exit_code == 4
    assert (
        one_json(result)["error"]
        == f"--supersedes needs a decision id, got observation {obs['id']}"
    )
    assert snapshot(data_dir) == before


def test_supersedes_on_other_kinds_is_a_usage_error(run: Run, data_dir: Path) -> None:
    old = captured(run("remember", "Use X", "--json"))
    before = snapshot(data_dir)
    result = run("observe", "y", "--supersedes", old["id"], "--json")
    assert result.exit_code == 2
    assert result.stderr == (
        "lore: error: not a flag of an observation: --supersedes (decision); nothing was written\n"
    )
    assert snapshot(data_dir) == before
    assert json.loads(run("show", old["id"], "--json").stdout)["status"] == "active"


# --- secrets gate ----------------------------------------------------------------------

AWS_KEY = "AKIA" + "QZ7XJ4K2LMNOPQRS"
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
PRIVATE_KEY = (
    "-----BEGIN RSA " + "PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
    "-----END RSA " + "PRIVATE KEY-----"
)
PASSWORD = "password=" + "hunter2real"


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["observe", f"key {AWS_KEY} leaked"], "content"),
        (["remember", f"Use token {GITHUB_TOKEN}"], "decision"),
        (["observe", f"deploy key:\n{PRIVATE_KEY}"], "content"),
        (["observe", f"db {PASSWORD}"], "content"),
        (["remember", "Use X", "-r", f"because {PASSWORD}"], "rationale"),
        (["observe", "x", "-t", GITHUB_TOKEN], "tags"),
        (["learn", "Use Y", "--solution", f"export AWS_ACCESS_KEY_ID={AWS_KEY}"], "solution"),
        (["fail", "ToolError", f"auth failed with {GITHUB_TOKEN}"], "error_message"),
    ],
)
def test_secret_refused(run: Run, data_dir: Path, args: list[str], field: str) -> None:
    before = snapshot(data_dir)
    result = run(*args, "--json")
    assert result.exit_code == 7, result.stderr
    data = one_json(result)
    assert data["code"] == "secret"
    named = data["field"]  # a list item may be named by its index: tags[0]
    assert named == field or named.startswith(field + "["), named
    finding = data["findings"][0]
    assert finding["field"] == named
    assert data["secret"] == finding["rule"]
    assert finding["kind"]
    assert (
        f"refusing to write: {named} looks like it holds a secret ({finding['kind']});"
        in data["error"]
    )
    assert result.stderr == f"lore: error: {data['error']}\n"
    assert snapshot(data_dir) == before
    # --allow-secret writes it as given
    record = captured(run(*args, "--allow-secret", "--json"))
    kind = {v: k for k, v in PREFIXES.items()}[record["id"].split("-")[0]]
    assert record in stored(data_dir, kind)


def test_secret_message_names_field_and_kind(run: Run) -> None:
    from lore.secrets.gate import scan_text

    result = run("remember", "Use X", "-r", f"key {AWS_KEY}")
    assert result.exit_code == 7
    (finding,) = [f for f in scan_text(f"key {AWS_KEY}")][:1]
    assert finding.kind == "AWS access key ID"
    assert result.stderr == (
        "lore: error: refusing to write: rationale looks like it holds a secret "
        "(AWS access key ID); "
        "remove it, or pass --allow-secret if this is not a real credential\n"
    )
    assert result.stdout == ""


# --- stdin ---------------------------------------------------------------------------


def test_dash_reads_stdin(run: Run, data_dir: Path) -> None:
    record = captured(run("capture", "-", "--json", input="from stdin\n"))
    assert record["content"] == "from stdin"


def test_no_text_reads_piped_stdin(run: Run, data_dir: Path) -> None:
    record = captured(run("remember", "--json", input="Use X because: piped\n"))
    assert (record["decision"], record["rationale"]) == ("Use X", "piped")


@pytest.mark.parametrize("command", ["capture", "observe", "remember", "learn"])
def test_no_text_and_empty_stdin_is_a_usage_error(run: Run, data_dir: Path, command: str) -> None:
    result = run(command, "--json", input="")
    assert result.exit_code == 2
    assert one_json(result)["code"] == "usage"
    assert result.stderr == "lore: error: nothing to capture: the text is empty\n"
    assert snapshot(data_dir) == {}


def test_unicode_round_trips_via_stdin(run: Run, data_dir: Path) -> None:
    text = "naïve café — 日本語 🚀 \u200b zero-width, tab\there\nsecond line"
    record = captured(run("observe", "-", "--json", input=text.encode("utf-8")))
    assert record["content"] == text
    assert stored(data_dir, "observation")[0]["content"] == text
    shown = json.loads(run("show", record["id"], "--json").stdout)
    assert shown["content"] == text


def test_three_megabytes_round_trip_via_stdin(run: Run, data_dir: Path) -> None:
    line = "0123456789abcdefghijklmnopqrstuvwxyzé✓\n"
    text = (line * (3 * 1024 * 1024 // len(line.encode()) + 1)).strip()
    assert len(text.encode()) > 3 * 1024 * 1024
    result = run("observe", "-q", input=text.encode("utf-8"))
    assert result.exit_code == 0
    (record,) = stored(data_dir, "observation")
    assert record["content"] == text
    assert result.stdout == record["id"] + "\n"


def test_open_silent_stdin_does_not_block(tmp_path: Path) -> None:
    """A real pipe that stays open and silent: lore gives up after LORE_STDIN_TIMEOUT (the
    message names the wait it used; a hang fails at the 10 s bound, whatever the load)."""
    exe = shutil.which("lore", path=str(Path(sys.executable).parent))
    command = [exe] if exe else [sys.executable, "-m", "lore"]
    env = {**os.environ, "LORE_STDIN_TIMEOUT": "0.5", "LORE_DATA_DIR": str(tmp_path / "d")}
    proc = subprocess.Popen(
        [*command, "observe", "--json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        # wait(), not communicate(): communicate() would close stdin, which is an EOF.
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover - the failure being tested
        proc.kill()
        proc.wait()
        raise
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
    assert proc.stdout is not None and proc.stderr is not None
    out, err = proc.stdout.read(), proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    assert proc.returncode == 2
    assert json.loads(out)["code"] == "usage"
    assert b"no text given: stdin is open but nothing arrived within 0.5s;" in err
    assert not (tmp_path / "d").exists()


def test_reference_to_a_missing_record_is_refused(run: Run, data_dir: Path) -> None:
    result = run("capture", "Benchmarks back it", "--supports", "dec-000000000009", "--json")
    assert result.exit_code == 4
    assert json.loads(result.stdout)["error"] == (
        "evidence supports: no record with id 'dec-000000000009'"
    )
    assert not (data_dir / "evidence/data/evidence.jsonl").exists()


def test_reference_to_the_wrong_kind_is_refused(run: Run, data_dir: Path) -> None:
    failure = json.loads(run("fail", "Timeout", "slow", "--json").stdout)["id"]
    result = run("remember", "Use a cache", "--related", failure, "--json")
    assert result.exit_code == 4
    assert json.loads(result.stdout)["error"] == (
        f"decision related_decisions: {failure} is a failure, not a decision"
    )
