"""``lore doctor [--repair] [--json]`` and bad data on disk: reads report and go on, writes
refuse to rewrite what they cannot parse, nothing is silently dropped."""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]


def made(run: Run, *args: str) -> str:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    return str(json.loads(result.stdout)["id"])


def doctor(run: Run, *args: str) -> tuple[int, dict[str, Any]]:
    result = run("doctor", "--json", *args)
    return result.exit_code, json.loads(result.stdout)


def obs_log(data_dir: Path) -> Path:
    return data_dir / "inbox" / "data" / "observations.jsonl"


def test_doctor_on_a_clean_root(run: Run) -> None:
    made(run, "observe", "fine")
    code, reply = doctor(run)
    assert code == 0
    assert reply["ok"] is True
    assert reply["issues"] == []
    assert reply["findings"] == []
    assert reply["repaired"] == []
    assert reply["counts"]["observation"] == 1
    result = run("doctor")
    assert result.stdout == ""
    assert result.stderr == "lore: data OK (1 record)\n"


def test_repair_quarantines_bad_lines_and_keeps_every_record(run: Run, data_dir: Path) -> None:
    first = made(run, "observe", "first")
    log = obs_log(data_dir)
    with log.open("ab") as handle:
        handle.write(b"<<<<<<< HEAD\n{not json\n=======\n")
    second = made(run, "observe", "second")
    with log.open("ab") as handle:
        handle.write(b">>>>>>> theirs\n\xff\xfe binary\n")
        handle.write(b'{"id": "obs-torn", "content": "half')  # a torn last line
    good = [line for line in log.read_bytes().split(b"\n") if line.startswith(b'{"id":"obs-')]
    code, reply = doctor(run)
    assert code == 4
    assert {i["code"] for i in reply["issues"]} >= {"conflict-marker", "parse", "torn-line"}
    code, reply = doctor(run, "--repair")
    assert code == 0, reply
    assert reply["repaired"][0] == {
        "action": "quarantined",
        "file": "inbox/data/observations.jsonl",
        "lines": [2, 3, 4, 6, 7, 8],
        "to": "inbox/data/observations.jsonl.quarantine",
    }
    assert {"action": "rebuilt", "file": "index", "lines": []} in reply["repaired"]
    assert reply["issues"] == []
    assert [f["code"] for f in reply["findings"]] == ["quarantine-file"]
    # the log keeps exactly its good lines, byte for byte
    assert log.read_bytes() == b"\n".join(good) + b"\n"
    moved = [
        json.loads(x)
        for x in log.with_name("observations.jsonl.quarantine").read_text().splitlines()
    ]
    assert [(m["file"], m["line"], m["code"]) for m in moved] == [
        ("inbox/data/observations.jsonl", 2, "conflict-marker"),
        ("inbox/data/observations.jsonl", 3, "parse"),
        ("inbox/data/observations.jsonl", 4, "conflict-marker"),
        ("inbox/data/observations.jsonl", 6, "conflict-marker"),
        ("inbox/data/observations.jsonl", 7, "parse"),
        ("inbox/data/observations.jsonl", 8, "torn-line"),
    ]
    assert base64.b64decode(moved[4]["bytes_base64"]) == b"\xff\xfe binary"
    assert moved[5]["text"] == '{"id": "obs-torn", "content": "half'
    listed = json.loads(run("list", "observations", "--json").stdout)
    assert sorted(r["id"] for r in listed) == sorted([first, second])
    assert run("validate").exit_code == 0
    # a second repair has nothing to do
    code, again = doctor(run, "--repair")
    assert [r["action"] for r in again["repaired"]] == ["rebuilt"]


def test_doctor_finds_temp_files_held_locks_and_a_corrupt_index(
    run: Run, data_dir: Path, tmp_path: Path
) -> None:
    import fcntl

    made(run, "observe", "x")
    folder = obs_log(data_dir).parent
    old_tmp = folder / ".observations.jsonl.abc.tmp"
    old_tmp.write_bytes(b"partial")
    past = time.time() - 3600
    os.utime(old_tmp, (past, past))
    new_tmp = folder / ".observations.jsonl.def.tmp"
    new_tmp.write_bytes(b"in flight")
    lock = folder / ".observations.jsonl.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    paths = json.loads(run("paths", "--json").stdout)
    index = Path(paths["local"]) / "index" / "index.bin"
    run("recall", "x")
    assert index.is_file()
    assert run("graph", "neighbors", "x").exit_code in (0, 3)  # builds the graph snapshot
    graph = next(p for p in Path(paths["local"]).rglob("*graph*") if p.is_file())
    graph.write_bytes(b"garbage")
    index.write_bytes(b"garbage")
    try:
        code, reply = doctor(run)
    finally:
        os.close(fd)
    assert code == 0  # warnings only
    found = {(f["code"], f["path"]) for f in reply["findings"]}
    assert found == {
        ("temp-file", "inbox/data/.observations.jsonl.abc.tmp"),
        ("temp-file", "inbox/data/.observations.jsonl.def.tmp"),
        ("lock-held", "inbox/data/.observations.jsonl.lock"),
        ("corrupt-index", str(index)),
        ("corrupt-graph", str(graph)),
    }
    code, reply = doctor(run, "--repair")
    assert not old_tmp.exists()
    assert new_tmp.exists()  # too young: it may be a write in progress
    assert {"action": "removed", "file": "inbox/data/.observations.jsonl.abc.tmp", "lines": []} in (
        reply["repaired"]
    )
    assert "corrupt-index" not in {f["code"] for f in reply["findings"]}
    assert "corrupt-graph" not in {f["code"] for f in reply["findings"]}
    assert {"action": "rebuilt", "file": "graph", "lines": []} in reply["repaired"]


# --- bad data on disk ------------------------------------------------------------------------


def test_reads_report_file_and_line_and_go_on(run: Run, data_dir: Path) -> None:
    first = made(run, "observe", "kept one")
    with obs_log(data_dir).open("ab") as handle:
        handle.write(b"{broken\n")
    second = made(run, "observe", "kept two")
    result = run("list", "observations", "--json")
    assert result.exit_code == 0
    assert {r["id"] for r in json.loads(result.stdout)} == {first, second}
    assert f"{obs_log(data_dir)}:2: invalid JSON" in result.stderr


@pytest.mark.parametrize(
    "damage",
    [
        "name: [unclosed\n",  # broken YAML
        "<<<<<<< HEAD\nname: a\n=======\nname: b\n>>>>>>> x\n",  # conflict markers
    ],
)
def test_a_document_that_does_not_parse_is_never_rewritten(
    run: Run, data_dir: Path, damage: str
) -> None:
    pat = made(run, "learn", "Retry with backoff")
    other = made(run, "learn", "Cache the reads")
    file = data_dir / "patterns" / "data" / "patterns" / f"{pat}.yaml"
    file.write_text(file.read_text() + damage)
    before = file.read_bytes()
    listed = run("list", "patterns", "--json")
    assert listed.exit_code == 0
    assert [r["id"] for r in json.loads(listed.stdout)] == [other]
    assert f"{file}:" in listed.stderr
    for args in (["retract", pat], ["show", pat]):
        result = run(*args, "--json")
        assert result.exit_code == 4, (args, result.output)
        reply = json.loads(result.stdout)
        assert reply["code"] == "data"
        assert reply["id"] == pat
        assert str(file) in reply["error"]
    assert file.read_bytes() == before
    report = json.loads(run("validate", "--json").stdout)
    assert any(
        i["file"].endswith(f"{pat}.yaml") and i["severity"] == "error" for i in report["issues"]
    )


def test_wrong_field_types_and_duplicate_ids_are_reported(run: Run, data_dir: Path) -> None:
    obs = made(run, "observe", "ok")
    with obs_log(data_dir).open("a") as handle:
        handle.write(json.dumps({"id": obs, "content": "a different record"}) + "\n")
        handle.write(json.dumps({"id": "obs-typed", "content": 42, "tags": "x"}) + "\n")
    report = json.loads(run("validate", "--json").stdout)
    codes = {(i["line"], i["code"]) for i in report["issues"]}
    assert (2, "duplicate-id") in codes
    assert any(line == 3 and code == "schema" for line, code in codes)
    listed = json.loads(run("list", "observations", "--json").stdout)
    assert obs in {r["id"] for r in listed}


def test_non_utf8_and_empty_files(run: Run, data_dir: Path) -> None:
    log = obs_log(data_dir)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(b"")
    assert run("list", "observations", "--json").stdout.strip() == "[]"
    assert run("validate").exit_code == 0
    log.write_bytes(b"\x80\x81 not text\n")
    result = run("list", "observations", "--json")
    assert result.exit_code == 0
    assert f"{log}:1:" in result.stderr
    report = json.loads(run("validate", "--json").stdout)
    assert [i["code"] for i in report["issues"]] == ["not-utf8"]
    obs = made(run, "observe", "after the bad bytes")  # appends still work
    assert [r["id"] for r in json.loads(run("list", "observations", "--json").stdout)] == [obs]


def test_a_directory_where_a_log_should_be(run: Run, data_dir: Path) -> None:
    log = data_dir / "journal" / "data" / "decisions.jsonl"
    log.mkdir(parents=True)
    result = run("list", "decisions", "--json")
    assert result.exit_code == 4  # never an empty list for a log that cannot be read
    assert f"{log}: cannot read" in result.stderr
    result = run("remember", "Use uv", "--json")
    assert result.exit_code == 1
    assert str(log) in json.loads(result.stdout)["error"]
    report = json.loads(run("validate", "--json").stdout)
    assert [(i["file"], i["code"]) for i in report["issues"]] == [
        ("journal/data/decisions.jsonl", "unreadable")
    ]
    assert run("doctor").exit_code == 4
