"""lore.storage.yamlio and YAML documents through the Store: hand edits survive lore's writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lore.errors import DataError
from lore.storage import yamlio
from lore.store.core import Store

PATTERN_ID = "pat-0123456789ab"

HAND_WRITTEN_PATTERN = """\
# Written by hand during the incident review; keep these notes.
id: pat-0123456789ab
timestamp: 2024-01-02T03:04:05Z   # unquoted on purpose
name: 'Retry with backoff'
validations: 3  # bumped by review
confidence: 0.5
solution: >
  Wait, then retry.
owner: "alice"   # unknown key: lore must keep it
tags:
  - net   # first tag
  - "quoted"
"""


def write_pattern(store: Store, text: str = HAND_WRITTEN_PATTERN) -> Path:
    path = store.location("pattern") / f"{PATTERN_ID}.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_revise_of_a_hand_written_pattern_keeps_comments_order_quoting_unknown_keys(
    store: Store,
) -> None:
    path = write_pattern(store)

    updated = store.revise(PATTERN_ID, {"validations": 4})

    assert path.read_text(encoding="utf-8") == HAND_WRITTEN_PATTERN.replace(
        "validations: 3  # bumped", "validations: 4  # bumped"
    )
    assert updated.validations == 4  # type: ignore[attr-defined]
    assert updated.extra == {"owner": "alice"}
    assert updated.name == "Retry with backoff"  # type: ignore[attr-defined]


def test_revise_adding_fields_appends_them_after_the_hand_written_ones(store: Store) -> None:
    path = write_pattern(store)

    store.revise(PATTERN_ID, {"examples": ["a.py", "b.py"], "status": "retracted"})

    assert path.read_text(encoding="utf-8") == HAND_WRITTEN_PATTERN + (
        "examples:\n  - a.py\n  - b.py\nstatus: retracted\n"
    )
    assert sorted(p.name for p in path.parent.iterdir()) == [
        f".{PATTERN_ID}.yaml.lock",
        f"{PATTERN_ID}.yaml",
    ]


HAND_WRITTEN_PROJECTS = """\
# Projects lore knows about. Edit freely.
projects:
  # the main product
  webapp:
    description: "The web app"   # double quoted
    path: ~/src/webapp
    status: active
    owner: alice   # unknown key
  cli-tool:
    description: 'Command line'
  bare:
"""


def write_projects(store: Store, text: str = HAND_WRITTEN_PROJECTS) -> Path:
    path = store.location("project")
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_revise_of_hand_written_projects_yaml_changes_one_field_only(store: Store) -> None:
    path = write_projects(store)

    updated = store.revise("webapp", {"status": "paused"})

    assert path.read_text(encoding="utf-8") == HAND_WRITTEN_PROJECTS.replace(
        "status: active", "status: paused"
    )
    assert updated.to_dict()["status"] == "paused"
    assert updated.extra == {"owner": "alice"}


def test_revise_adds_a_field_to_a_short_and_to_a_bare_project_entry(store: Store) -> None:
    path = write_projects(store)

    store.revise("cli-tool", {"repo": "git@example.com:cli.git"})
    store.revise("bare", {"status": "archived"})

    assert path.read_text(encoding="utf-8") == HAND_WRITTEN_PROJECTS.replace(
        "    description: 'Command line'\n",
        "    description: 'Command line'\n    repo: git@example.com:cli.git\n",
    ).replace("  bare:\n", "  bare:\n    status: archived\n")
    assert [(p.id, p.status) for p in store.records("project")] == [  # type: ignore[attr-defined]
        ("webapp", "active"),
        ("cli-tool", "active"),
        ("bare", "archived"),
    ]


def test_renaming_a_project_is_refused_and_the_file_is_untouched(store: Store) -> None:
    from lore.errors import InvalidInputError

    path = write_projects(store)

    with pytest.raises(InvalidInputError, match="keyed by its name") as caught:
        store.revise("cli-tool", {"name": "cli2"})

    assert caught.value.exit_code == 4
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN_PROJECTS


def test_hand_broken_pattern_is_a_read_issue_and_other_patterns_load(store: Store) -> None:
    good = write_pattern(store)
    broken = good.parent / "pat-00000000bad0.yaml"
    broken.write_text("id: pat-00000000bad0\nname: [unclosed\ntags: x\n", encoding="utf-8")

    records = store.records("pattern")

    assert [r.id for r in records] == [PATTERN_ID]
    assert len(store.issues) == 1
    issue = store.issues[0]
    assert (issue.file, issue.code, issue.severity) == (str(broken), "parse", "error")
    assert issue.line == 3
    assert issue.message.startswith("invalid YAML: ")
    assert str(issue).startswith(f"{broken}:3: invalid YAML: ")


def test_conflict_markers_in_a_document_are_reported_with_their_line(store: Store) -> None:
    path = write_pattern(store)
    path.write_text(
        HAND_WRITTEN_PATTERN.replace(
            "validations: 3  # bumped by review\n",
            "<<<<<<< HEAD\nvalidations: 3\n=======\nvalidations: 5\n>>>>>>> theirs\n",
        ),
        encoding="utf-8",
    )

    assert store.records("pattern") == []
    assert [(i.file, i.line, i.code, i.message) for i in store.issues] == [
        (str(path), 5, "conflict-marker", "git conflict marker")
    ]


def test_hand_broken_projects_yaml_is_a_read_issue(store: Store) -> None:
    path = write_projects(store, 'projects:\n  webapp:\n    description: "unterminated\n')

    assert store.records("project") == []
    assert [(i.file, i.line, i.code) for i in store.issues] == [(str(path), 4, "parse")]
    assert str(store.issues[0]).startswith(f"{path}:4: invalid YAML: ")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- just\n- a list\n", "expected a mapping at the top level"),
        ("id: 12345\nname: numbered by hand\n", "id must be a string (got 12345)"),
    ],
)
def test_odd_documents_are_issues_and_do_not_break_listing(
    store: Store, text: str, message: str
) -> None:
    write_pattern(store)
    odd = store.location("pattern") / "pat-0000000000dd.yaml"
    odd.write_text(text, encoding="utf-8")
    (store.location("pattern") / "pat-0000000000ee.yaml").write_text(
        "name: timestamp is a number\ntimestamp: 2024\n", encoding="utf-8"
    )

    records = store.records("pattern")

    assert [r.id for r in records] == ["pat-0000000000ee", PATTERN_ID]
    assert records[0].timestamp == ""  # a number where a time belongs reads as no time
    ee = store.location("pattern") / "pat-0000000000ee.yaml"
    wrong_type = "pat-0000000000ee: timestamp has the wrong type; read as the default"
    assert sorted((i.file, i.line, i.message) for i in store.issues) == sorted(
        [(str(odd), 0, message), (str(ee), 0, f"{wrong_type} (lore validate names it)")]
    )


def test_unquoted_timestamps_and_dates_come_back_as_strings(store: Store) -> None:
    write_pattern(store)
    goals = store.location("goal")
    goals.mkdir(parents=True)
    (goals / "goal-0123456789ab.yaml").write_text(
        "id: goal-0123456789ab\n"
        "timestamp: 2024-05-06 07:08:09+02:00\n"
        "title: Ship it\n"
        "deadline: 2024-06-30\n"
        "criteria:\n"
        "  - text: tests pass\n"
        "    met: &done true\n"
        "  - text: docs\n"
        "    met: *done\n",
        encoding="utf-8",
    )

    pattern = store.get(PATTERN_ID)
    goal = store.get("goal-0123456789ab")

    assert pattern.timestamp == "2024-01-02T03:04:05.000000Z"
    assert goal.timestamp == "2024-05-06T05:08:09.000000Z"
    assert goal.deadline == "2024-06-30"  # type: ignore[attr-defined]
    assert goal.criteria == [  # type: ignore[attr-defined]  # ids by position
        {"id": "sc-1", "text": "tests pass", "met": True},
        {"id": "sc-2", "text": "docs", "met": True},
    ]
    assert goal.problems() == []
    assert type(goal.to_dict()["criteria"][0]["met"]) is bool


def test_to_plain_converts_every_ruamel_type() -> None:
    doc = yamlio.loads(
        "a: 2024-01-02T03:04:05.5-01:00\n"
        "b: 2024-01-02\n"
        "c: 2024-01-02 03:04:05\n"
        "d: &x false\n"
        "e: *x\n"
        "f: 0x1F\n"
        "g: 1.5e3\n"
        "h: 'single'\n"
        "i: ~\n"
        "j: [1, two, {k: v}]\n"
        "12: numeric key\n",
        "t.yaml",
    )

    plain = yamlio.to_plain(doc)

    assert plain == {
        "a": "2024-01-02T04:04:05.500000Z",
        "b": "2024-01-02",
        "c": "2024-01-02T03:04:05.000000Z",
        "d": False,
        "e": False,
        "f": 31,
        "g": 1500.0,
        "h": "single",
        "i": None,
        "j": [1, "two", {"k": "v"}],
        "12": "numeric key",
    }
    assert [type(plain[k]) for k in ("a", "d", "f", "g", "h")] == [str, bool, int, float, str]
    assert type(plain["j"]) is list and type(plain["j"][2]) is dict


def test_dumps_keeps_unicode_unescaped_and_round_trips() -> None:
    data = {"name": "déploiement 🚀", "rtl": "שלום", "multi": "a\nb\n", "list": ["x", 1]}

    text = yamlio.dumps(data).decode("utf-8")

    assert "🚀" in text and "שלום" in text and "\\u" not in text
    assert yamlio.to_plain(yamlio.loads(text, "t.yaml")) == data


def test_loads_error_names_file_and_line() -> None:
    with pytest.raises(DataError) as caught:
        yamlio.loads("a: 1\nb: [x\nc: 2\n", "some/file.yaml")

    assert caught.value.details == {"file": "some/file.yaml", "line": 3}
    assert caught.value.message.startswith("some/file.yaml:3: invalid YAML: ")
    assert caught.value.exit_code == 4


def test_duplicate_keys_are_a_data_error() -> None:
    with pytest.raises(DataError, match=r"t\.yaml:2: invalid YAML: found duplicate key"):
        yamlio.loads("a: 1\na: 2\n", "t.yaml")


def test_non_utf8_document_is_a_data_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("name: caf\xe9\n".encode("latin-1"))

    with pytest.raises(DataError, match="not UTF-8 text") as caught:
        yamlio.load(path)
    assert caught.value.details == {"file": str(path)}


def test_next_line_character_survives_add_and_revise(store: Store) -> None:
    """U+0085 (NEL, what cp1252 "…" becomes when misread as Latin-1) is a YAML line break."""
    from lore.model import kind_class

    text = "before\x85after …"
    pattern = kind_class("pattern").from_dict(
        {"id": PATTERN_ID, "timestamp": "2024-01-02T03:04:05.000000Z", "name": text}
    )
    store.add([pattern])
    store.revise(PATTERN_ID, {"solution": "x\x85y", "tags": ["\x85"]})

    record = Store(store.path).get(PATTERN_ID)
    assert (record.name, record.solution, record.tags) == (text, "x\x85y", ["\x85"])  # type: ignore[attr-defined]
    assert 'name: "before\\Nafter …"\n' in (
        store.location("pattern") / f"{PATTERN_ID}.yaml"
    ).read_text(encoding="utf-8")


yaml_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=120) | st.text(
    st.sampled_from(list(" \t\n\r\\'\"#:-&*!|>%@`ab\x85\u2028\u2029\x0b\x0c\ufeff")), max_size=60
)
yaml_keys = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=10).filter(
    lambda k: not k.startswith(("<<<<<<<", ">>>>>>>"))
)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        yaml_keys,
        yaml_text | st.lists(yaml_text, max_size=3) | st.integers() | st.booleans() | st.none(),
        max_size=5,
    )
)
def test_property_documents_round_trip_through_yaml(data: dict[str, Any]) -> None:
    assert yamlio.to_plain(yamlio.loads(yamlio.dumps(data).decode("utf-8"), "p.yaml")) == data


STYLED = """\
name: 'single'
problem: "double"
context: plain
solution: |
  literal
  block
origin: >
  folded
"""


@pytest.mark.parametrize(
    "value",
    [
        "\x1b[31mred\x1b[0m from a terminal",
        "tab\there",
        "windows\r\nline",
        "line\u2028separator",
        "\ufeffbom",
        "nel\x85",
        "bell\x07 and \x7f delete",
        "  leading spaces\nand trailing  ",
        "multi\nline\n\n",
    ],
)
@pytest.mark.parametrize("field", ["name", "problem", "solution", "origin"])
def test_revised_value_survives_whatever_style_the_hand_written_value_had(
    store: Store, field: str, value: str
) -> None:
    path = write_pattern(store, f"id: {PATTERN_ID}\ntimestamp: 2024-01-01\n" + STYLED)

    store.revise(PATTERN_ID, {field: value})

    assert getattr(Store(store.path).get(PATTERN_ID), field) == value
    assert Store(store.path).issues == []
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == [f"id: {PATTERN_ID}", "timestamp: 2024-01-01"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["name", "problem", "context", "solution", "origin"]), yaml_text)
def test_property_assigning_into_a_styled_document_round_trips(field: str, value: str) -> None:
    tree = yamlio.loads(STYLED, "p.yaml")
    tree[field] = value
    assert (
        yamlio.to_plain(yamlio.loads(yamlio.dumps(tree).decode("utf-8"), "p.yaml"))[field] == value
    )


def test_adding_a_project_appends_its_entry_without_defaults_and_keeps_the_hand_written_text(
    store: Store,
) -> None:
    from lore.model import kind_class

    path = write_projects(store)
    docs = kind_class("project").from_dict(
        {"id": "docs", "name": "docs", "timestamp": "2024-01-01T00:00:00.000000Z"}
    )

    store.add([docs])

    assert path.read_text(encoding="utf-8") == HAND_WRITTEN_PROJECTS + (
        "  docs:\n    timestamp: '2024-01-01T00:00:00.000000Z'\n    status: active\n"
    )
    assert store.get("docs") == docs


@pytest.mark.parametrize("value", ["0\n\t", "a\n  indented", "trailing \nspace", "\tlead"])
@pytest.mark.parametrize("field", ["solution", "origin"])  # a |literal and a >folded value
def test_a_block_styled_value_that_block_style_cannot_hold_round_trips(
    field: str, value: str
) -> None:
    tree = yamlio.loads(STYLED, "p.yaml")
    tree[field] = value
    assert yamlio.to_plain(yamlio.loads(yamlio.dumps(tree).decode("utf-8"), "p.yaml"))[field] == (
        value
    )
