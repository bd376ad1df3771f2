"""The ``inbox`` tool (list, promote, discard the candidates ingestion leaves) and
``recall``'s compact form (ids, kinds, titles and scores; ``show`` reads one)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (the [mcp] extra) is not installed")


def test_inbox_lists_promotes_and_discards(server: Any, run: Any) -> None:
    first = server.ok(
        "observe", text="from now on run ruff before each commit", tags=["candidate", "pattern"]
    )
    second = server.ok("observe", text="maybe try uv some day", tags=["idea"])
    third = server.ok(
        "observe", text="we decided to keep SQLite for tests", tags=["candidate", "decision"]
    )
    listed = server.ok("inbox", tags=["candidate"])
    assert listed["total"] == 2
    assert [o["id"] for o in listed["observations"]] == [third["id"], first["id"]]
    assert server.ok("inbox", limit=1)["observations"][0]["id"] == third["id"]
    promoted = server.ok(
        "inbox",
        action="promote",
        id=first["id"],
        to="pattern",
        fields={"solution": "ruff check before git commit"},
    )
    assert promoted["ok"] is True and promoted["promoted_to"].startswith("pat-")
    assert promoted["target"]["solution"] == "ruff check before git commit"
    assert promoted["target"]["derived_from"] == first["id"]
    assert promoted["target"]["source"] == "mcp"
    assert promoted["observation"]["status"] == "promoted"
    discarded = server.ok("inbox", action="discard", id=third["id"], reason="not decided yet")
    assert discarded["record"]["status"] == "discarded"
    assert [o["id"] for o in server.ok("inbox")["observations"]] == [second["id"]]
    assert server.ok("inbox", status="all")["total"] == 3
    # Mistakes are tool errors with lore's codes; the server goes on.
    assert server.error("inbox", action="promote", id=second["id"])["code"] == "usage"
    assert server.error("inbox", action="discard")["code"] == "usage"
    no_reason = server.error("inbox", action="discard", id=second["id"])
    assert (no_reason["code"], no_reason["error"]) == (
        "usage",
        "discard needs `reason`: why the observation is dropped",  # not the CLI's --reason
    )
    again = server.error("inbox", action="promote", id=first["id"], to="decision")
    assert again["code"] == "invalid"
    assert server.error("inbox", action="discard", id="obs-000000000000", reason="x")["code"] == (
        "not_found"
    )


def test_recall_compact_gives_ids_kinds_titles_and_scores(server: Any) -> None:
    decision = server.ok("remember", text="Use Postgres for billing because: transactions")
    server.ok("learn", text="Wrap billing writes in one transaction", solution="BEGIN ... COMMIT")
    full = server.ok("recall", query="billing transactions")
    compact = server.ok("recall", query="billing transactions", compact=True)
    assert compact["query"] == "billing transactions" and compact["window"] is None
    assert [r["id"] for r in compact["results"]] == [r["id"] for r in full["results"]]
    for short, long in zip(compact["results"], full["results"]):
        assert set(short) == {"id", "type", "title", "score"}
        assert short["type"] == long["type"]  # (the score moved: the first recall counts)
    scores = [r["score"] for r in compact["results"]]
    assert scores == sorted(scores, reverse=True) and all(isinstance(x, float) for x in scores)
    titles = {r["id"]: r["title"] for r in compact["results"]}
    assert titles[decision["id"]] == "Use Postgres for billing"
    assert server.ok("show", id=decision["id"])["decision"] == "Use Postgres for billing"
    refused = server.error("recall", mode="triggers", compact=True)
    assert refused["code"] == "usage"
