"""`lore graph ...` and `lore concepts ...` as a user runs them: JSON shapes, curated
records on disk, exit codes, and the secrets gate."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

from lore.store.core import Store
from tests.conftest import lines

AWS_KEY = "AKIA" + "Z7Q4M2XKP9LW3RTB"


@pytest.fixture
def chain(put: Any) -> None:
    put("decision", id="dec-a1", decision="Cache sessions in Redis", files=["src/cache.py"])
    put("decision", id="dec-a2", decision="Queue jobs", related_decisions=["dec-a1"])
    put("decision", id="dec-a3", decision="Retry jobs", related_decisions=["dec-a2"])
    put("observation", id="obs-o1", content="lonely")


def _json(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_neighbors_filters_by_relation_and_direction(
    run: Callable[..., Result], chain: None
) -> None:
    doc = _json(run("graph", "neighbors", "dec-a2", "--direction", "out", "--json"))
    assert [(n["id"], n["relation"], n["direction"]) for n in doc["neighbors"]] == [
        ("dec-a1", "relates_to", "out")
    ]
    doc = _json(run("graph", "neighbors", "dec-a1", "--relation", "relatedTo", "--json"))
    assert [(n["id"], n["direction"]) for n in doc["neighbors"]] == [("dec-a2", "in")]
    assert run("graph", "neighbors", "dec-nope").exit_code == 3
    assert run("graph", "neighbors", "dec-a1", "--relation", "likes").exit_code == 2


def test_related_path_query_orphans_hubs_stats(run: Callable[..., Result], chain: None) -> None:
    doc = _json(run("graph", "related", "dec-a3", "--hops", "2", "--json"))
    assert [(n["id"], n["distance"]) for n in doc["nodes"]] == [("dec-a2", 1), ("dec-a1", 2)]
    doc = _json(run("graph", "path", "dec-a3", "src/cache.py", "--json"))
    assert doc["length"] == 3
    assert doc["edges"] == [
        {"from": "dec-a3", "to": "dec-a2", "relation": "relates_to"},
        {"from": "dec-a2", "to": "dec-a1", "relation": "relates_to"},
        {"from": "dec-a1", "to": "file:src/cache.py", "relation": "references"},
    ]
    assert run("graph", "path", "dec-a1", "obs-o1").exit_code == 3
    doc = _json(run("graph", "query", "JOBS", "--json"))
    assert [n["id"] for n in doc["nodes"]] == ["dec-a2", "dec-a3"] and doc["total"] == 2
    doc = _json(run("graph", "orphans", "--json"))
    assert doc == {
        "total": 1,
        "nodes": [
            {
                "id": "obs-o1",
                "type": "observation",
                "label": "lonely",
                "status": "raw",
            }
        ],
    }
    doc = _json(run("graph", "hubs", "-n", "2", "--json"))
    assert [(h["id"], h["degree"]) for h in doc["hubs"]] == [("dec-a1", 2), ("dec-a2", 2)]
    doc = _json(run("graph", "hubs", "-n", "1", "--by", "pagerank", "--json"))
    assert doc["by"] == "pagerank" and doc["hubs"][0]["id"] in ("dec-a1", "dec-a2")
    doc = _json(run("graph", "stats", "--json"))
    assert doc == {
        "nodes": 5,
        "edges": 3,
        "node_types": {"decision": 3, "file": 1, "observation": 1},
        "relations": {"references": 1, "relates_to": 2},
        "components": 2,
        "orphans": 1,
    }


def test_show_gives_node_record_and_edges(run: Callable[..., Result], chain: None) -> None:
    doc = _json(run("graph", "show", "dec-a2", "--json"))
    assert doc["node"]["label"] == "Queue jobs"
    assert doc["record"]["id"] == "dec-a2" and doc["record"]["decision"] == "Queue jobs"
    assert doc["edges"] == [
        {"from": "dec-a3", "to": "dec-a2", "relation": "relates_to"},
        {"from": "dec-a2", "to": "dec-a1", "relation": "relates_to"},
    ]
    doc = _json(run("graph", "show", "src/cache.py", "--json"))
    assert doc["node"]["id"] == "file:src/cache.py" and doc["record"] is None


def test_link_writes_an_edge_record_and_refuses_bad_input(
    run: Callable[..., Result], chain: None, data_dir: Any
) -> None:
    edges_file = data_dir / "graph/data/edges.jsonl"
    doc = _json(run("graph", "link", "dec-a1", "dec-a3", "--relation", "related_to", "--json"))
    assert (doc["src"], doc["dst"], doc["relation"], doc["status"]) == (
        "dec-a1",
        "dec-a3",
        "relates_to",
        "active",
    )
    assert [json.loads(x)["id"] for x in lines(edges_file)] == [doc["id"]]
    bad = run("graph", "link", "dec-a1", "dec-a3", "--relation", "likes")
    assert bad.exit_code == 2 and "unknown relation 'likes'" in bad.stderr
    assert run("graph", "link", "dec-a1", "dec-zz", "--relation", "uses").exit_code == 3
    assert run("graph", "link", "dec-zz", "dec-a1", "--relation", "uses").exit_code == 3
    assert run("graph", "link", "dec-a1", "dec-a3", "--relation", "relatesTo").exit_code == 6
    assert len(lines(edges_file)) == 1  # nothing else written


def test_unlink_appends_a_retraction(
    run: Callable[..., Result], chain: None, data_dir: Any
) -> None:
    edge = _json(run("graph", "link", "dec-a3", "dec-a1", "--relation", "uses", "--json"))
    assert _json(run("graph", "neighbors", "dec-a3", "--relation", "uses", "--json"))["neighbors"]
    doc = _json(run("graph", "unlink", "dec-a3", "dec-a1", "--relation", "use", "--json"))
    assert doc == {"retracted": [edge["id"]]}
    last = json.loads(lines(data_dir / "graph/data/edges.jsonl")[-1])
    assert (last["_op"], last["id"], last["set"]) == ("revise", edge["id"], {"status": "retracted"})
    doc = _json(run("graph", "neighbors", "dec-a3", "--relation", "uses", "--json"))
    assert doc["neighbors"] == []
    assert run("graph", "unlink", "dec-a3", "dec-a1", "--relation", "uses").exit_code == 3
    # a derived edge cannot be unlinked: it changes with its record
    assert run("graph", "unlink", "dec-a2", "dec-a1", "--relation", "relates_to").exit_code == 3


def test_add_concept_and_the_secrets_gate(run: Callable[..., Result], data_dir: Any) -> None:
    doc = _json(run("graph", "add", "concept", "Caching", "--definition", "keep copies", "--json"))
    assert (doc["name"], doc["description"], doc["status"]) == ("Caching", "keep copies", "active")
    assert run("graph", "add", "concept", "caching").exit_code == 6
    leaked = run("graph", "add", "concept", "Keys", "--definition", f"aws {AWS_KEY}")
    assert leaked.exit_code == 7
    assert run("graph", "add", "concept", f"name {AWS_KEY}").exit_code == 7
    assert len(lines(data_dir / "graph/data/concepts.jsonl")) == 1


def test_concepts_propose_and_promote(run: Callable[..., Result], put: Any) -> None:
    put("decision", id="dec-b1", decision="Use `pgbouncer` for pooling", entities=["pgbouncer"])
    put("decision", id="dec-b2", decision="Tune pgbouncer timeouts", entities=["pgbouncer"])
    put("decision", id="dec-b3", decision="Adopt blue green deploys for the web tier")
    put("decision", id="dec-b4", decision="Adopt blue green deploys for the api tier")
    put("pattern", id="pat-b5", name="Write the changelog first")
    first = _json(run("concepts", "propose", "--json"))
    assert _json(run("concepts", "propose", "--json")) == first
    assert [(p["name"], p["members"]) for p in first["proposals"]] == [
        ("adopt blue", ["dec-b3", "dec-b4"]),  # Snowball keeps "blue" (the light stemmer: "blu")
        ("pgbouncer", ["dec-b1", "dec-b2"]),
    ]
    doc = _json(run("concepts", "promote", "pgbouncer", "--members", "dec-b1,dec-b2", "--json"))
    assert doc["created"] is True and doc["concept"]["name"] == "pgbouncer"
    assert [(e["src"], e["relation"]) for e in doc["edges"]] == [
        ("dec-b1", "grounds"),
        ("dec-b2", "grounds"),
    ]
    again = _json(run("concepts", "promote", "pgbouncer", "--members", "dec-b1", "--json"))
    assert again["created"] is False and again["edges"] == []
    names = [p["name"] for p in _json(run("concepts", "propose", "--json"))["proposals"]]
    assert names == ["adopt blue"]
    listed = _json(run("graph", "concepts", "--json"))["concepts"]
    assert [(c["label"], c["grounded_by"], c["referenced_by"]) for c in listed] == [
        ("pgbouncer", ["dec-b1", "dec-b2"], ["dec-b1", "dec-b2"])
    ]
    assert run("concepts", "promote", "x", "--members", "dec-nope").exit_code == 3


def test_validate_reports_a_curated_edge_whose_end_is_gone(
    run: Callable[..., Result], put: Any, store: Store
) -> None:
    put("decision", id="dec-a1", decision="x")
    put("edge", id="edge-e1", src="dec-a1", dst="dec-gone", relation="uses")
    result = run("validate", "--json")
    assert result.exit_code == 4
    problems = json.loads(result.stdout)["issues"]
    assert [(p["code"], p.get("id")) for p in problems if p["code"] == "dangling-reference"] == [
        ("dangling-reference", "edge-e1")
    ]
    assert _json(run("graph", "neighbors", "dec-a1", "--json"))["neighbors"] == []


def test_validate_warns_about_an_unknown_relation(run: Callable[..., Result], put: Any) -> None:
    put("decision", id="dec-a1", decision="x")
    put("decision", id="dec-a2", decision="y")
    put("edge", id="edge-e1", src="dec-a1", dst="dec-a2", relation="likes")
    put("edge", id="edge-e2", src="dec-a1", dst="dec-a2", relation="relatedTo")
    result = run("validate", "--json")
    assert result.exit_code == 0  # a warning
    issues = json.loads(result.stdout)["issues"]
    assert [(i["code"], i["severity"], i["id"], i["line"]) for i in issues] == [
        ("unknown-relation", "warning", "edge-e1", 1)
    ]
    assert _json(run("graph", "stats", "--json"))["relations"] == {"relates_to": 1}


def test_a_project_end_may_be_given_as_its_node_key(
    run: Callable[..., Result], chain: None, data_dir: Any
) -> None:
    # `lore graph neighbors` shows a project as project:NAME: link and unlink take that too
    assert run("registry", "add", "webshop").exit_code == 0
    doc = _json(run("graph", "link", "project:webshop", "dec-a1", "--relation", "uses", "--json"))
    assert (doc["src"], doc["dst"]) == ("webshop", "dec-a1")
    doc = _json(run("graph", "neighbors", "dec-a1", "--relation", "uses", "--json"))
    assert [n["id"] for n in doc["neighbors"]] == ["project:webshop"]
    assert run("graph", "link", "webshop", "dec-a1", "--relation", "uses").exit_code == 6
    doc = _json(run("graph", "unlink", "project:webshop", "dec-a1", "--relation", "uses", "--json"))
    assert doc == {"retracted": [json.loads(lines(data_dir / "graph/data/edges.jsonl")[0])["id"]]}
    assert run("graph", "link", "project:nowhere", "dec-a1", "--relation", "uses").exit_code == 3
