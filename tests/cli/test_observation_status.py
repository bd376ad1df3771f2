"""Triage decides what an observation is worth to recall, the inbox and the graph: a discarded
or retracted one is not a live result, a promoted one ranks below the record it became and
says so; asked for explicitly (``--all``, ``--status all``), each shows its status."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", "2026-03-10T12:00:00Z")


def ok(run: Run, *args: str) -> Result:
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    return result


def ok_json(run: Run, *args: str) -> Any:
    return json.loads(ok(run, *args, "--json").stdout)


@pytest.fixture
def triaged(run: Run) -> dict[str, str]:
    ids = {
        "discarded": ok(run, "observe", "billing webhook retries billing webhook", "-q"),
        "promoted": ok(run, "observe", "billing webhook payloads are signed webhook", "-q"),
        "retracted": ok(run, "observe", "billing webhook sends duplicate webhook events", "-q"),
        "raw": ok(run, "observe", "a billing webhook note", "-q"),
    }
    out = {k: v.stdout.strip() for k, v in ids.items()}
    ok(run, "inbox", "discard", out["discarded"], "--reason", "not true")
    target = ok_json(
        run,
        "inbox",
        "promote",
        out["promoted"],
        "--to",
        "decision",
        "--text",
        "Verify webhook signatures",
    )["promoted_to"]
    ok(run, "retract", out["retracted"], "--reason", "mistaken")
    out["target"] = target
    return out


def test_recall_leaves_out_discarded_and_puts_promoted_below_its_target(
    run: Run, triaged: dict[str, str]
) -> None:
    found = ok_json(run, "recall", "billing", "webhook", "signed")["results"]
    ids = [r["id"] for r in found]
    # The promoted observation matches all three words, its decision one: it still comes
    # right after the decision it became.
    assert ids == [triaged["target"], triaged["promoted"], triaged["raw"]]
    assert found[1]["status"] == "promoted" and found[1]["promoted_to"] == triaged["target"]
    assert found[1]["score"] < found[0]["score"]
    text = ok(run, "recall", "billing", "webhook", "signed").stdout
    assert f"[promoted to {triaged['target']}]" in text
    assert triaged["discarded"] not in text and triaged["retracted"] not in text
    # Asked for: every one, each with its status.
    every = ok(run, "recall", "billing", "webhook", "--all").stdout
    assert (
        f"{triaged['discarded']}  billing webhook retries billing webhook  [discarded: not true]"
        in every
    )
    assert (
        f"{triaged['retracted']}  billing webhook sends duplicate webhook events  [retracted]"
        in every
    )
    listed = {r["id"] for r in ok_json(run, "list", "observation")}
    assert listed == {triaged["raw"], triaged["promoted"]}


def test_a_promoted_observation_never_outranks_its_target_even_when_pruned(
    run: Run, triaged: dict[str, str]
) -> None:
    # --limit 1: the decision matches less well and would be pruned from the top one.
    found = ok_json(run, "recall", "billing", "webhook", "payloads", "--limit", "1")["results"]
    assert [r["id"] for r in found] == [triaged["target"]]


def test_inbox_lists_a_retracted_observation_only_with_status_all(
    run: Run, triaged: dict[str, str]
) -> None:
    assert [o["id"] for o in ok_json(run, "inbox")] == [triaged["raw"]]
    every = ok_json(run, "inbox", "--status", "all")
    assert {o["id"] for o in every} == {
        triaged["raw"], triaged["retracted"], triaged["promoted"], triaged["discarded"]
    }  # fmt: skip
    retracted = next(o for o in every if o["id"] == triaged["retracted"])
    assert retracted["retracted_at"] == "2026-03-10T12:00:00.000000Z"
    line = next(
        x for x in ok(run, "inbox", "--status", "all").stdout.splitlines()
        if x.startswith(triaged["retracted"])
    )  # fmt: skip
    assert line.endswith("billing webhook sends duplicate webhook events  [retracted: mistaken]")


def test_the_graph_leaves_out_retracted_and_discarded_records(
    run: Run, triaged: dict[str, str]
) -> None:
    nodes = {n["id"] for n in json.loads(ok(run, "graph", "export").stdout)["nodes"]}
    assert triaged["retracted"] not in nodes and triaged["discarded"] not in nodes
    assert {triaged["raw"], triaged["promoted"], triaged["target"]} <= nodes
    missing = run("graph", "show", triaged["retracted"])
    assert missing.exit_code == 3
    # A record retracted after the snapshot was taken leaves it too.
    ok(run, "retract", triaged["target"], "--reason", "wrong")
    nodes = {n["id"] for n in json.loads(ok(run, "graph", "export").stdout)["nodes"]}
    assert triaged["target"] not in nodes
    edges = ok_json(run, "graph", "neighbors", triaged["promoted"])["neighbors"]
    assert edges == []
