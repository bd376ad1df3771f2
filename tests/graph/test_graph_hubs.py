"""Hubs do not drown graph answers: a session that produced many records is listed by
``graph related`` but not walked through, paths go around it when they can, personalized
PageRank is damped at it, and ``recall --deep`` never answers with a session or project
unless asked for sessions."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

from lore.graph.queries import pagerank
from lore.graph.snapshot import open_graph
from lore.store.core import Store

Run = Callable[..., Result]
SESSION = "session-0000000000aa"
OTHERS = [f"dec-00000000000{i}" for i in range(1, 9)]


def _json(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def busy(put: Any) -> None:
    """One session that produced a failure, a decision about it and eight unrelated
    decisions; the failure and its decision share a file too."""
    put("session", id=SESSION, status="closed", message="postgres all day", project="shop")
    put("decision", id="dec-0000000000f0", decision="Pool postgres connections",
        files=["src/db.py"], session_id=SESSION)  # fmt: skip
    put("failure", id="fail-0000000000f1", error_type="ConnectionRefused",
        error_message="postgres refused connections", session_id=SESSION)  # fmt: skip
    put("evidence", id="evi-0000000000f2", content="pool of 20 holds",
        supports=["dec-0000000000f0", "fail-0000000000f1"])  # fmt: skip
    for n, rid in enumerate(OTHERS):
        put("decision", id=rid, decision=f"Unrelated choice number {n}", session_id=SESSION)


def test_related_lists_a_hub_without_walking_through_it(run: Run, busy: None) -> None:
    doc = _json(run("graph", "related", "dec-0000000000f0", "--hops", "2", "--json"))
    found = {n["id"]: n["distance"] for n in doc["nodes"]}
    assert found == {
        SESSION: 1,
        "file:src/db.py": 1,
        "evi-0000000000f2": 1,
        "fail-0000000000f1": 2,  # through the evidence, not the session
    }
    assert not set(OTHERS) & set(found)
    assert doc["hubs"] == [{"id": SESSION, "degree": 11}]
    text = run("graph", "related", "dec-0000000000f0")
    assert text.stderr == f"lore: not walked through hubs: {SESSION} (11 edges)\n"
    # Started at the hub itself, related walks it: its records are what it relates to.
    doc = _json(run("graph", "related", SESSION, "--hops", "1", "--json"))
    assert set(OTHERS) <= {n["id"] for n in doc["nodes"]}


def test_a_path_goes_around_a_hub(run: Run, put: Any) -> None:
    put("session", id=SESSION, status="closed", message="day", project="shop")
    put("decision", id="dec-0000000000f0", decision="Pool connections", files=["src/db.py"],
        session_id=SESSION)  # fmt: skip
    put("failure", id="fail-0000000000f1", error_type="ConnectionRefused",
        error_message="refused", session_id=SESSION)  # fmt: skip
    put("decision", id="dec-0000000000f3", decision="Retry on connect", files=["src/db.py"])
    put("edge", id="edge-0000000000f4", src="dec-0000000000f3", dst="fail-0000000000f1",
        relation="fixes")  # fmt: skip
    for n in range(12):
        put("decision", id=f"dec-0000000001{n:02d}", decision=f"Other {n}", session_id=SESSION)
    doc = _json(run("graph", "path", "dec-0000000000f0", "fail-0000000000f1", "--json"))
    # Two steps through the session (15 edges), or three through quiet nodes: the latter.
    assert [n["id"] for n in doc["nodes"]] == [
        "dec-0000000000f0",
        "file:src/db.py",
        "dec-0000000000f3",
        "fail-0000000000f1",
    ]
    assert doc["length"] == 3


def test_personalized_pagerank_is_damped_at_hubs(store: Store, busy: None) -> None:
    snapshot = open_graph(store)
    assert snapshot.graph.degree(SESSION) == 11
    seeds = {"dec-0000000000f0": 1.0, "fail-0000000000f1": 1.0}
    ranks = pagerank(snapshot, seeds)
    assert ranks[SESSION] < ranks["evi-0000000000f2"]
    undamped = pagerank(snapshot)  # not personalized: the plain PageRank hubs --by uses
    assert max(undamped, key=undamped.__getitem__) == SESSION


def test_recall_deep_never_answers_with_the_session_unless_asked(run: Run, busy: None) -> None:
    doc = _json(run("recall", "--deep", "postgres", "connections", "--json", "--explain"))
    ids = [r["id"] for r in doc["results"]]
    # The session's handoff says "postgres": a text hit, yet not an answer here.
    plain = _json(run("recall", "postgres", "--json"))
    assert SESSION in [r["id"] for r in plain["results"]]
    assert SESSION not in ids and not any(i.startswith("project:") for i in ids)
    assert ids[:2] == ["fail-0000000000f1", "dec-0000000000f0"] or ids[:2] == [
        "dec-0000000000f0",
        "fail-0000000000f1",
    ]
    assert "evi-0000000000f2" in ids[:3]
    # Nothing reached through the session comes up: the graph adds no unrelated choice
    # (the first one is a text hit: it inherits context from its neighbour in capture).
    for result in doc["results"]:
        if result["id"] in OTHERS:
            assert result["explain"]["text"] > 0 and "via" not in result["explain"]
    assert len(set(OTHERS) & set(ids)) <= 1
    asked = _json(run("recall", "--deep", "postgres", "--kind", "session", "--json"))
    assert [r["id"] for r in asked["results"]] == [SESSION]
    # --graph-depth adds neighbours of the text hits: never the session's other records.
    deep = _json(run("recall", "--graph-depth", "2", "postgres", "--json", "--explain"))
    added = [r for r in deep["results"] if "via" in r["explain"]]
    assert added and all(SESSION not in " ".join(r["explain"]["via"]) for r in added)
    assert not {r["id"] for r in added} & set(OTHERS)
