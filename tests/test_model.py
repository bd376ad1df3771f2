"""lore.model: the record base class, conversion to and from dicts, checks and the kind registry."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lore.errors import UsageError
from lore.model import Dir, Log, Map, Record, class_for_id, kind_class, kinds

KIND_NAMES = [
    "anti-pattern",
    "concept",
    "decision",
    "edge",
    "evidence",
    "failure",
    "goal",
    "observation",
    "pattern",
    "project",
    "session",
]
TS = "2024-03-04T05:06:07.000008Z"


def test_registry_holds_every_kind_with_its_storage() -> None:
    registry = kinds()

    assert sorted(registry) == KIND_NAMES
    shapes = {
        name: (cls.KIND.prefix, cls.KIND.component, cls.KIND.storage)
        for name, cls in registry.items()
    }
    assert shapes == {
        "decision": ("dec", "journal", Log("decisions.jsonl")),
        "pattern": ("pat", "patterns", Dir("patterns", ".yaml", "pattern-events.jsonl")),
        "anti-pattern": ("anti", "patterns", Dir("anti-patterns", ".yaml")),
        "failure": ("fail", "failures", Log("failures.jsonl")),
        "observation": ("obs", "inbox", Log("observations.jsonl")),
        "evidence": ("evi", "evidence", Log("evidence.jsonl")),
        "goal": ("goal", "intent", Dir("goals", ".yaml")),
        "session": ("session", "transfer", Dir("sessions", ".json")),
        "project": (None, "registry", Map("projects.yaml", "projects")),
        "concept": ("concept", "graph", Log("concepts.jsonl")),
        "edge": ("edge", "graph", Log("edges.jsonl")),
    }


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("decision", "decision"),
        ("decisions", "decision"),
        ("Decisions", "decision"),
        (" patterns ", "pattern"),
        ("anti_patterns", "anti-pattern"),
        ("antipattern", "anti-pattern"),
        ("anti", "anti-pattern"),
        ("evidences", "evidence"),
        ("projects", "project"),
        ("edges", "edge"),
    ],
)
def test_kind_class_accepts_plurals_and_aliases(name: str, kind: str) -> None:
    assert kind_class(name).KIND.name == kind


def test_unknown_kind_is_a_usage_error_listing_the_kinds() -> None:
    with pytest.raises(UsageError) as caught:
        kind_class("wisdom")
    assert caught.value.exit_code == 2
    assert caught.value.message == (
        f"unknown record kind 'wisdom'; expected one of {', '.join(KIND_NAMES)}"
    )


@pytest.mark.parametrize(
    ("record_id", "kind"),
    [
        ("dec-0123456789ab", "decision"),
        ("pat-0123456789ab", "pattern"),
        ("anti-0123456789ab", "anti-pattern"),
        ("fail-x", "failure"),
        ("obs-x", "observation"),
        ("evi-x", "evidence"),
        ("goal-x", "goal"),
        ("session-x", "session"),
        ("concept-x", "concept"),
        ("edge-x", "edge"),
        ("webapp", None),
        ("my-app", None),
        ("dec", None),
        ("", None),
    ],
)
def test_class_for_id_routes_by_prefix(record_id: str, kind: str | None) -> None:
    cls = class_for_id(record_id)
    assert (cls.KIND.name if cls else None) == kind


def test_to_dict_order_is_id_timestamp_kind_fields_common_fields_then_extras() -> None:
    cls = kind_class("observation")
    record = cls.from_dict(
        {"zeta": 1, "content": "c", "id": "obs-1", "tags": ["t"], "timestamp": TS, "alpha": 2}
    )

    assert record.to_dict() == {
        "id": "obs-1",
        "timestamp": TS,
        "content": "c",
        "status": "raw",
        "promoted_to": None,
        "discard_reason": "",
        "session_id": None,
        "project": None,
        "source": "manual",
        "tags": ["t"],
        "v": 1,
        "zeta": 1,
        "alpha": 2,
    }
    assert list(record.to_dict()) == [
        "id",
        "timestamp",
        "content",
        "status",
        "promoted_to",
        "discard_reason",
        "session_id",
        "project",
        "source",
        "tags",
        "v",
        "zeta",
        "alpha",
    ]
    assert record.extra == {"zeta": 1, "alpha": 2}


def test_from_dict_never_raises_and_problems_name_the_fields() -> None:
    cls = kind_class("pattern")
    record = cls.from_dict(
        {
            "id": "dec-0123456789ab",
            "timestamp": "yesterday",
            "name": "   ",
            "confidence": 1.5,
            "validations": -1,
            "tags": "not-a-list",
            "status": "zombie",
            "examples": [1, 2],
        }
    )

    assert record.problems() == [
        ("tags", "must be a list of strings"),
        ("name", "is required and must not be empty"),
        ("examples", "must be a list of strings"),
        (
            "status",
            "must be one of active, retracted, superseded, deprecated, archived (got 'zombie')",
        ),
        ("id", "must start with 'pat-'"),
        ("timestamp", "is not an ISO-8601 time ('yesterday')"),
        ("confidence", "must be between 0 and 1 (got 1.5)"),
        ("validations", "must not be negative"),
    ]


def test_a_type_problem_is_the_only_problem_reported_for_its_field() -> None:
    record = kind_class("decision").from_dict(
        {"id": "dec-1", "timestamp": TS, "decision": 42, "spec_quality": True, "v": "1"}
    )
    assert record.problems() == [
        ("v", "must be an integer"),
        ("decision", "must be a string"),
        ("spec_quality", "must be a number"),
    ]


@pytest.mark.parametrize("bad", [12345, ["pat-1"], {"a": 1}, 1.5, True])
def test_non_string_id_or_timestamp_is_reported_once_not_raised(bad: Any) -> None:
    record = kind_class("pattern").from_dict({"id": bad, "timestamp": bad, "name": "n"})
    assert record.problems() == [
        ("id", "must be a string"),
        ("timestamp", "must be a string"),
    ]


def test_missing_id_and_timestamp_are_problems() -> None:
    record = kind_class("observation").from_dict({"content": "x"})
    assert record.problems() == [("id", "is required"), ("timestamp", "is required")]


def test_failure_error_type_must_be_an_identifier() -> None:
    cls = kind_class("failure")
    good = cls.from_dict(
        {"id": "fail-1", "timestamp": TS, "error_type": "pkg.Mod:Err-1", "error_message": "m"}
    )
    bad = cls.from_dict(
        {"id": "fail-1", "timestamp": TS, "error_type": "not one word", "error_message": "m"}
    )
    assert good.problems() == []
    assert [f for f, _ in bad.problems()] == ["error_type"]


def test_a_project_needs_no_prefix() -> None:
    record = kind_class("project").from_dict({"id": "webapp", "name": "webapp", "timestamp": TS})
    assert record.problems() == []


def test_extra_dict_merges_and_a_non_dict_extra_is_kept_as_an_unknown_key() -> None:
    cls = kind_class("observation")
    merged = cls.from_dict({"id": "obs-1", "content": "c", "extra": {"a": 1, "b": 2}, "b": 3})
    odd = cls.from_dict({"id": "obs-1", "content": "c", "extra": "hand written"})

    assert merged.extra == {"a": 1, "b": 3}
    assert odd.extra == {"extra": "hand written"}
    assert odd.to_dict()["extra"] == "hand written"
    assert cls.from_dict(odd.to_dict()) == odd


def test_references_list_every_pointer() -> None:
    decision = kind_class("decision").from_dict(
        {
            "id": "dec-1",
            "decision": "d",
            "related_decisions": ["dec-2", "", "dec-3"],
            "superseded_by": "dec-4",
        }
    )
    edge = kind_class("edge").from_dict({"id": "edge-1", "src": "dec-1", "dst": "pat-2"})
    session = kind_class("session").from_dict({"id": "session-1", "parent": "session-0"})
    evidence = kind_class("evidence").from_dict({"id": "evi-1", "supports": ["dec-1"]})

    assert decision.references() == [
        ("related_decisions", "dec-2", "decision"),
        ("related_decisions", "dec-3", "decision"),
        ("superseded_by", "dec-4", "decision"),
    ]
    assert edge.references() == [("src", "dec-1", "any"), ("dst", "pat-2", "any")]
    assert session.references() == [("parent", "session-0", "session")]
    assert evidence.references() == [("supports", "dec-1", "any")]


@pytest.mark.parametrize(
    ("kind", "data", "hidden"),
    [
        ("decision", {"status": "active"}, False),
        ("decision", {"status": "retracted"}, True),
        ("decision", {"status": "superseded"}, True),
        ("pattern", {"status": "retracted"}, True),
        ("anti-pattern", {"status": "superseded"}, True),
        ("concept", {"status": "retracted"}, True),
        ("edge", {"status": "superseded"}, True),
        ("observation", {"status": "discarded"}, True),  # not a live result (§3.6)
        ("evidence", {"confidence": "superseded"}, True),
        ("evidence", {"confidence": "contested"}, False),
        ("session", {"status": "archived"}, True),
        ("session", {"status": "closed"}, False),
        ("goal", {"status": "abandoned"}, False),
        ("project", {"status": "archived"}, False),
        ("failure", {}, False),
    ],
)
def test_hidden(kind: str, data: dict[str, Any], hidden: bool) -> None:
    assert kind_class(kind).from_dict(data).hidden is hidden


def test_title_and_search_text() -> None:
    record = kind_class("decision").from_dict(
        {
            "decision": "Use ruff",
            "rationale": "fast",
            "alternatives": ["flake8", 3],
            "tags": ["lint"],
        }
    )
    assert record.title == "Use ruff"
    assert record.kind == "decision"
    assert record.search_text() == "Use ruff\nfast\nflake8\nlint"


# --- properties ------------------------------------------------------------------------

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(KIND_NAMES), st.data())
def test_property_from_dict_of_to_dict_is_identity(kind: str, data: st.DataObject) -> None:
    cls = kind_class(kind)
    names = list(cls.field_names())
    chosen = data.draw(st.lists(st.sampled_from(names), unique=True), label="fields")
    known = {name: data.draw(values, label=name) for name in chosen}
    extras = data.draw(
        st.dictionaries(text.filter(lambda k: k not in names and k != "extra"), values),
        label="extras",
    )
    # Read once first: a kind may normalise on read (a goal's criteria get their ids), and
    # what must round-trip is a record as read.
    record: Record = cls.from_dict(cls(**known).to_dict())
    record.extra = extras

    as_dict = record.to_dict()
    again = cls.from_dict(as_dict)

    assert again == record
    assert again.to_dict() == as_dict
    # Every field in order, but an unset provenance (failure, observation, session) is left out.
    omitted = [
        n for n in names if n == "provenance" and kind != "evidence" and record.provenance is None
    ]  # type: ignore[attr-defined]
    shown = [n for n in names if n not in omitted]
    assert list(as_dict)[: len(shown)] == shown
    assert {k: as_dict[k] for k in extras} == extras


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(KIND_NAMES), st.dictionaries(text, values, max_size=8))
def test_property_from_dict_keeps_every_key_it_is_given(kind: str, raw: dict[str, Any]) -> None:
    raw = {k: v for k, v in raw.items() if k != "extra"}
    record = kind_class(kind).from_dict(raw)
    out = record.to_dict()
    assert {k: out[k] for k in raw} == raw
    record.problems()  # never raises, whatever the values


def test_a_misspelt_kind_gets_did_you_mean() -> None:
    with pytest.raises(UsageError) as caught:
        kind_class("decisons")
    assert caught.value.message == (
        "unknown record kind 'decisons' (did you mean 'decisions'?); expected one of "
        f"{', '.join(KIND_NAMES)}"
    )


@pytest.mark.parametrize("kind", ["failure", "observation", "session"])
def test_provenance_is_a_checked_field_left_out_while_unset(kind: str) -> None:
    cls = kind_class(kind)
    record = cls.from_dict({"id": f"{cls.KIND.prefix}-000000000001", "timestamp": "2026-01-02"})
    assert "provenance" not in record.to_dict()
    good = {"transcript": "/t/s.jsonl", "session": "abc", "lines": [3, 4]}
    record.provenance = good  # type: ignore[attr-defined]
    assert record.to_dict()["provenance"] == good
    assert cls.from_dict(record.to_dict()).provenance == good  # type: ignore[attr-defined]
    assert ("provenance", "lines must be [first, last]: line numbers from 1, first <= last") in [
        p
        for p in cls.from_dict(
            {**record.to_dict(), "provenance": {**good, "lines": [4, 3]}}
        ).problems()
    ]
    bad = cls.from_dict({**record.to_dict(), "provenance": {**good, "transcript": "rel.jsonl"}})
    assert ("provenance", "transcript must be an absolute path") in bad.problems()
    assert ("provenance", "must be an object or null") in cls.from_dict(
        {**record.to_dict(), "provenance": "a string"}
    ).problems()
