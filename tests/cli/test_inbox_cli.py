"""``lore inbox``: list observations by status, promote one (both ways linked, once only),
discard one; refusals leave the files alone."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]
OBSERVATIONS = "inbox/data/observations.jsonl"
T1, T2 = "2026-03-01T10:00:00.000000Z", "2026-03-02T10:00:00.000000Z"
NOW = "2026-03-10T12:00:00.000000Z"


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def lines(root: Path, name: str = OBSERVATIONS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (root / name).read_text().splitlines()]


def observe(run: Run, text: str, when: str = T1) -> str:
    result = run("observe", text, "-q", "-t", "ci", env={"LORE_NOW": when})
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture
def two(run: Run) -> list[str]:
    return [observe(run, "CI cache is cold on Mondays", T1), observe(run, "Docs build is slow", T2)]


def test_inbox_lists_raw_newest_first(run: Run, two: list[str]) -> None:
    a, b = two
    result = run("inbox")
    assert result.stdout == (
        f"{b}  2026-03-02  raw        Docs build is slow\n"
        f"{a}  2026-03-01  raw        CI cache is cold on Mondays\n"
    )
    found = json.loads(run("inbox", "--json").stdout)
    assert [o["id"] for o in found] == [b, a]


def test_inbox_status_filter(run: Run, two: list[str]) -> None:
    a, b = two
    assert run("inbox", "discard", b, "--reason", "known").exit_code == 0
    assert [o["id"] for o in json.loads(run("inbox", "--json").stdout)] == [a]
    gone = json.loads(run("inbox", "--status", "discarded", "--json").stdout)
    assert [(o["id"], o["status"], o["discard_reason"]) for o in gone] == [
        (b, "discarded", "known")
    ]
    every = json.loads(run("inbox", "--status", "all", "--json").stdout)
    assert [o["id"] for o in every] == [b, a]
    assert json.loads(run("inbox", "--all", "--json").stdout) == every  # --all, as elsewhere
    assert run("inbox", "--status", "discarded").stdout == (
        f"{b}  2026-03-02  discarded  Docs build is slow  (known)\n"
    )
    bad = run("inbox", "--status", "new", "--json")
    assert (bad.exit_code, json.loads(bad.stdout)["error"]) == (
        4,
        "observation status must be one of raw, promoted, discarded, archived or all (got 'new')",
    )
    empty = run("inbox", "--status", "promoted")
    assert (empty.stdout, empty.stderr) == ("", "lore: no promoted observations\n")


@pytest.mark.parametrize(
    ("to", "flags", "field", "value"),
    [
        (
            "decision",
            ["--rationale", "Monday builds are slow"],
            "rationale",
            "Monday builds are slow",
        ),
        (
            "pattern",
            ["--solution", "warm the cache on Sunday"],
            "solution",
            "warm the cache on Sunday",
        ),
        ("evidence", ["--provenance", "ci.log"], "provenance", "ci.log"),
    ],
)
def test_promote_links_both_ways(
    run: Run, two: list[str], data_dir: Path, to: str, flags: list[str], field: str, value: str
) -> None:
    a, _ = two
    result = run("inbox", "promote", a, "--to", to, *flags, "--json", env={"LORE_NOW": NOW})
    assert result.exit_code == 0, result.stderr
    reply = json.loads(result.stdout)
    assert list(reply) == ["ok", "id", "promoted_to", "observation", "target", "warnings"]
    target = reply["target"]
    assert (reply["id"], reply["promoted_to"]) == (a, target["id"])
    assert target["id"].startswith({"decision": "dec-", "pattern": "pat-", "evidence": "evi-"}[to])
    assert (target["derived_from"], target[field]) == (a, value)
    assert target[{"decision": "decision", "pattern": "name", "evidence": "content"}[to]] == (
        "CI cache is cold on Mondays"
    )
    assert target["tags"] == ["ci"]
    assert lines(data_dir)[-1] == {
        "_op": "revise",
        "id": a,
        "timestamp": NOW,
        "set": {"status": "promoted", "promoted_to": target["id"]},
        "was": {"status": "raw"},
    }
    shown = json.loads(run("show", target["id"], "--json").stdout)
    assert shown["derived_from"] == a
    assert run("inbox", "--status", "promoted").stdout.endswith(f"  -> {target['id']}\n")


def test_promote_with_new_text(run: Run, two: list[str]) -> None:
    reply = json.loads(
        run(
            "inbox", "promote", two[0], "--to", "decision", "--text", "Warm CI caches", "--json"
        ).stdout
    )
    assert reply["target"]["decision"] == "Warm CI caches"


def test_promote_twice_is_refused_naming_the_first_target(
    run: Run, two: list[str], data_dir: Path
) -> None:
    first = run("inbox", "promote", two[0], "--to", "evidence", "-q")
    target = first.stdout.strip()
    before = snapshot(data_dir)
    again = run("inbox", "promote", two[0], "--to", "decision", "--json")
    assert again.exit_code == 4
    assert json.loads(again.stdout) == {
        "ok": False,
        "error": f"{two[0]} was already promoted to {target}",
        "code": "invalid",
        "id": two[0],
        "promoted_to": target,
    }
    assert snapshot(data_dir) == before


@pytest.mark.parametrize("case", ["duplicate", "secret", "unknown", "discarded", "not-observation"])
def test_promote_refusals_change_nothing(
    run: Run, two: list[str], data_dir: Path, case: str
) -> None:
    a, _ = two
    target, args = a, ["--to", "decision"]
    if case == "duplicate":
        run("remember", "CI cache is cold on Mondays")
    elif case == "secret":
        args += ["--rationale", "token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"]
    elif case == "unknown":
        target = "obs-000000000000"
    elif case == "discarded":
        run("inbox", "discard", a, "--reason", "noise")
    elif case == "not-observation":
        target = run("remember", "Use ruff", "-q").stdout.strip()
    before = snapshot(data_dir)
    result = run("inbox", "promote", target, *args, "--json")
    code = {"duplicate": 6, "secret": 7, "unknown": 3, "discarded": 4, "not-observation": 3}[case]
    assert result.exit_code == code, result.stdout
    if case == "discarded":
        assert json.loads(result.stdout)["error"] == f"{a} was discarded (noise)"
    assert snapshot(data_dir) == before
    if case != "unknown" and case != "not-observation":
        assert json.loads(run("show", a, "--json").stdout)["status"] in ("raw", "discarded")


def test_promote_bad_kind_is_a_usage_error(run: Run, two: list[str]) -> None:
    assert run("inbox", "promote", two[0], "--to", "failure").exit_code == 2


def test_discard(run: Run, two: list[str], data_dir: Path) -> None:
    reply = json.loads(
        run(
            "inbox", "discard", two[1], "--reason", "a one-off", "--json", env={"LORE_NOW": NOW}
        ).stdout
    )
    assert (reply["id"], reply["record"]["status"], reply["record"]["discard_reason"]) == (
        two[1],
        "discarded",
        "a one-off",
    )
    assert lines(data_dir)[-1] == {
        "_op": "revise",
        "id": two[1],
        "timestamp": NOW,
        "set": {"status": "discarded", "discard_reason": "a one-off"},
        "was": {"status": "raw"},
    }
    before = snapshot(data_dir)
    again = run("inbox", "discard", two[1], "--reason", "x", "--json")
    assert (again.exit_code, json.loads(again.stdout)["error"]) == (
        4,
        f"{two[1]} was discarded (a one-off)",
    )
    assert run("inbox", "discard", "obs-000000000000", "--reason", "x").exit_code == 3
    assert run("inbox", "discard", two[0]).exit_code == 2  # --reason is required
    assert snapshot(data_dir) == before


def test_a_promote_that_loses_a_race_withdraws_its_target(
    run: Run, two: list[str], data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lore.capture.core

    real = lore.capture.core.capture
    made: list[str] = []

    def capture_then_lose(store: Any, *args: Any, **kwargs: Any) -> Any:
        captured = real(store, *args, **kwargs)
        made.append(captured.record.id)
        store.revise(two[0], {"status": "discarded", "discard_reason": "someone else"})
        return captured

    monkeypatch.setattr(lore.capture.core, "capture", capture_then_lose)
    result = run("inbox", "promote", two[0], "--to", "decision", "--json")
    assert result.exit_code == 4
    assert json.loads(result.stdout)["error"] == f"{two[0]} was discarded (someone else)"
    [target] = made
    shown = json.loads(run("show", target, "--json").stdout)
    assert (shown["status"], shown["derived_from"]) == ("retracted", two[0])
    assert shown["retraction_reason"] == f"{two[0]} was triaged by another writer"
    assert json.loads(run("show", two[0], "--json").stdout)["status"] == "discarded"
