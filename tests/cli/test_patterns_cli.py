"""``lore patterns ...`` and ``lore suggest``: exact records, JSON shapes, refusals, inversion."""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.components.patterns import (
    FLAG_PENALTY,
    INVERSION_THRESHOLD,
    VALIDATION_STEP,
    flagged,
    should_invert,
    validated,
)
from lore.store.core import Store
from lore.store.documents import read_document

Run = Callable[..., Result]
NOW = "2026-03-10T12:00:00.000000Z"
FORK = multiprocessing.get_context("fork")


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    monkeypatch.setenv("LORE_PROJECT", "shop")


def ok_json(run: Run, *args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def new_pattern(run: Run, name: str = "Retry with backoff", *extra: str) -> str:
    return str(ok_json(run, "learn", name, "--solution", "exponential backoff", *extra)["id"])


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def anti_files(data_dir: Path) -> list[Path]:
    return sorted((data_dir / "patterns" / "data" / "anti-patterns").glob("*.yaml"))


# --- rules ----------------------------------------------------------------------------


def test_confidence_rules() -> None:
    assert VALIDATION_STEP == 0.1
    assert [validated(c) for c in (0.5, 0.7, 0.95, 1.0)] == [0.6, 0.8, 1.0, 1.0]
    assert FLAG_PENALTY == {"harmful": 0.2, "incorrect": 0.15, "obsolete": 0.1}
    assert [flagged(0.5, t) for t in ("harmful", "incorrect", "obsolete")] == [0.3, 0.35, 0.4]
    assert flagged(0.1, "harmful") == 0.0
    harmful = {"type": "harmful", "reason": "r", "timestamp": NOW}
    assert INVERSION_THRESHOLD == 3
    assert not should_invert({"flags": [harmful] * 2 + [{**harmful, "type": "obsolete"}]})
    assert should_invert({"flags": [harmful] * 3})
    assert not should_invert({"flags": [harmful] * 4, "inverted_to": "anti-1"})


# --- list and show --------------------------------------------------------------------


def test_list_orders_and_filters(run: Run) -> None:
    low = new_pattern(run, "Pin versions", "--confidence", "0.3", "--category", "build")
    high = new_pattern(run, "Cache wheels", "--confidence", "0.9", "--category", "Build")
    warned = ok_json(
        run, "patterns", "warn", "Sleep in tests", "--symptom", "flaky", "--fix", "poll",
        "--severity", "critical",
    )["id"]  # fmt: skip
    result = run("patterns")
    assert result.exit_code == 0
    assert result.stdout == (
        f"{high}   0.90      Cache wheels\n"
        f"{low}   0.30      Pin versions\n"
        f"{warned}  critical  Sleep in tests\n"
    )
    items = ok_json(run, "patterns", "list", "--type", "patterns", "--category", "build")
    assert [(i["id"], i["type"]) for i in items] == [(high, "pattern"), (low, "pattern")]
    assert list(items[0])[:3] == ["id", "type", "timestamp"]
    assert [i["id"] for i in ok_json(run, "patterns")] == [high, low, warned]
    assert [i["id"] for i in ok_json(run, "patterns", "list", "--type", "anti-patterns")] == [
        warned
    ]


def test_list_bad_type_is_a_usage_error(run: Run) -> None:
    result = run("patterns", "list", "--type", "rules", "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["code"] == "usage"
    assert "--type must be one of patterns, anti-patterns, all" in result.stderr


def test_show_prints_the_record_and_refuses_other_kinds(run: Run) -> None:
    pid = new_pattern(run)
    assert ok_json(run, "patterns", "show", pid) == ok_json(run, "show", pid)
    assert json.loads(run("patterns", "--json", "show", pid).stdout) == ok_json(run, "show", pid)
    assert run("patterns", "show", pid).stdout.startswith(f"pattern {pid}\n  timestamp: {NOW}\n")
    missing = run("patterns", "show", "pat-000000000000")
    assert missing.exit_code == 3
    decision = ok_json(run, "remember", "Use Redis")["id"]
    other = run("patterns", "show", decision)
    assert other.exit_code == 4
    assert f"{decision} is a decision, not a pattern or an anti-pattern" in other.stderr


# --- warn -----------------------------------------------------------------------------


def test_show_lists_the_evidence_that_backs_it(run: Run) -> None:
    pid = ok_json(run, "learn", "Retry with backoff")["id"]
    evi = ok_json(run, "evidence", "add", "Retries cut errors by 90%", "--supports", pid)["id"]
    shown = ok_json(run, "patterns", "show", pid)
    assert shown == ok_json(run, "show", pid)
    assert [e["id"] for e in shown["evidence"]] == [evi]
    text = run("patterns", "show", pid).stdout
    assert text.endswith(f"evidence:\n  {evi}  [preliminary]  Retries cut errors by 90%\n")


def test_warn_creates_an_anti_pattern_through_capture(run: Run, data_dir: Path) -> None:
    reply = ok_json(
        run, "patterns", "warn", "Sleep in tests", "--symptom", "flaky CI", "--fix",
        "wait for the condition", "--risk", "lost hours", "--severity", "high",
        "--category", "testing",
    )  # fmt: skip
    aid = reply["id"]
    assert list(reply) == ["ok", "id", "type", "timestamp", "record", "warnings"]
    assert (reply["ok"], reply["type"], reply["timestamp"], reply["warnings"]) == (
        True, "anti-pattern", NOW, [],
    )  # fmt: skip
    assert (
        read_document(anti_files(data_dir)[0])
        == reply["record"]
        == {
            "id": aid,
            "timestamp": NOW,
            "name": "Sleep in tests",
            "symptom": "flaky CI",
            "risk": "lost hours",
            "fix": "wait for the condition",
            "severity": "high",
            "category": "testing",
            "status": "active",
            "inverted_from": None,
            "session_id": None,
            "project": "shop",
            "source": "manual",
            "tags": ["shop"],
            "v": 1,
        }
    )
    assert run("patterns", "warn", "Sleep in tests", "--symptom", "x", "--fix", "y").stdout == ""


def test_warn_refusals_change_nothing(run: Run, data_dir: Path) -> None:
    run("patterns", "warn", "Sleep in tests", "--symptom", "flaky", "--fix", "poll")
    before = snapshot(data_dir)
    duplicate = run("patterns", "warn", "sleep in  tests", "--symptom", "a", "--fix", "b")
    assert duplicate.exit_code == 6
    secret = run(
        "patterns", "warn", "Leaky", "--symptom", "AKIA" + "QZ7XJ4K2LMNOPQRS in logs", "--fix", "b"
    )
    assert secret.exit_code == 7
    bad = run("patterns", "warn", "New", "--symptom", "a", "--fix", "b", "--severity", "huge")
    assert bad.exit_code == 4
    assert "--severity must be one of low, medium, high, critical" in bad.stderr
    assert run("patterns", "warn", "New", "--symptom", "a").exit_code == 2  # --fix is required
    assert snapshot(data_dir) == before


# --- validate -------------------------------------------------------------------------


def test_validate_raises_confidence_and_counts(run: Run, data_dir: Path) -> None:
    pid = new_pattern(run, "Retry", "--confidence", "0.85")
    first = ok_json(run, "patterns", "validate", pid)
    assert list(first) == ["ok", "id", "from", "to", "validations", "record"]
    assert (first["from"], first["to"], first["validations"]) == (0.85, 0.95, 1)
    second = run("patterns", "validate", pid)
    assert second.stdout == f"pattern {pid}: confidence 0.95 -> 1 (2 validations)\n"
    stored = read_document(data_dir / "patterns" / "data" / "patterns" / f"{pid}.yaml")
    assert (stored["confidence"], stored["validations"]) == (0.85, 0)  # the base: unchanged
    events = data_dir / "patterns" / "data" / "pattern-events.jsonl"
    lines = [json.loads(line) for line in events.read_text().splitlines()]
    assert [(e["id"], e["type"], e["timestamp"]) for e in lines] == [(pid, "validate", NOW)] * 2
    assert lines[0]["event"] != lines[1]["event"]  # two validations, never one merged line
    shown = ok_json(run, "patterns", "show", pid)
    assert (shown["confidence"], shown["validations"]) == (1.0, 2)
    other = new_pattern(run, "Pin versions")
    once = run("patterns", "validate", other)
    assert once.stdout == f"pattern {other}: confidence 0.5 -> 0.6 (1 validation)\n"


def test_validate_refusals(run: Run, data_dir: Path) -> None:
    assert run("patterns", "validate", "pat-000000000000").exit_code == 3
    anti = ok_json(run, "patterns", "warn", "X", "--symptom", "s", "--fix", "f")["id"]
    before = snapshot(data_dir)
    refused = run("patterns", "validate", anti, "--json")
    assert refused.exit_code == 4
    assert json.loads(refused.stdout)["error"] == f"{anti} is an anti-pattern, not a pattern"
    assert snapshot(data_dir) == before


# --- flag and inversion -----------------------------------------------------------------


def test_flag_lowers_confidence_and_records_the_flag(run: Run, data_dir: Path) -> None:
    pid = new_pattern(run)
    reply = ok_json(run, "patterns", "flag", pid, "--reason", "stale API", "--type", "obsolete")
    assert list(reply) == [
        "ok", "id", "flag", "from", "to", "harmful_flags", "inverted", "inverted_to", "record",
    ]  # fmt: skip
    flag = {"timestamp": NOW, "type": "obsolete", "reason": "stale API"}
    assert reply["flag"] == flag
    assert (reply["from"], reply["to"], reply["harmful_flags"]) == (0.5, 0.4, 0)
    assert (reply["inverted"], reply["inverted_to"]) == (False, None)
    stored = read_document(data_dir / "patterns" / "data" / "patterns" / f"{pid}.yaml")
    assert (stored["flags"], stored["confidence"]) == ([], 0.5)  # the base: unchanged
    [event] = (data_dir / "patterns" / "data" / "pattern-events.jsonl").read_text().splitlines()
    assert {k: v for k, v in json.loads(event).items() if k != "event"} == {
        "id": pid, "timestamp": NOW, "type": "flag", "flag": "obsolete", "reason": "stale API"
    }  # fmt: skip
    shown = ok_json(run, "patterns", "show", pid)
    assert (shown["flags"], shown["confidence"]) == ([flag], 0.4)
    text = run("patterns", "flag", pid, "--reason", "wrong")  # default type: harmful
    assert text.stdout == f"pattern {pid}: flagged harmful, confidence 0.4 -> 0.2 (1 harmful)\n"


def test_flag_refusals_change_nothing(run: Run, data_dir: Path) -> None:
    pid = new_pattern(run)
    before = snapshot(data_dir)
    assert run("patterns", "flag", "pat-000000000000", "--reason", "r").exit_code == 3
    bad = run("patterns", "flag", pid, "--reason", "r", "--type", "boring")
    assert bad.exit_code == 4
    assert "--type must be one of harmful, obsolete, incorrect" in bad.stderr
    assert run("patterns", "flag", pid).exit_code == 2  # --reason is required
    assert run("patterns", "flag", pid, "--reason", "  ").exit_code == 2
    secret = run(
        "patterns", "flag", pid, "--reason", "token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    )
    assert secret.exit_code == 7
    assert snapshot(data_dir) == before


def test_three_harmful_flags_invert_exactly_once(run: Run, data_dir: Path) -> None:
    pid = new_pattern(run, "Retry with backoff", "--category", "http", "-t", "net")
    for n in range(2):
        assert not ok_json(run, "patterns", "flag", pid, "--reason", f"bad {n}")["inverted"]
    ok_json(run, "patterns", "flag", pid, "--reason", "meh", "--type", "obsolete")
    assert anti_files(data_dir) == []
    third = run("patterns", "flag", pid, "--reason", "made the outage worse")
    assert third.exit_code == 0
    (file,) = anti_files(data_dir)
    aid = file.stem
    assert third.stderr == f"lore: inverted: {pid} is deprecated; avoid it: {aid}\n"
    assert read_document(file) == {
        "id": aid,
        "timestamp": NOW,
        "name": "Avoid: Retry with backoff",
        "symptom": "Applying it: exponential backoff",
        "risk": "bad 0; bad 1; made the outage worse",
        "fix": f"Stop applying it; {pid} says why it was deprecated",
        "severity": "high",
        "category": "http",
        "status": "active",
        "inverted_from": pid,
        "session_id": None,
        "project": "shop",
        "source": "flag",
        "tags": ["net", "shop"],
        "v": 1,
    }
    pattern = ok_json(run, "patterns", "show", pid)
    assert (pattern["status"], pattern["confidence"], pattern["inverted_to"]) == (
        "deprecated", 0.0, aid,
    )  # fmt: skip
    for n in range(3):  # later flags never make a second one
        later = ok_json(run, "patterns", "flag", pid, "--reason", f"again {n}")
        assert (later["inverted"], later["inverted_to"], later["to"]) == (False, aid, 0.0)
    assert [f.stem for f in anti_files(data_dir)] == [aid]
    assert len(ok_json(run, "patterns", "show", pid)["flags"]) == 7
    # never suggested again, nor listed by default; still shown with --all
    assert ok_json(run, "suggest", "retry", "backoff")["patterns"] == []
    assert ok_json(run, "recall", "--patterns")["patterns"] == []
    assert [i["id"] for i in ok_json(run, "patterns")] == [aid]
    assert pid in [i["id"] for i in ok_json(run, "patterns", "list", "--all")]
    refused = run("patterns", "validate", pid)
    assert refused.exit_code == 4
    assert "deprecated; only an active pattern can be validated" in refused.stderr


def test_inversion_adopts_an_existing_avoid_anti_pattern(run: Run, data_dir: Path) -> None:
    pid = new_pattern(run, "Retry with backoff")
    own = ok_json(
        run, "patterns", "warn", "Avoid: Retry with backoff", "--symptom", "s", "--fix", "f"
    )["id"]
    for n in range(3):
        reply = ok_json(run, "patterns", "flag", pid, "--reason", f"r{n}")
    assert reply["inverted_to"] == own
    assert [f.stem for f in anti_files(data_dir)] == [own]
    assert ok_json(run, "show", own)["inverted_from"] == pid


def _flag_once(worker: int, root: str, pattern_id: str) -> None:
    from lore.usecases.patterns import flag_pattern

    flag_pattern(Store(root), pattern_id, reason=f"worker {worker}")


def test_concurrent_flaggers_make_one_anti_pattern(run: Run, data_dir: Path) -> None:
    pid = new_pattern(run)
    ok_json(run, "patterns", "flag", pid, "--reason", "first")
    ok_json(run, "patterns", "flag", pid, "--reason", "second")
    barrier = FORK.Barrier(6)

    def start(worker: int) -> None:
        barrier.wait(10)
        _flag_once(worker, str(data_dir), pid)

    workers = [FORK.Process(target=start, args=(w,)) for w in range(6)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(30)
    assert [w.exitcode for w in workers] == [0] * 6
    (file,) = anti_files(data_dir)
    pattern = ok_json(run, "show", pid)
    assert len(pattern["flags"]) == 8
    assert pattern["inverted_to"] == file.stem
    assert read_document(file)["inverted_from"] == pid


# --- suggest --------------------------------------------------------------------------


def test_suggest_and_recall_patterns_share_one_shape(run: Run) -> None:
    pid = new_pattern(run, "Retry flaky HTTP calls")
    aid = ok_json(
        run, "patterns", "warn", "Retry storms on flaky HTTP", "--symptom", "load", "--fix", "cap"
    )["id"]
    new_pattern(run, "Pin dependencies")
    doc = ok_json(run, "suggest", "flaky", "http")
    assert list(doc) == ["query", "project", "patterns", "anti_patterns"]
    assert (doc["query"], doc["project"]) == ("flaky http", "shop")
    assert [p["id"] for p in doc["patterns"]] == [pid]
    assert [a["id"] for a in doc["anti_patterns"]] == [aid]
    recalled = ok_json(run, "recall", "--patterns", "flaky", "http")
    strip = lambda d: [{k: v for k, v in i.items() if k != "score"} for i in d]  # noqa: E731
    assert strip(recalled["patterns"]) == strip(doc["patterns"])
    text = run("suggest", "flaky", "http").stdout.splitlines()
    assert text[0] == "## Patterns (1)"
    assert text[2] == "## Anti-patterns (1)"
    assert run("suggest").exit_code == 0  # no context: the project's best
