"""One test per projection rule: the exact edges a record's fields give the graph."""

from __future__ import annotations

from typing import Any

import pytest

from lore.errors import UsageError
from lore.graph import rules


def test_decision_references_its_files_and_their_project(put: Any, edges: Any) -> None:
    put("decision", id="dec-a1", decision="Cache", files=["./src/a.py"], project="web")
    assert edges() == [
        ("dec-a1", "file:src/a.py", "references"),
        ("file:src/a.py", "project:web", "part_of"),
    ]


def test_an_absolute_path_in_the_projects_repository_is_keyed_relative_to_it(
    put: Any, edges: Any
) -> None:
    # the record keeps the path as given; the graph keys it from the directory named
    # like the record's project (its repository), as a relative path would be keyed
    files = ["/home/u/web/src/a.py", "src/a.py", "/etc/hosts", "/home/u/web"]
    put("decision", id="dec-a1", decision="x", files=files, project="web")
    put("decision", id="dec-a2", decision="y", files=["/home/u/web/b.py"])
    assert edges() == [
        ("dec-a1", "file:/etc/hosts", "references"),
        ("dec-a1", "file:/home/u/web", "references"),
        ("dec-a1", "file:src/a.py", "references"),
        ("dec-a2", "file:/home/u/web/b.py", "references"),
        ("file:/etc/hosts", "project:web", "part_of"),
        ("file:/home/u/web", "project:web", "part_of"),
        ("file:src/a.py", "project:web", "part_of"),
    ]


def test_path_like_entities_are_files_and_other_entities_name_concepts(
    put: Any, edges: Any
) -> None:
    put("concept", id="concept-c1", name="PubSub", aliases=["pub-sub"])
    put("decision", id="dec-a1", decision="x", entities=["lib/q.rs", "pubsub", "nothing"])
    put("decision", id="dec-a2", decision="y", entities=["pub-sub"])
    assert edges() == [
        ("dec-a1", "concept-c1", "references"),
        ("dec-a1", "file:lib/q.rs", "references"),
        ("dec-a2", "concept-c1", "references"),
    ]


def test_an_entity_named_like_a_file_still_references_the_concept_of_that_name(
    put: Any, edges: Any
) -> None:
    # "Node.js" looks like a file by its extension; a concept of that name is referenced too
    put("concept", id="concept-c1", name="Node.js")
    put("decision", id="dec-a1", decision="Use Node.js", entities=["Node.js", "lib/x.js"])
    assert edges() == [
        ("dec-a1", "concept-c1", "references"),
        ("dec-a1", "file:Node.js", "references"),
        ("dec-a1", "file:lib/x.js", "references"),
    ]


def test_related_decisions_relate(put: Any, edges: Any) -> None:
    put("decision", id="dec-a1", decision="x")
    put("decision", id="dec-a2", decision="y", related_decisions=["dec-a1"])
    assert edges() == [("dec-a2", "dec-a1", "relates_to")]


def test_supersedes_from_either_side_is_one_edge(put: Any, edges: Any) -> None:
    put("decision", id="dec-old", decision="x", status="superseded", superseded_by="dec-new")
    put("decision", id="dec-new", decision="y", supersedes=["dec-old"])
    assert edges() == [("dec-new", "dec-old", "supersedes")]


def test_lesson_learned_from_decision(put: Any, edges: Any) -> None:
    from lore.graph.snapshot import open_graph
    from lore.store.core import Store

    put("decision", id="dec-a1", decision="x", lesson_learned="Measure first")
    assert edges() == [("lesson:dec-a1", "dec-a1", "learned_from")]
    node = open_graph(Store()).graph.nodes["lesson:dec-a1"]
    assert node == {"type": "lesson", "label": "Measure first"}


def test_session_produces_its_records_and_its_project_hosts_it(put: Any, edges: Any) -> None:
    put("session", id="session-s1", project="web", captured={"failure": ["fail-f2"]})
    put("decision", id="dec-a1", decision="x", session_id="session-s1")
    put("failure", id="fail-f2", error_type="Timeout", error_message="slow")
    assert edges() == [
        ("fail-f2", "error-type:Timeout", "instance_of"),
        ("project:web", "session-s1", "hosts"),
        ("session-s1", "dec-a1", "produces"),
        ("session-s1", "fail-f2", "produces"),
    ]


def test_fork_derives_from_parent_session(put: Any, edges: Any) -> None:
    put("session", id="session-s1")
    put("session", id="session-s2", parent="session-s1")
    assert edges() == [("session-s2", "session-s1", "derived_from")]


def test_goal_depends_on_goals_and_relates_to_projects_and_records(put: Any, edges: Any) -> None:
    put("goal", id="goal-g1", title="Ship")
    put("decision", id="dec-a1", decision="x")
    put("goal", id="goal-g2", title="Beta", depends_on=["goal-g1"], projects=["web"])
    put("goal", id="goal-g3", title="Docs", related=["dec-a1"])
    assert edges() == [
        ("goal-g2", "goal-g1", "depends_on"),
        ("goal-g2", "project:web", "relates_to"),
        ("goal-g3", "dec-a1", "relates_to"),
    ]


def test_project_depends_on_project(put: Any, edges: Any) -> None:
    put("project", name="web", depends_on=["api"])
    put("project", name="api")
    assert edges() == [("project:web", "project:api", "depends_on")]


def test_observation_promoted_to_its_target(put: Any, edges: Any) -> None:
    put("decision", id="dec-a1", decision="x", derived_from="obs-o1")
    put("observation", id="obs-o1", content="seen", status="promoted", promoted_to="dec-a1")
    assert edges() == [("dec-a1", "obs-o1", "derived_from"), ("obs-o1", "dec-a1", "promoted_to")]


def test_evidence_supports_records(put: Any, edges: Any) -> None:
    put("decision", id="dec-a1", decision="x")
    put("pattern", id="pat-p1", name="Retry")
    put("evidence", id="evi-e1", content="bench", supports=["dec-a1", "pat-p1"])
    assert edges() == [("evi-e1", "dec-a1", "supports"), ("evi-e1", "pat-p1", "supports")]


def test_contradicts_from_field_and_from_edge_record(put: Any, edges: Any) -> None:
    put("decision", id="dec-a1", decision="x", contradicts=["dec-a2"])
    put("decision", id="dec-a2", decision="y")
    put("decision", id="dec-a3", decision="z")
    put("edge", id="edge-e1", src="dec-a3", dst="dec-a2", relation="contradicts")
    assert edges() == [("dec-a1", "dec-a2", "contradicts"), ("dec-a3", "dec-a2", "contradicts")]


def test_error_type_promoted_to_pitfall_by_field_or_name(put: Any, edges: Any) -> None:
    put("failure", id="fail-f1", error_type="Timeout", error_message="slow")
    put("anti-pattern", id="anti-a1", name="PITFALL: Timeout")
    put("anti-pattern", id="anti-a2", name="Waits", error_type="UserDeny")
    assert edges() == [
        ("error-type:Timeout", "anti-a1", "promoted_to"),
        ("error-type:UserDeny", "anti-a2", "promoted_to"),
        ("fail-f1", "error-type:Timeout", "instance_of"),
    ]


def test_pattern_inverted_to_avoid_anti_pattern(put: Any, edges: Any) -> None:
    put("pattern", id="pat-p1", name="Retry", inverted_to="anti-a1")
    put("anti-pattern", id="anti-a1", name="Avoid: Retry", inverted_from="pat-p1")
    put("pattern", id="pat-p2", name="Poll")
    put("anti-pattern", id="anti-a2", name="Avoid: Poll", inverted_from="pat-p2")
    assert edges() == [("pat-p1", "anti-a1", "inverted_to"), ("pat-p2", "anti-a2", "inverted_to")]


def test_concept_related_and_grounds_edges(put: Any, edges: Any) -> None:
    put("decision", id="dec-a1", decision="x")
    put("concept", id="concept-c1", name="Caching", related=["dec-a1"])
    put("edge", id="edge-e1", src="dec-a1", dst="concept-c1", relation="grounds")
    assert edges() == [("concept-c1", "dec-a1", "relates_to"), ("dec-a1", "concept-c1", "grounds")]


def test_curated_edge_variants_normalised_and_retracted_dropped(put: Any, edges: Any) -> None:
    put("decision", id="dec-a1", decision="x")
    put("decision", id="dec-a2", decision="y")
    put("edge", id="edge-e1", src="dec-a1", dst="dec-a2", relation="relatesTo")
    put("edge", id="edge-e2", src="dec-a2", dst="dec-a1", relation="uses", status="retracted")
    put("edge", id="edge-e3", src="dec-a2", dst="web", relation="part_of")
    put("project", name="web")
    assert edges() == [("dec-a1", "dec-a2", "relates_to"), ("dec-a2", "project:web", "part_of")]


def test_no_dangling_edges(put: Any, edges: Any) -> None:
    put("decision", id="dec-a1", decision="x", related_decisions=["dec-gone"], supersedes=["x"])
    put("evidence", id="evi-e1", content="c", supports=["pat-none"])
    put("edge", id="edge-e1", src="dec-a1", dst="dec-missing", relation="uses")
    assert edges() == []


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("related_to", "relates_to"),
        ("relatesTo", "relates_to"),
        ("Relates-To", "relates_to"),
        ("dependsOn", "depends_on"),
        ("SUPPORTS", "supports"),
    ],
)
def test_relation_spelling_variants(given: str, expected: str) -> None:
    assert rules.normalize_relation(given) == expected


def test_unknown_relation_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown relation 'likes'"):
        rules.normalize_relation("likes")


def test_capture_supersedes_end_to_end(run: Any, edges: Any) -> None:
    import json

    old = json.loads(run("remember", "Use Memcached for sessions", "--json").stdout)["id"]
    new = json.loads(
        run("remember", "Use Redis for sessions", "--supersedes", old, "--json").stdout
    )["id"]
    assert edges() == [(new, old, "supersedes")]
