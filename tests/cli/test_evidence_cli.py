"""``lore evidence ...`` (add, list, show, update, stats) and the evidence ``lore show``
lists under the record it supports."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]
EVIDENCE = "evidence/data/evidence.jsonl"
T1, T2 = "2026-03-01T10:00:00.000000Z", "2026-03-02T10:00:00.000000Z"
NOW = "2026-03-10T12:00:00.000000Z"


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def lines(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / EVIDENCE).read_text().splitlines()]


@pytest.fixture
def decision(run: Run) -> str:
    return run("remember", "Use Redis for caching", "-q").stdout.strip()


def add(run: Run, *args: str, when: str = T1) -> dict[str, Any]:
    result = run("evidence", "add", *args, "--json", env={"LORE_NOW": when})
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    return data


def test_add_exact(run: Run, decision: str, data_dir: Path) -> None:
    reply = add(run, "p99 fell from 80 ms to 12 ms", "--provenance", "bench/run.txt",
                "--confidence", "Confirmed", "--supports", decision, "-t", "perf")  # fmt: skip
    assert list(reply) == ["ok", "id", "type", "timestamp", "record"]
    assert reply["record"] == {
        "id": reply["id"],
        "timestamp": T1,
        "content": "p99 fell from 80 ms to 12 ms",
        "provenance": "bench/run.txt",
        "confidence": "confirmed",
        "supports": [decision],
        "derived_from": None,
        "session_id": None,
        "project": None,
        "source": "manual",
        "tags": ["perf"],
        "v": 1,
    }
    assert lines(data_dir) == [reply["record"]]
    text = run("evidence", "add", "Redis is single-threaded", "--supports", decision)
    assert text.stdout.startswith("evidence evi-") and text.stdout.endswith(
        ": Redis is single-threaded\n"
    )


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["x", "--supports", "dec-000000000000"], 3,
         "--supports dec-000000000000: no record with id 'dec-000000000000'"),
        (["x", "--confidence", "sure"], 4, "evidence confidence must be one of preliminary, "
         "confirmed, contested, superseded (got 'sure')"),
        (["key AKIA" + "QZ7XJ4K2LMNOPQRS leaked"], 7, "refusing to write: content looks like it "
         "holds a secret (AWS access key ID); remove it, or pass --allow-secret if this is not a "
         "real credential"),
        (["  "], 2, "nothing to capture: the text is empty"),
    ],
)  # fmt: skip
def test_add_refusals(
    run: Run, decision: str, data_dir: Path, args: list[str], code: int, message: str
) -> None:
    before = snapshot(data_dir)
    result = run("evidence", "add", *args, "--json")
    assert (result.exit_code, json.loads(result.stdout)["error"]) == (code, message)
    assert snapshot(data_dir) == before


def test_list_show_update_stats(run: Run, decision: str, data_dir: Path) -> None:
    a = add(run, "bench says 6x", "--supports", decision, when=T1)["id"]
    b = add(run, "users say it is faster", "--confidence", "contested", when=T2)["id"]
    assert [e["id"] for e in json.loads(run("evidence", "list", "--json").stdout)] == [b, a]
    assert run("evidence", "list").stdout == (
        f"{b}  2026-03-02  contested    users say it is faster\n"
        f"{a}  2026-03-01  preliminary  bench says 6x  (supports {decision})\n"
    )
    only = json.loads(run("evidence", "list", "--confidence", "contested", "--json").stdout)
    assert [e["id"] for e in only] == [b]
    assert json.loads(run("evidence", "show", a, "--json").stdout) == lines(data_dir)[0]

    reply = json.loads(
        run(
            "evidence", "update", b, "--confidence", "superseded", "--json", env={"LORE_NOW": NOW}
        ).stdout
    )
    assert (reply["changed"], reply["record"]["confidence"]) == (["confidence"], "superseded")
    assert lines(data_dir)[-1] == {
        "_op": "revise",
        "id": b,
        "timestamp": NOW,
        "set": {"confidence": "superseded"},
        "was": {"confidence": "contested"},
    }
    assert [e["id"] for e in json.loads(run("evidence", "list", "--json").stdout)] == [a]
    assert [e["id"] for e in json.loads(run("evidence", "list", "--all", "--json").stdout)] == [
        b,
        a,
    ]
    superseded = json.loads(run("evidence", "list", "--confidence", "superseded", "--json").stdout)
    assert [e["id"] for e in superseded] == [b]
    stats = json.loads(run("evidence", "stats", "--json").stdout)
    assert stats == {"total": 2, "preliminary": 1, "confirmed": 0, "contested": 0, "superseded": 1}
    assert list(stats) == ["total", "preliminary", "confirmed", "contested", "superseded"]
    assert run("evidence", "stats").stdout == (
        "total 2  preliminary 1  confirmed 0  contested 0  superseded 1\n"
    )


def test_update_and_show_refusals(run: Run, decision: str, data_dir: Path) -> None:
    a = add(run, "bench says 6x")["id"]
    before = snapshot(data_dir)
    bad = run("evidence", "update", a, "--confidence", "maybe", "--json")
    assert bad.exit_code == 4
    assert run("evidence", "update", "evi-000000000000", "--confidence", "confirmed").exit_code == 3
    assert run("evidence", "update", decision, "--confidence", "confirmed").exit_code == 3
    assert run("evidence", "update", a).exit_code == 2  # --confidence is required
    same = json.loads(run("evidence", "update", a, "--confidence", "preliminary", "--json").stdout)
    assert same["changed"] == []
    assert run("evidence", "show", "evi-000000000000").exit_code == 3
    assert snapshot(data_dir) == before


def test_show_lists_the_evidence_behind_a_record(run: Run, decision: str) -> None:
    assert "evidence" not in json.loads(run("show", decision, "--json").stdout)
    a = add(run, "bench says 6x", "--supports", decision, "--confidence", "confirmed", when=T1)
    b = add(run, "a blog post agrees", "--supports", decision, when=T2)
    add(run, "unrelated", when=T2)
    shown = json.loads(run("show", decision, "--json").stdout)
    assert shown["evidence"] == [b["record"], a["record"]]
    assert shown["id"] == decision
    history = json.loads(run("show", decision, "--history", "--json").stdout)
    assert list(history) == ["record", "history", "evidence"]
    text = run("show", decision).stdout
    assert text.endswith(
        "evidence:\n"
        f"  {b['id']}  [preliminary]  a blog post agrees\n"
        f"  {a['id']}  [confirmed]  bench says 6x\n"
    )
    journal = json.loads(run("journal", "show", decision, "--json").stdout)
    assert journal == shown


def test_evidence_alone_lists(run: Run, decision: str) -> None:
    add(run, "bench says 6x", "--supports", decision)
    assert run("evidence").stdout == run("evidence", "list").stdout
    listed = json.loads(run("evidence", "--json").stdout)
    assert listed == json.loads(run("evidence", "list", "--json").stdout) and len(listed) == 1
