"""The snapshot: idempotent rebuilds, staying fresh after writes (incrementally, through
the index), curated edges surviving a rebuild, and where it lives."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result

from lore.graph import snapshot as snap
from lore.store.core import Store


def _id(result: Result) -> str:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["id"]


def _export(run: Callable[..., Result]) -> str:
    result = run("graph", "export", "--format", "json")
    assert result.exit_code == 0, result.output
    return result.stdout


def test_two_rebuilds_export_byte_identical_json(run: Callable[..., Result], put: Any) -> None:
    put("decision", id="dec-a1", decision="Cache", files=["a.py"], project="web")
    put("decision", id="dec-a2", decision="Queue", related_decisions=["dec-a1"])
    put("failure", id="fail-f1", error_type="Timeout", error_message="slow")
    put("edge", id="edge-e1", src="dec-a2", dst="fail-f1", relation="causes")
    assert run("graph", "rebuild").exit_code == 0
    first = _export(run)
    assert run("graph", "rebuild", "--json").exit_code == 0
    assert _export(run) == first
    data = json.loads(first)
    assert [n["id"] for n in data["nodes"]] == [
        "dec-a1",
        "dec-a2",
        "error-type:Timeout",
        "fail-f1",
        "file:a.py",
        "project:web",
    ]
    assert len(data["edges"]) == 5


def test_incremental_refresh_equals_a_rebuild(
    run: Callable[..., Result], put: Any, store: Store
) -> None:
    put("decision", id="dec-a1", decision="Cache")
    assert run("graph", "stats").exit_code == 0  # builds and saves the snapshot
    put("decision", id="dec-a2", decision="Queue", related_decisions=["dec-a1"])
    store.revise("dec-a1", {"related_decisions": ["dec-a2"], "files": ["b.py"]})
    put("goal", id="goal-g1", title="Ship", related=["dec-a2"])
    (store.location("goal") / "goal-g1.yaml").unlink()
    put("edge", id="edge-e1", src="dec-a1", dst="dec-a2", relation="uses")
    incremental = _export(run)
    assert run("graph", "rebuild").exit_code == 0
    assert _export(run) == incremental
    edges = {(e["source"], e["target"], e["key"]) for e in json.loads(incremental)["edges"]}
    assert edges == {
        ("dec-a1", "dec-a2", "relates_to"),
        ("dec-a2", "dec-a1", "relates_to"),
        ("dec-a1", "file:b.py", "references"),
        ("dec-a1", "dec-a2", "uses"),
    }


def test_a_new_concept_taking_over_a_name_moves_its_references_as_a_rebuild_does(
    run: Callable[..., Result], put: Any
) -> None:
    put("concept", id="concept-b2", name="Sharding")
    put("decision", id="dec-a1", decision="Shard orders", entities=["sharding"])
    assert run("graph", "stats").exit_code == 0  # builds and saves the snapshot
    put("concept", id="concept-a1", name="sharding")  # sorts first: the name resolves to it
    incremental = _export(run)
    assert run("graph", "rebuild").exit_code == 0
    assert incremental == _export(run)
    edges = [(e["source"], e["target"]) for e in json.loads(incremental)["edges"]]
    assert edges == [("dec-a1", "concept-a1")]


def test_revising_the_concept_a_name_resolves_to_leaves_no_edge_behind(
    run: Callable[..., Result], put: Any, store: Store
) -> None:
    put("concept", id="concept-a1", name="Sharding")
    put("concept", id="concept-b2", name="sharding")
    put("decision", id="dec-a1", decision="Shard orders", entities=["sharding"])
    assert run("graph", "stats").exit_code == 0  # builds and saves the snapshot
    store.revise("concept-a1", {"description": "splitting tables"})
    incremental = _export(run)
    assert run("graph", "rebuild").exit_code == 0
    assert incremental == _export(run)
    edges = [(e["source"], e["target"]) for e in json.loads(incremental)["edges"]]
    assert edges == [("dec-a1", "concept-a1")]


def test_a_capture_is_in_the_very_next_graph_query(run: Callable[..., Result]) -> None:
    first = _id(run("remember", "Use Redis for the session cache", "--json"))
    assert run("graph", "rebuild").exit_code == 0
    second = _id(run("remember", "Cache keys live in src/keys.py", "--json"))
    result = run("graph", "neighbors", second, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "id": second,
        "neighbors": [
            {
                "id": "file:src/keys.py",
                "type": "file",
                "label": "src/keys.py",
                "relation": "references",
                "direction": "out",
            }
        ],
    }
    shown = json.loads(run("graph", "show", first, "--json").stdout)
    assert shown["node"]["type"] == "decision" and shown["edges"] == []


def test_refresh_follows_the_index_not_a_full_reload(put: Any, store: Store) -> None:
    put("decision", id="dec-a1", decision="Cache")
    built = snap.open_graph(store)
    assert built.full and snap.load(store.root) is not None
    put("decision", id="dec-a2", decision="Queue", related_decisions=["dec-a1"])
    fresh = snap.open_graph(Store(store.path))
    assert not fresh.full and fresh.applied == 1
    assert sorted(fresh.graph.edges(keys=True)) == [("dec-a2", "dec-a1", "relates_to")]
    # applied in memory only: the stored snapshot still predates dec-a2
    assert "dec-a2" not in snap.load(store.root).graph  # type: ignore[union-attr]


def test_a_rebuilt_index_means_a_full_reload(put: Any, store: Store) -> None:
    from lore.index.persist import rebuild

    put("decision", id="dec-a1", decision="Cache")
    snap.open_graph(store)
    (store.location("decision")).write_text("")  # rewritten: every record gone
    rebuild(store)
    again = snap.open_graph(Store(store.path))
    assert again.full and list(again.graph.nodes) == []


def test_a_revision_is_seen_even_when_the_index_was_rebuilt_meanwhile(
    put: Any, store: Store
) -> None:
    from lore.index.persist import rebuild

    put("decision", id="dec-a1", decision="Cache")
    put("decision", id="dec-a2", decision="Queue")
    snap.open_graph(store)
    store.revise("dec-a1", {"related_decisions": ["dec-a2"]})
    rebuild(store)  # same record numbers as before, the revision folded in place
    again = snap.open_graph(Store(store.path))
    assert again.full
    assert sorted(again.graph.edges(keys=True)) == [("dec-a1", "dec-a2", "relates_to")]


def test_curated_edges_and_concepts_survive_a_rebuild(run: Callable[..., Result]) -> None:
    a = _id(run("remember", "Use Redis for the session cache", "--json"))
    b = _id(run("remember", "Use Postgres for billing data", "--json"))
    assert run("graph", "link", a, b, "--relation", "related-to", "--json").exit_code == 0
    concept = _id(run("graph", "add", "concept", "Storage", "--definition", "where", "--json"))
    assert run("concepts", "promote", "Storage", "--members", f"{a},{b}").exit_code == 0
    before = _export(run)
    assert run("graph", "rebuild").exit_code == 0
    after = _export(run)
    assert after == before
    edges = {(e["source"], e["target"], e["key"]) for e in json.loads(after)["edges"]}
    assert edges == {(a, b, "relates_to"), (a, concept, "grounds"), (b, concept, "grounds")}


def test_snapshot_lives_beside_the_index_outside_the_data_root(
    run: Callable[..., Result], data_dir: Path, store: Store
) -> None:
    run("observe", "the CI cache is cold")
    assert run("graph", "stats").exit_code == 0
    path = snap.snapshot_path(store.root)
    assert path.is_file() and path.parent == store.root.index_file.parent
    assert data_dir not in path.parents
    assert not [p for p in data_dir.rglob("*") if p.is_file() and "graph" in p.name]


def test_a_corrupt_snapshot_is_rebuilt(run: Callable[..., Result], store: Store) -> None:
    run("observe", "the CI cache is cold")
    run("graph", "stats")
    snap.snapshot_path(store.root).write_bytes(b"LOREGRAPH\x00garbage")
    result = run("graph", "stats", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["node_types"] == {"observation": 1}
